"""Fluid forces (mj_fluid) against mujoco: the ellipsoid model (geom fluidshape="ellipsoid": added mass,
Magnus and Kutta lift, viscous and quadratic drag per geom) next to the inertia-box model, with wind, over
random states (qfrc_fluid, qfrc_passive, qacc) and 200-step Euler and RK4 trajectories. Contacts and
constraints are disabled in both implementations (the fluid stage does not depend on them)."""

import mujoco
import numpy as np
import pytest

import sim.jit.cache  # noqa: F401  (must precede jitted modules)
from sim import api
from oracle import random_qpos
from dynamics_util import batch_data, mujoco_forward

NSTATE = 24
RTOL = 1e-9
ATOL = 1e-12
TRAJ_TOL = 1e-8

# a free body with ellipsoid geoms of every semi-axes rule (sphere, capsule, cylinder, box, ellipsoid) and
# custom coefficients, one geom with interaction coefficient 0 (skipped) and one without fluidshape (the
# body still uses the ellipsoid model: it is not given the inertia-box model); a hinge/slide/ball chain
# with ellipsoid geoms on offset, rotated frames; an inertia-box body in the same model; wind.
FLUID = """
<mujoco>
  <option timestep="0.002" density="{density}" viscosity="{viscosity}" wind="{wind}"/>
  <worldbody>
    <body name="free" pos="0 0 1" euler="10 20 30">
      <freejoint/>
      <geom type="sphere" size="0.05" fluidshape="ellipsoid" fluidcoef="0.4 0.3 1.2 0.9 1.1"/>
      <geom type="box" size="0.1 0.02 0.01" pos="0.1 0 0" euler="0 0 20" fluidshape="ellipsoid"/>
      <geom type="capsule" size="0.02 0.08" pos="0 0.1 0" euler="30 0 0" fluidshape="ellipsoid"
            fluidcoef="0.6 0.2 1.4 1.2 0.7"/>
      <geom type="cylinder" size="0.03 0.05" pos="0 -0.1 0.02" fluidshape="ellipsoid"/>
      <geom type="ellipsoid" size="0.04 0.02 0.07" pos="-0.1 0 0" euler="5 60 -10" fluidshape="ellipsoid"
            fluidcoef="0.5 0.25 1.5 1.0 1.0"/>
      <geom type="sphere" size="0.03" pos="0 0 0.1"/>
    </body>
    <body name="root" pos="1 0 1">
      <joint name="h" type="hinge" axis="0 0 1"/>
      <joint name="s" type="slide" axis="1 0 0"/>
      <geom type="box" size="0.05 0.05 0.05"/>
      <body name="link" pos="0.2 0 0" euler="0 30 0">
        <joint name="b" type="ball"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" fluidshape="ellipsoid"/>
        <body name="fin" pos="0.3 0 0">
          <joint name="h2" type="hinge" axis="0 1 0"/>
          <geom type="box" size="0.1 0.05 0.005" pos="0.1 0 0" fluidshape="ellipsoid"
                fluidcoef="0.5 0.25 1.5 1.0 1.0"/>
        </body>
      </body>
    </body>
    <body name="boxmodel" pos="-1 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.05 0.03"/>
    </body>
  </worldbody>
</mujoco>
"""

CASES = {
    "air": dict(density=1.2, viscosity=2e-5, wind="0 0 0"),
    "water_wind": dict(density=1000, viscosity=1e-3, wind="0.5 -0.3 0.2"),
    "viscous_only": dict(density=0, viscosity=0.5, wind="1 0 0"),
    "density_only": dict(density=800, viscosity=0, wind="0 0 0"),
}


def load(name):
    m = mujoco.MjModel.from_xml_string(FLUID.format(**CASES[name]))
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT | mujoco.mjtDisableBit.mjDSBL_CONSTRAINT
    return m


def random_state(m, rng, vscale=2.0):
    qpos = random_qpos(m, rng, 0.5)
    return dict(qpos=qpos, qvel=vscale * rng.standard_normal(m.nv))


def compare(ours, ref, what):
    ours = np.asarray(ours, dtype=float)
    ref = np.asarray(ref, dtype=float)
    assert ours.shape == ref.shape, f"{what}: shape {ours.shape} != {ref.shape}"
    scale = max(1.0, float(np.max(np.abs(ref)))) if ref.size else 1.0
    err = np.abs(ours - ref)
    assert np.all(err <= RTOL * np.abs(ref) + ATOL * scale), f"{what}: max err {err.max():.3e}"
    return float(err.max() / scale) if ref.size else 0.0


FIELDS = ["qfrc_fluid", "qfrc_passive", "qacc"]


@pytest.mark.parametrize("name", list(CASES))
def test_fluid_matches_mujoco(name):
    m = load(name)
    rng = np.random.default_rng(3)
    states = [random_state(m, rng) for _ in range(NSTATE)]
    b = batch_data(m, states)
    api.forward(m, b)
    worst = {}
    for i, st in enumerate(states):
        md = mujoco_forward(m, st)
        assert np.any(md.qfrc_fluid != 0)
        for f in FIELDS:
            worst[f] = max(worst.get(f, 0.0), compare(getattr(b, f)[i], getattr(md, f), f"{name}[{i}] {f}"))
    print(name, " ".join(f"{k} {v:.1e}" for k, v in worst.items()))


def test_ellipsoid_replaces_inertia_box():
    """The ellipsoid model really is on: switching it off (fluidshape none) changes qfrc_fluid."""
    m = load("air")
    md = mujoco.MjData(m)
    st = random_state(m, np.random.default_rng(5))
    md.qpos[:] = st["qpos"]
    md.qvel[:] = st["qvel"]
    mujoco.mj_forward(m, md)
    m2 = load("air")
    m2.geom_fluid[:] = 0
    md2 = mujoco.MjData(m2)
    md2.qpos[:] = st["qpos"]
    md2.qvel[:] = st["qvel"]
    mujoco.mj_forward(m2, md2)
    assert np.max(np.abs(md.qfrc_fluid - md2.qfrc_fluid)) > 1e-3
    d2 = api.Data(m2)
    d2.qpos = st["qpos"]
    d2.qvel = st["qvel"]
    api.forward(m2, d2)
    compare(d2.qfrc_fluid, md2.qfrc_fluid, "fluidshape off: qfrc_fluid")


@pytest.mark.parametrize("integrator", ["Euler", "RK4"])
@pytest.mark.parametrize("name", ["air", "water_wind"])
def test_trajectory(name, integrator):
    m = load(name)
    m.opt.integrator = getattr(mujoco.mjtIntegrator, "mjINT_" + integrator.upper())
    if name == "water_wind":
        m.opt.timestep = 0.0005  # stiff added-mass/drag in water: keep both integrators stable
    st = random_state(m, np.random.default_rng(11), vscale=1.0)
    md = mujoco.MjData(m)
    d = api.Data(m)
    for k, v in st.items():
        getattr(md, k)[:] = v
        setattr(d, k, v)
    worst = 0.0
    for t in range(200):
        mujoco.mj_step(m, md)
        api.step(m, d, 1)
        for f in ("qpos", "qvel"):
            ref = getattr(md, f)
            err = np.abs(np.asarray(getattr(d, f)) - ref)
            scale = max(1.0, float(np.max(np.abs(ref))))
            worst = max(worst, float(err.max() / scale))
            assert np.all(np.isfinite(ref)), f"{name} {integrator}: mujoco diverged at step {t}"
            assert np.all(err <= TRAJ_TOL * scale), f"{name} {integrator} step {t} {f}: max err {err.max():.3e}"
    print(f"{name} {integrator}: trajectory max rel err {worst:.2e}")
