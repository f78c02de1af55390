"""Domain randomisation per world and per episode (envs/randomize.py).

Oracles: mujoco.mj_setConst for the derived constants of a randomised world (same values set on an MjModel);
a single env whose model holds a world's randomised values for that world's trajectory (bit for bit); the
vector env without randomisation for zero randomisation (bit for bit).
"""

import os

import numpy as np
import pytest
import gymnasium as gym
from gymnasium.vector import AutoresetMode

import envs  # noqa: F401
import sim
from sim import api
from envs.randomize import WorldModels, DomainRandomization, DERIVED
from envs.kernels import reset_worlds, SET_CONST, OWN_BIAS
from test_vector import assert_same

ID = "numjoco/Hopper-v0"
GYM_ASSETS = os.path.join(os.path.dirname(gym.__file__), "envs", "mujoco", "assets")
INERTIAL = {
    "body_mass": {"scale": (0.5, 2.0), "scale_inertia": True},
    "body_inertia": {"scale": (0.8, 1.25)},
    "dof_armature": {"add": (0.0, 0.3)},
    "actuator_gainprm": {"scale": (0.5, 2.0)},
    "actuator_biasprm": {"scale": (0.5, 2.0)},
}
# (MuJoCo's set0 normalises the actuator moment; our acc0 agrees to ~1e-15: rtol 1e-10 is the oracle module's
# tolerance for mj_setConst outputs, tests/oracle.py)
RTOL = 1e-10


@pytest.mark.oracle
@pytest.mark.parametrize(
    "name",
    [
        "hopper.xml",
        "ant.xml",
        "humanoid.xml",
        "reacher.xml",
        "pusher.xml",
        "inverted_double_pendulum.xml",
        "walker2d_v5.xml",
    ],
)
def test_set_const_matches_mujoco(name):
    import mujoco

    path = os.path.join(GYM_ASSETS, name)
    m = sim.load_model(path)
    mj = mujoco.MjModel.from_xml_path(path)
    md = mujoco.MjData(mj)
    n = 3
    wm = WorldModels(m, n, INERTIAL)
    for w in range(n):
        wm.seed(w, 100 + w)
    needy = wm.resample(np.arange(n))
    assert needy.tolist() == [0, 1, 2]
    d = sim.Data(m, nworld=n)
    reset_worlds(
        api.model_struct(m),
        d._struct,
        api.empty_task(),
        needy,
        wm.mptrs,
        SET_CONST | OWN_BIAS,
        np.asarray(m.body_simple, np.int32),
        api.model_features(m),
    )
    for w in range(n):
        for f in ("body_mass", "body_inertia", "dof_armature", "actuator_gainprm", "actuator_biasprm"):
            getattr(mj, f)[:] = wm.values[f][w].reshape(getattr(mj, f).shape)
        mujoco.mj_setConst(mj, md)
        got = wm.derived(w)
        for k in DERIVED:
            ref = np.asarray(getattr(mj, k)).reshape(got[k].shape)
            np.testing.assert_allclose(got[k], ref, rtol=RTOL, atol=1e-14, err_msg=f"{name} world {w} {k}")
        assert not np.allclose(got["body_subtreemass"], m.body_subtreemass)  # the values did change
        np.testing.assert_array_equal(wm.rows["actuator_biasprm"][w], mj.actuator_biasprm)


@pytest.mark.parametrize("name", ["hopper.xml", "humanoid.xml", "pusher.xml"])
def test_compiler_and_randomisation_share_set_const(name):
    """One mj_setConst kernel (sim/engine/setconst.py) serves the compiler and domain randomisation: a world whose
    constants are recomputed from the model's own masses gets the compiled model's constants bit for bit."""
    m = sim.load_model(os.path.join(GYM_ASSETS, name))
    wm = WorldModels(m, 2, {"body_mass": {"scale": (1.0, 1.0), "scale_inertia": True}})
    wm.seed(0, 0)
    wm.seed(1, 1)
    assert wm.resample(np.arange(2)).size == 0  # the model's own values: no recomputation needed
    for k in DERIVED:
        wm.rows[k][1][...] = np.nan  # world 1's constants are recomputed below
    d = sim.Data(m, nworld=2)
    worlds = np.array([1], np.int64)
    body_simple = np.asarray(m.body_simple, np.int32)
    reset_worlds(
        api.model_struct(m),
        d._struct,
        api.empty_task(),
        worlds,
        wm.mptrs,
        SET_CONST,
        body_simple,
        api.model_features(m),
    )
    got = wm.derived(1)
    for k in DERIVED:
        np.testing.assert_array_equal(got[k], np.asarray(getattr(m, k)).reshape(got[k].shape), err_msg=k)


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_zero_randomisation_is_bitwise_no_randomisation(mode):
    zero = {
        "body_mass": {"scale": (1, 1), "scale_inertia": True},
        "geom_friction": {"scale": (1, 1)},
        "dof_damping": {"add": (0, 0)},
        "dof_armature": {"scale": (1, 1)},
        "opt.gravity": {"add": (0, 0)},
        "actuator_gainprm": {"scale": (1, 1), "columns": [0]},
        "dof_frictionloss": {"add": (0, 0)},
        "actuator_biasprm": {"add": (0, 0)},
        "body_inertia": {"scale": (1, 1)},
    }
    n, steps = 5, 30
    a = gym.make_vec(ID, num_envs=n, max_episode_steps=steps, autoreset_mode=mode)
    b = gym.make_vec(ID, num_envs=n, max_episode_steps=steps, autoreset_mode=mode, randomization=zero)
    assert b.engine.mptrs.size == n
    assert_same(a.reset(seed=1)[0], b.reset(seed=1)[0])
    rng = np.random.default_rng(0)
    ended = 0
    for t in range(100):
        act = rng.uniform(-1, 1, (n, 3)).astype(np.float32)
        r1, r2 = a.step(act), b.step(act)
        assert_same(r1[:4], r2[:4], f"step {t}")
        done = r1[2] | r1[3]
        ended += int(done.sum())
        if mode == AutoresetMode.DISABLED and done.any():
            assert_same(
                a.reset(options={"reset_mask": done.copy()})[0], b.reset(options={"reset_mask": done.copy()})[0]
            )
    assert ended >= n


CFG = {
    "body_mass": {"scale": (0.6, 1.6), "scale_inertia": True},
    "dof_armature": {"add": (0.0, 0.05)},
    "dof_damping": {"add": (0.0, 1.0), "rows": ["thigh_joint", "leg_joint", "foot_joint"]},
    "dof_frictionloss": {"set": (0.0, 0.3)},
    "geom_friction": {"scale": (0.5, 1.5), "columns": [0]},
    "actuator_gainprm": {"scale": (0.8, 1.2), "columns": [0]},
    "opt.gravity": {"add": ([-1, -1, -2], [1, 1, 2]), "per": "field"},
}


def _set_world_model(env, vec, w):
    """Give the single env's model the randomised values and constants of world w of vec."""
    m, r = env.unwrapped.model, vec.engine.randomizer
    for f, v in r.values.items():
        if f.startswith("opt."):
            setattr(m.opt, f[4:], v[w])
        else:
            getattr(m, f)[...] = v[w].reshape(getattr(m, f).shape)
    for k, v in r.derived(w).items():
        getattr(m, k)[...] = v.reshape(getattr(m, k).shape)
    m.__dict__.pop("_sim", None)  # rebuild the struct (effective damping / armature)


def _single_with_world_model(vec, w, **kw):
    """A single Hopper env whose model holds world w's randomised values and constants."""
    env = gym.make(ID, **kw)
    _set_world_model(env, vec, w)
    return env


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_randomised_world_equals_single_env_with_its_model(mode):
    """Each world of a randomised vector env, across its resets (new values each episode), is bit for bit a
    single env whose model is given that world's values (and mj_setConst constants) at each reset."""
    n, steps, kw = 4, 20, {"healthy_angle_range": (-0.1, 0.1)}  # (early terminations: staggered resets)
    vec = gym.make_vec(ID, num_envs=n, max_episode_steps=steps, randomization=CFG, autoreset_mode=mode, **kw)
    obs, _ = vec.reset(seed=4)
    singles = [_single_with_world_model(vec, w, max_episode_steps=steps, **kw) for w in range(n)]
    for w, env in enumerate(singles):
        assert_same(env.reset(seed=4 + w)[0], obs[w])
    nominal = gym.make_vec(ID, num_envs=n, max_episode_steps=steps, autoreset_mode=mode, **kw)
    nominal.reset(seed=4)  # (for the first steps: randomisation matters)
    rng = np.random.default_rng(3)
    pending = np.zeros(n, bool)
    resets = partial = 0
    differs = np.zeros(n, bool)
    for t in range(60):
        a = rng.uniform(-1, 1, (n, 3)).astype(np.float32)
        obs, rew, term, trunc, info = vec.step(a)
        if t < 3:
            differs |= np.abs(obs - nominal.step(a)[0]).max(axis=1) > 1e-6
        for w, env in enumerate(singles):
            if pending[w]:  # NEXT_STEP: this step reset world w
                _set_world_model(env, vec, w)
                assert_same(env.reset()[0], obs[w], f"step {t} world {w} reset")
                continue
            o, r, te, tr, _ = env.step(a[w])
            assert r == rew[w] and te == term[w] and tr == trunc[w], (t, w)
            if mode == AutoresetMode.SAME_STEP and (te or tr):
                assert_same(o, info["final_obs"][w], f"step {t} world {w} final")
                _set_world_model(env, vec, w)
                assert_same(env.reset()[0], obs[w], f"step {t} world {w} reset")
            else:
                assert_same(o, obs[w], f"step {t} world {w}")
        done = term | trunc
        resets += int(done.sum())
        pending = done.copy() if mode == AutoresetMode.NEXT_STEP else pending & False
        if mode == AutoresetMode.DISABLED and done.any():
            partial += int(not done.all())
            o_r, _ = vec.reset(options={"reset_mask": done.copy()})
            for w in np.flatnonzero(done):
                _set_world_model(singles[w], vec, w)
                assert_same(singles[w].reset()[0], o_r[w], f"step {t} world {w} partial reset")
    assert resets >= n and differs.all()
    if mode == AutoresetMode.DISABLED:
        assert partial >= 1


def test_statistics_and_resampling():
    n = 256
    cfg = {
        "body_mass": {"scale": (0.5, 1.5)},
        "geom_friction": {"scale": (0.2, 5.0), "dist": "loguniform", "columns": [0]},
        "opt.gravity": {"add": (-1.0, 1.0), "columns": [2]},
        "dof_damping": {"set": (0.0, 2.0), "rows": ["foot_joint"], "per": "field"},
        "actuator_gainprm": {"scale": (0.5, 1.5), "columns": [0], "per": "field"},
    }
    vec = gym.make_vec(ID, num_envs=n, max_episode_steps=5, randomization=cfg)
    _, info = vec.reset(seed=0)
    r = vec.engine.randomizer
    m = vec.model
    ri = info["randomization"]
    assert info["_randomization"].all() and ri["_body_mass"].all()
    for f in cfg:
        assert_same(ri[f], r.values[f])
    k = ri["body_mass"][:, 1:] / np.asarray(m.body_mass)[1:]  # body 0 (world) has mass 0
    assert k.min() >= 0.5 and k.max() <= 1.5
    # mean of U(0.5, 1.5) is 1, std 0.289: 4 bodies x 256 worlds -> standard error 0.009
    assert abs(k.mean() - 1.0) < 0.04 and abs(k.std() - 0.2887) < 0.03
    fr = ri["geom_friction"][:, :, 0] / np.asarray(m.geom_friction)[:, 0]
    assert fr.min() >= 0.2 and fr.max() <= 5.0
    assert abs(np.log(fr).mean()) < 0.15  # loguniform(0.2, 5): log symmetric about 0
    assert np.array_equal(ri["geom_friction"][:, :, 1:], np.broadcast_to(m.geom_friction[:, 1:], (n, m.ngeom, 2)))
    g = ri["opt.gravity"]
    assert np.array_equal(g[:, :2], np.zeros((n, 2))) and g[:, 2].min() >= -10.81 and g[:, 2].max() <= -8.81
    foot = int(np.ravel(m.joint("foot_joint").dofadr)[0])
    damp = ri["dof_damping"]
    assert np.array_equal(np.delete(damp, foot, axis=1), np.broadcast_to(np.delete(m.dof_damping, foot), (n, 5)))
    gains = ri["actuator_gainprm"][:, :, 0] / np.asarray(m.actuator_gainprm)[:, 0]
    assert np.allclose(gains, gains[:, :1])  # per field: one factor for all actuators
    # new values only for the worlds that reset, at their reset (NEXT_STEP: the step after the episode's end)
    before = {f: v.copy() for f, v in r.values.items()}
    zeros = np.zeros((n, 3), np.float32)
    for _ in range(4):
        _, _, term, trunc, info = vec.step(zeros)
        assert "randomization" not in info
    _, _, term, trunc, info = vec.step(zeros)
    assert trunc.all() or (term | trunc).all()
    assert_same(r.values, before)
    _, _, _, _, info = vec.step(zeros)  # the reset step
    assert info["_randomization"].all()
    changed = np.any(r.values["body_mass"] != before["body_mass"], axis=1)
    assert changed.all()
    assert_same(info["randomization"]["body_mass"], r.values["body_mass"])


def test_reproducible_and_seed_streams():
    a = gym.make_vec(ID, num_envs=4, randomization=CFG)
    b = gym.make_vec(ID, num_envs=4, randomization=CFG)
    oa, ia = a.reset(seed=9)
    ob, ib = b.reset(seed=9)
    assert_same(ia["randomization"], ib["randomization"])
    # the initial states are those of the unrandomised env: a stream apart from the randomisation draws
    assert_same(oa, gym.make_vec(ID, num_envs=4).reset(seed=9)[0])
    ic = a.reset(seed=10)[1]
    assert not np.array_equal(ic["randomization"]["body_mass"], ia["randomization"]["body_mass"])


def test_user_function_and_same_step():
    def fn(rng, nominal):
        return {
            "body_mass": nominal["body_mass"] * rng.uniform(0.9, 1.1),
            "opt.gravity": np.array([0.0, 0.0, -rng.uniform(5, 15)]),
        }

    dr = DomainRandomization(fn=fn, fields=["body_mass", "opt.gravity"])
    vec = gym.make_vec(ID, num_envs=6, max_episode_steps=10, randomization=dr, autoreset_mode=AutoresetMode.SAME_STEP)
    _, info = vec.reset(seed=0)
    ri = info["randomization"]
    ratio = ri["body_mass"][:, 1:] / vec.model.body_mass[1:]
    assert np.allclose(ratio, ratio[:, :1]) and ratio.min() >= 0.9 and ratio.max() <= 1.1
    assert np.all((-15 <= ri["opt.gravity"][:, 2]) & (ri["opt.gravity"][:, 2] <= -5))
    z = np.zeros((6, 3), np.float32)
    for t in range(10):
        obs, _, term, trunc, info = vec.step(z)
    done = term | trunc
    assert done.any() and info["_randomization"].tolist() == done.tolist()
    assert info["_final_obs"].tolist() == done.tolist()
    # the reset observation comes from the new model: equal to a world reset directly with it
    w = int(np.flatnonzero(done)[0])
    single = _single_with_world_model(vec, w)
    single.reset(seed=w)
    single.reset()  # the world's second episode
    # (the single env's reset draws the same initial state: same generator, second draw)
    assert_same(single.unwrapped._obs[0], obs[w])


def test_errors():
    with pytest.raises(ValueError, match="cannot randomise"):
        gym.make_vec(ID, num_envs=2, randomization={"body_pos": {"scale": (1, 2)}})
    with pytest.raises(ValueError, match="exactly one of"):
        gym.make_vec(ID, num_envs=2, randomization={"body_mass": {"scale": (1, 2), "add": (0, 1)}})
    with pytest.raises(ValueError, match="no joint named"):
        gym.make_vec(ID, num_envs=2, randomization={"dof_damping": {"add": (0, 1), "rows": ["elbow"]}})
    with pytest.raises(ValueError, match="broadcast"):
        gym.make_vec(ID, num_envs=2, randomization={"body_mass": {"scale": ([1, 2], [2, 3])}})
    with pytest.raises(ValueError, match="fields="):
        DomainRandomization(fn=lambda rng, nom: {})
    bad = DomainRandomization(fn=lambda rng, nom: {"body_mass": np.ones(2)}, fields=["body_mass"])
    with pytest.raises(ValueError, match="shape"):
        gym.make_vec(ID, num_envs=2, randomization=bad).reset(seed=0)
