"""Quadruped (dm_control/suite/quadruped.py): a four-legged ant walking (0.5 m/s) or running (5 m/s)."""

import numpy as np

from envs.dmc.base import DMCEnv
from envs.dmc import models
from envs.dmc.expr import tolerance, INF

_SENS_ACCELEROMETER, _SENS_GYRO, _SENS_FORCE, _SENS_TORQUE = 1, 3, 4, 5  # mjtSensor


def _find_non_contacting_height(physics, orientation, x_pos=0.0, y_pos=0.0):
    """The root at (x, y) with the orientation, raised by 1 cm steps from the floor until nothing touches."""
    z_pos = 0.0
    num_contacts = 1
    num_attempts = 0
    while num_contacts > 0:
        with physics.reset_context():
            physics.named.data.qpos["root"][:3] = x_pos, y_pos, z_pos
            physics.named.data.qpos["root"][3:] = orientation
        num_contacts = physics.data.ncon
        z_pos += 0.01
        num_attempts += 1
        if num_attempts > 10000:
            raise RuntimeError("Failed to find a non-contacting configuration.")


class Walk(DMCEnv):
    domain, task = "quadruped", "walk"
    time_limit = 20
    control_timestep = 0.02
    desired_speed = 0.5
    pixels_camera = 2  # DrQ-v2's camera for the quadruped

    def model_xml(self, p):
        return models.quadruped(floor_size=type(self).time_limit * self.desired_speed)

    def initialize_episode(self, physics, random):
        orientation = random.randn(4)
        orientation /= np.linalg.norm(orientation)
        _find_non_contacting_height(physics, orientation)

    def get_observation(self, physics):
        hinges = physics.hinge_names()
        sd = physics.sensordata
        return {
            "egocentric_state": np.hstack((physics.qpos[hinges], physics.qvel[hinges], physics.act[:])),
            "torso_velocity": sd["velocimeter"],
            "torso_upright": physics.xmat["torso", "zz"],
            "imu": sd[physics.sensor_names(_SENS_GYRO, _SENS_ACCELEROMETER)],
            "force_torque": np.arcsinh(sd[physics.sensor_names(_SENS_FORCE, _SENS_TORQUE)]),
        }

    def get_reward(self, physics):
        move_reward = tolerance(
            physics.sensordata["velocimeter"][0],
            bounds=(self.desired_speed, INF),
            margin=self.desired_speed,
            value_at_margin=0.5,
            sigmoid="linear",
        )
        deviation = np.cos(np.deg2rad(0))
        upright = tolerance(
            physics.xmat["torso", "zz"],
            bounds=(deviation, INF),
            sigmoid="linear",
            margin=1 + deviation,
            value_at_margin=0,
        )
        return upright * move_reward


class Run(Walk):
    task, desired_speed = "run", 5
