"""State and keyframes: sim.get_state / set_state / state_size / extract_state / copy_state against
mj_getState / mj_setState / mj_stateSize / mj_extractState (mjtState component flags), bitwise round trips for
one world and per world in a batch; reset to a keyframe (mj_resetDataKeyframe) by index and name; mocap bodies
driven from d.mocap_pos / d.mocap_quat; xfrc_applied / qfrc_applied honoured, per world in a batch."""

import os

import mujoco
import numpy as np
import pytest

from oracle import random_qpos
import sim
from sim import api
from sim import state as st

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")

FLAGS = {name: getattr(st, name) for name in st.__all__ if name.startswith("STATE_")}


def load(name):
    path = os.path.join(MODELS, name)
    return sim.load_model(path), mujoco.MjModel.from_xml_path(path)


def test_constants_match_mujoco():
    for name, value in FLAGS.items():
        assert value == int(getattr(mujoco.mjtState, "mj" + name)), name
    assert st.NSTATE == int(mujoco.mjtState.mjNSTATE)


def fill_random(mm, targets, rng):
    """Same random values of every state component in each target (MjData or single-world sim.Data)."""
    vals = dict(
        time=rng.uniform(0, 5),
        qpos=random_qpos(mm, rng, 0.4),
        qvel=rng.standard_normal(mm.nv),
        act=rng.standard_normal(mm.na),
        ctrl=rng.standard_normal(mm.nu),
        qacc_warmstart=rng.standard_normal(mm.nv),
        qfrc_applied=rng.standard_normal(mm.nv),
        xfrc_applied=rng.standard_normal((mm.nbody, 6)),
        mocap_pos=rng.standard_normal((mm.nmocap, 3)),
        mocap_quat=rng.standard_normal((mm.nmocap, 4)),
        userdata=rng.standard_normal(mm.nuserdata),
        eq_active=rng.integers(0, 2, mm.neq),
    )
    for t in targets:
        for k, v in vals.items():
            setattr(t, k, v)


@pytest.mark.oracle
@pytest.mark.parametrize("name", ["mocap.xml", "keyframes.xml", "equality_all.xml", "sensors_contact.xml"])
def test_against_mujoco(name):
    m, mm = load(name)
    md, d = mujoco.MjData(mm), sim.Data(m)
    rng = np.random.default_rng(0)
    fill_random(mm, (md, d), rng)
    for spec in [1 << i for i in range(st.NSTATE)] + [
        st.STATE_PHYSICS,
        st.STATE_FULLPHYSICS,
        st.STATE_USER,
        st.STATE_INTEGRATION,
        0,
        0b10110101101,
    ]:
        size = st.state_size(m, spec)
        assert size == mujoco.mj_stateSize(mm, spec), spec
        ref = np.zeros(size)
        mujoco.mj_getState(mm, md, ref, spec)
        ours = st.get_state(m, d, spec)
        np.testing.assert_array_equal(ours, ref)
        # set from MuJoCo's state into a fresh Data: bitwise equal components
        d2 = sim.Data(m)
        st.set_state(m, d2, ref, spec)
        np.testing.assert_array_equal(st.get_state(m, d2, spec), ref)
        # extract: every sub-spec
        sub = spec & 0b01010101010101
        out = np.zeros(mujoco.mj_stateSize(mm, sub))
        mujoco.mj_extractState(mm, ref, spec, out, sub)
        np.testing.assert_array_equal(st.extract_state(m, ours, spec, sub), out)


@pytest.mark.oracle
def test_round_trip_batch():
    """(nworld, size) states: get -> set on another batch -> get is bitwise identical, per world."""
    m, mm = load("sensors_contact.xml")
    rng = np.random.default_rng(1)
    d = sim.Data(m, nworld=4)
    for f in ("qpos", "qvel", "ctrl", "qacc_warmstart", "qfrc_applied", "xfrc_applied"):
        a = d._arrays[f]
        a[:] = rng.standard_normal(a.shape)
    d.time = rng.uniform(0, 1, 4)
    api.step(m, d, 3)
    s = st.get_state(m, d, st.STATE_INTEGRATION)
    assert s.shape == (4, st.state_size(m, st.STATE_INTEGRATION))
    assert len({row.tobytes() for row in s}) == 4
    d2 = sim.Data(m, nworld=4)
    st.set_state(m, d2, s, st.STATE_INTEGRATION)
    np.testing.assert_array_equal(st.get_state(m, d2, st.STATE_INTEGRATION), s)
    # stepping both gives bitwise identical results (the state is complete)
    api.step(m, d, 5)
    api.step(m, d2, 5)
    np.testing.assert_array_equal(d.qpos, d2.qpos)
    np.testing.assert_array_equal(d.sensordata, d2.sensordata)
    # copy_state, one state broadcast to every world
    d3 = sim.Data(m, nworld=4)
    st.set_state(m, d3, st.extract_state(m, s[2], st.STATE_INTEGRATION, st.STATE_PHYSICS), st.STATE_PHYSICS)
    assert all(np.array_equal(d3.qpos[w], s[2, 1 : 1 + mm.nq]) for w in range(4))
    st.copy_state(m, d, d3, st.STATE_FULLPHYSICS)
    np.testing.assert_array_equal(st.get_state(m, d3, st.STATE_FULLPHYSICS), st.get_state(m, d, st.STATE_FULLPHYSICS))


def test_bad_spec():
    m, _ = load("mocap.xml")
    d = sim.Data(m)
    with pytest.raises(ValueError):
        st.get_state(m, d, -1)
    with pytest.raises(ValueError):
        st.state_size(m, 1 << st.NSTATE)
    with pytest.raises(ValueError):
        st.set_state(m, d, np.zeros(3), st.STATE_QPOS)
    with pytest.raises(ValueError):
        st.extract_state(m, np.zeros(st.state_size(m, st.STATE_QPOS)), st.STATE_QPOS, st.STATE_QVEL)


@pytest.mark.oracle
@pytest.mark.parametrize("name", ["keyframes.xml", "mocap.xml"])
def test_reset_keyframe(name):
    """reset(m, d, key) by index and by name = mj_resetDataKeyframe, then the same forward."""
    m, mm = load(name)
    for k in range(mm.nkey):
        md = mujoco.MjData(mm)
        d = sim.Data(m)
        fill_random(mm, (md, d), np.random.default_rng(k))
        mujoco.mj_resetDataKeyframe(mm, md, k)
        keyname = mujoco.mj_id2name(mm, mujoco.mjtObj.mjOBJ_KEY, k)
        st.reset(m, d, key=keyname if keyname else k)
        for f in (
            "time",
            "qpos",
            "qvel",
            "act",
            "ctrl",
            "mocap_pos",
            "mocap_quat",
            "qfrc_applied",
            "xfrc_applied",
            "qacc_warmstart",
            "userdata",
            "sensordata",
        ):
            np.testing.assert_array_equal(getattr(d, f), getattr(md, f), err_msg=f)
        mujoco.mj_forward(mm, md)
        api.forward(m, d)
        np.testing.assert_allclose(d.xpos, md.xpos, atol=1e-12)
        np.testing.assert_allclose(d.qacc, md.qacc, rtol=1e-6, atol=1e-8)


@pytest.mark.oracle
def test_reset_batch_keys():
    """A batch reset with one key per world; the old keyframe= spelling; bad keys raise."""
    m, mm = load("keyframes.xml")
    d = sim.Data(m, nworld=3)
    st.reset(m, d, key=["full", 2, "only_time"])
    for w, k in enumerate((0, 2, 1)):
        md = mujoco.MjData(mm)
        mujoco.mj_resetDataKeyframe(mm, md, k)
        np.testing.assert_array_equal(d.qpos[w], md.qpos)
        np.testing.assert_array_equal(d.qvel[w], md.qvel)
        assert d.time[w] == md.time
    d1 = sim.Data(m)
    st.reset(m, d1, keyframe=0)
    assert d1.time == 1.5
    with pytest.raises(KeyError):
        st.reset(m, d1, key="nope")
    with pytest.raises(IndexError):
        st.reset(m, d1, key=7)


@pytest.mark.oracle
def test_mocap_driven_per_world():
    """Mocap bodies follow d.mocap_pos / d.mocap_quat, each world its own, and the weld pulls the hand."""
    m, mm = load("mocap.xml")
    rng = np.random.default_rng(2)
    N = 3
    d = sim.Data(m, nworld=N)
    refs = []
    for w in range(N):
        md = mujoco.MjData(mm)
        md.mocap_pos[:] = rng.standard_normal((mm.nmocap, 3))
        q = rng.standard_normal((mm.nmocap, 4))
        md.mocap_quat[:] = q / np.linalg.norm(q, axis=1, keepdims=True)
        d.mocap_pos[w] = md.mocap_pos
        d.mocap_quat[w] = md.mocap_quat
        for k in range(20):
            mujoco.mj_step(mm, md)
        refs.append(md)
    api.step(m, d, 20)
    for w in range(N):
        np.testing.assert_allclose(d.xpos[w], refs[w].xpos, atol=1e-9)
        np.testing.assert_allclose(d.xquat[w], refs[w].xquat, atol=1e-9)
        np.testing.assert_allclose(d.qpos[w], refs[w].qpos, atol=1e-9)
    assert not np.allclose(d.xpos[0], d.xpos[1])


@pytest.mark.oracle
def test_applied_forces_per_world():
    """qfrc_applied and xfrc_applied enter qacc (and cfrc_ext), each world its own."""
    m, mm = load("sensors_contact.xml")
    rng = np.random.default_rng(3)
    N = 3
    d = sim.Data(m, nworld=N)
    for w in range(N):
        md = mujoco.MjData(mm)
        md.qpos[:] = random_qpos(mm, rng, 0.1)
        md.qfrc_applied[:] = rng.standard_normal(mm.nv)
        md.xfrc_applied[:] = rng.standard_normal((mm.nbody, 6))
        d.qpos[w], d.qfrc_applied[w], d.xfrc_applied[w] = md.qpos, md.qfrc_applied, md.xfrc_applied
        mujoco.mj_forward(mm, md)
        d_one = sim.Data(m)
        d_one.qpos, d_one.qfrc_applied, d_one.xfrc_applied = md.qpos, md.qfrc_applied, md.xfrc_applied
        api.forward(m, d_one)
        np.testing.assert_allclose(d_one.qacc, md.qacc, rtol=1e-6, atol=1e-8)
        mujoco.mj_rnePostConstraint(mm, md)
        api.rne_post_constraint(m, d_one)
        np.testing.assert_allclose(d_one.cfrc_ext, md.cfrc_ext, rtol=1e-6, atol=1e-8)
        d_one.qfrc_applied = 0
        d_one.xfrc_applied = 0
        api.forward(m, d_one)
        assert np.max(np.abs(d_one.qacc - md.qacc)) > 1e-3
        api.forward(m, d)
        np.testing.assert_allclose(d.qacc[w], md.qacc, rtol=1e-6, atol=1e-8)
