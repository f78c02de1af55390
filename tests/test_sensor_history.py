"""Sensor history (`nsample`, `interp`, `delay`, `interval` on sensors: d.history ring buffers after the actuators',
engine_sensor.c's compute_or_read_sensor, mj_advance's insertion, mj_resetData's initialisation) against MuJoCo,
through sim.step with each integrator, sim.reset and the mjSTATE_INTEGRATION state.

Delayed sensors read their buffer at time - delay (held, linear or cubic); a sensor sampled every `period` (with a
phase) computes at its ticks and reads its buffer between them; a delayed sensor's sample is computed at mj_advance
(in RK4 from the last stage's kinematics, as MuJoCo's); the others copy sensordata into their buffer.  The buffers,
sensordata and the trajectory agree exactly (measured 0); asserted to 1e-12.
"""

import mujoco
import numpy as np
import pytest

import sim
from sim import api
from test_delay import err, run  # the lockstep run: qpos, qvel, act, history, sensordata, actuator_force

XML = """<mujoco>
  <option timestep="0.01" integrator="{integ}"/>
  <worldbody>
    <body><joint name="j" damping=".1"/><geom size=".1" pos=".2 0 0"/><site name="s" pos=".2 0 0"/></body>
    <body pos="1 0 0"><joint name="k" axis="0 1 0"/><geom size=".1" pos=".2 0 0"/></body>
  </worldbody>
  <actuator>
    <motor joint="j" delay="0.02" nsample="3"/>
    <motor joint="k"/>
  </actuator>
  <sensor>
    <jointpos joint="j" nsample="3" delay="0.015" interp="linear"/>
    <framepos objtype="site" objname="s" nsample="2"/>
    <jointvel joint="j" nsample="4" interval="0.03 -0.01"/>
    <jointpos joint="k" nsample="3" interval="0.02" delay="0.02"/>
    <accelerometer site="s" nsample="2" delay="0.01" interp="cubic"/>
    <framepos objtype="site" objname="s" nsample="5" delay="0.025" interp="cubic" cutoff="0.15"/>
    <jointvel joint="k" interval="0.05"/>
  </sensor>
</mujoco>"""
TOL = 1e-12
FIELDS = ("nhistory", "sensor_history", "sensor_historyadr", "sensor_delay", "sensor_interval")


def check(integ, nstep=100):
    m = mujoco.MjModel.from_xml_string(XML.format(integ=integ))
    md = mujoco.MjData(m)
    d = api.Data(m)
    assert err(d.history, md.history) == 0.0  # mj_makeData's initial buffers
    worst = run(m, md, d, nstep, seed=0)
    assert worst <= TOL, worst
    # every sensor buffer was written, and the delayed sensors do not show the current value
    assert np.count_nonzero(md.history) > m.nhistory // 2
    assert md.sensordata[0] != md.qpos[0]


@pytest.mark.oracle
@pytest.mark.parametrize("integ", ["Euler", "RK4"])
def test_step(integ):
    check(integ)


@pytest.mark.oracle
@pytest.mark.parametrize("integ", ["implicit", "implicitfast"])
def test_step_implicit(integ, full_run):
    if not full_run:
        pytest.skip("implicit integrators (another feature set): --full")
    check(integ)


@pytest.mark.oracle
def test_reset_and_state():
    """mj_resetData's buffers (ticks of the sampled sensors on the dt grid), then the integration state (history
    included) restored on both sides and stepped in lockstep."""
    m = mujoco.MjModel.from_xml_string(XML.format(integ="Euler"))
    md = mujoco.MjData(m)
    d = api.Data(m)
    assert run(m, md, d, 17, seed=1) <= TOL
    spec = int(mujoco.mjtState.mjSTATE_INTEGRATION)
    saved = sim.get_state(m, d, spec)
    mujoco.mj_resetData(m, md)
    sim.reset(m, d)
    assert err(d.history, md.history) == 0.0
    sim.set_state(m, d, saved, spec)
    mujoco.mj_setState(m, md, saved, spec)
    assert run(m, md, d, 20, seed=2) <= TOL


def test_compiler():
    """numjoco's compiler lays the sensor buffers out as MuJoCo's, after the actuators'; its Data starts as
    mj_makeData's."""
    xml = XML.format(integ="Euler")
    ours, theirs = sim.load_model(xml), mujoco.MjModel.from_xml_string(xml)
    for f in FIELDS:
        np.testing.assert_array_equal(np.asarray(getattr(ours, f)), np.asarray(getattr(theirs, f)), err_msg=f)
    assert err(sim.Data(ours).history, mujoco.MjData(theirs).history) == 0.0


@pytest.mark.parametrize(
    "attrs, message",
    [
        ('delay="0.01"', "delay > 0 needs a history buffer"),
        ('nsample="2" interval="-0.1"', "interval"),
        ('nsample="2" interval="0.1 0.05"', "phase"),
    ],
)
def test_invalid_history_refused(attrs, message):
    """What MuJoCo refuses, numjoco refuses with sim.ModelError naming the attribute."""
    xml = f'<mujoco><worldbody><body><joint name="j"/><geom size=".1"/></body></worldbody><sensor><jointpos joint="j" {attrs}/></sensor></mujoco>'  # noqa: E501
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(sim.ModelError, match=message):
        sim.load_model(xml)
