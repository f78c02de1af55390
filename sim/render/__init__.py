"""numjoco's renderer: MuJoCo's look by ray casting in numba (no OpenGL), rgb / depth / segmentation, one world
or a batch of worlds per call.  Draws every geom type, sites, spatial tendons and skins; lights, shadows,
textures, skybox, haze, reflections and transparency as mjr_render.

    r = sim.Renderer(m, height=480, width=480)
    r.update_scene(d, camera="track")
    img = r.render()

See renderer.py (the API of mujoco.Renderer), camera.py (Camera like mujoco.MjvCamera, Gymnasium's
default_camera_config), scene.py (what is drawn and how it looks), kernels.py (the jitted pipeline).

Where the image differs from mjr_render's by design (depth and segmentation are exact; see tests/test_render.py):
* shapes are exact (MuJoCo tessellates spheres and capsules into 28 slices x 16 stacks), so silhouettes differ
  by up to a pixel;
* lighting is evaluated per pixel (Phong) where fixed-function OpenGL lights the vertices and interpolates the
  colours (Gouraud): highlights are rounder, and a mesh with odd vertex normals shades differently;
* shadows come from exact shadow rays, not a 4096^2 shadow map (no acne, no texel steps); the shadow frustum,
  its +-shadowclip extent and its near / far planes are MuJoCo's;
* 4x MSAA is replaced by the optional 4-sample anti-aliasing of silhouette pixels (off by default);
* a reflecting floor mirrors the opaque objects only (mjr_render also blends the transparent ones into it);
* not drawn: rangefinder rays (lines), fog, wireframe, additive blending, stereo, labels and the decor
  elements that MuJoCo draws only when asked (frames, contacts, joints, ...).
"""

from .camera import Camera, SceneOption, apply_camera_config, gymnasium_free_camera
from .renderer import Renderer, depth_buffer

__all__ = ["Renderer", "Camera", "SceneOption", "apply_camera_config", "gymnasium_free_camera", "depth_buffer"]
