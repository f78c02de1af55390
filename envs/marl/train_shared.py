"""Train one policy shared by all agents of a numjoco multi-agent env with Stable-Baselines3, through SuperSuit.

    python -m envs.marl.train_shared --scenario TwoArmReach --mode shared --steps 50000
    python -m envs.marl.train_shared --scenario Hopper --agent-conf 3x1 --steps 200000
    python -m envs.marl.train_shared --scenario TwoArmReach --algo sac --n-envs 1 --steps 30000

Each agent becomes one slot of an SB3 VecEnv (ss.pettingzoo_env_to_vec_env_v1, then ss.concat_vec_envs_v1), so
all agents act with the same network; observations and actions are padded to the largest agent's and an
agent-indicator one-hot is appended, so that the shared policy knows which body part it drives.
"""

import argparse

import numpy as np


def make_shared_vec_env(scenario="TwoArmReach", agent_conf=None, n_envs=4, seed=0, **kwargs):
    """SB3 VecEnv of n_envs copies of the parallel env, one slot per agent (VecMonitor'ed)."""
    import supersuit as ss
    from stable_baselines3.common.vec_env import VecMonitor
    from envs import marl

    env = marl.parallel_env(scenario, agent_conf, **kwargs)
    env = ss.pad_observations_v0(env)
    env = ss.pad_action_space_v0(env)
    env = ss.agent_indicator_v0(env)
    vec = ss.pettingzoo_env_to_vec_env_v1(env)
    vec = ss.concat_vec_envs_v1(vec, n_envs, num_cpus=0, base_class="stable_baselines3")
    vec.venv.reset(seed=seed)  # SuperSuit's SB3 wrapper has no working seed(): seed the copies' generators
    return VecMonitor(vec)


def train(scenario="TwoArmReach", agent_conf=None, steps=50_000, n_envs=4, seed=0, verbose=0, algo="ppo", **kwargs):
    """PPO or SAC with a shared MLP policy; returns (model, mean return of the first and last 20 monitored
    episodes)."""
    from stable_baselines3 import PPO, SAC
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.utils import set_random_seed

    vec = make_shared_vec_env(scenario, agent_conf, n_envs=n_envs, seed=seed, **kwargs)
    set_random_seed(seed)  # (PPO(seed=) would call vec.seed(), which SuperSuit's VecEnv lacks)
    if algo == "ppo":
        model = PPO("MlpPolicy", vec, n_steps=256, batch_size=256, n_epochs=5, learning_rate=1e-3, verbose=verbose)
    elif algo == "sac":
        model = SAC(
            "MlpPolicy",
            vec,
            learning_starts=1000,
            batch_size=256,
            policy_kwargs=dict(net_arch=[64, 64]),
            verbose=verbose,
        )
    else:
        raise ValueError(f"algo must be 'ppo' or 'sac', got {algo!r}")
    returns = []

    class Episodes(BaseCallback):
        def _on_step(self):
            returns.extend(i["episode"]["r"] for i in self.locals["infos"] if "episode" in i)
            return True

    model.learn(steps, callback=Episodes())
    r = np.array(returns)
    return model, (float(r[:20].mean()) if r.size else float("nan"), float(r[-20:].mean()) if r.size else float("nan"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default="TwoArmReach")
    ap.add_argument("--agent-conf", default=None)
    ap.add_argument("--mode", default=None, help="TwoArmReach: shared or compete")
    ap.add_argument("--algo", default="ppo", choices=["ppo", "sac"])
    ap.add_argument("--steps", type=int, default=50_000)
    ap.add_argument("--n-envs", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--save", default=None, help="where to save the policy (model.save)")
    a = ap.parse_args(argv)
    kw = {} if a.mode is None else {"mode": a.mode}
    model, (first, last) = train(a.scenario, a.agent_conf, a.steps, a.n_envs, a.seed, verbose=1, algo=a.algo, **kw)
    print(f"mean episode return (per agent slot): first 20 episodes {first:.2f}, last 20 {last:.2f}")
    if a.save:
        model.save(a.save)


if __name__ == "__main__":
    main()
