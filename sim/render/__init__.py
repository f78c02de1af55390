"""numjoco's renderer: MuJoCo's look by ray casting in numba (no OpenGL), rgb / depth / segmentation, one world
or a batch of worlds per call.  Draws every geom type, sites, spatial tendons and skins; lights, shadows,
textures, skybox, haze, reflections and transparency as mjr_render.

    r = sim.Renderer(m, height=480, width=480)
    r.update_scene(d, camera="track")
    img = r.render()

See renderer.py (the API of mujoco.Renderer), camera.py (Camera like mujoco.MjvCamera, Gymnasium's
default_camera_config), scene.py (what is drawn and how it looks), kernels.py (the jitted pipeline).
"""
from .camera import Camera, SceneOption, apply_camera_config, gymnasium_free_camera
from .renderer import Renderer, depth_buffer

__all__ = ["Renderer", "Camera", "SceneOption", "apply_camera_config", "gymnasium_free_camera", "depth_buffer"]
