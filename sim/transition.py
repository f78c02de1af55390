"""Finite-differenced transition Jacobians (engine_derivative_fd.c mjd_transitionFD / mjd_stepFD).

    A, B, C, D = sim.transition_fd(m, d, eps=1e-6, centered=False)

d(x_next) = A dx + B du and d(sensordata) = C dx + D du around the current state of d, where x = (qpos in the
tangent space of the joint manifold (nv), qvel (nv), act (na)) and u = ctrl: A (2nv+na, 2nv+na),
B (2nv+na, nu), C (nsensordata, 2nv+na), D (nsensordata, nu), as mujoco.mjd_transitionFD computes them:
forward (or centered) differences of one mj_step per nudged input; positions nudged on the manifold
(mj_integratePos) and next states differenced in the tangent space (mj_differentiatePos); a control at its
ctrlrange limit is nudged away from the limit only (backward difference) or not at all (zero column); the
warmstart (qacc_warmstart), time, controls and applied forces of d are those of every nudged step.  As in
MuJoCo 3.17, the centered columns of D carry the wrong sign (mjd_stepFD's clampedDiff computes
(sensor(u - eps) - sensor(u + eps)) / 2 eps); forward differences (the default) are unaffected.

A batched d (nworld = N) gives (N, ...) arrays: every world differentiated around its own state.  All nudged
steps of all worlds are advanced together by ONE sim.step on a batch Data (worlds in parallel), split into
chunks only when a batch would exceed MEMORY_BUDGET bytes; d itself is left untouched (MuJoCo leaves the
results of its last nudged step in d's derived fields).

MuJoCo skips recomputing the stages a nudge cannot change (mj_stepSkip); numjoco recomputes them, which gives
the same numbers with one exception, measured in tests/test_transition.py: with the implicit / implicitfast
integrators MuJoCo reuses the unperturbed factorisation of M - h qDeriv for control and activation nudges (and
Euler its M + h B for velocity nudges), so where qDeriv depends on ctrl / act (affine gains with a velocity
term, muscles) or dof damping on qvel (dampingpoly) MuJoCo's B / A columns omit that dependence and ours
include it.  RK4 is refused, as by MuJoCo.
"""
import numpy as np

from sim.types import INT_RK4, JNT_FREE, JNT_BALL, MINVAL

MEMORY_BUDGET = 256 * 2 ** 20    # bytes of one batch Data (per chunk of nudged worlds)
# Data arrays copied from the unperturbed world into every nudged one (mjSTATE_FULLPHYSICS | CTRL | WARMSTART,
# and the other inputs, which mjd_stepFD leaves as they are in d)
# and what the unperturbed step reads from d's previous forward: sensordata (kept where sensors are disabled),
# energy and the lazy-evaluation flags (a position-stage e_kinetic sensor reads energy[1] when flg_energyvel is set)
_INPUTS = ('time', 'qpos', 'qvel', 'act', 'ctrl', 'qacc_warmstart', 'qfrc_applied', 'xfrc_applied', 'mocap_pos',
           'mocap_quat', 'eq_active', 'userdata', 'sensordata', 'energy', 'flg_energypos', 'flg_energyvel',
           'flg_subtreevel', 'flg_rnepost')
_CACHE = {}     # id(model) -> (model, {(nworld, nconmax, njmax): Data})

KIND_NOMINAL, KIND_CTRL, KIND_ACT, KIND_QVEL, KIND_QPOS = range(5)


# ------------------------------------------------------------------------------------------------------------
# quaternion helpers on (..., 4) arrays, in MuJoCo's operation order

def _mul_quat(a, b):
    a0, a1, a2, a3 = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    b0, b1, b2, b3 = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return np.stack([a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3,
                     a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2,
                     a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1,
                     a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0], axis=-1)


def _normalize4(q):
    """mju_normalize4 on rows of q (n, 4)."""
    n = np.sqrt(q[:, 0] * q[:, 0] + q[:, 1] * q[:, 1] + q[:, 2] * q[:, 2] + q[:, 3] * q[:, 3])
    out = q.copy()
    small = n < MINVAL
    scale = (np.abs(n - 1) > MINVAL) & ~small
    if scale.any():
        inv = 1 / n[scale]
        out[scale] = q[scale] * inv[:, None]
    out[small] = (1.0, 0.0, 0.0, 0.0)
    return out


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


# ------------------------------------------------------------------------------------------------------------
# model layout: joints of each dof, quaternion addresses

class _Layout:
    """Joint structure needed to nudge positions and difference states (per model)."""

    def __init__(self, m):
        nq, nv = int(m.nq), int(m.nv)
        self.nq, self.nv, self.na, self.nu = nq, nv, int(m.na), int(m.nu)
        jt = np.asarray(m.jnt_type).reshape(-1)
        qa = np.asarray(m.jnt_qposadr).reshape(-1)
        va = np.asarray(m.jnt_dofadr).reshape(-1)
        self.quat_adr = []           # qpos address of every ball / free quaternion
        self.quat_dof = []           # first dof of its rotation
        self.dof_kind = np.zeros(nv, np.int8)      # 0: scalar qpos (hinge, slide, free translation), 1: rotation
        self.dof_qadr = np.zeros(nv, np.int64)     # qpos address (scalar) or quaternion address (rotation)
        self.dof_axis = np.zeros(nv, np.int64)     # rotation axis 0..2
        self.scalar_q = []           # (qpos address, dof address) of scalar coordinates
        for j in range(int(m.njnt)):
            a, v = int(qa[j]), int(va[j])
            if jt[j] == JNT_FREE:
                for k in range(3):
                    self.dof_qadr[v + k] = a + k
                    self.scalar_q.append((a + k, v + k))
                a += 3
                v += 3
            if jt[j] in (JNT_FREE, JNT_BALL):
                self.quat_adr.append(a)
                self.quat_dof.append(v)
                for k in range(3):
                    self.dof_kind[v + k] = 1
                    self.dof_qadr[v + k] = a
                    self.dof_axis[v + k] = k
            else:
                self.dof_qadr[v] = a
                self.scalar_q.append((a, v))
        self.quat_adr = np.array(self.quat_adr, np.int64)
        self.quat_dof = np.array(self.quat_dof, np.int64)
        sq = np.array(self.scalar_q, np.int64).reshape(-1, 2)
        self.scalar_qadr, self.scalar_dof = sq[:, 0], sq[:, 1]


def integrate_unit(layout, qpos, dof, h):
    """qpos rows (n, nq) moved by h along dof `dof[k]` of row k: mj_integratePos(qpos, e_dof, h), which also
    normalises every quaternion of the row (mju_quatIntegrate with zero velocity)."""
    out = qpos.copy()
    n = len(out)
    rows = np.arange(n)
    for a in layout.quat_adr:
        out[:, a:a + 4] = _normalize4(out[:, a:a + 4])
    scalar = layout.dof_kind[dof] == 0
    if scalar.any():
        out[rows[scalar], layout.dof_qadr[dof[scalar]]] += h[scalar]
    rot = ~scalar
    if rot.any():
        r = rows[rot]
        adr = layout.dof_qadr[dof[rot]]
        ang = h[rot] * 1.0
        s = np.sin(ang * 0.5)
        qrot = np.zeros((len(r), 4))
        qrot[:, 0] = np.cos(ang * 0.5)
        axis = np.zeros((len(r), 3))
        axis[np.arange(len(r)), layout.dof_axis[dof[rot]]] = 1.0
        qrot[:, 1:] = axis * s[:, None]
        cols = adr[:, None] + np.arange(4)[None, :]
        q = out[r[:, None], cols]
        out[r[:, None], cols] = _mul_quat(q, qrot)
    return out


def state_diff(layout, s1, s2, h):
    """(s2 - s1) / h for rows of states (qpos, qvel, act) in the tangent space (stateDiff of mjd_stepFD):
    (n, 2nv+na).  h: (n,) step per row."""
    nq, nv = layout.nq, layout.nv
    n = len(s1)
    out = np.empty((n, 2 * nv + layout.na))
    inv_h = 1 / h
    if nq == nv:
        out[:] = inv_h[:, None] * (s2 - s1)
        return out
    # mj_differentiatePos: scalar coordinates divided by h, quaternions via mju_subQuat scaled by 1/h
    out[:, layout.scalar_dof] = (s2[:, layout.scalar_qadr] - s1[:, layout.scalar_qadr]) / h[:, None]
    for a, v in zip(layout.quat_adr, layout.quat_dof):
        out[:, v:v + 3] = _sub_quat(s2[:, a:a + 4], s1[:, a:a + 4]) * inv_h[:, None]
    out[:, nv:] = inv_h[:, None] * (s2[:, nq:] - s1[:, nq:])
    return out


# ------------------------------------------------------------------------------------------------------------

def _tasks(m, lay, ctrl, eps, centered):
    """Nudged steps for N base worlds: arrays (base, kind, index, sign) with the unperturbed steps first, and
    per base world and column the task rows of the plus / minus nudge (-1: none)."""
    N = len(ctrl)
    nu, na, nv = lay.nu, lay.na, lay.nv
    rows = [np.stack([np.arange(N), np.full(N, KIND_NOMINAL), np.zeros(N, np.int64), np.zeros(N, np.int64)], 1)]
    plus = {}
    minus = {}
    count = N

    def add(kind, base, idx, sign):
        nonlocal count
        t = np.stack([base, np.full(len(base), kind), idx, np.full(len(base), sign)], 1)
        rows.append(t)
        ids = np.arange(count, count + len(base))
        count += len(base)
        return ids

    # controls: forward nudge unless it leaves ctrlrange; backward when centered or the forward one is impossible
    if nu:
        limited = np.asarray(m.actuator_ctrllimited).reshape(nu).astype(bool)
        rng = np.asarray(m.actuator_ctrlrange, dtype=np.float64).reshape(nu, 2)
        lo, hi = rng[:, 0][None, :], rng[:, 1][None, :]

        def inrange(x1, x2):
            return (x1 >= lo) & (x1 <= hi) & (x2 >= lo) & (x2 <= hi)
        fwd = ~limited[None, :] | inrange(ctrl, ctrl + eps)
        back = (centered | ~fwd) & (~limited[None, :] | inrange(ctrl - eps, ctrl))
        P = np.full((N, nu), -1, np.int64)
        Mn = np.full((N, nu), -1, np.int64)
        b, i = np.nonzero(fwd)
        P[b, i] = add(KIND_CTRL, b, i, 1)
        b, i = np.nonzero(back)
        Mn[b, i] = add(KIND_CTRL, b, i, -1)
        plus[KIND_CTRL], minus[KIND_CTRL] = P, Mn
    for kind, n in ((KIND_ACT, na), (KIND_QVEL, nv), (KIND_QPOS, nv)):
        if not n:
            continue
        b = np.repeat(np.arange(N), n)
        i = np.tile(np.arange(n), N)
        plus[kind] = add(kind, b, i, 1).reshape(N, n)
        minus[kind] = add(kind, b, i, -1).reshape(N, n) if centered else np.full((N, n), -1, np.int64)
    return np.concatenate(rows, 0), plus, minus


def _batch_data(m, nworld, nconmax, njmax):
    from sim.data import Data
    ent = _CACHE.get(id(m))
    if ent is None or ent[0] is not m:
        ent = (m, {})
        _CACHE[id(m)] = ent
    key = (nworld, nconmax, njmax)
    d = ent[1].get(key)
    if d is None:
        if len(ent[1]) >= 2:
            ent[1].clear()
        d = Data(m, nworld=nworld, nconmax=nconmax, njmax=njmax)
        ent[1][key] = d
    return d


def _world_bytes(m, nconmax, njmax):
    from sim import types as t
    size = t.data_sizes(m, nconmax, njmax)
    total = 0
    for name, shape in _shapes(m, size).items():
        total += 8 * int(np.prod(shape))
    return total


def _shapes(m, size):
    from sim import types as t
    s = t.data_shapes(m)
    for mod in t._field_modules():
        s.update(mod.data_shapes(m, size))
    return s


def _step_tasks(m, d, tasks, lay, eps):
    """Run one step for every task row; returns (next states (W, nq+nv+na), sensordata (W, ns))."""
    import sim
    W = len(tasks)
    nq, nv, na = lay.nq, lay.nv, lay.na
    src = d._arrays
    chunk_max = max(1, MEMORY_BUDGET // max(1, _world_bytes(m, d.nconmax, d.njmax)))
    nchunk = -(-W // chunk_max)
    size = -(-W // nchunk)
    batch = _batch_data(m, size, d.nconmax, d.njmax)
    ba = batch._arrays
    nxt = np.empty((W, nq + nv + na))
    sens = np.empty((W, int(ba['sensordata'].shape[1])))
    for c in range(nchunk):
        t = tasks[c * size:(c + 1) * size]
        n = len(t)
        base = np.concatenate([t[:, 0], np.full(size - n, t[0, 0], np.int64)])
        for name in _INPUTS:
            ba[name][:] = src[name][base]
        kind, idx, sign = t[:, 1], t[:, 2], t[:, 3].astype(np.float64)
        rows = np.arange(n)
        sel = kind == KIND_CTRL
        ba['ctrl'][rows[sel], idx[sel]] += sign[sel] * eps
        sel = kind == KIND_ACT
        ba['act'][rows[sel], idx[sel]] += sign[sel] * eps
        sel = kind == KIND_QVEL
        ba['qvel'][rows[sel], idx[sel]] += sign[sel] * eps
        sel = kind == KIND_QPOS
        if sel.any():
            ba['qpos'][rows[sel]] = integrate_unit(lay, ba['qpos'][rows[sel]], idx[sel], sign[sel] * eps)
        sim.step(m, batch)
        nxt[c * size:c * size + n, :nq] = ba['qpos'][:n]
        nxt[c * size:c * size + n, nq:nq + nv] = ba['qvel'][:n]
        nxt[c * size:c * size + n, nq + nv:] = ba['act'][:n]
        sens[c * size:c * size + n] = ba['sensordata'][:n]
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
    lay = _Layout(m)
    nv, na, nu = lay.nv, lay.na, lay.nu
    ndx = 2 * nv + na
    N = 1 if d.nworld is None else d.nworld
    ctrl = d._arrays['ctrl'].reshape(N, nu)
    tasks, plus, minus = _tasks(m, lay, ctrl, eps, centered)
    nxt, sens = _step_tasks(m, d, tasks, lay, eps)
    ns = sens.shape[1]
    if ns:
        # mj_stepSkip does not recompute the sensors of skipped stages: control / activation nudges keep the
        # position and velocity sensors of the unperturbed step, velocity nudges its position sensors (this
        # matters for a position-stage e_kinetic sensor, which reads qvel)
        stage = np.zeros(ns, np.int64)
        for i in range(int(m.nsensor)):
            a = int(m.sensor_adr[i])
            stage[a:a + int(m.sensor_dim[i])] = int(m.sensor_needstage[i])
        base, kind = tasks[:, 0], tasks[:, 1]
        for kinds, stages in (((KIND_CTRL, KIND_ACT), (1, 2)), ((KIND_QVEL,), (1,))):
            rows = np.nonzero(np.isin(kind, kinds))[0]
            cols = np.nonzero(np.isin(stage, stages))[0]
            if len(rows) and len(cols):
                sens[rows[:, None], cols[None, :]] = sens[base[rows][:, None], cols[None, :]]
    A = np.zeros((N, ndx, ndx))
    B = np.zeros((N, ndx, nu))
    C = np.zeros((N, ns, ndx))
    D = np.zeros((N, ns, nu))
    nominal = np.arange(N)
    cols = ((KIND_QPOS, 0, nv), (KIND_QVEL, nv, nv), (KIND_ACT, 2 * nv, na), (KIND_CTRL, 0, nu))
    for kind, off, n in cols:
        if not n:
            continue
        P, Mn = plus[kind], minus[kind]
        hasp, hasm = P >= 0, Mn >= 0
        nom = np.repeat(nominal[:, None], n, 1)
        # clampedStateDiff / clampedDiff: forward (nom, plus, h), backward (minus, nom, h), centered (minus,
        # plus, 2h), none: zeros
        i1 = np.where(hasm, Mn, nom)
        i2 = np.where(hasp, P, nom)
        h = np.where(hasp & hasm, 2 * eps, eps)
        ok = (hasp | hasm).reshape(-1)
        i1, i2, h = i1.reshape(-1)[ok], i2.reshape(-1)[ok], np.full(ok.sum(), 0.0) + h.reshape(-1)[ok]
        dy = np.zeros((N * n, ndx))
        dy[ok] = state_diff(lay, nxt[i1], nxt[i2], h)
        ds = np.zeros((N * n, ns))
        if kind == KIND_CTRL:
            # mjd_stepFD's clampedDiff differences the centered control nudge as (minus - plus) / 2h: the sign
            # of D's centered columns is flipped in MuJoCo 3.17, and reproduced here
            both = (hasp & hasm).reshape(-1)[ok]
            s1 = np.where(both, i2, i1)
            s2 = np.where(both, i1, i2)
            ds[ok] = (1 / h)[:, None] * (sens[s2] - sens[s1])
        else:
            ds[ok] = (1 / h)[:, None] * (sens[i2] - sens[i1])
        dy = dy.reshape(N, n, ndx).transpose(0, 2, 1)
        ds = ds.reshape(N, n, ns).transpose(0, 2, 1)
        if kind == KIND_CTRL:
            B[:] = dy
            D[:] = ds
        else:
            A[:, :, off:off + n] = dy
            C[:, :, off:off + n] = ds
    if d.nworld is None:
        return A[0], B[0], C[0], D[0]
    return A, B, C, D


__all__ = ['transition_fd']
