"""Actuator transmissions (mj_transmission): actuator_length (nu,) and sparse actuator_moment rows."""

import math

from sim.jit import njit
from sim.jit.features import call_if, F_TRN

from sim.engine.jacobian import jac, jac_dif_pair
from sim.engine.math import normalize4, quat2vel, rot_vec_quat, mat_vec3, mat_t_vec3, cross, mul_quat, sub_quat
from sim.constants import (
    TRN_JOINT,
    TRN_TENDON,
    TRN_SITE,
    TRN_SLIDERCRANK,
    TRN_BODY,
    JNT_SLIDE,
    JNT_HINGE,
    JNT_BALL,
    OPT_DISABLE,
    OPT_CONE,
    CONE_ELLIPTIC,
    DSBL_ACTUATION,
)


@njit(cache=True)
def _compress(row, moment, colind, adr):
    """Store the non-zeros of a dense moment row (nv,) at moment/colind[adr:]; returns their count."""
    nnz = 0
    for j in range(row.shape[0]):
        if row[j] != 0.0:
            moment[adr + nnz] = row[j]
            colind[adr + nnz] = j
            nnz += 1
    return nnz


@njit(cache=True)
def _site_jac(m, d, w, site, jacp, jacr, flg_rot):
    """Dense Jacobians (3, nv) of a site's position (and rotation if flg_rot), mj_jacSite."""
    p = d.site_xpos[w][site]
    jac(m, d, w, m.site_bodyid[site], p[0], p[1], p[2], jacp, jacr, flg_rot)


@njit(cache=True)
def _common_dof(m, b0, b1):
    """Deepest dof shared by the dof chains of bodies b0 and b1 (weld ids), -1 if none."""
    a0 = m.body_dofadr[b0] + m.body_dofnum[b0] - 1
    a1 = m.body_dofadr[b1] + m.body_dofnum[b1] - 1
    if a0 < 0 or a1 < 0:
        return -1
    while a0 != a1:
        if a0 < a1:
            a1 = m.dof_parentid[a1]
        else:
            a0 = m.dof_parentid[a0]
        if a0 == -1 or a1 == -1:
            return -1
    return a0


@njit(cache=True)
def _sub_ref(m, j, jref, da):
    """j -= jref (3, nv), then clear the columns of dof da and its ancestors (shared chain)."""
    for k in range(3):
        for c in range(j.shape[1]):
            j[k, c] -= jref[k, c]
    while da >= 0:
        j[0, da] = 0.0
        j[1, da] = 0.0
        j[2, da] = 0.0
        da = m.dof_parentid[da]


@njit(cache=True)
def _add_jt_vec(row, j, v0, v1, v2):
    """row (nv,) += j' v for j (3, nv), accumulated row by row as mju_mulMatTVec."""
    for c in range(row.shape[0]):
        row[c] += (j[0, c] * v0 + j[1, c] * v1) + j[2, c] * v2


@njit(cache=True)
def _slider_crank(m, d, w, i, row):
    """Slider-crank length (scaled by gear) and dense moment row (nv,) before gear, mjTRN_SLIDERCRANK."""
    idc = m.actuator_trnid[i, 0]
    ids = m.actuator_trnid[i, 1]
    rod = m.actuator_cranklength[i]
    sxm = d.site_xmat[w][ids]
    a0 = sxm[2]
    a1 = sxm[5]
    a2 = sxm[8]
    pc = d.site_xpos[w][idc]
    ps = d.site_xpos[w][ids]
    v0 = pc[0] - ps[0]
    v1 = pc[1] - ps[1]
    v2 = pc[2] - ps[2]
    # length = a'v - sqrt(det), det = (a'v)^2 + rod^2 - v'v
    av = v0 * a0 + v1 * a1 + v2 * a2
    det = av * av + rod * rod - (v0 * v0 + v1 * v1 + v2 * v2)
    if det <= 0.0:
        length = av
        la0 = v0
        la1 = v1
        la2 = v2
        lv0 = a0
        lv1 = a1
        lv2 = a2
    else:
        sdet = math.sqrt(det)
        length = av - sdet
        s = 1.0 - av / sdet
        inv = 1.0 / sdet
        lv0 = a0 * s + v0 * inv
        lv1 = a1 * s + v1 * inv
        lv2 = a2 * s + v2 * inv
        la0 = v0 * s
        la1 = v1 * s
        la2 = v2 * s
    # Jacobians of the slider axis (jacA = jacr x axis, mj_jacPointAxis) and of vec (crank - slider)
    scr = d.scr_trnjac[w]
    jc = scr[0]
    js = scr[1]
    jr = scr[2]
    ja = scr[3]
    jac(m, d, w, m.site_bodyid[ids], ps[0], ps[1], ps[2], js, jr, True)
    for c in range(m.nv):
        ja[0, c] = jr[1, c] * a2 - jr[2, c] * a1
        ja[1, c] = jr[2, c] * a0 - jr[0, c] * a2
        ja[2, c] = jr[0, c] * a1 - jr[1, c] * a0
    _site_jac(m, d, w, idc, jc, jr, False)
    # chain rule: row = dl/da' jacA + dl/dv' (jac_crank - jac_slider)
    for c in range(m.nv):
        r = 0.0
        r += la0 * ja[0, c] + lv0 * (jc[0, c] - js[0, c])
        r += la1 * ja[1, c] + lv1 * (jc[1, c] - js[1, c])
        r += la2 * ja[2, c] + lv2 * (jc[2, c] - js[2, c])
        row[c] = r
    return length * m.actuator_gear[i, 0]


@njit(cache=True)
def _site_refsite(m, d, w, i, row):
    """Site transmission relative to a reference site: length and dense moment row (nv,), mjTRN_SITE."""
    sid = m.actuator_trnid[i, 0]
    rid = m.actuator_trnid[i, 1]
    gear = m.actuator_gear[i]
    scr = d.scr_trnjac[w]
    jp = scr[0]
    jr = scr[1]
    jrefp = scr[2]
    jrefr = scr[3]
    _site_jac(m, d, w, sid, jp, jr, True)
    da = _common_dof(m, m.body_weldid[m.site_bodyid[sid]], m.body_weldid[m.site_bodyid[rid]])
    rxm = d.site_xmat[w][rid]
    row[:] = 0.0
    length = 0.0
    if gear[0] != 0.0 or gear[1] != 0.0 or gear[2] != 0.0:
        # translation: site position in the refsite frame
        ps = d.site_xpos[w][sid]
        pr = d.site_xpos[w][rid]
        v0, v1, v2 = mat_t_vec3(rxm, ps[0] - pr[0], ps[1] - pr[1], ps[2] - pr[2])
        length += v0 * gear[0] + v1 * gear[1] + v2 * gear[2]
        _site_jac(m, d, w, rid, jrefp, jrefr, False)
        _sub_ref(m, jp, jrefp, da)
        f0, f1, f2 = mat_vec3(rxm, gear[0], gear[1], gear[2])
        _add_jt_vec(row, jp, f0, f1, f2)
    if gear[3] != 0.0 or gear[4] != 0.0 or gear[5] != 0.0:
        # rotation: expmap of the site quaternion relative to the refsite quaternion; site frames as
        # xquat*site_quat (the installed mujoco 3.17; the newer C snapshot multiplies in the other order)
        bq = d.xquat[w][m.site_bodyid[sid]]
        sq = m.site_quat[sid]
        q0, q1, q2, q3 = mul_quat(bq[0], bq[1], bq[2], bq[3], sq[0], sq[1], sq[2], sq[3])
        bq = d.xquat[w][m.site_bodyid[rid]]
        sq = m.site_quat[rid]
        r0, r1, r2, r3 = mul_quat(bq[0], bq[1], bq[2], bq[3], sq[0], sq[1], sq[2], sq[3])
        v0, v1, v2 = sub_quat(q0, q1, q2, q3, r0, r1, r2, r3)
        length += v0 * gear[3] + v1 * gear[4] + v2 * gear[5]
        _site_jac(m, d, w, rid, jrefp, jrefr, True)
        _sub_ref(m, jr, jrefr, da)
        t0, t1, t2 = mat_vec3(rxm, gear[3], gear[4], gear[5])
        _add_jt_vec(row, jr, t0, t1, t2)
    return length


@njit(cache=True)
def _add_scaled_row(row, src, s):
    """row (nv,) += src (nv,) * s (mju_addToScl)."""
    for c in range(row.shape[0]):
        row[c] += src[c] * s


@njit(cache=True)
def _body_adhesion(m, d, w, body, row):
    """Dense moment row (nv,) of a body transmission (adhesion): minus the average over the contacts of
    body of their normal Jacobians (mjTRN_BODY). Included contacts contribute their efc_J normal row
    (pyramidal cones: the mean of the 2(dim-1) pyramid rows); contacts excluded because they lie in the
    margin-gap band (exclude == 1, no efc rows) contribute the frame-normal projection of their point
    Jacobian difference. Contacts with other exclusions (e.g. no dofs, exclude 3) are ignored."""
    nv = m.nv
    row[:] = 0.0
    excl = d.scr_trnexcl[w]
    excl[:] = 0.0
    scr = d.scr_trnjac[w]
    jd = scr[2]
    efc_j = d.efc_J[w]
    nefc = d.nefc[w]
    elliptic = int(m.opt[OPT_CONE]) == CONE_ELLIPTIC
    counter = 0
    for j in range(d.ncon[w]):
        g1 = d.contact_geom[w, j, 0]
        g2 = d.contact_geom[w, j, 1]
        if g1 < 0 or g2 < 0:
            continue
        b1 = m.geom_bodyid[g1]
        b2 = m.geom_bodyid[g2]
        if b1 != body and b2 != body:
            continue
        ex = d.contact_exclude[w, j]
        if ex == 0:
            counter += 1
            adr = d.contact_efc_address[w, j]
            dim = d.contact_dim[w, j]
            if adr < 0 or nefc == 0:
                continue
            # efc rows in ascending order, as mj_mulJacTVec(efc_J, marks) accumulates them
            if dim == 1 or elliptic:
                _add_scaled_row(row, efc_j[adr], 1.0)
            else:
                npyr = dim - 1
                wgt = 0.5 / npyr
                for k in range(2 * npyr):
                    _add_scaled_row(row, efc_j[adr + k], wgt)
        elif ex == 1:
            counter += 1
            p = d.contact_pos[w, j]
            jac_dif_pair(m, d, w, b1, b2, p, p, scr[0], scr[1], jd, scr[3], scr[3], scr[3], False)
            fr = d.contact_frame[w, j]
            # normal' jacdif (mju_mulMatMat with the frame's first row: zero entries skipped)
            for c in range(nv):
                v = 0.0
                for k in range(3):
                    if fr[k] != 0.0:
                        v += jd[k, c] * fr[k]
                excl[c] += v
    if counter:
        s = -1.0 / counter
        for c in range(nv):
            row[c] = (row[c] + excl[c]) * s


@njit(cache=True)
def transmission(m, d, w, F):
    """actuator_length (nu,), actuator_moment (nJmom,) with moment_rownnz/rowadr/colind (nu,), as mj_transmission
    (slider-crank, body and site-to-reference-site kinds compiled with F_TRN)."""
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
        elif tt == TRN_SLIDERCRANK:
            row = d.scr_trnrow[w]
            length[i] = _slider_crank_if(F, m, d, w, i, row)
            for j in range(m.nv):
                row[j] *= gear[0]
            rownnz[i] = _compress(row, moment, colind, adr)
        elif tt == TRN_BODY:
            # no meaningful length; gear is not applied (mj_transmission)
            length[i] = 0.0
            row = d.scr_trnrow[w]
            _body_adhesion_if(F, m, d, w, idx, row)
            rownnz[i] = _compress(row, moment, colind, adr)
        elif tt == TRN_SITE and m.actuator_trnid[i, 1] >= 0:
            row = d.scr_trnrow[w]
            length[i] = _site_refsite_if(F, m, d, w, i, row)
            rownnz[i] = _compress(row, moment, colind, adr)
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
            o0 = sxp[0] - sc[r, 0]
            o1 = sxp[1] - sc[r, 1]
            o2 = sxp[2] - sc[r, 2]
            b = m.body_weldid[body]
            if m.body_dofnum[b] > 0:
                j = m.body_dofadr[b] + m.body_dofnum[b] - 1
                while j >= 0:
                    c = cdof[j]
                    x0, x1, x2 = cross(c[0], c[1], c[2], o0, o1, o2)
                    row[j] = ((c[3] + x0) * f0 + (c[4] + x1) * f1 + (c[5] + x2) * f2) + (
                        c[0] * t0 + c[1] * t1 + c[2] * t2
                    )
                    j = m.dof_parentid[j]
            rownnz[i] = _compress(row, moment, colind, adr)
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
                    g0 = gear[0]
                    g1 = gear[1]
                    g2 = gear[2]
                else:
                    g0, g1, g2 = rot_vec_quat(gear[0], gear[1], gear[2], q0, -q1, -q2, -q3)
                length[i] = a0 * g0 + a1 * g1 + a2 * g2
                for k in range(3):
                    colind[adr + k] = da + k
                rownnz[i] = 3
                moment[adr] = g0
                moment[adr + 1] = g1
                moment[adr + 2] = g2
            else:
                length[i] = 0.0
                if tt == TRN_JOINT:
                    g0 = gear[3]
                    g1 = gear[4]
                    g2 = gear[5]
                else:
                    q0, q1, q2, q3 = normalize4(qpos[qa + 3], qpos[qa + 4], qpos[qa + 5], qpos[qa + 6])
                    g0, g1, g2 = rot_vec_quat(gear[3], gear[4], gear[5], q0, -q1, -q2, -q3)
                for k in range(6):
                    colind[adr + k] = da + k
                rownnz[i] = 6
                moment[adr] = gear[0]
                moment[adr + 1] = gear[1]
                moment[adr + 2] = gear[2]
                moment[adr + 3] = g0
                moment[adr + 4] = g1
                moment[adr + 5] = g2


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


# slider-crank, body (adhesion) and site-to-reference-site transmissions, compiled only for feature sets with one
# (sim/jit/features.py)
_slider_crank_if = call_if(F_TRN, _slider_crank, 0.0)
_body_adhesion_if = call_if(F_TRN, _body_adhesion)
_site_refsite_if = call_if(F_TRN, _site_refsite, 0.0)
