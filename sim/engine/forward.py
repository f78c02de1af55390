"""Pipeline drivers: forward / step / reset per world, with serial (one world) and parallel (batch) entries."""

import math

import numpy as np
from numba import prange

from sim.jit import njit
from sim.jit.atomic import NWORKER, fetch_add

from sim.engine.kinematics import kinematics
from sim.engine.com import com_pos, xfrc_accumulate
from sim.engine.tendon import tendon_if
from sim.engine.transmission import transmission
from sim.engine.crb import solve_m, full_inertia
from sim.engine.rne import rne_post_constraint
from sim.engine.actuation import fwd_actuation
from sim.engine.history import reset_history
from sim.engine.integrate import euler, implicit_fast, integrate_pos, advance
from sim.engine.constraint import project_constraint_if
from sim.engine.solver import project_dual_if
from sim.engine.parts import constraint_islands, constraint_warmstart, constraint_solve
from sim.engine.parts import rne_post_constraint as rne_post_constraint_part
from sim.engine.task import task_pre, task_post, task_reset, task_observe_reset, action_ok
from sim.engine.task import keep_sensors, restore_sensors
from sim.constants import ST_RESET, ST_TERMINATED, ST_TRUNCATED, ST_BADACTION
from sim.jit import struct_at, struct_at_address
from sim.jit.features import call_if, F_IMPLICIT, F_FWDINV, F_HISTORY
from sim.engine.sensor import advance_history_buffers, sensor_pos_stage, sensor_acc_stage
from sim.engine.inverse import compare_fwd_inv
from sim.engine.setconst import set_const, length_range_force
from sim.engine.stages import position_core, fwd_velocity
from sim.constants import (
    OPT_INTEGRATOR,
    OPT_DISABLE,
    OPT_ENABLE,
    OPT_TIMESTEP,
    INT_RK4,
    INT_IMPLICITFAST,
    INT_IMPLICIT,
    DSBL_AUTORESET,
    ENBL_FWDINV,
    MAXVAL,
    WARN_BADQPOS,
    WARN_BADQVEL,
    WARN_BADQACC,
    WARN_BADCTRL,
    WARN_CONTACTFULL,
    WARN_CNSTRFULL,
    NWARNING,
)
from sim.types import MODEL_TYPE, DATA_TYPE, TASK_TYPE

# the implicit integrators' derivatives are compiled only for feature sets that use them (sim/jit/features.py)
_implicit_fast = call_if(F_IMPLICIT, implicit_fast)
_compare_fwd_inv = call_if(F_FWDINV, compare_fwd_inv)
_advance_history_if = call_if(F_HISTORY, advance_history_buffers)


# index of the numjoco-only cumulative divergence counter in warning_number (never cleared by reset)
WARN_DIVERGED = NWARNING


@njit
def fwd_position(m, d, w, F, skipsensor):
    """Position stage: kinematics .. factor_m, collision, make_constraint, transmission, project and PGS's AR
    (mj_fwdPosition), then cameras, position sensors and potential energy (mj_forwardSkip)."""
    position_core(m, d, w, F)
    transmission(m, d, w, F)
    project_constraint_if(F, m, d, w)
    project_dual_if(F, m, d, w)
    sensor_pos_stage(m, d, w, F, skipsensor, True)


@njit
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


@njit
def forward_skip(m, d, w, F, skipsensor):
    """Forward dynamics of world w, sensors skipped if skipsensor (mj_forwardSkip(m, d, mjSTAGE_NONE, skipsensor))."""
    fwd_position(m, d, w, F, skipsensor)
    fwd_velocity(m, d, w, F, skipsensor)
    fwd_acc_stage(m, d, w, F, skipsensor)


@njit
def fwd_acc_stage(m, d, w, F, skipsensor):
    """Actuation, smooth acceleration, constraint solve and acceleration sensors of world w (the end of
    mj_forwardSkip)."""
    fwd_actuation(m, d, w, F)
    fwd_acceleration(m, d, w)
    # mj_fwdConstraint (sim.engine.solver.fwd_constraint) in its three parts
    constraint_islands(m, d, w, F)
    constraint_warmstart(m, d, w, F)
    constraint_solve(m, d, w, F)
    if not skipsensor:
        sensor_acc_stage(m, d, w, F)


@njit
def forward_world(m, d, w, F):
    """Full forward dynamics of world w with sensors (mj_forward)."""
    forward_skip(m, d, w, F, False)


@njit
def check_acc(m, d, w, F):
    """What mj_step and mj_stepSkip do between forward and the integrator: mj_checkAcc (bad qacc: forward again
    unless autoreset is disabled), then mj_compareFwdInv when fwdinv is enabled."""
    if _check(m, d, w, d.qacc[w], m.nv, WARN_BADQACC):
        if not (int(m.opt[OPT_DISABLE]) & DSBL_AUTORESET):
            forward_world(m, d, w, F)
    if int(m.opt[OPT_ENABLE]) & ENBL_FWDINV:
        _compare_fwd_inv(F, m, d, w, F)


@njit(cache=True)
def reset_world(m, d, w):
    """Reset state of world w as mj_resetData: qpos0, zero velocities/controls/forces, mocap from model."""
    for i in range(m.nq):  # (element loops: see runge_kutta4)
        d.qpos[w, i] = m.qpos0[i]
    d.qvel[w][:] = 0.0
    d.act[w][:] = 0.0
    d.ctrl[w][:] = 0.0
    d.qfrc_applied[w][:] = 0.0
    d.xfrc_applied[w][:, :] = 0.0
    d.qacc[w][:] = 0.0
    d.qacc_warmstart[w][:] = 0.0
    d.act_dot[w][:] = 0.0
    d.time[w] = 0.0
    d.cacc[w][:, :] = 0.0
    d.cfrc_int[w][:, :] = 0.0
    d.cfrc_ext[w][:, :] = 0.0
    for i in range(m.nbody):
        mid = m.body_mocapid[i]
        if mid >= 0:
            for k in range(3):
                d.mocap_pos[w, mid, k] = m.body_pos[i, k]
            for k in range(4):
                d.mocap_quat[w, mid, k] = m.body_quat[i, k]
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
    reset_history(m, d.history[w])


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
                reset_world(m, d, w)  # clears the counters: the warning is counted again (MuJoCo)
                d.warning_number[w][kind] += 1
                d.warning_lastinfo[w][kind] = i
            d.warning_number[w][WARN_DIVERGED] += 1
            return 1
    return 0


@njit
def rk4_begin(m, d, w):
    """mj_RungeKutta's first stage of world w: X[0] = (qpos, qvel, act), K[0] = (qacc, act_dot); forward done."""
    nq = m.nq
    nv = m.nv
    X = d.scr_rk_x[w]
    K = d.scr_rk_f[w]
    qpos = d.qpos[w]
    qvel = d.qvel[w]
    act = d.act[w]
    qacc = d.qacc[w]
    act_dot = d.act_dot[w]
    # element loops throughout: an array-to-array slice assignment makes numba type and lower a shape-mismatch
    # error path at the site (measured on hopper: 1.5 s of compile for the first in a process, 0.01-0.05 s each
    # after)
    for k in range(nq):
        X[0, k] = qpos[k]
    for k in range(nv):
        X[0, nq + k] = qvel[k]
        K[0, k] = qacc[k]
    for k in range(m.na):
        X[0, nq + nv + k] = act[k]
        K[0, nv + k] = act_dot[k]


@njit
def rk4_stage(m, d, w, i, t0):
    """Stage i (1..3) of mj_RungeKutta for world w: the state X[i] = X[0] + h sum_j A[i,j] (qvel_j, K_j) set into
    (qpos, qvel, act) and time t0 + C[i] h, ready for forward."""
    nq = m.nq
    nv = m.nv
    na = m.na
    h = m.opt[OPT_TIMESTEP]
    X = d.scr_rk_x[w]
    K = d.scr_rk_f[w]
    dX = d.scr_rk_dx[w]
    qpos = d.qpos[w]
    qvel = d.qvel[w]
    act = d.act[w]
    # Butcher tableau rows A = [[.5], [0, .5], [0, 0, 1]], C = [.5, .5, 1]
    dX[:] = 0.0
    for j in range(i):
        if i == 3:
            a = 1.0 if j == 2 else 0.0
        else:
            a = 0.5 if j == i - 1 else 0.0
        for k in range(nv):
            dX[k] += X[j, nq + k] * a
        for k in range(nv + na):
            dX[nv + k] += K[j, k] * a
    for k in range(nq + nv + na):
        X[i, k] = X[0, k]
    integrate_pos(m, X[i, :nq], dX[:nv], h)
    for k in range(nv + na):
        X[i, nq + k] += dX[nv + k] * h
    for k in range(nq):
        qpos[k] = X[i, k]
    for k in range(nv):
        qvel[k] = X[i, nq + k]
    for k in range(na):
        act[k] = X[i, nq + nv + k]
    d.time[w] = t0 + (1.0 if i == 3 else 0.5) * h


@njit
def rk4_collect(m, d, w, i):
    """K[i] = (qacc, act_dot) of world w after stage i's forward."""
    nv = m.nv
    K = d.scr_rk_f[w]
    qacc = d.qacc[w]
    act_dot = d.act_dot[w]
    for k in range(nv):
        K[i, k] = qacc[k]
    for k in range(m.na):
        K[i, nv + k] = act_dot[k]


@njit
def rk4_finish(m, d, w, t0, F):
    """The end of mj_RungeKutta for world w: dX = sum_j B[j] (qvel_j, K_j), the state back to X[0] and time to t0,
    mj_advance's history update, then mj_advance with dX."""
    nq = m.nq
    nv = m.nv
    na = m.na
    X = d.scr_rk_x[w]
    K = d.scr_rk_f[w]
    dX = d.scr_rk_dx[w]
    qpos = d.qpos[w]
    qvel = d.qvel[w]
    act = d.act[w]
    dX[:] = 0.0
    for j in range(4):
        b = 1.0 / 6.0 if (j == 0 or j == 3) else 1.0 / 3.0
        for k in range(nv):
            dX[k] += X[j, nq + k] * b
        for k in range(nv + na):
            dX[nv + k] += K[j, k] * b
    d.time[w] = t0
    for k in range(nq):
        qpos[k] = X[0, k]
    for k in range(nv):
        qvel[k] = X[0, nq + k]
    for k in range(na):
        act[k] = X[0, nq + nv + k]
    _advance_history_if(F, m, d, w, F)  # mj_advance's history update, after the stages read the buffers
    advance(m, d, w, dX[2 * nv :], dX[nv : 2 * nv], dX[:nv], True)


@njit
def runge_kutta4(m, d, w, F):
    """Classic RK4 step over (qpos, qvel, act), as mj_RungeKutta(N=4); forward already called."""
    t0 = d.time[w]
    rk4_begin(m, d, w)
    for i in range(1, 4):
        rk4_stage(m, d, w, i, t0)
        forward_skip(m, d, w, F, True)
        rk4_collect(m, d, w, i)
    rk4_finish(m, d, w, t0, F)


@njit
def implicit_or_euler(m, d, w, F):
    """The integration of mj_step for the Euler and implicit integrators (world w, forward and checks done)."""
    # mj_advance's history update (at the step's start time; neither integrator reads the buffers)
    _advance_history_if(F, m, d, w, F)
    integ = int(m.opt[OPT_INTEGRATOR])
    if integ == INT_IMPLICITFAST or integ == INT_IMPLICIT:
        _implicit_fast(F, m, d, w, False)
    else:
        euler(m, d, w, False)


@njit
def step_world(m, d, w, F):
    """One mj_step of world w: checks, forward, autoreset on bad acc, integrate."""
    _check(m, d, w, d.qpos[w], m.nq, WARN_BADQPOS)
    _check(m, d, w, d.qvel[w], m.nv, WARN_BADQVEL)
    forward_world(m, d, w, F)
    check_acc(m, d, w, F)
    if int(m.opt[OPT_INTEGRATOR]) == INT_RK4:
        runge_kutta4(m, d, w, F)
    else:
        implicit_or_euler(m, d, w, F)


# ------------------------------------------------------------------------------------------
# entry points: serial for one world, prange for a batch.  nstep == 0 means forward only (mj_forward), so one
# compiled call tree serves sim.forward, sim.step and every environment (the task program t, sim/engine/task.py; an
# empty task for plain simulation).  Each returns how many worlds moved a watched warning counter (d.warn_moved
# has which), or -1 when an env action was not finite (then no world was touched).  The layers (run_world,
# step_world, forward_world, fwd_*) are ordinary kernels: sim/jit.py generates machine code once per entry, so
# they cost no extra LLVM work, and inlining them (typed again at every call site) only slowed the compile.


@njit
def restart_reset(m, d, t, w, final):
    """The reset half of _restart: mj_resetData and the task's pending reset state of world w (final: a same-step
    autoreset after an episode ended)."""
    reset_world(m, d, w)
    task_reset(m, d, t, w, final)


@njit
def _restart(m, d, t, w, final, F):
    """Reset world w to its pending task state and observe it: mj_resetData then mj_forward, as Gymnasium's reset
    (no mj_rnePostConstraint: cacc, cfrc_int and cfrc_ext stay zero until the first step)."""
    restart_reset(m, d, t, w, final)
    forward_world(m, d, w, F)
    task_observe_reset(d, t, w, F)


@njit
def watched_counts(d, w):
    """World w's watched warning counters (contact buffer, constraint buffer, divergence, bad ctrl)."""
    wn = d.warning_number[w]
    return wn[WARN_CONTACTFULL], wn[WARN_CNSTRFULL], wn[WARN_DIVERGED], wn[WARN_BADCTRL]


@njit
def watched_moved(d, w, c0, c1, c2, c3):
    """The bitmask of world w's watched counters that moved since c0..c3 (watched_counts), stored in
    d.warn_moved[w]."""
    wn = d.warning_number[w]
    mv = (
        (1 if wn[WARN_CONTACTFULL] != c0 else 0)
        | (2 if wn[WARN_CNSTRFULL] != c1 else 0)
        | (4 if wn[WARN_DIVERGED] != c2 else 0)
        | (8 if wn[WARN_BADCTRL] != c3 else 0)
    )
    d.warn_moved[w] = mv
    return mv


@njit
def task_begin(m, d, t, w, F):
    """The task's part of world w's call before its physics: a world flagged for reset is reset and observed
    (returns -1: no physics this call); otherwise the action goes in (task_pre; returns its divergence counter)."""
    if t.status[w, ST_RESET]:
        _restart(m, d, t, w, False, F)
        return -1
    return task_pre(m, d, t, w, F)


@njit
def task_post_world(m, d, t, w, div, F):
    """The task's part of world w's call after its physics: a forward keeping the sensors t.keep_adr if the task
    asks (t.refresh: dm_control's step ends with mj_step1), mj_rnePostConstraint if the task reads its fields,
    observation, rewards and termination (task_post); True when the same-step autoreset must restart the world
    (its final observation kept)."""
    if t.refresh:
        keep_sensors(d, t, w)
        forward_world(m, d, w, F)
        restore_sensors(d, t, w)
    if t.rne_post:
        rne_post_constraint_part(m, d, w, F)
    task_post(m, d, t, w, div, F)
    if t.same_step and (t.status[w, ST_TERMINATED] or t.status[w, ST_TRUNCATED]):
        for i in range(t.nobs):
            t.final_obs[w, i] = t.obs[w, i]
        return True
    return False


@njit
def task_end(m, d, t, w, div, F):
    """task_post_world, then the same-step autoreset."""
    if task_post_world(m, d, t, w, div, F):
        _restart(m, d, t, w, True, F)


@njit
def run_world(m, d, t, w, nstep, F):
    """forward (nstep == 0) or nstep steps of world w, with the task program when t.enabled; returns the
    watched-warning bitmask (also stored in d.warn_moved[w])."""
    c0, c1, c2, c3 = watched_counts(d, w)
    div = 0
    if t.enabled:
        div = task_begin(m, d, t, w, F)
    if div >= 0:
        if nstep == 0:
            forward_world(m, d, w, F)
        for _ in range(nstep):
            step_world(m, d, w, F)
        if t.enabled:
            task_end(m, d, t, w, div, F)
    return watched_moved(d, w, c0, c1, c2, c3)


@njit
def _actions_ok(m, t, nworld):
    """Every world that steps (not being reset) has a finite action; bad ones are flagged in t.status."""
    ok = True
    if t.enabled:
        for w in range(nworld):
            if not t.status[w, ST_RESET] and not action_ok(m, t, w):
                t.status[w, ST_BADACTION] = 1
                ok = False
    return ok


# the entries take the Model, Data and task structs by address (sim.jit.struct_addr): ~0.17 us less per call
_model_at = struct_at_address(MODEL_TYPE)
_data_at = struct_at_address(DATA_TYPE)
_task_at = struct_at_address(TASK_TYPE)


@njit(nogil=True)
def run_serial(mp, dp, tp, w, nstep, F):
    """forward (nstep == 0) or nstep steps of the single world w; the Model, Data and task structs at addresses
    mp, dp, tp."""
    m = _model_at(mp)
    d = _data_at(dp)
    t = _task_at(tp)
    if not _actions_ok(m, t, 1):
        return -1
    return 1 if run_world(m, d, t, w, nstep, F) else 0


@njit
def _run_worlds(m, d, t, nworld, nstep, mptrs, F, ctr, chunk):
    """One worker of run_batch: claims `chunk` worlds at a time from the shared counter ctr[0] until all are
    taken; returns how many of its worlds moved a watched warning counter."""
    moved = 0
    w0 = fetch_add(ctr, 0, chunk)
    while w0 < nworld:
        for w in range(w0, min(w0 + chunk, nworld)):
            if mptrs.shape[0] == 0:
                mw = m
            else:
                mw = struct_at(mptrs[w], m)
            if run_world(mw, d, t, w, nstep, F):
                moved += 1
        w0 = fetch_add(ctr, 0, chunk)
    return moved


@njit(parallel=True, refcount=True, nogil=True)
def run_batch(mp, dp, tp, nworld, nstep, mptrs, F):
    """forward (nstep == 0) or nstep steps of worlds 0..nworld-1 in parallel, each independently, on the Model,
    Data and task structs at addresses mp, dp, tp; world w uses the Model struct at address mptrs[w] when mptrs
    is not empty (per-world model fields), else m.

    Worlds are handed out in chunks from a shared counter (numba's prange splits its range statically: a thread
    slowed down, e.g. by another process on its core, would hold up the whole call).  The prange runs NWORKER
    workers; the first worker a thread starts takes chunks until none is left, so any thread count up to NWORKER
    is balanced (numba.get_num_threads() would make the entry uncacheable).

    A chunk is 16 worlds or a multiple of 16 once there are 128 worlds: every per-world row shorter than a cache
    line (time, nefc, ncon, qpos, qvel, ctrl, ...) shares its line with the neighbouring worlds, so two threads
    stepping worlds a few apart write to the same lines thousands of times a step (false sharing).  Measured,
    256 hoppers, 100 steps, 2 threads, ratio to mujoco.rollout in alternating runs: 1.04-1.42 (mean 1.27 over 9)
    with chunks of 4 (nworld/64), 1.35-1.59 (mean 1.43 over 8) with 16.  Fewer worlds: nworld/8 a chunk."""
    m = _model_at(mp)
    d = _data_at(dp)
    t = _task_at(tp)
    if not _actions_ok(m, t, nworld):
        return -1
    chunk = 16 * max(1, nworld // 1024) if nworld >= 128 else max(1, nworld // 8)
    # np.empty and a store: numba turns an np.zeros here into a parallel loop of its own, a second thread launch
    # per call (+1.2 us)
    ctr = np.empty(1, np.int64)
    ctr[0] = 0
    moved = 0
    for i in prange(min(nworld, NWORKER)):
        moved += _run_worlds(m, d, t, nworld, nstep, mptrs, F, ctr, chunk)
    return moved


@njit
def smooth_position(m, d, w, stage, F, body_simple, prm):
    """The compiler's mj_setConst passes on world w at its qpos (one entry instead of a compiled entry per pass):
    stage 1 kinematics, com_pos and tendons (setSpring); stage 2 the mass-dependent constants (set_const, which
    leaves w at qpos0 with crb, the factor of M and transmissions done); F the model's feature set.
    mj_setLengthRange's simulation (sim/setconst.py drives it, with the model's run_serial as mj_step2):
    stage 3 mj_resetData; stage 4 evalAct up to mj_step2 for actuator int(prm[0]), side int(prm[1]), accel
    prm[2], maxforce prm[3], timeconst prm[4] (qvel decay, mj_step1's checks and position stages, the applied
    force: sim/engine/setconst.py length_range_force)."""
    if stage == 2:
        set_const(m, d, w, body_simple, True, F)
        return
    if stage == 3:
        reset_world(m, d, w)
        return
    if stage == 4:
        # evalAct: qvel *= exp(-timestep / max(0.01, timeconst)) (mju_scl), then mj_step1's mj_checkPos and
        # mj_checkVel
        s = math.exp(-m.opt[OPT_TIMESTEP] / max(0.01, prm[4]))
        qvel = d.qvel[w]
        for i in range(m.nv):
            qvel[i] *= s
        _check(m, d, w, d.qpos[w], m.nq, WARN_BADQPOS)
        _check(m, d, w, d.qvel[w], m.nv, WARN_BADQVEL)
        length_range_force(m, d, w, int(prm[0]), int(prm[1]), prm[2], prm[3], F)
        return
    kinematics(m, d, w)
    com_pos(m, d, w)
    tendon_if(F, m, d, w)


@njit
def reset_all(m, d, nworld):
    """mj_resetData on worlds 0..nworld-1."""
    for w in range(nworld):
        reset_world(m, d, w)


@njit(cache=True)
def full_inertia_all(m, d, nworld, out):
    """Dense M (nworld,nv,nv) from the sparse M of each world, as mj_fullM."""
    for w in range(nworld):
        full_inertia(m, d, w, out[w])


@njit(cache=True)
def rne_post_constraint_all(m, d, nworld, F):
    """cacc, cfrc_int, cfrc_ext for every world (mj_rnePostConstraint)."""
    for w in range(nworld):
        rne_post_constraint(m, d, w, F)
