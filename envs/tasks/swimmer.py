"""Swimmer: Gymnasium's Swimmer-v5 on numjoco (viscous fluid, never terminates)."""

from envs.base import NumjocoEnv
from envs.spec import qpos, Velocity, Value, Norm
from envs.tasks.half_cheetah import runner_task


class SwimmerEnv(NumjocoEnv):
    xml_file = "swimmer.xml"
    frame_skip = 4
    default_camera_config = None
    params = dict(
        forward_reward_weight=1.0,
        ctrl_cost_weight=1e-4,
        reset_noise_scale=0.1,
        exclude_current_positions_from_observation=True,
    )

    def task(self, p):
        skip = 2 * int(p.exclude_current_positions_from_observation)
        info = {
            "x_position": Value(qpos[0]),
            "y_position": Value(qpos[1]),
            "distance_from_origin": Norm(qpos[:2]),
            "x_velocity": Velocity(qpos[0]),
            "y_velocity": Velocity(qpos[1]),
        }
        return runner_task(p, skip, info)
