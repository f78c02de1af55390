"""Actuation (mj_fwdActuation): act_dot (na,), actuator_force (nu,), qfrc_actuator (nv,) for
dyntype none/integrator/filter/filterexact/muscle/dcmotor/user and gain/bias fixed/affine/muscle/dcmotor/user (user
types as MuJoCo computes them with no mjcb_act_dyn / mjcb_act_gain / mjcb_act_bias installed: act_dot 0, gain 1,
bias 0).  DC motors (one control input each) compile only for models that have them (F_DCMOTOR)."""

import math
from sim.jit import njit
from sim.jit.features import call_if, F_HISTORY, F_DCMOTOR
from sim.engine.history import read_delayed_ctrl

from sim.constants import (
    OPT_DISABLE,
    OPT_DISABLEACT,
    OPT_TIMESTEP,
    OPT_GRAVITY,
    DSBL_ACTUATION,
    DSBL_CLAMPCTRL,
    DSBL_GRAVITY,
    DYN_NONE,
    DYN_INTEGRATOR,
    DYN_FILTER,
    DYN_FILTEREXACT,
    DYN_MUSCLE,
    DYN_DCMOTOR,
    GAIN_FIXED,
    GAIN_AFFINE,
    GAIN_MUSCLE,
    GAIN_DCMOTOR,
    BIAS_AFFINE,
    BIAS_MUSCLE,
    BIAS_DCMOTOR,
    INPUT_POS,
    INPUT_VEL,
    INPUT_FF,
    INPUT_VOLTAGE,
    TRN_TENDON,
    TRN_JOINT,
    TRN_JOINTINPARENT,
    TRN_SITE,
    JNT_FREE,
    JNT_BALL,
    MINVAL,
    MAXVAL,
    WARN_BADCTRL,
)


@njit(cache=True)
def _clip(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


@njit(cache=True)
def muscle_gain_length(length, lmin, lmax):
    """Normalised muscle length-gain curve, mju_muscleGainLength."""
    if lmin <= length and length <= lmax:
        a = 0.5 * (lmin + 1.0)
        b = 0.5 * (1.0 + lmax)
        if length <= a:
            x = (length - lmin) / max(MINVAL, a - lmin)
            return 0.5 * x * x
        elif length <= 1.0:
            x = (1.0 - length) / max(MINVAL, 1.0 - a)
            return 1.0 - 0.5 * x * x
        elif length <= b:
            x = (length - 1.0) / max(MINVAL, b - 1.0)
            return 1.0 - 0.5 * x * x
        x = (lmax - length) / max(MINVAL, lmax - b)
        return 0.5 * x * x
    return 0.0


@njit(cache=True)
def muscle_length(ln, lr, acc0, prm):
    """(peak force, length scale L0, normalised length L) of a muscle, the common start of mju_muscleGain and
    mju_muscleBias."""
    force = prm[2]
    if force < 0:
        force = prm[3] / max(MINVAL, acc0)
    L0 = (lr[1] - lr[0]) / max(MINVAL, prm[1] - prm[0])
    L = prm[0] + (ln - lr[0]) / max(MINVAL, L0)
    return force, L0, L


@njit(cache=True)
def muscle_gain(ln, vel, lr, acc0, prm):
    """Muscle active force gain, mju_muscleGain."""
    force, L0, L = muscle_length(ln, lr, acc0, prm)
    V = vel / max(MINVAL, L0 * prm[6])
    FL = muscle_gain_length(L, prm[4], prm[5])
    fvmax = prm[8]
    y = fvmax - 1.0
    if V <= -1.0:
        FV = 0.0
    elif V <= 0.0:
        FV = (V + 1.0) * (V + 1.0)
    elif V <= y:
        FV = fvmax - (y - V) * (y - V) / max(MINVAL, y)
    else:
        FV = fvmax
    return -force * FL * FV


@njit(cache=True)
def muscle_bias(ln, lr, acc0, prm):
    """Muscle passive force, mju_muscleBias."""
    force, L0, L = muscle_length(ln, lr, acc0, prm)
    b = 0.5 * (1.0 + prm[5])
    if L <= 1.0:
        return 0.0
    elif L <= b:
        x = (L - 1.0) / max(MINVAL, b - 1.0)
        return -force * prm[7] * 0.5 * x * x
    x = (L - b) / max(MINVAL, b - 1.0)
    return -force * prm[7] * (0.5 + x)


@njit(cache=True)
def muscle_dynamics(ctrl, act, prm):
    """Muscle activation time derivative, mju_muscleDynamics (Millard et al. 2013 timescales)."""
    cc = _clip(ctrl, 0.0, 1.0)
    ac = _clip(act, 0.0, 1.0)
    tau_act = prm[0] * (0.5 + 1.5 * ac)
    tau_deact = prm[1] / (0.5 + 1.5 * ac)
    width = prm[2]
    dctrl = cc - act
    if width < MINVAL:
        tau = tau_act if dctrl > 0 else tau_deact
    else:
        x = dctrl / width + 0.5
        if x <= 0:
            sg = 0.0
        elif x >= 1:
            sg = 1.0
        else:
            sg = x * x * x * (3 * x * (2 * x - 5) + 10)
        tau = tau_deact + (tau_act - tau_deact) * sg
    return dctrl / max(MINVAL, tau)


@njit(cache=True)
def next_activation(m, d, w, i, adr, act_dot):
    """Activation after one timestep (exact for filterexact and a DC motor's current and bristle states), clamped
    to actrange but for DC motors, mj_nextActivation."""
    act = d.act[w][adr]
    h = m.opt[OPT_TIMESTEP]
    dt = m.actuator_dyntype[i]
    if dt == DYN_FILTEREXACT:
        tau = max(MINVAL, m.actuator_dynprm[i, 0])
        act = act + act_dot * tau * (1.0 - math.exp(-h / tau))
    elif dt == DYN_DCMOTOR:
        return dcmotor_next_activation(m, d, w, i, adr, act_dot)
    else:
        act = act + act_dot * h
    if m.actuator_actlimited[i]:
        act = _clip(act, m.actuator_actrange[i, 0], m.actuator_actrange[i, 1])
    return act


# ------------------------------------------------------------------------------------------
# DC motor (mjDYN_DCMOTOR / mjGAIN_DCMOTOR / mjBIAS_DCMOTOR; doc/dcmotor): gainprm [R K alpha T0 kp ki kd vmax],
# dynprm [te didtmax RT C Ta sigma0 sigma1 slewmax imax], biasprm [cog_amp cog_np cog_phase F_C F_S v_S]; states in
# the order slew, integral, temperature, bristle, current, each present when its parameter is positive


@njit(cache=True)
def dcmotor_slots(dp, gp):
    """(slew, integral, temperature, bristle, current, count): state offsets (-1 absent), mj_dcmotorSlots."""
    n = 0
    slew = integral = temperature = bristle = current = -1
    if dp[7] > 0:
        slew = n
        n += 1
    if gp[5] > 0:
        integral = n
        n += 1
    if dp[2] > 0:
        temperature = n
        n += 1
    if dp[5] > 0:
        bristle = n
        n += 1
    if dp[0] > 0:
        current = n
        n += 1
    return slew, integral, temperature, bristle, current, n


@njit(cache=True)
def lugre_stribeck(v, fc, fs, vs):
    """LuGre Stribeck curve g(v) = F_C + (F_S - F_C) exp(-(v / v_S)^2), mj_lugreStribeck."""
    r = v / max(MINVAL, vs)
    return fc + (fs - fc) * math.exp(-r * r)


@njit(cache=True)
def dcmotor_next_activation(m, d, w, i, adr, act_dot):
    """DC motor state adr after one timestep (mj_nextActivation): current exactly (first-order filter), bristle
    exactly under zero-order hold, integral by Euler clamped to imax, slew and temperature by Euler."""
    act = d.act[w][adr]
    h = m.opt[OPT_TIMESTEP]
    dp = m.actuator_dynprm[i]
    slew, integral, temperature, bristle, current, n = dcmotor_slots(dp, m.actuator_gainprm[i])
    off = adr - m.actuator_actadr[i]
    if off == current:
        te = max(MINVAL, dp[0])
        return act + act_dot * te * (1.0 - math.exp(-h / te))
    if off == bristle:
        bp = m.actuator_biasprm[i]
        v = d.actuator_velocity[w][m.actuator_outadr[i]]
        g = lugre_stribeck(v, bp[3], bp[4], bp[5])
        a = -dp[5] * abs(v) / max(MINVAL, g)
        exp_ah = math.exp(a * h)
        int_h = (exp_ah - 1.0) / a if abs(a) > MINVAL else h
        return exp_ah * act + int_h * v
    act = act + act_dot * h
    if off == integral and dp[8] > 0:
        act = _clip(act, -dp[8], dp[8])
    return act


@njit(cache=True)
def slew_limit(u, u_prev, slew_s, h, period, act_dot, adr):
    """Slew-rate-limited setpoint; writes act_dot[adr] (slewLimit)."""
    if period > 0:
        u = wrap_setpoint(u, u_prev, period)
    slew = slew_s * h
    u_eff = _clip(u, u_prev - slew, u_prev + slew)
    act_dot[adr] = (u_eff - u_prev) / h
    return u_eff


@njit(cache=True)
def dcmotor_voltage(u, spec, length, velocity, x_i, gp):
    """Terminal voltage from the single control u of input kind spec (dcmotorVoltage): the torque-space PID
    + feedforward controller as current control (R/K torque + K velocity, clipped to vmax) or the raw voltage."""
    voltage = 0.0
    if spec & (INPUT_POS | INPUT_VEL | INPUT_FF):
        u0 = u if spec & INPUT_POS else 0.0
        u1 = u if spec & INPUT_VEL else 0.0
        u2 = u if spec & INPUT_FF else 0.0
        torque = gp[4] * (u0 - length) + gp[6] * (u1 - velocity) + gp[5] * x_i + u2
        voltage = gp[0] / gp[1] * torque + gp[1] * velocity
        if gp[7] > 0:
            voltage = _clip(voltage, -gp[7], gp[7])
    return voltage + (u if spec & INPUT_VOLTAGE else 0.0)  # raw voltage: downstream of the controller


@njit(cache=True)
def dcmotor_act_dot(m, d, w, i, ctrl):
    """act_dot of DC motor i's states (mj_fwdActuation's mjDYN_DCMOTOR case); slew-limits ctrl[i] in place."""
    act = d.act[w]
    act_dot = d.act_dot[w]
    dp = m.actuator_dynprm[i]
    gp = m.actuator_gainprm[i]
    adr = m.actuator_actadr[i]
    last = adr + m.actuator_actnum[i] - 1
    oadr = m.actuator_outadr[i]
    velocity = d.actuator_velocity[w][oadr]
    length = d.actuator_length[w][oadr]
    R = gp[0]
    K = gp[1]
    te = dp[0]
    if dp[7] > 0:  # slew rate limiting of the setpoint
        ctrl[i] = slew_limit(ctrl[i], act[adr], dp[7], m.opt[OPT_TIMESTEP], 0.0, act_dot, adr)
        adr += 1
    x_i = 0.0
    if gp[5] > 0:  # integral of the position error, stopped beyond imax
        x_i = act[adr]
        e = ctrl[i] - length
        imax = dp[8]
        if imax > 0:
            if x_i >= imax:
                e = min(e, 0.0)
            elif x_i <= -imax:
                e = max(e, 0.0)
        act_dot[adr] = e
        adr += 1
    V = dcmotor_voltage(ctrl[i], m.actuator_ctrlspec[i], length, velocity, x_i, gp)
    RT = dp[2]
    if RT > 0:  # temperature rise: dT/dt = (R i^2 - T / RT) / C
        T = act[adr]
        R *= 1 + gp[2] * (T + dp[4] - gp[3])
        current = act[last] if te > 0 else (V - K * velocity) / R
        act_dot[adr] = (R * current * current - T / RT) / dp[3]
        adr += 1
    sigma0 = dp[5]
    if sigma0 > 0:  # LuGre bristle: dz/dt = v - sigma0 |v| / g(v) z
        bp = m.actuator_biasprm[i]
        z = act[adr]
        g = lugre_stribeck(velocity, bp[3], bp[4], bp[5])
        a = -sigma0 * abs(velocity) / max(MINVAL, g)
        act_dot[adr] = a * z + velocity
        adr += 1
    if te > 0:  # current: di/dt = (V/R - K/R omega - i) / te, clipped to didtmax
        i_dot = (V / R - K / R * velocity - act[last]) / te
        if dp[1] > 0:
            i_dot = _clip(i_dot, -dp[1], dp[1])
        act_dot[last] = i_dot


@njit(cache=True)
def dcmotor_gain(m, d, w, i, ctrl):
    """DC motor i's gain, K with a current state, else K / R (R at the state's temperature); a controller's
    voltage replaces ctrl[i] (mj_fwdActuation's mjGAIN_DCMOTOR case)."""
    dp = m.actuator_dynprm[i]
    gp = m.actuator_gainprm[i]
    R = gp[0]
    K = gp[1]
    slew, integral, temperature, bristle, current, n = dcmotor_slots(dp, gp)
    adr = m.actuator_actadr[i]
    if temperature >= 0:
        T = d.act[w][adr + temperature]
        R *= 1 + gp[2] * (T + dp[4] - gp[3])
    gain = K if dp[0] > 0 else K / max(MINVAL, R)
    spec = m.actuator_ctrlspec[i]
    if spec != INPUT_VOLTAGE:
        x_i = d.act[w][adr + integral] if integral >= 0 else 0.0
        oadr = m.actuator_outadr[i]
        ctrl[i] = dcmotor_voltage(ctrl[i], spec, d.actuator_length[w][oadr], d.actuator_velocity[w][oadr], x_i, gp)
    return gain


@njit(cache=True)
def dcmotor_mechanical(m, d, w, force):
    """Add the DC motors' cogging torque and LuGre friction to force (nu,), after the force limits
    (mj_fwdActuation)."""
    for i in range(m.nu):
        if m.actuator_biastype[i] != BIAS_DCMOTOR or actuator_disabled(m, i):
            continue
        bp = m.actuator_biasprm[i]
        dp = m.actuator_dynprm[i]
        oadr = m.actuator_outadr[i]
        if bp[0] != 0:
            force[oadr] += bp[0] * math.sin(bp[1] * d.actuator_length[w][oadr] + bp[2])
        if dp[5] > 0:
            slew, integral, temperature, bristle, current, n = dcmotor_slots(dp, m.actuator_gainprm[i])
            adr = m.actuator_actadr[i] + bristle
            force[oadr] -= dp[5] * d.act[w][adr] + dp[6] * d.act_dot[w][adr]


@njit(cache=True)
def actuator_disabled(m, i):
    """1 if actuator i's group is disabled by opt.disableactuator, mj_actuatorDisabled."""
    g = m.actuator_group[i]
    if g < 0 or g > 30:
        return False
    return (int(m.opt[OPT_DISABLEACT]) & (1 << g)) != 0


@njit(cache=True)
def round_int(x):
    """x rounded half away from zero and clamped to the int range, mju_round."""
    if x > 2147483647.0:
        return 2147483647.0
    if x < -2147483648.0:
        return -2147483648.0
    t = float(math.trunc(x))
    if abs(x - t) >= 0.5:
        t += 1.0 if x > 0 else -1.0
    return t


@njit(cache=True)
def wrap_period(m, i):
    """Period of actuator i's rotational transmission when it is a servo whose setpoint lives on the circle, else
    0 (wrapPeriod, engine_forward.c): fixed gain, affine bias with kp = -biasprm[1], dyntype none or integrator,
    on a site with a refsite and purely rotational gear (2 pi |gear[3:]|) or a ball joint (2 pi |gear[:3]|)."""
    dt = m.actuator_dyntype[i]
    if (
        m.actuator_gaintype[i] != GAIN_FIXED
        or m.actuator_biastype[i] != BIAS_AFFINE
        or m.actuator_gainprm[i, 0] != -m.actuator_biasprm[i, 1]
        or (dt != DYN_NONE and dt != DYN_INTEGRATOR)
    ):
        return 0.0
    g = m.actuator_gear[i]
    tt = m.actuator_trntype[i]
    if tt == TRN_SITE and m.actuator_trnid[i, 1] >= 0 and g[0] == 0.0 and g[1] == 0.0 and g[2] == 0.0:
        return 2 * math.pi * math.sqrt(g[3] * g[3] + g[4] * g[4] + g[5] * g[5])
    if (tt == TRN_JOINT or tt == TRN_JOINTINPARENT) and m.jnt_type[m.actuator_trnid[i, 0]] == JNT_BALL:
        return 2 * math.pi * math.sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2])
    return 0.0


@njit(cache=True)
def wrap_setpoint(u, length, period):
    """The representative of setpoint u (modulo period) nearest to length, wrapSetpoint."""
    return u - period * round_int((u - length) / period)


@njit(cache=True)
def actuation(m, d, w):
    """act_dot (na,), actuator_force (nu,), qfrc_actuator (nv,) as mj_fwdActuation, delays ignored."""
    fwd_actuation(m, d, w, None)


@njit(cache=True)
def fwd_actuation(m, d, w, F):
    """act_dot (na,), actuator_force (nu,), qfrc_actuator (nv,) as mj_fwdActuation; delayed actuators read their
    history buffers when F has F_HISTORY, DC motors run when F has F_DCMOTOR (F None: neither)."""
    nu = m.nu
    force = d.actuator_force[w]
    qfa = d.qfrc_actuator[w]
    force[:] = 0.0
    flags = int(m.opt[OPT_DISABLE])
    if nu == 0 or (flags & DSBL_ACTUATION):
        qfa[:] = 0.0
        return
    ctrl = d.scr_ctrl[w]
    dctrl = d.ctrl[w]
    for i in range(nu):
        ctrl[i] = dctrl[i]
    if F is not None:
        _read_delayed_ctrl_if(F, m, d, w, ctrl)
    if not (flags & DSBL_CLAMPCTRL):
        for i in range(nu):
            if m.actuator_ctrllimited[i]:
                ctrl[i] = _clip(ctrl[i], m.actuator_ctrlrange[i, 0], m.actuator_ctrlrange[i, 1])
    for i in range(nu):
        c = ctrl[i]
        if c != c or abs(c) > MAXVAL:
            d.warning_number[w][WARN_BADCTRL] += 1
            d.warning_lastinfo[w][WARN_BADCTRL] = i
            ctrl[:] = 0.0
            break
    act = d.act[w]
    act_dot = d.act_dot[w]
    for i in range(nu):
        a = m.actuator_actadr[i]
        if a < 0:
            continue
        an = a + m.actuator_actnum[i] - 1
        dt = m.actuator_dyntype[i]
        if dt == DYN_INTEGRATOR:
            act_dot[an] = ctrl[i]
        elif dt == DYN_FILTER or dt == DYN_FILTEREXACT:
            tau = max(MINVAL, m.actuator_dynprm[i, 0])
            act_dot[an] = (ctrl[i] - act[an]) / tau
        elif dt == DYN_MUSCLE:
            act_dot[an] = muscle_dynamics(ctrl[i], act[an], m.actuator_dynprm[i])
        elif dt == DYN_DCMOTOR:
            for k in range(a, an + 1):
                act_dot[k] = 0.0
            if F is not None:
                _dcmotor_act_dot_if(F, m, d, w, i, ctrl)
        else:
            act_dot[an] = 0.0  # none; user dynamics with no mjcb_act_dyn
    length = d.actuator_length[w]
    vel = d.actuator_velocity[w]
    tendon_frclimited = False
    for i in range(nu):
        if actuator_disabled(m, i):
            continue
        if m.ntendon and m.actuator_trntype[i] == TRN_TENDON:
            if m.tendon_actfrclimited[m.actuator_trnid[i, 0]]:
                tendon_frclimited = True
        gp = m.actuator_gainprm[i]
        gt = m.actuator_gaintype[i]
        if gt == GAIN_FIXED:
            gain = gp[0]
        elif gt == GAIN_AFFINE:
            gain = gp[0] + gp[1] * length[i] + gp[2] * vel[i]
        elif gt == GAIN_MUSCLE:
            gain = muscle_gain(length[i], vel[i], m.actuator_lengthrange[i], m.actuator_acc0[i], gp)
        elif gt == GAIN_DCMOTOR:
            gain = 0.0
            if F is not None:
                gain = _dcmotor_gain_if(F, m, d, w, i, ctrl)
        else:
            gain = 1.0  # user gain with no mjcb_act_gain (mj_fwdActuation)
        # a DC motor without a current state drives with ctrl (its voltage) whatever its other states
        if m.actuator_actnum[i] == 0 or (gt == GAIN_DCMOTOR and m.actuator_dynprm[i, 0] <= 0):
            u = ctrl[i]
        else:
            aa = m.actuator_actadr[i] + m.actuator_actnum[i] - 1
            if m.actuator_actearly[i]:
                u = next_activation(m, d, w, i, aa, act_dot[aa])
            else:
                u = act[aa]
        # rotational setpoint: the representative nearest the length (local, no state change)
        period = wrap_period(m, i)
        if period > 0:
            u = wrap_setpoint(u, length[i], period)
        force[i] = gain * u
        bp = m.actuator_biasprm[i]
        bt = m.actuator_biastype[i]
        if bt == BIAS_AFFINE:
            bias = bp[0] + bp[1] * length[i] + bp[2] * vel[i]
        elif bt == BIAS_MUSCLE:
            bias = muscle_bias(length[i], m.actuator_lengthrange[i], m.actuator_acc0[i], bp)
        elif bt == BIAS_DCMOTOR:
            # back-EMF of a motor without a current state (with one, it is in the current's ODE)
            bias = 0.0
            if m.actuator_dynprm[i, 0] <= 0:
                bias -= gain * gp[1] * vel[i]
        else:
            bias = 0.0  # none; user bias with no mjcb_act_bias
        force[i] += bias
    if tendon_frclimited:
        # per tendon: scale its actuators' forces so their total lies in tendon_actfrcrange
        for t in range(m.ntendon):
            if not m.tendon_actfrclimited[t]:
                continue
            total = 0.0
            for k in range(nu):
                if m.actuator_trntype[k] == TRN_TENDON and m.actuator_trnid[k, 0] == t:
                    total += force[k]
            if total == 0.0:
                continue
            lo = m.tendon_actfrcrange[t, 0]
            hi = m.tendon_actfrcrange[t, 1]
            for k in range(nu):
                if m.actuator_trntype[k] == TRN_TENDON and m.actuator_trnid[k, 0] == t:
                    if total < lo:
                        force[k] *= lo / total
                    elif total > hi:
                        force[k] *= hi / total
    for i in range(nu):
        if m.actuator_forcelimited[i]:
            force[i] = _clip(force[i], m.actuator_forcerange[i, 0], m.actuator_forcerange[i, 1])
    if F is not None:
        _dcmotor_mechanical_if(F, m, d, w, force)  # cogging and LuGre friction, not subject to the force limits
    qfa[:] = 0.0
    moment = d.actuator_moment[w]
    rownnz = d.moment_rownnz[w]
    rowadr = d.moment_rowadr[w]
    colind = d.moment_colind[w]
    for i in range(nu):
        f = force[i]
        a = rowadr[i]
        for t in range(rownnz[i]):
            qfa[colind[a + t]] += moment[a + t] * f
    # actuator-level gravity compensation
    g0 = m.opt[OPT_GRAVITY]
    g1 = m.opt[OPT_GRAVITY + 1]
    g2 = m.opt[OPT_GRAVITY + 2]
    if m.nflg_gravcomp and not (flags & DSBL_GRAVITY) and math.sqrt(g0 * g0 + g1 * g1 + g2 * g2) != 0.0:
        fg = d.qfrc_gravcomp[w]
        for j in range(m.njnt):
            if not m.jnt_actgravcomp[j]:
                continue
            jt = m.jnt_type[j]
            n = 6 if jt == JNT_FREE else (3 if jt == JNT_BALL else 1)
            da = m.jnt_dofadr[j]
            for k in range(n):
                qfa[da + k] += fg[da + k]
    for j in range(m.njnt):
        if m.jnt_actfrclimited[j]:
            da = m.jnt_dofadr[j]
            qfa[da] = _clip(qfa[da], m.jnt_actfrcrange[j, 0], m.jnt_actfrcrange[j, 1])


_read_delayed_ctrl_if = call_if(F_HISTORY, read_delayed_ctrl)  # delayed actuators only for models with them
_dcmotor_act_dot_if = call_if(F_DCMOTOR, dcmotor_act_dot)  # DC motors only for models with them
_dcmotor_gain_if = call_if(F_DCMOTOR, dcmotor_gain, 0.0)
_dcmotor_mechanical_if = call_if(F_DCMOTOR, dcmotor_mechanical)
