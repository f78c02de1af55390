"""training.sweep (local processes and Ray Tune trials) and training.train --backend rllib, on tiny budgets.

Ray runs locally with ray.init(num_cpus=2); the Ray-Tune sweep must reproduce the local sweep's numbers (same
seeds, single-threaded torch, so every trial is deterministic whichever process runs it).
"""

import csv
import json
import os
import sys

import matplotlib.image as mpimg
import pytest
import yaml

from training import config as C
from training import sweep as S

SWEEP = {
    "name": "toy",
    "train": {
        "env": "toy/PointReach-v0",
        "algo": "ppo",
        "steps": 512,
        "n_envs": 2,
        "eval_freq": 256,
        "n_eval_episodes": 2,
        "checkpoint_freq": 0,
        "hyperparams": {"n_steps": 128, "batch_size": 64},
    },
    "grid": {
        "reward": {"dist_weight": [1.0, 2.0]},
        "wrappers": {"none": [], "smooth": [{"name": "action_rate_penalty", "weight": 0.1}]},
        "seeds": [0],
    },
    "evaluate_on": "task",
}


@pytest.fixture(scope="module")
def sweep_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("sweep") / "toy.yaml"
    path.write_text(yaml.safe_dump(SWEEP))
    return str(path)


@pytest.fixture(scope="module")
def small_sweep_file(tmp_path_factory):
    """The two trials that run (with and without a shaping wrapper), to keep CI fast."""
    path = tmp_path_factory.mktemp("sweep") / "toy2.yaml"
    path.write_text(yaml.safe_dump(dict(SWEEP, grid=dict(SWEEP["grid"], reward={"dist_weight": [2.0]}))))
    return str(path)


@pytest.fixture(scope="module")
def local_sweep(small_sweep_file, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("local"))
    rows = S.run_sweep(small_sweep_file, jobs=2, backend="local", out=out)
    return out, rows


@pytest.fixture(scope="module")
def ray_local():
    import ray

    S.init_ray(num_cpus=2)
    yield
    ray.shutdown()


def test_expand_grid(sweep_file):
    trials = S.expand(S.load_sweep(sweep_file))
    assert [t["name"] for t in trials] == [
        "dist_weight=1__shaping=none__s0",
        "dist_weight=1__shaping=smooth__s0",
        "dist_weight=2__shaping=none__s0",
        "dist_weight=2__shaping=smooth__s0",
    ]
    t = trials[3]["config"]
    assert t["env_kwargs"] == {"dist_weight": 2.0}
    assert t["wrappers"] == [{"name": "action_rate_penalty", "weight": 0.1}]
    # evaluate_on: task -> evaluation on the base task, unshaped, so the returns are comparable
    assert t["eval_env_kwargs"] == {} and t["eval_wrappers"] == []


def test_sweep_errors(tmp_path):
    bad = dict(SWEEP, grid={"reward": {"dist_wieght": [1.0]}})
    p = tmp_path / "bad.yaml"
    p.write_text(yaml.safe_dump(bad))
    with pytest.raises(ValueError, match="unknown env kwarg.*'dist_wieght'.*valid keys: dist_weight"):
        S.expand(S.load_sweep(str(p)))
    p.write_text(yaml.safe_dump(dict(SWEEP, gird={})))
    with pytest.raises(C.ConfigError, match="unknown sweep key.*gird"):
        S.load_sweep(str(p))


def test_shipped_sweeps_expand():
    sweeps = os.path.join(os.path.dirname(C.CONFIG_DIR), "sweeps")
    trials = S.expand(S.load_sweep(os.path.join(sweeps, "hopper_reward.yaml")))
    assert len(trials) == 12  # 3 forward weights x 2 ctrl weights x 2 seeds
    assert {t["config"]["env_kwargs"]["ctrl_cost_weight"] for t in trials} == {0.001, 0.01}
    assert all(t["config"]["hyperparams"]["n_steps"] == 512 for t in trials)  # RL Zoo's Hopper PPO
    assert len(S.expand(S.load_sweep(os.path.join(sweeps, "hopper_shaping.yaml")))) == 6
    arm = S.load_sweep(os.path.join(sweeps, "armreach_dense_vs_sparse.yaml"))
    assert arm["grid"]["reward"] == {"reward_type": ["dense", "sparse"]}
    assert arm["train"]["env"] == "numjoco/ArmReachGoal-v0" and arm["train"]["config"] == "armreachgoal_sac.yaml"


def test_local_sweep_table_and_plot(local_sweep):
    out, rows = local_sweep
    assert [r["status"] for r in rows] == ["ok"] * 2
    with open(os.path.join(out, "results.csv")) as f:
        table = list(csv.DictReader(f))
    assert [r["group"] for r in table] == ["dist_weight=2, shaping=none", "dist_weight=2, shaping=smooth"]
    for r, row in zip(table, rows):
        res = json.load(open(os.path.join(row["out_dir"], "result.json")))
        assert float(r["final_return"]) == res["final_return"] and float(r["best_return"]) == res["best_return"]
        assert float(r["success_rate"]) == res["success_rate"] and float(r["wall_time_s"]) > 0
        assert res["timesteps"] == 512 and res["eval_timesteps"] == [256, 512]
    md = open(os.path.join(out, "results.md")).read()
    assert "| dist_weight=2, shaping=smooth | 0 | ok | 512 |" in md and "success rate" in md
    png = mpimg.imread(os.path.join(out, "curves.png"))
    assert png.shape[1] > 1.8 * png.shape[0]  # two panels side by side
    # the smooth trials were trained with the penalty, logged as a reward term
    with open(os.path.join(rows[1]["out_dir"], "logs", "progress.csv")) as f:
        assert "rollout/ep_reward_shaping_action_rate_mean" in f.readline()


def test_ray_sweep_matches_local(small_sweep_file, local_sweep, ray_local, tmp_path):
    out = str(tmp_path / "ray")
    rows = S.run_sweep(small_sweep_file, jobs=2, backend="ray", out=out)
    assert [r["status"] for r in rows] == ["ok"] * 2
    assert os.path.isdir(os.path.join(out, "ray_results", "tune"))
    for r, ref in zip(rows, local_sweep[1]):
        assert r["name"] == ref["name"]
        assert r["final_return"] == ref["final_return"] and r["eval_mean"] == ref["eval_mean"]
    assert os.path.exists(os.path.join(out, "results.md")) and os.path.exists(os.path.join(out, "curves.png"))


def test_rllib_ppo(ray_local, tmp_path, capsys):
    from training.rllib_backend import gymnasium_pin
    from training.train import main

    out = str(tmp_path / "rllib")
    cfg = tmp_path / "rllib.yaml"
    cfg.write_text(
        "algo: ppo\nnormalize: true\nhyperparams: {n_steps: 50, batch_size: 50, n_epochs: 2, "
        "policy_kwargs: {net_arch: {pi: [32, 32], vf: [32, 32]}, activation_fn: relu}}\n"
    )
    rc = main(
        [
            "--backend",
            "rllib",
            "--env",
            "toy/PointReach-v0",
            "--config",
            str(cfg),
            "--steps",
            "200",
            "--n-envs",
            "2",
            "--num-env-runners",
            "1",
            "--eval-freq",
            "100",
            "--eval-episodes",
            "1",
            "--out",
            out,
        ]
    )
    text = capsys.readouterr().out
    assert rc == 0
    res = json.load(open(os.path.join(out, "result.json")))
    assert res["backend"] == "rllib" and res["timesteps"] >= 200
    assert len(res["eval_mean"]) >= 1 and res["final_return"] == res["eval_mean"][-1]
    assert -200 < res["final_return"] < 0  # 50 steps of -|p - t| with |p - t| < 2.9 in the unit square
    with open(os.path.join(out, "progress.csv")) as f:
        prog = list(csv.DictReader(f))
    assert int(prog[-1]["timesteps"]) == res["timesteps"] and len(prog) >= 2
    assert os.path.isdir(os.path.join(out, "rllib_checkpoint"))
    # toy/PointReach-v0 has a vector entry point: the env runners built it through gym.make_vec's
    # vector_entry_point mode, the path of our native vector envs
    from training.rllib_backend import EnvCreator

    venv = EnvCreator("toy/PointReach-v0", {"dist_weight": 2.0})({"num_envs": 3})
    assert venv.num_envs == 3 and venv.spec.kwargs["vectorization_mode"] == "vector_entry_point"
    assert venv.spec.kwargs["dist_weight"] == 2.0
    assert mpimg.imread(os.path.join(out, "learning_curve.png")).ndim == 3
    # resume from the RLlib checkpoint up to 300 steps: the progress continues
    assert main(["--resume", out, "--backend", "rllib", "--steps", "300", "--num-env-runners", "1"]) == 0
    res2 = json.load(open(os.path.join(out, "result.json")))
    with open(os.path.join(out, "progress.csv")) as f:
        prog2 = list(csv.DictReader(f))
    assert res2["timesteps"] >= 300 and prog2[: len(prog)] == prog and len(prog2) > len(prog)
    import gymnasium

    if gymnasium_pin() not in (None, gymnasium.__version__):
        assert f"pins gymnasium=={gymnasium_pin()}" in text


def test_rllib_missing_names_the_conflict(monkeypatch, tmp_path, capsys):
    from training.train import main

    monkeypatch.setitem(sys.modules, "ray.rllib.algorithms.ppo", None)  # as if RLlib could not be imported
    rc = main(["--backend", "rllib", "--env", "toy/PointReach-v0", "--algo", "ppo", "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert rc == 2
    assert "pip install -e '.[ray]'" in err and "Do not install 'ray[rllib]'" in err and "pins gymnasium==" in err
