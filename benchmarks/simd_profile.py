"""Where a batched step's time goes, per stage, on worlds in contact: the stage tables behind
docs/simd.md.

    python benchmarks/simd_profile.py [model ...] [--n N] [--rounds R] [--warm W] [--blocks]

N worlds (default 256) after W steps of random controls (benchmarks/simd_states.py), one thread.  Each round
restores the batch state, then
  1. steps every world once with step_world (what run_batch runs per world): the step's cost per world-step;
  2. restores again and runs one forward pass per world stage by stage, the CPU's cycle counter read between
     stages (as benchmarks/profile_stages.py, stages grouped the same way, finer for the smooth ones).
Figures: ns per world, the minimum over rounds of the per-round mean over the N worlds.  The stages of an RK4 step
are its four forward passes (each with collision and the solver) plus the integration: "rest of step" is the
step minus four forward passes (minus one for Euler / implicit models).

With --blocks, the block step instead (sim/engine/batch/step.py, one thread): each round restores the state and
steps every block once with step_block, then restores again and runs one forward pass of every block as
forward_block's sections (the functions it calls), the cycle counter read between them: ns per world per pass
and each section's share of the pass.  The timed pass visits each block once, from cold caches, where a step runs
its passes on warm ones: the sections' sum is above a pass inside a step, and the shares are what to compare.

Run against another tree (e.g. an export of main) with PYTHONPATH=<tree>: the tree's sim is imported first.
"""

import os
import sys
import time

# batches on blocks from the first timed call: the block step compiles before the first step, not in the
# background (sim/api.py NUMJOCO_SIMD)
os.environ.setdefault("NUMJOCO_SIMD", "wait")

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.append(os.path.dirname(HERE))  # the tree on PYTHONPATH, if any, wins

from simd_states import contact_batch  # noqa: E402
from sim.jit import njit  # noqa: E402
from sim.api import model_features, model_struct  # noqa: E402
from sim.engine.kinematics import kinematics  # noqa: E402
from sim.engine.com import com_pos, com_vel  # noqa: E402
from sim.engine.tendon import tendon_if, tendon_velocity_if, tendon_bias_if  # noqa: E402
from sim.engine.transmission import transmission, actuator_velocity  # noqa: E402
from sim.engine.crb import crb, tendon_armature, factor_m  # noqa: E402
from sim.engine.rne import rne  # noqa: E402
from sim.engine.passive import passive  # noqa: E402
from sim.engine.actuation import actuation  # noqa: E402
from sim.engine.collision.driver import collision  # noqa: E402
from sim.engine.constraint import make_constraint, project_constraint_if, reference_constraint  # noqa: E402
from sim.engine.solver import fwd_constraint, project_dual_if  # noqa: E402
from sim.engine.sensor import sensor_pos_stage, sensor_vel_stage, sensor_acc_stage  # noqa: E402
from sim.engine.forward import fwd_acceleration, step_world  # noqa: E402
from sim.constants import INT_RK4  # noqa: E402
from sim.jit.simd import LANES  # noqa: E402
from sim.api import blocks_of  # noqa: E402
from sim.engine.batch.solver import block_solver_on, islands_lanes, solve_lanes  # noqa: E402
from sim.engine.batch.step import (  # noqa: E402
    step_block,
    position_block,
    store_position_inertia,
    collision_lanes,
    make_constraint_lanes,
    position_rest_lanes,
    velocity_block,
    acceleration_lanes,
    sensor_acc_lanes,
)

# after sim: profile_stages puts this checkout first on sys.path, and the tree on PYTHONPATH must win
from profile_stages import _rdtsc  # noqa: E402  (the cycle counter, one definition)

STAGES = (
    "kinematics",
    "com_pos",
    "tendon",
    "crb",
    "factor_m",
    "collision",
    "make_constraint",
    "transmission",
    "project",
    "sensor_pos",
    "tendon_vel+actuator_vel",
    "com_vel",
    "passive",
    "reference_constraint",
    "rne",
    "tendon_bias+sensor_vel",
    "actuation",
    "fwd_acceleration",
    "fwd_constraint",
    "sensor_acc",
)


@njit(cache=False)
def _ticks():
    return _rdtsc()


@njit(cache=False)
def steps(m, d, F, nworld):
    for w in range(nworld):
        step_world(m, d, w, F)


@njit(cache=False)
def staged(m, d, F, nworld, acc, t):
    """One forward pass (mj_forward, sensors on) of every world, stage by stage; cycles added to acc[k] (t: 21
    timestamps of scratch)."""
    for w in range(nworld):
        t[0] = _rdtsc()
        kinematics(m, d, w)
        t[1] = _rdtsc()
        com_pos(m, d, w)
        t[2] = _rdtsc()
        tendon_if(F, m, d, w)
        t[3] = _rdtsc()
        crb(m, d, w)
        tendon_armature(m, d, w)
        t[4] = _rdtsc()
        factor_m(m, d, w)
        t[5] = _rdtsc()
        collision(m, d, w, F)
        t[6] = _rdtsc()
        make_constraint(m, d, w, F)
        t[7] = _rdtsc()
        transmission(m, d, w, F)
        t[8] = _rdtsc()
        project_constraint_if(F, m, d, w)
        project_dual_if(F, m, d, w)
        t[9] = _rdtsc()
        sensor_pos_stage(m, d, w, F, False, True)
        t[10] = _rdtsc()
        tendon_velocity_if(F, m, d, w)
        actuator_velocity(m, d, w)
        t[11] = _rdtsc()
        com_vel(m, d, w)
        t[12] = _rdtsc()
        passive(m, d, w, F)
        t[13] = _rdtsc()
        reference_constraint(m, d, w, F)
        t[14] = _rdtsc()
        rne(m, d, w)
        t[15] = _rdtsc()
        tendon_bias_if(F, m, d, w)
        sensor_vel_stage(m, d, w, F, False)
        t[16] = _rdtsc()
        actuation(m, d, w)
        t[17] = _rdtsc()
        fwd_acceleration(m, d, w)
        t[18] = _rdtsc()
        fwd_constraint(m, d, w, F)
        t[19] = _rdtsc()
        sensor_acc_stage(m, d, w, F)
        t[20] = _rdtsc()
        for k in range(20):
            acc[k] += t[k + 1] - t[k]


BLOCK_SECTIONS = (
    "smooth position (block)",
    "their stores into the rows",
    "collision (block)",
    "make_constraint",
    "transmission .. actuator_vel",
    "com_vel, rne (block), stores",
    "passive .. fwd_acceleration",
    "islands (+ per-world solves)",
    "warmstart + solve (block)",
    "sensor_acc",
)


@njit(cache=False)
def block_passes(m, d, bd, nworld, F, acc, t):
    """One forward pass (sensors on) of every block, forward_block's sections (sim/engine/batch/step.py) called
    one by one with the cycle counter read between them (acc[k] += cycles of section k; t: 11 timestamps of
    scratch)."""
    on = block_solver_on(m, F)
    for b in range(bd.nblock):
        mask = (1 << min(LANES, nworld - b * LANES)) - 1
        t[0] = _rdtsc()
        position_block(m, d, bd, b, nworld, mask, F)
        t[1] = _rdtsc()
        store_position_inertia(bd, d, b, nworld, mask)
        t[2] = _rdtsc()
        collision_lanes(m, d, bd, b, nworld, mask, F)
        t[3] = _rdtsc()
        make_constraint_lanes(m, d, b, nworld, mask, F)
        t[4] = _rdtsc()
        position_rest_lanes(m, d, b, nworld, mask, F, False)
        t[5] = _rdtsc()
        velocity_block(m, d, bd, b, nworld, mask)
        t[6] = _rdtsc()
        acceleration_lanes(m, d, b, nworld, mask, F, False, on)
        t[7] = _rdtsc()
        cand = islands_lanes(m, d, b, nworld, mask, F) if on else 0
        t[8] = _rdtsc()
        solve_lanes(m, d, bd, b, nworld, cand, F)
        t[9] = _rdtsc()
        if on:
            sensor_acc_lanes(m, d, b, nworld, mask, F)
        t[10] = _rdtsc()
        for k in range(10):
            acc[k] += t[k + 1] - t[k]


@njit(cache=False)
def block_steps(m, d, bd, nworld, F):
    for b in range(bd.nblock):
        w0 = b * LANES
        step_block(m, d, bd, b, nworld, (1 << min(LANES, nworld - w0)) - 1, F)


def profile_blocks(name, n, rounds, warm):
    m, d, mm = contact_batch(name, n, warm)
    ms, ds, F = model_struct(m), d._struct, model_features(m)
    bd = blocks_of(m, d, simd=True)
    s = Saved(d)
    tsc = cycles_per_ns()
    acc = np.zeros(len(BLOCK_SECTIONS), np.int64)
    ts = np.zeros(len(BLOCK_SECTIONS) + 1, np.int64)
    block_steps(ms, ds, bd.struct, n, F)
    s.restore()
    block_passes(ms, ds, bd.struct, n, F, acc, ts)
    best_step = np.inf
    best = np.full(len(BLOCK_SECTIONS), np.inf)
    for _ in range(rounds):
        s.restore()
        t = time.perf_counter()
        block_steps(ms, ds, bd.struct, n, F)
        best_step = min(best_step, (time.perf_counter() - t) / n * 1e9)
        s.restore()
        acc[:] = 0
        block_passes(ms, ds, bd.struct, n, F, acc, ts)
        best = np.minimum(best, acc / n / tsc)
    npass = 4 if int(m.opt.integrator) == INT_RK4 else 1
    nefc = d._arrays["nefc"]
    print(
        "\n%s (blocks of %d): nv %d, %d worlds, efc rows mean %.1f; %d forward pass(es) per step"
        % (name, LANES, m.nv, n, nefc.mean(), npass)
    )
    print("%-30s %10s %8s" % ("ns per world", "per pass", "share"))
    fwd = best.sum()
    for k, st in enumerate(BLOCK_SECTIONS):
        print("%-30s %10.0f %7.1f%%" % (st, best[k], 100.0 * best[k] / fwd))
    print("%-30s %10.0f" % ("forward (sum)", fwd))
    # a step runs its passes block after block on warm caches, the timed pass each block once: the sections' sum
    # is above a pass inside a step, so the shares are the figures to compare
    print("%-30s %10.0f ns per world-step (%d passes)" % ("step (step_block)", best_step, npass))


def cycles_per_ns():
    _ticks()
    t, c = time.perf_counter(), _ticks()
    time.sleep(0.2)
    return (_ticks() - c) / ((time.perf_counter() - t) * 1e9)


class Saved:
    """The batch's state, restorable (the fields a step reads)."""

    FIELDS = ("qpos", "qvel", "act", "ctrl", "qacc_warmstart", "time")

    def __init__(self, d):
        self.d = d
        self.v = {k: getattr(d, k).copy() for k in self.FIELDS}

    def restore(self):
        for k, v in self.v.items():
            getattr(self.d, k)[...] = v


def profile(name, n, rounds, warm):
    m, d, mm = contact_batch(name, n, warm)
    ms, ds, F = model_struct(m), d._struct, model_features(m)
    s = Saved(d)
    tsc = cycles_per_ns()
    steps(ms, ds, F, n)
    s.restore()
    acc = np.zeros(len(STAGES), np.int64)
    tt = np.zeros(21, np.int64)
    staged(ms, ds, F, n, acc, tt)
    best_step = np.inf
    best = np.full(len(STAGES), np.inf)
    for _ in range(rounds):
        s.restore()
        t = time.perf_counter()
        steps(ms, ds, F, n)
        best_step = min(best_step, (time.perf_counter() - t) / n * 1e9)
        s.restore()
        acc[:] = 0
        staged(ms, ds, F, n, acc, tt)
        best = np.minimum(best, acc / n / tsc)
    npass = 4 if int(m.opt.integrator) == INT_RK4 else 1
    ncon = d.ncon if np.ndim(d.ncon) else np.array([d.ncon])
    nefc = d._arrays["nefc"]
    print(
        "\n%s: nv %d, %d worlds, contacts per world mean %.1f (max %d), efc rows mean %.1f; %d forward pass(es) "
        "per step" % (name, m.nv, n, ncon.mean(), ncon.max(), nefc.mean(), npass)
    )
    print("%-26s %10s %10s" % ("ns per world", "per pass", "per step"))
    for k, st in enumerate(STAGES):
        print("%-26s %10.1f %10.1f" % (st, best[k], npass * best[k]))
    fwd = best.sum()
    print("%-26s %10.1f %10.1f" % ("forward (sum)", fwd, npass * fwd))
    print("%-26s %10s %10.1f" % ("rest of step", "", best_step - npass * fwd))
    print("%-26s %10s %10.1f" % ("step", "", best_step))
    return best, best_step, npass


def main():
    args = sys.argv[1:]
    opts = {"--n": 256, "--rounds": 20, "--warm": 300}
    names = []
    blocks = "--blocks" in args
    args = [a for a in args if a != "--blocks"]
    i = 0
    while i < len(args):
        if args[i] in opts:
            opts[args[i]] = int(args[i + 1])
            i += 2
        else:
            names.append(args[i])
            i += 1
    import sim

    print("sim from %s; load %.2f %.2f %.2f" % ((os.path.dirname(sim.__file__),) + os.getloadavg()))
    for name in names or ["hopper", "ant", "humanoid"]:
        (profile_blocks if blocks else profile)(name, opts["--n"], opts["--rounds"], opts["--warm"])
    print("\nload %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
