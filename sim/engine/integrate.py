"""Integrators: semi-implicit Euler with implicit joint damping (mj_Euler), RK4 (mj_RungeKutta),
implicit and implicitfast (mj_implicit), and the shared state advance (mj_advance)."""

from sim.jit import njit

from sim.engine.math import quat_integrate, d_poly_force
from sim.engine.crb import factor_i, solve_ld, warn_inertia
from sim.engine.actuation import next_activation, actuator_disabled, wrap_period, wrap_setpoint
from sim.engine.derivative import smooth_vel, factor_lu_sparse, solve_lu_sparse, free_mhat, solve_lu6, is_free_body
from sim.constants import (
    JNT_FREE,
    JNT_BALL,
    OPT_TIMESTEP,
    OPT_DISABLE,
    OPT_INTEGRATOR,
    INT_IMPLICIT,
    DSBL_EULERDAMP,
    DSBL_DAMPER,
    DSBL_ACTUATION,
    DYN_INTEGRATOR,
)


@njit(cache=True)
def joint_addr(m, j):
    """(qpos address, dof address, type) of joint j: the start of every per-joint walk over qpos and qvel."""
    return m.jnt_qposadr[j], m.jnt_dofadr[j], m.jnt_type[j]


@njit(cache=True)
def integrate_pos(m, qpos, qvel, h):
    """In-place qpos (nq,) += h*qvel (nv,) on the joint manifold, as mj_integratePos."""
    for j in range(m.njnt):
        pa, va, jt = joint_addr(m, j)
        if jt == JNT_FREE or jt == JNT_BALL:
            if jt == JNT_FREE:
                qpos[pa] += h * qvel[va]
                qpos[pa + 1] += h * qvel[va + 1]
                qpos[pa + 2] += h * qvel[va + 2]
                pa += 3
                va += 3
            quat_integrate(qpos[pa : pa + 4], qvel[va], qvel[va + 1], qvel[va + 2], h)
        else:
            qpos[pa] += h * qvel[va]


@njit(cache=True)
def advance(m, d, w, act_dot, qacc, qvel_step, use_qvel_step):
    """Advance act (na,), qvel, qpos, time by one timestep, as mj_advance (no history/sleep/plugins)."""
    h = m.opt[OPT_TIMESTEP]
    act = d.act[w]
    if m.na and not (int(m.opt[OPT_DISABLE]) & DSBL_ACTUATION):
        for i in range(m.nu):
            a0 = m.actuator_actadr[i]
            if a0 < 0:
                continue
            dis = actuator_disabled(m, i)
            for j in range(a0, a0 + m.actuator_actnum[i]):
                act[j] = next_activation(m, d, w, i, j, 0.0 if dis else act_dot[j])
        # integrated rotational setpoints: the representative nearest the length (mj_advance)
        for i in range(m.nu):
            if m.actuator_dyntype[i] != DYN_INTEGRATOR:
                continue
            period = wrap_period(m, i)
            if period > 0:
                j = m.actuator_actadr[i] + m.actuator_actnum[i] - 1
                act[j] = wrap_setpoint(act[j], d.actuator_length[w, i], period)
    qvel = d.qvel[w]
    for i in range(m.nv):
        qvel[i] += qacc[i] * h
    if use_qvel_step:
        integrate_pos(m, d.qpos[w], qvel_step, h)
    else:
        integrate_pos(m, d.qpos[w], qvel, h)
    d.time[w] += h
    for i in range(m.nv):
        d.qacc_warmstart[w, i] = d.qacc[w, i]


@njit(cache=True)
def euler(m, d, w, skipfactor):
    """Semi-implicit Euler step; dof damping integrated implicitly unless eulerdamp/damper disabled (mj_Euler);
    skipfactor: reuse the factor of M + h B already in qH (mj_EulerSkip)."""
    qacc = d.scr_nv[w][0]
    flags = int(m.opt[OPT_DISABLE])
    damp = False
    if not (flags & DSBL_EULERDAMP) and not (flags & DSBL_DAMPER):
        for i in range(m.nv):
            if m.dof_eulerdamp[i]:
                damp = True
                break
    if not damp:
        for i in range(m.nv):
            qacc[i] = d.qacc[w, i]
    else:
        qH = d.qH[w]
        if not skipfactor:
            M = d.M[w]
            for k in range(m.nC):
                qH[k] = M[k]
            h = m.opt[OPT_TIMESTEP]
            qvel = d.qvel[w]
            for i in range(m.nv):
                dd = d_poly_force(
                    m.dof_damping_eff[i], m.dof_dampingpoly_eff[i, 0], m.dof_dampingpoly_eff[i, 1], qvel[i], True
                )
                qH[m.M_rowadr[i] + m.M_rownnz[i] - 1] += h * dd
            warn_inertia(d, w, factor_i(qH, d.qHDiagInv[w], m.nv, m.M_rownnz, m.M_rowadr, m.M_colind))
        fs = d.qfrc_smooth[w]
        fc = d.qfrc_constraint[w]
        for i in range(m.nv):
            qacc[i] = fs[i] + fc[i]
        solve_ld(qacc, qH, d.qHDiagInv[w], m.nv, m.M_rownnz, m.M_rowadr, m.M_colind)
    advance(m, d, w, d.act_dot[w], qacc, qacc, False)


@njit(cache=True)
def implicit_fast(m, d, w, skipfactor):
    """implicit / implicitfast step (mj_implicit): qacc = (M - h*qDeriv)^-1 (qfrc_smooth + qfrc_constraint);
    skipfactor: reuse qDeriv and the factor already in qLU / qH (mj_implicitSkip).

    implicit: qDeriv includes the RNE bias derivative (non-symmetric), sparse LU in the D pattern (qLU).
    implicitfast: qDeriv without RNE, symmetrised into the M pattern (qH, L'DL); standalone free bodies are
    then re-solved locally with their full 6x6 block including the gyroscopic derivative (mjd_freeMhat)."""
    h = m.opt[OPT_TIMESTEP]
    nv = m.nv
    qfrc = d.scr_impvec[w][0]
    qacc = d.scr_impvec[w][1]
    fs = d.qfrc_smooth[w]
    fc = d.qfrc_constraint[w]
    for i in range(nv):
        qfrc[i] = fs[i] + fc[i]
    M = d.M[w]
    qd = d.qDeriv[w]
    if int(m.opt[OPT_INTEGRATOR]) == INT_IMPLICIT:
        qlu = d.qLU[w]
        if not skipfactor:
            smooth_vel(m, d, w, True)
            for k in range(m.nD):
                a = m.mapM2D[k]
                qlu[k] = M[a] if a >= 0 else 0.0
            for k in range(m.nD):
                qlu[k] += qd[k] * -h
            warn_inertia(d, w, factor_lu_sparse(qlu, nv, d.scr_luint[w], m.D_rownnz, m.D_rowadr, m.D_colind))
        solve_lu_sparse(qacc, qlu, qfrc, nv, m.D_rownnz, m.D_rowadr, m.D_diag, m.D_colind)
    else:
        qH = d.qH[w]
        if not skipfactor:
            smooth_vel(m, d, w, False)
            for k in range(m.nC):
                qH[k] = M[k] + qd[m.mapD2M[k]] * -h
            # standalone free bodies: M rows in qH (their block is solved below)
            for j in range(m.njnt):
                if m.jnt_type[j] == JNT_FREE and is_free_body(m, m.jnt_bodyid[j]):
                    for r in range(m.jnt_dofadr[j], m.jnt_dofadr[j] + 6):
                        for k in range(m.M_rowadr[r], m.M_rowadr[r] + m.M_rownnz[r]):
                            qH[k] = M[k]
            warn_inertia(d, w, factor_i(qH, d.qHDiagInv[w], nv, m.M_rownnz, m.M_rowadr, m.M_colind))
        for i in range(nv):
            qacc[i] = qfrc[i]
        solve_ld(qacc, qH, d.qHDiagInv[w], nv, m.M_rownnz, m.M_rowadr, m.M_colind)
        A = d.scr_mat6[w][0]
        for j in range(m.njnt):
            if m.jnt_type[j] == JNT_FREE and is_free_body(m, m.jnt_bodyid[j]):
                free_mhat(m, d, w, j, h, A)
                a = m.jnt_dofadr[j]
                solve_lu6(A, qfrc[a : a + 6], qacc[a : a + 6])
    advance(m, d, w, d.act_dot[w], qacc, qacc, False)


implicit = implicit_fast
