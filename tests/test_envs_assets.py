"""numjoco's task models (envs/assets/*.xml) against Gymnasium's v5 assets, and the arm reach model's kinematics.

Each of our eleven task models must compile to the same Model as the Gymnasium v5 asset it stands for: compared
with tests/oracle.py compare_models against mujoco.MjModel.from_xml_path(Gymnasium's file), and bit for bit
against our own compile of Gymnasium's file (so the tasks' parity with Gymnasium, tests/test_envs_parity.py, does
not depend on which of the two files the env loads).  arm7.xml (our own arm) is checked against the Panda's
published Denavit-Hartenberg kinematics.
"""

import os

import numpy as np
import pytest

import mujoco

import oracle
import sim

from conftest import gymnasium_assets_dir

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ASSETS = os.path.join(REPO, "envs", "assets")
GYM = gymnasium_assets_dir()

TASK_MODELS = [
    "hopper.xml",
    "walker2d_v5.xml",
    "half_cheetah.xml",
    "ant.xml",
    "humanoid.xml",
    "humanoidstandup.xml",
    "reacher.xml",
    "pusher_v5.xml",
    "swimmer.xml",
    "inverted_pendulum.xml",
    "inverted_double_pendulum.xml",
]

# fields that may differ from our compile of Gymnasium's file, with the reason (everything else bit for bit)
NOT_BITWISE = {
    "half_cheetah.xml": (
        "Gymnasium scales the masses to 14 kg with the deprecated compiler attribute settotalmass (MuJoCo 3.17 "
        "warns); ours gives the geoms the density that yields 14 kg, so masses and inertias differ by rounding "
        "(measured: 4.4e-16 in body_mass) and so do the fields derived from them",
        {
            "body_mass",
            "body_inertia",
            "body_ipos",
            "body_subtreemass",
            "body_invweight0",
            "dof_M0",
            "dof_invweight0",
            "dof_length",
            "actuator_acc0",
            "cam_poscom0",
            "light_poscom0",
            "bvh_aabb",
        },
    ),
}

pytestmark = pytest.mark.skipif(GYM is None, reason="gymnasium (its MuJoCo assets) is not installed")


def _array_fields():
    arrays, sizes = oracle._all_fields()
    return sizes + arrays


@pytest.mark.oracle
@pytest.mark.parametrize("name", TASK_MODELS)
def test_task_model_matches_gymnasium(name):
    """Our asset compiles to Gymnasium's v5 model: every MjModel field (compare_models, 1e-10)."""
    ours = sim.load_model(os.path.join(ASSETS, name))
    theirs = mujoco.MjModel.from_xml_path(os.path.join(GYM, name))
    oracle.assert_models_match(ours, theirs, label=name)


@pytest.mark.parametrize("name", TASK_MODELS)
def test_task_model_bitwise_equal_to_ours_of_gymnasium(name):
    """Our asset and Gymnasium's file compile to bit-identical numjoco Models (documented exceptions aside)."""
    ours = sim.load_model(os.path.join(ASSETS, name))
    ref = sim.load_model(os.path.join(GYM, name))
    reason, allowed = NOT_BITWISE.get(name, ("", set()))
    differ = []
    for f in _array_fields():
        a, b = getattr(ours, f, None), getattr(ref, f, None)
        if a is None and b is None:
            continue
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            differ.append(f"{f}: shape {a.shape} vs {b.shape}")
        elif not np.array_equal(a, b, equal_nan=True):
            if f not in allowed:
                differ.append(f)
            else:  # the documented rounding differences stay at rounding level
                assert np.allclose(a, b, rtol=1e-13, atol=1e-15), f"{name}: {f} differs beyond rounding ({reason})"
    for f in dir(ours.opt):
        if not f.startswith("_") and isinstance(getattr(ours.opt, f), (int, float, np.ndarray)):
            if not np.array_equal(np.asarray(getattr(ours.opt, f)), np.asarray(getattr(ref.opt, f))):
                differ.append("opt." + f)
    assert differ == [], f"{name}: fields differ from our compile of Gymnasium's file: {differ}"


# ------------------------------------------------------------------------------------------- arm7.xml

# the Panda's modified Denavit-Hartenberg parameters (a_{i-1}, d_i, alpha_{i-1}), joints 1-7 then the flange
PANDA_DH = [
    (0.0, 0.333, 0.0),
    (0.0, 0.0, -np.pi / 2),
    (0.0, 0.316, np.pi / 2),
    (0.0825, 0.0, np.pi / 2),
    (-0.0825, 0.384, -np.pi / 2),
    (0.0, 0.0, np.pi / 2),
    (0.088, 0.0, np.pi / 2),
    (0.0, 0.107, 0.0),
]
TCP = 0.1034  # tool centre point beyond the flange


def _dh(a, d, alpha, theta):
    ca, sa, ct, st = np.cos(alpha), np.sin(alpha), np.cos(theta), np.sin(theta)
    return np.array([[ct, -st, 0, a], [st * ca, ct * ca, -sa, -d * sa], [st * sa, ct * sa, ca, d * ca], [0, 0, 0, 1.0]])


def panda_tcp(q):
    T = np.eye(4)
    for (a, d, alpha), th in zip(PANDA_DH, list(q) + [0.0]):
        T = T @ _dh(a, d, alpha, th)
    return (T @ np.array([0, 0, TCP, 1.0]))[:3]


def test_arm7_kinematics_and_limits_are_the_pandas():
    m = sim.load_model(os.path.join(ASSETS, "arm7.xml"))
    d = sim.Data(m)
    lo = np.array([-2.8973, -1.7628, -2.8973, -3.0718, -2.8973, -0.0175, -2.8973])
    hi = np.array([2.8973, 1.7628, 2.8973, -0.0698, 2.8973, 3.7525, 2.8973])
    np.testing.assert_array_equal(np.asarray(m.jnt_range)[:7], np.stack([lo, hi], 1))
    np.testing.assert_array_equal(np.asarray(m.jnt_actfrcrange)[:7, 1], [87, 87, 87, 87, 12, 12, 12])
    rng = np.random.default_rng(0)
    ee = m.site("ee").id
    for _ in range(20):
        q = rng.uniform(lo, hi)
        d.qpos = np.concatenate([q, [0.5, 0.0, 0.5]])
        sim.forward(m, d)
        np.testing.assert_allclose(d.site_xpos[ee], panda_tcp(q), atol=1e-12)
    links = [4.970684, 0.646926, 3.228604, 3.587895, 1.225946, 1.666555, 0.735522, 0.73]  # Gaz et al., hand
    np.testing.assert_array_equal(np.asarray(m.body_mass)[2:10], links)


def test_arm7_target_stays_put_and_actuator_sets():
    """The target's slide joints carry no acceleration (gravity compensated, no contact): it stays exactly where
    a reset puts it while the arm moves; the file has a torque and a position actuator per joint."""
    m = sim.load_model(os.path.join(ASSETS, "arm7.xml"))
    d = sim.Data(m)
    sim.reset(m, d, keyframe=m.name2id("key", "home"))
    d.ctrl = np.random.default_rng(1).uniform(-1, 1, m.nu)
    sim.step(m, d, nstep=500)
    np.testing.assert_array_equal(d.qpos[7:], [0.5, 0.0, 0.5])
    np.testing.assert_array_equal(d.qvel[7:], 0.0)
    assert m.nu == 14
    names = [m.actuator(i).name for i in range(m.nu)]
    assert names == [f"torque{i}" for i in range(1, 8)] + [f"position{i}" for i in range(1, 8)]


def test_arm7_ee_sensor_is_the_site():
    """MuJoCo: the framepos sensor ee_pos equals the site ee's position after each step (implicitfast: both from
    the step's forward), so the task reads the same numbers from either (envs/tasks/arm_reach.py)."""
    m = mujoco.MjModel.from_xml_path(os.path.join(ASSETS, "arm7.xml"))
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    rng = np.random.default_rng(0)
    for _ in range(50):
        d.ctrl[:] = rng.uniform(-1, 1, m.nu)
        mujoco.mj_step(m, d, nstep=3)
        np.testing.assert_array_equal(d.sensordata, d.site_xpos[m.site("ee").id])


def test_arm7_position_servo_spans_the_joint_range():
    """ctrl -1 / 0 / 1 of a position actuator is the low end / centre / high end of its joint's range."""
    m = mujoco.MjModel.from_xml_path(os.path.join(ASSETS, "arm7.xml"))
    lo, hi = m.jnt_range[:7].T
    for i in range(7):
        a = 7 + i
        kp = -m.actuator_biasprm[a, 1]
        for u, target in ((-1, lo[i]), (0, (lo[i] + hi[i]) / 2), (1, hi[i])):
            # force at rest = gain * ctrl + bias0 + bias1 * q = kp (target - q); zero at q = target
            f = m.actuator_gainprm[a, 0] * u + m.actuator_biasprm[a, 0] - kp * target
            assert abs(f) < 1e-6 * kp, (i, u)
