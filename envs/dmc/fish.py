"""Fish (dm_control/suite/fish.py): a 3-D swimmer in fluid; turn upright, or swim to a target."""

import numpy as np

from envs.dmc.base import DMCEnv
from envs.dmc.expr import norm, tolerance

_JOINTS = ["tail1", "tail_twist", "tail2", "finright_roll", "finright_pitch", "finleft_roll", "finleft_pitch"]


class Upright(DMCEnv):
    domain, task = "fish", "upright"
    time_limit = 40
    control_timestep = 0.04

    def initialize_episode(self, physics, random):
        # random orientation, tail and fins in [-0.2, 0.2]
        quat = random.randn(4)
        physics.named.data.qpos["root"][3:7] = quat / np.linalg.norm(quat)
        for joint in _JOINTS:
            physics.named.data.qpos[joint] = random.uniform(-0.2, 0.2)
        physics.named.model.geom_rgba["target", 3] = 0

    def get_observation(self, physics):
        return {
            "joint_angles": physics.qpos[_JOINTS],
            "upright": physics.xmat["torso", "zz"],
            "velocity": physics.qvel[:],
        }

    def get_reward(self, physics):
        return tolerance(physics.xmat["torso", "zz"], bounds=(1, 1), margin=1)


class Swim(DMCEnv):
    domain, task = "fish", "swim"
    time_limit = 40
    control_timestep = 0.04
    episode_fields = ("geom_pos",)

    def initialize_episode(self, physics, random):
        quat = random.randn(4)
        physics.named.data.qpos["root"][3:7] = quat / np.linalg.norm(quat)
        for joint in _JOINTS:
            physics.named.data.qpos[joint] = random.uniform(-0.2, 0.2)
        target = physics.named.model.geom_pos
        target["target", "x"] = random.uniform(-0.4, 0.4)
        target["target", "y"] = random.uniform(-0.4, 0.4)
        target["target", "z"] = random.uniform(0.1, 0.3)

    def mouth_to_target(self, physics):
        """The vector from mouth to target in the mouth's frame."""
        to_target = physics.geom_xpos["target"] - physics.geom_xpos["mouth"]
        return to_target.dot(physics.geom_xmat["mouth"].reshape(3, 3))

    def get_observation(self, physics):
        return {
            "joint_angles": physics.qpos[_JOINTS],
            "upright": physics.xmat["torso", "zz"],
            "target": self.mouth_to_target(physics),
            "velocity": physics.qvel[:],
        }

    def get_reward(self, physics):
        radii = physics.named.model.geom_size[["mouth", "target"], 0].sum()
        in_target = tolerance(norm(self.mouth_to_target(physics)), bounds=(0, radii), margin=2 * radii)
        is_upright = 0.5 * (physics.xmat["torso", "zz"] + 1)
        return (7 * in_target + is_upright) / 8
