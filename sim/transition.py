"""Finite-differenced transition Jacobians (engine_derivative_fd.c mjd_transitionFD / mjd_stepFD).

    A, B, C, D = sim.transition_fd(m, d, eps=1e-6, centered=False)

d(x_next) = A dx + B du and d(sensordata) = C dx + D du around the current state of d, where x = (qpos in the
tangent space of the joint manifold (nv), qvel (nv), act (na)) and u = ctrl: A (2nv+na, 2nv+na),
B (2nv+na, nu), C (nsensordata, 2nv+na), D (nsensordata, nu), computed as mujoco.mjd_transitionFD computes
them: one step per nudged input, in MuJoCo's order (controls, activations, velocities, positions), each from
the saved state (time, qpos, qvel, act, ctrl, qacc_warmstart) and skipping the stages the nudge cannot change
(mj_stepSkip: control and activation nudges reuse the position and velocity stages, the velocity-stage sensors
and the implicit integrators' factorisation of the unperturbed step, velocity nudges its position stage);
positions are nudged on the manifold (mj_integratePos) and next states differenced in the tangent space
(mj_differentiatePos); a control at its ctrlrange limit is nudged away from the limit only (backward
difference) or not at all (zero column).  As in MuJoCo 3.17, the centered columns of D carry the wrong sign
(mjd_stepFD's clampedDiff computes (sensor(u - eps) - sensor(u + eps)) / 2 eps); forward differences (the
default) are unaffected.  RK4 is refused, as by MuJoCo.

A batched d (nworld = N) gives (N, ...) arrays, every world differentiated around its own state.  The nudged
steps run in a compiled kernel on a scratch batch Data (d itself is left untouched, where MuJoCo leaves the
results of its last nudged step in d): one row per world, or several rows per world (each repeating the
unperturbed step, then taking a contiguous part of the nudges) so that a single world keeps every thread busy;
rows run in parallel.
"""
import numba
import numpy as np
from numba import prange

from sim.jit import njit
from sim.pipeline import fwd_position, fwd_velocity, forward_world, _check
from sim.actuation import actuation
from sim.pipeline import fwd_acceleration
from sim.solver import fwd_constraint
from sim.sensor import sensor_acc_stage
from sim.inverse import compare_fwd_inv
from sim.integrate import euler, implicit_fast, integrate_pos
from sim.types import (INT_RK4, INT_IMPLICIT, INT_IMPLICITFAST, JNT_FREE, JNT_BALL, MINVAL, OPT_DISABLE, OPT_ENABLE,
                       OPT_INTEGRATOR, DSBL_AUTORESET, DSBL_WARMSTART, ENBL_FWDINV, WARN_BADQPOS, WARN_BADQVEL,
                       WARN_BADQACC)

MEMORY_BUDGET = 256 * 2 ** 20    # bytes of one scratch batch Data (worlds beyond it are done in chunks)
# Data arrays copied from each world of d into its scratch rows: the inputs of mj_step, and what the unperturbed
# step reads from d's previous forward: sensordata (kept where sensors are disabled), energy and the
# lazy-evaluation flags (a position-stage e_kinetic sensor reads energy[1] when flg_energyvel is set)
_INPUTS = ('time', 'qpos', 'qvel', 'act', 'ctrl', 'qacc_warmstart', 'qfrc_applied', 'xfrc_applied', 'mocap_pos',
           'mocap_quat', 'eq_active', 'userdata', 'sensordata', 'energy', 'flg_energypos', 'flg_energyvel',
           'flg_subtreevel', 'flg_rnepost')
_CACHE = {}     # id(model) -> (model, {(nrow, nconmax, njmax): scratch Data})

KIND_NONE, KIND_CTRL, KIND_ACT, KIND_QVEL, KIND_QPOS = -1, 0, 1, 2, 3
STAGE_NONE, STAGE_POS, STAGE_VEL = 0, 1, 2


# ------------------------------------------------------------------------------------------------------------
# compiled part: mj_stepSkip and the nudge loop of mjd_stepFD

@njit(cache=True)
def step_skip(m, d, w, skipstage, skipsensor):
    """mj_stepSkip of world w (skipstage: 0 none, 1 position, 2 velocity; not RK4)."""
    _check(m, d, w, d.qpos[w], m.nq, WARN_BADQPOS)
    _check(m, d, w, d.qvel[w], m.nv, WARN_BADQVEL)
    if skipstage < STAGE_POS:
        fwd_position(m, d, w, skipsensor)
    if skipstage < STAGE_VEL:
        fwd_velocity(m, d, w, skipsensor)
    actuation(m, d, w)
    fwd_acceleration(m, d, w)
    fwd_constraint(m, d, w)
    if not skipsensor:
        sensor_acc_stage(m, d, w)
    if _check(m, d, w, d.qacc[w], m.nv, WARN_BADQACC):
        if not (int(m.opt[OPT_DISABLE]) & DSBL_AUTORESET):
            forward_world(m, d, w)
    if int(m.opt[OPT_ENABLE]) & ENBL_FWDINV:
        compare_fwd_inv(m, d, w)
    integ = int(m.opt[OPT_INTEGRATOR])
    if integ == INT_IMPLICIT or integ == INT_IMPLICITFAST:
        implicit_fast(m, d, w, skipstage >= STAGE_VEL)
    else:
        euler(m, d, w, skipstage >= STAGE_POS)


@njit(cache=True)
def _save(m, d, w, s):
    """s = (qpos, qvel, act, ctrl, qacc_warmstart, time) of world w."""
    nq, nv, na, nu = m.nq, m.nv, m.na, m.nu
    s[:nq] = d.qpos[w]
    s[nq:nq + nv] = d.qvel[w]
    s[nq + nv:nq + nv + na] = d.act[w]
    s[nq + nv + na:nq + nv + na + nu] = d.ctrl[w]
    s[nq + nv + na + nu:nq + 2 * nv + na + nu] = d.qacc_warmstart[w]
    s[nq + 2 * nv + na + nu] = d.time[w]


@njit(cache=True)
def _restore(m, d, w, s):
    """mj_setState(mjSTATE_FULLPHYSICS | CTRL | WARMSTART (unless disabled)) from s."""
    nq, nv, na, nu = m.nq, m.nv, m.na, m.nu
    d.qpos[w][:] = s[:nq]
    d.qvel[w][:] = s[nq:nq + nv]
    d.act[w][:] = s[nq + nv:nq + nv + na]
    d.ctrl[w][:] = s[nq + nv + na:nq + nv + na + nu]
    if not (int(m.opt[OPT_DISABLE]) & DSBL_WARMSTART):
        d.qacc_warmstart[w][:] = s[nq + nv + na + nu:nq + 2 * nv + na + nu]
    d.time[w] = s[nq + 2 * nv + na + nu]


@njit(cache=True)
def _record(m, d, w, nxt, sens):
    """nxt (nq+nv+na,) = next state, sens (ns,) = sensordata of world w."""
    nq, nv = m.nq, m.nv
    nxt[:nq] = d.qpos[w]
    nxt[nq:nq + nv] = d.qvel[w]
    nxt[nq + nv:] = d.act[w]
    sens[:] = d.sensordata[w]


@njit(cache=True)
def fd_row(m, d, r, b, t0, t1, tasks, eps, skipsensor, save, nxt, sens, dpos):
    """Row r of the scratch Data holds world b's inputs: the unperturbed step (recorded at slot 0 by the row
    that starts at task 0), then nudges t0..t1-1 of tasks[b] (kind, index, sign), each from the saved state,
    recorded at slot t + 1 (the nudge loop of mjd_stepFD)."""
    s = save[r]
    _save(m, d, r, s)
    step_skip(m, d, r, STAGE_NONE, skipsensor)
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
        step_skip(m, d, r, stage, skipsensor)
        _record(m, d, r, nxt[b, t + 1], sens[b, t + 1])
    _restore(m, d, r, s)


@njit(parallel=True, refcount=True)
def fd_rows(m, d, nrow, row_base, row_t0, row_t1, tasks, eps, skipsensor, save, nxt, sens, dpos):
    """fd_row for rows 0..nrow-1 in parallel."""
    for r in prange(nrow):
        fd_row(m, d, r, row_base[r], row_t0[r], row_t1[r], tasks, eps, skipsensor, save, nxt, sens, dpos[r])


# ------------------------------------------------------------------------------------------------------------
# quaternion helpers on (n, 4) arrays, in MuJoCo's operation order (state differences)

def _mul_quat(a, b):
    a0, a1, a2, a3 = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    b0, b1, b2, b3 = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return np.stack([a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3,
                     a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2,
                     a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1,
                     a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0], axis=-1)


def _sub_quat(qa, qb):
    """mju_subQuat rows: 3D velocity res with qb * quat(res) = qa."""
    neg = qb * np.array([1.0, -1.0, -1.0, -1.0])
    dif = _mul_quat(neg, qa)
    axis = dif[:, 1:4].copy()
    s = np.sqrt(axis[:, 0] * axis[:, 0] + axis[:, 1] * axis[:, 1] + axis[:, 2] * axis[:, 2])
    small = s < MINVAL
    with np.errstate(divide='ignore', invalid='ignore'):
        inv = 1 / s
        axis = axis * inv[:, None]
    axis[small] = (1.0, 0.0, 0.0)
    speed = 2 * np.arctan2(s, dif[:, 0])
    speed = np.where(speed > np.pi, speed - 2 * np.pi, speed)
    return axis * speed[:, None]


class _Layout:
    """Per-model constants: sizes, the scalar and quaternion coordinates of qpos, sensor stages."""

    def __init__(self, m):
        nq, nv = int(m.nq), int(m.nv)
        self.nq, self.nv, self.na, self.nu = nq, nv, int(m.na), int(m.nu)
        self.ns = int(getattr(m, 'nsensordata', 0))
        jt = np.asarray(m.jnt_type).reshape(-1)
        qa = np.asarray(m.jnt_qposadr).reshape(-1)
        va = np.asarray(m.jnt_dofadr).reshape(-1)
        quat, scalar = [], []
        for j in range(int(m.njnt)):
            a, v = int(qa[j]), int(va[j])
            if jt[j] == JNT_FREE:
                scalar += [(a + k, v + k) for k in range(3)]
                quat.append((a + 3, v + 3))
            elif jt[j] == JNT_BALL:
                quat.append((a, v))
            else:
                scalar.append((a, v))
        self.quat = quat
        sq = np.array(scalar, np.int64).reshape(-1, 2)
        self.scalar_qadr, self.scalar_dof = sq[:, 0], sq[:, 1]
        self.world_bytes = None


def state_diff(lay, s1, s2, h):
    """(s2 - s1) / h for rows of states (qpos, qvel, act) in the tangent space (stateDiff of mjd_stepFD):
    (n, 2nv+na); h (n,)."""
    nq, nv = lay.nq, lay.nv
    out = np.empty((len(s1), 2 * nv + lay.na))
    inv_h = 1 / h
    if nq == nv:
        out[:] = inv_h[:, None] * (s2 - s1)
        return out
    # mj_differentiatePos: scalar coordinates divided by h, quaternions via mju_subQuat scaled by 1/h
    out[:, lay.scalar_dof] = (s2[:, lay.scalar_qadr] - s1[:, lay.scalar_qadr]) / h[:, None]
    for a, v in lay.quat:
        out[:, v:v + 3] = _sub_quat(s2[:, a:a + 4], s1[:, a:a + 4]) * inv_h[:, None]
    out[:, nv:] = inv_h[:, None] * (s2[:, nq:] - s1[:, nq:])
    return out


# ------------------------------------------------------------------------------------------------------------

def _plan(m, lay, ctrl, eps, centered):
    """Nudges of N worlds in mjd_stepFD's order: tasks (N, T, 3) = (kind, index, sign), padded with kind -1;
    ntask (N,); and per kind the (N, n) slots (task index + 1) of the plus / minus nudge of each column (-1:
    none)."""
    N = len(ctrl)
    nu, na, nv = lay.nu, lay.na, lay.nv
    parts = []
    if nu:
        limited = np.asarray(m.actuator_ctrllimited).reshape(nu).astype(bool)[None, :]
        rng = np.asarray(m.actuator_ctrlrange, dtype=np.float64).reshape(nu, 2)
        lo, hi = rng[:, 0][None, :], rng[:, 1][None, :]

        def inrange(x1, x2):
            return (x1 >= lo) & (x1 <= hi) & (x2 >= lo) & (x2 <= hi)
        fwd = ~limited | inrange(ctrl, ctrl + eps)
        back = (centered | ~fwd) & (~limited | inrange(ctrl - eps, ctrl))
        valid = np.stack([fwd, back], 2).reshape(N, 2 * nu)
        idx = np.repeat(np.arange(nu), 2)[None, :].repeat(N, 0)
        sign = np.tile([1, -1], nu)[None, :].repeat(N, 0)
        parts.append((KIND_CTRL, valid, idx, sign))
    for kind, n in ((KIND_ACT, na), (KIND_QVEL, nv), (KIND_QPOS, nv)):
        if n:
            valid = np.ones((N, n, 2 if centered else 1), bool).reshape(N, -1)
            idx = np.repeat(np.arange(n), 2 if centered else 1)[None, :].repeat(N, 0)
            sign = np.tile([1, -1] if centered else [1], n)[None, :].repeat(N, 0)
            parts.append((kind, valid, idx, sign))
    if not parts:
        return np.zeros((N, 0, 3), np.int64), np.zeros(N, np.int64), {}
    valid = np.concatenate([p[1] for p in parts], 1)
    kinds = np.concatenate([np.full(p[1].shape, p[0]) for p in parts], 1)
    idx = np.concatenate([p[2] for p in parts], 1)
    sign = np.concatenate([p[3] for p in parts], 1)
    # compact each world's valid nudges to the front, keeping their order
    order = np.argsort(~valid, axis=1, kind='stable')
    take = lambda a: np.take_along_axis(a, order, 1)   # noqa: E731
    valid, kinds, idx, sign = take(valid), take(kinds), take(idx), take(sign)
    ntask = valid.sum(1)
    T = int(ntask.max())
    tasks = np.stack([np.where(valid, kinds, KIND_NONE), idx, sign], 2)[:, :T].astype(np.int64)
    slots = {}
    b, t = np.nonzero(valid[:, :T])
    for kind, n in ((KIND_CTRL, nu), (KIND_ACT, na), (KIND_QVEL, nv), (KIND_QPOS, nv)):
        if not n:
            continue
        P = np.full((N, n), -1, np.int64)
        Mn = np.full((N, n), -1, np.int64)
        sel = tasks[b, t, 0] == kind
        for arr, sg in ((P, 1), (Mn, -1)):
            s2 = sel & (tasks[b, t, 2] == sg)
            arr[b[s2], tasks[b[s2], t[s2], 1]] = t[s2] + 1
        slots[kind] = (P, Mn)
    return tasks, ntask, slots


def _scratch(m, nrow, nconmax, njmax):
    from sim.data import Data
    ent = _CACHE.get(id(m))
    if ent is None or ent[0] is not m:
        ent = (m, {}, _Layout(m))
        _CACHE[id(m)] = ent
    key = (nrow, nconmax, njmax)
    d = ent[1].get(key)
    if d is None:
        if len(ent[1]) >= 2:
            ent[1].clear()
        d = Data(m, nworld=nrow, nconmax=nconmax, njmax=njmax)
        ent[1][key] = d
    return d


def _layout(m):
    ent = _CACHE.get(id(m))
    if ent is None or ent[0] is not m:
        ent = (m, {}, _Layout(m))
        _CACHE[id(m)] = ent
    return ent[2]


def _world_bytes(m, lay, nconmax, njmax):
    if lay.world_bytes is None or lay.world_bytes[0] != (nconmax, njmax):
        from sim import types as t
        size = t.data_sizes(m, nconmax, njmax)
        shapes = t.data_shapes(m)
        for mod in t._field_modules():
            shapes.update(mod.data_shapes(m, size))
        lay.world_bytes = ((nconmax, njmax), sum(8 * int(np.prod(s)) for s in shapes.values()))
    return lay.world_bytes[1]


def _run(m, d, lay, tasks, ntask, eps):
    """Unperturbed and nudged steps of every world: (next states (N, T+1, nq+nv+na), sensordata (N, T+1, ns))."""
    from sim.smooth_api import model_struct
    N, T = tasks.shape[0], tasks.shape[1]
    nq, nv, na, nu = lay.nq, lay.nv, lay.na, lay.nu
    nthread = numba.get_num_threads()
    per_base = max(1, min(T, -(-nthread // N))) if T else 1      # rows per world
    nxt = np.zeros((N, T + 1, nq + nv + na))
    sens = np.zeros((N, T + 1, lay.ns))
    max_rows = max(1, MEMORY_BUDGET // max(1, _world_bytes(m, lay, d.nconmax, d.njmax)))
    bases_per_chunk = max(1, min(N, max_rows // per_base))
    nchunk = -(-N // bases_per_chunk)
    bases_per_chunk = -(-N // nchunk)
    nrow = bases_per_chunk * per_base
    scratch = _scratch(m, nrow, d.nconmax, d.njmax)
    sa = scratch._arrays
    src = d._arrays
    ms = model_struct(m)
    save = np.zeros((nrow, nq + 2 * nv + na + nu + 1))
    dpos = np.zeros((nrow, nv))
    for c in range(nchunk):
        bases = np.arange(c * bases_per_chunk, min(N, (c + 1) * bases_per_chunk))
        nb = len(bases)
        row_base = np.repeat(bases, per_base)
        part = np.tile(np.arange(per_base), nb)
        n = ntask[row_base]
        row_t0 = (part * n) // per_base
        row_t1 = ((part + 1) * n) // per_base
        rows = nb * per_base
        for name in _INPUTS:
            sa[name][:rows] = src[name][row_base]
        nt = min(nthread, rows)
        numba.set_num_threads(nt)
        try:
            fd_rows(ms, scratch._struct, rows, row_base, row_t0, row_t1, tasks, eps, lay.ns == 0, save, nxt,
                    sens, dpos)
        finally:
            numba.set_num_threads(nthread)
    return nxt, sens


def transition_fd(m, d, eps=1e-6, centered=False):
    """(A, B, C, D) of mujoco.mjd_transitionFD at the state of d (see the module doc); (N, ...) arrays for a
    batched d."""
    if int(m.opt.integrator) == INT_RK4:
        raise ValueError('RK4 integrator is not supported by transition_fd (as mjd_transitionFD)')
    if int(getattr(m, 'nhistory', 0)):
        raise ValueError('delays (history buffers) are not supported by transition_fd (as mjd_transitionFD)')
    eps = float(eps)
    centered = bool(centered)
    lay = _layout(m)
    nv, na, nu, ns = lay.nv, lay.na, lay.nu, lay.ns
    ndx = 2 * nv + na
    N = 1 if d.nworld is None else d.nworld
    tasks, ntask, slots = _plan(m, lay, d._arrays['ctrl'].reshape(N, nu), eps, centered)
    nxt, sens = _run(m, d, lay, tasks, ntask, eps)
    A = np.zeros((N, ndx, ndx))
    B = np.zeros((N, ndx, nu))
    C = np.zeros((N, ns, ndx))
    D = np.zeros((N, ns, nu))
    rows = np.arange(N)[:, None]
    for kind, off, n in ((KIND_QPOS, 0, nv), (KIND_QVEL, nv, nv), (KIND_ACT, 2 * nv, na), (KIND_CTRL, 0, nu)):
        if not n:
            continue
        P, Mn = slots[kind]
        hasp, hasm = P >= 0, Mn >= 0
        # clampedStateDiff / clampedDiff: forward (nominal, plus, h), backward (minus, nominal, h),
        # centered (minus, plus, 2h), none: zero column
        i1 = np.where(hasm, Mn, 0)
        i2 = np.where(hasp, P, 0)
        both = hasp & hasm
        h = np.where(both, 2 * eps, eps)
        ok = hasp | hasm
        bb = np.broadcast_to(rows, ok.shape)[ok]
        i1, i2, h, both = i1[ok], i2[ok], h[ok], both[ok]
        dy = np.zeros((N, n, ndx))
        dy[ok] = state_diff(lay, nxt[bb, i1], nxt[bb, i2], h)
        ds = np.zeros((N, n, ns))
        if kind == KIND_CTRL:
            # MuJoCo's clampedDiff: centered control columns as (minus - plus) / 2h (sign flipped)
            s1, s2 = np.where(both, i2, i1), np.where(both, i1, i2)
        else:
            s1, s2 = i1, i2
        ds[ok] = (1 / h)[:, None] * (sens[bb, s2] - sens[bb, s1])
        if kind == KIND_CTRL:
            B[:] = dy.transpose(0, 2, 1)
            D[:] = ds.transpose(0, 2, 1)
        else:
            A[:, :, off:off + n] = dy.transpose(0, 2, 1)
            C[:, :, off:off + n] = ds.transpose(0, 2, 1)
    if d.nworld is None:
        return A[0], B[0], C[0], D[0]
    return A, B, C, D


__all__ = ['transition_fd']
