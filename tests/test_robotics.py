"""numjoco's Fetch and Shadow Hand tasks (envs/robotics/) against gymnasium_robotics' own envs (the oracle, with
the mujoco 3.17 shim of tests/robotics_oracle.py): same seed, same float32 actions.

Per id: reset observations within 1e-12 (two resets in a row: the hand's second reset starts from the first
episode's solver warm start, as gymnasium_robotics' does), then 50 steps with observations and rewards within
1e-9, the same reward type, info and terminated / truncated flags; compute_reward, is_success on batches of goals
as HER samples them.  FetchSlide (KNOWN) is chaotic in MuJoCo itself: its trajectory parity is a strict xfail,
test_known_difference_is_chaotic measures the oracle against itself nudged by 1e-16, and
tests/test_collision_models.py test_fetch_slide_trajectory holds numjoco's steps from the oracle's states to 1e-12.
The Gymnasium and SB3 vector envs against SyncVectorEnv / DummyVecEnv over single envs, bit for bit; check_env;
SB3's HerReplayBuffer on a short SAC run.

Every task runs one numba compile of envs/robotics/kernels.py (the union feature set, envs/robotics/core.py
SHARED_FEATURES), so the default run compares every id but FetchSlide's two with the oracle: FetchPush and
HandManipulateBlockRotateZ (mocap, object, closed gripper; the hand's settling reset) over both seeds and 50 steps,
the others over seed 0 and 10 steps (each costs its model load, its oracle and those steps); compute_reward,
check_env and the vector envs on those two; --full every id over both seeds and 50 steps, compute_reward and
check_env on every id, FetchSlide's known difference, SAC + HER on each.
"""

import warnings

import numpy as np
import pytest
import gymnasium as gym
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import envs
from envs.robotics import env_ids
from envs.robotics.vector import RobotVectorEnv
from robotics_oracle import make_oracle
from test_vector import assert_same, run_pair

pytestmark = pytest.mark.oracle

RESET_TOL = 1e-12  # measured, seeds 0 and 1: FetchPush 4.4e-16, HandManipulateBlockRotateZ 1.2e-14
STEP_TOL = 1e-9  # measured over 50 steps: FetchPush 3.5e-10, HandManipulateBlockRotateZ 7.9e-13; rewards equal
NSTEPS = 50
# the default run compares every id: DEFAULT ones over both seeds and NSTEPS, the others over QUICK (seed 0, a few
# steps: all ids share one compiled feature set, so an id costs its model load, its oracle and these steps); --full
# runs every id over both seeds and NSTEPS
DEFAULT = ("numjoco/FetchPush-v0", "numjoco/HandManipulateBlockRotateZ-v0")
QUICK = dict(seeds=(0,), nsteps=10)
ALL_IDS = [i for i, _, _ in env_ids()]
# chaotic in MuJoCo itself (test_known_difference_is_chaotic): trajectory parity is a strict xfail for these
KNOWN = {"numjoco/FetchSlide-v0", "numjoco/FetchSlideDense-v0"}


def _ids(selection):
    return [pytest.param(i, marks=() if i in DEFAULT else pytest.mark.full) for i in selection]


def _quick(request, env_id):
    """compare()'s seeds and steps for env_id in this run (module doc)."""
    return {} if env_id in DEFAULT or request.config.getoption("--full") else QUICK


def compare(env_id, seeds=(0, 1), nsteps=NSTEPS, ours=None, nudge=None):
    """Max errors (reset observation, step observation, reward) of numjoco's env (or `ours`) against the oracle;
    asserts the structure (reward type, info, flags) as it goes.  nudge(ours) runs after each reset."""
    ref = make_oracle(env_id)
    ours = gym.make(env_id).unwrapped if ours is None else ours
    e_reset = e_obs = e_rew = 0.0
    for seed in seeds:
        o1, i1 = ref.reset(seed=seed)
        o2, i2 = ours.reset(seed=seed)
        if nudge is not None:
            nudge(ours)
        assert i1 == i2 == {}
        assert set(o1) == set(o2) and all(o1[k].shape == o2[k].shape for k in o1)
        e_reset = max(e_reset, max(float(np.abs(o1[k] - o2[k]).max()) for k in o1))
        rng = np.random.default_rng(seed)
        for t in range(nsteps):
            a = rng.uniform(-1, 1, ref.action_space.shape).astype(np.float32)
            o1, r1, te1, tr1, i1 = ref.step(a)
            o2, r2, te2, tr2, i2 = ours.step(a)
            assert type(r1) is type(r2), (t, type(r1), type(r2))
            assert (te1, tr1) == (te2, tr2)
            assert set(i1) == set(i2) == {"is_success"} and type(i1["is_success"]) is type(i2["is_success"])
            e_obs = max(e_obs, max(float(np.abs(o1[k] - o2[k]).max()) for k in o1))
            e_rew = max(e_rew, abs(float(r1) - float(r2)))
            if e_obs <= STEP_TOL:  # past a divergence the success flags need not agree
                assert i1["is_success"] == i2["is_success"], t
    return e_reset, e_obs, e_rew


@pytest.mark.parametrize("env_id", [i for i in ALL_IDS if i not in KNOWN])
def test_parity(env_id, request):
    e_reset, e_obs, e_rew = compare(env_id, **_quick(request, env_id))
    assert e_reset <= RESET_TOL, e_reset
    assert e_obs <= STEP_TOL and e_rew <= STEP_TOL, (e_obs, e_rew)


class TrajectoryParityError(AssertionError):
    """Trajectory parity (STEP_TOL) failed: the one failure test_parity_known_difference expects."""


@pytest.mark.full
@pytest.mark.parametrize("env_id", sorted(KNOWN))
@pytest.mark.xfail(
    strict=True,
    raises=TrajectoryParityError,
    reason="FetchSlide is chaotic in MuJoCo itself (test_known_difference_is_chaotic: the oracle against itself "
    "with its velocities after reset moved by 1e-16 differs by 0.31 in the observations and 0.027 in the dense "
    "reward after 50 steps, seed 1), so only bitwise equality with MuJoCo's arithmetic could pass: numjoco's step "
    "from the oracle's state matches it (tests/test_collision_models.py test_fetch_slide_trajectory: every "
    "contact of the puck with the table, finger and floor equal, qvel within 6.8e-14 per step), and the round-off "
    "left (reset qvel 2.6e-14, ~1e-14 per step) is amplified by the puck's flips of contact points and solver "
    "active set; measured: reset observations 2.7e-16, observations 0.33 after 50 steps, dense reward 0.028",
)
def test_parity_known_difference(env_id):
    """Reset parity and the measured size of the difference are real assertions (any failure of them, or any
    other exception, fails the test); only the trajectory bound is the expected failure."""
    e_reset, e_obs, e_rew = compare(env_id)
    assert e_reset <= RESET_TOL and e_obs < 1.0 and e_rew < 0.1, (e_reset, e_obs, e_rew)  # measured 0.33, 0.028
    if not (e_obs <= STEP_TOL and e_rew <= STEP_TOL):
        raise TrajectoryParityError(f"observations {e_obs:.3g}, reward {e_rew:.3g} after {NSTEPS} steps")


@pytest.mark.full
@pytest.mark.parametrize("env_id", sorted(KNOWN))
def test_known_difference_is_chaotic(env_id):
    """Why the KNOWN ids are not held to trajectory parity: the oracle against a second oracle whose velocities
    after reset are moved by 1e-16 (below the round-off of a step) differs as much as numjoco does (measured
    0.31 in the observations, 0.027 in the dense reward; numjoco 0.33 / 0.028)."""

    def nudge(env):
        env.data.qvel[:] += 1e-16 * np.random.default_rng(5).standard_normal(env.model.nv)

    e_reset, e_obs, e_rew = compare(env_id, ours=make_oracle(env_id), nudge=nudge)
    assert e_reset == 0.0 and e_obs > 0.1, (e_reset, e_obs)
    if "Dense" in env_id:
        assert e_rew > 0.01, e_rew


def _goal_batches(env, rng, n=64):
    """Random goal batches of the task's goal size, near the env's current goal (rewards of both signs)."""
    obs, _ = env.reset(seed=int(rng.integers(1000)))
    g = obs["desired_goal"]
    a = g + rng.normal(scale=0.02, size=(n, g.size))
    b = g + rng.normal(scale=0.02, size=(n, g.size))
    if g.size == 7:  # position + unit quaternion
        for x in (a, b):
            x[:, 3:] /= np.linalg.norm(x[:, 3:], axis=1, keepdims=True)
        a[: n // 2, 3:] = b[: n // 2, 3:] + rng.normal(scale=0.02, size=(n // 2, 4))
        a[:, 3:] /= np.linalg.norm(a[:, 3:], axis=1, keepdims=True)
    return a, b


@pytest.mark.parametrize(
    "env_id",
    _ids(ALL_IDS)
    + [pytest.param("numjoco/HandManipulateBlock-v0", marks=pytest.mark.full, id="ignore_z_target_rotation")],
)
def test_compute_reward_batched(env_id, request):
    """compute_reward and is_success on (64, goal) batches (HerReplayBuffer's call) equal the oracle's."""
    kw = {"ignore_z_target_rotation": True} if "ignore_z" in request.node.name else {}
    ref = make_oracle(env_id, **kw)
    ours = gym.make(env_id, **kw).unwrapped
    rng = np.random.default_rng(0)
    for _ in range(3):
        a, b = _goal_batches(ours, rng)
        r1, r2 = ref.compute_reward(a, b, {}), ours.compute_reward(a, b, {})
        assert r1.dtype == r2.dtype and r1.shape == r2.shape == (64,)
        assert np.allclose(r1, r2, rtol=0, atol=1e-12)
        s1, s2 = ref._is_success(a, b), ours.goal_success(a, b)
        assert s1.dtype == s2.dtype and np.array_equal(s1, s2)
        assert len(set(r2.tolist())) > 1  # the batch is not degenerate
    assert ours.compute_terminated(a, b, {}).shape == (64,) and ours.compute_terminated(a[0], b[0], {}) is False


@pytest.mark.parametrize("env_id", _ids(ALL_IDS))
def test_check_env(env_id):
    from gymnasium.utils.env_checker import check_env

    env = gym.make(env_id)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*Box observation space (min|max)imum value is .*infinity")
        check_env(env.unwrapped, skip_render_check=env_id != "numjoco/FetchPush-v0")  # 480x480 hand frames: slow
    assert env.spec.max_episode_steps == (50 if "Fetch" in env_id or "HandReach" in env_id else 100)
    assert env.unwrapped.reward_type == ("dense" if "Dense" in env_id else "sparse")


@pytest.mark.parametrize("mode", list(AutoresetMode))
@pytest.mark.parametrize(
    "env_id",
    _ids(
        [
            "numjoco/FetchPush-v0",
            "numjoco/HandManipulateBlockRotateZ-v0",
            "numjoco/FetchPickAndPlaceDense-v0",
            "numjoco/HandReach-v0",
        ]
    ),
)
def test_vector_env_matches_sync_vector_env(env_id, mode):
    n, steps = 3, 4
    ref = SyncVectorEnv([lambda: gym.make(env_id, max_episode_steps=steps) for _ in range(n)], autoreset_mode=mode)
    vec = gym.make_vec(env_id, num_envs=n, max_episode_steps=steps, autoreset_mode=mode)
    assert isinstance(vec, RobotVectorEnv) and vec.metadata["autoreset_mode"] == mode
    assert vec.single_observation_space == ref.single_observation_space
    ended, terminated, _ = run_pair(ref, vec, mode, n, 11, action_dim=vec.single_action_space.shape[0])
    assert ended >= n and terminated == 0


def test_vector_env_partial_reset_and_seeds():
    env_id, n = "numjoco/FetchPush-v0", 4
    ref = SyncVectorEnv([lambda: gym.make(env_id) for _ in range(n)], autoreset_mode=AutoresetMode.DISABLED)
    vec = gym.make_vec(env_id, num_envs=n, autoreset_mode=AutoresetMode.DISABLED)
    assert_same(ref.reset(seed=[5, 6, 7, 8]), vec.reset(seed=[5, 6, 7, 8]), "reset")
    a = np.full((n, 4), 0.5, np.float32)
    assert_same(ref.step(a), vec.step(a), "step")
    mask = np.array([True, False, True, False])
    assert_same(
        ref.reset(seed=11, options={"reset_mask": mask}),
        vec.reset(seed=11, options={"reset_mask": mask}),
        "partial reset",
    )
    assert_same(ref.step(a), vec.step(a), "step after the partial reset")
    with pytest.raises(ValueError, match="resets no environment"):
        vec.reset(options={"reset_mask": np.zeros(n, bool)})
    with pytest.raises(ValueError, match="NaN or inf"):
        vec.step(np.full((n, 4), np.nan, np.float32))
    with pytest.raises(ValueError, match="shape"):
        vec.step(np.zeros((n, 3), np.float32))
    assert vec.call("compute_reward", np.zeros(3), np.ones(3), {})[0] == np.float32(-1)
    assert np.array_equal(vec.get_attr("goal")[2], vec.env.goal[2])


def test_sb3_vec_env_matches_dummy_vec_env():
    from stable_baselines3.common.vec_env import DummyVecEnv

    env_id, n = "numjoco/FetchPushDense-v0", 3
    ref = DummyVecEnv([lambda: gym.make(env_id, max_episode_steps=4) for _ in range(n)])
    ours = envs.make_sb3_vec_env(env_id, n, max_episode_steps=4)
    ref.seed(9)
    ours.seed(9)
    assert_same(ref.reset(), ours.reset(), "reset")
    rng = np.random.default_rng(0)
    ended = 0
    for t in range(9):
        a = rng.uniform(-1, 1, (n, 4)).astype(np.float32)
        o1, r1, d1, i1 = ref.step(a)
        o2, r2, d2, i2 = ours.step(a)
        assert_same((o1, r1, d1), (o2, r2, d2), f"step {t}")
        for x, y in zip(i1, i2):
            x.pop("episode", None)
            assert_same(x, y, f"info {t}")
        ended += int(d2.sum())
    assert ended == 2 * n
    assert ours.env_method("compute_reward", np.zeros((5, 3)), np.ones((5, 3)), {}, indices=[0])[0].shape == (5,)


@pytest.mark.full
@pytest.mark.parametrize("env_id", ALL_IDS)
def test_her_sac_runs(env_id):
    """SB3 SAC with HerReplayBuffer on the SB3 VecEnv: the replay buffer relabels goals through env_method
    ("compute_reward") and the episodes end by the time limit."""
    from stable_baselines3 import SAC, HerReplayBuffer

    venv = envs.make_sb3_vec_env(env_id, 2, seed=0)
    start = 2 * gym.spec(env_id).max_episode_steps + 20  # both envs have ended an episode
    model = SAC(
        "MultiInputPolicy",
        venv,
        replay_buffer_class=HerReplayBuffer,
        replay_buffer_kwargs=dict(n_sampled_goal=4, goal_selection_strategy="future"),
        learning_starts=start,
        batch_size=32,
        policy_kwargs=dict(net_arch=[16, 16]),
        seed=0,
        device="cpu",
    )
    model.learn(start + 60)
    buf = model.replay_buffer
    assert buf.size() > gym.spec(env_id).max_episode_steps and (buf.ep_length > 0).any()  # whole episodes
    sample = buf.sample(64)
    assert sample.rewards.shape == (64, 1) and np.isin(sample.rewards.numpy(), [-1.0, 0.0]).all()


def test_single_env_api():
    env = gym.make("numjoco/FetchPush-v0")
    u = env.unwrapped
    obs, info = env.reset(seed=0)
    assert info == {} and obs["observation"].shape == (25,) and u.goal.shape == (3,)
    assert u.dt == pytest.approx(0.04) and u.metadata["render_fps"] == 25
    u.goal = obs["achieved_goal"]  # HER evaluation scripts set the goal
    _, r, _, _, info = env.step(np.zeros(4, np.float32))
    assert np.array_equal(env.unwrapped.goal, obs["achieved_goal"]) and info["is_success"] == 1.0 and r == 0.0
    before = u.data.qpos.copy()
    for bad in (np.full(4, np.nan, np.float32), np.zeros(3, np.float32), np.array(["a"] * 4)):
        with pytest.raises(ValueError):
            env.step(bad)
    assert np.array_equal(u.data.qpos, before)
    with pytest.raises(TypeError, match="unknown keyword"):
        gym.make("numjoco/FetchPush-v0", not_a_parameter=1)
    with pytest.raises(ValueError, match="reward_type"):
        gym.make("numjoco/FetchPush-v0", reward_type="shaped")
    with pytest.raises(NotImplementedError, match="relative_control"):
        gym.make("numjoco/HandReach-v0", relative_control=True)


def test_missing_gymnasium_robotics(monkeypatch):
    """Without gymnasium-robotics (its models are not shipped) the env says what to install."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "gymnasium_robotics" else real(n, *a))
    with pytest.raises(gym.error.DependencyNotInstalled, match="pip install gymnasium-robotics"):
        gym.make("numjoco/FetchReach-v0")


def test_render_marks_the_goal():
    """rgb_array frames; the target marker (site target0) is moved to the goal before the frame, as
    gymnasium_robotics' _render_callback does."""
    env = gym.make("numjoco/FetchPush-v0", render_mode="rgb_array", width=64, height=48)
    env.reset(seed=1)
    frame = env.render()
    assert frame.shape == (48, 64, 3) and frame.dtype == np.uint8 and frame.std() > 0
    u = env.unwrapped
    site = u.model.name2id("site", "target0")
    assert np.allclose(u.data.site_xpos[site], u.goal, atol=1e-12)


if __name__ == "__main__":  # the README's parity figures: python tests/test_robotics.py [id ...]
    import sys

    ids = sys.argv[1:] or ALL_IDS
    print("| id | oracle | reset obs error | max obs error, 50 steps | max reward error |")
    print("|---|---|---|---|---|")
    from robotics_oracle import oracle_id

    for i in ids:
        r = compare(i)
        print(f"| `{i.split('/')[1]}` | `{oracle_id(i)}` | {r[0]:.1e} | {r[1]:.1e} | {r[2]:.1e} |", flush=True)
