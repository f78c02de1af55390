"""DMCVectorEnv: N worlds of a Control Suite task in one batched Data (Gymnasium's VectorEnv, native).

    venv = gym.make_vec("numjoco/dmc-cheetah-run-v0", num_envs=64, action_repeat=2, obs_type="pixels")
    obs, info = venv.reset(seed=0)                 # world i as the single env reset(seed=0 + i)
    obs, reward, terminated, truncated, info = venv.step(actions)

A control step of all worlds is three compiled calls, each over every world in parallel: the physics steps
(sim.api.run), the refresh of position / velocity quantities (dm_control's mj_step1: a forward, the
acceleration-stage sensors kept), the observation and reward program (envs/dmc/kernels.py run_batch); pixel
observations add one batched render (sim.Renderer).  Initial states are drawn in Python per world (dm_control's
initialize_episode on the template env, with the world's own RandomState), then copied into the batch.  The model
fields a task edits at reset (a target's position: reacher, fish swim, swimmer, finger turn, manipulator) have a
row per world, each world simulating its own Model struct sharing every other array (as envs/randomize.py).

Autoreset as Gymnasium's modes: NEXT_STEP (default), SAME_STEP (final_obs / final_info in info) or DISABLED
(reset(options={"reset_mask": mask})).  A world and a single env seeded alike give the same trajectory.
"""

import importlib

import numba
import numpy as np
import gymnasium as gym
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

import sim
from sim import api as _api
from sim import types as _t
from sim.jit import struct_addr
from sim.constants import NWARNING
from envs.dmc.base import DMCEnv, FLAT_KEY
from envs.dmc.kernels import run_batch
from envs.pixels import compose

_EMPTY = np.zeros(0, np.int64)


def resolve(task):
    """A DMCEnv subclass from a registered id, a 'module:Class' entry point or the class."""
    if isinstance(task, str):
        if "/" in task or "-v" in task:
            import envs  # noqa: F401  (registers the ids)

            task = gym.spec(task).entry_point
        mod, _, cls = task.partition(":")
        task = getattr(importlib.import_module(mod), cls)
    if not (isinstance(task, type) and issubclass(task, DMCEnv)):
        raise TypeError(f"a DMC vector env needs a DMCEnv task class, got {task!r}")
    return task


class WorldRows:
    """Per-world Model structs of m whose listed arrays (Model struct fields) have a row per world."""

    def __init__(self, m, nworld, fields):
        from sim.io import new_model
        from envs.randomize import model_scalars

        names = [n for n, _, _ in _t.MODEL_ARRAYS]
        unknown = [f for f in fields if f not in names]
        if unknown:
            raise ValueError(f"{unknown} are not Model struct arrays")
        _, base = _t.make_model_struct(m)
        self.rows = {f: np.repeat(base[f][None], nworld, axis=0) for f in fields}
        scal = model_scalars(m)
        args = [scal[n] for n in _t.MODEL_SCALARS]
        self.structs = [
            new_model(*(args + [self.rows[n][w] if n in self.rows else base[n] for n in names])) for w in range(nworld)
        ]
        self._base = base  # the shared arrays outlive the structs
        self.mptrs = np.array([struct_addr(s) for s in self.structs], dtype=np.int64)


class DMCVectorEnv(VectorEnv):
    """num_envs worlds of a DMC task (see the module doc); kwargs go to the task (time_limit, action_repeat,
    flat_observation, obs_type, width, height, camera_id, task parameters)."""

    def __init__(
        self,
        task,
        num_envs=1,
        *,
        autoreset_mode=AutoresetMode.NEXT_STEP,
        num_threads=None,
        max_episode_steps=None,
        **kwargs,
    ):
        if max_episode_steps is not None:
            raise ValueError(
                "DMC envs end their episodes after time_limit seconds: pass time_limit=, not max_episode_steps"
            )
        cls = resolve(task)
        n = int(num_envs)
        if n < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        self.num_threads = None if num_threads is None else int(num_threads)
        self.template = tpl = cls(**kwargs)
        self.num_envs = n
        self.model = m = tpl.model
        self.data = sim.Data(m, nworld=n)
        self.world_rows = WorldRows(m, n, tpl.episode_fields) if tpl.episode_fields else None
        self.mptrs = self.world_rows.mptrs if self.world_rows is not None else _EMPTY
        self.single_observation_space = tpl.observation_space
        self.single_action_space = tpl.action_space
        self.observation_space = batch_space(tpl.observation_space, n)
        self.action_space = batch_space(tpl.action_space, n)
        self.render_mode = tpl.render_mode
        self.metadata = dict(tpl.metadata, autoreset_mode=self.autoreset_mode)
        self.dt = tpl.dt
        pr = tpl._prog
        self._reg = np.zeros((n, pr.code.shape[0]))
        self._out = np.zeros((n, pr.outputs.shape[0]))
        self._acc = tpl.physics.acc_sensors
        self._count = np.zeros(n, np.int64)
        self._rngs = [None] * n
        self._autoreset = np.zeros(n, bool)
        self._needs_reset = np.ones(n, bool)
        self._pixels = None

    # ------------------------------------------------------------------ compiled calls over all worlds
    def _threads(self, fn, *args):
        old = numba.get_num_threads()
        want = min(old if self.num_threads is None else self.num_threads, self.num_envs)
        if want == old:
            return fn(*args)
        numba.set_num_threads(want)
        try:
            return fn(*args)
        finally:
            numba.set_num_threads(old)

    def _physics(self, nstep):
        m, d = self.model, self.data
        if nstep == 0 and self._acc.size:
            sd = d._arrays["sensordata"]
            keep = sd[:, self._acc]
            self._threads(_api.run, m, d, 0, None, self.mptrs)
            sd[:, self._acc] = keep
        else:
            self._threads(_api.run, m, d, nstep, None, self.mptrs)

    def _evaluate(self):
        pr = self.template._prog
        self._threads(
            run_batch, struct_addr(self.data._struct), self.num_envs, pr.code, pr.prm, self._reg, pr.outputs, self._out
        )

    # ------------------------------------------------------------------ resets
    def _reset_worlds(self, worlds, seeds):
        """initialize_episode for each listed world on the template (with the world's model rows and
        RandomState), its state copied into the batch."""
        tpl, d = self.template, self.data
        rows = self.world_rows.rows if self.world_rows is not None else {}
        for w, s in zip(worlds, seeds):
            if s is not None:
                self._rngs[w] = np.random.RandomState(s)
            elif self._rngs[w] is None:
                self._rngs[w] = np.random.RandomState(int(self.np_random.integers(2**32)))
            for f, r in rows.items():
                getattr(tpl.model, f)[...] = r[w].reshape(getattr(tpl.model, f).shape)
            ph = tpl.physics
            ph.reset()
            tpl.initialize_episode(ph, self._rngs[w])
            ph.after_reset()
            for f, r in rows.items():
                r[w] = np.asarray(getattr(tpl.model, f)).reshape(r[w].shape)
            for k, a in tpl.data._arrays.items():
                d._arrays[k][w] = a[0]
        self._count[worlds] = 0
        self._needs_reset[worlds] = False
        self._autoreset[worlds] = False

    def reset(self, *, seed=None, options=None):
        if isinstance(seed, (int, np.integer)):  # a seed per world (a list) leaves the vector env's generator
            super().reset(seed=int(seed))
        mask = None if options is None else options.get("reset_mask")
        if mask is not None:
            mask = np.asarray(mask)
            if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
                raise ValueError(f'options["reset_mask"] must be a bool array of shape ({self.num_envs},)')
            worlds = np.flatnonzero(mask)
        else:
            worlds = np.arange(self.num_envs)
        if seed is None:
            seeds = [None] * worlds.size
        elif isinstance(seed, (int, np.integer)):
            seeds = [int(seed) + int(w) for w in worlds]
        else:
            seeds = list(seed)
            if len(seeds) == self.num_envs and worlds.size != self.num_envs:
                seeds = [seeds[w] for w in worlds]
            if len(seeds) != worlds.size:
                raise ValueError(f"{len(seeds)} seeds for {worlds.size} environments")
        self._reset_worlds(worlds, seeds)
        self._evaluate()
        return self._observations(), {}

    # ------------------------------------------------------------------ step
    def step(self, actions):
        if self._needs_reset.all() and self._rngs[0] is None:
            raise gym.error.ResetNeeded("Cannot call step() before calling reset()")
        a = np.asarray(actions)
        n, nu = self.num_envs, self.model.nu
        if a.shape != (n, nu):
            raise ValueError(f"actions have shape {a.shape}, expected {(n, nu)}")
        if a.dtype.kind not in "biuf" or not np.all(np.isfinite(a)):
            raise ValueError("actions must hold finite real numbers; the simulation state is unchanged")
        mode = self.autoreset_mode
        if mode == AutoresetMode.DISABLED and self._needs_reset.any():
            raise gym.error.ResetNeeded(
                f"environment(s) {np.flatnonzero(self._needs_reset).tolist()} ended and "
                'the autoreset is disabled: reset them with reset(options={"reset_mask": '
                "mask})"
            )
        reset_now = self._autoreset.copy() if mode == AutoresetMode.NEXT_STEP else np.zeros(n, bool)
        tpl, d = self.template, self.data
        arr = d._arrays
        diverged0 = arr["warning_number"][:, NWARNING].copy()
        reward = np.zeros(n)
        ended = np.zeros(n, bool)
        final = None  # observations of worlds that ended before the last repeat
        active = ~reset_now
        for _ in range(tpl.action_repeat):
            arr["ctrl"][active] = a[active]
            self._physics(tpl.n_sub_steps)
            self._physics(0)
            self._evaluate()
            reward[active] += self._out[active, -1]
            self._count[active] += 1
            done = active & ((self._count >= tpl._step_limit) | (arr["warning_number"][:, NWARNING] != diverged0))
            if done.any():
                ended |= done
                active &= ~done
                if active.any():  # worlds ending before the others: their observation now
                    final = self._out.copy() if final is None else np.where(done[:, None], self._out, final)
            if not active.any():
                break
        if final is not None:
            self._out[ended] = final[ended]
        diverged = arr["warning_number"][:, NWARNING] != diverged0
        if reset_now.any():
            self._reset_worlds(np.flatnonzero(reset_now), [None] * int(reset_now.sum()))
            self._evaluate_rows(reset_now)
        truncated = ended.copy()
        terminated = np.zeros(n, bool)
        info = {"discount": np.ones(n), "_discount": np.ones(n, bool)}
        if diverged.any():
            info["diverged"] = diverged
            info["_diverged"] = diverged.copy()
        obs = self._observations()
        if mode == AutoresetMode.NEXT_STEP:
            self._autoreset = ended.copy()
        elif mode == AutoresetMode.SAME_STEP and ended.any():
            fo = np.full(n, None, dtype=object)
            for w in np.flatnonzero(ended):
                fo[w] = _index(obs, w)
            info["final_obs"], info["_final_obs"] = fo, ended.copy()
            info["final_info"] = {"discount": np.ones(n), "_discount": ended.copy()}
            info["_final_info"] = ended.copy()
            self._reset_worlds(np.flatnonzero(ended), [None] * int(ended.sum()))
            self._evaluate_rows(ended)
            obs = self._observations()
        elif mode == AutoresetMode.DISABLED:
            self._needs_reset |= ended
        return obs, reward, terminated, truncated, info

    def _evaluate_rows(self, mask):
        """Outputs of the listed worlds after their reset (the others keep their step's)."""
        keep = self._out[~mask].copy()
        self._evaluate()
        self._out[~mask] = keep

    # ------------------------------------------------------------------ observations
    def _observations(self):
        tpl = self.template
        frames = None if tpl.obs_type == "states" else self._render_pixels()
        if tpl.obs_type == "pixels":
            return frames
        flat = self._out[:, : tpl._nobs]
        if tpl.flat_observation:
            state = flat.copy()
        else:
            n = self.num_envs
            state = {name: flat[:, a:b].reshape((n,) + shape).copy() for name, a, b, shape in tpl._slices}
        return compose(state, frames, tpl.obs_type, FLAT_KEY)

    def _render_pixels(self):
        """(num_envs, H, W, 3) uint8: every world's image in one batched render."""
        if self._pixels is None:
            self._pixels = self.template.pixel_renderer()
        return self._pixels.frames(self.data, self._threads)

    def render(self):
        if self.render_mode is None:
            gym.logger.warn('render() called without a render_mode: pass render_mode="rgb_array"')
            return None
        return tuple(self._render_pixels())

    def close_extras(self, **kwargs):
        if self._pixels is not None:
            self._pixels.close()
            self._pixels = None
        self.template.close()


def _index(obs, w):
    if isinstance(obs, dict):
        return {k: v[w].copy() for k, v in obs.items()}
    return obs[w].copy()


class VectorEntryPoint:
    """The vector_entry_point of a registered DMC task: gym.make_vec(id, num_envs=N, **kwargs) calls it."""

    def __init__(self, entry_point):
        self.entry_point = entry_point

    def __call__(self, num_envs=1, **kwargs):
        return DMCVectorEnv(self.entry_point, num_envs, **kwargs)

    def __repr__(self):
        return f"VectorEntryPoint({self.entry_point!r})"

    def __eq__(self, other):
        return isinstance(other, VectorEntryPoint) and other.entry_point == self.entry_point
