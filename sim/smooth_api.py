"""Python API of the smooth core: forward, step, reset, full_inertia, rne_post_constraint.

Each call accepts a single-world Data or a batched Data; the model may be any object with MjModel attribute names
(a mujoco.MjModel or the numjoco compiler's Model).  A call costs one compiled call plus ~1 us of Python: the
Model struct is built once and kept on the Model, a numjoco Model's options are the packed array the kernels
read (sim/model.py Option), and warnings are looked at only when the kernels report that a watched counter moved.
"""
import warnings

import numba
import numpy as np

from sim import features
from sim import types as _t
from sim import pipeline as _fw
from sim.collision.check import check_collision
from sim.data import Data
from sim.jit import struct_addr
from sim.model import Model

_MODEL_CACHE = {}
_NOPTRS = np.zeros(0, np.int64)
_EMPTY = []


def empty_task():
    """The task struct of plain simulation (built once)."""
    if not _EMPTY:
        from sim.task import empty_task as _new
        _EMPTY.append(_new())
    return _EMPTY[0]


def _entry(m, collision=True):
    """[model, struct, arrays, options version checked, collision checked, collide2, F, features required on] for
    m, built once per
    model object and re-checked when its options change (a numjoco Model's options carry a version; a foreign
    model's options are repacked on every call)."""
    own = type(m) is Model
    ent = m.__dict__.get('_sim') if own else _MODEL_CACHE.get(id(m))
    if ent is None or ent[0] is not m:
        st, arrs = _t.make_model_struct(m)
        ent = [m, st, arrs, -1, False, features.needs_collide2(m), None, frozenset()]
        if own:
            m.__dict__['_sim'] = ent
        else:
            _MODEL_CACHE[id(m)] = ent
    opt = m.opt
    if not own or ent[3] != opt._version:
        _t.check_opt(opt)
        if not own:
            _t.opt_array(opt, out=ent[2]['opt'])
        ent[3] = opt._version if own else -1
        ent[4] = False
        ent[6] = features.features(m, ent[5], ent[7])
    if collision and not ent[4]:
        check_collision(m)
        ent[4] = True
    return ent


def model_struct(m, collision=True):
    """Jitted Model struct for m (see _entry).  collision=True (every simulation entry) also refuses, once per
    model, the collision cases numjoco does not reproduce (sim.collision.check); tests that inject MuJoCo's
    contacts and never run our collision pass False."""
    return _entry(m, collision)[1]


def model_features(m):
    """The feature set the entries are compiled for when simulating m (sim/features.py)."""
    return _entry(m)[6]


def require_features(m, *indices):
    """Simulate m with these features (sim/features.py indices) compiled in whatever m's own values say: for
    per-world Model structs whose values differ from m's (envs/randomize.py: a fluid medium drawn per world)."""
    ent = _entry(m)
    ent[7] = ent[7] | frozenset(indices)
    ent[6] = features.features(m, ent[5], ent[7])


def _nworld(d):
    return 1 if d.nworld is None else d.nworld


# watched warning bits of d.warn_moved (sim/pipeline.py run_world) and their messages (%s = world list)
_WATCHED = (
    (1, 'numjoco: contact buffer full in world(s) %s; contacts were dropped (raise nconmax: '
        'sim.Data(m, nconmax=...))'),
    (2, 'numjoco: constraint buffer full in world(s) %s; all constraints were dropped for that step (raise '
        'njmax: sim.Data(m, njmax=...))'),
    (4, 'numjoco: simulation diverged (NaN/inf or |value| > 1e10) in world(s) %s; reset (mj_resetData) unless autoreset is disabled'),
    (8, 'numjoco: NaN, inf or |value| > 1e10 in ctrl in world(s) %s; all controls were zeroed for that step '
        '(mjWARN_BADCTRL)'),
)


def warn_moved(d, stacklevel=3):
    """Python warnings for the watched counters that moved during the last call (per world)."""
    moved = d._arrays['warn_moved']
    for bit, msg in _WATCHED:
        worlds = np.nonzero(moved & bit)[0]
        if worlds.size:
            warnings.warn(msg % worlds.tolist(), RuntimeWarning, stacklevel=stacklevel)


class _Entry:
    """A pipeline entry called from Python: through numba's dispatcher the first time for a feature set
    (compiling or loading it), then straight through its compiled wrapper (the argument types of a feature set
    never change), which skips numba's per-call type dispatch (~1.4 us)."""

    def __init__(self, disp):
        self.disp = disp
        self.cfuncs = {}

    def __call__(self, F, *args):
        f = self.cfuncs.get(F)
        if f is not None:
            return f(*args, F)
        r = self.disp(*args, F)
        ftype = numba.typeof(F)
        for sig, cres in self.disp.overloads.items():
            if sig[-1] == ftype:
                self.cfuncs[F] = cres.entry_point
        return r


_SERIAL = _Entry(_fw.run_serial)
_BATCH = _Entry(_fw.run_batch)


def serial(d, mptrs=_NOPTRS):
    """True when run() takes the serial entry: a single Data, or a batch of one world on the shared model (a
    parallel region costs its launch, ~4 us, and its threads)."""
    return d.nworld is None or (d.nworld == 1 and mptrs.shape[0] == 0)


def run(m, d, nstep, task=None, mptrs=_NOPTRS):
    """One compiled call: forward (nstep=0) or nstep steps of every world of d, with an env task program.
    Returns the number of worlds whose watched warnings moved (already warned), or -1 for a non-finite action."""
    ent = m.__dict__.get('_sim') if type(m) is Model else None
    if ent is None or not ent[4] or ent[3] != m.opt._version or ent[0] is not m:
        ent = _entry(m)
    if task is None:
        task = _EMPTY[0] if _EMPTY else empty_task()
    mp, dp, tp = struct_addr(ent[1]), struct_addr(d._struct), struct_addr(task)
    if serial(d, mptrs):
        r = _SERIAL(ent[6], mp, dp, tp, 0, nstep)
    else:
        r = _BATCH(ent[6], mp, dp, tp, d.nworld, nstep, mptrs)
    if r > 0:
        warn_moved(d)
    return r


def forward(m, d):
    """Forward dynamics (mj_forward without sensors) for one world or a batch."""
    run(m, d, 0)


def step(m, d, nstep=1):
    """Advance nstep steps (mj_step); diverged worlds are reset and counted in d.warning (and warned)."""
    fast = d.__dict__.get('_fast')
    if nstep == 1 and fast is not None and fast[0] is m and fast[1] == m.opt._version:
        # one step as envs and scripts call it: one check and one call with the arguments ready
        if fast[2](*fast[7]) > 0:
            warn_moved(d)
        return
    if nstep.__class__ is not int:
        nstep = int(nstep)
    if nstep <= 0:
        if nstep < 0:
            raise ValueError('nstep must be >= 0, got %d' % nstep)
        return
    if fast is not None and fast[0] is m and fast[1] == m.opt._version:
        a = fast[7]
        if fast[6] is None:
            r = fast[2](a[0], a[1], a[2], 0, nstep, fast[5])
        else:
            r = fast[2](a[0], a[1], a[2], fast[6], nstep, _NOPTRS, fast[5])
        if r > 0:
            warn_moved(d)
        return
    run(m, d, nstep)
    _remember_step(m, d)


def _remember_step(m, d):
    """After a step through run(): keep on d what the next step of this model takes when nothing changed (the
    compiled entry, serial or batch, the model struct, the feature set, and the arguments of a one-step call), so
    that step(m, d) makes one check and one call (half_cheetah: sim.step's Python 0.9 -> 0.43 -> 0.23-0.32 us a
    call over the compiled wrapper's; the options' version re-checked at each call)."""
    ent = m.__dict__.get('_sim') if type(m) is Model else None
    if ent is None or not ent[4] or ent[3] != m.opt._version:
        d.__dict__.pop('_fast', None)
        return
    one = serial(d)
    f = (_SERIAL if one else _BATCH).cfuncs.get(ent[6])
    if f is not None:
        task = empty_task()
        mp, dp, tp = struct_addr(ent[1]), struct_addr(d._struct), struct_addr(task)
        args1 = (mp, dp, tp, 0, 1, ent[6]) if one else (mp, dp, tp, d.nworld, 1, _NOPTRS, ent[6])
        # the model and task structs stay referenced here (d holds its own) while their addresses are in use
        d.__dict__['_fast'] = (m, ent[3], f, ent[1], task, ent[6], None if one else d.nworld, args1)


def reset(m, d, keyframe=None):
    """mj_resetData (or mj_resetDataKeyframe if keyframe is given) on every world."""
    _fw.reset_all(model_struct(m), d._struct, _nworld(d))
    if keyframe is not None:
        k = int(keyframe)
        a = d._arrays
        a['time'][:] = np.asarray(m.key_time).reshape(-1)[k]
        a['qpos'][:] = np.asarray(m.key_qpos).reshape(int(m.nkey), -1)[k]
        a['qvel'][:] = np.asarray(m.key_qvel).reshape(int(m.nkey), -1)[k]
        if int(m.na):
            a['act'][:] = np.asarray(m.key_act).reshape(int(m.nkey), -1)[k]
        if int(m.nu):
            a['ctrl'][:] = np.asarray(m.key_ctrl).reshape(int(m.nkey), -1)[k]
        if int(m.nmocap):
            a['mocap_pos'][:] = np.asarray(m.key_mpos).reshape(int(m.nkey), -1, 3)[k]
            a['mocap_quat'][:] = np.asarray(m.key_mquat).reshape(int(m.nkey), -1, 4)[k]


def full_inertia(m, d):
    """Dense inertia matrix (nv,nv), batch (nworld,nv,nv), from the sparse M (mj_fullM)."""
    ms = model_struct(m)
    n = _nworld(d)
    out = np.zeros((n, int(m.nv), int(m.nv)))
    _fw.full_inertia_all(ms, d._struct, n, out)
    return out[0] if d.nworld is None else out


def rne_post_constraint(m, d):
    """Compute cacc, cfrc_int, cfrc_ext (nbody,6) from the current state (mj_rnePostConstraint)."""
    ms = model_struct(m)
    _fw.rne_post_constraint_all(ms, d._struct, _nworld(d), model_features(m))


__all__ = ['Data', 'forward', 'step', 'reset', 'full_inertia', 'rne_post_constraint', 'model_struct', 'run']
