"""Single-env env.step/s of numjoco's tasks against Gymnasium's v5 envs on MuJoCo, in one process, alternating.

Run: python benchmarks/bench_envs.py [--quick] [--raw] [Task ...]
Both envs come from gym.make (the wrappers a user gets: PassiveEnvChecker, OrderEnforcing, TimeLimit; --raw
times the unwrapped envs), are seeded alike and step the same pre-drawn float32 random actions, resetting when an
episode ends (resets are timed too).  Rounds alternate ours / Gymnasium's; the table gives the median steps/s
over the rounds, the ratio ours / Gymnasium's, and the machine's load average (figures taken on a busy machine
are not trustworthy).  ArmReach has no Gymnasium counterpart: its own rate only.
"""

import os
import sys
import time

import numpy as np
import gymnasium as gym

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import envs  # noqa: E402,F401  (registers numjoco/*)

TASKS = [
    "Hopper",
    "Walker2d",
    "HalfCheetah",
    "Ant",
    "Humanoid",
    "HumanoidStandup",
    "Reacher",
    "Pusher",
    "Swimmer",
    "InvertedPendulum",
    "InvertedDoublePendulum",
]


def make(env_id, raw):
    env = gym.make(env_id)
    return env.unwrapped if raw else env


def rate(env, actions, state):
    """Steps/s over the actions (resets when an episode ends)."""
    step, reset = env.step, env.reset
    t = time.perf_counter()
    for a in actions:
        _, _, term, trunc, _ = step(a)
        if term or trunc:
            reset()
    state["steps"] += len(actions)
    return len(actions) / (time.perf_counter() - t)


def bench(task, rounds, nstep, raw):
    ours = make(f"numjoco/{task}-v0", raw)
    theirs = make(f"{task}-v5", raw) if task in TASKS else None
    rng = np.random.default_rng(0)
    space = ours.action_space
    actions = [rng.uniform(space.low, space.high).astype(np.float32) for _ in range(nstep)]
    out = {"ours": [], "gym": []}
    for env in (ours, theirs):
        if env is not None:
            env.reset(seed=0)
            rate(env, actions[:50], {"steps": 0})  # warm-up (first call loads the compiled entry)
    st = {"steps": 0}
    for _ in range(rounds):
        out["ours"].append(rate(ours, actions, st))
        if theirs is not None:
            out["gym"].append(rate(theirs, actions, st))
    return np.median(out["ours"]), (np.median(out["gym"]) if out["gym"] else None)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quick, raw = "--quick" in sys.argv, "--raw" in sys.argv
    tasks = args or TASKS + ["ArmReach"]
    rounds, nstep = (3, 300) if quick else (7, 1000)
    load0 = os.getloadavg()
    print("| task | numjoco env.step/s | Gymnasium v5 (MuJoCo) env.step/s | ratio |")
    print("|---|---|---|---|")
    for task in tasks:
        o, g = bench(task, rounds, nstep, raw)
        print(
            f"| {task} | {o:,.0f} | "
            + ("-" if g is None else f"{g:,.0f}")
            + " | "
            + ("-" if g is None else f"{o / g:.2f}")
            + " |",
            flush=True,
        )
    load1 = os.getloadavg()
    print(
        f"\n{'unwrapped envs' if raw else 'gym.make envs (default wrappers)'}; {rounds} alternating rounds of "
        f"{nstep} steps, median; load average before {load0[0]:.2f}, after {load1[0]:.2f} "
        f"({os.cpu_count()} cores)"
    )


if __name__ == "__main__":
    main()
