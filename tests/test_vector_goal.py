"""Goal-env Dict observations in the vector envs, on a small goal task of our own (ReachGoalEnv below).

ReachGoalEnv is Gymnasium's reacher.xml as a goal-conditioned task (observation / achieved_goal /
desired_goal, compute_reward for HER); numjoco/ArmReachGoal-v0 is tested the same way when it is registered.
"""
import os

import numpy as np
import pytest
import gymnasium as gym
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import envs
from envs.base import NumjocoEnv
from envs.spec import Task, qpos, qvel, xpos, Norm
from envs.vector import NumjocoVectorEnv
from test_vector import run_pair

REACHER = os.path.join(os.path.dirname(gym.__file__), 'envs', 'mujoco', 'assets', 'reacher.xml')


class ReachGoalEnv(NumjocoEnv):
    """Reach a target with a 2-link planar arm; Dict observation; reward -distance; never terminates."""
    xml_file = REACHER
    frame_skip = 2
    params = dict(reset_noise_scale=0.1, goal_radius=0.2)
    observation_keys = {'observation': ['cos', 'sin', 'qvel'], 'achieved_goal': ['fingertip'],
                        'desired_goal': ['target']}

    def task(self, p):
        tip, target = xpos['fingertip'][:2], xpos['target'][:2]
        return Task(observation={'cos': qpos[:2].cos(), 'sin': qpos[:2].sin(), 'qvel': qvel[:2], 'fingertip': tip,
                                 'target': target},
                    reward={'reward_dist': -Norm(tip - target)}, terminate=False)

    def reset_state(self, rng, p):
        qpos_ = self.init_qpos + rng.uniform(-p.reset_noise_scale, p.reset_noise_scale, self.model.nq)
        while True:
            goal = rng.uniform(-p.goal_radius, p.goal_radius, 2)
            if np.linalg.norm(goal) < p.goal_radius:
                break
        qpos_[-2:] = goal
        qvel_ = self.init_qvel + rng.uniform(-0.005, 0.005, self.model.nv)
        qvel_[-2:] = 0
        return {'qpos': qpos_, 'qvel': qvel_}

    def compute_reward(self, achieved_goal, desired_goal, info):
        return -np.linalg.norm(np.asarray(achieved_goal) - np.asarray(desired_goal), axis=-1)


if 'numjoco-test/ReachGoal-v0' not in gym.registry:
    gym.register('numjoco-test/ReachGoal-v0', entry_point=ReachGoalEnv, max_episode_steps=50,
                 vector_entry_point=envs.VectorEntryPoint(ReachGoalEnv))

GOAL_IDS = ['numjoco-test/ReachGoal-v0'] + (['numjoco/ArmReachGoal-v0'] if 'numjoco/ArmReachGoal-v0' in gym.registry
                                            else [])


@pytest.mark.parametrize('env_id', GOAL_IDS)
@pytest.mark.parametrize('mode', list(AutoresetMode))
def test_goal_env_matches_sync_vector_env(env_id, mode):
    n, steps = 3, 20
    ref = SyncVectorEnv([lambda: gym.make(env_id, max_episode_steps=steps) for _ in range(n)], autoreset_mode=mode)
    vec = gym.make_vec(env_id, num_envs=n, max_episode_steps=steps, autoreset_mode=mode)
    assert isinstance(vec, NumjocoVectorEnv)
    assert isinstance(vec.single_observation_space, gym.spaces.Dict)
    assert set(vec.observation_space.spaces) == {'observation', 'achieved_goal', 'desired_goal'}
    ended, _, _ = run_pair(ref, vec, mode, n, 50, action_dim=vec.single_action_space.shape[0])
    assert ended >= 2 * n


def test_goal_env_reward_is_compute_reward():
    vec = gym.make_vec('numjoco-test/ReachGoal-v0', num_envs=4)
    obs, _ = vec.reset(seed=0)
    assert obs['observation'].shape == (4, 6) and obs['desired_goal'].shape == (4, 2)
    obs, rew, _, _, _ = vec.step(np.zeros((4, 2), np.float32))
    cr = vec.call('compute_reward', obs['achieved_goal'], obs['desired_goal'], {})[0]
    assert np.allclose(rew, cr, rtol=0, atol=1e-15)
    assert vec.single_observation_space.contains({k: v[0] for k, v in obs.items()})
