"""The DeepMind Control Suite envs (envs/dmc) against dm_control.suite, their oracle.

Parity: `reset(seed=s)` against `suite.load(domain, task, task_kwargs={'random': s}).reset()` (the same
RandomState draws: initial state, model edits and first observation), then 100 steps of the same random actions:
every observation and reward within 1e-9, relative to max(1, |value|) as tests/test_envs_parity.py, or within
SENS_FACTOR times MuJoCo's own sensitivity where the task is chaotic: dm_control envs of the same seed whose
qvel is nudged by 1e-15 after reset are stepped alongside (the sensitivity reference), and a step passes
when our error is <= max(1e-9, SENS_FACTOR * its error).  The deviation depends on the direction of the nudge
(humanoid seed 0: 5.4e-10 at step 100 with qvel[0], 4.1e-8 with qvel[5]), so the reference is the largest of three
copies nudged at qvel[0], qvel[5] and qvel[nv - 1].  Measured (seeds 0 and 1): 26 of the 30 tasks agree to
<= 7e-13 over the 100 steps (most bit for bit); hopper 1.6e-11, quadruped 1.7e-11; humanoid stand / walk / run
5.3e-6 at step 100 where MuJoCo against its own perturbed copy reaches 6.4e-6 (seed 1; seed 0: 3.8e-8 against
4.1e-8).  docs/dmc.md has the table.

The default run covers four tasks on three compiled feature sets (cheetah-run and hopper-hop share one, with
touch sensors read at dm_control's acceleration stage; cartpole-swingup with RK4; ball_in_cup-catch with its
rejection-sampled reset); --full runs every task.
"""

import os

os.environ.setdefault("MUJOCO_GL", "egl")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

suite = pytest.importorskip("dm_control.suite")
from dm_control.rl import control  # noqa: E402

import gymnasium as gym  # noqa: E402

import envs  # noqa: E402,F401  (registers the ids)
from envs import dmc  # noqa: E402
from envs.dmc import models  # noqa: E402

TOL = 1e-9
SENS_FACTOR = 20.0
NSTEPS = 100
DEFAULT = [("cheetah", "run"), ("hopper", "hop"), ("cartpole", "swingup"), ("ball_in_cup", "catch")]
ALL = list(dmc.TASKS)
TASKS = [t if t in DEFAULT else pytest.param(*t, marks=pytest.mark.full) for t in ALL]
IDS = ["-".join(t) for t in ALL]
SUITE_DIR = os.path.dirname(suite.__file__)


def _err(a, b):
    """Largest error of a against b relative to max(1, |b|)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b)))) if a.size else 0.0


def _obs_err(obs, ref):
    assert list(obs) == list(ref), f"observation keys {list(obs)} != dm_control {list(ref)}"
    for k in ref:
        assert np.shape(obs[k]) == np.shape(ref[k]), f"{k}: shape {np.shape(obs[k])} != {np.shape(ref[k])}"
    return max(_err(obs[k], ref[k]) for k in ref)


def _flat(obs):
    return np.concatenate([np.ravel(obs[k]) for k in obs])


def run_parity(domain, task, seed, nsteps=NSTEPS):
    """Reset both with the seed, step both with the same random actions; returns (reset error, worst obs error,
    worst reward error, steps beyond the bound, worst obs and reward errors in absolute terms)."""
    env = dmc.load(domain, task)
    obs, info = env.reset(seed=seed)
    de = suite.load(domain, task, task_kwargs={"random": seed})
    ts = de.reset()
    nv = de.physics.model.nv
    refs = []
    for i in sorted({0, min(5, nv - 1), nv - 1}):
        ref = suite.load(domain, task, task_kwargs={"random": seed})
        ref.reset()
        ref.physics.data.qvel[i] += 1e-15
        refs.append(ref)
    reset_err = _obs_err(obs, ts.observation)
    p, d = de.physics, env.data
    for f in ("qpos", "qvel", "act", "qacc_warmstart"):
        np.testing.assert_allclose(getattr(d, f), getattr(p.data, f), rtol=0, atol=1e-12, err_msg=f)
    assert d.time == p.data.time
    for f in ("geom_pos", "geom_size", "site_pos", "site_size", "body_pos", "body_quat", "dof_damping"):
        np.testing.assert_array_equal(getattr(env.model, f), getattr(p.model, f), err_msg=f)
    spec = de.action_spec()
    assert env.action_space.shape == spec.shape
    np.testing.assert_array_equal(env.action_space.low, spec.minimum.astype(np.float32))
    rng = np.random.RandomState(seed + 10)
    worst = [0.0, 0.0]
    absolute = [0.0, 0.0]
    bad = 0
    for _ in range(nsteps):
        a = rng.uniform(spec.minimum, spec.maximum)
        o, r, terminated, truncated, info = env.step(a)
        ts = de.step(a)
        e = (_obs_err(o, ts.observation), _err(r, ts.reward))
        sens = 0.0
        for ref in refs:
            tr = ref.step(a)
            sens = max(sens, _err(_flat(tr.observation), _flat(ts.observation)), _err(tr.reward, ts.reward))
        bad += max(e) > max(TOL, SENS_FACTOR * sens)
        worst = [max(worst[0], e[0]), max(worst[1], e[1])]
        absolute = [
            max(absolute[0], max(float(np.max(np.abs(np.asarray(o[k]) - ts.observation[k]))) for k in o)),
            max(absolute[1], abs(r - ts.reward)),
        ]
        assert not terminated and truncated == ts.last() and info["discount"] == ts.discount
    return reset_err, worst[0], worst[1], bad, absolute


@pytest.mark.oracle
@pytest.mark.parametrize("domain,task", TASKS, ids=IDS)
@pytest.mark.parametrize("seed", [0, 1])
def test_parity(domain, task, seed):
    """Initial state, model edits and observation of reset(seed) as dm_control's; 100 steps within 1e-9 (or
    SENS_FACTOR x MuJoCo's own sensitivity on chaotic tasks, module doc)."""
    reset_err, obs_err, rew_err, bad, absolute = run_parity(domain, task, seed)
    assert reset_err <= 1e-12, f"reset observation error {reset_err:.2e}"
    assert bad == 0, (
        f"{bad} step(s) beyond max(1e-9, {SENS_FACTOR} x sensitivity); worst obs {obs_err:.2e}, reward {rew_err:.2e}"
    )


@pytest.mark.oracle
@pytest.mark.parametrize("domain,task", TASKS, ids=IDS)
def test_check_env(domain, task):
    """Gymnasium's env checker on the registered id; dm_control's step limit and control timestep."""
    from gymnasium.utils.env_checker import check_env

    env = gym.make(dmc.env_id(domain, task)).unwrapped
    check_env(env, skip_render_check=True)
    de = suite.load(domain, task)
    assert env._step_limit == de._step_limit == 1000
    assert env.n_sub_steps == de._n_sub_steps
    assert env.dt == de.control_timestep()
    flat = dmc.load(domain, task, flat_observation=True)
    check_env(flat, skip_render_check=True)


def test_registered():
    """Every task has its id; the env ends episodes itself (no TimeLimit from the registry)."""
    for domain, task in ALL:
        spec = gym.spec(dmc.env_id(domain, task))
        assert spec.max_episode_steps is None
    assert sorted(ALL[:28]) == sorted(suite.BENCHMARKING)


def test_assets_match_dm_control():
    """The shipped model files are dm_control's (byte for byte)."""
    for name in sorted(os.listdir(models.ASSET_DIR)):
        if not name.endswith(".xml"):
            continue
        theirs = (
            os.path.join(SUITE_DIR, name)
            if name not in ("materials.xml", "skybox.xml", "visual.xml")
            else os.path.join(SUITE_DIR, "common", name)
        )
        with open(os.path.join(models.ASSET_DIR, name), "rb") as a, open(theirs, "rb") as b:
            assert a.read() == b.read(), name


@pytest.mark.oracle
def test_procedural_models_match():
    """The procedural variants (cartpole chains, swimmer links, manipulator props, quadruped parts) compile, in
    MuJoCo, to dm_control's models: every numeric field equal."""
    import mujoco
    from dm_control.suite import cartpole, swimmer, manipulator, quadruped, common

    cases = [
        (models.cartpole(1), cartpole.get_model_and_assets()[0]),
        (models.cartpole(3), cartpole.get_model_and_assets(3)[0]),
        (models.swimmer(6), swimmer.get_model_and_assets(6)[0]),
        (models.swimmer(15), swimmer.get_model_and_assets(15)[0]),
        (models.manipulator(False, False), manipulator.make_model(False, False)[0]),
        (models.manipulator(True, True), manipulator.make_model(True, True)[0]),
        (models.quadruped(floor_size=10), quadruped.make_model(floor_size=10)),
        (
            models.quadruped(floor_size=40, terrain=True, rangefinders=True),
            quadruped.make_model(floor_size=40, terrain=True, rangefinders=True),
        ),
        (models.quadruped(walls_and_ball=True), quadruped.make_model(walls_and_ball=True)),
    ]
    for ours, theirs in cases:
        a = mujoco.MjModel.from_xml_string(ours, models.assets())
        b = mujoco.MjModel.from_xml_string(theirs.decode() if isinstance(theirs, bytes) else theirs, common.ASSETS)
        for name in dir(b):
            va = getattr(b, name)
            if isinstance(va, np.ndarray):
                np.testing.assert_array_equal(getattr(a, name), va, err_msg=name)
            elif isinstance(va, (int, float)) and not name.startswith("_"):
                assert getattr(a, name) == va, name


@pytest.mark.oracle
def test_episode_semantics():
    """time_limit, action_repeat and flat_observation as dm_control (and DrQ-v2's action repeat): the last step
    is truncated with discount 1 at dm_control's LAST step; repeated steps sum the rewards."""
    env = dmc.load("cheetah", "run", time_limit=0.28)
    de = suite.load("cheetah", "run", task_kwargs={"random": 5, "time_limit": 0.28})
    env.reset(seed=5)
    de.reset()
    n = 0
    while True:
        a = np.full(6, 0.3)
        _, r, terminated, truncated, info = env.step(a)
        ts = de.step(a)
        n += 1
        assert r == ts.reward and truncated == ts.last() and not terminated
        if ts.last():
            assert info["discount"] == ts.discount == 1.0
            break
    assert n == 29  # 0.28 / 0.01 = 28.000000000000004 control steps: dm_control ends after 29
    env = dmc.load("hopper", "hop", action_repeat=3, time_limit=0.25, flat_observation=True)
    de = suite.load(
        "hopper", "hop", task_kwargs={"random": 2, "time_limit": 0.25}, environment_kwargs={"flat_observation": True}
    )
    obs, _ = env.reset(seed=2)
    np.testing.assert_array_equal(obs, de.reset().observation[control.FLAT_OBSERVATION_KEY])
    assert env.observation_space.shape == obs.shape and env.dt == 3 * de.control_timestep()
    rng = np.random.RandomState(0)
    for k in range(5):  # 0.25 s of 0.02 s control steps ends after 13: 3 + 3 + 3 + 3 + 1
        a = rng.uniform(-1, 1, 4)
        obs, r, terminated, truncated, info = env.step(a)
        total = 0.0
        for _ in range(3):
            ts = de.step(a)
            total += ts.reward
            if ts.last():
                break
        np.testing.assert_allclose(obs, ts.observation[control.FLAT_OBSERVATION_KEY], rtol=0, atol=1e-12)
        assert abs(r - total) <= 1e-12 and truncated == (k == 4) == ts.last()


def test_bad_actions():
    """Wrong shapes and non-finite actions raise ValueError and leave the state unchanged."""
    env = dmc.load("cheetah", "run")
    with pytest.raises(gym.error.ResetNeeded):
        env.step(np.zeros(6))
    env.reset(seed=0)
    qpos = env.data.qpos.copy()
    for a in (np.zeros(5), np.array([0, 0, np.nan, 0, 0, 0]), np.array([np.inf] * 6), np.array(["a"] * 6)):
        with pytest.raises(ValueError):
            env.step(a)
    np.testing.assert_array_equal(env.data.qpos, qpos)
    with pytest.raises(TypeError, match="unknown keyword"):
        dmc.load("cheetah", "run", move_speed=3)


def test_pickle():
    """A pickled env and a pickled vector engine (SubprocVecEnv's workers) continue bit for bit as the originals,
    through the episode's end (the task program is rebuilt on unpickling, its buffers travel)."""
    import pickle
    from envs.dmc.engine import DMCEngine

    env = dmc.load("cheetah", "run", time_limit=0.05)
    env.reset(seed=0)
    env.step(np.full(6, 0.3))
    copy = pickle.loads(pickle.dumps(env))
    for _ in range(4):
        (o1, *r1), (o2, *r2) = env.step(np.full(6, -0.2)), copy.step(np.full(6, -0.2))
        np.testing.assert_array_equal(o1["velocity"], o2["velocity"])
        assert r1 == r2
    assert r1[2]  # truncated: the step limit travelled
    eng = DMCEngine("numjoco/dmc-cheetah-run-v0", 2, time_limit=0.05)
    eng.seed([0, 1], [3, 4])
    eng.reset([0, 1])
    eng.step(np.full((2, 6), 0.3))
    copy = pickle.loads(pickle.dumps(eng))
    for _ in range(4):
        r1, r2 = eng.step(np.full((2, 6), -0.2)), copy.step(np.full((2, 6), -0.2))
        np.testing.assert_array_equal(eng.observations()["velocity"], copy.observations()["velocity"])
        for x, y in zip(r1[:3], r2[:3]):
            np.testing.assert_array_equal(x, y)
    assert r1[2].all()


def _vector_vs_single(domain, task, n, nsteps, seed=10, **kwargs):
    """World i of gym.make_vec against a single env reset(seed=seed + i): the largest difference of observations
    and rewards, and the truncation flags of both."""
    venv = gym.make_vec(dmc.env_id(domain, task), num_envs=n, **kwargs)
    singles = [dmc.load(domain, task, **kwargs) for _ in range(n)]
    obs, _ = venv.reset(seed=seed)
    ref = [s.reset(seed=seed + i)[0] for i, s in enumerate(singles)]
    err = max(float(np.max(np.abs(obs[k][i] - ref[i][k]))) for i in range(n) for k in ref[0])
    rng = np.random.RandomState(0)
    for _ in range(nsteps):
        a = rng.uniform(-1, 1, (n, singles[0].model.nu))
        obs, r, terminated, truncated, info = venv.step(a)
        for i, s in enumerate(singles):
            o, ri, te, tr, _ = s.step(a[i])
            err = max(err, max(float(np.max(np.abs(obs[k][i] - o[k]))) for k in o), abs(r[i] - ri))
            assert tr == truncated[i] and te == terminated[i]
    venv.close()
    return err


@pytest.mark.oracle
def test_vector_env_autoreset():
    """The native vector env: each world as the single env of its seed (bit for bit) through episode ends
    (time_limit 0.05 s: 5 control steps, 3 env steps with action_repeat 2) and the next-step autoreset; the
    same-step mode's final observations."""
    from gymnasium.vector import AutoresetMode

    venv = gym.make_vec("numjoco/dmc-cheetah-run-v0", num_envs=3, action_repeat=2, time_limit=0.05)
    assert venv.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, _ = venv.reset(seed=4)
    single = dmc.load("cheetah", "run", action_repeat=2, time_limit=0.05)
    o1, _ = single.reset(seed=5)
    np.testing.assert_array_equal(obs["position"][1], o1["position"])
    a = np.full((3, 6), 0.5)
    flags = []
    for t in range(4):
        obs, r, terminated, truncated, info = venv.step(a)
        if t < 3:
            o1, r1, _, tr1, _ = single.step(a[1])
            np.testing.assert_array_equal(obs["velocity"][1], o1["velocity"])
            assert r[1] == r1 and truncated[1] == tr1
        flags.append(truncated.tolist())
    assert flags == [[False] * 3, [False] * 3, [True] * 3, [False] * 3]
    assert np.all(r == 0)  # the step after the end resets (NEXT_STEP): no reward
    venv = gym.make_vec(
        "numjoco/dmc-cheetah-run-v0",
        num_envs=2,
        time_limit=0.02,
        autoreset_mode=AutoresetMode.SAME_STEP,
        flat_observation=True,
    )
    venv.reset(seed=0)
    venv.step(np.zeros((2, 6)))
    obs, r, terminated, truncated, info = venv.step(np.zeros((2, 6)))
    assert truncated.all() and info["_final_obs"].all()
    single = dmc.load("cheetah", "run", flat_observation=True, time_limit=0.02)
    single.reset(seed=1)
    single.step(np.zeros(6))
    last, *_ = single.step(np.zeros(6))
    np.testing.assert_array_equal(info["final_obs"][1], last)  # the episode's last observation
    np.testing.assert_array_equal(obs[1], single.reset()[0])  # the next episode, same RandomState


@pytest.mark.oracle
@pytest.mark.full
@pytest.mark.parametrize(
    "domain,task",
    [
        ("reacher", "easy"),
        ("manipulator", "bring_ball"),
        ("finger", "turn_hard"),
        ("fish", "swim"),
        ("swimmer", "swimmer6"),
        ("quadruped", "run"),
    ],
)
def test_vector_env_matches_single(domain, task):
    """Tasks that move a target (a model row per world) and the quadruped: every world bit for bit as its
    single env over 30 steps."""
    assert _vector_vs_single(domain, task, 3, 30) == 0.0


@pytest.mark.oracle
@pytest.mark.full
@pytest.mark.parametrize(
    "domain,task", [("cheetah", "run"), ("walker", "walk"), ("quadruped", "walk"), ("reacher", "easy")]
)
def test_pixels_segmentation(domain, task):
    """obs_type="pixels": the 84x84 image of DrQ-v2's camera; which object each pixel shows (segmentation) as
    mujoco.Renderer draws dm_control's physics in the same state (>= 99 % of the pixels: numjoco draws exact
    shapes where MuJoCo tessellates, so silhouettes differ by up to a pixel)."""
    import mujoco

    env = dmc.load(domain, task, obs_type="pixels")
    de = suite.load(domain, task, task_kwargs={"random": 3})
    img, _ = env.reset(seed=3)
    de.reset()
    assert img.shape == (84, 84, 3) and img.dtype == np.uint8 and env.observation_space.contains(img)
    rng = np.random.RandomState(0)
    for _ in range(5):
        a = rng.uniform(-1, 1, env.model.nu)
        img, *_ = env.step(a)
        de.step(a)
    r = env._pixels.renderer
    r.enable_segmentation_rendering()
    r.update_scene(env.data, camera=env.camera_id)
    ours = r.render()[..., 0]
    with mujoco.Renderer(de.physics.model.ptr, 84, 84) as mr:
        mr.enable_segmentation_rendering()
        mr.update_scene(de.physics.data.ptr, camera=env.camera_id)
        theirs = mr.render()[..., 0]
    assert np.mean(ours == theirs) >= 0.99, f"{np.mean(ours == theirs):.3f} of the pixels agree"
    both = dmc.load(domain, task, obs_type="pixels_state")
    o, _ = both.reset(seed=3)
    assert both.observation_space.contains(o) and list(o)[-1] == "pixels"
