"""The <dcmotor> actuator (MuJoCo 3.17, doc/dcmotor) against mujoco: the compiled Model (every field) and
trajectories of qpos / qvel / act / actuator_force under random controls.

A DC motor is dyntype, gaintype and biastype dcmotor: gainprm [R K alpha T0 kp ki kd vmax], dynprm [te didtmax RT
C Ta sigma0 sigma1 slewmax imax], biasprm [cogging amplitude, periodicity, phase, LuGre F_C F_S v_S], and up to five
states (slew, integral, temperature, bristle, current) integrated by mj_nextActivation (exact for the current and
the bristle).  The cases below cover every attribute of the element (motorconst, resistance, nominal with and
without the joint damping correction, saturation, inductance, cogging, controller, thermal, lugre, input), default
classes (a child class inheriting from its parent, an element from its class), <general> with the dcmotor types,
joint and tendon transmissions.  numjoco simulates one control per actuator: inputs "pos vel" and the like (two or
more controls) and "none" (no control) are refused with UnsupportedError (tested below).  --full adds random
parameter draws.
"""

import mujoco
import numpy as np
import pytest

import sim
import sim.jit.cache  # noqa: F401  (must precede jitted modules)
from sim import api

import oracle

WORLD = """
<mujoco>
  <option timestep="0.002" integrator="{integrator}"/>
  <default>
    <joint damping="0.02" armature="0.001"/>
    {defaults}
  </default>
  <worldbody>
    <geom type="plane" size="2 2 .1"/>
    <body name="a" pos="0 0 1">
      <joint name="h1" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 .3 0 0" size=".04"/>
      <body name="b" pos=".3 0 0">
        <joint name="h2" axis="0 1 0" damping="0.05"/>
        <geom type="capsule" fromto="0 0 0 .25 0 0" size=".03"/>
        <body name="c" pos=".25 0 0">
          <joint name="s3" type="slide" axis="1 0 0" range="-.1 .1"/>
          <geom type="box" size=".04 .03 .03"/>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon><fixed name="t"><joint joint="h1" coef="0.5"/><joint joint="h2" coef="-1"/></fixed></tendon>
  <actuator>
    {actuators}
  </actuator>
</mujoco>
"""

# (id, defaults, actuators): every documented attribute, alone and together
CASES = [
    ("voltage", "", '<dcmotor joint="h1" motorconst="0.05" resistance="2" ctrlrange="-12 12"/>'),
    (
        "motorconst_pair_inductance_saturation",
        "",
        '<dcmotor joint="h2" motorconst="0.04 0.06" resistance="1.5" inductance="0.003" saturation="0.3"/>'
        '<dcmotor joint="h1" motorconst="0.05" resistance="1" inductance="0 0.004" saturation="0 2 500"'
        ' input="voltage"/>',
    ),
    (
        "nominal",
        "",
        '<dcmotor joint="h1" nominal="12 0.5 100"/>'
        '<dcmotor joint="h2" nominal="12 0.5 100" damping="0.001"/>'
        '<dcmotor joint="s3" nominal="24 2 300" resistance="4" damping="0.002" gear="10"/>',
    ),
    (
        "controller_pos_full",
        "",
        '<dcmotor joint="h1" motorconst="0.1 0.2" resistance="2" inductance="0 0.01" thermal="1 2 0 0.004 20 25"'
        ' lugre="1 0.1 0.2 0.3 0.4" controller="1 2 0.1 5 3 12" input="pos" saturation="0 3 100"'
        ' cogging="0.1 6 0.2"/>',
    ),
    (
        "controller_vel_ff",
        "",
        '<dcmotor joint="h1" motorconst="0.08" resistance="1.2" controller="0 0 0.3 0 0 24" input="vel"/>'
        '<dcmotor joint="h2" motorconst="0.08" resistance="1.2" inductance="0.002" controller="0 0 0.05"'
        ' input="ff" thermal="0 0.5 30"/>',
    ),
    (
        "thermal_stateless_lugre_cogging_tendon",
        "",
        '<dcmotor tendon="t" motorconst="0.06" resistance="0.8" thermal="2 0 10 0.0039 25 20"'
        ' lugre="50 0.5 0.02 0.03 0.1" cogging="0.01 12 0.3"/>'
        '<dcmotor joint="s3" motorconst="0.1" resistance="3" gear="20" cogging="0.005 4"/>',
    ),
    (
        "integral_only_pos_slew",
        "",
        '<dcmotor joint="h2" motorconst="0.1" resistance="1" controller="2 1 0.05 3" input="pos" ctrlrange="-1 1"/>',
    ),
    (
        "integral_windup_vmax",
        "",
        '<dcmotor joint="h2" motorconst="0.1" resistance="1" inductance="0 0.002" controller="3 30 0.05 0 0.02 6"'
        ' input="pos" ctrlrange="-1 1"/>',
    ),
    (
        "defaults",
        '<default class="m"><dcmotor motorconst="0.07" resistance="1.1" inductance="0.002" thermal="1 3"'
        ' controller="0.5 0 0.02" input="pos" saturation="1"/>'
        '<default class="m2"><dcmotor resistance="0.9" lugre="20 0.2 0.01 0.02 0.05"/></default></default>',
        '<dcmotor class="m" joint="h1"/><dcmotor class="m2" joint="h2" controller="0.8"/>'
        '<dcmotor class="m2" tendon="t" input="vel" controller="0 0 0.1"/>',
    ),
    (
        "general",
        "",
        '<general joint="h1" dyntype="dcmotor" gaintype="dcmotor" biastype="dcmotor" actearly="true" actdim="2"'
        ' gainprm="1.5 0.05 0.004 20" dynprm="0.003 0 1 2 25"/>'
        '<general joint="h2" dyntype="dcmotor" gaintype="dcmotor" biastype="dcmotor" actearly="true"'
        ' gainprm="2 0.04" dynprm="0" forcerange="-0.5 0.5"/>',
    ),
    (
        "mixed_with_others",
        "",
        '<motor joint="h1" gear="0.5"/><dcmotor joint="h2" motorconst="0.05" resistance="2" inductance="0.002"/>'
        '<position joint="s3" kp="50" timeconst="0.01"/>',
    ),
]


def _xml(defaults, actuators, integrator="Euler"):
    return WORLD.format(defaults=defaults, actuators=actuators, integrator=integrator)


def _pair(xml):
    return sim.load_model(xml), mujoco.MjModel.from_xml_string(xml)


def _ctrl(m, rng):
    """Random controls: voltages up to +-15, setpoints / velocities / torques scaled by the input kind."""
    lo = np.where(m.actuator_ctrllimited, m.actuator_ctrlrange[:, 0], -15.0)
    hi = np.where(m.actuator_ctrllimited, m.actuator_ctrlrange[:, 1], 15.0)
    scale = np.where(np.isin(m.actuator_ctrlspec, (1, 2, 4)), 0.1, 1.0)
    return rng.uniform(lo, hi) * scale * 1.2  # beyond the ranges now and then (clamped)


def run_pair(xml, nstep, seed):
    """Step our model and mujoco's side by side with random controls; max relative errors per field."""
    om, m = _pair(xml)
    md = mujoco.MjData(m)
    d = api.Data(om)
    rng = np.random.default_rng(seed)
    qvel = rng.standard_normal(m.nv) * 0.5
    md.qvel[:] = qvel
    d.qvel = qvel
    errs = dict.fromkeys(("qpos", "qvel", "act", "actuator_force"), 0.0)
    for t in range(nstep):
        if t % 10 == 0:
            ctrl = _ctrl(m, rng)
        md.ctrl[:] = ctrl
        d.ctrl = ctrl
        mujoco.mj_step(m, md)
        api.step(om, d)
        for f in errs:
            ref = np.asarray(getattr(md, f))
            if ref.size == 0:
                continue
            err = np.abs(np.asarray(getattr(d, f)).reshape(ref.shape) - ref).max() / max(1.0, np.abs(ref).max())
            errs[f] = max(errs[f], err)
            assert err <= TOL, f"step {t} {f}: relative error {err:.3e}"
    return errs


TOL = 1e-9


@pytest.mark.oracle
@pytest.mark.compiler
@pytest.mark.parametrize("case", [pytest.param(c[1:], id=c[0]) for c in CASES])
def test_dcmotor_model_fields(case):
    """Every Model field equals mujoco's (gainprm / biasprm / dynprm, actnum / actadr, forcerange, ctrlspec...)."""
    om, m = _pair(_xml(*case))
    oracle.assert_models_match(om, m)
    assert np.any(m.actuator_dyntype == mujoco.mjtDyn.mjDYN_DCMOTOR)


@pytest.mark.oracle
@pytest.mark.parametrize("integrator", ["Euler", "implicitfast", "RK4"])
@pytest.mark.parametrize("case", [pytest.param(c[1:], id=c[0]) for c in CASES])
def test_dcmotor_trajectory(case, integrator):
    """250 steps with random controls: qpos, qvel, act and actuator_force follow mj_step within 1e-9 (relative
    to max(1, |ref|))."""
    run_pair(_xml(*case, integrator=integrator), 250, 7)


def test_dcmotor_states_move():
    """The full controller case exercises all five states (none stays at 0) and the force limit."""
    om, m = _pair(_xml(*CASES[3][1:]))
    assert m.na == 5 and np.asarray(om.actuator_actnum).tolist() == [5]
    md = mujoco.MjData(m)
    md.ctrl[:] = 0.3
    mujoco.mj_step(m, md, 100)
    assert np.all(md.act != 0)


def _bindings(case):
    """mujoco's trajectory of a case (as run_pair drives it): how many (step, actuator) pairs had the force limit,
    the slew limit, the integral clamp imax and the current rate limit didtmax binding."""
    m = mujoco.MjModel.from_xml_string(_xml(*case))
    d = mujoco.MjData(m)
    rng = np.random.default_rng(7)
    d.qvel[:] = rng.standard_normal(m.nv) * 0.5
    out = dict(force=0, slew=0, imax=0, didt=0)
    for t in range(250):
        if t % 10 == 0:
            ctrl = _ctrl(m, rng)
        d.ctrl[:] = ctrl
        mujoco.mj_step(m, d)
        for i in range(m.nu):
            if m.actuator_dyntype[i] != mujoco.mjtDyn.mjDYN_DCMOTOR:
                continue
            dp, gp, adr = m.actuator_dynprm[i], m.actuator_gainprm[i], m.actuator_actadr[i]
            if m.actuator_forcelimited[i]:
                out["force"] += abs(abs(d.actuator_force[i]) - m.actuator_forcerange[i, 1]) < 1e-12
            if dp[7] > 0:
                out["slew"] += abs(abs(d.act_dot[adr]) - dp[7]) < 1e-9
            if dp[8] > 0 and gp[5] > 0:
                out["imax"] += abs(d.act[adr + int(dp[7] > 0)]) >= dp[8] - 1e-12
            if dp[1] > 0 and dp[0] > 0:
                out["didt"] += abs(abs(d.act_dot[adr + m.actuator_actnum[i] - 1]) - dp[1]) < 1e-9
    return out


def test_dcmotor_cases_bind_the_limits():
    """The cases above drive the force limit, the slew limit, the integral clamp and the current rate limit into
    action (so the trajectories compare those branches too)."""
    cases = {c[0]: c[1:] for c in CASES}
    total = dict(force=0, slew=0, imax=0, didt=0)
    for name in ("motorconst_pair_inductance_saturation", "controller_pos_full", "integral_windup_vmax", "defaults"):
        for k, v in _bindings(cases[name]).items():
            total[k] += v
    assert all(v >= 10 for v in total.values()), total


REFUSED = [
    ('<dcmotor joint="h1" motorconst="0.1"/>', "resistance"),
    ('<dcmotor joint="h1" resistance="1"/>', "motorconst"),
    ('<dcmotor joint="h1" motorconst="0.1" resistance="1" inductance="-1"/>', "inductance"),
    ('<dcmotor joint="h1" motorconst="0.1" resistance="1" inductance="0 -1"/>', "inductance"),
    ('<dcmotor joint="h1" motorconst="0.1" resistance="1" thermal="0 1"/>', "thermal"),
    ('<dcmotor joint="h1" motorconst="0.1" resistance="1" thermal="1 0"/>', "thermal"),
    ('<dcmotor joint="h1" motorconst="0.1" resistance="1" controller="1"/>', "controller"),
    ('<dcmotor joint="h1" motorconst="0.1" resistance="1" controller="1 1" input="vel"/>', "controller"),
    ('<dcmotor joint="h1" motorconst="0.1" resistance="1" controller="0 0 0 1" input="voltage"/>', "controller"),
    ('<dcmotor joint="h1" motorconst="0.1" resistance="1" input="vel pos"/>', "input"),
    ('<dcmotor joint="h1" motorconst="0.1" resistance="1" input="pressure"/>', "input"),
    ('<general joint="h1" dyntype="dcmotor" gaintype="dcmotor" biastype="dcmotor" gainprm="1 1"/>', "actearly"),
    (
        '<general joint="h1" dyntype="dcmotor" gaintype="dcmotor" biastype="dcmotor" actearly="true" actdim="0"'
        ' gainprm="1 1" dynprm="0 0 0 0 0 0 0 0 0" actlimited="true" actrange="0 0"/>',
        "actrange",
    ),
    # the state count disagrees with the parameters: mujoco's compiler stops in mj_setConst's first step (mjERROR
    # "inconsistent state array dimension in DC motor")
    (
        '<general joint="h1" dyntype="dcmotor" gaintype="dcmotor" biastype="dcmotor" actearly="true"'
        ' gainprm="1 1" dynprm="0.01"/>',
        "actdim",
    ),
]


@pytest.mark.oracle
@pytest.mark.compiler
@pytest.mark.parametrize("act,attr", REFUSED)
def test_dcmotor_refused_as_mujoco(act, attr):
    """What mujoco refuses we refuse with ModelError naming the attribute."""
    xml = _xml("", act)
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(sim.ModelError, match=attr):
        sim.load_model(xml)


UNSUPPORTED = [
    '<dcmotor joint="h1" motorconst="0.1" resistance="1" input="pos vel" controller="1 0 0.1"/>',
    '<dcmotor joint="h1" motorconst="0.1" resistance="1" input="ff voltage"/>',
    '<dcmotor joint="h1" motorconst="0.1" resistance="1" input="none"/>',
    # mixed dcmotor / other types
    '<general joint="h1" dyntype="dcmotor" gaintype="fixed" biastype="dcmotor" actearly="true"/>',
]


@pytest.mark.oracle
@pytest.mark.parametrize("act", UNSUPPORTED)
def test_dcmotor_unsupported(act):
    """Multi-input and input-less DC motors and partial dcmotor types load in mujoco but numjoco does not simulate them: UnsupportedError at load."""
    xml = _xml("", act)
    mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(sim.UnsupportedError):
        sim.load_model(xml)


def _random_dcmotor(rng):
    """A random <dcmotor> on h1 or the tendon with a random subset of its features."""
    attrs = ['motorconst="%g"' % rng.uniform(0.02, 0.2), 'resistance="%g"' % rng.uniform(0.5, 3)]
    spec = rng.choice(["voltage", "pos", "vel", "ff"])
    if rng.random() < 0.5:
        attrs.append('inductance="0 %g"' % rng.uniform(0.001, 0.02))
    if spec != "voltage":
        ki = rng.uniform(0, 2) if spec == "pos" and rng.random() < 0.5 else 0
        attrs.append(
            'controller="%g %g %g %g %g %g"'
            % (
                rng.uniform(0, 2),
                ki,
                rng.uniform(0, 0.2),
                rng.uniform(0, 5) * (rng.random() < 0.5),
                rng.uniform(0, 2) * (rng.random() < 0.5),
                rng.uniform(0, 24) * (rng.random() < 0.5),
            )
        )
    attrs.append('input="%s"' % spec)
    if rng.random() < 0.5:
        attrs.append('thermal="%g %g 0 %g 20 25"' % (rng.uniform(0.5, 3), rng.uniform(0.5, 3), rng.uniform(0, 0.01)))
    if rng.random() < 0.5:
        attrs.append('lugre="%g %g 0.02 0.03 0.1"' % (rng.uniform(1, 50), rng.uniform(0, 0.5)))
    if rng.random() < 0.5:
        attrs.append('cogging="%g %g %g"' % (rng.uniform(0, 0.02), rng.integers(1, 12), rng.uniform(0, 1)))
    if rng.random() < 0.3:
        attrs.append('saturation="%g 0 %g"' % (rng.uniform(0.05, 0.5), rng.uniform(0, 500)))
    target = 'tendon="t"' if rng.random() < 0.3 else 'joint="h1"'
    return "<dcmotor %s %s/>" % (target, " ".join(attrs))


@pytest.mark.full
@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(60))
def test_dcmotor_random(seed):
    """Random DC motors (--full): fields and 300 steps under each of Euler, implicitfast and RK4."""
    rng = np.random.default_rng(seed)
    act = _random_dcmotor(rng) + _random_dcmotor(rng).replace('joint="h1"', 'joint="h2"')
    for integrator in ("Euler", "implicitfast", "RK4"):
        xml = _xml("", act, integrator)
        om, m = _pair(xml)
        oracle.assert_models_match(om, m)
        run_pair(xml, 300, seed)
