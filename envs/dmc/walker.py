"""Walker (dm_control/suite/walker.py): a planar biped standing, walking (1 m/s) or running (8 m/s)."""

from envs.dmc.base import DMCEnv
from envs.dmc.expr import tolerance, INF
from envs.dmc.physics import randomize_limited_and_rotational_joints

_STAND_HEIGHT = 1.2


class Stand(DMCEnv):
    domain, task = "walker", "stand"
    time_limit = 25
    control_timestep = 0.025
    move_speed = 0

    def initialize_episode(self, physics, random):
        randomize_limited_and_rotational_joints(physics, random)

    def get_observation(self, physics):
        return {
            "orientations": physics.xmat[1:, ["xx", "xz"]].ravel(),
            "height": physics.xpos["torso", "z"],
            "velocity": physics.qvel[:],
        }

    def get_reward(self, physics):
        standing = tolerance(physics.xpos["torso", "z"], bounds=(_STAND_HEIGHT, INF), margin=_STAND_HEIGHT / 2)
        upright = (1 + physics.xmat["torso", "zz"]) / 2
        stand_reward = (3 * standing + upright) / 4
        if self.move_speed == 0:
            return stand_reward
        move_reward = tolerance(
            physics.sensordata["torso_subtreelinvel"][0],
            bounds=(self.move_speed, INF),
            margin=self.move_speed / 2,
            value_at_margin=0.5,
            sigmoid="linear",
        )
        return stand_reward * (5 * move_reward + 1) / 6


class Walk(Stand):
    task, move_speed = "walk", 1


class Run(Stand):
    task, move_speed = "run", 8
