"""Where training's child processes find the code, and the Ray connection: shared by training.sweep (local
processes and Ray Tune trials) and training.rllib_backend (RLlib env runners).

A child process (a sweep trial, a Ray worker) imports `training`, `envs` and `sim` from the folder this process
imported them from: a source checkout or an installed wheel's site-packages alike.
"""

from __future__ import annotations

import os

#: the folder holding the `training` package (a checkout's root or site-packages)
IMPORT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def child_pythonpath(environ: dict[str, str] | None = None) -> str:
    """PYTHONPATH for a child process: IMPORT_ROOT first, then the entries of `environ`'s (default os.environ)."""
    environ = os.environ if environ is None else environ
    return os.pathsep.join([IMPORT_ROOT] + [p for p in environ.get("PYTHONPATH", "").split(os.pathsep) if p])


def init_ray(address: str | None = None, num_cpus: int = 2) -> None:
    """Connect to the cluster at `address` / $RAY_ADDRESS, or start a local Ray with `num_cpus` CPUs."""
    import ray  # the ray extra: imported only when a Ray backend is used

    if ray.is_initialized():
        return
    address = address or os.environ.get("RAY_ADDRESS")
    runtime_env = {"env_vars": {"PYTHONPATH": child_pythonpath(), "OMP_NUM_THREADS": "1"}}
    if address:
        ray.init(address=address, runtime_env=runtime_env, log_to_driver=False)
    else:
        ray.init(num_cpus=num_cpus, include_dashboard=False, runtime_env=runtime_env, log_to_driver=False)
