"""env.step/s of numjoco's Fetch and Shadow Hand tasks against gymnasium_robotics' envs on MuJoCo, one process,
alternating rounds.

Run: python benchmarks/bench_robotics.py [--quick] [--vector N] [Name ...]      (Name: FetchPush, HandReach, ...)
Single envs from gym.make on both sides (the wrappers a user gets; resets when the time limit ends an episode are
timed too), the same pre-drawn float32 random actions; with --vector N also numjoco's native vector env of N
worlds against Gymnasium's SyncVectorEnv of N gymnasium_robotics envs (steps/s counts every world's step).  The
oracle needs tests/robotics_oracle.py's shim on mujoco 3.17.  The table gives the median over the rounds, the
ratio ours / gymnasium_robotics' and the load average (figures from a busy machine are not trustworthy).
"""

import os
import sys
import time

# batches on blocks from the first timed call: the block step compiles before the first step, not in the
# background (sim/api.py NUMJOCO_SIMD)
os.environ.setdefault("NUMJOCO_SIMD", "wait")

import numpy as np
import gymnasium as gym

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))
import envs  # noqa: E402,F401  (registers numjoco/*)
from robotics_oracle import oracle_id, install_shim  # noqa: E402

NAMES = ["FetchReach", "FetchPush", "FetchSlide", "FetchPickAndPlace", "HandReach", "HandManipulateBlock"]


def rate(env, actions, vector):
    step, reset = env.step, env.reset
    t = time.perf_counter()
    for a in actions:
        _, _, term, trunc, _ = step(a)
        if not vector and (term or trunc):
            reset()
    n = len(actions) * (actions[0].shape[0] if vector else 1)
    return n / (time.perf_counter() - t)


def bench(name, rounds, nstep, nvec):
    env_id = f"numjoco/{name}-v0"
    if nvec:
        ours = gym.make_vec(env_id, num_envs=nvec)
        theirs = gym.vector.SyncVectorEnv([lambda: gym.make(oracle_id(env_id)) for _ in range(nvec)])
    else:
        ours, theirs = gym.make(env_id), gym.make(oracle_id(env_id))
    rng = np.random.default_rng(0)
    shape = ours.action_space.shape
    actions = [rng.uniform(-1, 1, shape).astype(np.float32) for _ in range(nstep)]
    for env in (ours, theirs):
        env.reset(seed=0)
        rate(env, actions[:20], nvec)  # warm-up (the first call loads the compiled entry)
    out = {"ours": [], "theirs": []}
    for _ in range(rounds):
        out["ours"].append(rate(ours, actions, nvec))
        out["theirs"].append(rate(theirs, actions, nvec))
    return np.median(out["ours"]), np.median(out["theirs"])


def main():
    args = sys.argv[1:]
    nvec = int(args[args.index("--vector") + 1]) if "--vector" in args else 0
    names = [a for a in args if not a.startswith("--") and not a.isdigit()] or NAMES
    rounds, nstep = (3, 100) if "--quick" in args else (7, 300)
    install_shim()
    load0 = os.getloadavg()
    what = f"vector env of {nvec} (world steps/s)" if nvec else "env.step/s"
    print(f"| task | numjoco {what} | gymnasium_robotics (MuJoCo) | ratio |")
    print("|---|---|---|---|")
    for name in names:
        o, g = bench(name, rounds, nstep, nvec)
        print(f"| {name} | {o:,.0f} | {g:,.0f} | {o / g:.2f} |", flush=True)
    load1 = os.getloadavg()
    print(
        f"\n{rounds} alternating rounds of {nstep} steps, median; load average before {load0[0]:.2f}, after "
        f"{load1[0]:.2f} ({os.cpu_count()} cores)"
    )


if __name__ == "__main__":
    main()
