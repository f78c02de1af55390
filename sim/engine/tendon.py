"""Tendon lengths, paths and sparse Jacobians (mj_tendon): fixed tendons, spatial tendons through sites,
pulleys and sphere/cylinder wraps; tendon armature bias (mj_tendonDot, mj_tendonBias)."""

import math
from sim.jit import njit
from sim.jit.features import call_if, F_TENDON

from sim.engine.math import cross, normalize3
from sim.engine.jacobian import com_offset, jac, jac_dot
from sim.constants import MINVAL, WRAP_JOINT, WRAP_PULLEY, WRAP_SPHERE, WRAP_CYLINDER
from sim.engine.wrap import wrap


@njit(cache=True)
def _add_point_jac(m, d, w, body, p0, p1, p2, v0, v1, v2, scale, out):
    """out (nv,) += scale * v . jacp(point, body) over the body's dof chain (mj_jac, translation)."""
    cdof = d.cdof[w]
    o0, o1, o2 = com_offset(m, d, w, body, p0, p1, p2)
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
def _segment_jac(m, d, w, b0, b1, x0, y0, z0, x1, y1, z1, inv, tmp):
    """tmp (nv,) += inv * dif' (jac(b1, p1) - jac(b0, p0)), dif = unit p1 - p0 (mj_tendon moment chain rule)."""
    u0, u1, u2, _ = normalize3(x1 - x0, y1 - y0, z1 - z0)
    _add_point_jac(m, d, w, b1, x1, y1, z1, u0, u1, u2, inv, tmp)
    _add_point_jac(m, d, w, b0, x0, y0, z0, u0, u1, u2, -inv, tmp)


@njit(cache=True)
def _dist(ax, ay, az, bx, by, bz):
    return math.sqrt((bx - ax) * (bx - ax) + (by - ay) * (by - ay) + (bz - az) * (bz - az))


@njit(cache=True)
def tendon(m, d, w):
    """ten_length (ntendon,), ten_J (nJten,) in the fixed sparsity ten_J_rowadr/colind, and the tendon paths
    wrap_xpos (2 nwrap, 3), wrap_obj (2 nwrap,), ten_wrapadr/ten_wrapnum (ntendon,), as mj_tendon."""
    if m.ntendon == 0:
        return
    L = d.ten_length[w]
    J = d.ten_J[w]
    qpos = d.qpos[w]
    sx = d.site_xpos[w]
    gx = d.geom_xpos[w]
    gm = d.geom_xmat[w]
    wx = d.wrap_xpos[w]
    wo = d.wrap_obj[w]
    wadr = d.ten_wrapadr[w]
    wnum = d.ten_wrapnum[w]
    tmp = d.scr_nv[w][5]
    for k in range(m.nJten):
        J[k] = 0.0
    wcount = 0
    for i in range(m.ntendon):
        L[i] = 0.0
        adr = m.tendon_adr[i]
        num = m.tendon_num[i]
        ra = m.ten_J_rowadr[i]
        nnz = m.ten_J_rownnz[i]
        wadr[i] = wcount
        wnum[i] = 0
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
                    # pulley: new divisor, path marker obj = -2 at the origin
                    divisor = m.wrap_prm[adr + j]
                    wx[wcount, 0] = 0.0
                    wx[wcount, 1] = 0.0
                    wx[wcount, 2] = 0.0
                    wo[wcount] = -2
                    wnum[i] += 1
                    wcount += 1
                j += 1
                continue
            s0 = m.wrap_objid[adr + j]
            s1 = m.wrap_objid[adr + j + 1]
            b0 = m.site_bodyid[s0]
            inv = 1.0 / divisor
            p0x = sx[s0, 0]
            p0y = sx[s0, 1]
            p0z = sx[s0, 2]
            wlen = -1.0
            g = -1
            geomwrap = t1 == WRAP_SPHERE or t1 == WRAP_CYLINDER
            if geomwrap:
                # site - geom - site: wrap, possibly two tangent points on the geom
                g = s1
                s1 = m.wrap_objid[adr + j + 2]
                side = int(math.floor(m.wrap_prm[adr + j + 1] + 0.5))
                wlen, q0x, q0y, q0z, q1x, q1y, q1z = wrap(
                    sx[s0], sx[s1], gx[g], gm[g], m.geom_size[g, 0], t1, side >= 0, sx[side] if side >= 0 else sx[s0]
                )
            b1 = m.site_bodyid[s1]
            p1x = sx[s1, 0]
            p1y = sx[s1, 1]
            p1z = sx[s1, 2]
            if wlen < 0:
                L[i] += _dist(p0x, p0y, p0z, p1x, p1y, p1z) / divisor
                if b0 != b1:
                    _segment_jac(m, d, w, b0, b1, p0x, p0y, p0z, p1x, p1y, p1z, inv, tmp)
                wx[wcount, 0] = p0x
                wx[wcount, 1] = p0y
                wx[wcount, 2] = p0z
                wo[wcount] = -1
                wnum[i] += 1
                wcount += 1
            else:
                L[i] += (_dist(p0x, p0y, p0z, q0x, q0y, q0z) + wlen + _dist(q1x, q1y, q1z, p1x, p1y, p1z)) / divisor
                gb = m.geom_bodyid[g]
                if b0 != gb:
                    _segment_jac(m, d, w, b0, gb, p0x, p0y, p0z, q0x, q0y, q0z, inv, tmp)
                if gb != b1:
                    _segment_jac(m, d, w, gb, b1, q1x, q1y, q1z, p1x, p1y, p1z, inv, tmp)
                wx[wcount, 0] = p0x
                wx[wcount, 1] = p0y
                wx[wcount, 2] = p0z
                wx[wcount + 1, 0] = q0x
                wx[wcount + 1, 1] = q0y
                wx[wcount + 1, 2] = q0z
                wx[wcount + 2, 0] = q1x
                wx[wcount + 2, 1] = q1y
                wx[wcount + 2, 2] = q1z
                wo[wcount] = -1
                wo[wcount + 1] = g
                wo[wcount + 2] = g
                wnum[i] += 3
                wcount += 3
            j += 2 if geomwrap else 1
            # last site before a pulley or the tendon end closes the path
            if j == num - 1 or m.wrap_type[adr + j + 1] == WRAP_PULLEY:
                wx[wcount, 0] = p1x
                wx[wcount, 1] = p1y
                wx[wcount, 2] = p1z
                wo[wcount] = -1
                wnum[i] += 1
                wcount += 1
        for t in range(nnz):
            J[ra + t] = tmp[m.ten_J_colind[ra + t]]


@njit(cache=True)
def tendon_dot(m, d, w, i):
    """d/dt(ten_J[i]) . qvel for a spatial tendon through sites/pulleys (mj_tendonDot); 0 for fixed tendons.

    Uses scr_tenjac (2, 3, nv) for the point Jacobians and their time derivatives."""
    adr = m.tendon_adr[i]
    if m.wrap_type[adr] == WRAP_JOINT:
        return 0.0
    sx = d.site_xpos[w]
    cvel = d.cvel[w]
    sc = d.subtree_com[w]
    qvel = d.qvel[w]
    jac1 = d.scr_tenjac[w][0]
    jac2 = d.scr_tenjac[w][1]
    res = 0.0
    divisor = 1.0
    num = m.tendon_num[i]
    j = 0
    while j < num - 1:
        t0 = m.wrap_type[adr + j]
        t1 = m.wrap_type[adr + j + 1]
        if t0 == WRAP_PULLEY or t1 == WRAP_PULLEY:
            if t0 == WRAP_PULLEY:
                divisor = m.wrap_prm[adr + j]
            j += 1
            continue
        # geom wrapping is refused at load (mujoco has no derivative of mju_wrap here)
        s0 = m.wrap_objid[adr + j]
        s1 = m.wrap_objid[adr + j + 1]
        b0 = m.site_bodyid[s0]
        b1 = m.site_bodyid[s1]
        if b0 != b1:
            # site linear velocities (mj_objectVelocity, global frame)
            v0 = _site_vel(sx[s0], cvel[b0], sc[m.body_rootid[b0]])
            v1 = _site_vel(sx[s1], cvel[b1], sc[m.body_rootid[b1]])
            e0, e1, e2, norm = normalize3(sx[s1, 0] - sx[s0, 0], sx[s1, 1] - sx[s0, 1], sx[s1, 2] - sx[s0, 2])
            # dvel = d/dt of the unit direction
            f0 = v1[0] - v0[0]
            f1 = v1[1] - v0[1]
            f2 = v1[2] - v0[2]
            dt = e0 * f0 + e1 * f1 + e2 * f2
            f0 -= dt * e0
            f1 -= dt * e1
            f2 -= dt * e2
            sc_ = 1.0 / norm if norm > MINVAL else 0.0
            f0 *= sc_
            f1 *= sc_
            f2 *= sc_
            # first term: d/dt(jac2 - jac1)' dir ; second: (jac2 - jac1)' d/dt(dir)
            jac_dot(m, d, w, b0, sx[s0, 0], sx[s0, 1], sx[s0, 2], jac1, jac1, False)
            jac_dot(m, d, w, b1, sx[s1, 0], sx[s1, 1], sx[s1, 2], jac2, jac2, False)
            s = 0.0
            for k in range(m.nv):
                s += (
                    ((jac2[0, k] - jac1[0, k]) * e0 + (jac2[1, k] - jac1[1, k]) * e1 + (jac2[2, k] - jac1[2, k]) * e2)
                    / divisor
                ) * qvel[k]
            res += s
            jac(m, d, w, b0, sx[s0, 0], sx[s0, 1], sx[s0, 2], jac1, jac1, False)
            jac(m, d, w, b1, sx[s1, 0], sx[s1, 1], sx[s1, 2], jac2, jac2, False)
            s = 0.0
            for k in range(m.nv):
                s += (
                    ((jac2[0, k] - jac1[0, k]) * f0 + (jac2[1, k] - jac1[1, k]) * f1 + (jac2[2, k] - jac1[2, k]) * f2)
                    / divisor
                ) * qvel[k]
            res += s
        j += 1
    return res


@njit(cache=True)
def _site_vel(p, cv, com):
    """Linear velocity (3-tuple) of point p moving with a body of com-based velocity cv (6,)."""
    o0 = p[0] - com[0]
    o1 = p[1] - com[1]
    o2 = p[2] - com[2]
    x0, x1, x2 = cross(o0, o1, o2, cv[0], cv[1], cv[2])
    return cv[3] - x0, cv[4] - x1, cv[5] - x2


@njit(cache=True)
def tendon_bias(m, d, w):
    """qfrc_bias (nv,) += ten_J' armature (d/dt ten_J . qvel) per tendon with armature (mj_tendonBias)."""
    bias = d.qfrc_bias[w]
    J = d.ten_J[w]
    for i in range(m.ntendon):
        arm = m.tendon_armature_eff[i]
        if arm == 0.0:
            continue
        coef = arm * tendon_dot(m, d, w, i)
        if coef != 0.0:
            ra = m.ten_J_rowadr[i]
            for t in range(m.ten_J_rownnz[i]):
                bias[m.ten_J_colind[ra + t]] += coef * J[ra + t]


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


# the tendon stages as the pipeline calls them: compiled only for feature sets with tendons (sim/jit/features.py)
tendon_if = call_if(F_TENDON, tendon)
tendon_velocity_if = call_if(F_TENDON, tendon_velocity)
tendon_bias_if = call_if(F_TENDON, tendon_bias)
