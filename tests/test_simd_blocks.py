"""The batched step on blocks of LANES worlds (sim/engine/batch, docs/simd.md) against the single-world step: every
world's Data bitwise equal.

- The block kernels (the per-world kernels of sim/engine compiled for a block of worlds) stage by stage against the
  per-world kernels, on worlds in contact.
- Whole steps: a batch stepped in blocks (what sim.step does by default) against each of its worlds stepped alone
  (sim.Data(m), the serial entry), with per-world random controls, some worlds reset mid-run, one diverging world
  reset by the fault path (mj_checkPos / mj_checkVel), a batch size that leaves padding lanes in the last block;
  every Data array of every world compared in every bit.
- The vector env (a task program with autoreset inside the batched call) with and without blocks.

The states: MuJoCo (the oracle) steps each world with its own random controls until the feet touch the floor
(benchmarks/simd_states.py, as the SIMD benchmarks use).
"""

import json
import os
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pytest

import sim
import sim.api as api
from sim.jit import njit
from sim.jit.simd import LANES, block_index
from sim.engine.batch.blocks import BLOCK_FIELDS, Blocks, rows_to_block, block_to_rows
from sim.engine.kinematics import kinematics
from sim.engine.com import com_pos, com_vel
from sim.engine.crb import crb, factor_m
from sim.engine.rne import rne
from sim.engine.parts import constraint_islands, constraint_warmstart, constraint_solve
from sim.engine.batch.solver import block_solvable, fwd_constraint_block

mujoco = pytest.importorskip("mujoco")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
from simd_states import contact_batch  # noqa: E402  (the benchmarks' states: MuJoCo rollouts, random controls)

pytestmark = pytest.mark.usefixtures("blocks")  # sim.step's batches on blocks, as a user's (tests/conftest.py)

SIX = ("kinematics", "com_pos", "crb", "factor_m", "com_vel", "rne")


@njit
def _six_worlds(m, d, nworld):
    for w in range(nworld):
        kinematics(m, d, w)
        com_pos(m, d, w)
        crb(m, d, w)
        factor_m(m, d, w)
        com_vel(m, d, w)
        rne(m, d, w)


@njit
def _six_blocks(m, bd, nblock):
    for b in range(nblock):
        w = block_index(b)
        kinematics(m, bd, w)
        com_pos(m, bd, w)
        crb(m, bd, w)
        factor_m(m, bd, w)
        com_vel(m, bd, w)
        rne(m, bd, w)


@njit
def _load(rows, blk, nblock, nworld):
    for b in range(nblock):
        rows_to_block(rows, blk, b, nworld)


@njit
def _store(blk, rows, nblock, nworld):
    for b in range(nblock):
        block_to_rows(blk, rows, b, nworld, (1 << LANES) - 1)


# mj_broadphase's working arrays: the block collision decides the sweep's pairs pair by pair without sorting
# (sim/engine/collision/driver.py collision_block), so it leaves these scratch arrays as they were
SWEEP_SCRATCH = frozenset(
    (
        "scr_aamm",
        "scr_sapval",
        "scr_sapid",
        "scr_sapbufval",
        "scr_sapbufid",
        "scr_sapactive",
        "scr_bfid",
        "scr_bfkey",
        "scr_bfpay",
        "scr_bfbuf",
        "scr_bfpaybuf",
        "scr_leafpair",
    )
)


# the primal solver's working arrays: a block's lanes that converge early keep their outputs aside while the others
# iterate in the block's own scratch (sim/engine/batch/solver.py), so the rows keep what the warmstart left there;
# of scr_slv_int only the island-local constraint states (row _ISTATE) are an output
SOLVER_SCRATCH = frozenset(("scr_slv_nv", "scr_slv_efc", "scr_slv_quad", "scr_slv_H", "scr_slv_Hc"))
_ISTATE = 4


def differing(a, b, worlds_a=None):
    """Names of the Data arrays that differ in any bit between batch a (or its worlds worlds_a) and b, but for
    the sweep's and the primal solver's scratch."""
    out = []
    for k, x in a._arrays.items():
        if k in SWEEP_SCRATCH or k in SOLVER_SCRATCH:
            continue
        y = b._arrays[k]
        if worlds_a is not None:
            x = x[worlds_a]
        if k == "scr_slv_int":
            x, y = x[:, _ISTATE], y[:, _ISTATE]
        if x.shape != y.shape or not np.array_equal(x.view(np.uint8), y.view(np.uint8)):
            out.append(k)
    return out


def test_six_stage_kernels_bitwise():
    """kinematics .. rne compiled for blocks against the per-world kernels, hopper worlds in contact (two full
    blocks and one with padding lanes): every field they write bitwise equal."""
    nworld = 2 * LANES + 2
    m, ref, mm = contact_batch("hopper", nworld, 200)
    blk = sim.Data(m, nworld=nworld)
    blk.qpos[:] = ref.qpos
    blk.qvel[:] = ref.qvel
    b = Blocks(m, blk)
    ms = api.model_struct(m)
    _six_worlds(ms, ref._struct, nworld)
    for k in ("qpos", "qvel", "mocap_pos", "mocap_quat"):
        _load(blk._arrays[k], b.arrays[k], b.nblock, nworld)
    for k in BLOCK_FIELDS:  # every output the blocks must write: NaN before
        if k not in ("qpos", "qvel", "mocap_pos", "mocap_quat"):
            b.arrays[k][:] = np.nan
    _six_blocks(ms, b.struct, b.nblock)
    for k in BLOCK_FIELDS:
        _store(b.arrays[k], blk._arrays[k], b.nblock, nworld)
    assert [k for k in differing(ref, blk) if k in BLOCK_FIELDS] == []


def _copy_state(src, dst, i=None):
    for k in ("qpos", "qvel", "act", "ctrl", "qacc_warmstart", "time"):
        x = src._arrays[k]
        dst._arrays[k][:] = x if i is None else x[i]


def run_against_single(name, nworld, nstep, seed=0, check_every=10, solver=None):
    """Step a batch of nworld worlds in blocks and each world alone, with per-world random controls, a quarter of
    the worlds reset every 17 steps, one world diverging a third of the way (mj_checkVel) and another with a bad
    acceleration soon after (mj_checkAcc): (step, world, fields) of the first difference, or None.  solver: the
    constraint solver option to set (the model's own when None)."""
    m, start, mm = contact_batch(name, nworld, 200)
    if solver is not None:
        m.opt.solver = solver
    rng = np.random.default_rng(seed)
    batch = sim.Data(m, nworld=nworld)
    _copy_state(start, batch)
    singles = [sim.Data(m) for _ in range(nworld)]
    for w, s in enumerate(singles):
        _copy_state(start, s, w)
    lo = np.where(m.actuator_ctrllimited, m.actuator_ctrlrange[:, 0], -1.0)
    hi = np.where(m.actuator_ctrllimited, m.actuator_ctrlrange[:, 1], 1.0)
    diverge_at, diverge_world = nstep // 3, nworld - 1
    for step in range(nstep):
        ctrl = rng.uniform(lo, hi, (nworld, m.nu))
        touched = []
        if step % 17 == 5:  # mj_resetData's state in some worlds, the others go on
            touched = rng.choice(nworld, size=max(1, nworld // 4), replace=False)
        for w, s in enumerate(singles):
            for d, j in ((batch, w), (s, 0)):  # world w of the batch, the single Data's one row
                a = d._arrays
                a["ctrl"][j] = ctrl[w]
                if w in touched:
                    a["qpos"][j] = m.qpos0
                    a["qvel"][j] = 0.0
                    a["act"][j] = 0.0
                if step == diverge_at and w == diverge_world:  # the fault path resets it (mj_checkVel)
                    a["qvel"][j, 0] = 1e20
                if step == diverge_at + 5 and w == 0:  # a bad qacc: reset and forward again (mj_checkAcc)
                    a["qfrc_applied"][j, 0] = 1e30
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            api.run(m, batch, 1)
            for s in singles:
                sim.step(m, s)
        if step == 0:
            assert m._sim.features in api._BLOCKS.cfuncs  # the batch stepped on blocks
        if step == diverge_at:
            assert batch.warning[sim.constants.WARN_BADQVEL].number[diverge_world] == 1
        if step == diverge_at + 5:
            assert batch.warning[sim.constants.WARN_BADQACC].number[0] == 1
        if step % check_every == check_every - 1 or step == nstep - 1:
            for w, s in enumerate(singles):
                bad = differing(batch, s, worlds_a=slice(w, w + 1))
                if bad:
                    return step, w, bad
    return None


@njit
def _solve_worlds(m, d, nworld, F):
    n = 0
    for w in range(nworld):
        constraint_islands(m, d, w, F)
        n += block_solvable(m, d, w)
        constraint_warmstart(m, d, w, F)
        constraint_solve(m, d, w, F)
    return n


@njit
def _solve_blocks(m, d, bd, nworld, nblock, F):
    n = 0
    for b in range(nblock):
        n += fwd_constraint_block(m, d, bd, b, nworld, (1 << LANES) - 1, F)
    return n


SOLVER_OUT = (
    "qacc",
    "qfrc_constraint",
    "efc_force",
    "efc_state",
    "efc_b",
    "solver_niter",
    "solver_niter_island",
    "solver_improvement",
    "solver_gradient",
    "solver_lineslope",
    "solver_nactive",
    "solver_nchange",
    "solver_neval",
    "solver_nupdate",
)


@pytest.mark.parametrize(
    "solver, disable",
    [
        (sim.constants.SOL_NEWTON, 0),
        (sim.constants.SOL_CG, 0),
        (sim.constants.SOL_NEWTON, sim.constants.DSBL_WARMSTART),
    ],
    ids=["newton", "cg", "newton-nowarmstart"],
)
def test_solver_on_blocks_bitwise(solver, disable):
    """mj_fwdConstraint on blocks (sim/engine/batch/solver.py) against world by world, hopper worlds in contact
    (2 LANES + 3: a partial block), Newton and CG, and Newton without the warmstart (the solve from qacc_smooth):
    every world the block takes is solved on it (efc_b, the warmstart and the solve), and every output
    (forces, states, qacc, statistics, iteration counts) is bitwise the per-world solver's."""
    nworld = 2 * LANES + 3
    m, start, _ = contact_batch("hopper", nworld, 200)
    m.opt.solver = solver
    m.opt.disableflags = int(m.opt.disableflags) | disable
    ref, blk = sim.Data(m, nworld=nworld), sim.Data(m, nworld=nworld)
    for d in (ref, blk):
        _copy_state(start, d)
        api.run(m, d, 0, simd=False)
    b = api.blocks_of(m, blk, simd=True)
    for k in ("M", "qLD", "qLDiagInv"):  # the block solver reads the block's factor of M (its forward pass's)
        _load(blk._arrays[k], b.arrays[k], b.nblock, nworld)
    ms, F = api.model_struct(m), api.model_features(m)
    nsolvable = _solve_worlds(ms, ref._struct, nworld, F)
    assert _solve_blocks(ms, blk._struct, b.struct, nworld, b.nblock, F) == nsolvable > nworld // 2
    iters = ref._arrays["solver_niter"]
    assert iters.max() > iters.min()  # lanes retire at different iterations
    bad = [k for k in SOLVER_OUT if not np.array_equal(blk._arrays[k].view(np.uint8), ref._arrays[k].view(np.uint8))]
    bad += (
        []
        if np.array_equal(blk._arrays["scr_slv_int"][:, _ISTATE], ref._arrays["scr_slv_int"][:, _ISTATE])
        else ["istate"]
    )
    assert bad == []


@pytest.mark.parametrize("solver", [sim.constants.SOL_NEWTON, sim.constants.SOL_CG], ids=["newton", "cg"])
def test_hopper_steps_bitwise(solver):
    """hopper: 2 LANES + 3 worlds (padding lanes in the last block), 120 steps in blocks, each world bitwise its
    single-world trajectory; with Newton (hopper's own) and CG, both solved on blocks (lanes converging at different
    iterations, different row counts)."""
    assert api.SIMD
    assert run_against_single("hopper", 2 * LANES + 3, 120, solver=solver) is None


_BACKGROUND = r"""
import json, sys, time
sys.path.insert(0, %(root)r)
import numpy as np
import sim
from sim import api
m = sim.load_model(%(path)r)
d, ref = sim.Data(m, nworld=%(nworld)d), sim.Data(m, nworld=%(nworld)d)
rng = np.random.default_rng(4)
for x in (d, ref):
    x.ctrl[:] = rng.uniform(-1, 1, x.ctrl.shape) if x is d else d.ctrl
    x.qvel[:] = rng.normal(0, 0.5, x.qvel.shape) if x is d else d.qvel
api.run(m, d, 1)  # NUMJOCO_SIMD=1's default: world by world, a worker compiling the block step
api.run(m, ref, 1, simd=False)
F = m._sim.features
first = dict(blocks=F in api._BLOCKS.cfuncs, worker=type(api._BLOCKS.state.get(F)).__name__)
t, n = time.perf_counter(), 1
while F not in api._BLOCKS.cfuncs and time.perf_counter() - t < 900:
    api.run(m, d, 1)  # world by world until the block step is in the cache, then on blocks
    api.run(m, ref, 1, simd=False)
    n += 1
    time.sleep(0.2)
api.run(m, d, 30)
api.run(m, ref, 30, simd=False)
same = [k for k in ("time", "qpos", "qvel", "act", "qacc", "qfrc_constraint", "efc_force", "sensordata")
        if not np.array_equal(getattr(d, k).view(np.uint8), getattr(ref, k).view(np.uint8))]
print(json.dumps(dict(first=first, after=F in api._BLOCKS.cfuncs, steps=n + 30, differ=same)))
"""


def test_background_compile(tmp_path):
    """What a user gets (NUMJOCO_SIMD=1, the default): a batch whose block step is not in the kernel cache steps
    world by world while a worker process compiles the block step, then on blocks; every step bitwise the per-world
    batch's.  Runs in a fresh process on a copy of this session's kernel cache without the block step's entries
    (the worker compiles the block step, about 100 s of CPU)."""
    from sim.jit import cache

    root = str(tmp_path / "cache")
    if cache.CACHE_DIR is not None and os.path.isdir(cache.CACHE_DIR):
        try:
            shutil.copytree(
                cache.CACHE_DIR,
                os.path.join(root, os.path.basename(cache.CACHE_DIR)),
                ignore=lambda folder, names: [n for n in names if n.startswith("step.run_batch_blocks-")],
            )
        except shutil.Error:  # a file another test process replaced meanwhile: compiled again if needed
            pass
    import gymnasium

    path = os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets", "hopper.xml")
    env = dict(os.environ, NUMJOCO_CACHE_DIR=root, NUMJOCO_QUIET="1", NUMJOCO_SIMD="1")
    env.pop("NUMJOCO_COMPILE_WORKERS", None)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = _BACKGROUND % dict(root=repo, path=path, nworld=2 * LANES + 1)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=1800)
    assert out.returncode == 0, out.stderr[-3000:]
    res = json.loads(out.stdout.strip().splitlines()[-1])
    assert res["first"] == {"blocks": False, "worker": "Popen"}  # the first call ran world by world, a worker started
    assert res["after"] is True  # then on blocks, loaded from the cache the worker wrote
    assert res["differ"] == []


def _vector_rollout(env_id, num_envs, nstep, seed, **kwargs):
    import gymnasium as gym
    import envs  # noqa: F401  (registers the ids)

    def arrays(obs):  # a dict observation (the goal envs) as its arrays
        return [obs[k].copy() for k in sorted(obs)] if isinstance(obs, dict) else [obs.copy()]

    env = gym.make_vec(env_id, num_envs=num_envs, **kwargs)
    obs, _ = env.reset(seed=seed)
    out = arrays(obs)
    env.action_space.seed(seed)
    ends = 0
    for _ in range(nstep):
        obs, rew, term, trunc, _ = env.step(env.action_space.sample())
        out += arrays(obs) + [rew.copy(), term.copy(), trunc.copy()]
        ends += int(term.sum() + trunc.sum())
    env.close()
    return out, ends


def test_vector_env_blocks_bitwise(monkeypatch):
    """numjoco/Hopper-v0 vector env of LANES + 2 envs, 300 random steps with autoresets inside the batched call:
    observations, rewards and terminations bitwise the same with and without blocks."""
    blocks, ends = _vector_rollout("numjoco/Hopper-v0", LANES + 2, 300, 5)
    assert ends > 0  # episodes end and reset inside the call
    monkeypatch.setattr(api, "SIMD", False)
    rows, _ = _vector_rollout("numjoco/Hopper-v0", LANES + 2, 300, 5)
    assert len(blocks) == len(rows)
    assert all(np.array_equal(np.asarray(a).view(np.uint8), np.asarray(b).view(np.uint8)) for a, b in zip(blocks, rows))


@pytest.mark.parametrize(
    "env_id", ["numjoco/FetchPush-v0", pytest.param("numjoco/HandManipulateBlockRotateZ-v0", marks=pytest.mark.full)]
)
def test_robotics_vector_env_blocks_bitwise(env_id, monkeypatch):
    """A Fetch / Shadow Hand vector env of LANES + 1 envs (the robotics family's own Python between the physics
    calls; its steps of every world go through the batched step on blocks), 60 random steps with episode ends:
    every observation, reward and termination bitwise the same with and without blocks."""
    pytest.importorskip("gymnasium_robotics")
    from envs.robotics import core

    calls = []
    run_all = core._run_all
    monkeypatch.setattr(core, "_run_all", lambda *a: calls.append(1) or run_all(*a))
    blocks, _ = _vector_rollout(env_id, LANES + 1, 60, 3)
    assert len(calls) >= 60  # every step of every world went through the blocks
    n = len(calls)
    monkeypatch.setattr(api, "SIMD", False)
    rows, _ = _vector_rollout(env_id, LANES + 1, 60, 3)
    assert len(calls) == n
    assert len(blocks) == len(rows)
    assert all(np.array_equal(np.asarray(a).view(np.uint8), np.asarray(b).view(np.uint8)) for a, b in zip(blocks, rows))


def test_dmc_vector_env_blocks_bitwise(monkeypatch):
    """The Control Suite's vector env (one task program, one sim.api.run call per control step) of LANES + 1 envs,
    cheetah-run with an action repeat of 2 and 10-step episodes (resets observed by the program, worlds that end
    during the repeat sitting out the rest): every observation, reward and termination bitwise the same with and
    without blocks."""
    pytest.importorskip("dm_control")
    used = []
    blocks_of = api.blocks_of

    def counted(*a):  # the calls that ran on blocks
        b = blocks_of(*a)
        used.append(b is not None)
        return b

    monkeypatch.setattr(api, "blocks_of", counted)
    kw = dict(action_repeat=2, time_limit=0.2)
    blocks, ends = _vector_rollout("numjoco/dmc-cheetah-run-v0", LANES + 1, 40, 7, **kw)
    assert ends > 0 and sum(used) >= 40
    monkeypatch.setattr(api, "SIMD", False)
    rows, _ = _vector_rollout("numjoco/dmc-cheetah-run-v0", LANES + 1, 40, 7, **kw)
    assert len(blocks) == len(rows)
    assert all(np.array_equal(np.asarray(a).view(np.uint8), np.asarray(b).view(np.uint8)) for a, b in zip(blocks, rows))
