"""Recursive Newton-Euler: bias forces (mj_rne without acceleration) and mj_rnePostConstraint."""

from sim.jit import njit
from sim.jit.features import call_if, F_EQUALITY, F_TENDON

from sim.engine.math import mul_inert_vec, cross_force_add, cross
import math

from sim.engine.math import poly_force
from sim.engine.tendon import tendon_dot
from sim.engine.math import mat_t_vec3, mat_vec3, mul_quat
from sim.engine.constraint import _weld_quats, _mul_quat_axis, _eq_bodies
from sim.constants import (
    OPT_DISABLE,
    OPT_GRAVITY,
    DSBL_GRAVITY,
    DSBL_SPRING,
    DSBL_DAMPER,
    WRAP_JOINT,
    WRAP_PULLEY,
    WRAP_SITE,
    TRN_TENDON,
    DSBL_ACTUATION,
    OPT_CONE,
    CONE_PYRAMIDAL,
    EQ_CONNECT,
    EQ_WELD,
)

OBJ_BODY = 1


@njit(cache=True)
def _tendon_passive_force(m, d, w, i):
    """Scalar spring + damper force of tendon i, as in mj_springdamper."""
    flags = int(m.opt[OPT_DISABLE])
    en_spring = not (flags & DSBL_SPRING)
    en_damper = not (flags & DSBL_DAMPER)
    if en_spring and en_damper:
        pass
    elif not en_spring and not en_damper:
        return 0.0
    length = d.ten_length[w][i]
    lo = m.tendon_lengthspring[i, 0]
    hi = m.tendon_lengthspring[i, 1]
    x = length - hi if length > hi else (length - lo if length < lo else 0.0)
    fs = (
        -x * poly_force(m.tendon_stiffness[i], m.tendon_stiffnesspoly[i, 0], m.tendon_stiffnesspoly[i, 1], x, False)
        if en_spring
        else 0.0
    )
    v = d.ten_velocity[w][i]
    fd = (
        -v
        * poly_force(m.tendon_damping_eff[i], m.tendon_dampingpoly_eff[i, 0], m.tendon_dampingpoly_eff[i, 1], v, True)
        if en_damper
        else 0.0
    )
    return fs + fd


@njit(cache=True)
def _add_wrench_com(cext_i, sc, xipos_i, f0, f1, f2, t0, t1, t2):
    """cext_i (6,) += [torque; force] applied at xipos, moved to the subtree com (mju_transformSpatial)."""
    x0, x1, x2 = cross(sc[0] - xipos_i[0], sc[1] - xipos_i[1], sc[2] - xipos_i[2], f0, f1, f2)
    cext_i[0] += t0 - x0
    cext_i[1] += t1 - x1
    cext_i[2] += t2 - x2
    cext_i[3] += f0
    cext_i[4] += f1
    cext_i[5] += f2


@njit(cache=True)
def contact_force(m, d, w, c):
    """6D force:torque of contact c in its contact frame, net of adhesion (mj_contactForce, with
    mju_decodePyramid for pyramidal cones); zero for a contact without efc rows."""
    adr = d.contact_efc_address[w, c]
    if c < 0 or c >= d.ncon[w] or adr < 0:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    dim = d.contact_dim[w, c]
    f = d.efc_force[w]
    r0 = r1 = r2 = r3 = r4 = r5 = 0.0
    if int(m.opt[OPT_CONE]) == CONE_PYRAMIDAL:
        if dim == 1:
            r0 = f[adr]
        else:
            for i in range(2 * (dim - 1)):
                r0 += f[adr + i]
            mu = d.contact_friction[w, c]
            r1 = (f[adr] - f[adr + 1]) * mu[0]
            if dim > 2:
                r2 = (f[adr + 2] - f[adr + 3]) * mu[1]
            if dim > 3:
                r3 = (f[adr + 4] - f[adr + 5]) * mu[2]
            if dim > 4:
                r4 = (f[adr + 6] - f[adr + 7]) * mu[3]
                r5 = (f[adr + 8] - f[adr + 9]) * mu[4]
    else:
        r0 = f[adr]
        if dim > 1:
            r1 = f[adr + 1]
            r2 = f[adr + 2]
        if dim > 3:
            r3 = f[adr + 3]
        if dim > 4:
            r4 = f[adr + 4]
            r5 = f[adr + 5]
    return r0 - d.contact_adhesion[w, c], r1, r2, r3, r4, r5


@njit(cache=True)
def _body_force(cinert_i, cacc_i, cvel_i, out):
    """out (6,) = cinert*cacc + cvel x* (cinert*cvel)."""
    a0, a1, a2, a3, a4, a5 = mul_inert_vec(cinert_i, cacc_i)
    out[0] = a0
    out[1] = a1
    out[2] = a2
    out[3] = a3
    out[4] = a4
    out[5] = a5
    t = mul_inert_vec(cinert_i, cvel_i)
    cross_force_add(out, cvel_i, t)


@njit(cache=True)
def world_acc(m, cacc):
    """cacc[0] = the world body's acceleration, -gravity unless disabled (mj_rne / mj_rnePostConstraint)."""
    cacc[0, :] = 0.0
    if not (int(m.opt[OPT_DISABLE]) & DSBL_GRAVITY):
        cacc[0, 3] = -m.opt[OPT_GRAVITY]
        cacc[0, 4] = -m.opt[OPT_GRAVITY + 1]
        cacc[0, 5] = -m.opt[OPT_GRAVITY + 2]


@njit(cache=True)
def rne(m, d, w):
    """qfrc_bias (nv,) = C(q,qvel) + gravity terms, as mj_rne(flg_acc=0)."""
    body_dofadr, body_dofnum, body_parentid, dof_bodyid = m.body_dofadr, m.body_dofnum, m.body_parentid, m.dof_bodyid
    cacc = d.scr_body6a[w]
    cfrc = d.scr_body6b[w]
    cdd = d.cdof_dot[w]
    qvel = d.qvel[w]
    cinert = d.cinert[w]
    cvel = d.cvel[w]
    world_acc(m, cacc)
    for i in range(1, m.nbody):
        bda = body_dofadr[i]
        n = body_dofnum[i]
        p = body_parentid[i]
        for c in range(6):
            s = 0.0
            for k in range(n):
                s += cdd[bda + k, c] * qvel[bda + k]
            cacc[i, c] = cacc[p, c] + s
        _body_force(cinert[i], cacc[i], cvel[i], cfrc[i])
    cfrc[0, :] = 0.0
    for i in range(m.nbody - 1, 0, -1):
        p = body_parentid[i]
        if p:
            for c in range(6):
                cfrc[p, c] += cfrc[i, c]
    cdof = d.cdof[w]
    bias = d.qfrc_bias[w]
    for v in range(m.nv):
        f = cfrc[dof_bodyid[v]]
        cd = cdof[v]
        bias[v] = cd[0] * f[0] + cd[1] * f[1] + cd[2] * f[2] + cd[3] * f[3] + cd[4] * f[4] + cd[5] * f[5]


@njit(cache=True)
def _path_segment_wrench(cext, sc, m, wx, k, b0, b1, f):
    """Tendon force f pulling path points k-1 (body b0) and k (body b1) together: cfrc_ext wrenches."""
    if b0 < 0 or b0 == b1:
        return
    d0 = wx[k, 0] - wx[k - 1, 0]
    d1 = wx[k, 1] - wx[k - 1, 1]
    d2 = wx[k, 2] - wx[k - 1, 2]
    n = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    if n > 1e-15:
        c = f / n
        if b1:
            _add_wrench_com(cext[b1], sc[m.body_rootid[b1]], wx[k], c * d0, c * d1, c * d2, 0.0, 0.0, 0.0)
        if b0:
            _add_wrench_com(cext[b0], sc[m.body_rootid[b0]], wx[k - 1], -c * d0, -c * d1, -c * d2, 0.0, 0.0, 0.0)


@njit(cache=True)
def _equality_wrenches(m, d, w, cext, sc):
    """cfrc_ext (nbody, 6) += the connect / weld constraint forces at their anchors (mj_rnePostConstraint)."""
    # connect and weld constraints: efc force (and weld torque) at the anchors, plus on body 1, minus on
    # body 2 (the equality rows come first, in equality order).  The weld's rotation rows are G (jacr1 - jacr2)
    # with G a = 0.5 torquescale Im(neg(q1) (0, a) q0 relpose) (mj_instantiateEquality): its world torque is
    # G' efc_force (what 3.17 applies, measured; the C snapshot used the efc force itself)
    i = 0
    pt = d.scr_body6a[w, 0]
    while i < d.ne[w]:
        eid = d.efc_id[w, i]
        et = m.eq_type[eid]
        if et != EQ_CONNECT and et != EQ_WELD:
            i += 1
            continue
        weld = et == EQ_WELD
        ef = d.efc_force[w]
        f0, f1, f2 = ef[i], ef[i + 1], ef[i + 2]
        t0 = t1 = t2 = 0.0
        if weld:
            b1, b2 = _eq_bodies(m, eid)
            q, nq1 = _weld_quats(m, d, w, eid, b1, b2)
            hs = 0.5 * m.eq_data[eid, 10]
            for ax in range(3):
                e = _mul_quat_axis(
                    nq1[0],
                    nq1[1],
                    nq1[2],
                    nq1[3],
                    1.0 if ax == 0 else 0.0,
                    1.0 if ax == 1 else 0.0,
                    1.0 if ax == 2 else 0.0,
                )
                u = mul_quat(e[0], e[1], e[2], e[3], q[0], q[1], q[2], q[3])
                tq = hs * (u[1] * ef[i + 3] + u[2] * ef[i + 4] + u[3] * ef[i + 5])
                if ax == 0:
                    t0 = tq
                elif ax == 1:
                    t1 = tq
                else:
                    t2 = tq
        body_sem = m.eq_objtype[eid] == OBJ_BODY
        for side in range(2):
            obj = m.eq_obj1id[eid] if side == 0 else m.eq_obj2id[eid]
            k = obj if body_sem else m.site_bodyid[obj]
            if not k:
                continue
            if body_sem:
                o = 3 if (weld if side == 0 else not weld) else 0
                q0, q1, q2 = m.eq_data[eid, o], m.eq_data[eid, o + 1], m.eq_data[eid, o + 2]
            else:
                q0, q1, q2 = m.site_pos[obj, 0], m.site_pos[obj, 1], m.site_pos[obj, 2]
            a0, a1, a2 = mat_vec3(d.xmat[w, k], q0, q1, q2)
            pt[0] = a0 + d.xpos[w, k, 0]
            pt[1] = a1 + d.xpos[w, k, 1]
            pt[2] = a2 + d.xpos[w, k, 2]
            s = 1.0 if side == 0 else -1.0
            _add_wrench_com(cext[k], sc[m.body_rootid[k]], pt, s * f0, s * f1, s * f2, s * t0, s * t1, s * t2)
        i += 6 if weld else 3


@njit(cache=True)
def _tendon_wrenches(m, d, w, cext, sc):
    """cfrc_ext (nbody, 6) += the spatial tendons' forces at their path points (mj_rnePostConstraint)."""
    # mujoco 3.17 counts spatial-tendon spring/damper, actuator and armature (-armature * tendon
    # acceleration) forces as external wrenches at the tendon path points (measured against the oracle;
    # not in the C snapshot)
    for t in range(m.ntendon):
        adr = m.tendon_adr[t]
        if m.wrap_type[adr] == WRAP_JOINT:
            continue
        F = _tendon_passive_force(m, d, w, t)
        if not (int(m.opt[OPT_DISABLE]) & DSBL_ACTUATION):
            for a in range(m.nu):
                if m.actuator_trntype[a] == TRN_TENDON and m.actuator_trnid[a, 0] == t:
                    F += d.actuator_force[w][a] * m.actuator_gear[a, 0]
        # tendon armature acts as an inertial force along the tendon: -armature * d/dt(ten_velocity)
        arm = m.tendon_armature_eff[t]
        if arm != 0.0:
            J = d.ten_J[w]
            qacc_t = d.qacc[w]
            ra = m.ten_J_rowadr[t]
            tacc = 0.0
            for q in range(m.ten_J_rownnz[t]):
                tacc += J[ra + q] * qacc_t[m.ten_J_colind[ra + q]]
            F -= arm * (tacc + tendon_dot(m, d, w, t))
        if F == 0.0:
            continue
        # walk the tendon path (wrap_xpos) alongside its wrap objects to know each point's body
        wx = d.wrap_xpos[w]
        wo = d.wrap_obj[w]
        k = d.ten_wrapadr[w][t]
        kend = k + d.ten_wrapnum[w][t]
        divisor = 1.0
        prev = -1  # body of the previous path point, -1 after a pulley / at the start
        j = adr
        while j < adr + m.tendon_num[t] and k < kend:
            typ = m.wrap_type[j]
            if typ == WRAP_PULLEY:
                divisor = m.wrap_prm[j]
                prev = -1
                k += 1
            elif typ == WRAP_SITE:
                b = m.site_bodyid[m.wrap_objid[j]]
                _path_segment_wrench(cext, sc, m, wx, k, prev, b, F / divisor)
                prev = b
                k += 1
            elif wo[k] == m.wrap_objid[j]:
                # wrapped geom: two tangent points on the geom body
                b = m.geom_bodyid[m.wrap_objid[j]]
                _path_segment_wrench(cext, sc, m, wx, k, prev, b, F / divisor)
                _path_segment_wrench(cext, sc, m, wx, k + 1, b, b, F / divisor)
                prev = b
                k += 2
            j += 1


# compiled only for feature sets with equality constraints / tendons (sim/jit/features.py)
_equality_wrenches_if = call_if(F_EQUALITY, _equality_wrenches)
_tendon_wrenches_if = call_if(F_TENDON, _tendon_wrenches)


@njit(cache=True)
def rne_post_constraint(m, d, w, F):
    """cacc, cfrc_int, cfrc_ext (nbody,6) from qacc, xfrc_applied, contact and connect / weld forces and the
    tendon path forces, as mj_rnePostConstraint; F: feature set (equality and tendon forces)."""
    cacc = d.cacc[w]
    cext = d.cfrc_ext[w]
    cint = d.cfrc_int[w]
    xfrc = d.xfrc_applied[w]
    sc = d.subtree_com[w]
    xipos = d.xipos[w]
    world_acc(m, cacc)
    cext[:, :] = 0.0
    for i in range(1, m.nbody):
        f = xfrc[i]
        if f[0] != 0.0 or f[1] != 0.0 or f[2] != 0.0 or f[3] != 0.0 or f[4] != 0.0 or f[5] != 0.0:
            _add_wrench_com(cext[i], sc[m.body_rootid[i]], xipos[i], f[0], f[1], f[2], f[3], f[4], f[5])
    # contacts: world-oriented torque:force at the contact point, minus on body 1, plus on body 2
    for c in range(d.ncon[w]):
        if d.contact_efc_address[w, c] < 0:
            continue
        l0, l1, l2, l3, l4, l5 = contact_force(m, d, w, c)
        fr = d.contact_frame[w, c]
        t0, t1, t2 = mat_t_vec3(fr, l3, l4, l5)
        f0, f1, f2 = mat_t_vec3(fr, l0, l1, l2)
        cpos = d.contact_pos[w, c]
        k = m.geom_bodyid[d.contact_geom[w, c, 0]]
        if k:
            _add_wrench_com(cext[k], sc[m.body_rootid[k]], cpos, -f0, -f1, -f2, -t0, -t1, -t2)
        k = m.geom_bodyid[d.contact_geom[w, c, 1]]
        if k:
            _add_wrench_com(cext[k], sc[m.body_rootid[k]], cpos, f0, f1, f2, t0, t1, t2)
    _equality_wrenches_if(F, m, d, w, cext, sc)
    _tendon_wrenches_if(F, m, d, w, cext, sc)
    cdd = d.cdof_dot[w]
    cdof = d.cdof[w]
    qvel = d.qvel[w]
    qacc = d.qacc[w]
    cinert = d.cinert[w]
    cvel = d.cvel[w]
    cint[0, :] = 0.0
    for j in range(1, m.nbody):
        bda = m.body_dofadr[j]
        n = m.body_dofnum[j]
        p = m.body_parentid[j]
        for c in range(6):
            s = 0.0
            for k in range(n):
                s += cdd[bda + k, c] * qvel[bda + k]
            s2 = 0.0
            for k in range(n):
                s2 += cdof[bda + k, c] * qacc[bda + k]
            cacc[j, c] = (cacc[p, c] + s) + s2
        _body_force(cinert[j], cacc[j], cvel[j], cint[j])
        for c in range(6):
            cint[j, c] -= cext[j, c]
    for j in range(m.nbody - 1, 0, -1):
        p = m.body_parentid[j]
        for c in range(6):
            cint[p, c] += cint[j, c]
