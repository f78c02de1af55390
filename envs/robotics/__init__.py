"""Gymnasium-Robotics' Fetch and Shadow Hand tasks on numjoco (goal-conditioned, Dict observations, for HER).

    import gymnasium as gym, envs
    env = gym.make("numjoco/FetchPush-v0")                         # gymnasium_robotics FetchPush-v4
    venv = gym.make_vec("numjoco/FetchPush-v0", num_envs=64)       # one batched Data (envs/robotics/engine.py)
    sb3 = envs.make_sb3_vec_env("numjoco/FetchPush-v0", 8)         # SB3 VecEnv (HerReplayBuffer works on it)

The models are read from the installed gymnasium-robotics package (its MJCF files and meshes are not shipped
with numjoco): `pip install gymnasium-robotics`.  The machinery: core.py (RobotEnv, batched hooks), kernels.py
(the compiled entry), engine.py (the engine of numjoco's vector env and SB3 VecEnv), rotations.py; the tasks:
fetch.py, hand.py.
"""

# id -> (entry point, max_episode_steps, kwargs) as gymnasium_robotics registers them (FetchX-v4, HandReach-v3,
# HandManipulateBlockX-v1); envs/__init__.py registers each as numjoco/<id> and numjoco/<Name>Dense-v0 (reward_type
# 'dense').  HandManipulateBlock is the full task (gymnasium_robotics' alias of HandManipulateBlockFull).
_FETCH, _HAND = "envs.robotics.fetch:", "envs.robotics.hand:"
TASKS = {
    "FetchReach-v0": (_FETCH + "FetchReachEnv", 50, {}),
    "FetchPush-v0": (_FETCH + "FetchPushEnv", 50, {}),
    "FetchSlide-v0": (_FETCH + "FetchSlideEnv", 50, {}),
    "FetchPickAndPlace-v0": (_FETCH + "FetchPickAndPlaceEnv", 50, {}),
    "HandReach-v0": (_HAND + "HandReachEnv", 50, {}),
    "HandManipulateBlock-v0": (_HAND + "HandBlockEnv", 100, {"target_position": "random", "target_rotation": "xyz"}),
    "HandManipulateBlockFull-v0": (
        _HAND + "HandBlockEnv",
        100,
        {"target_position": "random", "target_rotation": "xyz"},
    ),
    "HandManipulateBlockRotateZ-v0": (
        _HAND + "HandBlockEnv",
        100,
        {"target_position": "ignore", "target_rotation": "z"},
    ),
    "HandManipulateBlockRotateParallel-v0": (
        _HAND + "HandBlockEnv",
        100,
        {"target_position": "ignore", "target_rotation": "parallel"},
    ),
    "HandManipulateBlockRotateXYZ-v0": (
        _HAND + "HandBlockEnv",
        100,
        {"target_position": "ignore", "target_rotation": "xyz"},
    ),
}


def env_ids():
    """The registered ids, (numjoco id, TASKS key, reward_type): numjoco/<Name>-v0 (sparse) and
    numjoco/<Name>Dense-v0 (dense) per task."""
    return [
        ("numjoco/" + name.replace("-v", suffix + "-v"), name, reward)
        for name in TASKS
        for suffix, reward in (("", "sparse"), ("Dense", "dense"))
    ]


def robot_task_class(task):
    """The RobotEnv subclass behind a registered id, a 'module:Class' entry point or a class; None when the
    task is not one of the robotics tasks (nothing is constructed)."""
    from envs.entry import task_class
    from envs.robotics.core import RobotEnv

    cls = task_class(task)
    return cls if cls is not None and issubclass(cls, RobotEnv) else None
