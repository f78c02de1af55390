"""Full pipeline with contacts and constraints (collision -> constraint assembly -> solver -> integrator) against
MuJoCo: forward at contact-rich states, trajectories, and batched determinism.

States come from MuJoCo itself: each model is stepped from its initial state with a fixed random control
sequence and snapshots are taken along the way, so contacts, limits and friction are active as in use.
Tolerances: contacts and efc rows <= 1e-9 (same algorithms, float64); qacc / efc_force <= 1e-6 relative (the
solvers iterate to MuJoCo's tolerance and we follow the same iterations; 1e-6 is the issue's bound).
Trajectories agree to 1e-6 for the first 100 steps; afterwards contact dynamics are chaotic, so only
statistics are compared (see test_trajectory).
"""

import os

import mujoco
import numpy as np
import pytest

from oracle import dense_efc_J
import sim.jit.cache  # noqa: F401
from sim import api

try:
    import gymnasium

    ASSETS = os.path.join(os.path.dirname(gymnasium.__file__), "envs/mujoco/assets")
except ImportError:  # pragma: no cover
    ASSETS = None

PILE = """
<mujoco model="pile">
  <option timestep="0.004"/>
  <worldbody>
    <geom name="floor" type="plane" size="3 3 .1"/>
    <body pos="0 0 .2"><freejoint/><geom type="box" size=".1 .08 .06"/></body>
    <body pos=".05 .02 .45" euler="10 20 30"><freejoint/><geom type="box" size=".07 .09 .05"/></body>
    <body pos="-.1 .05 .7"><freejoint/><geom type="sphere" size=".08"/></body>
    <body pos=".1 -.1 .9" euler="40 0 10"><freejoint/><geom type="capsule" size=".04 .1"/></body>
    <body pos="0 .1 1.1" euler="5 50 0"><freejoint/><geom type="box" size=".05 .05 .12"/></body>
    <body pos="-.05 -.05 1.35"><freejoint/><geom type="sphere" size=".06"/></body>
  </worldbody>
</mujoco>
"""
GYM = ["hopper", "walker2d", "half_cheetah", "ant", "humanoid"]
MODELS = GYM + ["pile"]


def load(name):
    if name == "pile":
        return mujoco.MjModel.from_xml_string(PILE)
    if ASSETS is None:
        pytest.skip("gymnasium not installed")
    return mujoco.MjModel.from_xml_path(os.path.join(ASSETS, name + ".xml"))


def controls(m, n, seed):
    rng = np.random.default_rng(seed)
    lo, hi = (m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]) if m.nu else (np.zeros(0), np.zeros(0))
    return rng.uniform(lo, hi, size=(n, m.nu)) if m.nu else np.zeros((n, 0))


def snapshots(m, nsnap, every, seed):
    """(qpos, qvel, act, ctrl, qacc_warmstart) taken every `every` MuJoCo steps under random controls."""
    md = mujoco.MjData(m)
    ctrl = controls(m, nsnap * every, seed)
    out = []
    for k in range(nsnap * every):
        md.ctrl[:] = ctrl[k]
        mujoco.mj_step(m, md)
        if (k + 1) % every == 0:
            out.append((md.qpos.copy(), md.qvel.copy(), md.act.copy(), md.ctrl.copy(), md.qacc_warmstart.copy()))
    return out


def set_state(m, md, d, snap):
    qpos, qvel, act, ctrl, ws = snap
    for tgt in (md, d):
        tgt.qpos = qpos
        tgt.qvel = qvel
        tgt.act = act
        tgt.ctrl = ctrl
        tgt.qacc_warmstart = ws


def close(ours, ref, rtol, what):
    ours, ref = np.asarray(ours, dtype=float), np.asarray(ref, dtype=float)
    assert ours.shape == ref.shape, (what, ours.shape, ref.shape)
    scale = max(1.0, float(np.max(np.abs(ref)))) if ref.size else 1.0
    err = float(np.max(np.abs(ours - ref))) if ref.size else 0.0
    assert err <= rtol * scale, f"{what}: max |diff| {err:.3e} > {rtol:g} * {scale:.3g}"


@pytest.mark.parametrize("name", MODELS)
def test_forward_with_contacts(name):
    m = load(name)
    md = mujoco.MjData(m)
    d = api.Data(m)
    nmatched = 0
    for snap in snapshots(m, 8, 25, seed=1):
        set_state(m, md, d, snap)
        mujoco.mj_forward(m, md)
        api.forward(m, d)
        assert d.ncon == md.ncon
        np.testing.assert_array_equal(d.contact.geom, md.contact.geom[: md.ncon])
        close(d.contact.dist, md.contact.dist[: md.ncon], 1e-9, "contact.dist")
        close(d.contact.pos, md.contact.pos[: md.ncon], 1e-9, "contact.pos")
        close(d.contact.frame, md.contact.frame[: md.ncon], 1e-9, "contact.frame")
        assert (d.ne, d.nf, d.nl, d.nefc) == (md.ne, md.nf, md.nl, md.nefc)
        np.testing.assert_array_equal(d.efc_type, md.efc_type)
        np.testing.assert_array_equal(d.efc_id, md.efc_id)
        close(d.efc_J, dense_efc_J(m, md), 1e-9, "efc_J")
        for f in ("efc_pos", "efc_margin", "efc_D", "efc_R", "efc_aref", "efc_vel"):
            close(getattr(d, f), getattr(md, f), 1e-9, f)
        close(d.efc_force, md.efc_force, 1e-6, "efc_force")
        close(d.qacc, md.qacc, 1e-6, "qacc")
        close(d.qfrc_constraint, md.qfrc_constraint, 1e-6, "qfrc_constraint")
        nmatched += md.ncon
    assert nmatched > 0 or name in ("half_cheetah",), "snapshots produced no contacts: test is vacuous"


def energy(m, md):
    mujoco.mj_energyPos(m, md)
    mujoco.mj_energyVel(m, md)
    return md.energy[0] + md.energy[1]


@pytest.mark.parametrize("name", ["hopper", "walker2d", "ant", "humanoid", "pile"])
def test_trajectory(name):
    """500 steps under a fixed random control sequence: 1e-6 for 100 steps, then statistics.

    After ~100 steps with contacts, round-off differences are amplified by contact events (chaos), so the
    second phase compares the mean contact count (within 25 %) and requires finite states.  The bound comes
    from MuJoCo's own sensitivity, measured with this control sequence: offsetting qpos by +-1e-12 or 1e-10
    moves MuJoCo's mean contact count over steps 100-500 by 4.8 % (hopper), 10.8 % (walker2d), 2.3 % (ant),
    0 % (humanoid, pile); 25 % leaves about twice the worst measured spread.
    """
    m = load(name)
    md = mujoco.MjData(m)
    d = api.Data(m)
    ctrl = controls(m, 500, seed=7)
    ncon_ref, ncon_ours = [], []
    for k in range(500):
        md.ctrl[:] = ctrl[k]
        d.ctrl = ctrl[k]
        mujoco.mj_step(m, md)
        api.step(m, d)
        if k < 100:
            close(d.qpos, md.qpos, 1e-6, f"qpos at step {k}")
            close(d.qvel, md.qvel, 1e-6, f"qvel at step {k}")
        else:
            ncon_ref.append(md.ncon)
            ncon_ours.append(d.ncon)
    assert np.all(np.isfinite(d.qpos)) and np.all(np.isfinite(d.qvel))
    a, b = np.mean(ncon_ours), np.mean(ncon_ref)
    assert abs(a - b) <= 0.25 * max(b, 1.0), (a, b)


def test_batch_bitwise_with_contacts():
    m = load("pile")
    snaps = snapshots(m, 3, 40, seed=3)
    b = api.Data(m, nworld=3)
    singles = []
    for w, (qpos, qvel, act, ctrl, ws) in enumerate(snaps):
        b.qpos[w], b.qvel[w], b.qacc_warmstart[w] = qpos, qvel, ws
        d = api.Data(m)
        d.qpos, d.qvel, d.qacc_warmstart = qpos, qvel, ws
        api.step(m, d, nstep=50)
        singles.append(d)
    api.step(m, b, nstep=50)
    for w, d in enumerate(singles):
        np.testing.assert_array_equal(b.qpos[w], d.qpos)
        np.testing.assert_array_equal(b.qvel[w], d.qvel)
        assert b.ncon[w] == d.ncon
