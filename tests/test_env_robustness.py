"""The env layer under misuse (issue 16): bad actions of every kind raise ValueError and change nothing (a twin env
that never saw them stays bit-identical), a diverged simulation truncates with info["diverged"], close() is
idempotent and leaves the env usable as Gymnasium's MujocoEnv does, and seeding (none, huge, invalid) behaves
exactly as Gymnasium's own v5 envs (the oracle: same initial observations, same errors)."""

import warnings

import gymnasium as gym
import numpy as np
import pytest

import envs  # noqa: F401  (registers numjoco/...)


def make(env_id="numjoco/Hopper-v0"):
    return gym.make(env_id).unwrapped


def twin_pair(env_id, seed=0, nstep=3):
    a, b = make(env_id), make(env_id)
    for e in (a, b):
        e.reset(seed=seed)
        e.action_space.seed(seed)
        for _ in range(nstep):
            e.step(e.action_space.sample())
    return a, b


BAD_ACTIONS = {
    "nan": lambda nu: np.where(np.arange(nu) == nu // 2, np.nan, 0.1).astype(np.float32),
    "inf64": lambda nu: np.where(np.arange(nu) == 0, np.inf, 0.1),
    "-inf": lambda nu: np.full(nu, -np.inf, np.float32),
    "too_long": lambda nu: np.zeros(nu + 1, np.float32),
    "too_short": lambda nu: np.zeros(nu - 1, np.float32),
    "batched": lambda nu: np.zeros((1, nu), np.float32),
    "scalar": lambda nu: np.float32(0.0),
    "strings": lambda nu: np.array(["a"] * nu),
    "objects": lambda nu: np.array([None] * nu, dtype=object),
    "complex": lambda nu: np.zeros(nu, np.complex128),
    "list_with_nan": lambda nu: [0.0] * (nu - 1) + [float("nan")],
}


@pytest.mark.parametrize("env_id", ["numjoco/Hopper-v0", "numjoco/Humanoid-v0", "numjoco/Pusher-v0"])
def test_bad_actions_raise_and_change_nothing(env_id):
    env, twin = twin_pair(env_id)
    nu = env.action_space.shape[0]
    for name, make_action in BAD_ACTIONS.items():
        with pytest.raises(ValueError, match="shape|NaN or inf|real numbers"):
            env.step(make_action(nu))
    # the env that saw every bad action continues exactly as the twin that saw none
    rng = np.random.default_rng(1)
    for _ in range(5):
        a = rng.uniform(-0.4, 0.4, nu).astype(np.float32)
        out, ref = env.step(a), twin.step(a)
        assert repr(out) == repr(ref)
    assert np.array_equal(env.state_vector(), twin.state_vector()) and env.data.time == twin.data.time


def test_integer_and_bool_actions_are_numbers():
    """Integer / bool arrays are numbers (as for MuJoCo's ctrl): they step like the float action of the same
    values."""
    env, twin = twin_pair("numjoco/Hopper-v0")
    for a in (np.array([1, 0, -1]), np.array([True, False, True])):
        assert repr(env.step(a)) == repr(twin.step(a.astype(np.float64)))


@pytest.mark.parametrize("bad", ["qpos_nan", "qvel_huge"])
def test_divergence_truncates_and_restarts_from_the_reset_state(bad):
    """A bad state is reset by the engine (mj_resetData: qpos0, zero velocity, zero ctrl for the rest of the
    frame) during the step: the step is truncated with info['diverged'] and a RuntimeWarning, the observation
    and reward are finite, and the next steps continue from the engine's reset as a fresh env at qpos0 would."""
    env = make()
    env.reset(seed=0)
    qpos, qvel = env.init_qpos.copy(), np.zeros(env.model.nv)
    if bad == "qpos_nan":
        qpos[3] = np.nan
    else:
        qvel[2] = 1e12
    env.set_state(qpos, qvel)
    a = np.array([0.1, -0.2, 0.3], np.float32)
    with pytest.warns(RuntimeWarning, match="diverged"):
        obs, r, term, trunc, info = env.step(a)
    assert trunc and info["diverged"] is True and not term
    assert np.all(np.isfinite(obs)) and np.isfinite(r)
    ref = make()
    ref.reset(seed=0)
    ref.set_state(ref.init_qpos, np.zeros(ref.model.nv))
    ref.data.time = 0.0
    assert repr(ref.step(np.zeros(3, np.float32))[0]) == repr(obs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nxt = env.step(a)
    assert "diverged" not in nxt[4] and repr(nxt) == repr(ref.step(a))


def test_close_twice_and_use_after_close():
    env, twin = twin_pair("numjoco/Hopper-v0")
    env.close()
    env.close()
    a = np.array([0.2, 0.1, -0.3], np.float32)
    assert repr(env.step(a)) == repr(twin.step(a))
    assert repr(env.reset(seed=4)) == repr(twin.reset(seed=4))
    wrapped = gym.make("numjoco/Hopper-v0")
    wrapped.reset(seed=0)
    wrapped.close()
    wrapped.close()
    wrapped.step(a)


def _gym_hopper():
    return gym.make("Hopper-v5").unwrapped


SEEDS = [0, 1, 2**31, 2**32, 2**63, 2**64 + 1, 2**200, True]


def test_seeds_as_gymnasium():
    """Initial observations equal Gymnasium's Hopper-v5 for ordinary and huge seeds, and a reset without a
    seed continues the seeded stream the same way."""
    ours, theirs = make(), _gym_hopper()
    for seed in SEEDS:
        o1, _ = ours.reset(seed=seed)
        o2, _ = theirs.reset(seed=seed)
        np.testing.assert_allclose(o1, o2, rtol=0, atol=1e-12, err_msg=str(seed))
        for _ in range(2):
            np.testing.assert_allclose(ours.reset()[0], theirs.reset()[0], rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", [-1, 1.5, "3", np.int64(7), np.uint64(2**63), None])
def test_invalid_seeds_as_gymnasium(seed):
    ours, theirs = make(), _gym_hopper()
    try:
        theirs.reset(seed=seed)
    except gym.error.Error as e:
        with pytest.raises(type(e), match=str(e).split(":")[0]):
            ours.reset(seed=seed)
    else:
        assert seed is None
        ours.reset(seed=seed)


def test_reset_without_seed_is_random_then_reproducible():
    a, b = make(), make()
    oa, ob = a.reset()[0], b.reset()[0]
    assert not np.array_equal(oa, ob)  # seeded from OS entropy, as Gymnasium
    a.reset(seed=9)
    b.reset(seed=9)
    for _ in range(3):
        assert np.array_equal(a.reset()[0], b.reset()[0])
