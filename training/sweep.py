"""Reward-shaping sweeps: ``python -m training.sweep CONFIG [--jobs J] [--backend local|ray]``.

A sweep file names a base training configuration and a grid; every point of the grid times every seed is one
training run (training/train.py), run as parallel processes (``--backend local``, up to ``--jobs`` at once) or as
Ray Tune trials (``--backend ray``, each trial the same SB3 training function). The sweep directory gets one
table (``results.csv``, ``results.md``: final and best deterministic evaluation returns, success rate where the
env reports ``is_success``, wall time) and one plot (``curves.png``) with the grid points side by side.

    name: hopper_reward
    train:                      # a training config (training/config.py keys); `config` names a base file
      env: Hopper-v5
      algo: ppo
      config: hopper_ppo.yaml
      steps: 200000
    grid:
      reward:                   # env constructor kwargs: every combination of the lists
        forward_reward_weight: [1.0, 2.0]
        ctrl_cost_weight: [0.001, 0.01]
      wrappers:                 # alternative shaping-wrapper lists (training/shaping.py), by label
        none: []
        smooth: [{name: action_rate_penalty, weight: 0.01}]
      seeds: [0, 1]
    evaluate_on: task           # task: every trial is evaluated on the base env kwargs without shaping, so the
                                # returns are comparable; train: on its own training reward
    jobs: 2
"""

from __future__ import annotations

import argparse
import copy
import csv
import itertools
import json
import os
import subprocess
import sys
import time
from typing import Any

import yaml

from training import config as C
from training.cluster import child_pythonpath, init_ray
from training.env_factory import check_env_kwargs
from training.plotting import plot_sweep
from training.shaping import spec_label
from training.train import run

__all__ = ["load_sweep", "expand", "run_sweep", "write_table", "init_ray", "main"]

SWEEP_KEYS = ("name", "train", "grid", "evaluate_on", "jobs", "description")


def load_sweep(path: str) -> dict[str, Any]:
    """Read and check a sweep file (a path, or a shipped sweep: ``hopper_reward.yaml``)."""
    path = C.find_file(path, C.SWEEP_DIR, "sweep file")
    with open(path) as f:
        sweep = C.yaml_load(f) or {}
    unknown = sorted(set(sweep) - set(SWEEP_KEYS))
    if unknown:
        raise C.ConfigError(f"{path}: unknown sweep key(s) {', '.join(unknown)}; valid: {', '.join(SWEEP_KEYS)}")
    if "train" not in sweep or "env" not in sweep["train"]:
        raise C.ConfigError(f"{path}: a sweep needs train.env (and train.algo)")
    grid = sweep.setdefault("grid", {})
    bad = sorted(set(grid) - {"reward", "wrappers", "seeds"})
    if bad:
        raise C.ConfigError(f"{path}: unknown grid key(s) {', '.join(bad)}; valid: reward, wrappers, seeds")
    if sweep.get("evaluate_on", "task") not in ("task", "train"):
        raise C.ConfigError(f"{path}: evaluate_on must be 'task' or 'train'")
    sweep.setdefault("name", os.path.splitext(os.path.basename(path))[0])
    return sweep


def _fmt(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def expand(sweep: dict[str, Any], steps: int | None = None, sweep_dir: str = ".") -> list[dict[str, Any]]:
    """The trials of a sweep: [{'name', 'group', 'seed', 'reward', 'wrappers_label', 'config', 'out_dir'}]."""
    base = dict(sweep["train"])
    base_file = base.pop("config", None)
    overrides = {k: v for k, v in base.items() if k not in ("env", "algo", "env_kwargs", "hyperparams")}
    if steps is not None:
        overrides["steps"] = steps
    grid = sweep.get("grid", {})
    reward_grid = grid.get("reward") or {}
    for k, vals in reward_grid.items():
        if not isinstance(vals, list) or not vals:
            raise C.ConfigError(f"grid.reward.{k} must be a non-empty list, got {vals!r}")
    wrappers = grid.get("wrappers") or {"none": []}
    if isinstance(wrappers, list):  # a plain list of alternatives: label them
        wrappers = {spec_label(w): w for w in wrappers}
    seeds = grid.get("seeds") or [base.get("seed", 0)]
    keys = list(reward_grid)
    for values in itertools.product(*(reward_grid[k] for k in keys)):  # fail before any training
        check_env_kwargs(base["env"], {**(base.get("env_kwargs") or {}), **dict(zip(keys, values))})
    trials = []
    for values in itertools.product(*(reward_grid[k] for k in keys)):
        reward = dict(zip(keys, values))
        for wlabel, wspecs in wrappers.items():
            group = ", ".join(
                [f"{k}={_fmt(v)}" for k, v in reward.items()] + ([f"shaping={wlabel}"] if len(wrappers) > 1 else [])
            )
            group = group or "base"
            for seed in seeds:
                cfg = C.resolve(
                    base["env"],
                    base.get("algo"),
                    base_file,
                    {**overrides, "seed": seed},
                    reward={**(base.get("env_kwargs") or {}), **reward},
                    hyperparams=base.get("hyperparams"),
                )
                cfg["wrappers"] = list(cfg.get("wrappers") or []) + list(wspecs or [])
                if sweep.get("evaluate_on", "task") == "task":
                    cfg["eval_env_kwargs"] = dict(base.get("env_kwargs") or {})
                    cfg["eval_wrappers"] = []
                C.validate(cfg)
                safe = "".join(c if c.isalnum() or c in "-_.=" else "_" for c in group.replace(", ", "__"))
                name = f"{safe}__s{seed}"
                trials.append(
                    {
                        "name": name,
                        "group": group,
                        "seed": seed,
                        "reward": reward,
                        "wrappers_label": wlabel,
                        "config": cfg,
                        "out_dir": os.path.abspath(os.path.join(sweep_dir, "trials", name)),
                    }
                )
    return trials


# ---- local backend: one process per trial ------------------------------------------------------------------------


def _run_local(trials: list[dict], jobs: int) -> list[dict]:
    pending = list(trials)
    running: list[tuple[dict, subprocess.Popen, float, Any]] = []
    done: list[dict] = []
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env["PYTHONPATH"] = child_pythonpath(env)  # the children import `training` from wherever this process did
    while pending or running:
        while pending and len(running) < jobs:
            t = pending.pop(0)
            os.makedirs(t["out_dir"], exist_ok=True)
            cfg_path = os.path.join(t["out_dir"], "trial.yaml")
            C.save(t["config"], cfg_path)
            log = open(os.path.join(t["out_dir"], "train.log"), "w")
            cmd = [
                sys.executable,
                "-m",
                "training.train",
                "--config",
                cfg_path,
                "--out",
                t["out_dir"],
                "--no-progress",
                "--no-video",
            ]
            print(f"[sweep] start {t['name']}", flush=True)
            running.append((t, subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env), time.time(), log))
        time.sleep(0.2)
        for item in list(running):
            t, proc, t0, log = item
            if proc.poll() is None:
                continue
            running.remove(item)
            log.close()
            res = _read_result(t, proc.returncode, time.time() - t0)
            print(
                f"[sweep] {'done' if res['status'] == 'ok' else 'FAILED'} {t['name']} ({res['wall_time_s']:.0f} s)",
                flush=True,
            )
            done.append(res)
    return done


def _read_result(t: dict, returncode: int, wall: float) -> dict:
    path = os.path.join(t["out_dir"], "result.json")
    row = {k: t[k] for k in ("name", "group", "seed", "reward", "wrappers_label", "out_dir")}
    if returncode == 0 and os.path.exists(path):
        with open(path) as f:
            row.update(json.load(f))
        row["status"] = "ok"
    else:
        log = os.path.join(t["out_dir"], "train.log")
        tail = open(log).read()[-2000:] if os.path.exists(log) else ""
        row.update(status=f"failed (exit {returncode})", error=tail, wall_time_s=wall)
    return row


# ---- ray backend: one Ray Tune trial per run ----------------------------------------------------------------------


def _ray_trainable(config: dict) -> None:
    """A Ray Tune function trainable: our SB3 training, reporting each evaluation to Tune."""
    from ray import tune

    t = config["trial"]

    def _report(summary: dict) -> None:
        tune.report(
            {
                "timesteps": summary["eval_timesteps"][-1],
                "eval_return": summary["final_return"],
                "best_return": summary["best_return"],
                "success_rate": summary["success_rate"],
            }
        )

    result = run(t["config"], t["out_dir"], progress_bar=False, video=False, on_eval=[_report])
    result = {k: v for k, v in result.items() if k not in ("env_kwargs", "wrappers")}
    tune.report(
        {
            "timesteps": result["timesteps"],
            "eval_return": result["final_return"],
            "best_return": result["best_return"],
            "success_rate": result["success_rate"],
            "done_run": True,
            "result_json": json.dumps(result),
        }
    )


def _run_ray(trials: list[dict], jobs: int, sweep_dir: str, address: str | None, num_cpus: int) -> list[dict]:
    try:
        from ray import tune
    except ImportError as exc:
        raise C.ConfigError(f"--backend ray needs Ray Tune: pip install -e '.[ray]' ({exc})") from None
    init_ray(address, num_cpus)
    tuner = tune.Tuner(
        tune.with_resources(_ray_trainable, {"cpu": 1}),
        param_space={"trial": tune.grid_search(trials)},
        tune_config=tune.TuneConfig(max_concurrent_trials=jobs),
        run_config=tune.RunConfig(
            name="tune", storage_path=os.path.join(os.path.abspath(sweep_dir), "ray_results"), verbose=1
        ),
    )
    grid = tuner.fit()
    rows = []
    for res in grid:
        t = res.config["trial"]
        row = {k: t[k] for k in ("name", "group", "seed", "reward", "wrappers_label", "out_dir")}
        metrics = res.metrics or {}
        if res.error is None and metrics.get("result_json"):
            row.update(json.loads(metrics["result_json"]))
            row["status"] = "ok"
        else:
            row.update(status="failed", error=str(res.error)[-2000:], wall_time_s=float("nan"))
        rows.append(row)
    order = {t["name"]: i for i, t in enumerate(trials)}
    return sorted(rows, key=lambda r: order[r["name"]])


# ---- table and plot -----------------------------------------------------------------------------------------------


def _num(v, fmt="{:.2f}"):
    return "" if v is None or (isinstance(v, float) and v != v) else fmt.format(v)


def write_table(rows: list[dict], sweep_dir: str, title: str) -> tuple[str, str]:
    """results.csv (one row per trial) and results.md (per trial, then mean +- std per grid point)."""
    import numpy as np

    cols = [
        "group",
        "seed",
        "status",
        "timesteps",
        "final_return",
        "final_return_std",
        "best_return",
        "success_rate",
        "wall_time_s",
        "fps",
        "out_dir",
    ]
    csv_path = os.path.join(sweep_dir, "results.csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c) for c in cols})
    has_success = any(r.get("success_rate") is not None for r in rows)
    md = [
        f"# {title}",
        "",
        "Final = last deterministic evaluation (mean over its episodes); best = best evaluation during training.",
        "",
        "| grid point | seed | status | steps | final return | best return |"
        + (" success rate |" if has_success else "")
        + " wall time (s) |",
        "|---|---|---|---|---|---|" + ("---|" if has_success else "") + "---|",
    ]
    for r in rows:
        md.append(
            f"| {r['group']} | {r['seed']} | {r['status']} | {r.get('timesteps', '')} | "
            f"{_num(r.get('final_return'))} +- {_num(r.get('final_return_std'))} | "
            f"{_num(r.get('best_return'))} |"
            + (f" {_num(r.get('success_rate'))} |" if has_success else "")
            + f" {_num(r.get('wall_time_s'), '{:.0f}')} |"
        )
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(r["group"], []).append(r)
    md += [
        "",
        "Per grid point (mean +- std over seeds):",
        "",
        "| grid point | seeds | final return | best return |" + (" success rate |" if has_success else ""),
        "|---|---|---|---|" + ("---|" if has_success else ""),
    ]
    for g, rs in groups.items():
        ok = [r for r in rs if r["status"] == "ok"]
        if not ok:
            md.append(f"| {g} | 0 ok of {len(rs)} | | |" + (" |" if has_success else ""))
            continue
        f_ = np.array([r["final_return"] for r in ok])
        b_ = np.array([r["best_return"] for r in ok])
        line = f"| {g} | {len(ok)} | {f_.mean():.2f} +- {f_.std():.2f} | {b_.mean():.2f} +- {b_.std():.2f} |"
        if has_success:
            s_ = [r["success_rate"] for r in ok if r.get("success_rate") is not None]
            line += f" {np.mean(s_):.2f} |" if s_ else " |"
        md.append(line)
    md_path = os.path.join(sweep_dir, "results.md")
    with open(md_path, "w") as f:
        f.write("\n".join(md) + "\n")
    return csv_path, md_path


def run_sweep(
    path: str,
    jobs: int | None = None,
    backend: str = "local",
    out: str | None = None,
    steps: int | None = None,
    address: str | None = None,
    num_cpus: int = 2,
) -> list[dict]:
    """Run every trial of the sweep file `path` and write the table and the plot; returns the rows."""
    sweep = load_sweep(path)
    sweep_dir = out or os.path.join("runs", "sweeps", f"{sweep['name']}-{time.strftime('%Y%m%d-%H%M%S')}")
    os.makedirs(sweep_dir, exist_ok=True)
    trials = expand(sweep, steps=steps, sweep_dir=sweep_dir)
    jobs = jobs or int(sweep.get("jobs", 1))
    with open(os.path.join(sweep_dir, "sweep.yaml"), "w") as f:
        yaml.safe_dump({**copy.deepcopy(sweep), "trials": [t["name"] for t in trials]}, f, sort_keys=False)
    print(
        f"[sweep] {sweep['name']}: {len(trials)} trials, {jobs} at a time, backend {backend} -> {sweep_dir}", flush=True
    )
    t0 = time.time()
    if backend == "local":
        rows = _run_local(trials, jobs)
        order = {t["name"]: i for i, t in enumerate(trials)}
        rows.sort(key=lambda r: order[r["name"]])
    elif backend == "ray":
        rows = _run_ray(trials, jobs, sweep_dir, address, num_cpus)
    else:
        raise C.ConfigError(f"unknown backend {backend!r} (local | ray)")
    cfg0 = trials[0]["config"]
    title = (
        f"{sweep['name']}: {cfg0['algo'].upper()} on {cfg0['env']}, {cfg0['steps']} steps per run "
        f"(evaluated on the {'base task' if sweep.get('evaluate_on', 'task') == 'task' else 'training reward'})"
    )
    csv_path, md_path = write_table(rows, sweep_dir, title)
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(r["group"], []).append(r)
    png = plot_sweep(groups, os.path.join(sweep_dir, "curves.png"), title)
    n_ok = sum(r["status"] == "ok" for r in rows)
    print(
        f"[sweep] {n_ok}/{len(rows)} trials ok in {time.time() - t0:.0f} s\n  table: {md_path} ({csv_path})\n"
        f"  curves: {png}",
        flush=True,
    )
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.sweep", description=__doc__.split("\n\n")[0])
    p.add_argument("config", help="sweep YAML (e.g. training/sweeps/hopper_reward.yaml)")
    p.add_argument("--jobs", type=int, help="trials at once (default: the file's `jobs`, else 1)")
    p.add_argument("--backend", choices=("local", "ray"), default="local")
    p.add_argument("--out", help="sweep directory (default runs/sweeps/<name>-<time>)")
    p.add_argument("--steps", type=int, help="override every trial's step budget")
    p.add_argument("--ray-address", help="ray: cluster address (default $RAY_ADDRESS, else a local Ray)")
    p.add_argument("--num-cpus", type=int, default=2, help="ray: CPUs of a local Ray (default 2)")
    p.add_argument("--dry-run", action="store_true", help="list the trials and exit")
    args = p.parse_args(argv)
    rows: list[dict] = []

    def _go():
        if args.dry_run:
            for t in expand(load_sweep(args.config), steps=args.steps):
                c = t["config"]
                print(
                    f"{t['name']}: {c['algo']} {c['env']} steps={c['steps']} env_kwargs={c['env_kwargs']} "
                    f"wrappers={c['wrappers']}"
                )
            return
        rows.extend(
            run_sweep(args.config, args.jobs, args.backend, args.out, args.steps, args.ray_address, args.num_cpus)
        )

    rc = C.cli_exit(_go, errors=(ValueError,))
    return rc or (0 if all(r["status"] == "ok" for r in rows) else 1)


if __name__ == "__main__":
    sys.exit(main())
