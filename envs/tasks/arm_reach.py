"""Arm reach: a 7-dof Panda-like arm (assets/arm7.xml) moving its tool centre point to a target drawn in its 3-D
workspace.  numjoco/ArmReach-v0 has a Box observation and a dense reward; numjoco/ArmReachGoal-v0 is the same
task as a goal-conditioned env (Dict observation, vectorised compute_reward, info["is_success"]) for HER.

`control` picks the actuators: "position" (normalised joint-position servos, the default) or "torque" (motors
scaled to the joint effort limits); the other set is removed from the model before it is compiled.
"""

import xml.etree.ElementTree as ET

import numpy as np
from gymnasium import spaces

import sim
from envs.base import NumjocoEnv
from envs.spec import Task, qpos, qvel, xpos, site_xpos, sensordata, action, SumSq, Norm

# Where the task reads the end-effector position.  True: the framepos sensor "ee_pos" (d.sensordata), as the
# task is meant to; False: the site "ee" itself (site_xpos).  Both give the same numbers here: a framepos sensor of
# a site is its site_xpos, and with the implicitfast integrator both come from the last forward of a step.
# The core computes sensors (sim/engine/sensor.py) and the task kernel reads sensordata (field code 26 in sim/engine/task.py read()).
EE_FROM_SENSOR = True

SHOULDER = np.array([0.0, 0.0, 0.333])  # joint 2's axis passes here (the Panda's d1)


def end_effector():
    return sensordata["ee_pos"] if EE_FROM_SENSOR else site_xpos["ee"]


class ArmReachEnv(NumjocoEnv):
    """Reach a target with the tool centre point.  Observation (23): joint angles (7), joint velocities (7),
    end-effector position (3), target position (3), end effector minus target (3).  Reward: -distance_weight *
    distance - ctrl_cost_weight * |action|^2; info: distance, is_success (distance < success_threshold).
    Resets to the "home" keyframe with U(+-reset_noise_scale) on the joints (clipped to their ranges) and a
    target drawn uniformly in the box [target_low, target_high] until it lies 0.25-0.75 m from the shoulder."""

    xml_file = "arm7.xml"
    frame_skip = 20
    keyframe = "home"
    default_camera_config = {"distance": 2.0, "elevation": -25.0, "azimuth": 135.0, "lookat": np.array((0.3, 0.0, 0.4))}
    params = dict(
        control="position",
        distance_weight=1.0,
        ctrl_cost_weight=1e-3,
        success_threshold=0.05,
        target_low=(0.3, -0.4, 0.1),
        target_high=(0.7, 0.4, 0.7),
        reset_noise_scale=0.05,
        terminate_on_success=False,
    )

    def load_model(self, path, p):
        if p.control not in ("position", "torque"):
            raise ValueError(f"control must be 'position' or 'torque', got {p.control!r}")
        root = ET.parse(path).getroot()
        for act in root.iter("actuator"):
            for a in list(act):
                if a.get("class") in ("position", "torque") and a.get("class") != p.control:
                    act.remove(a)
        m = sim.load_model(ET.tostring(root, encoding="unicode"))
        if m.nu != 7:
            raise ValueError(f"{path}: expected 7 actuators of class {p.control!r}, found {m.nu}")
        return m

    def task(self, p):
        ee, target = end_effector(), xpos["target"]
        return Task(
            observation={
                "qpos": qpos[:7],
                "qvel": qvel[:7],
                "ee_pos": ee,
                "target_pos": target,
                "ee_to_target": ee - target,
            },
            reward={
                "reward_dist": -Norm(ee - target) * p.distance_weight,
                "reward_ctrl": -SumSq(action) * p.ctrl_cost_weight,
            },
            info={"distance": Norm(ee - target)},
            terminate=False,
            reset_info=["distance"],
        )

    def sample_target(self, rng, p):
        while True:
            g = rng.uniform(low=p.target_low, high=p.target_high)
            if 0.25 <= np.linalg.norm(g - SHOULDER) <= 0.75:
                return g

    def reset_state(self, rng, p):
        m = self.model
        lo, hi = np.asarray(m.jnt_range)[:7].T
        q = self.init_qpos.copy()
        q[:7] = np.clip(q[:7] + rng.uniform(-p.reset_noise_scale, p.reset_noise_scale, 7), lo, hi)
        self.goal = self.sample_target(rng, p)
        q[7:10] = self.goal
        ctrl = np.zeros(m.nu)
        if p.control == "position":  # hold the initial pose: ctrl = its normalised joint position
            ctrl[:] = (q[:7] - (lo + hi) / 2) / ((hi - lo) / 2)
        return {"qpos": q, "qvel": np.zeros(m.nv), "ctrl": ctrl}

    def step(self, action):
        obs, reward, terminated, truncated, info = super().step(action)
        info["is_success"] = float(info["distance"] < self.p.success_threshold)
        if self.p.terminate_on_success and info["is_success"]:
            terminated = True
        return obs, reward, terminated, truncated, info

    def reset(self, *, seed=None, options=None):
        obs, info = super().reset(seed=seed, options=options)
        info["is_success"] = float(info["distance"] < self.p.success_threshold)
        return obs, info


class ArmReachGoalEnv(ArmReachEnv):
    """ArmReach as a goal-conditioned env (Gymnasium-Robotics' GoalEnv interface, e.g. for SB3's HerReplayBuffer):
    observation {observation: joint angles, joint velocities, end-effector position (17); achieved_goal: the
    end-effector position; desired_goal: the target}.  Reward = compute_reward(achieved_goal, desired_goal, info):
    sparse -1 / 0 (distance > success_threshold or not) or dense -distance (reward_type).  50 steps of 0.04 s."""

    params = dict(ArmReachEnv.params, reward_type="sparse")

    def task(self, p):
        if p.reward_type not in ("sparse", "dense"):
            raise ValueError(f"reward_type must be 'sparse' or 'dense', got {p.reward_type!r}")
        ee, target = end_effector(), xpos["target"]
        return Task(
            observation={"qpos": qpos[:7], "qvel": qvel[:7], "ee_pos": ee, "target_pos": target},
            reward={},
            info={"distance": Norm(ee - target)},
            terminate=False,
            reset_info=["distance"],
        )

    def make_observation_space(self):
        def box(n):
            return spaces.Box(-np.inf, np.inf, (n,), np.float64)

        return spaces.Dict({"observation": box(17), "achieved_goal": box(3), "desired_goal": box(3)})

    def shape_observation(self, o):
        return {"observation": o[:17], "achieved_goal": o[14:17].copy(), "desired_goal": o[17:20]}

    def compute_reward(self, achieved_goal, desired_goal, info):
        """Reward of (batches of) goals: sparse -(d > threshold) as float32, dense -d."""
        d = np.linalg.norm(np.asarray(achieved_goal) - np.asarray(desired_goal), axis=-1)
        if self.p.reward_type == "sparse":
            return -(d > self.p.success_threshold).astype(np.float32)
        return -d

    def compute_terminated(self, achieved_goal, desired_goal, info):
        """Never terminated (batched like the goals)."""
        return np.zeros(np.shape(achieved_goal)[:-1], dtype=bool)

    def compute_truncated(self, achieved_goal, desired_goal, info):
        """Truncation comes from the time limit only (batched like the goals)."""
        return np.zeros(np.shape(achieved_goal)[:-1], dtype=bool)

    def step(self, action):
        obs, _, terminated, truncated, info = super().step(action)
        reward = float(self.compute_reward(obs["achieved_goal"], obs["desired_goal"], info))
        info["is_success"] = np.float32(info["is_success"])
        return obs, reward, terminated, truncated, info

    def reset(self, *, seed=None, options=None):
        obs, info = super().reset(seed=seed, options=options)
        info["is_success"] = np.float32(info["is_success"])
        return obs, info
