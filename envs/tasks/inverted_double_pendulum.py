"""InvertedDoublePendulum: Gymnasium's InvertedDoublePendulum-v5 on numjoco (ends when the tip is at z <= 1)."""

import numpy as np

from envs.base import NumjocoEnv
from envs.spec import Task, qpos, qvel, qfrc_constraint, site_xpos, SumSq, Healthy, Range


class InvertedDoublePendulumEnv(NumjocoEnv):
    xml_file = "inverted_double_pendulum.xml"
    frame_skip = 5
    default_camera_config = {"trackbodyid": 0, "distance": 4.1225, "lookat": np.array((0.0, 0.0, 0.1225))}
    params = dict(healthy_reward=10.0, reset_noise_scale=0.1)
    reset_noise = ("uniform", "normal")

    def task(self, p):
        tip = site_xpos.row(0)
        return Task(
            observation={
                "qpos": qpos[:1],
                "sin": qpos[1:].sin(),
                "cos": qpos[1:].cos(),
                "qvel": qvel.clip(-10, 10),
                "qfrc_constraint": qfrc_constraint[:1].clip(-10, 10),
            },
            reward={
                "reward_survive": Healthy() * p.healthy_reward,
                "distance_penalty": -SumSq((tip[[0, 2]] - (0.0, 2.0)).weighted((0.01, 1.0))),
                "velocity_penalty": -SumSq(qvel[1:3].weighted((1e-3, 5e-3))),
            },
            healthy=[Range(tip[2], (1.0, np.inf))],
            reset_info=[],
        )
