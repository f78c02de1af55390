"""Cartpole (dm_control/suite/cartpole.py): balance the pole upright, or swing it up from hanging down."""

import numpy as np

from envs.dmc.base import DMCEnv
from envs.dmc import models
from envs.dmc.expr import tolerance, mean, prod, amin


class Balance(DMCEnv):
    domain, task = "cartpole", "balance"
    time_limit = 10
    swing_up, sparse = False, False
    _CART_RANGE = (-0.25, 0.25)
    _ANGLE_COSINE_RANGE = (0.995, 1)

    def model_xml(self, p):
        return models.cartpole(1)

    def initialize_episode(self, physics, random):
        nv = physics.model.nv
        qpos = physics.named.data.qpos
        if self.swing_up:
            qpos["slider"] = 0.01 * random.randn()
            qpos["hinge_1"] = np.pi + 0.01 * random.randn()
            qpos[2:] = 0.1 * random.randn(nv - 2)
        else:
            qpos["slider"] = random.uniform(-0.1, 0.1)
            qpos[1:] = random.uniform(-0.034, 0.034, nv - 1)
        physics.named.data.qvel[:] = 0.01 * random.randn(physics.model.nv)

    def get_observation(self, physics):
        cart_position = physics.qpos["slider"][0]
        return {
            "position": np.hstack((cart_position, physics.xmat[2:, ["zz", "xz"]].ravel())),
            "velocity": physics.qvel[:],
        }

    def get_reward(self, physics):
        cart_position = physics.qpos["slider"][0]
        pole_angle_cosine = physics.xmat[2:, "zz"]
        if self.sparse:
            cart_in_bounds = tolerance(cart_position, self._CART_RANGE)
            angle_in_bounds = prod(tolerance(pole_angle_cosine, self._ANGLE_COSINE_RANGE))
            return cart_in_bounds * angle_in_bounds
        upright = (pole_angle_cosine + 1) / 2
        centered = (1 + tolerance(cart_position, margin=2)) / 2
        small_control = tolerance(physics.ctrl[:], margin=1, value_at_margin=0, sigmoid="quadratic")[0]
        small_control = (4 + small_control) / 5
        small_velocity = (1 + amin(tolerance(physics.qvel[1:], margin=5))) / 2
        return mean(upright) * small_control * small_velocity * centered


class BalanceSparse(Balance):
    task, sparse = "balance_sparse", True


class Swingup(Balance):
    task, swing_up = "swingup", True


class SwingupSparse(Balance):
    task, swing_up, sparse = "swingup_sparse", True, True
