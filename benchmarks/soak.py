"""Soak test (issue 16): long runs of every task with random actions and periodic resets.

Run: python benchmarks/soak.py [--steps N] [--reset-every K] [--seed S] [Task ...]

Per task: one env from gym.make (the wrappers a user gets), N env steps (default 1e6) of uniform random float32
actions in the action space, a reset at every episode end and a forced reset with a fresh seed every K steps
(default 5000); every observation and reward is checked for NaN / inf.  Resident memory (RSS) is read after a
warm-up of 2 % of the steps (compiled kernels loaded, buffers allocated) and then every 10 %: the growth from
the warm-up reading to the last one must stay below 1 %.  Every Python warning is recorded; episodes truncated
by a divergence (info["diverged"]) are counted.  Prints a Markdown table (and the load average: figures taken
on a busy machine say so) and exits non-zero when a check fails.
"""

import argparse
import collections
import os
import sys
import time
import warnings

import numpy as np
import gymnasium as gym

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import envs  # noqa: E402  (registers numjoco/*)

MAX_RSS_GROWTH = 0.01


def rss_bytes():
    """Resident set size of this process (Linux /proc; 0 when unavailable)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


def _finite(obs):
    if isinstance(obs, dict):
        return all(np.all(np.isfinite(v)) for v in obs.values())
    return bool(np.all(np.isfinite(obs)))


def soak(task, nstep, reset_every, seed, chunk=4096):
    env = gym.make(f"numjoco/{task}")
    rng = np.random.default_rng(seed)
    space = env.action_space
    low, high = space.low.astype(np.float64), space.high.astype(np.float64)
    out = collections.Counter(nonfinite=0, diverged=0, episodes=0, forced_resets=0)
    warned = collections.Counter()
    rss = []
    warm = max(1, nstep // 50)
    marks = set(warm + k * max(1, (nstep - warm) // 10) for k in range(11))
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        obs, _ = env.reset(seed=seed)
        done = 0
        while done < nstep:
            acts = rng.uniform(low, high, (min(chunk, nstep - done),) + low.shape).astype(np.float32)
            for a in acts:
                obs, r, term, trunc, info = env.step(a)
                done += 1
                if not (_finite(obs) and np.isfinite(r)):
                    out["nonfinite"] += 1
                if info.get("diverged"):
                    out["diverged"] += 1
                if term or trunc:
                    out["episodes"] += 1
                    obs, _ = env.reset()
                elif done % reset_every == 0:
                    out["forced_resets"] += 1
                    obs, _ = env.reset(seed=int(rng.integers(2**63)))
                if not _finite(obs):
                    out["nonfinite"] += 1
                if done in marks:
                    rss.append(rss_bytes())
            for w in rec:
                warned[f"{w.category.__name__}: {str(w.message)[:80]}"] += 1
            rec.clear()
    env.close()
    dt = time.perf_counter() - t0
    growth = (rss[-1] - rss[0]) / rss[0] if len(rss) > 1 and rss[0] else float("nan")
    return dict(
        task=task,
        steps=done,
        seconds=dt,
        rate=done / dt,
        rss0=rss[0] if rss else 0,
        rss1=rss[-1] if rss else 0,
        rss_max=max(rss) if rss else 0,
        growth=growth,
        warnings=warned,
        **out,
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tasks", nargs="*", help="task names without the numjoco/ prefix (default: all)")
    ap.add_argument("--steps", type=float, default=1e6)
    ap.add_argument("--reset-every", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    tasks = args.tasks or list(envs.TASKS)
    load0 = os.getloadavg()
    print(
        f"soak: {int(args.steps)} steps per task, forced reset every {args.reset_every}, load average "
        f"{load0[0]:.2f} at start",
        flush=True,
    )
    rows, ok = [], True
    for t in tasks:
        r = soak(t if t.endswith("-v0") else t + "-v0", int(args.steps), args.reset_every, args.seed)
        rows.append(r)
        bad = (
            r["nonfinite"]
            or not r["growth"] < MAX_RSS_GROWTH
            or sum(n for k, n in r["warnings"].items() if "diverged" not in k)
        )
        ok = ok and not bad
        print(
            f"  {r['task']}: {r['steps']} steps in {r['seconds']:.0f} s, RSS {r['rss0'] / 2**20:.1f} -> "
            f"{r['rss1'] / 2**20:.1f} MiB ({100 * r['growth']:+.2f} %), non-finite {r['nonfinite']}, "
            f"diverged {r['diverged']}, warnings {dict(r['warnings'])}{'  <-- FAIL' if bad else ''}",
            flush=True,
        )
    load1 = os.getloadavg()
    print()
    print(
        "| task | env steps | episodes | forced resets | steps/s | non-finite | diverged | RSS start -> end (MiB) "
        "| RSS growth | warnings |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        w = sum(r["warnings"].values())
        print(
            f"| {r['task']} | {r['steps']:,} | {r['episodes']:,} | {r['forced_resets']:,} | {r['rate']:,.0f} | "
            f"{r['nonfinite']} | {r['diverged']} | {r['rss0'] / 2**20:.1f} -> {r['rss1'] / 2**20:.1f} | "
            f"{100 * r['growth']:+.2f} % | {w} |"
        )
    print(
        f"\nload average {load0[0]:.2f} at start, {load1[0]:.2f} at end; "
        f"{'all checks passed' if ok else 'SOME CHECKS FAILED'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
