"""Recursive Newton-Euler: bias forces (mj_rne without acceleration) and mj_rnePostConstraint."""
from numba import njit

from sim.math import mul_inert_vec, cross_force_add, cross
from sim.types import OPT_DISABLE, OPT_GRAVITY, DSBL_GRAVITY


@njit(cache=True)
def _body_force(cinert_i, cacc_i, cvel_i, out):
    """out (6,) = cinert*cacc + cvel x* (cinert*cvel)."""
    a0, a1, a2, a3, a4, a5 = mul_inert_vec(cinert_i, cacc_i)
    out[0] = a0; out[1] = a1; out[2] = a2; out[3] = a3; out[4] = a4; out[5] = a5
    t = mul_inert_vec(cinert_i, cvel_i)
    cross_force_add(out, cvel_i, t)


@njit(cache=True)
def rne(m, d, w):
    """qfrc_bias (nv,) = C(q,qvel) + gravity terms, as mj_rne(flg_acc=0)."""
    cacc = d.scr_body6a[w]
    cfrc = d.scr_body6b[w]
    cdd = d.cdof_dot[w]
    qvel = d.qvel[w]
    cinert = d.cinert[w]
    cvel = d.cvel[w]
    cacc[0, :] = 0.0
    if not (int(m.opt[OPT_DISABLE]) & DSBL_GRAVITY):
        cacc[0, 3] = -m.opt[OPT_GRAVITY]
        cacc[0, 4] = -m.opt[OPT_GRAVITY + 1]
        cacc[0, 5] = -m.opt[OPT_GRAVITY + 2]
    for i in range(1, m.nbody):
        bda = m.body_dofadr[i]
        n = m.body_dofnum[i]
        p = m.body_parentid[i]
        for c in range(6):
            s = 0.0
            for k in range(n):
                s += cdd[bda + k, c] * qvel[bda + k]
            cacc[i, c] = cacc[p, c] + s
        _body_force(cinert[i], cacc[i], cvel[i], cfrc[i])
    cfrc[0, :] = 0.0
    for i in range(m.nbody - 1, 0, -1):
        p = m.body_parentid[i]
        if p:
            for c in range(6):
                cfrc[p, c] += cfrc[i, c]
    cdof = d.cdof[w]
    bias = d.qfrc_bias[w]
    for v in range(m.nv):
        f = cfrc[m.dof_bodyid[v]]
        cd = cdof[v]
        bias[v] = cd[0] * f[0] + cd[1] * f[1] + cd[2] * f[2] + cd[3] * f[3] + cd[4] * f[4] + cd[5] * f[5]


@njit(cache=True)
def rne_post_constraint(m, d, w):
    """cacc, cfrc_int, cfrc_ext (nbody,6) from qacc and xfrc_applied, as mj_rnePostConstraint (no contacts yet)."""
    cacc = d.cacc[w]
    cext = d.cfrc_ext[w]
    cint = d.cfrc_int[w]
    xfrc = d.xfrc_applied[w]
    sc = d.subtree_com[w]
    xipos = d.xipos[w]
    cacc[0, :] = 0.0
    if not (int(m.opt[OPT_DISABLE]) & DSBL_GRAVITY):
        cacc[0, 3] = -m.opt[OPT_GRAVITY]
        cacc[0, 4] = -m.opt[OPT_GRAVITY + 1]
        cacc[0, 5] = -m.opt[OPT_GRAVITY + 2]
    cext[:, :] = 0.0
    for i in range(1, m.nbody):
        f = xfrc[i]
        if f[0] != 0.0 or f[1] != 0.0 or f[2] != 0.0 or f[3] != 0.0 or f[4] != 0.0 or f[5] != 0.0:
            # torque:force at xipos, moved to the subtree com (mju_transformSpatial, force)
            r = m.body_rootid[i]
            x0, x1, x2 = cross(sc[r, 0] - xipos[i, 0], sc[r, 1] - xipos[i, 1], sc[r, 2] - xipos[i, 2],
                               f[0], f[1], f[2])
            cext[i, 0] += f[3] - x0
            cext[i, 1] += f[4] - x1
            cext[i, 2] += f[5] - x2
            cext[i, 3] += f[0]
            cext[i, 4] += f[1]
            cext[i, 5] += f[2]
    # hook: contact and equality-constraint wrenches are added here once the solver exists
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
