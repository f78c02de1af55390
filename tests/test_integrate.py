"""Trajectory agreement with mujoco.mj_step (contact-free), batch/serial equivalence, divergence reset."""
import mujoco
import numpy as np
import pytest

import sim.cache  # noqa: F401
from sim import smooth_api as api
from test_smooth import load, random_states

NSTEP = 1000
TOL = 1e-8

CASES = [('hopper', 'euler'), ('hopper', 'rk4'), ('hopper', 'implicitfast'),
         ('half_cheetah', 'implicitfast'), ('joints_tendons', 'euler'), ('joints_tendons', 'rk4'),
         ('actuators', 'euler'), ('actuators', 'rk4'), ('inverted_double_pendulum', 'implicitfast')]
INTEG = {'euler': mujoco.mjtIntegrator.mjINT_EULER, 'rk4': mujoco.mjtIntegrator.mjINT_RK4,
         'implicitfast': mujoco.mjtIntegrator.mjINT_IMPLICITFAST}


@pytest.mark.parametrize('name,integ', CASES)
def test_trajectory_matches_mujoco(name, integ):
    m = load(name)
    m.opt.integrator = INTEG[integ]
    st = random_states(m, 1, seed=11)[0]
    rng = np.random.default_rng(5)
    ctrls = rng.uniform(-1, 1, (NSTEP, m.nu))
    md = mujoco.MjData(m)
    d = api.Data(m)
    for k in ('qpos', 'qvel', 'act', 'mocap_pos', 'mocap_quat'):
        getattr(md, k)[:] = st[k]
        setattr(d, k, st[k])
    for t in range(NSTEP):
        md.ctrl[:] = ctrls[t]
        d.ctrl = ctrls[t]
        mujoco.mj_step(m, md)
        api.step(m, d)
    for f in ('qpos', 'qvel', 'act'):
        ref = getattr(md, f)
        err = np.max(np.abs(getattr(d, f) - ref)) if ref.size else 0.0
        assert err <= TOL * max(1.0, np.max(np.abs(ref)) if ref.size else 1.0), f'{name}/{integ} {f}: {err:.3e}'
    assert abs(d.time - md.time) < 1e-12


def test_batch_bitwise_equals_single():
    m = load('joints_tendons')
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
        for f in ('qpos', 'qvel', 'act', 'qacc', 'xpos', 'M'):
            assert np.array_equal(getattr(b, f)[i], getattr(d, f)), f


def test_nan_resets_only_that_world():
    m = load('hopper')
    sts = random_states(m, 3, seed=4)
    b = api.Data(m, nworld=3)
    for k in sts[0]:
        setattr(b, k, np.stack([s[k] for s in sts]))
    b.qvel[1, 2] = np.nan
    with pytest.warns(RuntimeWarning, match='diverged'):
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


def test_implicit_not_implemented_raises():
    m = load('hopper')
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICIT
    with pytest.raises(Exception, match='implicit'):
        api.step(m, api.Data(m))
