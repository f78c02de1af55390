"""Forward kinematics (mj_kinematics1/2, mj_local2Global): body, inertial, geom and site frames."""
from sim.jit import njit

from sim.math import normalize4, mul_quat, rot_vec_quat, axis_angle_quat, quat2mat, mat_vec3
from sim.types import JNT_FREE, JNT_BALL, JNT_SLIDE


@njit(cache=True)
def local_to_global(xpos_out, xmat_out, pos, quat, bxpos, bxquat, bxmat, bxipos, bximat, sameframe):
    """Frame (3,),(9,) of a child object given local pos/quat and its body frame, mj_local2Global."""
    if sameframe == 1:        # mjSAMEFRAME_BODY
        xpos_out[:] = bxpos
    elif sameframe == 2:      # mjSAMEFRAME_INERTIA
        xpos_out[:] = bxipos
    else:
        p0, p1, p2 = mat_vec3(bxmat, pos[0], pos[1], pos[2])
        xpos_out[0] = p0 + bxpos[0]
        xpos_out[1] = p1 + bxpos[1]
        xpos_out[2] = p2 + bxpos[2]
    if sameframe == 0:
        q0, q1, q2, q3 = mul_quat(bxquat[0], bxquat[1], bxquat[2], bxquat[3],
                                  quat[0], quat[1], quat[2], quat[3])
        quat2mat(xmat_out, q0, q1, q2, q3)
    elif sameframe == 1 or sameframe == 3:
        xmat_out[:] = bxmat
    else:
        xmat_out[:] = bximat


@njit(cache=True)
def kinematics(m, d, w):
    """xpos/xquat/xmat (nbody,3/4/9), xanchor/xaxis (njnt,3), xipos/ximat, geom_x*, site_x* (mj_kinematics)."""
    qpos = d.qpos[w]
    xpos = d.xpos[w]
    xquat = d.xquat[w]
    xmat = d.xmat[w]
    xanchor = d.xanchor[w]
    xaxis = d.xaxis[w]
    mocap_pos = d.mocap_pos[w]
    mocap_quat = d.mocap_quat[w]
    qpos0 = m.qpos0
    xpos[0, 0] = 0.0; xpos[0, 1] = 0.0; xpos[0, 2] = 0.0
    xquat[0, 0] = 1.0; xquat[0, 1] = 0.0; xquat[0, 2] = 0.0; xquat[0, 3] = 0.0
    quat2mat(xmat[0], 1.0, 0.0, 0.0, 0.0)
    d.xipos[w][0, :] = 0.0
    quat2mat(d.ximat[w][0], 1.0, 0.0, 0.0, 0.0)
    for i in range(1, m.nbody):
        jntadr = m.body_jntadr[i]
        jntnum = m.body_jntnum[i]
        if jntnum == 1 and m.jnt_type[jntadr] == JNT_FREE:
            # free joint: position and orientation straight from qpos
            qa = m.jnt_qposadr[jntadr]
            p0 = qpos[qa]; p1 = qpos[qa + 1]; p2 = qpos[qa + 2]
            q0, q1, q2, q3 = normalize4(qpos[qa + 3], qpos[qa + 4], qpos[qa + 5], qpos[qa + 6])
            xanchor[jntadr, 0] = p0; xanchor[jntadr, 1] = p1; xanchor[jntadr, 2] = p2
            xaxis[jntadr, 0] = m.jnt_axis[jntadr, 0]
            xaxis[jntadr, 1] = m.jnt_axis[jntadr, 1]
            xaxis[jntadr, 2] = m.jnt_axis[jntadr, 2]
        else:
            pid = m.body_parentid[i]
            mid = m.body_mocapid[i]
            if mid >= 0:
                b0 = mocap_pos[mid, 0]; b1 = mocap_pos[mid, 1]; b2 = mocap_pos[mid, 2]
                c0, c1, c2, c3 = normalize4(mocap_quat[mid, 0], mocap_quat[mid, 1],
                                            mocap_quat[mid, 2], mocap_quat[mid, 3])
            else:
                b0 = m.body_pos[i, 0]; b1 = m.body_pos[i, 1]; b2 = m.body_pos[i, 2]
                c0 = m.body_quat[i, 0]; c1 = m.body_quat[i, 1]
                c2 = m.body_quat[i, 2]; c3 = m.body_quat[i, 3]
            if pid != 0:
                p0, p1, p2 = mat_vec3(xmat[pid], b0, b1, b2)
                p0 += xpos[pid, 0]; p1 += xpos[pid, 1]; p2 += xpos[pid, 2]
                q0, q1, q2, q3 = mul_quat(xquat[pid, 0], xquat[pid, 1], xquat[pid, 2], xquat[pid, 3],
                                          c0, c1, c2, c3)
            else:
                p0 = b0; p1 = b1; p2 = b2
                q0 = c0; q1 = c1; q2 = c2; q3 = c3
            for jid in range(jntadr, jntadr + jntnum):
                qa = m.jnt_qposadr[jid]
                jt = m.jnt_type[jid]
                ax = m.jnt_axis[jid]
                jp = m.jnt_pos[jid]
                x0, x1, x2 = rot_vec_quat(ax[0], ax[1], ax[2], q0, q1, q2, q3)
                a0, a1, a2 = rot_vec_quat(jp[0], jp[1], jp[2], q0, q1, q2, q3)
                a0 += p0; a1 += p1; a2 += p2
                if jt == JNT_SLIDE:
                    s = qpos[qa] - qpos0[qa]
                    p0 += x0 * s; p1 += x1 * s; p2 += x2 * s
                else:
                    if jt == JNT_BALL:
                        l0, l1, l2, l3 = normalize4(qpos[qa], qpos[qa + 1], qpos[qa + 2], qpos[qa + 3])
                    else:
                        l0, l1, l2, l3 = axis_angle_quat(ax[0], ax[1], ax[2], qpos[qa] - qpos0[qa])
                    q0, q1, q2, q3 = mul_quat(q0, q1, q2, q3, l0, l1, l2, l3)
                    v0, v1, v2 = rot_vec_quat(jp[0], jp[1], jp[2], q0, q1, q2, q3)
                    p0 = a0 - v0; p1 = a1 - v1; p2 = a2 - v2
                xanchor[jid, 0] = a0; xanchor[jid, 1] = a1; xanchor[jid, 2] = a2
                xaxis[jid, 0] = x0; xaxis[jid, 1] = x1; xaxis[jid, 2] = x2
        q0, q1, q2, q3 = normalize4(q0, q1, q2, q3)
        xquat[i, 0] = q0; xquat[i, 1] = q1; xquat[i, 2] = q2; xquat[i, 3] = q3
        xpos[i, 0] = p0; xpos[i, 1] = p1; xpos[i, 2] = p2
        quat2mat(xmat[i], q0, q1, q2, q3)

    # part 2: inertial frames, geoms, sites
    xipos = d.xipos[w]
    ximat = d.ximat[w]
    for i in range(1, m.nbody):
        local_to_global(xipos[i], ximat[i], m.body_ipos[i], m.body_iquat[i],
                        xpos[i], xquat[i], xmat[i], xipos[i], ximat[i], m.body_sameframe[i])
    gx = d.geom_xpos[w]
    gm = d.geom_xmat[w]
    for g in range(m.ngeom):
        b = m.geom_bodyid[g]
        local_to_global(gx[g], gm[g], m.geom_pos[g], m.geom_quat[g],
                        xpos[b], xquat[b], xmat[b], xipos[b], ximat[b], m.geom_sameframe[g])
    sx = d.site_xpos[w]
    sm = d.site_xmat[w]
    for s in range(m.nsite):
        b = m.site_bodyid[s]
        local_to_global(sx[s], sm[s], m.site_pos[s], m.site_quat[s],
                        xpos[b], xquat[b], xmat[b], xipos[b], ximat[b], m.site_sameframe[s])
