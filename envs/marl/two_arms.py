"""Two arms, one target: numjoco's own two-agent task (PettingZoo ParallelEnv through envs/marl/multi.py).

Two planar 2-link arms face each other across a table (bases at x = -0.2 and 0.2, reach 0.3); a target is drawn
in the disk of radius 0.1 around the middle at each reset.  Agent arm_i drives its shoulder and elbow and sees
its joint angles (cos, sin), joint velocities, the vector from its fingertip to the target, the other arm's
fingertip and the target.  mode="shared": both get the team reward -(d0 + d1) minus the control costs
(cooperative); mode="compete": arm_i gets d_j - d_i minus its own control cost (zero-sum race to the target).
Episodes never terminate; they are truncated after max_cycles steps (default 100).
"""

import os

import numpy as np
import gymnasium as gym

from envs.base import NumjocoEnv
from envs.marl.multi import MultiAgentNumjocoEnv, obs_segments
from envs.spec import Task, qpos, qvel, xpos, action, Norm, SumSq

XML = os.path.join(os.path.dirname(os.path.abspath(__file__)), "two_arm_reach.xml")


class TwoArmReachEnv(NumjocoEnv):
    """The single-env view of the task (4 actions; reward = the team reward)."""

    xml_file = XML
    frame_skip = 2
    params = dict(ctrl_cost_weight=0.1, reset_noise_scale=0.1, target_radius=0.1)

    def task(self, p):
        seg, reward, info = {}, {}, {}
        target = xpos["target"][:2]
        for i in (0, 1):
            q = qpos[2 * i : 2 * i + 2]
            tip = xpos[f"arm{i}_tip"][:2]
            seg.update(
                {
                    f"arm{i}_cos": q.cos(),
                    f"arm{i}_sin": q.sin(),
                    f"arm{i}_qvel": qvel[2 * i : 2 * i + 2],
                    f"arm{i}_to_target": tip - target,
                    f"arm{i}_tip": tip,
                }
            )
            reward[f"reward_dist_{i}"] = -Norm(tip - target)
            reward[f"reward_ctrl_{i}"] = -SumSq(action[2 * i : 2 * i + 2]) * p.ctrl_cost_weight
        seg["target"] = target
        return Task(observation=seg, reward=reward, info=info, terminate=False)

    def reset_state(self, rng, p):
        m = self.model
        s = p.reset_noise_scale
        qpos_ = self.init_qpos + rng.uniform(-s, s, m.nq)
        while True:
            goal = rng.uniform(-p.target_radius, p.target_radius, 2)
            if np.linalg.norm(goal) < p.target_radius:
                break
        qpos_[4:6] = goal
        qvel_ = self.init_qvel + rng.uniform(-0.005, 0.005, m.nv)
        qvel_[4:6] = 0.0
        return {"qpos": qpos_, "qvel": qvel_}


def _agent_obs(env, i):
    seg = obs_segments(env)
    j = 1 - i
    names = [f"arm{i}_cos", f"arm{i}_sin", f"arm{i}_qvel", f"arm{i}_to_target", f"arm{j}_tip", "target"]
    return [k for n in names for k in range(seg[n].start, seg[n].stop)]


def two_arm_reach(mode="shared", max_cycles=100, **kwargs):
    """The ParallelEnv of the task (agents arm_0, arm_1); kwargs to TwoArmReachEnv."""
    if mode not in ("shared", "compete"):
        raise ValueError(f'mode must be "shared" or "compete", got {mode!r}')
    env = gym.wrappers.TimeLimit(TwoArmReachEnv(**kwargs), max_episode_steps=int(max_cycles))

    def rewards(reward, info):
        d = [-info["reward_dist_0"], -info["reward_dist_1"]]
        c = [info["reward_ctrl_0"], info["reward_ctrl_1"]]
        if mode == "shared":
            return {"arm_0": reward, "arm_1": reward}
        return {"arm_0": d[1] - d[0] + c[0], "arm_1": d[0] - d[1] + c[1]}

    return MultiAgentNumjocoEnv(
        env,
        {"arm_0": [0, 1], "arm_1": [2, 3]},
        {"arm_0": _agent_obs(env, 0), "arm_1": _agent_obs(env, 1)},
        rewards=rewards,
    )
