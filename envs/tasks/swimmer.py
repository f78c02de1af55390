"""Swimmer: Gymnasium's Swimmer-v5 on numjoco (viscous fluid, never terminates)."""

from envs.base import NumjocoEnv
from envs.spec import Task, qpos, qvel, action, Velocity, Value, SumSq, Norm


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
        return Task(
            observation={"qpos": qpos[skip:], "qvel": qvel},
            skipped={"skipped_qpos": skip},
            reward={
                "reward_forward": Velocity(qpos[0]) * p.forward_reward_weight,
                "reward_ctrl": -SumSq(action).in_action_dtype() * p.ctrl_cost_weight,
            },
            info={
                "x_position": Value(qpos[0]),
                "y_position": Value(qpos[1]),
                "distance_from_origin": Norm(qpos[:2]),
                "x_velocity": Velocity(qpos[0]),
                "y_velocity": Velocity(qpos[1]),
            },
            terminate=False,
        )
