"""Control Suite speed: numjoco's DMC envs against dm_control.suite in one process, alternating rounds.

Run: python benchmarks/bench_dmc.py [--quick] [--vector] [--pixels] [domain-task ...]

Single env (default): env.step/s of gym.make("numjoco/dmc-<domain>-<task>-v0") against dm_control's
`suite.load(domain, task).step`, the same random actions, resets when an episode ends (timed too); the table gives
the medians over the rounds and the ratio ours / dm_control's.
--vector: env-steps/s of the native vector env (gym.make_vec) on cheetah-run with action_repeat 2, 64 and 256
worlds, on 1 and 2 threads, states (and 84x84 pixels with --pixels), against the same number of dm_control envs
stepped in a Python loop (pixels: physics.render(84, 84, camera_id=0) after each step, DrQ-v2's setting).  The
issue's goal: >= 5,000 env-steps/s on 2 threads with 84x84 pixels.
The machine's load average is printed: figures taken on a busy machine are not trustworthy.
"""

import os
import sys
import time

# batches on blocks from the first timed call: the block step compiles before the first step, not in the
# background (sim/api.py NUMJOCO_SIMD)
os.environ.setdefault("NUMJOCO_SIMD", "wait")

os.environ.setdefault("MUJOCO_GL", "egl")

import numba  # noqa: E402
import numpy as np  # noqa: E402
import gymnasium as gym  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import envs  # noqa: E402,F401  (registers numjoco/*)
from envs import dmc  # noqa: E402

DEFAULT = [
    "cartpole-swingup",
    "cheetah-run",
    "walker-walk",
    "hopper-hop",
    "finger-spin",
    "reacher-easy",
    "humanoid-run",
    "quadruped-run",
]


def _single_rate(step, reset, actions):
    t = time.perf_counter()
    for a in actions:
        if step(a):
            reset()
    return len(actions) / (time.perf_counter() - t)


def bench_single(name, rounds, nstep):
    from dm_control import suite

    domain, task = name.split("-", 1)
    ours = gym.make(dmc.env_id(domain, task))
    theirs = suite.load(domain, task, task_kwargs={"random": 0})
    rng = np.random.default_rng(0)
    space = ours.action_space
    actions = [rng.uniform(space.low, space.high) for _ in range(nstep)]
    ours.reset(seed=0)
    theirs.reset()

    def ours_step(a):
        _, _, te, tr, _ = ours.step(a)
        return te or tr

    def theirs_step(a):
        return theirs.step(a).last()

    _single_rate(ours_step, ours.reset, actions[:50])
    _single_rate(theirs_step, theirs.reset, actions[:50])
    r = {"ours": [], "dmc": []}
    for _ in range(rounds):
        r["ours"].append(_single_rate(ours_step, ours.reset, actions))
        r["dmc"].append(_single_rate(theirs_step, theirs.reset, actions))
    return np.median(r["ours"]), np.median(r["dmc"])


def bench_vector(n, threads, obs_type, rounds, nstep):
    """(ours, dm_control loop) env-steps/s of cheetah-run, action_repeat 2."""
    from dm_control import suite

    venv = gym.make_vec(
        "numjoco/dmc-cheetah-run-v0", num_envs=n, action_repeat=2, obs_type=obs_type, num_threads=threads
    )
    venv.reset(seed=0)
    rng = np.random.default_rng(0)
    acts = rng.uniform(-1, 1, (nstep, n, 6))
    venv.step(acts[0])
    peers = [suite.load("cheetah", "run", task_kwargs={"random": i}) for i in range(min(n, 16))]
    for p in peers:
        p.reset()
    pixels = obs_type == "pixels"

    def ours():
        t = time.perf_counter()
        for a in acts:
            venv.step(a)
        return n * len(acts) / (time.perf_counter() - t)

    def theirs():  # 16 envs stand for n (the loop's cost per env does not depend on n)
        t = time.perf_counter()
        k = max(1, len(acts) // 4)
        for a in acts[:k]:
            for i, p in enumerate(peers):
                for _ in range(2):
                    if p.step(a[i]).last():
                        p.reset()
                if pixels:
                    p.physics.render(84, 84, camera_id=0)
        return len(peers) * k / (time.perf_counter() - t)

    r = {"ours": [], "dmc": []}
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(threads)
        for _ in range(rounds):
            r["ours"].append(ours())
            r["dmc"].append(theirs())
    finally:
        numba.set_num_threads(old)
    venv.close()
    return np.median(r["ours"]), np.median(r["dmc"])


def main():
    args = sys.argv[1:]
    quick = "--quick" in args
    rounds, nstep = (3, 300) if quick else (7, 1000)
    print(f"load average: {os.getloadavg()}")
    if "--vector" in args:
        types = ["states"] + (["pixels"] if "--pixels" in args else [])
        print(
            f"{'cheetah-run, repeat 2':28s} {'worlds':>6s} {'threads':>7s} {'ours /s':>10s} {'dm_control /s':>14s} "
            f"{'ratio':>6s}"
        )
        for obs_type in types:
            for n in (64, 256):
                for th in (1, 2):
                    if th > numba.config.NUMBA_NUM_THREADS:
                        continue
                    o, t = bench_vector(n, th, obs_type, max(2, rounds // 2), 20 if quick else 60)
                    print(f"{obs_type:28s} {n:6d} {th:7d} {o:10.0f} {t:14.0f} {o / t:6.2f}", flush=True)
        print(f"load average: {os.getloadavg()}")
        return
    names = [a for a in args if not a.startswith("--")] or DEFAULT
    print(f"{'task':24s} {'ours steps/s':>12s} {'dm_control':>11s} {'ratio':>6s}")
    for name in names:
        o, t = bench_single(name, rounds, nstep)
        print(f"{name:24s} {o:12.0f} {t:11.0f} {o / t:6.2f}", flush=True)
    print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    main()
