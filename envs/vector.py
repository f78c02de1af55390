"""Native vector environments: N worlds of one numjoco task in one batched Data, stepped by one compiled call.

    import gymnasium as gym, envs
    venv = gym.make_vec("numjoco/Hopper-v0", num_envs=256)                  # the task's vector_entry_point
    venv = gym.make_vec("numjoco/Hopper-v0", num_envs=256, num_threads=2,
                        autoreset_mode=gym.vector.AutoresetMode.SAME_STEP, randomization={...})
    obs, info = venv.reset(seed=0)                                          # world i seeded 0 + i
    obs, reward, terminated, truncated, info = venv.step(actions)           # (256, ...) arrays, info of arrays

One call of the physics entry (sim.api.run) applies every world's action, runs frame_skip steps, computes
the observations, reward terms, health, termination, truncation at max_episode_steps and, per autoreset mode,
resets the worlds whose episode ended (their next initial state is drawn beforehand, in Python, with that world's
own generator, right after its previous reset).  So a vector env and N single envs seeded seed + i give identical
trajectories, bit for bit.  Python loops only over the worlds that reset.

BatchEngine is the engine (shared with the SB3 VecEnv of envs/sb3.py); NumjocoVectorEnv is Gymnasium's VectorEnv
on it.  Domain randomisation per world and per episode: envs/randomize.py.
"""

import importlib
import time

import cloudpickle
import numba
import numpy as np
import gymnasium as gym
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array

import sim
from envs.base import NumjocoEnv, CompiledTask
from envs.kernels import reset_worlds, SET_CONST, RESTART, FINAL, OWN_BIAS
from envs.pixels import compose
from sim import api as _api
from sim.constants import ST_TERMINATED, ST_TRUNCATED, ST_DIVERGED, ST_RESET, ST_FINAL, ST_BADACTION, ST_F32

_EMPTY = np.zeros(0, np.int64)


def resolve_task(task, kwargs):
    """(task class, constructor kwargs, the spec's max_episode_steps or None) for a registered id, a
    'module:Class' entry point or a NumjocoEnv subclass; kwargs override the registered ones."""
    spec_steps = None
    if isinstance(task, str):
        mod, _, rest = task.rpartition(":")
        if "/" in rest or "-v" in rest:  # an id, optionally 'module:id' (the module registers it)
            if mod:
                importlib.import_module(mod)
            task = gym.spec(rest)
    if isinstance(task, gym.envs.registration.EnvSpec):
        task, kwargs, spec_steps = task.entry_point, dict(task.kwargs, **kwargs), task.max_episode_steps
    if isinstance(task, str):
        mod, _, attr = task.partition(":")
        task = getattr(importlib.import_module(mod), attr)
    if not (isinstance(task, type) and issubclass(task, NumjocoEnv)):
        raise TypeError(f"a numjoco vector env needs a NumjocoEnv task class, got {task!r}")
    return task, dict(kwargs), spec_steps


def _on_threads(want, old, fn, *args):
    """fn(*args) with numba's thread count set to want (old: the current count, restored after)."""
    if want == old:
        return fn(*args)
    numba.set_num_threads(want)
    try:
        return fn(*args)
    finally:
        numba.set_num_threads(old)


class ThreadTuner:
    """The thread count of the batched physics step when num_threads is not given: one thread or numba's count
    (at most the worlds), whichever ran the step faster, measured in use and measured again every PERIOD steps.
    A parallel call pays for waking the OpenMP workers and for the last one to finish: with passive waiting
    (above) a wake costs 50-100 us on a virtual machine, and 4 Hopper worlds stepped in 370-420 us on 2 threads
    against ~270 us on one.  The results do not depend on the count (each world is stepped by one thread, the
    same code), so neither do trajectories."""

    PERIOD = 2000  # steps with the chosen count between measurements
    TRIAL = 15  # steps timed per candidate in a measurement (alternating, the medians compared)

    def __init__(self):
        self.left = 0
        self.choice = None
        self.times = {}

    def count(self, top):
        """(thread count for the next step, whether to time it) given numba's count capped at the worlds."""
        if top <= 1:
            return 1, False
        if self.left > 0 and self.choice <= top:
            self.left -= 1
            return self.choice, False
        n1, n2 = len(self.times.get(1, ())), len(self.times.get(top, ()))
        if min(n1, n2) >= self.TRIAL:
            med = {k: sorted(v)[len(v) // 2] for k, v in self.times.items() if k in (1, top)}
            self.choice = min(med, key=lambda k: (med[k], -k))
            self.left, self.times = self.PERIOD, {}
            return self.choice, False
        return (1 if n1 <= n2 else top), True

    def record(self, count, seconds):
        self.times.setdefault(count, []).append(seconds)


class BatchEngine:
    """N worlds of a numjoco task: the template env (one world, for spaces, parameters, reset_state, the task's
    Python layers, rendering), one batched sim.Data, the task program compiled for N worlds, one generator per
    world, optional per-world models (domain randomisation).

    same_step=True: a world whose episode ends is reset within the same step (its last observation goes to
    final_obs): inside the physics call when nothing must be read or changed in between (kernel_same_step),
    else by finish_same_step(); same_step=False: it waits for reset(mask) or for the next step.
    python_layers: the task overrides step / reset in Python (e.g. a goal env's Dict observation); the front ends
    then run those layers per world on the batch's results (envs/base.py NumjocoEnv._feed).
    """

    def __init__(
        self, task, num_envs, *, max_episode_steps=None, same_step=False, num_threads=None, randomization=None, **kwargs
    ):
        cls, kwargs, spec_steps = resolve_task(task, kwargs)
        n = int(num_envs)
        if n < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        if num_threads is not None:
            num_threads = int(num_threads)
            if not 1 <= num_threads <= numba.config.NUMBA_NUM_THREADS:
                raise ValueError(
                    f"num_threads must be in [1, {numba.config.NUMBA_NUM_THREADS}] (numba's thread "
                    f"pool, NUMBA_NUM_THREADS), got {num_threads}"
                )
        self.num_threads = num_threads
        self.tuner = ThreadTuner()
        self.task_class, self.kwargs = cls, kwargs
        self._init_args = (
            cls,
            n,
            dict(
                max_episode_steps=max_episode_steps,
                same_step=same_step,
                num_threads=num_threads,
                randomization=randomization,
            ),
            kwargs,
        )
        self.template = tpl = cls(**kwargs)
        self.model, self.nworld = tpl.model, n
        self.max_episode_steps = spec_steps if max_episode_steps is None else max_episode_steps
        self.max_episode_steps = int(self.max_episode_steps or 0)
        self.python_layers = (
            type(tpl).step is not NumjocoEnv.step
            or type(tpl).reset is not NumjocoEnv.reset
            or type(tpl).shape_observation is not NumjocoEnv.shape_observation
        )
        self.obs_type = tpl.obs_type
        self.pixels = None  # the PixelRenderer of pixel observations (envs/pixels.py), made at first use
        self.info_idx, self.reset_idx, self.info_arrays = tpl._info_idx, tpl._reset_idx, tpl._info_arrays
        self.same_step = bool(same_step)
        # a same-step reset inside the physics call, unless something must be read or changed in between (pixel
        # observations: the last frame of an episode is rendered before the reset)
        self.kernel_same_step = (
            self.same_step
            and randomization is None
            and not self.info_arrays
            and not self.python_layers
            and self.obs_type == "states"
        )
        self.data = sim.Data(self.model, nworld=n)
        self.prog = CompiledTask(
            self.model, tpl._spec, n, tpl.dt, max_steps=self.max_episode_steps, same_step=self.kernel_same_step
        )
        self.struct = self.prog.struct
        a = self.arrays = self.prog.arrays
        self.status, self.obs, self.terms, self.reset_terms = a["status"], a["obs"], a["terms"], a["reset_terms"]
        self.reward, self.final_obs, self.action = a["reward"], a["final_obs"], a["action"]
        self.names = [nm for _, nm in self.info_idx]
        self.term_cols = [k for k, _ in self.info_idx]
        reset_names = {nm for _, nm in self.reset_idx}
        self.step_only = [nm not in reset_names for _, nm in self.info_idx]
        self.body_simple = np.ascontiguousarray(np.asarray(self.model.body_simple).reshape(-1), np.int32)
        self.rngs = [None] * n
        self.needs_reset = np.ones(n, bool)  # before the first reset, or ended with autoreset disabled
        self.randomizer = None
        self.mptrs = _EMPTY
        if randomization is not None:
            from envs.randomize import WorldModels

            self.randomizer = WorldModels(self.model, n, randomization)
            self.mptrs = self.randomizer.mptrs

    # ------------------------------------------------------------------ pickle / copy.deepcopy
    def __getstate__(self):
        """pickle and copy.deepcopy (SubprocVecEnv, Ray workers): the constructor's arguments (by value, with
        cloudpickle: a task class or randomisation function defined in a script travels too) and every world's
        state: the whole batched Data, the task arrays (status, pending reset states, ...), each world's
        generators and randomised model values.  The compiled program is rebuilt (a cache hit)."""
        st = {
            "init": cloudpickle.dumps(self._init_args),
            "data": self.data,
            "rngs": list(self.rngs),
            "needs_reset": self.needs_reset.copy(),
            "task": {k: v.copy() for k, v in self.arrays.items()},
        }
        r = self.randomizer
        if r is not None:
            st["randomizer"] = {
                "values": {k: v.copy() for k, v in r.values.items()},
                "rows": {k: v.copy() for k, v in r.rows.items()},
                "rngs": list(r.rngs),
            }
        return st

    def __setstate__(self, st):
        cls, n, opts, kwargs = cloudpickle.loads(st["init"])
        self.__init__(cls, n, **opts, **kwargs)
        self.data = st["data"]
        for k, v in st["task"].items():
            self.arrays[k][...] = v
        self.rngs = list(st["rngs"])
        self.needs_reset[...] = st["needs_reset"]
        if "randomizer" in st:
            r, saved = self.randomizer, st["randomizer"]
            for k, v in saved["values"].items():
                r.values[k][...] = v
            for k, v in saved["rows"].items():
                r.rows[k][...] = v  # in place: the per-world model structs point into these rows
            r.rngs = list(saved["rngs"])

    # ------------------------------------------------------------------ calls into the compiled code
    def _call(self, nwork, fn, *args):
        """fn(*args) on num_threads numba threads (default: numba's setting), never more than the nwork worlds
        it runs (a parallel call with an idle thread still waits for it: 121 us -> 1.2 ms for one Hopper world
        on 2 threads of a loaded machine)."""
        old = numba.get_num_threads()
        want = min(old if self.num_threads is None else self.num_threads, max(1, nwork))
        return _on_threads(want, old, fn, *args)

    def _run(self, nstep):
        if _api.serial(self.data, self.mptrs):  # one world: no thread count to set
            return _api.run(self.model, self.data, nstep, self.struct, self.mptrs)
        if self.num_threads is not None or nstep == 0:
            return self._call(self.nworld, _api.run, self.model, self.data, nstep, self.struct, self.mptrs)
        old = numba.get_num_threads()
        want, timed = self.tuner.count(min(old, self.nworld))
        t0 = time.perf_counter()
        r = _on_threads(want, old, _api.run, self.model, self.data, nstep, self.struct, self.mptrs)
        if timed:
            self.tuner.record(want, time.perf_counter() - t0)
        return r

    def _reset_worlds(self, worlds, flags):
        """envs/kernels.py reset_worlds on the listed worlds (flags SET_CONST | RESTART | FINAL | OWN_BIAS)."""
        self._call(
            len(worlds),
            reset_worlds,
            _api.model_struct(self.model),
            self.data._struct,
            self.struct,
            np.ascontiguousarray(worlds, np.int64),
            self.mptrs,
            flags,
            self.body_simple,
            _api.model_features(self.model),
        )
        if self.data._arrays["warn_moved"][worlds].any():
            _api.warn_moved(self.data)

    # ------------------------------------------------------------------ pixel observations
    def frames(self, worlds=None):
        """(k, H, W, 3) uint8 images of the listed worlds (None: all) as they are now (PixelRenderer.worlds)."""
        if self.pixels is None:
            self.pixels = self.template.pixel_renderer()
        return self.pixels.worlds(self.data, worlds, lambda f: self._call(self.nworld, f))

    def close(self):
        """Release the renderers (the pixel observations' and the template's)."""
        if self.pixels is not None:
            self.pixels.close()
            self.pixels = None
        self.template.close()

    def emit(self, obs, frames):
        """The observations of obs_type from state observations (k, nobs) and frames (k, H, W, 3) or None."""
        return compose(obs, frames, self.obs_type)

    # ------------------------------------------------------------------ resets
    def draw(self, worlds):
        """Draw the next initial state of each listed world from its own generator into its pending rows."""
        a, tpl = self.arrays, self.template
        for w in worlds:
            s = tpl.reset_state(self.rngs[w], tpl.p)
            a["reset_qpos"][w] = s["qpos"]
            a["reset_qvel"][w] = s["qvel"]
            a["reset_act"][w] = s.get("act", tpl.init_act)
            a["reset_ctrl"][w] = s.get("ctrl", tpl.init_ctrl)

    def seed_worlds(self, worlds, seeds):
        """New generators for the listed worlds from seeds: None (keep existing ones), an int (world w gets
        seed + w, as Gymnasium's vector envs) or one seed (or None) per listed world.  Returns the worlds that got
        a new generator."""
        n = len(worlds)
        if seeds is None:
            seeds = [None] * n
        elif isinstance(seeds, (int, np.integer)):
            seeds = [int(seeds) + int(w) for w in worlds]
        else:
            seeds = list(seeds)
            if len(seeds) != n:
                raise ValueError(f"{len(seeds)} seeds for {n} environments")
        fresh = []
        for w, s in zip(worlds, seeds):
            if s is not None or self.rngs[w] is None:
                self.rngs[w], _ = seeding.np_random(s)
                if self.randomizer is not None:
                    self.randomizer.seed(w, s)
                fresh.append(w)
        return fresh

    def reset(self, worlds, seeds=None):
        """Reset the listed worlds (a full reset when all): new generators from seeds, initial states drawn,
        randomised models resampled, the reset run, the next initial states drawn.  A world keeping its
        generator starts from its pending state (drawn after its previous reset, as a single env would draw it
        at this reset)."""
        worlds = np.asarray(worlds, np.int64)
        self.draw(self.seed_worlds(worlds, seeds))
        self._resample(worlds)
        if worlds.size == self.nworld:
            self.status[:, ST_RESET] = 1
            self._run(0)
        else:
            self._reset_worlds(worlds, RESTART)
        self.needs_reset[worlds] = False
        self.draw(worlds)

    def _resample(self, worlds):
        """New randomised model values for the listed worlds and their mj_setConst constants (before their
        reset: the constants use the world's Data as scratch)."""
        if self.randomizer is None or len(worlds) == 0:
            return
        needy = self.randomizer.resample(worlds)
        if needy.size:
            self._reset_worlds(needy, SET_CONST | (OWN_BIAS if self.randomizer.own_bias else 0))

    # ------------------------------------------------------------------ step
    def set_actions(self, actions):
        a = np.asarray(actions)
        if a.shape != self.action.shape:
            raise ValueError(f"actions have shape {a.shape}, expected {self.action.shape} (num_envs, nu)")
        if a.dtype.kind not in "biuf":
            raise ValueError(f"actions must hold real numbers, got dtype {a.dtype}; no environment was stepped")
        self.action[...] = a
        self.status[:, ST_F32] = a.dtype == np.float32  # ctrl costs in the action's dtype, as a single env

    def step(self, autoreset=None):
        """One env step of every world (the actions already in place); `autoreset` (bool mask or None): worlds
        reset by this call instead of stepping (the next-step autoreset).  Returns the mask of the worlds reset
        inside the call at the end of their episode (kernel_same_step), else None."""
        if autoreset is not None and autoreset.any():
            worlds = np.flatnonzero(autoreset)
            self._resample(worlds)
            self.status[worlds, ST_RESET] = 1
        else:
            autoreset = None
        if self._run(self.template.frame_skip) < 0:
            bad = np.flatnonzero(self.status[:, ST_BADACTION])
            self.status[:, ST_BADACTION] = 0
            raise ValueError(
                f"the actions of environment(s) {bad.tolist()} contain NaN or inf: "
                f"{self.action[bad].tolist()}; no environment was stepped"
            )
        if autoreset is not None:
            self.draw(np.flatnonzero(autoreset))
        if not self.kernel_same_step:
            return None
        final = self.status[:, ST_FINAL] != 0
        if final.any():
            self.draw(np.flatnonzero(final))
        return final

    def ended(self):
        """(terminated, truncated) bool arrays of the last step."""
        return self.status[:, ST_TERMINATED] != 0, self.status[:, ST_TRUNCATED] != 0

    def finish_same_step(self, worlds):
        """Same-step reset of the listed worlds after their last step was read: final_obs, new models, reset."""
        worlds = np.asarray(worlds, np.int64)
        self.final_obs[worlds] = self.obs[worlds]
        self._resample(worlds)
        self._reset_worlds(worlds, RESTART | FINAL)
        self.draw(worlds)

    # ------------------------------------------------------------------ info (dict of arrays, Gymnasium's)
    def _arrays_info(self, info, mask, source=None):
        """Info arrays of the task (Task.info_arrays: whole Data rows) for the worlds in mask."""
        for key, field in self.info_arrays:
            v = np.array(source[key] if source is not None else getattr(self.data, field))
            v[~mask] = 0
            info[key] = v
            info["_" + key] = mask.copy()

    def step_info(self, reset_now=None):
        """info of a step as a dict of arrays with `_key` masks: the info terms of the worlds that stepped, the
        reset info of the worlds reset in this step (`reset_now`), as SyncVectorEnv gathers them."""
        info = {}
        n = self.nworld
        stepped = None if reset_now is None else ~reset_now
        vals = self.terms.T.copy()  # one copy; each key gets a row (a fresh array for the caller)
        ones = np.ones((len(self.info_idx), n), bool)
        for i, (k, nm) in enumerate(self.info_idx):
            v = vals[k]
            if stepped is None:
                mask = ones[i]
            elif self.step_only[i]:
                if not stepped.any():
                    continue
                v[reset_now] = 0.0
                mask = stepped.copy()
            else:
                v[reset_now] = self.reset_terms[reset_now, k]
                mask = ones[i]
            info[nm] = v
            info["_" + nm] = mask
        self._arrays_info(info, np.ones(n, bool))
        div = self.status[:, ST_DIVERGED] != 0
        if stepped is not None:
            div &= stepped
        if div.any():
            info["diverged"] = div.copy()
            info["_diverged"] = div
        return info

    def snapshot(self):
        """The info arrays of every world now (read before a same-step reset overwrites them)."""
        return {key: np.array(getattr(self.data, field)) for key, field in self.info_arrays}

    def final_info(self, done, arrays=None):
        """The step info of the worlds that ended (final_info of a same-step autoreset)."""
        info = {}
        for k, nm in self.info_idx:
            info[nm] = np.where(done, self.terms[:, k], 0.0)
            info["_" + nm] = done.copy()
        self._arrays_info(info, done, arrays)
        div = (self.status[:, ST_DIVERGED] != 0) & done
        if div.any():
            info["diverged"] = div.copy()
            info["_diverged"] = div
        return info

    def reset_info(self, worlds):
        """The reset info of the listed worlds (others masked out)."""
        mask = np.zeros(self.nworld, bool)
        mask[worlds] = True
        info = {}
        for k, nm in self.reset_idx:
            info[nm] = np.where(mask, self.reset_terms[:, k], 0.0)
            info["_" + nm] = mask.copy()
        self._arrays_info(info, mask)
        self.add_randomization(info, mask)
        return info

    def add_randomization(self, info, mask):
        """info['randomization'] = {field: (N, ...) values of each world's current episode} for the worlds in
        mask (those just reset)."""
        if self.randomizer is not None and mask is not None and mask.any():
            vals = self.randomizer.values
            info["randomization"] = {k: v.copy() for k, v in vals.items()}
            info["randomization"].update({"_" + k: mask.copy() for k in vals})
            info["_randomization"] = mask.copy()

    # ------------------------------------------------------------------ per world, as a single env returns
    def base_steps(self, worlds):
        """The listed worlds' last step, each as NumjocoEnv.step returns it (before the task's Python layers);
        the batch's arrays are read once."""
        worlds = np.asarray(worlds, np.int64)
        obs = self.obs[worlds]  # one copy; each world gets a row of it
        frames = None if self.obs_type == "states" else self.frames(worlds)
        rew = self.reward[worlds].tolist()
        st = self.status[worlds][:, (ST_TERMINATED, ST_TRUNCATED, ST_DIVERGED)].tolist()
        terms = self.terms[worlds][:, self.term_cols].tolist()
        rows = [(key, getattr(self.data, field)) for key, field in self.info_arrays]
        names = self.names
        out = []
        for i, w in enumerate(worlds.tolist()):
            info = dict(zip(names, terms[i]))
            for key, r in rows:
                info[key] = r[w].copy()
            te, tr, dv = st[i]
            if dv:
                info["diverged"] = True
            out.append((self._world_obs(obs[i], frames, i), rew[i], te != 0, tr != 0, info))
        return out

    def base_resets(self, worlds):
        """The listed worlds' last reset, each as NumjocoEnv.reset returns it."""
        worlds = np.asarray(worlds, np.int64)
        obs = self.obs[worlds]
        frames = None if self.obs_type == "states" else self.frames(worlds)
        rt = self.reset_terms[worlds][:, [k for k, _ in self.reset_idx]].tolist()
        names = [nm for _, nm in self.reset_idx]
        rows = [(key, getattr(self.data, field)) for key, field in self.info_arrays]
        out = []
        for i, w in enumerate(worlds.tolist()):
            info = dict(zip(names, rt[i]))
            for key, r in rows:
                info[key] = r[w].copy()
            out.append((self._world_obs(obs[i], frames, i), info))
        return out

    def _world_obs(self, o, frames, i):
        """A world's observation as its single env returns it (the task's shape_observation, the image)."""
        o = self.template.shape_observation(o)
        return o if frames is None else compose(o, frames[i], self.obs_type)

    def _layered(self, method, fed, args):
        """The template's step / reset on each fed result (its Python layers; envs/base.py NumjocoEnv._feed)."""
        tpl = self.template
        out = []
        try:
            for r, a in zip(fed, args):
                tpl._feed = r
                out.append(method(*a))
        finally:
            tpl._feed = None
        return out

    def layered_steps(self, worlds, actions):
        """The listed worlds' last step through the task's Python layers: [(obs, reward, terminated, truncated,
        info)] as its single env's step(actions[w]) returns."""
        return self._layered(self.template.step, self.base_steps(worlds), [(actions[w],) for w in worlds])

    def layered_resets(self, worlds):
        """The listed worlds' last reset through the task's Python layers: [(obs, info)]."""
        return self._layered(self.template.reset, self.base_resets(worlds), [()] * len(worlds))


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


def _with_render_mode(kwargs, render_mode):
    """The task's keyword arguments, with render_mode only when one is given."""
    if render_mode is not None:
        kwargs["render_mode"] = render_mode
    return kwargs


def _set_spaces(venv, env, num_envs):
    """A vector env's num_envs, single and batched spaces, render_mode, metadata (with venv.autoreset_mode) and
    autoreset flags, from one environment of the batch."""
    venv.num_envs = num_envs
    venv.single_observation_space = env.observation_space
    venv.single_action_space = env.action_space
    venv.observation_space = batch_space(env.observation_space, num_envs)
    venv.action_space = batch_space(env.action_space, num_envs)
    venv.render_mode = env.render_mode
    venv.metadata = dict(env.metadata, autoreset_mode=venv.autoreset_mode)
    venv._autoreset = np.zeros(num_envs, bool)


def _reset_mask(options, num_envs):
    """options["reset_mask"] checked (a bool array of shape (num_envs,) that resets at least one environment), or
    None when reset() was given no mask."""
    mask = None if options is None else options.get("reset_mask")
    if mask is None:
        return None
    mask = np.asarray(mask)
    if mask.shape != (num_envs,) or mask.dtype != np.bool_:
        raise ValueError(
            f'options["reset_mask"] must be a bool array of shape ({num_envs},), got {mask.dtype} {mask.shape}'
        )
    if not mask.any():
        raise ValueError('options["reset_mask"] resets no environment')
    return mask


class NumjocoVectorEnv(VectorEnv):
    """Gymnasium VectorEnv of a numjoco task (see the module doc).

    task: registered id, 'module:Class' or NumjocoEnv subclass; num_envs; max_episode_steps (default: the
    spec's; 0 = no truncation); autoreset_mode (AutoresetMode or its value, default NEXT_STEP); num_threads
    (numba threads for the calls of this env, default numba's setting); randomization (envs/randomize.py);
    other keywords go to the task (ctrl_cost_weight=..., xml_file=..., ...).
    """

    def __init__(
        self,
        task,
        num_envs=1,
        *,
        max_episode_steps=None,
        autoreset_mode=None,
        num_threads=None,
        randomization=None,
        render_mode=None,
        **kwargs,
    ):
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        kwargs = _with_render_mode(kwargs, render_mode)
        self.engine = eng = BatchEngine(
            task,
            num_envs,
            max_episode_steps=max_episode_steps,
            same_step=self.autoreset_mode == AutoresetMode.SAME_STEP,
            num_threads=num_threads,
            randomization=randomization,
            **kwargs,
        )
        _set_spaces(self, eng.template, eng.nworld)
        self._env_obs = [None] * self.num_envs  # each world's observation (tasks with Python layers)
        self._renderer = None  # envs.render.EnvRenderer over the batch (render())

    def __getstate__(self):
        st = dict(self.__dict__)  # the engine pickles itself (BatchEngine.__getstate__)
        st["_renderer"] = None  # rebuilt by the next render()
        return st

    # ------------------------------------------------------------------ Gymnasium API
    @property
    def num_threads(self):
        return self.engine.num_threads

    @property
    def model(self):
        return self.engine.model

    @property
    def data(self):
        return self.engine.data

    @property
    def dt(self):
        return self.engine.template.dt

    def reset(self, *, seed=None, options=None):
        eng = self.engine
        if isinstance(seed, (int, np.integer)):
            super().reset(seed=int(seed))
        mask = _reset_mask(options, self.num_envs)
        if mask is not None:
            worlds = np.flatnonzero(mask)
            if isinstance(seed, (int, np.integer)):
                seed = [int(seed) + int(w) for w in worlds]
            elif seed is not None:
                seed = [s for s, m in zip(seed, mask) if m] if len(seed) == self.num_envs else seed
        else:
            worlds = np.arange(self.num_envs)
        eng.reset(worlds, seed)
        self._autoreset[worlds] = False
        if not eng.python_layers:
            frames = None if eng.obs_type == "states" else eng.frames()
            return eng.emit(eng.obs.copy(), frames), eng.reset_info(worlds)
        pairs = []
        for w, (o, info) in zip(worlds.tolist(), eng.layered_resets(worlds)):
            self._env_obs[w] = o
            pairs.append((w, info))
        infos = self._gather_info(pairs)
        rmask = np.zeros(self.num_envs, bool)
        rmask[worlds] = True
        eng.add_randomization(infos, rmask)
        return self._observations(), infos

    def step(self, actions):
        eng = self.engine
        if eng.needs_reset.all() and eng.rngs[0] is None:
            raise gym.error.ResetNeeded("Cannot call step() before calling reset()")
        mode = self.autoreset_mode
        if mode == AutoresetMode.DISABLED and eng.needs_reset.any():
            raise gym.error.ResetNeeded(
                f"environment(s) {np.flatnonzero(eng.needs_reset).tolist()} ended and the autoreset is disabled: "
                'reset them with reset(options={"reset_mask": mask}) before stepping'
            )
        eng.set_actions(actions)
        autoreset = self._autoreset.copy() if mode == AutoresetMode.NEXT_STEP else None
        final = eng.step(autoreset)
        if eng.python_layers:
            return self._layered_step(actions, autoreset)
        terminated, truncated = eng.ended()
        reward = eng.reward.copy()
        frames = None if eng.obs_type == "states" else eng.frames()  # before a same-step reset: the last frames
        info, reset_now = None, None
        if mode == AutoresetMode.NEXT_STEP:
            reset_now = autoreset
            self._autoreset = terminated | truncated
        elif mode == AutoresetMode.SAME_STEP:
            fin = None
            if final is None:  # reset here, after reading the last step
                final = terminated | truncated
                if final.any():
                    fin = eng.final_info(final, eng.snapshot() if eng.info_arrays else None)
                    eng.finish_same_step(np.flatnonzero(final))
            elif final.any():
                fin = eng.final_info(final)
            reset_now = final
            if final.any():
                info = eng.step_info(final)
                fo = np.full(self.num_envs, None, dtype=object)
                for w in np.flatnonzero(final):
                    fo[w] = eng.emit(eng.final_obs[w].copy(), None if frames is None else frames[w].copy())
                if frames is not None:
                    frames[final] = eng.frames(np.flatnonzero(final))
                info["final_obs"] = fo
                info["_final_obs"] = final.copy()
                info["final_info"] = fin
                info["_final_info"] = final.copy()
        else:
            eng.needs_reset |= terminated | truncated
        if info is None:
            info = eng.step_info(reset_now if reset_now is not None and reset_now.any() else None)
        eng.add_randomization(info, reset_now)
        return eng.emit(eng.obs.copy(), frames), reward, terminated, truncated, info

    def _layered_step(self, actions, autoreset):
        """A step of a task with Python layers (a step / reset override): the batch's physics already ran; each
        world's results go through the task's layers, gathered as SyncVectorEnv gathers single envs'."""
        eng, mode, n = self.engine, self.autoreset_mode, self.num_envs
        reset_now = np.zeros(n, bool) if autoreset is None else autoreset
        stepped = np.flatnonzero(~reset_now)
        reward = np.zeros(n)
        terminated = np.zeros(n, bool)
        truncated = np.zeros(n, bool)
        results = {}
        for w, (o, r, te, tr, info) in zip(stepped.tolist(), eng.layered_steps(stepped, actions)):
            reward[w], terminated[w], truncated[w] = r, te, tr
            results[w] = (o, info)
        if reset_now.any():
            results.update(zip(np.flatnonzero(reset_now).tolist(), eng.layered_resets(np.flatnonzero(reset_now))))
        done = terminated | truncated
        finals = {}  # same-step autoreset: the last step of the ended worlds
        if mode == AutoresetMode.SAME_STEP and done.any():
            ended = np.flatnonzero(done)
            eng.finish_same_step(ended)
            for w, r in zip(ended.tolist(), eng.layered_resets(ended)):
                finals[w], results[w] = results[w], r
        pairs = []
        for w in range(n):
            if w in finals:
                pairs.append((w, {"final_obs": finals[w][0], "final_info": finals[w][1]}))
            o, info = results[w]
            self._env_obs[w] = o
            pairs.append((w, info))
        infos = self._gather_info(pairs)
        if mode == AutoresetMode.NEXT_STEP:
            self._autoreset = done
        elif mode == AutoresetMode.SAME_STEP:
            reset_now = done
        else:
            reset_now = None
            eng.needs_reset |= done
        eng.add_randomization(infos, reset_now)
        return self._observations(), reward, terminated, truncated, infos

    def _gather_info(self, pairs):
        """Gymnasium's VectorEnv._add_info over [(world, single-env info)] in one pass per key: the same arrays,
        dtypes (of the first value), `_key` masks and nesting."""
        cols = {}
        for w, info in pairs:
            for k, v in info.items():
                cols.setdefault(k, []).append((w, v))
        n, out = self.num_envs, {}
        for k, col in cols.items():
            ws = [w for w, _ in col]
            v0 = col[0][1]
            if k == "final_obs":
                arr = np.full(n, None, dtype=object)
                for w, v in col:
                    arr[w] = v
            elif isinstance(v0, dict):
                arr = self._gather_info(col)
            elif type(v0) in (int, float, bool) or isinstance(v0, np.number):
                arr = np.zeros(n, dtype=type(v0))
                arr[ws] = [v for _, v in col]
            else:
                arr = (
                    np.zeros((n, *v0.shape), v0.dtype) if isinstance(v0, np.ndarray) else np.full(n, None, dtype=object)
                )
                for w, v in col:
                    arr[w] = v
            mask = np.zeros(n, dtype=np.bool_)
            mask[ws] = True
            out[k] = arr
            out["_" + k] = mask
        return out

    def _observations(self):
        return concatenate(
            self.single_observation_space,
            self._env_obs,
            create_empty_array(self.single_observation_space, self.num_envs),
        )

    def render(self):
        """A frame per world, as SyncVectorEnv returns them (a tuple; rgbd_tuple: a (rgb, depth) pair per world),
        all worlds rendered in one batched sim.Renderer call with the task's camera (a tracking or body-attached
        camera follows each world's own body)."""
        if self.render_mode is None:
            gym.logger.warn('render() called without a render_mode: pass render_mode="rgb_array"')
            return None
        if self._renderer is None:
            self._renderer = self.engine.template._make_renderer()
        frames = self._renderer.render_data(self.engine.data)
        if self.render_mode == "rgbd_tuple":
            return tuple(zip(frames[0], frames[1]))
        return tuple(frames)

    def close_extras(self, **kwargs):
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
        self.engine.close()

    # ------------------------------------------------------------------ per-environment access
    def get_attr(self, name):
        """getattr of every sub-environment (a world seen as a single env: see WorldView)."""
        return tuple(getattr(WorldView(self.engine, w), name) for w in range(self.num_envs))

    def set_attr(self, name, values):
        if not isinstance(values, (list, tuple)):
            values = [values] * self.num_envs
        if len(values) != self.num_envs:
            raise ValueError(f"{len(values)} values for {self.num_envs} environments")
        for w, v in enumerate(values):
            setattr(WorldView(self.engine, w), name, v)

    def call(self, name, *args, **kwargs):
        out = []
        for w in range(self.num_envs):
            f = getattr(WorldView(self.engine, w), name)
            out.append(f(*args, **kwargs) if callable(f) else f)
        return tuple(out)

    def __repr__(self):
        sid = self.spec.id if self.spec is not None else self.engine.task_class.__name__
        return f"NumjocoVectorEnv({sid}, num_envs={self.num_envs})"


class _WorldData:
    """Data of one world of a batch (d.qpos -> the world's row)."""

    def __init__(self, data, w):
        object.__setattr__(self, "_d", data)
        object.__setattr__(self, "_w", w)

    def __getattr__(self, name):
        v = getattr(self._d, name)
        return v[self._w] if isinstance(v, np.ndarray) and v.ndim and v.shape[0] == self._d.nworld else v

    def __setattr__(self, name, value):
        raise AttributeError("the data of a vector env world is read-only here; write env.data (all worlds)")


class WorldView:
    """One world of a vector env seen as a single env (SB3's get_attr / env_method, Gymnasium's call):
    per-world np_random, data (its rows), randomised model values; everything else from the template env
    (task parameters, spaces, model, dt, compute_reward, ...).  Methods of the template that read the state
    (render, state_vector, get_body_com, ...) see this world's state; set_state is refused (it would need a
    forward of one world of the batch)."""

    _OWN = ("np_random", "data", "randomization", "world")

    def __init__(self, engine, w):
        object.__setattr__(self, "_e", engine)
        object.__setattr__(self, "world", int(w))

    @property
    def np_random(self):
        return self._e.rngs[self.world]

    @property
    def data(self):
        return _WorldData(self._e.data, self.world)

    @property
    def randomization(self):
        r = self._e.randomizer
        return None if r is None else {k: v[self.world].copy() for k, v in r.values.items()}

    def state_vector(self):
        d = self.data
        return np.concatenate([d.qpos, d.qvel])

    def get_body_com(self, name):
        return self.data.xpos[self._e.model.body(name).id]

    def set_state(self, qpos, qvel):
        raise NotImplementedError(
            "set_state on one world of a vector env is not supported: set the pending reset "
            "state instead, or use a single env"
        )

    def render(self):
        tpl = self._e.template
        d, w = self._e.data, self.world
        for k in ("qpos", "qvel", "act", "ctrl", "mocap_pos", "mocap_quat", "time"):
            setattr(tpl.data, k, getattr(d, k)[w])
        sim.forward(tpl.model, tpl.data)
        return tpl.render()

    def __getattr__(self, name):
        extra = self._e.__dict__.get("_attrs", {}).get(name)
        if extra is not None and self.world in extra:
            return extra[self.world]
        tpl = self._e.template
        if name in tpl.p:  # task parameters by name (ctrl_cost_weight, ...)
            return tpl.p[name]
        return getattr(tpl, name)

    def __setattr__(self, name, value):
        tpl = self._e.template
        if (
            name in self._OWN
            or name in tpl.p
            or name in ("model", "frame_skip", "dt", "observation_space", "action_space")
        ):
            raise AttributeError(
                f"{name!r} is compiled into the vector env (or owned by it) and cannot be set per "
                "environment; create the env with the value instead"
            )
        self._e.__dict__.setdefault("_attrs", {}).setdefault(name, {})[self.world] = value


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
