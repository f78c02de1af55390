"""Multi-agent numjoco: PettingZoo ParallelEnvs on the numjoco tasks.

    from envs import marl
    env = marl.parallel_env("Ant", "2x4", agent_obsk=1)          # MaMuJoCo-style factorisation (partitions.py)
    env = marl.parallel_env("TwoArmReach", mode="compete")       # numjoco's own two-agent task (two_arms.py)
    obs, infos = env.reset(seed=0); env.state()                   # global state: the single-agent observation
    aec = marl.env("Hopper", "3x1")                               # the AEC form (pettingzoo parallel_to_aec)

Scenarios: Hopper 3x1, HalfCheetah 2x3 / 6x1, Walker2d 2x3, Ant 2x4 / 2x4d / 4x2, Humanoid 9|8 (agent_obsk local
observations, MaMuJoCo's default categories, shared reward, shared termination / truncation), TwoArmReach
(arm_0, arm_1; shared or competing reward).  A scenario needs its single-agent task registered (numjoco/<Task>-v0).
Training one shared policy with SB3 through SuperSuit: python -m envs.marl.train_shared --help.
"""

from envs.marl.partitions import SCENARIOS  # noqa: F401
from envs.marl.multi import MultiAgentNumjocoEnv, mamujoco  # noqa: F401
from envs.marl.two_arms import TwoArmReachEnv, two_arm_reach  # noqa: F401


def parallel_env(scenario="TwoArmReach", agent_conf=None, **kwargs):
    """A PettingZoo ParallelEnv: parallel_env("Ant", "2x4", agent_obsk=1, max_cycles=1000, ...) or
    parallel_env("TwoArmReach", mode="shared", max_cycles=100, ...)."""
    if scenario == "TwoArmReach":
        if agent_conf is not None:
            raise ValueError("TwoArmReach has one factorisation (arm_0, arm_1): pass no agent_conf")
        return two_arm_reach(**kwargs)
    return mamujoco(scenario, agent_conf, **kwargs)


def env(scenario="TwoArmReach", agent_conf=None, **kwargs):
    """The AEC form of parallel_env (pettingzoo.utils.parallel_to_aec)."""
    from pettingzoo.utils import parallel_to_aec

    return parallel_to_aec(parallel_env(scenario, agent_conf, **kwargs))
