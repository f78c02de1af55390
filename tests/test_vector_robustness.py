"""The native vector env and the SB3 VecEnv under misuse and copying (issue 16): bad actions of every kind raise
ValueError and step no world (a twin vector env that never saw them stays bit-identical); one world diverging
truncates that world alone and leaves the others bit-identical to a twin; close() is idempotent; seeds behave as
Gymnasium's SyncVectorEnv over single envs (the oracle); a vector env pickled, deep-copied or sent to another
process, or stepped in a thread next to another, continues exactly as the original does."""

import copy
import hashlib
import inspect
import pickle
import warnings

import cloudpickle
import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import envs
from test_determinism import _in_subprocess, _run_threads
from test_env_robustness import BAD_ACTIONS
from test_randomize import INERTIAL
from test_vector import assert_same

ID = "numjoco/Hopper-v0"
N, NU = 3, 3


def twin_vecs(env_id=ID, n=N, nstep=4, seed=0, **kw):
    """Two vector envs advanced identically by nstep random actions."""
    out = []
    for _ in range(2):
        vec = gym.make_vec(env_id, num_envs=n, **kw)
        vec.reset(seed=seed)
        vec.action_space.seed(seed)
        for _ in range(nstep):
            vec.step(vec.action_space.sample())
        out.append(vec)
    return out


def assert_continue_alike(a, b, nstep=25, seed=1):
    """a and b stepped with the same random actions give bit-identical outputs (and a world state)."""
    space = a.action_space
    rng = np.random.default_rng(seed)
    for t in range(nstep):
        act = rng.uniform(space.low, space.high).astype(space.dtype)
        assert_same(a.step(act), b.step(act), f"step {t}")
    assert np.array_equal(a.unwrapped.data.qpos, b.unwrapped.data.qpos)


def _batched(name):
    """BAD_ACTIONS[name] made a (num_envs, nu) batch (or the wrong-shaped batches of the shape cases)."""
    one = BAD_ACTIONS[name](NU)
    if name == "list_with_nan":
        return [[0.0] * NU] * (N - 1) + [one]  # nested lists, NaN in the last world only
    if name == "scalar":
        return one
    if name == "batched":
        return np.zeros((1, N, NU), np.float32)  # one axis too many
    return np.stack([one] * N)


EXTRA_BAD = {
    "one_action_for_all": np.zeros(NU, np.float32),  # a single env's action
    "too_few_worlds": np.zeros((N - 1, NU), np.float32),
    "nan_in_one_world": np.where(np.arange(N)[:, None] == 1, np.nan, np.zeros((N, NU))),
    "empty": np.zeros((0,), np.float32),
}


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_bad_actions_raise_and_step_no_world(mode):
    vec, twin = twin_vecs(autoreset_mode=mode)
    bad = {name: _batched(name) for name in BAD_ACTIONS} | EXTRA_BAD
    for name, act in bad.items():
        with pytest.raises(ValueError, match="shape|NaN or inf|real numbers"):
            vec.step(act)
    assert_continue_alike(vec, twin)


def test_integer_actions_step_as_floats():
    vec, twin = twin_vecs()
    a = np.array([[1, 0, -1]] * N)
    assert_same(vec.step(a), twin.step(a.astype(np.float64)))


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("bad", ["qpos_nan", "qvel_huge"])
def test_one_world_diverging_leaves_the_others_bitwise(bad, mode):
    vec, twin = twin_vecs(autoreset_mode=mode, terminate_when_unhealthy=False)
    d = vec.unwrapped.data
    if bad == "qpos_nan":
        d.qpos[1, 3] = np.nan
    else:
        d.qvel[1, 2] = 1e12
    a = np.full((N, NU), 0.1, np.float32)
    with pytest.warns(RuntimeWarning, match="diverged"):
        obs, rew, term, trunc, info = vec.step(a)
    ref = twin.step(a)
    if mode == AutoresetMode.SAME_STEP:  # world 1 ended and was reset: its step info is the final info
        info = info["final_info"]
    assert info["diverged"].tolist() == [False, True, False] and info["_diverged"].tolist() == [False, True, False]
    assert trunc.tolist() == [False, True, False] and not term.any()
    assert np.all(np.isfinite(obs)) and np.all(np.isfinite(rew))
    for w in (0, 2):  # the other worlds: the numbers the twin gives
        assert np.array_equal(obs[w], ref[0][w]) and rew[w] == ref[1][w]
        assert np.array_equal(d.qpos[w], twin.unwrapped.data.qpos[w])
    # world 1 restarts (NEXT_STEP: on the next step; SAME_STEP: already); afterwards nothing warns and worlds 0, 2
    # keep following the twin
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for t in range(20):
            act = np.full((N, NU), 0.05 * (t % 3 - 1), np.float32)
            out, ref = vec.step(act), twin.step(act)
            for w in (0, 2):
                assert np.array_equal(out[0][w], ref[0][w]) and out[1][w] == ref[1][w], (t, w)
            assert np.all(np.isfinite(out[0]))


def test_close_twice_and_use_after_close():
    """As the single env (and Gymnasium's MujocoEnv): close() releases the renderer, twice is harmless, and the
    simulation stays usable."""
    vec, twin = twin_vecs(render_mode="rgb_array")
    vec.render()
    vec.close()
    vec.close()
    assert vec.closed
    assert_continue_alike(vec, twin, nstep=5)
    assert_same(vec.reset(seed=9), twin.reset(seed=9))


HUGE_SEEDS = [0, 2**31, 2**32 - 2, 2**63, 2**64 + 1, 2**200]


def _sync(n=N):
    return SyncVectorEnv([lambda: gym.make(ID) for _ in range(n)])


def test_huge_seeds_as_sync_vector_env():
    """reset(seed=s) seeds world i with s + i, as SyncVectorEnv: equal observations for ordinary and huge
    seeds, then the same unseeded resets."""
    vec, ref = gym.make_vec(ID, num_envs=N), _sync()
    for seed in HUGE_SEEDS:
        assert_same(vec.reset(seed=seed)[0], ref.reset(seed=seed)[0], str(seed))
        assert_same(vec.reset()[0], ref.reset()[0], f"{seed}, unseeded")
    seeds = [2**64 + 5, 0, 2**100]
    assert_same(vec.reset(seed=seeds)[0], ref.reset(seed=seeds)[0])


@pytest.mark.parametrize("seed", [-1, 1.5, "3", [-1, 0, 1]])
def test_invalid_seeds_as_sync_vector_env(seed):
    vec, ref = gym.make_vec(ID, num_envs=N), _sync()
    with pytest.raises(Exception) as theirs:
        ref.reset(seed=seed)
    with pytest.raises(type(theirs.value)):
        vec.reset(seed=seed)
    # and nothing was reset half-way: both still reset and step alike
    assert_same(vec.reset(seed=1)[0], ref.reset(seed=1)[0])


# ----------------------------------------------------------------------------------------- pickle / copy


def _clones(vec):
    return {
        "pickle": pickle.loads(pickle.dumps(vec)),
        "cloudpickle": cloudpickle.loads(cloudpickle.dumps(vec)),
        "deepcopy": copy.deepcopy(vec),
    }


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_pickled_and_copied_vector_env_continue_identically(mode):
    vec, _ = twin_vecs(autoreset_mode=mode, max_episode_steps=9, nstep=6)
    clones = _clones(vec)
    before = vec.unwrapped.data.qpos.copy()
    rng = np.random.default_rng(2)
    acts = rng.uniform(-1, 1, (30, N, NU)).astype(np.float32)
    ref = []
    for t, a in enumerate(acts):
        ref.append(vec.step(a))
        if mode == AutoresetMode.DISABLED and (ref[-1][2] | ref[-1][3]).any():
            done = ref[-1][2] | ref[-1][3]
            ref.append(vec.reset(options={"reset_mask": done}))
    for name, c in clones.items():
        assert np.array_equal(c.unwrapped.data.qpos, before), name  # not shared with the original
        out = []
        for a in acts:
            out.append(c.step(a))
            if mode == AutoresetMode.DISABLED and (out[-1][2] | out[-1][3]).any():
                out.append(c.reset(options={"reset_mask": out[-1][2] | out[-1][3]}))
        assert_same(out, ref, name)
    assert any((r[2] | r[3]).any() for r in ref if len(r) == 5)  # episodes did end in the window


def test_pickled_vector_env_with_randomisation_continues_identically():
    """Each world's randomised model values and its randomisation generator travel with the env."""
    vec, _ = twin_vecs(max_episode_steps=5, randomization=INERTIAL, nstep=3)
    clone = pickle.loads(pickle.dumps(vec))
    assert_same(clone.unwrapped.engine.randomizer.values, vec.unwrapped.engine.randomizer.values)
    assert_continue_alike(clone, vec, nstep=12)  # crosses two resets: new draws


def test_pickled_goal_vector_env_continues_identically():
    """A task with a Python layer (dict observations, goal resampling on reset)."""
    vec, _ = twin_vecs("numjoco/ArmReachGoal-v0", max_episode_steps=6, nstep=2)
    clone = copy.deepcopy(vec)
    assert_continue_alike(clone, vec, nstep=14)


def test_pickled_sb3_vec_env_continues_identically():
    venv = envs.make_sb3_vec_env(ID, N, seed=0, max_episode_steps=8)
    venv.reset()
    rng = np.random.default_rng(0)
    acts = rng.uniform(-1, 1, (25, N, NU)).astype(np.float32)
    for a in acts[:5]:
        venv.step(a)
    clone = cloudpickle.loads(cloudpickle.dumps(venv))
    for t, a in enumerate(acts[5:]):
        assert_same(clone.step(a), venv.step(a), f"step {t}")


def _digest(vec, nstep=40, seed=0):
    rng = np.random.default_rng(seed)
    h = hashlib.sha256()
    for _ in range(nstep):
        obs, rew, term, trunc, _ = vec.step(rng.uniform(-1, 1, (vec.num_envs, NU)).astype(np.float32))
        h.update(obs.tobytes() + rew.tobytes() + term.tobytes() + trunc.tobytes())
    return h.hexdigest()


def test_vector_env_pickled_into_another_process_continues_identically(tmp_path):
    """What Ray workers and SubprocVecEnv do with a vector env: cloudpickle it, step it in a fresh process."""
    vec, _ = twin_vecs(max_episode_steps=10)
    blob = tmp_path / "vec.pkl"
    blob.write_bytes(cloudpickle.dumps(vec))
    code = (
        "import pickle, hashlib, numpy as np, envs\n"
        f'vec = pickle.loads(open({str(blob)!r}, "rb").read())\n'
        f"NU = {NU}\n" + inspect.getsource(_digest) + "print(_digest(vec))"
    )
    assert _in_subprocess(code) == _digest(vec)


def test_two_vector_envs_in_two_threads_equal_serial():
    def run(seed):
        vec = gym.make_vec(ID, num_envs=4, max_episode_steps=15, num_threads=1)
        vec.reset(seed=seed)
        return _digest(vec, nstep=80, seed=seed)

    serial = [run(0), run(1)]
    assert _run_threads([lambda: run(0), lambda: run(1)]) == serial
