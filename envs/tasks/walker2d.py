"""Walker2d: Gymnasium's Walker2d-v5 on numjoco (walker2d_v5.xml: both feet with friction 1.9).  The task is
Hopper's with two legs: same observation, reward terms and info; healthy on z and angle only."""

from envs.spec import qpos, Range
from envs.tasks.hopper import HopperEnv


class Walker2dEnv(HopperEnv):
    xml_file = "walker2d_v5.xml"
    default_camera_config = dict(HopperEnv.default_camera_config, distance=4.0)
    # Hopper's parameters without healthy_state_range (Walker2d-v5 checks z and angle only), other health ranges
    params = {k: v for k, v in HopperEnv.params.items() if k != "healthy_state_range"}
    params.update(healthy_z_range=(0.8, 2.0), healthy_angle_range=(-1.0, 1.0))

    def healthy(self, p):
        return [Range(qpos[1], p.healthy_z_range), Range(qpos[2], p.healthy_angle_range)]
