"""Pipeline drivers: forward / step / reset per world, with serial (one world) and parallel (batch) entries."""
from numba import prange

from sim.jit import njit

from sim.kinematics import kinematics
from sim.com import com_pos, com_vel, xfrc_accumulate
from sim.tendon import tendon, tendon_velocity, tendon_bias
from sim.transmission import transmission, actuator_velocity
from sim.crb import crb, tendon_armature, factor_m, solve_m, full_inertia
from sim.rne import rne, rne_post_constraint
from sim.passive import passive
from sim.actuation import actuation
from sim.integrate import euler, implicit_fast, integrate_pos, advance
from sim.collision.driver import collision
from sim.constraint import make_constraint, project_constraint, reference_constraint
from sim.solver import fwd_constraint
from sim.sensor import sensor_pos_stage, sensor_vel_stage, sensor_acc_stage
from sim.inverse import compare_fwd_inv
from sim.types import (OPT_INTEGRATOR, OPT_DISABLE, OPT_ENABLE, OPT_TIMESTEP, INT_RK4, INT_IMPLICITFAST,
                       INT_IMPLICIT, DSBL_AUTORESET, ENBL_FWDINV, MAXVAL, WARN_BADQPOS, WARN_BADQVEL,
                       WARN_BADQACC, NWARNING)

# index of the numjoco-only cumulative divergence counter in warning_number (never cleared by reset)
WARN_DIVERGED = NWARNING


@njit(inline='always')
def fwd_position(m, d, w, skipsensor):
    """Position stage: kinematics .. factor_m, collision, make_constraint, transmission, project (mj_fwdPosition),
    then cameras, position sensors and potential energy (mj_forwardSkip)."""
    kinematics(m, d, w)
    com_pos(m, d, w)
    tendon(m, d, w)
    crb(m, d, w)
    tendon_armature(m, d, w)
    factor_m(m, d, w)
    collision(m, d, w)
    make_constraint(m, d, w)
    transmission(m, d, w)
    project_constraint(m, d, w)
    sensor_pos_stage(m, d, w, skipsensor, True)


@njit(inline='always')
def fwd_velocity(m, d, w, skipsensor):
    """Velocity stage: ten/actuator velocity, com_vel, passive, rne bias (mj_fwdVelocity), then velocity sensors
    and kinetic energy (mj_forwardSkip)."""
    tendon_velocity(m, d, w)
    actuator_velocity(m, d, w)
    com_vel(m, d, w)
    passive(m, d, w)
    reference_constraint(m, d, w)
    rne(m, d, w)
    tendon_bias(m, d, w)
    sensor_vel_stage(m, d, w, skipsensor)


@njit(inline='always')
def fwd_acceleration(m, d, w):
    """qfrc_smooth (nv,) = passive - bias + applied + actuator + J'xfrc; qacc_smooth = M^-1 qfrc_smooth."""
    fs = d.qfrc_smooth[w]
    fp = d.qfrc_passive[w]
    fb = d.qfrc_bias[w]
    fa = d.qfrc_applied[w]
    fu = d.qfrc_actuator[w]
    for i in range(m.nv):
        fs[i] = ((fp[i] - fb[i]) + fa[i]) + fu[i]
    xfrc_accumulate(m, d, w, fs)
    qs = d.qacc_smooth[w]
    for i in range(m.nv):
        qs[i] = fs[i]
    solve_m(m, d, w, qs)


@njit(inline='always')
def forward_skip(m, d, w, skipsensor):
    """Forward dynamics of world w, sensors skipped if skipsensor (mj_forwardSkip(m, d, mjSTAGE_NONE, skipsensor))."""
    fwd_position(m, d, w, skipsensor)
    fwd_velocity(m, d, w, skipsensor)
    actuation(m, d, w)
    fwd_acceleration(m, d, w)
    fwd_constraint(m, d, w)
    if not skipsensor:
        sensor_acc_stage(m, d, w)


@njit(inline='always')
def forward_world(m, d, w):
    """Full forward dynamics of world w with sensors (mj_forward)."""
    forward_skip(m, d, w, False)


@njit(cache=True)
def reset_world(m, d, w):
    """Reset state of world w as mj_resetData: qpos0, zero velocities/controls/forces, mocap from model."""
    d.qpos[w][:] = m.qpos0
    d.qvel[w][:] = 0.0
    d.act[w][:] = 0.0
    d.ctrl[w][:] = 0.0
    d.qfrc_applied[w][:] = 0.0
    d.xfrc_applied[w][:, :] = 0.0
    d.qacc[w][:] = 0.0
    d.qacc_warmstart[w][:] = 0.0
    d.act_dot[w][:] = 0.0
    d.time[w] = 0.0
    for i in range(m.nbody):
        mid = m.body_mocapid[i]
        if mid >= 0:
            d.mocap_pos[w][mid, :] = m.body_pos[i]
            d.mocap_quat[w][mid, :] = m.body_quat[i]
    for k in range(NWARNING):
        d.warning_number[w][k] = 0
        d.warning_lastinfo[w][k] = 0
    for i in range(m.neq):
        d.eq_active[w][i] = m.eq_active0[i]
    d.ncon[w] = 0
    d.ne[w] = 0
    d.nf[w] = 0
    d.nl[w] = 0
    d.nefc[w] = 0
    d.solver_niter[w] = 0
    d.sensordata[w][:] = 0.0
    d.energy[w][:] = 0.0
    d.userdata[w][:] = 0.0


@njit(cache=True)
def _is_bad(x):
    return x != x or x > MAXVAL or x < -MAXVAL


@njit(cache=True)
def _check(m, d, w, arr, n, kind):
    """mj_checkPos/Vel/Acc: on a bad value warn, reset (unless autoreset disabled); return 1 if bad."""
    for i in range(n):
        if _is_bad(arr[i]):
            d.warning_number[w][kind] += 1
            d.warning_lastinfo[w][kind] = i
            if not (int(m.opt[OPT_DISABLE]) & DSBL_AUTORESET):
                reset_world(m, d, w)
            d.warning_number[w][kind] += 1
            d.warning_lastinfo[w][kind] = i
            d.warning_number[w][WARN_DIVERGED] += 1
            return 1
    return 0


@njit(inline='always')
def runge_kutta4(m, d, w):
    """Classic RK4 step over (qpos, qvel, act), as mj_RungeKutta(N=4); forward already called."""
    nq = m.nq
    nv = m.nv
    na = m.na
    h = m.opt[OPT_TIMESTEP]
    X = d.scr_rk_x[w]
    F = d.scr_rk_f[w]
    dX = d.scr_rk_dx[w]
    qpos = d.qpos[w]
    qvel = d.qvel[w]
    act = d.act[w]
    t0 = d.time[w]
    X[0, :nq] = qpos
    X[0, nq:nq + nv] = qvel
    F[0, :nv] = d.qacc[w]
    if na:
        X[0, nq + nv:] = act
        F[0, nv:] = d.act_dot[w]
    # Butcher tableau rows A = [[.5], [0, .5], [0, 0, 1]], C = [.5, .5, 1]
    for i in range(1, 4):
        dX[:] = 0.0
        for j in range(i):
            if i == 3:
                a = 1.0 if j == 2 else 0.0
            else:
                a = 0.5 if j == i - 1 else 0.0
            for k in range(nv):
                dX[k] += X[j, nq + k] * a
            for k in range(nv + na):
                dX[nv + k] += F[j, k] * a
        X[i, :] = X[0, :]
        integrate_pos(m, X[i, :nq], dX[:nv], h)
        for k in range(nv + na):
            X[i, nq + k] += dX[nv + k] * h
        qpos[:] = X[i, :nq]
        qvel[:] = X[i, nq:nq + nv]
        if na:
            act[:] = X[i, nq + nv:]
        d.time[w] = t0 + (1.0 if i == 3 else 0.5) * h
        forward_skip(m, d, w, True)
        F[i, :nv] = d.qacc[w]
        if na:
            F[i, nv:] = d.act_dot[w]
    dX[:] = 0.0
    for j in range(4):
        b = 1.0 / 6.0 if (j == 0 or j == 3) else 1.0 / 3.0
        for k in range(nv):
            dX[k] += X[j, nq + k] * b
        for k in range(nv + na):
            dX[nv + k] += F[j, k] * b
    d.time[w] = t0
    qpos[:] = X[0, :nq]
    qvel[:] = X[0, nq:nq + nv]
    if na:
        act[:] = X[0, nq + nv:]
    advance(m, d, w, dX[2 * nv:], dX[nv:2 * nv], dX[:nv], True)


@njit(inline='always')
def step_world(m, d, w):
    """One mj_step of world w: checks, forward, autoreset on bad acc, integrate."""
    _check(m, d, w, d.qpos[w], m.nq, WARN_BADQPOS)
    _check(m, d, w, d.qvel[w], m.nv, WARN_BADQVEL)
    forward_world(m, d, w)
    if _check(m, d, w, d.qacc[w], m.nv, WARN_BADQACC):
        if not (int(m.opt[OPT_DISABLE]) & DSBL_AUTORESET):
            forward_world(m, d, w)
    if int(m.opt[OPT_ENABLE]) & ENBL_FWDINV:
        compare_fwd_inv(m, d, w)
    integ = int(m.opt[OPT_INTEGRATOR])
    if integ == INT_RK4:
        runge_kutta4(m, d, w)
    elif integ == INT_IMPLICITFAST or integ == INT_IMPLICIT:
        implicit_fast(m, d, w, False)
    else:
        euler(m, d, w, False)


# ------------------------------------------------------------------------------------------
# entry points: serial for one world, prange for a batch.  nstep == 0 means forward only (mj_forward), so one
# compiled call tree serves both sim.forward and sim.step; the layers above the stages (step_world,
# forward_world, runge_kutta4, fwd_*) are inlined into these two entries instead of being compiled (and their
# whole call trees re-optimised by LLVM) as separate functions.

@njit(inline='always')
def run_world(m, d, w, nstep):
    """forward (nstep == 0) or nstep steps of world w."""
    if nstep == 0:
        forward_world(m, d, w)
    for _ in range(nstep):
        step_world(m, d, w)


@njit
def run_serial(m, d, w, nstep):
    """forward (nstep == 0) or nstep steps of the single world w."""
    run_world(m, d, w, nstep)


@njit(parallel=True, refcount=True)
def run_batch(m, d, nworld, nstep):
    """forward (nstep == 0) or nstep steps of worlds 0..nworld-1 in parallel, each world independently."""
    for w in prange(nworld):
        run_world(m, d, w, nstep)


@njit(cache=True)
def reset_serial(m, d, w):
    """mj_resetData of world w followed by forward (kinematics etc. consistent with the reset state)."""
    reset_world(m, d, w)


@njit(cache=True, parallel=True, refcount=True)
def reset_batch(m, d, nworld):
    """mj_resetData on all worlds."""
    for w in prange(nworld):
        reset_world(m, d, w)


@njit(cache=True)
def full_inertia_all(m, d, nworld, out):
    """Dense M (nworld,nv,nv) from the sparse M of each world, as mj_fullM."""
    for w in range(nworld):
        full_inertia(m, d, w, out[w])


@njit(cache=True)
def rne_post_constraint_all(m, d, nworld):
    """cacc, cfrc_int, cfrc_ext for every world (mj_rnePostConstraint)."""
    for w in range(nworld):
        rne_post_constraint(m, d, w)
