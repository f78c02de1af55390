"""SB3 callbacks of a training run: reward terms, evaluation with history, pruned checkpoints, external reports."""

from __future__ import annotations

import glob
import json
import os
from collections import defaultdict, deque
from typing import Callable

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback, EvalCallback

from training.rundir import list_checkpoints
from training.video import warm_renderer

__all__ = [
    "WarmRendererCallback",
    "RewardTermsCallback",
    "RunEvalCallback",
    "SaveVecNormalizeCallback",
    "PrunedCheckpointCallback",
    "eval_summary",
    "save_checkpoint",
    "list_checkpoints",
]


class WarmRendererCallback(BaseCallback):
    """Starts training.video.warm_renderer when training starts (after the first env reset has compiled the step,
    so the two compiles do not compete); `wait()` before recording the video."""

    def __init__(self, env_id: str, env_kwargs: dict):
        super().__init__()
        self.env_id, self.env_kwargs, self.proc = env_id, env_kwargs, None

    def _on_training_start(self) -> None:
        try:
            self.proc = warm_renderer(self.env_id, self.env_kwargs)
        except OSError:  # no process to spare: the video compiles the renderer itself
            self.proc = None

    def _on_step(self) -> bool:
        return True

    def wait(self, timeout: float = 600.0) -> None:
        """Let the background renderer finish (its kernels are then in the cache); stop it after `timeout` s."""
        import subprocess

        if self.proc is not None:
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None


class RewardTermsCallback(BaseCallback):
    """Logs each ``info`` reward term (keys starting with ``reward_``) as an episode mean.

    For every finished training episode the per-step values of each term are summed; the logger gets
    ``rollout/ep_<term>_mean`` = mean of those episode sums over the last `window` episodes (the same window and
    meaning as SB3's ``rollout/ep_rew_mean``), so the terms add up to the logged return.
    """

    def __init__(self, window: int = 100, prefix: str = "reward_"):
        super().__init__()
        self.window, self.prefix = window, prefix
        self._running: list[dict[str, float]] = []
        self.episodes: dict[str, deque] = defaultdict(lambda: deque(maxlen=self.window))

    def _on_training_start(self) -> None:
        self._running = [defaultdict(float) for _ in range(self.training_env.num_envs)]

    def _on_step(self) -> bool:
        infos, dones = self.locals["infos"], self.locals["dones"]
        for i, info in enumerate(infos):
            acc = self._running[i]
            for k, v in info.items():
                if k.startswith(self.prefix) and np.ndim(v) == 0:
                    acc[k] += float(v)
            if dones[i]:
                for k, total in acc.items():
                    self.episodes[k].append(total)
                self._running[i] = defaultdict(float)
                self._record()
        return True

    def _on_rollout_end(self) -> None:
        # again here: an evaluation in the middle of a PPO rollout dumps (and clears) the logger
        self._record()

    def _record(self) -> None:
        for k, values in self.episodes.items():
            self.logger.record(f"rollout/ep_{k}_mean", float(np.mean(values)))


class RunEvalCallback(EvalCallback):
    """EvalCallback that can continue an earlier run's history (resume) and call `on_eval(summary)` hooks."""

    def __init__(self, *args, on_eval: list[Callable[[dict], None]] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.on_eval = list(on_eval or [])

    def load_history(self, npz_path: str, upto: int) -> None:
        """Take the evaluations of `npz_path` at timesteps <= `upto` as this callback's own."""
        if not os.path.exists(npz_path):
            return
        data = np.load(npz_path)
        keep = [i for i, t in enumerate(data["timesteps"]) if t <= upto]
        self.evaluations_timesteps = [int(data["timesteps"][i]) for i in keep]
        self.evaluations_results = [list(data["results"][i]) for i in keep]
        self.evaluations_length = [list(data["ep_lengths"][i]) for i in keep]
        if "successes" in data:
            self.evaluations_successes = [list(data["successes"][i]) for i in keep if i < len(data["successes"])]
        if self.evaluations_results:
            self.best_mean_reward = float(max(np.mean(r) for r in self.evaluations_results))

    def evaluate_now(self, model) -> None:
        """One evaluation at the model's current step (the end of training), outside `learn`."""
        if self.model is None:
            self.init_callback(model)
        self.num_timesteps = model.num_timesteps
        freq, self.eval_freq = self.eval_freq, 1
        try:
            self._on_step()
        finally:
            self.eval_freq = freq

    def _on_step(self) -> bool:
        n_before = len(self.evaluations_timesteps)
        cont = super()._on_step()
        if len(self.evaluations_timesteps) > n_before:
            summary = eval_summary(self.evaluations_timesteps, self.evaluations_results, self.evaluations_successes)
            for hook in self.on_eval:
                hook(summary)
        return cont


def eval_summary(timesteps, results, successes=None) -> dict:
    """Final / best deterministic evaluation returns and success rate from evaluation histories."""
    means = [float(np.mean(r)) for r in results]
    out = {
        "eval_timesteps": [int(t) for t in timesteps],
        "eval_mean": means,
        "eval_std": [float(np.std(r)) for r in results],
        "final_return": means[-1] if means else float("nan"),
        "final_return_std": float(np.std(results[-1])) if means else float("nan"),
        "best_return": max(means) if means else float("nan"),
        "success_rate": float(np.mean(successes[-1])) if successes else None,
    }
    return out


class SaveVecNormalizeCallback(BaseCallback):
    """Saves the VecNormalize statistics next to the best model (RL Zoo does the same)."""

    def __init__(self, path: str):
        super().__init__()
        self.path = path

    def _on_step(self) -> bool:
        venv = self.model.get_vec_normalize_env()
        if venv is not None:
            venv.save(self.path)
        return True


class PrunedCheckpointCallback(BaseCallback):
    """Every `save_freq` env steps: ``checkpoints/model_<N>_steps.zip`` with its ``vecnormalize_<N>_steps.pkl``
    and (off-policy) ``replay_buffer_<N>_steps.pkl``; keeps the newest `keep` checkpoints (0 = keep all)."""

    def __init__(self, save_freq: int, path: str, keep: int = 3, save_replay_buffer: bool = True):
        super().__init__()
        self.save_freq, self.path, self.keep = save_freq, path, keep
        self.save_replay_buffer = save_replay_buffer
        self._last = 0

    def _on_training_start(self) -> None:
        self._last = self.num_timesteps

    def _on_step(self) -> bool:
        if self.save_freq > 0 and self.num_timesteps - self._last >= self.save_freq:
            self._last = self.num_timesteps
            save_checkpoint(self.model, self.path, self.save_replay_buffer)
            self._prune()
        return True

    def _prune(self) -> None:
        if self.keep <= 0:
            return
        for steps, _ in list_checkpoints(self.path)[: -self.keep]:
            for f in glob.glob(os.path.join(self.path, f"*_{steps}_steps.*")):
                os.remove(f)


def save_checkpoint(model, path: str, save_replay_buffer: bool = True) -> str:
    """Save model + VecNormalize (+ replay buffer) under `path` tagged with the model's timestep count."""
    os.makedirs(path, exist_ok=True)
    n = model.num_timesteps
    zip_path = os.path.join(path, f"model_{n}_steps.zip")
    model.save(zip_path)
    venv = model.get_vec_normalize_env()
    if venv is not None:
        venv.save(os.path.join(path, f"vecnormalize_{n}_steps.pkl"))
    if save_replay_buffer and getattr(model, "replay_buffer", None) is not None:
        model.save_replay_buffer(os.path.join(path, f"replay_buffer_{n}_steps.pkl"))
    with open(os.path.join(path, "latest.json"), "w") as f:
        json.dump({"timesteps": n, "model": os.path.basename(zip_path)}, f)
    return zip_path
