"""structref Model/Data types for the jitted core, and builders from any MjModel-like object.

A Model struct holds MuJoCo-named arrays (float64 / int32, C-contiguous) plus a few derived
arrays (effective damping/armature including actuator contributions) and a small float64
``opt`` array refreshed from ``m.opt`` at every API call.  A Data struct holds arrays with a
leading world axis (nworld, ...) plus per-world scratch, so the same kernels serve one world
(serial entry) and a batch (prange entry).
"""
import sim.jit.cache  # noqa: F401  (sets the source-hash-keyed numba cache dir first)
import os

import numpy as np
from numba import types
from numba.experimental import structref

try:  # the lead wires this to sim.ModelError
    from sim.errors import UnsupportedError as UnsupportedFeature
except ImportError:  # pragma: no cover
    class UnsupportedFeature(Exception):
        """Model uses a MuJoCo feature the smooth core does not simulate yet."""

from sim.constants import *  # noqa: F401,F403  (the enums and layout constants live there)



from sim.jit import short_struct_type


@structref.register
@short_struct_type
class ModelType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((n, types.unliteral(t)) for n, t in fields)


@structref.register
@short_struct_type
class DataType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((n, types.unliteral(t)) for n, t in fields)


class ModelStruct(structref.StructRefProxy):
    """Opaque handle to the jitted model (no Python attribute access)."""


class DataStruct(structref.StructRefProxy):
    """Opaque handle to the jitted data (no Python attribute access)."""


@structref.register
@short_struct_type
class TaskType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((n, types.unliteral(t)) for n, t in fields)


class TaskStruct(structref.StructRefProxy):
    """Opaque handle to a jitted task program (sim/fields_task.py)."""


structref.define_boxing(ModelType, ModelStruct)
structref.define_boxing(DataType, DataStruct)
structref.define_boxing(TaskType, TaskStruct)

# --- smooth-core field tables; the other stages declare theirs in sim/fields_*.py (FIELD_MODULES).
# The struct constructors in sim/jit/structs.py take the field values in the order of these tables
MODEL_SCALARS = ['nq', 'nv', 'nu', 'na', 'nbody', 'njnt', 'ngeom', 'nsite', 'ntendon', 'nwrap', 'nmocap', 'nC', 'nJten', 'nJmom', 'nflg_gravcomp']
MODEL_ARRAYS = [('opt', 1, 'f'), ('qpos0', 1, 'f'), ('qpos_spring', 1, 'f'), ('body_parentid', 1, 'i'), ('body_rootid', 1, 'i'), ('body_weldid', 1, 'i'), ('body_mocapid', 1, 'i'), ('body_jntnum', 1, 'i'), ('body_jntadr', 1, 'i'), ('body_dofnum', 1, 'i'), ('body_dofadr', 1, 'i'), ('body_geomnum', 1, 'i'), ('body_geomadr', 1, 'i'), ('body_sameframe', 1, 'i'), ('body_pos', 2, 'f'), ('body_quat', 2, 'f'), ('body_ipos', 2, 'f'), ('body_iquat', 2, 'f'), ('body_mass', 1, 'f'), ('body_subtreemass', 1, 'f'), ('body_inertia', 2, 'f'), ('body_gravcomp', 1, 'f'), ('jnt_type', 1, 'i'), ('jnt_qposadr', 1, 'i'), ('jnt_dofadr', 1, 'i'), ('jnt_bodyid', 1, 'i'), ('jnt_pos', 2, 'f'), ('jnt_axis', 2, 'f'), ('jnt_stiffness', 1, 'f'), ('jnt_stiffnesspoly', 2, 'f'), ('jnt_actfrclimited', 1, 'i'), ('jnt_actfrcrange', 2, 'f'), ('jnt_actgravcomp', 1, 'i'), ('dof_bodyid', 1, 'i'), ('dof_jntid', 1, 'i'), ('dof_parentid', 1, 'i'), ('dof_simplenum', 1, 'i'), ('dof_M0', 1, 'f'), ('dof_damping', 1, 'f'), ('dof_dampingpoly', 2, 'f'), ('dof_armature_eff', 1, 'f'), ('dof_damping_eff', 1, 'f'), ('dof_dampingpoly_eff', 2, 'f'), ('dof_eulerdamp', 1, 'i'), ('M_rownnz', 1, 'i'), ('M_rowadr', 1, 'i'), ('M_colind', 1, 'i'), ('geom_bodyid', 1, 'i'), ('geom_sameframe', 1, 'i'), ('geom_pos', 2, 'f'), ('geom_quat', 2, 'f'), ('site_bodyid', 1, 'i'), ('site_sameframe', 1, 'i'), ('site_pos', 2, 'f'), ('site_quat', 2, 'f'), ('tendon_adr', 1, 'i'), ('tendon_num', 1, 'i'), ('tendon_stiffness', 1, 'f'), ('tendon_stiffnesspoly', 2, 'f'), ('tendon_damping_eff', 1, 'f'), ('tendon_dampingpoly_eff', 2, 'f'), ('tendon_armature_eff', 1, 'f'), ('tendon_lengthspring', 2, 'f'), ('tendon_actfrclimited', 1, 'i'), ('tendon_actfrcrange', 2, 'f'), ('ten_J_rownnz', 1, 'i'), ('ten_J_rowadr', 1, 'i'), ('ten_J_colind', 1, 'i'), ('wrap_type', 1, 'i'), ('wrap_objid', 1, 'i'), ('wrap_prm', 1, 'f'), ('actuator_trntype', 1, 'i'), ('actuator_dyntype', 1, 'i'), ('actuator_gaintype', 1, 'i'), ('actuator_biastype', 1, 'i'), ('actuator_trnid', 2, 'i'), ('actuator_actadr', 1, 'i'), ('actuator_actnum', 1, 'i'), ('actuator_group', 1, 'i'), ('actuator_ctrllimited', 1, 'i'), ('actuator_forcelimited', 1, 'i'), ('actuator_actlimited', 1, 'i'), ('actuator_ctrlrange', 2, 'f'), ('actuator_forcerange', 2, 'f'), ('actuator_actrange', 2, 'f'), ('actuator_gear', 2, 'f'), ('actuator_dynprm', 2, 'f'), ('actuator_gainprm', 2, 'f'), ('actuator_biasprm', 2, 'f'), ('actuator_actearly', 1, 'i'), ('actuator_lengthrange', 2, 'f'), ('actuator_acc0', 1, 'f')]
DATA_ARRAYS = [('time', 1, 'f'), ('qpos', 2, 'f'), ('qvel', 2, 'f'), ('act', 2, 'f'), ('ctrl', 2, 'f'), ('qfrc_applied', 2, 'f'), ('xfrc_applied', 3, 'f'), ('mocap_pos', 3, 'f'), ('mocap_quat', 3, 'f'), ('qacc', 2, 'f'), ('act_dot', 2, 'f'), ('qacc_warmstart', 2, 'f'), ('xpos', 3, 'f'), ('xquat', 3, 'f'), ('xmat', 3, 'f'), ('xipos', 3, 'f'), ('ximat', 3, 'f'), ('xanchor', 3, 'f'), ('xaxis', 3, 'f'), ('geom_xpos', 3, 'f'), ('geom_xmat', 3, 'f'), ('site_xpos', 3, 'f'), ('site_xmat', 3, 'f'), ('subtree_com', 3, 'f'), ('cinert', 3, 'f'), ('crb', 3, 'f'), ('cdof', 3, 'f'), ('cvel', 3, 'f'), ('cdof_dot', 3, 'f'), ('ten_length', 2, 'f'), ('ten_J', 2, 'f'), ('ten_velocity', 2, 'f'), ('wrap_xpos', 3, 'f'), ('wrap_obj', 2, 'i'), ('ten_wrapadr', 2, 'i'), ('ten_wrapnum', 2, 'i'), ('actuator_length', 2, 'f'), ('actuator_moment', 2, 'f'), ('moment_rownnz', 2, 'i'), ('moment_rowadr', 2, 'i'), ('moment_colind', 2, 'i'), ('actuator_velocity', 2, 'f'), ('actuator_force', 2, 'f'), ('qfrc_actuator', 2, 'f'), ('M', 2, 'f'), ('qLD', 2, 'f'), ('qLDiagInv', 2, 'f'), ('qH', 2, 'f'), ('qHDiagInv', 2, 'f'), ('qfrc_spring', 2, 'f'), ('qfrc_damper', 2, 'f'), ('qfrc_gravcomp', 2, 'f'), ('qfrc_fluid', 2, 'f'), ('qfrc_passive', 2, 'f'), ('qfrc_bias', 2, 'f'), ('qfrc_smooth', 2, 'f'), ('qacc_smooth', 2, 'f'), ('qfrc_constraint', 2, 'f'), ('cacc', 3, 'f'), ('cfrc_int', 3, 'f'), ('cfrc_ext', 3, 'f'), ('warning_number', 2, 'i'), ('warning_lastinfo', 2, 'i'), ('scr_body6a', 3, 'f'), ('scr_body6b', 3, 'f'), ('scr_nv', 3, 'f'), ('scr_ctrl', 2, 'f'), ('scr_rk_x', 3, 'f'), ('scr_rk_f', 3, 'f'), ('scr_rk_dx', 2, 'f'), ('scr_deriv', 3, 'f'), ('scr_tenjac', 4, 'f')]

def _arr_type(nd, k):
    return types.Array(types.float64 if k == 'f' else types.int32, nd, 'C')


# every stage module that declares fields: MODEL_SCALARS, MODEL_ARRAYS, DATA_ARRAYS, model_arrays(m)
# (derived model arrays/scalars by name; the rest are read from m), data_shapes(m, size) (per-world shapes)
FIELD_MODULES = ('sim.fields_collision', 'sim.fields_convex', 'sim.fields_constraint', 'sim.fields_solver',
                 'sim.fields_derivative', 'sim.fields_transmission', 'sim.fields_pipeline', 'sim.fields_sensor')
SMOOTH_MODEL_SCALARS, SMOOTH_MODEL_ARRAYS, SMOOTH_DATA_ARRAYS = MODEL_SCALARS, MODEL_ARRAYS, DATA_ARRAYS


def _field_modules():
    import importlib
    return [importlib.import_module(n) for n in FIELD_MODULES]


MODEL_SCALARS = list(SMOOTH_MODEL_SCALARS)
MODEL_ARRAYS = list(SMOOTH_MODEL_ARRAYS)
DATA_ARRAYS = list(SMOOTH_DATA_ARRAYS)
for _mod in _field_modules():
    MODEL_SCALARS += _mod.MODEL_SCALARS
    MODEL_ARRAYS += _mod.MODEL_ARRAYS
    DATA_ARRAYS += _mod.DATA_ARRAYS
for _tab in (MODEL_SCALARS, [n for n, _, _ in MODEL_ARRAYS], [n for n, _, _ in DATA_ARRAYS]):
    assert len(set(_tab)) == len(_tab), 'duplicate field names across sim/fields_*.py'

_MODEL_FIELDS = tuple([(n, types.int64) for n in MODEL_SCALARS] +
                      [(n, _arr_type(nd, k)) for n, nd, k in MODEL_ARRAYS])
_DATA_FIELDS = tuple((n, _arr_type(nd, k)) for n, nd, k in DATA_ARRAYS)
MODEL_TYPE = ModelType(_MODEL_FIELDS)
DATA_TYPE = DataType(_DATA_FIELDS)

from sim.fields_task import TASK_SCALARS, TASK_ARRAYS  # noqa: E402
TASK_TYPE = TaskType(tuple([(n, types.int64) for n in TASK_SCALARS] +
                           [(n, _arr_type(nd, k)) for n, nd, k in TASK_ARRAYS]))


# ------------------------------------------------------------------------------------------
# Python-side builders

def _f(x, nd):
    a = np.ascontiguousarray(np.asarray(x, dtype=np.float64))
    if a.ndim != nd:
        a = np.ascontiguousarray(a.reshape((-1,) + a.shape[1:] if nd == 1 else a.shape))
    return a


def _i(x):
    return np.ascontiguousarray(np.asarray(x).astype(np.int32, copy=False))


def _shape2(x, ncol, dtype):
    a = np.asarray(x, dtype=dtype)
    return np.ascontiguousarray(a.reshape(-1, ncol))


def opt_array(opt, out=None):
    """Pack m.opt into the float64 opt array layout (OPT_SIZE,)."""
    if out is None:
        out = np.zeros(OPT_SIZE)
    out[OPT_TIMESTEP] = opt.timestep
    out[OPT_GRAVITY:OPT_GRAVITY + 3] = opt.gravity
    out[OPT_WIND:OPT_WIND + 3] = opt.wind
    out[OPT_DENSITY] = opt.density
    out[OPT_VISCOSITY] = opt.viscosity
    out[OPT_INTEGRATOR] = int(opt.integrator)
    out[OPT_DISABLE] = int(opt.disableflags)
    out[OPT_ENABLE] = int(opt.enableflags)
    out[OPT_DISABLEACT] = int(getattr(opt, 'disableactuator', 0))
    out[OPT_IMPRATIO] = opt.impratio
    out[OPT_TOLERANCE] = opt.tolerance
    out[OPT_LS_TOLERANCE] = opt.ls_tolerance
    out[OPT_NOSLIP_TOLERANCE] = opt.noslip_tolerance
    out[OPT_CCD_TOLERANCE] = opt.ccd_tolerance
    out[OPT_O_MARGIN] = opt.o_margin
    out[OPT_O_SOLREF:OPT_O_SOLREF + 2] = opt.o_solref
    out[OPT_O_SOLIMP:OPT_O_SOLIMP + 5] = opt.o_solimp
    out[OPT_O_FRICTION:OPT_O_FRICTION + 5] = opt.o_friction
    out[OPT_CONE] = int(opt.cone)
    out[OPT_JACOBIAN] = int(opt.jacobian)
    out[OPT_SOLVER] = int(opt.solver)
    out[OPT_ITERATIONS] = int(opt.iterations)
    out[OPT_LS_ITERATIONS] = int(opt.ls_iterations)
    out[OPT_NOSLIP_ITERATIONS] = int(opt.noslip_iterations)
    out[OPT_CCD_ITERATIONS] = int(opt.ccd_iterations)
    out[OPT_MAGNETIC:OPT_MAGNETIC + 3] = opt.magnetic
    return out


def check_opt(opt):
    """Raise UnsupportedFeature for option settings the core does not simulate."""
    if int(opt.enableflags) & ENBL_SLEEP:
        raise UnsupportedFeature('enable flag "sleep" is not supported')
    if int(opt.integrator) not in (INT_EULER, INT_RK4, INT_IMPLICIT, INT_IMPLICITFAST):
        raise UnsupportedFeature('integrator %d is not supported' % int(opt.integrator))
    if int(opt.noslip_iterations) > 0:
        raise UnsupportedFeature('noslip_iterations > 0: the noslip solver is not implemented')


def _get(m, name, default=None):
    return getattr(m, name, default)


def _actuator_contrib(m, objtype_joint, objid, field, polyfield=None):
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
    arm = np.array(_get(m, 'tendon_armature', np.zeros(nt)), dtype=np.float64).reshape(nt).copy()
    for t in range(nt):
        arm[t] += _actuator_contrib(m, False, t, 'actuator_armature')[0]
    return arm


def check_model(m):
    """Raise UnsupportedFeature for model features outside the smooth core."""
    nu = int(m.nu)
    if int(_get(m, 'nflex', 0)):
        raise UnsupportedFeature('flex objects are not supported')
    if int(_get(m, 'nplugin', 0)):
        raise UnsupportedFeature('plugins are not supported')
    if int(_get(m, 'nhistory', 0)):
        raise UnsupportedFeature('actuator/sensor delay and history buffers are not supported')
    if int(m.ntendon):
        # mj_tendonDot has no derivative of the geom wrap: mujoco refuses (compiler) or errors (actuator
        # armature) on armature along a tendon that wraps around a geom
        wt = np.asarray(m.wrap_type)
        arm = _tendon_armature_eff(m)
        for t in range(int(m.ntendon)):
            seg = wt[int(m.tendon_adr[t]):int(m.tendon_adr[t]) + int(m.tendon_num[t])]
            if arm[t] != 0 and np.any((seg == WRAP_SPHERE) | (seg == WRAP_CYLINDER)):
                raise UnsupportedFeature('armature on a tendon with geom wrapping is not supported')
    if nu:
        trn = np.asarray(m.actuator_trntype)
        for i in range(nu):
            t = int(trn[i])
            if t not in (TRN_JOINT, TRN_JOINTINPARENT, TRN_SLIDERCRANK, TRN_TENDON, TRN_SITE, TRN_BODY):
                raise UnsupportedFeature('actuator transmission type %d is not supported' % t)
        for name, ok in (('actuator_dyntype', (0, 1, 2, 3, 4)), ('actuator_gaintype', (0, 1, 2)),
                         ('actuator_biastype', (0, 1, 2))):
            v = np.asarray(getattr(m, name))
            if np.any(~np.isin(v, ok)):
                raise UnsupportedFeature('%s %s is not supported' % (name, sorted(set(v.tolist()) - set(ok))))
        for name in ('actuator_ctrlnum', 'actuator_outnum'):
            v = _get(m, name)
            if v is not None and np.any(np.asarray(v) != 1):
                raise UnsupportedFeature('multi-input/output actuators are not supported')
        if np.any(np.asarray(m.actuator_actnum) > 1):
            raise UnsupportedFeature('actuators with more than one activation are not supported')
        if np.any(np.asarray(_get(m, 'actuator_delay', np.zeros(nu))) != 0):
            raise UnsupportedFeature('actuator delay is not supported')
        if np.any(np.asarray(_get(m, 'actuator_plugin', -np.ones(nu))) >= 0):
            raise UnsupportedFeature('actuator plugins are not supported')
        for name in ('actuator_ctrladr', 'actuator_outadr'):
            v = _get(m, name)
            if v is not None and np.any(np.asarray(v) != np.arange(nu)):
                raise UnsupportedFeature('non-trivial %s is not supported' % name)
    check_opt(m.opt)


def make_model_struct(m):
    """Build the jitted Model struct from any object with MjModel attribute names (shares buffers when possible)."""
    check_model(m)
    nv, nu, njnt, ntendon = int(m.nv), int(m.nu), int(m.njnt), int(m.ntendon)
    nbody, ngeom, nsite = int(m.nbody), int(m.ngeom), int(m.nsite)
    nC = int(_get(m, 'nC', _get(m, 'nM')))
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
        a, _ = _actuator_contrib(m, True, j, 'actuator_armature')
        arm[i] += a
        dval, dp = _actuator_contrib(m, True, j, 'actuator_damping', 'actuator_dampingpoly')
        damp[i] += dval
        dpoly[i] += dp
        eulerdamp[i] = (m.dof_damping[i] > 0 or np.any(np.asarray(m.dof_dampingpoly).reshape(nv, -1)[i] != 0)
                        or jnt_actid[j] != -1)
    tdamp = np.array(m.tendon_damping, dtype=np.float64).reshape(ntendon).copy()
    tpoly = np.array(m.tendon_dampingpoly, dtype=np.float64).reshape(ntendon, 2).copy()
    for t in range(ntendon):
        dval, dp = _actuator_contrib(m, False, t, 'actuator_damping', 'actuator_dampingpoly')
        tdamp[t] += dval
        tpoly[t] += dp
    derived = dict(dof_armature_eff=arm, dof_damping_eff=damp, dof_dampingpoly_eff=dpoly,
                   dof_eulerdamp=eulerdamp, tendon_damping_eff=tdamp, tendon_dampingpoly_eff=tpoly,
                   tendon_armature_eff=_tendon_armature_eff(m),
                   opt=m.opt._arr if hasattr(m.opt, '_arr') else opt_array(m.opt))
    rows = dict(body=nbody, jnt=njnt, dof=nv, geom=ngeom, site=nsite, tendon=ntendon,
                actuator=nu, wrap=int(m.nwrap), ten=ntendon)
    for name, nd, k in SMOOTH_MODEL_ARRAYS:
        if name in derived:
            arrs[name] = derived[name]
            continue
        if name.startswith('M_') or name.startswith('ten_J_'):
            src = getattr(m, name)
        else:
            src = getattr(m, name)
        a = np.asarray(src)
        if nd == 2:
            if a.ndim != 2:
                prefix = name.split('_')[0]
                n = rows.get(prefix, 0)
                a = a.reshape(n, -1) if n else a.reshape(0, 1)
        else:
            a = a.reshape(-1)
        arrs[name] = (np.ascontiguousarray(a.astype(np.float64, copy=False)) if k == 'f'
                      else np.ascontiguousarray(a.astype(np.int32, copy=False)))
    scal = dict(nq=int(m.nq), nv=nv, nu=nu, na=int(m.na), nbody=nbody, njnt=njnt, ngeom=ngeom,
                nsite=nsite, ntendon=ntendon, nwrap=int(m.nwrap), nmocap=int(m.nmocap), nC=nC,
                nJten=int(_get(m, 'nJten', 0)), nJmom=int(_get(m, 'nJmom', 0)),
                nflg_gravcomp=int(bool(_get(m, 'flg_gravcomp', np.any(np.asarray(m.body_gravcomp) != 0)))))
    for mod in _field_modules():
        extra = mod.model_arrays(m)
        for n in mod.MODEL_SCALARS:
            scal[n] = int(extra[n] if n in extra else getattr(m, n))
        for n, nd, k in mod.MODEL_ARRAYS:
            arrs[n] = _as_field(extra[n] if n in extra else getattr(m, n), nd, k)
    from sim.jit.structs import new_model
    args = [scal[n] for n in MODEL_SCALARS] + [arrs[n] for n, _, _ in MODEL_ARRAYS]
    st = new_model(*args)
    return st, arrs


def _as_field(x, nd, k):
    """C-contiguous float64/int32 array of nd dims (2-D fields keep MuJoCo's (n, k) layout)."""
    a = np.asarray(x, dtype=np.float64 if k == 'f' else None)
    if k == 'i':
        a = a.astype(np.int32, copy=False)
    if a.ndim != nd:
        if nd == 1:
            a = a.reshape(-1)
        elif a.ndim == 1:
            a = a.reshape(-1, 1) if a.size else a.reshape(0, 1)
        else:
            a = a.reshape(a.shape[0], -1)
    return np.ascontiguousarray(a)


def data_sizes(m, nconmax=None, njmax=None):
    """Per-world buffer capacities {'nconmax', 'njmax'}: the arguments, else the model's, else an estimate."""
    from sim.fields_constraint import default_sizes
    return default_sizes(m, nconmax, njmax)


def data_shapes(m):
    """Per-world shapes (without the world axis) of every Data array."""
    nq, nv, nu, na, nbody = int(m.nq), int(m.nv), int(m.nu), int(m.na), int(m.nbody)
    nC = int(_get(m, 'nC', _get(m, 'nM')))
    nJmom = int(_get(m, 'nJmom', 0))
    s = dict(time=(), qpos=(nq,), qvel=(nv,), act=(na,), ctrl=(nu,), qfrc_applied=(nv,),
             xfrc_applied=(nbody, 6), mocap_pos=(int(m.nmocap), 3), mocap_quat=(int(m.nmocap), 4),
             qacc=(nv,), act_dot=(na,), qacc_warmstart=(nv,),
             xpos=(nbody, 3), xquat=(nbody, 4), xmat=(nbody, 9), xipos=(nbody, 3), ximat=(nbody, 9),
             xanchor=(int(m.njnt), 3), xaxis=(int(m.njnt), 3),
             geom_xpos=(int(m.ngeom), 3), geom_xmat=(int(m.ngeom), 9),
             site_xpos=(int(m.nsite), 3), site_xmat=(int(m.nsite), 9),
             subtree_com=(nbody, 3), cinert=(nbody, 10), crb=(nbody, 10), cdof=(nv, 6), cvel=(nbody, 6),
             cdof_dot=(nv, 6), ten_length=(int(m.ntendon),), ten_J=(int(_get(m, 'nJten', 0)),),
             ten_velocity=(int(m.ntendon),), wrap_xpos=(2 * int(m.nwrap), 3), wrap_obj=(2 * int(m.nwrap),),
             ten_wrapadr=(int(m.ntendon),), ten_wrapnum=(int(m.ntendon),), actuator_length=(nu,), actuator_moment=(nJmom,),
             moment_rownnz=(nu,), moment_rowadr=(nu,), moment_colind=(nJmom,),
             actuator_velocity=(nu,), actuator_force=(nu,), qfrc_actuator=(nv,),
             M=(nC,), qLD=(nC,), qLDiagInv=(nv,), qH=(nC,), qHDiagInv=(nv,),
             qfrc_spring=(nv,), qfrc_damper=(nv,), qfrc_gravcomp=(nv,), qfrc_fluid=(nv,),
             qfrc_passive=(nv,), qfrc_bias=(nv,), qfrc_smooth=(nv,), qacc_smooth=(nv,),
             qfrc_constraint=(nv,), cacc=(nbody, 6), cfrc_int=(nbody, 6), cfrc_ext=(nbody, 6),
             warning_number=(NWARNING + 1,), warning_lastinfo=(NWARNING + 1,),
             scr_body6a=(nbody, 6), scr_body6b=(nbody, 6), scr_nv=(6, nv), scr_ctrl=(nu,),
             scr_rk_x=(4, nq + nv + na), scr_rk_f=(4, nv + na), scr_rk_dx=(2 * nv + na,),
             scr_deriv=(2, nv), scr_tenjac=(2, 3, nv))
    return s


def make_data_arrays(m, nworld, size=None):
    """Allocate zeroed Data arrays with a leading world axis (size: capacities from data_sizes)."""
    size = data_sizes(m) if size is None else size
    shapes = data_shapes(m)
    for mod in _field_modules():
        shapes.update(mod.data_shapes(m, size))
    nbytes = {name: nworld * int(np.prod(shapes[name], dtype=np.float64)) * (8 if k == 'f' else 4)
              for name, nd, k in DATA_ARRAYS}
    total = sum(nbytes.values())
    if total > _memory_bytes():
        big = max(nbytes, key=nbytes.get)
        raise MemoryError('sim.Data: %d world(s) of this model need %.1f GiB of buffers (%s alone %s per world, '
                          'nconmax = %d, njmax = %d), more than this machine has (%.1f GiB)'
                          % (nworld, total / 2**30, big, shapes[big], size['nconmax'], size['njmax'],
                             _memory_bytes() / 2**30))
    out = {}
    for name, nd, k in DATA_ARRAYS:
        shp = (nworld,) + shapes[name]
        assert len(shp) == nd, name
        out[name] = np.zeros(shp, dtype=np.float64 if k == 'f' else np.int32)
    return out


def _memory_bytes():
    """Physical memory of the machine (bytes; 2**62 when unknown)."""
    try:
        return os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES')
    except (ValueError, OSError, AttributeError):
        return 2**62


def make_data_struct(arrays):
    """Wrap Data arrays (shared buffers) in the jitted Data struct."""
    from sim.jit.structs import new_data
    return new_data(*[arrays[n] for n, _, _ in DATA_ARRAYS])
