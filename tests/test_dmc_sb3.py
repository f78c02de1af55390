"""numjoco's SB3 VecEnv on the Control Suite tasks (envs/sb3.py on envs/dmc/engine.py): DummyVecEnv over
gym.make(id) envs seeded seed + i is the oracle, bit for bit, for Dict, flat and pixel observations across episode
ends; the VecEnv API; PPO with CnnPolicy on the pixels; the training seam.

The default set runs cheetah-run (compiled by tests/test_dmc.py, its pixels by tests/test_pixels.py); every task
is compared under --full.  Each pixel env costs seconds to build (sim.Renderer's mip pyramids of dm_control's
800 x 4800 skybox texture), so the default set builds few: one pixel VecEnv serves the parity test and PPO.
"""

import numpy as np
import pytest
import gymnasium as gym

pytest.importorskip("stable_baselines3")
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor  # noqa: E402

import envs  # noqa: E402
from envs import dmc  # noqa: E402
from envs.sb3 import NumjocoSB3VecEnv  # noqa: E402
from test_sb3 import _torch_threads  # noqa: E402, F401  (autouse: torch on one thread)
from test_vector import assert_same  # noqa: E402

ID = "numjoco/dmc-cheetah-run-v0"
# cheetah's control step is 0.01 s: an episode of 5 control steps (3 env steps with action_repeat=2, the last one
# cut short after one control step)
SHORT = 0.05


def compare_with_dummy(env_id, n, steps, seed=7, vec=None, **kwargs):
    """Step DummyVecEnv over gym.make(env_id) envs and make_sb3_vec_env (or `vec`, built with the same kwargs) with
    the same actions; every output equal.  Returns (episode ends, truncations) of the reference."""
    ref = DummyVecEnv([lambda: gym.make(env_id, **kwargs) for _ in range(n)])
    ref.seed(seed)
    vec = envs.make_sb3_vec_env(env_id, n, **kwargs) if vec is None else vec
    vec.seed(seed)
    assert isinstance(vec, NumjocoSB3VecEnv)
    assert vec.observation_space == ref.observation_space and vec.action_space == ref.action_space
    assert_same(ref.reset(), vec.reset(), "reset")
    assert_same(ref.reset_infos, vec.reset_infos, "reset_infos")
    rng = np.random.default_rng(0)
    dones = truncated = 0
    for t in range(steps):
        a = rng.uniform(-1, 1, (n,) + vec.action_space.shape).astype(np.float32)
        r1, r2 = ref.step(a), vec.step(a)
        assert_same(r1, r2, f"step {t}")
        assert_same(ref.reset_infos, vec.reset_infos, f"reset_infos {t}")
        assert r2[1].dtype == np.float32 and r2[2].dtype == bool
        dones += int(r1[2].sum())
        truncated += sum(i["TimeLimit.truncated"] for i in r1[3])
    # seed() applies at the next reset: the worlds' RandomStates restart
    ref.seed(3)
    vec.seed(3)
    assert_same(ref.reset(), vec.reset(), "reset after seed()")
    ref.close()
    return dones, truncated


PIXELS = dict(obs_type="pixels", width=36, height=36, time_limit=SHORT)  # 36 x 36: NatureCNN's smallest input


@pytest.fixture(scope="module")
def pixel_vec():
    """Two worlds of cheetah-run pixels (the parity test, then PPO)."""
    vec = envs.make_sb3_vec_env(ID, 2, **PIXELS)
    yield vec
    vec.close()


@pytest.mark.parametrize(
    "kwargs",
    [
        {},  # Dict observations (dm_control's keys)
        {"flat_observation": True, "action_repeat": 2},  # one vector; episodes of 3 env steps, the last one short
        pytest.param(
            {"obs_type": "pixels_state", "flat_observation": True, "width": 32, "height": 32, "action_repeat": 2},
            marks=pytest.mark.full,
        ),
    ],
    ids=["dict", "flat", "pixels_state"],
)
def test_matches_dummy_vec_env(kwargs):
    """Observations, float32 rewards, dones, infos (discount, TimeLimit.truncated, terminal_observation) and reset
    infos of 3 worlds equal DummyVecEnv's over single envs, across 2-3 episode ends."""
    dones, truncated = compare_with_dummy(ID, 3, 12, time_limit=SHORT, **kwargs)
    assert dones >= 6 and truncated == dones  # every world's episodes end (truncated, as dm_control's LAST step)


def test_pixels_match_dummy_vec_env(pixel_vec):
    """The uint8 images (and terminal_observation images) of 2 worlds equal DummyVecEnv's, across 2 episode ends."""
    dones, truncated = compare_with_dummy(ID, 2, 12, vec=pixel_vec, **PIXELS)
    assert dones == 4 and truncated == dones


@pytest.mark.full
@pytest.mark.parametrize("domain,task", list(dmc.TASKS), ids=["-".join(t) for t in dmc.TASKS])
def test_every_task_matches_dummy_vec_env(domain, task):
    """Every task, Dict observations, 2 worlds, episodes of 4 control steps (per-world model rows: reacher, fish
    swim, swimmer, finger turn, manipulator draw their targets per episode)."""
    env = dmc.load(domain, task)
    limit = 4 * env.control_timestep_seconds()
    env.close()
    dones, _ = compare_with_dummy(dmc.env_id(domain, task), 2, 10, time_limit=limit)
    assert dones >= 4


def test_vec_env_api():
    """get_attr / env_method on a world seen as a single env (its RandomState, last reward), the shared settings,
    the errors."""
    ref = DummyVecEnv([lambda: gym.make(ID, time_limit=SHORT) for _ in range(2)])
    ref.seed(1)
    vec = envs.make_sb3_vec_env(ID, 2, seed=1, time_limit=SHORT)
    assert vec.render_mode is None and vec.num_envs == 2
    ref.reset(), vec.reset()
    a = np.full((2, 6), 0.3, np.float32)
    for _ in range(6):  # past the first episode end (5 steps): the autoreset drew from the RandomStates
        ref.step(a), vec.step(a)
    for x, y in zip(ref.get_attr("random"), vec.get_attr("random")):
        assert_same(x.get_state()[1:], y.get_state()[1:], "RandomState")  # key, position, Gaussian cache
    assert vec.env_method("reward") == ref.env_method("reward")
    assert vec.get_attr("time_limit") == ref.get_attr("time_limit") == [SHORT, SHORT]
    assert vec.get_attr("action_repeat", indices=[1]) == [1]
    assert vec.env_is_wrapped(gym.Wrapper) == [False, False]
    with pytest.raises(AttributeError, match="batched engine"):
        vec.get_attr("data")
    with pytest.raises(AttributeError, match="shared"):
        vec.set_attr("time_limit", 1.0)
    vec.set_options({"x": 1})
    with pytest.raises(ValueError, match="options"):
        vec.reset()
    vec.set_options(None)
    vec.reset()
    with pytest.raises(ValueError, match="shape"):
        vec.step(np.zeros((2, 5), np.float32))
    with pytest.raises(ValueError, match="time_limit"):
        envs.make_sb3_vec_env(ID, 2, max_episode_steps=10)
    ref.close()
    vec.close()


@pytest.mark.full
def test_images_match_dummy_vec_env():
    """get_images and env_method("render") with render_mode="rgb_array" as DummyVecEnv's."""
    kw = dict(time_limit=SHORT, render_mode="rgb_array", width=32, height=32)
    ref = DummyVecEnv([lambda: gym.make(ID, **kw) for _ in range(2)])
    ref.seed(1)
    vec = envs.make_sb3_vec_env(ID, 2, seed=1, **kw)
    ref.reset(), vec.reset()
    a = np.full((2, 6), -0.4, np.float32)
    for _ in range(3):
        ref.step(a), vec.step(a)
    assert_same(ref.get_images(), vec.get_images(), "get_images")
    assert_same(ref.env_method("render", indices=[1]), vec.env_method("render", indices=[1]), "render")
    ref.close()
    vec.close()


def test_ppo_cnn_policy_on_pixels(pixel_vec):
    """PPO with CnnPolicy learns 200 steps on the pixels: SB3 wraps the VecEnv in VecTransposeImage and stores
    channel-first images."""
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import VecTransposeImage, is_vecenv_wrapped

    venv = VecMonitor(pixel_vec)
    pixel_vec.seed(0)
    model = PPO("CnnPolicy", venv, n_steps=50, batch_size=50, n_epochs=1, seed=0, verbose=0)
    assert is_vecenv_wrapped(model.get_env(), VecTransposeImage)
    assert model.observation_space.shape == (3, 36, 36)
    model.learn(200)
    assert model.num_timesteps == 200
    obs = model.rollout_buffer.observations
    assert obs.shape == (100, 3, 36, 36) and obs.max() > obs.min()  # the last rollout, channels first, not blank
    assert len(model.ep_info_buffer) == 2 * 100 // 5  # 5-step episodes in each world


def test_training_seam_uses_the_dmc_vec_env():
    """training's make_vec_env builds the DMC VecEnv (monitored, frames stacked on request)."""
    from stable_baselines3.common.vec_env import VecFrameStack

    from training.env_factory import make_vec_env

    venv = make_vec_env(ID, 2, seed=0, env_kwargs={"flat_observation": True})
    assert isinstance(venv, VecMonitor) and isinstance(venv.venv, NumjocoSB3VecEnv)
    assert venv.reset().shape == (2, 17)
    venv.close()
    venv = make_vec_env(ID, 2, seed=0, env_kwargs={"obs_type": "pixels", "width": 32, "height": 32}, frame_stack=3)
    assert isinstance(venv, VecFrameStack) and isinstance(venv.venv.venv, NumjocoSB3VecEnv)
    obs = venv.reset()
    assert obs.shape == (2, 32, 32, 9) and obs.dtype == np.uint8 and obs.max() > 0
    frames = venv.venv.venv.engine.pixel_frames()  # the worlds' current images
    np.testing.assert_array_equal(obs[..., 6:], frames)  # the newest frame last, zeros before it
    assert not obs[..., :6].any()
    obs, *_ = venv.step(np.zeros((2, 6), np.float32))
    np.testing.assert_array_equal(obs[..., 3:6], frames)
    venv.close()
