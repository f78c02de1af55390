"""sim.step's fast path: after a first step through sim.api.run, a Data keeps the compiled
entry, model struct and feature set of its model, and the next steps make one check and one call.  The results
are those of the full path bit for bit (single world and batch), and a change the full path reacts to (options,
another model) takes the full path again."""

import os
import warnings

import numpy as np

import sim
from sim import api

HOPPER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "envs", "assets", "hopper.xml")


def _pair(m):
    d1, d2 = sim.Data(m), sim.Data(m)
    v = np.random.default_rng(3).uniform(-0.5, 0.5, d1.qvel.shape)
    d1.qvel, d2.qvel = v, v
    return d1, d2


def _same(d1, d2):
    for f in ("qpos", "qvel", "qacc", "act", "time"):
        np.testing.assert_array_equal(getattr(d1, f), getattr(d2, f), err_msg=f)


def test_fast_steps_equal_full_path():
    m = sim.load_model(HOPPER)
    d1, d2 = _pair(m)
    rng = np.random.default_rng(0)
    for i in range(40):
        u = rng.uniform(-1, 1, int(m.nu))
        d1.ctrl, d2.ctrl = u, u
        sim.step(m, d1)  # the fast path from the second step on
        api.run(m, d2, 1)  # always the full path
        if i == 0:
            assert d1.__dict__["_fast"][0] is m and "_fast" not in d2.__dict__
    _same(d1, d2)
    sim.step(m, d1, 7)
    api.run(m, d2, 7)
    _same(d1, d2)


def test_option_change_and_other_model_take_the_full_path():
    m = sim.load_model(HOPPER)
    d1, d2 = _pair(m)
    for _ in range(3):
        sim.step(m, d1)
        api.run(m, d2, 1)
    version, ts0 = m.opt._version, float(m.opt.timestep)
    m.opt.timestep = 0.001  # bumps the options' version: re-checked, new feature set if any
    m.opt.gravity = (0.0, 0.0, -5.0)
    assert m.opt._version != version
    for _ in range(5):
        sim.step(m, d1)
        api.run(m, d2, 1)
    _same(d1, d2)
    assert d1.__dict__["_fast"][1] == m.opt._version
    np.testing.assert_allclose(d1.time, 3 * ts0 + 5 * 0.001, rtol=1e-12)
    m2 = sim.load_model(HOPPER)  # the same Data stepped with another model object
    sim.step(m2, d1)
    api.run(m2, d2, 1)
    _same(d1, d2)
    assert d1.__dict__["_fast"][0] is m2


def test_batch_fast_steps_equal_full_path():
    m = sim.load_model(HOPPER)
    b1, b2 = sim.Data(m, nworld=3), sim.Data(m, nworld=3)
    v = np.random.default_rng(4).uniform(-0.5, 0.5, b1.qvel.shape)
    b1.qvel, b2.qvel = v, v
    for i in range(20):
        sim.step(m, b1)
        api.run(m, b2, 1)
        if i == 0:
            assert b1.__dict__["_fast"][6] == 3
    sim.step(m, b1, 5)
    api.run(m, b2, 5)
    _same(b1, b2)
    one = sim.Data(m, nworld=1)  # a batch of one world takes the serial entry
    sim.step(m, one)
    assert one.__dict__["_fast"][6] is None


def test_fast_path_warns_at_the_caller():
    m = sim.load_model(HOPPER)
    d = sim.Data(m)
    sim.step(m, d, 2)
    assert "_fast" in d.__dict__
    d.qvel = np.full(d.qvel.shape, np.nan)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        sim.step(m, d)
    (w,) = [r for r in rec if issubclass(r.category, RuntimeWarning)]
    assert "diverged" in str(w.message) and w.filename == __file__
    assert np.all(np.isfinite(d.qvel))  # reset (mj_resetData)
