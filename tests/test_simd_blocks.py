"""The world-minor block kernels of the smooth stages (sim/engine/batch, a prototype not used by sim.step) against
today's per-world kernels: on a batch of worlds in contact, every output field is bitwise equal.

The states (benchmarks/simd_states.py, as the SIMD benchmarks use): MuJoCo (the oracle) steps each world with its
own random controls until the feet touch the floor; numjoco's batch gets the worlds' qpos / qvel.  The per-world
side runs kinematics .. rne world by world (blocks.run_worlds); the block side loads the inputs into blocks of LANES
worlds (LANES x LANES transposes), runs the six block kernels and stores the outputs back into a second Data
(nworld not a multiple of LANES, so the last block has padding lanes and the transposes their element-by-element
tail).
"""

import os
import sys

import numpy as np
import pytest

import sim
from sim.engine.batch.blocks import ALL, INPUTS, OUTPUTS, STAGES, SmoothBlocks, run_worlds
from sim.engine.batch.simd import LANES
from sim.api import model_struct

mujoco = pytest.importorskip("mujoco")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
from simd_states import contact_batch  # noqa: E402  (the benchmarks' states: MuJoCo rollouts, random controls)

SCRATCH = ("scr_body6a", "scr_body6b")


def contacts_per_world(mm, d):
    """MuJoCo's contact count of each world of batch d (qpos, qvel of model mm)."""
    md = mujoco.MjData(mm)
    out = np.zeros(d.qpos.shape[0], int)
    for i in range(len(out)):
        md.qpos[:], md.qvel[:] = d.qpos[i], d.qvel[i]
        mujoco.mj_forward(mm, md)
        out[i] = md.ncon
    return out


def differing_fields(name, nworld, warm):
    """Fields (name, worlds that differ) where the block kernels and the per-world kernels differ in any bit."""
    m, ref, mm = contact_batch(name, nworld, warm)
    ncon = contacts_per_world(mm, ref)
    # random controls leave some worlds airborne (ant's legs kick): a quarter of them in contact suffices
    assert (ncon > 0).sum() >= max(2, nworld // 4), "the states should have contacts: %s" % ncon
    blk = sim.Data(m, nworld=nworld)
    blk.qpos[:] = ref.qpos
    blk.qvel[:] = ref.qvel
    sb = SmoothBlocks(m, nworld)
    for k in OUTPUTS + SCRATCH:  # every output the block side must write: NaN before
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
    assert sum(bits) == ALL and len(set(bits)) == 6 and LANES in (4, 8)


def test_hopper_blocks_bitwise():
    """hopper, 2 LANES + 2 worlds (two full blocks and one with LANES - 2 padding lanes) in contact: bitwise
    equal."""
    assert differing_fields("hopper", 2 * LANES + 2, 200) == []


@pytest.mark.full
@pytest.mark.parametrize("name", ["ant", "humanoid"])
def test_blocks_bitwise_full(name):
    """ant (free joint, ball-free hinges), humanoid (free joint, many hinges, tendons' model): bitwise equal."""
    assert differing_fields(name, 2 * LANES + 3, 200) == []


@pytest.mark.full
def test_eight_lanes_bitwise(tmp_path):
    """LANES = 8 (an AVX-512 register; NUMJOCO_SIMD_LANES, a kernel cache of its own): hopper bitwise equal too,
    the 8x8 tile transposes included."""
    import subprocess

    env = dict(os.environ, NUMJOCO_SIMD_LANES="8", NUMJOCO_CACHE_DIR=str(tmp_path), NUMJOCO_QUIET="1")
    code = (
        "import sys; sys.path.insert(0, 'tests'); import test_simd_blocks as t; "
        "assert t.LANES == 8; assert t.differing_fields('hopper', 2 * t.LANES + 2, 200) == []; print('ok')"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-2000:]
