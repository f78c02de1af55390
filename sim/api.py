"""The Python entries of the engine, as MuJoCo's bindings name them: forward (mj_forward), step (mj_step), reset
(mj_resetData), full_inertia (mj_fullM), rne_post_constraint (mj_rnePostConstraint), inverse (mj_inverse), ray
(mj_ray) and transition_fd (mjd_transitionFD).

Each call accepts a single-world Data or a batched Data; the model may be any object with MjModel attribute names
(a mujoco.MjModel or the numjoco compiler's Model).  A call costs one compiled call plus ~1 us of Python: the
Model struct is built once and kept on the Model, a numjoco Model's options are the packed array the kernels
read (sim/model.py Option), and warnings are looked at only when the kernels report that a watched counter moved.
The kernels live in sim/engine/ and never import this module.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import warnings

import numba
import numpy as np
from numpy.typing import ArrayLike

from sim import io as _io
from sim.constants import ENBL_INVDISCRETE, GEOM_MESH, INT_RK4, MAXTREEDEPTH, MINVAL, NGROUP, WARN_CNSTRFULL
from sim.data import Data
from sim.engine import forward as _fw
from sim.engine.batch import step as _blk
from sim.engine.batch.blocks import Blocks
from sim.jit.simd import LANES
from sim.engine.inverse import inverse_batch
from sim.engine.ray import ray_kernel
from sim.engine.sensor import ray_normal_geom
from sim.engine.setconst import set_const as _set_const
from sim.engine.transition import (
    KIND_ACT,
    KIND_CTRL,
    KIND_NONE,
    KIND_QPOS,
    KIND_QVEL,
    control_nudges,
    copy_inputs,
    fd_columns,
    fd_rows,
)
from sim.errors import UnsupportedError
from sim.jit import background_compiles, compile_in_worker, features, load_compiled, struct_addr
from sim.jit import progress as _progress
from sim.model import Model, ModelLike
from sim.types import data_shapes

_MODEL_CACHE = {}
_NOPTRS = np.zeros(0, np.int64)
_EMPTY = []


def empty_task():
    """The task struct of plain simulation (built once)."""
    if not _EMPTY:
        from sim.engine.task import empty_task as _new

        _EMPTY.append(_new())
    return _EMPTY[0]


class _ModelEntry:
    """What the entries keep per model: the model, its jitted struct and the arrays it points into, the options'
    version (or packed bytes) last checked, whether it needs the second collision pass, the feature set F the
    entries are compiled for, and the features required on whatever the model's values say."""

    __slots__ = ("model", "struct", "arrays", "version", "collide2", "features", "required")

    def __init__(self, m):
        self.model = m
        self.struct, self.arrays = _io.make_model_struct(m)
        self.version = -1
        self.collide2 = features.needs_collide2(m)
        self.features = None
        self.required = frozenset()


def _entry(m):
    """The _ModelEntry of m, built once per model object and re-checked when its options change (a numjoco Model's
    options carry a version; a foreign model's options are repacked on every call)."""
    own = type(m) is Model
    ent = m.__dict__.get("_sim") if own else _MODEL_CACHE.get(id(m))
    if ent is None or ent.model is not m:
        ent = _ModelEntry(m)
        if own:
            m.__dict__["_sim"] = ent
        else:
            _MODEL_CACHE[id(m)] = ent
    opt = m.opt
    if own:
        if ent.version != opt._version:
            _io.check_opt(opt)
            ent.version = opt._version
            ent.features = features.features(m, ent.collide2, ent.required)
        return ent
    # a foreign model: its options are repacked into the struct's opt array on every call, and the feature set is
    # recomputed only when the options or the type fields it reads have changed since the last call
    arr = ent.arrays["opt"]
    _io.opt_array(opt, out=arr)
    key = (arr.tobytes(),) + tuple(np.asarray(getattr(m, f, _NOPTRS)).tobytes() for f in features.TYPE_FIELDS)
    if key != ent.version:
        ent.version = None
        _io.check_opt(opt)
        ent.features = features.features(m, ent.collide2, ent.required)
        ent.version = key
    return ent


def model_struct(m):
    """Jitted Model struct for m (see _entry)."""
    return _entry(m).struct


def model_features(m):
    """The feature set the entries are compiled for when simulating m (sim/jit/features.py)."""
    return _entry(m).features


def require_features(m, *indices):
    """Simulate m with these features (sim/jit/features.py indices) compiled in whatever m's own values say: for
    per-world Model structs whose values differ from m's (envs/randomize.py: a fluid medium drawn per world)."""
    ent = _entry(m)
    ent.required = ent.required | frozenset(indices)
    ent.features = features.features(m, ent.collide2, ent.required)


# ------------------------------------------------------------------------------------------------------------
# the batch API of env engines (envs/): a batch's arrays and structs, and the kernels an engine calls from its own
# compiled entries (a world w of a batch at a time, inside its prange over the worlds)


def batch_arrays(d: Data) -> dict:
    """Every array of d by name with its world axis first, (nworld, ...) (one world: (1, ...)), scratch and
    counters included: the rows an engine reads and writes between calls (views: writes reach the simulation)."""
    return d._arrays


def data_struct(d: Data):
    """The jitted Data struct of d, the argument of the kernels (run_world, reset_world, ...)."""
    return d._struct


def data_address(d: Data) -> int:
    """The address of d's Data struct, for kernels compiled once for every model (sim.jit.struct_at_address)."""
    return struct_addr(d._struct)


def option_array(m: ModelLike) -> np.ndarray:
    """m's options as the packed array the kernels read (a numjoco Model's own, shared; a foreign model's, packed
    now): the opt array of a per-world Model struct."""
    opt = m.opt
    return np.asarray(opt._arr) if hasattr(opt, "_arr") else _io.opt_array(opt)


#: kernels for an engine's compiled entries: reset_world(m, d, w) (mj_resetData of world w), run_world(m, d, t, w,
#: nstep, F) (forward or nstep steps with task program t; the watched-warning bits), restart_world(m, d, t, w, final,
#: F) (mj_resetData, the pending task state, forward, the reset observation), set_const(m, d, w, body_simple,
#: own_bias, F) (mj_setConst of a world's own Model struct)
reset_world = _fw.reset_world
run_world = _fw.run_world
restart_world = _fw._restart
set_const = _set_const


def _nworld(d):
    return 1 if d.nworld is None else d.nworld


# watched warning bits of d.warn_moved (sim/engine/forward.py run_world) and their messages (%s = world list)
_WATCHED = (
    (1, "numjoco: contact buffer full in world(s) %s; contacts were dropped (raise nconmax: sim.Data(m, nconmax=...))"),
    (
        2,
        "numjoco: constraint buffer full in world(s) %s; all constraints were dropped for that step (raise "
        "njmax: sim.Data(m, njmax=...))",
    ),
    (
        4,
        "numjoco: simulation diverged (NaN/inf or |value| > 1e10) in world(s) %s; reset (mj_resetData) unless autoreset is disabled",
    ),
    (
        8,
        "numjoco: NaN, inf or |value| > 1e10 in ctrl in world(s) %s; all controls were zeroed for that step "
        "(mjWARN_BADCTRL)",
    ),
)


def _moved(m, d, nstep, saved=None, mptrs=_NOPTRS, r=1, simd=None):
    """After a call in which some world moved a watched warning counter: a Data made with smaller buffers than
    MuJoCo's arena (a large batch, sim/io.py data_sizes) grows them where a world outgrew them (between calls:
    Data.grow rebuilds its struct); a plain forward (saved: the warning counters before it) is then computed again
    with room, a step's drops are warned.  Then the warnings.  Returns run()'s result."""
    moved = d._arrays["warn_moved"]
    if d._capped and np.any(moved & 3):
        a = d._arrays
        nconmax, njmax = d.nconmax, d.njmax
        if np.any(moved & 1):
            nconmax = 2 * d.nconmax
        rows = (moved & 2) != 0
        if np.any(rows):
            info = a["warning_lastinfo"][rows, WARN_CNSTRFULL].astype(np.int64)
            own = info[info != a["narena"][rows].astype(np.int64)]  # rows needed (ours), not MuJoCo's arena
            if own.size:
                njmax = max(2 * d.njmax, int(own.max()))
        acon, arow = _io.arena_capacity(m)
        nconmax, njmax = min(nconmax, max(acon, d.nconmax)), min(njmax, max(arow, d.njmax))
        if (nconmax, njmax) != (d.nconmax, d.njmax):
            d.grow(m, nconmax, njmax)
            if saved is not None:
                a["warning_number"][:] = saved[0]
                a["warning_lastinfo"][:] = saved[1]
                return run(m, d, 0, None, mptrs, simd)
            warnings.warn(
                "numjoco: buffers grown to nconmax = %d, njmax = %d per world after the last step outgrew them"
                % (d.nconmax, d.njmax),
                RuntimeWarning,
                stacklevel=3,
            )
    warn_moved(d, stacklevel=4)
    return r


def warn_moved(d, worlds=None, stacklevel=3):
    """Python warnings for the watched counters that moved during the last call (per world); worlds: look only
    when one of these worlds reports a move (a call that ran only them)."""
    moved = d._arrays["warn_moved"]
    if worlds is not None and not moved[worlds].any():
        return
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


class _Background(_Entry):
    """The block step's entry (run_batch_blocks), compiled in the background: a feature set whose block step is
    neither compiled in this process nor in the disk cache steps world by world (the per-world entry, bitwise the
    same numbers) while a worker process compiles the block step into the cache (sim/jit/parts.py
    compile_in_worker); the first call after the worker has exited loads it and runs on blocks.  So a batch's first
    step costs the per-world compile only.  Without workers (NUMJOCO_COMPILE_WORKERS=0, one core, no writable
    cache) the block step compiles in this process at its first call, as NUMJOCO_SIMD=wait does."""

    RETRY = 1.0  # s between two tries at a worker slot while another worker holds it

    def __init__(self, disp, nint):
        super().__init__(disp)
        self.nint = nint  # int64 arguments before F
        self.state = {}  # F -> the worker compiling it, 'start' (no worker yet: next try at .retry[F]), False (failed)
        self.retry = {}
        self.lock = threading.Lock()

    def _sig(self, F):
        return (numba.types.int64,) * self.nint + (numba.typeof(F),)

    def ready(self, F):
        """True when the block step of F runs now without a compile in this process (or cannot be compiled in
        the background: it then compiles at the call); False while a worker compiles it (or is about to, or
        failed)."""
        if F in self.cfuncs:
            return True
        with self.lock:
            st = self.state.get(F)
            if st is False:
                return False
            if st == "start":  # no worker slot at the last try: look again (the cache too) once a second
                if time.perf_counter() < self.retry[F]:
                    return False
            elif st is not None and st.poll() is None:
                return False
            if load_compiled(self.disp, self._sig(F)) is not None:
                self.state.pop(F, None)
                return True
            if st is None:
                if not background_compiles():
                    return True
                self.state[F] = "start"
                self.retry[F] = 0.0
            elif st != "start":  # the worker exited without caching it
                self.state[F] = False
                warnings.warn(
                    "numjoco: the background compile of the batched step on blocks failed (worker exit code %s); "
                    "this process steps batches of this model world by world (the same numbers, slower)"
                    % st.returncode,
                    RuntimeWarning,
                    stacklevel=4,
                )
            return False

    def start(self, F):
        """After a per-world call of a batch whose block step is not ready: a worker compiles it, if a worker slot
        is free (otherwise tried again at a later call)."""
        if self.state.get(F) != "start" or time.perf_counter() < self.retry[F]:
            return
        with self.lock:
            if self.state.get(F) != "start":
                return
            proc = compile_in_worker(self.disp, self.nint, F)
            if proc is None:
                self.retry[F] = time.perf_counter() + self.RETRY
                return
            self.state[F] = proc
        if not _progress.QUIET:
            print(
                "numjoco: compiling the batched step on blocks of %d worlds in the background (a minute or two); "
                "until it is ready this batch steps world by world, with the same numbers" % LANES,
                file=sys.stderr,
                flush=True,
            )


_SERIAL = _Entry(_fw.run_serial)
_BATCH = _Entry(_fw.run_batch)
_BLOCKS = _Background(_blk.run_batch_blocks, 6)

# the batched step runs on blocks of LANES worlds (sim/engine/batch, docs/simd.md) unless NUMJOCO_SIMD=0: then world
# by world, as a batch smaller than LANES or with per-world Model structs always is.  NUMJOCO_SIMD=1 (the default)
# compiles a feature set's block step in the background (_Background) and steps world by world until it is ready;
# NUMJOCO_SIMD=wait compiles it before the first step.
_SIMD_MODE = os.environ.get("NUMJOCO_SIMD", "1").strip().lower()
if _SIMD_MODE not in ("0", "1", "wait"):
    raise ValueError("NUMJOCO_SIMD must be 0, 1 or wait, got %r" % _SIMD_MODE)
SIMD = _SIMD_MODE != "0"
SIMD_WAIT = _SIMD_MODE == "wait"


def serial(d, mptrs=_NOPTRS):
    """True when run() takes the serial entry: a single Data, or a batch of one world on the shared model (a
    parallel region costs its launch, ~4 us, and its threads)."""
    return d.nworld is None or (d.nworld == 1 and mptrs.shape[0] == 0)


def blocks_of(m, d, mptrs=_NOPTRS, simd=None):
    """The world-minor blocks run() steps batch d in (sim/engine/batch/blocks.py Blocks, made once per Data), or
    None when d is stepped world by world: a single world, a batch smaller than LANES, per-world Model structs
    (mptrs), or simd False (default: SIMD)."""
    if (SIMD if simd is None else simd) and d.nworld is not None and d.nworld >= LANES and mptrs.shape[0] == 0:
        b = d.__dict__.get("_blocks")
        if b is None:
            b = d.__dict__["_blocks"] = Blocks(m, d)
        return b
    return None


def run(m, d, nstep, task=None, mptrs=_NOPTRS, simd=None):
    """One compiled call: forward (nstep=0) or nstep steps of every world of d, with an env task program.
    Returns the number of worlds whose watched warnings moved (already warned), or -1 for a non-finite action.
    simd: False steps a batch world by world (the per-world kernels) instead of in blocks, True in blocks (compiled
    now if need be); default: SIMD, with the block step compiled in the background unless SIMD_WAIT (_Background)."""
    ent = m.__dict__.get("_sim") if type(m) is Model else None
    if ent is None or ent.version != m.opt._version or ent.model is not m:
        ent = _entry(m)
    if task is None:
        task = _EMPTY[0] if _EMPTY else empty_task()
    mp, dp, tp = struct_addr(ent.struct), struct_addr(d._struct), struct_addr(task)
    saved = None
    if d._capped and nstep == 0 and task is _EMPTY[0]:
        # a forward that outgrows the buffers is computed again after they grow: its warnings are taken back
        saved = (d._arrays["warning_number"].copy(), d._arrays["warning_lastinfo"].copy())
    if serial(d, mptrs):
        r = _SERIAL(ent.features, mp, dp, tp, 0, nstep)
    else:
        blk = blocks_of(m, d, mptrs, simd)
        if blk is not None and simd is None and not SIMD_WAIT and not _BLOCKS.ready(ent.features):
            r = _BATCH(ent.features, mp, dp, tp, d.nworld, nstep, mptrs)
            _BLOCKS.start(ent.features)
        elif blk is None:
            r = _BATCH(ent.features, mp, dp, tp, d.nworld, nstep, mptrs)
        else:
            r = _BLOCKS(ent.features, mp, dp, tp, struct_addr(blk.struct), d.nworld, nstep)
    if r > 0:
        r = _moved(m, d, nstep, saved, mptrs, r, simd)
    return r


def forward(m: ModelLike, d: Data) -> None:
    """Forward dynamics (mj_forward without sensors) for one world or a batch."""
    run(m, d, 0)


def step(m: ModelLike, d: Data, nstep: int = 1) -> None:
    """Advance nstep steps (mj_step); diverged worlds are reset and counted in d.warning (and warned)."""
    fast = d.__dict__.get("_fast")
    if nstep == 1 and fast is not None and fast[0] is m and fast[1] == m.opt._version:
        # one step as envs and scripts call it: one check and one call with the arguments ready
        if fast[2](*fast[7]) > 0:
            _moved(m, d, 1)
        return
    if nstep.__class__ is not int:
        nstep = int(nstep)
    if nstep <= 0:
        if nstep < 0:
            raise ValueError("nstep must be >= 0, got %d" % nstep)
        return
    if fast is not None and fast[0] is m and fast[1] == m.opt._version:
        a = fast[7]
        if fast[6] is None:
            r = fast[2](a[0], a[1], a[2], 0, nstep, fast[5])
        elif fast[8]:  # blocks
            r = fast[2](a[0], a[1], a[2], a[3], fast[6], nstep, fast[5])
        else:
            r = fast[2](a[0], a[1], a[2], fast[6], nstep, _NOPTRS, fast[5])
        if r > 0:
            _moved(m, d, nstep)
        return
    run(m, d, nstep)
    _remember_step(m, d)


def _remember_step(m, d):
    """After a step through run(): keep on d what the next step of this model takes when nothing changed (the
    compiled entry, serial or batch, the model struct, the feature set, and the arguments of a one-step call), so
    that step(m, d) makes one check and one call (half_cheetah: sim.step's Python 0.9 -> 0.43 -> 0.23-0.32 us a
    call over the compiled wrapper's; the options' version re-checked at each call)."""
    ent = m.__dict__.get("_sim") if type(m) is Model else None
    if ent is None or ent.version != m.opt._version:
        d.__dict__.pop("_fast", None)
        return
    one = serial(d)
    blk = None if one else blocks_of(m, d)
    f = (_SERIAL if one else _BATCH if blk is None else _BLOCKS).cfuncs.get(ent.features)
    if f is not None:
        task = empty_task()
        mp, dp, tp = struct_addr(ent.struct), struct_addr(d._struct), struct_addr(task)
        if one:
            args1 = (mp, dp, tp, 0, 1, ent.features)
        elif blk is None:
            args1 = (mp, dp, tp, d.nworld, 1, _NOPTRS, ent.features)
        else:
            args1 = (mp, dp, tp, struct_addr(blk.struct), d.nworld, 1, ent.features)
        # the model and task structs stay referenced here (d holds its own) while their addresses are in use
        fast = (m, ent.version, f, ent.struct, task, ent.features, None if one else d.nworld, args1, blk is not None)
        d.__dict__["_fast"] = fast


def reset(m: ModelLike, d: Data, keyframe: int | None = None) -> None:
    """mj_resetData (or mj_resetDataKeyframe if keyframe is given) on every world."""
    _fw.reset_all(model_struct(m), d._struct, _nworld(d))
    if keyframe is not None:
        k = int(keyframe)
        a = d._arrays
        a["time"][:] = np.asarray(m.key_time).reshape(-1)[k]
        a["qpos"][:] = np.asarray(m.key_qpos).reshape(int(m.nkey), -1)[k]
        a["qvel"][:] = np.asarray(m.key_qvel).reshape(int(m.nkey), -1)[k]
        if int(m.na):
            a["act"][:] = np.asarray(m.key_act).reshape(int(m.nkey), -1)[k]
        if int(m.nu):
            a["ctrl"][:] = np.asarray(m.key_ctrl).reshape(int(m.nkey), -1)[k]
        if int(m.nmocap):
            a["mocap_pos"][:] = np.asarray(m.key_mpos).reshape(int(m.nkey), -1, 3)[k]
            a["mocap_quat"][:] = np.asarray(m.key_mquat).reshape(int(m.nkey), -1, 4)[k]


def full_inertia(m: ModelLike, d: Data) -> np.ndarray:
    """Dense inertia matrix (nv,nv), batch (nworld,nv,nv), from the sparse M (mj_fullM)."""
    ms = model_struct(m)
    n = _nworld(d)
    out = np.zeros((n, int(m.nv), int(m.nv)))
    _fw.full_inertia_all(ms, d._struct, n, out)
    return out[0] if d.nworld is None else out


def rne_post_constraint(m: ModelLike, d: Data) -> None:
    """Compute cacc, cfrc_int, cfrc_ext (nbody,6) from the current state (mj_rnePostConstraint)."""
    ms = model_struct(m)
    _fw.rne_post_constraint_all(ms, d._struct, _nworld(d), model_features(m))


# ------------------------------------------------------------------------------------------------------------
# inverse dynamics (mj_inverse)


def inverse(m: ModelLike, d: Data) -> None:
    """Inverse dynamics (mj_inverse) of one world or a batch: d.qfrc_inverse (nv,) / (nworld, nv) from
    d.qpos, d.qvel, d.qacc (and act, ctrl, applied forces); sensors and energy as MuJoCo's mj_inverse."""
    ms = model_struct(m)
    F = model_features(m)
    if int(m.opt.enableflags) & ENBL_INVDISCRETE and int(m.opt.integrator) == INT_RK4:
        raise ValueError(
            "discrete inverse dynamics (enable flag invdiscrete) is not supported by the RK4 integrator (as mj_inverse)"
        )
    n = 1 if d.nworld is None else d.nworld
    nthread = numba.get_num_threads()
    nt = min(n, nthread)
    if nt != nthread:
        numba.set_num_threads(nt)
    try:
        inverse_batch(ms, d._struct, n, F)
    finally:
        if nt != nthread:
            numba.set_num_threads(nthread)


# ------------------------------------------------------------------------------------------------------------
# ray casting (mj_ray)


def ray(
    m: ModelLike,
    d: Data,
    pnt: ArrayLike,
    vec: ArrayLike,
    geomgroup: ArrayLike | None = None,
    flg_static: bool = True,
    bodyexclude: int = -1,
    world: int = 0,
    normal: np.ndarray | None = None,
) -> tuple[float, int]:
    """mujoco.mj_ray: (dist, geomid) of the nearest geom hit by pnt + x*vec, (-1, -1) if none; normal, a
    writeable (3,) float64 array if given, receives the surface normal at the hit (zero if none)."""
    types_ = np.asarray(m.geom_type)
    if np.any(types_ > GEOM_MESH):
        raise UnsupportedError("mj_ray on SDF geoms is not supported")
    has_bvh = np.asarray(getattr(m, "bvh_aabb", np.zeros(0))).size > 0
    if np.any(types_ == GEOM_MESH) and not has_bvh:
        raise UnsupportedError(
            "mj_ray on meshes needs the mesh BVH (bvh_aabb, bvh_child, bvh_nodeid, "
            "mesh_bvhadr), which this model does not provide"
        )
    pnt = np.ascontiguousarray(pnt, dtype=np.float64).reshape(3)
    vec = np.ascontiguousarray(vec, dtype=np.float64).reshape(3)
    if np.linalg.norm(vec) < MINVAL:
        raise ValueError("mj_ray: vector length is too small")
    if normal is not None and not (
        isinstance(normal, np.ndarray) and normal.dtype == np.float64 and normal.size == 3 and normal.flags.writeable
    ):
        raise ValueError("mj_ray: normal must be a writeable float64 array of 3 elements")
    ms = model_struct(m)
    use_group = geomgroup is not None
    grp = np.zeros(NGROUP, np.int32)
    if use_group:
        grp[:] = np.asarray(geomgroup).astype(np.int32).reshape(NGROUP)
    stack = np.zeros(MAXTREEDEPTH, np.int32)
    w = 0 if d.nworld is None else int(world)
    ngeom = int(m.ngeom)
    vis = (
        np.ascontiguousarray(np.asarray(getattr(m, "geom_matid", -np.ones(ngeom)), dtype=np.int32).reshape(ngeom)),
        np.ascontiguousarray(np.asarray(getattr(m, "geom_group", np.zeros(ngeom)), dtype=np.int32).reshape(ngeom)),
        np.ascontiguousarray(
            np.asarray(getattr(m, "geom_rgba", np.ones((ngeom, 4))), dtype=np.float64).reshape(ngeom, 4)[:, 3]
        ),
        np.ascontiguousarray(
            np.asarray(getattr(m, "mat_rgba", np.ones((0, 4))), dtype=np.float64).reshape(-1, 4)[:, 3]
        ),
    )
    if has_bvh:
        bvh = (
            np.ascontiguousarray(np.asarray(m.bvh_aabb, dtype=np.float64).reshape(-1, 6)),
            np.ascontiguousarray(np.asarray(m.bvh_child, dtype=np.int32).reshape(-1, 2)),
            np.ascontiguousarray(np.asarray(m.bvh_nodeid, dtype=np.int32).reshape(-1)),
            np.ascontiguousarray(np.asarray(m.mesh_bvhadr, dtype=np.int32).reshape(-1)),
        )
    else:
        bvh = (np.zeros((0, 6)), np.zeros((0, 2), np.int32), np.zeros(0, np.int32), np.zeros(0, np.int32))
    dist, gid = ray_kernel(
        ms, d._struct, w, vis, bvh, pnt, vec, grp, use_group, bool(flg_static), int(bodyexclude), stack
    )
    if normal is not None:
        out = np.zeros(3)
        if gid >= 0:
            ray_normal_geom(ms, d._struct, w, gid, bvh, pnt, vec, dist, stack, out)
        normal[...] = out.reshape(normal.shape)
    return float(dist), int(gid)


# ------------------------------------------------------------------------------------------------------------
# transition_fd (mjd_transitionFD): the nudge plan (cached per model), scratch rows, chunks; the nudged steps and
# the differences are the kernels of sim/engine/transition.py

# bytes of one scratch batch Data (worlds beyond it are done in chunks, each a parallel call with its own tail of
# idle threads: humanoid's 64 worlds in two chunks took 7 % longer than in one).  A world's capacity-bound buffers
# (sized for MuJoCo's arena, sim/io.py data_sizes) are zero pages a step does not touch beyond the contacts and
# rows in use: they cost address space, not memory, and count here at twice the rows in use
MEMORY_BUDGET = 2**30
# one world's transition_fd is split over the threads when its serial calls took longer than this (seconds):
# below it, waking the threads costs more than they save
SPLIT_AFTER = 150e-6
# relative cost of a nudged step by kind (control, activation: the acceleration stage; velocity: from the velocity
# stage on; position: the whole step, as the unperturbed step each row repeats), to cut one world's nudges into
# rows of equal time.  Whole steps weigh more than their serial cost (humanoid: 1.8x a control nudge alone): the
# split's best cut, measured on humanoid with two threads, gives them 3x
_NUDGE_COST = np.array([1.0, 1.0, 1.2, 3.0])
_CACHE = {}  # id(model) -> (model, {(nrow, nconmax, njmax): scratch Data})


class _Cache:
    """Per model: scratch Data by (rows, nconmax, njmax), nudge plans, bytes per world."""

    def __init__(self, m):
        self.m = m
        self.data = {}
        self.plans = {}
        self.world_bytes = {}
        self.serial_times = []  # the first serial calls' times of one world's fd_rows (seconds)


def _cache(m):
    ent = _CACHE.get(id(m))
    if ent is None or ent.m is not m:
        ent = _Cache(m)
        _CACHE[id(m)] = ent
    return ent


def _plan(m, cache, ctrl, eps, centered):
    """Nudges of N worlds in mjd_stepFD's order: tasks (N, T, 3) = (kind, index, sign) padded with kind -1,
    ntask (N,), slots (N, 2nv+na+nu, 2): the task slot (task index + 1) of the plus / minus nudge of each
    column (-1: none).  Cached on the control-limit pattern."""
    N = len(ctrl)
    nv, na, nu = int(m.nv), int(m.na), int(m.nu)
    pattern = np.zeros((N, nu, 2), np.uint8)
    if nu:
        limited = np.asarray(m.actuator_ctrllimited).reshape(nu)
        rng = np.asarray(m.actuator_ctrlrange, dtype=np.float64).reshape(nu, 2)
        control_nudges(ctrl, limited, rng, eps, centered, pattern)
    key = (N, centered, pattern.tobytes())
    plan = cache.plans.get(key)
    if plan is not None:
        return plan
    # every candidate nudge in order: ctrl (fwd, back per control), then act, qvel, qpos (fwd[, back])
    cand = [(KIND_CTRL, i, sg) for i in range(nu) for sg in (1, -1)]
    valid = [pattern.reshape(N, 2 * nu).astype(bool)]
    for kind, n in ((KIND_ACT, na), (KIND_QVEL, nv), (KIND_QPOS, nv)):
        cand += [(kind, i, sg) for i in range(n) for sg in ((1, -1) if centered else (1,))]
        valid.append(np.ones((N, n * (2 if centered else 1)), bool))
    cand = np.array(cand, np.int64).reshape(-1, 3)
    valid = np.concatenate(valid, 1)
    ntask = valid.sum(1).astype(np.int64)
    T = int(ntask.max()) if N else 0
    tasks = np.full((N, T, 3), KIND_NONE, np.int64)
    col0 = {KIND_QPOS: 0, KIND_QVEL: nv, KIND_ACT: 2 * nv, KIND_CTRL: 2 * nv + na}
    slots = np.full((N, 2 * nv + na + nu, 2), -1, np.int64)
    for b in range(N):
        sel = cand[valid[b]]
        tasks[b, : len(sel)] = sel
        cols = np.array([col0[k] for k in sel[:, 0]], np.int64).reshape(-1) + sel[:, 1]
        slots[b, cols, (sel[:, 2] < 0).astype(np.int64)] = np.arange(1, len(sel) + 1)
    plan = (tasks, ntask, slots)
    if len(cache.plans) > 16:
        cache.plans.clear()
    cache.plans[key] = plan
    return plan


def _scratch(m, cache, nrow, nconmax, njmax):
    key = (nrow, nconmax, njmax)
    d = cache.data.get(key)
    if d is None:
        if len(cache.data) >= 2:
            cache.data.clear()
        d = Data(m, nworld=nrow, nconmax=nconmax, njmax=njmax)
        cache.data[key] = d
    return d


def _world_bytes(m, cache, nconmax, njmax):
    key = (nconmax, njmax)
    if key not in cache.world_bytes:
        size = _io.data_sizes(m, nconmax, njmax)
        shapes = data_shapes(m, size)
        cache.world_bytes[key] = sum(8 * int(np.prod(s)) for s in shapes.values())
    return cache.world_bytes[key]


def transition_fd(
    m: ModelLike, d: Data, eps: float = 1e-6, centered: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(A, B, C, D) of mujoco.mjd_transitionFD at the state of d (see the module doc); (N, ...) arrays for a
    batched d."""
    if int(m.opt.integrator) == INT_RK4:
        raise ValueError("RK4 integrator is not supported by transition_fd (as mjd_transitionFD)")
    if int(getattr(m, "nhistory", 0)):
        raise ValueError("delays (history buffers) are not supported by transition_fd (as mjd_transitionFD)")
    eps = float(eps)
    centered = bool(centered)
    ent = _entry(m)
    ms, F = ent.struct, ent.features
    cache = _cache(m)
    nq, nv, na, nu = int(m.nq), int(m.nv), int(m.na), int(m.nu)
    ns = int(getattr(m, "nsensordata", 0))
    ndx = 2 * nv + na
    N = 1 if d.nworld is None else d.nworld
    tasks, ntask, slots = _plan(m, cache, d._arrays["ctrl"].reshape(N, nu), eps, centered)
    T = tasks.shape[1]
    nxt = np.zeros((N, T + 1, nq + nv + na))
    sens = np.zeros((N, T + 1, ns))
    nthread = numba.get_num_threads()
    # rows of the scratch batch: one per world, chunked to the memory budget.  Fewer worlds than threads (one
    # world, say) with enough work: each world's nudges are cut over nthread // N rows of about equal cost, each
    # row repeating the unperturbed step first, so that every thread works (every nudge still starts from the
    # saved state and skips the same stages: the same numbers)
    split = 1
    if N < nthread and len(cache.serial_times) >= 2 and min(cache.serial_times) * N > SPLIT_AFTER:
        split = max(1, min(nthread // N, T // 4))
    if split > 1:
        rows = N * split
        base = np.repeat(np.arange(N), split)
        cost = np.cumsum(np.where(tasks[:, :, 0] >= 0, _NUDGE_COST[tasks[:, :, 0]], 0.0), axis=1)
        cuts = np.zeros((N, split + 1), np.int64)
        for b in range(N):
            # row j takes the nudges up to the j-th equal share of the cost (its unperturbed step: one more)
            share = (cost[b, -1] + split * _NUDGE_COST[3]) / split
            for j in range(1, split):
                cuts[b, j] = np.searchsorted(cost[b], j * (share - _NUDGE_COST[3]), side="right")
            cuts[b, split] = ntask[b]
        part = np.tile(np.arange(split), N)
        chunks = [(base, cuts[base, part], cuts[base, part + 1])]
    else:
        # the bytes a scratch world commits: its buffers are zero pages but for the contacts and rows in use (a
        # nudged state has about as many as d's)
        a = d._arrays
        ucon = min(d.nconmax, 2 * int(np.max(a["ncon"], initial=0)) + 16)
        uefc = min(d.njmax, 2 * int(np.max(a["nefc"], initial=0)) + 16)
        max_rows = max(1, MEMORY_BUDGET // max(1, _world_bytes(m, cache, ucon, uefc)))
        nchunk = -(-N // max_rows)
        rows = -(-N // nchunk)
        zero = np.zeros(rows, np.int64)
        chunks = []
        for c in range(nchunk):
            b0, b1 = c * rows, min(N, (c + 1) * rows)
            chunks.append((np.arange(b0, b1), zero[: b1 - b0], ntask[b0:b1]))
    scratch = _scratch(m, cache, rows, d.nconmax, d.njmax)
    save = np.zeros((rows, nq + 2 * nv + na + nu + 1))
    dpos = np.zeros((rows, nv))
    for base, t0, t1 in chunks:
        n = len(base)
        copy_inputs(d._struct, scratch._struct, base)
        nt = min(nthread, n)
        if nt != nthread:
            numba.set_num_threads(nt)
        try:
            start = time.perf_counter()
            fd_rows(ms, scratch._struct, n, base, t0, t1, tasks, eps, ns == 0, save, nxt, sens, dpos, F)
            if n == 1 and len(cache.serial_times) < 2:
                # the first call may be cold: the least of two decides
                cache.serial_times.append(time.perf_counter() - start)
        finally:
            if nt != nthread:
                numba.set_num_threads(nthread)
    A = np.zeros((N, ndx, ndx))
    B = np.zeros((N, ndx, nu))
    C = np.zeros((N, ns, ndx))
    D = np.zeros((N, ns, nu))
    fd_columns(ms, nxt, sens, slots, eps, A, B, C, D)
    if d.nworld is None:
        return A[0], B[0], C[0], D[0]
    return A, B, C, D
