"""Point Jacobians from cdof / subtree_com (engine_core_util: mj_jac, mj_jacDifPair, mj_jacDot, chains)."""

from sim.jit import njit

from sim.engine.math import cross
from sim.constants import JNT_BALL, JNT_FREE


@njit(cache=True)
def com_offset(m, d, w, body, p0, p1, p2):
    """Point (p0, p1, p2) relative to the subtree com of the body's root (the lever arm of mj_jac's cdof products)."""
    sc = d.subtree_com[w]
    r = m.body_rootid[body]
    return p0 - sc[r, 0], p1 - sc[r, 1], p2 - sc[r, 2]


@njit(cache=True)
def jac(m, d, w, body, p0, p1, p2, jacp, jacr, flg_rot):
    """Dense point Jacobian of (p0,p1,p2) on body: jacp (3, nv), jacr (3, nv) if flg_rot (mj_jac)."""
    nv = m.nv
    cdof = d.cdof[w]
    o0, o1, o2 = com_offset(m, d, w, body, p0, p1, p2)
    for k in range(3):
        for j in range(nv):
            jacp[k, j] = 0.0
            if flg_rot:
                jacr[k, j] = 0.0
    b = m.body_weldid[body]
    if m.body_dofnum[b] == 0:
        return
    i = m.body_dofadr[b] + m.body_dofnum[b] - 1
    while i >= 0:
        c = cdof[i]
        if flg_rot:
            jacr[0, i] = c[0]
            jacr[1, i] = c[1]
            jacr[2, i] = c[2]
        x0, x1, x2 = cross(c[0], c[1], c[2], o0, o1, o2)
        jacp[0, i] = c[3] + x0
        jacp[1, i] = c[4] + x1
        jacp[2, i] = c[5] + x2
        i = m.dof_parentid[i]


@njit(cache=True)
def jac_dif_pair(m, d, w, b1, b2, pos1, pos2, jac1p, jac2p, jacdifp, jac1r, jac2r, jacdifr, flg_rot):
    """Dense jacdifp = jac(b2, pos2) - jac(b1, pos1) (3, nv), and the rotational difference if flg_rot
    (mj_jacDifPair, dense branch; pos1/pos2 are 3-tuples)."""
    jac(m, d, w, b1, pos1[0], pos1[1], pos1[2], jac1p, jac1r, flg_rot)
    jac(m, d, w, b2, pos2[0], pos2[1], pos2[2], jac2p, jac2r, flg_rot)
    for k in range(3):
        for j in range(m.nv):
            jacdifp[k, j] = jac2p[k, j] - jac1p[k, j]
            if flg_rot:
                jacdifr[k, j] = jac2r[k, j] - jac1r[k, j]


@njit(cache=True)
def merge_chain_count(m, b1, b2, flg_skipcommon):
    """Number of dofs in the merged dof chains of two bodies (mj_mergeChain without storing the chain)."""
    b1 = m.body_weldid[b1]
    b2 = m.body_weldid[b2]
    if m.body_dofnum[b1] == 0 and m.body_dofnum[b2] == 0:
        return 0
    da1 = m.body_dofadr[b1] + m.body_dofnum[b1] - 1
    da2 = m.body_dofadr[b2] + m.body_dofnum[b2] - 1
    n = 0
    while da1 >= 0 or da2 >= 0:
        da = max(da1, da2)
        if flg_skipcommon and da1 == da and da2 == da:
            break
        if da1 == da:
            da1 = m.dof_parentid[da1]
        if da2 == da:
            da2 = m.dof_parentid[da2]
        n += 1
    return n


@njit(cache=True)
def jac_dot(m, d, w, body, p0, p1, p2, jacp, jacr, flg_rot):
    """Dense time derivative of the point Jacobian: jacp (3, nv), jacr (3, nv) if flg_rot (mj_jacDot)."""
    nv = m.nv
    cdof = d.cdof[w]
    cdd = d.cdof_dot[w]
    cvel = d.cvel[w]
    o0, o1, o2 = com_offset(m, d, w, body, p0, p1, p2)
    # point velocity: body cvel shifted from the subtree com to the point (mju_transformSpatial, motion)
    cv = cvel[body]
    x0, x1, x2 = cross(o0, o1, o2, cv[0], cv[1], cv[2])
    v0 = cv[3] - x0
    v1 = cv[4] - x1
    v2 = cv[5] - x2
    for k in range(3):
        for j in range(nv):
            jacp[k, j] = 0.0
            if flg_rot:
                jacr[k, j] = 0.0
    b = m.body_weldid[body]
    if m.body_dofnum[b] == 0:
        return
    i = m.body_dofadr[b] + m.body_dofnum[b] - 1
    while i >= 0:
        c = cdof[i]
        jid = m.dof_jntid[i]
        typ = m.jnt_type[jid]
        if typ == JNT_BALL or (typ == JNT_FREE and i >= m.jnt_dofadr[jid] + 3):
            # quaternion dofs: cdof_dot = cvel(dof body) x cdof
            u = cvel[m.dof_bodyid[i]]
            a0 = -u[2] * c[1] + u[1] * c[2]
            a1 = u[2] * c[0] - u[0] * c[2]
            a2 = -u[1] * c[0] + u[0] * c[1]
            a3 = -u[2] * c[4] + u[1] * c[5] - u[5] * c[1] + u[4] * c[2]
            a4 = u[2] * c[3] - u[0] * c[5] + u[5] * c[0] - u[3] * c[2]
            a5 = -u[1] * c[3] + u[0] * c[4] - u[4] * c[0] + u[3] * c[1]
        else:
            q = cdd[i]
            a0 = q[0]
            a1 = q[1]
            a2 = q[2]
            a3 = q[3]
            a4 = q[4]
            a5 = q[5]
        if flg_rot:
            jacr[0, i] += a0
            jacr[1, i] += a1
            jacr[2, i] += a2
        t0, t1, t2 = cross(a0, a1, a2, o0, o1, o2)
        s0, s1, s2 = cross(c[0], c[1], c[2], v0, v1, v2)
        jacp[0, i] += a3 + t0 + s0
        jacp[1, i] += a4 + t1 + s1
        jacp[2, i] += a5 + t2 + s2
        i = m.dof_parentid[i]
