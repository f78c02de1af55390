"""Environment construction for training: the one seam between `training` and the environments.

`make_vec_env` is the only place that decides how a vector env is built:

- ids starting with ``numjoco/`` import our `envs` package (which registers them) and use its native SB3 VecEnv
  factory ``envs.make_sb3_vec_env(id, n_envs, seed=..., **env_kwargs)`` when it exists (one batched Data, one
  compiled call per step); until then, SB3's DummyVecEnv over ``gym.make``;
- any other id (Gymnasium's ``Hopper-v5``, ``module:ns/Name-vN``, ...) goes through ``gym.make`` and DummyVecEnv
  (or SubprocVecEnv with ``vec_env="subproc"``).

Either way the result is wrapped the same way: reward-shaping VecEnvWrappers (training/shaping.py), then
VecMonitor (episode returns and lengths), so the logged return is the reward the agent trains on, then
VecFrameStack when frames are stacked (``frame_stack`` > 1).
"""

from __future__ import annotations

import importlib
import inspect
import os
from typing import Any, Callable

import gymnasium as gym

NUMJOCO_PREFIX = "numjoco/"

# namespace prefix -> module whose import registers the ids
_REGISTERING_MODULES = {NUMJOCO_PREFIX: "envs", "toy/": "training.toy_envs"}


def register_env_module(env_id: str) -> str:
    """Import the module that registers `env_id` (``numjoco/`` -> envs, ``toy/`` -> training.toy_envs,
    ``module:id`` -> module) and return the bare id."""
    if ":" in env_id:
        module, env_id = env_id.split(":", 1)
        importlib.import_module(module)
    for prefix, module in _REGISTERING_MODULES.items():
        if env_id.startswith(prefix):
            try:
                importlib.import_module(module)
            except ImportError as exc:
                raise ValueError(
                    f"{env_id}: ids starting with {prefix!r} are registered by the {module!r} "
                    f"package, which cannot be imported here ({exc})"
                ) from exc
    return env_id


def env_spec(env_id: str) -> gym.envs.registration.EnvSpec:
    """The registered EnvSpec of `env_id` (after importing its registering module); clear error if unknown."""
    bare = register_env_module(env_id)
    try:
        return gym.spec(bare)
    except gym.error.Error as exc:
        raise ValueError(f"unknown environment id {env_id!r}: {exc}") from None


def valid_env_kwargs(env_id: str) -> list[str]:
    """Names of the keyword arguments the env's constructor accepts (its own first, then those a ``**kwargs``
    forwards to base classes, e.g. MujocoEnv's ``width``), read from the entry point's signature."""
    spec = env_spec(env_id)
    entry = spec.entry_point
    if isinstance(entry, str):
        mod, _, attr = entry.partition(":")
        entry = getattr(importlib.import_module(mod), attr)
    names: list[str] = []
    # a class's own signature first: it honours __signature__ (numjoco's tasks declare their keywords there and
    # take **kwargs in __init__)
    targets = [entry]
    if inspect.isclass(entry):
        targets += [c.__init__ for c in entry.__mro__[1:] if "__init__" in c.__dict__ and c is not object]
    for depth, fn in enumerate(targets):
        try:
            params = inspect.signature(fn).parameters.values()
        except (TypeError, ValueError):
            break
        # a base class's parameters without a default are necessarily passed by the subclass itself
        names += [
            p.name
            for p in params
            if p.name != "self"
            and p.name not in names
            and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
            and (depth == 0 or p.default is not p.empty)
        ]
        if not any(p.kind == p.VAR_KEYWORD for p in params):
            break
    for k in spec.kwargs:
        if k not in names:
            names.append(k)
    return names


def check_env_kwargs(env_id: str, env_kwargs: dict[str, Any]) -> None:
    """Raise ValueError naming the valid keys when `env_kwargs` holds a key the env's constructor does not take."""
    if not env_kwargs:
        return
    valid = valid_env_kwargs(env_id)
    unknown = [k for k in env_kwargs if k not in valid]
    if unknown:
        raise ValueError(
            f"unknown env kwarg(s) {', '.join(map(repr, unknown))} for {env_id}; valid keys: {', '.join(valid)}"
        )


def make_env(env_id: str, env_kwargs: dict[str, Any] | None = None, render_mode: str | None = None) -> gym.Env:
    """One Gymnasium env (TimeLimit from its spec), e.g. for video and replay."""
    kwargs = dict(env_kwargs or {})
    if render_mode is not None:
        kwargs["render_mode"] = render_mode
    return gym.make(register_env_module(env_id), **kwargs)


def make_vec_env(
    env_id: str,
    n_envs: int,
    seed: int | None = None,
    env_kwargs: dict[str, Any] | None = None,
    wrappers: list | None = None,
    monitor_path: str | None = None,
    vec_env: str = "dummy",
    frame_stack: int = 0,
):
    """An SB3 VecEnv of `n_envs` copies of `env_id` (env i seeded ``seed + i``), shaped, monitored and with its
    last `frame_stack` observations stacked (VecFrameStack; 0 or 1: none).

    `wrappers`: shaping wrapper specs (training/shaping.py); `monitor_path`: VecMonitor's CSV file (or None).
    """
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecFrameStack, VecMonitor

    from training.shaping import apply_shaping  # imports SB3 (VecEnvWrapper)

    env_kwargs = dict(env_kwargs or {})
    bare = register_env_module(env_id)
    venv = None
    if bare.startswith(NUMJOCO_PREFIX):
        import envs as numjoco_envs  # registers numjoco/* ids

        factory: Callable | None = getattr(numjoco_envs, "make_sb3_vec_env", None)
        if factory is not None:
            venv = factory(bare, n_envs, seed=seed, **env_kwargs)
    if venv is None:
        fns = [_EnvFn(bare, env_kwargs) for _ in range(n_envs)]
        venv = SubprocVecEnv(fns) if vec_env == "subproc" and n_envs > 1 else DummyVecEnv(fns)
        if seed is not None:
            venv.seed(seed)
            venv.action_space.seed(seed)
    venv = apply_shaping(venv, wrappers or [])
    if monitor_path is not None:
        os.makedirs(os.path.dirname(monitor_path) or ".", exist_ok=True)
    venv = VecMonitor(venv, filename=monitor_path)
    return VecFrameStack(venv, frame_stack) if frame_stack > 1 else venv


class _EnvFn:
    """Picklable env constructor (SubprocVecEnv pickles it)."""

    def __init__(self, env_id: str, env_kwargs: dict[str, Any]):
        self.env_id, self.env_kwargs = env_id, env_kwargs

    def __call__(self) -> gym.Env:
        register_env_module(self.env_id)
        return gym.make(self.env_id, **self.env_kwargs)
