"""Point mass (dm_control/suite/point_mass.py): drive a mass in a plane to the target at the origin."""

from envs.dmc.base import DMCEnv
from envs.dmc.expr import tolerance, mean, norm
from envs.dmc.physics import randomize_limited_and_rotational_joints


class Easy(DMCEnv):
    domain, task = "point_mass", "easy"
    time_limit = 20

    def initialize_episode(self, physics, random):
        randomize_limited_and_rotational_joints(physics, random)

    def get_observation(self, physics):
        return {"position": physics.qpos[:], "velocity": physics.qvel[:]}

    def get_reward(self, physics):
        target_size = physics.named.model.geom_size["target", 0]
        distance = norm(physics.geom_xpos["target"] - physics.geom_xpos["pointmass"])
        near_target = tolerance(distance, bounds=(0, target_size), margin=target_size)
        control_reward = mean(tolerance(physics.ctrl[:], margin=1, value_at_margin=0, sigmoid="quadratic"))
        return near_target * ((control_reward + 4) / 5)
