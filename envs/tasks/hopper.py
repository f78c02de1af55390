"""Hopper: Gymnasium's Hopper-v5 on numjoco (same observation, reward terms, termination, reset noise)."""

import numpy as np

from envs.base import NumjocoEnv
from envs.spec import Task, qpos, qvel, action, state, Velocity, Value, SumSq, Healthy, Range


class HopperEnv(NumjocoEnv):
    xml_file = "hopper.xml"
    frame_skip = 4
    default_camera_config = {
        "trackbodyid": 2,
        "distance": 3.0,
        "lookat": np.array((0.0, 0.0, 1.15)),
        "elevation": -20.0,
    }
    params = dict(
        forward_reward_weight=1.0,
        ctrl_cost_weight=1e-3,
        healthy_reward=1.0,
        terminate_when_unhealthy=True,
        healthy_state_range=(-100.0, 100.0),
        healthy_z_range=(0.7, float("inf")),
        healthy_angle_range=(-0.2, 0.2),
        reset_noise_scale=5e-3,
        exclude_current_positions_from_observation=True,
    )

    def healthy(self, p):
        """Health checks (strict bounds): z = qpos[1], angle = qpos[2], and the rest of the state."""
        return [
            Range(state[2:], p.healthy_state_range),
            Range(qpos[1], p.healthy_z_range),
            Range(qpos[2], p.healthy_angle_range),
        ]

    def task(self, p):
        skip = int(p.exclude_current_positions_from_observation)
        return Task(
            observation={"qpos": qpos[skip:], "qvel": qvel.clip(-10, 10)},
            skipped={"skipped_qpos": skip},
            reward={
                "reward_forward": Velocity(qpos[0]) * p.forward_reward_weight,
                "reward_survive": Healthy() * p.healthy_reward,
                "reward_ctrl": -SumSq(action).in_action_dtype() * p.ctrl_cost_weight,
            },
            info={
                "x_position": Value(qpos[0]),
                "z_distance_from_origin": Value(qpos[1] - self.init_qpos[1]),
                "x_velocity": Velocity(qpos[0]),
            },
            healthy=self.healthy(p),
            terminate=p.terminate_when_unhealthy,
        )
