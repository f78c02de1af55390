"""HumanoidStandup: Gymnasium's HumanoidStandup-v5 on numjoco.

As in v5, reward_linup is qpos[2] / timestep (the model timestep, not dt) and `uph_cost_weight` is accepted but
does not scale it; the reward adds a constant 1 per step that info does not report."""

import numpy as np

from envs.spec import Task, qpos, ctrl, cfrc_ext, Value, SumSq, Const
from envs.tasks.humanoid import HumanoidBase


class HumanoidStandupEnv(HumanoidBase):
    xml_file = "humanoidstandup.xml"
    default_camera_config = {
        "trackbodyid": 1,
        "distance": 4.0,
        "lookat": np.array((0.0, 0.0, 0.8925)),
        "elevation": -20.0,
    }
    params = dict(
        uph_cost_weight=1,
        ctrl_cost_weight=0.1,
        impact_cost_weight=5e-7,
        impact_cost_range=(-np.inf, 10.0),
        **HumanoidBase.params,
    )

    def task(self, p):
        return Task(
            reward={
                "reward_linup": Value(qpos[2]) * (1.0 / self.model.opt.timestep),
                "reward_quadctrl": -SumSq(ctrl) * p.ctrl_cost_weight,
                "reward_impact": -(SumSq(cfrc_ext) * p.impact_cost_weight).clip(*p.impact_cost_range),
                "_alive": Const(1.0),
            },
            info={
                "x_position": Value(qpos[0]),
                "y_position": Value(qpos[1]),
                "z_distance_from_origin": Value(qpos[2] - self.init_qpos[2]),
            },
            terminate=False,
            **self.observation(p),
        )
