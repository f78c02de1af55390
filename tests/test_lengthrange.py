"""MuJoCo's simulation-based actuator length range (compiler <lengthrange>: mjCModel::LengthRange and
mj_setLengthRange, sim/setconst.py `_length_range`) against mujoco 3.17.

Every model is compiled by sim.load_model and by mujoco.MjModel; every model field is compared at 1e-9 (tests/oracle.py
assert_models_match), actuator_lengthrange among them.  Where MuJoCo refuses the simulated range (not converged,
invalid) numjoco raises sim.ModelError with MuJoCo's message, naming the actuator's element.

Cost: the model below has the feature set of tests/test_tendon.py's wrapping models and of myo_sim's myofinger
(primitive and general collisions, cylinders, tendons, CG/Newton: sim/jit/features.py), so the one-step entry the
length-range simulation runs is compiled once for all of them; a load then takes 0.05-0.6 s (inttotal / timestep
steps per side and simulated actuator).  The integrator variants that need their own feature set are --full only.
"""

import os
import subprocess
import sys

import mujoco
import numpy as np
import pytest

import sim
from sim.errors import ModelError, UnsupportedError
from oracle import assert_models_match

pytestmark = [pytest.mark.oracle, pytest.mark.compiler]

TOL = 1e-9

# a two-link arm: a muscle on a spatial tendon wrapping a cylinder, a muscle on a limited hinge, an unlimited slide
BODY = """
<worldbody>
  <geom name="floor" type="plane" size="2 2 .1"/>
  <site name="s0" pos="-0.05 0 1.05"/>
  <site name="s0b" pos="-0.05 0 0.95"/>
  <body name="upper" pos="0 0 1">
    <joint name="shoulder" axis="0 1 0" range="-60 80" damping="0.5"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/>
    <site name="s1" pos="0.15 0 0.04"/>
    <site name="s1b" pos="0.15 0 -0.04"/>
    <body name="lower" pos="0.3 0 0">
      <joint name="elbow" axis="0 1 0" range="-10 120"/>
      <geom name="pulley" type="cylinder" fromto="0 -0.02 0 0 0.02 0" size="0.04" mass="0.2"/>
      <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.025" mass="0.6"/>
      <site name="side" pos="0 0 0.08"/>
      <site name="s2" pos="0.1 0 0.03"/>
      <site name="s2b" pos="0.1 0 -0.03"/>
      <body name="tip" pos="0.25 0 0">
        <joint name="slide" type="slide" axis="1 0 0"/>
        <geom type="sphere" size="0.03" mass="0.1"/>
      </body>
    </body>
  </body>
</worldbody>
<tendon>
  <spatial name="flexor"><site site="s0"/><site site="s1"/><geom geom="pulley" sidesite="side"/><site site="s2"/></spatial>
  <spatial name="extensor"><site site="s0b"/><site site="s1b"/><site site="s2b"/></spatial>
</tendon>
"""


def xml(head="", acts="", option=""):
    """The arm with a muscle on the wrapping tendon and one on the shoulder hinge (no explicit lengthrange), plus
    `acts`, under <compiler>`head`</compiler>."""
    return (
        f"<mujoco>{option}<compiler>{head}</compiler>{BODY}<actuator>"
        f'<muscle name="flexor" tendon="flexor"/><muscle name="shoulder" joint="shoulder"/>{acts}'
        "</actuator></mujoco>"
    )


def _pair(text):
    return sim.load_model(text), mujoco.MjModel.from_xml_string(text)


def test_default_options_match_mujoco():
    ours, theirs = _pair(xml())
    assert_models_match(ours, theirs, rtol=TOL, atol=TOL)
    lr = np.asarray(ours.actuator_lengthrange)
    # simulated: the tendon's range is not its length at qpos0, the hinge muscle's is past its soft joint limits
    assert lr[0, 0] < ours.actuator_length0[0] < lr[0, 1]
    assert lr[1, 0] < np.deg2rad(-60) and lr[1, 1] > np.deg2rad(80)


# (compiler <lengthrange> attributes, extra actuators, <option>): each option of mj_setLengthRange exercised
CASES = {
    "mode_all": ('mode="all"', '<motor joint="elbow"/><position tendon="extensor" kp="10"/>', ""),
    "mode_none": ('mode="none"', "", ""),
    "mode_muscleuser": ('mode="muscleuser"', '<motor joint="elbow"/>', ""),
    "useexisting_false": ('useexisting="false"', '<muscle tendon="extensor" lengthrange="0.1 0.2"/>', ""),
    "useexisting_empty_range": ("", '<muscle tendon="extensor" lengthrange="0.2 0.2"/>', ""),
    "uselimit": ('uselimit="true"', '<muscle joint="elbow"/>', ""),
    "accel_maxforce_timeconst": ('accel="50" maxforce="0.5" timeconst="0.2"', "", ""),
    "timestep_inttotal_interval": ('timestep="0.02" inttotal="6" interval="1.5" tolrange="0.1"', "", ""),
    # the model's timestep (timestep="0"), RK4 (mj_step2 integrates with Euler) and its own flags replaced
    "model_options": (
        'timestep="0"',
        "",
        '<option integrator="RK4" timestep="0.004" gravity="0 0 -30"><flag limit="disable" contact="disable"/>'
        "</option>",
    ),
}
FULL_CASES = {
    "accel_only": ('accel="5"', "", ""),
    "maxforce_only": ('maxforce="2"', "", ""),
    "timeconst_short": ('timeconst="0.1"', "", ""),
    "uselimit_flat_trnid": ('uselimit="true"', '<muscle tendon="extensor"/><muscle joint="elbow"/>', ""),
    "mode_muscle_skips_motor": ("", '<motor joint="elbow"/><general tendon="extensor" dyntype="muscle"/>', ""),
    "euler_damping": ("", "", '<option><flag eulerdamp="disable" spring="disable"/></option>'),
}


def _case(spec):
    head, acts, option = spec
    return xml(f"<lengthrange {head}/>", acts, option)


@pytest.mark.parametrize("name", sorted(CASES))
def test_options_match_mujoco(name):
    ours, theirs = _pair(_case(CASES[name]))
    assert_models_match(ours, theirs, rtol=TOL, atol=TOL, label=name)


@pytest.mark.full
@pytest.mark.parametrize("name", sorted(FULL_CASES))
def test_more_options_match_mujoco(name):
    ours, theirs = _pair(_case(FULL_CASES[name]))
    assert_models_match(ours, theirs, rtol=TOL, atol=TOL, label=name)


@pytest.mark.full
@pytest.mark.parametrize("integrator", ["implicitfast", "implicit"])
def test_implicit_integrators_match_mujoco(integrator):
    ours, theirs = _pair(xml(option=f'<option integrator="{integrator}"/>'))
    assert_models_match(ours, theirs, rtol=TOL, atol=TOL, label=integrator)


# the simulated ranges MuJoCo refuses: (compiler <lengthrange> attributes, extra actuators, failing actuator)
ERRORS = {
    "no_step_invalid_range": ('inttotal="0"', "", 0),
    "not_converged_slide": ("", '<muscle joint="slide"/>', 2),
    "not_converged_tolrange": ('tolrange="1e-4" inttotal="3"', "", 0),
    "not_converged_side1": ('timeconst="0.001" timestep="0.005" inttotal="4" interval="1" tolrange="0.2"', "", 0),
    "not_converged_interval": ('interval="20"', "", 0),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_refused_ranges_raise_model_error(name):
    head, acts, index = ERRORS[name]
    text = xml(f"<lengthrange {head}/>", acts)
    with pytest.raises(ValueError) as theirs:
        mujoco.MjModel.from_xml_string(text)
    with pytest.raises(ModelError) as ours:
        sim.load_model(text)
    err = ours.value
    assert not isinstance(err, UnsupportedError)
    assert str(theirs.value) == "Error: " + err.message
    assert f"in actuator {index}" in err.message
    assert (err.element, err.attribute) == ("muscle", "lengthrange") and err.line is not None


# accelerations that make the simulation diverge: MuJoCo 3.17 resets the state and starts over without end
UNSTABLE = '<lengthrange accel="1e200"/>'


def test_unstable_simulation_raises_model_error():
    with pytest.raises(ModelError, match="Unstable lengthrange simulation in actuator 0") as info:
        sim.load_model(xml(UNSTABLE))
    assert not isinstance(info.value, UnsupportedError)
    assert info.value.element == "muscle"


@pytest.mark.full
def test_unstable_simulation_hangs_mujoco():
    """Why numjoco refuses the case above rather than matching MuJoCo: mujoco does not return from it."""
    code = "import mujoco, sys; mujoco.MjModel.from_xml_string(sys.stdin.read())"
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run([sys.executable, "-c", code], input=xml(UNSTABLE), text=True, capture_output=True, timeout=20)


def _myofinger():
    import myo_sim

    return os.path.join(os.path.dirname(myo_sim.__file__), "models", "legacy", "finger", "myofinger_v0.xml")


def test_myofinger_matches_mujoco():
    """myo_sim's myofinger: five muscles on wrapping tendons, none with an explicit lengthrange; then 200 steps
    under random controls (qpos, qvel, act to 1e-9 relative: measured 2e-13 at step 100)."""
    path = _myofinger()
    ours, theirs = sim.load_model(path), mujoco.MjModel.from_xml_path(path)
    assert_models_match(ours, theirs, rtol=TOL, atol=TOL)
    d, md = sim.Data(ours), mujoco.MjData(theirs)
    rng = np.random.default_rng(7)
    for i in range(200):
        ctrl = rng.uniform(0, 1, theirs.nu)
        d.ctrl, md.ctrl[:] = ctrl, ctrl
        sim.step(ours, d)
        mujoco.mj_step(theirs, md)
        for k in ("qpos", "qvel", "act"):
            want = getattr(md, k)
            err = np.max(np.abs(getattr(d, k) - want)) / max(1.0, np.max(np.abs(want)))
            assert err <= TOL, f"step {i}: {k} error {err}"
