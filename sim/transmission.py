"""Actuator transmissions (mj_transmission): actuator_length (nu,) and sparse actuator_moment rows."""
from numba import njit

from sim.math import normalize4, quat2vel, rot_vec_quat, mat_vec3, cross
from sim.types import (TRN_JOINT, TRN_TENDON, TRN_SITE, JNT_SLIDE, JNT_HINGE, JNT_BALL,
                       OPT_DISABLE, DSBL_ACTUATION)


@njit(cache=True)
def transmission(m, d, w):
    """actuator_length (nu,), actuator_moment (nJmom,) with moment_rownnz/rowadr/colind (nu,), as mj_transmission."""
    if m.nu == 0:
        return
    length = d.actuator_length[w]
    moment = d.actuator_moment[w]
    rownnz = d.moment_rownnz[w]
    rowadr = d.moment_rowadr[w]
    colind = d.moment_colind[w]
    qpos = d.qpos[w]
    for i in range(m.nu):
        rowadr[i] = 0 if i == 0 else rowadr[i - 1] + rownnz[i - 1]
        adr = rowadr[i]
        idx = m.actuator_trnid[i, 0]
        gear = m.actuator_gear[i]
        tt = m.actuator_trntype[i]
        if tt == TRN_TENDON:
            length[i] = d.ten_length[w][idx] * gear[0]
            n = m.ten_J_rownnz[idx]
            ra = m.ten_J_rowadr[idx]
            rownnz[i] = n
            tj = d.ten_J[w]
            for t in range(n):
                colind[adr + t] = m.ten_J_colind[ra + t]
                moment[adr + t] = tj[ra + t] * gear[0]
        elif tt == TRN_SITE:
            # moment = jacp' (R gear_trans) + jacr' (R gear_rot), compressed to non-zeros
            length[i] = 0.0
            row = d.scr_nv[w][4]
            row[:] = 0.0
            sxm = d.site_xmat[w][idx]
            sxp = d.site_xpos[w][idx]
            f0, f1, f2 = mat_vec3(sxm, gear[0], gear[1], gear[2])
            t0, t1, t2 = mat_vec3(sxm, gear[3], gear[4], gear[5])
            body = m.site_bodyid[idx]
            cdof = d.cdof[w]
            sc = d.subtree_com[w]
            r = m.body_rootid[body]
            o0 = sxp[0] - sc[r, 0]; o1 = sxp[1] - sc[r, 1]; o2 = sxp[2] - sc[r, 2]
            b = m.body_weldid[body]
            if m.body_dofnum[b] > 0:
                j = m.body_dofadr[b] + m.body_dofnum[b] - 1
                while j >= 0:
                    c = cdof[j]
                    x0, x1, x2 = cross(c[0], c[1], c[2], o0, o1, o2)
                    row[j] = ((c[3] + x0) * f0 + (c[4] + x1) * f1 + (c[5] + x2) * f2) + \
                             (c[0] * t0 + c[1] * t1 + c[2] * t2)
                    j = m.dof_parentid[j]
            nnz = 0
            for j in range(m.nv):
                if row[j] != 0.0:
                    moment[adr + nnz] = row[j]
                    colind[adr + nnz] = j
                    nnz += 1
            rownnz[i] = nnz
        else:
            # joint / jointinparent
            jt = m.jnt_type[idx]
            qa = m.jnt_qposadr[idx]
            da = m.jnt_dofadr[idx]
            if jt == JNT_SLIDE or jt == JNT_HINGE:
                rownnz[i] = 1
                colind[adr] = da
                length[i] = qpos[qa] * gear[0]
                moment[adr] = gear[0]
            elif jt == JNT_BALL:
                q0, q1, q2, q3 = normalize4(qpos[qa], qpos[qa + 1], qpos[qa + 2], qpos[qa + 3])
                a0, a1, a2 = quat2vel(q0, q1, q2, q3, 1.0)
                if tt == TRN_JOINT:
                    g0 = gear[0]; g1 = gear[1]; g2 = gear[2]
                else:
                    g0, g1, g2 = rot_vec_quat(gear[0], gear[1], gear[2], q0, -q1, -q2, -q3)
                length[i] = a0 * g0 + a1 * g1 + a2 * g2
                for k in range(3):
                    colind[adr + k] = da + k
                rownnz[i] = 3
                moment[adr] = g0; moment[adr + 1] = g1; moment[adr + 2] = g2
            else:
                length[i] = 0.0
                if tt == TRN_JOINT:
                    g0 = gear[3]; g1 = gear[4]; g2 = gear[5]
                else:
                    q0, q1, q2, q3 = normalize4(qpos[qa + 3], qpos[qa + 4], qpos[qa + 5], qpos[qa + 6])
                    g0, g1, g2 = rot_vec_quat(gear[3], gear[4], gear[5], q0, -q1, -q2, -q3)
                for k in range(6):
                    colind[adr + k] = da + k
                rownnz[i] = 6
                moment[adr] = gear[0]; moment[adr + 1] = gear[1]; moment[adr + 2] = gear[2]
                moment[adr + 3] = g0; moment[adr + 4] = g1; moment[adr + 5] = g2


@njit(cache=True)
def actuator_velocity(m, d, w):
    """actuator_velocity (nu,) = moment qvel (sparse), zero if actuation disabled (mj_fwdVelocity)."""
    vel = d.actuator_velocity[w]
    if int(m.opt[OPT_DISABLE]) & DSBL_ACTUATION:
        vel[:] = 0.0
        return
    moment = d.actuator_moment[w]
    rownnz = d.moment_rownnz[w]
    rowadr = d.moment_rowadr[w]
    colind = d.moment_colind[w]
    qvel = d.qvel[w]
    for i in range(m.nu):
        s = 0.0
        a = rowadr[i]
        for t in range(rownnz[i]):
            s += moment[a + t] * qvel[colind[a + t]]
        vel[i] = s
