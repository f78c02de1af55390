"""Building the jitted structs from a model (MJX's io.py): the Model struct from any object with MjModel attribute
names, zeroed Data arrays with a leading world axis and their struct, the Task struct; and the checks that refuse,
at load, what the engine does not simulate (sim.UnsupportedError)."""

import math
import os

import numpy as np

from sim.constants import *  # noqa: F401,F403  (the option layout, enums and limits)
from sim.errors import UnsupportedError
from sim.jit import njit, struct_alloc, struct_new
from sim.types import (
    DATA_ARRAYS,
    DATA_TYPE,
    MODEL_ARRAYS,
    MODEL_SCALARS,
    MODEL_TYPE,
    SECTIONS,
    SMOOTH,
    TASK_TYPE,
    data_shapes,
)


# ------------------------------------------------------------------------------------------------------------------
# options


def opt_array(opt, out=None):
    """Pack m.opt into the float64 opt array layout (OPT_SIZE,)."""
    if out is None:
        out = np.zeros(OPT_SIZE)
    out[OPT_TIMESTEP] = opt.timestep
    out[OPT_GRAVITY : OPT_GRAVITY + 3] = opt.gravity
    out[OPT_WIND : OPT_WIND + 3] = opt.wind
    out[OPT_DENSITY] = opt.density
    out[OPT_VISCOSITY] = opt.viscosity
    out[OPT_INTEGRATOR] = int(opt.integrator)
    out[OPT_DISABLE] = int(opt.disableflags)
    out[OPT_ENABLE] = int(opt.enableflags)
    out[OPT_DISABLEACT] = int(getattr(opt, "disableactuator", 0))
    out[OPT_IMPRATIO] = opt.impratio
    out[OPT_TOLERANCE] = opt.tolerance
    out[OPT_LS_TOLERANCE] = opt.ls_tolerance
    out[OPT_NOSLIP_TOLERANCE] = opt.noslip_tolerance
    out[OPT_CCD_TOLERANCE] = opt.ccd_tolerance
    out[OPT_O_MARGIN] = opt.o_margin
    out[OPT_O_SOLREF : OPT_O_SOLREF + 2] = opt.o_solref
    out[OPT_O_SOLIMP : OPT_O_SOLIMP + 5] = opt.o_solimp
    out[OPT_O_FRICTION : OPT_O_FRICTION + 5] = opt.o_friction
    out[OPT_CONE] = int(opt.cone)
    out[OPT_JACOBIAN] = int(opt.jacobian)
    out[OPT_SOLVER] = int(opt.solver)
    out[OPT_ITERATIONS] = int(opt.iterations)
    out[OPT_LS_ITERATIONS] = int(opt.ls_iterations)
    out[OPT_NOSLIP_ITERATIONS] = int(opt.noslip_iterations)
    out[OPT_CCD_ITERATIONS] = int(opt.ccd_iterations)
    out[OPT_MAGNETIC : OPT_MAGNETIC + 3] = opt.magnetic
    return out


def check_opt(opt):
    """Raise UnsupportedError for option settings the core does not simulate."""
    if int(opt.enableflags) & ENBL_SLEEP:
        raise UnsupportedError('enable flag "sleep" is not supported')
    if int(opt.integrator) not in (INT_EULER, INT_RK4, INT_IMPLICIT, INT_IMPLICITFAST):
        raise UnsupportedError("integrator %d is not supported" % int(opt.integrator))


# ------------------------------------------------------------------------------------------------------------------
# what the engine does not simulate: refused at load


def _get(m, name, default=None):
    return getattr(m, name, default)


def check_model(m):
    """Raise UnsupportedError for model features outside the smooth core."""
    nu = int(m.nu)
    if int(_get(m, "nflex", 0)):
        raise UnsupportedError("flex objects are not supported")
    if int(_get(m, "nplugin", 0)):
        raise UnsupportedError("plugins are not supported")
    if int(m.ntendon):
        # mj_tendonDot has no derivative of the geom wrap: mujoco refuses (compiler) or errors (actuator
        # armature) on armature along a tendon that wraps around a geom
        wt = np.asarray(m.wrap_type)
        arm = _tendon_armature_eff(m)
        for t in range(int(m.ntendon)):
            seg = wt[int(m.tendon_adr[t]) : int(m.tendon_adr[t]) + int(m.tendon_num[t])]
            if arm[t] != 0 and np.any((seg == WRAP_SPHERE) | (seg == WRAP_CYLINDER)):
                raise UnsupportedError("armature on a tendon with geom wrapping is not supported")
    if nu:
        trn = np.asarray(m.actuator_trntype)
        for i in range(nu):
            t = int(trn[i])
            if t not in (TRN_JOINT, TRN_JOINTINPARENT, TRN_SLIDERCRANK, TRN_TENDON, TRN_SITE, TRN_BODY):
                raise UnsupportedError("actuator transmission type %d is not supported" % t)
        for name, ok in (
            ("actuator_dyntype", (0, 1, 2, 3, 4, 5, 7)),  # dcmotor (5), user (7): as MuJoCo with no callbacks
            ("actuator_gaintype", (0, 1, 2, 3, 6)),  # dcmotor (3), user (6)
            ("actuator_biastype", (0, 1, 2, 3, 5)),  # dcmotor (3), user (5)
        ):
            v = np.asarray(getattr(m, name))
            if np.any(~np.isin(v, ok)):
                raise UnsupportedError("%s %s is not supported" % (name, sorted(set(v.tolist()) - set(ok))))
        for name in ("actuator_ctrlnum", "actuator_outnum"):
            v = _get(m, name)
            if v is not None and np.any(np.asarray(v) != 1):
                raise UnsupportedError("multi-input/output actuators are not supported")
        # DC motors (dyn, gain and bias type dcmotor together): up to five states each
        dyn, gain, bias = (np.asarray(getattr(m, "actuator_%stype" % k)) for k in ("dyn", "gain", "bias"))
        dcm = (dyn == 5) & (gain == 3) & (bias == 3)
        if np.any(((dyn == 5) | (gain == 3) | (bias == 3)) & ~dcm):
            raise UnsupportedError("dyntype, gaintype and biastype 'dcmotor' are supported only together")
        if np.any((np.asarray(m.actuator_actnum) > 1) & ~dcm):
            raise UnsupportedError("actuators with more than one activation are not supported (but DC motors)")
        if np.any(np.asarray(_get(m, "actuator_plugin", -np.ones(nu))) >= 0):
            raise UnsupportedError("actuator plugins are not supported")
        for name in ("actuator_ctrladr", "actuator_outadr"):
            v = _get(m, name)
            if v is not None and np.any(np.asarray(v) != np.arange(nu)):
                raise UnsupportedError("non-trivial %s is not supported" % name)
    _check_constraints(m)
    _check_sensors(m)
    check_opt(m.opt)


def _check_constraints(m):
    """Raise UnsupportedError for constraint features the assembly does not reproduce."""
    et = np.asarray(m.eq_type).reshape(-1)
    if np.any(et > 3):
        raise UnsupportedError("flex equality constraints are not supported")


def _check_tactile(m, st):
    """Tactile sensors evaluate the SDF of every geom touching the sensor body: primitive geoms and mesh geoms
    without an octree (skipped, as MuJoCo skips them) are simulated; an octree SDF (a mesh with mesh_octadr >= 0,
    which MuJoCo builds for SDF geoms, refused anyway) is not."""
    oct_ = np.asarray(getattr(m, "mesh_octadr", np.zeros(0))).reshape(-1)
    if np.any(oct_ >= 0):
        raise UnsupportedError("tactile sensors with octree (SDF) meshes in the model are not supported")


def _check_sensors(m):
    """Raise UnsupportedError for sensors numjoco does not evaluate (also refused by the MJCF compiler)."""
    st = np.asarray(getattr(m, "sensor_type", np.zeros(0))).reshape(-1)
    if st.size == 0:
        return
    if np.any(st == SENS_TACTILE):
        _check_tactile(m, st)
    if np.any(st == SENS_PLUGIN):
        raise UnsupportedError("sensor plugins are not supported")
    if np.any(np.asarray(getattr(m, "sensor_plugin", -np.ones(st.size))).reshape(-1) >= 0):
        raise UnsupportedError("sensor plugins are not supported")
    ins = st == SENS_INSIDESITE
    if np.any(ins):
        stype = np.asarray(m.site_type).reshape(-1)
        refid = np.asarray(m.sensor_refid).reshape(-1)
        if np.any(stype[refid[ins]] == GEOM_MESH):
            raise UnsupportedError("insidesite with a mesh site is not supported")
    if np.any(st == SENS_CONTACT):
        objtype = np.asarray(m.sensor_objtype).reshape(-1)
        objid = np.asarray(m.sensor_objid).reshape(-1)
        stype = np.asarray(m.site_type).reshape(-1)
        for i in np.flatnonzero((st == SENS_CONTACT) & (objtype == 6)):
            if stype[objid[i]] == GEOM_MESH:
                raise UnsupportedError("contact sensor with a mesh site filter is not supported")


def reset_history(m, hist):
    """History buffers (nworld, nhistory) as mj_resetData leaves them (sim/engine/history.py layout and reset_history,
    its kernel)."""
    dt = float(m.opt.timestep)
    hh = np.asarray(m.actuator_history).reshape(-1, 2)
    adrs = np.asarray(m.actuator_historyadr).reshape(-1)
    for i in range(int(m.nu)):
        n = int(hh[i, 0])
        if n > 0:
            a = int(adrs[i])
            hist[:, a] = 0.0
            hist[:, a + 1] = n - 1
            hist[:, a + 2 : a + 2 + n] = [-(n - j) * dt for j in range(n)]
            hist[:, a + 2 + n : a + 2 + 2 * n] = 0.0
    sh = np.asarray(getattr(m, "sensor_history", np.zeros((0, 2)))).reshape(-1, 2)
    for i in np.flatnonzero(sh[:, 0] > 0):
        n, dim, a = int(sh[i, 0]), int(np.asarray(m.sensor_dim)[i]), int(np.asarray(m.sensor_historyadr)[i])
        period, phase = np.asarray(m.sensor_interval).reshape(-1, 2)[i]
        t0 = -period if phase == 0 else phase
        hist[:, a] = t0 if period > 0 else -dt
        hist[:, a + 1] = n - 1
        if period > 0:
            hist[:, a + 2 : a + 2 + n] = [math.ceil((t0 - (n - 1 - j) * period) / dt) * dt for j in range(n)]
        else:
            hist[:, a + 2 : a + 2 + n] = [-(n - j) * dt for j in range(n)]
        hist[:, a + 2 + n : a + 2 + n + n * dim] = 0.0


# ------------------------------------------------------------------------------------------------------------------
# the Model struct


def actuator_contrib(m, objtype_joint, objid, field, polyfield=None):
    """Python port of mj_actuatorArmature / mj_actuatorDamping: (value, poly(2,)) for one object."""
    nu = int(m.nu)
    poly = np.zeros(2)
    aid = int((m.jnt_actuatorid if objtype_joint else m.tendon_actuatorid)[objid])
    if aid == -1:
        return 0.0, poly
    gear = np.asarray(m.actuator_gear).reshape(-1, 6)
    outadr = np.asarray(m.actuator_outadr)
    val = np.asarray(getattr(m, field)).reshape(-1)
    pol = np.asarray(getattr(m, polyfield)).reshape(nu, -1) if polyfield else None
    ids = [aid] if aid >= 0 else []
    if aid < -1:
        trntype = np.asarray(m.actuator_trntype)
        trnid = np.asarray(m.actuator_trnid).reshape(-1, 2)
        for k in range(nu):
            if trnid[k, 0] != objid:
                continue
            if objtype_joint and trntype[k] not in (TRN_JOINT, TRN_JOINTINPARENT):
                continue
            if not objtype_joint and trntype[k] != TRN_TENDON:
                continue
            ids.append(k)
    total = 0.0
    for k in ids:
        g2 = gear[outadr[k], 0] * gear[outadr[k], 0]
        total += val[k] * g2
        if pol is not None:
            poly += pol[k, :2] * g2
    return total, poly


def _tendon_armature_eff(m):
    """(ntendon,) tendon_armature + actuator armature contributions (mj_actuatorArmature, tendon)."""
    nt = int(m.ntendon)
    arm = np.array(_get(m, "tendon_armature", np.zeros(nt)), dtype=np.float64).reshape(nt).copy()
    for t in range(nt):
        arm[t] += actuator_contrib(m, False, t, "actuator_armature")[0]
    return arm


def model_scalars(m, extras=None):
    """{name: int} of the Model struct's scalar fields (MODEL_SCALARS) for m; extras: the sections' derived(m),
    SECTIONS[1:] order, when already computed."""
    scal = dict(
        nq=int(m.nq),
        nv=int(m.nv),
        nu=int(m.nu),
        na=int(m.na),
        nbody=int(m.nbody),
        njnt=int(m.njnt),
        ngeom=int(m.ngeom),
        nsite=int(m.nsite),
        ntendon=int(m.ntendon),
        nwrap=int(m.nwrap),
        nmocap=int(m.nmocap),
        nC=int(_get(m, "nC", _get(m, "nM"))),
        nJten=int(_get(m, "nJten", 0)),
        nJmom=int(_get(m, "nJmom", 0)),
        nflg_gravcomp=int(bool(_get(m, "flg_gravcomp", np.any(np.asarray(m.body_gravcomp) != 0)))),
        nhistory=int(_get(m, "nhistory", 0)),
    )
    for sec, extra in zip(SECTIONS[1:], extras or [sec.derived(m) for sec in SECTIONS[1:]]):
        for n in sec.model_scalars:
            scal[n] = int(extra[n] if n in extra else getattr(m, n))
    return scal


def make_model_struct(m):
    """Build the jitted Model struct from any object with MjModel attribute names (shares buffers when possible)."""
    check_model(m)
    nv, nu, njnt, ntendon = int(m.nv), int(m.nu), int(m.njnt), int(m.ntendon)
    nbody, ngeom, nsite = int(m.nbody), int(m.ngeom), int(m.nsite)
    arrs = {}
    # derived: effective dof armature / damping including actuator contributions
    dof_jntid = np.asarray(m.dof_jntid)
    arm = np.array(m.dof_armature, dtype=np.float64).copy()
    damp = np.array(m.dof_damping, dtype=np.float64).copy()
    dpoly = np.array(m.dof_dampingpoly, dtype=np.float64).reshape(nv, 2).copy()
    eulerdamp = np.zeros(nv, np.int32)
    jnt_actid = np.asarray(m.jnt_actuatorid)
    for i in range(nv):
        j = int(dof_jntid[i])
        a, _ = actuator_contrib(m, True, j, "actuator_armature")
        arm[i] += a
        dval, dp = actuator_contrib(m, True, j, "actuator_damping", "actuator_dampingpoly")
        damp[i] += dval
        dpoly[i] += dp
        eulerdamp[i] = (
            m.dof_damping[i] > 0 or np.any(np.asarray(m.dof_dampingpoly).reshape(nv, -1)[i] != 0) or jnt_actid[j] != -1
        )
    tdamp = np.array(m.tendon_damping, dtype=np.float64).reshape(ntendon).copy()
    tpoly = np.array(m.tendon_dampingpoly, dtype=np.float64).reshape(ntendon, 2).copy()
    for t in range(ntendon):
        dval, dp = actuator_contrib(m, False, t, "actuator_damping", "actuator_dampingpoly")
        tdamp[t] += dval
        tpoly[t] += dp
    derived = dict(
        dof_armature_eff=arm,
        dof_damping_eff=damp,
        dof_dampingpoly_eff=dpoly,
        dof_eulerdamp=eulerdamp,
        tendon_damping_eff=tdamp,
        tendon_dampingpoly_eff=tpoly,
        tendon_armature_eff=_tendon_armature_eff(m),
        opt=m.opt._arr if hasattr(m.opt, "_arr") else opt_array(m.opt),
    )
    rows = dict(
        body=nbody,
        jnt=njnt,
        dof=nv,
        geom=ngeom,
        site=nsite,
        tendon=ntendon,
        actuator=nu,
        wrap=int(m.nwrap),
        ten=ntendon,
    )
    for name, nd, k in SMOOTH.model_arrays:
        if name in derived:
            arrs[name] = derived[name]
            continue
        a = np.asarray(getattr(m, name))
        if nd == 2:
            if a.ndim != 2:
                prefix = name.split("_")[0]
                n = rows.get(prefix, 0)
                a = a.reshape(n, -1) if n else a.reshape(0, 1)
        else:
            a = a.reshape(-1)
        arrs[name] = (
            np.ascontiguousarray(a.astype(np.float64, copy=False))
            if k == "f"
            else np.ascontiguousarray(a.astype(np.int32, copy=False))
        )
    extras = [sec.derived(m) for sec in SECTIONS[1:]]
    scal = model_scalars(m, extras)
    for sec, extra in zip(SECTIONS[1:], extras):
        for n, nd, k in sec.model_arrays:
            arrs[n] = _as_field(extra[n] if n in extra else getattr(m, n), nd, k)
    args = [scal[n] for n in MODEL_SCALARS] + [arrs[n] for n, _, _ in MODEL_ARRAYS]
    st = new_model(*args)
    return st, arrs


def _as_field(x, nd, k):
    """C-contiguous float64/int32 array of nd dims (2-D fields keep MuJoCo's (n, k) layout)."""
    a = np.asarray(x, dtype=np.float64 if k == "f" else None)
    if k == "i":
        a = a.astype(np.int32, copy=False)
    if a.ndim != nd:
        if nd == 1:
            a = a.reshape(-1)
        elif a.ndim == 1:
            a = a.reshape(-1, 1) if a.size else a.reshape(0, 1)
        else:
            a = a.reshape(a.shape[0], -1)
    return np.ascontiguousarray(a)


# ------------------------------------------------------------------------------------------------------------------
# Data arrays and the Data struct


def _rows_per_contact(m):
    """Largest number of efc rows one contact can add (pyramidal 2(condim-1), elliptic condim)."""
    dims = [1] + list(np.asarray(m.geom_condim).reshape(-1)) + list(np.asarray(m.pair_dim).reshape(-1))
    cd = max(int(x) for x in dims)
    return max(1, 2 * (cd - 1)) if int(m.opt.cone) == 0 else cd


# MuJoCo 3.17's sizeof(mjContact) in bytes (66 mjtNum + 13 int, padded: the stride of mujoco's d.contact arrays)
SIZEOF_CONTACT = 584
_MB = 1 << 20


def arena_size(m, memory=-1, nstack=-1):
    """narena in bytes as mj_makeModel sets it: <size memory> when given, else 8 nstack (legacy <size nstack>) or
    MuJoCo's heuristic for the solver's stack, plus the footprint of <size nconmax> contacts (default 100) and
    <size njmax> rows (default 500), rounded up to a megabyte (user_model.cc)."""
    if memory != -1:
        return int(memory)
    nconmax = int(getattr(m, "nconmax", -1))
    njmax = int(getattr(m, "njmax", -1))
    nconmax = 100 if nconmax == -1 else nconmax
    njmax = 500 if njmax == -1 else njmax
    nv, neq = int(m.nv), int(m.neq)
    if nstack != -1:
        n = 8 * int(nstack)
    else:
        objs = sum(
            int(getattr(m, k))
            for k in ("nq", "nv", "nu", "na", "nbody", "njnt", "ngeom", "nsite", "neq", "ntendon", "nwrap")
        )
        n = 8 * max(1000, 5 * (njmax + neq + nv) ** 2 + 20 * objs)
    n += nconmax * SIZEOF_CONTACT + njmax * (8 * 4 + 14 * 8) + nv * 3 * 4 + njmax * nv * (2 * 4 + 2 * 8)
    n += njmax * njmax * (4 + 8)
    return _MB * (n // _MB + (1 if n % _MB else 0))


def model_arena(m):
    """The arena size of m's mjData (m.narena; MuJoCo's default rule for a model that does not carry it)."""
    n = int(getattr(m, "narena", 0) or 0)
    return n if n > 0 else arena_size(m)


def _sparse_now(m):
    """mj_isSparse under m's options (jacobian sparse, or auto with nv >= 60)."""
    jac = int(getattr(getattr(m, "opt", None), "jacobian", 2))
    return jac == 1 or (jac == 2 and int(m.nv) >= 60)


def _row_bytes(m):
    """The fewest arena bytes an efc row takes in MuJoCo (mj_makeConstraint's efc arrays, engine_core_constraint.c
    arenaAllocEfc): type, id, state, the sparse descriptors rownnz, rowadr, rowsuper (allocated in both modes),
    14 mjtNum, and the Jacobian's values with their column indices: one nonzero sparse, nv dense."""
    return 6 * 4 + 14 * 8 + 12 * (1 if _sparse_now(m) else int(m.nv))


def _static_rows(m):
    """Every equality, friction-loss and limit row the model can produce."""
    return 6 * int(m.neq) + int(m.nv) + int(m.ntendon) + 2 * int(m.njnt) + 2 * int(m.ntendon)


def arena_capacity(m):
    """(contacts, efc rows): as many as MuJoCo's arena of m (model_arena) could ever hold.

    Contacts: narena / sizeof(mjContact) (the arena holds nothing else while collision adds them).  Rows: the
    model's equality / friction / limit rows, plus every row of as many contacts (each with the most rows a contact
    can have) as fit in the arena together with their rows at the fewest bytes a row takes (_row_bytes).  Both are
    upper bounds: MuJoCo's own limit is lower by its stack's use and the rows' wider Jacobians."""
    narena = model_arena(m)
    rpc = _rows_per_contact(m)
    ncon = narena // SIZEOF_CONTACT
    nrow = _static_rows(m) + rpc * (narena // (SIZEOF_CONTACT + rpc * _row_bytes(m)))
    return int(ncon), int(nrow)


def data_sizes(m, nconmax=None, njmax=None, nworld=1):
    """Per-world buffer capacities {'nconmax', 'njmax', 'capped'}.

    nconmax / njmax given: those.  Else what MuJoCo's arena of the model holds (arena_capacity: <size memory>, or
    MuJoCo's default from <size nconmax / njmax / nstack>, which in MuJoCo only size the arena): every contact and
    row MuJoCo keeps fits.  The buffers are zero pages until written, so a world commits memory for the rows and
    contacts it uses; the reservation itself is capped for a batch so that no buffer outgrows the machine
    (_BUDGET): then 'capped' is True and sim.step / sim.forward grow the buffers when a world outgrows them
    (sim/data.py Data.grow)."""
    acon, arow = arena_capacity(m)
    capped = False
    if nconmax is None or njmax is None:
        narena = model_arena(m)
        if narena > _memory_bytes():
            # mj_makeData cannot allocate the arena either ('Could not allocate memory')
            raise MemoryError(
                "sim.Data: MuJoCo's arena for this model (narena, from <size memory / njmax / nconmax>) is %.1f GiB, "
                "more than this machine has (%.1f GiB)" % (narena / 2**30, _memory_bytes() / 2**30)
            )
        ncon_d = acon if nconmax is None else int(nconmax)
        nrow_d = arow if njmax is None else int(njmax)
        scale = min(1.0, _BUDGET / max(1.0, float(nworld) * _capacity_bytes(m, ncon_d, nrow_d)))
        if scale < 1.0:
            capped = True
            if nconmax is None:
                ncon_d = max(64, int(ncon_d * scale))
            if njmax is None:
                nrow_d = max(_static_rows(m) + 64, int(nrow_d * scale))
        nconmax, njmax = ncon_d, nrow_d
    nconmax, njmax = int(nconmax), int(njmax)
    if nconmax < 0 or njmax < 0:
        raise ValueError("nconmax and njmax must be >= 0")
    return dict(nconmax=nconmax, njmax=njmax, capped=capped or nconmax < acon or njmax < arow)


def _capacity_bytes(m, nconmax, njmax):
    """Bytes one world reserves for its capacity-bound buffers (contacts and efc rows)."""
    size = dict(nconmax=nconmax, njmax=njmax)
    shapes = data_shapes(m, size)
    small = data_shapes(m, dict(nconmax=0, njmax=0))
    total = 0
    for name, nd, k in DATA_ARRAYS:
        if shapes[name] != small[name]:
            total += int(np.prod(shapes[name], dtype=np.float64)) * (8 if k == "f" else 4)
    return total


def memory_per_world(m, nconmax=None, njmax=None):
    """What one world of a Data for m takes, in bytes: {'narena': MuJoCo's arena, 'nconmax', 'njmax': the default
    capacities (data_sizes), 'reserved': every buffer at those capacities (address space), 'fixed': the buffers
    that do not follow the capacities, 'per_contact' / 'per_row': what each contact / efc row in use commits (the
    capacity-bound buffers' bytes per contact / row; the dense AR's njmax^2 aside, when it is allocated)}."""
    size = data_sizes(m, nconmax, njmax)
    shapes = data_shapes(m, size)
    kinds = {name: (8 if k == "f" else 4) for name, _, k in DATA_ARRAYS}

    def total(sz):
        shp = data_shapes(m, sz)
        return sum(int(np.prod(shp[n], dtype=np.float64)) * kinds[n] for n in kinds)

    big = max(size["njmax"], AR_CAP + 1)
    fixed = total(dict(nconmax=0, njmax=0))
    base = total(dict(nconmax=0, njmax=big))
    return dict(
        narena=model_arena(m),
        nconmax=size["nconmax"],
        njmax=size["njmax"],
        reserved=sum(int(np.prod(shapes[n], dtype=np.float64)) * kinds[n] for n in kinds),
        fixed=fixed,
        per_contact=(total(dict(nconmax=1000, njmax=0)) - fixed) / 1000,
        per_row=(total(dict(nconmax=0, njmax=big + 1000)) - base) / 1000,
    )


def capacity_names(m, size):
    """Names of the Data arrays whose shape follows the capacities (contacts or efc rows on their second axis,
    scratch sized by them): those that differ from their shape at zero capacity."""
    a = data_shapes(m, size)
    b = data_shapes(m, dict(nconmax=0, njmax=0))
    return frozenset(name for name, _, _ in DATA_ARRAYS if a[name] != b[name])


def make_data_arrays(m, nworld, size=None):
    """Allocate Data arrays with a leading world axis (size: capacities from data_sizes): zeros, but for the
    initialised history buffers."""
    size = data_sizes(m, nworld=nworld) if size is None else size
    shapes = data_shapes(m, size)
    nbytes = {
        name: nworld * int(np.prod(shapes[name], dtype=np.float64)) * (8 if k == "f" else 4)
        for name, nd, k in DATA_ARRAYS
    }
    big = max(nbytes, key=nbytes.get)
    if nbytes[big] > _memory_bytes():
        # the buffers are zero pages until written, but a single buffer larger than the machine is refused
        raise MemoryError(
            "sim.Data: %d world(s) of this model need a %.1f GiB buffer (%s, %s per world, "
            "nconmax = %d, njmax = %d), more than this machine has (%.1f GiB)"
            % (nworld, nbytes[big] / 2**30, big, shapes[big], size["nconmax"], size["njmax"], _memory_bytes() / 2**30)
        )
    out = {}
    for name, nd, k in DATA_ARRAYS:
        shp = (nworld,) + shapes[name]
        assert len(shp) == nd, name
        out[name] = np.zeros(shp, dtype=np.float64 if k == "f" else np.int32)
    if out["history"].shape[1]:
        reset_history(m, out["history"])  # actuator delay buffers as mj_makeData leaves them
    return out


def _memory_bytes():
    """Physical memory of the machine (bytes; 2**62 when unknown)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 2**62


# the most bytes a Data reserves for its capacity-bound buffers (reserved, not committed: zero pages until written):
# a quarter of the machine, so that no single buffer reaches the kernel's overcommit limit
_BUDGET = _memory_bytes() / 4


def make_data_struct(arrays):
    """Wrap Data arrays (shared buffers) in the jitted Data struct."""
    return new_data(*[arrays[n] for n, _, _ in DATA_ARRAYS])


# ------------------------------------------------------------------------------------------------------------------
# struct constructors: field values in the order of the registry's tables, the struct built from Python
# (sim.jit.struct_new) around one small jitted allocator


@njit(refcount=True)
def _alloc(struct_type):
    """An empty struct of struct_type (one compile per struct type)."""
    return struct_alloc(struct_type)


def new_model(*values):
    """Model struct from the field values (scalars as ints, arrays with the table's dtype and rank)."""
    return struct_new(_alloc, MODEL_TYPE, values)


def new_data(*values):
    """Data struct from the Data arrays (shared buffers)."""
    return struct_new(_alloc, DATA_TYPE, values)


def new_task(*values):
    """Task struct from the task program's values (sim.types TASK_SCALARS, TASK_ARRAYS)."""
    return struct_new(_alloc, TASK_TYPE, values)
