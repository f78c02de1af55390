"""The engine of the Control Suite tasks behind the vector envs (envs/worlds.py protocol): N worlds of a DMC task
in one batched Data.

A control step of all worlds is one call of the physics entry (sim.api.run) with the task's program compiled for
N worlds (envs/dmc/base.py): per world the action, the physics steps, the refresh of position / velocity
quantities (dm_control's mj_step1: a forward, the acceleration-stage sensors kept), the observation and reward
program and the step limit (sim/engine/task.py); action_repeat=k makes an env step k such calls, a world whose
episode ended sitting the rest out (MODE_SKIP).  Pixel observations add one batched render (sim.Renderer).
Initial states are drawn in Python per world (dm_control's initialize_episode on the template env, with the
world's own RandomState), copied into the batch, then observed by one call (MODE_OBSERVE).  The model fields a task
edits at reset (a target's position: reacher, fish swim, swimmer, finger turn, manipulator) have a row per world,
each world simulating its own Model struct sharing every other array (as envs/randomize.py).
"""

import numba
import numpy as np

import sim
from sim import api as _api
from sim.constants import MODE_OBSERVE, MODE_SKIP, ST_DIVERGED, ST_TRUNCATED
from envs.dmc.base import DMCEnv, FLAT_KEY
from envs.entry import resolve_task
from envs.pixels import compose
from envs.randomize import WorldRows
from envs.render import EnvRenderer
from envs.worlds import Worlds, check_num_envs, check_threads, on_threads

_EMPTY = np.zeros(0, np.int64)
# attributes of a single env that hold its simulation state: a world's is a row of the batch, not the template's
_BATCHED_STATE = frozenset(
    ("data", "physics", "np_random", "step", "reset", "initialize_episode", "_prog", "_action", "_obs", "_status")
    + ("_reg", "_needs_reset", "_observation", "_render_pixels")
)


_BUFFERS = ("action", "obs", "status", "reg", "mode")  # of the task program, held under these names


class DMCEngine(Worlds):
    """num_envs worlds of a DMC task (see the module doc); kwargs go to the task (time_limit, action_repeat,
    flat_observation, obs_type, width, height, camera_id, render_mode, task parameters)."""

    def __init__(self, task, num_envs, *, num_threads=None, max_episode_steps=None, same_step=False, **kwargs):
        if max_episode_steps is not None:
            raise ValueError(
                "DMC envs end their episodes after time_limit seconds: pass time_limit=, not max_episode_steps"
            )
        cls, kwargs, _ = resolve_task(task, kwargs, DMCEnv)
        n = self.num_envs = check_num_envs(num_envs)
        self.num_threads = check_threads(num_threads)
        self.task_class = cls
        self.env = self.template = tpl = cls(**kwargs)
        self.model = m = tpl.model
        self.data = sim.Data(m, nworld=n)
        self.world_rows = WorldRows(m, n, tpl.episode_fields) if tpl.episode_fields else None
        self.mptrs = self.world_rows.mptrs if self.world_rows is not None else _EMPTY
        self._compile()
        self._rngs = [None] * n
        self._seeder = np.random.default_rng()  # RandomStates of worlds reset without a seed
        self._pixels = None
        self._renderer = None

    def _compile(self):
        """The task program for the worlds (the template's task, envs/dmc/base.py) and its buffers."""
        self.prog = self.template.compile_task(self.num_envs)
        a = self.prog.arrays
        self.action, self.obs, self.status, self.reg, self.mode = (a[k] for k in _BUFFERS)

    def __getstate__(self):
        # pickle: the task program is rebuilt (its struct does not pickle), its buffers travel
        st = {k: v for k, v in self.__dict__.items() if k != "prog" and k not in _BUFFERS}
        st["task_arrays"] = {k: v.copy() for k, v in self.prog.arrays.items()}
        return st

    def __setstate__(self, st):
        arrays = st.pop("task_arrays")
        self.__dict__.update(st)
        self._compile()
        for k, v in arrays.items():
            self.prog.arrays[k][...] = v

    # ------------------------------------------------------------------ compiled calls over all worlds
    def _threads(self, fn, *args):
        old = numba.get_num_threads()
        return on_threads(min(old if self.num_threads is None else self.num_threads, self.num_envs), old, fn, *args)

    def _run(self, nstep):
        """One call of the physics entry with the task program: every world in its mode (sim/types.py Task)."""
        return self._threads(_api.run, self.model, self.data, nstep, self.prog.struct, self.mptrs)

    # ------------------------------------------------------------------ resets
    def seed(self, worlds, seeds):
        for w, s in zip(worlds, seeds):
            if s is not None:
                self._rngs[w] = np.random.RandomState(s)
            elif self._rngs[w] is None:
                self._rngs[w] = np.random.RandomState(int(self._seeder.integers(2**32)))

    def _reset_worlds(self, worlds):
        """initialize_episode for each listed world on the template (with the world's model rows and
        RandomState), its state copied into the batch."""
        tpl = self.template
        rows = self.world_rows.rows if self.world_rows is not None else {}
        src, dst = _api.batch_arrays(tpl.data), _api.batch_arrays(self.data)
        for w in worlds:
            for f, r in rows.items():
                getattr(tpl.model, f)[...] = r[w].reshape(getattr(tpl.model, f).shape)
            ph = tpl.physics
            ph.reset()
            tpl.initialize_episode(ph, self._rngs[w])
            ph.after_reset()
            for f, r in rows.items():
                r[w] = np.asarray(getattr(tpl.model, f)).reshape(r[w].shape)
            for k, a in src.items():
                dst[k][w] = a[0]
        # one call observes them (their status cleared), the other worlds sit it out
        self.mode[:] = MODE_SKIP
        self.mode[worlds] = MODE_OBSERVE
        self._run(0)

    def reset(self, worlds):
        self._reset_worlds(np.asarray(worlds, np.int64))
        return {}

    # ------------------------------------------------------------------ step
    def step(self, actions, reset=None):
        a = np.asarray(actions)
        n, nu = self.num_envs, self.model.nu
        if a.shape != (n, nu):
            raise ValueError(f"actions have shape {a.shape}, expected {(n, nu)}")
        if a.dtype.kind not in "biuf" or not np.all(np.isfinite(a)):
            raise ValueError("actions must hold finite real numbers; the simulation state is unchanged")
        reset_now = np.zeros(n, bool) if reset is None else reset
        tpl = self.template
        self.action[...] = a
        reward = np.zeros(n)
        ended = np.zeros(n, bool)
        diverged = np.zeros(n, bool)
        active = ~reset_now
        for _ in range(tpl.action_repeat):  # a world whose episode ended keeps its last step's observation
            self.mode[~active] = MODE_SKIP
            self._run(tpl.n_sub_steps)
            reward[active] += self.prog.arrays["reward"][active]
            diverged |= active & (self.status[:, ST_DIVERGED] != 0)
            done = active & (self.status[:, ST_TRUNCATED] != 0)
            ended |= done
            active &= ~done
            if not active.any():
                break
        stepped = ~reset_now
        if reset_now.any():
            self._reset_worlds(np.flatnonzero(reset_now))
        info = {"discount": np.where(stepped, 1.0, 0.0), "_discount": stepped} if stepped.any() else {}
        if diverged.any():
            info["diverged"] = diverged
            info["_diverged"] = diverged.copy()
        return reward, np.zeros(n, bool), ended, info

    # ------------------------------------------------------------------ observations, rendering
    def observations(self):
        tpl = self.template
        frames = None if tpl.obs_type == "states" else self.pixel_frames()
        if tpl.obs_type == "pixels":
            return frames
        flat = self.obs
        if tpl.flat_observation:
            state = flat.copy()
        else:
            n = self.num_envs
            state = {name: flat[:, a:b].reshape((n,) + shape).copy() for name, a, b, shape in tpl._slices}
        return compose(state, frames, tpl.obs_type, FLAT_KEY)

    def world_observations(self, worlds):
        obs = self.observations()
        if isinstance(obs, dict):
            return [{k: v[w].copy() for k, v in obs.items()} for w in worlds]
        return [obs[w].copy() for w in worlds]

    def pixel_frames(self):
        """(num_envs, H, W, 3) uint8: every world's image of the pixel camera in one batched render."""
        if self._pixels is None:
            self._pixels = self.template.pixel_renderer()
        return self._pixels.frames(self.data, self._threads)

    def render(self, world=None):
        """The single env's render() of every world (or of `world`), in one batched call."""
        if self._renderer is None:
            self._renderer = EnvRenderer(self.template)
        frames = self._renderer.render_data(self.data, world)
        return frames if world is not None else list(frames)

    def close(self):
        for r in (self._pixels, self._renderer):
            if r is not None:
                r.close()
        self._pixels = self._renderer = None
        self.template.close()

    # ------------------------------------------------------------------ per-world access
    def world_attr(self, w, name):
        """A world seen as a single env: its RandomState (`random`), its frame (`render`) and last reward
        (`reward`); the task's settings are shared; the state lives in the batch."""
        if name == "random":
            return self._rngs[w]
        if name == "render":  # the single env's: a warning and None without a render_mode
            return lambda: self.template.render() if self.template.render_mode is None else self.render(w)
        if name == "reward":
            return lambda: float(self.reg[w, self.template._ireward])
        if name in _BATCHED_STATE or (name == "model" and self.world_rows is not None):
            raise AttributeError(
                f"{name!r} of a world is held in the batched engine, not in a single env: see venv.engine "
                "(data with a world axis first; world_rows: the model arrays a task sets per episode)"
            )
        return getattr(self.template, name)
