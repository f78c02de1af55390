"""HalfCheetah: Gymnasium's HalfCheetah-v5 on numjoco (never terminates; qvel reset noise is Gaussian)."""

from envs.base import NumjocoEnv
from envs.spec import Task, qpos, qvel, action, Velocity, Value, SumSq


class HalfCheetahEnv(NumjocoEnv):
    xml_file = "half_cheetah.xml"
    frame_skip = 5
    default_camera_config = {"distance": 4.0}
    params = dict(
        forward_reward_weight=1.0,
        ctrl_cost_weight=0.1,
        reset_noise_scale=0.1,
        exclude_current_positions_from_observation=True,
    )
    reset_noise = ("uniform", "normal")

    def task(self, p):
        skip = int(p.exclude_current_positions_from_observation)
        return runner_task(p, skip, {"x_position": Value(qpos[0]), "x_velocity": Velocity(qpos[0])})


def runner_task(p, skip, info):
    """The Task of the planar runners (HalfCheetah-v5, Swimmer-v5): qpos[skip:] and qvel observed, reward the
    forward x velocity minus the control cost, never terminates."""
    return Task(
        observation={"qpos": qpos[skip:], "qvel": qvel},
        skipped={"skipped_qpos": skip},
        reward={
            "reward_forward": Velocity(qpos[0]) * p.forward_reward_weight,
            "reward_ctrl": -SumSq(action).in_action_dtype() * p.ctrl_cost_weight,
        },
        info=info,
        terminate=False,
    )
