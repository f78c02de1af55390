"""Velocity derivative of the ellipsoid fluid model (mjd_ellipsoidFluid inside mjd_passive_vel) against
mujoco, under the implicit and implicitfast integrators: qDeriv left by one step, qacc/qvel of that step,
and 200-step trajectories, on tests/models/geom_fluid_shapes.xml (ellipsoid geoms of every semi-axes rule
on a standalone free body -- unsymmetrised in implicitfast -- and on a hinge/slide/ball chain --
symmetrised --, next to an inertia-box body), with wind and viscosity on and off. Contacts and
constraints are disabled (the fluid derivative does not depend on them)."""

import os

import mujoco
import numpy as np
import pytest

import sim.jit.cache  # noqa: F401  (must precede jitted modules)
from sim import api
from test_fluid import random_state

MODEL = os.path.join(os.path.dirname(__file__), "models", "geom_fluid_shapes.xml")
QDERIV_RTOL = 1e-9
STEP_RTOL = 1e-10
TRAJ_TOL = 1e-8
NSTATE = 5

CASES = {
    "water_wind": dict(density=1000.0, viscosity=1e-3, wind=(0.5, -0.3, 0.2)),
    "water_calm_inviscid": dict(density=1000.0, viscosity=0.0, wind=(0.0, 0.0, 0.0)),
    "air_viscous_wind": dict(density=1.2, viscosity=0.05, wind=(1.0, 0.0, -0.5)),
    "viscous_only": dict(density=0.0, viscosity=0.5, wind=(0.0, 0.0, 0.0)),
}
INTEG = {"implicit": mujoco.mjtIntegrator.mjINT_IMPLICIT, "implicitfast": mujoco.mjtIntegrator.mjINT_IMPLICITFAST}


def load(case, integ):
    m = mujoco.MjModel.from_xml_path(MODEL)
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT | mujoco.mjtDisableBit.mjDSBL_CONSTRAINT
    c = CASES[case]
    m.opt.density = c["density"]
    m.opt.viscosity = c["viscosity"]
    m.opt.wind[:] = c["wind"]
    m.opt.integrator = INTEG[integ]
    return m


def relerr(ours, ref):
    ref = np.asarray(ref)
    return float(np.max(np.abs(np.asarray(ours) - ref)) / max(1.0, float(np.max(np.abs(ref)))))


def states(m, n, seed):
    rng = np.random.default_rng(seed)
    out = [random_state(m, rng) for _ in range(n)]
    out.append(dict(qpos=out[0]["qpos"], qvel=np.zeros(m.nv)))  # at rest: zero local velocity (no wind)
    return out


@pytest.mark.parametrize("integ", list(INTEG))
@pytest.mark.parametrize("case", list(CASES))
def test_qderiv_and_step(case, integ):
    """qDeriv of one step (pre-step state, as mj_implicit computes it), then qacc, qvel, qpos of that step."""
    m = load(case, integ)
    worst = dict(qDeriv=0.0, qacc=0.0, qvel=0.0, qpos=0.0)
    for st in states(m, NSTATE, seed=7):
        md = mujoco.MjData(m)
        d = api.Data(m)
        for k, v in st.items():
            getattr(md, k)[:] = v
            setattr(d, k, v)
        mujoco.mj_step(m, md)
        api.step(m, d)
        assert np.any(md.qDeriv != 0) or not np.any(st["qvel"])
        e = relerr(d._arrays["qDeriv"][0], md.qDeriv)
        worst["qDeriv"] = max(worst["qDeriv"], e)
        assert e <= QDERIV_RTOL, f"{case}/{integ}: qDeriv rel err {e:.3e}"
        for f in ("qacc", "qvel", "qpos"):
            e = relerr(getattr(d, f), getattr(md, f))
            worst[f] = max(worst[f], e)
            assert e <= STEP_RTOL, f"{case}/{integ}: {f} after one step rel err {e:.3e}"
    print(case, integ, " ".join(f"{k} {v:.1e}" for k, v in worst.items()))


def test_implicitfast_symmetrises_all_but_free_bodies():
    """The rule really is exercised: in implicitfast the chain's qDeriv block is symmetric, the standalone
    free body's block is not (and the implicit qDeriv of the chain is not)."""
    fast = load("water_wind", "implicitfast")
    full = load("water_wind", "implicit")
    st = states(fast, 1, seed=3)[0]
    dense = {}
    for name, m in (("fast", fast), ("full", full)):
        d = api.Data(m)
        d.qpos = st["qpos"]
        d.qvel = st["qvel"]
        api.step(m, d)
        qd = d._arrays["qDeriv"][0]
        out = np.zeros((m.nv, m.nv))
        for r in range(m.nv):
            for k in range(m.D_rowadr[r], m.D_rowadr[r] + m.D_rownnz[r]):
                out[r, m.D_colind[k]] = qd[k]
        dense[name] = out
    free = slice(0, 6)
    chain = slice(6, 12)
    # symmetric up to the rounding of J' B J (products taken in a different order for (k, p) and (p, k))
    assert (
        np.abs(dense["fast"][chain, chain] - dense["fast"][chain, chain].T).max() <= 1e-12 * np.abs(dense["fast"]).max()
    )
    assert np.abs(dense["fast"][free, free] - dense["fast"][free, free].T).max() > 1e-3
    assert np.abs(dense["full"][chain, chain] - dense["full"][chain, chain].T).max() > 1e-3


@pytest.mark.parametrize("integ", list(INTEG))
@pytest.mark.parametrize("case", list(CASES))
def test_trajectory(case, integ):
    m = load(case, integ)
    st = states(m, 1, seed=11)[0]
    md = mujoco.MjData(m)
    d = api.Data(m)
    for k, v in st.items():
        getattr(md, k)[:] = v
        setattr(d, k, v)
    worst = 0.0
    for t in range(200):
        mujoco.mj_step(m, md)
        api.step(m, d, 1)
        assert np.all(np.isfinite(md.qvel)), f"{case}/{integ}: mujoco diverged at step {t}"
        for f in ("qpos", "qvel"):
            e = relerr(getattr(d, f), getattr(md, f))
            worst = max(worst, e)
            assert e <= TRAJ_TOL, f"{case}/{integ} step {t} {f}: rel err {e:.3e}"
    print(f"{case}/{integ}: trajectory max rel err {worst:.2e}")
