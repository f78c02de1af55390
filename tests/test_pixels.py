"""Pixel observations (obs_type="pixels" / "pixels_state", envs/pixels.py) of the Gymnasium tasks, the Fetch and
Shadow Hand tasks and the Control Suite: every frame equals sim.Renderer's image of the same Data with the env's
camera (bit for bit), the state part equals the state env's observation, spaces and layouts, Gymnasium's
check_env and FrameStackObservation, and each world of the native vector envs (Gymnasium and SB3) equals its
single env, frames included, through episode ends.  The default run uses Hopper, ArmReachGoal, FetchReach and
cheetah-run (feature sets the other env tests compile); --full runs check_env on every id.
"""

import numpy as np
import pytest
import gymnasium as gym
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers import FrameStackObservation

import sim
import envs
from envs.robotics import env_ids as robotics_ids

pytest.importorskip("gymnasium_robotics")


def _frame(env, data, world=None, size=None):
    """sim.Renderer's image of `data` (world `world`) with the env's pixel camera and scene option."""
    pr = env.pixel_renderer()
    h, w = size or (env.height, env.width)
    r = sim.Renderer(env.model, h, w)
    r.update_scene(data, camera=pr.camera, world=world, scene_option=pr.scene_option)
    out = r.render()
    r.close()
    pr.close()
    return out


def _actions(space, n, seed=0):
    space.seed(seed)
    return [space.sample() for _ in range(n)]


# ---------------------------------------------------------------------------------------- Gymnasium tasks
def test_gym_task_pixels_match_renderer_and_states():
    """Hopper pixels_state at 48 x 64: the image is sim.Renderer's frame of the env's Data (tracking camera of
    default_camera_config), the state part is the state env's observation, bit for bit, over 5 steps."""
    env = gym.make("numjoco/Hopper-v0", obs_type="pixels_state", width=64, height=48).unwrapped
    ref = gym.make("numjoco/Hopper-v0").unwrapped
    assert env.observation_space["pixels"].shape == (48, 64, 3) and list(env.observation_space) == ["state", "pixels"]
    o, _ = env.reset(seed=3)
    s, _ = ref.reset(seed=3)
    for a in [None] + _actions(env.action_space, 5):
        if a is not None:
            o, r, te, tr, _ = env.step(a)
            s, rs, tes, trs, _ = ref.step(a)
            assert (r, te, tr) == (rs, tes, trs)
        assert env.observation_space.contains(o)
        np.testing.assert_array_equal(o["state"], s)
        np.testing.assert_array_equal(o["pixels"], _frame(env, env.data))
    pix = gym.make("numjoco/Hopper-v0", obs_type="pixels").unwrapped
    img, _ = pix.reset(seed=3)
    assert img.shape == (84, 84, 3) and img.dtype == np.uint8 and (pix.width, pix.height) == (84, 84)
    assert gym.make("numjoco/Hopper-v0").unwrapped.width == 480  # render size of state envs unchanged
    with pytest.raises(ValueError, match="obs_type"):
        gym.make("numjoco/Hopper-v0", obs_type="rgb")


def _vector_vs_single(env_id, obs_type, mode, n=3, steps=5, max_steps=3, **kw):
    """Each world of gym.make_vec(env_id) as gym.make(env_id) seeded 10 + w, frames and final_obs included."""
    venv = gym.make_vec(env_id, num_envs=n, obs_type=obs_type, autoreset_mode=mode, max_episode_steps=max_steps, **kw)
    singles = [gym.make(env_id, obs_type=obs_type, max_episode_steps=max_steps, **kw) for _ in range(n)]
    obs, _ = venv.reset(seed=10)
    last = [e.reset(seed=10 + w)[0] for w, e in enumerate(singles)]
    acts = _actions(venv.single_action_space, steps * n)
    reset_next = np.zeros(n, bool)
    for t in range(steps):
        a = np.stack(acts[t * n : (t + 1) * n])
        vobs, vr, vte, vtr, info = venv.step(a)
        for w, e in enumerate(singles):
            if reset_next[w]:  # NEXT_STEP: this step resets the world
                last[w] = e.reset()[0]
                reset_next[w] = False
                done = False
            else:
                o, r, te, tr, _ = e.step(a[w])
                assert (r, te, tr) == (vr[w], vte[w], vtr[w])
                done = te or tr
                if done and mode == AutoresetMode.SAME_STEP:
                    _assert_obs_equal(info["final_obs"][w], o)
                    o = e.reset()[0]
                elif done:
                    reset_next[w] = True
                last[w] = o
            _assert_obs_equal(_index(vobs, w), last[w])
    venv.close()
    return venv


def _index(obs, w):
    return {k: v[w] for k, v in obs.items()} if isinstance(obs, dict) else obs[w]


def _assert_obs_equal(a, b):
    if isinstance(b, dict):
        assert list(a) == list(b)
        for k in b:
            np.testing.assert_array_equal(a[k], b[k])
    else:
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_gym_vector_env_worlds_equal_single_envs(mode):
    """Hopper pixels: each world's frame (one batched render) and step results as its single env's, through
    truncations (max_episode_steps 3) in both autoreset modes."""
    _vector_vs_single("numjoco/Hopper-v0", "pixels", mode, width=32, height=32)


def test_gym_vector_frames_are_renderer_frames():
    """Each world of the vector env's batched frames is sim.Renderer's single frame of that world."""
    venv = gym.make_vec("numjoco/Hopper-v0", num_envs=3, obs_type="pixels", width=40, height=30)
    venv.reset(seed=0)
    obs, *_ = venv.step(np.stack(_actions(venv.single_action_space, 3)))
    tpl = venv.engine.template
    for w in range(3):
        np.testing.assert_array_equal(obs[w], _frame(tpl, venv.data, world=w))
    assert venv.observation_space.shape == (3, 30, 40, 3)


def test_goal_task_pixels_vector_and_layout():
    """ArmReachGoal (a task with Python layers): the goal layout (pixels, observation, achieved_goal,
    desired_goal), the vector env's worlds as single envs (SAME_STEP, final_obs with its frame)."""
    env = gym.make("numjoco/ArmReachGoal-v0", obs_type="pixels", width=32, height=32)
    o, _ = env.reset(seed=0)
    assert list(o) == ["pixels", "achieved_goal", "desired_goal"] and env.observation_space.contains(o)
    _vector_vs_single("numjoco/ArmReachGoal-v0", "pixels_state", AutoresetMode.SAME_STEP, n=2, width=32, height=32)


def test_sb3_vec_env_pixels():
    """The SB3 VecEnv: images stacked, terminal_observation with the episode's last frame, as single envs."""
    venv = envs.make_sb3_vec_env("numjoco/Hopper-v0", 2, seed=5, obs_type="pixels", width=24, height=24,
                                 max_episode_steps=2)  # fmt: skip
    singles = [gym.make("numjoco/Hopper-v0", obs_type="pixels", width=24, height=24, max_episode_steps=2)
               for _ in range(2)]  # fmt: skip
    obs = venv.reset()
    for w, e in enumerate(singles):
        np.testing.assert_array_equal(obs[w], e.reset(seed=5 + w)[0])
    acts = _actions(venv.action_space, 4)
    for t in range(2):
        a = np.stack(acts[2 * t : 2 * t + 2])
        obs, rew, done, infos = venv.step(a)
        for w, e in enumerate(singles):
            o, *_ = e.step(a[w])
            if done[w]:
                np.testing.assert_array_equal(infos[w]["terminal_observation"], o)
                o = e.reset()[0]
            np.testing.assert_array_equal(obs[w], o)
    assert done.all()
    venv.close()


# ---------------------------------------------------------------------------------------- Fetch / Shadow Hand
def test_robotics_pixels_match_renderer():
    """FetchReach pixels_state: the goal layout, the image is sim.Renderer's frame (render()'s camera, goal
    markers hidden), the state keys are the state env's, over 4 steps; pixels drops "observation"."""
    env = gym.make("numjoco/FetchReach-v0", obs_type="pixels_state", width=48, height=40).unwrapped
    ref = gym.make("numjoco/FetchReach-v0").unwrapped
    o, _ = env.reset(seed=1)
    s, _ = ref.reset(seed=1)
    assert list(o) == ["pixels", "observation", "achieved_goal", "desired_goal"]
    for a in [None] + _actions(env.action_space, 4):
        if a is not None:
            o, r, *_ = env.step(a)
            s, rs, *_ = ref.step(a)
            assert r == rs
        assert env.observation_space.contains(o)
        for k in s:
            np.testing.assert_array_equal(o[k], s[k])
        np.testing.assert_array_equal(o["pixels"], _frame(env, env.data))
    pix = gym.make("numjoco/FetchReach-v0", obs_type="pixels").unwrapped
    assert list(pix.observation_space) == ["pixels", "achieved_goal", "desired_goal"]
    assert pix.observation_space["pixels"].shape == (84, 84, 3)


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_robotics_vector_env_worlds_equal_single_envs(mode):
    """FetchReach pixels: each world of the vector env (frames from one batched render) as its single env."""
    _vector_vs_single("numjoco/FetchReach-v0", "pixels", mode, n=3, steps=4, max_steps=2, width=32, height=32)


def test_robotics_sb3_terminal_observation_has_pixels():
    venv = envs.make_sb3_vec_env("numjoco/FetchReach-v0", 2, seed=0, obs_type="pixels", width=16, height=16,
                                 max_episode_steps=1)  # fmt: skip
    single = gym.make("numjoco/FetchReach-v0", obs_type="pixels", width=16, height=16)
    obs = venv.reset()
    assert obs["pixels"].shape == (2, 16, 16, 3)
    o1, _ = single.reset(seed=1)
    a = np.stack(_actions(venv.action_space, 2))
    obs, _, done, infos = venv.step(a)
    last, *_ = single.step(a[1])
    assert done.all()
    _assert_obs_equal(infos[1]["terminal_observation"], last)
    venv.close()


# ---------------------------------------------------------------------------------------- Control Suite
def test_dmc_vector_pixels_equal_single_and_renderer():
    """cheetah-run pixels: each world of the vector env as its single env, and sim.Renderer's frame."""
    venv = gym.make_vec("numjoco/dmc-cheetah-run-v0", num_envs=2, obs_type="pixels", width=32, height=32)
    singles = [gym.make("numjoco/dmc-cheetah-run-v0", obs_type="pixels", width=32, height=32) for _ in range(2)]
    obs, _ = venv.reset(seed=0)
    for w, e in enumerate(singles):
        np.testing.assert_array_equal(obs[w], e.reset(seed=w)[0])
    a = np.stack(_actions(venv.single_action_space, 2))
    obs, *_ = venv.step(a)
    for w, e in enumerate(singles):
        o, *_ = e.step(a[w])
        np.testing.assert_array_equal(obs[w], o)
        r = sim.Renderer(venv.unwrapped.model, 32, 32)
        r.update_scene(venv.unwrapped.data, camera=0, world=w)
        np.testing.assert_array_equal(o, r.render())


# ---------------------------------------------------------------------------------------- checkers, wrappers
# the DMC ids under --full: their pixel checks compile another feature set (~70 s); the DMC pixels are compared
# with the renderer by test_dmc_vector_pixels_equal_single_and_renderer
DEFAULT_IDS = ["numjoco/Hopper-v0", "numjoco/ArmReachGoal-v0", "numjoco/FetchReach-v0"]
ALL_IDS = (
    ["numjoco/" + k for k in envs.TASKS]
    + [i for i, _, _ in robotics_ids()]
    + [envs._dmc.env_id(d, t) for d, t in envs._dmc.TASKS]
)
CHECK_IDS = [i if i in DEFAULT_IDS else pytest.param(i, marks=pytest.mark.full) for i in ALL_IDS]


@pytest.mark.parametrize("env_id", CHECK_IDS)
@pytest.mark.parametrize("obs_type", ["pixels", "pixels_state"])
def test_check_env(env_id, obs_type):
    """Gymnasium's env checker on the pixel variants (16 x 16 images to keep it quick)."""
    env = gym.make(env_id, obs_type=obs_type, width=16, height=16)
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


@pytest.mark.parametrize("env_id", ["numjoco/Hopper-v0", "numjoco/FetchReach-v0"])
def test_frame_stack(env_id):
    """FrameStackObservation over pixel observations: (k, H, W, 3) uint8 stacks (per key for Dict ones)."""
    env = FrameStackObservation(gym.make(env_id, obs_type="pixels", width=20, height=20), stack_size=3)
    o, _ = env.reset(seed=0)
    img = o["pixels"] if isinstance(o, dict) else o
    assert img.shape == (3, 20, 20, 3) and img.dtype == np.uint8
    o, *_ = env.step(env.action_space.sample())
    assert env.observation_space.contains(o)
    env.close()


@pytest.mark.full
def test_her_sac_on_pixels():
    """SB3's SAC with MultiInputPolicy and HerReplayBuffer runs on the pixel goal layout (a smoke run)."""
    from stable_baselines3 import SAC, HerReplayBuffer

    venv = envs.make_sb3_vec_env("numjoco/FetchReach-v0", 2, seed=0, obs_type="pixels_state", width=36, height=36)
    model = SAC(
        "MultiInputPolicy",
        venv,
        replay_buffer_class=HerReplayBuffer,
        buffer_size=2000,
        learning_starts=100,
        batch_size=16,
        seed=0,
    )
    model.learn(160)
    assert model.replay_buffer.observations["pixels"].shape[-3:] in ((3, 36, 36), (36, 36, 3))
