"""`numjoco-precompile`: build numjoco's kernel cache ahead of time, for Docker images, clusters, CI and wheels.

    numjoco-precompile                                   # every registered numjoco id (every family installed)
    numjoco-precompile numjoco/Hopper-v0 assets/hopper.xml --render --jobs 2
    numjoco-precompile --family dmc --family robotics    # the DMC ids, the Fetch and Shadow Hand ids
    numjoco-precompile --render --ship sim/_kernels      # the shipped kernels of a wheel (docs/install.md)

Targets are task ids ('numjoco/Hopper-v0', or 'Hopper-v0') and MJCF / URDF files.  A task runs what a first use
compiles, in a fresh process: gym.make, reset, step (and render with --render), then gym.make_vec of two worlds and
of LANES worlds (stepped in blocks): reset, step, a partial reset; a model file runs sim.step and sim.forward on one
world and batches (sim/precompile.py; the options --jobs, --portable and --ship: sim/jit/precompile.py).
"""

import argparse
import os
import sys

from sim.jit import precompile as _sim_precompile
from sim.precompile import compile_model, model_key

# the families of registered ids: what --family selects
FAMILIES = ("gymnasium", "arm", "dmc", "robotics")


def is_task(target):
    """A task id ('numjoco/Hopper-v0', or 'Hopper-v0' for a numjoco task) rather than a model file."""
    return os.path.splitext(target)[1].lower() not in (".xml", ".urdf", ".mjcf")


def task_id(target):
    return target if "/" in target else "numjoco/" + target


def compile_task(env_id, render):
    """What a first use of the task compiles (env and vector env); returns its feature set's description."""
    import gymnasium as gym
    import numpy as np

    import envs  # noqa: F401  (registers numjoco/*)
    from sim import api as smooth_api
    from sim.jit import features

    env = gym.make(env_id, render_mode="rgb_array" if render else None)
    env.reset(seed=0)
    env.step(env.action_space.sample())
    if render:
        env.render()
    desc = features.describe(smooth_api.model_features(env.unwrapped.model))
    env.close()
    # two worlds step world by world, LANES or more in blocks (sim/engine/batch, docs/simd.md)
    for n in (2, smooth_api.LANES):
        vec = gym.make_vec(env_id, num_envs=n)
        vec.reset(seed=0)
        vec.step(vec.action_space.sample())
        vec.reset(options={"reset_mask": np.arange(n) == 0})
        vec.close()
    return desc


def compile_target(target, render=False):
    """A task id or a model file: what its first use compiles."""
    if is_task(target):
        return compile_task(task_id(target), render)
    return compile_model(target, render)


def feature_key(target):
    """The feature set of the target's model (repr)."""
    if not is_task(target):
        return model_key(target)
    import gymnasium as gym

    import envs  # noqa: F401
    from sim import api as smooth_api

    env = gym.make(task_id(target))
    try:
        return repr(smooth_api.model_features(env.unwrapped.model))
    finally:
        env.close()


def family_ids(family):
    """The registered ids of one family: gymnasium (the v5 tasks), arm (arm reach), dmc, robotics (Fetch and
    Shadow Hand; empty without gymnasium-robotics, whose model files they read)."""
    import importlib.util

    import envs

    if family == "gymnasium":
        return ["numjoco/" + n for n in envs.TASKS if not n.startswith("ArmReach")]
    if family == "arm":
        return ["numjoco/" + n for n in envs.TASKS if n.startswith("ArmReach")]
    if family == "dmc":
        return [envs.dmc.env_id(*t) for t in envs.dmc.TASKS]
    if family == "robotics":
        if importlib.util.find_spec("gymnasium_robotics") is None:
            return []
        return [i for i, _, _ in envs.robotics.env_ids()]
    raise ValueError(f"unknown family {family!r}: one of {', '.join(FAMILIES)}")


def default_targets(families=FAMILIES):
    """Every registered numjoco id of `families`."""
    return [i for f in families for i in family_ids(f)]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="numjoco-precompile", description=__doc__.split("\n")[0])
    ap.add_argument("targets", nargs="*", help="task ids and MJCF / URDF files (default: every registered id)")
    ap.add_argument("--family", action="append", choices=FAMILIES, help="the ids of a family (repeatable)")
    _sim_precompile.add_arguments(ap)
    args = ap.parse_args(argv)
    if args.jobs < 1:
        ap.error("--jobs must be >= 1")
    for t in args.targets:
        if not is_task(t) and not os.path.exists(t):
            ap.error(f"no such model file: {t}")
    targets = list(args.targets)
    if args.family or not targets:
        targets += default_targets(args.family or FAMILIES)
    return _sim_precompile.run(args, targets, compile_target, feature_key, args.render)


if __name__ == "__main__":
    sys.exit(main())
