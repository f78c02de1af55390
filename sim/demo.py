"""Main job until the environments exist: compile an MJCF model, print a summary and run a short simulation.

python -m sim.demo [model.xml] [--steps N]
"""

import argparse
import os
import time

import numpy as np

import sim

DEFAULT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "envs", "assets", "hopper.xml")


def summary(m):
    """One-paragraph description of a compiled model."""
    lines = [
        f"nq={m.nq} nv={m.nv} nu={m.nu} na={m.na} nbody={m.nbody} njnt={m.njnt} ngeom={m.ngeom} "
        f"nsite={m.nsite} ntendon={m.ntendon} neq={m.neq} nsensor={m.nsensor} nkey={m.nkey} "
        f"nmocap={m.nmocap}",
        f"timestep={m.opt.timestep} integrator={m.opt.integrator} solver={m.opt.solver} "
        f"total mass={float(np.sum(m.body_mass)):.4f}",
    ]
    for i in range(1, m.nbody):
        lines.append(
            f"  body {i:2d} {m.names['body'][i] or '-':12s} mass={m.body_mass[i]:9.4f} "
            f"inertia={np.array2string(m.body_inertia[i], precision=4)}"
        )
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", nargs="?", default=DEFAULT)
    ap.add_argument("--steps", type=int, default=1000)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    m = sim.load_model(args.model)
    print(f"compiled {args.model} in {time.perf_counter() - t0:.3f} s")
    print(summary(m))
    d = sim.Data(m)
    t0 = time.perf_counter()
    sim.step(m, d, nstep=1)
    t1 = time.perf_counter()
    sim.step(m, d, nstep=args.steps)
    t2 = time.perf_counter()
    print(
        f"first step (incl. JIT load) {t1 - t0:.2f} s; {args.steps} steps in {t2 - t1:.4f} s "
        f"({(t2 - t1) / max(1, args.steps) * 1e6:.2f} us/step)"
    )
    print("qpos after", args.steps + 1, "steps:", np.array2string(d.qpos, precision=4))
    print(f"contacts now: {d.ncon}, constraint rows: {d.nefc}, solver iterations: {d.solver_niter}")


if __name__ == "__main__":
    main()
