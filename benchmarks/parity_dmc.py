"""Parity of the Control Suite envs with dm_control.suite, as a table (docs/dmc.md).

Run: python benchmarks/parity_dmc.py [--seeds 0 1] [--steps 100] [domain-task ...]

For each task and seed: reset(seed) against `suite.load(domain, task, task_kwargs={'random': seed}).reset()`,
then the same random actions on both (tests/test_dmc.py's run_parity): the reset observation's error, the worst
observation and reward errors over the steps (relative to max(1, |value|)), and how many steps exceed
max(1e-9, 20 x MuJoCo's own sensitivity), measured by dm_control copies whose qvel is nudged by 1e-15.
Prints a markdown table.
"""

import argparse
import os
import sys

os.environ.setdefault("MUJOCO_GL", "egl")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

from envs import dmc  # noqa: E402
from test_dmc import run_parity  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tasks", nargs="*", help="domain-task names (default: every task)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--steps", type=int, default=100)
    args = ap.parse_args()
    tasks = [tuple(t.split("-", 1)) for t in args.tasks] or list(dmc.TASKS)
    print(
        f"| task | seeds | reset obs error | worst obs error ({args.steps} steps) | worst reward error "
        "| steps beyond the bound |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for domain, task in tasks:
        res = [run_parity(domain, task, s, nsteps=args.steps) for s in args.seeds]
        reset = max(r[0] for r in res)
        obs = max(r[1] for r in res)
        rew = max(r[2] for r in res)
        bad = sum(r[3] for r in res)
        print(
            f"| {domain}-{task} | {' '.join(map(str, args.seeds))} | {reset:.1e} | {obs:.1e} | {rew:.1e} | {bad} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
