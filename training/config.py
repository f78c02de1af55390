"""Run configurations: YAML files in RL Zoo's vocabulary, defaults per task, CLI overrides, SB3 kwargs.

A config is a mapping with these keys (every one optional in a file; `resolve` fills the rest):

    source        where the hyperparameters come from (free text, kept in the run directory)
    env, algo     the env id and ppo | sac | td3
    steps         total environment steps
    n_envs, seed, device, vec_env (dummy | subproc), torch_threads
    normalize     false | true | {norm_obs: ..., norm_reward: ..., clip_obs: ...}  (VecNormalize; gamma from the
                  algorithm's gamma as in RL Zoo)
    policy        MlpPolicy | CnnPolicy | MultiInputPolicy (chosen from the observation space when absent: CnnPolicy
                  for image observations, e.g. a Control Suite task with obs_type: pixels)
    frame_stack   stack the last k observations (SB3's VecFrameStack, as RL Zoo's frame_stack; 0 or 1: none); the
                  evaluation env, the video and training.enjoy stack alike
    hyperparams   the algorithm's constructor kwargs as in RL Zoo's YAML (lin_X schedules, policy_kwargs map with
                  activation_fn by name, replay_buffer_class: HerReplayBuffer, noise_type / noise_std)
    env_kwargs    constructor kwargs of the env (--reward key=value adds to these)
    wrappers      reward-shaping wrapper specs (training/shaping.py)
    eval_env_kwargs  kwargs of the evaluation env (default: env_kwargs); eval_wrappers likewise (default: none)
    eval_freq, n_eval_episodes, checkpoint_freq, keep_checkpoints, save_replay_buffer, video_episodes,
    video_length  logging/evaluation settings (in environment steps)
    envs          ids a shipped file is meant for (informational)
"""

from __future__ import annotations

import copy
import os
import re
from typing import Any

import yaml

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
CONFIG_DIR = os.path.join(PACKAGE_DIR, "configs")
SWEEP_DIR = os.path.join(PACKAGE_DIR, "sweeps")
ALGOS = ("ppo", "sac", "td3")

DEFAULTS: dict[str, Any] = {
    "source": "stable-baselines3 defaults (no tuned config for this task)",
    "env": None,
    "algo": None,
    "steps": 100_000,
    "n_envs": 1,
    "seed": 0,
    "device": "cpu",
    "vec_env": "dummy",
    "torch_threads": 1,
    "normalize": False,
    "policy": None,
    "frame_stack": 0,
    "hyperparams": {},
    "env_kwargs": {},
    "wrappers": [],
    "eval_env_kwargs": None,
    "eval_wrappers": [],
    "eval_freq": 10_000,
    "n_eval_episodes": 5,
    "checkpoint_freq": 100_000,
    "keep_checkpoints": 3,
    "save_replay_buffer": True,
    "video_episodes": 1,
    "video_length": 1000,
    "envs": [],
    "config_file": None,
}


class _Loader(yaml.SafeLoader):
    """SafeLoader that reads 1e-3 as a float (YAML 1.1 wants 1.0e-3)."""


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
                |\.[0-9_]+(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$""",
        re.X,
    ),
    list("-+0123456789."),
)


def yaml_load(text_or_stream):
    """yaml.safe_load, except that 1e-3 is a float."""
    return yaml.load(text_or_stream, Loader=_Loader)


class ConfigError(ValueError):
    """A bad configuration (unknown key, wrong algo, bad value): raised before any training starts."""


def cli_exit(fn, *args, errors: tuple = (), **kwargs) -> int:
    """Call `fn` for a command line: a ConfigError (or one of `errors`) prints ``error: ...`` and gives exit code
    2, success 0."""
    try:
        fn(*args, **kwargs)
    except (ConfigError, *errors) as exc:
        import sys

        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def task_name(env_id: str) -> str:
    """'numjoco/Hopper-v0' -> 'hopper', 'Hopper-v5' -> 'hopper', 'mod:toy/PointReach-v0' -> 'pointreach'."""
    name = env_id.split(":")[-1].split("/")[-1]
    base, sep, version = name.rpartition("-v")
    if sep and version.isdigit():
        name = base
    return name.lower()


def default_config_path(env_id: str, algo: str) -> str | None:
    """The shipped tuned config for (task, algo): training/configs/<task>_<algo>.yaml, or None."""
    path = os.path.join(CONFIG_DIR, f"{task_name(env_id)}_{algo}.yaml")
    return path if os.path.exists(path) else None


def find_file(path: str, shipped_dir: str, what: str = "config file") -> str:
    """`path` as given when it exists, else the shipped file it names: relative to `shipped_dir`
    (``cleanrl/hopper_ppo.yaml``) or written as in a source checkout (``training/configs/cleanrl/hopper_ppo.yaml``),
    so the commands of the docs work from an installed wheel too; ConfigError when none exists."""
    if os.path.exists(path):
        return path
    for alt in (os.path.join(shipped_dir, path), os.path.join(os.path.dirname(PACKAGE_DIR), path)):
        if os.path.exists(alt):
            return alt
    raise ConfigError(f"{what} not found: {path}")


def load_yaml(path: str) -> dict[str, Any]:
    """Load a config file; unknown top-level keys are an error naming the valid ones."""
    path = find_file(path, CONFIG_DIR)
    with open(path) as f:
        data = yaml_load(f) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a config is a mapping, got {type(data).__name__}")
    unknown = sorted(set(data) - set(DEFAULTS))
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {', '.join(unknown)}; valid keys: {', '.join(DEFAULTS)}")
    return data


def parse_assignments(items: list[str] | None, what: str = "--reward") -> dict[str, Any]:
    """['a=1.5', 'b=sparse', 'c=[0.7, 2]'] -> {'a': 1.5, 'b': 'sparse', 'c': [0.7, 2]} (values parsed as YAML)."""
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{what} expects key=value, got {item!r}")
        try:
            out[key.strip()] = yaml_load(value)
        except yaml.YAMLError as exc:
            raise ConfigError(f"{what} {item!r}: cannot parse the value: {exc}") from None
    return out


def resolve(
    env: str | None = None,
    algo: str | None = None,
    config_path: str | None = None,
    overrides: dict[str, Any] | None = None,
    reward: dict[str, Any] | None = None,
    hyperparams: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Merge defaults <- the tuned file for (task, algo) or `config_path` <- `overrides` (CLI) and validate.

    `reward` entries are added to ``env_kwargs``; `hyperparams` entries override ``hyperparams``.
    """
    file_cfg: dict[str, Any] = load_yaml(config_path) if config_path else {}
    env = env or file_cfg.get("env")
    algo = (algo or file_cfg.get("algo") or "").lower() or None
    if env is None:
        raise ConfigError("no environment: pass --env ID (or set 'env' in the config file)")
    if algo is None:
        raise ConfigError(f"no algorithm: pass --algo {{{', '.join(ALGOS)}}} (or set 'algo' in the config file)")
    if algo not in ALGOS:
        raise ConfigError(f"unknown algo {algo!r}; choose one of {', '.join(ALGOS)}")
    if file_cfg.get("algo") and file_cfg["algo"].lower() != algo:
        raise ConfigError(f"{config_path} is a config for {file_cfg['algo']}, not {algo}")
    if not config_path:
        tuned = default_config_path(env, algo)
        if tuned:
            file_cfg = load_yaml(tuned)
            config_path = tuned
    cfg = copy.deepcopy(DEFAULTS)
    cfg.update(copy.deepcopy(file_cfg))
    cfg["env"], cfg["algo"] = env, algo
    cfg["config_file"] = os.path.relpath(config_path) if config_path else None
    for k, v in (overrides or {}).items():
        if v is not None:
            cfg[k] = v
    cfg["env_kwargs"] = {**(cfg.get("env_kwargs") or {}), **(reward or {})}
    cfg["hyperparams"] = {**(cfg.get("hyperparams") or {}), **(hyperparams or {})}
    validate(cfg)
    return cfg


def validate(cfg: dict[str, Any]) -> None:
    """Checks that need no env: types and ranges of the run settings."""
    cfg.setdefault("frame_stack", 0)  # run directories written before the key existed
    for key in (
        "steps",
        "n_envs",
        "eval_freq",
        "n_eval_episodes",
        "checkpoint_freq",
        "keep_checkpoints",
        "video_episodes",
        "video_length",
        "torch_threads",
        "frame_stack",
    ):
        v = cfg.get(key)
        if not isinstance(v, int) or isinstance(v, bool) or v < (1 if key in ("steps", "n_envs") else 0):
            raise ConfigError(
                f"{key} must be a non-negative integer ({'>= 1' if key in ('steps', 'n_envs') else ''}), got {v!r}"
            )
    if cfg["vec_env"] not in ("dummy", "subproc"):
        raise ConfigError(f"vec_env must be 'dummy' or 'subproc', got {cfg['vec_env']!r}")
    for key in ("env_kwargs", "hyperparams"):
        if not isinstance(cfg.get(key), dict):
            raise ConfigError(f"{key} must be a mapping, got {cfg.get(key)!r}")
    if not isinstance(cfg.get("wrappers"), list):
        raise ConfigError(f"wrappers must be a list of wrapper specs, got {cfg.get('wrappers')!r}")
    from training.shaping import validate_specs  # imports SB3 (the wrappers subclass VecEnvWrapper)

    validate_specs(cfg["wrappers"])
    validate_specs(cfg.get("eval_wrappers") or [])


def save(cfg: dict[str, Any], path: str) -> None:
    with open(path, "w") as f:
        yaml.safe_dump(cfg, f, sort_keys=False, default_flow_style=None)


# ---- conversion to stable-baselines3 objects -------------------------------------------------------------------

_ACTIVATIONS = {"relu": "ReLU", "tanh": "Tanh", "gelu": "GELU", "elu": "ELU", "leaky_relu": "LeakyReLU", "silu": "SiLU"}


def _schedule(value):
    """'lin_3e-4' -> linear schedule from 3e-4 to 0 (RL Zoo's notation); numbers pass through."""
    if isinstance(value, str) and value.startswith("lin_"):
        from stable_baselines3.common.utils import LinearSchedule

        return LinearSchedule(float(value[4:]), 0.0, 1.0)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            raise ConfigError(f"cannot read schedule {value!r} (a number or 'lin_<start>')") from None
    return value


def normalize_kwargs(cfg: dict[str, Any]) -> dict[str, Any] | None:
    """VecNormalize kwargs (None when normalization is off); gamma follows the algorithm's, as in RL Zoo."""
    norm = cfg.get("normalize")
    if not norm:
        return None
    kwargs = dict(norm) if isinstance(norm, dict) else {}
    if "gamma" in cfg["hyperparams"]:
        kwargs.setdefault("gamma", cfg["hyperparams"]["gamma"])
    return kwargs


def algo_class(algo: str):
    """The SB3 algorithm class of `algo` (ppo, sac, td3); imports SB3."""
    from stable_baselines3 import PPO, SAC, TD3

    return {"ppo": PPO, "sac": SAC, "td3": TD3}[algo]


def algo_kwargs(cfg: dict[str, Any], action_space) -> dict[str, Any]:
    """The algorithm constructor kwargs from ``cfg['hyperparams']`` (RL Zoo vocabulary -> SB3 objects)."""
    import numpy as np
    import torch.nn as nn

    hp = copy.deepcopy(cfg["hyperparams"])
    for key in ("learning_rate", "clip_range", "clip_range_vf"):
        if key in hp:
            hp[key] = _schedule(hp[key])
    pk = hp.get("policy_kwargs")
    if isinstance(pk, dict) and isinstance(pk.get("activation_fn"), str):
        name = pk["activation_fn"].lower()
        if name not in _ACTIVATIONS:
            raise ConfigError(f"unknown activation_fn {pk['activation_fn']!r}; known: {', '.join(_ACTIVATIONS)}")
        pk["activation_fn"] = getattr(nn, _ACTIVATIONS[name])
    if hp.get("replay_buffer_class") is not None:
        name = hp["replay_buffer_class"]
        if name != "HerReplayBuffer":
            raise ConfigError(f"replay_buffer_class {name!r}: only HerReplayBuffer is supported")
        if cfg["algo"] == "ppo":
            raise ConfigError("HerReplayBuffer needs an off-policy algorithm (sac or td3), not ppo")
        from stable_baselines3 import HerReplayBuffer

        hp["replay_buffer_class"] = HerReplayBuffer
    noise_type = hp.pop("noise_type", None)
    noise_std = hp.pop("noise_std", None)
    if noise_type is not None:
        from stable_baselines3.common.noise import NormalActionNoise, OrnsteinUhlenbeckActionNoise

        n = action_space.shape[0]
        cls = {"normal": NormalActionNoise, "ornstein-uhlenbeck": OrnsteinUhlenbeckActionNoise}.get(noise_type)
        if cls is None:
            raise ConfigError(f"unknown noise_type {noise_type!r} (normal | ornstein-uhlenbeck)")
        hp["action_noise"] = cls(mean=np.zeros(n), sigma=float(noise_std or 0.1) * np.ones(n))
    for key in ("train_freq",):
        if isinstance(hp.get(key), list):
            hp[key] = tuple(hp[key])
    return hp
