"""NumjocoEnv: the base of every numjoco task (the role of Gymnasium's MujocoEnv), on the sim core.

A task subclass declares its model, frame_skip, keyword parameters with their defaults, and a `task(p)` method
returning an envs.spec.Task (observation segments, reward terms, health checks).  The base class compiles that
into a task program and runs each env step as ONE compiled call: action -> ctrl, frame_skip physics steps,
mj_rnePostConstraint when the task reads cfrc_ext / cacc, observation, reward terms and termination (sim/engine/task.py).

Conventions follow Gymnasium's v5 MuJoCo envs: float32 Box actions from actuator_ctrlrange, float64 observations,
reward terms in `info` under the v5 names, `dt`, `init_qpos` / `init_qvel`, `state_vector()`, `set_state()`,
`observation_structure`, `xml_file` / `frame_skip` / `default_camera_config` / `render_mode` / `width` / `height` /
`camera_id` / `camera_name` keyword arguments, `obs_type="states" | "pixels" | "pixels_state"` (pixel
observations of render()'s camera, envs/pixels.py; width x height default 84 x 84 with pixels, else 480 x 480), reset to the model's qpos0 or to a keyframe (`keyframe=`) plus noise
drawn from `np_random` in Gymnasium's order (`reset_noise` kinds), cacc / cfrc_int / cfrc_ext zero at reset as
Gymnasium leaves them, ctrl costs in the action's dtype (Term.in_action_dtype: float32 for a float32 action, as
numpy computes Gymnasium's), Humanoid-style info arrays (Task.info_arrays).  Bad actions raise ValueError and
leave the state unchanged; a diverged simulation truncates the episode with info["diverged"] = True and a
warning.  Reward shaping: every task parameter is a constructor keyword (gym.make kwargs), and add_terms (or the
envs.RewardTerms wrapper) compiles extra terms into the same program.
"""

import inspect
import math
import os
import warnings

import cloudpickle
import numpy as np
import gymnasium as gym
from gymnasium import spaces

import sim
from envs.pixels import PixelRenderer, check_obs_type, close_renderers, compose, image_size, pixel_space
from sim import api as _api
from sim.io import new_task
from sim.types import TASK_SCALARS, TASK_ARRAYS, CODE
from sim.constants import (
    FLAG_REWARD,
    FLAG_PRE,
    FLAG_RESET,
    TERM_DELTA,
    CHK_OBS_FINITE,
    ST_TERMINATED,
    ST_TRUNCATED,
    ST_DIVERGED,
    ST_RESET,
    NSTATUS,
    FLAG_F32,
    ST_F32,
)

#: the task models shipped with the package (envs/assets/*.xml, package data of the wheel)
ASSETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "assets")
_RNE_POST = {CODE["cacc"], CODE["cfrc_ext"], CODE["cfrc_int"]}


def asset_path(name: str) -> str:
    """Absolute path of a model shipped with numjoco (`envs/assets/<name>`), e.g. `asset_path("hopper.xml")`.

    Works from a source checkout and from an installed wheel alike; raises FileNotFoundError naming the
    available files when `name` is not one of them.
    """
    full = os.path.join(ASSETS, name)
    if not os.path.isfile(full):
        have = ", ".join(sorted(f for f in os.listdir(ASSETS) if f.endswith(".xml")))
        raise FileNotFoundError(f"no asset {name!r} in {ASSETS} (available: {have})")
    return full


def expand_model_path(path: str) -> str:
    """Gymnasium's rule: a path not starting with '.', '/' or '~' names a file in numjoco's envs/assets/."""
    if path.startswith((".", "/", "~")):
        full = os.path.expanduser(path)
    else:
        full = os.path.join(ASSETS, path)
    if not os.path.exists(full):
        raise OSError(f"File {full} does not exist")
    return full


class CompiledTask:
    """A task program compiled against a model for nworld worlds: the jitted struct and its numpy buffers."""

    def __init__(self, m, task, nworld, dt, max_steps=0, same_step=False):
        srcs = {}

        def src(s):
            if s is None:
                return -1
            if s not in srcs:
                srcs[s] = len(srcs)
            return srcs[s]

        obs = []
        self.observation_structure = dict(task.skipped)
        for name, vec in task.observation.items():
            el = vec.resolve(m)
            self.observation_structure[name] = len(el)
            obs += el
        if any(e.coef != 1.0 for e in obs):
            raise ValueError("weighted() applies to term elements, not to observation segments")
        terms, elems, self.term_names = [], [], []
        self.reward_keys, self.info_keys = list(task.reward), list(task.info)
        for key, term in list(task.reward.items()) + list(task.info.items()):
            el = [] if term.vec is None else term.vec.resolve(m)
            if term.kind == TERM_DELTA and len(el) != 1:
                raise ValueError(f"term {key}: a velocity term needs exactly one element, got {len(el)}")
            if term.action_dtype and any(
                e.src[0] != CODE["action"]
                or e.src2 is not None
                or e.off != 0.0
                or e.coef != 1.0
                or e.lo != -math.inf
                or e.hi != math.inf
                for e in el
            ):
                raise ValueError(f"term {key}: in_action_dtype() needs plain action elements")
            flags = (
                (FLAG_REWARD if key in task.reward else 0)
                | (FLAG_PRE if term.pre else 0)
                | (FLAG_RESET if key in task.reset_info else 0)
                | (FLAG_F32 if term.action_dtype else 0)
            )
            terms.append((term.kind, len(elems), len(el), flags, term.weight, term.sign, term.lo, term.hi))
            elems += el
            self.term_names.append(key)
        checks = []
        for c in task.healthy:
            if c.op == CHK_OBS_FINITE:
                checks.append((-1, c.op, c.lo, c.hi))
            else:
                checks += [(src(e.src), c.op, c.lo, c.hi) for e in c.vec.resolve(m)]
        a = {}
        a["obs_src"] = np.array([src(e.src) for e in obs], np.int32)
        a["obs_src2"] = np.array([src(e.src2) for e in obs], np.int32)
        a["obs_op"] = np.array([e.op for e in obs], np.int32)
        a["obs_lo"] = np.array([e.lo for e in obs], np.float64)
        a["obs_hi"] = np.array([e.hi for e in obs], np.float64)
        a["el_src"] = np.array([src(e.src) for e in elems], np.int32)
        a["el_src2"] = np.array([src(e.src2) for e in elems], np.int32)
        a["el_coef"] = np.array([e.coef for e in elems], np.float64)
        a["el_off"] = np.array([e.off for e in elems], np.float64)
        a["el_lo"] = np.array([e.lo for e in elems], np.float64)
        a["el_hi"] = np.array([e.hi for e in elems], np.float64)
        for i, name in enumerate(("term_kind", "term_el0", "term_nel", "term_flags")):
            a[name] = np.array([t[i] for t in terms], np.int32)
        for i, name in enumerate(("term_w", "term_sign", "term_rlo", "term_rhi")):
            a[name] = np.array([t[4 + i] for t in terms], np.float64)
        a["chk_src"] = np.array([c[0] for c in checks], np.int32)
        a["chk_op"] = np.array([c[1] for c in checks], np.int32)
        a["chk_lo"] = np.array([c[2] for c in checks], np.float64)
        a["chk_hi"] = np.array([c[3] for c in checks], np.float64)
        a["src"] = np.array(sorted(srcs, key=srcs.get), np.int32).reshape(len(srcs), 2)
        a["fprm"] = np.array([dt, 0.0, 0.0, 0.0])
        nobs, nterm, nq, nv, na, nu = len(obs), len(terms), m.nq, m.nv, m.na, m.nu
        for name, shape in (
            ("action", (nu,)),
            ("obs", (nobs,)),
            ("final_obs", (nobs,)),
            ("terms", (nterm,)),
            ("reset_terms", (nterm,)),
            ("before", (nterm,)),
            ("reward", ()),
            ("status", (NSTATUS,)),
            ("reset_qpos", (nq,)),
            ("reset_qvel", (nv,)),
            ("reset_act", (na,)),
            ("reset_ctrl", (nu,)),
        ):
            a[name] = np.zeros((nworld,) + shape, np.int32 if name == "status" else np.float64)
        uses = {c for c, _ in srcs}
        scal = dict(
            enabled=1,
            nobs=nobs,
            nterm=nterm,
            nchk=len(checks),
            same_step=int(same_step),
            rne_post=int(bool(uses & _RNE_POST)),
            max_steps=int(max_steps),
            terminate=int(task.terminate),
        )
        self.arrays = a
        self.struct = new_task(*([scal[n] for n in TASK_SCALARS] + [a[n] for n, _, _ in TASK_ARRAYS]))
        self.nobs, self.nterm, self.rne_post = nobs, nterm, bool(scal["rne_post"])


def _signature(cls):
    """The constructor signature of a task class: the base keywords and the task's parameters with defaults."""
    base = [
        inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=v)
        for n, v in (
            ("xml_file", cls.xml_file),
            ("frame_skip", cls.frame_skip),
            ("default_camera_config", cls.default_camera_config),
            ("keyframe", cls.keyframe),
            ("obs_type", "states"),
            ("render_mode", None),
            ("width", None),
            ("height", None),
            ("camera_id", None),
            ("camera_name", None),
            ("max_geom", 1000),
            ("visual_options", None),
        )
    ]
    own = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=v) for n, v in cls.params.items()]
    return inspect.Signature(base + own)


class Params(dict):
    """The task's keyword parameters (attribute access: p.ctrl_cost_weight)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


class NumjocoEnv(gym.Env):
    """Base class of numjoco's tasks (see module doc).  Subclasses set xml_file, frame_skip, params, and
    define task(p) -> envs.spec.Task; override reset_state(rng, p) for another initial-state distribution, or
    set reset_noise = (qpos noise, qvel noise), each 'uniform' (U(-s, s)) or 'normal' (s * N(0, 1)), with s
    = p.reset_noise_scale."""

    metadata = {"render_modes": ["rgb_array", "depth_array", "rgbd_tuple"]}
    xml_file = None
    frame_skip = 1
    default_camera_config = {}
    params = {}
    keyframe = None
    reset_noise = ("uniform", "uniform")
    _feed = None  # the result of the next reset / step, computed by the engine (envs/engine.py)

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls.__signature__ = _signature(cls)

    def __init__(self, **kwargs):
        sig = type(self).__signature__
        unknown = sorted(set(kwargs) - set(sig.parameters))
        if unknown:
            raise TypeError(
                f"{type(self).__name__}: unknown keyword argument(s) {unknown}; valid: {sorted(sig.parameters)}"
            )
        bound = {n: p.default for n, p in sig.parameters.items()}
        bound.update(kwargs)
        self._kwargs = dict(kwargs)
        self._added = []
        self.p = Params({n: bound[n] for n in type(self).params})
        self.fullpath = expand_model_path(bound["xml_file"])
        self.frame_skip = int(bound["frame_skip"])
        if self.frame_skip < 1:
            raise ValueError(f"frame_skip must be >= 1, got {self.frame_skip}")
        self.model = self.load_model(self.fullpath, self.p)
        self.data = sim.Data(self.model)
        m = self.model
        key = bound["keyframe"]
        if key is not None:
            k = m.name2id("key", key) if isinstance(key, str) else int(key)
            if not 0 <= k < m.nkey:
                raise ValueError(f"keyframe {key!r} not in the model (nkey = {m.nkey})")
            sim.reset(m, self.data, keyframe=k)
        self.keyframe = key
        self.init_qpos = self.data.qpos.ravel().copy()
        self.init_qvel = self.data.qvel.ravel().copy()
        self.init_act = self.data.act.ravel().copy()
        self.init_ctrl = self.data.ctrl.ravel().copy()
        self.render_mode = bound["render_mode"]
        if self.render_mode is not None and self.render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {self.render_mode!r} not in {self.metadata['render_modes']}")
        self.obs_type = check_obs_type(bound["obs_type"])
        self.width, self.height = image_size(self.obs_type, bound["width"], bound["height"], 480)
        self.camera_id, self.camera_name = bound["camera_id"], bound["camera_name"]
        if self.camera_id is not None and self.camera_name is not None:
            raise ValueError("camera_id and camera_name cannot both be given")
        self.camera_config = bound["default_camera_config"]
        self.max_geom, self.visual_options = int(bound["max_geom"]), bound["visual_options"]  # for the renderer
        self._renderer = None
        self._pixels = None
        self.metadata = dict(self.metadata, render_fps=int(np.round(1.0 / self.dt)))
        low, high = np.asarray(m.actuator_ctrlrange, dtype=np.float32).reshape(m.nu, 2).T
        self.action_space = spaces.Box(low=low, high=high, dtype=np.float32)
        self._act_shape = (m.nu,)
        self._compile(self.task(self.p))
        self.state_space = self.make_observation_space()
        self.observation_space = pixel_space(self.state_space, self.obs_type, self.height, self.width)

    # ------------------------------------------------------------------ what a task declares
    def task(self, p):
        raise NotImplementedError

    def load_model(self, path, p):
        """The task's Model from its MJCF file (override to edit the model per parameters)."""
        return sim.load_model(path)

    def make_observation_space(self):
        """The space of the state observation (shape_observation's result); obs_type adds the image to it."""
        return spaces.Box(-np.inf, np.inf, (self._prog.nobs,), np.float64)

    def shape_observation(self, o):
        """The state observation from the program's observation vector o (a copy): o itself, or e.g. a goal
        env's Dict."""
        return o

    def reset_state(self, rng, p):
        """Initial state of an episode: init_qpos / init_qvel plus noise of scale p.reset_noise_scale drawn from
        rng as Gymnasium's v5 envs do (qpos first, then qvel; the kinds in self.reset_noise).
        Returns {'qpos': ..., 'qvel': ...} (optionally act, ctrl)."""
        s = p.reset_noise_scale
        qpos = self.init_qpos + _noise(rng, self.reset_noise[0], s, self.model.nq)
        qvel = self.init_qvel + _noise(rng, self.reset_noise[1], s, self.model.nv)
        return {"qpos": qpos, "qvel": qvel}

    # ------------------------------------------------------------------ reward shaping
    def add_terms(self, reward=None, info=None):
        """Add reward terms ({info key: envs.spec Term}, summed into the reward) and info-only terms to the
        task and recompile its program (arrays only: no numba compile); the env step stays one compiled call.

            env.unwrapped.add_terms({"reward_height": Value(qpos[1]) * 0.1})
        """
        clash = sorted(set(reward or {}).union(info or {}) & set(self._prog.term_names))
        if clash:
            raise ValueError(f"terms {clash} already exist in the task")
        old = self._prog.arrays
        self._compile(self._spec.with_terms(reward, info))
        new = self._prog.arrays
        for k in ("action", "obs", "final_obs", "status", "reset_qpos", "reset_qvel", "reset_act", "reset_ctrl"):
            new[k][...] = old[k]
        self._added.append((reward, info))

    # ------------------------------------------------------------------ Gymnasium API
    @property
    def dt(self):
        return self.model.opt.timestep * self.frame_skip

    def reset(self, *, seed=None, options=None):
        if self._feed is not None:  # a world of a vector env, reset in its batch: the task's Python layers only
            r, self._feed = self._feed, None
            return r
        super().reset(seed=seed)
        self._load_reset(0, self.reset_state(self.np_random, self.p))
        _api.run(self.model, self.data, 0, self._prog.struct)
        return self._emit(), self._reset_info()

    def step(self, action):
        if self._feed is not None:  # (as in reset)
            r, self._feed = self._feed, None
            return r
        a = np.asarray(action)
        if a.shape != self._act_shape:
            raise ValueError(
                f"action has shape {a.shape}, expected {self._act_shape} (the action space is {self.action_space})"
            )
        if a.dtype.kind not in "biuf":
            raise ValueError(
                f"action must hold real numbers, got dtype {a.dtype}: {a}; the simulation state is unchanged"
            )
        self._action[0] = a
        self._status[0, ST_F32] = a.dtype == np.float32
        if _api.run(self.model, self.data, self.frame_skip, self._prog.struct) < 0:
            raise ValueError(f"action contains NaN or inf: {a}; the simulation state is unchanged")
        terms = self._terms[0].tolist()
        reward = self._reward.item()
        info = {n: terms[k] for k, n in self._info_idx}
        for key, field in self._info_arrays:
            info[key] = getattr(self.data, field).copy()
        st = self._status[0].tolist()
        if st[ST_DIVERGED]:
            info["diverged"] = True
            warnings.warn(
                f"{type(self).__name__}: the simulation diverged and was reset; the episode is truncated",
                RuntimeWarning,
                stacklevel=2,
            )
        return self._emit(), reward, st[ST_TERMINATED] != 0, st[ST_TRUNCATED] != 0, info

    def render(self):
        if self.render_mode is None:
            gym.logger.warn('render() called without a render_mode: pass render_mode="rgb_array" to the env')
            return None
        if self._renderer is None:
            self._renderer = self._make_renderer()
        return self._renderer.render_env(self)

    def close(self):
        """Release the renderer.  As Gymnasium's MujocoEnv: closing twice is a no-op, and the env stays usable
        (step / reset continue the simulation, render() opens a new renderer)."""
        close_renderers(self)

    # ------------------------------------------------------------------ pixel observations
    def pixel_renderer(self):
        """The PixelRenderer of pixel observations (envs/pixels.py): the camera of render() (camera_id /
        camera_name, else default_camera_config's free or tracking camera) at width x height.  A free camera's
        lookat, where the config leaves it to Gymnasium's median of the geom positions, is taken at the initial
        state (init_qpos, init_qvel) so that every episode and every world of a vector env sees the same view."""
        from envs.render import resolve_camera

        d0 = sim.Data(self.model)
        d0.qpos, d0.qvel = self.init_qpos, self.init_qvel
        sim.forward(self.model, d0)
        cam = resolve_camera(self.model, d0, self.camera_id, self.camera_name, self.camera_config)
        return PixelRenderer(self.model, self.height, self.width, cam)

    def _emit(self):
        """The observation of obs_type of the current state (the state part: shape_observation)."""
        o = self.shape_observation(self._obs[0].copy())
        if self.obs_type == "states":
            return o
        if self._pixels is None:
            self._pixels = self.pixel_renderer()
        return compose(o, self._pixels.frame(self.data), self.obs_type)

    # ------------------------------------------------------------------ MujocoEnv helpers
    def state_vector(self):
        return np.concatenate([self.data.qpos.flat, self.data.qvel.flat])

    def set_state(self, qpos, qvel):
        """Set qpos and qvel and run forward (mj_forward), as MujocoEnv.set_state."""
        qpos, qvel = np.asarray(qpos, dtype=np.float64), np.asarray(qvel, dtype=np.float64)
        if qpos.shape != (self.model.nq,) or qvel.shape != (self.model.nv,):
            raise ValueError(
                f"set_state expects qpos {(self.model.nq,)} and qvel {(self.model.nv,)}, got "
                f"{qpos.shape} and {qvel.shape}"
            )
        self.data.qpos = qpos
        self.data.qvel = qvel
        sim.forward(self.model, self.data)

    def get_body_com(self, name):
        return self.data.xpos[self.model.body(name).id]

    # ------------------------------------------------------------------ internals
    def _compile(self, spec):
        """Compile a Task into this env's program and bind its buffers."""
        self._spec = spec
        self._prog = CompiledTask(self.model, spec, 1, self.dt)
        self.observation_structure = self._prog.observation_structure
        a = self._prog.arrays
        self._action, self._obs, self._status = a["action"], a["obs"], a["status"]
        self._terms, self._reset_terms, self._reward = a["terms"], a["reset_terms"], a["reward"]
        names = self._prog.term_names
        self._names = names
        self._info_idx = [(k, n) for k, n in enumerate(names) if not n.startswith("_")]
        self._reset_idx = [(k, n) for k, n in enumerate(names) if n in spec.reset_info]
        self._info_arrays = list(spec.info_arrays.items())

    def _load_reset(self, w, state):
        a = self._prog.arrays
        a["reset_qpos"][w] = state["qpos"]
        a["reset_qvel"][w] = state["qvel"]
        a["reset_act"][w] = state.get("act", self.init_act)
        a["reset_ctrl"][w] = state.get("ctrl", self.init_ctrl)
        a["status"][w, ST_RESET] = 1

    def _reset_info(self):
        rt = self._reset_terms[0]
        info = {n: float(rt[k]) for k, n in self._reset_idx}
        for key, field in self._info_arrays:
            info[key] = getattr(self.data, field).copy()
        return info

    def _make_renderer(self):
        try:
            from envs.render import EnvRenderer
        except ImportError as e:
            raise gym.error.DependencyNotInstalled(
                f"render_mode={self.render_mode!r} needs numjoco's renderer (sim.Renderer), which is not "
                f"available in this installation: {e}"
            ) from None
        return EnvRenderer(self)

    def __getstate__(self):
        # terms added by add_terms hold closures (envs.spec Vec): pickled by value with cloudpickle
        st = {
            "kwargs": self._kwargs,
            "added": cloudpickle.dumps(self._added) if self._added else None,
            "np_random": self.np_random if self._np_random is not None else None,
        }
        d = self.data
        st["state"] = {
            k: np.array(getattr(d, k))
            for k in (
                "qpos",
                "qvel",
                "act",
                "ctrl",
                "qacc_warmstart",
                "qfrc_applied",
                "xfrc_applied",
                "mocap_pos",
                "mocap_quat",
            )
        }
        st["time"] = d.time
        st["init_qpos"] = self.init_qpos
        st["task"] = {k: v.copy() for k, v in self._prog.arrays.items()}
        return st

    def __setstate__(self, st):
        self.__init__(**st["kwargs"])
        for reward, info in cloudpickle.loads(st["added"]) if st.get("added") else ():
            self.add_terms(reward, info)
        if st["np_random"] is not None:
            self._np_random = st["np_random"]
        for k, v in st["state"].items():
            setattr(self.data, k, v)
        self.data.time = st["time"]
        self.init_qpos[...] = st["init_qpos"]
        for k, v in st["task"].items():
            self._prog.arrays[k][...] = v
        sim.forward(self.model, self.data)


def _noise(rng, kind, s, n):
    """Reset noise as Gymnasium draws it: 'uniform' U(-s, s) or 'normal' s * N(0, 1), n values."""
    if kind == "uniform":
        return rng.uniform(low=-s, high=s, size=n)
    if kind == "normal":
        return s * rng.standard_normal(n)
    raise ValueError(f"reset noise kind must be 'uniform' or 'normal', got {kind!r}")
