"""Finger (dm_control/suite/finger.py): spin the hinged body fast, or turn its tip to a target angle."""

import numpy as np

from envs.dmc.base import DMCEnv
from envs.dmc.expr import le, norm
from envs.dmc.physics import randomize_limited_and_rotational_joints

_SPIN_VELOCITY = 15.0


def _set_random_joint_angles(physics, random, max_attempts=1000):
    """Random joint angles, redrawn until nothing touches."""
    for _ in range(max_attempts):
        randomize_limited_and_rotational_joints(physics, random)
        physics.after_reset()
        if physics.data.ncon == 0:
            break
    else:
        raise RuntimeError(f"Could not find a collision-free state after {max_attempts} attempts")


class Spin(DMCEnv):
    domain, task = "finger", "spin"
    time_limit = 20
    control_timestep = 0.02

    def configure_model(self, model, p):
        model.dof_damping[model.jnt_dofadr[model.name2id("joint", "hinge")]] = 0.03  # (spin's initialize_episode)

    def initialize_episode(self, physics, random):
        physics.named.model.site_rgba["target", 3] = 0
        physics.named.model.site_rgba["tip", 3] = 0
        _set_random_joint_angles(physics, random)

    def tip_position(self, physics):
        return physics.sensordata["tip"][[0, 2]] - physics.sensordata["spinner"][[0, 2]]

    def get_observation(self, physics):
        sd = physics.sensordata
        return {
            "position": np.hstack((sd[["proximal", "distal"]], self.tip_position(physics))),
            "velocity": sd[["proximal_velocity", "distal_velocity", "hinge_velocity"]],
            "touch": np.log1p(sd[["touchtop", "touchbottom"]]),
        }

    def get_reward(self, physics):
        return le(physics.sensordata["hinge_velocity"][0], -_SPIN_VELOCITY)


class TurnEasy(Spin):
    task = "turn_easy"
    target_radius = 0.07
    episode_fields = ("site_pos",)

    def configure_model(self, model, p):
        pass

    def initialize_episode(self, physics, random):
        target_angle = random.uniform(-np.pi, np.pi)
        hinge_x, hinge_z = physics.named.data.xanchor["hinge", ["x", "z"]]
        radius = physics.named.model.geom_size["cap1"].sum()
        physics.named.model.site_pos["target", ["x", "z"]] = (
            hinge_x + radius * np.sin(target_angle),
            hinge_z + radius * np.cos(target_angle),
        )
        physics.named.model.site_size["target", 0] = self.target_radius
        _set_random_joint_angles(physics, random)

    def target_position(self, physics):
        return physics.sensordata["target"][[0, 2]] - physics.sensordata["spinner"][[0, 2]]

    def dist_to_target(self, physics):
        return norm(self.target_position(physics) - self.tip_position(physics)) - self.target_radius

    def get_observation(self, physics):
        return dict(
            super().get_observation(physics),
            target_position=self.target_position(physics),
            dist_to_target=self.dist_to_target(physics),
        )

    def get_reward(self, physics):
        return le(self.dist_to_target(physics), 0)


class TurnHard(TurnEasy):
    task = "turn_hard"
    target_radius = 0.03
