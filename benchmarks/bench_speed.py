"""Issue 11's benchmark: what a user sees, side by side with MuJoCo in one process, as one markdown report.

    python benchmarks/bench_speed.py [--quick] [--no-cold] [--batch-only] [--cold-only]

1. start-up: import + load + first step in a fresh process, cold (empty numba cache) and warm, hopper and humanoid
   (wall and CPU seconds: CPU is the figure that holds on a loaded machine), and where the cold compile goes
   (exclusive compile time per module, LLVM's share); then hopper's first batched step (256 worlds): by default
   (world by world while a worker compiles the block step; stepped on until the batch runs on blocks, when that
   is), with the block step compiled first (NUMJOCO_SIMD=wait) and world by world (NUMJOCO_SIMD=0); the worker
   CPU column counts every worker the process waited for (parts, and the block step's in the default row);
2. per-call overhead: one sim.step per Python call minus the per-step time at nstep=100, single and batched Data;
3. single world, one step per call (as envs and scripts call it) and nstep-batched, vs mujoco.mj_step, interleaved
   from one restart state (minimum of blocks), the five Gymnasium models and humanoids3 (benchmarks/models.py);
4. 256 batched worlds (hopper, ant, humanoid) vs mujoco.rollout, 1 and 2 threads (--batch-only: this part alone).
Models are numjoco's own (sim.load_model) of Gymnasium's files; MuJoCo loads the same files.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

# batches on blocks from the first timed call: the block step compiles before the first step, not in the
# background (sim/api.py NUMJOCO_SIMD)
os.environ.setdefault("NUMJOCO_SIMD", "wait")

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import mujoco  # noqa: E402
import numba  # noqa: E402
import gymnasium  # noqa: E402

import sim  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
from models import model_path  # noqa: E402
from timing import rollout_inputs  # noqa: E402

ASSETS = os.path.join(os.path.dirname(gymnasium.__file__), "envs/mujoco/assets")
MODELS = ("hopper", "half_cheetah", "walker2d", "ant", "humanoid")

COLD = r"""
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
sys.path.insert(0, %(root)r)
from numba.core import event
stack, excl, kern, ncomp = [], {}, {}, [0]
class L(event.Listener):
    def on_start(self, ev):
        ncomp[0] += 1
        stack.append([time.process_time(), 0.0])
    def on_end(self, ev):
        t, child = stack.pop()
        tot = time.process_time() - t
        f = ev.data['dispatcher'].py_func
        mod = str(f.__module__)
        excl[mod] = excl.get(mod, 0.0) + tot - child
        k = mod + '.' + f.__qualname__
        kern[k] = kern.get(k, 0.0) + tot - child
        if stack:
            stack[-1][1] += tot
event.register('numba:compile', L())
from numba.core import codegen
llvm = [0.0]
spec = codegen.JITCodeLibrary._finalize_specific
def timed2(self):
    t = time.process_time(); spec(self); llvm[0] += time.process_time() - t
codegen.JITCodeLibrary._finalize_specific = timed2
phase = [time.process_time()]
def lap():
    t = time.process_time(); dt = t - phase[0]; phase[0] = t; return dt
import sim
import sim.jit  # noqa: F401  (replaces numba's final O3: sim.jit's is the one to time; sim imports it lazily)
fin = codegen.JITCodeLibrary._optimize_final_module
def timed(self):
    t = time.process_time(); fin(self); llvm[0] += time.process_time() - t
codegen.JITCodeLibrary._optimize_final_module = timed
imp = lap()
m = sim.load_model(%(path)r)
load = lap()
d = sim.Data(m, nworld=%(nworld)d)
data = lap()
sim.step(m, d)
step = lap()
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
ready = None
if %(nworld)d > 1 and %(simd)r == "1":  # the block step compiled in the background: step until it is in use
    from sim import api
    while m._sim.features not in api._BLOCKS.cfuncs:
        sim.step(m, d, 10)
    ready = time.perf_counter() - t0
import resource
ch = resource.getrusage(resource.RUSAGE_CHILDREN)
from sim import jit
print(json.dumps(dict(wall=wall, cpu=cpu, worker_cpu=ch.ru_utime + ch.ru_stime,
                      workers=jit.PART_STATS['workers'], wait=jit.PART_STATS['wait'], excl=excl, kernels=kern,
                      llvm=llvm[0], phases=dict(imp=imp, load=load, data=data, step=step), ready=ready, ncompile=ncomp[0])))
"""


def start(path, cache, nworld=1, simd="1"):
    env = dict(os.environ, NUMJOCO_CACHE_DIR=cache, NUMJOCO_QUIET="1", NUMJOCO_SIMD=simd)
    out = subprocess.run(
        [sys.executable, "-c", COLD % dict(root=ROOT, path=path, nworld=nworld, simd=simd)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def per_step(m, d, nstep, calls):
    t = time.perf_counter()
    for _ in range(calls):
        sim.step(m, d, nstep)
    return (time.perf_counter() - t) / (calls * nstep) * 1e6


def single_world(name, rounds, warm=200, seed=0):
    """(us per step one sim.step per call, us per step at nstep=k, us per mj_step) on one model: both engines
    restart every block from the same MuJoCo state (after `warm` steps with random controls), blocks of ours
    and MuJoCo's alternate, each figure is the minimum over `rounds` blocks of ~3 ms."""
    path = model_path(name)
    mm = mujoco.MjModel.from_xml_path(path)
    md = mujoco.MjData(mm)
    m = sim.load_model(path)
    d = sim.Data(m)
    rng = np.random.default_rng(seed)
    md.ctrl[:] = rng.uniform(-0.5, 0.5, mm.nu)
    for _ in range(warm):
        mujoco.mj_step(mm, md)
    spec = mujoco.mjtState.mjSTATE_INTEGRATION
    state = np.zeros(mujoco.mj_stateSize(mm, spec))
    mujoco.mj_getState(mm, md, state, spec)

    def restart():
        mujoco.mj_setState(mm, md, state, spec)
        d.qpos[:] = md.qpos
        d.qvel[:] = md.qvel
        d.act[:] = md.act
        d.ctrl[:] = md.ctrl
        d.qacc_warmstart[:] = md.qacc_warmstart

    restart()
    sim.step(m, d)
    t = time.perf_counter()
    for _ in range(20):
        mujoco.mj_step(mm, md)
    k = max(10, int(0.003 / ((time.perf_counter() - t) / 20)))
    one = hundred = ref = float("inf")
    for _ in range(rounds):
        restart()
        t = time.perf_counter()
        for _ in range(k):
            sim.step(m, d)
        one = min(one, (time.perf_counter() - t) / k)
        restart()
        t = time.perf_counter()
        for _ in range(k):
            mujoco.mj_step(mm, md)
        ref = min(ref, (time.perf_counter() - t) / k)
        restart()
        t = time.perf_counter()
        sim.step(m, d, k)
        hundred = min(hundred, (time.perf_counter() - t) / k)
    return one * 1e6, hundred * 1e6, ref * 1e6


def batch_table(names, reps, quick):
    """256 worlds of each model in one batched sim.step call against mujoco.rollout, 1 and 2 threads,
    interleaved rounds, best of each."""
    from mujoco import rollout

    nworld = 256
    print(f"\n| {nworld} worlds, contacts on | threads | numjoco steps/s | mujoco.rollout steps/s | ratio |")
    print("|---|---|---|---|---|")
    for name in names:
        path = os.path.join(ASSETS, name + ".xml")
        m = sim.load_model(path)
        mm = mujoco.MjModel.from_xml_path(path)
        # about 0.2 s of simulated time per call, 100 steps at most (hopper: 100 steps of 2 ms x 4)
        nstep = max(10, min(100, int(0.2 / mm.opt.timestep))) // (5 if quick else 1)
        for nthread in (1, 2):
            numba.set_num_threads(nthread)
            bd = sim.Data(m, nworld=nworld)
            sim.step(m, bd)

            def ours():
                sim.reset(m, bd)
                t = time.perf_counter()
                sim.step(m, bd, nstep)
                return time.perf_counter() - t

            datas, state0, ctrl = rollout_inputs(mm, nworld, nstep, nthread)
            with rollout.Rollout(nthread=nthread) as r:
                r.rollout([mm] * nworld, datas, state0, ctrl)

                def theirs():
                    t = time.perf_counter()
                    r.rollout([mm] * nworld, datas, state0, ctrl)
                    return time.perf_counter() - t

                # interleaved, best of each: this machine's speed drifts by 10-30 % within minutes, and a drift
                # between two back-to-back series showed up as a ratio (1.21 one run, 1.47 the next)
                to = tc = float("inf")
                for _ in range(2 * reps):
                    to = min(to, ours())
                    tc = min(tc, theirs())
                o, c = nworld * nstep / to, nworld * nstep / tc
            print(f"| {name} | {nthread} | {o:,.0f} | {c:,.0f} | {o / c:.2f} |", flush=True)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


def main():
    quick = "--quick" in sys.argv
    reps = 3 if quick else 7
    if "--batch-only" in sys.argv:
        batch_table(("hopper", "ant", "humanoid"), reps, quick)
        return
    print(
        "numjoco speed report (%s, %d cores, load %.1f)"
        % (time.strftime("%Y-%m-%d"), os.cpu_count(), os.getloadavg()[0])
    )
    if "--no-cold" not in sys.argv:
        print(
            "\n| start-up (import + load + first step) | cold wall s | cold CPU s | worker CPU s | warm wall s "
            "| on blocks after, wall s |"
        )
        print("|---|---|---|---|---|---|")
        profiles = {}
        runs = [(name, name, 1, "1") for name in ("hopper", "humanoid")]
        runs += [
            ("hopper", "hopper, 256 worlds (default: block step compiled in the background)", 256, "1"),
            ("hopper", "hopper, 256 worlds, NUMJOCO_SIMD=wait", 256, "wait"),
            ("hopper", "hopper, 256 worlds, NUMJOCO_SIMD=0", 256, "0"),
        ]
        for name, label, nworld, simd in runs:
            with tempfile.TemporaryDirectory() as tmp:
                cold = start(os.path.join(ASSETS, name + ".xml"), tmp, nworld, simd)
                warm = start(os.path.join(ASSETS, name + ".xml"), tmp, nworld, simd)
            profiles[label] = cold
            ready = (
                "-"
                if nworld == 1 or simd == "0"
                else f"{cold['wall']:.1f}"
                if simd == "wait"
                else f"{cold['ready']:.1f} (stepping meanwhile)"
            )
            print(
                f"| {label} | {cold['wall']:.1f} | {cold['cpu']:.1f} | {cold['worker_cpu']:.1f} | {warm['wall']:.2f} | {ready} |",
                flush=True,
            )
        for name, cold in profiles.items():
            top = sorted(cold["excl"].items(), key=lambda kv: -kv[1])[:8]
            print(
                f"\ncold compile, {name}: {cold['ncompile']} kernel compiles, {sum(cold['excl'].values()):.1f} s CPU "
                "in numba compiles in the process "
                f"(the parts compiled by {cold['workers']} worker(s) apart; {cold['wait']:.1f} s waited for them), "
                f"of which {cold['llvm']:.1f} s LLVM optimisation + code generation; by module (exclusive CPU s): "
                + ", ".join(f"{k} {v:.1f}" for k, v in top)
            )
        if "--cold-only" in sys.argv:
            return

    print(
        "\n| model | sim.step 1/call µs | per step, nstep-batched µs | overhead µs | mj_step µs | ratio 1/call | "
        "ratio batched |"
    )
    print("|---|---|---|---|---|---|---|")
    for name in MODELS + ("humanoids3",):
        one, hundred, c = single_world(name, rounds=10 if quick else 30)
        print(
            f"| {name} | {one:.1f} | {hundred:.1f} | {one - hundred:.1f} | {c:.1f} | {one / c:.2f} | "
            f"{hundred / c:.2f} |"
        )
    print(
        "(nstep-batched: one sim.step(m, d, k) per block of k ~ 3 ms of steps; humanoids3: three Gymnasium "
        "humanoids piled up, nv 69, MuJoCo defaults (benchmarks/models.py); load now %.1f)" % os.getloadavg()[0]
    )
    m = sim.load_model(os.path.join(ASSETS, "half_cheetah.xml"))
    for nworld in (1, 2):  # one world runs the serial entry, two the parallel one (per world figures)
        b = sim.Data(m, nworld=nworld)
        sim.step(m, b)
        one = hundred = float("inf")
        for _ in range(2 * reps):  # interleaved (see the batch table below)
            one = min(one, per_step(m, b, 1, 2000) / nworld)
            hundred = min(hundred, per_step(m, b, 100, 20) / nworld)
        print(
            f"\nper-call overhead, batched Data (half_cheetah, nworld={nworld}): {(one - hundred) * nworld:.1f} µs "
            f"per call ({one:.1f} µs per world-step at nstep=1, {hundred:.1f} at nstep=100)"
        )

    batch_table(("hopper", "ant", "humanoid"), reps, quick)


if __name__ == "__main__":
    main()
