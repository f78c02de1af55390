"""Domain randomisation per world and per episode, on one shared Model.

    venv = gym.make_vec("numjoco/Hopper-v0", num_envs=256, randomization={
        "body_mass":     {"scale": (0.8, 1.2), "scale_inertia": True},   # per body; inertia scaled alike
        "geom_friction": {"scale": (0.5, 1.5), "columns": [0]},          # sliding friction of every geom
        "dof_damping":   {"add": (0.0, 0.5), "rows": ["thigh_joint", "leg_joint", "foot_joint"]},
        "opt.gravity":   {"add": ([-0.5, -0.5, -1.0], [0.5, 0.5, 1.0]), "per": "field"},
    })
    obs, info = venv.reset(seed=0)        # info["randomization"]["body_mass"]: (256, nbody) values per world

Each randomised field gets one row per world; every world has its own Model struct (sim.jit's struct_at)
holding that row and sharing every other array with the base Model, so nothing else is copied.  New values
are drawn for a world at each of its resets (from ranges, or by a user function), from a generator of its own
(seeded from the world's seed, apart from the generator of its initial states), and the constants mj_setConst
derives from masses, inertias and armature (subtree masses, dof_M0, body / dof / tendon invweight0,
actuator_acc0; sim/engine/setconst.py, the kernel the compiler runs) are recomputed for that world before its
reset.  A world whose values equal the model's uses the model's own constants, so zero randomisation is bitwise no
randomisation.

Field spec keys: one of "scale" (nominal * u), "add" (nominal + u), "set" (u), with (low, high) broadcast to the
selected block; "dist": "uniform" (default), "loguniform" or "normal" ((mean, std)); "rows": names or indices
(default all); "columns": column indices of 2-D fields (default all); "per": "element" (default), "row" (one
draw per row), "field" (one draw for the whole block); "scale_inertia" (body_mass with "scale" only): scale the
rows of body_inertia by the same factors.  A function: DomainRandomization(fn=f, fields=[...]) with
f(rng, nominal) -> {field: values of the field's shape}, nominal a dict of the model's values (copies).
"""

import numpy as np

from sim import api as _api, io as _io
from sim.io import new_model
from sim.jit import struct_addr
from sim.jit.features import F_FLUID
from sim.constants import JNT_BALL, JNT_FREE, OPT_DENSITY, OPT_GRAVITY, OPT_VISCOSITY, OPT_WIND
from sim.types import MODEL_ARRAYS, MODEL_SCALARS

# randomisable field -> (row kind for names, struct arrays it lives in, inertial: changes mj_setConst outputs)
FIELDS = {
    "geom_friction": ("geom", ("geom_friction",), False),
    "geom_solref": ("geom", ("geom_solref",), False),
    "geom_solimp": ("geom", ("geom_solimp",), False),
    "body_mass": ("body", ("body_mass",), True),
    "body_inertia": ("body", ("body_inertia",), True),
    "dof_damping": ("joint", ("dof_damping_eff", "dof_eulerdamp"), False),
    "dof_armature": ("joint", ("dof_armature_eff",), True),
    "dof_frictionloss": ("joint", ("dof_frictionloss",), False),
    "jnt_stiffness": ("joint", ("jnt_stiffness",), False),
    "actuator_gainprm": ("actuator", ("actuator_gainprm",), False),
    "actuator_biasprm": ("actuator", ("actuator_biasprm",), False),
    "opt.gravity": (None, ("opt",), False),
    "opt.wind": (None, ("opt",), False),
    "opt.density": (None, ("opt",), False),
    "opt.viscosity": (None, ("opt",), False),
}
_OPT_SLICE = {
    "opt.gravity": slice(OPT_GRAVITY, OPT_GRAVITY + 3),
    "opt.wind": slice(OPT_WIND, OPT_WIND + 3),
    "opt.density": slice(OPT_DENSITY, OPT_DENSITY + 1),
    "opt.viscosity": slice(OPT_VISCOSITY, OPT_VISCOSITY + 1),
}
# the mj_setConst outputs of sim.engine.setconst.set_const (per world when an inertial field is randomised)
DERIVED = ("body_subtreemass", "dof_M0", "body_invweight0", "dof_invweight0", "tendon_invweight0", "actuator_acc0")
_OPS = ("scale", "add", "set")
_DISTS = ("uniform", "loguniform", "normal")
_PER = ("element", "row", "field")


def nominal_value(m, field):
    """The model's value of a randomisable field (a copy; opt fields as 1-D arrays)."""
    if field.startswith("opt."):
        return np.atleast_1d(np.array(getattr(m.opt, field[4:]), dtype=np.float64))
    return np.array(getattr(m, field), dtype=np.float64)


class FieldRange:
    """How one field is drawn (see the module doc)."""

    def __init__(self, m, field, spec):
        if field not in FIELDS:
            raise ValueError(f"cannot randomise {field!r}; randomisable fields: {sorted(FIELDS)}")
        spec = dict(spec)
        ops = [k for k in _OPS if k in spec]
        if len(ops) != 1:
            raise ValueError(f"randomization[{field!r}] needs exactly one of {_OPS}, got {sorted(spec)}")
        self.field, self.op = field, ops[0]
        low, high = spec.pop(self.op)
        self.dist = spec.pop("dist", "uniform")
        self.per = spec.pop("per", "element")
        rows = spec.pop("rows", None)
        cols = spec.pop("columns", None)
        self.scale_inertia = bool(spec.pop("scale_inertia", False))
        if spec:
            raise ValueError(f"randomization[{field!r}]: unknown key(s) {sorted(spec)}")
        if self.dist not in _DISTS:
            raise ValueError(f"randomization[{field!r}]: dist must be one of {_DISTS}, got {self.dist!r}")
        if self.per not in _PER:
            raise ValueError(f"randomization[{field!r}]: per must be one of {_PER}, got {self.per!r}")
        if self.scale_inertia and (field != "body_mass" or self.op != "scale"):
            raise ValueError('scale_inertia applies to body_mass with "scale" only')
        nom = nominal_value(m, field)
        shape2 = nom.reshape(nom.shape[0], -1).shape if nom.ndim else (1, 1)
        kind = FIELDS[field][0]
        self.rows = np.arange(shape2[0]) if rows is None else np.array([_row(m, kind, field, r) for r in rows])
        if nom.ndim >= 2:
            self.cols = np.arange(shape2[1]) if cols is None else np.asarray(cols, dtype=np.int64)
            if self.cols.size and (self.cols.min() < 0 or self.cols.max() >= shape2[1]):
                raise ValueError(f"randomization[{field!r}]: columns {cols} outside 0..{shape2[1] - 1}")
        else:
            if cols is not None and not field.startswith("opt."):
                raise ValueError(f"randomization[{field!r}]: a 1-D field has no columns")
            self.cols = None
        if field.startswith("opt."):  # an opt vector is one row of its components
            self.cols = np.arange(nom.size) if cols is None else np.asarray(cols, dtype=np.int64)
            self.rows = np.zeros(1, np.int64)
        self.block = (self.rows.size,) + (() if self.cols is None else (self.cols.size,))
        lo, hi = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
        try:
            self.low, self.high = np.broadcast_to(lo, self.block).copy(), np.broadcast_to(hi, self.block).copy()
        except ValueError:
            raise ValueError(
                f"randomization[{field!r}]: bounds of shapes {lo.shape}, {hi.shape} do not broadcast "
                f"to the selected block {self.block}"
            ) from None
        if self.dist == "loguniform" and (np.any(self.low <= 0) or np.any(self.high <= 0)):
            raise ValueError(f"randomization[{field!r}]: loguniform bounds must be > 0")
        if self.dist != "normal" and np.any(self.low > self.high):
            raise ValueError(f"randomization[{field!r}]: low > high")

    def draw(self, rng):
        """Random numbers of the block's shape (shared along rows or the whole block per `per`)."""
        shape = self.block
        if self.per == "row":
            shape = (self.block[0],) + (1,) * (len(self.block) - 1)
        elif self.per == "field":
            shape = (1,) * len(self.block)
        lo = self.low if self.per == "element" else self.low[tuple(slice(0, s) for s in shape)]
        hi = self.high if self.per == "element" else self.high[tuple(slice(0, s) for s in shape)]
        if self.dist == "uniform":
            u = rng.uniform(lo, hi, size=shape)
        elif self.dist == "loguniform":
            u = np.exp(rng.uniform(np.log(lo), np.log(hi), size=shape))
        else:
            u = rng.normal(lo, hi, size=shape)
        return np.broadcast_to(u, self.block)

    def apply(self, value, u):
        """value (the field's nominal array, modified in place) with the drawn u applied to the block."""
        v = value if value.ndim else value.reshape(1)
        if self.cols is None:
            idx = (self.rows,)
        elif self.field.startswith("opt."):
            idx = (self.cols,)
            u = u[0]
        else:
            idx = np.ix_(self.rows, self.cols)
        if self.op == "scale":
            v[idx] = v[idx] * u
        elif self.op == "add":
            v[idx] = v[idx] + u
        else:
            v[idx] = u


def _row(m, kind, field, r):
    if isinstance(r, (int, np.integer)):
        return int(r)
    if kind is None:
        raise ValueError(f"randomization[{field!r}]: rows by name need a named object kind")
    i = m.name2id(kind, r)
    if i < 0:
        raise ValueError(f"randomization[{field!r}]: no {kind} named {r!r}")
    if kind == "joint":  # dof fields: the joint's first dof (hinge / slide joints)
        if field.startswith("dof_"):
            if int(m.jnt_type[i]) in (JNT_FREE, JNT_BALL):
                raise ValueError(f"randomization[{field!r}]: joint {r!r} has several dofs; give dof indices")
            return int(m.jnt_dofadr[i])
    return i


class DomainRandomization:
    """What to randomise: ranges {field: spec} and / or a function fn(rng, nominal) -> {field: values} (its
    fields listed in `fields`).  Plain dicts passed as `randomization=` are ranges."""

    def __init__(self, ranges=None, fn=None, fields=()):
        self.ranges = dict(ranges or {})
        self.fn = fn
        self.fn_fields = list(fields)
        if fn is not None and not self.fn_fields:
            raise ValueError("DomainRandomization(fn=...) needs fields=[...], the model fields fn returns")
        if fn is None and self.fn_fields:
            raise ValueError("DomainRandomization(fields=...) lists the fields of fn, but no fn was given")
        for f in self.fn_fields:
            if f not in FIELDS:
                raise ValueError(f"cannot randomise {f!r}; randomisable fields: {sorted(FIELDS)}")

    @classmethod
    def coerce(cls, x):
        if isinstance(x, cls):
            return x
        if callable(x):
            raise TypeError("pass a function as DomainRandomization(fn=f, fields=[...])")
        if isinstance(x, dict):
            return cls(ranges=x)
        raise TypeError(f"randomization must be a dict of field specs or a DomainRandomization, got {type(x)}")


class WorldModels:
    """Per-world Model structs of m for nworld worlds: the randomised fields (and, for inertial ones, the
    mj_setConst outputs) have a row per world, everything else is the base Model's arrays.  mptrs: the struct
    addresses for sim.api.run.  values: {field: (nworld, ...) current values}."""

    def __init__(self, m, nworld, config):
        self.cfg = DomainRandomization.coerce(config)
        self.model, self.nworld = m, int(nworld)
        self.ranges = [FieldRange(m, f, s) for f, s in self.cfg.ranges.items()]
        self.fields = list(
            dict.fromkeys(
                [r.field for r in self.ranges]
                + self.cfg.fn_fields
                + ["body_inertia" for r in self.ranges if r.scale_inertia]
            )
        )
        self.nominal = {f: nominal_value(m, f) for f in self.fields}
        self.values = {f: np.repeat(v[None], self.nworld, axis=0) for f, v in self.nominal.items()}
        self.inertial = any(FIELDS[f][2] for f in self.fields)
        own = {a for f in self.fields for a in FIELDS[f][1]}
        if self.inertial:
            own |= set(DERIVED)
        self.own_bias = "actuator_biasprm" in self.fields
        if "opt.density" in self.fields or "opt.viscosity" in self.fields:
            # a world may draw a fluid medium where the model has none: fluid forces compiled in (sim/jit/features.py)
            _api.require_features(m, F_FLUID)
        _, base = _io.make_model_struct(m)
        self.base = {k: v for k, v in base.items() if k in own}
        self.base["opt"] = _api.option_array(m)
        self.rows = {k: np.repeat(self.base[k][None], self.nworld, axis=0) for k in own}
        scal = _io.model_scalars(m)
        args = [scal[n] for n in MODEL_SCALARS]
        names = [n for n, _, _ in MODEL_ARRAYS]
        self.structs = []
        for w in range(self.nworld):
            arrs = [self.rows[n][w] if n in own else base[n] for n in names]
            self.structs.append(new_model(*(args + arrs)))
        self._base_arrays = base  # the shared arrays must outlive the structs
        self.mptrs = np.array([struct_addr(s) for s in self.structs], dtype=np.int64)
        # actuator contributions to effective damping / armature (mj_actuatorDamping / mj_actuatorArmature)
        nv = int(m.nv)
        jid = np.asarray(m.dof_jntid)
        self._act_damp = np.array(
            [
                _io.actuator_contrib(m, True, int(jid[i]), "actuator_damping", "actuator_dampingpoly")[0]
                for i in range(nv)
            ]
        )
        self._act_arm = np.array(
            [_io.actuator_contrib(m, True, int(jid[i]), "actuator_armature")[0] for i in range(nv)]
        )
        dpoly = np.asarray(m.dof_dampingpoly).reshape(nv, -1)
        self._euler_fixed = np.array(
            [np.any(dpoly[i] != 0) or int(np.asarray(m.jnt_actuatorid)[jid[i]]) != -1 for i in range(nv)], dtype=bool
        )
        self.rngs = [np.random.default_rng() for _ in range(self.nworld)]

    def seed(self, w, seed):
        """The randomisation generator of world w: from the world's seed (a stream apart from its reset
        states), or fresh entropy for None."""
        self.rngs[w] = np.random.default_rng(
            None if seed is None else np.random.SeedSequence(int(seed), spawn_key=(7,))
        )

    def sample(self, w):
        """New values of every randomised field for world w (drawn from its generator, in field order)."""
        rng = self.rngs[w]
        vals = {f: v.copy() for f, v in self.nominal.items()}
        for r in self.ranges:
            u = r.draw(rng)
            if r.scale_inertia:
                k = u if u.ndim == 1 else u[:, 0]
                vals["body_inertia"][r.rows] *= k[:, None]
            r.apply(vals[r.field], u)
        if self.cfg.fn is not None:
            out = self.cfg.fn(rng, {f: v.copy() for f, v in self.nominal.items()})
            for f in self.cfg.fn_fields:
                if f in out:
                    v = np.asarray(out[f], dtype=np.float64)
                    if v.shape != self.nominal[f].shape:
                        raise ValueError(
                            f"randomization fn returned {f} of shape {v.shape}, expected {self.nominal[f].shape}"
                        )
                    vals[f] = v.copy()
            extra = sorted(set(out) - set(self.cfg.fn_fields))
            if extra:
                raise ValueError(f"randomization fn returned fields {extra} not listed in fields=")
        return vals

    def resample(self, worlds):
        """Draw and install new values for the listed worlds; returns the worlds whose mj_setConst constants
        must be recomputed (an inertial value differs from the model's) before their reset."""
        needy = []
        for w in worlds:
            vals = self.sample(w)
            for f, v in vals.items():
                self.values[f][w] = v
            self._install(w, vals)
            if self.inertial:
                if any(FIELDS[f][2] and not np.array_equal(vals[f], self.nominal[f]) for f in vals):
                    needy.append(w)
                else:
                    for k in DERIVED:
                        self.rows[k][w] = self.base[k]
        return np.array(needy, dtype=np.int64)

    def _install(self, w, vals):
        rows = self.rows
        if "opt" in rows:
            rows["opt"][w] = self.base["opt"]
        for f, v in vals.items():
            if f.startswith("opt."):
                rows["opt"][w, _OPT_SLICE[f]] = v
            elif f == "dof_damping":
                rows["dof_damping_eff"][w] = v + self._act_damp
                rows["dof_eulerdamp"][w] = ((v > 0) | self._euler_fixed).astype(np.int32)
            elif f == "dof_armature":
                rows["dof_armature_eff"][w] = v + self._act_arm
            else:
                rows[f][w] = v.reshape(rows[f][w].shape)
        # exact nominal values keep the model's own effective arrays (bitwise no randomisation)
        for f, k in (("dof_damping", "dof_damping_eff"), ("dof_armature", "dof_armature_eff")):
            if f in vals and np.array_equal(vals[f], self.nominal[f]):
                rows[k][w] = self.base[k]
        if "dof_damping" in vals and np.array_equal(vals["dof_damping"], self.nominal["dof_damping"]):
            rows["dof_eulerdamp"][w] = self.base["dof_eulerdamp"]

    def derived(self, w):
        """The mj_setConst outputs of world w (copies; empty when no inertial field is randomised)."""
        return {k: self.rows[k][w].copy() for k in DERIVED} if self.inertial else {}


__all__ = ["DomainRandomization", "WorldModels", "FIELDS", "DERIVED", "nominal_value"]


class WorldRows:
    """Per-world Model structs of m whose listed arrays (Model struct fields) have a row per world (the model
    fields a Control Suite task sets per episode, envs/dmc/engine.py)."""

    def __init__(self, m, nworld, fields):
        names = [n for n, _, _ in MODEL_ARRAYS]
        unknown = [f for f in fields if f not in names]
        if unknown:
            raise ValueError(f"{unknown} are not Model struct arrays")
        _, base = _io.make_model_struct(m)
        self.rows = {f: np.repeat(base[f][None], nworld, axis=0) for f in fields}
        scal = _io.model_scalars(m)
        args = [scal[n] for n in MODEL_SCALARS]
        self.structs = [
            new_model(*(args + [self.rows[n][w] if n in self.rows else base[n] for n in names])) for w in range(nworld)
        ]
        self._base = base  # the shared arrays outlive the structs
        self.mptrs = np.array([struct_addr(s) for s in self.structs], dtype=np.int64)
