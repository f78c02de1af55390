"""Trajectory agreement with mujoco.mj_step (contact-free), batch/serial equivalence, divergence reset."""

import mujoco
import numpy as np
import pytest

import sim.jit.cache  # noqa: F401
from sim import api
from test_smooth import load, random_states
from dynamics_util import step_both

NSTEP = 1000
TOL = 1e-8

CASES = [
    ("hopper", "euler"),
    ("hopper", "rk4"),
    ("hopper", "implicitfast"),
    ("half_cheetah", "implicitfast"),
    ("joints_tendons", "euler"),
    ("joints_tendons", "rk4"),
    ("actuators", "euler"),
    ("actuators", "rk4"),
    ("inverted_double_pendulum", "implicitfast"),
]
INTEG = {
    "euler": mujoco.mjtIntegrator.mjINT_EULER,
    "rk4": mujoco.mjtIntegrator.mjINT_RK4,
    "implicitfast": mujoco.mjtIntegrator.mjINT_IMPLICITFAST,
    "implicit": mujoco.mjtIntegrator.mjINT_IMPLICIT,
}


@pytest.mark.parametrize("name,integ", CASES)
def test_trajectory_matches_mujoco(name, integ):
    m = load(name)
    m.opt.integrator = INTEG[integ]
    st = random_states(m, 1, seed=11)[0]
    rng = np.random.default_rng(5)
    ctrls = rng.uniform(-1, 1, (NSTEP, m.nu))
    md, d = step_both(m, st, ("qpos", "qvel", "act", "mocap_pos", "mocap_quat"), ctrls)
    for f in ("qpos", "qvel", "act"):
        ref = getattr(md, f)
        err = np.max(np.abs(getattr(d, f) - ref)) if ref.size else 0.0
        assert err <= TOL * max(1.0, np.max(np.abs(ref)) if ref.size else 1.0), f"{name}/{integ} {f}: {err:.3e}"
    assert abs(d.time - md.time) < 1e-12


def test_batch_bitwise_equals_single():
    m = load("joints_tendons")
    sts = random_states(m, 4, seed=3)
    b = api.Data(m, nworld=4)
    for k in sts[0]:
        setattr(b, k, np.stack([s[k] for s in sts]))
    api.step(m, b, nstep=50)
    for i, s in enumerate(sts):
        d = api.Data(m)
        for k, v in s.items():
            setattr(d, k, v)
        api.step(m, d, nstep=50)
        for f in ("qpos", "qvel", "act", "qacc", "xpos", "M"):
            assert np.array_equal(getattr(b, f)[i], getattr(d, f)), f


def test_nan_resets_only_that_world():
    m = load("hopper")
    sts = random_states(m, 3, seed=4)
    b = api.Data(m, nworld=3)
    for k in sts[0]:
        setattr(b, k, np.stack([s[k] for s in sts]))
    b.qvel[1, 2] = np.nan
    with pytest.warns(RuntimeWarning, match="diverged"):
        api.step(m, b)
    # world 1: reset then stepped once from the reset state (as mj_step with autoreset)
    md = mujoco.MjData(m)
    mujoco.mj_step(m, md)
    assert np.allclose(b.qpos[1], md.qpos, rtol=0, atol=1e-12)
    assert b.warning[mujoco.mjtWarning.mjWARN_BADQVEL].number.tolist() == [0, 1, 0]
    # other worlds untouched by the reset: equal to stepping them alone
    for i in (0, 2):
        d = api.Data(m)
        for k, v in sts[i].items():
            setattr(d, k, v)
        api.step(m, d)
        assert np.array_equal(b.qpos[i], d.qpos)
    # oracle agrees on the warning count for a single world
    md = mujoco.MjData(m)
    md.qvel[2] = np.nan
    mujoco.mj_step(m, md)
    assert md.warning[mujoco.mjtWarning.mjWARN_BADQVEL].number == 1


# ------------------------------------------------------------------------------------------
# implicit / implicitfast: qDeriv (mjd_smooth_vel) and trajectories against mj_implicit

IMPLICIT_XML = {
    # standalone free bodies (local 6x6 solve with the gyroscopic derivative in implicitfast), a free-root
    # tree with ball joints, fluid with wind, damper/intvelocity/velocity actuators, muscles, tendon damping
    "implicit_features": """
<mujoco>
  <option timestep="0.004" density="1.3" viscosity="0.02" wind="0.4 -0.2 0.3"/>
  <worldbody>
    <body name="brick" pos="0 0 1" euler="10 30 50">
      <freejoint/>
      <geom type="box" size=".05 .15 .3" pos=".05 .1 0" mass="1.5"/>
    </body>
    <body name="puck" pos="1 0 1">
      <freejoint/>
      <geom type="ellipsoid" size=".1 .2 .05" mass="0.3"/>
    </body>
    <body name="root" pos="0 1 1">
      <freejoint/>
      <geom type="capsule" size=".05" fromto="0 0 0 .2 .1 0"/>
      <body pos=".2 .1 0">
        <joint name="b1" type="ball" damping=".05"/>
        <geom type="capsule" size=".04" fromto="0 0 0 0 .3 0"/>
        <site name="s1" pos="0 .2 .02"/>
        <body pos="0 .3 0">
          <joint name="h1" axis="1 0 0" damping=".2"/>
          <joint name="h2" axis="0 0 1"/>
          <geom type="box" size=".05 .1 .02" pos="0 .1 0"/>
          <site name="s2" pos="0 .15 0"/>
        </body>
      </body>
    </body>
    <body name="arm" pos="0 -1 1">
      <joint name="a1" axis="0 1 0"/>
      <geom type="capsule" size=".04" fromto="0 0 0 .3 0 0"/>
      <site name="t0" pos=".1 0 .05"/>
      <body pos=".3 0 0">
        <joint name="a2" axis="0 1 0" damping=".1"/>
        <geom type="capsule" size=".04" fromto="0 0 0 .3 0 0"/>
        <site name="t1" pos=".2 0 .05"/>
        <body pos=".3 0 0">
          <joint name="a3" type="slide" axis="1 0 0"/>
          <geom size=".05"/>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <spatial name="sp" damping=".3"><site site="s1"/><site site="s2"/></spatial>
    <spatial name="mt"><site site="t0"/><site site="t1"/></spatial>
    <fixed name="fx" damping=".2"><joint joint="a1" coef="1"/><joint joint="a2" coef="-.5"/></fixed>
  </tendon>
  <actuator>
    <velocity joint="a1" kv="3"/>
    <damper joint="a2" kv="1.5" ctrlrange="0 1"/>
    <intvelocity joint="a3" kp="20" kv="2" actrange="-1 1"/>
    <general joint="h1" dyntype="filter" dynprm="0.05" gaintype="affine" gainprm="1 0 -0.4"
             biastype="affine" biasprm="0 -1 -0.2"/>
    <general joint="h2" dyntype="filterexact" dynprm="0.03" gaintype="affine" gainprm="1 0 0.3"
             actearly="true"/>
    <muscle tendon="mt" lengthrange="0.1 0.5"/>
    <general tendon="fx" dyntype="muscle" gaintype="muscle" biastype="muscle" lengthrange="-1 1"
             dynprm="0.01 0.04 0.5" ctrlrange="0 1" ctrllimited="true"
             gainprm="0.75 1.05 -1 200 0.5 1.6 1.5 1.3 1.2" biasprm="0.75 1.05 -1 200 0.5 1.6 1.5 1.3 1.2"/>
    <velocity joint="a2" kv="1" forcelimited="true" forcerange="-0.3 0.3"/>
  </actuator>
</mujoco>""",
}
IMPLICIT_MODELS = [
    "implicit_features",
    "joints_tendons",
    "actuators",
    "hopper",
    "half_cheetah",
    "ant",
    "humanoid",
    "walker2d",
    "swimmer",
    "reacher",
    "inverted_pendulum",
    "inverted_double_pendulum",
    "pusher",
]
QDERIV_RTOL = 1e-9


def load_implicit(name):
    """Model by name; suffix '_noclamp' also disables control clamping (qDeriv then uses the raw ctrl)."""
    base = name[: -len("_noclamp")] if name.endswith("_noclamp") else name
    if base in IMPLICIT_XML:
        m = mujoco.MjModel.from_xml_string(IMPLICIT_XML[base])
        m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT | mujoco.mjtDisableBit.mjDSBL_CONSTRAINT
    else:
        m = load(base)
    if base != name:
        m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CLAMPCTRL
    return m


def _set_state(m, md, d, st):
    for k in ("qpos", "qvel", "act", "ctrl", "mocap_pos", "mocap_quat"):
        getattr(md, k)[:] = st[k]
        setattr(d, k, st[k])


@pytest.mark.parametrize("integ", ["implicit", "implicitfast"])
@pytest.mark.parametrize("name", IMPLICIT_MODELS + ["implicit_features_noclamp"])
def test_qderiv_matches_mujoco(name, integ):
    """qDeriv left by one step (computed from the pre-step state, as mj_implicit does) equals mujoco's."""
    m = load_implicit(name)
    m.opt.integrator = INTEG[integ]
    for st in random_states(m, 5, seed=21):
        md = mujoco.MjData(m)
        d = api.Data(m)
        _set_state(m, md, d, st)
        mujoco.mj_step(m, md)
        api.step(m, d)
        ref = md.qDeriv
        ours = d._arrays["qDeriv"][0]
        scale = max(1.0, np.max(np.abs(ref)))
        err = np.max(np.abs(ours - ref)) / scale
        assert err <= QDERIV_RTOL, f"{name}/{integ}: qDeriv rel err {err:.3e}"
        # one step of qpos/qvel from the same state
        assert np.max(np.abs(d.qvel - md.qvel)) <= 1e-10 * max(1.0, np.max(np.abs(md.qvel)))


@pytest.mark.parametrize("integ", ["implicit", "implicitfast"])
@pytest.mark.parametrize("name", IMPLICIT_MODELS)
def test_implicit_trajectory(name, integ):
    """1000 steps with a fixed random control sequence: qpos, qvel, act within 1e-8 (relative to max |ref|)."""
    m = load_implicit(name)
    m.opt.integrator = INTEG[integ]
    st = random_states(m, 1, seed=11)[0]
    rng = np.random.default_rng(5)
    ctrls = rng.uniform(-1, 1, (NSTEP, m.nu))
    md = mujoco.MjData(m)
    d = api.Data(m)
    _set_state(m, md, d, st)
    for t in range(NSTEP):
        md.ctrl[:] = ctrls[t]
        d.ctrl = ctrls[t]
        mujoco.mj_step(m, md)
        api.step(m, d)
    for f in ("qpos", "qvel", "act"):
        ref = getattr(md, f)
        if not ref.size:
            continue
        err = np.max(np.abs(getattr(d, f) - ref))
        assert err <= TOL * max(1.0, np.max(np.abs(ref))), f"{name}/{integ} {f}: {err:.3e}"


@pytest.mark.parametrize("integ", ["implicit", "implicitfast"])
def test_implicit_batch_bitwise_equals_single(integ):
    m = load_implicit("implicit_features")
    m.opt.integrator = INTEG[integ]
    sts = random_states(m, 3, seed=8)
    b = api.Data(m, nworld=3)
    for k in ("qpos", "qvel", "act", "ctrl"):
        setattr(b, k, np.stack([s[k] for s in sts]))
    api.step(m, b, nstep=40)
    for i, s in enumerate(sts):
        d = api.Data(m)
        for k in ("qpos", "qvel", "act", "ctrl"):
            setattr(d, k, s[k])
        api.step(m, d, nstep=40)
        for f in ("qpos", "qvel", "act", "qacc"):
            assert np.array_equal(getattr(b, f)[i], getattr(d, f)), f
        assert np.array_equal(b._arrays["qDeriv"][i], d._arrays["qDeriv"][0])


@pytest.mark.parametrize("integ", ["implicit", "implicitfast"])
def test_implicit_with_compiled_model(integ):
    """Same trajectory when the model comes from numjoco's own MJCF compiler (its D/B sparsity and maps)."""
    import sim

    xml = IMPLICIT_XML["implicit_features"]
    mm = mujoco.MjModel.from_xml_string(xml)
    ms = sim.load_model(xml)
    for m in (mm, ms):
        m.opt.integrator = INTEG[integ]
        m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT | mujoco.mjtDisableBit.mjDSBL_CONSTRAINT
    st = random_states(mm, 1, seed=3)[0]
    md = mujoco.MjData(mm)
    d = api.Data(ms)
    for k in ("qpos", "qvel", "act", "ctrl"):
        getattr(md, k)[:] = st[k]
        setattr(d, k, st[k])
    for _ in range(300):
        mujoco.mj_step(mm, md)
        api.step(ms, d)
    for f in ("qpos", "qvel", "act"):
        ref = getattr(md, f)
        assert np.max(np.abs(getattr(d, f) - ref)) <= TOL * max(1.0, np.max(np.abs(ref))), f
