"""Ant: Gymnasium's Ant-v5 on numjoco (main_body velocity, clipped contact forces, inclusive healthy z)."""

from envs.base import NumjocoEnv
from envs.spec import (
    Task,
    qpos,
    qvel,
    action,
    xpos,
    cfrc_ext,
    state,
    Velocity,
    Value,
    SumSq,
    Norm,
    Healthy,
    Range,
    Finite,
)


class AntEnv(NumjocoEnv):
    xml_file = "ant.xml"
    frame_skip = 5
    default_camera_config = {"distance": 4.0}
    params = dict(
        forward_reward_weight=1,
        ctrl_cost_weight=0.5,
        contact_cost_weight=5e-4,
        healthy_reward=1.0,
        main_body=1,
        terminate_when_unhealthy=True,
        healthy_z_range=(0.2, 1.0),
        contact_force_range=(-1.0, 1.0),
        reset_noise_scale=0.1,
        exclude_current_positions_from_observation=True,
        include_cfrc_ext_in_observation=True,
    )
    reset_noise = ("uniform", "normal")

    def task(self, p):
        skip = 2 * int(p.exclude_current_positions_from_observation)
        body = xpos.row(p.main_body)
        forces = cfrc_ext[6:] if p.include_cfrc_ext_in_observation else cfrc_ext[:0]
        return Task(
            observation={"qpos": qpos[skip:], "qvel": qvel, "cfrc_ext": forces.clip(*p.contact_force_range)},
            skipped={"skipped_qpos": skip},
            reward={
                "reward_forward": Velocity(body[0]) * p.forward_reward_weight,
                "reward_ctrl": -SumSq(action).in_action_dtype() * p.ctrl_cost_weight,
                "reward_contact": -SumSq(cfrc_ext, clip=p.contact_force_range) * p.contact_cost_weight,
                "reward_survive": Healthy() * p.healthy_reward,
            },
            info={
                "x_position": Value(qpos[0]),
                "y_position": Value(qpos[1]),
                "distance_from_origin": Norm(qpos[:2]),
                "x_velocity": Velocity(body[0]),
                "y_velocity": Velocity(body[1]),
            },
            healthy=[Finite(state), Range(qpos[2], p.healthy_z_range, closed=True)],
            terminate=p.terminate_when_unhealthy,
        )
