"""Stable-Baselines3 VecEnv of a Fetch / Shadow Hand task on the batched engine (envs/robotics/vector.py).

DummyVecEnv's semantics over gym.make(id) envs seeded seed + i, with the same numbers: Dict observations stacked
per key, float32 rewards, done = terminated or truncated with an immediate reset, info["terminal_observation"]
(the last observation dict), info["TimeLimit.truncated"], info["is_success"]; get_attr / env_method act on each
world seen as a single env (compute_reward for HerReplayBuffer).  SB3's API wants a list of info dicts: building
them is the one Python loop over the worlds per step.
"""

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from envs.pixels import compose
from envs.robotics.vector import RobotBatch


class RobotSB3VecEnv(VecEnv):
    """SB3 VecEnv of n_envs worlds of a robotics task (see the module doc)."""

    def __init__(self, task, n_envs, *, max_episode_steps=None, num_threads=None, **kwargs):
        self.batch = b = RobotBatch(
            task, n_envs, max_episode_steps=max_episode_steps, num_threads=num_threads, **kwargs
        )
        self.render_mode = b.env.render_mode
        super().__init__(b.n, b.env.observation_space, b.env.action_space)
        self._actions = None

    def reset(self):
        if any(self._options):
            raise ValueError(f"the robotics tasks take no reset options, got {self._options}")
        seeds = self._seeds if any(s is not None for s in self._seeds) else None
        self.batch.reset(self.batch.all, seeds)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self.batch.observations()

    def step_async(self, actions):
        self._actions = actions

    def step_wait(self):
        b = self.batch
        if not b.started:
            raise RuntimeError("reset() must be called before step()")
        a = b.check_actions(self._actions)
        self._actions = None
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

    def get_attr(self, attr_name, indices=None):
        return [self.batch.world_attr(i, attr_name) for i in self._get_indices(indices)]

    def set_attr(self, attr_name, value, indices=None):
        if attr_name != "goal":
            raise AttributeError(
                f"{attr_name!r} is shared by the worlds of a numjoco vector env and cannot be set "
                "per environment; create the env with the value instead"
            )
        for i in self._get_indices(indices):
            self.batch.env._goal[i] = value

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        return [
            self.batch.world_attr(i, method_name)(*method_args, **method_kwargs) for i in self._get_indices(indices)
        ]

    def env_is_wrapped(self, wrapper_class, indices=None):
        """No world is wrapped by a Gymnasium wrapper (monitor with VecMonitor)."""
        return [False for _ in self._get_indices(indices)]

    def get_images(self):
        return [self.batch.env.render_world(i) for i in range(self.num_envs)]
