"""training/: configs, --reward validation, the env seam, shaping wrappers, end-to-end train / enjoy / resume.

Runs on the pure-Python toy envs (training/toy_envs.py) and Gymnasium's Hopper-v5, a few thousand steps each.
"""

import json
import os
import subprocess
import sys

import gymnasium as gym
import imageio.v3 as iio
import matplotlib.image as mpimg
import numpy as np
import pytest
import yaml

import training.toy_envs  # noqa: F401  (registers toy/*)
from training import config as C
from training.enjoy import enjoy
from training.env_factory import make_vec_env, valid_env_kwargs
from training.train import find_resume_point, main as train_main, run

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ZOO_COMMIT = "22e3ff2450fd"


def _tiny(env, algo, **over):
    """A resolved config for a few-second run."""
    base = {"steps": 1024, "eval_freq": 512, "n_eval_episodes": 2, "checkpoint_freq": 512}
    base.update(over.pop("overrides", {}))
    return C.resolve(env, algo, over.pop("config", None), base, over.pop("reward", None), over.pop("hp", None))


def _progress(run_dir):
    with open(os.path.join(run_dir, "logs", "progress.csv")) as f:
        import csv

        return list(csv.DictReader(f))


# ---- configs ------------------------------------------------------------------------------------------------------


def test_task_name_and_default_config():
    assert C.task_name("numjoco/Hopper-v0") == "hopper"
    assert C.task_name("Hopper-v5") == "hopper"
    assert C.task_name("training.toy_envs:toy/PointReachGoal-v0") == "pointreachgoal"
    assert C.default_config_path("numjoco/Hopper-v0", "ppo").endswith("configs/hopper_ppo.yaml")
    assert C.default_config_path("numjoco/ArmReachGoal-v0", "sac").endswith("armreachgoal_sac.yaml")
    assert C.default_config_path("toy/PointReach-v0", "ppo") is None


def test_hopper_ppo_is_rl_zoo_entry():
    # RL Zoo hyperparams/ppo.yml, entry Hopper-v4, commit 22e3ff2450fd92033f7f032915e1f64894a09584
    cfg = C.resolve("numjoco/Hopper-v0", "ppo")
    assert ZOO_COMMIT in cfg["source"] and "ppo.yml#Hopper-v4" in cfg["source"]
    assert cfg["normalize"] is True and cfg["n_envs"] == 1 and cfg["steps"] == 1_000_000
    hp = cfg["hyperparams"]
    assert (
        hp["batch_size"],
        hp["n_steps"],
        hp["gamma"],
        hp["learning_rate"],
        hp["ent_coef"],
        hp["clip_range"],
        hp["n_epochs"],
        hp["gae_lambda"],
        hp["max_grad_norm"],
        hp["vf_coef"],
    ) == (32, 512, 0.999, 9.80828e-05, 0.00229519, 0.2, 5, 0.99, 0.7, 0.835671)
    kw = C.algo_kwargs(cfg, gym.spaces.Box(-1, 1, (3,)))
    import torch.nn as nn

    assert kw["policy_kwargs"]["activation_fn"] is nn.ReLU
    assert kw["policy_kwargs"]["net_arch"] == {"pi": [256, 256], "vf": [256, 256]}
    assert C.normalize_kwargs(cfg) == {"gamma": 0.999}  # RL Zoo passes the algorithm's gamma to VecNormalize


def test_every_shipped_config_converts():
    from stable_baselines3 import HerReplayBuffer
    from stable_baselines3.common.noise import NormalActionNoise

    files = sorted(f for f in os.listdir(C.CONFIG_DIR) if f.endswith(".yaml"))
    assert len(files) >= 20
    for name in files:
        raw = C.load_yaml(os.path.join(C.CONFIG_DIR, name))
        assert ZOO_COMMIT in raw["source"], name
        with open(os.path.join(C.CONFIG_DIR, name)) as f:
            assert "22e3ff2450fd92033f7f032915e1f64894a09584" in f.read(), name  # full commit in the header
        task, algo = name[:-5].rsplit("_", 1)
        cfg = C.resolve(raw["envs"][0], algo)
        assert C.task_name(raw["envs"][0]) == task
        kw = C.algo_kwargs(cfg, gym.spaces.Box(-1, 1, (3,)))
        if algo == "td3":
            assert isinstance(kw["action_noise"], NormalActionNoise)
            np.testing.assert_allclose(kw["action_noise"]._sigma, 0.1)
        if name == "armreachgoal_sac.yaml":
            assert kw["replay_buffer_class"] is HerReplayBuffer
            assert kw["replay_buffer_kwargs"] == {"goal_selection_strategy": "future", "n_sampled_goal": 4}


def test_cleanrl_hopper_config_converts():
    """The CleanRL Hopper settings (training/configs/cleanrl/hopper_ppo.yaml) become the SB3 PPO keywords that
    reproduce them."""
    import torch

    raw = C.load_yaml(os.path.join(C.CONFIG_DIR, "cleanrl", "hopper_ppo.yaml"))
    assert "vwxyzjn/cleanrl" in raw["source"] and raw["algo"] == "ppo"
    cfg = C.resolve("numjoco/Hopper-v0", "ppo", config_path=os.path.join(C.CONFIG_DIR, "cleanrl", "hopper_ppo.yaml"))
    kw = C.algo_kwargs(cfg, gym.spaces.Box(-1, 1, (3,)))
    assert (kw["n_steps"], kw["batch_size"], kw["n_epochs"], kw["gamma"], kw["gae_lambda"]) == (
        2048,
        64,
        10,
        0.99,
        0.95,
    )
    assert kw["learning_rate"](1.0) == pytest.approx(3e-4) and kw["learning_rate"](0.0) == 0.0
    pk = kw["policy_kwargs"]
    assert pk["activation_fn"] is torch.nn.Tanh and pk["net_arch"] == {"pi": [64, 64], "vf": [64, 64]}
    assert cfg["normalize"] == {"norm_obs": True, "norm_reward": True, "clip_obs": 10.0, "clip_reward": 10.0}


def test_schedules_and_assignments():
    sched = C._schedule("lin_0.001")
    assert sched(1.0) == pytest.approx(1e-3) and sched(0.25) == pytest.approx(2.5e-4) and sched(0.0) == 0.0
    assert C._schedule(3e-4) == 3e-4
    got = C.parse_assignments(["a=1.5", "b=sparse", "c=[0.7, 2]", "d=true", "e=1e-3"])
    assert got == {"a": 1.5, "b": "sparse", "c": [0.7, 2], "d": True, "e": 1e-3}
    with pytest.raises(C.ConfigError, match="key=value"):
        C.parse_assignments(["forward_reward_weight"])


def test_config_errors(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("algo: ppo\nlearning_rate: 0.1\n")
    with pytest.raises(C.ConfigError, match="unknown key.*learning_rate.*valid keys: source"):
        C.load_yaml(str(bad))
    with pytest.raises(C.ConfigError, match="is a config for ppo, not sac"):
        C.resolve("Hopper-v5", "sac", os.path.join(C.CONFIG_DIR, "hopper_ppo.yaml"))
    with pytest.raises(C.ConfigError, match="unknown algo"):
        C.resolve("Hopper-v5", "a2c")
    with pytest.raises(C.ConfigError, match="n_envs"):
        C.resolve("Hopper-v5", "ppo", overrides={"n_envs": 0})
    with pytest.raises(ValueError, match="unknown shaping wrapper 'nope'.*action_rate_penalty"):
        C.resolve("Hopper-v5", "ppo", overrides={"wrappers": [{"name": "nope"}]})
    with pytest.raises(C.ConfigError, match="HerReplayBuffer needs an off-policy"):
        C.algo_kwargs(
            C.resolve("toy/PointReachGoal-v0", "ppo", hyperparams={"replay_buffer_class": "HerReplayBuffer"}),
            gym.spaces.Box(-1, 1, (2,)),
        )


def test_unknown_reward_kwarg_fails_before_training(tmp_path, capsys):
    out = tmp_path / "run"
    rc = train_main(["--env", "Hopper-v5", "--algo", "ppo", "--reward", "forward_weight=2", "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2
    assert "unknown env kwarg(s) 'forward_weight' for Hopper-v5" in err
    for key in ("forward_reward_weight", "ctrl_cost_weight", "healthy_reward", "reset_noise_scale", "width"):
        assert key in err
    assert "model_path" not in err  # passed by HopperEnv itself, not a user kwarg
    assert not out.exists()
    rc = train_main(
        ["--env", "toy/PointReach-v0", "--algo", "sac", "--reward", "dist_weight=2", "foo=1", "--out", str(out)]
    )
    assert rc == 2 and "'foo'" in capsys.readouterr().err and not out.exists()
    rc = train_main(["--env", "NoSuchEnv-v0", "--algo", "ppo", "--out", str(out)])
    assert rc == 2 and "unknown environment id 'NoSuchEnv-v0'" in capsys.readouterr().err


def test_valid_env_kwargs_from_signatures():
    keys = valid_env_kwargs("Hopper-v5")
    assert keys[:3] == ["xml_file", "frame_skip", "default_camera_config"]
    assert "forward_reward_weight" in keys and "render_mode" in keys and "model_path" not in keys
    assert valid_env_kwargs("toy/PointReachGoal-v0") == [
        "reward_type",
        "distance_threshold",
        "render_mode",
        "renderable",
    ]
    # numjoco's tasks: every v5 keyword of the task (their __init__ takes **kwargs, the class declares them)
    ours = valid_env_kwargs("numjoco/Hopper-v0")
    assert set(keys) - {"model_path"} <= set(ours) and "frame_skip" in ours
    assert {"reward_type", "success_threshold"} <= set(valid_env_kwargs("numjoco/ArmReachGoal-v0"))


# ---- the env seam -------------------------------------------------------------------------------------------------


def test_seam_uses_native_factory_for_numjoco_ids(monkeypatch):
    import types
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    calls = []

    def make_sb3_vec_env(env_id, n_envs, seed=None, **kw):
        calls.append((env_id, n_envs, seed, kw))
        return DummyVecEnv([lambda: gym.make("toy/PointReach-v0", **kw)] * n_envs)

    monkeypatch.setitem(sys.modules, "envs", types.SimpleNamespace(make_sb3_vec_env=make_sb3_vec_env))
    venv = make_vec_env("numjoco/Hopper-v0", 3, seed=7, env_kwargs={"dist_weight": 2.0})
    assert calls == [("numjoco/Hopper-v0", 3, 7, {"dist_weight": 2.0})]
    assert isinstance(venv, VecMonitor) and venv.num_envs == 3
    monkeypatch.setitem(sys.modules, "envs", None)  # envs not importable: a clear error
    with pytest.raises(ValueError, match="registered by the 'envs' package, which cannot be imported"):
        make_vec_env("numjoco/Hopper-v0", 1)


def test_seam_gymnasium_env_kwargs_and_seeds():
    venv = make_vec_env("Hopper-v5", 2, seed=3, env_kwargs={"forward_reward_weight": 2.0})
    obs = venv.reset()
    ref = [gym.make("Hopper-v5").reset(seed=3 + i)[0] for i in range(2)]
    np.testing.assert_array_equal(obs, np.stack(ref).astype(obs.dtype))
    _, _, _, infos = venv.step(np.zeros((2, 3), np.float32))
    for info in infos:  # forward_reward_weight reached the env: reward_forward = 2 * x_velocity
        assert info["reward_forward"] == pytest.approx(2.0 * info["x_velocity"], rel=1e-12)
    venv.close()


# ---- shaping wrappers ---------------------------------------------------------------------------------------------


def test_shaping_wrappers_numbers():
    venv = make_vec_env(
        "toy/PointReach-v0",
        2,
        seed=0,
        wrappers=[
            {"name": "term_weights", "weights": {"reward_ctrl": 3.0}},
            {"name": "action_rate_penalty", "weight": 0.5},
        ],
    )
    plain = make_vec_env("toy/PointReach-v0", 2, seed=0)
    venv.reset(), plain.reset()
    a1 = np.array([[0.5, -0.2], [0.1, 0.3]], np.float32)
    a2 = np.array([[-0.5, 0.4], [0.1, 0.3]], np.float32)
    for t, a in enumerate((a1, a2)):
        _, r, _, infos = venv.step(a)
        _, r0, _, infos0 = plain.step(a)
        for i in range(2):
            ctrl = infos0[i]["reward_ctrl"]
            rate = 0.0 if t == 0 else -0.5 * float(((a2[i] - a1[i]).astype(np.float64) ** 2).sum())
            assert infos[i]["reward_shaping_terms"] == pytest.approx(2.0 * ctrl, rel=1e-12)
            assert infos[i]["reward_shaping_action_rate"] == pytest.approx(rate, rel=1e-6, abs=1e-12)
            assert r[i] == pytest.approx(r0[i] + 2.0 * ctrl + rate, rel=1e-6)


# ---- end to end ---------------------------------------------------------------------------------------------------


def _check_run(run_dir, result, frames=None):
    for f in (
        "config.yaml",
        "model.zip",
        "best_model.zip",
        "evaluations.npz",
        "monitor.csv",
        "result.json",
        "logs/progress.csv",
        "checkpoints/latest.json",
    ):
        assert os.path.exists(os.path.join(run_dir, f)), f
    assert any(f.startswith("events.out.tfevents") for f in os.listdir(os.path.join(run_dir, "logs")))
    png = mpimg.imread(result["learning_curve"])
    assert png.ndim == 3 and png.shape[0] > 200 and png.shape[1] > 300
    ev = np.load(os.path.join(run_dir, "evaluations.npz"))
    assert list(ev["timesteps"]) == result["eval_timesteps"] and ev["timesteps"][-1] == result["timesteps"]
    assert result["final_return"] == pytest.approx(float(np.mean(ev["results"][-1])))
    if frames is not None:
        video = iio.imread(result["video"])
        assert video.shape == (frames, 64, 64, 3) and video.dtype == np.uint8
        assert video.std() > 5  # not a blank frame


@pytest.mark.parametrize("algo", ["ppo", "sac"])
def test_train_end_to_end(tmp_path, algo):
    hp = {"n_steps": 256, "batch_size": 64} if algo == "ppo" else {"learning_starts": 200, "batch_size": 64}
    cfg = _tiny(
        "toy/PointReach-v0",
        algo,
        reward={"dist_weight": 2.0},
        hp=hp,
        overrides={"n_envs": 2 if algo == "ppo" else 1, "normalize": True},
    )
    out = str(tmp_path / algo)
    result = run(cfg, out, progress_bar=False)
    _check_run(out, result, frames=51)
    assert os.path.exists(os.path.join(out, "vecnormalize.pkl"))
    assert os.path.exists(os.path.join(out, "best_vecnormalize.pkl"))
    assert (algo == "sac") == os.path.exists(os.path.join(out, "replay_buffer.pkl"))
    assert yaml.safe_load(open(os.path.join(out, "config.yaml")))["env_kwargs"] == {"dist_weight": 2.0}
    # the reward terms, logged as episode means, add up to the logged episode return
    rows = [r for r in _progress(out) if r.get("rollout/ep_rew_mean")]
    assert rows
    for r in rows:
        total = float(r["rollout/ep_reward_dist_mean"]) + float(r["rollout/ep_reward_ctrl_mean"])
        assert total == pytest.approx(float(r["rollout/ep_rew_mean"]), rel=1e-5)
    # the eval env scores with the training env kwargs: dist_weight doubles the distance term
    assert result["success_rate"] is not None


def test_train_cli_td3_progress_bar(tmp_path):
    out = tmp_path / "td3"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "training.train",
            "--env",
            "toy/PointReach-v0",
            "--algo",
            "td3",
            "--steps",
            "600",
            "--eval-freq",
            "300",
            "--eval-episodes",
            "2",
            "--checkpoint-freq",
            "300",
            "--hp",
            "learning_starts=100",
            "noise_type=normal",
            "noise_std=0.2",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env=dict(os.environ, PYTHONPATH=REPO),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.load(open(out / "result.json"))
    _check_run(str(out), result, frames=51)
    assert "600/600" in proc.stdout.replace(",", "")  # the rich progress bar reached the end
    assert f"run directory: {out}" in proc.stdout and "learning curve:" in proc.stdout


def test_sac_her_goal_env_and_enjoy(tmp_path, capsys):
    cfg = _tiny(
        "toy/PointReachGoal-v0",
        "sac",
        config="armreachgoal_sac.yaml",
        overrides={"steps": 400, "eval_freq": 200, "checkpoint_freq": 200, "video_episodes": 2},
        hp={"learning_starts": 120, "buffer_size": 10_000, "batch_size": 32},
    )
    out = str(tmp_path / "her")
    result = run(cfg, out, progress_bar=False)
    _check_run(out, result, frames=102)
    from stable_baselines3 import SAC, HerReplayBuffer

    model = SAC.load(os.path.join(out, "model.zip"), env=make_vec_env("toy/PointReachGoal-v0", 1))
    assert isinstance(model.replay_buffer, HerReplayBuffer)
    assert result["success_rate"] is not None and len(np.load(os.path.join(out, "evaluations.npz"))["successes"])
    capsys.readouterr()
    video = str(tmp_path / "replay.mp4")
    ro = enjoy(out, episodes=3, video=video, which="best")
    text = capsys.readouterr().out
    assert len(ro.returns) == 3 and len(ro.successes) == 3
    for i, r in enumerate(ro.returns):
        assert f"episode {i + 1}: return {r:.2f}  length 50" in text
    assert "mean return" in text and "success rate" in text
    assert iio.imread(video).shape == (153, 64, 64, 3)
    again = enjoy(out, episodes=3, which="best")  # deterministic policy, same seeds: same returns
    assert again.returns == ro.returns


def test_frame_stack_run_and_replay(tmp_path):
    """frame_stack: 3 stacks the training, evaluation and replay envs alike (VecFrameStack; the replay's single env
    through SB3's StackedObservations gives VecFrameStack's observations)."""
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv, VecFrameStack

    from training.video import _Stacker

    cfg = _tiny("toy/PointReach-v0", "ppo", hp={"n_steps": 128, "batch_size": 64}, overrides={"frame_stack": 3})
    out = str(tmp_path / "stacked")
    result = run(cfg, out, progress_bar=False)
    _check_run(out, result, frames=51)
    assert PPO.load(os.path.join(out, "model.zip")).observation_space.shape == (12,)
    assert len(enjoy(out, episodes=2).returns) == 2
    ref = VecFrameStack(DummyVecEnv([lambda: gym.make("toy/PointReach-v0")]), 3)
    ref.seed(4)
    env = gym.make("toy/PointReach-v0")
    stack = _Stacker(env.observation_space, 3)
    np.testing.assert_array_equal(ref.reset()[0], stack.reset(env.reset(seed=4)[0]))
    for t in range(6):
        a = np.full(2, 0.1 * t, np.float32)
        np.testing.assert_array_equal(ref.step(a[None])[0][0], stack.update(env.step(a)[0]))


def test_video_degrades_when_env_cannot_render(tmp_path, capsys):
    cfg = _tiny(
        "toy/PointReach-v0",
        "ppo",
        reward={"renderable": False},
        hp={"n_steps": 256, "batch_size": 64},
        overrides={"steps": 256, "eval_freq": 0, "checkpoint_freq": 0},
    )
    out = str(tmp_path / "norender")
    result = run(cfg, out, progress_bar=False)
    text = capsys.readouterr().out
    assert result["video"] is None and not os.path.exists(os.path.join(out, "video.mp4"))
    assert (
        "no video: toy/PointReach-v0: render() failed in rgb_array mode: RuntimeError: PointReach was built "
        "with renderable=False" in text
    )
    assert "python -m training.enjoy" in text
    assert os.path.exists(os.path.join(out, "model.zip")) and result["eval_timesteps"] == [256]


def test_hopper_v5_rl_zoo_config(tmp_path, capsys):
    """Gymnasium's MuJoCo Hopper with RL Zoo's PPO config: reward terms logged, video made or clearly skipped."""
    cfg = C.resolve(
        "Hopper-v5",
        "ppo",
        None,
        {"steps": 1024, "eval_freq": 1024, "n_eval_episodes": 1, "checkpoint_freq": 0},
        reward={"ctrl_cost_weight": 0.01},
    )
    out = str(tmp_path / "hopper")
    result = run(cfg, out, progress_bar=False)
    text = capsys.readouterr().out
    rows = [r for r in _progress(out) if r.get("rollout/ep_rew_mean")]
    for r in rows:
        terms = sum(float(r[f"rollout/ep_reward_{k}_mean"]) for k in ("forward", "ctrl", "survive"))
        assert terms == pytest.approx(float(r["rollout/ep_rew_mean"]), rel=1e-5)
    if result["video"] is None:  # MuJoCo's renderer needs an OpenGL context this machine may not have
        assert "no video: Hopper-v5" in text
    else:
        assert iio.imread(result["video"]).ndim == 4
    assert result["timesteps"] == 1024 and os.path.exists(os.path.join(out, "vecnormalize.pkl"))


def test_hopper_ppo_fast_config_runs(tmp_path):
    """The main-job config (training/configs/numjoco/hopper_ppo_fast.yaml, ours) loads and a few hundred steps of it
    train on Gymnasium's Hopper-v5 (the same settings, shorter rollouts)."""
    path = os.path.join(C.CONFIG_DIR, "numjoco", "hopper_ppo_fast.yaml")
    raw = C.load_yaml(path)
    assert raw["algo"] == "ppo" and "numjoco/Hopper-v0" in raw["envs"] and "not RL Zoo" in raw["source"]
    cfg = C.resolve("numjoco/Hopper-v0", "ppo", path)
    assert cfg["steps"] == raw["steps"] and cfg["n_envs"] == raw["n_envs"] and cfg["hyperparams"] == raw["hyperparams"]
    kw = C.algo_kwargs(cfg, gym.spaces.Box(-1, 1, (3,)))
    assert kw["batch_size"] <= kw["n_steps"] * cfg["n_envs"] and kw["learning_rate"] == 3e-4
    over = {"steps": 256, "n_envs": 2, "eval_freq": 0, "n_eval_episodes": 1, "checkpoint_freq": 0, "video_episodes": 0}
    small = C.resolve("Hopper-v5", "ppo", path, over, hyperparams={"n_steps": 128, "batch_size": 64})
    result = run(small, str(tmp_path / "fast"), progress_bar=False)
    assert result["timesteps"] == 256 and result["eval_timesteps"] == [256]
    assert os.path.exists(os.path.join(tmp_path, "fast", "learning_curve.png"))


def test_pixels_config_resolves():
    """The pixel learning-curve config (training/configs/numjoco/inverted_pendulum_pixels_ppo.yaml, ours): CnnPolicy
    on 84 x 84 images with 3 stacked frames, images not normalised; its PPO keywords convert."""
    path = os.path.join(C.CONFIG_DIR, "numjoco", "inverted_pendulum_pixels_ppo.yaml")
    raw = C.load_yaml(path)
    assert "not RL Zoo" in raw["source"] and raw["envs"] == ["numjoco/InvertedPendulum-v0"]
    cfg = C.resolve(raw["envs"][0], "ppo", path)
    assert cfg["policy"] == "CnnPolicy" and cfg["frame_stack"] == 3 and cfg["normalize"] is False
    assert cfg["env_kwargs"] == {"obs_type": "pixels", "width": 84, "height": 84}
    kw = C.algo_kwargs(cfg, gym.spaces.Box(-1, 1, (1,)))
    assert (kw["n_steps"], kw["n_epochs"], kw["batch_size"], kw["learning_rate"]) == (128, 4, 256, 3e-4)
    assert cfg["steps"] % (kw["n_steps"] * cfg["n_envs"]) == 0  # whole updates
    with pytest.raises(C.ConfigError, match="frame_stack"):
        C.resolve(raw["envs"][0], "ppo", path, {"frame_stack": -1})


def test_resume_from_checkpoint(tmp_path):
    cfg = _tiny(
        "toy/PointReach-v0",
        "sac",
        hp={"learning_starts": 100, "batch_size": 32},
        overrides={"steps": 600, "eval_freq": 200, "checkpoint_freq": 200, "keep_checkpoints": 2, "video_episodes": 0},
    )
    out = str(tmp_path / "run")
    first = run(cfg, out, progress_bar=False)
    ckpts = sorted(os.listdir(os.path.join(out, "checkpoints")))
    assert ckpts == [
        "latest.json",
        "model_400_steps.zip",
        "model_600_steps.zip",
        "replay_buffer_400_steps.pkl",
        "replay_buffer_600_steps.pkl",
    ]  # pruned to the newest 2
    assert first["eval_timesteps"] == [200, 400, 600]
    point = find_resume_point(os.path.join(out, "checkpoints", "model_400_steps.zip"))
    assert (point.run_dir, point.steps) == (out, 400) and point.replay_buffer.endswith("_400_steps.pkl")
    assert find_resume_point(out).steps == 600
    rc = train_main(["--resume", point.model, "--steps", "1000", "--no-progress", "--no-video"])
    assert rc == 0
    res = json.load(open(os.path.join(out, "result.json")))
    assert res["timesteps"] == 1000
    assert res["eval_timesteps"] == [200, 400, 600, 800, 1000]  # history up to the checkpoint kept, then continued
    assert res["eval_mean"][:2] == first["eval_mean"][:2]
    from stable_baselines3 import SAC

    assert SAC.load(os.path.join(out, "model.zip")).num_timesteps == 1000
    # the earlier session's monitor rows stop at the checkpoint; the curve reads both parts
    from training.plotting import read_monitor

    part = open(os.path.join(out, "monitor.part1.csv")).read().splitlines()[2:]
    assert sum(int(float(line.split(",")[1])) for line in part) == 400
    steps, _ = read_monitor(out)
    assert steps[-1] == 1000
    with pytest.raises(C.ConfigError, match="cannot change"):
        from training.train import build_parser, config_from_args

        config_from_args(build_parser().parse_args(["--resume", out, "--reward", "dist_weight=3"]))


def test_warm_renderer_renders_a_frame_in_the_background():
    # the main job's final video loads the renderer the background process compiled during training
    from training.video import warm_renderer

    assert warm_renderer("Hopper-v5", {}) is None  # not ours: nothing to compile
    assert warm_renderer("numjoco/Hopper-v0", {"x": object()}) is None  # kwargs that do not survive repr
    proc = warm_renderer("numjoco/InvertedPendulum-v0", {"width": 32, "height": 32})
    assert proc is not None and proc.wait(timeout=900) == 0
