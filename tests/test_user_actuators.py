"""Actuators of user dynamics, gain or bias (dyntype / gaintype / biastype "user") as MuJoCo computes them with no
mjcb_act_dyn / mjcb_act_gain / mjcb_act_bias installed, the only way a model file can run them: act_dot 0, gain 1
(gainprm ignored), bias 0 (biasprm ignored).  Trajectories, act and actuator_force against MuJoCo with each
integrator; the implicit integrators also see that a user gain or bias adds no velocity derivative (gainprm[2] /
biasprm[2] are not read).  Asserted to 1e-12 (measured 0: the same arithmetic)."""

import mujoco
import numpy as np
import pytest

from sim import api
from test_delay import run  # the lockstep run: qpos, qvel, act, history, sensordata, actuator_force

XML = """<mujoco>
  <option timestep="0.01" integrator="{integ}"/>
  <worldbody>
    <body><joint name="j" damping=".1"/><geom size=".1" pos=".2 0 0"/></body>
    <body pos="1 0 0"><joint name="k" axis="0 1 0"/><geom size=".1" pos=".2 0 0"/></body>
  </worldbody>
  <actuator>
    <general joint="j" gaintype="user" biastype="user" gainprm="3 0 -2" biasprm="1 2 -3"/>
    <general joint="k" gaintype="user" gainprm="5 0 -4" biastype="affine" biasprm="0 -1 -.5"/>
    <general joint="k" dyntype="user" dynprm=".3" gaintype="affine" gainprm="2 0 -1" actlimited="true"
             actrange="-.4 .4"/>
    <general joint="j" dyntype="user" biastype="user" actearly="true"/>
    <general joint="j" dyntype="filter" dynprm=".05" biastype="user" biasprm="7"/>
  </actuator>
</mujoco>"""
TOL = 1e-12


def check(integ, nstep=100):
    m = mujoco.MjModel.from_xml_string(XML.format(integ=integ))
    md = mujoco.MjData(m)
    d = api.Data(m)
    md.act[:] = [0.3, -0.2, 0.1]  # user dynamics keep their activation: act_dot 0
    d.act = md.act.copy()
    worst = run(m, md, d, nstep, seed=0)
    assert worst <= TOL, worst
    np.testing.assert_array_equal(md.act[:2], [0.3, -0.2])  # the user-dynamics actuators' act did not move
    np.testing.assert_array_equal(md.actuator_force[0], md.ctrl[0])  # user gain 1, user bias 0
    assert np.any(md.qvel != 0)


@pytest.mark.oracle
@pytest.mark.parametrize("integ", ["Euler", "RK4"])
def test_user_actuators_match_mujoco(integ):
    check(integ)


@pytest.mark.oracle
@pytest.mark.parametrize("integ", ["implicit", "implicitfast"])
def test_user_actuators_implicit(integ, full_run):
    if not full_run:
        pytest.skip("implicit integrators (another feature set): --full")
    check(integ)
