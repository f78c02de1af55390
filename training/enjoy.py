"""Replay a trained policy: ``python -m training.enjoy RUN_DIR [--episodes N] [--video out.mp4]``.

Loads the run's model (final by default; ``--model best`` or a checkpoint .zip) with the VecNormalize statistics
saved beside it, runs deterministic episodes on one env built with the run's env kwargs, prints each return
(and success when the env reports ``is_success``), and optionally writes the frames to an MP4.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from training import config as C
from training.env_factory import make_vec_env
from training.rundir import model_files
from training.video import RenderUnavailable, load_obs_normalizer, rollout, write_video


def enjoy(
    run_dir: str,
    episodes: int = 5,
    video: str | None = None,
    which: str = "final",
    seed: int | None = None,
    deterministic: bool = True,
    max_frames: int = 5000,
):
    """Replay and return the Rollout (returns, lengths, successes); write `video` when given."""
    cfg_path = os.path.join(run_dir, "config.yaml")
    if not os.path.exists(cfg_path):
        raise C.ConfigError(f"{run_dir} is not a run directory (no config.yaml)")
    cfg = C.load_yaml(cfg_path)
    model_path, norm_path = model_files(run_dir, which)
    if not os.path.exists(model_path):
        raise C.ConfigError(f"no model at {model_path}")
    env_kwargs = cfg["env_kwargs"] if cfg.get("eval_env_kwargs") is None else cfg["eval_env_kwargs"]
    # an env to load against (HerReplayBuffer needs one; it also checks the spaces match)
    stack = cfg.get("frame_stack") or 0
    venv = make_vec_env(cfg["env"], 1, seed=0, env_kwargs=env_kwargs, frame_stack=stack)
    model = C.algo_class(cfg["algo"]).load(model_path, env=venv, device=cfg.get("device", "cpu"))
    normalizer = load_obs_normalizer(norm_path)
    seed = cfg.get("seed", 0) + 30_000 if seed is None else seed
    try:
        ro = rollout(
            model,
            cfg["env"],
            env_kwargs,
            episodes=episodes,
            seed=seed,
            deterministic=deterministic,
            obs_normalizer=normalizer,
            render=video is not None,
            max_frames=max_frames,
            frame_stack=stack,
        )
    except RenderUnavailable as exc:
        print(f"no video: {exc}; replaying without frames", file=sys.stderr)
        video = None
        ro = rollout(
            model,
            cfg["env"],
            env_kwargs,
            episodes=episodes,
            seed=seed,
            deterministic=deterministic,
            obs_normalizer=normalizer,
            frame_stack=stack,
        )
    print(
        f"{cfg['algo'].upper()} on {cfg['env']} ({os.path.basename(model_path)}"
        f"{', VecNormalize statistics' if normalizer is not None else ''}):"
    )
    for i, (r, n) in enumerate(zip(ro.returns, ro.lengths)):
        succ = f"  success {ro.successes[i]}" if i < len(ro.successes) else ""
        print(f"  episode {i + 1}: return {r:.2f}  length {n}{succ}")
    print(
        f"mean return {np.mean(ro.returns):.2f} +- {np.std(ro.returns):.2f} over {len(ro.returns)} episodes"
        + (f"; success rate {ro.success_rate:.2f}" if ro.success_rate is not None else "")
    )
    venv.close()
    if video is not None:
        write_video(ro.frames, video, fps=ro.fps)
        print(f"video: {video} ({len(ro.frames)} frames)")
    return ro


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.enjoy", description=__doc__.split("\n\n")[0])
    p.add_argument("run_dir")
    p.add_argument("--episodes", type=int, default=5)
    p.add_argument("--video", metavar="OUT.mp4", help="write the episodes' frames to this MP4")
    p.add_argument("--model", default="final", help="final (default), best, latest (checkpoint) or a .zip path")
    p.add_argument("--seed", type=int, help="seed of the first episode (default: the run's seed + 30000)")
    p.add_argument("--stochastic", action="store_true", help="sample actions instead of the deterministic policy")
    p.add_argument("--max-frames", type=int, default=5000, help="frames kept for the video")
    args = p.parse_args(argv)
    return C.cli_exit(
        enjoy, args.run_dir, args.episodes, args.video, args.model, args.seed, not args.stochastic, args.max_frames
    )


if __name__ == "__main__":
    sys.exit(main())
