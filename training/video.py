"""Replaying a policy on a single env: returns, success, and rgb frames written to an MP4 (imageio-ffmpeg)."""

from __future__ import annotations

import ast
import os
import pickle
import subprocess
import sys
from dataclasses import dataclass, field

import numpy as np

from training.cluster import IMPORT_ROOT
from training.env_factory import make_env


class RenderUnavailable(RuntimeError):
    """The env cannot produce rgb_array frames here (no render mode, no GL context, renderer missing, ...)."""


@dataclass
class Rollout:
    returns: list[float] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    successes: list[bool] = field(default_factory=list)
    frames: list[np.ndarray] = field(default_factory=list)
    fps: int = 30

    @property
    def success_rate(self) -> float | None:
        return float(np.mean(self.successes)) if self.successes else None


def load_obs_normalizer(path: str | None):
    """The pickled VecNormalize of a run (its `normalize_obs` works without a venv), or None."""
    if not path or not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return pickle.load(f)


def _check_frame(frame, env_id: str) -> np.ndarray:
    if frame is None:
        raise RenderUnavailable(f"{env_id}: render() returned None in rgb_array mode")
    frame = np.asarray(frame)
    if frame.ndim != 3 or frame.shape[2] not in (3, 4):
        raise RenderUnavailable(f"{env_id}: render() returned an array of shape {frame.shape}, not H x W x 3")
    frame = frame[..., :3]
    if frame.dtype != np.uint8:
        frame = np.clip(frame * (255 if frame.max() <= 1.0 else 1), 0, 255).astype(np.uint8)
    # libx264 / yuv420p want even sizes
    h, w = frame.shape[:2]
    return np.pad(frame, ((0, h % 2), (0, w % 2), (0, 0)), mode="edge")


def rollout(
    model,
    env_id: str,
    env_kwargs: dict,
    episodes: int = 1,
    seed: int = 0,
    deterministic: bool = True,
    obs_normalizer=None,
    render: bool = False,
    max_frames: int = 1000,
    frame_stack: int = 0,
) -> Rollout:
    """Run `episodes` episodes of `model` on one ``gym.make(env_id, **env_kwargs)``; frames when `render`; the
    policy sees the last `frame_stack` observations stacked as training's VecFrameStack stacks them.

    Raises RenderUnavailable (with the reason) when `render` is set and the env cannot render rgb_array frames.
    """
    try:
        env = make_env(env_id, env_kwargs, render_mode="rgb_array" if render else None)
    except Exception as exc:  # a renderer that cannot start fails in the constructor
        if render:
            raise RenderUnavailable(
                f"{env_id} cannot be created with render_mode='rgb_array': {type(exc).__name__}: {exc}"
            ) from exc
        raise
    out = Rollout(fps=int(env.metadata.get("render_fps") or 30))
    stack = _Stacker(env.observation_space, frame_stack)
    try:
        for ep in range(episodes):
            obs, info = env.reset(seed=seed + ep)
            obs = stack.reset(obs)
            if render and len(out.frames) < max_frames:
                out.frames.append(_render(env, env_id))
            total, length, done = 0.0, 0, False
            while not done:
                x = obs_normalizer.normalize_obs(obs) if obs_normalizer is not None else obs
                action, _ = model.predict(x, deterministic=deterministic)
                obs, reward, terminated, truncated, info = env.step(action)
                obs = stack.update(obs)
                total += float(reward)
                length += 1
                done = terminated or truncated
                if render and len(out.frames) < max_frames:
                    out.frames.append(_render(env, env_id))
            out.returns.append(total)
            out.lengths.append(length)
            if "is_success" in info:
                out.successes.append(bool(info["is_success"]))
    finally:
        env.close()
    return out


class _Stacker:
    """One env's observations stacked as VecFrameStack stacks them (SB3's StackedObservations over a batch of one);
    frame_stack 0 or 1: passed through."""

    def __init__(self, space, frame_stack: int):
        self.stacked = None
        if frame_stack > 1:
            from stable_baselines3.common.vec_env.stacked_observations import StackedObservations

            self.stacked = StackedObservations(1, frame_stack, space)

    def reset(self, obs):
        return obs if self.stacked is None else _first(self.stacked.reset(_batch(obs)))

    def update(self, obs):
        if self.stacked is None:
            return obs
        return _first(self.stacked.update(_batch(obs), np.zeros(1, bool), [{}])[0])


def _batch(obs):
    return {k: v[None] for k, v in obs.items()} if isinstance(obs, dict) else np.asarray(obs)[None]


def _first(obs):
    return {k: v[0].copy() for k, v in obs.items()} if isinstance(obs, dict) else obs[0].copy()


def _render(env, env_id: str) -> np.ndarray:
    try:
        frame = env.render()
    except RenderUnavailable:
        raise
    except Exception as exc:
        raise RenderUnavailable(
            f"{env_id}: render() failed in rgb_array mode: {type(exc).__name__}: "
            f"{str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
        ) from exc
    return _check_frame(frame, env_id)


def write_video(frames: list[np.ndarray], path: str, fps: int = 30) -> str:
    """Write rgb frames to an H.264 MP4 with imageio-ffmpeg."""
    import imageio.v2 as imageio

    if not frames:
        raise RenderUnavailable("no frames to write")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with imageio.get_writer(path, fps=fps, codec="libx264", macro_block_size=2, quality=7) as writer:
        for frame in frames:
            writer.append_data(frame)
    return path


def warm_renderer(env_id: str, env_kwargs: dict):
    """Start a background process that renders one frame of ``gym.make(env_id, **env_kwargs)``: on a first run it
    compiles the renderer's kernels into the shared cache (~20 s on 2 cores) while training runs here on one torch
    thread, so the final video does not wait for them. Returns the process, or None (not a numjoco task, or kwargs
    that do not survive repr)."""
    if not env_id.startswith("numjoco/"):
        return None
    try:
        if ast.literal_eval(repr(env_kwargs)) != env_kwargs:
            return None
    except (ValueError, SyntaxError):
        return None
    from sim.jit import cache  # numjoco's physics: only for numjoco/ ids

    root = IMPORT_ROOT
    code = (
        "import sys; sys.path.insert(0, %r)\n"
        "from training.env_factory import make_env\n"
        "env = make_env(%r, %r, render_mode='rgb_array'); env.reset(seed=0); env.render(); env.close()\n"
        % (root, env_id, env_kwargs)
    )
    env = dict(os.environ, NUMJOCO_QUIET="1")
    if cache.CACHE_ROOT is not None:
        env["NUMJOCO_CACHE_DIR"] = cache.CACHE_ROOT
    return subprocess.Popen(
        [sys.executable, "-c", code],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def record_video(
    model,
    env_id: str,
    env_kwargs: dict,
    path: str,
    episodes: int = 1,
    seed: int = 0,
    obs_normalizer=None,
    max_frames: int = 1000,
    deterministic: bool = True,
    frame_stack: int = 0,
) -> tuple[str | None, str]:
    """Record the policy to `path`. Returns (path or None, message); never raises for an env that cannot render."""
    try:
        ro = rollout(
            model,
            env_id,
            env_kwargs,
            episodes=episodes,
            seed=seed,
            deterministic=deterministic,
            obs_normalizer=obs_normalizer,
            render=True,
            max_frames=max_frames,
            frame_stack=frame_stack,
        )
        write_video(ro.frames, path, fps=ro.fps)
    except RenderUnavailable as exc:
        return None, (
            f"no video: {exc}. The model is saved; replay it where the env can render with "
            f"`python -m training.enjoy RUN_DIR --video out.mp4`."
        )
    return path, (f"video: {path} ({len(ro.frames)} frames, return {', '.join(f'{r:.1f}' for r in ro.returns)})")
