"""Actuator delays (`delay`, `nsample`, `interp` on actuators: d.history ring buffers, mj_readCtrl's held / linear /
cubic reads, mj_advance's insertion, mj_resetData's initialisation) against MuJoCo, through sim.step with each
integrator, sim.reset and the mjSTATE_HISTORY state component.

The buffers hold the same samples at the same times as MuJoCo's and the reads are the same arithmetic: history,
actuator_force and the trajectory agree exactly (measured 0); asserted to 1e-12.  Sensor history and delays: tests/test_sensor_history.py.
"""

import mujoco
import numpy as np
import pytest

import sim
import sim.jit.cache  # noqa: F401  (must precede jitted modules)
from sim import api
from sim.jit.features import F_HISTORY

XML = """<mujoco>
  <option timestep="0.01" integrator="{integ}"/>
  <worldbody>
    <body><joint name="j" damping=".1"/><geom size=".1" pos=".2 0 0"/></body>
    <body pos="1 0 0"><joint name="k"/><geom size=".1" pos=".2 0 0"/></body>
  </worldbody>
  <actuator>
    <motor joint="j" delay="0.025" nsample="4" interp="linear"/>
    <motor joint="k"/>
    <motor joint="k" nsample="3"/>
    <motor joint="j" delay="0.02" nsample="3" interp="cubic"/>
    <position joint="k" delay=".03" nsample="5" kp="3" ctrlrange="-.5 .5" ctrllimited="true"/>
    <general joint="j" dyntype="filter" dynprm=".05" delay=".01" nsample="2"/>
  </actuator>
</mujoco>"""
TOL = 1e-12


def load(integ):
    return mujoco.MjModel.from_xml_string(XML.format(integ=integ))


def err(a, b):
    return float(np.max(np.abs(np.asarray(a, float) - np.asarray(b, float)), initial=0.0))


def run(m, md, d, nstep, seed):
    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(nstep):
        c = rng.uniform(-1, 1, m.nu)
        md.ctrl[:] = c
        d.ctrl = c
        mujoco.mj_step(m, md)
        api.step(m, d)
        for a, b in (
            (d.qpos, md.qpos),
            (d.qvel, md.qvel),
            (d.act, md.act),
            (d.history, md.history),
            (d.sensordata, md.sensordata),
        ):
            worst = max(worst, err(a, b))
        worst = max(worst, err(d.actuator_force, md.actuator_force))
    return worst


def check(integ, nstep):
    m = load(integ)
    assert api.model_features(m)[F_HISTORY]
    md = mujoco.MjData(m)
    d = api.Data(m)
    assert err(d.history, md.history) == 0.0  # mj_makeData's initial buffers
    worst = run(m, md, d, nstep, seed=0)
    assert worst <= TOL, worst
    assert np.any(md.history != 0)


@pytest.mark.oracle
@pytest.mark.parametrize("integ", ["Euler", "RK4"])
def test_step(integ):
    check(integ, 60)


@pytest.mark.oracle
@pytest.mark.parametrize("integ", ["implicit", "implicitfast"])
def test_step_implicit(integ, full_run):
    if not full_run:
        pytest.skip("implicit integrators (another feature set): --full")
    check(integ, 60)


@pytest.mark.oracle
def test_reset_and_state():
    """sim.reset re-initialises the buffers (mj_resetData); mjSTATE_HISTORY round-trips them."""
    m = load("Euler")
    md = mujoco.MjData(m)
    d = api.Data(m)
    run(m, md, d, 10, seed=1)
    spec = int(mujoco.mjtState.mjSTATE_HISTORY)
    ref = np.zeros(mujoco.mj_stateSize(m, spec))
    mujoco.mj_getState(m, md, ref, spec)
    np.testing.assert_array_equal(sim.get_state(m, d, spec), ref)
    saved = sim.get_state(m, d, int(mujoco.mjtState.mjSTATE_INTEGRATION))
    mujoco.mj_resetData(m, md)
    sim.reset(m, d)
    assert err(d.history, md.history) == 0.0
    # restore the full integration state (history included) on both sides and continue in lockstep
    sim.set_state(m, d, saved, int(mujoco.mjtState.mjSTATE_INTEGRATION))
    mujoco.mj_setState(m, md, saved, int(mujoco.mjtState.mjSTATE_INTEGRATION))
    assert run(m, md, d, 10, seed=2) <= TOL


def test_compiler():
    """numjoco's compiler lays the buffers out as MuJoCo's (and a model without delays has none)."""
    for xml in (XML.format(integ="Euler"), "<mujoco><worldbody/></mujoco>"):
        ours, theirs = sim.load_model(xml), mujoco.MjModel.from_xml_string(xml)
        for f in ("nhistory", "actuator_delay", "actuator_history", "actuator_historyadr"):
            np.testing.assert_array_equal(np.asarray(getattr(ours, f)), np.asarray(getattr(theirs, f)), err_msg=f)
    ours = sim.load_model(XML.format(integ="Euler"))
    d = sim.Data(ours)
    assert err(d.history, mujoco.MjData(mujoco.MjModel.from_xml_string(XML.format(integ="Euler"))).history) == 0.0
