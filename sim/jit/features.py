"""Feature sets: compile only the parts of the pipeline a model uses.

The entries take a tuple F of True / None, one per optional part (index constants below).  A call through a
stub made by `call_if(index, fn, default)` resolves at typing time: with F[index] None it is `default` and `fn` (and
its whole call tree) is never compiled for that feature set.  Each feature set is its own compiled entry (cached).
Hopper, for instance, needs neither the general convex / box collision (GJK, EPA, multi-contact, height fields),
the implicit integrators' derivatives, the PGS and noslip solvers, the sensors, tendons (and their wrapping), equality
constraints, fluid forces, slider-crank / body / site-to-site transmissions, what the energy, fwdinv and
diagexact flags add, nor the cylinder and box primitive colliders (nor MuJoCo's sparse mode, which only models
with nv >= 60 or jacobian="sparse" take: J products over each row's nonzeros, Newton's sparse Hessian; nor the
solvers' elliptic-cone work: the Newton cone Hessian, the cone cost of the line search, PGS's QCQP block updates).  With the last eight, hopper's cold compile
went from 25.8 + 27.0 CPU-s (this process + its part worker, sim/engine/parts.py) to 18.4 + 15.4 (the fwdinv flag alone
pulls in the whole inverse pipeline).
Features that follow the options (integrator, solver, Jacobian mode, cone, fluid medium, enable flags, the nativeccd
disable flag: libccd's MPR instead of the native GJK/EPA) are re-read when they change;
those that follow the model's sizes and types (collision pairs, tendons, equality, transmissions) are fixed.

    features(m) -> F          the smallest feature set for model m and its current options
    FULL                      every part (what tests that drive stages directly pass)
"""

import inspect

import numpy as np

from sim.constants import (
    GEOM_PLANE,
    GEOM_HFIELD,
    GEOM_SPHERE,
    GEOM_CAPSULE,
    GEOM_CYLINDER,
    GEOM_BOX,
    INT_IMPLICIT,
    INT_IMPLICITFAST,
    SOL_PGS,
    CONE_ELLIPTIC,
    ENBL_ENERGY,
    ENBL_FWDINV,
    ENBL_DIAGEXACT,
    DSBL_NATIVECCD,
    TRN_SLIDERCRANK,
    TRN_BODY,
    TRN_SITE,
    SENS_TACTILE,
    SENS_RANGEFINDER,
    GEOM_MESH,
    RAYDATA_NORMAL,
    GAIN_DCMOTOR,
)

(
    F_COLLIDE2,
    F_IMPLICIT,
    F_PGS,
    F_PRIMAL,
    F_SENSOR,
    F_TENDON,
    F_EQUALITY,
    F_FLUID,
    F_TRN,
    F_ENERGY,
    F_FWDINV,
    F_DIAGEXACT,
    F_CYLBOX,
    F_SPARSE,
    F_ELLIPTIC,
    F_NOSLIP,
    F_ADHESION,
    F_SURFACEVEL,
    F_HISTORY,
    F_LIBCCD,
    F_TACTILE,
    F_RAYNORMAL,
    F_DCMOTOR,
) = range(23)
NAMES = (
    "collision beyond primitive pairs",
    "implicit integrators",
    "PGS solver",
    "CG/Newton solvers",
    "sensors",
    "tendons",
    "equality constraints",
    "fluid forces",
    "slider-crank, body and site-to-site transmissions",
    "energy",
    "forward/inverse comparison",
    "exact constraint diagonal",
    "cylinder and box primitive colliders",
    "sparse Jacobian mode",
    "elliptic cones",
    "noslip solver",
    "contact adhesion",
    "geom surface velocity",
    "actuator and sensor history buffers",
    "libccd convex collisions (nativeccd disabled)",
    "tactile sensors",
    "rangefinder normals on meshes and height fields",
    "DC motor actuators",
)
FULL = (True,) * len(NAMES)
NO_FEATURES = (None,) * len(NAMES)

# geom type pairs (type1 <= type2) whose colliders are in sim/engine/collision/primitive.py
PRIMITIVE_PAIRS = frozenset(
    {
        (GEOM_PLANE, GEOM_SPHERE),
        (GEOM_PLANE, GEOM_CAPSULE),
        (GEOM_PLANE, GEOM_CYLINDER),
        (GEOM_PLANE, GEOM_BOX),
        (GEOM_SPHERE, GEOM_SPHERE),
        (GEOM_SPHERE, GEOM_CAPSULE),
        (GEOM_SPHERE, GEOM_CYLINDER),
        (GEOM_CAPSULE, GEOM_CAPSULE),
    }
)


def needs_collide2(m):
    """True when two of the model's geoms (any two: contype / conaffinity may change at run time) or an explicit
    <pair> would use a collider outside primitive.py."""
    gt = np.asarray(m.geom_type).reshape(-1)
    pairs = set()
    ts, counts = np.unique(gt, return_counts=True)
    for i, a in enumerate(ts):
        for j in range(i, len(ts)):
            if i != j or counts[i] > 1:
                pairs.add((int(a), int(ts[j])))
    for g1, g2 in zip(
        np.asarray(getattr(m, "pair_geom1", [])).reshape(-1), np.asarray(getattr(m, "pair_geom2", [])).reshape(-1)
    ):
        a, b = sorted((int(gt[g1]), int(gt[g2])))
        pairs.add((a, b))
    for a, b in pairs:
        no_collider = a in (GEOM_PLANE, GEOM_HFIELD) and b in (GEOM_PLANE, GEOM_HFIELD)
        if not no_collider and (a, b) not in PRIMITIVE_PAIRS:
            return True
    return False


def needs_trn(m):
    """True when an actuator has a slider-crank, body (adhesion) or site-to-reference-site transmission
    (sim/engine/transmission.py's kernels beyond joints, tendons and plain sites)."""
    tt = np.asarray(m.actuator_trntype).reshape(-1)
    ref = np.asarray(m.actuator_trnid).reshape(-1, 2)[:, 1] if tt.size else np.zeros(0)
    return bool(np.any((tt == TRN_SLIDERCRANK) | (tt == TRN_BODY) | ((tt == TRN_SITE) & (ref >= 0))))


def needs_raynormal(m):
    """True when a rangefinder reports surface normals ("normal" data) and the model has mesh or height-field
    geoms (their normals, sim/engine/ray.py ray_mesh_normal / ray_hfield_normal, are compiled only then)."""
    st = np.asarray(getattr(m, "sensor_type", np.zeros(0))).reshape(-1)
    rng = st == SENS_RANGEFINDER
    if not np.any(rng):
        return False
    spec = np.asarray(m.sensor_intprm).reshape(st.size, -1)[:, 0]
    gt = np.asarray(m.geom_type).reshape(-1)
    return bool(np.any((spec[rng] >> RAYDATA_NORMAL) & 1)) and bool(np.any((gt == GEOM_MESH) | (gt == GEOM_HFIELD)))


# the model fields besides m.opt that features() reads and a foreign model (mujoco.MjModel) may change between calls
TYPE_FIELDS = (
    "geom_type",
    "actuator_trntype",
    "actuator_trnid",
    "actuator_gaintype",
    "sensor_type",
    "sensor_intprm",
)


def features(m, collide2=None, on=()):
    """The feature set F of model m under its current options (m.opt); collide2 may pass the (static) result of
    needs_collide2(m) computed before; `on`: indices of features turned on whatever m says.  Parts that depend on
    the options (integrator, solver, fluid medium, enable flags) follow them: a changed option selects another
    compiled entry."""
    opt = m.opt
    integ = int(opt.integrator)
    pgs = int(opt.solver) == SOL_PGS
    enable = int(opt.enableflags)
    c2 = needs_collide2(m) if collide2 is None else collide2
    jac = int(opt.jacobian)
    sparse = jac == 1 or (jac == 2 and int(m.nv) >= 60)  # mj_isSparse
    flags = (
        c2,
        integ in (INT_IMPLICIT, INT_IMPLICITFAST),
        pgs,
        not pgs,
        int(m.nsensor) > 0,
        int(m.ntendon) > 0,
        int(m.neq) > 0,
        not (float(opt.density) == 0.0 and float(opt.viscosity) == 0.0),
        needs_trn(m),
        bool(enable & ENBL_ENERGY),
        bool(enable & ENBL_FWDINV),
        bool(enable & ENBL_DIAGEXACT),
        bool(np.isin(np.asarray(m.geom_type), (GEOM_CYLINDER, GEOM_BOX)).any()),
        sparse,
        int(opt.cone) == CONE_ELLIPTIC,
        int(opt.noslip_iterations) > 0,
        bool(int(getattr(m, "flg_adhesion", 0))),
        bool(int(getattr(m, "flg_surfacevel", 0))),
        int(getattr(m, "nhistory", 0)) > 0,
        c2 and bool(int(opt.disableflags) & DSBL_NATIVECCD),
        bool(np.any(np.asarray(getattr(m, "sensor_type", np.zeros(0))) == SENS_TACTILE)),
        needs_raynormal(m),
        bool(np.any(np.asarray(m.actuator_gaintype) == GAIN_DCMOTOR)),
    )
    return tuple(True if x or i in on else None for i, x in enumerate(flags))


def mask(F, uses):
    """F with only the features in `uses` kept (the others None): for an entry that needs only those, so that
    feature sets differing elsewhere share its compiled code."""
    return tuple(f if i in uses else None for i, f in enumerate(F))


def describe(F):
    """The parts of the pipeline a feature set includes (for messages)."""
    return ", ".join(n for n, f in zip(NAMES, F) if f) or "the basic pipeline only"


def call_if(index, fn, default=None):
    """A jitted stub `stub(F, *args)`: fn(*args) when feature `index` of F is on, else `default` (or nothing),
    chosen when the caller is typed (so fn is not compiled for feature sets without it).

    The stub is an ordinary kernel: `pick(F[index], *args)` tests `flag is None`, a branch numba prunes from the
    argument's type before typing the call.  (An @overload stub was compiled by numba's own dispatcher, eagerly:
    O3 and machine code of fn's whole call tree, 5 s of hopper's cold start.)  fn's parameters are spelt out."""
    from sim.jit import njit

    params = ", ".join("a%d" % i for i in range(len(inspect.signature(fn.py_func).parameters)))
    env = dict(__name__=__name__, fn=fn, default=default)
    exec(
        "def pick(flag, {p}):\n    if flag is None:\n        return default\n    return fn({p})\n".format(p=params), env
    )
    env["pick"] = njit(env["pick"])
    exec("def stub(F, {p}):\n    return pick(F[{i}], {p})\n".format(p=params, i=int(index)), env)
    stub = env["stub"]
    stub.__name__ = stub.__qualname__ = "call_if_%s" % getattr(fn, "__name__", "fn")
    return njit(stub)


def call_either(index, fn_on, fn_off):
    """A jitted stub `stub(F, *args)`: fn_on(*args) when feature `index` of F is on, else fn_off(*args), chosen when
    the caller is typed (each is compiled only for the feature sets that take it; as call_if)."""
    from sim.jit import njit

    params = ", ".join("a%d" % i for i in range(len(inspect.signature(fn_on.py_func).parameters)))
    env = dict(__name__=__name__, fn_on=fn_on, fn_off=fn_off)
    exec(
        "def pick(flag, {p}):\n    if flag is None:\n        return fn_off({p})\n    return fn_on({p})\n".format(
            p=params
        ),
        env,
    )
    env["pick"] = njit(env["pick"])
    exec("def stub(F, {p}):\n    return pick(F[{i}], {p})\n".format(p=params, i=int(index)), env)
    stub = env["stub"]
    stub.__name__ = stub.__qualname__ = "call_either_%s" % getattr(fn_on, "__name__", "fn")
    return njit(stub)
