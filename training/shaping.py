"""Reward-shaping wrappers for sweeps and training configs.

They are SB3 VecEnvWrappers, so they apply the same way to our native batched VecEnv and to a DummyVecEnv over
Gymnasium envs. Each adds its contribution to ``info`` under ``reward_shaping_<name>``, so the reward-term
callback logs it next to the env's own ``reward_*`` terms.

A spec is a dict ``{"name": <registered name or "module:Class">, **kwargs}`` (or just the name):

    wrappers:
      - {name: term_weights, weights: {reward_ctrl: 2.0}}
      - {name: action_rate_penalty, weight: 0.01}
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper


class _ShapingWrapper(VecEnvWrapper):
    """Base: subclasses implement `shape(rewards, infos, dones) -> delta` (n_envs,)."""

    key = "reward_shaping"

    def __init__(self, venv: VecEnv, value: float = 0.0):
        super().__init__(venv)
        self.value = float(value)  # the wrapper's one coefficient (scale, weight or bonus)

    def reset(self):
        return self.venv.reset()

    def step_async(self, actions):
        self._actions = np.asarray(actions)
        self.venv.step_async(actions)

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        delta = np.asarray(self.shape(rewards, infos, dones), dtype=np.float64)
        for i, info in enumerate(infos):
            info[self.key] = float(delta[i])
        return obs, (rewards + delta).astype(rewards.dtype), dones, infos


class RewardScale(_ShapingWrapper):
    """r <- scale * r."""

    key = "reward_shaping_scale"

    def __init__(self, venv: VecEnv, scale: float):
        super().__init__(venv, scale)

    def shape(self, rewards, infos, dones):
        return (self.value - 1.0) * rewards


class TermWeights(_ShapingWrapper):
    """Re-weight the env's own reward terms: r <- r + sum_k (w_k - 1) * info[k] (exact when r = sum of the terms,
    as in Gymnasium's v5 tasks and ours)."""

    key = "reward_shaping_terms"

    def __init__(self, venv: VecEnv, weights: dict[str, float]):
        super().__init__(venv)
        bad = [k for k in weights if not k.startswith("reward_")]
        if bad:
            raise ValueError(f"term_weights keys must be info reward terms (reward_*), got {bad}")
        self.weights = {k: float(w) for k, w in weights.items()}

    def shape(self, rewards, infos, dones):
        out = np.zeros(len(infos))
        for i, info in enumerate(infos):
            for k, w in self.weights.items():
                if k not in info:
                    raise KeyError(
                        f"term_weights: the env reports no {k!r} in info "
                        f"(reward terms it reports: {sorted(x for x in info if x.startswith('reward_'))})"
                    )
                out[i] += (w - 1.0) * float(info[k])
        return out


class ActionRatePenalty(_ShapingWrapper):
    """r <- r - weight * ||a_t - a_{t-1}||^2 (smoothness; no penalty on an episode's first step)."""

    key = "reward_shaping_action_rate"

    def __init__(self, venv: VecEnv, weight: float):
        super().__init__(venv, weight)
        self._prev = None

    def reset(self):
        self._prev = None
        return self.venv.reset()

    def shape(self, rewards, infos, dones):
        a = self._actions.reshape(len(infos), -1).astype(np.float64)
        out = np.zeros(len(infos)) if self._prev is None else -self.value * ((a - self._prev) ** 2).sum(axis=1)
        self._prev = a.copy()
        self._prev[np.asarray(dones, bool)] = np.nan  # next step starts a new episode
        return np.nan_to_num(out, nan=0.0)


class AliveBonus(_ShapingWrapper):
    """r <- r + bonus for every step."""

    key = "reward_shaping_alive"

    def __init__(self, venv: VecEnv, bonus: float):
        super().__init__(venv, bonus)

    def shape(self, rewards, infos, dones):
        return np.full(len(infos), self.value)


class SuccessBonus(_ShapingWrapper):
    """r <- r + bonus on steps where ``info["is_success"]`` is true."""

    key = "reward_shaping_success"

    def __init__(self, venv: VecEnv, bonus: float):
        super().__init__(venv, bonus)

    def shape(self, rewards, infos, dones):
        return np.array([self.value * float(bool(info.get("is_success", False))) for info in infos])


SHAPING_WRAPPERS = {
    "reward_scale": RewardScale,
    "term_weights": TermWeights,
    "action_rate_penalty": ActionRatePenalty,
    "alive_bonus": AliveBonus,
    "success_bonus": SuccessBonus,
}


def _resolve(name: str):
    if name in SHAPING_WRAPPERS:
        return SHAPING_WRAPPERS[name]
    if ":" in name:
        mod, _, attr = name.partition(":")
        cls = getattr(importlib.import_module(mod), attr)
        if not (isinstance(cls, type) and issubclass(cls, VecEnvWrapper)):
            raise ValueError(f"shaping wrapper {name!r} is not a stable_baselines3 VecEnvWrapper subclass")
        return cls
    raise ValueError(
        f"unknown shaping wrapper {name!r}; known: {', '.join(SHAPING_WRAPPERS)} (or 'module:Class' of a VecEnvWrapper)"
    )


def normalize_spec(spec: Any) -> dict[str, Any]:
    """A wrapper spec as a dict with a 'name' key (accepts a bare name)."""
    if isinstance(spec, str):
        return {"name": spec}
    if not isinstance(spec, dict) or "name" not in spec:
        raise ValueError(f"a shaping wrapper spec is a name or a mapping with 'name', got {spec!r}")
    return dict(spec)


def validate_specs(specs: list) -> None:
    """Fail early (before any env is built) on an unknown wrapper name."""
    for spec in specs:
        _resolve(normalize_spec(spec)["name"])


def apply_shaping(venv: VecEnv, specs: list) -> VecEnv:
    """Wrap `venv` in the shaping wrappers of `specs`, innermost first."""
    for spec in specs:
        kw = normalize_spec(spec)
        cls = _resolve(kw.pop("name"))
        venv = cls(venv, **kw)
    return venv


def spec_label(specs: list) -> str:
    """Short human label of a wrapper list, e.g. 'action_rate_penalty(weight=0.01)'; 'none' when empty."""
    if not specs:
        return "none"
    parts = []
    for spec in specs:
        kw = normalize_spec(spec)
        name = kw.pop("name").split(":")[-1]
        parts.append(f"{name}({', '.join(f'{k}={v}' for k, v in kw.items())})")
    return "+".join(parts)
