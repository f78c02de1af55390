"""Single-env env.step/s of numjoco's tasks against Gymnasium's v5 envs on MuJoCo, in one process, alternating.

Run: python benchmarks/bench_envs.py [--quick] [--raw] [Task ...]
     python benchmarks/bench_envs.py --pixels [--quick] [--num-envs N] [Task ...]
Both envs come from gym.make (the wrappers a user gets: PassiveEnvChecker, OrderEnforcing, TimeLimit; --raw
times the unwrapped envs), are seeded alike and step the same pre-drawn float32 random actions, resetting when an
episode ends (resets are timed too).  Rounds alternate ours / Gymnasium's; the table gives the median steps/s
over the rounds, the ratio ours / Gymnasium's, and the machine's load average (figures taken on a busy machine
are not trustworthy).  ArmReach has no Gymnasium counterpart: its own rate only.

--pixels: env-steps/s of numjoco's native vector env of N worlds (default 64; every world's step counts) with
state observations and with 84x84 pixel observations (one compiled physics call and one batched render per step),
against Gymnasium's SyncVectorEnv of N v5 envs wrapped in AddRenderObservation (MuJoCo's renderer, MUJOCO_GL=egl
by default); tasks: Gymnasium task names or registered numjoco ids (FetchReach-v0, ...: numjoco only).
"""

import os
import sys
import time

# batches on blocks from the first timed call: the block step compiles before the first step, not in the
# background (sim/api.py NUMJOCO_SIMD)
os.environ.setdefault("NUMJOCO_SIMD", "wait")

import numpy as np
import gymnasium as gym

os.environ.setdefault("MUJOCO_GL", "egl")
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


def vector_rate(venv, actions):
    t = time.perf_counter()
    for a in actions:
        venv.step(a)
    return len(actions) * actions[0].shape[0] / (time.perf_counter() - t)


def bench_pixels(task, rounds, nstep, n):
    """(numjoco states, numjoco pixels, Gymnasium pixels or None) env-steps/s of n worlds."""
    env_id = "numjoco/" + (task if "-v" in task else task + "-v0")
    ours = {t: gym.make_vec(env_id, num_envs=n, obs_type=t) for t in ("states", "pixels")}
    runs = dict(ours)
    if task in TASKS:
        from gymnasium.wrappers import AddRenderObservation

        def one():
            return AddRenderObservation(gym.make(task + "-v5", render_mode="rgb_array", width=84, height=84))

        runs["theirs"] = gym.vector.SyncVectorEnv([one for _ in range(n)])
    rng = np.random.default_rng(0)
    shape = ours["states"].action_space.shape
    actions = [rng.uniform(-1, 1, shape).astype(np.float32) for _ in range(nstep)]
    out = {k: [] for k in runs}
    for v in runs.values():
        v.reset(seed=0)
        vector_rate(v, actions[:10])  # warm-up (compiled entries loaded, renderers made)
    for _ in range(rounds):
        for k, v in runs.items():
            out[k].append(vector_rate(v, actions if k != "theirs" else actions[: max(10, nstep // 10)]))
    return tuple(float(np.median(out[k])) if k in out else None for k in ("states", "pixels", "theirs"))


def main_pixels(args):
    n = int(sys.argv[sys.argv.index("--num-envs") + 1]) if "--num-envs" in sys.argv else 64
    args = [a for a in args if a != str(n)]
    tasks = args or ["Hopper", "HalfCheetah", "FetchReach-v0", "FetchPush-v0"]
    rounds, nstep = (3, 20) if "--quick" in sys.argv else (5, 100)
    load0 = os.getloadavg()
    print("| task | worlds | numjoco states | numjoco 84x84 pixels | Gymnasium v5 + AddRenderObservation |")
    print("|---|---|---|---|---|")
    for task in tasks:
        s, p, g = bench_pixels(task, rounds, nstep, n)
        print(f"| {task} | {n} | {s:,.0f} | {p:,.0f} | " + ("-" if g is None else f"{g:,.0f}") + " |", flush=True)
    load1 = os.getloadavg()
    print(
        f"\nenv-steps/s (every world's step), {rounds} alternating rounds of {nstep} vector steps (Gymnasium: a tenth),"
        f" median; load average before {load0[0]:.2f}, after {load1[0]:.2f} ({os.cpu_count()} cores)"
    )


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "--pixels" in sys.argv:
        return main_pixels(args)
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
