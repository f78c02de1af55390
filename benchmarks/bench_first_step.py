"""The first step a stranger meets: build the wheel, install it with its dependencies into clean virtual
environments, and time the first step of every family in a new process, with the shipped kernels and cold.

    python benchmarks/bench_first_step.py                      # build both wheels, time every case, compare speed
    python benchmarks/bench_first_step.py --cases hopper,dmc --rounds 3
    python benchmarks/bench_first_step.py --work /tmp/fs       # keep (and reuse) the wheels and venvs there

Two wheels from `python -m build --wheel`: one plain, one with `-C ship-kernels=true` (its kernels compiled for
x86-64-v3, limited to the cases' ids with -C ship-targets), each installed with `pip install "<wheel>[robotics]"`
into its own venv (no system site-packages).  Each case runs in a fresh process from another folder with an empty
kernel cache of its own (NUMJOCO_CACHE_DIR), so only what the wheel ships is there:

    hopper   gym.make("numjoco/Hopper-v0"), reset, step
    dmc      numjoco/dmc-walker-walk-v0
    fetch    numjoco/FetchPush-v0 (the Fetch and Shadow Hand tasks share one feature set)
    hand     numjoco/HandManipulateBlockRotateZ-v0
    arm      numjoco/ArmReach-v0
    vector   gym.make_vec("numjoco/Hopper-v0", num_envs=16), reset, step
    render   Hopper with render_mode="rgb_array": reset, step, env.render()

Times: wall seconds from the process's start (interpreter start-up included) to the end of the first step, and the
CPU seconds of the process and its children (the part worker of a cold compile) by then; cold runs print numba's
compile progress (not timed separately).  Then the shipped code's speed against host-tuned code: sim.step of hopper,
one world (steps/s) and 256 worlds in one call, in alternating processes of the shipped wheel's venv (its shipped
kernels; NUMJOCO_SHIPPED_KERNELS=0 with a cache of kernels compiled for this host: --host-cache, else the cold runs'
cache), median over --rounds.
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests"))

CASES = {
    "hopper": ("numjoco/Hopper-v0", "env"),
    "dmc": ("numjoco/dmc-walker-walk-v0", "env"),
    "fetch": ("numjoco/FetchPush-v0", "env"),
    "hand": ("numjoco/HandManipulateBlockRotateZ-v0", "env"),
    "arm": ("numjoco/ArmReach-v0", "env"),
    "vector": ("numjoco/Hopper-v0", "vector"),
    "render": ("numjoco/Hopper-v0", "render"),
}

FIRST_STEP = """
import os, resource, sys, time
t_start = float(os.environ["BENCH_T0"])
t = [time.time()]
import gymnasium as gym, envs
t.append(time.time())
env_id, kind = sys.argv[1], sys.argv[2]
if kind == "vector":
    env = gym.make_vec(env_id, num_envs=16)
else:
    env = gym.make(env_id, render_mode="rgb_array" if kind == "render" else None)
t.append(time.time())
env.reset(seed=0)
env.step(env.action_space.sample())
if kind == "render":
    env.render()
t_end = time.time()
t.append(t_end)
ru, rc = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
from sim.jit import cache
phases = "start %.2f import %.2f make %.2f reset+step %.2f" % (t[0] - t_start, t[1] - t[0], t[2] - t[1], t[3] - t[2])
why = (cache.SHIPPED_WHY or "").replace(" ", "_")
print("RESULT", t_end - t_start, ru.ru_utime + ru.ru_stime + rc.ru_utime + rc.ru_stime, why, phases)
sys.stdout.flush()
os._exit(0)
"""

SPEED = """
import sys, time
import numpy as np
import sim, envs
from sim.jit import cache
m = sim.load_model(envs.asset_path("hopper.xml"))
d = sim.Data(m)
sim.step(m, d, nstep=10)
b = sim.Data(m, nworld=256)
sim.step(m, b)
best1 = bestb = 0.0
for _ in range(5):
    t = time.perf_counter(); sim.step(m, d, nstep=2000); best1 = max(best1, 2000 / (time.perf_counter() - t))
    t = time.perf_counter(); sim.step(m, b, nstep=20); bestb = max(bestb, 256 * 20 / (time.perf_counter() - t))
print("RESULT", best1, bestb, cache.SHIPPED_WHY)
"""


def clean_env(**extra):
    from test_wheel import clean_env as _clean

    return _clean(**extra)


def run(cmd, cwd, env=None, timeout=7200):
    out = subprocess.run([str(c) for c in cmd], cwd=str(cwd), env=env or clean_env(), capture_output=True, text=True,
                         timeout=timeout, stdin=subprocess.DEVNULL)  # fmt: skip
    if out.returncode != 0:
        raise SystemExit(
            f"{' '.join(map(str, cmd))} exited {out.returncode}:\n{out.stdout[-4000:]}\n{out.stderr[-4000:]}"
        )
    return out


def build(work, ship, targets, jobs):
    """The wheel (plain or with shipped kernels) built from a copy of the sources under work/; reused if there."""
    from test_wheel import copy_sources

    kind = "shipped" if ship else "plain"
    dist = os.path.join(work, "dist-" + kind)
    found = glob.glob(os.path.join(dist, "numjoco-*.whl"))
    if found:
        return found[0], 0.0
    src = os.path.join(work, "src-" + kind)
    shutil.rmtree(src, ignore_errors=True)
    os.makedirs(src)
    import pathlib

    copy_sources(pathlib.Path(src))
    cmd = [sys.executable, "-m", "build", "--wheel", "--outdir", dist, src]
    if ship:
        cmd += ["-C", "ship-kernels=true", "-C", "ship-targets=" + ",".join(targets), "-C", f"ship-jobs={jobs}"]
    t = time.perf_counter()
    print(f"building the {kind} wheel ...", flush=True)
    run(cmd, src)
    (whl,) = glob.glob(os.path.join(dist, "numjoco-*.whl"))
    return whl, time.perf_counter() - t


def venv(work, name, wheel):
    """A clean venv with `wheel[robotics]` installed; reused if there."""
    root = os.path.join(work, "venv-" + name)
    python = os.path.join(root, "bin", "python")
    if not os.path.exists(python):
        run([sys.executable, "-m", "venv", root], work)
        t = time.perf_counter()
        run([python, "-m", "pip", "install", "-q", wheel + "[robotics]"], work)
        print(f"venv {name}: installed in {time.perf_counter() - t:.0f} s", flush=True)
    return python


def first_step(python, case, cache_dir, elsewhere, **env):
    env_id, kind = CASES[case]
    e = clean_env(NUMJOCO_CACHE_DIR=cache_dir, BENCH_T0=repr(time.time()), **env)
    out = run([python, "-c", FIRST_STEP, env_id, kind], elsewhere, env=e)
    line = [x for x in out.stdout.splitlines() if x.startswith("RESULT")][-1].split(None, 4)
    return float(line[1]), float(line[2]), line[3].replace("_", " "), line[4]


def speed(python, cache_dir, elsewhere, **env):
    out = run([python, "-c", SPEED], elsewhere, env=clean_env(NUMJOCO_CACHE_DIR=cache_dir, NUMJOCO_QUIET="1", **env))
    line = [x for x in out.stdout.splitlines() if x.startswith("RESULT")][-1].split(None, 3)
    return float(line[1]), float(line[2]), line[3]


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else 0.5 * (xs[len(xs) // 2 - 1] + xs[len(xs) // 2])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated: " + ", ".join(CASES))
    ap.add_argument("--rounds", type=int, default=3, help="shipped-kernel first steps per case, and speed rounds")
    ap.add_argument("--work", help="folder for the wheels and venvs (kept, reused); default a temporary one")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="targets compiled at once for the wheel")
    ap.add_argument("--no-cold", action="store_true", help="skip the cold first steps (the plain wheel)")
    ap.add_argument("--no-shipped", action="store_true", help="skip the shipped-kernel first steps (wheel reused)")
    ap.add_argument("--host-cache", help="a kernel cache holding this host's kernels for hopper (speed comparison)")
    args = ap.parse_args()
    cases = [c for c in args.cases.split(",") if c]
    work = args.work or tempfile.mkdtemp(prefix="numjoco-first-step-")
    os.makedirs(work, exist_ok=True)
    elsewhere = os.path.join(work, "elsewhere")
    os.makedirs(elsewhere, exist_ok=True)
    targets = sorted({CASES[c][0] for c in cases})
    shipped_whl, t_ship = build(work, True, targets, args.jobs)
    print(f"shipped wheel: {os.path.basename(shipped_whl)}, {os.path.getsize(shipped_whl) / 1e6:.1f} MB"
          + (f", built in {t_ship:.0f} s" if t_ship else " (reused)"), flush=True)  # fmt: skip
    py_ship = venv(work, "shipped", shipped_whl)
    rows = {case: {} for case in cases}
    for case in [] if args.no_shipped else cases:
        walls, cpus = [], []
        for _ in range(args.rounds):
            cache_dir = tempfile.mkdtemp(prefix="cache-", dir=work)
            w, c, why, phases = first_step(py_ship, case, cache_dir, elsewhere, NUMJOCO_QUIET="1")
            shutil.rmtree(cache_dir, ignore_errors=True)
            walls.append(w)
            cpus.append(c)
        rows[case] = {"shipped_wall": walls, "shipped_cpu": cpus, "shipped": why, "phases": phases}
        print(f"  {case:7s} shipped kernels ({why}): wall {min(walls):.2f}-{max(walls):.2f} s, "
              f"CPU {min(cpus):.2f}-{max(cpus):.2f} s; last: {phases}", flush=True)  # fmt: skip
    if not args.no_cold:
        plain_whl, _ = build(work, False, targets, args.jobs)
        py_plain = venv(work, "plain", plain_whl)
        cache_dir = tempfile.mkdtemp(prefix="cache-cold-", dir=work)  # one cache, the cases in order, as a user
        for case in cases:
            w, c, _, _ = first_step(py_plain, case, cache_dir, elsewhere)
            rows[case].update(cold_wall=w, cold_cpu=c)
            print(f"  {case:7s} cold (after the cases above): wall {w:.1f} s, CPU {c:.1f} s", flush=True)
    # the shipped code against code compiled for this host: the same installed sources, NUMJOCO_SHIPPED_KERNELS=0
    # and a cache of host kernels (--host-cache, else the cold runs' cache, else compiled on the first round)
    host_cache = args.host_cache or (None if args.no_cold else cache_dir) or tempfile.mkdtemp(dir=work)
    ship_cache = tempfile.mkdtemp(prefix="cache-speed-", dir=work)
    one, batch = {"shipped": [], "host": []}, {"shipped": [], "host": []}
    for _ in range(args.rounds):
        for who, cdir, env in (("shipped", ship_cache, {}), ("host", host_cache, {"NUMJOCO_SHIPPED_KERNELS": "0"})):
            s1, sb, why = speed(py_ship, cdir, elsewhere, **env)
            one[who].append(s1)
            batch[who].append(sb)
    r1 = median(one["shipped"]) / median(one["host"])
    rb = median(batch["shipped"]) / median(batch["host"])
    rows["speed"] = {"one": one, "batch": batch, "ratio_one": r1, "ratio_batch": rb}
    print(f"  speed, hopper sim.step: one world {median(one['shipped']):,.0f} / {median(one['host']):,.0f} "
          f"steps/s = {r1:.3f}; 256 worlds {median(batch['shipped']):,.0f} / {median(batch['host']):,.0f} "
          f"= {rb:.3f} (shipped x86-64-v3 / host-tuned)", flush=True)  # fmt: skip
    with open(os.path.join(work, "results.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print("load average:", os.getloadavg(), "results:", os.path.join(work, "results.json"))


if __name__ == "__main__":
    main()
