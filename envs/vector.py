"""numjoco's vector environment: N worlds of one task in one batched Data, Gymnasium's VectorEnv semantics, for
every task family (the numjoco tasks, the Control Suite, Fetch / Shadow Hand, arm reach, the multi-agent tasks'
single-env view).

    import gymnasium as gym, envs
    venv = gym.make_vec("numjoco/Hopper-v0", num_envs=256)                  # the task's vector_entry_point
    venv = gym.make_vec("numjoco/dmc-cheetah-run-v0", num_envs=64, num_threads=2,
                        autoreset_mode=gym.vector.AutoresetMode.SAME_STEP, action_repeat=2)
    obs, info = venv.reset(seed=0)                                          # world i seeded 0 + i
    obs, reward, terminated, truncated, info = venv.step(actions)           # (N, ...) arrays, info of arrays

The semantics and the numbers are those of Gymnasium's SyncVectorEnv over gym.make(id) envs seeded seed + i, bit
for bit: the three autoreset modes (final_obs / final_info with the same-step one), reset(options={"reset_mask":
...}), seeds, render(), call / get_attr / set_attr on a world seen as a single env.  The worlds are run by the
task family's engine (envs/worlds.py protocol: envs/engine.py, envs/dmc/engine.py, envs/robotics/engine.py);
make_engine picks it from the task class.  Keywords: max_episode_steps (default: the spec's; 0 = no truncation),
autoreset_mode (AutoresetMode or its value, default NEXT_STEP), num_threads (numba threads of the batched calls,
default numba's setting), randomization (envs/randomize.py, the numjoco tasks), render_mode; the others go to the
task (ctrl_cost_weight=..., xml_file=..., time_limit=..., reward_type=...).
"""

import numpy as np
import gymnasium as gym
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from envs.dmc.base import DMCEnv
from envs.dmc.engine import DMCEngine
from envs.engine import NumjocoEngine
from envs.entry import resolve_task
from envs.robotics.core import RobotEnv
from envs.robotics.engine import RobotEngine
from envs.worlds import mask_info, merge_info, reset_mask, world_seeds


def engine_class(task):
    """The engine of the family of `task` (an id, an entry point or a class)."""
    cls = resolve_task(task)[0]
    if isinstance(cls, type) and issubclass(cls, DMCEnv):
        return DMCEngine
    if isinstance(cls, type) and issubclass(cls, RobotEnv):
        return RobotEngine
    return NumjocoEngine


def make_engine(task, num_envs, **options):
    """The engine of num_envs worlds of `task` (options: same_step, max_episode_steps, num_threads,
    randomization, the task's keywords)."""
    return engine_class(task)(task, num_envs, **options)


def _autoreset_mode(mode):
    if mode is None:
        return AutoresetMode.NEXT_STEP
    if isinstance(mode, AutoresetMode):
        return mode
    try:
        return AutoresetMode(mode)
    except ValueError:
        try:
            return AutoresetMode[str(mode).upper()]
        except KeyError:
            raise ValueError(
                f"autoreset_mode must be one of {[m.value for m in AutoresetMode]}, got {mode!r}"
            ) from None


class NumjocoVectorEnv(VectorEnv):
    """Gymnasium VectorEnv of num_envs worlds of a numjoco task of any family (see the module doc)."""

    def __init__(self, task, num_envs=1, *, autoreset_mode=None, render_mode=None, **options):
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        if render_mode is not None:
            options["render_mode"] = render_mode
        self.engine = eng = make_engine(
            task, num_envs, same_step=self.autoreset_mode == AutoresetMode.SAME_STEP, **options
        )
        env, n = eng.env, eng.num_envs
        self.num_envs = n
        self.single_observation_space = env.observation_space
        self.single_action_space = env.action_space
        self.observation_space = batch_space(env.observation_space, n)
        self.action_space = batch_space(env.action_space, n)
        self.render_mode = env.render_mode
        self.metadata = dict(env.metadata, autoreset_mode=self.autoreset_mode)
        self._autoreset = np.zeros(n, bool)  # NEXT_STEP: the worlds the next step resets
        self._needs_reset = np.ones(n, bool)  # before the first reset, or ended with the autoreset disabled
        self._started = False

    @property
    def env(self):
        """The env the engine drives (the template of a one-world env, or the batched robotics env)."""
        return self.engine.env

    @property
    def model(self):
        return self.engine.model

    @property
    def data(self):
        return self.engine.data

    @property
    def dt(self):
        return self.engine.dt

    @property
    def num_threads(self):
        return self.engine.num_threads

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed=None, options=None):
        if isinstance(seed, (int, np.integer)):  # a seed per world (a list) leaves the vector env's generator
            super().reset(seed=int(seed))
        mask = reset_mask(options, self.num_envs)
        worlds = np.arange(self.num_envs) if mask is None else np.flatnonzero(mask)
        seeds = world_seeds(seed, worlds, self.num_envs)
        self.engine.seed(worlds, seeds)
        info = self.engine.reset(worlds)
        self._autoreset[worlds] = False
        self._needs_reset[worlds] = False
        self._started = True
        return self.engine.observations(), info

    def step(self, actions):
        eng, mode = self.engine, self.autoreset_mode
        if not self._started:
            raise gym.error.ResetNeeded("Cannot call step() before calling reset()")
        if mode == AutoresetMode.DISABLED and self._needs_reset.any():
            raise gym.error.ResetNeeded(
                f"environment(s) {np.flatnonzero(self._needs_reset).tolist()} ended and the autoreset is disabled: "
                'reset them with reset(options={"reset_mask": mask}) before stepping'
            )
        if mode == AutoresetMode.SAME_STEP:
            reward, terminated, truncated, info, ended = eng.step_same(actions)
            if ended is not None:
                done = ended.mask
                final_info = mask_info(info, done)
                info = merge_info(mask_info(info, ~done), ended.reset_info)
                info["final_obs"], info["_final_obs"] = ended.obs, done.copy()
                info["final_info"], info["_final_info"] = final_info, done.copy()
        elif mode == AutoresetMode.NEXT_STEP:
            reward, terminated, truncated, info = eng.step(actions, self._autoreset.copy())
            self._autoreset = terminated | truncated
        else:
            reward, terminated, truncated, info = eng.step(actions, None)
            self._needs_reset |= terminated | truncated
        return eng.observations(), reward, terminated, truncated, info

    def render(self):
        """A frame per world, as SyncVectorEnv returns them (a tuple; rgbd_tuple: a (rgb, depth) pair per world),
        each as its single env's render() draws it."""
        if self.render_mode is None:
            gym.logger.warn('render() called without a render_mode: pass render_mode="rgb_array"')
            return None
        return tuple(self.engine.render())

    def close_extras(self, **kwargs):
        self.engine.close()

    # ------------------------------------------------------------------ per-environment access
    def get_attr(self, name):
        """getattr of every sub-environment (a world seen as a single env)."""
        return tuple(self.engine.world_attr(w, name) for w in range(self.num_envs))

    def set_attr(self, name, values):
        if not isinstance(values, (list, tuple)):
            values = [values] * self.num_envs
        if len(values) != self.num_envs:
            raise ValueError(f"{len(values)} values for {self.num_envs} environments")
        for w, v in enumerate(values):
            self.engine.set_world_attr(w, name, v)

    def call(self, name, *args, **kwargs):
        out = []
        for w in range(self.num_envs):
            f = self.engine.world_attr(w, name)
            out.append(f(*args, **kwargs) if callable(f) else f)
        return tuple(out)

    def __repr__(self):
        sid = self.spec.id if self.spec is not None else self.engine.task_class.__name__
        return f"NumjocoVectorEnv({sid}, num_envs={self.num_envs})"


class VectorEntryPoint:
    """The vector_entry_point of a registered numjoco task: gym.make_vec(id, num_envs=N, **kwargs) calls it."""

    def __init__(self, entry_point):
        self.entry_point = entry_point

    def __call__(self, num_envs=1, **kwargs):
        return NumjocoVectorEnv(self.entry_point, num_envs, **kwargs)

    def __repr__(self):
        return f"VectorEntryPoint({self.entry_point!r})"

    def __eq__(self, other):
        return isinstance(other, VectorEntryPoint) and other.entry_point == self.entry_point
