"""Manipulator (dm_control/suite/manipulator.py): a planar arm with a gripper bringing a ball to a target."""

import numpy as np

from envs.dmc.base import DMCEnv
from envs.dmc import models
from envs.dmc.expr import tolerance, norm

_CLOSE = 0.01
_P_IN_HAND = 0.1
_P_IN_TARGET = 0.1
_ARM_JOINTS = ["arm_root", "arm_shoulder", "arm_elbow", "arm_wrist", "finger", "fingertip", "thumb", "thumbtip"]
_TOUCH_SENSORS = ["palm_touch", "finger_touch", "thumb_touch", "fingertip_touch", "thumbtip_touch"]


class BringBall(DMCEnv):
    domain, task = "manipulator", "bring_ball"
    time_limit = 10
    control_timestep = 0.01
    params = {"fully_observable": True}
    _object, _target = "ball", "target_ball"
    _object_joints = ["ball_x", "ball_z", "ball_y"]
    episode_fields = ("body_pos", "body_quat")

    def model_xml(self, p):
        return models.manipulator(use_peg=False, insert=False)

    def initialize_episode(self, physics, random):
        # arm angles in range, a target pose, the ball in the hand, at the target or anywhere (flying); redrawn
        # while anything touches
        model, data = physics.named.model, physics.named.data
        penetrating = True
        while penetrating:
            is_limited = model.jnt_limited[_ARM_JOINTS].astype(bool)
            joint_range = model.jnt_range[_ARM_JOINTS]
            lower = np.where(is_limited, joint_range[:, 0], -np.pi)
            upper = np.where(is_limited, joint_range[:, 1], np.pi)
            data.qpos[_ARM_JOINTS] = random.uniform(lower, upper)
            data.qpos["finger"] = data.qpos["thumb"]
            target_x = random.uniform(-0.4, 0.4)
            target_z = random.uniform(0.1, 0.4)
            target_angle = random.uniform(-np.pi, np.pi)
            model.body_pos[self._target, ["x", "z"]] = target_x, target_z
            model.body_quat[self._target, ["qw", "qy"]] = [np.cos(target_angle / 2), np.sin(target_angle / 2)]
            init_type = random.choice(
                ["in_hand", "in_target", "uniform"], p=[_P_IN_HAND, _P_IN_TARGET, 1 - _P_IN_HAND - _P_IN_TARGET]
            )
            if init_type == "in_target":
                object_x, object_z, object_angle = target_x, target_z, target_angle
            elif init_type == "in_hand":
                physics.after_reset()
                object_x = data.site_xpos["grasp", "x"]
                object_z = data.site_xpos["grasp", "z"]
                grasp_direction = data.site_xmat["grasp", ["xx", "zx"]]
                object_angle = np.pi - np.arctan2(grasp_direction[1], grasp_direction[0])
            else:
                object_x = random.uniform(-0.5, 0.5)
                object_z = random.uniform(0, 0.7)
                object_angle = random.uniform(0, 2 * np.pi)
                data.qvel[self._object + "_x"] = random.uniform(-5, 5)
            data.qpos[self._object_joints] = object_x, object_z, object_angle
            physics.after_reset()
            penetrating = physics.data.ncon > 0

    def body_2d_pose(self, physics, body):
        return np.hstack([physics.xpos[body, ["x", "z"]], physics.xquat[body, ["qw", "qy"]]])

    def get_observation(self, physics):
        q = physics.qpos[_ARM_JOINTS]
        obs = {
            "arm_pos": np.vstack([np.sin(q), np.cos(q)]).T,
            "arm_vel": physics.qvel[_ARM_JOINTS],
            "touch": np.log1p(physics.sensordata[_TOUCH_SENSORS]),
        }
        if self.p.fully_observable:
            obs.update(
                hand_pos=self.body_2d_pose(physics, "hand"),
                object_pos=self.body_2d_pose(physics, self._object),
                object_vel=physics.qvel[self._object_joints],
                target_pos=self.body_2d_pose(physics, self._target),
            )
        return obs

    def get_reward(self, physics):
        distance = norm(physics.site_xpos["ball"] - physics.site_xpos["target_ball"])
        return tolerance(distance, (0, _CLOSE), _CLOSE * 2)
