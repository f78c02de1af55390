"""Walker2d: Gymnasium's Walker2d-v5 on numjoco (walker2d_v5.xml: both feet with friction 1.9).  The task is
Hopper's with two legs: same observation, reward terms and info; healthy on z and angle only."""

import numpy as np

from envs.spec import qpos, Range
from envs.tasks.hopper import HopperEnv


class Walker2dEnv(HopperEnv):
    xml_file = "walker2d_v5.xml"
    default_camera_config = {
        "trackbodyid": 2,
        "distance": 4.0,
        "lookat": np.array((0.0, 0.0, 1.15)),
        "elevation": -20.0,
    }
    params = dict(
        forward_reward_weight=1.0,
        ctrl_cost_weight=1e-3,
        healthy_reward=1.0,
        terminate_when_unhealthy=True,
        healthy_z_range=(0.8, 2.0),
        healthy_angle_range=(-1.0, 1.0),
        reset_noise_scale=5e-3,
        exclude_current_positions_from_observation=True,
    )

    def healthy(self, p):
        return [Range(qpos[1], p.healthy_z_range), Range(qpos[2], p.healthy_angle_range)]
