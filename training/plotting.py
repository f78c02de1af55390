"""Learning-curve PNGs (matplotlib, Agg): one run, and a sweep's runs side by side."""

from __future__ import annotations

import csv
import glob
import os

import numpy as np


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def read_monitor(run_dir: str) -> tuple[np.ndarray, np.ndarray]:
    """(cumulative env steps at episode end, episode return) from the run's VecMonitor CSV files, in order
    (``monitor.part<k>.csv`` of earlier sessions of a resumed run first)."""
    files = sorted(glob.glob(os.path.join(run_dir, "monitor.part*.csv"))) + [
        f for f in [os.path.join(run_dir, "monitor.csv")] if os.path.exists(f)
    ]
    rewards, lengths = [], []
    for path in files:
        with open(path) as f:
            lines = [ln for ln in f if not ln.startswith("#")]
        for row in csv.DictReader(lines):
            rewards.append(float(row["r"]))
            lengths.append(int(float(row["l"])))
    return np.cumsum(lengths, dtype=np.int64), np.asarray(rewards)


def read_evaluations(run_dir: str):
    """(timesteps, mean, std, success-rate or None) from the run's evaluations.npz, or None."""
    path = os.path.join(run_dir, "evaluations.npz")
    if not os.path.exists(path):
        return None
    data = np.load(path)
    res = data["results"]
    succ = data["successes"].mean(axis=1) if "successes" in data and len(data["successes"]) else None
    return data["timesteps"], res.mean(axis=1), res.std(axis=1), succ


def _smooth(y: np.ndarray, window: int) -> np.ndarray:
    if len(y) < 2:
        return y
    window = max(1, min(window, len(y)))
    c = np.cumsum(np.insert(y, 0, 0.0))
    out = np.empty(len(y))
    for i in range(len(y)):
        lo = max(0, i + 1 - window)
        out[i] = (c[i + 1] - c[lo]) / (i + 1 - lo)
    return out


def plot_run(run_dir: str, title: str, path: str | None = None) -> str:
    """Training episode returns (moving mean over 20 episodes) and deterministic evaluation mean +- std."""
    plt = _plt()
    path = path or os.path.join(run_dir, "learning_curve.png")
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    steps, rets = read_monitor(run_dir)
    if len(rets):
        ax.plot(steps, rets, color="tab:blue", alpha=0.15, lw=0.8)
        ax.plot(steps, _smooth(rets, 20), color="tab:blue", lw=1.5, label="training episodes (mean of 20)")
    ev = read_evaluations(run_dir)
    if ev is not None and len(ev[0]):
        t, m, s, succ = ev
        ax.plot(t, m, "o-", color="tab:orange", lw=1.8, ms=3, label="deterministic evaluation")
        ax.fill_between(t, m - s, m + s, color="tab:orange", alpha=0.2)
        if succ is not None:
            ax2 = ax.twinx()
            ax2.plot(t, succ, "s--", color="tab:green", ms=3, lw=1, label="eval success rate")
            ax2.set_ylim(-0.05, 1.05)
            ax2.set_ylabel("success rate")
            ax2.legend(loc="lower right", fontsize=8)
    ax.set_xlabel("environment steps")
    ax.set_ylabel("episode return")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", fontsize=8)
    else:
        ax.text(0.5, 0.5, "no finished episode yet", ha="center", va="center", transform=ax.transAxes)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def plot_sweep(groups: dict[str, list[dict]], path: str, title: str) -> str:
    """One panel per grid point (side by side, shared y): each seed's evaluation curve and their mean.

    `groups`: label -> list of trial results (``eval_timesteps``, ``eval_mean``, ``seed``)."""
    plt = _plt()
    n = max(1, len(groups))
    cols = min(n, 4)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.0 * cols, 3.2 * rows), dpi=100, sharey=True, squeeze=False)
    for ax, (label, trials) in zip(axes.flat, groups.items()):
        curves = [
            (np.asarray(t["eval_timesteps"]), np.asarray(t["eval_mean"])) for t in trials if t.get("eval_timesteps")
        ]
        for (x, y), tr in zip(curves, [t for t in trials if t.get("eval_timesteps")]):
            ax.plot(x, y, lw=1, alpha=0.6, label=f"seed {tr.get('seed')}")
        if len(curves) > 1 and len({len(x) for x, _ in curves}) == 1:
            ax.plot(curves[0][0], np.mean([y for _, y in curves], axis=0), "k-", lw=2, label="mean")
        ax.set_title(label, fontsize=8)
        ax.set_xlabel("environment steps", fontsize=8)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=7)
        if curves:
            ax.legend(fontsize=6)
    for ax in axes.flat[len(groups) :]:
        ax.axis("off")
    axes[0][0].set_ylabel("eval return")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def plot_series(path: str, title: str, series: dict[str, tuple[list, list]]) -> str:
    """Named (x, y) curves on one axes (the RLlib backend's learning curve)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    for label, (x, y) in series.items():
        if len(x):
            ax.plot(x, y, "o-" if len(x) < 30 else "-", ms=3, lw=1.5, label=label)
    ax.set_xlabel("environment steps")
    ax.set_ylabel("episode return")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
