"""The DeepMind Control Suite on numjoco: dm_control's 28 `suite.BENCHMARKING` tasks and quadruped walk / run as
Gymnasium envs `numjoco/dmc-<domain>-<task>-v0` (envs/dmc/base.py: observations, rewards, initial states and
episodes as `dm_control.suite`; one module per domain, as dm_control has).

    import gymnasium as gym, envs
    env = gym.make("numjoco/dmc-cheetah-run-v0")                          # Dict observations
    env = gym.make("numjoco/dmc-walker-walk-v0", flat_observation=True, action_repeat=2)
"""

# (domain, task) -> 'module:Class' under envs.dmc
TASKS = {
    ("acrobot", "swingup"): "acrobot:Swingup",
    ("acrobot", "swingup_sparse"): "acrobot:SwingupSparse",
    ("ball_in_cup", "catch"): "ball_in_cup:Catch",
    ("cartpole", "balance"): "cartpole:Balance",
    ("cartpole", "balance_sparse"): "cartpole:BalanceSparse",
    ("cartpole", "swingup"): "cartpole:Swingup",
    ("cartpole", "swingup_sparse"): "cartpole:SwingupSparse",
    ("cheetah", "run"): "cheetah:Run",
    ("finger", "spin"): "finger:Spin",
    ("finger", "turn_easy"): "finger:TurnEasy",
    ("finger", "turn_hard"): "finger:TurnHard",
    ("fish", "upright"): "fish:Upright",
    ("fish", "swim"): "fish:Swim",
    ("hopper", "stand"): "hopper:Stand",
    ("hopper", "hop"): "hopper:Hop",
    ("humanoid", "stand"): "humanoid:Stand",
    ("humanoid", "walk"): "humanoid:Walk",
    ("humanoid", "run"): "humanoid:Run",
    ("manipulator", "bring_ball"): "manipulator:BringBall",
    ("pendulum", "swingup"): "pendulum:Swingup",
    ("point_mass", "easy"): "point_mass:Easy",
    ("reacher", "easy"): "reacher:Easy",
    ("reacher", "hard"): "reacher:Hard",
    ("swimmer", "swimmer6"): "swimmer:Swimmer6",
    ("swimmer", "swimmer15"): "swimmer:Swimmer15",
    ("walker", "stand"): "walker:Stand",
    ("walker", "walk"): "walker:Walk",
    ("walker", "run"): "walker:Run",
    ("quadruped", "walk"): "quadruped:Walk",
    ("quadruped", "run"): "quadruped:Run",
}


def env_id(domain, task):
    """The Gymnasium id of a task: numjoco/dmc-<domain>-<task>-v0."""
    return f"numjoco/dmc-{domain}-{task}-v0"


def entry_point(domain, task):
    mod, cls = TASKS[(domain, task)].split(":")
    return f"envs.dmc.{mod}:{cls}"


def load(domain, task, **kwargs):
    """The env of a task (without Gymnasium's wrappers), as dm_control's suite.load(domain, task)."""
    import importlib

    mod, cls = entry_point(domain, task).split(":")
    return getattr(importlib.import_module(mod), cls)(**kwargs)
