"""gymnasium_robotics' own envs as the oracle of numjoco's Fetch and Shadow Hand tasks (tests only).

gymnasium-robotics 1.4.2 fails on mujoco 3.17: its mujoco_utils get_joint_qpos / get_joint_qvel / set_joint_qpos /
set_joint_qvel test `model.jnt_type[j]` against mujoco.mjtJoint members with `in (mjJNT_HINGE, mjJNT_SLIDE)`,
which is False for the numpy integer the bindings now return (FetchPush-v4's constructor raises AssertionError).
`install_shim()` replaces the four functions with versions that compare integers (free 0, ball 1, slide 2,
hinge 3), otherwise the same (sizes 7 / 4 / 1 for qpos, 6 / 3 / 1 for qvel: the original's get_joint_qvel
returns 4 values for a ball joint, a bug no Fetch or Hand model reaches).  The envs look the functions up on the
module at each call (self._utils.set_joint_qpos), so replacing the module attributes is enough.
"""

import numpy as np
import pytest

# numjoco id -> the gymnasium_robotics id whose env it reproduces (the Dense ids follow the same pattern)
ORACLE_IDS = {
    "FetchReach": "FetchReach-v4",
    "FetchPush": "FetchPush-v4",
    "FetchSlide": "FetchSlide-v4",
    "FetchPickAndPlace": "FetchPickAndPlace-v4",
    "HandReach": "HandReach-v3",
    "HandManipulateBlock": "HandManipulateBlock-v1",
    "HandManipulateBlockFull": "HandManipulateBlockFull-v1",
    "HandManipulateBlockRotateZ": "HandManipulateBlockRotateZ-v1",
    "HandManipulateBlockRotateParallel": "HandManipulateBlockRotateParallel-v1",
    "HandManipulateBlockRotateXYZ": "HandManipulateBlockRotateXYZ-v1",
}


def _address(model, name, velocity):
    import mujoco

    j = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)
    assert j != -1, f"Joint with name '{name}' is not part of the model!"
    size = {0: 6 if velocity else 7, 1: 3 if velocity else 4}.get(int(model.jnt_type[j]), 1)
    return int(model.jnt_dofadr[j] if velocity else model.jnt_qposadr[j]), size


def get_joint_qpos(model, data, name):
    a, n = _address(model, name, False)
    return data.qpos[a : a + n].copy()


def get_joint_qvel(model, data, name):
    a, n = _address(model, name, True)
    return data.qvel[a : a + n].copy()


def set_joint_qpos(model, data, name, value):
    a, n = _address(model, name, False)
    value = np.array(value)
    if n > 1:
        assert value.shape == (n,), f"Value has incorrect shape {name}: {value}"
    data.qpos[a : a + n] = value


def set_joint_qvel(model, data, name, value):
    a, n = _address(model, name, True)
    value = np.array(value)
    if n > 1:
        assert value.shape == (n,), f"Value has incorrect shape {name}: {value}"
    data.qvel[a : a + n] = value


def install_shim():
    """gymnasium_robotics with its joint helpers fixed for mujoco 3.17 (module doc), its ids registered; skips the
    test when gymnasium-robotics or mujoco is missing."""
    gr = pytest.importorskip("gymnasium_robotics")
    pytest.importorskip("mujoco")
    import gymnasium as gym
    from gymnasium_robotics.utils import mujoco_utils as mu

    mu.get_joint_qpos, mu.get_joint_qvel = get_joint_qpos, get_joint_qvel
    mu.set_joint_qpos, mu.set_joint_qvel = set_joint_qpos, set_joint_qvel
    gym.register_envs(gr)
    return gr


def oracle_id(numjoco_id):
    """'numjoco/FetchPushDense-v0' -> 'FetchPushDense-v4'."""
    name = numjoco_id.split("/")[-1].split("-v")[0]
    dense = name.endswith("Dense")
    base = ORACLE_IDS[name[:-5] if dense else name]
    stem, version = base.split("-v")
    return f"{stem}{'Dense' if dense else ''}-v{version}"


def make_oracle(numjoco_id, **kwargs):
    """gymnasium_robotics' env for a numjoco id (unwrapped: no time limit, no checker)."""
    import gymnasium as gym

    install_shim()
    return gym.make(oracle_id(numjoco_id), **kwargs).unwrapped
