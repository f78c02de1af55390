"""The world-minor block kernels of the smooth stages (sim/engine/batch, a prototype not used by sim.step) against
today's per-world kernels: on a batch of worlds in contact, every output field is bitwise equal.

The states: MuJoCo (the oracle) steps each world with its own random controls until the feet touch the floor;
numjoco's batch gets the worlds' qpos / qvel.  The per-world side runs kinematics .. rne world by world
(blocks.run_worlds); the block side loads the inputs into blocks of LANES worlds (4x4 transposes), runs the six
block kernels and stores the outputs back into a second Data (nworld not a multiple of LANES, so the last block
has padding lanes and the transposes their element-by-element tail).
"""
import os

import numpy as np
import pytest

import sim
from conftest import gymnasium_assets_dir
from sim.engine.batch.blocks import ALL, INPUTS, OUTPUTS, STAGES, SmoothBlocks, run_worlds
from sim.engine.batch.simd import LANES
from sim.api import model_struct

mujoco = pytest.importorskip("mujoco")
from mujoco import rollout  # noqa: E402

SCRATCH = ("scr_body6a", "scr_body6b")


def contact_states(path, nworld, warm, seed=0):
    """(sim Model, qpos, qvel, contacts per world): nworld worlds after `warm` MuJoCo steps of random controls."""
    mm = mujoco.MjModel.from_xml_path(path)
    md = mujoco.MjData(mm)
    rng = np.random.default_rng(seed)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state0 = np.zeros((nworld, mujoco.mj_stateSize(mm, spec)))
    for i in range(nworld):
        mujoco.mj_resetData(mm, md)
        md.qpos[:] += rng.uniform(-0.005, 0.005, mm.nq)
        md.qvel[:] += rng.uniform(-0.005, 0.005, mm.nv)
        mujoco.mj_getState(mm, md, state0[i], spec)
    lo = np.where(mm.actuator_ctrllimited, mm.actuator_ctrlrange[:, 0], -1.0)
    hi = np.where(mm.actuator_ctrllimited, mm.actuator_ctrlrange[:, 1], 1.0)
    state, _ = rollout.rollout(mm, md, state0, rng.uniform(lo, hi, (nworld, warm, mm.nu)))
    qpos, qvel, ncon = np.zeros((nworld, mm.nq)), np.zeros((nworld, mm.nv)), np.zeros(nworld, int)
    for i in range(nworld):
        mujoco.mj_setState(mm, md, state[i, -1], spec)
        mujoco.mj_forward(mm, md)
        qpos[i], qvel[i], ncon[i] = md.qpos, md.qvel, md.ncon
    return sim.load_model(path), qpos, qvel, ncon


def differing_fields(name, nworld, warm):
    """Fields (name, worlds that differ) where the block kernels and the per-world kernels differ in any bit."""
    path = os.path.join(gymnasium_assets_dir(), name + ".xml")
    m, qpos, qvel, ncon = contact_states(path, nworld, warm)
    # random controls leave some worlds airborne (ant's legs kick): a quarter of them in contact suffices
    assert (ncon > 0).sum() >= max(2, nworld // 4), "the states should have contacts: %s" % ncon
    ref = sim.Data(m, nworld=nworld)
    blk = sim.Data(m, nworld=nworld)
    for d in (ref, blk):
        d.qpos[:] = qpos
        d.qvel[:] = qvel
    sb = SmoothBlocks(m, nworld)
    for k in OUTPUTS + SCRATCH:             # every output the block side must write: NaN before
        sb.rows_of(blk, k)[:] = np.nan
    run_worlds(model_struct(m), ref._struct, nworld, ALL)
    sb.load(blk, INPUTS)
    sb.run(ALL)
    sb.store(blk, OUTPUTS + SCRATCH)
    assert (sb.inertia_warnings() == -1).all()
    bad = []
    for k in OUTPUTS + SCRATCH:
        a, b = sb.rows_of(ref, k), sb.rows_of(blk, k)
        assert a.shape == b.shape and a.shape[0] == nworld
        diff = (a.view(np.int64) != b.view(np.int64)).any(axis=1)
        if diff.any():
            bad.append((k, np.flatnonzero(diff).tolist()))
    return bad


def test_stage_bits_cover_the_six_stages():
    """The stage bits name each of the six stages once, and ALL is their union."""
    bits = [b for _, b in STAGES]
    assert [s for s, _ in STAGES] == ["kinematics", "com_pos", "crb", "factor_m", "com_vel", "rne"]
    assert sum(bits) == ALL and len(set(bits)) == 6 and LANES == 4


def test_hopper_blocks_bitwise():
    """hopper, 10 worlds (two full blocks and one with 2 padding lanes) in contact: bitwise equal."""
    assert differing_fields("hopper", 10, 200) == []


@pytest.mark.full
@pytest.mark.parametrize("name", ["ant", "humanoid"])
def test_blocks_bitwise_full(name):
    """ant (free joint, ball-free hinges), humanoid (free joint, many hinges, tendons' model): bitwise equal."""
    assert differing_fields(name, 2 * LANES + 3, 200) == []
