"""Vector-env throughput: numjoco's native vector env vs Gymnasium's SyncVectorEnv, EnvPool and mujoco.rollout.

Run: python benchmarks/bench_vector.py [--quick] [--tasks hopper,ant] [--n 1,16,64,256,1024] [--threads 1,2]

For Hopper, Ant and Humanoid (and, with --tasks armreach,armreachgoal, the arm tasks whose Python layers run per world),
N worlds and 1 / 2 threads, in one process (same machine state), env-steps/s of:
  ours      gym.make_vec("numjoco/<Task>-v0", num_envs=N, num_threads=t), random actions, autoreset on
  sync      gym.make_vec("<Task>-v5", num_envs=N, vectorization_mode="sync") (Gymnasium's own MuJoCo env; one
            thread whatever t); sync-nj: SyncVectorEnv over numjoco's single envs (one world per call)
  envpool   envpool.make_gymnasium("<Task>-v5", num_envs=N, batch_size=N, num_threads=t)  (pip install envpool)
  rollout   mujoco.rollout of the same model, frame_skip physics steps per env step, random controls,
            nthread=t: MuJoCo's raw batched physics, no env logic
and the cost of our env logic over our own raw batched physics: the env with no termination nor truncation and
sim.api.run of a plain batched Data started in the same states with the same controls (identical
trajectories, checked), timed alternately; overhead = env time / physics time - 1.  Memory: bytes of the
batched Data and task buffers per world.  The 1-minute load average is printed before and after: figures taken
while other processes run are not comparable.
"""

import argparse
import os
import sys
import time

# batches on blocks from the first timed call: the block step compiles before the first step, not in the
# background (sim/api.py NUMJOCO_SIMD)
os.environ.setdefault("NUMJOCO_SIMD", "wait")

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import numba  # noqa: E402
import gymnasium as gym  # noqa: E402

import envs  # noqa: E402,F401  (registers the numjoco/ ids)
from sim import api  # noqa: E402

GYM_ASSETS = os.path.join(os.path.dirname(gym.__file__), "envs", "mujoco", "assets")


# name -> (numjoco id, reference id or None, Gymnasium asset for mujoco.rollout or None, frame_skip, kwargs that
# turn termination off for the overhead timing).  armreach / armreachgoal: tasks with Python layers (is_success;
# Dict observation and compute_reward) run per world on the batch's results: only ours and the overhead.
TASKS = {
    "hopper": ("numjoco/Hopper-v0", "Hopper-v5", "hopper.xml", 4, {"terminate_when_unhealthy": False}),
    "ant": ("numjoco/Ant-v0", "Ant-v5", "ant.xml", 5, {"terminate_when_unhealthy": False}),
    "humanoid": ("numjoco/Humanoid-v0", "Humanoid-v5", "humanoid.xml", 5, {"terminate_when_unhealthy": False}),
    "armreach": ("numjoco/ArmReach-v0", None, None, 20, {}),
    "armreachgoal": ("numjoco/ArmReachGoal-v0", None, None, 20, {}),
}


def timed(step, min_time, min_steps=3):
    """(steps, seconds) of calling step() until min_time and min_steps are both reached (after one warm-up)."""
    step()
    k, t0 = 0, time.perf_counter()
    while True:
        step()
        k += 1
        el = time.perf_counter() - t0
        if el >= min_time and k >= min_steps:
            return k, el


def make_ours(task, n, threads, **kw):
    return gym.make_vec(task, num_envs=n, num_threads=threads, **kw)


def ours_rate(task, n, threads, min_time, acts):
    env = make_ours(task, n, threads)
    env.reset(seed=0)
    it = iter(range(10**9))
    k, el = timed(lambda: env.step(acts[next(it) % len(acts)]), min_time)
    mem = (sum(a.nbytes for a in env.data._arrays.values()) + sum(a.nbytes for a in env.engine.arrays.values())) / n
    return n * k / el, mem


def overhead(task, n, threads, min_time, acts, no_end):
    """(env seconds, physics seconds, steps) on identical trajectories (see the module doc)."""
    import sim

    env = make_ours(task, n, threads, max_episode_steps=0, **no_end)
    env.reset(seed=0)
    m, fs = env.model, env.engine.template.frame_skip
    raw = sim.Data(m, nworld=n)
    for k in ("qpos", "qvel", "act", "ctrl", "qacc_warmstart", "time"):
        setattr(raw, k, getattr(env.data, k))
    te = tp = 0.0
    steps = 0
    old = numba.get_num_threads()
    while te + tp < 2 * min_time or steps < 6:
        a = acts[steps % len(acts)]
        t0 = time.perf_counter()
        env.step(a)
        t1 = time.perf_counter()
        numba.set_num_threads(min(threads, n))  # as the env does (envs/engine.py NumjocoEngine._call)
        raw.ctrl = a
        api.run(m, raw, fs)
        numba.set_num_threads(old)
        t2 = time.perf_counter()
        if steps:  # the first pair is warm-up
            te += t1 - t0
            tp += t2 - t1
        steps += 1
    same = np.array_equal(raw.qpos, env.data.qpos) and np.array_equal(raw.qvel, env.data.qvel)
    return te, tp, steps - 1, same


def sync_rate(gid, n, min_time, acts):
    env = gym.make_vec(gid, num_envs=n, vectorization_mode="sync")
    env.reset(seed=0)
    it = iter(range(10**9))
    k, el = timed(lambda: env.step(acts[next(it) % len(acts)]), min_time, min_steps=2)
    return n * k / el


def envpool_rate(gid, n, threads, min_time, acts):
    try:
        import envpool
    except ImportError:
        return None
    env = envpool.make_gymnasium(gid, num_envs=n, batch_size=n, num_threads=threads, seed=0)
    env.reset()
    it = iter(range(10**9))
    k, el = timed(lambda: env.step(acts[next(it) % len(acts)]), min_time)
    return n * k / el


def rollout_rate(xml, n, threads, fs, min_time, rng):
    import mujoco
    from mujoco import rollout

    m = mujoco.MjModel.from_xml_path(os.path.join(GYM_ASSETS, xml))
    datas = [mujoco.MjData(m) for _ in range(threads)]
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state0 = np.zeros((n, mujoco.mj_stateSize(m, spec)))
    for i in range(n):
        mujoco.mj_getState(m, datas[0], state0[i], spec)
    k_env = 4
    ctrl = np.repeat(rng.uniform(-1, 1, (n, k_env, m.nu)), fs, axis=1)
    with rollout.Rollout(nthread=threads) as r:
        k, el = timed(lambda: r.rollout([m] * n, datas, state0, ctrl), min_time, min_steps=2)
    return n * k * k_env / el


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="shorter timings (0.3 s per figure instead of 1 s)")
    ap.add_argument("--tasks", default="hopper,ant")
    ap.add_argument("--n", default="1,16,64,256,1024")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--no-sync", action="store_true", help="skip SyncVectorEnv (slow at large N)")
    args = ap.parse_args()
    min_time = 0.3 if args.quick else 1.0
    ns = [int(x) for x in args.n.split(",")]
    ths = [int(x) for x in args.threads.split(",")]
    print(f"load average before: {os.getloadavg()[0]:.2f} (cores: {os.cpu_count()})")
    for name in args.tasks.split(","):
        task, gid, xml, fs, no_end = TASKS[name]
        print(f"\n### {name}: ours = {task}, reference = {gid}; env-steps/s\n")
        print(
            "| N | threads | ours | SyncVectorEnv | sync-nj | EnvPool | mujoco.rollout | ours/EnvPool | ours/Sync | "
            "env logic over raw physics | memory/world |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        rng = np.random.default_rng(0)
        space = gym.make(task).action_space
        nu = space.shape[0]
        sync_cache = {}
        for n in ns:
            acts = [rng.uniform(space.low, space.high, (n, nu)).astype(np.float32) for _ in range(16)]
            for t in ths:
                ours, mem = ours_rate(task, n, t, min_time, acts)
                te, tp, _, same = overhead(task, n, t, min_time, acts, no_end)
                if n not in sync_cache:
                    sync_cache[n] = (
                        (None, None)
                        if args.no_sync
                        else (
                            None if gid is None else sync_rate(gid, n, min_time, acts),
                            sync_rate(task, n, min_time, acts),
                        )
                    )
                sync, sync_nj = sync_cache[n]
                ep = None if gid is None else envpool_rate(gid, n, t, min_time, acts)
                ro = None if xml is None else rollout_rate(xml, n, t, fs, min_time, rng)
                f = lambda x: "-" if x is None else f"{x:,.0f}"  # noqa: E731
                r = lambda a, b: "-" if b is None else f"{a / b:.2f}"  # noqa: E731
                print(
                    f"| {n} | {t} | {ours:,.0f} | {f(sync)} | {f(sync_nj)} | {f(ep)} | {f(ro)} | {r(ours, ep)} | "
                    f"{r(ours, sync)} | {100 * (te / tp - 1):+.1f} %{'' if same else ' (trajectories differ!)'} | "
                    f"{mem / 1024:.1f} kB |",
                    flush=True,
                )
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
