"""Train an agent: ``python -m training.train --env ID --algo ppo|sac|td3 [options]``.

Stable-Baselines3 PPO / SAC / TD3 (SAC or TD3 + HER when the config names HerReplayBuffer and the env is
goal-conditioned) with RL Zoo's tuned hyperparameters per task (training/configs/<task>_<algo>.yaml), a progress
bar, periodic deterministic evaluation on a separate env (VecNormalize statistics synced), CSV + TensorBoard
logs, each ``info["reward_*"]`` term logged as an episode mean, checkpoints, the VecNormalize statistics saved
with the model, a learning-curve PNG and an MP4 of the final policy. The run directory holds:

    config.yaml            the resolved configuration (replay / resume read it)
    model.zip, vecnormalize.pkl, replay_buffer.pkl     the final model (+ statistics, + off-policy buffer)
    best_model.zip, best_vecnormalize.pkl              the best evaluated model
    checkpoints/           model_<N>_steps.zip (+ vecnormalize_ / replay_buffer_<N>_steps.pkl), newest kept
    evaluations.npz        deterministic evaluations (SB3's EvalCallback format)
    monitor.csv            training episodes (return, length, time)
    logs/                  progress.csv and TensorBoard events
    learning_curve.png, video.mp4, result.json

``--resume RUN_DIR`` (or a checkpoint .zip) continues from the newest checkpoint up to ``--steps``;
``--backend rllib`` trains RLlib PPO instead (training/rllib_backend.py).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from typing import Any, Callable

from training import config as C
from training.env_factory import check_env_kwargs, env_spec, make_vec_env
from training.plotting import plot_run
from training.rllib_backend import train_rllib
from training.rundir import ResumePoint, find_resume_point
from training.video import load_obs_normalizer, record_video

__all__ = ["run", "main", "build_parser", "config_from_args", "find_resume_point", "ResumePoint"]


def _archive_logs(run_dir: str, upto: int) -> None:
    """Before resuming: keep the earlier session's monitor rows up to `upto` steps and its progress.csv."""
    k = 1
    while os.path.exists(os.path.join(run_dir, f"monitor.part{k}.csv")):
        k += 1
    mon = os.path.join(run_dir, "monitor.csv")
    if os.path.exists(mon):
        with open(mon) as f:
            lines = f.readlines()
        keep, total = lines[:2], 0
        for line in lines[2:]:
            total += int(float(line.split(",")[1]))
            if total > upto:
                break
            keep.append(line)
        with open(os.path.join(run_dir, f"monitor.part{k}.csv"), "w") as f:
            f.writelines(keep)
        os.remove(mon)
    prog = os.path.join(run_dir, "logs", "progress.csv")
    if os.path.exists(prog):
        shutil.move(prog, os.path.join(run_dir, "logs", f"progress.part{k}.csv"))


def _print(msg: str) -> None:
    print(msg, flush=True)


def run(
    cfg: dict[str, Any],
    out_dir: str,
    resume: ResumePoint | None = None,
    progress_bar: bool = True,
    verbose: int = 0,
    video: bool = True,
    on_eval: list[Callable[[dict], None]] | None = None,
) -> dict:
    """Train per `cfg` into `out_dir` and return the run's result (also written to result.json)."""
    t0 = time.time()
    env_id, algo, n_envs, seed = cfg["env"], cfg["algo"], cfg["n_envs"], cfg["seed"]
    env_spec(env_id)
    check_env_kwargs(env_id, cfg["env_kwargs"])
    eval_kwargs = cfg["env_kwargs"] if cfg.get("eval_env_kwargs") is None else cfg["eval_env_kwargs"]
    check_env_kwargs(env_id, eval_kwargs)

    import torch
    from stable_baselines3.common.callbacks import CallbackList
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.preprocessing import is_image_space
    from stable_baselines3.common.vec_env import VecNormalize, VecTransposeImage, is_vecenv_wrapped

    from training.callbacks import (
        PrunedCheckpointCallback,
        RewardTermsCallback,
        RunEvalCallback,  # SB3
        SaveVecNormalizeCallback,
        WarmRendererCallback,
        eval_summary,
        save_checkpoint,
    )

    if cfg["torch_threads"] > 0:
        torch.set_num_threads(cfg["torch_threads"])
    os.makedirs(out_dir, exist_ok=True)
    if resume is not None:
        _archive_logs(out_dir, resume.steps)
        for stale in ("video.mp4", "result.json"):  # describe the earlier session's final policy
            if os.path.exists(os.path.join(out_dir, stale)):
                os.remove(os.path.join(out_dir, stale))
    C.save(cfg, os.path.join(out_dir, "config.yaml"))

    train_env = make_vec_env(
        env_id,
        n_envs,
        seed=seed,
        env_kwargs=cfg["env_kwargs"],
        wrappers=cfg["wrappers"],
        monitor_path=os.path.join(out_dir, "monitor.csv"),
        vec_env=cfg["vec_env"],
        frame_stack=cfg.get("frame_stack", 0),
    )
    eval_env = make_vec_env(
        env_id,
        1,
        seed=seed + 10_000,
        env_kwargs=eval_kwargs,
        wrappers=cfg.get("eval_wrappers") or [],
        frame_stack=cfg.get("frame_stack", 0),
    )
    norm = C.normalize_kwargs(cfg)
    if norm is not None:
        if resume is not None and resume.vecnormalize:
            train_env = VecNormalize.load(resume.vecnormalize, train_env)
            train_env.training = True
        else:
            train_env = VecNormalize(train_env, **norm)
        eval_norm = {k: v for k, v in norm.items() if k not in ("norm_reward", "training")}
        eval_env = VecNormalize(eval_env, training=False, norm_reward=False, **eval_norm)

    import gymnasium as gym

    cls = C.algo_class(algo)
    if resume is not None:
        model = cls.load(resume.model, env=train_env, device=cfg["device"])
        if resume.replay_buffer and hasattr(model, "load_replay_buffer"):
            model.load_replay_buffer(resume.replay_buffer)
    else:
        is_dict = isinstance(train_env.observation_space, gym.spaces.Dict)
        is_image = is_image_space(train_env.observation_space)
        policy = cfg["policy"] or ("MultiInputPolicy" if is_dict else "CnnPolicy" if is_image else "MlpPolicy")
        hp = C.algo_kwargs(cfg, train_env.action_space)
        if hp.get("replay_buffer_class") is not None and not (
            is_dict and "desired_goal" in train_env.observation_space.spaces
        ):
            raise C.ConfigError(
                f"{env_id}: HerReplayBuffer needs a goal-conditioned env (Dict observation with "
                f"observation / achieved_goal / desired_goal), got {train_env.observation_space}"
            )
        model = cls(policy, train_env, seed=seed, device=cfg["device"], verbose=0, **hp)
    if is_vecenv_wrapped(model.get_env(), VecTransposeImage) and not is_vecenv_wrapped(eval_env, VecTransposeImage):
        eval_env = VecTransposeImage(eval_env)  # the model's wrapping of image observations (channels first)
    model.set_logger(configure(os.path.join(out_dir, "logs"), ["csv", "tensorboard"] + (["stdout"] if verbose else [])))

    def _report(s: dict) -> None:
        succ = f", success {s['success_rate']:.2f}" if s["success_rate"] is not None else ""
        _print(
            f"eval @ {s['eval_timesteps'][-1]} steps: return {s['final_return']:.2f} "
            f"+- {s['final_return_std']:.2f}{succ}"
        )

    eval_cb = RunEvalCallback(
        eval_env,
        n_eval_episodes=max(cfg["n_eval_episodes"], 1),
        eval_freq=max(cfg["eval_freq"] // n_envs, 1) if cfg["eval_freq"] else 0,
        log_path=out_dir,
        best_model_save_path=out_dir,
        callback_on_new_best=SaveVecNormalizeCallback(os.path.join(out_dir, "best_vecnormalize.pkl"))
        if norm is not None
        else None,
        verbose=0,
        warn=False,
        on_eval=[_report, *(on_eval or [])],
    )
    if resume is not None:
        eval_cb.load_history(os.path.join(out_dir, "evaluations.npz"), resume.steps)
    ckpt_dir = os.path.join(out_dir, "checkpoints")
    make_video = video and cfg["video_episodes"] > 0
    warm = WarmRendererCallback(env_id, eval_kwargs) if make_video else None
    callbacks = CallbackList(
        [
            RewardTermsCallback(),
            eval_cb,
            PrunedCheckpointCallback(
                cfg["checkpoint_freq"], ckpt_dir, cfg["keep_checkpoints"], cfg["save_replay_buffer"]
            ),
        ]
        + ([warm] if warm else [])
    )
    remaining = cfg["steps"] - model.num_timesteps
    _print(
        f"training {algo.upper()} on {env_id} for {cfg['steps']} steps "
        f"({'resuming at ' + str(model.num_timesteps) if resume else 'from scratch'}; "
        f"{n_envs} env(s), seed {seed}, hyperparameters: {cfg.get('source')}) -> {out_dir}"
    )
    interrupted = False
    t_learn = time.time()
    try:
        if remaining > 0:
            model.learn(remaining, callback=callbacks, progress_bar=progress_bar, reset_num_timesteps=resume is None)
    except KeyboardInterrupt:
        interrupted = True
        _print(f"interrupted at {model.num_timesteps} steps; saving (continue with --resume {out_dir})")
    except BaseException:
        if warm is not None:
            warm.wait(timeout=0)
        raise
    learn_time = time.time() - t_learn
    if (
        cfg["n_eval_episodes"] > 0
        and not interrupted
        and (not eval_cb.evaluations_timesteps or eval_cb.evaluations_timesteps[-1] != model.num_timesteps)
    ):
        eval_cb.evaluate_now(model)

    model.save(os.path.join(out_dir, "model.zip"))
    vn = model.get_vec_normalize_env()
    if vn is not None:
        vn.save(os.path.join(out_dir, "vecnormalize.pkl"))
    if cfg["save_replay_buffer"] and getattr(model, "replay_buffer", None) is not None:
        model.save_replay_buffer(os.path.join(out_dir, "replay_buffer.pkl"))
    if interrupted:
        save_checkpoint(model, ckpt_dir, cfg["save_replay_buffer"])

    title = f"{algo.upper()} on {env_id} (seed {seed})"
    if cfg["env_kwargs"]:
        title += "\n" + ", ".join(f"{k}={v}" for k, v in cfg["env_kwargs"].items())
    curve = plot_run(out_dir, title)
    video_path, video_msg = None, "no video (disabled)"
    if make_video:
        warm.wait()
        video_path, video_msg = record_video(
            model,
            env_id,
            eval_kwargs,
            os.path.join(out_dir, "video.mp4"),
            episodes=cfg["video_episodes"],
            seed=seed + 20_000,
            obs_normalizer=load_obs_normalizer(os.path.join(out_dir, "vecnormalize.pkl")),
            max_frames=cfg["video_length"],
            frame_stack=cfg.get("frame_stack", 0),
        )
    summary = eval_summary(eval_cb.evaluations_timesteps, eval_cb.evaluations_results, eval_cb.evaluations_successes)
    result = {
        "env": env_id,
        "algo": algo,
        "seed": seed,
        "env_kwargs": cfg["env_kwargs"],
        "wrappers": cfg["wrappers"],
        "timesteps": int(model.num_timesteps),
        "steps_target": cfg["steps"],
        "wall_time_s": time.time() - t0,
        "learn_time_s": learn_time,
        "fps": (model.num_timesteps - (resume.steps if resume else 0)) / max(learn_time, 1e-9),
        "interrupted": interrupted,
        "learning_curve": curve,
        "video": video_path,
        **summary,
    }
    with open(os.path.join(out_dir, "result.json"), "w") as f:
        json.dump(result, f, indent=1)
    train_env.close()
    eval_env.close()
    succ = f", success rate {result['success_rate']:.2f}" if result["success_rate"] is not None else ""
    _print(
        f"done: {result['timesteps']} steps in {result['wall_time_s']:.0f} s; final eval return "
        f"{result['final_return']:.2f} (best {result['best_return']:.2f}){succ}\n"
        f"  run directory: {out_dir}\n  learning curve: {curve}\n  {video_msg}\n"
        f"  replay: python -m training.enjoy {out_dir}"
    )
    return result


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m training.train",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--env", help="env id: numjoco/Hopper-v0, Hopper-v5, module:ns/Name-vN, ...")
    p.add_argument("--algo", choices=C.ALGOS)
    p.add_argument("--steps", type=int, help="total environment steps (default: the config's)")
    p.add_argument("--n-envs", type=int, help="parallel environments (default: the config's)")
    p.add_argument("--seed", type=int)
    p.add_argument("--config", help="YAML config (default: training/configs/<task>_<algo>.yaml when it exists)")
    p.add_argument(
        "--reward",
        nargs="+",
        action="extend",
        metavar="KEY=VALUE",
        help="env constructor kwargs, e.g. forward_reward_weight=2.0 ctrl_cost_weight=1e-2",
    )
    p.add_argument(
        "--hp",
        nargs="+",
        action="extend",
        metavar="KEY=VALUE",
        help="algorithm hyperparameter overrides, e.g. learning_rate=3e-4 batch_size=64",
    )
    p.add_argument("--out", help="run directory (default: runs/<task>-<algo>-s<seed>-<time>)")
    p.add_argument("--eval-freq", type=int, help="environment steps between evaluations (0: only at the end)")
    p.add_argument("--eval-episodes", type=int, help="episodes per evaluation")
    p.add_argument("--checkpoint-freq", type=int, help="environment steps between checkpoints (0: none)")
    p.add_argument("--device", help="torch device (default cpu)")
    p.add_argument("--torch-threads", type=int, help="torch CPU threads (default 1; 0 leaves torch's default)")
    p.add_argument("--vec-env", choices=("dummy", "subproc"), help="SB3 vector env for non-native envs")
    p.add_argument("--resume", metavar="RUN_DIR|CHECKPOINT", help="continue a run from its newest checkpoint")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--no-video", action="store_true", help="no MP4 of the final policy")
    p.add_argument("--verbose", action="store_true", help="print SB3's log tables")
    p.add_argument(
        "--backend",
        choices=("sb3", "rllib"),
        default="sb3",
        help="sb3 (default) or rllib (RLlib PPO on Ray; needs the ray extra)",
    )
    p.add_argument("--num-env-runners", type=int, default=2, help="rllib: env-runner actors (default 2)")
    p.add_argument("--ray-address", help="rllib: Ray cluster address (default: $RAY_ADDRESS, else a local Ray)")
    p.add_argument("--num-cpus", type=int, default=2, help="rllib: CPUs of the local Ray (default 2)")
    return p


def config_from_args(args) -> tuple[dict, str, ResumePoint | None]:
    """(resolved config, run directory, resume point) from parsed CLI arguments."""
    overrides = {
        "steps": args.steps,
        "n_envs": args.n_envs,
        "seed": args.seed,
        "eval_freq": args.eval_freq,
        "n_eval_episodes": args.eval_episodes,
        "checkpoint_freq": args.checkpoint_freq,
        "device": args.device,
        "torch_threads": args.torch_threads,
        "vec_env": args.vec_env,
    }
    reward = C.parse_assignments(args.reward, "--reward")
    hps = C.parse_assignments(args.hp, "--hp")
    if args.resume:
        point = find_resume_point(args.resume)
        saved = C.load_yaml(os.path.join(point.run_dir, "config.yaml"))
        for name, given in (("env", args.env), ("algo", args.algo)):
            if given and given != saved[name]:
                raise C.ConfigError(f"--resume: the run was {name} {saved[name]!r}, not {given!r}")
        if reward or hps or args.n_envs or args.config:
            raise C.ConfigError(
                "--resume continues a run as configured: --reward, --hp, --n-envs and --config "
                "cannot change (start a new run instead)"
            )
        if (point.steps < 0) != (args.backend == "rllib"):
            raise C.ConfigError(
                f"--resume {point.run_dir}: an {'RLlib' if point.steps < 0 else 'SB3'} run; "
                f"resume it with --backend {'rllib' if point.steps < 0 else 'sb3'}"
            )
        for k, v in overrides.items():
            if v is not None:
                saved[k] = v
        C.validate(saved)
        return saved, point.run_dir, point
    cfg = C.resolve(args.env, args.algo, args.config, overrides, reward, hps)
    out = args.out or os.path.join(
        "runs", f"{C.task_name(cfg['env'])}-{cfg['algo']}-s{cfg['seed']}-{time.strftime('%Y%m%d-%H%M%S')}"
    )
    return cfg, out, None


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    setup: dict = {}

    def _prepare():
        setup["cfg"], setup["out"], setup["point"] = cfg, out, point = config_from_args(args)
        if args.backend == "sb3":  # fail on bad env ids / kwargs before anything is written
            env_spec(cfg["env"])
            check_env_kwargs(cfg["env"], cfg["env_kwargs"])

    rc = C.cli_exit(_prepare, errors=(ValueError,))
    if rc:
        return rc
    cfg, out, point = setup["cfg"], setup["out"], setup["point"]
    if args.backend == "rllib":
        return C.cli_exit(
            train_rllib,
            cfg,
            out,
            num_env_runners=args.num_env_runners,
            address=args.ray_address,
            num_cpus=args.num_cpus,
            resume=point is not None,
            errors=(ValueError,),
        )
    return C.cli_exit(
        run,
        cfg,
        out,
        resume=point,
        progress_bar=not args.no_progress,
        verbose=int(args.verbose),
        video=not args.no_video,
    )


if __name__ == "__main__":
    sys.exit(main())
