"""<visual> -> Model.vis (mjVisual): global, quality, headlight, map, scale and rgba, with MjModel.vis names.

MuJoCo keeps mjVisual in single precision: float attributes are rounded to float32 (scalars as Python floats of
the float32 value, vectors as float32 arrays), exactly what `mujoco.MjModel.vis` returns.  Defaults are
mj_defaultVisual's (engine_init.c).  Only the renderer (sim/render) reads these values.
"""

import numpy as np

from sim.model import _Struct
from .context import merge_singletons

# mj_defaultVisual: section -> (attribute, kind, default); kind 'i' int, 'f' float, 'v' float vector
_SECTIONS = {
    "global": [
        ("cameraid", "i", -1),
        ("orthographic", "i", 0),
        ("fovy", "f", 45),
        ("ipd", "f", 0.068),
        ("azimuth", "f", 90),
        ("elevation", "f", -45),
        ("linewidth", "f", 1.0),
        ("glow", "f", 0.3),
        ("offwidth", "i", 640),
        ("offheight", "i", 480),
        ("realtime", "f", 1.0),
        ("ellipsoidinertia", "i", 0),
        ("bvactive", "i", 0),
    ],
    "quality": [
        ("shadowsize", "i", 4096),
        ("offsamples", "i", 4),
        ("numslices", "i", 28),
        ("numstacks", "i", 16),
        ("numquads", "i", 4),
    ],
    "headlight": [
        ("ambient", "v", (0.1, 0.1, 0.1)),
        ("diffuse", "v", (0.4, 0.4, 0.4)),
        ("specular", "v", (0.5, 0.5, 0.5)),
        ("active", "i", 1),
    ],
    "map": [
        (a, "f", v)
        for a, v in (
            ("stiffness", 100),
            ("stiffnessrot", 500),
            ("force", 0.005),
            ("torque", 0.1),
            ("alpha", 0.3),
            ("fogstart", 3.0),
            ("fogend", 10.0),
            ("znear", 0.01),
            ("zfar", 50.0),
            ("haze", 0.3),
            ("shadowclip", 1.0),
            ("shadowscale", 0.6),
            ("actuatortendon", 2.0),
        )
    ],
    "scale": [
        (a, "f", v)
        for a, v in (
            ("forcewidth", 0.1),
            ("contactwidth", 0.3),
            ("contactheight", 0.1),
            ("connect", 0.2),
            ("com", 0.4),
            ("camera", 0.3),
            ("light", 0.3),
            ("selectpoint", 0.2),
            ("jointlength", 1.0),
            ("jointwidth", 0.1),
            ("actuatorlength", 0.7),
            ("actuatorwidth", 0.2),
            ("framelength", 1.0),
            ("framewidth", 0.1),
            ("constraint", 0.1),
            ("slidercrank", 0.2),
            ("frustum", 10.0),
        )
    ],
    "rgba": [
        (a, "v", v)
        for a, v in (
            ("fog", (0, 0, 0, 1)),
            ("haze", (1, 1, 1, 1)),
            ("force", (1, 0.5, 0.5, 1)),
            ("inertia", (0.8, 0.2, 0.2, 0.6)),
            ("joint", (0.2, 0.6, 0.8, 1)),
            ("actuator", (0.2, 0.25, 0.2, 1)),
            ("actuatornegative", (0.2, 0.6, 0.9, 1)),
            ("actuatorpositive", (0.9, 0.4, 0.2, 1)),
            ("com", (0.9, 0.9, 0.9, 1)),
            ("camera", (0.6, 0.9, 0.6, 1)),
            ("light", (0.6, 0.6, 0.9, 1)),
            ("selectpoint", (0.9, 0.9, 0.1, 1)),
            ("connect", (0.2, 0.2, 0.8, 1)),
            ("contactpoint", (0.9, 0.6, 0.2, 1)),
            ("contactforce", (0.7, 0.9, 0.9, 1)),
            ("contactfriction", (0.9, 0.8, 0.4, 1)),
            ("contacttorque", (0.9, 0.7, 0.9, 1)),
            ("contactgap", (0.5, 0.8, 0.9, 1)),
            ("rangefinder", (1, 1, 0.1, 1)),
            ("constraint", (0.9, 0, 0, 1)),
            ("slidercrank", (0.5, 0.3, 0.8, 1)),
            ("crankbroken", (0.9, 0, 0, 1)),
            ("frustum", (1, 1, 0, 0.2)),
            ("bv", (0, 1, 0, 0.5)),
            ("bvactive", (1, 0, 0, 0.5)),
        )
    ],
}
# Python attribute of each section on mjVisual ('global' is a keyword)
_ATTR = {"global": "global_"}


class Visual(_Struct):
    """Visualisation options (mjVisual): global_, quality, headlight, map, scale, rgba."""


class VisualSection(_Struct):
    """One section of mjVisual (mjVisual.global_, .quality, ...)."""


def _value(kind, v):
    if kind == "i":
        return int(v)
    if kind == "f":
        return float(np.float32(v))
    return np.array(v, dtype=np.float32)


def compile_visual(ctx):
    """Model.vis from every <visual> element (later attributes override earlier ones, as for <option>)."""
    sections = {}
    visuals = ctx.root.find("visual")
    for sec, attrs in _SECTIONS.items():
        el = merge_singletons([c for v in visuals for c in v.find("visual_" + sec)], sec)
        vals = {}
        for name, kind, default in attrs:
            v = el.get(name) if el.has(name) else None
            vals[name] = _value(kind, default if v is None else v)
        sections[_ATTR.get(sec, sec)] = VisualSection(**vals)
    return Visual(**sections)
