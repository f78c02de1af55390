"""Tendon lengths and sparse Jacobians (mj_tendon): fixed tendons and spatial tendons through sites/pulleys."""
import math
from sim.jit import njit

from sim.math import cross
from sim.types import WRAP_JOINT, WRAP_PULLEY


@njit(cache=True)
def _add_point_jac(m, d, w, body, p0, p1, p2, v0, v1, v2, scale, out):
    """out (nv,) += scale * v . jacp(point, body) over the body's dof chain (mj_jac, translation)."""
    cdof = d.cdof[w]
    sc = d.subtree_com[w]
    r = m.body_rootid[body]
    o0 = p0 - sc[r, 0]
    o1 = p1 - sc[r, 1]
    o2 = p2 - sc[r, 2]
    b = m.body_weldid[body]
    if m.body_dofnum[b] == 0:
        return
    i = m.body_dofadr[b] + m.body_dofnum[b] - 1
    while i >= 0:
        c = cdof[i]
        x0, x1, x2 = cross(c[0], c[1], c[2], o0, o1, o2)
        out[i] += scale * ((c[3] + x0) * v0 + (c[4] + x1) * v1 + (c[5] + x2) * v2)
        i = m.dof_parentid[i]


@njit(cache=True)
def tendon(m, d, w):
    """ten_length (ntendon,), ten_J (nJten,) in the fixed sparsity ten_J_rowadr/colind, as mj_tendon."""
    if m.ntendon == 0:
        return
    L = d.ten_length[w]
    J = d.ten_J[w]
    qpos = d.qpos[w]
    sx = d.site_xpos[w]
    tmp = d.scr_nv[w][5]
    for k in range(m.nJten):
        J[k] = 0.0
    for i in range(m.ntendon):
        L[i] = 0.0
        adr = m.tendon_adr[i]
        num = m.tendon_num[i]
        ra = m.ten_J_rowadr[i]
        nnz = m.ten_J_rownnz[i]
        if m.wrap_type[adr] == WRAP_JOINT:
            for j in range(num):
                k = m.wrap_objid[adr + j]
                coef = m.wrap_prm[adr + j]
                L[i] += coef * qpos[m.jnt_qposadr[k]]
                dof = m.jnt_dofadr[k]
                for t in range(nnz):
                    if m.ten_J_colind[ra + t] == dof:
                        J[ra + t] += coef
                        break
            continue
        # spatial tendon: accumulate dense row, then gather into the sparse pattern
        for t in range(nnz):
            tmp[m.ten_J_colind[ra + t]] = 0.0
        divisor = 1.0
        j = 0
        while j < num - 1:
            t0 = m.wrap_type[adr + j]
            t1 = m.wrap_type[adr + j + 1]
            if t0 == WRAP_PULLEY or t1 == WRAP_PULLEY:
                if t0 == WRAP_PULLEY:
                    divisor = m.wrap_prm[adr + j]
                j += 1
                continue
            s0 = m.wrap_objid[adr + j]
            s1 = m.wrap_objid[adr + j + 1]
            d0 = sx[s1, 0] - sx[s0, 0]
            d1 = sx[s1, 1] - sx[s0, 1]
            d2 = sx[s1, 2] - sx[s0, 2]
            dist = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
            L[i] += dist / divisor
            b0 = m.site_bodyid[s0]
            b1 = m.site_bodyid[s1]
            if b0 != b1:
                if dist < 1e-15:
                    u0, u1, u2 = 1.0, 0.0, 0.0
                else:
                    u0 = d0 / dist; u1 = d1 / dist; u2 = d2 / dist
                inv = 1.0 / divisor
                _add_point_jac(m, d, w, b1, sx[s1, 0], sx[s1, 1], sx[s1, 2], u0, u1, u2, inv, tmp)
                _add_point_jac(m, d, w, b0, sx[s0, 0], sx[s0, 1], sx[s0, 2], u0, u1, u2, -inv, tmp)
            j += 1
        for t in range(nnz):
            J[ra + t] = tmp[m.ten_J_colind[ra + t]]


@njit(cache=True)
def tendon_velocity(m, d, w):
    """ten_velocity (ntendon,) = ten_J qvel (sparse), as in mj_fwdVelocity."""
    J = d.ten_J[w]
    qvel = d.qvel[w]
    v = d.ten_velocity[w]
    for i in range(m.ntendon):
        ra = m.ten_J_rowadr[i]
        s = 0.0
        for t in range(m.ten_J_rownnz[i]):
            s += J[ra + t] * qvel[m.ten_J_colind[ra + t]]
        v[i] = s
