"""``python -m training.train --backend rllib``: RLlib PPO, the env running inside each RLlib env runner.

Each of the ``--num-env-runners`` Ray actors builds ``n_envs`` copies of the env: our native Gymnasium VectorEnv
(``gym.make_vec(id, num_envs=n)`` through the spec's vector_entry_point) when the id has one, else Gymnasium's
SyncVectorEnv. Hyperparameters come from the same training config as SB3's PPO, mapped onto RLlib's names
(n_steps x n_envs -> train_batch_size_per_learner, batch_size -> minibatch_size, n_epochs -> num_epochs,
gae_lambda -> lambda_, clip_range -> clip_param, ent_coef -> entropy_coeff, vf_coef -> vf_loss_coeff,
max_grad_norm -> grad_clip, policy_kwargs.net_arch.pi / activation_fn -> fcnet_hiddens / fcnet_activation,
normalize -> MeanStdFilter; SB3 does not clip the value loss, so vf_clip_param is infinite).

Ray: ``ray.init(num_cpus=2)`` locally, or the cluster at ``--ray-address`` / ``$RAY_ADDRESS``. Gymnasium:
RLlib's extra (``ray[rllib]``) pins ``gymnasium==1.2.2``; numjoco keeps the installed gymnasium (1.4), installs
``ray[tune]`` plus RLlib's other requirements (the ``ray`` extra), and this backend runs on that combination
(tested in tests/test_training_sweep.py: test_rllib_ppo).
"""

from __future__ import annotations

import csv
import json
import math
import os
import time
from importlib import metadata

import gymnasium as gym

from training import config as C
from training.cluster import init_ray
from training.env_factory import check_env_kwargs, env_spec, register_env_module
from training.plotting import plot_series


def gymnasium_pin() -> str | None:
    """The gymnasium version RLlib's extra pins in the installed ray's metadata (e.g. '1.2.2'), or None."""
    try:
        reqs = metadata.requires("ray") or []
    except metadata.PackageNotFoundError:
        return None
    for r in reqs:
        head, _, marker = r.partition(";")
        if head.replace(" ", "").startswith("gymnasium==") and "rllib" in marker:
            return head.split("==", 1)[1].strip()
    return None


def check_rllib() -> str:
    """Import RLlib or raise a ConfigError naming what is missing; returns a note on the gymnasium pin."""
    pin = gymnasium_pin()
    try:
        import ray  # noqa: F401
        from ray.rllib.algorithms.ppo import PPOConfig  # noqa: F401
    except ImportError as exc:
        raise C.ConfigError(
            f"--backend rllib needs Ray RLlib ({exc}). Install numjoco's ray extra: pip install -e '.[ray]' "
            f"(ray[tune] plus RLlib's own requirements). Do not install 'ray[rllib]': its extra pins "
            f"gymnasium=={pin or '1.2.2'} and would replace gymnasium {gym.__version__}."
        ) from None
    if pin and pin != gym.__version__:
        return (
            f"note: ray {ray.__version__}'s rllib extra pins gymnasium=={pin}; running RLlib with the installed "
            f"gymnasium {gym.__version__} (the combination numjoco's ray extra installs and tests)"
        )
    return ""


class EnvCreator:
    """RLlib env creator: a vector env when RLlib passes ``num_envs`` (vector_entry_point mode), else one env."""

    def __init__(self, env_id: str, env_kwargs: dict):
        self.env_id, self.env_kwargs = env_id, dict(env_kwargs)

    def __call__(self, ctx):
        bare = register_env_module(self.env_id)
        n = ctx.get("num_envs") if hasattr(ctx, "get") else None
        if n is not None:
            mode = "vector_entry_point" if gym.spec(bare).vector_entry_point is not None else "sync"
            return gym.make_vec(bare, num_envs=int(n), vectorization_mode=mode, **self.env_kwargs)
        return gym.make(bare, **self.env_kwargs)


def ppo_config(cfg: dict, num_env_runners: int):
    """An RLlib PPOConfig from a training config (see the module docstring for the mapping)."""
    from ray.rllib.algorithms.ppo import PPOConfig

    if cfg["algo"] != "ppo":
        raise C.ConfigError(f"--backend rllib trains PPO only, not {cfg['algo']}")
    if cfg.get("wrappers"):
        raise C.ConfigError("--backend rllib does not apply SB3 shaping wrappers; use env kwargs (--reward)")
    if cfg.get("frame_stack", 0) > 1:
        raise C.ConfigError("--backend rllib does not stack frames (SB3's VecFrameStack); set frame_stack: 0")
    hp = cfg["hyperparams"]
    for key in ("learning_rate", "clip_range"):
        if isinstance(hp.get(key), str):
            raise C.ConfigError(
                f"--backend rllib: schedule {key}={hp[key]!r} is not mapped; pass a number with --hp {key}=..."
            )
    n_envs = cfg["n_envs"]
    batch = int(hp.get("n_steps", 2048)) * n_envs
    pk = hp.get("policy_kwargs") or {}
    arch = pk.get("net_arch", [64, 64])
    hidden = list(arch.get("pi", [64, 64]) if isinstance(arch, dict) else arch)
    has_vep = env_spec(cfg["env"]).vector_entry_point is not None
    runners: dict = dict(
        num_env_runners=num_env_runners,
        num_envs_per_env_runner=n_envs,
        gym_env_vectorize_mode="vector_entry_point" if has_vep else "sync",
    )
    if cfg.get("normalize"):
        from ray.rllib.connectors.env_to_module import MeanStdFilter

        runners["env_to_module_connector"] = lambda env, spaces=None, device=None: MeanStdFilter()
    config = (
        PPOConfig()
        .environment("numjoco_training_env")
        .env_runners(**runners)
        .training(
            train_batch_size_per_learner=batch,
            minibatch_size=int(hp.get("batch_size", 64)),
            num_epochs=int(hp.get("n_epochs", 10)),
            lr=float(hp.get("learning_rate", 3e-4)),
            gamma=float(hp.get("gamma", 0.99)),
            lambda_=float(hp.get("gae_lambda", 0.95)),
            clip_param=float(hp.get("clip_range", 0.2)),
            entropy_coeff=float(hp.get("ent_coef", 0.0)),
            vf_loss_coeff=float(hp.get("vf_coef", 0.5)),
            grad_clip=float(hp.get("max_grad_norm", 0.5)),
            vf_clip_param=float("inf"),
        )
        .rl_module(
            model_config={"fcnet_hiddens": hidden, "fcnet_activation": str(pk.get("activation_fn", "tanh")).lower()}
        )
        .learners(num_learners=0)
        .debugging(seed=cfg["seed"])
    )
    if cfg["eval_freq"] and cfg["n_eval_episodes"]:
        config = config.evaluation(
            evaluation_interval=max(1, round(cfg["eval_freq"] / batch)),
            evaluation_num_env_runners=0,
            evaluation_duration=cfg["n_eval_episodes"],
            evaluation_duration_unit="episodes",
            evaluation_config=PPOConfig.overrides(explore=False),
        )
    return config, batch


def _get(d: dict, *keys, default=float("nan")):
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return default
        d = d[k]
    return d


def train_rllib(
    cfg: dict,
    out_dir: str,
    num_env_runners: int = 2,
    address: str | None = None,
    num_cpus: int = 2,
    resume: bool = False,
) -> dict:
    """Train RLlib PPO per `cfg`; writes progress.csv, learning_curve.png, rllib_checkpoint/, result.json."""
    note = check_rllib()
    check_env_kwargs(cfg["env"], cfg["env_kwargs"])
    from ray import tune

    t0 = time.time()
    os.makedirs(out_dir, exist_ok=True)
    cfg = dict(cfg, backend="rllib", num_env_runners=num_env_runners)
    C.save({k: v for k, v in cfg.items() if k in C.DEFAULTS}, os.path.join(out_dir, "config.yaml"))
    if note:
        print(note, flush=True)
    init_ray(address, num_cpus)
    tune.register_env("numjoco_training_env", EnvCreator(cfg["env"], cfg["env_kwargs"]))
    config, batch = ppo_config(cfg, num_env_runners)
    algo = config.build_algo()
    ckpt = os.path.abspath(os.path.join(out_dir, "rllib_checkpoint"))
    rows: list[dict] = []
    prog_path = os.path.join(out_dir, "progress.csv")
    if resume and os.path.isdir(ckpt):
        algo.restore_from_path(ckpt)
        if os.path.exists(prog_path):
            with open(prog_path) as f:
                rows = [
                    {
                        k: (int(float(v)) if k == "timesteps" else float(v)) if v not in ("", None) else math.nan
                        for k, v in r.items()
                    }
                    for r in csv.DictReader(f)
                ]
    print(
        f"training RLlib PPO on {cfg['env']} for {cfg['steps']} steps: {num_env_runners} env runner(s) x "
        f"{cfg['n_envs']} env(s), batch {batch} -> {out_dir}",
        flush=True,
    )
    steps = int(rows[-1]["timesteps"]) if rows else 0
    last_ckpt = steps
    t_learn = time.time()
    while steps < cfg["steps"]:
        r = algo.train()
        steps = int(_get(r, "num_env_steps_sampled_lifetime", default=steps))
        row = {
            "timesteps": steps,
            "episode_return_mean": float(_get(r, "env_runners", "episode_return_mean")),
            "episode_len_mean": float(_get(r, "env_runners", "episode_len_mean")),
            "eval_return_mean": float(_get(r, "evaluation", "env_runners", "episode_return_mean")),
            "time_s": time.time() - t0,
        }
        rows.append(row)
        with open(prog_path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(row))
            w.writeheader()
            w.writerows(rows)
        ev = "" if math.isnan(row["eval_return_mean"]) else f", eval {row['eval_return_mean']:.2f}"
        print(f"iter {len(rows)}: {steps} steps, episode return {row['episode_return_mean']:.2f}{ev}", flush=True)
        if cfg["checkpoint_freq"] and steps - last_ckpt >= cfg["checkpoint_freq"]:
            algo.save_to_path(ckpt)
            last_ckpt = steps
    learn_time = time.time() - t_learn
    algo.save_to_path(ckpt)
    algo.stop()
    evals = [(r["timesteps"], r["eval_return_mean"]) for r in rows if not math.isnan(r["eval_return_mean"])]
    curve = plot_series(
        os.path.join(out_dir, "learning_curve.png"),
        f"RLlib PPO on {cfg['env']} (seed {cfg['seed']})",
        {
            "training episodes (RLlib episode_return_mean)": (
                [r["timesteps"] for r in rows],
                [r["episode_return_mean"] for r in rows],
            ),
            "deterministic evaluation": ([e[0] for e in evals], [e[1] for e in evals]),
        },
    )
    means = [e[1] for e in evals] or [rows[-1]["episode_return_mean"]]
    result = {
        "env": cfg["env"],
        "algo": "ppo",
        "backend": "rllib",
        "seed": cfg["seed"],
        "env_kwargs": cfg["env_kwargs"],
        "timesteps": steps,
        "wall_time_s": time.time() - t0,
        "learn_time_s": learn_time,
        "num_env_runners": num_env_runners,
        "final_return": means[-1],
        "best_return": max(means),
        "eval_timesteps": [e[0] for e in evals],
        "eval_mean": [e[1] for e in evals],
        "checkpoint": ckpt,
        "learning_curve": curve,
    }
    with open(os.path.join(out_dir, "result.json"), "w") as f:
        json.dump(result, f, indent=1)
    print(
        f"done: {steps} steps in {result['wall_time_s']:.0f} s; final return {result['final_return']:.2f}\n"
        f"  run directory: {out_dir}\n  learning curve: {curve}\n  RLlib checkpoint: {ckpt}",
        flush=True,
    )
    return result
