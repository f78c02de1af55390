"""Training throughput: SB3 PPO on numjoco's Hopper against the same PPO on Gymnasium's Hopper-v5, in one process.

Run: python benchmarks/bench_training.py [--quick] [--config training/configs/cleanrl/hopper_ppo.yaml]
                                          [--n-envs 1,8] [--rounds 3] [--iters 2]

Both sides are built by training/ (the VecEnv `python -m training.train` builds: our native SB3 VecEnv, or
DummyVecEnv over gym.make("Hopper-v5"), then VecMonitor and VecNormalize as the config says; the PPO of the
config, one torch thread).  Per n_envs, rounds alternate ours / Gymnasium's; the table gives medians over the rounds:
  env stack   us per env step of the VecNormalize(VecMonitor(VecEnv)) stack alone (random actions, no policy)
  PPO         us per env step of model.learn over `iters` PPO iterations (rollout collection with the policy's
              forward pass, then the gradient epochs)
  ratio       ours / Gymnasium's
  floor       the PPO ratio if our env stack cost nothing (Gymnasium's PPO time minus its env stack time, over
              its PPO time): no simulator can beat it with this algorithm and these settings.
The 1-minute load average is printed before and after: figures taken while other processes run do not compare.
"""

import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import torch  # noqa: E402

from training import config as C  # noqa: E402
from training.env_factory import make_vec_env  # noqa: E402

ENGINES = (("ours", "numjoco/Hopper-v0"), ("gymnasium", "Hopper-v5"))


def build(env_id, cfg, n_envs):
    """(VecNormalize stack, PPO) as training.train builds them."""
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import VecNormalize

    venv = make_vec_env(env_id, n_envs, seed=0, env_kwargs=cfg["env_kwargs"])
    norm = C.normalize_kwargs(cfg)
    if norm is not None:
        venv = VecNormalize(venv, **norm)
    model = PPO(
        cfg["policy"] or "MlpPolicy", venv, seed=0, device="cpu", verbose=0, **C.algo_kwargs(cfg, venv.action_space)
    )
    return venv, model


def env_stack_us(venv, nstep, rng):
    """us per env step of the VecEnv stack under random actions."""
    n = venv.num_envs
    acts = rng.uniform(-1, 1, (nstep, n) + venv.action_space.shape).astype(np.float32)
    venv.reset()
    t = time.perf_counter()
    for a in acts:
        venv.step(a)
    return (time.perf_counter() - t) / (nstep * n) * 1e6


def ppo_us(model, steps):
    """us per env step of model.learn(steps) (continuing the same model)."""
    t = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    return (time.perf_counter() - t) / steps * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", default=os.path.join(ROOT, "training", "configs", "cleanrl", "hopper_ppo.yaml"))
    ap.add_argument("--n-envs", default="1,8")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iters", type=int, default=2, help="PPO iterations (n_steps x n_envs env steps) per round")
    ap.add_argument("--env-steps", type=int, default=4000, help="VecEnv steps per round for the env stack timing")
    ap.add_argument("--quick", action="store_true", help="1 round, 1 iteration, n_envs 1 (a smoke run)")
    args = ap.parse_args()
    if args.quick:
        args.rounds, args.iters, args.n_envs, args.env_steps = 1, 1, "1", 500
    torch.set_num_threads(1)
    print(
        f"load average before: {os.getloadavg()[0]:.2f}; torch {torch.__version__}, 1 thread; "
        f"config {os.path.relpath(args.config, ROOT)}"
    )
    rows = []
    for n_envs in [int(x) for x in args.n_envs.split(",")]:
        cfg = C.resolve(env="numjoco/Hopper-v0", algo="ppo", config_path=args.config, overrides={"n_envs": n_envs})
        steps = cfg["hyperparams"].get("n_steps", 2048) * n_envs * args.iters
        built = {name: build(eid, cfg, n_envs) for name, eid in ENGINES}
        for name, (_, model) in built.items():  # warm up: compile / load kernels, first torch calls
            ppo_us(model, cfg["hyperparams"].get("n_steps", 2048) * n_envs)
        res = {name: {"env": [], "ppo": []} for name, _ in ENGINES}
        rng = np.random.default_rng(0)
        for _ in range(args.rounds):
            for name, (venv, model) in built.items():
                res[name]["env"].append(env_stack_us(venv, max(args.env_steps // n_envs, 50), rng))
                res[name]["ppo"].append(ppo_us(model, steps))
        med = {name: {k: float(np.median(v)) for k, v in r.items()} for name, r in res.items()}
        o, g = med["ours"], med["gymnasium"]
        rows.append(
            (
                n_envs,
                o["env"],
                g["env"],
                o["env"] / g["env"],
                o["ppo"],
                g["ppo"],
                o["ppo"] / g["ppo"],
                (g["ppo"] - g["env"]) / g["ppo"],
            )
        )
        for venv, _ in built.values():
            venv.close()
    print(
        "\n| n_envs | env stack ours (us/step) | Gymnasium | ratio | PPO ours (us/step) | Gymnasium | ratio | floor |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %d | %.1f | %.1f | %.2f | %.0f | %.0f | %.2f | %.2f |" % r)
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
