"""Tactile sensors (<tactile geom=.. mesh=..>) against MuJoCo 3.17: engine_sensor.c's mjSENS_TACTILE with the
signed distances of geomDistance (sim/engine/tactile.py).

One scene (one compiled feature set): a pad (box) with a plate taxel mesh slightly above its top face, moved in x
and y under a sphere, a box, a capsule, an ellipsoid, a cylinder and a mesh sphere resting on it (mesh geoms have no
octree: skipped, as MuJoCo); a fingertip sphere with a wedge taxel mesh pressed on the floor plane and dragged.
Sensordata is compared each step to 1e-12 (the kernel repeats MuJoCo's arithmetic in its order; measured 0):
along MuJoCo's trajectory (its state copied each step) and in lockstep with mujoco.mj_step.
"""

import math

import mujoco
import numpy as np
import pytest

import sim
from sim import api
from sim.errors import ModelError
from sim.jit.features import F_TACTILE

XML = """
<mujoco>
  <option timestep="0.002"/>
  <asset>
    <mesh name="plate" builtin="plate" params="10 10" scale="0.25 0.25 0.01"/>
    <mesh name="wedge" builtin="wedge" params="5 5 120 60 0.3" scale="0.05 0.05 0.05"/>
    <mesh name="ball" builtin="sphere" params="1" scale="0.035 0.035 0.035"/>
  </asset>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 .1"/>
    <body name="pad" pos="0 0 0.5">
      <joint name="px" type="slide" axis="1 0 0" damping="5"/>
      <joint name="py" type="slide" axis="0 1 0" damping="5"/>
      <geom name="pad" type="box" size="0.25 0.25 0.02" mass="2"/>
      <geom name="skin" type="mesh" mesh="plate" pos="0 0 0.013" euler="180 0 0" contype="0" conaffinity="0"
            mass="0"/>
    </body>
    <body pos="-0.12 -0.12 0.56"><freejoint/><geom type="sphere" size="0.04"/></body>
    <body pos="0 -0.12 0.56" euler="0 0 20"><freejoint/><geom type="box" size="0.04 0.03 0.03"/></body>
    <body pos="0.12 -0.12 0.56"><freejoint/><geom type="capsule" size="0.03 0.04" euler="0 90 0"/></body>
    <body pos="-0.12 0.12 0.56"><freejoint/><geom type="ellipsoid" size="0.05 0.035 0.03"/></body>
    <body pos="0 0.12 0.56"><freejoint/><geom type="cylinder" size="0.04 0.03"/></body>
    <body pos="0.12 0.12 0.56"><freejoint/><geom type="mesh" mesh="ball"/></body>
    <body name="finger" pos="0.6 0 0.06">
      <joint name="fx" type="slide" axis="1 0 0" damping="2"/>
      <joint name="fz" type="slide" axis="0 0 1" damping="2"/>
      <geom name="tip" type="sphere" size="0.05" mass="0.5"/>
      <geom name="fskin" type="mesh" mesh="wedge" contype="0" conaffinity="0" mass="0"/>
    </body>
  </worldbody>
  <actuator>
    <position joint="px" kp="200"/>
    <position joint="py" kp="200"/>
    <position joint="fx" kp="50"/>
    <motor joint="fz"/>
  </actuator>
  <sensor>
    <tactile name="pad" geom="skin" mesh="plate"/>
    <tactile name="finger" geom="fskin" mesh="wedge" {extra}/>
  </sensor>
</mujoco>
"""
TOL = 1e-12
NSTEP = 300


def ctrl(i):
    t = 0.002 * i
    return np.array([0.05 * math.sin(6 * t), 0.04 * math.cos(5 * t), 0.6 + 0.1 * math.sin(4 * t), -20.0])


def err(a, b):
    return float(np.max(np.abs(np.asarray(a, float) - np.asarray(b, float)), initial=0.0))


def check_fields(m, ours):
    for k in ("sensor_type", "sensor_objtype", "sensor_objid", "sensor_reftype", "sensor_refid", "sensor_dim"):
        np.testing.assert_array_equal(np.asarray(getattr(ours, k)), getattr(m, k), err_msg=k)
    for k in ("sensor_adr", "sensor_needstage", "sensor_datatype", "mesh_normalnum", "mesh_octadr"):
        np.testing.assert_array_equal(np.asarray(getattr(ours, k)), getattr(m, k), err_msg=k)


def exercised(m, md, nonzero, touched):
    """Record which channels of each sensor were nonzero and which geom types touched the sensor bodies."""
    for s in range(2):
        seg = md.sensordata[m.sensor_adr[s] : m.sensor_adr[s] + m.sensor_dim[s]].reshape(3, -1)
        nonzero[s] = np.maximum(nonzero[s], (seg > 0).sum(axis=1))
    for c in md.contact[: md.ncon]:
        b1, b2 = m.geom_bodyid[c.geom1], m.geom_bodyid[c.geom2]
        for b, g in ((b1, c.geom2), (b2, c.geom1)):
            if m.body(b).name in ("pad", "finger"):
                touched.add(int(m.geom_type[g]))


@pytest.mark.oracle
def test_tactile_along_mujoco_trajectory():
    # the sensor alone: MuJoCo's state each step (qpos, qvel, ctrl, time), then forward in both
    xml = XML.format(extra="")
    m = mujoco.MjModel.from_xml_string(xml)
    check_fields(m, sim.load_model(xml))
    assert api.model_features(m)[F_TACTILE]
    md = mujoco.MjData(m)
    d = api.Data(m)
    worst = 0.0
    touched = set()
    nonzero = np.zeros((2, 3), int)
    for i in range(NSTEP):
        md.ctrl[:] = ctrl(i)
        mujoco.mj_step(m, md)
        d.qpos, d.qvel, d.ctrl, d.time = md.qpos.copy(), md.qvel.copy(), md.ctrl.copy(), md.time
        mujoco.mj_forward(m, md)
        api.forward(m, d)
        worst = max(worst, err(d.sensordata, md.sensordata))
        exercised(m, md, nonzero, touched)
    assert worst <= TOL, worst
    # every channel of both sensors was exercised, by every primitive type and a (skipped) mesh geom
    assert (nonzero > 0).all(), nonzero
    assert touched == {0, 2, 3, 4, 5, 6, 7}, touched


@pytest.mark.oracle
@pytest.mark.parametrize("extra", ["", 'cutoff="0.0003" nsample="3" interval="0.01"'])
def test_tactile_lockstep(extra):
    # sim.step against mj_step, with the sphere as the only object on the pad: the other objects' contacts with the
    # pad (box-capsule, box-ellipsoid, box-cylinder, box-box, box-mesh: the convex colliders) make the trajectories
    # drift apart from rounding (2e-22 at step 26, chaotic afterwards), unrelated to the sensor (whose inputs along
    # MuJoCo's own trajectory are exact: test_tactile_along_mujoco_trajectory).  With cutoff (real datatype: both
    # sides clamped) and a buffer sampled every 10 ms (read between ticks).
    lines = XML.format(extra=extra).split("\n")
    xml = "\n".join(x for x in lines if "freejoint" not in x or 'type="sphere"' in x)
    m = mujoco.MjModel.from_xml_string(xml)
    md = mujoco.MjData(m)
    d = api.Data(m)
    worst = worst_state = 0.0
    touched = set()
    nonzero = np.zeros((2, 3), int)
    for i in range(NSTEP):
        md.ctrl[:] = ctrl(i)
        d.ctrl = ctrl(i)
        mujoco.mj_step(m, md)
        api.step(m, d)
        worst = max(worst, err(d.sensordata, md.sensordata), err(d.history, md.history))
        worst_state = max(worst_state, err(d.qpos, md.qpos), err(d.qvel, md.qvel))
        exercised(m, md, nonzero, touched)
    assert worst <= TOL, worst
    assert worst_state <= TOL, worst_state
    assert (nonzero > 0).all(), nonzero
    if extra:
        assert md.sensordata[m.sensor_adr[1] :].max() == 0.0003


BODY = """<mujoco><asset><mesh name="skin" builtin="wedge" params="3 3 60 30 0"/></asset>
<worldbody><body name="b"><freejoint/><geom name="g" size=".1" {ca}/>
<geom name="g2" type="box" size=".1 .1 .1" contype="0" conaffinity="0"/></body></worldbody>
<sensor>{s}</sensor></mujoco>"""
BAD = [
    ("", '<tactile geom="g"/>', "mesh"),
    ("", '<tactile mesh="skin"/>', "geom"),
    ("", '<tactile geom="gx" mesh="skin"/>', "geom"),
    ("", '<tactile geom="g" mesh="sx"/>', "mesh"),
    ('contype="0" conaffinity="0"', '<tactile geom="g" mesh="skin"/>', "geom"),
    ('contype="0" conaffinity="0"', '<tactile geom="g2" mesh="skin"/>', "geom"),
]


@pytest.mark.parametrize("ca,s,attr", BAD)
def test_tactile_compile_errors_as_mujoco(ca, s, attr):
    xml = BODY.format(ca=ca, s=s)
    with pytest.raises(ValueError) as theirs:
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(ModelError) as ours:
        sim.load_model(xml)
    assert ours.value.element == "tactile" and ours.value.attribute == attr
    if "collision geom" in str(theirs.value):
        assert "Touch sensor requires a body with at least one collision geom" in str(ours.value)


def test_tactile_compiles_with_a_collision_geom_on_the_body():
    xml = BODY.format(ca="", s='<tactile geom="g2" mesh="skin"/>')
    m = mujoco.MjModel.from_xml_string(xml)
    ours = sim.load_model(xml)
    assert int(ours.nsensordata) == m.nsensordata == 3 * m.mesh_vertnum[0]
