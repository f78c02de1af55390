"""Pixel observations of numjoco envs: one place for every family (Gymnasium tasks, Control Suite, Fetch / Shadow
Hand).

obs_type="states" (the state observations), "pixels" (the (height, width, 3) uint8 image of the env's pixel
camera) or "pixels_state" (both).  Layouts:

    plain state vector (Gymnasium tasks)  pixels: image;  pixels_state: {"state": vector, "pixels": image}
                                          (Gymnasium's AddRenderObservation keys)
    goal env Dict (Fetch, Shadow Hand,    pixels: {"pixels", "achieved_goal", "desired_goal"};
    ArmReachGoal)                         pixels_state: {"pixels", "observation", "achieved_goal", "desired_goal"}
                                          (one level of Box keys: SB3's MultiInputPolicy and HerReplayBuffer)
    other Dict (Control Suite)            pixels: image;  pixels_state: the Dict plus "pixels" (last)

PixelRenderer draws them with sim.Renderer: one world, or every world of a batched Data in one compiled call.
"""

from collections import OrderedDict

import numpy as np
from gymnasium import spaces

import sim

OBS_TYPES = ("states", "pixels", "pixels_state")
PIXELS_SIZE = 84  # default width and height of pixel observations
GOAL_KEYS = ("achieved_goal", "desired_goal")


def check_obs_type(obs_type):
    if obs_type not in OBS_TYPES:
        raise ValueError(f"obs_type must be one of {OBS_TYPES}, got {obs_type!r}")
    return obs_type


def image_size(obs_type, width, height, default):
    """(width, height): the given ones, else PIXELS_SIZE with pixel observations and `default` without."""
    d = PIXELS_SIZE if obs_type != "states" else default
    return int(d if width is None else width), int(d if height is None else height)


def is_goal_space(space):
    return isinstance(space, spaces.Dict) and all(k in space.spaces for k in GOAL_KEYS + ("observation",))


def pixel_space(state, obs_type, height, width, state_key="state"):
    """The observation space of obs_type given the state observation space (see the module doc)."""
    if obs_type == "states":
        return state
    img = spaces.Box(0, 255, (int(height), int(width), 3), np.uint8)
    if is_goal_space(state):
        keys = [("pixels", img)]
        if obs_type == "pixels_state":
            keys.append(("observation", state["observation"]))
        return spaces.Dict(OrderedDict(keys + [(k, state[k]) for k in GOAL_KEYS]))
    if obs_type == "pixels":
        return img
    if isinstance(state, spaces.Dict):
        return spaces.Dict(OrderedDict(list(state.spaces.items()) + [("pixels", img)]))
    return spaces.Dict(OrderedDict(((state_key, state), ("pixels", img))))


def compose(state, frame, obs_type, state_key="state"):
    """The observation of obs_type from the state observation and the frame (one world, or a batch: leading
    world axes on both)."""
    if obs_type == "states":
        return state
    if isinstance(state, dict) and all(k in state for k in GOAL_KEYS + ("observation",)):
        out = {"pixels": frame}
        if obs_type == "pixels_state":
            out["observation"] = state["observation"]
        for k in GOAL_KEYS:
            out[k] = state[k]
        return out
    if obs_type == "pixels":
        return frame
    if isinstance(state, dict):
        out = OrderedDict(state)
        out["pixels"] = frame
        return out
    return OrderedDict(((state_key, state), ("pixels", frame)))


def close_renderers(obj, names=("_renderer", "_pixels")):
    """Close and drop the renderers held in obj's attributes `names` (None: already closed)."""
    for name in names:
        r = getattr(obj, name)
        if r is not None:
            r.close()
            setattr(obj, name, None)


class PixelRenderer:
    """The pixel camera of an env: sim.Renderer at (height, width) with a fixed camera (a model camera id or a
    sim.render.Camera: free, or tracking each world's body) and scene option.  frame(data, world) draws one
    world; frames(data) every world of a batched Data in one call.  Both return new uint8 arrays (the
    renderer allocates each image)."""

    def __init__(self, model, height, width, camera, scene_option=None):
        self.renderer = sim.Renderer(model, int(height), int(width))
        self.camera = camera
        self.scene_option = scene_option

    def frame(self, data, world=None):
        r = self.renderer
        r.update_scene(data, camera=self.camera, world=world, scene_option=self.scene_option)
        return r.render()

    def frames(self, data, call=None):
        """(nworld, H, W, 3) uint8 of a batched Data; call(fn): runs the render (e.g. on a thread count)."""
        r = self.renderer
        r.update_scene(data, camera=self.camera, scene_option=self.scene_option)
        return r.render() if call is None else call(r.render)

    def worlds(self, data, worlds=None, call=None):
        """(k, H, W, 3) uint8 images of the listed worlds of a batched Data (None: all): every world in one
        batched render when the list covers more than half of them, else one render per listed world."""
        n = data.nworld
        if worlds is not None and 2 * len(worlds) <= n:
            return np.stack([self.frame(data, int(w)) for w in worlds])
        out = self.frames(data, call)
        return out if worlds is None or len(worlds) == n else out[np.asarray(worlds, np.int64)]

    def close(self):
        self.renderer.close()
