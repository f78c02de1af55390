"""Pendulum (dm_control/suite/pendulum.py): swing the pole up and keep it within 8 degrees of vertical."""

import numpy as np

from envs.dmc.base import DMCEnv
from envs.dmc.expr import tolerance

_COSINE_BOUND = np.cos(np.deg2rad(8))


class Swingup(DMCEnv):
    domain, task = "pendulum", "swingup"
    time_limit = 20

    def initialize_episode(self, physics, random):
        physics.named.data.qpos["hinge"] = random.uniform(-np.pi, np.pi)

    def get_observation(self, physics):
        return {"orientation": physics.xmat["pole", ["zz", "xz"]], "velocity": physics.qvel["hinge"]}

    def get_reward(self, physics):
        return tolerance(physics.xmat["pole", "zz"], (_COSINE_BOUND, 1))
