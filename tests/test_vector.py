"""numjoco's one vector env (envs/vector.py) against Gymnasium's SyncVectorEnv over N single numjoco envs, for
every task family.

The oracle of a vector env is SyncVectorEnv over gym.make(id) envs seeded seed + i: observations, rewards,
terminated / truncated flags and the whole info dict (values and _masks, final_obs / final_info) must be equal,
bit for bit, across autoreset boundaries in every AutoresetMode.  Episodes are kept short (max_episode_steps, or
a DMC task's time_limit) and the actions random so that episode ends and (with the autoreset disabled) partial
resets happen; each test asserts they did.  FAMILIES (one task per family, through the same test) is shared with
tests/test_sb3.py's DummyVecEnv comparison.
"""

import numba
import numpy as np
import pytest
import gymnasium as gym
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import envs  # noqa: F401  (registers the numjoco/ ids)
from envs.vector import NumjocoVectorEnv

ID = "numjoco/Hopper-v0"
# (id, keywords of the short episodes, steps): one task per family
FAMILIES = [
    pytest.param("numjoco/Hopper-v0", {"max_episode_steps": 22}, 160, id="gymnasium-v5"),
    pytest.param("numjoco/ArmReachGoal-v0", {"max_episode_steps": 6}, 20, id="arm-reach-goal"),
    pytest.param("numjoco/TwoArmReach-v0", {"max_episode_steps": 5}, 16, id="multi-agent"),
    pytest.param("numjoco/dmc-cheetah-run-v0", {"time_limit": 0.05, "action_repeat": 2}, 10, id="dmc"),
    pytest.param("numjoco/FetchPush-v0", {"max_episode_steps": 4}, 11, id="fetch"),
]


def assert_same(a, b, path="value"):
    """Exact equality of nested vector-env outputs (dicts, object arrays of observations, arrays, scalars)."""
    if isinstance(a, dict):
        assert isinstance(b, dict), path
        assert set(a) == set(b), f"{path}: keys {sorted(a)} != {sorted(b)}"
        for k in a:
            assert_same(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{path}[{i}]")
    elif isinstance(a, np.ndarray) and a.dtype == object:
        assert isinstance(b, np.ndarray) and b.dtype == object and a.shape == b.shape, path
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{path}[{i}]")
    elif a is None:
        assert b is None, path
    else:
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape, f"{path}: {a.dtype}{a.shape} != {b.dtype}{b.shape}"
        assert np.array_equal(a, b, equal_nan=True), f"{path}: max difference {np.max(np.abs(a - b))}"


def run_pair(ref, vec, mode, n, nsteps, seed=3, act_seed=0, action_dim=3):
    """Step ref and vec with the same random actions; returns (episodes ended, terminations, partial resets)."""
    assert_same(ref.reset(seed=seed), vec.reset(seed=seed), "reset")
    rng = np.random.default_rng(act_seed)
    ended = terminated = partial = 0
    for t in range(nsteps):
        a = rng.uniform(-1, 1, (n, action_dim)).astype(np.float32)
        r1, r2 = ref.step(a), vec.step(a)
        assert_same(r1, r2, f"step {t}")
        done = r1[2] | r1[3]
        ended += int(done.sum())
        terminated += int(r1[2].sum())
        if mode == AutoresetMode.DISABLED and done.any():
            partial += int(not done.all())
            assert_same(
                ref.reset(options={"reset_mask": done.copy()}),
                vec.reset(options={"reset_mask": done.copy()}),
                f"partial reset {t}",
            )
    return ended, terminated, partial


@pytest.mark.parametrize("mode", list(AutoresetMode))
@pytest.mark.parametrize("env_id, kwargs, steps", FAMILIES)
def test_matches_sync_vector_env(env_id, kwargs, steps, mode):
    n = 3 if env_id != ID else 5
    ref = SyncVectorEnv([lambda: gym.make(env_id, **kwargs) for _ in range(n)], autoreset_mode=mode)
    vec = gym.make_vec(env_id, num_envs=n, autoreset_mode=mode, **kwargs)
    assert isinstance(vec, NumjocoVectorEnv)
    assert vec.metadata["autoreset_mode"] == mode
    assert vec.single_observation_space == ref.single_observation_space
    ended, terminated, partial = run_pair(ref, vec, mode, n, steps, action_dim=vec.single_action_space.shape[0])
    assert ended >= 2 * n, ended
    if env_id == ID:
        assert terminated >= 3 and ended - terminated >= 3, (ended, terminated)
    if mode == AutoresetMode.DISABLED:
        assert partial >= (2 if env_id == ID else 0)
    ref.close()
    vec.close()


def test_make_vec_modes_and_spec():
    v1 = gym.make_vec(ID, num_envs=3)
    v2 = gym.make_vec(ID, num_envs=3, vectorization_mode="vector_entry_point", ctrl_cost_weight=0.01)
    for v in (v1, v2):
        assert isinstance(v, NumjocoVectorEnv) and v.num_envs == 3
        assert v.spec.id == ID
        assert v.engine.max_episode_steps == 1000  # from the spec: the vector env truncates
        assert v.single_observation_space.shape == (11,) and v.observation_space.shape == (3, 11)
        assert v.action_space.shape == (3, 3) and v.action_space.dtype == np.float32
    assert v2.engine.template.p.ctrl_cost_weight == 0.01
    assert v1.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    sync = gym.make_vec(ID, num_envs=2, vectorization_mode="sync")
    assert isinstance(sync, SyncVectorEnv)
    with pytest.raises(ValueError, match="autoreset_mode"):
        gym.make_vec(ID, num_envs=2, autoreset_mode="sometimes")
    with pytest.raises(TypeError, match="unknown keyword"):
        gym.make_vec(ID, num_envs=2, not_a_parameter=1)


def test_truncation_at_max_episode_steps():
    vec = gym.make_vec(ID, num_envs=4, max_episode_steps=7, terminate_when_unhealthy=False)
    vec.reset(seed=0)
    zeros = np.zeros((4, 3), np.float32)
    for t in range(6):
        _, _, term, trunc, _ = vec.step(zeros)
        assert not trunc.any() and not term.any()
    _, _, term, trunc, _ = vec.step(zeros)
    assert trunc.all() and not term.any()
    obs, rew, term, trunc, info = vec.step(zeros)  # NEXT_STEP: the reset step
    assert np.all(rew == 0) and not (term | trunc).any()
    assert "_reward_forward" not in info and info["_x_position"].all()


def test_threads_bitwise_equal():
    outs = []
    counts = set()
    for threads in (1, 2, None):
        vec = gym.make_vec(ID, num_envs=8, max_episode_steps=30, num_threads=threads)
        tuner = vec.unwrapped.engine.tuner
        if threads is None:  # the measured choice: re-measured every few steps, both counts run
            tuner.PERIOD, tuner.TRIAL = 3, 2
            record = tuner.record
            tuner.record = lambda count, seconds: (counts.add(count), record(count, seconds))
        obs, _ = vec.reset(seed=11)
        rng = np.random.default_rng(5)
        traj = [obs]
        for _ in range(60):
            r = vec.step(rng.uniform(-1, 1, (8, 3)).astype(np.float32))
            traj += [r[0], r[1], r[2], r[3]]
        outs.append(traj)
    assert counts == {1, min(2, numba.get_num_threads())}
    for a, b, c in zip(*outs):
        assert_same(a, b)
        assert_same(a, c)


def test_thread_tuner_choice():
    from envs.worlds import ThreadTuner

    tu = ThreadTuner()
    tu.PERIOD, tu.TRIAL = 4, 3
    assert tu.count(1) == (1, False)  # one thread available: nothing to measure
    seen = []
    for _ in range(6):  # alternating, timed
        count, timed = tu.count(4)
        assert timed
        seen.append(count)
        tu.record(count, 1.0 if count == 1 else 0.5)  # 4 threads twice as fast
    assert seen == [1, 4, 1, 4, 1, 4]
    assert [tu.count(4) for _ in range(5)] == [(4, False)] * 5  # decision, then PERIOD untimed steps
    assert tu.count(4) == (1, True)  # measured again
    tu = ThreadTuner()
    tu.TRIAL = 2
    for t in (0.3, 0.9, 0.3, 0.1):  # 1 thread: 0.3, 0.3; 2 threads: 2.7, 0.3
        count, _ = tu.count(2)
        tu.record(count, t if count == 1 else 3 * t)
    assert tu.count(2) == (1, False) and tu.choice == 1
    assert tu.count(1) == (1, False)
    tu.left = 10
    assert tu.count(2) == (1, False)  # the choice holds while it fits the threads


def test_seeding():
    vec = gym.make_vec(ID, num_envs=4)
    o1, _ = vec.reset(seed=5)
    o2, _ = vec.reset(seed=5)
    assert_same(o1, o2)
    single = [gym.make(ID).reset(seed=5 + i)[0] for i in range(4)]
    assert_same(o1, np.stack(single))
    o3, _ = vec.reset(seed=[5, 6, 7, 8])
    assert_same(o1, o3)
    o4, _ = vec.reset()  # next draws of the same generators: the next episodes of single envs
    assert not np.array_equal(o1, o4)
    o5, _ = gym.make_vec(ID, num_envs=4).reset()
    o6, _ = gym.make_vec(ID, num_envs=4).reset()
    assert not np.array_equal(o5, o6)
    with pytest.raises(ValueError, match="seeds"):
        vec.reset(seed=[1, 2])


def test_errors():
    vec = gym.make_vec(ID, num_envs=3)
    with pytest.raises(gym.error.ResetNeeded):
        vec.step(np.zeros((3, 3), np.float32))
    obs, _ = vec.reset(seed=0)
    before = vec.data.qpos.copy()
    bad = np.zeros((3, 3), np.float32)
    bad[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"environment\(s\) \[1\]"):
        vec.step(bad)
    assert np.array_equal(vec.data.qpos, before)
    with pytest.raises(ValueError, match="shape"):
        vec.step(np.zeros((2, 3), np.float32))
    vec.step(np.zeros((3, 3), np.float32))  # still usable
    with pytest.raises(ValueError, match="reset_mask"):
        vec.reset(options={"reset_mask": np.zeros(3, bool)})
    with pytest.raises(ValueError, match="num_threads"):
        gym.make_vec(ID, num_envs=2, num_threads=1000)
    dis = gym.make_vec(ID, num_envs=2, max_episode_steps=2, autoreset_mode=AutoresetMode.DISABLED)
    dis.reset(seed=0)
    dis.step(np.zeros((2, 3), np.float32))
    dis.step(np.zeros((2, 3), np.float32))
    with pytest.raises(gym.error.ResetNeeded, match="reset_mask"):
        dis.step(np.zeros((2, 3), np.float32))


def test_info_reward_terms_per_env():
    vec = gym.make_vec(ID, num_envs=3)
    vec.reset(seed=0)
    a = np.array([[0, 0, 0], [1, 1, 1], [-1, 0.5, 0]], np.float32)
    _, rew, _, _, info = vec.step(a)
    # Gymnasium's ctrl cost of a float32 action is computed in float32 (NEP 50: 1e-3 * float32 sum -> float32)
    want = -(1e-3 * np.sum(np.square(a), axis=1)).astype(np.float64)
    assert np.array_equal(info["reward_ctrl"], want), info["reward_ctrl"] - want
    total = info["reward_forward"] + info["reward_survive"] + info["reward_ctrl"]
    assert np.allclose(rew, total, rtol=0, atol=1e-12)
    for k in ("reward_forward", "reward_survive", "reward_ctrl", "x_position", "x_velocity"):
        assert info["_" + k].all() and info[k].shape == (3,)


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_vector_wrappers(mode):
    """RecordEpisodeStatistics / NormalizeObservation / NormalizeReward on the native env give what they give
    on SyncVectorEnv (same episodes, same statistics)."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics, NormalizeObservation, NormalizeReward

    stats = []

    def wrap(v):
        v = RecordEpisodeStatistics(v)
        stats.append(v)
        if mode == AutoresetMode.NEXT_STEP:
            v = NormalizeObservation(v)
        return NormalizeReward(v)

    n = 4
    ref = wrap(SyncVectorEnv([lambda: gym.make(ID, max_episode_steps=25) for _ in range(n)], autoreset_mode=mode))
    vec = wrap(gym.make_vec(ID, num_envs=n, max_episode_steps=25, autoreset_mode=mode))
    o1, _ = ref.reset(seed=0)
    o2, _ = vec.reset(seed=0)
    assert_same(o1, o2)
    rng = np.random.default_rng(1)
    episodes = 0
    for t in range(80):
        a = rng.uniform(-1, 1, (n, 3)).astype(np.float32)
        r1, r2 = ref.step(a), vec.step(a)
        for r in (r1, r2):
            r[4].get("episode", {}).pop("t", None)  # wall-clock time of the episode
        assert_same(r1, r2, f"step {t}")
        if "episode" in r1[4]:
            episodes += int(r1[4]["_episode"].sum())
    assert episodes >= 4
    assert list(stats[0].return_queue) == list(stats[1].return_queue) and len(stats[1].return_queue) >= 4


def test_get_attr_set_attr_call():
    vec = gym.make_vec(ID, num_envs=3)
    vec.reset(seed=2)
    assert vec.get_attr("frame_skip") == (4, 4, 4)
    assert all(d == vec.dt for d in vec.get_attr("dt"))
    sv = vec.call("state_vector")
    assert np.array_equal(sv[1], np.concatenate([vec.data.qpos[1], vec.data.qvel[1]]))
    rngs = vec.get_attr("np_random")
    assert rngs[0] is not rngs[1]
    vec.set_attr("tag", ["a", "b", "c"])
    assert vec.get_attr("tag") == ("a", "b", "c")
    with pytest.raises(AttributeError, match="compiled"):
        vec.set_attr("ctrl_cost_weight", 0.5)


def test_no_python_loop_over_worlds_per_step():
    """A step of 64 worlds calls reset_state only for the worlds that reset (here: none)."""
    vec = gym.make_vec(ID, num_envs=64, max_episode_steps=1000, terminate_when_unhealthy=False)
    vec.reset(seed=0)
    calls = []
    tpl = vec.engine.template
    orig = tpl.reset_state
    tpl.reset_state = lambda rng, p: calls.append(1) or orig(rng, p)
    for _ in range(5):
        vec.step(np.zeros((64, 3), np.float32))
    assert calls == []


@pytest.mark.parametrize("mode", ["rgb_array", "depth_array", "rgbd_tuple"])
def test_render_one_batched_call_equals_single_envs(mode):
    """venv.render(): every world in one batched sim.Renderer call, frames equal (bit for bit) to those of
    SyncVectorEnv over single envs in the same states; Hopper's camera tracks each world's own torso."""
    n, kw = 3, dict(render_mode=mode, width=48, height=40)
    ref = SyncVectorEnv([lambda: gym.make(ID, **kw) for _ in range(n)])
    vec = gym.make_vec(ID, num_envs=n, vectorization_mode="vector_entry_point", **kw)
    run_pair(ref, vec, AutoresetMode.NEXT_STEP, n, 25)
    a, b = ref.render(), vec.render()
    assert len(b) == n
    assert_same(a, b, "frames")
    first = b[0][0] if mode == "rgbd_tuple" else b[0]
    assert first.shape[:2] == (40, 48)
    frames = [f[0] if mode == "rgbd_tuple" else f for f in b]
    assert not np.array_equal(frames[0], frames[1])  # the worlds differ, each seen from its own camera
    ref.close()
    vec.close()
