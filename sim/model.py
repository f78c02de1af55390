"""The compiled, static `Model`: MuJoCo's MjModel field names, shapes and dtypes, plus named access."""

from __future__ import annotations

from typing import Any, Union

import numpy as np

from sim import constants as C

# MjModel fields MuJoCo stores in single precision or as bytes/bools; every other float field is float64 and
# every other integer field int32.
FLOAT32 = {
    "cam_intrinsic",
    "cam_sensorsize",
    "geom_rgba",
    "hfield_data",
    "light_ambient",
    "light_attenuation",
    "light_bulbradius",
    "light_cutoff",
    "light_diffuse",
    "light_exponent",
    "light_intensity",
    "light_range",
    "light_softness",
    "light_specular",
    "mat_emission",
    "mat_metallic",
    "mat_reflectance",
    "mat_rgba",
    "mat_roughness",
    "mat_shininess",
    "mat_specular",
    "mat_texrepeat",
    "mesh_normal",
    "mesh_texcoord",
    "mesh_vert",
    "site_rgba",
    "tendon_rgba",
}
BOOL = {
    "actuator_actearly",
    "actuator_actlimited",
    "actuator_ctrllimited",
    "actuator_forcelimited",
    "eq_active0",
    "jnt_actfrclimited",
    "jnt_actgravcomp",
    "jnt_limited",
    "light_active",
    "light_castshadow",
    "mat_texuniform",
    "tendon_actfrclimited",
    "tendon_limited",
}
UINT8 = {"body_sameframe", "body_simple", "geom_sameframe", "site_sameframe", "tex_data"}
INT64 = {"tex_adr"}

# object kind -> (field prefix, count attribute); the named accessors m.body(...), m.joint(...), ...
KINDS = {
    "body": ("body_", "nbody"),
    "joint": ("jnt_", "njnt"),
    "jnt": ("jnt_", "njnt"),
    "geom": ("geom_", "ngeom"),
    "site": ("site_", "nsite"),
    "camera": ("cam_", "ncam"),
    "cam": ("cam_", "ncam"),
    "light": ("light_", "nlight"),
    "mesh": ("mesh_", "nmesh"),
    "hfield": ("hfield_", "nhfield"),
    "texture": ("tex_", "ntex"),
    "tex": ("tex_", "ntex"),
    "material": ("mat_", "nmat"),
    "mat": ("mat_", "nmat"),
    "pair": ("pair_", "npair"),
    "exclude": ("exclude_", "nexclude"),
    "equality": ("eq_", "neq"),
    "eq": ("eq_", "neq"),
    "tendon": ("tendon_", "ntendon"),
    "actuator": ("actuator_", "nu"),
    "sensor": ("sensor_", "nsensor"),
    "numeric": ("numeric_", "nnumeric"),
    "text": ("text_", "ntext"),
    "tuple": ("tuple_", "ntuple"),
    "key": ("key_", "nkey"),
    "keyframe": ("key_", "nkey"),
}
# accessor kind -> name-space kind used by the compiler
_NAMESPACE = {"jnt": "joint", "cam": "camera", "tex": "texture", "mat": "material", "eq": "equality", "keyframe": "key"}


def normalise_dtype(name, value):
    """Cast a compiled field to the dtype MuJoCo uses for it (contiguous)."""
    if not isinstance(value, np.ndarray):
        return value
    if name in FLOAT32:
        dt = np.float32
    elif name in BOOL:
        dt = np.bool_
    elif name in UINT8:
        dt = np.uint8
    elif name in INT64:
        dt = np.int64
    elif value.dtype.kind == "f":
        dt = np.float64
    elif value.dtype.kind in "iub":
        dt = np.int32
    else:
        return value
    return np.ascontiguousarray(value, dtype=dt)


class _Struct:
    """A plain attribute bag (m.opt, m.stat, m.vis): writable between steps, as in MuJoCo."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.__dict__.items())})"


class Option:
    """Simulation options (mjOption): timestep, gravity, integrator, solver, flags, ...

    Backed by the packed float64 array the kernels read (sim/types.py OPT_* layout): array options are views into
    it (``m.opt.gravity[2] = -1`` writes through), scalar options convert on access, and a change to a scalar
    option bumps ``_version`` so that the API re-checks the options (sim.types.check_opt) before the next step.
    Options the kernels do not read (sleep_tolerance, sdf_*) are plain attributes.
    """

    _ARRAYS = {
        "gravity": (C.OPT_GRAVITY, 3),
        "wind": (C.OPT_WIND, 3),
        "magnetic": (C.OPT_MAGNETIC, 3),
        "o_solref": (C.OPT_O_SOLREF, 2),
        "o_solimp": (C.OPT_O_SOLIMP, 5),
        "o_friction": (C.OPT_O_FRICTION, 5),
    }
    _INTS = {
        "integrator": C.OPT_INTEGRATOR,
        "disableflags": C.OPT_DISABLE,
        "enableflags": C.OPT_ENABLE,
        "disableactuator": C.OPT_DISABLEACT,
        "cone": C.OPT_CONE,
        "jacobian": C.OPT_JACOBIAN,
        "solver": C.OPT_SOLVER,
        "iterations": C.OPT_ITERATIONS,
        "ls_iterations": C.OPT_LS_ITERATIONS,
        "noslip_iterations": C.OPT_NOSLIP_ITERATIONS,
        "ccd_iterations": C.OPT_CCD_ITERATIONS,
    }
    _FLOATS = {
        "timestep": C.OPT_TIMESTEP,
        "density": C.OPT_DENSITY,
        "viscosity": C.OPT_VISCOSITY,
        "impratio": C.OPT_IMPRATIO,
        "tolerance": C.OPT_TOLERANCE,
        "ls_tolerance": C.OPT_LS_TOLERANCE,
        "noslip_tolerance": C.OPT_NOSLIP_TOLERANCE,
        "ccd_tolerance": C.OPT_CCD_TOLERANCE,
        "o_margin": C.OPT_O_MARGIN,
    }
    SIZE = C.OPT_SIZE

    def __init__(self, **kw):
        object.__setattr__(self, "_arr", np.zeros(self.SIZE))
        object.__setattr__(self, "_version", 0)
        for k, v in kw.items():
            self._set(k, v)

    def _set(self, name, value):
        if name in self._ARRAYS:
            a, n = self._ARRAYS[name]
            self._arr[a : a + n] = value
        elif name in self._INTS:
            self._arr[self._INTS[name]] = int(value)
        elif name in self._FLOATS:
            self._arr[self._FLOATS[name]] = float(value)
        else:
            object.__setattr__(self, name, value)
            return
        object.__setattr__(self, "_version", self._version + 1)

    def __setattr__(self, name, value):
        self._set(name, value)

    def __getattr__(self, name):
        arr = self.__dict__.get("_arr")
        if arr is not None:
            if name in self._ARRAYS:
                a, n = self._ARRAYS[name]
                return arr[a : a + n]
            if name in self._INTS:
                return int(arr[self._INTS[name]])
            if name in self._FLOATS:
                return float(arr[self._FLOATS[name]])
        raise AttributeError(f"'Option' object has no attribute '{name}'")

    def __dir__(self):
        return sorted(
            set(self._ARRAYS)
            | set(self._INTS)
            | set(self._FLOATS)
            | {k for k in self.__dict__ if not k.startswith("_")}
        )

    def __repr__(self):
        return f"Option({', '.join(f'{k}={getattr(self, k)!r}' for k in self.__dir__())})"


class Statistic(_Struct):
    """Model statistics (mjStatistic): meaninertia, meanmass, meansize, extent, center."""


class _View:
    """Named view of one object: `.id`, `.name`, and its fields without the kind prefix (m.body(1).mass)."""

    def __init__(self, model, kind, oid, name):
        object.__setattr__(self, "_m", model)
        object.__setattr__(self, "_prefix", KINDS[kind][0])
        object.__setattr__(self, "id", oid)
        object.__setattr__(self, "name", name)

    def __getattr__(self, attr):
        try:
            arr = getattr(self._m, self._prefix + attr)
        except AttributeError:
            raise AttributeError(f"no field '{self._prefix}{attr}'") from None
        return arr[self.id]

    def __setattr__(self, attr, value):
        arr = getattr(self._m, self._prefix + attr)
        arr[self.id] = value

    def __repr__(self):
        return f"<{self._prefix[:-1]} {self.id} '{self.name}'>"


class NameBuffer(bytes):
    """MjModel.names (the NUL-separated name buffer, bytes); `buf[kind]` (a str key) also gives that kind's
    list of names by id, the older numjoco spelling of `Model.object_names[kind]`."""

    def __new__(cls, data, object_names):
        obj = super().__new__(cls, data)
        obj._object_names = object_names
        return obj

    def __getitem__(self, key):
        if isinstance(key, str):
            return self._object_names[key]
        return super().__getitem__(key)

    def __reduce__(self):
        return NameBuffer, (bytes(self), self._object_names)


class Model:
    """A compiled model. Arrays use MjModel's names, shapes and dtypes; `m.opt`, `m.stat`; `m.body("x").id`.

    `object_names[kind]` lists the object names by id ('' when unnamed); `names` is MuJoCo's name buffer
    (bytes, with name_<kind>adr offsets). The arrays are shared by every Data made from this model; treat them
    as read-only (options in `m.opt` may be changed between steps).
    """

    def __init__(self, fields, names, opt, stat, vis=None):
        for k, v in fields.items():
            object.__setattr__(self, k, normalise_dtype(k, v))
        self.object_names = names
        self.names = NameBuffer(fields.get("names", b""), names)
        self.opt = opt
        self.stat = stat
        self.vis = vis

    def __getstate__(self):
        # the jitted struct cached by the API (sim.api) is rebuilt after unpickling
        return {k: v for k, v in self.__dict__.items() if k != "_sim"}

    def _lookup(self, kind, key):
        ns = _NAMESPACE.get(kind, kind)
        names = self.object_names.get(ns, [])
        if isinstance(key, (int, np.integer)):
            n = getattr(self, KINDS[kind][1], len(names))
            if not 0 <= key < n:
                raise IndexError(f"{ns} id {key} out of range [0, {n})")
            return _View(self, kind, int(key), names[key] if key < len(names) else "")
        try:
            return _View(self, kind, names.index(key), key)
        except ValueError:
            raise KeyError(f"Invalid name '{key}'. Valid names: {[n for n in names if n]}") from None

    def __getattr__(self, attr):
        # named accessors: m.body("torso"), m.joint(0), ...
        if attr in KINDS:
            return lambda key: self._lookup(attr, key)
        raise AttributeError(f"'Model' object has no attribute '{attr}'")

    def name2id(self, kind: str, name: str) -> int:
        """Id of the object of `kind` called `name`, or -1 (like mujoco.mj_name2id)."""
        names = self.object_names.get(_NAMESPACE.get(kind, kind), [])
        return names.index(name) if name in names else -1

    def id2name(self, kind: str, oid: int) -> str | None:
        """Name of object `oid` of `kind` ('' when unnamed), like mujoco.mj_id2name (None there)."""
        names = self.object_names.get(_NAMESPACE.get(kind, kind), [])
        return names[oid] if 0 <= oid < len(names) else None

    def fields(self):
        """Names of every array/size field (MjModel names)."""
        return sorted(k for k, v in self.__dict__.items() if isinstance(v, (np.ndarray, int)) and not k.startswith("_"))

    def __repr__(self):
        return (
            f"<sim.Model nq={self.nq} nv={self.nv} nu={getattr(self, 'nu', 0)} nbody={self.nbody} ngeom={self.ngeom}>"
        )


#: What the engine's entries (sim.step, sim.forward, sim.Data ...) take as a model: a `Model`, or any object with
#: MjModel attribute names and shapes (a `mujoco.MjModel`), which share no base class.
ModelLike = Union[Model, Any]
