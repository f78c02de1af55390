"""numjoco's one Stable-Baselines3 VecEnv (envs/sb3.py): DummyVecEnv over single envs is the oracle (bit for
bit, every task family through one test), the VecEnv API, PPO / SAC / TD3 / HER training on it, with VecNormalize
and VecMonitor."""

import numpy as np
import pytest
import gymnasium as gym

pytest.importorskip("stable_baselines3")
import torch  # noqa: E402
from stable_baselines3 import PPO, SAC, TD3, HerReplayBuffer  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor, VecNormalize, VecCheckNan  # noqa: E402

import envs  # noqa: E402
from envs.sb3 import NumjocoSB3VecEnv  # noqa: E402
from test_vector import FAMILIES, assert_same  # noqa: E402

ID = "numjoco/Hopper-v0"


@pytest.fixture(autouse=True)
def _torch_threads():
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


@pytest.mark.parametrize(
    "env_id, kwargs, steps, n",
    [pytest.param(*p.values, 3, id=p.id) for p in FAMILIES]
    + [
        pytest.param(ID, {"max_episode_steps": 30}, 100, 1, id="one-world"),  # the serial entry of sim.api.run
        pytest.param(  # endings of the task's Python layers
            "numjoco/ArmReach-v0",
            dict(max_episode_steps=30, terminate_on_success=True, success_threshold=0.5),
            100,
            4,
            id="arm-reach-terminations",
        ),
    ],
)
def test_matches_dummy_vec_env(env_id, kwargs, steps, n):
    """Every family through one test: observations, float32 rewards, dones, infos and reset infos equal
    DummyVecEnv's over single envs seeded seed + i, across episode ends."""
    ref = DummyVecEnv([lambda: gym.make(env_id, **kwargs) for _ in range(n)])
    ref.seed(7)
    vec = envs.make_sb3_vec_env(env_id, n, seed=7, **kwargs)
    assert isinstance(vec, NumjocoSB3VecEnv)
    assert_same(ref.reset(), vec.reset())
    assert_same(ref.reset_infos, vec.reset_infos)
    rng = np.random.default_rng(0)
    dim = vec.action_space.shape[0]
    dones = truncated = terminated = 0
    for t in range(steps):
        a = rng.uniform(-1, 1, (n, dim)).astype(np.float32)
        r1, r2 = ref.step(a), vec.step(a)
        assert_same(r1, r2, f"step {t}")
        assert_same(ref.reset_infos, vec.reset_infos, f"reset_infos {t}")
        dones += int(r1[2].sum())
        truncated += sum(i["TimeLimit.truncated"] for i in r1[3])
        terminated += sum(d and not i["TimeLimit.truncated"] for d, i in zip(r1[2], r1[3]))
    assert r2[1].dtype == np.float32 and dones >= n and truncated >= 1
    if kwargs.get("terminate_on_success"):
        assert terminated >= 2
    # seed() applies at the next reset, once
    ref.seed(3)
    vec.seed(3)
    assert_same(ref.reset(), vec.reset())
    ref.close()
    vec.close()


def test_vec_env_api():
    vec = envs.make_sb3_vec_env(ID, 3, seed=0)
    obs = vec.reset()
    assert obs.shape == (3, 11)
    assert vec.get_attr("frame_skip") == [4, 4, 4]
    assert vec.get_attr("dt", indices=[1]) == [vec.engine.template.dt]
    assert vec.has_attr("ctrl_cost_weight") and not vec.has_attr("no_such_attribute")
    vec.set_attr("tag", 5, indices=[0, 2])
    assert vec.get_attr("tag", indices=[0, 2]) == [5, 5]
    with pytest.raises(AttributeError):
        vec.get_attr("tag", indices=[1])
    with pytest.raises(AttributeError, match="compiled"):
        vec.set_attr("healthy_reward", 2.0)
    sv = vec.env_method("state_vector", indices=[2])[0]
    assert np.array_equal(sv, np.concatenate([vec.engine.data.qpos[2], vec.engine.data.qvel[2]]))
    assert vec.env_is_wrapped(gym.Wrapper) == [False] * 3
    vec.set_options({"x": 1})
    with pytest.raises(ValueError, match="options"):
        vec.reset()
    checked = VecCheckNan(vec, raise_exception=True)
    vec.set_options(None)
    checked.reset()
    for _ in range(20):
        checked.step(np.stack([vec.action_space.sample() for _ in range(3)]))
    bad = np.zeros((3, 3), np.float32)
    bad[0, 0] = np.inf
    with pytest.raises(ValueError):
        checked.step(bad)


def test_training_factory_uses_native_vec_env():
    from training.env_factory import make_vec_env

    venv = make_vec_env(ID, 4, seed=0)
    assert isinstance(venv, VecMonitor) and isinstance(venv.venv, NumjocoSB3VecEnv)
    assert venv.reset().shape == (4, 11)


def test_ppo_improves_on_the_vec_env():
    """PPO (VecNormalize, VecMonitor) on 16 Hopper worlds, 16k steps: the mean return of the last 32 training
    episodes beats that of the first 32 (measured 61.0 -> 86.5; asserted: +12)."""
    from stable_baselines3.common.callbacks import BaseCallback

    venv = VecNormalize(VecMonitor(envs.make_sb3_vec_env(ID, 16, seed=0)))
    model = PPO(
        "MlpPolicy",
        venv,
        n_steps=128,
        batch_size=512,
        n_epochs=4,
        learning_rate=1e-3,
        seed=0,
        policy_kwargs=dict(net_arch=[64, 64]),
        verbose=0,
    )
    returns = []

    class Episodes(BaseCallback):
        def _on_step(self):
            returns.extend(i["episode"]["r"] for i in self.locals["infos"] if "episode" in i)
            return True

    model.learn(16_384, callback=Episodes())
    r = np.array(returns)
    assert len(r) >= 200
    first, last = r[:32].mean(), r[-32:].mean()
    assert last > first + 12, (first, last)


@pytest.mark.parametrize("algo", [SAC, TD3])
def test_off_policy_trains(algo):
    venv = VecNormalize(
        VecMonitor(envs.make_sb3_vec_env(ID, 4, seed=1, max_episode_steps=50, terminate_when_unhealthy=False))
    )
    model = algo(
        "MlpPolicy",
        venv,
        learning_starts=64,
        buffer_size=5000,
        batch_size=64,
        seed=0,
        policy_kwargs=dict(net_arch=[32, 32]),
        train_freq=1,
        gradient_steps=1,
    )
    model.learn(600)
    assert model.num_timesteps >= 600 and len(model.ep_info_buffer) >= 4
    # the replay buffer holds the terminal observations of truncated episodes (SB3 reads terminal_observation)
    assert model.replay_buffer.timeouts[: model.replay_buffer.pos].any()


def test_her_with_the_goal_env():
    venv = envs.make_sb3_vec_env("numjoco/ArmReachGoal-v0", 2, seed=0, max_episode_steps=20, reward_type="dense")
    model = SAC(
        "MultiInputPolicy",
        venv,
        replay_buffer_class=HerReplayBuffer,
        replay_buffer_kwargs=dict(n_sampled_goal=4, goal_selection_strategy="future"),
        learning_starts=60,
        buffer_size=2000,
        batch_size=32,
        seed=0,
        policy_kwargs=dict(net_arch=[32]),
    )
    model.learn(200)
    buf = model.replay_buffer
    samples = buf.sample(64, env=None)
    # every sampled (relabelled or not) reward is the env's compute_reward of the stored goals
    ach = samples.next_observations["achieved_goal"].numpy()
    des = samples.observations["desired_goal"].numpy()
    want = venv.env_method("compute_reward", ach, des, [{}] * len(ach), indices=[0])[0]
    assert np.allclose(samples.rewards.numpy().ravel(), want, atol=1e-6)


def test_randomisation_in_sb3_vec_env():
    """Randomised values reach reset_infos (first reset and autoresets), terminal observations stay."""
    cfg = {"body_mass": {"scale": (0.5, 1.5)}, "opt.gravity": {"add": (-1.0, 1.0), "columns": [2]}}
    vec = envs.make_sb3_vec_env(ID, 3, seed=0, max_episode_steps=10, randomization=cfg)
    vec.reset()
    r = vec.engine.randomizer
    for w in range(3):
        assert np.array_equal(vec.reset_infos[w]["randomization"]["body_mass"], r.values["body_mass"][w])
    first = r.values["body_mass"].copy()
    for _ in range(10):
        obs, rew, done, infos = vec.step(np.zeros((3, 3), np.float32))
    assert done.all() and all("terminal_observation" in i for i in infos)
    assert not np.array_equal(first, r.values["body_mass"])
    for w in range(3):
        assert np.array_equal(vec.reset_infos[w]["randomization"]["body_mass"], r.values["body_mass"][w])
