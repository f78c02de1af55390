"""Integrators: semi-implicit Euler with implicit joint damping (mj_Euler), RK4 (mj_RungeKutta),
implicitfast (mj_implicit with mjINT_IMPLICITFAST), and the shared state advance (mj_advance)."""
from numba import njit

from sim.math import quat_integrate, d_poly_force
from sim.crb import factor_i, solve_ld
from sim.actuation import next_activation, actuator_disabled
from sim.types import (JNT_FREE, JNT_BALL, OPT_TIMESTEP, OPT_DISABLE, DSBL_EULERDAMP, DSBL_DAMPER,
                       DSBL_SPRING, DSBL_ACTUATION, BIAS_AFFINE, GAIN_AFFINE, DYN_NONE)


@njit(cache=True)
def integrate_pos(m, qpos, qvel, h):
    """In-place qpos (nq,) += h*qvel (nv,) on the joint manifold, as mj_integratePos."""
    for j in range(m.njnt):
        pa = m.jnt_qposadr[j]
        va = m.jnt_dofadr[j]
        jt = m.jnt_type[j]
        if jt == JNT_FREE or jt == JNT_BALL:
            if jt == JNT_FREE:
                qpos[pa] += h * qvel[va]
                qpos[pa + 1] += h * qvel[va + 1]
                qpos[pa + 2] += h * qvel[va + 2]
                pa += 3
                va += 3
            quat_integrate(qpos[pa:pa + 4], qvel[va], qvel[va + 1], qvel[va + 2], h)
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
    qvel = d.qvel[w]
    for i in range(m.nv):
        qvel[i] += qacc[i] * h
    if use_qvel_step:
        integrate_pos(m, d.qpos[w], qvel_step, h)
    else:
        integrate_pos(m, d.qpos[w], qvel, h)
    d.time[w] += h
    d.qacc_warmstart[w][:] = d.qacc[w]


@njit(cache=True)
def euler(m, d, w):
    """Semi-implicit Euler step; dof damping integrated implicitly unless eulerdamp/damper disabled (mj_Euler)."""
    qacc = d.scr_nv[w][0]
    flags = int(m.opt[OPT_DISABLE])
    damp = False
    if not (flags & DSBL_EULERDAMP) and not (flags & DSBL_DAMPER):
        for i in range(m.nv):
            if m.dof_eulerdamp[i]:
                damp = True
                break
    if not damp:
        qacc[:] = d.qacc[w]
    else:
        qH = d.qH[w]
        M = d.M[w]
        for k in range(m.nC):
            qH[k] = M[k]
        h = m.opt[OPT_TIMESTEP]
        qvel = d.qvel[w]
        for i in range(m.nv):
            dd = d_poly_force(m.dof_damping_eff[i], m.dof_dampingpoly_eff[i, 0],
                              m.dof_dampingpoly_eff[i, 1], qvel[i], True)
            qH[m.M_rowadr[i] + m.M_rownnz[i] - 1] += h * dd
        factor_i(qH, d.qHDiagInv[w], m.nv, m.M_rownnz, m.M_rowadr, m.M_colind)
        fs = d.qfrc_smooth[w]
        fc = d.qfrc_constraint[w]
        for i in range(m.nv):
            qacc[i] = fs[i] + fc[i]
        solve_ld(qacc, qH, d.qHDiagInv[w], m.nv, m.M_rownnz, m.M_rowadr, m.M_colind)
    advance(m, d, w, d.act_dot[w], qacc, qacc, False)


@njit(cache=True)
def _add_jtbj(m, qH, b, vals, cols, n, scale):
    """qH (nC, lower CSR) += scale*b * J'J restricted to the M sparsity pattern, for one sparse row J."""
    for p in range(n):
        i = cols[p]
        ra = m.M_rowadr[i]
        rn = m.M_rownnz[i]
        for q in range(n):
            j = cols[q]
            if j > i:
                continue
            for t in range(rn):
                if m.M_colind[ra + t] == j:
                    qH[ra + t] += scale * b * vals[p] * vals[q]
                    break


@njit(cache=True)
def implicit_fast(m, d, w):
    """implicitfast step: (M - h*dF/dqvel) qacc = qfrc, derivative of passive damping and actuators only."""
    h = m.opt[OPT_TIMESTEP]
    flags = int(m.opt[OPT_DISABLE])
    qH = d.qH[w]
    M = d.M[w]
    for k in range(m.nC):
        qH[k] = M[k]
    qvel = d.qvel[w]
    # actuator velocity derivatives (mjd_actuator_vel): qDeriv += moment' * dforce/dvel * moment
    if not (flags & DSBL_ACTUATION):
        force = d.actuator_force[w]
        moment = d.actuator_moment[w]
        rownnz = d.moment_rownnz[w]
        rowadr = d.moment_rowadr[w]
        colind = d.moment_colind[w]
        for i in range(m.nu):
            if actuator_disabled(m, i):
                continue
            if m.actuator_forcelimited[i]:
                if force[i] <= m.actuator_forcerange[i, 0] or force[i] >= m.actuator_forcerange[i, 1]:
                    continue
            bv = 0.0
            if m.actuator_biastype[i] == BIAS_AFFINE:
                bv = m.actuator_biasprm[i, 2]
            if m.actuator_gaintype[i] == GAIN_AFFINE:
                gv = m.actuator_gainprm[i, 2]
                if gv != 0.0:
                    if m.actuator_dyntype[i] == DYN_NONE:
                        bv += gv * d.ctrl[w][i]
                    else:
                        aa = m.actuator_actadr[i] + m.actuator_actnum[i] - 1
                        av = d.act[w][aa]
                        if m.actuator_actearly[i]:
                            av = next_activation(m, d, w, i, aa, d.act_dot[w][aa])
                        bv += gv * av
            if bv != 0.0:
                a = rowadr[i]
                _add_jtbj(m, qH, bv, moment[a:a + rownnz[i]], colind[a:a + rownnz[i]], rownnz[i], -h)
    # passive damping derivatives (mjd_passive_vel, without fluid)
    if not ((flags & DSBL_SPRING) and (flags & DSBL_DAMPER)) and not (flags & DSBL_DAMPER):
        for i in range(m.nv):
            dd = d_poly_force(m.dof_damping_eff[i], m.dof_dampingpoly_eff[i, 0],
                              m.dof_dampingpoly_eff[i, 1], qvel[i], True)
            qH[m.M_rowadr[i] + m.M_rownnz[i] - 1] += h * dd
        tv = d.ten_velocity[w]
        J = d.ten_J[w]
        for t in range(m.ntendon):
            B = -d_poly_force(m.tendon_damping_eff[t], m.tendon_dampingpoly_eff[t, 0],
                              m.tendon_dampingpoly_eff[t, 1], tv[t], True)
            if B == 0.0:
                continue
            ra = m.ten_J_rowadr[t]
            n = m.ten_J_rownnz[t]
            _add_jtbj(m, qH, B, J[ra:ra + n], m.ten_J_colind[ra:ra + n], n, -h)
    factor_i(qH, d.qHDiagInv[w], m.nv, m.M_rownnz, m.M_rowadr, m.M_colind)
    qacc = d.scr_nv[w][0]
    fs = d.qfrc_smooth[w]
    fc = d.qfrc_constraint[w]
    for i in range(m.nv):
        qacc[i] = fs[i] + fc[i]
    solve_ld(qacc, qH, d.qHDiagInv[w], m.nv, m.M_rownnz, m.M_rowadr, m.M_colind)
    advance(m, d, w, d.act_dot[w], qacc, qacc, False)
