"""Pusher: Gymnasium's Pusher-v5 on numjoco (a 7-dof arm pushing a cylinder to a goal, no gravity)."""

import numpy as np

from envs.base import NumjocoEnv
from envs.spec import Task, qpos, qvel, xpos, action, SumSq, Norm


class PusherEnv(NumjocoEnv):
    xml_file = "pusher_v5.xml"
    frame_skip = 5
    default_camera_config = {"trackbodyid": -1, "distance": 4.0}
    params = dict(reward_near_weight=0.5, reward_dist_weight=1, reward_control_weight=0.1)

    def task(self, p):
        return Task(
            observation={
                "qpos": qpos[:7],
                "qvel": qvel[:7],
                "tips_arm": xpos["tips_arm"],
                "object": xpos["object"],
                "goal": xpos["goal"],
            },
            reward={
                "reward_dist": -Norm(xpos["object"] - xpos["goal"]) * p.reward_dist_weight,
                "reward_ctrl": -SumSq(action).in_action_dtype() * p.reward_control_weight,
                "reward_near": -Norm(xpos["object"] - xpos["tips_arm"]) * p.reward_near_weight,
            },
            terminate=False,
            reset_info=[],
        )

    def reset_state(self, rng, p):
        """The arm at init_qpos, the object drawn in x U(-0.3, 0), y U(-0.2, 0.2) until 0.17 away from the goal
        at (0, 0), velocities U(+-0.005) with the object's and goal's set to 0 (Pusher-v5's reset_model, same
        draws; as v5, the draw is written into init_qpos itself)."""
        qpos = self.init_qpos
        self.goal_pos = np.asarray([0, 0])
        while True:
            self.cylinder_pos = np.concatenate(
                [rng.uniform(low=-0.3, high=0, size=1), rng.uniform(low=-0.2, high=0.2, size=1)]
            )
            if np.linalg.norm(self.cylinder_pos - self.goal_pos) > 0.17:
                break
        qpos[-4:-2] = self.cylinder_pos
        qpos[-2:] = self.goal_pos
        qvel = self.init_qvel + rng.uniform(low=-0.005, high=0.005, size=self.model.nv)
        qvel[-4:] = 0
        return {"qpos": qpos.copy(), "qvel": qvel}
