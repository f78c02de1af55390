"""RobotEnv: Gymnasium-Robotics' goal-conditioned robot env (its `MujocoRobotEnv` / `GoalEnv`) on numjoco, written
once for a batch of worlds.

A task subclass (envs/robotics/fetch.py, hand.py) declares its model (a file of the installed gymnasium-robotics
package), `n_substeps`, `initial_qpos`, keyword parameters with their defaults, and batched hooks that mirror
gymnasium_robotics' methods:

    load_model(path, p)          the Model (e.g. the mocap welds reset as reset_mocap_welds does)
    env_setup(d)                 _env_setup on a one-world Data: initial configuration, statics for goal sampling
    draw_reset(rng)              the random numbers _reset_sim draws for one world (from that world's generator)
    reset_sim(worlds, draws)     _reset_sim of the listed worlds (numpy + compiled calls); returns which succeeded
    sample_goal(rng, w)          _sample_goal of world w
    set_action(worlds, a)        _set_action (clipped actions (k, n_actions))
    after_step(worlds)           _step_callback
    observe(worlds)              (observation (k, n), achieved_goal (k, g)) as _get_obs builds them
    compute_reward / goal_success  compute_reward and _is_success on (batches of) goals

obs_type="pixels" / "pixels_state" (envs/pixels.py): the image of render()'s camera without the goal markers under
"pixels", beside "achieved_goal" and "desired_goal" (and the state vector under "observation" for "pixels_state").

Every hook works on the rows of the listed worlds of one batched Data (numpy over the worlds; the physics is
envs/robotics/kernels.py `advance`, one compiled call for all listed worlds).  This class is the single env
(`gym.make("numjoco/FetchPush-v0")`: a batch of one); `RobotEnv.batched(n, **kwargs)` is the batch the engine of
numjoco's vector env and SB3 VecEnv drives (envs/robotics/engine.py).  Random numbers: each world draws from its own generator in
gymnasium_robotics' order, so the same seed gives the same initial states and goals as its envs.
"""

import copy
import importlib.util
import os
import time

import numba
import numpy as np
import gymnasium as gym
from gymnasium import spaces

import sim
from sim import api as _api
from envs.base import Params
from envs.pixels import PixelRenderer, check_obs_type, close_renderers, compose, image_size, pixel_space
from envs.render import resolve_camera
from envs.spec import dof_size, qpos_size
from sim.constants import JNT_HINGE, JNT_SLIDE
from envs.robotics.kernels import advance, RESET, FORWARD
from sim.jit.features import F_EQUALITY, F_SENSOR, F_TENDON
from envs.worlds import ThreadTuner, on_threads

MAX_RESET_ROUNDS = 1000  # _reset_sim retries (a world whose object fell off the hand draws again)
# Every Fetch and Shadow Hand scene is simulated with one feature set (sim/jit/features.py): the union of theirs
# (Fetch's mocap welds need equality constraints, the hand's tendons and sensors), so that `advance` compiles once
# for all the tasks.  A part a model does not have loops over nothing: the numbers are those of its own feature set.
SHARED_FEATURES = (F_SENSOR, F_TENDON, F_EQUALITY)


def robotics_asset(path):
    """Absolute path of a model file of the installed gymnasium-robotics package (envs/assets/<path>), found
    without importing it (it imports mujoco).  Raises gymnasium's DependencyNotInstalled when it is missing."""
    spec = importlib.util.find_spec("gymnasium_robotics")
    if spec is None or not spec.submodule_search_locations:
        raise gym.error.DependencyNotInstalled(
            f"the Fetch and Shadow Hand tasks load their models ({path}) from the gymnasium-robotics package, "
            "whose MJCF files and meshes numjoco does not ship: pip install gymnasium-robotics (numjoco is tested "
            "against gymnasium-robotics 1.4.2)"
        )
    full = os.path.join(list(spec.submodule_search_locations)[0], "envs", "assets", path)
    if not os.path.isfile(full):
        raise FileNotFoundError(
            f"{full} does not exist: this gymnasium-robotics installation has no {path} "
            "(numjoco is tested against gymnasium-robotics 1.4.2)"
        )
    return full


_MODELS = {}


def load_model_cached(path):
    """sim.load_model(path), compiled once per process and file version: each call returns a copy (the tasks
    edit their Model: mocap welds, marker sites).  Compiling a Fetch or Shadow Hand scene takes seconds (its
    meshes' hulls and BVHs); a vector env's template, its single envs and a test's oracles would repeat it."""
    st = os.stat(path)
    key = (os.path.realpath(path), st.st_mtime_ns, st.st_size)
    if key not in _MODELS:
        _MODELS[key] = sim.load_model(path)
    return copy.deepcopy(_MODELS[key])


def joint_qpos_range(m, name):
    """(qpos address, size) of joint `name` (free 7, ball 4, slide / hinge 1)."""
    j = m.name2id("joint", name)
    if j < 0:
        raise KeyError(f"no joint named '{name}' in the model")
    return int(m.jnt_qposadr[j]), qpos_size(m.jnt_type[j])


def joint_dof_range(m, name):
    """(dof address, size) of joint `name` (free 6, ball 3, slide / hinge 1)."""
    j = m.name2id("joint", name)
    if j < 0:
        raise KeyError(f"no joint named '{name}' in the model")
    return int(m.jnt_dofadr[j]), dof_size(m.jnt_type[j])


def object_id(m, kind, name):
    i = m.name2id(kind, name)
    if i < 0:
        raise KeyError(f"no {kind} named '{name}' in the model")
    return i


def robot_joints(m):
    """qpos and dof addresses of the joints named robot*, in id order (gymnasium_robotics' robot_get_obs)."""
    ids = [j for j in range(m.njnt) if (m.id2name("joint", j) or "").startswith("robot")]
    if any(int(m.jnt_type[j]) not in (JNT_SLIDE, JNT_HINGE) for j in ids):
        raise ValueError("robot_get_obs reads one value per robot joint: only slide and hinge joints are expected")
    return (
        np.array([int(m.jnt_qposadr[j]) for j in ids], np.int64),
        np.array([int(m.jnt_dofadr[j]) for j in ids], np.int64),
    )


class SiteJacobian:
    """Velocity of a site from mj_jacSite's Jacobian times qvel, for a batch of worlds: the columns of the dofs
    on the site body's chain, cross(cdof_ang, site - subtree_com[root]) + cdof_lin (translation) and cdof_ang
    (rotation), from the Data's current kinematics (after mj_step: those of the step's forward) and qvel."""

    def __init__(self, m, site):
        self.site = site
        body = int(m.site_bodyid[site])
        self.root = int(m.body_rootid[body])
        while body and not int(m.body_dofnum[body]):
            body = int(m.body_parentid[body])
        dofs = []
        if body:
            i = int(m.body_dofadr[body]) + int(m.body_dofnum[body]) - 1
            while i >= 0:
                dofs.append(i)
                i = int(m.dof_parentid[i])
        self.dofs = np.array(dofs, np.int64)

    def velocity(self, d, worlds):
        """(translational (k, 3), rotational (k, 3)) velocities of the site in the listed worlds."""
        cdof = d["cdof"][worlds][:, self.dofs]  # (k, ndof, 6)
        qv = d["qvel"][worlds][:, self.dofs]  # (k, ndof)
        off = d["site_xpos"][worlds, self.site] - d["subtree_com"][worlds, self.root]
        lin = np.cross(cdof[..., :3], off[:, None, :]) + cdof[..., 3:]
        return np.einsum("kdj,kd->kj", lin, qv), np.einsum("kdj,kd->kj", cdof[..., :3], qv)


def _signature(cls):
    import inspect

    base = [
        inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=v)
        for n, v in (
            ("obs_type", "states"),
            ("render_mode", None),
            ("width", None),
            ("height", None),
            ("default_camera_config", None),
        )
    ]
    own = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=v) for n, v in cls.params.items()]
    return inspect.Signature(base + own)


class RobotEnv(gym.Env):
    """Base of the Fetch and Shadow Hand tasks (see the module doc).  Dict observations {observation,
    achieved_goal, desired_goal}, Box(-1, 1) float32 actions, reward = compute_reward(achieved_goal, goal,
    info), info["is_success"], never terminated (the time limit truncates), as gymnasium_robotics' envs."""

    metadata = {"render_modes": ["rgb_array", "depth_array"]}
    model_path = None  # in gymnasium_robotics/envs/assets
    n_actions = None
    initial_qpos = {}
    params = {}
    default_camera_config = {}
    camera_id = camera_name = None

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls.__signature__ = _signature(cls)

    def __init__(self, **kwargs):
        self._init(None, kwargs)

    @classmethod
    def batched(cls, nworld, **kwargs):
        """The task on nworld worlds of one batched Data (the engine of the vector envs)."""
        env = cls.__new__(cls)
        env._init(int(nworld), kwargs)
        return env

    def _init(self, nworld, kwargs):
        sig = type(self).__signature__
        unknown = sorted(set(kwargs) - set(sig.parameters))
        if unknown:
            raise TypeError(
                f"{type(self).__name__}: unknown keyword argument(s) {unknown}; valid: {sorted(sig.parameters)}"
            )
        bound = {n: q.default for n, q in sig.parameters.items()}
        bound.update(kwargs)
        self._kwargs = dict(kwargs)
        self.p = Params({n: bound[n] for n in type(self).params})
        if self.p.get("reward_type", "sparse") not in ("sparse", "dense"):
            raise ValueError(f"reward_type must be 'sparse' or 'dense', got {self.p.reward_type!r}")
        self.reward_type = self.p.get("reward_type")
        self.n_substeps = int(self.p.n_substeps)
        if self.n_substeps < 1:
            raise ValueError(f"n_substeps must be >= 1, got {self.n_substeps}")
        self.render_mode = bound["render_mode"]
        if self.render_mode is not None and self.render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {self.render_mode!r} not in {self.metadata['render_modes']}")
        self.obs_type = check_obs_type(bound["obs_type"])
        self.width, self.height = image_size(self.obs_type, bound["width"], bound["height"], 480)
        self.camera_config = (
            self.default_camera_config if bound["default_camera_config"] is None else bound["default_camera_config"]
        )
        self._renderer = None
        self._pixels = None
        self.fullpath = robotics_asset(self.model_path)
        self.model = m = self.load_model(self.fullpath, self.p)
        _api.require_features(m, *SHARED_FEATURES)
        self.nworld = nworld
        self.num_worlds = 1 if nworld is None else nworld
        self.data = sim.Data(m, nworld=nworld)
        self._d = _api.batch_arrays(self.data)
        self._all = np.arange(self.num_worlds, dtype=np.int64)
        self._task = _api.empty_task()
        self._tuner = ThreadTuner()
        self.num_threads = None
        # _env_setup runs on one world (the single env's own Data), its end state gives the initial state
        d1 = self.data if nworld is None else sim.Data(m)
        self.env_setup(d1)
        self.initial_time = float(d1.time)
        self.initial_qpos = d1.qpos.copy()
        self.initial_qvel = d1.qvel.copy()
        self._rngs = [None] * self.num_worlds
        obs, ag = self.observe(self._all[:1], _api.batch_arrays(d1))
        self._goal = np.zeros((self.num_worlds, ag.shape[1]))
        box = lambda n: spaces.Box(-np.inf, np.inf, shape=(n,), dtype="float64")  # noqa: E731
        self.state_space = spaces.Dict(
            dict(desired_goal=box(ag.shape[1]), achieved_goal=box(ag.shape[1]), observation=box(obs.shape[1]))
        )
        self.observation_space = pixel_space(self.state_space, self.obs_type, self.height, self.width)
        # the pixel camera: render()'s (default_camera_config's free camera), resolved after _env_setup
        self._pixel_camera = resolve_camera(m, d1, None, None, self.camera_config)
        self.action_space = spaces.Box(-1.0, 1.0, shape=(self.n_actions,), dtype="float32")
        self.metadata = dict(self.metadata, render_fps=int(np.round(1.0 / self.dt)))

    # ------------------------------------------------------------------ what a task declares (batched hooks)
    def load_model(self, path, p):
        return load_model_cached(path)

    def env_setup(self, d):
        pass

    def draw_reset(self, rng):
        return None

    def reset_sim(self, worlds, draws):
        """MujocoRobotEnv._reset_sim: mj_resetData, the initial time, qpos and qvel, mj_forward."""
        self.advance(worlds, RESET, 0)
        self.load_initial(worlds)
        self.advance(worlds, FORWARD, 0)
        return np.ones(len(worlds), bool)

    def sample_goal(self, rng, w):
        raise NotImplementedError

    def set_action(self, worlds, a):
        raise NotImplementedError

    def after_step(self, worlds):
        pass

    def observe(self, worlds, d=None):
        raise NotImplementedError

    def goal_success(self, achieved_goal, desired_goal):
        """_is_success: 1.0 / 0.0 (float32) per goal, batched like the goals."""
        raise NotImplementedError

    def _is_success(self, achieved_goal, desired_goal):
        """gymnasium_robotics' name of goal_success (scripts call it)."""
        return self.goal_success(achieved_goal, desired_goal)

    # ------------------------------------------------------------------ helpers for the hooks
    @property
    def dt(self):
        return self.model.opt.timestep * self.n_substeps

    def advance(self, worlds, flags, nstep, data=None):
        """envs/robotics/kernels.py advance on the listed worlds of this env's Data (or of `data`)."""
        data = self.data if data is None else data
        worlds = np.ascontiguousarray(worlds, np.int64)
        m = self.model
        args = (
            _api.model_struct(m),
            _api.data_struct(data),
            self._task,
            worlds,
            int(flags),
            int(nstep),
            _api.model_features(m),
        )
        old = numba.get_num_threads()
        top = min(old if self.num_threads is None else self.num_threads, len(worlds))
        if self.num_threads is None and nstep > 0 and top > 1:  # the step: 1 thread or all, the faster
            want, timed = self._tuner.count(top)
            t0 = time.perf_counter()
            on_threads(want, old, advance, *args)
            if timed:
                self._tuner.record(want, time.perf_counter() - t0)
        else:
            on_threads(max(1, top), old, advance, *args)
        _api.warn_moved(data, worlds, stacklevel=4)

    def set_initial_qpos(self, d):
        """_env_setup's start on the one-world Data d: the initial_qpos joint values, then mj_forward."""
        a = _api.batch_arrays(d)
        for name, value in self.initial_qpos.items():
            adr, n = joint_qpos_range(self.model, name)
            a["qpos"][0, adr : adr + n] = value
        self.advance(np.zeros(1, np.int64), FORWARD, 0, d)

    def load_initial(self, worlds):
        """The initial time, qpos and qvel (the state after env_setup) into the listed worlds."""
        d = self._d
        d["time"][worlds] = self.initial_time
        d["qpos"][worlds] = self.initial_qpos
        d["qvel"][worlds] = self.initial_qvel

    def _rng(self, w):
        return self.np_random if self.nworld is None else self._rngs[w]

    # ------------------------------------------------------------------ goal-env API (batched like the goals)
    @property
    def goal(self):
        """The desired goal: (goal_dim,) for the single env, (nworld, goal_dim) for a batch (settable)."""
        return self._goal[0] if self.nworld is None else self._goal

    @goal.setter
    def goal(self, value):
        if self.nworld is None:
            self._goal[0] = value
        else:
            self._goal[...] = value

    def compute_reward(self, achieved_goal, desired_goal, info):
        raise NotImplementedError

    def compute_terminated(self, achieved_goal, desired_goal, info):
        """Never terminated (gymnasium_robotics: continuing tasks); batched goals give an array of False."""
        return False if np.ndim(achieved_goal) <= 1 else np.zeros(np.shape(achieved_goal)[:-1], bool)

    def compute_truncated(self, achieved_goal, desired_goal, info):
        """Truncation comes from the time limit only; batched goals give an array of False."""
        return False if np.ndim(achieved_goal) <= 1 else np.zeros(np.shape(achieved_goal)[:-1], bool)

    # ------------------------------------------------------------------ batched engine
    def reset_worlds(self, worlds):
        """reset() of the listed worlds: _reset_sim until it succeeds (each world with its own draws), then the
        goals."""
        pending = np.asarray(worlds, np.int64)
        for _ in range(MAX_RESET_ROUNDS):
            if not pending.size:
                break
            draws = [self.draw_reset(self._rng(w)) for w in pending.tolist()]
            ok = self.reset_sim(pending, draws)
            pending = pending[~ok]
        else:
            raise RuntimeError(
                f"{type(self).__name__}: no valid initial state after {MAX_RESET_ROUNDS} attempts in "
                f"world(s) {pending.tolist()}"
            )
        for w in np.asarray(worlds).tolist():
            self._goal[w] = self.sample_goal(self._rng(w), w)

    def step_worlds(self, worlds, actions):
        """The physics of step() for the listed worlds; actions (k, n_actions) already checked and clipped."""
        self.set_action(worlds, actions)
        self.advance(worlds, 0, self.n_substeps)
        self.after_step(worlds)

    def observations(self, worlds):
        """The observations of the listed worlds: {observation, achieved_goal, desired_goal} (k, ...) arrays,
        with the images under "pixels" for pixel observations (envs/pixels.py's goal layout)."""
        obs, ag = self.observe(worlds)
        return self.with_pixels({"observation": obs, "achieved_goal": ag, "desired_goal": self._goal[worlds]}, worlds)

    # ------------------------------------------------------------------ pixel observations
    def pixel_renderer(self):
        """The PixelRenderer of pixel observations (envs/pixels.py): render()'s camera at width x height with the
        goal markers hidden (site group 0: Fetch's target0, HandReach's target / finger sites; geom group 2: the
        manipulate tasks' target object), so that the image shows the robot and the objects, never the desired
        goal: HER relabels desired_goal, which an image of the goal would contradict."""
        from sim.render import SceneOption

        opt = SceneOption()
        opt.sitegroup[0] = 0
        opt.geomgroup[2] = 0
        return PixelRenderer(self.model, self.height, self.width, self._pixel_camera, opt)

    def frames(self, worlds):
        """(k, H, W, 3) uint8 images of the listed worlds as they are now (one batched render for most)."""
        if self._pixels is None:
            self._pixels = self.pixel_renderer()
        if self.nworld is None:
            return self._pixels.frame(self.data)[None]
        top = min(numba.get_num_threads() if self.num_threads is None else self.num_threads, self.num_worlds)
        return self._pixels.worlds(self.data, worlds, lambda f: on_threads(top, numba.get_num_threads(), f))

    def with_pixels(self, obs, worlds, frames=None):
        """obs (a dict of (k, ...) arrays of the listed worlds) in obs_type's layout (frames: theirs, or None to
        render them now)."""
        if self.obs_type == "states":
            return obs
        return compose(obs, self.frames(worlds) if frames is None else frames, self.obs_type)

    def check_actions(self, actions, shape):
        a = np.asarray(actions)
        if a.shape != shape:
            raise ValueError(f"action has shape {a.shape}, expected {shape} (the action space is {self.action_space})")
        if a.dtype.kind not in "biuf":
            raise ValueError(f"action must hold real numbers, got dtype {a.dtype}; the simulation state is unchanged")
        if not np.isfinite(a).all():
            raise ValueError(f"action contains NaN or inf: {a}; the simulation state is unchanged")
        return np.clip(a, self.action_space.low, self.action_space.high)

    # ------------------------------------------------------------------ Gymnasium API (the single env)
    def reset(self, *, seed=None, options=None):
        if self.nworld is not None:
            raise TypeError("a batched RobotEnv is stepped through its vector env (envs/robotics/engine.py)")
        super().reset(seed=seed)
        self.reset_worlds(self._all)
        return self._single(), {}

    def step(self, action):
        if self.nworld is not None:
            raise TypeError("a batched RobotEnv is stepped through its vector env (envs/robotics/engine.py)")
        a = self.check_actions(action, self.action_space.shape)
        self.step_worlds(self._all, a[None])
        obs = self._single()
        info = {"is_success": self.goal_success(obs["achieved_goal"], self._goal[0])}
        terminated = self.compute_terminated(obs["achieved_goal"], self._goal[0], info)
        truncated = self.compute_truncated(obs["achieved_goal"], self._goal[0], info)
        reward = self.compute_reward(obs["achieved_goal"], self._goal[0], info)
        return obs, reward, terminated, truncated, info

    def _single(self):
        obs, ag = self.observe(self._all)
        o = {"observation": obs[0], "achieved_goal": ag[0], "desired_goal": self._goal[0].copy()}
        return o if self.obs_type == "states" else compose(o, self.frames(self._all)[0], self.obs_type)

    def render(self):
        if self.render_mode is None:
            gym.logger.warn('render() called without a render_mode: pass render_mode="rgb_array" to the env')
            return None
        return self.render_world(0)

    def render_world(self, w):
        """The frame of world w: render_callback (the goal markers, then mj_forward of that world, as
        gymnasium_robotics' render does), then sim.Renderer with default_camera_config's free camera."""
        if self._renderer is None:
            from envs.render import EnvRenderer

            self._renderer = EnvRenderer(self, None if self.nworld is None else 0)
        self.render_callback(int(w))
        self.advance(np.array([w], np.int64), FORWARD, 0)
        return self._renderer.render_env(self, None if self.nworld is None else int(w))

    def render_callback(self, w):
        """_render_callback of world w: the goal markers moved to its goal (before its mj_forward)."""

    def site_offsets(self, w):
        """site_xpos - site_pos (model) of world w: a marker site's position is goal - its offset."""
        return self._d["site_xpos"][w] - np.asarray(self.model.site_pos)

    def close(self):
        close_renderers(self)
