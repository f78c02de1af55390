"""Swimmer (dm_control/suite/swimmer.py): a 6- or 15-link planar swimmer in fluid reaching a target."""

from envs.dmc.base import DMCEnv
from envs.dmc import models
from envs.dmc.expr import tolerance, norm
from envs.dmc.physics import randomize_limited_and_rotational_joints


class Swimmer6(DMCEnv):
    domain, task = "swimmer", "swimmer6"
    time_limit = 30
    control_timestep = 0.03
    n_links = 6
    episode_fields = ("geom_pos",)  # (and light_pos, drawn from the base model in a vector env)

    def model_xml(self, p):
        return models.swimmer(self.n_links)

    def initialize_episode(self, physics, random):
        randomize_limited_and_rotational_joints(physics, random)
        target_box = 0.3 if random.rand() < 0.2 else 2  # a close target one time in five
        xpos, ypos = random.uniform(-target_box, target_box, size=2)
        model = physics.named.model
        model.geom_pos["target", "x"] = xpos
        model.geom_pos["target", "y"] = ypos
        model.light_pos["target_light", "x"] = xpos
        model.light_pos["target_light", "y"] = ypos

    def nose_to_target(self, physics):
        """The vector from nose to target in the head's frame, (x, y)."""
        to_target = physics.geom_xpos["target"] - physics.geom_xpos["nose"]
        return to_target.dot(physics.xmat["head"].reshape(3, 3))[:2]

    def get_observation(self, physics):
        velocities = physics.sensordata[12:].reshape((-1, 6))[:, [0, 1, 5]].ravel()  # local vx, vy, wz
        return {"joints": physics.qpos[3:], "to_target": self.nose_to_target(physics), "body_velocities": velocities}

    def get_reward(self, physics):
        target_size = physics.named.model.geom_size["target", 0]
        return tolerance(
            norm(self.nose_to_target(physics)), bounds=(0, target_size), margin=5 * target_size, sigmoid="long_tail"
        )


class Swimmer15(Swimmer6):
    task, n_links = "swimmer15", 15
