"""Ball-in-Cup (dm_control/suite/ball_in_cup.py): swing the ball on its string into the cup; sparse reward."""

from envs.dmc.base import DMCEnv
from envs.dmc.expr import lt, prod


class Catch(DMCEnv):
    domain, task = "ball_in_cup", "catch"
    time_limit = 20
    control_timestep = 0.02

    def initialize_episode(self, physics, random):
        # the ball anywhere above the cup, redrawn while it touches anything
        penetrating = True
        while penetrating:
            physics.named.data.qpos["ball_x"] = random.uniform(-0.2, 0.2)
            physics.named.data.qpos["ball_z"] = random.uniform(0.2, 0.5)
            physics.after_reset()
            penetrating = physics.data.ncon > 0

    def get_observation(self, physics):
        return {"position": physics.qpos[:], "velocity": physics.qvel[:]}

    def get_reward(self, physics):
        ball_to_target = physics.site_xpos["target", ["x", "z"]] - physics.xpos["ball", ["x", "z"]]
        target_size = physics.named.model.site_size["target", [0, 2]]
        ball_size = physics.named.model.geom_size["ball", 0]
        return prod(lt(abs(ball_to_target), target_size - ball_size))
