"""Humanoid: Gymnasium's Humanoid-v5 on numjoco (mass-centre velocity, com-based inertia / velocity / contact
force observations, tendon lengths and velocities in info)."""

import numpy as np

from envs.base import NumjocoEnv
from envs.spec import (
    Task,
    qpos,
    qvel,
    ctrl,
    cinert,
    cvel,
    qfrc_actuator,
    cfrc_ext,
    subtree_com,
    ten_length,
    Velocity,
    Value,
    SumSq,
    Norm,
    Healthy,
    Range,
)


class HumanoidBase(NumjocoEnv):
    """What Humanoid and HumanoidStandup share: frame_skip, the observation, the tendon arrays in info."""

    frame_skip = 5
    params = dict(
        reset_noise_scale=1e-2,
        exclude_current_positions_from_observation=True,
        include_cinert_in_observation=True,
        include_cvel_in_observation=True,
        include_qfrc_actuator_in_observation=True,
        include_cfrc_ext_in_observation=True,
    )
    info_arrays = {"tendon_length": "ten_length", "tendon_velocity": "ten_velocity"}

    def observation(self, p):
        """Positions (x, y skipped by default), velocities, then the optional com-based segments of every body but
        the world; observation_structure as v5 (ten_length / ten_velocity: 0)."""

        def opt(vec, on):
            return vec if on else vec[:0]

        skip = 2 * int(p.exclude_current_positions_from_observation)
        return dict(
            observation={
                "qpos": qpos[skip:],
                "qvel": qvel,
                "cinert": opt(cinert[10:], p.include_cinert_in_observation),
                "cvel": opt(cvel[6:], p.include_cvel_in_observation),
                "qfrc_actuator": opt(qfrc_actuator[6:], p.include_qfrc_actuator_in_observation),
                "cfrc_ext": opt(cfrc_ext[6:], p.include_cfrc_ext_in_observation),
                "ten_length": ten_length[:0],
                "ten_velocity": ten_length[:0],
            },
            skipped={"skipped_qpos": skip},
            info_arrays=self.info_arrays,
        )


class HumanoidEnv(HumanoidBase):
    xml_file = "humanoid.xml"
    default_camera_config = {"trackbodyid": 1, "distance": 4.0, "lookat": np.array((0.0, 0.0, 2.0)), "elevation": -20.0}
    params = dict(
        forward_reward_weight=1.25,
        ctrl_cost_weight=0.1,
        contact_cost_weight=5e-7,
        contact_cost_range=(-np.inf, 10.0),
        healthy_reward=5.0,
        terminate_when_unhealthy=True,
        healthy_z_range=(1.0, 2.0),
        **HumanoidBase.params,
    )

    def task(self, p):
        # the mass centre of all bodies (Gymnasium's mass_center) is the world body's subtree_com
        com = subtree_com.row(0)
        return Task(
            reward={
                "reward_survive": Healthy() * p.healthy_reward,
                "reward_forward": Velocity(com[0]) * p.forward_reward_weight,
                "reward_ctrl": -SumSq(ctrl) * p.ctrl_cost_weight,
                "reward_contact": -(SumSq(cfrc_ext) * p.contact_cost_weight).clip(*p.contact_cost_range),
            },
            info={
                "x_position": Value(qpos[0]),
                "y_position": Value(qpos[1]),
                "distance_from_origin": Norm(qpos[:2]),
                "x_velocity": Velocity(com[0]),
                "y_velocity": Velocity(com[1]),
            },
            healthy=[Range(qpos[2], p.healthy_z_range)],
            terminate=p.terminate_when_unhealthy,
            **self.observation(p),
        )
