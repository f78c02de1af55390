"""Vector envs of tasks with Python layers: numjoco/ArmReachGoal-v0 (Dict observation, reward from
compute_reward, is_success) and numjoco/ArmReach-v0 (is_success, terminate_on_success) override step / reset.

The vector env runs their physics as one batch and each world's results through the task's own step / reset
(envs/base.py NumjocoEnv._feed), so the oracle is still SyncVectorEnv over single envs, bit for bit, in every
autoreset mode, including episodes the Python layer ends (terminate_on_success)."""

import numpy as np
import pytest
import gymnasium as gym
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import envs  # noqa: F401
from envs.vector import NumjocoVectorEnv
from test_vector import run_pair, assert_same


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_goal_env_matches_sync_vector_env(mode):
    env_id, n, steps = "numjoco/ArmReachGoal-v0", 3, 12
    ref = SyncVectorEnv([lambda: gym.make(env_id, max_episode_steps=steps) for _ in range(n)], autoreset_mode=mode)
    vec = gym.make_vec(env_id, num_envs=n, max_episode_steps=steps, autoreset_mode=mode)
    assert isinstance(vec, NumjocoVectorEnv) and vec.engine.python_layers
    assert isinstance(vec.single_observation_space, gym.spaces.Dict)
    assert set(vec.observation_space.spaces) == {"observation", "achieved_goal", "desired_goal"}
    ended, _, _ = run_pair(ref, vec, mode, n, 30, action_dim=7)
    assert ended >= 2 * n


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_python_layer_terminations(mode):
    """terminate_on_success with a generous threshold: the Python layer ends episodes the kernel does not."""
    env_id, n, kw = "numjoco/ArmReach-v0", 3, dict(terminate_on_success=True, success_threshold=0.5)
    ref = SyncVectorEnv([lambda: gym.make(env_id, max_episode_steps=15, **kw) for _ in range(n)], autoreset_mode=mode)
    vec = gym.make_vec(env_id, num_envs=n, max_episode_steps=15, autoreset_mode=mode, **kw)
    ended, terminated, _ = run_pair(ref, vec, mode, n, 20, action_dim=7)
    assert terminated >= 2


def test_goal_env_reward_is_compute_reward():
    vec = gym.make_vec("numjoco/ArmReachGoal-v0", num_envs=4, reward_type="dense")
    obs, info = vec.reset(seed=0)
    assert obs["observation"].shape == (4, 17) and obs["desired_goal"].shape == (4, 3)
    assert info["_is_success"].all()
    obs, rew, _, _, info = vec.step(np.zeros((4, 7), np.float32))
    cr = vec.call("compute_reward", obs["achieved_goal"], obs["desired_goal"], {})[0]
    assert np.array_equal(rew, cr)
    assert vec.single_observation_space.contains({k: v[0] for k, v in obs.items()})


def test_randomised_python_layer_task():
    """Domain randomisation with a task's Python layers (ArmReachGoal, same-step autoreset): each world is bit
    for bit a single env given that world's randomised model at each reset, and the values of the worlds just
    reset are in info["randomization"]."""
    from test_randomize import _set_world_model

    env_id, n, steps = "numjoco/ArmReachGoal-v0", 3, 8
    cfg = {
        "body_mass": {"scale": (0.5, 1.5), "scale_inertia": True},
        "dof_damping": {"add": (0.0, 2.0)},
        "actuator_gainprm": {"scale": (0.5, 1.5), "columns": [0]},
    }
    vec = gym.make_vec(
        env_id,
        num_envs=n,
        max_episode_steps=steps,
        randomization=cfg,
        autoreset_mode=AutoresetMode.SAME_STEP,
        reward_type="dense",
    )
    obs, info = vec.reset(seed=5)
    assert info["_randomization"].all()
    singles = [gym.make(env_id, max_episode_steps=steps, reward_type="dense") for _ in range(n)]
    world = lambda o, w: {k: v[w] for k, v in o.items()}  # noqa: E731
    for w, env in enumerate(singles):
        _set_world_model(env, vec, w)
        assert_same(env.reset(seed=5 + w)[0], world(obs, w), f"reset world {w}")
    nominal = gym.make_vec(env_id, num_envs=n, max_episode_steps=steps, reward_type="dense")
    nominal.reset(seed=5)
    rng = np.random.default_rng(1)
    resets = 0
    for t in range(2 * steps + 2):
        a = rng.uniform(-1, 1, (n, 7)).astype(np.float32)
        obs, rew, term, trunc, info = vec.step(a)
        if t == 0:  # the randomisation changes every world's motion
            assert (np.abs(obs["observation"] - nominal.step(a)[0]["observation"]).max(axis=1) > 1e-6).all()
        for w, env in enumerate(singles):
            o, r, te, tr, _ = env.step(a[w])
            assert r == rew[w] and te == term[w] and tr == trunc[w], (t, w)
            if te or tr:
                assert_same(o, info["final_obs"][w], f"step {t} world {w} final")
                _set_world_model(env, vec, w)
                o, _ = env.reset()
                assert info["_randomization"][w]
                assert_same(info["randomization"]["body_mass"][w], vec.engine.randomizer.values["body_mass"][w])
            assert_same(o, world(obs, w), f"step {t} world {w}")
        resets += int((term | trunc).sum())
    assert resets == 2 * n
