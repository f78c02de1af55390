"""Simulation state and keyframes (engine_support.c mj_stateSize / mj_getState / mj_setState /
mj_extractState / mj_copyState, engine_io.c mj_resetDataKeyframe).

A state is the concatenation, in mjtState bit order, of the components selected by `spec` (a bit mask of the
STATE_* constants below, MuJoCo's mjtState values): time, qpos, qvel, act, history, qacc_warmstart, ctrl,
qfrc_applied, xfrc_applied, eq_active (stored as 0/1 floats), mocap_pos, mocap_quat, userdata, plugin state.
For a batched Data the state is (nworld, size), one row per world; for one world it is (size,).

    s = sim.get_state(m, d, sim.STATE_INTEGRATION)
    ...
    sim.set_state(m, d, s, sim.STATE_INTEGRATION)        # bitwise round trip
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from sim.data import Data
from sim.model import ModelLike

STATE_TIME = 1 << 0
STATE_QPOS = 1 << 1
STATE_QVEL = 1 << 2
STATE_ACT = 1 << 3
STATE_HISTORY = 1 << 4
STATE_WARMSTART = 1 << 5
STATE_CTRL = 1 << 6
STATE_QFRC_APPLIED = 1 << 7
STATE_XFRC_APPLIED = 1 << 8
STATE_EQ_ACTIVE = 1 << 9
STATE_MOCAP_POS = 1 << 10
STATE_MOCAP_QUAT = 1 << 11
STATE_USERDATA = 1 << 12
STATE_PLUGIN = 1 << 13
NSTATE = 14
STATE_PHYSICS = STATE_QPOS | STATE_QVEL | STATE_ACT | STATE_HISTORY
STATE_FULLPHYSICS = STATE_TIME | STATE_PHYSICS | STATE_PLUGIN
STATE_USER = (
    STATE_CTRL
    | STATE_QFRC_APPLIED
    | STATE_XFRC_APPLIED
    | STATE_EQ_ACTIVE
    | STATE_MOCAP_POS
    | STATE_MOCAP_QUAT
    | STATE_USERDATA
)
STATE_INTEGRATION = STATE_FULLPHYSICS | STATE_USER | STATE_WARMSTART

# component -> Data array name (None: always empty in numjoco: plugins are refused at load)
_FIELD = {
    STATE_TIME: "time",
    STATE_QPOS: "qpos",
    STATE_QVEL: "qvel",
    STATE_ACT: "act",
    STATE_HISTORY: "history",
    STATE_WARMSTART: "qacc_warmstart",
    STATE_CTRL: "ctrl",
    STATE_QFRC_APPLIED: "qfrc_applied",
    STATE_XFRC_APPLIED: "xfrc_applied",
    STATE_EQ_ACTIVE: "eq_active",
    STATE_MOCAP_POS: "mocap_pos",
    STATE_MOCAP_QUAT: "mocap_quat",
    STATE_USERDATA: "userdata",
    STATE_PLUGIN: None,
}


def _elem_size(m, elem):
    """Size of one state component (mj_stateElemSize)."""
    if elem == STATE_TIME:
        return 1
    if elem == STATE_QPOS:
        return int(m.nq)
    if elem in (STATE_QVEL, STATE_WARMSTART, STATE_QFRC_APPLIED):
        return int(m.nv)
    if elem == STATE_ACT:
        return int(m.na)
    if elem == STATE_HISTORY:
        return int(getattr(m, "nhistory", 0))
    if elem == STATE_CTRL:
        return int(m.nu)
    if elem == STATE_XFRC_APPLIED:
        return 6 * int(m.nbody)
    if elem == STATE_EQ_ACTIVE:
        return int(getattr(m, "neq", 0))
    if elem == STATE_MOCAP_POS:
        return 3 * int(m.nmocap)
    if elem == STATE_MOCAP_QUAT:
        return 4 * int(m.nmocap)
    if elem == STATE_USERDATA:
        return int(getattr(m, "nuserdata", 0))
    return int(getattr(m, "npluginstate", 0))


def _check_spec(spec, what="spec"):
    spec = int(spec)
    if spec < 0:
        raise ValueError("invalid state %s %d < 0" % (what, spec))
    if spec >= (1 << NSTATE):
        raise ValueError("invalid state %s %d >= 2^%d (mjNSTATE)" % (what, spec, NSTATE))
    return spec


def _elements(spec):
    return [1 << i for i in range(NSTATE) if spec & (1 << i)]


def state_size(m: ModelLike, spec: int) -> int:
    """Number of numbers in a state of components `spec` (mj_stateSize)."""
    spec = _check_spec(spec)
    return sum(_elem_size(m, e) for e in _elements(spec))


def _nworld(d):
    return 1 if d.nworld is None else d.nworld


def get_state(m: ModelLike, d: Data, spec: int) -> np.ndarray:
    """State of components `spec` (mj_getState): (size,) for one world, (nworld, size) for a batch."""
    spec = _check_spec(spec)
    n = _nworld(d)
    out = np.empty((n, state_size(m, spec)))
    adr = 0
    for e in _elements(spec):
        size = _elem_size(m, e)
        if size:
            out[:, adr : adr + size] = d._arrays[_FIELD[e]].reshape(n, size)
        adr += size
    return out[0] if d.nworld is None else out


def set_state(m: ModelLike, d: Data, state: ArrayLike, spec: int) -> None:
    """Set the components `spec` of d from state (mj_setState): (size,) for one world (a batch: the same state
    in every world), (nworld, size) for a batch, one row per world."""
    spec = _check_spec(spec)
    n = _nworld(d)
    size_all = state_size(m, spec)
    state = np.asarray(state, dtype=np.float64)
    if state.ndim == 1:
        state = state[None, :]
    if state.shape[-1] != size_all or state.ndim != 2 or state.shape[0] not in (1, n):
        raise ValueError(
            "state has shape %s, expected (%d,)%s for spec %d"
            % (np.shape(state), size_all, "" if d.nworld is None else " or (%d, %d)" % (n, size_all), spec)
        )
    adr = 0
    for e in _elements(spec):
        size = _elem_size(m, e)
        if size:
            arr = d._arrays[_FIELD[e]]
            arr.reshape(n, size)[:] = state[:, adr : adr + size]
        adr += size


def extract_state(m: ModelLike, src: ArrayLike, srcspec: int, dstspec: int) -> np.ndarray:
    """Sub-state of components dstspec (a subset of srcspec) from a state of components srcspec
    (mj_extractState); works on (size,) and (nworld, size) states."""
    srcspec = _check_spec(srcspec, "srcspec")
    dstspec = _check_spec(dstspec, "dstspec")
    if srcspec & dstspec != dstspec:
        raise ValueError("dstspec is not a subset of srcspec")
    src = np.asarray(src, dtype=np.float64)
    if src.shape[-1] != state_size(m, srcspec):
        raise ValueError(
            "src has %d numbers per world, spec %d needs %d" % (src.shape[-1], srcspec, state_size(m, srcspec))
        )
    parts = []
    adr = 0
    for e in _elements(srcspec):
        size = _elem_size(m, e)
        if e & dstspec:
            parts.append(src[..., adr : adr + size])
        adr += size
    return np.concatenate(parts, axis=-1) if parts else src[..., :0].copy()


def copy_state(m: ModelLike, src: Data, dst: Data, spec: int) -> None:
    """Copy the components `spec` from Data src to Data dst (mj_copyState); batches must have the same
    number of worlds (or src one world: copied into every world of dst)."""
    spec = _check_spec(spec)
    set_state(m, dst, get_state(m, src, spec), spec)


def _key_index(m, key):
    nkey = int(getattr(m, "nkey", 0))
    if isinstance(key, str):
        names = []
        if hasattr(m, "object_names"):
            names = m.object_names.get("key", [])
        elif hasattr(m, "key"):  # a mujoco.MjModel
            try:
                return int(m.key(key).id)
            except KeyError:
                names = []
        if key not in names:
            raise KeyError("no keyframe named %r (keyframes: %s)" % (key, [n for n in names if n]))
        return names.index(key)
    k = int(key)
    if not 0 <= k < nkey:
        raise IndexError("keyframe %d out of range [0, %d)" % (k, nkey))
    return k


def reset(
    m: ModelLike, d: Data, key: int | str | Sequence[int | str] | None = None, keyframe: int | str | None = None
) -> None:
    """mj_resetData, or mj_resetDataKeyframe when `key` (index or name; `keyframe` is the older spelling)
    is given: every world is reset to the model defaults, then time, qpos, qvel, act, ctrl, mocap_pos and
    mocap_quat are set from the keyframe.  For a batch, key may also be a sequence with one key per world."""
    from sim import api
    from sim.engine import forward as fw

    if key is not None and keyframe is not None:
        raise TypeError("give key or keyframe, not both")
    key = keyframe if key is None else key
    n = _nworld(d)
    fw.reset_all(api.model_struct(m), d._struct, n)
    a = d._arrays
    for name in ("qfrc_inverse", "energy", "sensordata", "userdata", "solver_fwdinv"):
        a[name][:] = 0.0
    if key is None:
        return
    keys = [key] * n if isinstance(key, (str, int, np.integer)) else list(key)
    if len(keys) != n:
        raise ValueError("%d keys given for %d worlds" % (len(keys), n))
    nkey = int(m.nkey)
    idx = np.array([_key_index(m, k) for k in keys])
    a["time"][:] = np.asarray(m.key_time).reshape(nkey)[idx]
    a["qpos"][:] = np.asarray(m.key_qpos).reshape(nkey, -1)[idx]
    a["qvel"][:] = np.asarray(m.key_qvel).reshape(nkey, -1)[idx]
    a["act"][:] = np.asarray(m.key_act).reshape(nkey, -1)[idx]
    a["ctrl"][:] = np.asarray(m.key_ctrl).reshape(nkey, -1)[idx]
    a["mocap_pos"][:] = np.asarray(m.key_mpos).reshape(nkey, -1, 3)[idx]
    a["mocap_quat"][:] = np.asarray(m.key_mquat).reshape(nkey, -1, 4)[idx]


__all__ = [
    "STATE_TIME",
    "STATE_QPOS",
    "STATE_QVEL",
    "STATE_ACT",
    "STATE_HISTORY",
    "STATE_WARMSTART",
    "STATE_CTRL",
    "STATE_QFRC_APPLIED",
    "STATE_XFRC_APPLIED",
    "STATE_EQ_ACTIVE",
    "STATE_MOCAP_POS",
    "STATE_MOCAP_QUAT",
    "STATE_USERDATA",
    "STATE_PLUGIN",
    "NSTATE",
    "STATE_PHYSICS",
    "STATE_FULLPHYSICS",
    "STATE_USER",
    "STATE_INTEGRATION",
    "state_size",
    "get_state",
    "set_state",
    "extract_state",
    "copy_state",
    "reset",
]
