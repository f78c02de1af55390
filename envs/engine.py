"""The engine of the numjoco tasks (envs/base.py NumjocoEnv: the Gymnasium v5 tasks, arm reach, the single-env
view of the multi-agent tasks) behind the vector envs (envs/worlds.py protocol): N worlds in one batched Data, the
task program compiled for N worlds, stepped by one compiled call.

One call of the physics entry (sim.api.run) applies every world's action, runs frame_skip steps, computes the
observations, reward terms, health, termination, truncation at max_episode_steps and resets the worlds flagged
for a reset (the next-step autoreset, or, when nothing must be read in between, the same-step one).  The next
initial state of a world is drawn beforehand, in Python, with that world's own generator, right after its
previous reset, so a world and the single env seeded alike give identical trajectories, bit for bit.  Python
loops only over the worlds that reset.  A task that overrides step / reset in Python (e.g. a goal env's Dict
observation) gets those layers run per world on the batch's results (envs/base.py NumjocoEnv._feed).  Domain
randomisation per world and per episode: envs/randomize.py.
"""

import cloudpickle
import numba
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector.utils import concatenate, create_empty_array

import sim
from envs.base import NumjocoEnv, CompiledTask
from envs.entry import resolve_task
from envs.kernels import reset_worlds, SET_CONST, RESTART, FINAL, OWN_BIAS
from envs.pixels import compose
from envs.randomize import WorldModels
from envs.worlds import Ended, ThreadTuner, Worlds, check_num_envs, check_threads, gather_info, on_threads
from sim import api as _api
from sim.constants import ST_TERMINATED, ST_TRUNCATED, ST_DIVERGED, ST_RESET, ST_FINAL, ST_BADACTION, ST_F32

_EMPTY = np.zeros(0, np.int64)


class NumjocoEngine(Worlds):
    """N worlds of a numjoco task (see the module doc): the template env (one world, for spaces, parameters,
    reset_state, the task's Python layers, rendering), one batched sim.Data, the task program compiled for N
    worlds, one generator per world, optional per-world models (domain randomisation).

    same_step=True: a world whose episode ends is reset within the same step (step_same): inside the physics
    call when nothing must be read or changed in between (kernel_same_step), else by finish_same_step().
    python_layers: the task overrides step / reset in Python; those layers run per world on the batch's results.
    """

    def __init__(
        self, task, num_envs, *, max_episode_steps=None, same_step=False, num_threads=None, randomization=None, **kwargs
    ):
        cls, kwargs, spec_steps = resolve_task(task, kwargs, NumjocoEnv)
        n = check_num_envs(num_envs)
        self.num_threads = num_threads = check_threads(num_threads)
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
        self.env = self.template = tpl = cls(**kwargs)
        self.model, self.nworld, self.num_envs = tpl.model, n, n
        self.max_episode_steps = spec_steps if max_episode_steps is None else max_episode_steps
        self.max_episode_steps = int(self.max_episode_steps or 0)
        self.python_layers = (
            type(tpl).step is not NumjocoEnv.step
            or type(tpl).reset is not NumjocoEnv.reset
            or type(tpl).shape_observation is not NumjocoEnv.shape_observation
        )
        self.obs_type = tpl.obs_type
        self.pixels = None  # the PixelRenderer of pixel observations (envs/pixels.py), made at first use
        self.renderer = None  # the EnvRenderer of render() over the batch, made at first use
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
        self.env_obs = [None] * n  # each world's observation (tasks with Python layers)
        self.randomizer = None
        self.mptrs = _EMPTY
        if randomization is not None:
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
            "env_obs": list(self.env_obs),
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
        self.env_obs = list(st["env_obs"])
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
        it runs (a parallel call with an idle thread still waits for it)."""
        old = numba.get_num_threads()
        want = min(old if self.num_threads is None else self.num_threads, max(1, nwork))
        return on_threads(want, old, fn, *args)

    def _run(self, nstep):
        if _api.serial(self.data, self.mptrs):  # one world: no thread count to set
            return _api.run(self.model, self.data, nstep, self.struct, self.mptrs)
        if self.num_threads is not None or nstep == 0:
            return self._call(self.nworld, _api.run, self.model, self.data, nstep, self.struct, self.mptrs)
        return self.tuner.run(self.nworld, _api.run, self.model, self.data, nstep, self.struct, self.mptrs)

    def _reset_worlds(self, worlds, flags):
        """envs/kernels.py reset_worlds on the listed worlds (flags SET_CONST | RESTART | FINAL | OWN_BIAS)."""
        self._call(
            len(worlds),
            reset_worlds,
            _api.model_struct(self.model),
            _api.data_struct(self.data),
            self.struct,
            np.ascontiguousarray(worlds, np.int64),
            self.mptrs,
            flags,
            self.body_simple,
            _api.model_features(self.model),
        )
        _api.warn_moved(self.data, worlds)

    # ------------------------------------------------------------------ pixel observations, rendering
    def frames(self, worlds=None):
        """(k, H, W, 3) uint8 images of the listed worlds (None: all) as they are now (PixelRenderer.worlds)."""
        if self.pixels is None:
            self.pixels = self.template.pixel_renderer()
        return self.pixels.worlds(self.data, worlds, lambda f: self._call(self.nworld, f))

    def render(self):
        """A frame per world (rgbd_tuple: a (rgb, depth) pair), all worlds in one batched sim.Renderer call with
        the task's camera (a tracking or body-attached camera follows each world's own body)."""
        if self.renderer is None:
            self.renderer = self.template._make_renderer()
        frames = self.renderer.render_data(self.data)
        if self.template.render_mode == "rgbd_tuple":
            return list(zip(frames[0], frames[1]))
        return list(frames)

    def close(self):
        """Release the renderers (the pixel observations', render()'s and the template's)."""
        for r in (self.pixels, self.renderer):
            if r is not None:
                r.close()
        self.pixels = self.renderer = None
        self.template.close()

    def emit(self, obs, frames):
        """The observations of obs_type from state observations (k, nobs) and frames (k, H, W, 3) or None."""
        return compose(obs, frames, self.obs_type)

    def observations(self):
        if self.python_layers:
            return concatenate(
                self.template.observation_space,
                self.env_obs,
                create_empty_array(self.template.observation_space, self.nworld),
            )
        return self.emit(self.obs.copy(), None if self.obs_type == "states" else self.frames())

    def world_observations(self, worlds):
        if self.python_layers:
            return [self.env_obs[w] for w in worlds]
        frames = None if self.obs_type == "states" else self.frames(worlds)
        obs = self.obs[worlds]
        return [self.emit(obs[i].copy(), None if frames is None else frames[i].copy()) for i in range(len(worlds))]

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

    def seed(self, worlds, seeds):
        """New generators for the listed worlds from seeds (one seed or None per listed world; None keeps a
        world's generator), each new one drawing the world's next initial state."""
        fresh = []
        for w, s in zip(worlds, seeds):
            if s is not None or self.rngs[w] is None:
                self.rngs[w], _ = seeding.np_random(s)
                if self.randomizer is not None:
                    self.randomizer.seed(w, s)
                fresh.append(w)
        self.draw(fresh)

    def reset(self, worlds):
        """Reset the listed worlds (a full reset when all): randomised models resampled, the reset run, the next
        initial states drawn.  A world starts from its pending state (drawn after its previous reset or its
        seeding, as a single env would draw it at this reset).  Returns their reset info."""
        worlds = np.asarray(worlds, np.int64)
        self._resample(worlds)
        if worlds.size == self.nworld:
            self.status[:, ST_RESET] = 1
            self._run(0)
        else:
            self._reset_worlds(worlds, RESTART)
        self.draw(worlds)
        if not self.python_layers:
            return self.reset_info(worlds)
        mask = np.zeros(self.nworld, bool)
        mask[worlds] = True
        info = gather_info(self._layered_resets(worlds), self.nworld)
        self.add_randomization(info, mask)
        return info

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

    def advance(self, autoreset=None):
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

    def step(self, actions, reset=None):
        self.set_actions(actions)
        reset = reset if reset is not None and reset.any() else None
        self.advance(reset)
        if self.python_layers:
            return self._layered_step(actions, reset)
        terminated, truncated = self.ended()
        info = self.step_info(reset)
        self.add_randomization(info, reset)
        return self.reward.copy(), terminated, truncated, info

    def step_same(self, actions):
        self.set_actions(actions)
        final = self.advance(None)
        if self.python_layers:
            return self._layered_step_same(actions)
        terminated, truncated = self.ended()
        reward = self.reward.copy()
        info = self.step_info(None)
        if final is None:  # reset here, after reading the last step
            final = terminated | truncated
            if not final.any():
                return reward, terminated, truncated, info, None
            worlds = np.flatnonzero(final)
            obs = self.world_observations(worlds)
            self.finish_same_step(worlds)
        elif final.any():
            worlds = np.flatnonzero(final)
            obs = [self.emit(self.final_obs[w].copy(), None) for w in worlds.tolist()]
        else:
            return reward, terminated, truncated, info, None
        fo = np.full(self.nworld, None, dtype=object)
        for w, o in zip(worlds.tolist(), obs):
            fo[w] = o
        return reward, terminated, truncated, info, Ended(final, fo, self.reset_info(worlds))

    def finish_same_step(self, worlds):
        """Same-step reset of the listed worlds after their last step was read: final_obs, new models, reset."""
        worlds = np.asarray(worlds, np.int64)
        self.final_obs[worlds] = self.obs[worlds]
        self._resample(worlds)
        self._reset_worlds(worlds, RESTART | FINAL)
        self.draw(worlds)

    # ------------------------------------------------------------------ info (dict of arrays, Gymnasium's)
    def _arrays_info(self, info, mask):
        """Info arrays of the task (Task.info_arrays: whole Data rows) for the worlds in mask."""
        for key, field in self.info_arrays:
            v = np.array(getattr(self.data, field))
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

    # ------------------------------------------------------------------ Python layers, per world
    def _base_steps(self, worlds):
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

    def _base_resets(self, worlds):
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

    def _layered_resets(self, worlds):
        """The listed worlds' last reset through the task's Python layers: [(world, info)], their observations
        kept."""
        fed = self._layered(self.template.reset, self._base_resets(worlds), [()] * len(worlds))
        pairs = []
        for w, (o, info) in zip(np.asarray(worlds).tolist(), fed):
            self.env_obs[w] = o
            pairs.append((w, info))
        return pairs

    def _layered_steps(self, worlds, actions):
        """The listed worlds' last step through the task's Python layers: {world: (obs, reward, terminated,
        truncated, info)} as its single env's step(actions[w]) returns."""
        worlds = np.asarray(worlds, np.int64)
        fed = self._layered(self.template.step, self._base_steps(worlds), [(actions[w],) for w in worlds])
        return dict(zip(worlds.tolist(), fed))

    def _layered_step(self, actions, reset):
        """step() of a task with Python layers: the batch's physics already ran; each world's results go through
        the task's layers, gathered as SyncVectorEnv gathers single envs'."""
        n = self.nworld
        reset = np.zeros(n, bool) if reset is None else reset
        reward = np.zeros(n)
        terminated = np.zeros(n, bool)
        truncated = np.zeros(n, bool)
        pairs = []
        for w, (o, r, te, tr, info) in self._layered_steps(np.flatnonzero(~reset), actions).items():
            reward[w], terminated[w], truncated[w] = r, te, tr
            self.env_obs[w] = o
            pairs.append((w, info))
        if reset.any():
            pairs += self._layered_resets(np.flatnonzero(reset))
        info = gather_info(sorted(pairs, key=lambda p: p[0]), n)
        self.add_randomization(info, reset if reset.any() else None)
        return reward, terminated, truncated, info

    def _layered_step_same(self, actions):
        """step_same() of a task with Python layers."""
        reward, terminated, truncated, info = self._layered_step(actions, None)
        done = terminated | truncated
        if not done.any():
            return reward, terminated, truncated, info, None
        ended = np.flatnonzero(done)
        fo = np.full(self.nworld, None, dtype=object)
        for w in ended.tolist():
            fo[w] = self.env_obs[w]
        self.finish_same_step(ended)
        rinfo = gather_info(self._layered_resets(ended), self.nworld)
        self.add_randomization(rinfo, done)
        return reward, terminated, truncated, info, Ended(done, fo, rinfo)

    # ------------------------------------------------------------------ per-world access
    def world_attr(self, w, name):
        return getattr(WorldView(self, w), name)

    def set_world_attr(self, w, name, value):
        setattr(WorldView(self, w), name, value)


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
