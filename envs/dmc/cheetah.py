"""Cheetah (dm_control/suite/cheetah.py): run forward; reward linear in the torso's speed up to 10 m/s."""

from envs.dmc.base import DMCEnv
from envs.dmc.expr import tolerance, INF

_RUN_SPEED = 10


class Run(DMCEnv):
    domain, task = "cheetah", "run"
    time_limit = 10

    def initialize_episode(self, physics, random):
        # limited joints uniform in their range, then 200 steps to settle, the clock back at 0
        m = physics.model
        limited = m.jnt_limited == 1
        lower, upper = m.jnt_range[limited].T
        physics.data.qpos[limited] = random.uniform(lower, upper)
        physics.step(200)
        physics.data.time = 0

    def get_observation(self, physics):
        return {"position": physics.qpos[1:], "velocity": physics.qvel[:]}

    def get_reward(self, physics):
        speed = physics.sensordata["torso_subtreelinvel"][0]
        return tolerance(speed, bounds=(_RUN_SPEED, INF), margin=_RUN_SPEED, value_at_margin=0, sigmoid="linear")
