"""Summarize the evidence runs of run_evidence.sh into a markdown report: python summarize.py RUNS_DIR."""

import glob
import json
import os
import sys

import numpy as np


def load(pattern):
    out = []
    for path in sorted(glob.glob(pattern)):
        with open(path) as f:
            out.append(dict(json.load(f), run_dir=os.path.dirname(path)))
    return out


def main(runs):
    lines = ["# Training evidence (issue 15)", "",
             "Produced by `training/results/run_evidence.sh`; final = last deterministic evaluation (10 episodes).",
             ""]
    ours = load(os.path.join(runs, "hopper_ppo_numjoco_s*", "result.json"))
    gym_ = load(os.path.join(runs, "hopper_ppo_gymnasium_s*", "result.json"))
    if ours or gym_:
        lines += ["## PPO on Hopper, RL Zoo hyperparameters, 1M steps", "",
                  "| env | seed | steps | final return | best return | wall time (s) | env steps/s |",
                  "|---|---|---|---|---|---|---|"]
        for r in ours + gym_:
            lines.append(f"| {r['env']} | {r['seed']} | {r['timesteps']} | {r['final_return']:.1f} +- "
                         f"{r['final_return_std']:.1f} | {r['best_return']:.1f} | {r['wall_time_s']:.0f} | "
                         f"{r['fps']:.0f} |")
        if ours and gym_:
            fo = np.array([r["final_return"] for r in ours])
            fg = np.array([r["final_return"] for r in gym_])
            ratio = np.mean([r["wall_time_s"] for r in ours]) / np.mean([r["wall_time_s"] for r in gym_])
            within = fg.min() - fg.std() <= fo.mean() <= fg.max() + fg.std()
            lines += ["", f"Ours: {fo.mean():.1f} +- {fo.std():.1f} over {len(fo)} seeds; Gymnasium Hopper-v5: "
                      f"{fg.mean():.1f} +- {fg.std():.1f} over {len(fg)} seeds. Ours within Gymnasium's seed spread: "
                      f"{'yes' if within else 'NO'}; >= 2000: {'yes' if fo.mean() >= 2000 else 'NO'}. "
                      f"Wall-clock ratio ours / Gymnasium: {ratio:.2f} (goal <= 0.7).",
                      "RL Zoo reports 2410 +- 10 (PPO, Hopper-v3); CleanRL 2383 +- 272 (Hopper-v4).", ""]
    arm = load(os.path.join(runs, "armreachgoal_sac_her_s*", "result.json"))
    if arm:
        lines += ["## SAC + HER on numjoco/ArmReachGoal-v0, 200k steps", "",
                  "| seed | steps | success rate (final eval) | first eval step with success >= 0.9 | wall time (s) |",
                  "|---|---|---|---|---|"]
        for r in arm:
            ev = np.load(os.path.join(r["run_dir"], "evaluations.npz"))
            succ = ev["successes"].mean(axis=1) if "successes" in ev else []
            first = next((int(t) for t, s in zip(ev["timesteps"], succ) if s >= 0.9), None)
            lines.append(f"| {r['seed']} | {r['timesteps']} | {r['success_rate']} | {first} | "
                         f"{r['wall_time_s']:.0f} |")
        lines.append("")
    md = os.path.join(runs, "sweep_hopper_reward", "results.md")
    if os.path.exists(md):
        lines += ["## Reward-shaping sweep (Hopper forward_reward_weight x ctrl_cost_weight)", "",
                  open(md).read().split("\n", 1)[1], "![curves](runs/sweep_hopper_reward/curves.png)", ""]
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "runs"))
