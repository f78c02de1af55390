"""DMCEnv: a DeepMind Control Suite task as a Gymnasium env on numjoco's physics.

A task subclass declares what dm_control's suite module declares (envs/dmc/cheetah.py is a whole task):

    class CheetahRun(DMCEnv):
        domain, task = 'cheetah', 'run'
        time_limit = 10                          # seconds (dm_control's _DEFAULT_TIME_LIMIT)
        control_timestep = None                  # seconds; None: one physics step per control step
        def model_xml(self, p): ...              # the MJCF text (envs/dmc/models.py)
        def initialize_episode(self, physics, random): ...    # dm_control's, on envs/dmc/physics.py Physics
        def get_observation(self, physics): ...  # dm_control's, on symbolic physics (envs/dmc/expr.py)
        def get_reward(self, physics): ...

get_observation and get_reward are recorded once, at construction, as one program; each control step then runs
dm_control's step: ctrl = action, n_sub_steps physics steps, the position / velocity quantities of the new state
(its legacy step's mj_step1: the acceleration-stage sensors, e.g. touch, keep the last substep's values), then the
program (observations and reward) in one compiled call for the world (envs/dmc/kernels.py).  reset(seed=s)
draws the initial state as `suite.load(domain, task, task_kwargs={'random': s})` does (a RandomState(s), the
same draws in the same order, dm_control's reset semantics: forward with actuation disabled); later resets
continue that RandomState.

Gymnasium conventions: observations a Dict of float64 arrays in dm_control's order and shapes (a scalar is shape
()), or one float64 vector (flat_observation=True: dm_control's flatten_observation order); obs_type="pixels": the
(height, width, 3) uint8 image of camera camera_id (default 84 x 84, the task's pixels_camera: 0, quadruped 2, as
DrQ-v2 renders them), "pixels_state": the state observations plus the image under "pixels" (dm_control's pixels
wrapper with pixels_only=False; with flat_observation the state vector is under "observations"); render() draws
the same camera at width x height; float32 Box actions
from actuator_ctrlrange (any real dtype accepted; ctrl holds them as float64, as dm_control's set_control); an
episode lasts time_limit seconds (1000 control steps for every task here) and ends truncated (dm_control's LAST
step with discount 1), info["discount"] the step's discount; action_repeat=k repeats an action over k control
steps, summing their rewards (DrQ-v2's ActionRepeatWrapper), so an episode is ceil(1000 / k) env steps.  Bad
actions raise ValueError and leave the state unchanged; a diverged simulation (dm_control's PhysicsError) ends
the episode truncated with info["diverged"] = True and a warning.
"""

import math
import warnings
from collections import OrderedDict

import numpy as np
import gymnasium as gym
from gymnasium import spaces

import sim
from sim import api as _api
from sim.constants import NWARNING
from envs.base import Params
from envs.dmc import models
from envs.dmc.expr import Symbols, Program
from envs.dmc.kernels import run_serial
from envs.dmc.physics import Physics
from envs.pixels import PixelRenderer, check_obs_type, close_renderers, compose, pixel_space

FLAT_KEY = "observations"  # dm_control's FLAT_OBSERVATION_KEY


def compute_n_steps(control_timestep, physics_timestep, tolerance=1e-8):
    """dm_control.rl.control.compute_n_steps: physics steps per control step."""
    if control_timestep < physics_timestep:
        raise ValueError(
            f"Control timestep ({control_timestep}) cannot be smaller than physics timestep ({physics_timestep})."
        )
    if abs((control_timestep / physics_timestep - round(control_timestep / physics_timestep))) > tolerance:
        raise ValueError(
            f"Control timestep ({control_timestep}) must be an integer multiple of physics timestep "
            f"({physics_timestep})"
        )
    return int(round(control_timestep / physics_timestep))


class DMCEnv(gym.Env):
    """Base of the Control Suite tasks (see the module doc)."""

    metadata = {"render_modes": ["rgb_array", "depth_array"]}
    domain = task = None
    time_limit = math.inf
    control_timestep = None
    episode_fields = ()  # Model struct arrays initialize_episode sets per episode (a row per world in a vector env)
    pixels_camera = 0  # the camera of pixel observations and render() (DrQ-v2's: 0, quadruped 2)
    params = {}

    def __init__(
        self,
        *,
        time_limit=None,
        action_repeat=1,
        flat_observation=False,
        control_timestep=None,
        obs_type="states",
        render_mode=None,
        width=84,
        height=84,
        camera_id=None,
        **kwargs,
    ):
        unknown = sorted(set(kwargs) - set(self.params))
        if unknown:
            raise TypeError(
                f"{type(self).__name__}: unknown keyword argument(s) {unknown}; task parameters: {sorted(self.params)}"
            )
        self.p = Params(self.params, **kwargs)
        self.model = models.load(self.model_xml(self.p))
        self.configure_model(self.model, self.p)
        self.data = sim.Data(self.model)
        self.physics = Physics(self.model, self.data)
        m = self.model
        ts = float(m.opt.timestep)
        ct = self.control_timestep if control_timestep is None else control_timestep
        self.n_sub_steps = 1 if ct is None else compute_n_steps(ct, ts)
        self.time_limit = type(self).time_limit if time_limit is None else float(time_limit)
        # dm_control's step limit: time_limit / control timestep, compared with the control step count
        self._step_limit = math.inf if self.time_limit == math.inf else self.time_limit / (ts * self.n_sub_steps)
        self.action_repeat = int(action_repeat)
        if self.action_repeat < 1:
            raise ValueError(f"action_repeat must be >= 1, got {action_repeat}")
        self.flat_observation = bool(flat_observation)
        self.obs_type = check_obs_type(obs_type)
        # the observation and reward program
        sym = Symbols(m)
        obs = self.get_observation(sym)
        self._obs_shapes = OrderedDict((k, np.shape(v)) for k, v in obs.items())
        elems = [e for v in obs.values() for e in np.asarray(v, dtype=object).ravel()]
        self._prog = Program(sym.b, elems + [self.get_reward(sym)])
        self._nobs = len(elems)
        self._reg = np.zeros((1, self._prog.code.shape[0]))
        self._out = np.zeros((1, self._prog.outputs.shape[0]))
        self._slices = []
        k = 0
        for name, shape in self._obs_shapes.items():
            n = int(np.prod(shape))
            self._slices.append((name, k, k + n, shape))
            k += n
        low, high = np.asarray(m.actuator_ctrlrange, dtype=np.float32).reshape(m.nu, 2).T
        self.action_space = spaces.Box(low=low, high=high, dtype=np.float32)
        self.render_mode = render_mode
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} not in {self.metadata['render_modes']}")
        self.width, self.height = int(width), int(height)
        self.camera_id = self.pixels_camera if camera_id is None else int(camera_id)
        self.camera_name, self.camera_config = None, {}
        self._renderer = None
        self._pixels = None
        self.observation_space = self.make_observation_space()
        self.metadata = dict(self.metadata, render_fps=int(round(1.0 / self.dt)))
        self.random = None
        self._count = 0
        self._needs_reset = True

    def make_observation_space(self):
        """Dict of dm_control's arrays (or one flat vector), an (H, W, 3) uint8 image for obs_type="pixels", both
        (the image under "pixels") for "pixels_state"."""
        if self.flat_observation:
            state = spaces.Box(-np.inf, np.inf, (self._nobs,), np.float64)
        else:
            state = spaces.Dict(
                OrderedDict(
                    (name, spaces.Box(-np.inf, np.inf, shape, np.float64)) for name, shape in self._obs_shapes.items()
                )
            )
        return pixel_space(state, self.obs_type, self.height, self.width, FLAT_KEY)

    # ------------------------------------------------------------------ what a task declares
    def model_xml(self, p):
        return models.read(f"{self.domain}.xml")

    def configure_model(self, model, p):
        """Edit the model once, before it is simulated: for a value dm_control's initialize_episode sets to the same
        constant at every reset among the fields numjoco derives others from when it first simulates a model
        (dof_damping: sim/types.py's dof_damping_eff)."""

    def initialize_episode(self, physics, random):
        raise NotImplementedError

    def get_observation(self, physics):
        raise NotImplementedError

    def get_reward(self, physics):
        raise NotImplementedError

    # ------------------------------------------------------------------ Gymnasium API
    @property
    def dt(self):
        """The duration of an env step: control timestep * action_repeat."""
        return float(self.model.opt.timestep) * self.n_sub_steps * self.action_repeat

    def control_timestep_seconds(self):
        return float(self.model.opt.timestep) * self.n_sub_steps

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if seed is not None:
            self.random = np.random.RandomState(seed)
        elif self.random is None:
            self.random = np.random.RandomState(int(self.np_random.integers(2**32)))
        ph = self.physics
        ph.reset()
        self.initialize_episode(ph, self.random)
        ph.after_reset()
        self._count = 0
        self._needs_reset = False
        self._diverged0 = self._diverged()
        self._evaluate()
        return self._observation(), {}

    def step(self, action):
        if self._needs_reset:
            raise gym.error.ResetNeeded("Cannot call step() before calling reset()")
        a = np.asarray(action)
        if a.shape != (self.model.nu,):
            raise ValueError(
                f"action has shape {a.shape}, expected {(self.model.nu,)} (the action space is {self.action_space})"
            )
        if a.dtype.kind not in "biuf" or not np.all(np.isfinite(a)):
            raise ValueError(f"action must hold finite real numbers, got {a!r}; the simulation state is unchanged")
        m, d, ph = self.model, self.data, self.physics
        reward = 0.0
        truncated = diverged = False
        for _ in range(self.action_repeat):
            d.ctrl = a
            sim.step(m, d, self.n_sub_steps)
            ph.refresh(snapshot=False)
            self._evaluate()
            reward += float(self._out[0, -1])
            self._count += 1
            if self._diverged() != self._diverged0:
                diverged = True
            if self._count >= self._step_limit or diverged:
                truncated = True
                break
        info = {"discount": 1.0}
        if diverged:
            info["diverged"] = True
            warnings.warn(
                f"{type(self).__name__}: the simulation diverged (dm_control would raise PhysicsError); "
                "the episode is truncated",
                RuntimeWarning,
                stacklevel=2,
            )
        return self._observation(), reward, False, truncated, info

    def render(self):
        if self.render_mode is None:
            gym.logger.warn('render() called without a render_mode: pass render_mode="rgb_array" to the env')
            return None
        if self._renderer is None:
            from envs.render import EnvRenderer

            self._renderer = EnvRenderer(self)
        return self._renderer.render_env(self)

    def close(self):
        close_renderers(self)

    # ------------------------------------------------------------------ internals
    def _diverged(self):
        return int(_api.batch_arrays(self.data)["warning_number"][0, NWARNING])

    def _evaluate(self):
        """Observation and reward of the current state (one compiled call)."""
        pr = self._prog
        run_serial(_api.data_address(self.data), 0, pr.code, pr.prm, self._reg, pr.outputs, self._out)

    def _observation(self):
        frame = None if self.obs_type == "states" else self._render_pixels()
        if self.obs_type == "pixels":
            return frame
        flat = self._out[0, : self._nobs]
        if self.flat_observation:
            state = flat.copy()
        else:
            state = OrderedDict((name, flat[a:b].reshape(shape).copy()) for name, a, b, shape in self._slices)
        return compose(state, frame, self.obs_type, FLAT_KEY)

    def pixel_renderer(self):
        """The PixelRenderer of pixel observations (envs/pixels.py): camera_id at height x width."""
        return PixelRenderer(self.model, self.height, self.width, self.camera_id)

    def _render_pixels(self):
        """The (H, W, 3) uint8 image of the pixel camera (dm_control's physics.render(height, width, camera_id))."""
        if self._pixels is None:
            self._pixels = self.pixel_renderer()
        return self._pixels.frame(self.data)

    def reward(self):
        """The reward of the current state (dm_control's get_reward after the last step)."""
        return float(self._out[0, -1])
