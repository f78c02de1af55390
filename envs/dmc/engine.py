"""The engine of the Control Suite tasks behind the vector envs (envs/worlds.py protocol): N worlds of a DMC task
in one batched Data.

A control step of all worlds is three compiled calls, each over every world in parallel: the physics steps
(sim.api.run), the refresh of position / velocity quantities (dm_control's mj_step1: a forward, the
acceleration-stage sensors kept), the observation and reward program (envs/dmc/kernels.py run_batch); pixel
observations add one batched render (sim.Renderer).  Initial states are drawn in Python per world (dm_control's
initialize_episode on the template env, with the world's own RandomState), then copied into the batch.  The model
fields a task edits at reset (a target's position: reacher, fish swim, swimmer, finger turn, manipulator) have a
row per world, each world simulating its own Model struct sharing every other array (as envs/randomize.py).
"""

import numba
import numpy as np

import sim
from sim import api as _api
from sim.constants import NWARNING
from envs.dmc.base import DMCEnv, FLAT_KEY
from envs.dmc.kernels import run_batch
from envs.entry import resolve_task
from envs.pixels import compose
from envs.randomize import WorldRows
from envs.render import EnvRenderer
from envs.worlds import Worlds, check_num_envs, check_threads, on_threads

_EMPTY = np.zeros(0, np.int64)
# attributes of a single env that hold its simulation state: a world's is a row of the batch, not the template's
_BATCHED_STATE = frozenset(
    ("data", "physics", "np_random", "step", "reset", "initialize_episode", "_out", "_reg", "_count")
    + ("_needs_reset", "_evaluate", "_observation", "_render_pixels", "_diverged", "_diverged0")
)


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
        pr = tpl._prog
        self._reg = np.zeros((n, pr.code.shape[0]))
        self._out = np.zeros((n, pr.outputs.shape[0]))
        self._acc = tpl.physics.acc_sensors
        self._count = np.zeros(n, np.int64)
        self._rngs = [None] * n
        self._seeder = np.random.default_rng()  # RandomStates of worlds reset without a seed
        self._pixels = None
        self._renderer = None

    # ------------------------------------------------------------------ compiled calls over all worlds
    def _threads(self, fn, *args):
        old = numba.get_num_threads()
        return on_threads(min(old if self.num_threads is None else self.num_threads, self.num_envs), old, fn, *args)

    def _physics(self, nstep):
        m, d = self.model, self.data
        if nstep == 0 and self._acc.size:
            sd = _api.batch_arrays(d)["sensordata"]
            keep = sd[:, self._acc]
            self._threads(_api.run, m, d, 0, None, self.mptrs)
            sd[:, self._acc] = keep
        else:
            self._threads(_api.run, m, d, nstep, None, self.mptrs)

    def _evaluate(self):
        pr = self.template._prog
        self._threads(
            run_batch, _api.data_address(self.data), self.num_envs, pr.code, pr.prm, self._reg, pr.outputs, self._out
        )

    def _evaluate_rows(self, mask):
        """Outputs of the listed worlds after their reset (the others keep their step's)."""
        keep = self._out[~mask].copy()
        self._evaluate()
        self._out[~mask] = keep

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
        self._count[worlds] = 0

    def reset(self, worlds):
        worlds = np.asarray(worlds, np.int64)
        self._reset_worlds(worlds)
        if worlds.size == self.num_envs:
            self._evaluate()
        else:
            mask = np.zeros(self.num_envs, bool)
            mask[worlds] = True
            self._evaluate_rows(mask)
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
        arr = _api.batch_arrays(self.data)
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
        stepped = ~reset_now
        diverged = (arr["warning_number"][:, NWARNING] != diverged0) & stepped
        if reset_now.any():
            self._reset_worlds(np.flatnonzero(reset_now))
            self._evaluate_rows(reset_now)
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
        flat = self._out[:, : tpl._nobs]
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
            return lambda: float(self._out[w, -1])
        if name in _BATCHED_STATE or (name == "model" and self.world_rows is not None):
            raise AttributeError(
                f"{name!r} of a world is held in the batched engine, not in a single env: see venv.engine "
                "(data with a world axis first; world_rows: the model arrays a task sets per episode)"
            )
        return getattr(self.template, name)
