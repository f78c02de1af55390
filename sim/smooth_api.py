"""Python API of the smooth core: forward, step, reset, full_inertia, rne_post_constraint.

Each call accepts a single-world Data or a batched Data; the model may be any object with
MjModel attribute names (a mujoco.MjModel or the numjoco compiler's Model).
"""
import warnings

import numpy as np

from sim import types as _t
from sim import pipeline as _fw
from sim.collision.check import check_collision
from sim.data import Data

_MODEL_CACHE = {}


def model_struct(m, collision=True):
    """Jitted Model struct for m, built once per model object; opt refreshed from m.opt on every call.

    collision=True (every simulation entry) also refuses, once per model, the collision cases numjoco does not
    reproduce (sim.collision.check).  Tests that inject MuJoCo's contacts and never run our collision pass False.
    """
    ent = _MODEL_CACHE.get(id(m))
    if ent is None or ent[0] is not m:
        st, arrs = _t.make_model_struct(m)
        ent = [m, st, arrs, False]
        _MODEL_CACHE[id(m)] = ent
    if collision and not ent[3]:
        check_collision(m)
        ent[3] = True
    opt = m.opt
    _t.check_opt(opt)
    _t.opt_array(opt, out=ent[2]['opt'])
    return ent[1]


def _nworld(d):
    return 1 if d.nworld is None else d.nworld


# warning counters watched around forward/step: (index in warning_number, message; %s = world list)
_WATCHED = (
    (_fw.WARN_DIVERGED, 'numjoco: simulation diverged (NaN/inf or |value| > 1e10) in world(s) %s; reset per '
                        'autoreset'),
    (_t.WARN_CONTACTFULL, 'numjoco: contact buffer full in world(s) %s; contacts were dropped (raise nconmax: '
                          'sim.Data(m, nconmax=...))'),
    (_t.WARN_CNSTRFULL, 'numjoco: constraint buffer full in world(s) %s; all constraints were dropped for that '
                        'step (raise njmax: sim.Data(m, njmax=...))'),
)


_WATCHED_IDX = np.array([k for k, _ in _WATCHED])


def _counters(d):
    """Copy (nworld, len(_WATCHED)) of the watched warning counters."""
    return d._arrays['warning_number'][:, _WATCHED_IDX]


def _warn_changes(d, before):
    """Python warnings for every watched counter that moved during the call (per world)."""
    moved = _counters(d) != before
    if moved.any():
        for j, (_, msg) in enumerate(_WATCHED):
            if moved[:, j].any():
                warnings.warn(msg % np.nonzero(moved[:, j])[0].tolist(), RuntimeWarning, stacklevel=3)


def forward(m, d):
    """Forward dynamics (mj_forward without sensors) for one world or a batch."""
    ms = model_struct(m)
    before = _counters(d)
    if d.nworld is None:
        _fw.run_serial(ms, d._struct, 0, 0)
    else:
        _fw.run_batch(ms, d._struct, d.nworld, 0)
    _warn_changes(d, before)


def step(m, d, nstep=1):
    """Advance nstep steps (mj_step); diverged worlds are reset and counted in d.warning (and warned)."""
    nstep = int(nstep)
    if nstep < 0:
        raise ValueError('nstep must be >= 0, got %d' % nstep)
    if nstep == 0:
        return
    ms = model_struct(m)
    before = _counters(d)
    if d.nworld is None:
        _fw.run_serial(ms, d._struct, 0, nstep)
    else:
        _fw.run_batch(ms, d._struct, d.nworld, nstep)
    _warn_changes(d, before)


def reset(m, d, keyframe=None):
    """mj_resetData (or mj_resetDataKeyframe if keyframe is given) on every world."""
    ms = model_struct(m)
    if d.nworld is None:
        _fw.reset_serial(ms, d._struct, 0)
    else:
        _fw.reset_batch(ms, d._struct, d.nworld)
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
    _fw.rne_post_constraint_all(ms, d._struct, _nworld(d))


__all__ = ['Data', 'forward', 'step', 'reset', 'full_inertia', 'rne_post_constraint', 'model_struct']
