"""The smooth position / velocity stages for a block of LANES worlds laid out world-minor, one world per lane.

Each kernel is the per-world kernel of sim/engine (kinematics.py, com.py, crb.py, rne.py) with every float of the
state replaced by a Vec (sim/engine/batch/simd.py): the same IEEE operations in the same order per lane, so each
world's result is bitwise the per-world kernel's.  Control flow that depends on the model only (joint types, body
tree, sparsity) stays a branch; the short-cuts that depend on the state (identity quaternion, zero angle, small
norm, a pivot raised to mjMINVAL) compute both sides and select per lane.

Arrays are one block of worlds: a Data field of per-world shape (n, k) is a C-contiguous (n*k, LANES) array (row
i*k + j holds element [i, j] of the block's LANES worlds), as `vld` / `vst` address them.  Model arrays are the
Model struct's (shared by the block's worlds).
"""

from sim.jit import njit

from sim.engine.kinematics import kinematics_arrays
from sim.engine.batch.simd import vld, vst, vsqrt, vabs, select, vsin, vcos, splat
from sim.constants import JNT_FREE, JNT_BALL, JNT_SLIDE, MINVAL, OPT_DISABLE, OPT_GRAVITY, DSBL_GRAVITY


# ------------------------------------------------------------------------------------------------------------
# small spatial helpers on Vec tuples (sim/engine/math.py)


@njit(cache=True, always_inline=True)
def v_normalize4(q0, q1, q2, q3):
    """mju_normalize4 lane-wise (normalize4)."""
    n = vsqrt(q0 * q0 + q1 * q1 + q2 * q2 + q3 * q3)
    inv = 1.0 / n
    scale = vabs(n - 1.0) > MINVAL
    tiny = n < MINVAL
    r0 = select(scale, q0 * inv, q0)
    r1 = select(scale, q1 * inv, q1)
    r2 = select(scale, q2 * inv, q2)
    r3 = select(scale, q3 * inv, q3)
    return select(tiny, 1.0, r0), select(tiny, 0.0, r1), select(tiny, 0.0, r2), select(tiny, 0.0, r3)


@njit(cache=True, always_inline=True)
def v_mul_quat(a0, a1, a2, a3, b0, b1, b2, b3):
    """mju_mulQuat lane-wise (mul_quat)."""
    return (
        a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3,
        a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2,
        a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1,
        a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0,
    )


@njit(cache=True, always_inline=True)
def v_rot_const(v0, v1, v2, q0, q1, q2, q3):
    """mju_rotVecQuat of a model vector (floats) by quaternion Vecs (rot_vec_quat)."""
    if v0 == 0.0 and v1 == 0.0 and v2 == 0.0:
        z = splat(0.0)
        return z, z, z
    t0 = q0 * v0 + q2 * v2 - q3 * v1
    t1 = q0 * v1 + q3 * v0 - q1 * v2
    t2 = q0 * v2 + q1 * v1 - q2 * v0
    ident = (q0 == 1.0) & (q1 == 0.0) & (q2 == 0.0) & (q3 == 0.0)
    return (
        select(ident, v0, v0 + 2.0 * (q2 * t2 - q3 * t1)),
        select(ident, v1, v1 + 2.0 * (q3 * t0 - q1 * t2)),
        select(ident, v2, v2 + 2.0 * (q1 * t1 - q2 * t0)),
    )


@njit(cache=True, always_inline=True)
def v_axis_angle(a0, a1, a2, angle):
    """mju_axisAngle2Quat of a model axis (floats) and angle Vec (axis_angle_quat)."""
    s = vsin(angle * 0.5)
    c = vcos(angle * 0.5)
    z = angle == 0.0
    return select(z, 1.0, c), select(z, 0.0, a0 * s), select(z, 0.0, a1 * s), select(z, 0.0, a2 * s)


@njit(cache=True, always_inline=True)
def v_quat2mat(out, r, q0, q1, q2, q3):
    """mju_quat2Mat into rows r..r+8 of out (quat2mat)."""
    ident = (q0 == 1.0) & (q1 == 0.0) & (q2 == 0.0) & (q3 == 0.0)
    q00 = q0 * q0
    q01 = q0 * q1
    q02 = q0 * q2
    q03 = q0 * q3
    q11 = q1 * q1
    q12 = q1 * q2
    q13 = q1 * q3
    q22 = q2 * q2
    q23 = q2 * q3
    q33 = q3 * q3
    vst(out, r + 0, select(ident, 1.0, q00 + q11 - q22 - q33))
    vst(out, r + 4, select(ident, 1.0, q00 - q11 + q22 - q33))
    vst(out, r + 8, select(ident, 1.0, q00 - q11 - q22 + q33))
    vst(out, r + 1, select(ident, 0.0, 2.0 * (q12 - q03)))
    vst(out, r + 2, select(ident, 0.0, 2.0 * (q13 + q02)))
    vst(out, r + 3, select(ident, 0.0, 2.0 * (q12 + q03)))
    vst(out, r + 5, select(ident, 0.0, 2.0 * (q23 - q01)))
    vst(out, r + 6, select(ident, 0.0, 2.0 * (q13 - q02)))
    vst(out, r + 7, select(ident, 0.0, 2.0 * (q23 + q01)))


@njit(cache=True, always_inline=True)
def v_mat_vec3(mat, r, v0, v1, v2):
    """Rows r..r+8 of mat (3x3) times a model vector (floats) (mat_vec3)."""
    return (
        vld(mat, r) * v0 + vld(mat, r + 1) * v1 + vld(mat, r + 2) * v2,
        vld(mat, r + 3) * v0 + vld(mat, r + 4) * v1 + vld(mat, r + 5) * v2,
        vld(mat, r + 6) * v0 + vld(mat, r + 7) * v1 + vld(mat, r + 8) * v2,
    )


@njit(cache=True, always_inline=True)
def v_cross(a0, a1, a2, b0, b1, b2):
    """Cross product (cross)."""
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


@njit(cache=True, always_inline=True)
def v_mul_inert_vec(i, ri, v, rv):
    """6D inertia rows ri..ri+9 of i times motion vector rows rv..rv+5 of v (mul_inert_vec)."""
    i0 = vld(i, ri)
    i1 = vld(i, ri + 1)
    i2 = vld(i, ri + 2)
    i3 = vld(i, ri + 3)
    i4 = vld(i, ri + 4)
    i5 = vld(i, ri + 5)
    i6 = vld(i, ri + 6)
    i7 = vld(i, ri + 7)
    i8 = vld(i, ri + 8)
    i9 = vld(i, ri + 9)
    v0 = vld(v, rv)
    v1 = vld(v, rv + 1)
    v2 = vld(v, rv + 2)
    v3 = vld(v, rv + 3)
    v4 = vld(v, rv + 4)
    v5 = vld(v, rv + 5)
    return (
        i0 * v0 + i3 * v1 + i4 * v2 - i8 * v4 + i7 * v5,
        i3 * v0 + i1 * v1 + i5 * v2 + i8 * v3 - i6 * v5,
        i4 * v0 + i5 * v1 + i2 * v2 - i7 * v3 + i6 * v4,
        i8 * v1 - i7 * v2 + i9 * v3,
        i6 * v2 - i8 * v0 + i9 * v4,
        i7 * v0 - i6 * v1 + i9 * v5,
    )


@njit(cache=True, always_inline=True)
def v_cross_motion(out, ro, v, rv, x, rx):
    """out rows ro..ro+5 = v x x for motion vectors (cross_motion)."""
    v0 = vld(v, rv)
    v1 = vld(v, rv + 1)
    v2 = vld(v, rv + 2)
    v3 = vld(v, rv + 3)
    v4 = vld(v, rv + 4)
    v5 = vld(v, rv + 5)
    x0 = vld(x, rx)
    x1 = vld(x, rx + 1)
    x2 = vld(x, rx + 2)
    x3 = vld(x, rx + 3)
    x4 = vld(x, rx + 4)
    x5 = vld(x, rx + 5)
    vst(out, ro, -v2 * x1 + v1 * x2)
    vst(out, ro + 1, v2 * x0 - v0 * x2)
    vst(out, ro + 2, -v1 * x0 + v0 * x1)
    vst(out, ro + 3, (-v2 * x4 + v1 * x5) + (-v5 * x1 + v4 * x2))
    vst(out, ro + 4, (v2 * x3 - v0 * x5) + (v5 * x0 - v3 * x2))
    vst(out, ro + 5, (-v1 * x3 + v0 * x4) + (-v4 * x0 + v3 * x1))


# ------------------------------------------------------------------------------------------------------------
# kinematics (kinematics.py)


@njit(cache=True, always_inline=True)
def _local_to_global(xpos_out, xmat_out, k, pos, quat, xpos, xquat, xmat, xipos, ximat, b, sameframe):
    """Row k of xpos_out (n*3 rows) / xmat_out (n*9 rows) from local pos / quat row k and body b
    (local_to_global)."""
    if sameframe == 1:
        for j in range(3):
            vst(xpos_out, 3 * k + j, vld(xpos, 3 * b + j))
    elif sameframe == 2:
        for j in range(3):
            vst(xpos_out, 3 * k + j, vld(xipos, 3 * b + j))
    else:
        p0, p1, p2 = v_mat_vec3(xmat, 9 * b, pos[k, 0], pos[k, 1], pos[k, 2])
        vst(xpos_out, 3 * k, p0 + vld(xpos, 3 * b))
        vst(xpos_out, 3 * k + 1, p1 + vld(xpos, 3 * b + 1))
        vst(xpos_out, 3 * k + 2, p2 + vld(xpos, 3 * b + 2))
    if sameframe == 0:
        q0, q1, q2, q3 = v_mul_quat(
            vld(xquat, 4 * b),
            vld(xquat, 4 * b + 1),
            vld(xquat, 4 * b + 2),
            vld(xquat, 4 * b + 3),
            quat[k, 0],
            quat[k, 1],
            quat[k, 2],
            quat[k, 3],
        )
        v_quat2mat(xmat_out, 9 * k, q0, q1, q2, q3)
    elif sameframe == 1 or sameframe == 3:
        for j in range(9):
            vst(xmat_out, 9 * k + j, vld(xmat, 9 * b + j))
    else:
        for j in range(9):
            vst(xmat_out, 9 * k + j, vld(ximat, 9 * b + j))


@njit(cache=True)
def kinematics_block(
    m,
    qpos,
    mocap_pos,
    mocap_quat,
    xpos,
    xquat,
    xmat,
    xanchor,
    xaxis,
    xipos,
    ximat,
    geom_xpos,
    geom_xmat,
    site_xpos,
    site_xmat,
):
    """kinematics (mj_kinematics) of one block: xpos/xquat/xmat, xanchor/xaxis, xipos/ximat, geom_x*, site_x*."""
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
    qpos0 = m.qpos0
    for j in range(3):
        vst(xpos, j, 0.0)
        vst(xipos, j, 0.0)
    vst(xquat, 0, 1.0)
    vst(xquat, 1, 0.0)
    vst(xquat, 2, 0.0)
    vst(xquat, 3, 0.0)
    for j in range(9):
        vst(xmat, j, 1.0 if j % 4 == 0 else 0.0)
        vst(ximat, j, 1.0 if j % 4 == 0 else 0.0)
    for i in range(1, m.nbody):
        jntadr = body_jntadr[i]
        jntnum = body_jntnum[i]
        if jntnum == 1 and jnt_type[jntadr] == JNT_FREE:
            qa = jnt_qposadr[jntadr]
            p0 = vld(qpos, qa)
            p1 = vld(qpos, qa + 1)
            p2 = vld(qpos, qa + 2)
            q0, q1, q2, q3 = v_normalize4(vld(qpos, qa + 3), vld(qpos, qa + 4), vld(qpos, qa + 5), vld(qpos, qa + 6))
            vst(xanchor, 3 * jntadr, p0)
            vst(xanchor, 3 * jntadr + 1, p1)
            vst(xanchor, 3 * jntadr + 2, p2)
            for k in range(3):
                vst(xaxis, 3 * jntadr + k, jnt_axis[jntadr, k])
        else:
            pid = body_parentid[i]
            mid = body_mocapid[i]
            if mid >= 0:
                b0 = vld(mocap_pos, 3 * mid)
                b1 = vld(mocap_pos, 3 * mid + 1)
                b2 = vld(mocap_pos, 3 * mid + 2)
                c0, c1, c2, c3 = v_normalize4(
                    vld(mocap_quat, 4 * mid),
                    vld(mocap_quat, 4 * mid + 1),
                    vld(mocap_quat, 4 * mid + 2),
                    vld(mocap_quat, 4 * mid + 3),
                )
            else:
                b0 = splat(body_pos[i, 0])
                b1 = splat(body_pos[i, 1])
                b2 = splat(body_pos[i, 2])
                c0 = splat(body_quat[i, 0])
                c1 = splat(body_quat[i, 1])
                c2 = splat(body_quat[i, 2])
                c3 = splat(body_quat[i, 3])
            if pid != 0:
                x9 = 9 * pid
                m0 = vld(xmat, x9)
                m1 = vld(xmat, x9 + 1)
                m2 = vld(xmat, x9 + 2)
                m3 = vld(xmat, x9 + 3)
                m4 = vld(xmat, x9 + 4)
                m5 = vld(xmat, x9 + 5)
                m6 = vld(xmat, x9 + 6)
                m7 = vld(xmat, x9 + 7)
                m8 = vld(xmat, x9 + 8)
                p0 = m0 * b0 + m1 * b1 + m2 * b2
                p1 = m3 * b0 + m4 * b1 + m5 * b2
                p2 = m6 * b0 + m7 * b1 + m8 * b2
                p0 += vld(xpos, 3 * pid)
                p1 += vld(xpos, 3 * pid + 1)
                p2 += vld(xpos, 3 * pid + 2)
                q0, q1, q2, q3 = v_mul_quat(
                    vld(xquat, 4 * pid),
                    vld(xquat, 4 * pid + 1),
                    vld(xquat, 4 * pid + 2),
                    vld(xquat, 4 * pid + 3),
                    c0,
                    c1,
                    c2,
                    c3,
                )
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
                x0, x1, x2 = v_rot_const(jnt_axis[jid, 0], jnt_axis[jid, 1], jnt_axis[jid, 2], q0, q1, q2, q3)
                a0, a1, a2 = v_rot_const(jnt_pos[jid, 0], jnt_pos[jid, 1], jnt_pos[jid, 2], q0, q1, q2, q3)
                a0 += p0
                a1 += p1
                a2 += p2
                if jt == JNT_SLIDE:
                    s = vld(qpos, qa) - qpos0[qa]
                    p0 += x0 * s
                    p1 += x1 * s
                    p2 += x2 * s
                else:
                    if jt == JNT_BALL:
                        l0, l1, l2, l3 = v_normalize4(
                            vld(qpos, qa), vld(qpos, qa + 1), vld(qpos, qa + 2), vld(qpos, qa + 3)
                        )
                    else:
                        l0, l1, l2, l3 = v_axis_angle(
                            jnt_axis[jid, 0], jnt_axis[jid, 1], jnt_axis[jid, 2], vld(qpos, qa) - qpos0[qa]
                        )
                    q0, q1, q2, q3 = v_mul_quat(q0, q1, q2, q3, l0, l1, l2, l3)
                    v0, v1, v2 = v_rot_const(jnt_pos[jid, 0], jnt_pos[jid, 1], jnt_pos[jid, 2], q0, q1, q2, q3)
                    p0 = a0 - v0
                    p1 = a1 - v1
                    p2 = a2 - v2
                vst(xanchor, 3 * jid, a0)
                vst(xanchor, 3 * jid + 1, a1)
                vst(xanchor, 3 * jid + 2, a2)
                vst(xaxis, 3 * jid, x0)
                vst(xaxis, 3 * jid + 1, x1)
                vst(xaxis, 3 * jid + 2, x2)
        q0, q1, q2, q3 = v_normalize4(q0, q1, q2, q3)
        vst(xquat, 4 * i, q0)
        vst(xquat, 4 * i + 1, q1)
        vst(xquat, 4 * i + 2, q2)
        vst(xquat, 4 * i + 3, q3)
        vst(xpos, 3 * i, p0)
        vst(xpos, 3 * i + 1, p1)
        vst(xpos, 3 * i + 2, p2)
        v_quat2mat(xmat, 9 * i, q0, q1, q2, q3)

    body_ipos = m.body_ipos
    body_iquat = m.body_iquat
    body_sameframe = m.body_sameframe
    for i in range(1, m.nbody):
        _local_to_global(xipos, ximat, i, body_ipos, body_iquat, xpos, xquat, xmat, xipos, ximat, i, body_sameframe[i])
    geom_pos = m.geom_pos
    geom_quat = m.geom_quat
    geom_bodyid = m.geom_bodyid
    geom_sameframe = m.geom_sameframe
    for g in range(m.ngeom):
        _local_to_global(
            geom_xpos,
            geom_xmat,
            g,
            geom_pos,
            geom_quat,
            xpos,
            xquat,
            xmat,
            xipos,
            ximat,
            geom_bodyid[g],
            geom_sameframe[g],
        )
    site_pos = m.site_pos
    site_quat = m.site_quat
    site_bodyid = m.site_bodyid
    site_sameframe = m.site_sameframe
    for s in range(m.nsite):
        _local_to_global(
            site_xpos,
            site_xmat,
            s,
            site_pos,
            site_quat,
            xpos,
            xquat,
            xmat,
            xipos,
            ximat,
            site_bodyid[s],
            site_sameframe[s],
        )


# ------------------------------------------------------------------------------------------------------------
# com_pos, com_vel (com.py)


@njit(cache=True)
def com_pos_block(m, xipos, ximat, xmat, xanchor, xaxis, subtree_com, cinert, cdof):
    """com_pos (mj_comPos) of one block: subtree_com, cinert, cdof."""
    body_mass, body_parentid, body_subtreemass = m.body_mass, m.body_parentid, m.body_subtreemass
    body_rootid, body_inertia, body_jntadr = m.body_rootid, m.body_inertia, m.body_jntadr
    body_jntnum, jnt_dofadr, jnt_type = m.body_jntnum, m.jnt_dofadr, m.jnt_type
    sc = subtree_com
    nbody = m.nbody
    for i in range(nbody):
        mass = body_mass[i]
        for k in range(3):
            vst(sc, 3 * i + k, vld(xipos, 3 * i + k) * mass)
    for i in range(nbody - 1, 0, -1):
        p = body_parentid[i]
        for k in range(3):
            vst(sc, 3 * p + k, vld(sc, 3 * p + k) + vld(sc, 3 * i + k))
    for i in range(nbody):
        stm = body_subtreemass[i]
        if stm < MINVAL:
            for k in range(3):
                vst(sc, 3 * i + k, vld(xipos, 3 * i + k))
        else:
            inv = 1.0 / stm
            for k in range(3):
                vst(sc, 3 * i + k, vld(sc, 3 * i + k) * inv)

    for k in range(10):
        vst(cinert, k, 0.0)
    for i in range(1, nbody):
        r = body_rootid[i]
        dx = vld(xipos, 3 * i) - vld(sc, 3 * r)
        dy = vld(xipos, 3 * i + 1) - vld(sc, 3 * r + 1)
        dz = vld(xipos, 3 * i + 2) - vld(sc, 3 * r + 2)
        mass = body_mass[i]
        in0 = body_inertia[i, 0]
        in1 = body_inertia[i, 1]
        in2 = body_inertia[i, 2]
        x9 = 9 * i
        a0 = vld(ximat, x9)
        a1 = vld(ximat, x9 + 1)
        a2 = vld(ximat, x9 + 2)
        a3 = vld(ximat, x9 + 3)
        a4 = vld(ximat, x9 + 4)
        a5 = vld(ximat, x9 + 5)
        a6 = vld(ximat, x9 + 6)
        a7 = vld(ximat, x9 + 7)
        a8 = vld(ximat, x9 + 8)
        # inert_com (mju_inertCom)
        t0 = a0 * in0
        t1 = a3 * in0
        t2 = a6 * in0
        t3 = a1 * in1
        t4 = a4 * in1
        t5 = a7 * in1
        t6 = a2 * in2
        t7 = a5 * in2
        t8 = a8 * in2
        r0 = a0 * t0 + a1 * t3 + a2 * t6
        r1 = a3 * t1 + a4 * t4 + a5 * t7
        r2 = a6 * t2 + a7 * t5 + a8 * t8
        r3 = a0 * t1 + a1 * t4 + a2 * t7
        r4 = a0 * t2 + a1 * t5 + a2 * t8
        r5 = a3 * t2 + a4 * t5 + a5 * t8
        r0 += mass * (dy * dy + dz * dz)
        r1 += mass * (dx * dx + dz * dz)
        r2 += mass * (dx * dx + dy * dy)
        r3 -= mass * dx * dy
        r4 -= mass * dx * dz
        r5 -= mass * dy * dz
        c = 10 * i
        vst(cinert, c, r0)
        vst(cinert, c + 1, r1)
        vst(cinert, c + 2, r2)
        vst(cinert, c + 3, r3)
        vst(cinert, c + 4, r4)
        vst(cinert, c + 5, r5)
        vst(cinert, c + 6, mass * dx)
        vst(cinert, c + 7, mass * dy)
        vst(cinert, c + 8, mass * dz)
        vst(cinert, c + 9, mass)

    for i in range(1, nbody):
        r = body_rootid[i]
        for j in range(body_jntadr[i], body_jntadr[i] + body_jntnum[i]):
            da = jnt_dofadr[j]
            o0 = vld(sc, 3 * r) - vld(xanchor, 3 * j)
            o1 = vld(sc, 3 * r + 1) - vld(xanchor, 3 * j + 1)
            o2 = vld(sc, 3 * r + 2) - vld(xanchor, 3 * j + 2)
            jt = jnt_type[j]
            if jt == JNT_FREE or jt == JNT_BALL:
                if jt == JNT_FREE:
                    for k in range(3):
                        for c in range(6):
                            vst(cdof, 6 * (da + k) + c, 1.0 if c == 3 + k else 0.0)
                    da += 3
                for k in range(3):
                    a0 = vld(xmat, 9 * i + k)
                    a1 = vld(xmat, 9 * i + k + 3)
                    a2 = vld(xmat, 9 * i + k + 6)
                    c0, c1, c2 = v_cross(a0, a1, a2, o0, o1, o2)
                    e = 6 * (da + k)
                    vst(cdof, e, a0)
                    vst(cdof, e + 1, a1)
                    vst(cdof, e + 2, a2)
                    vst(cdof, e + 3, c0)
                    vst(cdof, e + 4, c1)
                    vst(cdof, e + 5, c2)
            elif jt == JNT_SLIDE:
                e = 6 * da
                vst(cdof, e, 0.0)
                vst(cdof, e + 1, 0.0)
                vst(cdof, e + 2, 0.0)
                vst(cdof, e + 3, vld(xaxis, 3 * j))
                vst(cdof, e + 4, vld(xaxis, 3 * j + 1))
                vst(cdof, e + 5, vld(xaxis, 3 * j + 2))
            else:
                a0 = vld(xaxis, 3 * j)
                a1 = vld(xaxis, 3 * j + 1)
                a2 = vld(xaxis, 3 * j + 2)
                c0, c1, c2 = v_cross(a0, a1, a2, o0, o1, o2)
                e = 6 * da
                vst(cdof, e, a0)
                vst(cdof, e + 1, a1)
                vst(cdof, e + 2, a2)
                vst(cdof, e + 3, c0)
                vst(cdof, e + 4, c1)
                vst(cdof, e + 5, c2)


@njit(cache=True)
def com_vel_block(m, qvel, cdof, cvel, cdof_dot):
    """com_vel (mj_comVel) of one block: cvel, cdof_dot."""
    body_parentid, body_dofadr, body_dofnum = m.body_parentid, m.body_dofadr, m.body_dofnum
    jnt_type, dof_jntid = m.jnt_type, m.dof_jntid
    for c in range(6):
        vst(cvel, c, 0.0)
    for i in range(1, m.nbody):
        p = body_parentid[i]
        v = 6 * i
        for c in range(6):
            vst(cvel, v + c, vld(cvel, 6 * p + c))
        bda = body_dofadr[i]
        j = 0
        dofnum = body_dofnum[i]
        while j < dofnum:
            d0 = bda + j
            jt = jnt_type[dof_jntid[d0]]
            if jt == JNT_FREE:
                for k in range(3):
                    for c in range(6):
                        vst(cdof_dot, 6 * (d0 + k) + c, 0.0)
                w0 = vld(qvel, d0)
                w1 = vld(qvel, d0 + 1)
                w2 = vld(qvel, d0 + 2)
                for c in range(6):
                    vst(
                        cvel,
                        v + c,
                        vld(cvel, v + c)
                        + (
                            vld(cdof, 6 * d0 + c) * w0
                            + vld(cdof, 6 * d0 + 6 + c) * w1
                            + vld(cdof, 6 * d0 + 12 + c) * w2
                        ),
                    )
                j += 3
                d0 += 3
                jt = JNT_BALL
            if jt == JNT_BALL:
                for k in range(3):
                    v_cross_motion(cdof_dot, 6 * (d0 + k), cvel, v, cdof, 6 * (d0 + k))
                w0 = vld(qvel, d0)
                w1 = vld(qvel, d0 + 1)
                w2 = vld(qvel, d0 + 2)
                for c in range(6):
                    vst(
                        cvel,
                        v + c,
                        vld(cvel, v + c)
                        + (
                            vld(cdof, 6 * d0 + c) * w0
                            + vld(cdof, 6 * d0 + 6 + c) * w1
                            + vld(cdof, 6 * d0 + 12 + c) * w2
                        ),
                    )
                j += 3
            else:
                v_cross_motion(cdof_dot, 6 * d0, cvel, v, cdof, 6 * d0)
                w0 = vld(qvel, d0)
                for c in range(6):
                    vst(cvel, v + c, vld(cvel, v + c) + vld(cdof, 6 * d0 + c) * w0)
                j += 1


# ------------------------------------------------------------------------------------------------------------
# crb, factor_m (crb.py)


@njit(cache=True)
def crb_block(m, cinert, cdof, crb, M):
    """crb (mj_crb) of one block: composite inertias crb and M in CSR layout."""
    nbody, nv = m.nbody, m.nv
    parent, simple, rowadr, rownnz = m.body_parentid, m.dof_simplenum, m.M_rowadr, m.M_rownnz
    M0, arm, dbody, dparent = m.dof_M0, m.dof_armature_eff, m.dof_bodyid, m.dof_parentid
    for r in range(10 * nbody):
        vst(crb, r, vld(cinert, r))
    for i in range(nbody - 1, 0, -1):
        p = parent[i]
        if p > 0:
            for k in range(10):
                vst(crb, 10 * p + k, vld(crb, 10 * p + k) + vld(crb, 10 * i + k))
    for k in range(m.nC):
        vst(M, k, 0.0)
    for i in range(nv):
        adr = rowadr[i]
        if simple[i]:
            vst(M, adr, M0[i])
            continue
        madr = adr + rownnz[i] - 1
        b0, b1, b2, b3, b4, b5 = v_mul_inert_vec(crb, 10 * dbody[i], cdof, 6 * i)
        acc = splat(arm[i])
        j = i
        while j >= 0:
            e = 6 * j
            acc = acc + (
                vld(cdof, e) * b0
                + vld(cdof, e + 1) * b1
                + vld(cdof, e + 2) * b2
                + vld(cdof, e + 3) * b3
                + vld(cdof, e + 4) * b4
                + vld(cdof, e + 5) * b5
            )
            vst(M, madr, acc)
            madr -= 1
            j = dparent[j]
            if j >= 0:
                acc = vld(M, madr)


@njit(cache=True)
def factor_m_block(m, M, qLD, qLDiagInv, bad):
    """factor_m (mj_factorM) of one block: qLD, qLDiagInv; row 0 of bad gets, per lane, the highest row whose
    pivot was raised to mjMINVAL (-1 when none), for the caller's mjWARN_INERTIA."""
    nv = m.nv
    rownnz, rowadr, colind = m.M_rownnz, m.M_rowadr, m.M_colind
    for k in range(m.nC):
        vst(qLD, k, vld(M, k))
    b = splat(-1.0)
    for k in range(nv - 1, -1, -1):
        start = rowadr[k]
        diag = rownnz[k] - 1
        end = start + diag
        x = vld(qLD, end)
        low = x < MINVAL
        b = select(low & (b < 0.0), float(k), b)
        x = select(low, MINVAL, x)
        vst(qLD, end, x)
        invd = 1.0 / x
        vst(qLDiagInv, k, invd)
        for adr in range(end - 1, start - 1, -1):
            i = colind[adr]
            s = -vld(qLD, adr) * invd
            dst = rowadr[i]
            for t in range(rownnz[i]):
                vst(qLD, dst + t, vld(qLD, dst + t) + vld(qLD, start + t) * s)
        for t in range(diag):
            vst(qLD, start + t, vld(qLD, start + t) * invd)
    vst(bad, 0, b)


# ------------------------------------------------------------------------------------------------------------
# rne (rne.py)


@njit(cache=True)
def rne_block(m, qvel, cinert, cvel, cdof, cdof_dot, cacc, cfrc, qfrc_bias):
    """rne (mj_rne, flg_acc=0) of one block: qfrc_bias; cacc, cfrc (nbody*6 rows) are its scratch."""
    body_dofadr, body_dofnum, body_parentid, dof_bodyid = m.body_dofadr, m.body_dofnum, m.body_parentid, m.dof_bodyid
    for c in range(6):
        vst(cacc, c, 0.0)
    if not (int(m.opt[OPT_DISABLE]) & DSBL_GRAVITY):
        vst(cacc, 3, -m.opt[OPT_GRAVITY])
        vst(cacc, 4, -m.opt[OPT_GRAVITY + 1])
        vst(cacc, 5, -m.opt[OPT_GRAVITY + 2])
    for i in range(1, m.nbody):
        bda = body_dofadr[i]
        n = body_dofnum[i]
        p = body_parentid[i]
        for c in range(6):
            s = splat(0.0)
            for k in range(n):
                s += vld(cdof_dot, 6 * (bda + k) + c) * vld(qvel, bda + k)
            vst(cacc, 6 * i + c, vld(cacc, 6 * p + c) + s)
        # _body_force: cinert*cacc + cvel x* (cinert*cvel)
        a0, a1, a2, a3, a4, a5 = v_mul_inert_vec(cinert, 10 * i, cacc, 6 * i)
        f0, f1, f2, f3, f4, f5 = v_mul_inert_vec(cinert, 10 * i, cvel, 6 * i)
        v0 = vld(cvel, 6 * i)
        v1 = vld(cvel, 6 * i + 1)
        v2 = vld(cvel, 6 * i + 2)
        v3 = vld(cvel, 6 * i + 3)
        v4 = vld(cvel, 6 * i + 4)
        v5 = vld(cvel, 6 * i + 5)
        r0 = -v2 * f1 + v1 * f2
        r1 = v2 * f0 - v0 * f2
        r2 = -v1 * f0 + v0 * f1
        r3 = -v2 * f4 + v1 * f5
        r4 = v2 * f3 - v0 * f5
        r5 = -v1 * f3 + v0 * f4
        r0 += -v5 * f4 + v4 * f5
        r1 += v5 * f3 - v3 * f5
        r2 += -v4 * f3 + v3 * f4
        e = 6 * i
        vst(cfrc, e, a0 + r0)
        vst(cfrc, e + 1, a1 + r1)
        vst(cfrc, e + 2, a2 + r2)
        vst(cfrc, e + 3, a3 + r3)
        vst(cfrc, e + 4, a4 + r4)
        vst(cfrc, e + 5, a5 + r5)
    for c in range(6):
        vst(cfrc, c, 0.0)
    for i in range(m.nbody - 1, 0, -1):
        p = body_parentid[i]
        if p:
            for c in range(6):
                vst(cfrc, 6 * p + c, vld(cfrc, 6 * p + c) + vld(cfrc, 6 * i + c))
    for v in range(m.nv):
        f = 6 * dof_bodyid[v]
        e = 6 * v
        vst(
            qfrc_bias,
            v,
            vld(cdof, e) * vld(cfrc, f)
            + vld(cdof, e + 1) * vld(cfrc, f + 1)
            + vld(cdof, e + 2) * vld(cfrc, f + 2)
            + vld(cdof, e + 3) * vld(cfrc, f + 3)
            + vld(cdof, e + 4) * vld(cfrc, f + 4)
            + vld(cdof, e + 5) * vld(cfrc, f + 5),
        )
