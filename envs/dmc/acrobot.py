"""Acrobot (dm_control/suite/acrobot.py): swing the two-link pendulum up and keep its tip at the target."""

import numpy as np

from envs.dmc.base import DMCEnv
from envs.dmc.expr import norm, tolerance


class Swingup(DMCEnv):
    domain, task = "acrobot", "swingup"
    time_limit = 10
    sparse = False

    def initialize_episode(self, physics, random):
        physics.named.data.qpos[["shoulder", "elbow"]] = random.uniform(-np.pi, np.pi, 2)

    def get_observation(self, physics):
        horizontal = physics.xmat[["upper_arm", "lower_arm"], "xz"]
        vertical = physics.xmat[["upper_arm", "lower_arm"], "zz"]
        return {"orientations": np.concatenate((horizontal, vertical)), "velocity": physics.qvel[:]}

    def get_reward(self, physics):
        target_radius = physics.named.model.site_size["target", 0]
        to_target = norm(physics.site_xpos["target"] - physics.site_xpos["tip"])
        return tolerance(to_target, bounds=(0, target_radius), margin=0 if self.sparse else 1)


class SwingupSparse(Swingup):
    task = "swingup_sparse"
    sparse = True
