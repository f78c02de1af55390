"""Centre-of-mass quantities: subtree_com, cinert, cdof (mj_comPos) and cvel, cdof_dot (mj_comVel)."""

from sim.jit import njit

from sim.engine.math import cross, cross_motion
from sim.engine.jacobian import com_offset
from sim.constants import JNT_FREE, JNT_BALL, JNT_SLIDE, MINVAL, OPT_JACOBIAN


@njit(cache=True)
def inert_com(res, inert, mat, dx, dy, dz, mass):
    """Write com-frame 6D inertia (10,) of a body, mju_inertCom."""
    t0 = mat[0] * inert[0]
    t1 = mat[3] * inert[0]
    t2 = mat[6] * inert[0]
    t3 = mat[1] * inert[1]
    t4 = mat[4] * inert[1]
    t5 = mat[7] * inert[1]
    t6 = mat[2] * inert[2]
    t7 = mat[5] * inert[2]
    t8 = mat[8] * inert[2]
    res[0] = mat[0] * t0 + mat[1] * t3 + mat[2] * t6
    res[1] = mat[3] * t1 + mat[4] * t4 + mat[5] * t7
    res[2] = mat[6] * t2 + mat[7] * t5 + mat[8] * t8
    res[3] = mat[0] * t1 + mat[1] * t4 + mat[2] * t7
    res[4] = mat[0] * t2 + mat[1] * t5 + mat[2] * t8
    res[5] = mat[3] * t2 + mat[4] * t5 + mat[5] * t8
    res[0] += mass * (dy * dy + dz * dz)
    res[1] += mass * (dx * dx + dz * dz)
    res[2] += mass * (dx * dx + dy * dy)
    res[3] -= mass * dx * dy
    res[4] -= mass * dx * dz
    res[5] -= mass * dy * dz
    res[6] = mass * dx
    res[7] = mass * dy
    res[8] = mass * dz
    res[9] = mass


@njit(cache=True)
def com_pos(m, d, w):
    """subtree_com (nbody,3), cinert (nbody,10), cdof (nv,6) as mj_comPos."""
    # model arrays read once (a field read inside a loop that stores floats is reloaded every iteration)
    body_mass, body_parentid, body_subtreemass = m.body_mass, m.body_parentid, m.body_subtreemass
    body_rootid, body_inertia, body_jntadr = m.body_rootid, m.body_inertia, m.body_jntadr
    body_jntnum, jnt_dofadr, jnt_type = m.body_jntnum, m.jnt_dofadr, m.jnt_type
    xipos = d.xipos[w]
    sc = d.subtree_com[w]
    nbody = m.nbody
    for i in range(nbody):
        mass = body_mass[i]
        sc[i, 0] = xipos[i, 0] * mass
        sc[i, 1] = xipos[i, 1] * mass
        sc[i, 2] = xipos[i, 2] * mass
    for i in range(nbody - 1, 0, -1):
        p = body_parentid[i]
        sc[p, 0] += sc[i, 0]
        sc[p, 1] += sc[i, 1]
        sc[p, 2] += sc[i, 2]
    for i in range(nbody):
        stm = body_subtreemass[i]
        if stm < MINVAL:
            sc[i, 0] = xipos[i, 0]
            sc[i, 1] = xipos[i, 1]
            sc[i, 2] = xipos[i, 2]
        else:
            inv = 1.0 / stm
            sc[i, 0] *= inv
            sc[i, 1] *= inv
            sc[i, 2] *= inv

    cinert = d.cinert[w]
    ximat = d.ximat[w]
    cinert[0, :] = 0.0
    for i in range(1, nbody):
        r = body_rootid[i]
        inert_com(
            cinert[i],
            body_inertia[i],
            ximat[i],
            xipos[i, 0] - sc[r, 0],
            xipos[i, 1] - sc[r, 1],
            xipos[i, 2] - sc[r, 2],
            body_mass[i],
        )

    cdof = d.cdof[w]
    xmat = d.xmat[w]
    xanchor = d.xanchor[w]
    xaxis = d.xaxis[w]
    for i in range(1, nbody):
        r = body_rootid[i]
        for j in range(body_jntadr[i], body_jntadr[i] + body_jntnum[i]):
            da = jnt_dofadr[j]
            o0 = sc[r, 0] - xanchor[j, 0]
            o1 = sc[r, 1] - xanchor[j, 1]
            o2 = sc[r, 2] - xanchor[j, 2]
            jt = jnt_type[j]
            if jt == JNT_FREE or jt == JNT_BALL:
                if jt == JNT_FREE:
                    for k in range(3):
                        for c in range(6):
                            cdof[da + k, c] = 0.0
                        cdof[da + k, 3 + k] = 1.0
                    da += 3
                for k in range(3):
                    a0 = xmat[i, k]
                    a1 = xmat[i, k + 3]
                    a2 = xmat[i, k + 6]
                    c0, c1, c2 = cross(a0, a1, a2, o0, o1, o2)
                    cdof[da + k, 0] = a0
                    cdof[da + k, 1] = a1
                    cdof[da + k, 2] = a2
                    cdof[da + k, 3] = c0
                    cdof[da + k, 4] = c1
                    cdof[da + k, 5] = c2
            elif jt == JNT_SLIDE:
                cdof[da, 0] = 0.0
                cdof[da, 1] = 0.0
                cdof[da, 2] = 0.0
                cdof[da, 3] = xaxis[j, 0]
                cdof[da, 4] = xaxis[j, 1]
                cdof[da, 5] = xaxis[j, 2]
            else:
                a0 = xaxis[j, 0]
                a1 = xaxis[j, 1]
                a2 = xaxis[j, 2]
                c0, c1, c2 = cross(a0, a1, a2, o0, o1, o2)
                cdof[da, 0] = a0
                cdof[da, 1] = a1
                cdof[da, 2] = a2
                cdof[da, 3] = c0
                cdof[da, 4] = c1
                cdof[da, 5] = c2


@njit(cache=True)
def com_vel(m, d, w):
    """cvel (nbody,6) and cdof_dot (nv,6) as mj_comVel."""
    # model arrays read once (a field read inside a loop that stores floats is reloaded every iteration)
    body_parentid, body_dofadr, body_dofnum = m.body_parentid, m.body_dofadr, m.body_dofnum
    jnt_type, dof_jntid = m.jnt_type, m.dof_jntid
    cvel = d.cvel[w]
    cdof = d.cdof[w]
    cdd = d.cdof_dot[w]
    qvel = d.qvel[w]
    cvel[0, :] = 0.0
    for i in range(1, m.nbody):
        p = body_parentid[i]
        v = cvel[i]
        for c in range(6):
            v[c] = cvel[p, c]
        bda = body_dofadr[i]
        j = 0
        dofnum = body_dofnum[i]
        while j < dofnum:
            jt = jnt_type[dof_jntid[bda + j]]
            if jt == JNT_FREE:
                # translational dofs: cdof_dot = 0, velocity update with the 3 translations
                for k in range(3):
                    cdd[bda + j + k, :] = 0.0
                for c in range(6):
                    v[c] += (
                        cdof[bda + j, c] * qvel[bda + j]
                        + cdof[bda + j + 1, c] * qvel[bda + j + 1]
                        + cdof[bda + j + 2, c] * qvel[bda + j + 2]
                    )
                j += 3
                jt = JNT_BALL
            if jt == JNT_BALL:
                for k in range(3):
                    cross_motion(cdd[bda + j + k], v, cdof[bda + j + k])
                for c in range(6):
                    v[c] += (
                        cdof[bda + j, c] * qvel[bda + j]
                        + cdof[bda + j + 1, c] * qvel[bda + j + 1]
                        + cdof[bda + j + 2, c] * qvel[bda + j + 2]
                    )
                j += 3
            else:
                cross_motion(cdd[bda + j], v, cdof[bda + j])
                for c in range(6):
                    v[c] += cdof[bda + j, c] * qvel[bda + j]
                j += 1


@njit(cache=True)
def is_sparse(m):
    """MuJoCo's Jacobian storage mode: mjJAC_SPARSE, or mjJAC_AUTO with nv >= 60 (mj_isSparse)."""
    j = int(m.opt[OPT_JACOBIAN])
    return j == 1 or (j == 2 and m.nv >= 60)


@njit(cache=True)
def apply_ft(m, d, w, f0, f1, f2, t0, t1, t2, p0, p1, p2, body, qfrc):
    """qfrc (nv,) += J(point, body)' [force; torque] over the body's dof chain, as mj_applyFT."""
    cdof = d.cdof[w]
    o0, o1, o2 = com_offset(m, d, w, body, p0, p1, p2)
    b = m.body_weldid[body]
    last = m.body_dofadr[b] + m.body_dofnum[b] - 1 if m.body_dofnum[b] else -1
    # dense mj_applyFT multiplies the full J' (zeros off the chain) by f: a non-finite f reaches every dof as
    # 0 * inf = nan (then mj_checkAcc resets); the sparse form touches the chain only
    z = (f0 * 0.0 + f1 * 0.0 + f2 * 0.0) + (t0 * 0.0 + t1 * 0.0 + t2 * 0.0)
    if z != z and not is_sparse(m):
        j = last
        for k in range(m.nv - 1, -1, -1):
            if k == j:
                j = m.dof_parentid[j]
            else:
                qfrc[k] += z
    i = last
    while i >= 0:
        c = cdof[i]
        x0, x1, x2 = cross(c[0], c[1], c[2], o0, o1, o2)
        qfrc[i] += (c[3] + x0) * f0 + (c[4] + x1) * f1 + (c[5] + x2) * f2
        qfrc[i] += c[0] * t0 + c[1] * t1 + c[2] * t2
        i = m.dof_parentid[i]


@njit(cache=True)
def xfrc_accumulate(m, d, w, qfrc):
    """qfrc (nv,) += sum over bodies of J' xfrc_applied (nbody,6) at xipos, as mj_xfrcAccumulate."""
    xfrc = d.xfrc_applied[w]
    xipos = d.xipos[w]
    for i in range(1, m.nbody):
        f = xfrc[i]
        if f[0] != 0.0 or f[1] != 0.0 or f[2] != 0.0 or f[3] != 0.0 or f[4] != 0.0 or f[5] != 0.0:
            apply_ft(m, d, w, f[0], f[1], f[2], f[3], f[4], f[5], xipos[i, 0], xipos[i, 1], xipos[i, 2], i, qfrc)
