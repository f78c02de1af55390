"""Camera and scene options of the renderer, shaped like mujoco.MjvCamera and mujoco.MjvOption.

    cam = Camera()                       # mjv_defaultCamera: free, distance 2, azimuth 90, elevation -45
    cam = Camera.default_free(m)         # mjv_defaultFreeCamera: lookat stat.center, distance 1.5 extent
    apply_camera_config(cam, {"trackbodyid": 2, "distance": 3.0, "lookat": np.array([0, 0, 1.15])})

Any object with the same attribute names (a mujoco.MjvCamera, a mujoco.MjvOption) is accepted where these are.
"""

import numpy as np

from . import layout as L


class Camera:
    """Abstract camera (mjvCamera): type free / tracking / fixed, fixedcamid, trackbodyid, lookat, distance,
    azimuth, elevation (degrees), orthographic.  Defaults are mjv_defaultCamera's."""

    FREE, TRACKING, FIXED = L.CAMERA_FREE, L.CAMERA_TRACKING, L.CAMERA_FIXED

    def __init__(
        self,
        type=L.CAMERA_FREE,
        fixedcamid=-1,
        trackbodyid=-1,
        lookat=(0.0, 0.0, 0.0),
        distance=2.0,
        azimuth=90.0,
        elevation=-45.0,
        orthographic=0,
    ):
        self.type = int(type)
        self.fixedcamid = int(fixedcamid)
        self.trackbodyid = int(trackbodyid)
        self._lookat = np.array(lookat, dtype=np.float64).reshape(3)
        self.distance = float(distance)
        self.azimuth = float(azimuth)
        self.elevation = float(elevation)
        self.orthographic = int(orthographic)

    @property
    def lookat(self):
        """Point the free / tracking camera looks at (a writable float64 (3,) array, like MjvCamera.lookat)."""
        return self._lookat

    @lookat.setter
    def lookat(self, value):
        self._lookat[:] = np.asarray(value, dtype=np.float64).reshape(3)

    @classmethod
    def default_free(cls, m):
        """mjv_defaultFreeCamera: lookat = stat.center, distance = 1.5 stat.extent, azimuth / elevation /
        orthographic from the model's <visual><global>."""
        g = m.vis.global_
        return cls(
            L.CAMERA_FREE,
            -1,
            -1,
            np.asarray(m.stat.center, dtype=np.float64),
            1.5 * float(m.stat.extent),
            g.azimuth,
            g.elevation,
            g.orthographic,
        )

    @classmethod
    def fixed(cls, camid):
        """A model camera (mjCAMERA_FIXED with fixedcamid)."""
        return cls(L.CAMERA_FIXED, fixedcamid=camid)

    def __repr__(self):
        kind = {0: "free", 1: "tracking", 2: "fixed"}.get(self.type, str(self.type))
        return (
            f"Camera(type={kind}, fixedcamid={self.fixedcamid}, trackbodyid={self.trackbodyid}, "
            f"lookat={self.lookat.tolist()}, distance={self.distance}, azimuth={self.azimuth}, "
            f"elevation={self.elevation})"
        )


def apply_camera_config(cam, config):
    """Apply a Gymnasium `default_camera_config` dict to `cam` exactly as Gymnasium's MujocoRenderer does
    (numpy arrays are copied into the attribute, anything else is set with setattr).  Returns cam."""
    for key, value in (config or {}).items():
        if not hasattr(cam, key):
            raise AttributeError(
                f"camera has no attribute '{key}' (default_camera_config keys must be "
                f"mjvCamera attributes: type, fixedcamid, trackbodyid, lookat, distance, "
                f"azimuth, elevation)"
            )
        if isinstance(value, np.ndarray):
            getattr(cam, key)[:] = value
        else:
            setattr(cam, key, value)
    return cam


def gymnasium_free_camera(m, d, world=None):
    """The free camera Gymnasium's OffScreenViewer starts from (_init_camera): lookat = the median of the geom
    positions, distance = stat.extent, azimuth 90, elevation -45.  d must hold poses (sim.forward)."""
    gx = d.geom_xpos if world is None or d.nworld is None else d.geom_xpos[world]
    cam = Camera(L.CAMERA_FREE, -1, -1, np.median(np.asarray(gx).reshape(-1, 3), axis=0), float(m.stat.extent))
    return cam


class SceneOption:
    """Visualisation options (mjvOption subset used by the renderer): geomgroup, sitegroup, skingroup,
    tendongroup (groups 0-2 visible, as mjv_defaultOption) and flags indexed by mjtVisFlag (texture, tendon,
    rangefinder, transparent, static, skin)."""

    VIS_TEXTURE, VIS_TENDON, VIS_RANGEFINDER, VIS_TRANSPARENT, VIS_STATIC, VIS_SKIN = 1, 7, 8, 18, 22, 23
    NVISFLAG = 31

    def __init__(self):
        self.geomgroup = np.array([1, 1, 1, 0, 0, 0], dtype=np.uint8)
        self.sitegroup = np.array([1, 1, 1, 0, 0, 0], dtype=np.uint8)
        self.skingroup = np.array([1, 1, 1, 0, 0, 0], dtype=np.uint8)
        self.tendongroup = np.array([1, 1, 1, 0, 0, 0], dtype=np.uint8)
        # mjv_defaultOption flags (mjVISSTRING defaults)
        self.flags = np.zeros(self.NVISFLAG, dtype=np.uint8)
        for i in (1, 7, 8, 13, 22, 23, 25, 27):
            self.flags[i] = 1


def option_key(opt):
    """Hashable summary of the options that change which objects are drawn and how (geomgroup, sitegroup,
    skingroup, tendongroup, texture / tendon / transparent / static / skin flags), for any mjvOption-like
    object."""

    def grp(name):
        v = getattr(opt, name, None)
        return tuple(int(x) for x in (np.ones(6) if v is None else np.asarray(v).reshape(-1)[: L.NGROUP]))

    flags = np.asarray(getattr(opt, "flags", SceneOption().flags)).reshape(-1)
    return (
        grp("geomgroup"),
        grp("sitegroup"),
        grp("skingroup"),
        grp("tendongroup"),
        tuple(
            int(flags[i])
            for i in (
                SceneOption.VIS_TEXTURE,
                SceneOption.VIS_TENDON,
                SceneOption.VIS_TRANSPARENT,
                SceneOption.VIS_STATIC,
                SceneOption.VIS_SKIN,
            )
        ),
    )
