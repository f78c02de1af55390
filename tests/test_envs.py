"""numjoco's environments as Gymnasium / SB3 users meet them: the checkers, registration, seeding, bad actions,
pickling, reward shaping (kwargs and add_terms), and the arm reach tasks (incl. SAC + HER on the goal env).
Parity of the numbers with Gymnasium's v5 envs: tests/test_envs_parity.py; the models: tests/test_envs_assets.py.
Every env runs on the one compiled physics entry: these tests compile nothing new."""

import copy
import pickle
import warnings

import numpy as np
import pytest

import gymnasium as gym
from gymnasium.utils.env_checker import check_env as gym_check_env

import envs
from envs.spec import Value, SumSq, qpos, qvel, xpos

ALL = sorted("numjoco/" + k for k in envs.TASKS)


@pytest.mark.parametrize("env_id", ALL)
def test_gymnasium_check_env(env_id):
    env = gym.make(env_id).unwrapped
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # infinite observation bounds etc. (Gymnasium's own envs warn the same)
        gym_check_env(env, skip_render_check=True)


@pytest.mark.parametrize("env_id", ALL)
def test_sb3_check_env(env_id):
    from stable_baselines3.common.env_checker import check_env

    env = gym.make(env_id)
    if "Goal" in env_id:  # SB3 calls env.compute_reward, which Gymnasium 1.x wrappers no longer forward
        env = env.unwrapped
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env, warn=True)


def test_registration_and_envs_prefix():
    spec = gym.spec("numjoco/Hopper-v0")
    assert spec.namespace == "numjoco" and spec.max_episode_steps == 1000 and spec.reward_threshold == 3800.0
    env = gym.make("envs:numjoco/Hopper-v0")
    assert env.spec.id == "numjoco/Hopper-v0"
    for name, (entry, steps, thr) in envs.TASKS.items():
        s = gym.spec("numjoco/" + name)
        assert (s.entry_point, s.max_episode_steps, s.reward_threshold) == (entry, steps, thr)


@pytest.mark.parametrize(
    "env_id", ["numjoco/Hopper-v0", "numjoco/Ant-v0", "numjoco/Reacher-v0", "numjoco/ArmReachGoal-v0"]
)
def test_determinism_under_seeding(env_id):
    def rollout(seed):
        env = gym.make(env_id)
        env.action_space.seed(seed)
        obs, _ = env.reset(seed=seed)
        out = [obs]
        for _ in range(30):
            obs, r, term, trunc, info = env.step(env.action_space.sample())
            out.append((obs, r, term, info))
            if term or trunc:
                out.append(env.reset()[0])
        return out

    a, b, c = rollout(7), rollout(7), rollout(8)
    assert repr(a) == repr(b)
    assert repr(a) != repr(c)


@pytest.mark.parametrize("env_id", ["numjoco/Hopper-v0", "numjoco/Humanoid-v0", "numjoco/ArmReach-v0"])
def test_bad_actions_raise_and_leave_the_state(env_id):
    env = gym.make(env_id).unwrapped
    env.reset(seed=0)
    env.step(env.action_space.sample())
    before = env.state_vector().copy(), env.data.time
    nu = env.action_space.shape[0]
    for bad in (np.zeros(nu + 1), np.zeros((1, nu)), np.zeros(0)):
        with pytest.raises(ValueError, match=r"shape.*expected \(%d,\)" % nu):
            env.step(bad)
    for v in (np.nan, np.inf, -np.inf):
        a = np.zeros(nu, np.float32)
        a[nu // 2] = v
        with pytest.raises(ValueError, match="NaN or inf"):
            env.step(a)
    np.testing.assert_array_equal(env.state_vector(), before[0])
    assert env.data.time == before[1]
    env.step(env.action_space.sample())  # still usable


@pytest.mark.parametrize("env_id", ["numjoco/Hopper-v0", "numjoco/Pusher-v0", "numjoco/ArmReachGoal-v0"])
def test_pickle_and_deepcopy_continue_identically(env_id):
    env = gym.make(env_id)
    env.reset(seed=3)
    env.action_space.seed(3)
    for _ in range(5):
        env.step(env.action_space.sample())
    clones = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    actions = [env.action_space.sample() for _ in range(10)]
    ref = [env.step(a) for a in actions] + [env.reset()]
    for clone in clones:
        out = [clone.step(a) for a in actions] + [clone.reset()]  # np_random travels with the env
        assert repr(out) == repr(ref)


def test_kwargs_through_make_and_signature():
    import inspect

    env = gym.make("numjoco/Hopper-v0", ctrl_cost_weight=0.5, forward_reward_weight=0.0, healthy_reward=0.0)
    env.reset(seed=0)
    a = np.ones(3, np.float32) * 0.5
    _, r, _, _, info = env.step(a)
    assert info["reward_ctrl"] == -0.5 * float(np.sum(np.square(a)))
    assert r == pytest.approx(info["reward_ctrl"])
    sig = inspect.signature(envs.tasks.hopper.HopperEnv)
    assert sig.parameters["ctrl_cost_weight"].default == 1e-3
    with pytest.raises(TypeError, match="unknown keyword"):
        gym.make("numjoco/Hopper-v0", ctrl_cost=1.0)


def test_add_terms_shapes_the_reward_in_the_compiled_step():
    """add_terms recompiles the task program (no numba compile): the extra term is reported and summed."""
    env = gym.make("numjoco/Hopper-v0")
    ref = gym.make("numjoco/Hopper-v0")
    env.unwrapped.add_terms(
        {"reward_height": Value(qpos[1]) * 0.1, "reward_still": -SumSq(qvel[3:]) * 0.01},
        info={"foot_x": Value(xpos["foot"][0])},
    )
    for e in (env, ref):
        e.reset(seed=1)
        e.action_space.seed(1)
    for _ in range(10):
        a = env.action_space.sample()
        o1, r1, t1, _, i1 = env.step(a)
        o2, r2, t2, _, i2 = ref.step(a)
        np.testing.assert_array_equal(o1, o2)
        u = env.unwrapped
        assert i1["reward_height"] == pytest.approx(0.1 * u.data.qpos[1], rel=1e-15)
        assert i1["reward_still"] == pytest.approx(-0.01 * np.sum(u.data.qvel[3:] ** 2), rel=1e-12)
        assert i1["foot_x"] == u.data.xpos[u.model.body("foot").id][0]
        assert r1 == pytest.approx(r2 + i1["reward_height"] + i1["reward_still"], rel=1e-12, abs=1e-12)
        if t1:
            break
    with pytest.raises(ValueError, match="already exist"):
        env.unwrapped.add_terms({"reward_height": Value(qpos[1])})
    clones = (copy.deepcopy(env), pickle.loads(pickle.dumps(env)))  # added terms travel (cloudpickle)
    a = env.action_space.sample()
    ref = repr(env.step(a))
    for clone in clones:
        assert repr(clone.step(a)) == ref


def test_divergence_truncates_with_a_warning():
    """A diverged simulation is reset by the engine: the step is truncated, info['diverged'], a warning, and the
    observation stays finite."""
    env = gym.make("numjoco/Hopper-v0").unwrapped
    env.reset(seed=0)
    env.set_state(env.init_qpos, np.full(env.model.nv, 1e12))
    with pytest.warns(RuntimeWarning, match="diverged"):
        obs, r, term, trunc, info = env.step(np.zeros(3, np.float32))
    assert trunc and info["diverged"] is True
    assert np.all(np.isfinite(obs)) and np.isfinite(r)
    env.reset(seed=1)
    assert "diverged" not in env.step(np.zeros(3, np.float32))[4]


def test_reward_terms_wrapper():
    w = envs.RewardTerms(gym.make("numjoco/Reacher-v0"), {"reward_speed": -SumSq(qvel[:2]) * 0.1})
    w.reset(seed=0)
    _, r, _, _, info = w.step(w.action_space.sample())
    assert r == pytest.approx(info["reward_dist"] + info["reward_ctrl"] + info["reward_speed"], rel=1e-12)


def test_float32_and_float64_actions_follow_numpy():
    """The ctrl cost is Gymnasium's numpy expression: float32 for a float32 action, float64 for a float64 one."""
    env = gym.make("numjoco/HalfCheetah-v0").unwrapped
    a32 = np.linspace(-0.9, 0.8, 6).astype(np.float32)
    for a in (a32, a32.astype(np.float64)):
        env.reset(seed=0)
        info = env.step(a)[4]
        assert info["reward_ctrl"] == -float(0.1 * np.sum(np.square(a)))


def test_humanoid_info_arrays_and_structure():
    env = gym.make("numjoco/Humanoid-v0").unwrapped
    _, info = env.reset(seed=0)
    assert info["tendon_length"].shape == (2,) and info["tendon_velocity"].shape == (2,)
    s = env.observation_structure
    assert sum(v for k, v in s.items() if k != "skipped_qpos") == env.observation_space.shape[0] == 348


# ---------------------------------------------------------------------------------------------- arm reach
@pytest.mark.parametrize("control", ["position", "torque"])
def test_arm_reach(control):
    env = gym.make("numjoco/ArmReach-v0", control=control)
    obs, info = env.reset(seed=0)
    u = env.unwrapped
    assert obs.shape == (23,) and u.model.nu == 7 and env.action_space.shape == (7,)
    assert u.observation_structure == {"qpos": 7, "qvel": 7, "ee_pos": 3, "target_pos": 3, "ee_to_target": 3}
    ee = u.data.site_xpos[u.model.site("ee").id]
    np.testing.assert_array_equal(obs[14:17], ee)
    np.testing.assert_array_equal(obs[17:20], u.goal)
    assert 0.25 <= np.linalg.norm(u.goal - [0, 0, 0.333]) <= 0.75
    assert np.all(u.goal >= [0.3, -0.4, 0.1]) and np.all(u.goal <= [0.7, 0.4, 0.7])
    assert info["distance"] == pytest.approx(np.linalg.norm(ee - u.goal), rel=1e-15)
    obs, r, term, trunc, info = env.step(np.zeros(7, np.float32))
    assert r == pytest.approx(-info["distance"], rel=1e-15) and not term
    np.testing.assert_array_equal(obs[17:20], u.goal)  # the target does not move
    if control == "position":  # zero action: the servos hold the centre of each joint range
        names = [u.model.actuator(i).name for i in range(7)]
        assert names == [f"position{i}" for i in range(1, 8)]


def test_arm_reach_position_servo_reaches_a_pose():
    """Position control drives the joints to the commanded (normalised) pose."""
    env = gym.make("numjoco/ArmReach-v0").unwrapped
    env.reset(seed=0)
    lo, hi = np.asarray(env.model.jnt_range)[:7].T
    q_goal = np.array([0.3, -0.2, 0.1, -2.0, 0.2, 1.8, 0.5])
    a = ((q_goal - (lo + hi) / 2) / ((hi - lo) / 2)).astype(np.float32)
    for _ in range(50):
        obs = env.step(a)[0]
    np.testing.assert_allclose(obs[:7], q_goal, atol=2e-3)


def test_arm_reach_targets_are_reachable():
    """Every sampled target is reachable: a damped least-squares IK (MuJoCo's site Jacobian) gives a joint pose,
    the position servos get there and the episode succeeds (measured: 30 of 30 resets, median 6 steps)."""
    import mujoco

    env = gym.make("numjoco/ArmReach-v0").unwrapped
    M = mujoco.MjModel.from_xml_path(env.fullpath)
    D = mujoco.MjData(M)
    lo, hi = M.jnt_range[:7].T
    ee = M.site("ee").id
    for seed in range(8):
        obs, _ = env.reset(seed=seed)
        q = obs[:7].copy()
        for _ in range(300):
            D.qpos[:7] = q
            mujoco.mj_kinematics(M, D)
            mujoco.mj_comPos(M, D)  # cdof and subtree_com for the Jacobian
            err = env.goal - D.site_xpos[ee]
            J = np.zeros((3, M.nv))
            mujoco.mj_jacSite(M, D, J, None, ee)
            J = J[:, :7]
            q = np.clip(q + 0.5 * J.T @ np.linalg.solve(J @ J.T + 1e-3 * np.eye(3), err), lo + 1e-3, hi - 1e-3)
        a = ((q - (lo + hi) / 2) / ((hi - lo) / 2)).astype(np.float32)
        for _ in range(40):
            info = env.step(a)[4]
        assert info["is_success"] == 1.0, (seed, env.goal, info["distance"])


def test_ee_source_switch_matches_the_kernel():
    """envs/tasks/arm_reach.py EE_FROM_SENSOR: reads the framepos sensor once the task kernel reads sensordata
    (then the numbers equal the site's), else the site position.  Fails when the switch is stale."""
    import envs.tasks.arm_reach as ar

    old = ar.EE_FROM_SENSOR
    try:
        ar.EE_FROM_SENSOR = True
        env = gym.make("numjoco/ArmReach-v0").unwrapped
        obs = env.reset(seed=0)[0]
        obs = np.concatenate([obs, env.step(env.action_space.sample())[0]])
    finally:
        ar.EE_FROM_SENSOR = old
    kernel_reads_sensors = bool(np.all(np.isfinite(obs)))
    assert old == kernel_reads_sensors, (
        "the task kernel reads sensordata now: set EE_FROM_SENSOR = True"
        if kernel_reads_sensors
        else "EE_FROM_SENSOR needs sensordata in the kernel"
    )
    if kernel_reads_sensors:
        np.testing.assert_array_equal(obs[37:40], env.data.site_xpos[env.model.site("ee").id])


def test_arm_reach_goal_env_api():
    env = gym.make("numjoco/ArmReachGoal-v0")
    obs, info = env.reset(seed=2)
    assert set(obs) == {"observation", "achieved_goal", "desired_goal"} and obs["observation"].shape == (17,)
    u = env.unwrapped
    np.testing.assert_array_equal(obs["achieved_goal"], obs["observation"][14:17])
    obs, r, term, trunc, info = env.step(env.action_space.sample())
    d = np.linalg.norm(obs["achieved_goal"] - obs["desired_goal"])
    assert r == (-1.0 if d > 0.05 else 0.0) and info["is_success"] == (d < 0.05)
    assert r == u.compute_reward(obs["achieved_goal"], obs["desired_goal"], info)
    # vectorised on batches
    ag = np.random.default_rng(0).uniform(-1, 1, (5, 3))
    dg = ag.copy()
    dg[::2] += 1.0
    np.testing.assert_array_equal(u.compute_reward(ag, dg, [info] * 5), [-1, 0, -1, 0, -1])
    assert u.compute_reward(ag, dg, None).dtype == np.float32
    assert u.compute_terminated(ag, dg, None).shape == (5,) and not u.compute_terminated(ag, dg, None).any()
    assert u.compute_truncated(ag, dg, None).shape == (5,)
    dense = gym.make("numjoco/ArmReachGoal-v0", reward_type="dense", success_threshold=0.1).unwrapped
    np.testing.assert_allclose(dense.compute_reward(ag, dg, None), -np.linalg.norm(ag - dg, axis=-1))
    assert dense.compute_reward(ag[:1], ag[:1] + 0.05, None)[0] == pytest.approx(-np.sqrt(3) * 0.05)
    assert gym.spec("numjoco/ArmReachGoal-v0").max_episode_steps == 50
    with pytest.raises(ValueError, match="reward_type"):
        gym.make("numjoco/ArmReachGoal-v0", reward_type="shaped")
    with pytest.raises(ValueError, match="control"):
        gym.make("numjoco/ArmReach-v0", control="velocity")


def test_sac_her_on_arm_reach_goal():
    """SB3's HerReplayBuffer works on the goal env unchanged (a few hundred SAC steps, relabelled rewards)."""
    from stable_baselines3 import SAC, HerReplayBuffer

    env = gym.make("numjoco/ArmReachGoal-v0")
    model = SAC(
        "MultiInputPolicy",
        env,
        replay_buffer_class=HerReplayBuffer,
        replay_buffer_kwargs=dict(n_sampled_goal=4, goal_selection_strategy="future"),
        learning_starts=100,
        batch_size=64,
        policy_kwargs=dict(net_arch=[32, 32]),
        seed=0,
        verbose=0,
    )
    model.learn(300)
    buf = model.replay_buffer
    assert buf.size() > 0 or buf.full
    batch = buf.sample(64, env=model.get_vec_normalize_env())
    # relabelled transitions carry compute_reward of their (possibly new) goals
    r = model.env.env_method(
        "compute_reward",
        batch.next_observations["achieved_goal"].cpu().numpy(),
        batch.observations["desired_goal"].cpu().numpy(),
        [{}] * 64,
        indices=[0],
    )[0]
    np.testing.assert_array_equal(r, batch.rewards.cpu().numpy().ravel())
