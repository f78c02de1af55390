"""Build numjoco's kernel cache ahead of time, for Docker images, clusters and CI.

    python -m sim.jit.precompile                          # every numjoco task (env, vector env, SB3 VecEnv entries)
    python -m sim.jit.precompile assets/hopper.xml numjoco/Ant-v0 --render --jobs 2
    python -m sim.jit.precompile --portable               # a cache for any x86-64 machine (see below)

Each target (an MJCF / URDF file or a task id) runs what a first use would compile, in a fresh process: for a
model, sim.step and sim.forward on one world and on a batch (and a frame of sim.Renderer with --render); for a
task, gym.make reset / step (and render with --render), then gym.make_vec of two worlds: reset, step, a partial
reset.  Kernels are compiled per feature set (sim/jit/features.py), so targets that share one cost nothing more.  The
cache goes where every later run looks (NUMJOCO_CACHE_DIR, else sim/__numba_cache__); a later process loads
instead of compiling.  --jobs N compiles N targets at once (safe: concurrent writers of the cache lock its index).
One line when a target starts and one when it ends: its feature set, wall seconds, kernels compiled (0: already
cached); in between, a long compile prints its progress on stderr (NUMJOCO_QUIET=1 silences that).

--portable compiles for a generic CPU of this architecture (NUMBA_CPU_NAME=generic, no CPU features): numba keys
its cache on the CPU name, so the processes that use the cache must set NUMBA_CPU_NAME=generic too (an image's
ENV line); a process without the variable compiles for its host on first use (and caches that next to the
generic entries).  Generic code forgoes the host's vector extensions (AVX2, AVX-512), so it may run slower.
"""

import argparse
import multiprocessing
import os
import sys
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _count_compiles():
    """A counter of the kernels numba compiles from now on in this process (numba:compile events)."""
    from numba.core import event

    class Count(event.Listener):
        n = 0

        def on_start(self, ev):
            self.n += 1

        def on_end(self, ev):
            pass

    c = Count()
    event.register("numba:compile", c)
    return c


def _model(path, render):
    import sim
    from sim.jit import features
    from sim import api as smooth_api

    m = sim.load_model(path)
    d = sim.Data(m)
    sim.forward(m, d)
    sim.step(m, d)
    b = sim.Data(m, nworld=2)
    sim.step(m, b)
    if render:
        r = sim.Renderer(m, 32, 32)
        r.update_scene(d)
        r.render()
    return features.describe(smooth_api.model_features(m))


def _task(env_id, render):
    import numpy as np
    import gymnasium as gym
    import envs  # noqa: F401  (registers numjoco/*)
    from sim.jit import features
    from sim import api as smooth_api

    env = gym.make(env_id, render_mode="rgb_array" if render else None)
    env.reset(seed=0)
    env.step(env.action_space.sample())
    if render:
        env.render()
    desc = features.describe(smooth_api.model_features(env.unwrapped.model))
    env.close()
    vec = gym.make_vec(env_id, num_envs=2)
    vec.reset(seed=0)
    vec.step(vec.action_space.sample())
    vec.reset(options={"reset_mask": np.array([True, False])})
    vec.close()
    return desc


def is_task(target):
    """A task id ('numjoco/Hopper-v0', or 'Hopper-v0' for a numjoco task) rather than a model file."""
    return os.path.splitext(target)[1].lower() not in (".xml", ".urdf", ".mjcf")


def task_id(target):
    return target if "/" in target else "numjoco/" + target


def compile_target(target, render=False):
    """Compile (or load) what `target` needs; returns (target, feature set, seconds, kernels compiled, error).
    A compile that lasts prints its progress on stderr (sim/jit/progress.py; NUMJOCO_QUIET=1 silences it)."""
    print(f"  {target}: started", flush=True)
    if _ROOT not in sys.path:
        sys.path.insert(0, _ROOT)
    counter = _count_compiles()
    t0 = time.perf_counter()
    try:
        desc = _task(task_id(target), render) if is_task(target) else _model(target, render)
        err = None
    except Exception as e:  # noqa: BLE001  (reported per target, the others go on)
        desc, err = "-", f"{type(e).__name__}: {e}"
    return target, desc, time.perf_counter() - t0, counter.n, err


def feature_sets(targets):
    """The feature set of each target's model (a target that fails to load gets a key of its own: its error is
    reported when it is compiled)."""
    if _ROOT not in sys.path:
        sys.path.insert(0, _ROOT)
    import sim
    from sim import api as smooth_api

    keys = []
    for t in targets:
        try:
            if is_task(t):
                import gymnasium as gym
                import envs  # noqa: F401

                env = gym.make(task_id(t))
                m = env.unwrapped.model
                env.close()
            else:
                m = sim.load_model(t)
            keys.append(repr(smooth_api.model_features(m)))
        except Exception:  # noqa: BLE001
            keys.append("error:" + t)
    return keys


def default_targets():
    """Every registered numjoco task (envs.TASKS)."""
    if _ROOT not in sys.path:
        sys.path.insert(0, _ROOT)
    import envs

    return ["numjoco/" + name for name in envs.TASKS]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m sim.jit.precompile", description=__doc__.split("\n")[0])
    ap.add_argument("targets", nargs="*", help="MJCF / URDF files and task ids (default: every numjoco task)")
    ap.add_argument("--render", action="store_true", help="also the renderer (a frame per target)")
    ap.add_argument("--jobs", type=int, default=1, help="targets compiled at once (processes; default 1)")
    ap.add_argument(
        "--portable",
        action="store_true",
        help="compile for a generic CPU (NUMBA_CPU_NAME=generic; set it when using the cache too)",
    )
    args = ap.parse_args(argv)
    if args.jobs < 1:
        ap.error("--jobs must be >= 1")
    for t in args.targets:
        if not is_task(t) and not os.path.exists(t):
            ap.error(f"no such model file: {t}")
    if args.portable:
        os.environ["NUMBA_CPU_NAME"] = "generic"  # inherited by the worker processes (numba reads it at import)
        os.environ["NUMBA_CPU_FEATURES"] = ""
    targets = args.targets or default_targets()
    from sim.jit import cache

    print(
        f"numjoco: precompiling {len(targets)} target(s) into {cache.CACHE_ROOT}"
        f"{' for a generic CPU' if args.portable else ''}, {args.jobs} at a time",
        flush=True,
    )
    ctx = multiprocessing.get_context("spawn")  # fresh processes: the environment above applies
    failed = 0
    t0 = time.perf_counter()
    with ctx.Pool(1) as pool:
        keys = pool.apply(feature_sets, (targets,))
    # the first target of each feature set first (in parallel), then the rest (mostly cache hits): two processes
    # never compile the same feature set at once
    lead = {}
    for t, k in zip(targets, keys):
        lead.setdefault(k, t)
    waves = [list(lead.values()), [t for t in targets if t not in lead.values()]]
    with ctx.Pool(args.jobs, maxtasksperchild=1) as pool:
        for wave in waves:
            for target, desc, sec, n, err in pool.imap(_star, [(t, args.render) for t in wave]):
                if err:
                    failed += 1
                    print(f"  {target}: FAILED: {err}", flush=True)
                else:
                    print(f"  {target}: {desc}; {sec:.1f} s, {n} kernels compiled", flush=True)
    print(
        f"numjoco: done in {time.perf_counter() - t0:.0f} s"
        + (f"; {failed} target(s) failed" if failed else "")
        + ("; run with NUMBA_CPU_NAME=generic to use this cache" if args.portable else ""),
        flush=True,
    )
    return 1 if failed else 0


def _star(a):
    return compile_target(*a)


if __name__ == "__main__":
    sys.exit(main())
