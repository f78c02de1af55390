"""Conformance of the smooth-dynamics core against MuJoCo (the oracle) after mj_forward.

Tolerance: |ours - mujoco| <= 1e-9*|mujoco| + 1e-12*max(1, max|field|).  The absolute part is
scaled by the field's magnitude because entries that cancel to ~0 (e.g. cfrc_int, cross terms of
M) carry round-off proportional to the size of the summed terms, not to their own size.
"""

import os
import zlib

import mujoco
import numpy as np
import pytest

import sim.jit.cache  # noqa: F401  (must precede jitted modules)
from sim import api
from oracle import random_qpos
from dynamics_util import batch_data, mujoco_forward

NSTATE = 20
RTOL = 1e-9
ATOL = 1e-12

try:
    import gymnasium

    ASSETS = os.path.join(os.path.dirname(gymnasium.__file__), "envs/mujoco/assets")
except ImportError:  # pragma: no cover
    ASSETS = None

GYM = [
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
    "point",
    "humanoidstandup",
]

FEATURES = {
    "joints_tendons": """
<mujoco>
  <option timestep="0.005" density="1.2" viscosity="0.01" wind="0.5 -0.3 0.1"/>
  <worldbody>
    <body name="mocap" mocap="true" pos="0 1 1"><geom size=".05"/><site name="ms"/></body>
    <body name="free" pos="0 0 1">
      <freejoint/>
      <geom type="box" size=".1 .2 .3" mass="2"/>
      <site name="s0" pos=".1 0 0"/>
      <body name="ball" pos="0 0 -.4">
        <joint name="ball" type="ball" damping="0.3" stiffness="2" armature="0.05"/>
        <geom type="capsule" size=".05" fromto="0 0 0 0 0 -.3"/>
        <site name="s1" pos="0 0.05 -.2"/>
        <body name="slide" pos="0 0 -.35" gravcomp="0.7">
          <joint name="slide" type="slide" axis="1 1 0" damping="0.5" stiffness="3" springref="0.1"/>
          <geom type="sphere" size=".07" pos=".02 .03 0"/>
          <site name="s2" pos="0.05 0 0"/>
          <body name="hinge" pos="0 .1 0" euler="10 20 30">
            <joint name="hinge" type="hinge" axis="0 1 1" pos=".01 .02 .03" damping="0.2" armature="0.1"/>
            <geom type="ellipsoid" size=".04 .05 .06" pos="0 0 -.1"/>
            <site name="s3" pos="0 0 -.2"/>
          </body>
        </body>
      </body>
    </body>
    <body name="arm" pos="1 0 1">
      <joint name="h1" axis="0 1 0" damping=".1"/>
      <geom type="capsule" size=".04" fromto="0 0 0 .3 0 0"/>
      <site name="a0" pos=".1 0 .05"/>
      <body pos=".3 0 0">
        <joint name="h2" axis="0 1 0" stiffness="1" springref="0.3"/>
        <geom type="capsule" size=".04" fromto="0 0 0 .3 0 0"/>
        <site name="a1" pos=".2 0 .05"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="fix" stiffness="5" damping="0.4" springlength="-0.1 0.1">
      <joint joint="h1" coef="1"/><joint joint="h2" coef="-0.5"/>
    </fixed>
    <spatial name="spat" stiffness="2" damping=".3">
      <site site="s0"/><site site="s1"/><site site="s2"/><site site="s3"/>
    </spatial>
    <spatial name="pul" damping=".1">
      <site site="a0"/><site site="a1"/><pulley divisor="2"/><site site="a0"/><site site="ms"/>
    </spatial>
  </tendon>
</mujoco>""",
    "actuators": """
<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <body pos="0 0 1">
      <joint name="j0" axis="0 1 0" damping=".1" actuatorfrclimited="true" actuatorfrcrange="-0.8 0.8"/>
      <geom type="capsule" size=".04" fromto="0 0 0 .3 0 0"/>
      <site name="t0" pos=".1 0 .05"/>
      <body pos=".3 0 0">
        <joint name="j1" axis="0 1 0" range="-1 1"/>
        <geom type="capsule" size=".04" fromto="0 0 0 .3 0 0"/>
        <site name="t1" pos=".2 0 .05"/>
        <body pos=".3 0 0">
          <joint name="j2" type="ball"/>
          <geom type="capsule" size=".04" fromto="0 0 0 .2 0 0"/>
          <site name="tip" pos=".2 0 0"/>
          <body pos=".2 0 0">
            <joint name="j3" type="slide" axis="1 0 0"/>
            <geom size=".05"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <spatial name="ten" limited="true" range="0 1" actuatorfrclimited="true" actuatorfrcrange="-3 2">
      <site site="t0"/><site site="t1"/>
    </spatial>
    <fixed name="fx"><joint joint="j0" coef="1"/><joint joint="j1" coef="1"/></fixed>
  </tendon>
  <actuator>
    <motor joint="j0" gear="2" ctrllimited="true" ctrlrange="-1 1"/>
    <position joint="j1" kp="10" kv="1"/>
    <velocity joint="j1" kv="2" forcelimited="true" forcerange="-0.5 0.5"/>
    <general joint="j0" dyntype="integrator" gaintype="affine" gainprm="1 0.5 0.2" biastype="affine"
             biasprm="0.1 -1 -0.3" actlimited="true" actrange="-1 1"/>
    <general joint="j1" dyntype="filter" dynprm="0.05" gainprm="2"/>
    <general joint="j3" dyntype="filterexact" dynprm="0.03" gainprm="3" actearly="true"/>
    <muscle tendon="ten" lengthrange="0.2 0.6"/>
    <general tendon="fx" dyntype="muscle" gaintype="muscle" biastype="muscle" lengthrange="-1 1"
             dynprm="0.01 0.04 0.5" ctrllimited="true" ctrlrange="0 1"
             gainprm="0.75 1.05 -1 200 0.5 1.6 1.5 1.3 1.2" biasprm="0.75 1.05 -1 200 0.5 1.6 1.5 1.3 1.2"/>
    <motor joint="j2" gear="1 2 3 0 0 0"/>
    <general jointinparent="j2" gear="0.5 -1 2 0 0 0"/>
    <motor site="tip" gear="1 0.5 0 0 0.3 1"/>
    <motor tendon="ten" gear="1.5"/>
  </actuator>
</mujoco>""",
}


def load(name):
    if name in FEATURES:
        m = mujoco.MjModel.from_xml_string(FEATURES[name])
    else:
        if ASSETS is None:
            pytest.skip("gymnasium not installed")
        m = mujoco.MjModel.from_xml_path(os.path.join(ASSETS, name + ".xml"))
    # contact-free comparison: contacts and all constraints disabled in both implementations
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT | mujoco.mjtDisableBit.mjDSBL_CONSTRAINT
    if name == "joints_tendons":
        # stiffness/damping polynomials are not MJCF attributes in 3.17: set them on the model
        m.jnt_stiffnesspoly[:] = [[0.5, 0.2]] * m.njnt
        m.dof_dampingpoly[:] = 0.1
        m.tendon_stiffnesspoly[:] = [[0.3, 0.1]] * m.ntendon
        m.tendon_dampingpoly[:] = [[0.05, 0.02]] * m.ntendon
    return m


def random_states(m, n, seed):
    """n random (qpos, qvel, ctrl, act, xfrc, qfrc_applied, mocap) states with unit quaternions."""
    rng = np.random.default_rng(seed)
    states = []
    for _ in range(n):
        qpos = random_qpos(m, rng, 0.3)
        xfrc = rng.standard_normal((m.nbody, 6))
        xfrc[rng.random(m.nbody) < 0.3] = 0.0
        states.append(
            dict(
                qpos=qpos,
                qvel=rng.standard_normal(m.nv),
                ctrl=rng.uniform(-1.5, 1.5, m.nu),
                act=rng.uniform(-1, 1, m.na),
                xfrc_applied=xfrc,
                qfrc_applied=0.5 * rng.standard_normal(m.nv),
                mocap_pos=rng.standard_normal((m.nmocap, 3)),
                mocap_quat=rng.standard_normal((m.nmocap, 4)),
            )
        )
    return states


FIELDS = [
    "xpos",
    "xquat",
    "xmat",
    "xipos",
    "ximat",
    "xanchor",
    "xaxis",
    "geom_xpos",
    "geom_xmat",
    "site_xpos",
    "site_xmat",
    "subtree_com",
    "cinert",
    "crb",
    "cdof",
    "cvel",
    "cdof_dot",
    "ten_length",
    "ten_J",
    "ten_velocity",
    "actuator_length",
    "actuator_moment",
    "moment_rownnz",
    "moment_rowadr",
    "moment_colind",
    "actuator_velocity",
    "M",
    "qLD",
    "qLDiagInv",
    "qfrc_bias",
    "qfrc_spring",
    "qfrc_damper",
    "qfrc_gravcomp",
    "qfrc_fluid",
    "qfrc_passive",
    "actuator_force",
    "qfrc_actuator",
    "act_dot",
    "qfrc_smooth",
    "qacc_smooth",
    "qacc",
    "cacc",
    "cfrc_int",
    "cfrc_ext",
]


def compare(ours, ref, name, where):
    ours = np.asarray(ours)
    ref = np.asarray(ref)
    assert ours.shape == ref.shape, f"{where} {name}: shape {ours.shape} != {ref.shape}"
    if ref.size == 0:
        return 0.0
    scale = max(1.0, float(np.max(np.abs(ref))))
    err = np.abs(ours - ref)
    tol = RTOL * np.abs(ref) + ATOL * scale
    bad = err > tol
    assert not np.any(bad), (
        f"{where} {name}: max err {err.max():.3e} at {np.argmax(err)} "
        f"(ours {ours.flat[np.argmax(err)]!r}, mujoco {ref.flat[np.argmax(err)]!r})"
    )
    return float(err.max() / scale)


def run_oracle(m, st):
    return mujoco_forward(m, st, post_constraint=True)


@pytest.mark.parametrize("name", GYM + list(FEATURES))
def test_forward_matches_mujoco(name):
    m = load(name)
    states = random_states(m, NSTATE, seed=zlib.crc32(name.encode()))  # str hash() varies per process
    # batched path (parallel entry) for all states at once
    b = batch_data(m, states)
    api.forward(m, b)
    api.rne_post_constraint(m, b)
    full = api.full_inertia(m, b)
    for i, st in enumerate(states):
        md = run_oracle(m, st)
        for f in FIELDS:
            compare(getattr(b, f)[i], getattr(md, f), f, f"{name}[{i}]")
        ref = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, md, ref)
        compare(full[i], ref, "full_inertia", f"{name}[{i}]")
    # serial path (single world) on the first state
    d = api.Data(m)
    for k, v in states[0].items():
        setattr(d, k, v)
    api.forward(m, d)
    api.rne_post_constraint(m, d)
    md = run_oracle(m, states[0])
    for f in FIELDS:
        compare(getattr(d, f), getattr(md, f), f, f"{name}[serial]")


def test_disable_flags():
    m = load("joints_tendons")
    st = random_states(m, 3, seed=7)
    for flag in [
        mujoco.mjtDisableBit.mjDSBL_GRAVITY,
        mujoco.mjtDisableBit.mjDSBL_SPRING,
        mujoco.mjtDisableBit.mjDSBL_DAMPER,
        mujoco.mjtDisableBit.mjDSBL_SPRING | mujoco.mjtDisableBit.mjDSBL_DAMPER,
    ]:
        old = m.opt.disableflags
        m.opt.disableflags = old | flag
        try:
            d = api.Data(m, nworld=len(st))
            for k in st[0]:
                setattr(d, k, np.stack([s[k] for s in st]))
            api.forward(m, d)
            for i, s in enumerate(st):
                md = run_oracle(m, s)
                for f in ["qfrc_bias", "qfrc_passive", "qfrc_spring", "qfrc_damper", "qfrc_gravcomp", "qacc"]:
                    compare(getattr(d, f)[i], getattr(md, f), f, f"flag {int(flag)} [{i}]")
        finally:
            m.opt.disableflags = old
    m = load("actuators")
    st = random_states(m, 3, seed=8)
    for flag in [mujoco.mjtDisableBit.mjDSBL_ACTUATION, mujoco.mjtDisableBit.mjDSBL_CLAMPCTRL]:
        m.opt.disableflags |= flag
        d = api.Data(m, nworld=len(st))
        for k in st[0]:
            setattr(d, k, np.stack([s[k] for s in st]))
        api.forward(m, d)
        for i, s in enumerate(st):
            md = run_oracle(m, s)
            for f in ["actuator_force", "qfrc_actuator", "act_dot", "actuator_velocity", "qacc"]:
                compare(getattr(d, f)[i], getattr(md, f), f, f"flag {int(flag)} [{i}]")
        m.opt.disableflags = int(m.opt.disableflags) & ~int(flag)


def test_opt_change_between_calls():
    m = load("hopper")
    d = api.Data(m)
    api.forward(m, d)
    m.opt.gravity[:] = [1.0, -2.0, -3.0]
    d.qvel = np.arange(m.nv) * 0.1
    api.forward(m, d)
    md = mujoco.MjData(m)
    md.qvel[:] = d.qvel
    mujoco.mj_forward(m, md)
    compare(d.qfrc_bias, md.qfrc_bias, "qfrc_bias", "gravity changed")
