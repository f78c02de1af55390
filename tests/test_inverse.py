"""Inverse dynamics (mj_inverse) against MuJoCo 3.17: qfrc_inverse with the analytic inverse of the soft
constraints, the invdiscrete flag (Euler / implicit / implicitfast), the fwdinv flag's solver_fwdinv, sensors
evaluated by mj_inverse, batched worlds.

Tolerance: qfrc_inverse <= 1e-8 relative to max(1, |value|) (the issue's bound); efc_force / qfrc_constraint
likewise.  States come from MuJoCo trajectories under random controls (contacts, limits, friction active),
with qacc from mj_forward or random.
"""

import os

import mujoco
import numpy as np
import pytest

from conftest import gymnasium_assets_dir
from dynamics_util import load_pair
import sim
from sim import api
from sim.api import inverse

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
TOL = 1e-8

ASSETS = gymnasium_assets_dir()


def load(name):
    return load_pair(name, ASSETS)


def rel_err(a, b):
    return float(np.max(np.abs(np.asarray(a) - b) / np.maximum(1.0, np.abs(b)))) if np.size(b) else 0.0


def snapshots(mm, n, every, seed):
    """MuJoCo states (qpos, qvel, act, ctrl, qacc) along a trajectory under random controls."""
    md = mujoco.MjData(mm)
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n * every):
        md.ctrl[:] = rng.uniform(-1, 1, mm.nu)
        mujoco.mj_step(mm, md)
        if (k + 1) % every == 0:
            out.append((md.qpos.copy(), md.qvel.copy(), md.act.copy(), md.ctrl.copy()))
    return out


def compare_inverse(m, mm, states, rng, random_qacc):
    md, d = mujoco.MjData(mm), sim.Data(m)
    worst = 0.0
    for qpos, qvel, act, ctrl in states:
        for t in (md, d):
            t.qpos, t.qvel, t.act, t.ctrl = qpos, qvel, act, ctrl
        mujoco.mj_forward(mm, md)
        qacc = md.qacc + (rng.standard_normal(mm.nv) if random_qacc else 0)
        md.qacc[:] = qacc
        d.qacc = qacc
        mujoco.mj_inverse(mm, md)
        inverse(m, d)
        worst = max(worst, rel_err(d.qfrc_inverse, md.qfrc_inverse))
        assert rel_err(d.qfrc_inverse, md.qfrc_inverse) <= TOL, (d.qfrc_inverse, md.qfrc_inverse)
        assert rel_err(d.qfrc_constraint, md.qfrc_constraint) <= TOL
        assert d.nefc == md.nefc
        assert rel_err(d.efc_force, md.efc_force[: md.nefc]) <= TOL
        np.testing.assert_array_equal(d.qacc, md.qacc)
        if mm.nsensordata:
            assert rel_err(d.sensordata, md.sensordata) <= 1e-6
    return worst


@pytest.mark.oracle
@pytest.mark.parametrize("name", ["hopper", "ant", "humanoid", "sensors_contact.xml", "equality_all.xml"])
@pytest.mark.parametrize("random_qacc", [False, True])
def test_inverse(name, random_qacc):
    m, mm = load(name)
    compare_inverse(m, mm, snapshots(mm, 8, 25, 0), np.random.default_rng(1), random_qacc)


@pytest.mark.oracle
@pytest.mark.parametrize("integrator", ["Euler", "implicit", "implicitfast"])
def test_inverse_discrete(integrator):
    """invdiscrete: qacc made continuous-time for the integrator before the inverse (mj_discreteAcc); the
    forward step's qacc is recovered as qfrc_inverse = applied + actuator forces."""
    m, mm = load("sensors_contact.xml")
    for model in (m, mm):
        model.opt.integrator = getattr(mujoco.mjtIntegrator, "mjINT_" + integrator.upper())
        model.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_INVDISCRETE
    compare_inverse(m, mm, snapshots(mm, 8, 25, 2), np.random.default_rng(3), True)


@pytest.mark.oracle
def test_inverse_discrete_damping():
    """invdiscrete with Euler and dof damping (the implicit damping term of mj_Euler)."""
    m, mm = load("hopper")
    for model in (m, mm):
        model.opt.integrator = mujoco.mjtIntegrator.mjINT_EULER
        model.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_INVDISCRETE
    compare_inverse(m, mm, snapshots(mm, 6, 20, 4), np.random.default_rng(5), True)


@pytest.mark.oracle
@pytest.mark.parametrize("name", ["hopper", "sensors_contact.xml"])
def test_fwdinv(name):
    """enable flag fwdinv: solver_fwdinv after each mj_step (forward vs inverse constraint force and applied
    force discrepancy), the step itself unchanged."""
    m, mm = load(name)
    for model in (m, mm):
        model.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_FWDINV
        model.opt.integrator = mujoco.mjtIntegrator.mjINT_EULER
    md, d = mujoco.MjData(mm), sim.Data(m)
    rng = np.random.default_rng(6)
    nonzero = 0
    for k in range(60):
        md.ctrl[:] = rng.uniform(-1, 1, mm.nu)
        for f in ("qpos", "qvel", "act", "ctrl", "qacc_warmstart"):
            setattr(d, f, getattr(md, f))
        d.time = md.time
        mujoco.mj_step(mm, md)
        api.step(m, d)
        np.testing.assert_allclose(d.solver_fwdinv, md.solver_fwdinv, rtol=1e-6, atol=1e-7)
        assert rel_err(d.qpos, md.qpos) < 1e-9
        nonzero += md.solver_fwdinv[0] > 0
    assert nonzero > 10


@pytest.mark.oracle
def test_inverse_of_forward():
    """mj_inverse at the forward solution returns the applied + actuator forces (consistency of the analytic
    constraint inverse), here with qfrc_applied and xfrc_applied set."""
    m, mm = load("sensors_contact.xml")
    d = sim.Data(m)
    rng = np.random.default_rng(7)
    for qpos, qvel, act, ctrl in snapshots(mm, 5, 30, 8):
        d.qpos, d.qvel, d.act, d.ctrl = qpos, qvel, act, ctrl
        d.qfrc_applied = rng.standard_normal(mm.nv)
        d.xfrc_applied = rng.standard_normal((mm.nbody, 6))
        api.forward(m, d)
        qacc = d.qacc.copy()
        inverse(m, d)
        np.testing.assert_array_equal(d.qacc, qacc)
        ref = d.qfrc_applied + d.qfrc_actuator
        md = mujoco.MjData(mm)
        md.qpos, md.qvel, md.xfrc_applied = qpos, qvel, d.xfrc_applied
        mujoco.mj_forward(mm, md)
        qx = np.zeros(mm.nv)
        for b in range(1, mm.nbody):
            mujoco.mj_applyFT(mm, md, md.xfrc_applied[b, :3], md.xfrc_applied[b, 3:], md.xipos[b], b, qx)
        assert rel_err(d.qfrc_inverse, ref + qx) < 1e-6


@pytest.mark.oracle
def test_inverse_batch():
    """Batched worlds each get their own qfrc_inverse."""
    m, mm = load("hopper")
    states = snapshots(mm, 4, 20, 9)
    d = sim.Data(m, nworld=4)
    refs = []
    for w, (qpos, qvel, act, ctrl) in enumerate(states):
        md = mujoco.MjData(mm)
        md.qpos, md.qvel, md.act, md.ctrl = qpos, qvel, act, ctrl
        mujoco.mj_forward(mm, md)
        md.qacc[:] += 1.0
        d.qpos[w], d.qvel[w], d.act[w], d.ctrl[w], d.qacc[w] = qpos, qvel, act, ctrl, md.qacc
        mujoco.mj_inverse(mm, md)
        refs.append(md.qfrc_inverse.copy())
    inverse(m, d)
    for w in range(4):
        assert rel_err(d.qfrc_inverse[w], refs[w]) <= TOL


def test_rk4_invdiscrete_refused():
    m = sim.load_model(
        '<mujoco><option integrator="RK4"><flag invdiscrete="enable"/></option>'
        '<worldbody><body><joint/><geom size=".1"/></body></worldbody></mujoco>'
    )
    with pytest.raises(ValueError, match="RK4"):
        inverse(m, sim.Data(m))
