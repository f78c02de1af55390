"""Training for numjoco's tasks (and any Gymnasium env) with Stable-Baselines3, sweeps, and Ray scale-out.

    python -m training.train --env numjoco/Hopper-v0 --algo ppo --steps 50000
    python -m training.enjoy runs/<run> --video hopper.mp4
    python -m training.sweep training/sweeps/hopper_reward.yaml --jobs 2 [--backend ray]
    python -m training.train --env numjoco/Hopper-v0 --backend rllib --num-env-runners 2

Modules: train (SB3 runs), enjoy (replay), sweep (grids, local or Ray Tune), rllib_backend (RLlib PPO),
env_factory (the seam to the environments), config (YAML configs, RL Zoo hyperparameters), callbacks, shaping
(reward-shaping wrappers), plotting, video, toy_envs (tiny pure-Python envs for smoke tests).
"""
