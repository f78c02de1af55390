"""numjoco's Gymnasium environments.  `import envs` registers the tasks under the `numjoco/` namespace:

import gymnasium as gym, envs
env = gym.make("numjoco/Hopper-v0")              # or gym.make("envs:numjoco/Hopper-v0") without the import
venv = gym.make_vec("numjoco/Hopper-v0", num_envs=256)       # native vector env (envs/vector.py)
sb3_venv = envs.make_sb3_vec_env("numjoco/Hopper-v0", 256)   # Stable-Baselines3 VecEnv (envs/sb3.py)
m = sim.load_model(envs.asset_path("hopper.xml"))            # the task models shipped in envs/assets/
"""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

from envs.base import NumjocoEnv, asset_path  # noqa: F401
from envs.shaping import RewardTerms  # noqa: F401
from envs.vector import NumjocoVectorEnv, VectorEntryPoint  # noqa: F401
from envs.robotics import TASKS as ROBOTICS_TASKS, env_ids as robotics_env_ids
from sim.jit.patches import openmp_passive_wait

# OMP_WAIT_POLICY=PASSIVE unless the user set it: OpenMP workers otherwise spin after each parallel region, which
# on a machine with more busy threads than cores starves the vector envs' threads (sim/jit/patches.py); set before
# numba starts its thread pool (its first parallel call)
openmp_passive_wait()

# id -> (entry point, max_episode_steps, reward_threshold)
# (Gymnasium's v5 values for the v5 tasks)
TASKS = {
    "Hopper-v0": ("envs.tasks.hopper:HopperEnv", 1000, 3800.0),
    "Walker2d-v0": ("envs.tasks.walker2d:Walker2dEnv", 1000, None),
    "HalfCheetah-v0": ("envs.tasks.half_cheetah:HalfCheetahEnv", 1000, 4800.0),
    "Ant-v0": ("envs.tasks.ant:AntEnv", 1000, 6000.0),
    "Humanoid-v0": ("envs.tasks.humanoid:HumanoidEnv", 1000, None),
    "HumanoidStandup-v0": ("envs.tasks.humanoidstandup:HumanoidStandupEnv", 1000, None),
    "Reacher-v0": ("envs.tasks.reacher:ReacherEnv", 50, -3.75),
    "Pusher-v0": ("envs.tasks.pusher:PusherEnv", 100, 0.0),
    "Swimmer-v0": ("envs.tasks.swimmer:SwimmerEnv", 1000, 360.0),
    "InvertedPendulum-v0": ("envs.tasks.inverted_pendulum:InvertedPendulumEnv", 1000, 950.0),
    "InvertedDoublePendulum-v0": ("envs.tasks.inverted_double_pendulum:InvertedDoublePendulumEnv", 1000, 9100.0),
    # numjoco's own: a 7-dof arm reaching a 3-D target (reward thresholds: none yet)
    "ArmReach-v0": ("envs.tasks.arm_reach:ArmReachEnv", 100, None),
    "ArmReachGoal-v0": ("envs.tasks.arm_reach:ArmReachGoalEnv", 50, None),
}

for _name, (_entry, _steps, _thr) in TASKS.items():
    _id = "numjoco/" + _name
    if _id not in registry:
        register(
            id=_id,
            entry_point=_entry,
            max_episode_steps=_steps,
            reward_threshold=_thr,
            vector_entry_point=VectorEntryPoint(_entry),
        )

# the single-env view of envs/marl's two-agent task (its PettingZoo env: envs.marl.parallel_env("TwoArmReach"))
if "numjoco/TwoArmReach-v0" not in registry:
    register(
        id="numjoco/TwoArmReach-v0",
        entry_point="envs.marl.two_arms:TwoArmReachEnv",
        max_episode_steps=100,
        vector_entry_point=VectorEntryPoint("envs.marl.two_arms:TwoArmReachEnv"),
    )

# Gymnasium-Robotics' Fetch and Shadow Hand tasks (envs/robotics/; models read from the installed gymnasium-robotics),
# sparse and dense (<Name>Dense-v0)
for _id, _name, _reward in robotics_env_ids():
    _entry, _steps, _kw = ROBOTICS_TASKS[_name]
    if _id not in registry:
        register(
            id=_id,
            entry_point=_entry,
            max_episode_steps=_steps,
            kwargs=dict(_kw, reward_type=_reward),
            vector_entry_point=VectorEntryPoint(_entry),
        )

# the DeepMind Control Suite (envs/dmc): numjoco/dmc-<domain>-<task>-v0; each env ends its episodes itself after
# time_limit seconds, as dm_control does (1000 control steps; fewer env steps with action_repeat)
from envs import dmc as _dmc  # noqa: E402

for _domain, _task in _dmc.TASKS:
    _id = _dmc.env_id(_domain, _task)
    if _id not in registry:
        register(
            id=_id,
            entry_point=_dmc.entry_point(_domain, _task),
            max_episode_steps=None,
            vector_entry_point=VectorEntryPoint(_dmc.entry_point(_domain, _task)),
        )


def make_sb3_vec_env(env_id: str, n_envs: int, seed: int | None = None, **env_kwargs):
    """Stable-Baselines3 VecEnv of n_envs worlds of a numjoco task, with DummyVecEnv's semantics and numbers over
    gym.make(env_id) envs seeded seed + i, for every task family (envs/sb3.py; imports SB3 on first use)."""
    from envs.sb3 import make_sb3_vec_env as make

    return make(env_id, n_envs, seed=seed, **env_kwargs)
