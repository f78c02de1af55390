"""Benchmark of the full step WITH contacts and constraints vs MuJoCo C, mujoco.rollout and EnvPool.

Run: python benchmarks/bench_step.py [--quick]
Prints markdown tables: µs per step single world (ours vs mujoco.mj_step, alternating in one process),
256 batched hoppers (steps/s vs mujoco.rollout, 1 and 2 threads), EnvPool Hopper-v5 env-steps/s when envpool is
installed (`pip install -e ".[bench]"`), and cold/warm start.
"""

import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_smooth import batched, single, start_time  # noqa: E402
import numba  # noqa: E402

MODELS = ("hopper", "half_cheetah", "walker2d", "ant", "humanoid")


def envpool_rate(nenv, nthread, nstep=500):
    """EnvPool Hopper env-steps/s with nthread worker threads (None when envpool is not installed)."""
    try:
        import envpool
    except ImportError:
        return None
    env = envpool.make_gymnasium("Hopper-v5", num_envs=nenv, batch_size=nenv, num_threads=nthread)
    env.reset()
    act = np.zeros((nenv,) + env.action_space.shape)
    t = time.perf_counter()
    for _ in range(nstep):
        env.step(act)
    return nenv * nstep / (time.perf_counter() - t)


def main():
    quick = "--quick" in sys.argv
    print("| model (contacts on) | ours µs/step (min/med/max) | MuJoCo C µs/step (min/med/max) | ratio med |")
    print("|---|---|---|---|")
    for name in MODELS:
        o, r, _ = single(name, nstep=200 if quick else 1000, disable=0)
        print(
            f"| {name} | {o.min():.1f}/{np.median(o):.1f}/{o.max():.1f} | "
            f"{r.min():.1f}/{np.median(r):.1f}/{r.max():.1f} | {np.median(o) / np.median(r):.2f} |"
        )
    print()
    print("| 256 hoppers, contacts on | ours steps/s | mujoco.rollout steps/s | ratio |")
    print("|---|---|---|---|")
    for nthread, ours, ref in batched(nstep=50 if quick else 100, disable=0):
        print(f"| {nthread} thread(s) | {ours:,.0f} | {ref:,.0f} | {ours / ref:.2f} |")
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    ep = envpool_rate(64, 2)
    print()
    print(
        "EnvPool Hopper-v5, 64 envs, 2 threads: "
        + ("not installed" if ep is None else f"{ep:,.0f} env-steps/s (one env step = 4 mj_steps, frame_skip 4)")
    )
    with tempfile.TemporaryDirectory() as tmp:
        cold = start_time(tmp, disable=0)
        warm = start_time(tmp, disable=0)
    print()
    print(f"start (import + model + first step, hopper, contacts on): cold {cold:.1f} s, warm {warm:.2f} s")


if __name__ == "__main__":
    main()
