"""Vector envs of tasks with Python layers: numjoco/ArmReachGoal-v0 (Dict observation, reward from
compute_reward, is_success) and numjoco/ArmReach-v0 (is_success, terminate_on_success) override step / reset.

The vector env runs their physics as one batch and each world's results through the task's own step / reset
(envs/base.py NumjocoEnv._feed), so the oracle is still SyncVectorEnv over single envs, bit for bit, in every
autoreset mode, including episodes the Python layer ends (terminate_on_success)."""
import numpy as np
import pytest
import gymnasium as gym
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import envs  # noqa: F401
from envs.vector import NumjocoVectorEnv
from test_vector import run_pair


@pytest.mark.parametrize('mode', list(AutoresetMode))
def test_goal_env_matches_sync_vector_env(mode):
    env_id, n, steps = 'numjoco/ArmReachGoal-v0', 3, 12
    ref = SyncVectorEnv([lambda: gym.make(env_id, max_episode_steps=steps) for _ in range(n)], autoreset_mode=mode)
    vec = gym.make_vec(env_id, num_envs=n, max_episode_steps=steps, autoreset_mode=mode)
    assert isinstance(vec, NumjocoVectorEnv) and vec.engine.python_layers
    assert isinstance(vec.single_observation_space, gym.spaces.Dict)
    assert set(vec.observation_space.spaces) == {'observation', 'achieved_goal', 'desired_goal'}
    ended, _, _ = run_pair(ref, vec, mode, n, 30, action_dim=7)
    assert ended >= 2 * n


@pytest.mark.parametrize('mode', list(AutoresetMode))
def test_python_layer_terminations(mode):
    """terminate_on_success with a generous threshold: the Python layer ends episodes the kernel does not."""
    env_id, n, kw = 'numjoco/ArmReach-v0', 3, dict(terminate_on_success=True, success_threshold=0.5)
    ref = SyncVectorEnv([lambda: gym.make(env_id, max_episode_steps=15, **kw) for _ in range(n)],
                        autoreset_mode=mode)
    vec = gym.make_vec(env_id, num_envs=n, max_episode_steps=15, autoreset_mode=mode, **kw)
    ended, terminated, _ = run_pair(ref, vec, mode, n, 20, action_dim=7)
    assert terminated >= 2


def test_goal_env_reward_is_compute_reward():
    vec = gym.make_vec('numjoco/ArmReachGoal-v0', num_envs=4, reward_type='dense')
    obs, info = vec.reset(seed=0)
    assert obs['observation'].shape == (4, 17) and obs['desired_goal'].shape == (4, 3)
    assert info['_is_success'].all()
    obs, rew, _, _, info = vec.step(np.zeros((4, 7), np.float32))
    cr = vec.call('compute_reward', obs['achieved_goal'], obs['desired_goal'], {})[0]
    assert np.array_equal(rew, cr)
    assert vec.single_observation_space.contains({k: v[0] for k, v in obs.items()})
