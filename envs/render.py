"""Rendering of numjoco envs through sim.Renderer (ray casting in numba: no display, no OpenGL).

Render modes as Gymnasium's MuJoCo envs: "rgb_array" (uint8 (H, W, 3)), "depth_array" (Gymnasium's float32
depth-buffer values, sim.render.depth_buffer) and "rgbd_tuple".  The camera as Gymnasium's MujocoRenderer: a model
camera by camera_id / camera_name, else the free camera Gymnasium starts from with `default_camera_config`
applied; one difference on purpose: a config with `trackbodyid` makes it a tracking camera that follows that
body (Gymnasium 1.x renders a fixed free camera and ignores trackbodyid, Gymnasium #1141, so a hopping robot
leaves the frame).  A batched Data renders every world in one call (render_worlds).
"""

import sim
from sim import render as R


def resolve_camera(m, d, camera_id=None, camera_name=None, config=None, world=None):
    """A model camera id, or the Gymnasium-style free / tracking Camera for `config`."""
    if camera_id is not None and camera_name is not None:
        raise ValueError("camera_id and camera_name cannot both be given")
    if camera_name is not None:
        camera_id = m.name2id("camera", camera_name)
        if camera_id < 0:
            raise ValueError(f"no camera named '{camera_name}' in the model")
    if camera_id is not None and camera_id != -1:
        if not 0 <= camera_id < m.ncam:
            raise ValueError(f"camera_id {camera_id} not in the model (ncam = {m.ncam})")
        return int(camera_id)
    cam = R.gymnasium_free_camera(m, d, world)
    R.apply_camera_config(cam, config)
    if cam.trackbodyid >= 0:
        cam.type = R.Camera.TRACKING
    return cam


class EnvRenderer:
    """The renderer of one env (or of every world of a vector env's batched Data)."""

    def __init__(self, env, world=None):
        self.model = env.model
        self.mode = env.render_mode
        self.renderer = sim.Renderer(self.model, env.height, env.width)
        self.camera = resolve_camera(self.model, env.data, env.camera_id, env.camera_name, env.camera_config, world)

    def _frame(self, data, world, depth):
        r = self.renderer
        if depth:
            r.enable_depth_rendering()
        try:
            r.update_scene(data, camera=self.camera, world=world)
            out = r.render()
        finally:
            if depth:
                r.disable_depth_rendering()
        return R.depth_buffer(out, self.model) if depth else out

    def render_env(self, env, world=None):
        return self.render_data(env.data, world)

    def render_data(self, data, world=None):
        """The frame(s) of the render mode: world=None with a batched Data gives (nworld, H, W, ...)."""
        if self.mode == "rgb_array":
            return self._frame(data, world, False)
        if self.mode == "depth_array":
            return self._frame(data, world, True)
        if self.mode == "rgbd_tuple":
            return self._frame(data, world, False), self._frame(data, world, True)
        raise ValueError(f"render_mode {self.mode!r} is not one of rgb_array, depth_array, rgbd_tuple")

    def close(self):
        self.renderer.close()
