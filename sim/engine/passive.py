"""Passive forces (mj_passive): joint/tendon springs and dampers, gravity compensation,
fluid forces (sim/engine/fluid.py: inertia-box and ellipsoid models), contact adhesion -> qfrc_spring, qfrc_damper,
qfrc_gravcomp, qfrc_fluid, qfrc_adhesion, qfrc_passive (nv,)."""

import math
from sim.jit import njit
from sim.jit.features import call_if, F_ADHESION, F_FLUID

from sim.engine.math import normalize4, sub_quat, poly_force
from sim.engine.com import apply_ft
from sim.engine.fluid import fluid
from sim.engine.jacobian import jac_dif_pair
from sim.constants import (
    JNT_FREE,
    JNT_BALL,
    OPT_DISABLE,
    OPT_GRAVITY,
    DSBL_SPRING,
    DSBL_DAMPER,
    DSBL_GRAVITY,
    DSBL_CONTACT,
)


@njit(cache=True)
def spring_damper(m, d, w):
    """Joint springs (with jnt_stiffnesspoly), dof dampers (with dampingpoly), tendon spring-dampers (mj_springdamper)."""
    flags = int(m.opt[OPT_DISABLE])
    en_spring = not (flags & DSBL_SPRING)
    en_damper = not (flags & DSBL_DAMPER)
    qpos = d.qpos[w]
    qvel = d.qvel[w]
    fs = d.qfrc_spring[w]
    fd = d.qfrc_damper[w]
    qs = m.qpos_spring
    if en_spring:
        for j in range(m.njnt):
            k0 = m.jnt_stiffness[j]
            p0 = m.jnt_stiffnesspoly[j, 0]
            p1 = m.jnt_stiffnesspoly[j, 1]
            if k0 == 0.0 and p0 == 0.0 and p1 == 0.0:
                continue
            pa = m.jnt_qposadr[j]
            da = m.jnt_dofadr[j]
            jt = m.jnt_type[j]
            if jt == JNT_FREE or jt == JNT_BALL:
                if jt == JNT_FREE:
                    x0 = qpos[pa] - qs[pa]
                    x1 = qpos[pa + 1] - qs[pa + 1]
                    x2 = qpos[pa + 2] - qs[pa + 2]
                    r = math.sqrt(x0 * x0 + x1 * x1 + x2 * x2)
                    k = poly_force(k0, p0, p1, r, False)
                    fs[da] += -k * x0
                    fs[da + 1] += -k * x1
                    fs[da + 2] += -k * x2
                    da += 3
                    pa += 3
                q0, q1, q2, q3 = normalize4(qpos[pa], qpos[pa + 1], qpos[pa + 2], qpos[pa + 3])
                x0, x1, x2 = sub_quat(q0, q1, q2, q3, qs[pa], qs[pa + 1], qs[pa + 2], qs[pa + 3])
                r = math.sqrt(x0 * x0 + x1 * x1 + x2 * x2)
                k = poly_force(k0, p0, p1, r, False)
                fs[da] += -k * x0
                fs[da + 1] += -k * x1
                fs[da + 2] += -k * x2
            else:
                x = qpos[pa] - qs[pa]
                fs[da] = -x * poly_force(k0, p0, p1, x, False)
    if en_damper:
        for i in range(m.nv):
            b = m.dof_damping_eff[i]
            p0 = m.dof_dampingpoly_eff[i, 0]
            p1 = m.dof_dampingpoly_eff[i, 1]
            if b != 0.0 or p0 != 0.0 or p1 != 0.0:
                v = qvel[i]
                fd[i] = -v * poly_force(b, p0, p1, v, True)
    tl = d.ten_length[w]
    tv = d.ten_velocity[w]
    J = d.ten_J[w]
    for i in range(m.ntendon):
        k0 = 0.0
        s0 = 0.0
        s1 = 0.0
        if en_spring:
            k0 = m.tendon_stiffness[i]
            s0 = m.tendon_stiffnesspoly[i, 0]
            s1 = m.tendon_stiffnesspoly[i, 1]
        b = 0.0
        b0 = 0.0
        b1 = 0.0
        if en_damper:
            b = m.tendon_damping_eff[i]
            b0 = m.tendon_dampingpoly_eff[i, 0]
            b1 = m.tendon_dampingpoly_eff[i, 1]
        if k0 == 0.0 and s0 == 0.0 and s1 == 0.0 and b == 0.0 and b0 == 0.0 and b1 == 0.0:
            continue
        length = tl[i]
        lo = m.tendon_lengthspring[i, 0]
        hi = m.tendon_lengthspring[i, 1]
        x = length - hi if length > hi else (length - lo if length < lo else 0.0)
        frc_s = -x * poly_force(k0, s0, s1, x, False) if en_spring else 0.0
        v = tv[i]
        frc_d = -v * poly_force(b, b0, b1, v, True) if en_damper else 0.0
        if frc_s != 0.0 or frc_d != 0.0:
            ra = m.ten_J_rowadr[i]
            for t in range(m.ten_J_rownnz[i]):
                c = m.ten_J_colind[ra + t]
                fs[c] += J[ra + t] * frc_s
                fd[c] += J[ra + t] * frc_d


@njit(cache=True)
def gravcomp(m, d, w):
    """qfrc_gravcomp (nv,) from body_gravcomp; returns 1 if any body has gravcomp (mj_gravcomp)."""
    g0 = m.opt[OPT_GRAVITY]
    g1 = m.opt[OPT_GRAVITY + 1]
    g2 = m.opt[OPT_GRAVITY + 2]
    if (
        (not m.nflg_gravcomp)
        or (int(m.opt[OPT_DISABLE]) & DSBL_GRAVITY)
        or math.sqrt(g0 * g0 + g1 * g1 + g2 * g2) == 0.0
    ):
        return 0
    has = 0
    xipos = d.xipos[w]
    out = d.qfrc_gravcomp[w]
    for i in range(1, m.nbody):
        gc = m.body_gravcomp[i]
        if gc != 0.0:
            has = 1
            s = -(m.body_mass[i] * gc)
            apply_ft(m, d, w, g0 * s, g1 * s, g2 * s, 0.0, 0.0, 0.0, xipos[i, 0], xipos[i, 1], xipos[i, 2], i, out)
    return has


@njit(cache=True)
def adhesion(m, d, w):
    """qfrc_adhesion (nv,) += -adhesion * (normal row of the contact Jacobian) over the adhesive contacts with
    exclude <= 1; returns whether any contributed (mj_adhesion; the dense Jacobian, scratch scr_cjac)."""
    nv = m.nv
    ncon = d.ncon[w]
    if (int(m.opt[OPT_DISABLE]) & DSBL_CONTACT) or ncon == 0 or nv == 0:
        return 0
    has = 0
    for i in range(ncon):
        if d.contact_adhesion[w, i] != 0 and d.contact_exclude[w, i] <= 1:
            has = 1
            break
    if not has:
        return 0
    S = d.scr_cjac[w]
    out = d.qfrc_adhesion[w]
    for i in range(ncon):
        adh = d.contact_adhesion[w, i]
        if adh == 0 or d.contact_exclude[w, i] > 1:
            continue
        b1 = m.geom_bodyid[d.contact_geom[w, i, 0]]
        b2 = m.geom_bodyid[d.contact_geom[w, i, 1]]
        p = d.contact_pos[w, i]
        pt = (p[0], p[1], p[2])
        jac_dif_pair(m, d, w, b1, b2, pt, pt, S[0], S[1], S[4], S[2], S[3], S[5], False)
        fr = d.contact_frame[w, i]
        for j in range(nv):
            # mju_mulMatMat(jac, frame, jacdif, 1, 3, nv), then mju_addToScl
            jn = fr[0] * S[4, 0, j] + fr[1] * S[4, 1, j] + fr[2] * S[4, 2, j]
            out[j] += jn * -adh
    return 1


@njit(cache=True)
def passive(m, d, w, F):
    """qfrc_spring/damper/gravcomp/fluid/adhesion/passive (nv,) as mj_passive (no flex or contact-passive); fluid
    forces compiled with F_FLUID, adhesion with F_ADHESION."""
    fs = d.qfrc_spring[w]
    fd = d.qfrc_damper[w]
    fg = d.qfrc_gravcomp[w]
    ff = d.qfrc_fluid[w]
    fp = d.qfrc_passive[w]
    fs[:] = 0.0
    fd[:] = 0.0
    fg[:] = 0.0
    ff[:] = 0.0
    d.qfrc_adhesion[w][:] = 0.0
    fp[:] = 0.0
    flags = int(m.opt[OPT_DISABLE])
    if (flags & DSBL_SPRING) and (flags & DSBL_DAMPER):
        return
    spring_damper(m, d, w)
    has_gc = gravcomp(m, d, w)
    has_fluid = _fluid(F, m, d, w)
    has_adhesion = _adhesion(F, m, d, w)
    for i in range(m.nv):
        fp[i] = fs[i] + fd[i]
    if has_fluid:
        for i in range(m.nv):
            fp[i] += ff[i]
    if has_adhesion:
        fa = d.qfrc_adhesion[w]
        for i in range(m.nv):
            fp[i] += fa[i]
    if has_gc:
        for i in range(m.nv):
            if not m.jnt_actgravcomp[m.dof_jntid[i]]:
                fp[i] += fg[i]


_fluid = call_if(F_FLUID, fluid, 0)  # fluid forces only for feature sets with a fluid medium (sim/jit/features.py)
_adhesion = call_if(F_ADHESION, adhesion, 0)  # mj_adhesion only for models with geom or pair adhesion
