"""The mass-dependent constants of mj_setConst (engine_setconst.c), one kernel for the MJCF compiler and for domain
randomisation (a world's own Model struct after its inertial fields changed).

    set_const(m, d, w, body_simple, own_bias, F)   body_subtreemass (setFixed), dof_M0 (mj_setM0), body / dof /
                                                   tendon invweight0 and actuator_acc0 (set0), and the dampratio
                                                   of position actuators when own_bias

The sums are MuJoCo's (mju_dot's four partial sums, mj_solveLD's order), so the constants are its numbers bit for bit.
The rest of mj_setConst (lengths at qpos0, equality anchors, camera and light poses, statistics, spring lengths)
runs once at load, in sim/compiler/setconst.py.

    length_range_force(m, d, w, index, side, accel, maxforce, F)
                                                   the force evalAct (mj_setLengthRange's simulation) applies
                                                   to drive actuator `index`'s length down (side 0) or up (1)
"""

import math

from sim.jit import njit
from sim.constants import MINVAL
from sim.engine.kinematics import kinematics
from sim.engine.com import com_pos
from sim.engine.tendon import tendon_if
from sim.engine.crb import crb, tendon_armature, factor_m, solve_m
from sim.engine.transmission import transmission
from sim.engine.jacobian import jac
from sim.engine.math import mul_inert_vec
from sim.engine.solver import dot_scalar as dot
from sim.engine.stages import smooth_core


@njit
def _row_inv_row(m, d, w, row, x):
    """row' M^-1 row for a dense row (nv,), x scratch (nv,) (mj_solveM, then mju_dot)."""
    x[:] = row
    solve_m(m, d, w, x)
    return dot(row, x, m.nv)


@njit
def set_const(m, d, w, body_simple, own_bias, F):
    """mj_setConst's mass-dependent constants of Model struct m, written in place; world w of d is scratch, left
    at qpos0 with kinematics, com, tendons, crb, the factor of M and transmissions done (what the compiler reads
    next). body_simple (nbody,) int32; own_bias: also turn dampratios into biasprm[2] (m's biasprm is its own)."""
    nv = m.nv
    sub = m.body_subtreemass
    for i in range(m.nbody):
        sub[i] = m.body_mass[i]
    for i in range(m.nbody - 1, 0, -1):
        sub[m.body_parentid[i]] += sub[i]
    qpos = d.qpos[w]
    for i in range(m.nq):
        qpos[i] = m.qpos0[i]
    kinematics(m, d, w)
    com_pos(m, d, w)
    # mj_setM0: armature plus the composite inertia each dof sees
    crb(m, d, w)
    c = d.crb[w]
    cdof = d.cdof[w]
    for i in range(nv):
        cd = cdof[i]
        b0, b1, b2, b3, b4, b5 = mul_inert_vec(c[m.dof_bodyid[i]], cd)
        # mju_dot(cdof, crb * cdof, 6): the partial sums s0..s3, then the last two products
        s0 = 0.0
        s1 = 0.0
        s2 = 0.0
        s3 = 0.0
        s0 += cd[0] * b0
        s1 += cd[1] * b1
        s2 += cd[2] * b2
        s3 += cd[3] * b3
        res = (s0 + s2) + (s1 + s3)
        res += cd[4] * b4 + cd[5] * b5
        m.dof_M0[i] = m.dof_armature_eff[i] + res
    tendon_if(F, m, d, w)
    crb(m, d, w)
    tendon_armature(m, d, w)
    factor_m(m, d, w)
    transmission(m, d, w, F)
    # set0: body_invweight0, the mean diagonals of J M^-1 J' at the body's COM (mj_jacBodyCom)
    J = d.scr_nv[w]  # (6, nv)
    x = d.scr_deriv[w, 0]  # (nv,)
    iw = m.body_invweight0
    iw[0, 0] = 0.0
    iw[0, 1] = 0.0
    xipos = d.xipos[w]
    for i in range(1, m.nbody):
        if m.body_dofnum[m.body_weldid[i]] == 0:
            iw[i, 0] = 0.0
            iw[i, 1] = 0.0
        elif body_simple[i] == 2:
            iw[i, 0] = 1.0 / max(MINVAL, m.body_mass[i])
            iw[i, 1] = 0.0
        else:
            jac(m, d, w, i, xipos[i, 0], xipos[i, 1], xipos[i, 2], J[0:3], J[3:6], True)
            a0 = _row_inv_row(m, d, w, J[0], x)
            a1 = _row_inv_row(m, d, w, J[1], x)
            a2 = _row_inv_row(m, d, w, J[2], x)
            a3 = _row_inv_row(m, d, w, J[3], x)
            a4 = _row_inv_row(m, d, w, J[4], x)
            a5 = _row_inv_row(m, d, w, J[5], x)
            iw[i, 0] = (a0 + a1 + a2) / 3
            iw[i, 1] = (a3 + a4 + a5) / 3
    # dof_invweight0: the mean diagonal of each joint's block of M^-1
    div = m.dof_invweight0
    for j in range(m.njnt):
        adr = m.jnt_dofadr[j]
        if body_simple[m.jnt_bodyid[j]] == 2:
            div[adr] = 1.0 / max(MINVAL, m.body_mass[m.jnt_bodyid[j]])
            continue
        jt = m.jnt_type[j]
        n = 6 if jt == 0 else (3 if jt == 1 else 1)
        s0 = 0.0
        s1 = 0.0
        for k in range(n):
            x[:] = 0.0
            x[adr + k] = 1.0
            solve_m(m, d, w, x)
            if k < 3:
                s0 += x[adr + k]
            else:
                s1 += x[adr + k]
        if n == 6:
            for k in range(3):
                div[adr + k] = s0 / 3
                div[adr + 3 + k] = s1 / 3
        elif n == 3:
            for k in range(3):
                div[adr + k] = s0 / 3
        else:
            div[adr] = s0
    # tendon_invweight0: J M^-1 J' of the tendon's row
    row = J[0]
    tj = d.ten_J[w]
    for i in range(m.ntendon):
        row[:] = 0.0
        for k in range(m.ten_J_rowadr[i], m.ten_J_rowadr[i] + m.ten_J_rownnz[i]):
            row[m.ten_J_colind[k]] = tj[k]
        m.tendon_invweight0[i] = _row_inv_row(m, d, w, row, x) if nv else 0.0
    # actuator_acc0: |M^-1 moment|
    mom = d.actuator_moment[w]
    rnz = d.moment_rownnz[w]
    radr = d.moment_rowadr[w]
    cind = d.moment_colind[w]
    for i in range(m.nu):
        x[:] = 0.0
        for k in range(radr[i], radr[i] + rnz[i]):
            x[cind[k]] = mom[k]
        solve_m(m, d, w, x)
        m.actuator_acc0[i] = math.sqrt(dot(x, x, nv))
    if own_bias:
        # position-like actuators whose biasprm[2] > 0 is a dampratio (3.17's mj_setConst): the reflected inertia
        # is 1 / (moment' M^-1 moment) at qpos0, 0 when that is below mjMINVAL; damping = dampratio 2 sqrt(kp mass)
        row = J[0]
        for i in range(m.nu):
            gp = m.actuator_gainprm[i]
            bp = m.actuator_biasprm[i]
            if gp[0] != -bp[1] or bp[2] <= 0:
                continue
            row[:] = 0.0
            for k in range(radr[i], radr[i] + rnz[i]):
                row[cind[k]] = mom[k]
            invmass = _row_inv_row(m, d, w, row, x) if nv else 0.0
            mass = 1.0 / invmass if invmass >= MINVAL else 0.0
            bp[2] = -(bp[2] * 2 * math.sqrt(gp[0] * mass))


@njit
def length_range_force(m, d, w, index, side, accel, maxforce, F):
    """The middle of evalAct (engine_setconst.c): the smooth position stages of mj_fwdPosition at world w's qpos
    (what mj_step1 computes before the force is read: kinematics .. factor of M, transmissions), then
    qfrc_applied (nv,) = moment * (2 side - 1) accel / |M^-1 moment|, scaled down to norm maxforce when
    maxforce > 0.  moment is actuator `index`'s dense row of actuator_moment (mju_sparse2dense)."""
    smooth_core(m, d, w, F)
    transmission(m, d, w, F)
    nv = m.nv
    row = d.scr_nv[w, 0]
    for i in range(nv):
        row[i] = 0.0
    mom = d.actuator_moment[w]
    cind = d.moment_colind[w]
    adr = d.moment_rowadr[w, index]
    for k in range(adr, adr + d.moment_rownnz[w, index]):
        row[cind[k]] = mom[k]
    # mj_solveM into qfrc_applied, then mju_norm (sqrt of mju_dot)
    frc = d.qfrc_applied[w]
    for i in range(nv):
        frc[i] = row[i]
    solve_m(m, d, w, frc)
    nrm = math.sqrt(dot(frc, frc, nv))
    s = (2 * side - 1) * accel / max(MINVAL, nrm)
    for i in range(nv):
        frc[i] = row[i] * s
    # impose maxforce
    nrm = math.sqrt(dot(frc, frc, nv))
    if maxforce > 0 and nrm > maxforce:
        s = maxforce / max(MINVAL, nrm)
        for i in range(nv):
            frc[i] *= s
