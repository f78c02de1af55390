"""Fluid forces (mj_fluid): the inertia-box model per body and the ellipsoid model per geom
(geom_fluid[:, 0] > 0, MJCF fluidshape="ellipsoid") -> qfrc_fluid (nv,)."""

import math

from sim.jit import njit

from sim.engine.math import mat_t_vec3, mat_vec3, cross
from sim.engine.com import apply_ft
from sim.constants import OPT_WIND, OPT_DENSITY, OPT_VISCOSITY, GEOM_SPHERE, GEOM_CAPSULE, GEOM_CYLINDER, MINVAL


@njit(cache=True)
def local_velocity(m, d, w, body, pos, mat):
    """6D velocity (ang(3), lin(3)) of the frame (pos (3,), mat (9,)) rigidly attached to body, in that
    frame, minus the wind rotated into it (mj_objectVelocity flg_local=1, then mju_transformSpatial of
    the wind)."""
    cvel = d.cvel[w][body]
    sc = d.subtree_com[w][m.body_rootid[body]]
    c0, c1, c2 = cross(pos[0] - sc[0], pos[1] - sc[1], pos[2] - sc[2], cvel[0], cvel[1], cvel[2])
    w0, w1, w2 = mat_t_vec3(mat, cvel[0], cvel[1], cvel[2])
    v0, v1, v2 = mat_t_vec3(mat, cvel[3] - c0, cvel[4] - c1, cvel[5] - c2)
    wd0, wd1, wd2 = mat_t_vec3(mat, m.opt[OPT_WIND], m.opt[OPT_WIND + 1], m.opt[OPT_WIND + 2])
    return w0, w1, w2, v0 - wd0, v1 - wd1, v2 - wd2


# ------------------------------------------------------------------------------------------------
# inertia-box model


@njit(cache=True)
def inertia_box_wrench(m, d, w, i):
    """World-frame (force(3), torque(3)) at xipos of the inertia-box fluid model for body i."""
    inertia = m.body_inertia[i]
    mass = m.body_mass[i]
    bx = math.sqrt(max(MINVAL, inertia[1] + inertia[2] - inertia[0]) / mass * 6.0)
    by = math.sqrt(max(MINVAL, inertia[0] + inertia[2] - inertia[1]) / mass * 6.0)
    bz = math.sqrt(max(MINVAL, inertia[0] + inertia[1] - inertia[2]) / mass * 6.0)
    ximat = d.ximat[w][i]
    w0, w1, w2, v0, v1, v2 = local_velocity(m, d, w, i, d.xipos[w][i], ximat)
    l0 = 0.0
    l1 = 0.0
    l2 = 0.0
    l3 = 0.0
    l4 = 0.0
    l5 = 0.0
    visc = m.opt[OPT_VISCOSITY]
    dens = m.opt[OPT_DENSITY]
    if visc > 0:
        diam = (bx + by + bz) / 3.0
        s = -math.pi * diam * diam * diam * visc
        l0 = w0 * s
        l1 = w1 * s
        l2 = w2 * s
        s = -3.0 * math.pi * diam * visc
        l3 = v0 * s
        l4 = v1 * s
        l5 = v2 * s
    if dens > 0:
        l3 -= 0.5 * dens * by * bz * abs(v0) * v0
        l4 -= 0.5 * dens * bx * bz * abs(v1) * v1
        l5 -= 0.5 * dens * bx * by * abs(v2) * v2
        l0 -= dens * bx * (by * by * by * by + bz * bz * bz * bz) * abs(w0) * w0 / 64.0
        l1 -= dens * by * (bx * bx * bx * bx + bz * bz * bz * bz) * abs(w1) * w1 / 64.0
        l2 -= dens * bz * (bx * bx * bx * bx + by * by * by * by) * abs(w2) * w2 / 64.0
    t0, t1, t2 = mat_vec3(ximat, l0, l1, l2)
    f0, f1, f2 = mat_vec3(ximat, l3, l4, l5)
    return f0, f1, f2, t0, t1, t2


@njit(cache=True)
def inertia_box_fluid(m, d, w, i):
    """qfrc_fluid (nv,) += inertia-box drag/viscous force of body i, mj_inertiaBoxFluidModel."""
    f0, f1, f2, t0, t1, t2 = inertia_box_wrench(m, d, w, i)
    xipos = d.xipos[w][i]
    apply_ft(m, d, w, f0, f1, f2, t0, t1, t2, xipos[0], xipos[1], xipos[2], i, d.qfrc_fluid[w])


# ------------------------------------------------------------------------------------------------
# ellipsoid model


@njit(cache=True)
def geom_semi_axes(size, gtype):
    """Semi-axes (3) of the ellipsoid standing in for a geom (mju_geomSemiAxes)."""
    if gtype == GEOM_SPHERE:
        return size[0], size[0], size[0]
    if gtype == GEOM_CAPSULE:
        return size[0], size[0], size[1] + size[0]
    if gtype == GEOM_CYLINDER:
        return size[0], size[0], size[1]
    return size[0], size[1], size[2]


@njit(cache=True)
def _pow4(x):
    return (x * x) * (x * x)


@njit(cache=True)
def _norm3(a0, a1, a2):
    return math.sqrt(a0 * a0 + a1 * a1 + a2 * a2)


@njit(cache=True)
def _max_moment(d0, d1, d2):
    """Largest moment of inertia (unit density) of the ellipsoid about axis 0 (mji_ellipsoid_max_moment)."""
    return 8.0 / 15.0 * math.pi * d0 * _pow4(max(d1, d2))


@njit(cache=True)
def added_mass_momenta(w0, w1, w2, v0, v1, v2, dens, fl):
    """Virtual linear (3) and angular (3) momentum of the fluid moving with the body (mj_addedMassForces)."""
    p0 = dens * fl[6] * v0
    p1 = dens * fl[7] * v1
    p2 = dens * fl[8] * v2
    h0 = dens * fl[9] * w0
    h1 = dens * fl[10] * w1
    h2 = dens * fl[11] * w2
    return p0, p1, p2, h0, h1, h2


@njit(cache=True)
def added_mass_forces(w0, w1, w2, v0, v1, v2, dens, fl):
    """Local (torque(3), force(3)) of the fluid mass moving with the body, velocity terms only
    (mj_addedMassForces with no acceleration); fl (12,) is the geom's geom_fluid row."""
    p0, p1, p2, h0, h1, h2 = added_mass_momenta(w0, w1, w2, v0, v1, v2, dens, fl)
    f0, f1, f2 = cross(p0, p1, p2, w0, w1, w2)
    a0, a1, a2 = cross(p0, p1, p2, v0, v1, v2)
    b0, b1, b2 = cross(h0, h1, h2, w0, w1, w2)
    return a0 + b0, a1 + b1, a2 + b2, f0, f1, f2


@njit(cache=True)
def viscous_forces(w0, w1, w2, v0, v1, v2, dens, visc, s0, s1, s2, fl):
    """Local (torque(3), force(3)) of Magnus and Kutta lift, linear (Stokes) and quadratic drag on an
    ellipsoid with semi-axes s (mj_viscousForces); fl (12,) is the geom's geom_fluid row."""
    blunt = fl[1]
    slender = fl[2]
    angdrag = fl[3]
    kutta = fl[4]
    magnus = fl[5]
    volume = 4.0 / 3.0 * math.pi * s0 * s1 * s2
    d_max = max(max(s0, s1), s2)
    d_min = min(min(s0, s1), s2)
    d_mid = s0 + s1 + s2 - d_max - d_min
    a_max = math.pi * d_max * d_mid
    # Magnus lift
    mg0, mg1, mg2 = cross(w0, w1, w2, v0, v1, v2)
    k = magnus * dens * volume
    mg0 *= k
    mg1 *= k
    mg2 *= k
    # projected area along the velocity and the normal of that cross-section, from the semi-axes scaled by
    # 1/d_max and the unit velocity (3.17: dimensionless, so thin or slow geoms stay clear of the 1e-15 guards)
    inv_dmax = 1.0 / d_max if d_max > MINVAL else 0.0
    n0 = s0 * inv_dmax
    n1 = s1 * inv_dmax
    n2 = s2 * inv_dmax
    a = (n1 * n2) * (n1 * n2)
    b = (n0 * n2) * (n0 * n2)
    c = (n0 * n1) * (n0 * n1)
    speed = _norm3(v0, v1, v2)
    inv_speed = 1.0 / speed if speed > MINVAL else 0.0
    u0 = v0 * inv_speed
    u1 = v1 * inv_speed
    u2 = v2 * inv_speed
    proj_num = ((a * u0) * u0 + (b * u1) * u1) + (c * u2) * u2
    inv_num = 1.0 / proj_num if proj_num > MINVAL else 0.0
    ia = inv_num * a
    ib = inv_num * b
    ic = inv_num * c
    # proj_denom / proj_num^2
    q = ((ia * ia * u0) * u0 + (ib * ib * u1) * u1) + (ic * ic * u2) * u2
    a_proj = ((math.pi * d_max) * d_max) * math.sqrt(q * proj_num)
    inv_q = 1.0 / q if q > MINVAL else 0.0
    # Kutta-Joukowski lift: circulation (normal / proj_num) x v scaled by cos(alpha) A_proj, force = circulation x v
    c0, c1, c2 = cross(ia * u0, ib * u1, ic * u2, v0, v1, v2)
    k = a_proj * ((dens * kutta) * inv_q)
    c0 *= k
    c1 *= k
    c2 *= k
    k0, k1, k2 = cross(c0, c1, c2, v0, v1, v2)
    # Stokes drag of the equivalent sphere
    eq_d = 2.0 / 3.0 * (s0 + s1 + s2)
    lin_visc_force = 3.0 * math.pi * eq_d
    lin_visc_torque = math.pi * eq_d * eq_d * eq_d
    # quadratic angular drag from the ellipsoid's moments
    i_max = 8.0 / 15.0 * math.pi * d_mid * _pow4(d_max)
    ii0 = _max_moment(s0, s1, s2)
    ii1 = _max_moment(s1, s2, s0)
    ii2 = _max_moment(s2, s0, s1)
    m0 = w0 * (angdrag * ii0 + slender * (i_max - ii0))
    m1 = w1 * (angdrag * ii1 + slender * (i_max - ii1))
    m2 = w2 * (angdrag * ii2 + slender * (i_max - ii2))
    drag_lin = visc * lin_visc_force + dens * speed * (a_proj * blunt + slender * (a_max - a_proj))
    drag_ang = visc * lin_visc_torque + dens * _norm3(m0, m1, m2)
    return (
        -(drag_ang * w0),
        -(drag_ang * w1),
        -(drag_ang * w2),
        mg0 + k0 - drag_lin * v0,
        mg1 + k1 - drag_lin * v1,
        mg2 + k2 - drag_lin * v2,
    )


@njit(cache=True)
def ellipsoid_fluid(m, d, w, body):
    """qfrc_fluid (nv,) += ellipsoid-model fluid force of every geom of body (mj_ellipsoidFluidModel):
    added mass, Magnus and Kutta lift, viscous and quadratic drag at the geom center, geom frame."""
    dens = m.opt[OPT_DENSITY]
    visc = m.opt[OPT_VISCOSITY]
    out = d.qfrc_fluid[w]
    for g in range(m.body_geomadr[body], m.body_geomadr[body] + m.body_geomnum[body]):
        fl = m.geom_fluid[g]
        coef = fl[0]
        if coef == 0.0:
            continue
        s0, s1, s2 = geom_semi_axes(m.geom_size[g], m.geom_type[g])
        pos = d.geom_xpos[w][g]
        mat = d.geom_xmat[w][g]
        w0, w1, w2, v0, v1, v2 = local_velocity(m, d, w, body, pos, mat)
        # lfrc starts at zero: the added-mass terms are its first values, then the viscous terms add on
        l0, l1, l2, l3, l4, l5 = added_mass_forces(w0, w1, w2, v0, v1, v2, dens, fl)
        q0, q1, q2, q3, q4, q5 = viscous_forces(w0, w1, w2, v0, v1, v2, dens, visc, s0, s1, s2, fl)
        # torque: lfrc -= drag_ang * w (q0..q2 hold -(drag_ang*w)), force: lfrc += magnus + kutta - drag
        l0 = (l0 + q0) * coef
        l1 = (l1 + q1) * coef
        l2 = (l2 + q2) * coef
        l3 = (l3 + q3) * coef
        l4 = (l4 + q4) * coef
        l5 = (l5 + q5) * coef
        t0, t1, t2 = mat_vec3(mat, l0, l1, l2)
        f0, f1, f2 = mat_vec3(mat, l3, l4, l5)
        apply_ft(m, d, w, f0, f1, f2, t0, t1, t2, pos[0], pos[1], pos[2], body, out)


@njit(cache=True)
def uses_ellipsoid(m, body):
    """1 if any geom of body has the ellipsoid fluid model on (geom_fluid[g, 0] > 0), which turns the
    inertia-box model off for that body (mj_fluid)."""
    for g in range(m.body_geomadr[body], m.body_geomadr[body] + m.body_geomnum[body]):
        if m.geom_fluid[g, 0] > 0:
            return 1
    return 0


@njit(cache=True)
def fluid(m, d, w):
    """qfrc_fluid (nv,) += fluid forces of every body with mass; returns 1 if density or viscosity is
    non-zero (mj_fluid)."""
    if m.opt[OPT_VISCOSITY] == 0.0 and m.opt[OPT_DENSITY] == 0.0:
        return 0
    for i in range(m.nbody):
        if m.body_mass[i] < MINVAL:
            continue
        if uses_ellipsoid(m, i):
            ellipsoid_fluid(m, d, w, i)
        else:
            inertia_box_fluid(m, d, w, i)
    return 1
