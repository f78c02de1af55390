"""Vector environments of the Fetch and Shadow Hand tasks: N worlds in one batched Data (RobotEnv.batched), each
env step one pass of numpy over the worlds and one compiled call for their physics.

    venv = gym.make_vec("numjoco/FetchPush-v0", num_envs=64)       # RobotVectorEnv (Gymnasium VectorEnv)
    sb3 = envs.make_sb3_vec_env("numjoco/FetchPush-v0", 8)         # RobotSB3VecEnv (SB3 VecEnv, HER-ready)

Semantics are those of Gymnasium's SyncVectorEnv / SB3's DummyVecEnv over `gym.make(id)` envs seeded seed + i, with
the same numbers: the three autoreset modes, info["is_success"] with its mask, final_obs / final_info (same-step),
reset(options={"reset_mask": ...}); terminal_observation, TimeLimit.truncated, float32 rewards for SB3.  Worlds
draw their initial states and goals from their own generators (Python, only for the worlds that reset).
"""

import importlib

import numba
import numpy as np
import gymnasium as gym
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv

from envs.pixels import compose
from envs.robotics.core import RobotEnv
from envs.vector import _autoreset_mode, _reset_mask, _set_spaces, _with_render_mode


def resolve_robot_task(task, kwargs):
    """(RobotEnv subclass, constructor kwargs, the spec's max_episode_steps or None) for a registered id, a
    'module:Class' entry point or a class; kwargs override the registered ones."""
    steps = None
    if isinstance(task, str) and ":" not in task:
        task = gym.spec(task)
    elif isinstance(task, str) and ("/" in task.rpartition(":")[2] or "-v" in task.rpartition(":")[2]):
        mod, _, rest = task.rpartition(":")
        importlib.import_module(mod)
        task = gym.spec(rest)
    if isinstance(task, gym.envs.registration.EnvSpec):
        task, kwargs, steps = task.entry_point, dict(task.kwargs, **kwargs), task.max_episode_steps
    if isinstance(task, str):
        mod, _, attr = task.partition(":")
        task = getattr(importlib.import_module(mod), attr)
    if not (isinstance(task, type) and issubclass(task, RobotEnv)):
        raise TypeError(f"a robotics vector env needs a RobotEnv task class, got {task!r}")
    return task, dict(kwargs), steps


class RobotBatch:
    """The batched engine shared by the Gymnasium and SB3 front ends: the task on N worlds, each world's
    generator and step count, the time limit."""

    def __init__(self, task, num_envs, *, max_episode_steps=None, num_threads=None, **kwargs):
        cls, kwargs, spec_steps = resolve_robot_task(task, kwargs)
        n = int(num_envs)
        if n < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        if num_threads is not None and not 1 <= int(num_threads) <= numba.config.NUMBA_NUM_THREADS:
            raise ValueError(
                f"num_threads must be in [1, {numba.config.NUMBA_NUM_THREADS}] (numba's thread pool, "
                f"NUMBA_NUM_THREADS), got {num_threads}"
            )
        self.task_class, self.kwargs, self.n = cls, kwargs, n
        self.env = cls.batched(n, **kwargs)
        self.env.num_threads = None if num_threads is None else int(num_threads)
        steps = spec_steps if max_episode_steps is None else max_episode_steps
        self.max_episode_steps = int(steps or 0)
        self.elapsed = np.zeros(n, np.int64)
        self.all = np.arange(n, dtype=np.int64)
        self.started = False

    def seed_worlds(self, worlds, seeds):
        """New generators for the listed worlds: seeds None (keep, or a fresh random one), an int (world w gets
        seed + w), or one seed (or None) per listed world."""
        if seeds is None:
            seeds = [None] * len(worlds)
        elif isinstance(seeds, (int, np.integer)):
            seeds = [int(seeds) + int(w) for w in worlds]
        else:
            seeds = list(seeds)
            if len(seeds) != len(worlds):
                raise ValueError(f"{len(seeds)} seeds for {len(worlds)} environments")
        rngs = self.env._rngs
        for w, s in zip(np.asarray(worlds).tolist(), seeds):
            if s is not None or rngs[w] is None:
                rngs[w], _ = seeding.np_random(s)

    def reset(self, worlds, seeds=None):
        worlds = np.asarray(worlds, np.int64)
        self.seed_worlds(worlds, seeds)
        self.env.reset_worlds(worlds)
        self.elapsed[worlds] = 0
        self.started = True

    def check_actions(self, actions):
        return self.env.check_actions(actions, (self.n,) + self.env.action_space.shape)

    def step(self, actions, worlds):
        """Step the listed worlds (actions (n, n_actions) already checked); returns their (achieved goals,
        success (float32), reward, terminated, truncated) and leaves the observations in the Data."""
        env = self.env
        env.step_worlds(worlds, actions[worlds])
        self.elapsed[worlds] += 1
        obs, ag = env.observe(worlds)
        dg = env._goal[worlds]
        success = env.goal_success(ag, dg)
        info = {"is_success": success}
        reward = np.asarray(env.compute_reward(ag, dg, info), np.float64)
        terminated = np.asarray(env.compute_terminated(ag, dg, info), bool)
        truncated = np.asarray(env.compute_truncated(ag, dg, info), bool)
        if self.max_episode_steps:
            truncated = truncated | (self.elapsed[worlds] >= self.max_episode_steps)
        return obs, ag, dg, success, reward, terminated, truncated

    def observations(self, worlds=None):
        return self.env.observations(self.all if worlds is None else worlds)

    def world_attr(self, w, name):
        """An attribute of world w seen as a single env: its generator, goal and Data rows; the rest is shared."""
        env = self.env
        if name == "np_random":
            return env._rngs[w]
        if name == "goal":
            return env._goal[w].copy()
        if name in env.p:
            return env.p[name]
        return getattr(env, name)


def _obs_dict(obs, ag, dg):
    return {"observation": obs, "achieved_goal": ag, "desired_goal": dg}


class RobotVectorEnv(VectorEnv):
    """Gymnasium VectorEnv of a Fetch / Shadow Hand task (see the module doc).

    task: registered id, 'module:Class' or RobotEnv subclass; num_envs; max_episode_steps (default: the spec's;
    0 = no truncation); autoreset_mode (AutoresetMode or its value, default NEXT_STEP); num_threads (numba
    threads, default numba's setting); render_mode; other keywords go to the task (reward_type=...)."""

    def __init__(
        self,
        task,
        num_envs=1,
        *,
        max_episode_steps=None,
        autoreset_mode=None,
        num_threads=None,
        render_mode=None,
        **kwargs,
    ):
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        kwargs = _with_render_mode(kwargs, render_mode)
        self.batch = b = RobotBatch(
            task, num_envs, max_episode_steps=max_episode_steps, num_threads=num_threads, **kwargs
        )
        _set_spaces(self, b.env, b.n)
        self._needs_reset = np.ones(self.num_envs, bool)

    @property
    def env(self):
        """The batched task (model, data with a world axis, goals, compute_reward, ...)."""
        return self.batch.env

    @property
    def model(self):
        return self.batch.env.model

    @property
    def data(self):
        return self.batch.env.data

    @property
    def dt(self):
        return self.batch.env.dt

    def reset(self, *, seed=None, options=None):
        if isinstance(seed, (int, np.integer)):
            super().reset(seed=int(seed))
        mask = _reset_mask(options, self.num_envs)
        if mask is not None:
            worlds = np.flatnonzero(mask)
            if seed is not None and not isinstance(seed, (int, np.integer)):
                seed = list(seed)
                if len(seed) == self.num_envs:
                    seed = [seed[w] for w in worlds]
        else:
            worlds = self.batch.all
            if seed is not None and not isinstance(seed, (int, np.integer)) and len(seed) != self.num_envs:
                raise ValueError(f"{len(seed)} seeds for {self.num_envs} environments")
        self.batch.reset(worlds, seed)
        self._autoreset[worlds] = False
        self._needs_reset[worlds] = False
        return self.batch.observations(), {}

    def step(self, actions):
        b, n = self.batch, self.num_envs
        if not b.started:
            raise gym.error.ResetNeeded("Cannot call step() before calling reset()")
        mode = self.autoreset_mode
        if mode == AutoresetMode.DISABLED and self._needs_reset.any():
            raise gym.error.ResetNeeded(
                f"environment(s) {np.flatnonzero(self._needs_reset).tolist()} ended and the autoreset is disabled: "
                'reset them with reset(options={"reset_mask": mask}) before stepping'
            )
        a = b.check_actions(actions)
        reset_now = self._autoreset.copy() if mode == AutoresetMode.NEXT_STEP else np.zeros(n, bool)
        stepped = np.flatnonzero(~reset_now)
        reward = np.zeros(n)
        terminated = np.zeros(n, bool)
        truncated = np.zeros(n, bool)
        success = np.zeros(n, np.float32)
        info = {}
        if stepped.size:
            obs, ag, dg, succ, rew, term, trunc = b.step(a, stepped)
            reward[stepped], terminated[stepped], truncated[stepped], success[stepped] = rew, term, trunc, succ
        if reset_now.any():
            b.reset(np.flatnonzero(reset_now))
        done = terminated | truncated
        shown = ~reset_now
        if mode == AutoresetMode.SAME_STEP and done.any():
            ended = np.flatnonzero(done)
            final = np.full(n, None, dtype=object)
            pos = np.searchsorted(stepped, ended)
            frames = None if b.env.obs_type == "states" else b.env.frames(ended)  # before the resets
            for k, (w, i) in enumerate(zip(ended.tolist(), pos.tolist())):
                final[w] = _obs_dict(obs[i].copy(), ag[i].copy(), dg[i].copy())
                if frames is not None:
                    final[w] = compose(final[w], frames[k], b.env.obs_type)
            info["final_obs"], info["_final_obs"] = final, done.copy()
            info["final_info"] = {"is_success": np.where(done, success, np.float32(0)), "_is_success": done.copy()}
            info["_final_info"] = done.copy()
            b.reset(ended)
            shown &= ~done
        if shown.any():
            info["is_success"] = np.where(shown, success, np.float32(0))
            info["_is_success"] = shown
        if mode == AutoresetMode.NEXT_STEP:
            self._autoreset = done
        elif mode == AutoresetMode.DISABLED:
            self._needs_reset |= done
        return b.observations(), reward, terminated, truncated, info

    def render(self):
        """A frame per world (a tuple, as SyncVectorEnv returns them), each with its own goal marked."""
        if self.render_mode is None:
            gym.logger.warn('render() called without a render_mode: pass render_mode="rgb_array"')
            return None
        return tuple(self.batch.env.render_world(w) for w in range(self.num_envs))

    def close_extras(self, **kwargs):
        self.batch.env.close()

    def get_attr(self, name):
        return tuple(self.batch.world_attr(w, name) for w in range(self.num_envs))

    def set_attr(self, name, values):
        if not isinstance(values, (list, tuple)):
            values = [values] * self.num_envs
        if len(values) != self.num_envs:
            raise ValueError(f"{len(values)} values for {self.num_envs} environments")
        if name == "goal":
            self.batch.env._goal[...] = np.asarray(values, np.float64)
            return
        raise AttributeError(
            f"{name!r} is shared by the worlds of a numjoco vector env and cannot be set per "
            "environment; create the env with the value instead"
        )

    def call(self, name, *args, **kwargs):
        out = []
        for w in range(self.num_envs):
            f = self.batch.world_attr(w, name)
            out.append(f(*args, **kwargs) if callable(f) else f)
        return tuple(out)

    def __repr__(self):
        sid = self.spec.id if self.spec is not None else self.batch.task_class.__name__
        return f"RobotVectorEnv({sid}, num_envs={self.num_envs})"


class RobotVectorEntryPoint:
    """The vector_entry_point of a registered robotics task: gym.make_vec(id, num_envs=N, **kwargs) calls it."""

    def __init__(self, entry_point):
        self.entry_point = entry_point

    def __call__(self, num_envs=1, **kwargs):
        return RobotVectorEnv(self.entry_point, num_envs, **kwargs)

    def __repr__(self):
        return f"RobotVectorEntryPoint({self.entry_point!r})"

    def __eq__(self, other):
        return isinstance(other, RobotVectorEntryPoint) and other.entry_point == self.entry_point


def make_sb3_vec_env(task, n_envs, seed=None, **kwargs):
    """RobotSB3VecEnv of n_envs worlds (world i seeded seed + i at the first reset when seed is given)."""
    from envs.robotics.sb3 import RobotSB3VecEnv
    from envs.sb3 import seeded

    return seeded(RobotSB3VecEnv(task, n_envs, **kwargs), seed)
