"""Summarize the evidence runs of run_evidence.sh into training/results/RESULTS.md: python summarize.py RUNS_DIR.

The tables and curves are regenerated from the runs; the hand-written part of the report (from the heading
NOTES_HEADING to the end: how and under which load the runs were made) is carried over from the existing file."""

import glob
import json
import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, "RESULTS.md")
NOTES_HEADING = "## Notes on these runs"


def plot_hopper(runs, prefix, title, out_png):
    """Deterministic evaluation returns against steps, ours and Gymnasium's, one line per seed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for tag, color in (("numjoco", "tab:blue"), ("gymnasium", "tab:orange")):
        for path in sorted(glob.glob(os.path.join(runs, f"{prefix}_{tag}_s*", "evaluations.npz"))):
            ev = np.load(path)
            seed = path.split("_s")[-1].split(os.sep)[0]
            ax.plot(
                ev["timesteps"],
                ev["results"].mean(axis=1),
                color=color,
                linestyle="-" if seed == "0" else "--",
                label=f"{tag} seed {seed}",
            )
    ax.set_xlabel("environment steps")
    ax.set_ylabel("deterministic eval return (10 episodes)")
    ax.set_title(f"{title}: numjoco/Hopper-v0 vs Gymnasium Hopper-v5", fontsize=9)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out_png, dpi=100)
    plt.close(fig)


HOPPER_RUNS = (
    ("hopper_ppo", "PPO on Hopper, RL Zoo hyperparameters"),
    ("hopper_ppocleanrl", "PPO on Hopper, CleanRL hyperparameters"),
)


def hopper_section(runs, prefix, title):
    """Table, curve and verdict of one Hopper PPO configuration, ours next to Gymnasium's Hopper-v5."""
    lines = []
    ours = load(os.path.join(runs, f"{prefix}_numjoco_s*", "result.json"))
    gym_ = load(os.path.join(runs, f"{prefix}_gymnasium_s*", "result.json"))
    if ours or gym_:
        lines += [
            f"## {title}, 1M steps",
            "",
            "| env | seed | steps | final return | best return | wall time (s) | env steps/s |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in ours + gym_:
            lines.append(
                f"| {r['env']} | {r['seed']} | {r['timesteps']} | {r['final_return']:.1f} +- "
                f"{r['final_return_std']:.1f} | {r['best_return']:.1f} | {r['wall_time_s']:.0f} | "
                f"{r['fps']:.0f} |"
            )
        if ours and gym_:
            fo = np.array([r["final_return"] for r in ours])
            fg = np.array([r["final_return"] for r in gym_])
            ratio = np.mean([r["wall_time_s"] for r in ours]) / np.mean([r["wall_time_s"] for r in gym_])
            within = fg.min() - fg.std() <= fo.mean() <= fg.max() + fg.std()
            plot_hopper(runs, prefix, title, os.path.join(HERE, f"{prefix}_curves.png"))
            lines += [
                "",
                f"![curves]({prefix}_curves.png)",
                "",
                f"Ours: {fo.mean():.1f} +- {fo.std():.1f} over {len(fo)} seeds; Gymnasium Hopper-v5: "
                f"{fg.mean():.1f} +- {fg.std():.1f} over {len(fg)} seeds. Ours within Gymnasium's seed spread: "
                f"{'yes' if within else 'NO'}; >= 2000: {'yes' if fo.mean() >= 2000 else 'NO'}. "
                f"Wall-clock ratio ours / Gymnasium: {ratio:.2f} (goal <= 0.7).",
                "RL Zoo reports 2410 +- 10 (PPO, Hopper-v3); CleanRL 2383 +- 272 (Hopper-v4).",
                "",
            ]
    return lines


def load(pattern):
    out = []
    for path in sorted(glob.glob(pattern)):
        with open(path) as f:
            out.append(dict(json.load(f), run_dir=os.path.dirname(path)))
    return out


def main(runs):
    lines = [
        "# Training evidence (issue 15)",
        "",
        "Produced by `training/results/run_evidence.sh`; final = last deterministic evaluation (10 episodes).",
        "",
    ]
    for prefix, title in HOPPER_RUNS:
        lines += hopper_section(runs, prefix, title)
    arm = load(os.path.join(runs, "armreachgoal_sac_her_s*", "result.json"))
    if arm:
        lines += [
            "## SAC + HER on numjoco/ArmReachGoal-v0, 200k steps",
            "",
            "| seed | steps | success rate (final eval) | first eval step with success >= 0.9 | wall time (s) |",
            "|---|---|---|---|---|",
        ]
        for r in arm:
            ev = np.load(os.path.join(r["run_dir"], "evaluations.npz"))
            succ = ev["successes"].mean(axis=1) if "successes" in ev else []
            first = next((int(t) for t, s in zip(ev["timesteps"], succ) if s >= 0.9), None)
            lines.append(f"| {r['seed']} | {r['timesteps']} | {r['success_rate']} | {first} | {r['wall_time_s']:.0f} |")
        lines.append("")
    for md in sorted(glob.glob(os.path.join(runs, "sweep_*", "results.md"))):
        name = os.path.basename(os.path.dirname(md))
        title, body = open(md).read().split("\n", 1)
        png = f"{name}_curves.png"  # copied next to this report (the runs directory is not committed)
        shutil.copy(os.path.join(os.path.dirname(md), "curves.png"), os.path.join(HERE, png))
        lines += [f"## Reward-shaping sweep: {title.lstrip('# ')}", "", body.strip(), "", f"![curves]({png})", ""]
    notes = ""
    if os.path.exists(REPORT):
        old = open(REPORT).read()
        if NOTES_HEADING in old:
            notes = old[old.index(NOTES_HEADING) :]
    text = "\n".join(lines) + ("\n" + notes if notes else "\n")
    with open(REPORT, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "runs"))
