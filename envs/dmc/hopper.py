"""Hopper (dm_control/suite/hopper.py): a one-legged hopper standing up, or hopping forward."""

import numpy as np

from envs.dmc.base import DMCEnv
from envs.dmc.expr import tolerance, mean, INF
from envs.dmc.physics import randomize_limited_and_rotational_joints

_STAND_HEIGHT = 0.6
_HOP_SPEED = 2


class Stand(DMCEnv):
    domain, task = "hopper", "stand"
    time_limit = 20
    control_timestep = 0.02
    hopping = False

    def initialize_episode(self, physics, random):
        randomize_limited_and_rotational_joints(physics, random)

    def get_observation(self, physics):
        return {
            "position": physics.qpos[1:],
            "velocity": physics.qvel[:],
            "touch": np.log1p(physics.sensordata[["touch_toe", "touch_heel"]]),
        }

    def get_reward(self, physics):
        height = physics.xipos["torso", "z"] - physics.xipos["foot", "z"]
        standing = tolerance(height, (_STAND_HEIGHT, 2))
        if self.hopping:
            hopping = tolerance(
                physics.sensordata["torso_subtreelinvel"][0],
                bounds=(_HOP_SPEED, INF),
                margin=_HOP_SPEED / 2,
                value_at_margin=0.5,
                sigmoid="linear",
            )
            return standing * hopping
        small_control = mean(tolerance(physics.ctrl[:], margin=1, value_at_margin=0, sigmoid="quadratic"))
        return standing * ((small_control + 4) / 5)


class Hop(Stand):
    task, hopping = "hop", True
