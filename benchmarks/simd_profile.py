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
steps every block once with step_block, then again with a copy of its pipeline (forward_block's sections, the
integrator's) with the cycle counter read between the sections: the share of each in the step, cycles per
world-step (the copy leaves out mj_checkAcc's second pass and the forward / inverse comparison, which these states
do not take).

Run against another tree (e.g. an export of main) with PYTHONPATH=<tree>: the tree's sim is imported first.
"""

import os
import sys
import time

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
from sim.constants import INT_RK4, OPT_INTEGRATOR  # noqa: E402
from sim.jit.simd import LANES, block_index  # noqa: E402
from sim.api import blocks_of  # noqa: E402
from sim.engine.parts import collision as collision_part, make_constraint as make_constraint_part  # noqa: E402
from sim.engine.parts import passive as passive_part  # noqa: E402
from sim.engine.parts import constraint_islands, constraint_warmstart, constraint_solve  # noqa: E402
from sim.engine.actuation import fwd_actuation  # noqa: E402
from sim.engine.collision.driver import collision_block  # noqa: E402
from sim.engine.batch.blocks import rows_to_block, block_to_rows  # noqa: E402
from sim.engine.batch.solver import block_solver_on, block_solvable, solve_block_if  # noqa: E402
from sim.engine.batch.step import (  # noqa: E402
    step_block,
    COLLISION_BLOCK_MAXBODY,
    _load_smooth_inputs,
    _store_position,
    _store_inertia,
    _store_velocity,
)
from sim.engine.forward import rk4_begin, rk4_stage, rk4_collect, rk4_finish, implicit_or_euler  # noqa: E402

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
    "integrator, rest",
)


@njit(cache=False)
def block_pass(m, d, bd, b, nworld, mask, F, skipsensor, acc):
    """forward_block (sim/engine/batch/step.py) with the cycle counter read between its sections (acc[0..9])."""
    t0 = _rdtsc()
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
    t1 = _rdtsc()
    _store_position(bd, d, b, nworld, mask)
    _store_inertia(bd, d, b, nworld, mask)
    t2 = _rdtsc()
    if m.nbody <= COLLISION_BLOCK_MAXBODY:
        collision_block(m, d, bd, w, mask, F)
    else:
        for k in range(nl):
            if mask & (1 << k):
                collision_part(m, d, w0 + k, F)
    t3 = _rdtsc()
    for k in range(nl):
        if mask & (1 << k):
            make_constraint_part(m, d, w0 + k, F)
    t4 = _rdtsc()
    for k in range(nl):
        if mask & (1 << k):
            wk = w0 + k
            transmission(m, d, wk, F)
            project_constraint_if(F, m, d, wk)
            project_dual_if(F, m, d, wk)
            sensor_pos_stage(m, d, wk, F, skipsensor, True)
            tendon_velocity_if(F, m, d, wk)
            actuator_velocity(m, d, wk)
    t5 = _rdtsc()
    com_vel(m, bd, w)
    rne(m, bd, w)
    _store_velocity(bd, d, b, nworld, mask)
    t6 = _rdtsc()
    on = block_solver_on(m, F)
    for k in range(nl):
        if mask & (1 << k):
            wk = w0 + k
            passive_part(m, d, wk, F)
            reference_constraint(m, d, wk, F)
            tendon_bias_if(F, m, d, wk)
            sensor_vel_stage(m, d, wk, F, skipsensor)
            fwd_actuation(m, d, wk, F)
            fwd_acceleration(m, d, wk)
    t7 = _rdtsc()
    cand = 0
    for k in range(nl):
        if mask & (1 << k):
            constraint_islands(m, d, w0 + k, F)
            if on and block_solvable(m, d, w0 + k):
                cand |= 1 << k
            else:
                constraint_warmstart(m, d, w0 + k, F)
                constraint_solve(m, d, w0 + k, F)
    t8 = _rdtsc()
    if cand:
        done = solve_block_if(m, d, bd, b, nworld, cand, F)
        for k in range(nl):
            if cand & (1 << k) and not (done & (1 << k)):
                constraint_warmstart(m, d, w0 + k, F)
                constraint_solve(m, d, w0 + k, F)
    t9 = _rdtsc()
    if not skipsensor:
        for k in range(nl):
            if mask & (1 << k):
                sensor_acc_stage(m, d, w0 + k, F)
    t10 = _rdtsc()
    acc[0] += t1 - t0
    acc[1] += t2 - t1
    acc[2] += t3 - t2
    acc[3] += t4 - t3
    acc[4] += t5 - t4
    acc[5] += t6 - t5
    acc[6] += t7 - t6
    acc[7] += t8 - t7
    acc[8] += t9 - t8
    acc[9] += t10 - t9


@njit(cache=False)
def block_steps_timed(m, d, bd, nworld, F, acc):
    """One step of every block, step_block's sequence with block_pass for forward_block; acc[10]: the whole step."""
    for b in range(bd.nblock):
        t0 = _rdtsc()
        w0 = b * LANES
        nl = min(LANES, nworld - w0)
        mask = (1 << nl) - 1
        block_pass(m, d, bd, b, nworld, mask, F, False, acc)
        if int(m.opt[OPT_INTEGRATOR]) == INT_RK4:
            t0v = bd.rk_t0
            for k in range(nl):
                t0v[w0 + k] = d.time[w0 + k]
                rk4_begin(m, d, w0 + k)
            for i in range(1, 4):
                for k in range(nl):
                    rk4_stage(m, d, w0 + k, i, t0v[w0 + k])
                block_pass(m, d, bd, b, nworld, mask, F, True, acc)
                for k in range(nl):
                    rk4_collect(m, d, w0 + k, i)
            for k in range(nl):
                rk4_finish(m, d, w0 + k, t0v[w0 + k], F)
        else:
            for k in range(nl):
                implicit_or_euler(m, d, w0 + k, F)
        acc[10] += _rdtsc() - t0


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
    block_steps(ms, ds, bd.struct, n, F)
    s.restore()
    block_steps_timed(ms, ds, bd.struct, n, F, acc)
    best_step = np.inf
    best = None
    for _ in range(rounds):
        s.restore()
        t = time.perf_counter()
        block_steps(ms, ds, bd.struct, n, F)
        best_step = min(best_step, (time.perf_counter() - t) / n * 1e9)
        s.restore()
        acc[:] = 0
        block_steps_timed(ms, ds, bd.struct, n, F, acc)
        if best is None or acc[-1] < best[-1]:
            best = acc.copy()
    best = best.astype(float)
    best[-1] -= best[:-1].sum()  # the integrator and what no section holds
    nefc = d._arrays["nefc"]
    print(
        "\n%s (blocks of %d): nv %d, %d worlds, efc rows mean %.1f; step_block %.0f ns per world-step, the "
        "instrumented copy %.0f" % (name, LANES, m.nv, n, nefc.mean(), best_step, best.sum() / n / tsc)
    )
    print("%-30s %8s %12s" % ("section", "share", "ns/world-step"))
    for k, st in enumerate(BLOCK_SECTIONS):
        print("%-30s %7.1f%% %12.0f" % (st, 100.0 * best[k] / best.sum(), best[k] / n / tsc))


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
