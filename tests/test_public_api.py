"""Every public name of `sim` works after a step, whatever was imported before, and gives MuJoCo's numbers.

A submodule import once replaced a lazily exported function (`sim.inverse` became the module sim/inverse.py after
the first step): here every submodule of sim is imported first, a step is taken, then every name the README's API
lists is called on a hopper in contact and compared with the oracle's function of the same name.
"""

import importlib
import pkgutil
import types

import mujoco
import numpy as np
import pytest

import envs
import sim

pytestmark = pytest.mark.oracle

TOL = 1e-9  # relative to max(1, |value|), as tests/test_envs_parity.py
TOL_FD = 1e-6  # finite differences divide round-off by eps = 1e-6


def _close(ours, theirs, tol=TOL, what=""):
    ours, theirs = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    assert ours.shape == theirs.shape, (what, ours.shape, theirs.shape)
    err = np.max(np.abs(ours - theirs) / np.maximum(1.0, np.abs(theirs)), initial=0.0)
    assert err <= tol, f"{what}: error {err:.2e} > {tol:.0e}"


@pytest.fixture(scope="module")
def pair():
    """A hopper after 200 random-control steps (in contact), ours and MuJoCo's in the same state."""
    for mod in pkgutil.walk_packages(sim.__path__, "sim."):
        importlib.import_module(mod.name)
    path = envs.asset_path("hopper.xml")
    m, mm = sim.load_model(path), mujoco.MjModel.from_xml_path(path)
    d, md = sim.Data(m), mujoco.MjData(mm)
    rng = np.random.default_rng(0)
    for _ in range(200):
        u = rng.uniform(-1, 1, mm.nu)
        d.ctrl[:] = u
        md.ctrl[:] = u
        sim.step(m, d)
        mujoco.mj_step(mm, md)
    assert md.ncon > 0
    # from here both start from the same state bit for bit
    for f in ("qpos", "qvel", "act", "qacc_warmstart"):
        getattr(d, f)[:] = getattr(md, f)
    d.time = md.time
    return m, d, mm, md


def test_public_names_are_not_modules(pair):
    """After every submodule import and a step, no exported name of sim is a module."""
    for name in sim.__all__:
        assert not isinstance(getattr(sim, name), types.ModuleType), name


def test_forward_step_reset(pair):
    m, d, mm, md = pair
    sim.forward(m, d)
    mujoco.mj_forward(mm, md)
    for f in ("qacc", "qfrc_constraint", "xpos", "sensordata"):
        _close(getattr(d, f), getattr(md, f), what=f)
    assert d.ncon == md.ncon
    sim.step(m, d, nstep=3)
    for _ in range(3):
        mujoco.mj_step(mm, md)
    for f in ("qpos", "qvel"):
        _close(getattr(d, f), getattr(md, f), what=f)
    d2, md2 = sim.Data(m), mujoco.MjData(mm)
    d2.qpos[:] = d.qpos
    sim.reset(m, d2)
    np.testing.assert_array_equal(d2.qpos, md2.qpos)


def test_inverse_rne_post_constraint_full_inertia(pair):
    m, d, mm, md = pair
    sim.forward(m, d)
    mujoco.mj_forward(mm, md)
    sim.inverse(m, d)
    mujoco.mj_inverse(mm, md)
    _close(d.qfrc_inverse, md.qfrc_inverse, what="qfrc_inverse")
    sim.rne_post_constraint(m, d)
    mujoco.mj_rnePostConstraint(mm, md)
    _close(d.cfrc_ext, md.cfrc_ext, what="cfrc_ext")
    _close(d.cacc, md.cacc, what="cacc")
    full = np.zeros((mm.nv, mm.nv))
    mujoco.mj_fullM(mm, md, full)
    _close(sim.full_inertia(m, d), full, what="full_inertia")


def test_ray(pair):
    m, d, mm, md = pair
    sim.forward(m, d)
    mujoco.mj_forward(mm, md)
    rng = np.random.default_rng(1)
    nhit = 0
    for _ in range(50):
        pnt = md.xpos[1] + rng.uniform(-1, 1, 3) + np.array([0, 0, 1.0])
        vec = md.xpos[rng.integers(1, mm.nbody)] - pnt
        gid = np.zeros(1, np.int32)
        dist = mujoco.mj_ray(mm, md, pnt, vec, None, 1, -1, gid)
        ours = sim.ray(m, d, pnt, vec)
        assert ours[1] == gid[0]
        _close(ours[0], dist, what="ray distance")
        nhit += gid[0] >= 0
    assert nhit > 25


def test_state(pair):
    m, d, mm, md = pair
    spec = sim.STATE_FULLPHYSICS
    assert sim.state_size(m, spec) == mujoco.mj_stateSize(mm, mujoco.mjtState.mjSTATE_FULLPHYSICS)
    theirs = np.zeros(mujoco.mj_stateSize(mm, mujoco.mjtState.mjSTATE_FULLPHYSICS))
    mujoco.mj_getState(mm, md, theirs, mujoco.mjtState.mjSTATE_FULLPHYSICS)
    np.testing.assert_array_equal(sim.get_state(m, d, spec), theirs)
    d2 = sim.Data(m)
    sim.set_state(m, d2, theirs, spec)
    np.testing.assert_array_equal(d2.qvel, md.qvel)


def test_transition_fd(pair):
    m, d, mm, md = pair
    with pytest.raises(ValueError, match="RK4"):  # hopper.xml integrates with RK4: MuJoCo refuses it too
        sim.transition_fd(m, d)
    with pytest.raises(mujoco.FatalError, match="RK4"):
        mujoco.mjd_transitionFD(mm, md, 1e-6, 0, None, None, None, None)
    m.opt.integrator = mm.opt.integrator = mujoco.mjtIntegrator.mjINT_EULER
    try:
        A, B, C, D = sim.transition_fd(m, d, eps=1e-6, centered=False)
        nx = 2 * mm.nv + mm.na
        At, Bt = np.zeros((nx, nx)), np.zeros((nx, mm.nu))
        Ct, Dt = np.zeros((mm.nsensordata, nx)), np.zeros((mm.nsensordata, mm.nu))
        mujoco.mjd_transitionFD(mm, md, 1e-6, 0, At, Bt, Ct, Dt)
    finally:
        m.opt.integrator = mm.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    for ours, theirs, what in ((A, At, "A"), (B, Bt, "B"), (C, Ct, "C"), (D, Dt, "D")):
        _close(ours, theirs, tol=TOL_FD, what=what)


def test_renderer(pair):
    m, d, mm, md = pair
    sim.forward(m, d)
    with sim.Renderer(m, height=48, width=64) as r:
        r.update_scene(d, camera="track")
        img = r.render()
    assert img.shape == (48, 64, 3) and img.dtype == np.uint8
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 10
