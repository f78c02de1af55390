"""Finite-differenced transition Jacobians (engine_derivative_fd.c mjd_transitionFD / mjd_stepFD).

    A, B, C, D = sim.transition_fd(m, d, eps=1e-6, centered=False)

d(x_next) = A dx + B du and d(sensordata) = C dx + D du around the current state of d, where x = (qpos in the
tangent space of the joint manifold (nv), qvel (nv), act (na)) and u = ctrl: A (2nv+na, 2nv+na),
B (2nv+na, nu), C (nsensordata, 2nv+na), D (nsensordata, nu), computed as mujoco.mjd_transitionFD computes
them: one step per nudged input, in MuJoCo's order (controls, activations, velocities, positions), each from
the saved state (time, qpos, qvel, act, ctrl, qacc_warmstart) and skipping the stages the nudge cannot change
(mj_stepSkip: control and activation nudges reuse the position and velocity stages, the velocity-stage sensors
and the implicit integrators' factorisation of the unperturbed step, velocity nudges its position stage, PGS's
AR included, which the position stage makes as mj_projectConstraint does);
positions are nudged on the manifold (mj_integratePos) and next states differenced in the tangent space
(mj_differentiatePos); a control at its ctrlrange limit is nudged away from the limit only (backward
difference) or not at all (zero column).  As in MuJoCo 3.17, the centered columns of D carry the wrong sign
(mjd_stepFD's clampedDiff computes (sensor(u - eps) - sensor(u + eps)) / 2 eps); forward differences (the
default) are unaffected.  RK4 is refused, as by MuJoCo.

A batched d (nworld = N) gives (N, ...) arrays, every world differentiated around its own state.  The nudged
steps run in a compiled kernel (fd_rows) on a scratch batch Data, one row per world, the rows in parallel.  With
fewer worlds than threads (one world), a world whose serial differentiation takes long enough
(sim.api.SPLIT_AFTER) has its nudges cut over several rows, each repeating the unperturbed step, so that one world
uses every thread with the same numbers.  d itself is left untouched (MuJoCo leaves the results of its last nudged
step in d).  The differences are formed in a second compiled loop (fd_columns).
"""

import numpy as np
from numba import prange

from sim.jit import njit
from sim.engine.forward import (
    fwd_position,
    fwd_velocity,
    fwd_acc_stage,
    check_acc,
    _check,
    _implicit_fast,
)
from sim.engine.integrate import euler, integrate_pos, joint_addr
from sim.engine.math import sub_quat
from sim.constants import (
    INT_IMPLICIT,
    INT_IMPLICITFAST,
    JNT_FREE,
    JNT_BALL,
    OPT_DISABLE,
    OPT_INTEGRATOR,
    DSBL_WARMSTART,
    WARN_BADQPOS,
    WARN_BADQVEL,
)

KIND_NONE, KIND_CTRL, KIND_ACT, KIND_QVEL, KIND_QPOS = -1, 0, 1, 2, 3
STAGE_NONE, STAGE_POS, STAGE_VEL = 0, 1, 2


# ------------------------------------------------------------------------------------------------------------
# compiled part: mj_stepSkip and the nudge loop of mjd_stepFD


@njit(cache=True)
def step_skip(m, d, w, skipstage, skipsensor, F):
    """mj_stepSkip of world w (skipstage: 0 none, 1 position, 2 velocity; not RK4)."""
    _check(m, d, w, d.qpos[w], m.nq, WARN_BADQPOS)
    _check(m, d, w, d.qvel[w], m.nv, WARN_BADQVEL)
    if skipstage < STAGE_POS:
        fwd_position(m, d, w, F, skipsensor)
    if skipstage < STAGE_VEL:
        fwd_velocity(m, d, w, F, skipsensor)
    fwd_acc_stage(m, d, w, F, skipsensor)
    check_acc(m, d, w, F)
    integ = int(m.opt[OPT_INTEGRATOR])
    if integ == INT_IMPLICIT or integ == INT_IMPLICITFAST:
        _implicit_fast(F, m, d, w, skipstage >= STAGE_VEL)
    else:
        euler(m, d, w, skipstage >= STAGE_POS)


@njit(cache=True)
def copy_inputs(src, dst, base):
    """Row r of Data dst = world base[r] of Data src in what a step reads: the inputs of mj_step, and what the
    unperturbed step reads from src's previous forward: sensordata (kept where sensors are disabled), energy and
    the lazy-evaluation flags (a position-stage e_kinetic sensor reads energy[1] when flg_energyvel is set)."""
    for r in range(base.shape[0]):
        b = base[r]
        dst.time[r] = src.time[b]
        dst.qpos[r] = src.qpos[b]
        dst.qvel[r] = src.qvel[b]
        dst.act[r] = src.act[b]
        dst.ctrl[r] = src.ctrl[b]
        dst.qacc_warmstart[r] = src.qacc_warmstart[b]
        dst.qfrc_applied[r] = src.qfrc_applied[b]
        dst.xfrc_applied[r] = src.xfrc_applied[b]
        dst.mocap_pos[r] = src.mocap_pos[b]
        dst.mocap_quat[r] = src.mocap_quat[b]
        dst.eq_active[r] = src.eq_active[b]
        dst.userdata[r] = src.userdata[b]
        dst.sensordata[r] = src.sensordata[b]
        dst.energy[r] = src.energy[b]
        dst.flg_energypos[r] = src.flg_energypos[b]
        dst.flg_energyvel[r] = src.flg_energyvel[b]
        dst.flg_subtreevel[r] = src.flg_subtreevel[b]
        dst.flg_rnepost[r] = src.flg_rnepost[b]


@njit(cache=True)
def _save(m, d, w, s):
    """s = (qpos, qvel, act, ctrl, qacc_warmstart, time) of world w."""
    nq, nv, na, nu = m.nq, m.nv, m.na, m.nu
    s[:nq] = d.qpos[w]
    s[nq : nq + nv] = d.qvel[w]
    s[nq + nv : nq + nv + na] = d.act[w]
    s[nq + nv + na : nq + nv + na + nu] = d.ctrl[w]
    s[nq + nv + na + nu : nq + 2 * nv + na + nu] = d.qacc_warmstart[w]
    s[nq + 2 * nv + na + nu] = d.time[w]


@njit(cache=True)
def _restore(m, d, w, s):
    """mj_setState(mjSTATE_FULLPHYSICS | CTRL | WARMSTART (unless disabled)) from s."""
    nq, nv, na, nu = m.nq, m.nv, m.na, m.nu
    d.qpos[w][:] = s[:nq]
    d.qvel[w][:] = s[nq : nq + nv]
    d.act[w][:] = s[nq + nv : nq + nv + na]
    d.ctrl[w][:] = s[nq + nv + na : nq + nv + na + nu]
    if not (int(m.opt[OPT_DISABLE]) & DSBL_WARMSTART):
        d.qacc_warmstart[w][:] = s[nq + nv + na + nu : nq + 2 * nv + na + nu]
    d.time[w] = s[nq + 2 * nv + na + nu]


@njit(cache=True)
def _record(m, d, w, nxt, sens):
    """nxt (nq+nv+na,) = next state, sens (ns,) = sensordata of world w."""
    nq, nv = m.nq, m.nv
    nxt[:nq] = d.qpos[w]
    nxt[nq : nq + nv] = d.qvel[w]
    nxt[nq + nv :] = d.act[w]
    sens[:] = d.sensordata[w]


@njit(cache=True)
def fd_row(m, d, r, b, t0, t1, tasks, eps, skipsensor, save, nxt, sens, dpos, F):
    """Row r of the scratch Data holds world b's inputs: the unperturbed step (recorded at slot 0 when t0 is
    0), then nudges t0..t1-1 of tasks[b] (kind, index, sign), each from the saved state, recorded at slot t + 1
    (the nudge loop of mjd_stepFD; a row starting at t0 > 0 repeats the unperturbed step first)."""
    s = save[r]
    _save(m, d, r, s)
    step_skip(m, d, r, STAGE_NONE, skipsensor, F)
    if t0 == 0:
        _record(m, d, r, nxt[b, 0], sens[b, 0])
    for t in range(t0, t1):
        kind = tasks[b, t, 0]
        i = tasks[b, t, 1]
        h = tasks[b, t, 2] * eps
        _restore(m, d, r, s)
        if kind == KIND_CTRL:
            d.ctrl[r, i] += h
            stage = STAGE_VEL
        elif kind == KIND_ACT:
            d.act[r, i] += h
            stage = STAGE_VEL
        elif kind == KIND_QVEL:
            d.qvel[r, i] += h
            stage = STAGE_POS
        else:
            dpos[:] = 0.0
            dpos[i] = 1.0
            integrate_pos(m, d.qpos[r], dpos, h)
            stage = STAGE_NONE
        step_skip(m, d, r, stage, skipsensor, F)
        _record(m, d, r, nxt[b, t + 1], sens[b, t + 1])
    _restore(m, d, r, s)


@njit(parallel=True, refcount=True)
def fd_rows(m, d, nrow, row_base, row_t0, row_t1, tasks, eps, skipsensor, save, nxt, sens, dpos, F):
    """fd_row for rows 0..nrow-1 in parallel (compiled per feature set F, sim/jit/features.py)."""
    for i in prange(nrow):
        r = np.int64(i)  # the prange index is unsigned: one signature for fd_row
        fd_row(m, d, r, row_base[r], row_t0[r], row_t1[r], tasks, eps, skipsensor, save, nxt, sens, dpos[r], F)


@njit(cache=True)
def control_nudges(ctrl, limited, rng, eps, centered, out):
    """out (N, nu, 2) = 1 where control i of world b is nudged forward (out[b, i, 0]) / backward (out[b, i, 1]):
    mjd_stepFD's inRange tests of ctrl + eps and ctrl - eps against a limited control's range."""
    for b in range(ctrl.shape[0]):
        for i in range(ctrl.shape[1]):
            x = ctrl[b, i]
            lo, hi = rng[i, 0], rng[i, 1]
            lim = limited[i] != 0
            xp = x + eps
            xm = x - eps
            fwd = not lim or (x >= lo and x <= hi and xp >= lo and xp <= hi)
            back = (centered or not fwd) and (not lim or (xm >= lo and xm <= hi and x >= lo and x <= hi))
            out[b, i, 0] = fwd
            out[b, i, 1] = back


@njit(cache=True)
def _state_diff(m, x1, x2, h, out, col):
    """out[:, col] = (x2 - x1) / h for states (qpos, qvel, act), the qpos part in the tangent space
    (stateDiff of mjd_stepFD: mj_differentiatePos, or plain differences when nq == nv)."""
    nq, nv = m.nq, m.nv
    if nq == nv:
        inv_h = 1 / h
        for k in range(nq + nv + m.na):
            out[k, col] = inv_h * (x2[k] - x1[k])
        return
    for j in range(m.njnt):
        pa, va, jt = joint_addr(m, j)
        if jt == JNT_FREE or jt == JNT_BALL:
            if jt == JNT_FREE:
                for k in range(3):
                    out[va + k, col] = (x2[pa + k] - x1[pa + k]) / h
                pa += 3
                va += 3
            v0, v1, v2 = sub_quat(
                x2[pa], x2[pa + 1], x2[pa + 2], x2[pa + 3], x1[pa], x1[pa + 1], x1[pa + 2], x1[pa + 3]
            )
            s = 1 / h
            out[va, col] = v0 * s
            out[va + 1, col] = v1 * s
            out[va + 2, col] = v2 * s
        else:
            out[va, col] = (x2[pa] - x1[pa]) / h
    inv_h = 1 / h
    for k in range(nv + m.na):
        out[nv + k, col] = inv_h * (x2[nq + k] - x1[nq + k])


@njit(cache=True)
def fd_columns(m, nxt, sens, slots, eps, A, B, C, D):
    """A, B, C, D (N, ...) from the recorded steps: column c of world b differences the plus / minus nudge
    slots[b, c] (-1: none) against each other (centered, 2 eps), or against the unperturbed step (slot 0);
    neither: zero column (clampedStateDiff / clampedDiff).  Columns: qpos (nv), qvel (nv), act (na), ctrl."""
    nx = 2 * m.nv + m.na
    ns = sens.shape[2]
    for b in range(slots.shape[0]):
        for c in range(slots.shape[1]):
            p = slots[b, c, 0]
            q = slots[b, c, 1]
            if p < 0 and q < 0:
                continue
            if p >= 0 and q >= 0:
                i1, i2, h = q, p, 2 * eps
            elif p >= 0:
                i1, i2, h = 0, p, eps
            else:
                i1, i2, h = q, 0, eps
            ctrl = c >= nx
            Y = B[b] if ctrl else A[b]
            S = D[b] if ctrl else C[b]
            col = c - nx if ctrl else c
            _state_diff(m, nxt[b, i1], nxt[b, i2], h, Y, col)
            if ctrl and p >= 0 and q >= 0:
                # MuJoCo's clampedDiff: centered control columns as (minus - plus) / 2h (sign flipped)
                i1, i2 = i2, i1
            inv_h = 1 / h
            for k in range(ns):
                S[k, col] = inv_h * (sens[b, i2, k] - sens[b, i1, k])
