"""Reacher (dm_control/suite/reacher.py): a two-link arm reaching a random target; sparse reward."""

import numpy as np

from envs.dmc.base import DMCEnv
from envs.dmc.expr import tolerance, norm
from envs.dmc.physics import randomize_limited_and_rotational_joints


class Easy(DMCEnv):
    domain, task = "reacher", "easy"
    time_limit = 20
    target_size = 0.05
    episode_fields = ("geom_pos",)

    def initialize_episode(self, physics, random):
        physics.named.model.geom_size["target", 0] = self.target_size
        randomize_limited_and_rotational_joints(physics, random)
        angle = random.uniform(0, 2 * np.pi)
        radius = random.uniform(0.05, 0.20)
        physics.named.model.geom_pos["target", "x"] = radius * np.sin(angle)
        physics.named.model.geom_pos["target", "y"] = radius * np.cos(angle)

    def finger_to_target(self, physics):
        return physics.geom_xpos["target", :2] - physics.geom_xpos["finger", :2]

    def get_observation(self, physics):
        return {"position": physics.qpos[:], "to_target": self.finger_to_target(physics), "velocity": physics.qvel[:]}

    def get_reward(self, physics):
        radii = self.target_size + physics.named.model.geom_size["finger", 0]
        return tolerance(norm(self.finger_to_target(physics)), (0, radii))


class Hard(Easy):
    task, target_size = "hard", 0.015
