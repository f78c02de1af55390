"""Shadow Dexterous Hand: Gymnasium-Robotics' HandReach-v3 and HandManipulateBlock*-v1 on numjoco.

20 position actuators driven by actions in [-1, 1] mapped onto their control ranges (absolute control), 20 physics
steps of 2 ms per env step.  HandReach: bring the thumb and one finger tip together above the palm (goal: the five
fingertip positions; success when the norm of the 15-vector of differences is below 0.01 m).
HandManipulateBlock: turn (and for the full task move) a block to a target pose: goal (position, quaternion),
success when within distance_threshold and rotation_threshold; each reset lets the block settle for 10 x 20 steps
and draws again when it fell off the palm.  Models: gymnasium_robotics' hand/*.xml.
"""

import numpy as np

from sim import api as _api

from envs.robotics.core import RobotEnv, joint_dof_range, joint_qpos_range, object_id, robot_joints
from envs.robotics.kernels import FORWARD
from envs.robotics import rotations as R

FINGERTIP_SITES = ("robot0:S_fftip", "robot0:S_mftip", "robot0:S_rftip", "robot0:S_lftip", "robot0:S_thtip")

HAND_REACH_QPOS = {
    "robot0:WRJ1": -0.16514339750464327,
    "robot0:WRJ0": -0.31973286565062153,
    "robot0:FFJ3": 0.14340512546557435,
    "robot0:FFJ2": 0.32028208333591573,
    "robot0:FFJ1": 0.7126053607727917,
    "robot0:FFJ0": 0.6705281001412586,
    "robot0:MFJ3": 0.000246444303701037,
    "robot0:MFJ2": 0.3152655251085491,
    "robot0:MFJ1": 0.7659800313729842,
    "robot0:MFJ0": 0.7323156897425923,
    "robot0:RFJ3": 0.00038520700007378114,
    "robot0:RFJ2": 0.36743546201985233,
    "robot0:RFJ1": 0.7119514095008576,
    "robot0:RFJ0": 0.6699446327514138,
    "robot0:LFJ4": 0.0525442258033891,
    "robot0:LFJ3": -0.13615534724474673,
    "robot0:LFJ2": 0.39872030433433003,
    "robot0:LFJ1": 0.7415570009679252,
    "robot0:LFJ0": 0.704096378652974,
    "robot0:THJ4": 0.003673823825070126,
    "robot0:THJ3": 0.5506291436028695,
    "robot0:THJ2": -0.014515151997119306,
    "robot0:THJ1": -0.0015229223564485414,
    "robot0:THJ0": -0.7894883021600622,
}


class HandEnv(RobotEnv):
    """gymnasium_robotics' MujocoHandEnv, batched: ctrl = clip(centre + action * half range) of each actuator's
    control range (relative_control=True is refused: gymnasium-robotics 1.4.2 fails on it with the mujoco
    bindings, AttributeError on MjData.get_joint_qpos, so there is no behaviour to match)."""

    n_actions = 20
    default_camera_config = {"distance": 0.5, "azimuth": 55.0, "elevation": -25.0, "lookat": np.array([1, 0.96, 0.14])}
    params = dict(reward_type="sparse", n_substeps=20, relative_control=False)

    def load_model(self, path, p):
        if p.relative_control:
            raise NotImplementedError(
                "relative_control=True: gymnasium-robotics 1.4.2 itself fails with it on the "
                "mujoco bindings (MjData has no get_joint_qpos), so numjoco has no reference "
                "behaviour to reproduce; use relative_control=False"
            )
        m = super().load_model(path, p)
        if m.nu != self.n_actions:
            raise ValueError(f"{path}: expected {self.n_actions} actuators, found {m.nu}")
        rng = np.asarray(m.actuator_ctrlrange, np.float64).reshape(m.nu, 2)
        self.ctrl_lo, self.ctrl_hi = rng[:, 0].copy(), rng[:, 1].copy()
        self.ctrl_centre = (rng[:, 1] + rng[:, 0]) / 2.0
        self.ctrl_half = (rng[:, 1] - rng[:, 0]) / 2.0
        self.robot_qpos, self.robot_dof = robot_joints(m)
        return m

    def set_action(self, worlds, a):
        ctrl = self.ctrl_centre + a.astype(np.float64) * self.ctrl_half
        self._d["ctrl"][worlds] = np.clip(ctrl, self.ctrl_lo, self.ctrl_hi)

    def robot_obs(self, d, worlds):
        return d["qpos"][worlds][:, self.robot_qpos], d["qvel"][worlds][:, self.robot_dof]


class HandReachEnv(HandEnv):
    """Touch the thumb's tip with another finger's tip above the palm (gymnasium_robotics HandReach-v3)."""

    model_path = "hand/reach.xml"
    initial_qpos = HAND_REACH_QPOS
    params = dict(HandEnv.params, distance_threshold=0.01)

    def load_model(self, path, p):
        m = super().load_model(path, p)
        self.tips = np.array([object_id(m, "site", n) for n in FINGERTIP_SITES], np.int64)
        self.palm = object_id(m, "body", "robot0:palm")
        return m

    def env_setup(self, d):
        self.set_initial_qpos(d)
        a = _api.batch_arrays(d)
        self.initial_goal = a["site_xpos"][0, self.tips].ravel().copy()
        self.palm_xpos = a["xpos"][0, self.palm].copy()

    def sample_goal(self, rng, w):
        thumb = "robot0:S_thtip"
        finger = rng.choice([n for n in FINGERTIP_SITES if n != thumb])
        meeting = self.palm_xpos + np.array([0.0, -0.09, 0.05])
        meeting += rng.normal(scale=0.005, size=meeting.shape)
        goal = self.initial_goal.copy().reshape(-1, 3)
        for idx in (FINGERTIP_SITES.index(thumb), FINGERTIP_SITES.index(finger)):
            direction = meeting - goal[idx]
            direction /= np.linalg.norm(direction)
            goal[idx] = meeting - 0.005 * direction
        if rng.uniform() < 0.1:  # now and then: every finger back to its initial position
            goal = self.initial_goal.copy()
        return goal.ravel()

    def observe(self, worlds, d=None):
        d = self._d if d is None else d
        tips = d["site_xpos"][worlds][:, self.tips].reshape(len(worlds), -1)
        qpos, qvel = self.robot_obs(d, worlds)
        return np.concatenate([qpos, qvel, tips], axis=1), tips.copy()

    def render_callback(self, w):
        """Markers target0-4 at the goal's fingertip positions and finger0-4 at the achieved ones."""
        m, off = self.model, self.site_offsets(w)
        goal = self._goal[w].reshape(5, 3)
        tips = self._d["site_xpos"][w, self.tips]
        for i in range(5):
            t, f = object_id(m, "site", f"target{i}"), object_id(m, "site", f"finger{i}")
            m.site_pos[t] = goal[i] - off[t]
            m.site_pos[f] = tips[i] - off[f]

    def compute_reward(self, achieved_goal, desired_goal, info):
        """-(distance > distance_threshold) as float32 (sparse) or -distance (dense), batched like the goals."""
        d = _distance(achieved_goal, desired_goal)
        if self.reward_type == "sparse":
            return -(d > self.p.distance_threshold).astype(np.float32)
        return -d

    def goal_success(self, achieved_goal, desired_goal):
        return (_distance(achieved_goal, desired_goal) < self.p.distance_threshold).astype(np.float32)


def _distance(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        raise ValueError(f"goals of shapes {a.shape} and {b.shape}")
    return np.linalg.norm(a - b, axis=-1)


class ManipulateEnv(HandEnv):
    """gymnasium_robotics' MujocoManipulateEnv, batched: an object on the palm to bring to a target position
    ('random': the settled position plus an offset drawn in target_position_range; 'ignore'; 'fixed') and
    orientation ('xyz': any; 'z': about the vertical; 'parallel': about the vertical after one of the 24 cube
    symmetries; 'ignore'; 'fixed').  Rewards: sparse success - 1 (float32), dense -(10 d_pos + d_rot)."""

    params = dict(
        HandEnv.params,
        target_position="random",
        target_rotation="xyz",
        target_position_range=np.array([(-0.04, 0.04), (-0.06, 0.02), (0.0, 0.06)]),
        randomize_initial_position=True,
        randomize_initial_rotation=True,
        distance_threshold=0.01,
        rotation_threshold=0.1,
        ignore_z_target_rotation=False,
    )

    def load_model(self, path, p):
        if p.target_position not in ("ignore", "fixed", "random"):
            raise ValueError(f"target_position must be 'ignore', 'fixed' or 'random', got {p.target_position!r}")
        if p.target_rotation not in ("ignore", "fixed", "xyz", "z", "parallel"):
            raise ValueError(
                f"target_rotation must be 'ignore', 'fixed', 'xyz', 'z' or 'parallel', got {p.target_rotation!r}"
            )
        self.target_position_range = np.asarray(p.target_position_range, np.float64)
        if self.target_position_range.shape != (3, 2):
            raise ValueError(f"target_position_range must be (3, 2), got {self.target_position_range.shape}")
        m = super().load_model(path, p)
        self.obj_qpos = joint_qpos_range(m, "object:joint")[0]
        self.obj_dof = joint_dof_range(m, "object:joint")[0]
        self.obj_center = object_id(m, "site", "object:center")
        self.parallel_quats = R.parallel_quats()
        return m

    def env_setup(self, d):
        self.set_initial_qpos(d)

    def _rotation(self, rng):
        """A random rotation of the target_rotation kind, drawn as gymnasium_robotics draws it (None: none)."""
        kind = self.p.target_rotation
        if kind in ("z", "parallel"):
            q = R.quat_from_angle_and_axis(rng.uniform(-np.pi, np.pi), np.array([0.0, 0.0, 1.0]))
            if kind == "parallel":
                q = R.quat_mul(q, self.parallel_quats[rng.integers(len(self.parallel_quats))])
            return q
        if kind == "xyz":
            angle = rng.uniform(-np.pi, np.pi)
            return R.quat_from_angle_and_axis(angle, rng.uniform(-1.0, 1.0, size=3))
        return None

    def draw_reset(self, rng):
        p = self.p
        rot = None
        if p.randomize_initial_rotation:
            rot = (
                self._rotation(rng)
                if p.target_rotation != "ignore"
                else R.quat_from_angle_and_axis(rng.uniform(-np.pi, np.pi), rng.uniform(-1.0, 1.0, size=3))
            )
        shift = None
        if p.randomize_initial_position and p.target_position != "fixed":
            shift = rng.normal(size=3, scale=0.005)
        return rot, shift

    def reset_sim(self, worlds, draws):
        """_reset_sim without mj_resetData (as gymnasium_robotics: the solver's warm start carries over): the
        initial time, qpos and qvel, the object's randomised pose, 10 x n_substeps steps with the actuators at
        the centre of their ranges, mj_forward; succeeds where the object's centre stays above z = 0.04."""
        d, k = self._d, len(worlds)
        self.load_initial(worlds)
        pose = np.tile(self.initial_qpos[self.obj_qpos : self.obj_qpos + 7], (k, 1))
        for i, (rot, shift) in enumerate(draws):
            pos, quat = pose[i, :3], pose[i, 3:]
            if rot is not None:
                quat = R.quat_mul(quat, rot)
            if shift is not None:
                pos += shift
            pose[i, 3:] = quat / np.linalg.norm(quat)
        d["qpos"][worlds, self.obj_qpos : self.obj_qpos + 7] = pose
        self.set_action(worlds, np.zeros((k, self.n_actions)))
        self.advance(worlds, FORWARD, 10 * self.n_substeps)
        return d["site_xpos"][worlds, self.obj_center, 2] > 0.04

    def sample_goal(self, rng, w):
        p = self.p
        obj = self._d["qpos"][w, self.obj_qpos : self.obj_qpos + 7]
        if p.target_position == "random":
            target_pos = obj[:3] + rng.uniform(self.target_position_range[:, 0], self.target_position_range[:, 1])
        else:
            target_pos = obj[:3].copy()
        quat = self._rotation(rng)
        if quat is None:  # 'ignore' / 'fixed': the object's orientation (gymnasium-robotics 1.4.2 fails here)
            quat = obj[3:].copy()
        return np.concatenate([target_pos, quat / np.linalg.norm(quat)])

    def observe(self, worlds, d=None):
        d = self._d if d is None else d
        qpos, qvel = self.robot_obs(d, worlds)
        obj_vel = d["qvel"][worlds][:, self.obj_dof : self.obj_dof + 6]
        achieved = d["qpos"][worlds][:, self.obj_qpos : self.obj_qpos + 7]
        return np.concatenate([qpos, qvel, obj_vel, achieved], axis=1), achieved.copy()

    def render_callback(self, w):
        """The target object (free joint target:joint) at world w's goal, 0.15 m aside when its position is
        ignored; the hidden object's geom made opaque."""
        m, d = self.model, self._d
        goal = self._goal[w].copy()
        if self.p.target_position == "ignore":
            goal[0] += 0.15
        adr = joint_qpos_range(m, "target:joint")[0]
        dof = joint_dof_range(m, "target:joint")[0]
        d["qpos"][w, adr : adr + 7] = goal
        d["qvel"][w, dof : dof + 6] = 0.0
        hidden = m.name2id("geom", "object_hidden")
        if hidden >= 0:
            m.geom_rgba[hidden, 3] = 1.0

    def goal_distance(self, goal_a, goal_b):
        """(position distance, rotation angle) between (batches of) goals (..., 7)."""
        goal_a, goal_b = np.asarray(goal_a, np.float64), np.asarray(goal_b, np.float64)
        if goal_a.shape != goal_b.shape or goal_a.shape[-1] != 7:
            raise ValueError(f"goals must have the same shape (..., 7), got {goal_a.shape} and {goal_b.shape}")
        d_pos = np.zeros_like(goal_a[..., 0])
        d_rot = np.zeros_like(goal_b[..., 0])
        if self.p.target_position != "ignore":
            d_pos = np.linalg.norm(goal_a[..., :3] - goal_b[..., :3], axis=-1)
        if self.p.target_rotation != "ignore":
            quat_a, quat_b = goal_a[..., 3:], goal_b[..., 3:]
            if self.p.ignore_z_target_rotation:  # compare the x and y Euler angles only
                euler_a, euler_b = R.quat2euler(quat_a), R.quat2euler(quat_b)
                euler_a[..., 2] = euler_b[..., 2]
                quat_a = R.euler2quat(euler_a)
            diff = R.quat_mul(quat_a, R.quat_conjugate(quat_b))
            d_rot = 2 * np.arccos(np.clip(diff[..., 0], -1.0, 1.0))
        return d_pos, d_rot

    def goal_success(self, achieved_goal, desired_goal):
        d_pos, d_rot = self.goal_distance(achieved_goal, desired_goal)
        return (d_pos < self.p.distance_threshold).astype(np.float32) * (d_rot < self.p.rotation_threshold).astype(
            np.float32
        )

    def compute_reward(self, achieved_goal, desired_goal, info):
        """Sparse: success - 1 (float32); dense: -(10 d_pos + d_rot); batched like the goals."""
        if self.reward_type == "sparse":
            return self.goal_success(achieved_goal, desired_goal).astype(np.float32) - 1.0
        d_pos, d_rot = self.goal_distance(achieved_goal, desired_goal)
        return -(10.0 * d_pos + d_rot)


class HandBlockEnv(ManipulateEnv):
    """Manipulate a block (gymnasium_robotics HandManipulateBlock*-v1; target_position / target_rotation pick
    the variant: random/xyz the full task, ignore/z RotateZ, ignore/parallel RotateParallel, ignore/xyz
    RotateXYZ)."""

    model_path = "hand/manipulate_block.xml"
