"""Fetch: Gymnasium-Robotics' Fetch tasks (FetchReach/Push/Slide/PickAndPlace-v4) on numjoco.

The 7-dof arm follows a mocap body welded to its gripper: each step moves the mocap to the gripper's pose plus
0.05 x action[:3] (orientation fixed), the gripper fingers follow action[3] (PickAndPlace) or stay closed (the
others: pinned at 0 after the steps, then mj_forward), 20 physics steps of 2 ms.  Observation (10 for Reach, 25
with an object): gripper position, object position, object relative to the gripper, finger positions, object
Euler angles, object linear velocity relative to the gripper's, object angular velocity, gripper linear velocity,
finger velocities (velocities from the site Jacobians times qvel, times dt).  Goal: the gripper (Reach) or the
object position; reward -1/0 (sparse: distance > 0.05) or -distance (dense).  Models: gymnasium_robotics'
fetch/*.xml.
"""

import numpy as np

from sim import api as _api

from envs.robotics.core import RobotEnv, SiteJacobian, joint_qpos_range, load_model_cached, object_id, robot_joints
from envs.robotics.kernels import FORWARD, RESET
from envs.robotics.rotations import mat2euler

MJEQ_WELD = 1


class FetchEnv(RobotEnv):
    """gymnasium_robotics' MujocoFetchEnv, batched (see envs/robotics/core.py)."""

    n_actions = 4
    default_camera_config = {
        "distance": 2.5,
        "azimuth": 132.0,
        "elevation": -14.0,
        "lookat": np.array([1.3, 0.75, 0.55]),
    }
    params = dict(
        reward_type="sparse",
        n_substeps=20,
        gripper_extra_height=0.0,
        block_gripper=True,
        has_object=True,
        target_in_the_air=False,
        target_offset=0.0,
        obj_range=0.15,
        target_range=0.15,
        distance_threshold=0.05,
    )

    def load_model(self, path, p):
        m = load_model_cached(path)
        if m.nmocap != 1:
            raise ValueError(f"{path}: the Fetch tasks drive one mocap body, found {m.nmocap}")
        # reset_mocap_welds: the weld's anchor and relative pose zeroed, the quaternion's w set to 1
        for i in range(m.neq):
            if int(m.eq_type[i]) == MJEQ_WELD:
                m.eq_data[i, :7] = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
        self.welds = []  # (mocap id, id of the welded body): reset_mocap2body_xpos
        for i in range(m.neq):
            if int(m.eq_type[i]) != MJEQ_WELD:
                continue
            b1, b2 = int(m.eq_obj1id[i]), int(m.eq_obj2id[i])
            mid = int(m.body_mocapid[b1])
            self.welds.append((mid, b2) if mid != -1 else (int(m.body_mocapid[b2]), b1))
        self.mocap = int(m.body_mocapid[object_id(m, "body", "robot0:mocap")])
        self.grip = object_id(m, "site", "robot0:grip")
        self.grip_jac = SiteJacobian(m, self.grip)
        self.robot_qpos, self.robot_dof = robot_joints(m)
        self.fingers = [
            joint_qpos_range(m, "robot0:l_gripper_finger_joint")[0],
            joint_qpos_range(m, "robot0:r_gripper_finger_joint")[0],
        ]
        # ctrl_set_action: a position servo (biastype != 0) targets its joint's qpos + the action
        self.act_biased = np.asarray(m.actuator_biastype).reshape(-1) != 0
        self.act_qpos = np.array([int(m.jnt_qposadr[int(m.actuator_trnid[i, 0])]) for i in range(m.nu)], np.int64)
        if p.has_object:
            self.obj_site = object_id(m, "site", "object0")
            self.obj_jac = SiteJacobian(m, self.obj_site)
            self.obj_qpos = joint_qpos_range(m, "object0:joint")[0]
        return m

    def env_setup(self, d):
        self.set_initial_qpos(d)  # its mj_forward is reset_mocap_welds'
        a = _api.batch_arrays(d)
        w0 = np.zeros(1, np.int64)
        self.advance(w0, FORWARD, 0, d)
        target = np.array([-0.498, 0.005, -0.431 + self.p.gripper_extra_height]) + a["site_xpos"][0, self.grip]
        a["mocap_pos"][0, self.mocap] = target
        a["mocap_quat"][0, self.mocap] = (1.0, 0.0, 1.0, 0.0)
        self.advance(w0, 0, 10 * self.n_substeps, d)
        self.initial_gripper_xpos = a["site_xpos"][0, self.grip].copy()
        if self.p.has_object:
            self.height_offset = float(a["site_xpos"][0, self.obj_site, 2])

    def draw_reset(self, rng):
        if not self.p.has_object:
            return None
        home = self.initial_gripper_xpos[:2]
        xy = home
        while np.linalg.norm(xy - home) < 0.1:
            xy = home + rng.uniform(-self.p.obj_range, self.p.obj_range, size=2)
        return xy

    def reset_sim(self, worlds, draws):
        self.advance(worlds, RESET, 0)
        self.load_initial(worlds)
        if self.p.has_object:
            self._d["qpos"][worlds, self.obj_qpos : self.obj_qpos + 2] = np.array(draws)
        self.advance(worlds, FORWARD, 0)
        return np.ones(len(worlds), bool)

    def sample_goal(self, rng, w):
        p = self.p
        goal = self.initial_gripper_xpos[:3] + rng.uniform(-p.target_range, p.target_range, size=3)
        if p.has_object:
            goal += p.target_offset
            goal[2] = self.height_offset
            if p.target_in_the_air and rng.uniform() < 0.5:
                goal[2] += rng.uniform(0, 0.45)
        return goal

    def set_action(self, worlds, a):
        d = self._d
        pos = a[:, :3] * 0.05  # in the action's dtype, as gymnasium_robotics computes it
        grip = np.zeros_like(a[:, 3]) if self.p.block_gripper else a[:, 3]
        for mid, body in self.welds:  # reset_mocap2body_xpos, then the deltas
            d["mocap_pos"][worlds, mid] = d["xpos"][worlds, body]
            d["mocap_quat"][worlds, mid] = d["xquat"][worlds, body]
        d["mocap_pos"][worlds] += pos.astype(np.float64)[:, None, :]
        d["mocap_quat"][worlds] += np.array([1.0, 0.0, 1.0, 0.0])
        if self.model.nu:
            g = grip.astype(np.float64)[:, None]
            d["ctrl"][worlds] = np.where(self.act_biased, d["qpos"][worlds][:, self.act_qpos] + g, g)

    def after_step(self, worlds):
        if self.p.block_gripper:
            d = self._d
            d["qpos"][np.ix_(worlds, self.fingers)] = 0.0
            self.advance(worlds, FORWARD, 0)

    def observe(self, worlds, d=None):
        d = self._d if d is None else d
        dt = self.dt
        grip_pos = d["site_xpos"][worlds, self.grip]
        grip_velp = self.grip_jac.velocity(d, worlds)[0] * dt
        fingers = d["qpos"][worlds][:, self.robot_qpos[-2:]]
        finger_vel = d["qvel"][worlds][:, self.robot_dof[-2:]] * dt
        if not self.p.has_object:
            return np.concatenate([grip_pos, fingers, grip_velp, finger_vel], axis=1), grip_pos.copy()
        obj_pos = d["site_xpos"][worlds, self.obj_site]
        obj_rot = mat2euler(d["site_xmat"][worlds, self.obj_site].reshape(-1, 3, 3))
        velp, velr = self.obj_jac.velocity(d, worlds)
        obj_velp = velp * dt - grip_velp
        obj_velr = velr * dt
        obs = np.concatenate(
            [grip_pos, obj_pos, obj_pos - grip_pos, fingers, obj_rot, obj_velp, obj_velr, grip_velp, finger_vel], axis=1
        )
        return obs, obj_pos.copy()

    def goal_distance(self, a, b):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            raise ValueError(f"goals of shapes {a.shape} and {b.shape}")
        return np.linalg.norm(a - b, axis=-1)

    def compute_reward(self, achieved_goal, desired_goal, info):
        """-(distance > distance_threshold) as float32 (sparse) or -distance (dense), batched like the goals."""
        d = self.goal_distance(achieved_goal, desired_goal)
        if self.reward_type == "sparse":
            return -(d > self.p.distance_threshold).astype(np.float32)
        return -d

    def goal_success(self, achieved_goal, desired_goal):
        return (self.goal_distance(achieved_goal, desired_goal) < self.p.distance_threshold).astype(np.float32)

    def render_callback(self, w):
        """The target marker (site target0) at world w's goal, as _render_callback (offset of site 0)."""
        self.model.site_pos[object_id(self.model, "site", "target0")] = self._goal[w] - self.site_offsets(w)[0]


class FetchReachEnv(FetchEnv):
    """Move the gripper to a target in the air (gymnasium_robotics FetchReach-v4)."""

    model_path = "fetch/reach.xml"
    initial_qpos = {"robot0:slide0": 0.4049, "robot0:slide1": 0.48, "robot0:slide2": 0.0}
    params = dict(FetchEnv.params, has_object=False, gripper_extra_height=0.2, target_in_the_air=True)


class FetchPushEnv(FetchEnv):
    """Push a block to a target on the table, gripper closed (FetchPush-v4)."""

    model_path = "fetch/push.xml"
    initial_qpos = {
        "robot0:slide0": 0.405,
        "robot0:slide1": 0.48,
        "robot0:slide2": 0.0,
        "object0:joint": [1.25, 0.53, 0.4, 1.0, 0.0, 0.0, 0.0],
    }
    params = dict(FetchEnv.params)


class FetchSlideEnv(FetchEnv):
    """Hit a puck so that it slides to a target out of reach on a slippery table (FetchSlide-v4)."""

    model_path = "fetch/slide.xml"
    initial_qpos = {
        "robot0:slide0": 0.05,
        "robot0:slide1": 0.48,
        "robot0:slide2": 0.0,
        "object0:joint": [1.7, 1.1, 0.41, 1.0, 0.0, 0.0, 0.0],
    }
    params = dict(
        FetchEnv.params,
        gripper_extra_height=-0.02,
        target_offset=np.array([0.4, 0.0, 0.0]),
        obj_range=0.1,
        target_range=0.3,
    )


class FetchPickAndPlaceEnv(FetchEnv):
    """Grasp a block and carry it to a target on the table or in the air (FetchPickAndPlace-v4)."""

    model_path = "fetch/pick_and_place.xml"
    initial_qpos = FetchPushEnv.initial_qpos
    params = dict(FetchEnv.params, block_gripper=False, gripper_extra_height=0.2, target_in_the_air=True)
