"""Benchmark of the smooth core vs MuJoCo C (contacts disabled in both). Prints a markdown table.

Run: python benchmarks/bench_smooth.py [--quick]
"""

import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import sim.jit.cache  # noqa: E402,F401
import mujoco  # noqa: E402
import numba  # noqa: E402
from sim import api  # noqa: E402
from timing import alternate_steps, rollout_inputs  # noqa: E402

import gymnasium  # noqa: E402

ASSETS = os.path.join(os.path.dirname(gymnasium.__file__), "envs/mujoco/assets")
DISABLE = int(mujoco.mjtDisableBit.mjDSBL_CONTACT | mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)


def load(name, disable=DISABLE):
    m = mujoco.MjModel.from_xml_path(os.path.join(ASSETS, name + ".xml"))
    m.opt.disableflags |= disable
    return m


def single(name, nstep=1000, repeats=7, disable=DISABLE):
    """(ours µs/step per repeat, MuJoCo µs/step per repeat, ours µs for one step per Python call)."""
    m = load(name, disable)
    md = mujoco.MjData(m)
    d = api.Data(m)
    api.step(m, d)  # compile / load
    ours, ref = alternate_steps(m, md, d, nstep, repeats)
    # per-call overhead: one step per Python call
    t = time.perf_counter()
    for _ in range(200):
        api.step(m, d)
    percall = (time.perf_counter() - t) / 200 * 1e6
    return ours, ref, percall


def batched(nworld=256, nstep=100, repeats=5, disable=DISABLE):
    """[(nthread, ours steps/s, mujoco.rollout steps/s)] for nworld hoppers."""
    from mujoco import rollout

    m = load("hopper", disable)
    rows = []
    for nthread in (1, 2):
        numba.set_num_threads(nthread)
        b = api.Data(m, nworld=nworld)
        api.step(m, b)
        ts = []
        for _ in range(repeats):
            api.reset(m, b)
            t = time.perf_counter()
            api.step(m, b, nstep=nstep)
            ts.append(time.perf_counter() - t)
        ours = nworld * nstep / min(ts)
        datas, state0, ctrl = rollout_inputs(m, nworld, nstep, nthread)
        with rollout.Rollout(nthread=nthread) as r:
            r.rollout([m] * nworld, datas, state0, ctrl)
            ts = []
            for _ in range(repeats):
                t = time.perf_counter()
                r.rollout([m] * nworld, datas, state0, ctrl)
                ts.append(time.perf_counter() - t)
        ref = nworld * nstep / min(ts)
        rows.append((nthread, ours, ref))
    return rows


COLD = r"""
import sys, time
t = time.perf_counter()
sys.path.insert(0, %r)
import sim.jit.cache
import mujoco
from sim import api
m = mujoco.MjModel.from_xml_path(%r)
m.opt.disableflags |= %d
d = api.Data(m)
api.step(m, d)
print(time.perf_counter() - t)
"""


def start_time(cache_dir, disable=DISABLE):
    env = dict(os.environ, NUMJOCO_CACHE_DIR=cache_dir)
    code = COLD % (ROOT, os.path.join(ASSETS, "hopper.xml"), disable)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main():
    quick = "--quick" in sys.argv
    print("| model | ours µs/step (min/med/max) | MuJoCo C µs/step (min/med/max) | ratio med | ours 1 step/call µs |")
    print("|---|---|---|---|---|")
    for name in ("hopper", "half_cheetah", "ant", "humanoid"):
        o, r, pc = single(name, nstep=200 if quick else 1000)
        print(
            f"| {name} | {o.min():.2f}/{np.median(o):.2f}/{o.max():.2f} | "
            f"{r.min():.2f}/{np.median(r):.2f}/{r.max():.2f} | {np.median(o) / np.median(r):.2f} | {pc:.2f} |"
        )
    print()
    print("| 256 hoppers | ours steps/s | mujoco.rollout steps/s | ratio |")
    print("|---|---|---|---|")
    for nthread, ours, ref in batched(nstep=50 if quick else 100):
        print(f"| {nthread} thread(s) | {ours:,.0f} | {ref:,.0f} | {ours / ref:.2f} |")
    print()
    with tempfile.TemporaryDirectory() as tmp:
        cold = start_time(tmp)
        warm = start_time(tmp)
    print("| start | seconds (import + model + first step, hopper) |")
    print("|---|---|")
    print(f"| cold (empty cache) | {cold:.1f} |")
    print(f"| warm | {warm:.2f} |")


if __name__ == "__main__":
    main()
