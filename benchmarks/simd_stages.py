"""The batched step on blocks of LANES worlds against the per-world kernels, stage by stage and whole, one thread,
paired alternating rounds in one process: the per-stage table of docs/simd.md.

    python benchmarks/simd_stages.py [model ...] [--n N] [--rounds R] [--warm W] [--nstep S]

For each model (default hopper ant humanoid): N worlds (default 256) after W steps (default 300) of random controls
(benchmarks/simd_states.py).  Every stage that has a block form is timed on its own, world by world (the per-world
kernel on worlds 0..N-1) and block by block (the same kernel compiled for a block, on blocks 0..N/LANES-1), each
call repeated to ~0.2 ms inside one jitted loop; then whole steps: sim.api.run(m, d, S) with simd=False (world by
world, sim/engine/forward.py run_batch) and simd=True (sim/engine/batch/step.py), from the same state.  Threads:
NUMBA_NUM_THREADS (1 for the table).  Figures: ns per world (per world-step for the whole step), minimum and median
over rounds, and the paired ratio per-world / block (min / median / max: a round's two timings are neighbours in
time).  Before timing, each stage's block output is checked bitwise equal to the per-world output.
"""

import os
import sys
import time

# batches on blocks from the first timed call: the block step compiles before the first step, not in the
# background (sim/api.py NUMJOCO_SIMD)
os.environ.setdefault("NUMJOCO_SIMD", "wait")

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the tree on PYTHONPATH wins

from simd_states import contact_batch  # noqa: E402

import sim  # noqa: E402
import sim.api as api  # noqa: E402
from sim.jit import njit  # noqa: E402
from sim.jit.simd import LANES, block_index  # noqa: E402
from sim.engine.batch.blocks import BLOCK_FIELDS, rows_to_block, block_to_rows  # noqa: E402
from sim.engine.kinematics import kinematics  # noqa: E402
from sim.engine.com import com_pos, com_vel  # noqa: E402
from sim.engine.crb import crb, factor_m  # noqa: E402
from sim.engine.rne import rne  # noqa: E402
from sim.engine.collision.driver import collision, collision_block  # noqa: E402
from sim.engine.parts import constraint_islands, constraint_warmstart, constraint_solve  # noqa: E402
from sim.engine.batch.solver import fwd_constraint_block  # noqa: E402

KINEMATICS, COM_POS, CRB, FACTOR_M, COM_VEL, RNE, COLLISION = 1, 2, 4, 8, 16, 32, 64
STAGES = (
    ("kinematics", KINEMATICS),
    ("com_pos", COM_POS),
    ("crb", CRB),
    ("factor_m", FACTOR_M),
    ("com_vel", COM_VEL),
    ("rne", RNE),
    ("collision", COLLISION),
    ("the seven", 127),
)


@njit(cache=False)
def rep_worlds(m, d, n, stages, reps, F):
    for _ in range(reps):
        for w in range(n):
            if stages & KINEMATICS:
                kinematics(m, d, w)
            if stages & COM_POS:
                com_pos(m, d, w)
            if stages & CRB:
                crb(m, d, w)
            if stages & FACTOR_M:
                factor_m(m, d, w)
            if stages & COLLISION:
                collision(m, d, w, F)
            if stages & COM_VEL:
                com_vel(m, d, w)
            if stages & RNE:
                rne(m, d, w)


@njit(cache=False)
def rep_blocks(m, d, bd, nblock, stages, reps, F):
    full = (1 << LANES) - 1
    for _ in range(reps):
        for b in range(nblock):
            w = block_index(b)
            if stages & KINEMATICS:
                kinematics(m, bd, w)
            if stages & COM_POS:
                com_pos(m, bd, w)
            if stages & CRB:
                crb(m, bd, w)
            if stages & FACTOR_M:
                factor_m(m, bd, w)
            if stages & COLLISION:
                collision_block(m, d, bd, w, full, F)
            if stages & COM_VEL:
                com_vel(m, bd, w)
            if stages & RNE:
                rne(m, bd, w)


@njit(cache=False)
def rep_solve_worlds(m, d, n, reps, F):
    for _ in range(reps):
        for w in range(n):
            constraint_islands(m, d, w, F)
            constraint_warmstart(m, d, w, F)
            constraint_solve(m, d, w, F)


@njit(cache=False)
def rep_solve_blocks(m, d, bd, n, nblock, reps, F):
    for _ in range(reps):
        for b in range(nblock):
            fwd_constraint_block(m, d, bd, b, n, (1 << LANES) - 1, F)


@njit(cache=False)
def load_all(d_rows, blk, nblock, nworld):
    for b in range(nblock):
        rows_to_block(d_rows, blk, b, nworld)


@njit(cache=False)
def store_all(blk, d_rows, nblock, nworld):
    for b in range(nblock):
        block_to_rows(blk, d_rows, b, nworld, (1 << LANES) - 1)


def timer(fn, reps):
    t = time.perf_counter()
    fn(reps)
    return (time.perf_counter() - t) / reps


def paired(items, rounds):
    """items: (name, per-world fn(reps), block fn(reps)); ns per call unit (the fns divide), paired rounds."""
    reps = {}
    for s, f, g in items:
        f(1)
        g(1)
        reps[s] = max(1, int(0.0002 / max(timer(g, 2), 1e-7)))
    res = {s: ([], []) for s, _, _ in items}
    for r in range(rounds):
        for s, f, g in items if r % 2 == 0 else items[::-1]:
            order = ((0, f), (1, g)) if r % 2 == 0 else ((1, g), (0, f))
            for k, fn in order:
                res[s][k].append(timer(fn, reps[s]))
    return res


def table(res, scale, title):
    print("%-22s %19s %19s %22s" % (title, "per-world min/med", "blocks min/med", "ratio min/med/max"))
    for s, (a, b) in res.items():
        a, b = np.array(a) * scale, np.array(b) * scale
        q = a / b
        print(
            "%-22s %9.1f %9.1f %9.1f %9.1f %7.2f %6.2f %6.2f"
            % (s, a.min(), np.median(a), b.min(), np.median(b), q.min(), np.median(q), q.max())
        )


def measure(name, n, rounds, warm, nstep):
    m, start, _ = contact_batch(name, n, warm)
    F = api.model_features(m)
    ms = api.model_struct(m)
    ref = sim.Data(m, nworld=n)
    blk = sim.Data(m, nworld=n)
    for d in (ref, blk):
        for k in ("qpos", "qvel", "act", "ctrl", "qacc_warmstart"):
            d._arrays[k][:] = start._arrays[k]
    b = api.blocks_of(m, blk, simd=True)
    for k in ("qpos", "qvel", "mocap_pos", "mocap_quat"):
        load_all(blk._arrays[k], b.arrays[k], b.nblock, n)
    # collision (world by world) reads the geom frames from the rows: both sides start from the same rows
    rep_worlds(ms, ref._struct, n, 127, 1, F)
    rep_worlds(ms, blk._struct, n, KINEMATICS, 1, F)
    rep_blocks(ms, blk._struct, b.struct, b.nblock, 127, 1, F)
    bad = []
    for k in BLOCK_FIELDS:
        out = np.zeros_like(blk._arrays[k])
        store_all(b.arrays[k], out, b.nblock, n)
        if not np.array_equal(out.view(np.uint8), ref._arrays[k].view(np.uint8)):
            bad.append(k)
    for k in ("ncon", "contact_pos", "contact_frame", "contact_dist", "contact_geom"):
        if not np.array_equal(blk._arrays[k].view(np.uint8), ref._arrays[k].view(np.uint8)):
            bad.append(k)
    ncon = ref._arrays["ncon"]
    print(
        "\n%s: nq %d nv %d nbody %d ngeom %d, %d worlds in blocks of %d, contacts per world mean %.1f (max %d); "
        "bitwise equal: %s"
        % (
            name,
            m.nq,
            m.nv,
            m.nbody,
            m.ngeom,
            n,
            LANES,
            ncon.mean(),
            ncon.max(),
            "yes" if not bad else "NO: " + ", ".join(bad),
        )
    )
    items = [
        (
            s,
            (lambda r, s=bit: rep_worlds(ms, ref._struct, n, s, r, F)),
            (lambda r, s=bit: rep_blocks(ms, blk._struct, b.struct, b.nblock, s, r, F)),
        )
        for s, bit in STAGES
    ]
    # mj_fwdConstraint from the rows of one forward pass: world by world, and on blocks where the block solver takes
    # the worlds (sim/engine/batch/solver.py; both find the islands per world)
    for d in (ref, blk):
        api.run(m, d, 0, simd=False)
    rep_solve_worlds(ms, ref._struct, n, 1, F)
    rep_solve_blocks(ms, blk._struct, b.struct, n, b.nblock, 1, F)
    solver_out = ("qacc", "qfrc_constraint", "efc_force", "solver_niter", "solver_improvement", "solver_gradient")
    bad = [k for k in solver_out if not np.array_equal(blk._arrays[k].view(np.uint8), ref._arrays[k].view(np.uint8))]
    print(
        "fwd_constraint: rows per world mean %.1f (max %d), iterations mean %.2f (max %d); bitwise equal: %s"
        % (
            ref._arrays["nefc"].mean(),
            ref._arrays["nefc"].max(),
            ref._arrays["solver_niter"].mean(),
            ref._arrays["solver_niter"].max(),
            "yes" if not bad else "NO: " + ", ".join(bad),
        )
    )
    items.append(
        (
            "fwd_constraint",
            lambda r: rep_solve_worlds(ms, ref._struct, n, r, F),
            lambda r: rep_solve_blocks(ms, blk._struct, b.struct, n, b.nblock, r, F),
        )
    )
    table(paired(items, rounds), 1e9 / n, "ns per world")

    def whole(d, simd):
        def fn(reps):
            for _ in range(reps):
                for k in ("qpos", "qvel", "act", "ctrl", "qacc_warmstart", "time"):
                    d._arrays[k][:] = start._arrays[k]
                api.run(m, d, nstep, simd=simd)

        return fn

    res = paired([("step (%d per call)" % nstep, whole(ref, False), whole(blk, True))], max(6, rounds // 10))
    table(res, 1e9 / (n * nstep), "ns per world-step")


def main():
    args = sys.argv[1:]
    opts = {"--n": 256, "--rounds": 100, "--warm": 300, "--nstep": 10}
    names = []
    i = 0
    while i < len(args):
        if args[i] in opts:
            opts[args[i]] = int(args[i + 1])
            i += 2
        else:
            names.append(args[i])
            i += 1
    print("load %.2f %.2f %.2f, threads %s" % (os.getloadavg() + (os.environ.get("NUMBA_NUM_THREADS", "all"),)))
    for name in names or ["hopper", "ant", "humanoid"]:
        measure(name, opts["--n"], opts["--rounds"], opts["--warm"], opts["--nstep"])
    print("\nload %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
