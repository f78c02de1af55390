"""The batched step on blocks of LANES worlds (mj_step / mj_forward for a whole block, one world per lane).

A block runs the pipeline of sim/engine/forward.py in the same order with the stages that have a block form
(the per-world kernel compiled for a block: sim/jit/simd.py) on its world-minor blocks (sim/engine/batch/blocks.py)
and the others world by world on Data's rows, each world's arithmetic unchanged, so every world's result is bitwise
the per-world step's.  Between the two, the fields a block stage wrote are stored into the rows before a per-world
stage that reads them, and a block stage's inputs are loaded from the rows, where the per-world stages and the
integrator leave them.  Which stages have a block form, and why the others do not yet: docs/simd.md.

A lane is stepped when its bit is set in the block's mask: worlds being reset by the task this call and the last
block's padding lanes (past nworld) are not; their lanes compute on a copy of another world and store nothing.
"""

import numpy as np
from numba import prange

from sim.jit import njit, struct_at_address
from sim.jit.atomic import NWORKER, fetch_add
from sim.jit.simd import LANES, block_index

from sim.engine.batch.blocks import BLOCK_TYPE, rows_to_block, block_to_rows
from sim.engine.kinematics import kinematics
from sim.engine.com import com_pos, com_vel
from sim.engine.crb import crb, tendon_armature, factor_m
from sim.engine.rne import rne
from sim.engine.tendon import tendon_if, tendon_velocity_if, tendon_bias_if
from sim.engine.transmission import transmission, actuator_velocity
from sim.engine.constraint import project_constraint_if, reference_constraint
from sim.engine.solver import project_dual_if
from sim.engine.parts import collision, make_constraint, passive
from sim.engine.batch.solver import block_solver_on, fwd_constraint_block
from sim.engine.actuation import fwd_actuation
from sim.engine.collision.driver import collision_block
from sim.engine.sensor import sensor_pos_stage, sensor_vel_stage, sensor_acc_stage
from sim.engine.forward import (
    fwd_acc_stage,
    fwd_acceleration,
    _check,
    _compare_fwd_inv,
    restart_reset,
    task_post_world,
    rk4_begin,
    rk4_stage,
    rk4_collect,
    rk4_finish,
    implicit_or_euler,
    watched_counts,
    watched_moved,
    _actions_ok,
    _model_at,
    _data_at,
    _task_at,
)
from sim.engine.task import task_pre, task_observe_reset
from sim.constants import (
    OPT_INTEGRATOR,
    OPT_DISABLE,
    OPT_ENABLE,
    INT_RK4,
    WARN_BADQPOS,
    WARN_BADQVEL,
    WARN_BADQACC,
    DSBL_AUTORESET,
    ENBL_FWDINV,
    ST_RESET,
)

# collision on the block visits every body pair in signature order (mj_broadphase's sweep decided pair by pair): up to
# this many bodies; larger models sweep world by world
COLLISION_BLOCK_MAXBODY = 64


@njit
def _load_smooth_inputs(d, bd, b, nworld):
    """qpos, qvel and the mocap poses of block b from the rows."""
    rows_to_block(d.qpos, bd.qpos, b, nworld)
    rows_to_block(d.qvel, bd.qvel, b, nworld)
    rows_to_block(d.mocap_pos, bd.mocap_pos, b, nworld)
    rows_to_block(d.mocap_quat, bd.mocap_quat, b, nworld)


@njit
def _store_position(bd, d, b, nworld, mask):
    """What kinematics and com_pos wrote, into the rows of block b's lanes in mask."""
    block_to_rows(bd.xpos, d.xpos, b, nworld, mask)
    block_to_rows(bd.xquat, d.xquat, b, nworld, mask)
    block_to_rows(bd.xmat, d.xmat, b, nworld, mask)
    block_to_rows(bd.xanchor, d.xanchor, b, nworld, mask)
    block_to_rows(bd.xaxis, d.xaxis, b, nworld, mask)
    block_to_rows(bd.xipos, d.xipos, b, nworld, mask)
    block_to_rows(bd.ximat, d.ximat, b, nworld, mask)
    block_to_rows(bd.geom_xpos, d.geom_xpos, b, nworld, mask)
    block_to_rows(bd.geom_xmat, d.geom_xmat, b, nworld, mask)
    block_to_rows(bd.site_xpos, d.site_xpos, b, nworld, mask)
    block_to_rows(bd.site_xmat, d.site_xmat, b, nworld, mask)
    block_to_rows(bd.subtree_com, d.subtree_com, b, nworld, mask)
    block_to_rows(bd.cinert, d.cinert, b, nworld, mask)
    block_to_rows(bd.cdof, d.cdof, b, nworld, mask)


@njit
def _store_inertia(bd, d, b, nworld, mask):
    """What crb and factor_m wrote, into the rows of block b's lanes in mask."""
    block_to_rows(bd.crb, d.crb, b, nworld, mask)
    block_to_rows(bd.M, d.M, b, nworld, mask)
    block_to_rows(bd.qLD, d.qLD, b, nworld, mask)
    block_to_rows(bd.qLDiagInv, d.qLDiagInv, b, nworld, mask)


@njit
def _store_velocity(bd, d, b, nworld, mask):
    """What com_vel and rne wrote, into the rows of block b's lanes in mask."""
    block_to_rows(bd.cvel, d.cvel, b, nworld, mask)
    block_to_rows(bd.cdof_dot, d.cdof_dot, b, nworld, mask)
    block_to_rows(bd.qfrc_bias, d.qfrc_bias, b, nworld, mask)
    block_to_rows(bd.scr_body6a, d.scr_body6a, b, nworld, mask)
    block_to_rows(bd.scr_body6b, d.scr_body6b, b, nworld, mask)


@njit
def position_block(m, d, bd, b, nworld, mask, F):
    """mj_fwdPosition's smooth stages of block b: kinematics, com_pos, crb and factor_m on the block (tendons and
    their armature world by world between them), from qpos and the mocap poses in the rows."""
    w = block_index(b)
    w0 = b * LANES
    nl = min(LANES, nworld - w0)
    _load_smooth_inputs(d, bd, b, nworld)
    kinematics(m, bd, w)
    com_pos(m, bd, w)
    if m.ntendon:
        _store_position(bd, d, b, nworld, mask)
        for k in range(nl):
            if mask & (1 << k):
                tendon_if(F, m, d, w0 + k)
    crb(m, bd, w)
    if m.ntendon:
        block_to_rows(bd.M, d.M, b, nworld, mask)
        for k in range(nl):
            if mask & (1 << k):
                tendon_armature(m, d, w0 + k)
        rows_to_block(d.M, bd.M, b, nworld)
    factor_m(m, bd, w)


@njit
def store_position_inertia(bd, d, b, nworld, mask):
    """What position_block wrote, into the rows of block b's lanes in mask."""
    _store_position(bd, d, b, nworld, mask)
    _store_inertia(bd, d, b, nworld, mask)


@njit
def collision_lanes(m, d, bd, b, nworld, mask, F):
    """mj_collision of block b's lanes in mask: on the block, or world by world for models of more than
    COLLISION_BLOCK_MAXBODY bodies.  (factor_m's inertia warnings are counted per lane by the block kernel.)"""
    if m.nbody <= COLLISION_BLOCK_MAXBODY:
        collision_block(m, d, bd, block_index(b), mask, F)
    else:
        w0 = b * LANES
        for k in range(min(LANES, nworld - w0)):
            if mask & (1 << k):
                collision(m, d, w0 + k, F)


@njit
def make_constraint_lanes(m, d, b, nworld, mask, F):
    """mj_makeConstraint of block b's lanes in mask, world by world."""
    w0 = b * LANES
    for k in range(min(LANES, nworld - w0)):
        if mask & (1 << k):
            make_constraint(m, d, w0 + k, F)


@njit
def position_rest_lanes(m, d, b, nworld, mask, F, skipsensor):
    """The rest of mj_fwdPosition and mj_fwdVelocity up to com_vel, world by world: transmission, the constraint
    projections, position sensors, tendon and actuator velocities."""
    w0 = b * LANES
    for k in range(min(LANES, nworld - w0)):
        if mask & (1 << k):
            wk = w0 + k
            transmission(m, d, wk, F)
            project_constraint_if(F, m, d, wk)
            project_dual_if(F, m, d, wk)
            sensor_pos_stage(m, d, wk, F, skipsensor, True)
            tendon_velocity_if(F, m, d, wk)
            actuator_velocity(m, d, wk)


@njit
def velocity_block(m, d, bd, b, nworld, mask):
    """com_vel and rne on block b (passive and the constraint reference read neither's outputs), stored into the
    rows."""
    w = block_index(b)
    com_vel(m, bd, w)
    rne(m, bd, w)
    _store_velocity(bd, d, b, nworld, mask)


@njit
def acceleration_lanes(m, d, b, nworld, mask, F, skipsensor, on):
    """The rest of mj_fwdVelocity and the acceleration stage world by world: passive forces, the constraint
    reference, tendon bias, velocity sensors, actuation and the smooth acceleration; with on False (no block
    solver for this model) mj_fwdConstraint and the acceleration sensors too."""
    w0 = b * LANES
    for k in range(min(LANES, nworld - w0)):
        if mask & (1 << k):
            wk = w0 + k
            passive(m, d, wk, F)
            reference_constraint(m, d, wk, F)
            tendon_bias_if(F, m, d, wk)
            sensor_vel_stage(m, d, wk, F, skipsensor)
            if on:
                fwd_actuation(m, d, wk, F)
                fwd_acceleration(m, d, wk)
            else:
                fwd_acc_stage(m, d, wk, F, skipsensor)


@njit
def sensor_acc_lanes(m, d, b, nworld, mask, F):
    """Acceleration sensors of block b's lanes in mask, world by world."""
    w0 = b * LANES
    for k in range(min(LANES, nworld - w0)):
        if mask & (1 << k):
            sensor_acc_stage(m, d, w0 + k, F)


@njit
def forward_block(m, d, bd, b, nworld, mask, F, skipsensor):
    """mj_forwardSkip(m, d, mjSTAGE_NONE, skipsensor) of the lanes of block b in mask (mj_fwdPosition,
    mj_fwdVelocity, then the acceleration stage), from the state in the rows, leaving every output in the rows.
    Its sections are the functions above (benchmarks/simd_profile.py --blocks times them)."""
    position_block(m, d, bd, b, nworld, mask, F)
    store_position_inertia(bd, d, b, nworld, mask)
    collision_lanes(m, d, bd, b, nworld, mask, F)
    make_constraint_lanes(m, d, b, nworld, mask, F)
    position_rest_lanes(m, d, b, nworld, mask, F, skipsensor)
    velocity_block(m, d, bd, b, nworld, mask)
    # the acceleration stage per world, but mj_fwdConstraint on the block where the block solver takes the worlds
    # (sim/engine/batch/solver.py)
    on = block_solver_on(m, F)
    acceleration_lanes(m, d, b, nworld, mask, F, skipsensor, on)
    if on:
        fwd_constraint_block(m, d, bd, b, nworld, mask, F)
        if not skipsensor:
            sensor_acc_lanes(m, d, b, nworld, mask, F)


@njit
def step_block(m, d, bd, b, nworld, mask, F):
    """One mj_step of the lanes of block b in mask: checks, forward, mj_checkAcc, integration."""
    w0 = b * LANES
    nl = min(LANES, nworld - w0)
    for k in range(nl):
        if mask & (1 << k):
            _check(m, d, w0 + k, d.qpos[w0 + k], m.nq, WARN_BADQPOS)
            _check(m, d, w0 + k, d.qvel[w0 + k], m.nv, WARN_BADQVEL)
    forward_block(m, d, bd, b, nworld, mask, F, False)
    # mj_checkAcc: a world with a bad qacc is reset and computed again (forward on the block for those lanes)
    redo = 0
    for k in range(nl):
        if mask & (1 << k):
            if _check(m, d, w0 + k, d.qacc[w0 + k], m.nv, WARN_BADQACC):
                if not (int(m.opt[OPT_DISABLE]) & DSBL_AUTORESET):
                    redo |= 1 << k
    if redo:
        forward_block(m, d, bd, b, nworld, redo, F, False)
    if int(m.opt[OPT_ENABLE]) & ENBL_FWDINV:
        for k in range(nl):
            if mask & (1 << k):
                _compare_fwd_inv(F, m, d, w0 + k, F)
    if int(m.opt[OPT_INTEGRATOR]) == INT_RK4:
        t0 = bd.rk_t0
        for k in range(nl):
            if mask & (1 << k):
                t0[w0 + k] = d.time[w0 + k]
                rk4_begin(m, d, w0 + k)
        for i in range(1, 4):
            for k in range(nl):
                if mask & (1 << k):
                    rk4_stage(m, d, w0 + k, i, t0[w0 + k])
            forward_block(m, d, bd, b, nworld, mask, F, True)
            for k in range(nl):
                if mask & (1 << k):
                    rk4_collect(m, d, w0 + k, i)
        for k in range(nl):
            if mask & (1 << k):
                rk4_finish(m, d, w0 + k, t0[w0 + k], F)
    else:
        for k in range(nl):
            if mask & (1 << k):
                implicit_or_euler(m, d, w0 + k, F)


@njit
def _restart_lanes(m, d, bd, t, b, nworld, restart, F):
    """The forward and observation of the lanes of block b in restart, already reset (restart_reset): _restart's
    mj_forward on the block."""
    forward_block(m, d, bd, b, nworld, restart, F, False)
    w0 = b * LANES
    for k in range(min(LANES, nworld - w0)):
        if restart & (1 << k):
            task_observe_reset(d, t, w0 + k, F)


@njit
def run_block(m, d, bd, t, b, nworld, nstep, F):
    """run_world (sim/engine/forward.py) for the worlds of block b: the task's start per world (a world flagged
    for reset is reset, then computed on the block), forward (nstep == 0) or nstep steps of the block's stepping
    lanes, the task's end per world (the same-step autoresets computed on the block); returns how many of its
    worlds moved a watched warning counter."""
    w0 = b * LANES
    nl = min(LANES, nworld - w0)
    st = bd.lane_state
    mask = 0
    restart = 0
    for k in range(nl):
        w = w0 + k
        c0, c1, c2, c3 = watched_counts(d, w)
        st[w, 0] = c0
        st[w, 1] = c1
        st[w, 2] = c2
        st[w, 3] = c3
        if t.enabled and t.status[w, ST_RESET]:
            restart_reset(m, d, t, w, False)
            restart |= 1 << k
        else:
            div = task_pre(m, d, t, w, F) if t.enabled else 0
            if div >= 0:  # -1: the world's mode keeps it from stepping this call (task_pre)
                st[w, 4] = div
                mask |= 1 << k
    if restart:
        _restart_lanes(m, d, bd, t, b, nworld, restart, F)
    if mask:
        if nstep == 0:
            forward_block(m, d, bd, b, nworld, mask, F, False)
        for _ in range(nstep):
            step_block(m, d, bd, b, nworld, mask, F)
    if t.enabled:
        restart = 0
        for k in range(nl):
            w = w0 + k
            if mask & (1 << k) and task_post_world(m, d, t, w, st[w, 4], F):
                restart_reset(m, d, t, w, True)
                restart |= 1 << k
        if restart:
            _restart_lanes(m, d, bd, t, b, nworld, restart, F)
    moved = 0
    for k in range(nl):
        w = w0 + k
        if watched_moved(d, w, st[w, 0], st[w, 1], st[w, 2], st[w, 3]):
            moved += 1
    return moved


@njit
def _run_blocks(m, d, bd, t, nworld, nstep, F, ctr, chunk):
    """One worker of run_batch_blocks: claims `chunk` blocks at a time from the shared counter ctr[0] until all
    are taken; returns how many of its worlds moved a watched warning counter."""
    moved = 0
    nblock = bd.nblock
    b0 = fetch_add(ctr, 0, chunk)
    while b0 < nblock:
        for b in range(b0, min(b0 + chunk, nblock)):
            moved += run_block(m, d, bd, t, b, nworld, nstep, F)
        b0 = fetch_add(ctr, 0, chunk)
    return moved


_block_at = struct_at_address(BLOCK_TYPE)


@njit(parallel=True, refcount=True, nogil=True)
def run_batch_blocks(mp, dp, tp, bp, nworld, nstep, F):
    """forward (nstep == 0) or nstep steps of worlds 0..nworld-1 in blocks of LANES, the blocks in parallel, on
    the Model, Data, task and block structs at addresses mp, dp, tp, bp (the block struct of this Data:
    sim/engine/batch/blocks.py Blocks).  Blocks are handed out from a shared counter as run_batch hands out worlds
    (sim/engine/forward.py); a chunk is 4 blocks (16 worlds of 4 lanes: a cache line of every short per-world row
    stays with one thread), fewer for small batches."""
    m = _model_at(mp)
    d = _data_at(dp)
    t = _task_at(tp)
    bd = _block_at(bp)
    if not _actions_ok(m, t, nworld):
        return -1
    nblock = bd.nblock
    chunk = max(1, 16 // LANES) * max(1, nblock // 256) if nblock >= 32 else max(1, nblock // 8)
    ctr = np.empty(1, np.int64)
    ctr[0] = 0
    moved = 0
    for i in prange(min(nblock, NWORKER)):
        moved += _run_blocks(m, d, bd, t, nworld, nstep, F, ctr, chunk)
    return moved
