"""Forward kinematics (mj_kinematics1/2, mj_local2Global): body, inertial, geom and site frames."""

from sim.jit import njit

from sim.engine.math import normalize4, mul_quat, rot_vec_quat, axis_angle_quat, quat2mat, mat_vec3
from sim.constants import JNT_FREE, JNT_BALL, JNT_SLIDE


@njit(cache=True, always_inline=True)
def local_to_global(xpos_out, xmat_out, k, pos, quat, xpos, xquat, xmat, xipos, ximat, b, sameframe):
    """row k of xpos_out (n,3) / xmat_out (n,9) from local pos/quat rows k and body b's frame (mj_local2Global)."""
    if sameframe == 1:
        for j in range(3):
            xpos_out[k, j] = xpos[b, j]
    elif sameframe == 2:
        for j in range(3):
            xpos_out[k, j] = xipos[b, j]
    else:
        p0, p1, p2 = mat_vec3(xmat[b], pos[k, 0], pos[k, 1], pos[k, 2])
        xpos_out[k, 0] = p0 + xpos[b, 0]
        xpos_out[k, 1] = p1 + xpos[b, 1]
        xpos_out[k, 2] = p2 + xpos[b, 2]
    if sameframe == 0:
        q0, q1, q2, q3 = mul_quat(
            xquat[b, 0], xquat[b, 1], xquat[b, 2], xquat[b, 3], quat[k, 0], quat[k, 1], quat[k, 2], quat[k, 3]
        )
        quat2mat(xmat_out[k], q0, q1, q2, q3)
    elif sameframe == 1 or sameframe == 3:
        for j in range(9):
            xmat_out[k, j] = xmat[b, j]
    else:
        for j in range(9):
            xmat_out[k, j] = ximat[b, j]


@njit(cache=True)
def kinematics_arrays(m):
    """The model arrays kinematics reads, fetched once (kinematics and the SIMD kinematics_block)."""
    return (
        m.body_jntadr,
        m.body_jntnum,
        m.body_parentid,
        m.body_mocapid,
        m.body_pos,
        m.body_quat,
        m.jnt_type,
        m.jnt_qposadr,
        m.jnt_axis,
        m.jnt_pos,
    )


@njit(cache=True)
def kinematics(m, d, w):
    """xpos/xquat/xmat (nbody,3/4/9), xanchor/xaxis (njnt,3), xipos/ximat, geom_x*, site_x* (mj_kinematics)."""
    # model arrays read once: every structref field access costs a reference-count round trip
    (
        body_jntadr,
        body_jntnum,
        body_parentid,
        body_mocapid,
        body_pos,
        body_quat,
        jnt_type,
        jnt_qposadr,
        jnt_axis,
        jnt_pos,
    ) = kinematics_arrays(m)
    qpos = d.qpos[w]
    xpos = d.xpos[w]
    xquat = d.xquat[w]
    xmat = d.xmat[w]
    xanchor = d.xanchor[w]
    xaxis = d.xaxis[w]
    mocap_pos = d.mocap_pos[w]
    mocap_quat = d.mocap_quat[w]
    qpos0 = m.qpos0
    xpos[0, 0] = 0.0
    xpos[0, 1] = 0.0
    xpos[0, 2] = 0.0
    xquat[0, 0] = 1.0
    xquat[0, 1] = 0.0
    xquat[0, 2] = 0.0
    xquat[0, 3] = 0.0
    quat2mat(xmat[0], 1.0, 0.0, 0.0, 0.0)
    for j in range(3):
        d.xipos[w][0, j] = 0.0
    quat2mat(d.ximat[w][0], 1.0, 0.0, 0.0, 0.0)
    for i in range(1, m.nbody):
        jntadr = body_jntadr[i]
        jntnum = body_jntnum[i]
        if jntnum == 1 and jnt_type[jntadr] == JNT_FREE:
            # free joint: position and orientation straight from qpos
            qa = jnt_qposadr[jntadr]
            p0 = qpos[qa]
            p1 = qpos[qa + 1]
            p2 = qpos[qa + 2]
            q0, q1, q2, q3 = normalize4(qpos[qa + 3], qpos[qa + 4], qpos[qa + 5], qpos[qa + 6])
            xanchor[jntadr, 0] = p0
            xanchor[jntadr, 1] = p1
            xanchor[jntadr, 2] = p2
            xaxis[jntadr, 0] = jnt_axis[jntadr, 0]
            xaxis[jntadr, 1] = jnt_axis[jntadr, 1]
            xaxis[jntadr, 2] = jnt_axis[jntadr, 2]
        else:
            pid = body_parentid[i]
            mid = body_mocapid[i]
            if mid >= 0:
                b0 = mocap_pos[mid, 0]
                b1 = mocap_pos[mid, 1]
                b2 = mocap_pos[mid, 2]
                c0, c1, c2, c3 = normalize4(
                    mocap_quat[mid, 0], mocap_quat[mid, 1], mocap_quat[mid, 2], mocap_quat[mid, 3]
                )
            else:
                b0 = body_pos[i, 0]
                b1 = body_pos[i, 1]
                b2 = body_pos[i, 2]
                c0 = body_quat[i, 0]
                c1 = body_quat[i, 1]
                c2 = body_quat[i, 2]
                c3 = body_quat[i, 3]
            if pid != 0:
                p0, p1, p2 = mat_vec3(xmat[pid], b0, b1, b2)
                p0 += xpos[pid, 0]
                p1 += xpos[pid, 1]
                p2 += xpos[pid, 2]
                q0, q1, q2, q3 = mul_quat(xquat[pid, 0], xquat[pid, 1], xquat[pid, 2], xquat[pid, 3], c0, c1, c2, c3)
            else:
                p0 = b0
                p1 = b1
                p2 = b2
                q0 = c0
                q1 = c1
                q2 = c2
                q3 = c3
            for jid in range(jntadr, jntadr + jntnum):
                qa = jnt_qposadr[jid]
                jt = jnt_type[jid]
                ax = jnt_axis[jid]
                jp = jnt_pos[jid]
                x0, x1, x2 = rot_vec_quat(ax[0], ax[1], ax[2], q0, q1, q2, q3)
                a0, a1, a2 = rot_vec_quat(jp[0], jp[1], jp[2], q0, q1, q2, q3)
                a0 += p0
                a1 += p1
                a2 += p2
                if jt == JNT_SLIDE:
                    s = qpos[qa] - qpos0[qa]
                    p0 += x0 * s
                    p1 += x1 * s
                    p2 += x2 * s
                else:
                    if jt == JNT_BALL:
                        l0, l1, l2, l3 = normalize4(qpos[qa], qpos[qa + 1], qpos[qa + 2], qpos[qa + 3])
                    else:
                        l0, l1, l2, l3 = axis_angle_quat(ax[0], ax[1], ax[2], qpos[qa] - qpos0[qa])
                    q0, q1, q2, q3 = mul_quat(q0, q1, q2, q3, l0, l1, l2, l3)
                    v0, v1, v2 = rot_vec_quat(jp[0], jp[1], jp[2], q0, q1, q2, q3)
                    p0 = a0 - v0
                    p1 = a1 - v1
                    p2 = a2 - v2
                xanchor[jid, 0] = a0
                xanchor[jid, 1] = a1
                xanchor[jid, 2] = a2
                xaxis[jid, 0] = x0
                xaxis[jid, 1] = x1
                xaxis[jid, 2] = x2
        q0, q1, q2, q3 = normalize4(q0, q1, q2, q3)
        xquat[i, 0] = q0
        xquat[i, 1] = q1
        xquat[i, 2] = q2
        xquat[i, 3] = q3
        xpos[i, 0] = p0
        xpos[i, 1] = p1
        xpos[i, 2] = p2
        quat2mat(xmat[i], q0, q1, q2, q3)

    # part 2: inertial frames, geoms, sites
    xipos = d.xipos[w]
    ximat = d.ximat[w]
    for i in range(1, m.nbody):
        local_to_global(
            xipos, ximat, i, m.body_ipos, m.body_iquat, xpos, xquat, xmat, xipos, ximat, i, m.body_sameframe[i]
        )
    gx = d.geom_xpos[w]
    gm = d.geom_xmat[w]
    for g in range(m.ngeom):
        local_to_global(
            gx, gm, g, m.geom_pos, m.geom_quat, xpos, xquat, xmat, xipos, ximat, m.geom_bodyid[g], m.geom_sameframe[g]
        )
    sx = d.site_xpos[w]
    sm = d.site_xmat[w]
    for s in range(m.nsite):
        local_to_global(
            sx, sm, s, m.site_pos, m.site_quat, xpos, xquat, xmat, xipos, ximat, m.site_bodyid[s], m.site_sameframe[s]
        )
