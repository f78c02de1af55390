"""Task programs: an environment's action, observation, reward terms and termination, run inside the physics
entry (sim/engine/forward.py run_world) so that an env step is one compiled call. Layout: sim/types.py (the Task struct).

    task_pre(m, d, t, w, F)            the world's mode; apply the action, record 'before' values, pre-physics terms
    task_post(m, d, t, w, before, F)   expressions, observation, health, post-physics terms, reward, termination,
                                       truncation
    task_reset(m, d, t, w)             mj_resetData, then the pending reset state of world w (forward follows)
    keep_sensors / restore_sensors     the sensordata entries a forward after the steps must not change (refresh)

Every family's task is this one program: the Gymnasium-style tasks (envs/spec.py) read Data elements into
observation elements, terms and checks; the Control Suite tasks (envs/dmc/expr.py) compute theirs with an
expression program (evaluate: numpy's and dm_control's arithmetic, NaN as they propagate it) whose values the
observation elements and terms read as the source 'reg'.  The expression interpreter is a part (sim/jit/parts.py):
compiled once, whatever the model's feature set, and called by symbol from every entry.
"""

import math

import numpy as np
from numba import types

from sim.io import new_task
from sim.jit import njit, part
from sim.types import DATA_TYPE, TASK_ARRAYS, TASK_SCALARS, TASK_TYPE
from sim.constants import NWARNING
from sim.constants import (
    OP_LOAD,
    OP_CONST,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_NEG,
    OP_SIN,
    OP_COS,
    OP_LOG1P,
    OP_ARCSINH,
    OP_TANH,
    OP_SQRT,
    OP_ABS,
    OP_EXP,
    OP_MIN,
    OP_MAX,
    OP_LE,
    OP_LT,
    OP_WHERE,
    OP_TOL,
    MODE_STEP,
    MODE_OBSERVE,
    OBS_SIN,
    OBS_COS,
    TERM_SUM,
    TERM_NORM,
    TERM_DELTA,
    TERM_HEALTHY,
    FLAG_REWARD,
    FLAG_PRE,
    FLAG_RESET,
    FLAG_F32,
    CHK_OPEN,
    CHK_CLOSED,
    CHK_FINITE,
    CHK_OBS_FINITE,
    ST_TERMINATED,
    ST_TRUNCATED,
    ST_DIVERGED,
    ST_HEALTHY,
    ST_ELAPSED,
    ST_RESET,
    ST_FINAL,
    ST_BADACTION,
    ST_F32,
)

WARN_DIVERGED = NWARNING  # numjoco's cumulative divergence counter in warning_number (sim/engine/forward.py)


@njit
def row3(a, w, i):
    """Element i of the flattened per-world row a[w] of a (nworld, n, k) array."""
    k = a.shape[2]
    return a[w, i // k, i % k]


@njit
def read(d, t, w, code, i):
    """Value of source (code, i): element i of the flattened per-world row of Data field FIELDS[code]."""
    if code == 0:
        return d.qpos[w, i]
    if code == 1:
        return d.qvel[w, i]
    if code == 2:
        return d.act[w, i]
    if code == 3:
        return d.ctrl[w, i]
    if code == 4:
        return d.qacc[w, i]
    if code == 5:
        return row3(d.xpos, w, i)
    if code == 6:
        return row3(d.xquat, w, i)
    if code == 7:
        return row3(d.xipos, w, i)
    if code == 8:
        return row3(d.xmat, w, i)
    if code == 9:
        return row3(d.site_xpos, w, i)
    if code == 10:
        return row3(d.geom_xpos, w, i)
    if code == 11:
        return row3(d.subtree_com, w, i)
    if code == 12:
        return row3(d.cinert, w, i)
    if code == 13:
        return row3(d.cvel, w, i)
    if code == 14:
        return row3(d.cacc, w, i)
    if code == 15:
        return row3(d.cfrc_ext, w, i)
    if code == 16:
        return row3(d.cfrc_int, w, i)
    if code == 17:
        return d.qfrc_actuator[w, i]
    if code == 18:
        return d.qfrc_constraint[w, i]
    if code == 19:
        return d.qfrc_applied[w, i]
    if code == 20:
        return d.actuator_force[w, i]
    if code == 21:
        return d.actuator_length[w, i]
    if code == 22:
        return d.actuator_velocity[w, i]
    if code == 23:
        return d.ten_length[w, i]
    if code == 24:
        return d.time[w]
    if code == 25:
        return t.action[w, i]
    if code == 26:
        return d.sensordata[w, i]
    if code == 27:
        return row3(d.geom_xmat, w, i)
    if code == 28:
        return row3(d.site_xmat, w, i)
    if code == 29:
        return row3(d.xanchor, w, i)
    if code == 30:
        return row3(d.xaxis, w, i)
    if code == 31:
        return d.ten_velocity[w, i]
    if code == 32:
        return t.reg[w, i]
    return math.nan


@njit
def sigmoid(x, kind, scale):
    """dm_control.utils.rewards._sigmoids (kind: index in sim/constants.py SIGMOIDS, scale from value_at_1)."""
    if kind == 0:  # gaussian
        y = x * scale
        return math.exp(-0.5 * (y * y))
    if kind == 1:  # hyperbolic
        return 1.0 / math.cosh(x * scale)
    if kind == 2:  # long_tail
        y = x * scale
        return 1.0 / (y * y + 1.0)
    if kind == 3:  # reciprocal
        return 1.0 / (abs(x) * scale + 1.0)
    if kind == 4:  # cosine
        y = x * scale
        return (1.0 + math.cos(math.pi * y)) / 2.0 if abs(y) < 1.0 else 0.0
    if kind == 5:  # linear
        y = x * scale
        return 1.0 - y if abs(y) < 1.0 else 0.0
    if kind == 6:  # quadratic
        y = x * scale
        return 1.0 - y * y if abs(y) < 1.0 else 0.0
    th = math.tanh(x * scale)  # tanh_squared
    return 1.0 - th * th


@njit
def tolerance(x, lower, upper, margin, kind, scale):
    """dm_control.utils.rewards.tolerance of one value (NaN: 0 without a margin, else the sigmoid's NaN)."""
    inb = lower <= x and x <= upper
    if margin == 0.0:
        return 1.0 if inb else 0.0
    if inb:
        return 1.0
    dist = (lower - x if x < lower else x - upper) / margin
    return sigmoid(dist, int(kind), scale)


@njit
def nan_min(a, b):
    """np.minimum: a NaN operand propagates (the first if both are), b on a tie (-0.0, 0.0)."""
    return a if (a < b or a != a) else b


@njit
def nan_max(a, b):
    """np.maximum: a NaN operand propagates (the first if both are), b on a tie (-0.0, 0.0)."""
    return a if (a > b or a != a) else b


def evaluate_part(d, t, w):
    """t.reg[w] (nins,): the expression program on world w's Data, instruction by instruction (ops in
    sim/constants.py; comparisons give 1.0 / 0.0 and are false on NaN, where() takes its first branch on a NaN
    condition, min / max / sqrt give NaN as numpy's minimum / maximum / sqrt)."""
    r = t.reg[w]
    ins = t.ins
    prm = t.ins_prm
    for k in range(t.nins):
        op = ins[k, 0]
        a = ins[k, 1]
        b = ins[k, 2]
        if op == OP_LOAD:
            v = read(d, t, w, a, ins[k, 3])
        elif op == OP_CONST:
            v = prm[k, 0]
        elif op == OP_ADD:
            v = r[a] + r[b]
        elif op == OP_SUB:
            v = r[a] - r[b]
        elif op == OP_MUL:
            v = r[a] * r[b]
        elif op == OP_DIV:
            v = r[a] / r[b]
        elif op == OP_NEG:
            v = -r[a]
        elif op == OP_SIN:
            v = math.sin(r[a])
        elif op == OP_COS:
            v = math.cos(r[a])
        elif op == OP_LOG1P:
            v = math.log1p(r[a])
        elif op == OP_ARCSINH:
            v = math.asinh(r[a])
        elif op == OP_TANH:
            v = math.tanh(r[a])
        elif op == OP_SQRT:
            v = math.sqrt(r[a]) if r[a] >= 0.0 else math.nan
        elif op == OP_ABS:
            v = abs(r[a])
        elif op == OP_EXP:
            v = math.exp(r[a])
        elif op == OP_MIN:
            v = nan_min(r[a], r[b])
        elif op == OP_MAX:
            v = nan_max(r[a], r[b])
        elif op == OP_LE:
            v = 1.0 if r[a] <= r[b] else 0.0
        elif op == OP_LT:
            v = 1.0 if r[a] < r[b] else 0.0
        elif op == OP_WHERE:
            v = r[b] if r[a] != 0.0 else r[ins[k, 3]]
        elif op == OP_TOL:
            v = tolerance(r[a], prm[k, 0], prm[k, 1], prm[k, 2], prm[k, 3], prm[k, 4])
        else:
            v = math.nan
        r[k] = v


# the interpreter as a part: one compile serves every feature set's entries (sim/jit/parts.py)
evaluate = part(evaluate_part, lambda: (DATA_TYPE, TASK_TYPE, types.int64))


@njit
def source(d, t, w, s):
    """Value of source s (a row of t.src)."""
    return read(d, t, w, t.src[s, 0], t.src[s, 1])


@njit
def _element(d, t, w, e):
    """Term element e: clip(x - x2, lo, hi) - off."""
    x = source(d, t, w, t.el_src[e])
    if t.el_src2[e] >= 0:
        x -= source(d, t, w, t.el_src2[e])
    return min(max(x, t.el_lo[e]), t.el_hi[e]) - t.el_off[e]


@njit
def _sq32(d, t, w, e):
    x = np.float32(_element(d, t, w, e))
    return x * x


@njit
def _sumsq32(d, t, w, e0, n):
    """Sum of squares of elements e0..e0+n in float32 as numpy's pairwise_sum does it for a float32 array of
    n <= 128 (np.sum(np.square(a))): sequential below 8, else eight accumulators, combined pairwise, then the
    remainder; longer vectors fall back to float64."""
    if n < 8:
        res = np.float32(0.0)
        for i in range(n):
            res += _sq32(d, t, w, e0 + i)
        return float(res)
    if n > 128:
        return -1.0
    r0 = _sq32(d, t, w, e0)
    r1 = _sq32(d, t, w, e0 + 1)
    r2 = _sq32(d, t, w, e0 + 2)
    r3 = _sq32(d, t, w, e0 + 3)
    r4 = _sq32(d, t, w, e0 + 4)
    r5 = _sq32(d, t, w, e0 + 5)
    r6 = _sq32(d, t, w, e0 + 6)
    r7 = _sq32(d, t, w, e0 + 7)
    i = 8
    while i < n - n % 8:
        r0 += _sq32(d, t, w, e0 + i)
        r1 += _sq32(d, t, w, e0 + i + 1)
        r2 += _sq32(d, t, w, e0 + i + 2)
        r3 += _sq32(d, t, w, e0 + i + 3)
        r4 += _sq32(d, t, w, e0 + i + 4)
        r5 += _sq32(d, t, w, e0 + i + 5)
        r6 += _sq32(d, t, w, e0 + i + 6)
        r7 += _sq32(d, t, w, e0 + i + 7)
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += _sq32(d, t, w, e0 + i)
        i += 1
    return float(res)


@njit
def _term(d, t, w, k, healthy):
    """Value of term k: sign * clip(w * v, rlo, rhi) with v by kind (sim/constants.py)."""
    kind = t.term_kind[k]
    e0 = t.term_el0[k]
    n = t.term_nel[k]
    if (t.term_flags[k] & FLAG_F32) and t.status[w, ST_F32] and n <= 128:
        # Gymnasium's ctrl cost of a float32 action: float32(w) * float32 sum (numpy's weak Python scalars)
        v32 = np.float32(t.term_w[k]) * np.float32(_sumsq32(d, t, w, e0, n))
        return t.term_sign[k] * min(max(float(v32), t.term_rlo[k]), t.term_rhi[k])
    if kind == TERM_HEALTHY:
        v = 1.0 if healthy else 0.0
    elif kind == TERM_DELTA:
        v = (_element(d, t, w, e0) - t.before[w, k]) / t.fprm[0]
    else:
        v = 0.0
        for e in range(e0, e0 + n):
            x = _element(d, t, w, e)
            if kind == TERM_SUM:
                v += t.el_coef[e] * x
            else:
                v += t.el_coef[e] * (x * x)
        if kind == TERM_NORM:
            v = math.sqrt(v)
    return t.term_sign[k] * min(max(t.term_w[k] * v, t.term_rlo[k]), t.term_rhi[k])


@njit
def _healthy(d, t, w):
    """All health checks pass (ranges open / closed, finite values, finite observation)."""
    for c in range(t.nchk):
        op = t.chk_op[c]
        if op == CHK_OBS_FINITE:
            for i in range(t.nobs):
                if not math.isfinite(t.obs[w, i]):
                    return False
            continue
        x = source(d, t, w, t.chk_src[c])
        if op == CHK_OPEN:
            if not (t.chk_lo[c] < x and x < t.chk_hi[c]):
                return False
        elif op == CHK_CLOSED:
            if not (t.chk_lo[c] <= x and x <= t.chk_hi[c]):
                return False
        elif op == CHK_FINITE:
            if not math.isfinite(x):
                return False
    return True


@njit
def observe(d, t, w):
    """t.obs[w] (nobs,) from the observation elements."""
    for i in range(t.nobs):
        x = source(d, t, w, t.obs_src[i])
        if t.obs_src2[i] >= 0:
            x -= source(d, t, w, t.obs_src2[i])
        op = t.obs_op[i]
        if op == OBS_SIN:
            x = math.sin(x)
        elif op == OBS_COS:
            x = math.cos(x)
        t.obs[w, i] = min(max(x, t.obs_lo[i]), t.obs_hi[i])


@njit
def action_ok(m, t, w):
    """Every action element of world w is finite."""
    for i in range(m.nu):
        if not math.isfinite(t.action[w, i]):
            return False
    return True


@njit
def task_pre(m, d, t, w, F):
    """Before the physics steps: ctrl = action; 'before' values of velocity terms; pre-physics terms (reward
    computed on the state before stepping, as Gymnasium's Reacher and Pusher do). Returns the divergence
    counter, to tell a divergence during the steps, or -1 when the world's mode keeps it from stepping this call
    (MODE_SKIP: left as it is; MODE_OBSERVE: its status cleared and its state observed, as after a reset)."""
    mode = t.mode[w]
    if mode != MODE_STEP:
        t.mode[w] = MODE_STEP
        if mode == MODE_OBSERVE:
            clear_status(t, w)
            task_observe_reset(d, t, w, F)
        return -1
    ctrl = d.ctrl[w]
    for i in range(m.nu):
        ctrl[i] = t.action[w, i]
    healthy = t.status[w, ST_HEALTHY] != 0
    for k in range(t.nterm):
        if t.term_kind[k] == TERM_DELTA:
            t.before[w, k] = _element(d, t, w, t.term_el0[k])
        if t.term_flags[k] & FLAG_PRE:
            t.terms[w, k] = _term(d, t, w, k, healthy)
    return d.warning_number[w, WARN_DIVERGED]


@njit
def task_post(m, d, t, w, diverged_before, F):
    """After the physics steps: expressions, observation, health, post-physics terms, reward; terminated /
    truncated / diverged in t.status[w]."""
    if t.nins:
        evaluate(d, t, w, F)
    observe(d, t, w)
    healthy = _healthy(d, t, w)
    st = t.status[w]
    st[ST_HEALTHY] = 1 if healthy else 0
    # reward = (sum of positive terms) - (sum of costs), each in term order, as Gymnasium's `rewards - costs`
    pos = 0.0
    neg = 0.0
    for k in range(t.nterm):
        if not (t.term_flags[k] & FLAG_PRE):
            t.terms[w, k] = _term(d, t, w, k, healthy)
        if t.term_flags[k] & FLAG_REWARD:
            if t.term_sign[k] > 0:
                pos += t.terms[w, k]
            else:
                neg -= t.terms[w, k]
    t.reward[w] = pos - neg
    st[ST_ELAPSED] += 1
    st[ST_DIVERGED] = 1 if d.warning_number[w, WARN_DIVERGED] != diverged_before else 0
    st[ST_TERMINATED] = 1 if (t.terminate != 0 and not healthy) else 0
    st[ST_TRUNCATED] = 1 if ((t.max_steps > 0 and st[ST_ELAPSED] >= t.max_steps) or st[ST_DIVERGED]) else 0
    st[ST_FINAL] = 0
    st[ST_BADACTION] = 0


@njit
def task_reset(m, d, t, w, final):
    """After mj_resetData of world w: its pending reset state (qpos, qvel, act, ctrl); forward must follow.
    final=True is the same-step autoreset after an episode's last step: that step's reward, terms and flags stay
    in t (the observation moved to t.final_obs), and ST_FINAL marks the reset."""
    # element loops, not array-to-array slice assignments (see runge_kutta4)
    for i in range(m.nq):
        d.qpos[w, i] = t.reset_qpos[w, i]
    for i in range(m.nv):
        d.qvel[w, i] = t.reset_qvel[w, i]
    for i in range(m.na):
        d.act[w, i] = t.reset_act[w, i]
    for i in range(m.nu):
        d.ctrl[w, i] = t.reset_ctrl[w, i]
    st = t.status[w]
    if final:
        st[ST_ELAPSED] = 0
        st[ST_RESET] = 0
        st[ST_FINAL] = 1
        return
    clear_status(t, w)


@njit
def clear_status(t, w):
    """World w's status, reward and terms zeroed (a new episode)."""
    st = t.status[w]
    for j in range(st.shape[0]):
        st[j] = 0
    t.reward[w] = 0.0
    for k in range(t.nterm):
        t.terms[w, k] = 0.0


@njit
def task_observe_reset(d, t, w, F):
    """After a reset and forward: expressions, observation, health and the terms reported by reset (no
    reward)."""
    if t.nins:
        evaluate(d, t, w, F)
    observe(d, t, w)
    healthy = _healthy(d, t, w)
    t.status[w, ST_HEALTHY] = 1 if healthy else 0
    for k in range(t.nterm):
        if t.term_flags[k] & FLAG_RESET:
            t.reset_terms[w, k] = _term(d, t, w, k, healthy)


@njit
def keep_sensors(d, t, w):
    """t.keep[w] = the sensordata entries t.keep_adr of world w (before a forward that must not change them)."""
    for j in range(t.keep_adr.shape[0]):
        t.keep[w, j] = d.sensordata[w, t.keep_adr[j]]


@njit
def restore_sensors(d, t, w):
    """The sensordata entries t.keep_adr of world w back to t.keep[w]."""
    for j in range(t.keep_adr.shape[0]):
        d.sensordata[w, t.keep_adr[j]] = t.keep[w, j]


def empty_task():
    """The task struct of plain simulation (enabled = 0, zero-size buffers)."""
    args = [0] * len(TASK_SCALARS)
    for _, nd, k in TASK_ARRAYS:
        args.append(np.zeros((0,) * nd, dtype=np.float64 if k == "f" else np.int32))
    return new_task(*args)
