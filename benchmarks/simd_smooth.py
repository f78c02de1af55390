"""SIMD across worlds, measured: today's per-world smooth kernels against the world-minor block kernels
(sim/engine/batch), stage by stage, one thread, paired alternating rounds in one process.

    python benchmarks/simd_smooth.py [model ...] [--n N] [--rounds R] [--warm W]

For each model (default hopper ant humanoid): N worlds (default 256) after W steps (default 300) of random
controls (benchmarks/simd_states.py).  Both sides first compute every stage once; the results are checked bitwise
equal field by field.  Then each round times, in alternating order, for every stage alone, for the chain of all
six stages (world by world / block by block) and for the transposes:

    ref      run_worlds(stage): the sim/engine kernel on world 0..N-1
    blocks   run_blocks(stage): the block kernel on block 0..N/LANES-1
    load     qpos, qvel (the inputs) from Data's rows into the blocks
    store    every output field from the blocks into Data's rows

each call repeated to ~0.2 ms inside one jitted loop (so Python's call and argument unboxing cost is not counted;
short blocks: on a loaded machine most of them run undisturbed); figures are ns per world, min / median over
rounds, and the paired ratio ref / blocks (min / median / max over rounds: a round's two runs are neighbours in
time).
"""

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from simd_states import contact_batch  # noqa: E402
from sim.api import model_struct  # noqa: E402
from sim.jit import njit  # noqa: E402
from sim.engine.batch.simd import LANES  # noqa: E402
from sim.engine.batch.blocks import (
    SmoothBlocks,
    run_worlds,
    run_blocks,
    from_blocks,
    rows_to_blocks,  # noqa
    blocks_to_rows,
    ALL,
    STAGES,
    OUTPUTS,
    INPUTS,
)


@njit(cache=False)
def rep_worlds(m, d, n, stages, reps):
    for _ in range(reps):
        run_worlds(m, d, n, stages)


@njit(cache=False)
def rep_blocks(m, nblock, stages, a, reps):
    for _ in range(reps):
        run_blocks(
            m,
            nblock,
            stages,
            a[0],
            a[1],
            a[2],
            a[3],
            a[4],
            a[5],
            a[6],
            a[7],
            a[8],
            a[9],
            a[10],
            a[11],
            a[12],
            a[13],
            a[14],
            a[15],
            a[16],
            a[17],
            a[18],
            a[19],
            a[20],
            a[21],
            a[22],
            a[23],
            a[24],
            a[25],
            a[26],
            a[27],
        )


@njit(cache=False)
def rep_load(srcs, dsts, n, reps):
    for _ in range(reps):
        rows_to_blocks(srcs, dsts, n)


@njit(cache=False)
def rep_store(srcs, dsts, n, reps):
    for _ in range(reps):
        blocks_to_rows(srcs, dsts, n)


def bitwise(sb, d):
    """Names of the fields where the blocks and Data differ in any bit."""
    bad = []
    for k in OUTPUTS + ("scr_body6a", "scr_body6b"):
        ref = sb.rows_of(d, k)
        if not ref.shape[1]:
            continue
        out = np.zeros_like(ref)
        from_blocks(sb.a[k], out, sb.nworld)
        if not np.array_equal(ref.view(np.int64), out.view(np.int64)):
            bad.append(k)
    return bad


def timer(fn, reps):
    t = time.perf_counter()
    fn(reps)
    return (time.perf_counter() - t) / reps


def measure(name, n, rounds, warm):
    m, d, _ = contact_batch(name, n, warm)
    ms, ds = model_struct(m), d._struct
    sb = SmoothBlocks(m, n)
    sb.load(d)
    sb.run(ALL)
    run_worlds(ms, ds, n, ALL)
    bad = bitwise(sb, d)
    print(
        "\n%s: nq %d nv %d nbody %d ngeom %d, %d worlds in blocks of %d; bitwise equal: %s"
        % (name, m.nq, m.nv, m.nbody, m.ngeom, n, LANES, "yes" if not bad else "NO, differ in " + ", ".join(bad))
    )
    cases = [(s, bit) for s, bit in STAGES] + [("all six", ALL)]
    items = []
    args = sb._args()
    ins = [k for k in INPUTS if sb.rows[k]]
    outs = [k for k in OUTPUTS if sb.rows[k]]
    in_rows, in_blocks = tuple(sb.rows_of(d, k) for k in ins), tuple(sb.a[k] for k in ins)
    out_rows, out_blocks = tuple(sb.rows_of(d, k) for k in outs), tuple(sb.a[k] for k in outs)
    for s, bit in cases:
        items.append(
            (
                s,
                (lambda r, b=bit: rep_worlds(ms, ds, n, b, r)),
                (lambda r, b=bit: rep_blocks(sb.ms, sb.nblock, b, args, r)),
            )
        )
    items.append(("load inputs", None, lambda r: rep_load(in_rows, in_blocks, n, r)))
    items.append(("store outputs", None, lambda r: rep_store(out_blocks, out_rows, n, r)))
    res = {s: ([], []) for s, _, _ in items}
    reps = {}
    for s, f, g in items:
        if f is not None:
            f(1)
        g(1)
        t = timer(g, 3)
        reps[s] = max(1, int(0.0002 / max(t, 1e-7)))
    for r in range(rounds):
        for s, f, g in items if r % 2 == 0 else items[::-1]:
            pair = [(0, f), (1, g)] if r % 2 == 0 else [(1, g), (0, f)]
            for k, fn in pair:
                if fn is not None:
                    res[s][k].append(timer(fn, reps[s]) / n * 1e9)
    print("%-14s %17s %17s %22s" % ("ns per world", "today min/med", "blocks min/med", "ratio min/med/max"))
    for s, f, g in items:
        a, b = np.array(res[s][0]), np.array(res[s][1])
        if len(a):
            q = a / b
            print(
                "%-14s %8.1f %8.1f %8.1f %8.1f %7.2f %6.2f %6.2f"
                % (s, a.min(), np.median(a), b.min(), np.median(b), q.min(), np.median(q), q.max())
            )
        else:
            print("%-14s %17s %8.1f %8.1f" % (s, "", b.min(), np.median(b)))
    return res


def main():
    args = sys.argv[1:]
    opts = {"--n": 256, "--rounds": 200, "--warm": 300}
    names = []
    i = 0
    while i < len(args):
        if args[i] in opts:
            opts[args[i]] = int(args[i + 1])
            i += 2
        else:
            names.append(args[i])
            i += 1
    print("load %.2f %.2f %.2f" % os.getloadavg())
    for name in names or ["hopper", "ant", "humanoid"]:
        measure(name, opts["--n"], opts["--rounds"], opts["--warm"])
    print("\nload %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
