"""Humanoid (dm_control/suite/humanoid.py): a 21-joint humanoid standing, walking (1 m/s) or running (10 m/s)."""

import numpy as np

from envs.dmc.base import DMCEnv
from envs.dmc.expr import tolerance, mean, norm, INF
from envs.dmc.physics import randomize_limited_and_rotational_joints

_STAND_HEIGHT = 1.4


class Stand(DMCEnv):
    domain, task = "humanoid", "stand"
    time_limit = 25
    control_timestep = 0.025
    move_speed = 0

    def initialize_episode(self, physics, random):
        # random joint angles (a random orientation), redrawn while anything touches
        penetrating = True
        while penetrating:
            randomize_limited_and_rotational_joints(physics, random)
            physics.after_reset()
            penetrating = physics.data.ncon > 0

    def extremities(self, physics):
        """Hands and feet in the torso's frame."""
        frame = physics.xmat["torso"].reshape(3, 3)
        torso = physics.xpos["torso"]
        return np.hstack(
            [
                (physics.xpos[side + limb] - torso).dot(frame)
                for side in ("left_", "right_")
                for limb in ("hand", "foot")
            ]
        )

    def get_observation(self, physics):
        return {
            "joint_angles": physics.qpos[7:],
            "head_height": physics.xpos["head", "z"],
            "extremities": self.extremities(physics),
            "torso_vertical": physics.xmat["torso", ["zx", "zy", "zz"]],
            "com_velocity": physics.sensordata["torso_subtreelinvel"],
            "velocity": physics.qvel[:],
        }

    def get_reward(self, physics):
        standing = tolerance(physics.xpos["head", "z"], bounds=(_STAND_HEIGHT, INF), margin=_STAND_HEIGHT / 4)
        upright = tolerance(
            physics.xmat["torso", "zz"], bounds=(0.9, INF), sigmoid="linear", margin=1.9, value_at_margin=0
        )
        stand_reward = standing * upright
        small_control = mean(tolerance(physics.ctrl[:], margin=1, value_at_margin=0, sigmoid="quadratic"))
        small_control = (4 + small_control) / 5
        com_velocity = physics.sensordata["torso_subtreelinvel"]
        if self.move_speed == 0:
            dont_move = mean(tolerance(com_velocity[[0, 1]], margin=2))
            return small_control * stand_reward * dont_move
        move = tolerance(
            norm(com_velocity[[0, 1]]),
            bounds=(self.move_speed, INF),
            margin=self.move_speed,
            value_at_margin=0,
            sigmoid="linear",
        )
        return small_control * stand_reward * ((5 * move + 1) / 6)


class Walk(Stand):
    task, move_speed = "walk", 1


class Run(Stand):
    task, move_speed = "run", 10
