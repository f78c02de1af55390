"""Reacher: Gymnasium's Reacher-v5 on numjoco (a 2-link arm reaching a target drawn in a disc at reset)."""

import numpy as np

from envs.base import NumjocoEnv
from envs.spec import Task, qpos, qvel, xpos, action, SumSq, Norm


class ReacherEnv(NumjocoEnv):
    xml_file = "reacher.xml"
    frame_skip = 2
    default_camera_config = {"trackbodyid": 0}
    params = dict(reward_dist_weight=1, reward_control_weight=1)

    def task(self, p):
        to_target = xpos["fingertip"] - xpos["target"]
        return Task(
            observation={
                "cos": qpos[:2].cos(),
                "sin": qpos[:2].sin(),
                "target": qpos[2:],
                "qvel": qvel[:2],
                "fingertip_to_target": to_target[:2],
            },
            reward={
                "reward_dist": -Norm(to_target) * p.reward_dist_weight,
                "reward_ctrl": -SumSq(action).in_action_dtype() * p.reward_control_weight,
            },
            terminate=False,
            reset_info=[],
        )

    def reset_state(self, rng, p):
        """Arm angles U(+-0.1), goal U(+-0.2)^2 redrawn until inside the 0.2 disc, velocities U(+-0.005) with the
        target's set to 0 (Reacher-v5's reset_model, same draws)."""
        qpos = rng.uniform(low=-0.1, high=0.1, size=self.model.nq) + self.init_qpos
        while True:
            self.goal = rng.uniform(low=-0.2, high=0.2, size=2)
            if np.linalg.norm(self.goal) < 0.2:
                break
        qpos[-2:] = self.goal
        qvel = self.init_qvel + rng.uniform(low=-0.005, high=0.005, size=self.model.nv)
        qvel[-2:] = 0
        return {"qpos": qpos, "qvel": qvel}
