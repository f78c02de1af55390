"""Analytic derivative of the smooth forces w.r.t. velocity, qDeriv (nD,) = d qfrc_smooth / d qvel in the
symmetric dof-dof sparsity D (mjd_smooth_vel): actuator gains/biases, passive damping (dof, tendon,
inertia-box or ellipsoid fluid model) and optionally the RNE bias (mjd_rne_vel); the free-body 6x6 block of the implicitfast
local solve (mjd_freeMhat); the no-fill sparse LU used by the implicit integrator."""

import math
from sim.jit import njit

from sim.engine.math import d_poly_force, cross, mul_inert_vec, add_to_scl_sparse_inc
from sim.engine.crb import dot_sparse
from sim.engine.fluid import uses_ellipsoid, geom_semi_axes, local_velocity, added_mass_momenta
from sim.engine.actuation import next_activation, actuator_disabled, muscle_gain_length, muscle_length, dcmotor_slots
from sim.constants import (
    OPT_DISABLE,
    OPT_INTEGRATOR,
    INT_IMPLICITFAST,
    OPT_WIND,
    OPT_DENSITY,
    OPT_VISCOSITY,
    DSBL_SPRING,
    DSBL_DAMPER,
    DSBL_ACTUATION,
    DSBL_CLAMPCTRL,
    OPT_TIMESTEP,
    BIAS_AFFINE,
    BIAS_DCMOTOR,
    GAIN_AFFINE,
    GAIN_MUSCLE,
    GAIN_DCMOTOR,
    INPUT_POS,
    INPUT_VEL,
    INPUT_FF,
    DYN_NONE,
    JNT_FREE,
    JNT_BALL,
    MINVAL,
)


# ------------------------------------------------------------------------------------------
# sparse helpers


@njit(cache=True)
def add_jtbj_row(m, qd, vals, cols, n, b):
    """qDeriv += J' b J for one sparse row J (vals, cols sorted, n nonzeros), as addJTBJSparse with n=1."""
    for k in range(n):
        c = cols[k]
        add_to_scl_sparse_inc(qd, m.D_colind, m.D_rowadr[c], m.D_rownnz[c], vals, cols, 0, n, vals[k] * b)


@njit(cache=True)
def factor_lu_sparse(LU, n, remaining, rownnz, rowadr, colind):
    """In-place reverse-order sparse LU without fill-in (tree sparsity D), mju_factorLUSparse:
    LU = L + U with original = (U + I) L.  A pivot smaller than mjMINVAL in magnitude (a singular matrix) is set
    to mjMINVAL, as MuJoCo 3.17 does; returns the first such row (highest index), -1 when none (mjWARN_INERTIA)."""
    bad = -1
    for i in range(n):
        remaining[i] = rownnz[i]
    for i in range(n - 1, -1, -1):
        ii = rowadr[i] + remaining[i] - 1
        remaining[i] -= 1
        if abs(LU[ii]) < MINVAL:
            LU[ii] = MINVAL
            if bad < 0:
                bad = i
        for j in range(i - 1, -1, -1):
            ji = rowadr[j] + remaining[j] - 1
            if colind[ji] == i:
                remaining[j] -= 1
                LU[ji] = LU[ji] / LU[ii]
                luji = LU[ji]
                icnt = rowadr[i]
                jcnt = rowadr[j]
                jend = rowadr[j] + remaining[j]
                while jcnt < jend:
                    if colind[icnt] == colind[jcnt]:
                        LU[jcnt] -= LU[icnt] * luji
                        jcnt += 1
                        icnt += 1
                    elif colind[icnt] > colind[jcnt]:
                        jcnt += 1
                    else:
                        break  # would need fill-in: cannot happen for tree sparsity
    return bad


@njit(cache=True)
def solve_lu_sparse(res, LU, vec, n, rownnz, rowadr, diag, colind):
    """res (n,) = mat^-1 vec from the factor of factor_lu_sparse, mju_solveLUSparse."""
    for i in range(n - 1, -1, -1):
        res[i] = vec[i]
        d1 = diag[i] + 1
        nnz = rownnz[i] - d1
        if nnz > 0:
            res[i] -= dot_sparse(LU, rowadr[i] + d1, res, nnz, colind)
    for i in range(n):
        dg = diag[i]
        adr = rowadr[i]
        if dg > 0:
            res[i] -= dot_sparse(LU, adr, res, dg, colind)
        res[i] /= LU[adr + dg]


@njit(cache=True)
def dof_nancestor(m, j):
    """Number of dof ancestors of dof j (= its column index in its body's B row)."""
    n = 0
    p = m.dof_parentid[j]
    while p >= 0:
        n += 1
        p = m.dof_parentid[p]
    return n


@njit(cache=True)
def is_free_body(m, body):
    """1 if body has a single free joint and forms a standalone 6-dof tree without children, mj_isFreeBody."""
    if m.body_jntnum[body] != 1 or m.jnt_type[m.body_jntadr[body]] != JNT_FREE:
        return False
    adr = m.jnt_dofadr[m.body_jntadr[body]]
    return m.tree_dofnum[m.dof_treeid[adr]] == 6 and m.body_subtreemass[body] == m.body_mass[body]


# ------------------------------------------------------------------------------------------
# actuators (mjd_actuator_vel)


@njit(cache=True)
def muscle_gain_vel(ln, vel, lr, acc0, prm):
    """d(muscle gain)/d(velocity), mjd_muscleGain_vel (negated scaled slope of the FV curve)."""
    force, L0, L = muscle_length(ln, lr, acc0, prm)
    V = vel / max(MINVAL, L0 * prm[6])
    FL = muscle_gain_length(L, prm[4], prm[5])
    y = prm[8] - 1.0
    if V <= -1.0:
        dFV = 0.0
    elif V <= 0.0:
        dFV = 2.0 * V + 2.0
    elif V <= y:
        dFV = (-2.0 * V + 2.0 * y) / max(MINVAL, y)
    else:
        dFV = 0.0
    return -force * FL * dFV / max(MINVAL, L0 * prm[6])


@njit(cache=True)
def dcmotor_resistance(m, d, w, i):
    """DC motor i's resistance at its temperature state (the nameplate R without a thermal model)."""
    gp = m.actuator_gainprm[i]
    dp = m.actuator_dynprm[i]
    R = gp[0]
    slew, integral, temperature, bristle, current, n = dcmotor_slots(dp, gp)
    if temperature >= 0:
        T = d.act[w][m.actuator_actadr[i] + temperature]
        R *= 1 + gp[2] * (T + dp[4] - gp[3])
    return R


@njit(cache=True)
def dcmotor_vel(m, d, w, i):
    """d force / d velocity of DC motor i's controller (kd through the torque -> voltage map, back-EMF
    compensation), its current state's back-EMF (through the exact current update) and LuGre's sigma1 damping,
    as mjd_actuator_vel (Vmax clipping and d a / d v ignored, as there).  Measured on mujoco 3.17.0 (bitwise): the
    divisions use the resistance at the temperature state, the controller's dV/dw the nameplate R."""
    dp = m.actuator_dynprm[i]
    gp = m.actuator_gainprm[i]
    te = dp[0]
    out = 0.0
    dvdw = 0.0
    R = max(MINVAL, dcmotor_resistance(m, d, w, i))
    if m.actuator_ctrlspec[i] & (INPUT_POS | INPUT_VEL | INPUT_FF):
        dvdw = -gp[6] * max(MINVAL, gp[0]) / gp[1] + gp[1]  # the controller maps with the nameplate R
    if te > 0:
        s = 1.0 - math.exp(-m.opt[OPT_TIMESTEP] / te)
        out += gp[1] * (dvdw - gp[1]) * s / R
    elif dvdw != 0.0:
        out += gp[1] * dvdw / R
    if dp[6] > 0:
        out -= dp[6]
    return out


@njit(cache=True)
def actuator_vel(m, d, w, qd):
    """qDeriv += sum_i moment_i' (d force_i / d velocity) moment_i (affine gain/bias kv, muscle FV slope)."""
    if int(m.opt[OPT_DISABLE]) & DSBL_ACTUATION:
        return
    clamp_off = int(m.opt[OPT_DISABLE]) & DSBL_CLAMPCTRL
    force = d.actuator_force[w]
    moment = d.actuator_moment[w]
    rownnz = d.moment_rownnz[w]
    rowadr = d.moment_rowadr[w]
    colind = d.moment_colind[w]
    for i in range(m.nu):
        if actuator_disabled(m, i):
            continue
        if m.actuator_forcelimited[i]:
            if force[i] <= m.actuator_forcerange[i, 0] or force[i] >= m.actuator_forcerange[i, 1]:
                continue
        bias_vel = 0.0
        gain_vel = 0.0
        if m.actuator_biastype[i] == BIAS_AFFINE:
            bias_vel = m.actuator_biasprm[i, 2]
        elif m.actuator_biastype[i] == BIAS_DCMOTOR:
            if m.actuator_dynprm[i, 0] <= 0:  # back-EMF of a motor without a current state
                K = m.actuator_gainprm[i, 1]
                bias_vel -= K * K / max(MINVAL, dcmotor_resistance(m, d, w, i))
        if m.actuator_gaintype[i] == GAIN_AFFINE:
            gain_vel = m.actuator_gainprm[i, 2]
        elif m.actuator_gaintype[i] == GAIN_MUSCLE:
            gain_vel = muscle_gain_vel(
                d.actuator_length[w][i],
                d.actuator_velocity[w][i],
                m.actuator_lengthrange[i],
                m.actuator_acc0[i],
                m.actuator_gainprm[i],
            )
        elif m.actuator_gaintype[i] == GAIN_DCMOTOR:
            bias_vel += dcmotor_vel(m, d, w, i)
        if gain_vel != 0.0:
            if m.actuator_dyntype[i] == DYN_NONE:
                # the clamped control, as the forward actuation uses it (mujoco 3.17)
                c = d.ctrl[w][i]
                if m.actuator_ctrllimited[i] and not clamp_off:
                    c = min(max(c, m.actuator_ctrlrange[i, 0]), m.actuator_ctrlrange[i, 1])
                bias_vel += gain_vel * c
            else:
                aa = m.actuator_actadr[i] + m.actuator_actnum[i] - 1
                act = d.act[w][aa]
                if m.actuator_actearly[i]:
                    act = next_activation(m, d, w, i, aa, d.act_dot[w][aa])
                bias_vel += gain_vel * act
        if bias_vel != 0.0:
            a = rowadr[i]
            n = rownnz[i]
            add_jtbj_row(m, qd, moment[a : a + n], colind[a : a + n], n, bias_vel)


# ------------------------------------------------------------------------------------------
# passive forces (mjd_passive_vel, mjd_inertiaBoxFluid)


@njit(cache=True)
def _fluid_jac_local(m, d, w, i, pos, mat):
    """Jacobian of the point pos (3,) on body i over its dof chain, rotated into the frame mat (9,): rows 0-2
    angular, 3-5 linear, in scr_fjac[w] (6, nnz) with columns scr_fjacind[w] (sorted); returns nnz
    (mj_jacSparse + mju_mulMatTMat as in mjd_inertiaBoxFluid / mjd_ellipsoidFluid)."""
    J = d.scr_fjac[w]
    ind = d.scr_fjacind[w]
    b = m.body_weldid[i]
    if m.body_dofnum[b] == 0:
        return 0
    nnz = 0
    da = m.body_dofadr[b] + m.body_dofnum[b] - 1
    while da >= 0:
        nnz += 1
        da = m.dof_parentid[da]
    cdof = d.cdof[w]
    sc = d.subtree_com[w][m.body_rootid[i]]
    xm = mat
    o0 = pos[0] - sc[0]
    o1 = pos[1] - sc[1]
    o2 = pos[2] - sc[2]
    k = nnz - 1
    da = m.body_dofadr[b] + m.body_dofnum[b] - 1
    while da >= 0:
        ind[k] = da
        c = cdof[da]
        x0, x1, x2 = cross(c[0], c[1], c[2], o0, o1, o2)
        jg0 = c[0]
        jg1 = c[1]
        jg2 = c[2]
        jp0 = c[3] + x0
        jp1 = c[4] + x1
        jp2 = c[5] + x2
        # mat' * J, accumulated row by row (mju_mulMatTMat)
        for r in range(3):
            J[r, k] = ((0.0 + xm[r] * jg0) + xm[3 + r] * jg1) + xm[6 + r] * jg2
            J[3 + r, k] = ((0.0 + xm[r] * jp0) + xm[3 + r] * jp1) + xm[6 + r] * jp2
        k -= 1
        da = m.dof_parentid[da]
    return nnz


@njit(cache=True)
def inertia_box_fluid_vel(m, d, w, i, qd):
    """qDeriv += d(inertia-box fluid force of body i)/d qvel, mjd_inertiaBoxFluid (viscous + quadratic drag)."""
    inertia = m.body_inertia[i]
    mass = m.body_mass[i]
    bx = math.sqrt(max(MINVAL, inertia[1] + inertia[2] - inertia[0]) / mass * 6.0)
    by = math.sqrt(max(MINVAL, inertia[0] + inertia[2] - inertia[1]) / mass * 6.0)
    bz = math.sqrt(max(MINVAL, inertia[0] + inertia[1] - inertia[2]) / mass * 6.0)
    nnz = _fluid_jac_local(m, d, w, i, d.xipos[w][i], d.ximat[w][i])
    if nnz == 0:
        return
    J = d.scr_fjac[w]
    ind = d.scr_fjacind[w][:nnz]
    visc = m.opt[OPT_VISCOSITY]
    dens = m.opt[OPT_DENSITY]
    if visc > 0:
        diam = (bx + by + bz) / 3.0
        B = -math.pi * diam * diam * diam * visc
        for r in range(3):
            add_jtbj_row(m, qd, J[r, :nnz], ind, nnz, B)
        B = -3.0 * math.pi * diam * visc
        for r in range(3):
            add_jtbj_row(m, qd, J[3 + r, :nnz], ind, nnz, B)
    if dens > 0:
        # local 6D velocity at the CoM in the inertial frame minus the wind (mj_objectVelocity, flg_local)
        cvel = d.cvel[w][i]
        xp = d.xipos[w][i]
        xm = d.ximat[w][i]
        sc = d.subtree_com[w][m.body_rootid[i]]
        c0, c1, c2 = cross(xp[0] - sc[0], xp[1] - sc[1], xp[2] - sc[2], cvel[0], cvel[1], cvel[2])
        l0 = xm[0] * cvel[0] + xm[3] * cvel[1] + xm[6] * cvel[2]
        l1 = xm[1] * cvel[0] + xm[4] * cvel[1] + xm[7] * cvel[2]
        l2 = xm[2] * cvel[0] + xm[5] * cvel[1] + xm[8] * cvel[2]
        u0 = cvel[3] - c0 - m.opt[OPT_WIND]
        u1 = cvel[4] - c1 - m.opt[OPT_WIND + 1]
        u2 = cvel[5] - c2 - m.opt[OPT_WIND + 2]
        l3 = xm[0] * u0 + xm[3] * u1 + xm[6] * u2
        l4 = xm[1] * u0 + xm[4] * u1 + xm[7] * u2
        l5 = xm[2] * u0 + xm[5] * u1 + xm[8] * u2
        bx4 = bx * bx * bx * bx
        by4 = by * by * by * by
        bz4 = bz * bz * bz * bz
        add_jtbj_row(m, qd, J[0, :nnz], ind, nnz, -dens * bx * (by4 + bz4) * 2 * abs(l0) / 64.0)
        add_jtbj_row(m, qd, J[1, :nnz], ind, nnz, -dens * by * (bx4 + bz4) * 2 * abs(l1) / 64.0)
        add_jtbj_row(m, qd, J[2, :nnz], ind, nnz, -dens * bz * (bx4 + by4) * 2 * abs(l2) / 64.0)
        add_jtbj_row(m, qd, J[3, :nnz], ind, nnz, -0.5 * dens * by * bz * 2 * abs(l3))
        add_jtbj_row(m, qd, J[4, :nnz], ind, nnz, -0.5 * dens * bx * bz * 2 * abs(l4))
        add_jtbj_row(m, qd, J[5, :nnz], ind, nnz, -0.5 * dens * bx * by * 2 * abs(l5))


# ------------------------------------------------------------------------------------------
# ellipsoid fluid model (mjd_ellipsoidFluid and its component derivatives). 3x3 blocks are 9-tuples in
# MuJoCo's layout; B (36,) is the 6x6 local derivative, added to qDeriv as J' B J with B[6a + b].

TINY = 1e-300  # floor of the denominators that mujoco 3.17 does not clamp at MINVAL (avoids 0/0 only)


@njit(cache=True)
def _d_cross(a0, a1, a2, b0, b1, b2):
    """(Da, Db) 9-tuples: derivatives of cross(a, b) w.r.t. a and w.r.t. b (mjd_cross)."""
    Da = (0.0, b2, -b1, -b2, 0.0, b0, b1, -b0, 0.0)
    Db = (0.0, -a2, a1, a2, 0.0, -a0, -a1, a0, 0.0)
    return Da, Db


@njit(cache=True)
def _add_to_quadrant(B, D, col_quad, row_quad):
    """B (36,) += the 9-tuple D in the 3x3 quadrant (col_quad, row_quad) (addToQuadrant)."""
    r = 3 * row_quad
    c = 3 * col_quad
    for i in range(3):
        for j in range(3):
            B[6 * (c + i) + r + j] += D[3 * i + j]


@njit(cache=True)
def _scale_cols(D, s0, s1, s2):
    """9-tuple D[i] * s[i % 3]."""
    return (D[0] * s0, D[1] * s1, D[2] * s2, D[3] * s0, D[4] * s1, D[5] * s2, D[6] * s0, D[7] * s1, D[8] * s2)


@njit(cache=True)
def _d_added_mass(B, lv, dens, fl):
    """B += derivative of the added-mass forces (mjd_addedMassForces); lv 6-tuple (ang, lin), fl (12,)."""
    w0 = lv[0]
    w1 = lv[1]
    w2 = lv[2]
    v0 = lv[3]
    v1 = lv[4]
    v2 = lv[5]
    p0, p1, p2, h0, h1, h2 = added_mass_momenta(w0, w1, w2, v0, v1, v2, dens, fl)
    sm0 = dens * fl[6]
    sm1 = dens * fl[7]
    sm2 = dens * fl[8]
    # torque += cross(ang momentum, ang vel)
    Da, Db = _d_cross(h0, h1, h2, w0, w1, w2)
    _add_to_quadrant(B, Db, 0, 0)
    _add_to_quadrant(B, _scale_cols(Da, dens * fl[9], dens * fl[10], dens * fl[11]), 0, 0)
    # torque += cross(lin momentum, lin vel)
    Da, Db = _d_cross(p0, p1, p2, v0, v1, v2)
    _add_to_quadrant(B, Db, 0, 1)
    _add_to_quadrant(B, _scale_cols(Da, sm0, sm1, sm2), 0, 1)
    # force += cross(lin momentum, ang vel)
    Da, Db = _d_cross(p0, p1, p2, w0, w1, w2)
    _add_to_quadrant(B, Db, 1, 0)
    _add_to_quadrant(B, _scale_cols(Da, sm0, sm1, sm2), 1, 1)


@njit(cache=True)
def _ellipsoid_max_moment(s0, s1, s2):
    """Largest moment about axis 0 of a unit-density ellipsoid (ellipsoid_max_moment in the derivative)."""
    t = max(s1, s2)
    t = t * t
    return 8.0 / 15.0 * math.pi * s0 * (t * t)


@njit(cache=True)
def _d_viscous_torque(lv, dens, visc, s0, s1, s2, slender, angdrag):
    """9-tuple derivative of the viscous + quadratic angular drag torque w.r.t. the local angular velocity
    (mjd_viscous_torque)."""
    d_max = max(max(s0, s1), s2)
    d_min = min(min(s0, s1), s2)
    d_mid = s0 + s1 + s2 - d_max - d_min
    eq_d = 2.0 / 3.0 * (s0 + s1 + s2)
    lin_visc_torq_coef = math.pi * eq_d * eq_d * eq_d
    i_max = 8.0 / 15.0 * math.pi * d_mid * (d_max * d_max) * (d_max * d_max)
    ii0 = _ellipsoid_max_moment(s0, s1, s2)
    ii1 = _ellipsoid_max_moment(s1, s2, s0)
    ii2 = _ellipsoid_max_moment(s2, s0, s1)
    x = lv[0]
    y = lv[1]
    z = lv[2]
    mc0 = angdrag * ii0 + slender * (i_max - ii0)
    mc1 = angdrag * ii1 + slender * (i_max - ii1)
    mc2 = angdrag * ii2 + slender * (i_max - ii2)
    mv0 = x * mc0
    mv1 = y * mc1
    mv2 = z * mc2
    density = dens / max(MINVAL, math.sqrt(mv0 * mv0 + mv1 * mv1 + mv2 * mv2))
    q0 = -density * x * mc0 * mc0
    q1 = -density * y * mc1 * mc1
    q2 = -density * z * mc2 * mc2
    lin_coef = visc * lin_visc_torq_coef
    dg = x * q0 + y * q1 + z * q2 - lin_coef
    return (
        dg + q0 * x,
        0.0 + q1 * x,
        0.0 + q2 * x,
        0.0 + q0 * y,
        dg + q1 * y,
        0.0 + q2 * y,
        0.0 + q0 * z,
        0.0 + q1 * z,
        dg + q2 * z,
    )


@njit(cache=True)
def _d_viscous_drag(lv, dens, visc, s0, s1, s2, blunt, slender):
    """9-tuple derivative of the linear (Stokes) + quadratic drag force w.r.t. the local linear velocity
    (mjd_viscous_drag)."""
    d_max = max(max(s0, s1), s2)
    d_min = min(min(s0, s1), s2)
    d_mid = s0 + s1 + s2 - d_max - d_min
    eq_d = 2.0 / 3.0 * (s0 + s1 + s2)
    a_max = math.pi * d_max * d_mid
    a = s1 * s2
    a = a * a
    b = s2 * s0
    b = b * b
    c = s0 * s1
    c = c * c
    aa = a * a
    bb = b * b
    cc = c * c
    x = lv[3]
    y = lv[4]
    z = lv[5]
    xx = x * x
    yy = y * y
    zz = z * z
    xy = x * y
    yz = y * z
    xz = x * z
    lin_coef = visc * 3.0 * math.pi * eq_d
    if xx + yy + zz == 0.0:
        # at rest only the Stokes term is left (mujoco 3.17 gives exact zeros for the quadratic part)
        return (-lin_coef, 0.0, 0.0, 0.0, -lin_coef, 0.0, 0.0, 0.0, -lin_coef)
    proj_denom = aa * xx + bb * yy + cc * zz
    proj_num = a * xx + b * yy + c * zz
    # no 1e-15 floor on these two denominators: measured against mujoco 3.17, whose values follow the
    # unclamped expressions (thin geoms reach proj_num^3 proj_denom < 1e-30 at ordinary speeds)
    dA_coef = math.pi / max(TINY, math.sqrt(proj_num * proj_num * proj_num * proj_denom))
    a_proj = math.pi * math.sqrt(proj_denom / max(TINY, proj_num))
    norm = math.sqrt(xx + yy + zz)
    inv_norm = 1.0 / max(MINVAL, norm)
    quad_coef = dens * (a_proj * blunt + slender * (a_max - a_proj))
    aproj_coef = dens * norm * (blunt - slender)
    g0 = aproj_coef * dA_coef * a * x * (b * yy * (a - b) + c * zz * (a - c))
    g1 = aproj_coef * dA_coef * b * y * (a * xx * (b - a) + c * zz * (b - c))
    g2 = aproj_coef * dA_coef * c * z * (a * xx * (c - a) + b * yy * (c - b))
    inner = xx + yy + zz
    s = -quad_coef * inv_norm
    nx = -x
    ny = -y
    nz = -z
    return (
        (xx + inner) * s + g0 * nx - lin_coef,
        xy * s + g1 * nx,
        xz * s + g2 * nx,
        xy * s + g0 * ny,
        (yy + inner) * s + g1 * ny - lin_coef,
        yz * s + g2 * ny,
        xz * s + g0 * nz,
        yz * s + g1 * nz,
        (zz + inner) * s + g2 * nz - lin_coef,
    )


@njit(cache=True)
def _d_kutta_lift(lv, dens, s0, s1, s2, kutta):
    """9-tuple derivative of the Kutta-Joukowski lift w.r.t. the local linear velocity (mjd_kutta_lift)."""
    a = s1 * s2
    a = a * a
    b = s2 * s0
    b = b * b
    c = s0 * s1
    c = c * c
    aa = a * a
    bb = b * b
    cc = c * c
    x = lv[3]
    y = lv[4]
    z = lv[5]
    xx = x * x
    yy = y * y
    zz = z * z
    xy = x * y
    yz = y * z
    xz = x * z
    proj_denom = aa * xx + bb * yy + cc * zz
    proj_num = a * xx + b * yy + c * zz
    norm2 = xx + yy + zz
    if norm2 == 0.0:
        return (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    # denominators without the 1e-15 floor, as measured against mujoco 3.17 (see _d_viscous_drag)
    df_denom = math.pi * kutta * dens / max(TINY, math.sqrt(proj_denom * proj_num * norm2))
    fx = yy * (a - b) + zz * (a - c)
    fy = xx * (b - a) + zz * (b - c)
    fz = xx * (c - a) + yy * (c - b)
    proj_term = proj_num / max(TINY, proj_denom)
    cos_term = proj_num / max(TINY, norm2)
    s = 2 * proj_num
    t0 = aa * proj_term - a + cos_term
    t1 = bb * proj_term - b + cos_term
    t2 = cc * proj_term - c + cos_term
    # ((2 proj_num (col - row) + outer(coef, inner_term)) * v v' - diag(coef) proj_num) * df_denom
    return (
        (((a - a) * s + t0 * fx) * xx - fx * proj_num) * df_denom,
        (((b - a) * s + t1 * fx) * xy) * df_denom,
        (((c - a) * s + t2 * fx) * xz) * df_denom,
        (((a - b) * s + t0 * fy) * xy) * df_denom,
        (((b - b) * s + t1 * fy) * yy - fy * proj_num) * df_denom,
        (((c - b) * s + t2 * fy) * yz) * df_denom,
        (((a - c) * s + t0 * fz) * xz) * df_denom,
        (((b - c) * s + t1 * fz) * yz) * df_denom,
        (((c - c) * s + t2 * fz) * zz - fz * proj_num) * df_denom,
    )


@njit(cache=True)
def _d_magnus(B, lv, dens, s0, s1, s2, magnus):
    """B += derivative of the Magnus force w.r.t. the local angular and linear velocity (mjd_magnus_force)."""
    volume = 4.0 / 3.0 * math.pi * s0 * s1 * s2
    k = magnus * dens * volume
    D_ang, D_lin = _d_cross(k * lv[0], k * lv[1], k * lv[2], k * lv[3], k * lv[4], k * lv[5])
    _add_to_quadrant(B, D_ang, 1, 0)
    _add_to_quadrant(B, D_lin, 1, 1)


@njit(cache=True)
def ellipsoid_fluid_b(B, lv, dens, visc, s0, s1, s2, fl):
    """B (36,) = local 6x6 derivative of one geom's ellipsoid-model force w.r.t. its local 6D velocity lv
    (magnus, kutta, drag, angular drag, added mass, in mjd_ellipsoidFluid's order); fl (12,) geom_fluid."""
    B[:] = 0.0
    _d_magnus(B, lv, dens, s0, s1, s2, fl[5])
    _add_to_quadrant(B, _d_kutta_lift(lv, dens, s0, s1, s2, fl[4]), 1, 1)
    _add_to_quadrant(B, _d_viscous_drag(lv, dens, visc, s0, s1, s2, fl[1], fl[2]), 1, 1)
    _add_to_quadrant(B, _d_viscous_torque(lv, dens, visc, s0, s1, s2, fl[2], fl[3]), 0, 0)
    _d_added_mass(B, lv, dens, fl)


@njit(cache=True)
def symmetrize6(B):
    """B (36,) := (B + B') / 2 in place (mju_symmetrize)."""
    for i in range(6):
        for j in range(i):
            v = 0.5 * (B[6 * i + j] + B[6 * j + i])
            B[6 * i + j] = v
            B[6 * j + i] = v


@njit(cache=True)
def add_jtbj6(m, qd, J, ind, nnz, B):
    """qDeriv += J' B J for J (6, nnz) with shared sorted columns ind and B (36,), in addJTBJSparse's order
    (zero entries of B skipped)."""
    for i in range(6):
        for j in range(6):
            bij = B[6 * i + j]
            if bij == 0.0:
                continue
            for k in range(nnz):
                c = ind[k]
                add_to_scl_sparse_inc(qd, m.D_colind, m.D_rowadr[c], m.D_rownnz[c], J[j], ind, 0, nnz, J[i, k] * bij)


@njit(cache=True)
def ellipsoid_fluid_vel(m, d, w, body, qd):
    """qDeriv += d(ellipsoid-model fluid force of every geom of body)/d qvel (mjd_ellipsoidFluid); under
    implicitfast each geom's local 6x6 block is symmetrised unless body is a standalone free body."""
    dens = m.opt[OPT_DENSITY]
    visc = m.opt[OPT_VISCOSITY]
    sym = int(m.opt[OPT_INTEGRATOR]) == INT_IMPLICITFAST and not is_free_body(m, body)
    B = d.scr_mat6[w][0]
    J = d.scr_fjac[w]
    for g in range(m.body_geomadr[body], m.body_geomadr[body] + m.body_geomnum[body]):
        fl = m.geom_fluid[g]
        if fl[0] == 0.0:
            continue
        s0, s1, s2 = geom_semi_axes(m.geom_size[g], m.geom_type[g])
        pos = d.geom_xpos[w][g]
        mat = d.geom_xmat[w][g]
        lv = local_velocity(m, d, w, body, pos, mat)
        nnz = _fluid_jac_local(m, d, w, body, pos, mat)
        if nnz == 0:
            continue
        ellipsoid_fluid_b(B, lv, dens, visc, s0, s1, s2, fl)
        if sym:
            symmetrize6(B)
        add_jtbj6(m, qd, J, d.scr_fjacind[w], nnz, B)


@njit(cache=True)
def passive_vel(m, d, w, qd):
    """qDeriv += d qfrc_passive / d qvel: fluid (ellipsoid or inertia-box model per body), dof damping (incl. dampingpoly), tendon damping."""
    flags = int(m.opt[OPT_DISABLE])
    if (flags & DSBL_SPRING) and (flags & DSBL_DAMPER):
        return
    if m.opt[OPT_VISCOSITY] > 0 or m.opt[OPT_DENSITY] > 0:
        for i in range(m.nbody):
            if m.body_mass[i] < MINVAL:
                continue
            # a body with any ellipsoid-model geom has no inertia box (same rule as mj_fluid)
            if uses_ellipsoid(m, i):
                ellipsoid_fluid_vel(m, d, w, i, qd)
            else:
                inertia_box_fluid_vel(m, d, w, i, qd)
    if flags & DSBL_DAMPER:
        return
    qvel = d.qvel[w]
    for i in range(m.nv):
        qd[m.D_rowadr[i] + m.D_diag[i]] -= d_poly_force(
            m.dof_damping_eff[i], m.dof_dampingpoly_eff[i, 0], m.dof_dampingpoly_eff[i, 1], qvel[i], True
        )
    tv = d.ten_velocity[w]
    J = d.ten_J[w]
    for t in range(m.ntendon):
        B = -d_poly_force(
            m.tendon_damping_eff[t], m.tendon_dampingpoly_eff[t, 0], m.tendon_dampingpoly_eff[t, 1], tv[t], True
        )
        if B == 0.0:
            continue
        ra = m.ten_J_rowadr[t]
        n = m.ten_J_rownnz[t]
        add_jtbj_row(m, qd, J[ra : ra + n], m.ten_J_colind[ra : ra + n], n, B)


# ------------------------------------------------------------------------------------------
# RNE bias (mjd_rne_vel, sparse body-dof layout: rows of 6 per (body, dof in its B row))


@njit(cache=True)
def _cross_motion_vel(D, v):
    """D (36,) = d(vel x v)/d vel for motion vectors (mjd_crossMotion_vel)."""
    D[:] = 0.0
    D[2] = -v[1]
    D[1] = v[2]
    D[8] = v[0]
    D[6] = -v[2]
    D[13] = -v[0]
    D[12] = v[1]
    D[20] = -v[4]
    D[19] = v[5]
    D[23] = -v[1]
    D[22] = v[2]
    D[26] = v[3]
    D[24] = -v[5]
    D[29] = v[0]
    D[27] = -v[2]
    D[31] = -v[3]
    D[30] = v[4]
    D[34] = -v[0]
    D[33] = v[1]


@njit(cache=True)
def _cross_force_vel(D, f0, f1, f2, f3, f4, f5):
    """D (36,) = d(vel x* f)/d vel (mjd_crossForce_vel)."""
    D[:] = 0.0
    D[2] = -f1
    D[1] = f2
    D[5] = -f4
    D[4] = f5
    D[8] = f0
    D[6] = -f2
    D[11] = f3
    D[9] = -f5
    D[13] = -f0
    D[12] = f1
    D[16] = -f3
    D[15] = f4
    D[20] = -f4
    D[19] = f5
    D[26] = f3
    D[24] = -f5
    D[31] = -f3
    D[30] = f4


@njit(cache=True)
def _cross_force_frc(D, v):
    """D (36,) = d(vel x* f)/d f (mjd_crossForce_frc)."""
    D[:] = 0.0
    D[1] = -v[2]
    D[2] = v[1]
    D[4] = -v[5]
    D[5] = v[4]
    D[6] = v[2]
    D[8] = -v[0]
    D[9] = v[5]
    D[11] = -v[3]
    D[12] = -v[1]
    D[13] = v[0]
    D[15] = -v[4]
    D[16] = v[3]
    D[22] = -v[2]
    D[23] = v[1]
    D[27] = v[2]
    D[29] = -v[0]
    D[33] = -v[1]
    D[34] = v[0]


@njit(cache=True)
def _mul_inert_vec_vel(D, i):
    """D (36,) = d(cinert * v)/d v (mjd_mulInertVec_vel)."""
    D[:] = 0.0
    D[0] = i[0]
    D[1] = i[3]
    D[2] = i[4]
    D[4] = -i[8]
    D[5] = i[7]
    D[6] = i[3]
    D[7] = i[1]
    D[8] = i[5]
    D[9] = i[8]
    D[11] = -i[6]
    D[12] = i[4]
    D[13] = i[5]
    D[14] = i[2]
    D[15] = -i[7]
    D[16] = i[6]
    D[19] = i[8]
    D[20] = -i[7]
    D[21] = i[9]
    D[26] = i[6]
    D[24] = -i[8]
    D[28] = i[9]
    D[30] = i[7]
    D[31] = -i[6]
    D[35] = i[9]


@njit(cache=True)
def _rows_mul_t(dst, doff, src, soff, nrow, mat, add):
    """dst[doff+r] (=|+=) mat (6x6, (36,)) * src[soff+r] for r < nrow, i.e. src rows times mat' (mju_mulMatMat)."""
    for r in range(nrow):
        s = src[soff + r]
        o0 = 0.0
        o1 = 0.0
        o2 = 0.0
        o3 = 0.0
        o4 = 0.0
        o5 = 0.0
        for k in range(6):
            t = s[k]
            if t != 0.0:
                o0 += mat[k] * t
                o1 += mat[6 + k] * t
                o2 += mat[12 + k] * t
                o3 += mat[18 + k] * t
                o4 += mat[24 + k] * t
                o5 += mat[30 + k] * t
        o = dst[doff + r]
        if add:
            o[0] += o0
            o[1] += o1
            o[2] += o2
            o[3] += o3
            o[4] += o4
            o[5] += o5
        else:
            o[0] = o0
            o[1] = o1
            o[2] = o2
            o[3] = o3
            o[4] = o4
            o[5] = o5


@njit(cache=True)
def _copy_from_parent(m, mat, n):
    """Row block of body n := its parent's entries for the dofs of n's ancestors (copyFromParent)."""
    p = m.body_parentid[n]
    if n == 0 or m.body_weldid[p] == 0:
        return
    ndof = 0
    q = m.body_weldid[p]
    while q > 0:
        ndof += m.body_dofnum[q]
        q = m.body_weldid[m.body_parentid[q]]
    a = m.B_rowadr[n]
    ap = m.B_rowadr[p]
    for r in range(ndof):
        for c in range(6):
            mat[a + r, c] = mat[ap + r, c]


@njit(cache=True)
def _add_to_parent(m, mat, n):
    """Parent row block += entries of body n at the columns both share (addToParent)."""
    p = m.body_parentid[n]
    if n == 0 or m.body_weldid[p] == 0:
        return
    i = 0
    ip = 0
    an = m.B_rowadr[n]
    ap = m.B_rowadr[p]
    while i < m.B_rownnz[n] and ip < m.B_rownnz[p]:
        cn = m.B_colind[an + i]
        cp = m.B_colind[ap + ip]
        if cn == cp:
            for c in range(6):
                mat[ap + ip, c] += mat[an + i, c]
            i += 1
            ip += 1
        elif cn > cp:
            ip += 1
        else:
            break  # child columns are a subset of the parent's


@njit(cache=True)
def _com_vel_vel(m, d, w, Dcvel, Dcdofdot, mat):
    """Dcvel (nB,6) = d cvel / d qvel and Dcdofdot (nD,6) = d cdof_dot / d qvel (mjd_comVel_vel)."""
    cdof = d.cdof[w]
    Badr = m.B_rowadr
    Dadr = m.D_rowadr
    for i in range(1, m.nbody):
        _copy_from_parent(m, Dcvel, i)
        j = m.body_dofadr[i]
        last = j + m.body_dofnum[i]
        while j < last:
            Jadr = dof_nancestor(m, j)
            jt = m.jnt_type[m.dof_jntid[j]]
            if jt == JNT_FREE:
                for k in range(3):
                    for c in range(6):
                        Dcvel[Badr[i] + Jadr + k, c] += cdof[j + k, c]
                j += 3
                Jadr += 3
                jt = JNT_BALL
            if jt == JNT_BALL:
                for dj in range(3):
                    _cross_motion_vel(mat, cdof[j + dj])
                    _rows_mul_t(Dcdofdot, Dadr[j + dj], Dcvel, Badr[i], Jadr + dj, mat, False)
                for k in range(3):
                    for c in range(6):
                        Dcvel[Badr[i] + Jadr + k, c] += cdof[j + k, c]
                j += 3
            else:
                _cross_motion_vel(mat, cdof[j])
                _rows_mul_t(Dcdofdot, Dadr[j], Dcvel, Badr[i], Jadr, mat, False)
                for c in range(6):
                    Dcvel[Badr[i] + Jadr, c] += cdof[j, c]
                j += 1


@njit(cache=True)
def rne_vel(m, d, w, qd):
    """qDeriv -= d qfrc_bias / d qvel (sparse mjd_rne_vel; cross-body terms outside each body's B row dropped
    exactly as MuJoCo's addToParent does)."""
    Dcdofdot = d.scr_dcdofdot[w]
    Dcvel = d.scr_dcvel[w]
    Dcacc = d.scr_dcacc[w]
    Dcfrc = d.scr_dcfrc[w]
    M6 = d.scr_mat6[w]
    dmul = M6[0]
    mat = M6[1]
    mat1 = M6[2]
    mat2 = M6[3]
    Dcdofdot[:, :] = 0.0
    Dcvel[:, :] = 0.0
    Dcacc[:, :] = 0.0
    Dcfrc[:, :] = 0.0
    _com_vel_vel(m, d, w, Dcvel, Dcdofdot, mat)
    cdof = d.cdof[w]
    cdd = d.cdof_dot[w]
    cinert = d.cinert[w]
    cvel = d.cvel[w]
    qvel = d.qvel[w]
    Badr = m.B_rowadr
    Bnnz = m.B_rownnz
    for i in range(1, m.nbody):
        _copy_from_parent(m, Dcacc, i)
        a = Badr[i]
        nb = Bnnz[i]
        for j in range(m.body_dofadr[i], m.body_dofadr[i] + m.body_dofnum[i]):
            r = a + dof_nancestor(m, j)
            for c in range(6):
                Dcacc[r, c] += cdd[j, c]
            q = qvel[j]
            ad = m.D_rowadr[j]
            for k in range(nb):
                for c in range(6):
                    Dcacc[a + k, c] += Dcdofdot[ad + k, c] * q
        # Dcfrc = D(cinert*cacc + cvel x* (cinert*cvel))
        _mul_inert_vec_vel(dmul, cinert[i])
        _rows_mul_t(Dcfrc, a, Dcacc, a, nb, dmul, False)
        t0, t1, t2, t3, t4, t5 = mul_inert_vec(cinert[i], cvel[i])
        _cross_force_vel(mat, t0, t1, t2, t3, t4, t5)
        _cross_force_frc(mat1, cvel[i])
        for r in range(6):
            for c in range(6):
                s = 0.0
                for k in range(6):
                    t = mat1[6 * r + k]
                    if t != 0.0:
                        s += dmul[6 * k + c] * t
                mat2[6 * r + c] = s
        for k in range(36):
            mat[k] += mat2[k]
        _rows_mul_t(Dcfrc, a, Dcvel, a, nb, mat, True)
    for i in range(m.nbody - 1, 0, -1):
        _add_to_parent(m, Dcfrc, i)
    for j in range(m.nv):
        i = m.dof_bodyid[j]
        a = Badr[i]
        cj = cdof[j]
        ad = m.D_rowadr[j]
        for k in range(Bnnz[i]):
            f = Dcfrc[a + k]
            # mju_dot order for n=6
            s = ((f[0] * cj[0] + f[2] * cj[2]) + (f[1] * cj[1] + f[3] * cj[3])) + (f[4] * cj[4] + f[5] * cj[5])
            qd[ad + k] -= s


# ------------------------------------------------------------------------------------------
# entry point


@njit(cache=True)
def smooth_vel(m, d, w, flg_bias):
    """qDeriv (nD,) = d(qfrc_actuator + qfrc_passive [- qfrc_bias]) / d qvel, as mjd_smooth_vel."""
    qd = d.qDeriv[w]
    qd[:] = 0.0
    actuator_vel(m, d, w, qd)
    passive_vel(m, d, w, qd)
    if flg_bias:
        rne_vel(m, d, w, qd)


# ------------------------------------------------------------------------------------------
# standalone free bodies in implicitfast (mjd_freeMhat)


@njit(cache=True)
def free_mhat(m, d, w, jnt, h, A):
    """A (36,) = M - h*(qDeriv + d(-qfrc_bias)/d qvel) on the 6x6 block of the free joint of a standalone body."""
    body = m.jnt_bodyid[jnt]
    adr = m.jnt_dofadr[jnt]
    M = d.M[w]
    qd = d.qDeriv[w]
    A[:] = 0.0
    for r in range(6):
        ra = m.M_rowadr[adr + r]
        for k in range(m.M_rownnz[adr + r]):
            c = m.M_colind[ra + k] - adr
            A[6 * r + c] = M[ra + k]
            A[6 * c + r] = M[ra + k]
    for r in range(6):
        ra = m.D_rowadr[adr + r]
        for k in range(m.D_rownnz[adr + r]):
            c = m.D_colind[ra + k] - adr
            A[6 * r + c] -= h * qd[ra + k]
    # bias derivative of a free body: rotational columns [-mass*lin; rot] (freeBias_vel_blocks)
    mass = m.body_mass[body]
    R = d.xmat[w][body]
    Xi = d.ximat[w][body]
    I = m.body_inertia[body]
    xp = d.xipos[w][body]
    xb = d.xpos[w][body]
    s0 = xp[0] - xb[0]
    s1 = xp[1] - xb[1]
    s2 = xp[2] - xb[2]
    qv = d.qvel[w]
    v0 = qv[adr + 3]
    v1 = qv[adr + 4]
    v2 = qv[adr + 5]
    w0 = R[0] * v0 + R[1] * v1 + R[2] * v2
    w1 = R[3] * v0 + R[4] * v1 + R[5] * v2
    w2 = R[6] * v0 + R[7] * v1 + R[8] * v2
    # world inertia about the CoM Iw = Xi diag(I) Xi' (symmetric, 6 distinct entries)
    a0 = Xi[0] * I[0]
    a1 = Xi[1] * I[1]
    a2 = Xi[2] * I[2]
    a3 = Xi[3] * I[0]
    a4 = Xi[4] * I[1]
    a5 = Xi[5] * I[2]
    a6 = Xi[6] * I[0]
    a7 = Xi[7] * I[1]
    a8 = Xi[8] * I[2]
    i00 = a0 * Xi[0] + a1 * Xi[1] + a2 * Xi[2]
    i11 = a3 * Xi[3] + a4 * Xi[4] + a5 * Xi[5]
    i22 = a6 * Xi[6] + a7 * Xi[7] + a8 * Xi[8]
    i01 = a0 * Xi[3] + a1 * Xi[4] + a2 * Xi[5]
    i02 = a0 * Xi[6] + a1 * Xi[7] + a2 * Xi[8]
    i12 = a3 * Xi[6] + a4 * Xi[7] + a5 * Xi[8]
    Iw = (i00, i01, i02, i01, i11, i12, i02, i12, i22)
    ws0, ws1, ws2 = cross(w0, w1, w2, s0, s1, s2)
    iw0 = Iw[0] * w0 + Iw[1] * w1 + Iw[2] * w2
    iw1 = Iw[3] * w0 + Iw[4] * w1 + Iw[5] * w2
    iw2 = Iw[6] * w0 + Iw[7] * w1 + Iw[8] * w2
    wds = w0 * s0 + w1 * s1 + w2 * s2
    K = (
        s0 * w0 - wds,
        s0 * w1 - ws2,
        s0 * w2 + ws1,
        s1 * w0 + ws2,
        s1 * w1 - wds,
        s1 * w2 - ws0,
        s2 * w0 - ws1,
        s2 * w1 + ws0,
        s2 * w2 - wds,
    )
    W = d.scr_mat6[w][4]  # 0-8 lin, 9-17 C, 18-26 R'C
    for r in range(3):
        for c in range(3):
            W[3 * r + c] = K[3 * r] * R[c] + K[3 * r + 1] * R[3 + c] + K[3 * r + 2] * R[6 + c]
    for c in range(3):
        sk0 = s1 * K[6 + c] - s2 * K[3 + c]
        sk1 = s2 * K[c] - s0 * K[6 + c]
        sk2 = s0 * K[3 + c] - s1 * K[c]
        wi0 = w1 * Iw[6 + c] - w2 * Iw[3 + c]
        wi1 = w2 * Iw[c] - w0 * Iw[6 + c]
        wi2 = w0 * Iw[3 + c] - w1 * Iw[c]
        e0 = iw2 if c == 1 else (-iw1 if c == 2 else 0.0)
        e1 = -iw2 if c == 0 else (iw0 if c == 2 else 0.0)
        e2 = iw1 if c == 0 else (-iw0 if c == 1 else 0.0)
        W[9 + c] = -mass * sk0 + wi0 + e0
        W[12 + c] = -mass * sk1 + wi1 + e1
        W[15 + c] = -mass * sk2 + wi2 + e2
    for r in range(3):
        for c in range(3):
            W[18 + 3 * r + c] = R[r] * W[9 + c] + R[3 + r] * W[12 + c] + R[6 + r] * W[15 + c]
    hm = -h * mass
    for r in range(3):
        for c in range(3):
            rot = W[18 + 3 * r] * R[c] + W[18 + 3 * r + 1] * R[3 + c] + W[18 + 3 * r + 2] * R[6 + c]
            A[6 * r + 3 + c] += hm * W[3 * r + c]
            A[6 * (3 + r) + 3 + c] += h * rot


@njit(cache=True)
def solve_lu6(A, b, x):
    """x (6,) = A^-1 b by LU with partial pivoting of A (36,) in place (mju_factorLU6 + mju_solveLU6);
    returns 0 (x untouched) if A is singular."""
    p0 = 0
    p1 = 1
    p2 = 2
    p3 = 3
    p4 = 4
    p5 = 5
    for k in range(6):
        maxval = abs(A[7 * k])
        maxrow = k
        for i in range(k + 1, 6):
            v = abs(A[6 * i + k])
            if v > maxval:
                maxval = v
                maxrow = i
        if maxval < MINVAL:
            return 0
        if maxrow != k:
            for j in range(6):
                t = A[6 * k + j]
                A[6 * k + j] = A[6 * maxrow + j]
                A[6 * maxrow + j] = t
        if k == 0:
            p0 = maxrow
        elif k == 1:
            p1 = maxrow
        elif k == 2:
            p2 = maxrow
        elif k == 3:
            p3 = maxrow
        elif k == 4:
            p4 = maxrow
        else:
            p5 = maxrow
        dinv = 1.0 / A[7 * k]
        for i in range(k + 1, 6):
            A[6 * i + k] *= dinv
            aik = A[6 * i + k]
            for j in range(k + 1, 6):
                A[6 * i + j] -= aik * A[6 * k + j]
    piv = (p0, p1, p2, p3, p4, p5)
    for i in range(6):
        x[i] = b[i]
    for i in range(6):
        p = piv[i]
        if p != i:
            t = x[i]
            x[i] = x[p]
            x[p] = t
        for j in range(i):
            x[i] -= A[6 * i + j] * x[j]
    for i in range(5, -1, -1):
        for j in range(i + 1, 6):
            x[i] -= A[6 * i + j] * x[j]
        x[i] /= A[7 * i]
    return 1
