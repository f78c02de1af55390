"""Inverse dynamics (engine_inverse.c): mj_inverse, the discrete-time correction of the invdiscrete flag
(mj_discreteAcc), MuJoCo's analytic inverse of the soft constraints (mj_invConstraint: the constraint force
is the minimiser of the constraint cost at the given qacc) and mj_compareFwdInv (the fwdinv flag's
solver_fwdinv statistics, called by the pipeline after forward in mj_step).

    qfrc_inverse = M qacc + qfrc_bias - qfrc_passive - qfrc_constraint(qacc)

`inverse(m, d)` is the Python entry (one world or a batch, worlds in parallel); it has its own compiled
entry point (inverse_batch), compiled on first use.
"""

import math

import numpy as np
from numba import prange

from sim.jit import njit
from sim.jit.features import NO_FEATURES
from sim.engine.com import xfrc_accumulate
from sim.engine.transmission import transmission
from sim.engine.crb import solve_m
from sim.engine.constraint import project_constraint_if
from sim.engine.solver import constraint_update_world, _dot
from sim.engine.derivative import smooth_vel, free_mhat, is_free_body
from sim.engine.math import d_poly_force
from sim.engine.sensor import sensor_pos_stage, sensor_acc_stage, mul_sym, dot
from sim.engine.stages import position_core, fwd_velocity
from sim.jit.features import call_if, F_IMPLICIT
from sim.constants import (
    OPT_DISABLE,
    OPT_ENABLE,
    OPT_INTEGRATOR,
    OPT_TIMESTEP,
    DSBL_EULERDAMP,
    ENBL_INVDISCRETE,
    INT_EULER,
    INT_RK4,
    INT_IMPLICIT,
    JNT_FREE,
)

# rows of scr_inv_nv
_QACC, _MA, _QFRC, _QFORCE, _QFRC_C = range(5)


@njit(cache=True)
def discrete_implicit(m, d, w, qfrc):
    """qfrc (nv,) = (M - h qDeriv) qacc for implicit (sparse LU pattern) or implicitfast (symmetric, with the
    free-body blocks of mj_implicit), qDeriv / qLU / qH recomputed as mj_discreteAcc does."""
    nv = m.nv
    h = m.opt[OPT_TIMESTEP]
    qacc = d.qacc[w]
    M = d.M[w]
    qd = d.qDeriv[w]
    if int(m.opt[OPT_INTEGRATOR]) == INT_IMPLICIT:
        smooth_vel(m, d, w, True)
        qlu = d.qLU[w]
        for k in range(m.nD):
            a = m.mapM2D[k]
            qlu[k] = M[a] if a >= 0 else 0.0
        for k in range(m.nD):
            qlu[k] += qd[k] * -h
        for i in range(nv):
            adr = m.D_rowadr[i]
            s = 0.0
            for k in range(m.D_rownnz[i]):
                s += qlu[adr + k] * qacc[m.D_colind[adr + k]]
            qfrc[i] = s
    else:
        smooth_vel(m, d, w, False)
        qH = d.qH[w]
        for k in range(m.nC):
            qH[k] = M[k] + qd[m.mapD2M[k]] * -h
        mul_sym(qfrc, qH, qacc, nv, m.M_rownnz, m.M_rowadr, m.M_colind)
        A = d.scr_mat6[w][0]
        for j in range(m.njnt):
            if m.jnt_type[j] == JNT_FREE and is_free_body(m, m.jnt_bodyid[j]):
                free_mhat(m, d, w, j, h, A)
                a = m.jnt_dofadr[j]
                for r in range(6):
                    s = 0.0
                    for c in range(6):
                        s += A[6 * r + c] * qacc[a + c]
                    qfrc[a + r] = s


# the implicit integrators' derivatives are compiled only for feature sets that use them (sim/jit/features.py)
_discrete_implicit = call_if(F_IMPLICIT, discrete_implicit)


@njit(cache=True)
def discrete_acc(m, d, w, F):
    """Replace qacc by the continuous-time acceleration whose integrator step reproduces the discrete-time
    qacc (mj_discreteAcc): qacc <- M^-1 (M + h B) qacc (Euler with dof damping), M^-1 (M - h qDeriv) qacc
    (implicit, implicitfast)."""
    nv = m.nv
    h = m.opt[OPT_TIMESTEP]
    qacc = d.qacc[w]
    qfrc = d.scr_inv_nv[w, _QFRC]
    integ = int(m.opt[OPT_INTEGRATOR])
    if integ == INT_RK4:
        raise ValueError("discrete inverse dynamics is not supported by the RK4 integrator")
    if integ == INT_EULER:
        if int(m.opt[OPT_DISABLE]) & DSBL_EULERDAMP:
            return
        damp = False
        for i in range(nv):
            if m.dof_eulerdamp[i]:
                damp = True
                break
        if not damp:
            return
        mul_sym(qfrc, d.M[w], qacc, nv, m.M_rownnz, m.M_rowadr, m.M_colind)
        qvel = d.qvel[w]
        for i in range(nv):
            dd = d_poly_force(
                m.dof_damping_eff[i], m.dof_dampingpoly_eff[i, 0], m.dof_dampingpoly_eff[i, 1], qvel[i], True
            )
            qfrc[i] += h * dd * qacc[i]
    else:
        _discrete_implicit(F, m, d, w, qfrc)
    for i in range(nv):
        qacc[i] = qfrc[i]
    solve_m(m, d, w, qacc)


@njit(cache=True)
def inv_constraint(m, d, w):
    """efc_force, efc_state and qfrc_constraint = J' efc_force from the given qacc: the soft-constraint force
    law inverted analytically (mj_invConstraint / mj_constraintUpdate)."""
    nv, nefc = m.nv, d.nefc[w]
    if nefc == 0:
        d.qfrc_constraint[w][:] = 0.0
        return
    jar = d.scr_inv_efc[w, 0]
    J, qacc, aref = d.efc_J[w], d.qacc[w], d.efc_aref[w]
    for i in range(nefc):
        jar[i] = _dot(J[i], qacc, nv)
        jar[i] -= aref[i]
    constraint_update_world(m, d, w, jar, False, False, NO_FEATURES)


@njit(cache=True)
def inverse_acc(m, d, w, F, skipsensor):
    """Acceleration part of mj_inverseSkip: qfrc_inverse = M qacc + bias - passive - constraint (qacc made
    continuous-time first under invdiscrete, then restored); acceleration sensors unless skipsensor."""
    nv = m.nv
    iv = d.scr_inv_nv[w]
    qacc = d.qacc[w]
    disc = int(m.opt[OPT_ENABLE]) & ENBL_INVDISCRETE
    if disc:
        for i in range(nv):
            iv[_QACC, i] = qacc[i]
        discrete_acc(m, d, w, F)
    inv_constraint(m, d, w)
    # mj_rne(flg_acc=0) + mj_tendonBias: the velocity stage's qfrc_bias
    qi = d.qfrc_inverse[w]
    for i in range(nv):
        qi[i] = d.qfrc_bias[w, i]
    if not skipsensor:
        sensor_acc_stage(m, d, w, F)
    Ma = iv[_MA]
    mul_sym(Ma, d.M[w], qacc, nv, m.M_rownnz, m.M_rowadr, m.M_colind)
    for i in range(nv):
        qi[i] += Ma[i] - d.qfrc_passive[w, i] - d.qfrc_constraint[w, i]
    if disc:
        for i in range(nv):
            qacc[i] = iv[_QACC, i]


@njit(cache=True)
def compare_fwd_inv(m, d, w, F):
    """solver_fwdinv = (|qfrc_constraint(forward) - qfrc_constraint(inverse)|, |qfrc_applied + J'xfrc +
    qfrc_actuator - qfrc_inverse|), forward results kept (mj_compareFwdInv)."""
    nv, nefc = m.nv, d.nefc[w]
    d.solver_fwdinv[w, 0] = 0.0
    d.solver_fwdinv[w, 1] = 0.0
    if nefc == 0:
        return
    iv = d.scr_inv_nv[w]
    qforce = iv[_QFORCE]
    saved = iv[_QFRC_C]
    for i in range(nv):
        qforce[i] = d.qfrc_applied[w, i] + d.qfrc_actuator[w, i]
    xfrc_accumulate(m, d, w, qforce)
    qc = d.qfrc_constraint[w]
    ef = d.efc_force[w]
    saved_f = d.scr_inv_efc[w, 1]
    for i in range(nv):
        saved[i] = qc[i]
    for i in range(nefc):
        saved_f[i] = ef[i]
    inverse_acc(m, d, w, F, True)
    dif = iv[_QFRC]
    for i in range(nv):
        dif[i] = saved[i] - qc[i]
    d.solver_fwdinv[w, 0] = math.sqrt(dot(dif, dif, nv))
    for i in range(nv):
        dif[i] = qforce[i] - d.qfrc_inverse[w, i]
    d.solver_fwdinv[w, 1] = math.sqrt(dot(dif, dif, nv))
    for i in range(nv):
        qc[i] = saved[i]
    for i in range(nefc):
        ef[i] = saved_f[i]


@njit(cache=True)
def inverse_world(m, d, w, F):
    """mj_inverse of world w: position (mj_invPosition), velocity (mj_invVelocity = mj_fwdVelocity) and
    acceleration parts, with sensors and energy as mj_inverseSkip."""
    position_core(m, d, w, F)
    project_constraint_if(F, m, d, w)
    transmission(m, d, w, F)
    sensor_pos_stage(m, d, w, F, False, False)
    fwd_velocity(m, d, w, F, False)
    inverse_acc(m, d, w, F, False)


@njit(parallel=True, refcount=True)
def inverse_batch(m, d, nworld, F):
    """mj_inverse of worlds 0..nworld-1 in parallel (the only compiled entry per feature set F: a single world
    runs it on one thread, which saves compiling a serial copy of the whole tree)."""
    for i in prange(nworld):
        inverse_world(m, d, np.int64(i), F)  # the prange index is unsigned: one signature for the world
