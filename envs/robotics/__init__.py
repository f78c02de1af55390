"""Gymnasium-Robotics' Fetch and Shadow Hand tasks on numjoco (goal-conditioned, Dict observations, for HER).

    import gymnasium as gym, envs
    env = gym.make("numjoco/FetchPush-v0")                         # gymnasium_robotics FetchPush-v4
    venv = gym.make_vec("numjoco/FetchPush-v0", num_envs=64)       # one batched Data (envs/robotics/vector.py)
    sb3 = envs.make_sb3_vec_env("numjoco/FetchPush-v0", 8)         # SB3 VecEnv (HerReplayBuffer works on it)

The models are read from the installed gymnasium-robotics package (its MJCF files and meshes are not shipped
with numjoco): `pip install gymnasium-robotics`.  The machinery: core.py (RobotEnv, batched hooks), kernels.py
(the compiled entry), vector.py (Gymnasium VectorEnv and SB3 VecEnv), rotations.py; the tasks: fetch.py, hand.py.
"""
