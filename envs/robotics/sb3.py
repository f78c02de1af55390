"""Stable-Baselines3 VecEnv of a Fetch / Shadow Hand task on the batched engine (envs/robotics/vector.py).

DummyVecEnv's semantics over gym.make(id) envs seeded seed + i, with the same numbers: Dict observations stacked
per key, float32 rewards, done = terminated or truncated with an immediate reset, info["terminal_observation"]
(the last observation dict), info["TimeLimit.truncated"], info["is_success"]; get_attr / env_method act on each
world seen as a single env (compute_reward for HerReplayBuffer).  SB3's API wants a list of info dicts: building
them is the one Python loop over the worlds per step.
"""

import numpy as np

from envs.pixels import compose
from envs.robotics.vector import RobotBatch
from envs.sb3 import WorldsVecEnv


class RobotSB3VecEnv(WorldsVecEnv):
    """SB3 VecEnv of n_envs worlds of a robotics task (see the module doc)."""

    def __init__(self, task, n_envs, *, max_episode_steps=None, num_threads=None, **kwargs):
        self.batch = b = RobotBatch(
            task, n_envs, max_episode_steps=max_episode_steps, num_threads=num_threads, **kwargs
        )
        self.render_mode = b.env.render_mode
        super().__init__(b.n, b.env.observation_space, b.env.action_space)

    def reset(self):
        self.batch.reset(self.batch.all, self.take_reset_seeds())
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self.batch.observations()

    def step_wait(self):
        b = self.batch
        if not b.started:
            raise RuntimeError("reset() must be called before step()")
        a = b.check_actions(self._actions)
        self.take_actions()
        obs, ag, dg, success, reward, terminated, truncated = b.step(a, b.all)
        dones = terminated | truncated
        tl = (truncated & ~terminated).tolist()
        infos = [{"is_success": s, "TimeLimit.truncated": t} for s, t in zip(success, tl)]
        if dones.any():
            ended = np.flatnonzero(dones)
            frames = None if b.env.obs_type == "states" else b.env.frames(ended)  # before the resets
            for k, w in enumerate(ended.tolist()):
                last = {"observation": obs[w].copy(), "achieved_goal": ag[w].copy(), "desired_goal": dg[w].copy()}
                infos[w]["terminal_observation"] = last if frames is None else compose(last, frames[k], b.env.obs_type)
                self.reset_infos[w] = {}
            b.reset(ended)
        return b.observations(), reward.astype(np.float32), dones, infos

    def close(self):
        self.batch.env.close()

    def world_attr(self, i, name):
        return self.batch.world_attr(i, name)

    def set_world_attr(self, i, name, value):
        if name != "goal":
            super().set_world_attr(i, name, value)
        self.batch.env._goal[i] = value

    def get_images(self):
        return [self.batch.env.render_world(i) for i in range(self.num_envs)]
