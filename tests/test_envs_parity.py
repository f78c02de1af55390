"""numjoco's tasks side by side with Gymnasium's own v5 envs on MuJoCo (the oracle): same seed, same actions.

For every task: reset observations bitwise equal (reset info to 1e-15: numpy's norm rounds through BLAS); then the
same action sequence (float32, from a seeded action space) on both: observations, rewards and every info value
within 1e-9 relative to max(1, |value|), the same info keys, `terminated` at the same step (both envs reset
together when an episode ends and the run continues), for the first 100 steps; for the tasks without contacts (Reacher, Swimmer, InvertedPendulum,
InvertedDoublePendulum) for 1000 steps.  Kwarg variations run the same comparison on shorter runs.

Chaotic tasks: MuJoCo itself cannot hold 1e-9 for 100 steps against a 1e-15 change of its own state on HalfCheetah
(and Ant, Pusher on some seeds): Gymnasium's env against a copy whose qvel[0] moved by 1e-15, same actions,
crosses 1e-9 at step 14, 25, 41, 52, 59, 73 for seeds 1, 2, 0, 5, 3, 4, and numjoco (whose step agrees with
MuJoCo's to round-off, not bit for bit) crosses it at the same steps.  So every run also steps such a perturbed
copy of Gymnasium's env (the sensitivity reference) and a step passes when our error is <= 1e-9 or <= SENS_FACTOR
times the reference's; measured ratio ours / reference over all steps of HalfCheetah (6 seeds) and Pusher (3):
at most 4.5.  Where the reference stays below 1e-9 / SENS_FACTOR this is the plain 1e-9 test; a real error (a
wrong term, a stale field) shows at step 1, where the reference is ~1e-15.  test_parity_chaotic_flat keeps the
literal 1e-9-for-100-steps requirement as a strict expected failure on HalfCheetah.
"""

import os

import numpy as np
import pytest

import gymnasium as gym

import envs  # noqa: F401  (registers numjoco/*)

pytestmark = pytest.mark.oracle

TOL = 1e-9
TASKS = [
    "Hopper",
    "Walker2d",
    "HalfCheetah",
    "Ant",
    "Humanoid",
    "HumanoidStandup",
    "Reacher",
    "Pusher",
    "Swimmer",
    "InvertedPendulum",
    "InvertedDoublePendulum",
]
NO_CONTACT = ["Reacher", "Swimmer", "InvertedPendulum", "InvertedDoublePendulum"]
STEPS = {t: (1000 if t in NO_CONTACT else 100) for t in TASKS}

SENS_FACTOR = 20.0  # allowed ratio to the sensitivity reference (measured at most 4.5, module doc)
EPS_KICK = 1e-15  # the reference's change of qvel[0] after every reset


def _pair(task, **kw):
    """(Gymnasium's v5 env, ours), unwrapped (no time limit), same kwargs."""
    theirs = gym.make(f"{task}-v5", **kw).unwrapped
    ours = gym.make(f"numjoco/{task}-v0", **kw).unwrapped
    return theirs, ours


def _rel(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.size == 0:
        return 0.0
    return float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(a))))


def compare_runs(task, nsteps, seed=3, reference=True, **kw):
    """Run both envs side by side (and the sensitivity reference, module doc); returns (worst errors [obs,
    reward, info], first step over TOL or None, number of steps failing the bound max(TOL, SENS_FACTOR *
    reference error)); asserts the structure (info keys, termination) as it goes."""
    import mujoco

    theirs, ours = _pair(task, **kw)
    ref = gym.make(f"{task}-v5", **kw).unwrapped if reference else None

    def reset(s):
        g = theirs.reset(seed=s)
        o = ours.reset(seed=s)
        if ref is not None:
            ref.reset(seed=s)
            ref.data.qvel[0] += EPS_KICK
            mujoco.mj_forward(ref.model, ref.data)
        assert set(g[1]) == set(o[1]), (set(g[1]), set(o[1]))
        return _rel(g[0], o[0])

    worst = [reset(seed), 0.0, 0.0]
    space = theirs.action_space
    space.seed(seed)
    first, bad, ref_ok = None, 0, ref is not None
    for t in range(nsteps):
        a = space.sample()
        g = theirs.step(a)
        o = ours.step(a)
        assert set(g[4]) == set(o[4]), f"step {t}: info keys {set(g[4]) ^ set(o[4])}"
        errs = [_rel(g[0], o[0]), _rel(g[1], o[1]), max([_rel(g[4][k], o[4][k]) for k in g[4]], default=0.0)]
        worst = [max(w, e) for w, e in zip(worst, errs)]
        bound = TOL
        if ref_ok:
            r = ref.step(a)
            ref_ok = r[2] == g[2]  # the reference's own chaos may end its episode elsewhere: stop using it
            if ref_ok:
                sens = max(_rel(g[0], r[0]), _rel(g[1], r[1]), max([_rel(g[4][k], r[4][k]) for k in g[4]], default=0.0))
                bound = max(TOL, SENS_FACTOR * sens)
        if first is None and max(errs) > TOL:
            first = t
        bad += max(errs) > bound
        assert g[2] == o[2], f"step {t}: terminated {g[2]} (Gymnasium) vs {o[2]} (numjoco)"
        assert o[3] is False
        if g[2]:
            worst[0] = max(worst[0], reset(None))
            ref_ok = ref is not None
    return worst, first, bad


@pytest.mark.parametrize("task", TASKS)
def test_reset_bitwise(task):
    """Reset observation and info bitwise equal to Gymnasium's (several seeds, including back-to-back resets)."""
    theirs, ours = _pair(task)
    for seed in (0, 1, 2):
        for s in (seed, None):
            g_obs, g_info = theirs.reset(seed=s)
            o_obs, o_info = ours.reset(seed=s)
            assert g_obs.shape == o_obs.shape and o_obs.dtype == np.float64
            assert set(g_info) == set(o_info)
            for k in g_info:  # distance_from_origin: numpy's norm rounds through BLAS ddot (1 ulp apart)
                assert _rel(g_info[k], o_info[k]) <= 1e-15, f"reset info {k}: {g_info[k]} vs {o_info[k]}"
            np.testing.assert_array_equal(o_obs, g_obs)
    if getattr(theirs, "observation_structure", None) is not None:
        assert ours.observation_structure == theirs.observation_structure
    np.testing.assert_array_equal(ours.init_qpos, theirs.init_qpos)


@pytest.mark.parametrize("task", TASKS)
def test_parity(task):
    """Observations, rewards and info within 1e-9 (or within SENS_FACTOR of MuJoCo's own sensitivity, module doc)
    and the same terminations: 100 steps, 1000 for the tasks without contacts."""
    worst, first, bad = compare_runs(task, STEPS[task])
    assert bad == 0, (
        f"{task}: {bad} step(s) beyond the bound; worst obs {worst[0]:.2e} reward {worst[1]:.2e} "
        f"info {worst[2]:.2e}; first over 1e-9 at step {first}"
    )


@pytest.mark.xfail(
    strict=True,
    reason="HalfCheetah is chaotic: MuJoCo against itself with qvel[0] moved by 1e-15 "
    "crosses 1e-9 at step 59 for this seed (1.4e-4 at step 100 for numjoco vs Gymnasium)",
)
def test_parity_chaotic_flat():
    """The literal requirement on HalfCheetah: 1e-9 flat for 100 steps."""
    worst, first, bad = compare_runs("HalfCheetah", 100, reference=False)
    assert max(worst) <= TOL, f"{max(worst):.1e}, first over 1e-9 at step {first}"


# ---------------------------------------------------------------------------------------------- kwargs
INF = float("inf")
VARIATIONS = [
    (
        "Hopper",
        dict(
            ctrl_cost_weight=0.1,
            forward_reward_weight=2.0,
            healthy_reward=0.5,
            reset_noise_scale=0.02,
            exclude_current_positions_from_observation=False,
            healthy_z_range=(0.5, INF),
            healthy_angle_range=(-0.5, 0.5),
            healthy_state_range=(-50.0, 50.0),
        ),
    ),
    ("Hopper", dict(terminate_when_unhealthy=False, frame_skip=2)),
    (
        "Walker2d",
        dict(
            ctrl_cost_weight=0.01,
            healthy_z_range=(0.5, 2.5),
            healthy_angle_range=(-0.5, 0.5),
            exclude_current_positions_from_observation=False,
        ),
    ),
    (
        "HalfCheetah",
        dict(
            forward_reward_weight=2.0,
            ctrl_cost_weight=0.5,
            reset_noise_scale=0.05,
            exclude_current_positions_from_observation=False,
        ),
    ),
    (
        "Ant",
        dict(
            include_cfrc_ext_in_observation=False,
            exclude_current_positions_from_observation=False,
            contact_force_range=(-0.5, 0.5),
            contact_cost_weight=1e-3,
            ctrl_cost_weight=0.1,
            healthy_z_range=(0.3, 1.0),
            main_body="torso",
            healthy_reward=2.0,
        ),
    ),
    ("Ant", dict(main_body=2, terminate_when_unhealthy=False, reset_noise_scale=0.2)),
    (
        "Humanoid",
        dict(
            include_cinert_in_observation=False,
            include_cvel_in_observation=False,
            include_qfrc_actuator_in_observation=False,
            contact_cost_range=(-INF, 1.0),
            exclude_current_positions_from_observation=False,
            forward_reward_weight=1.0,
        ),
    ),
    (
        "Humanoid",
        dict(
            include_cfrc_ext_in_observation=False,
            healthy_z_range=(0.8, 2.1),
            ctrl_cost_weight=0.3,
            terminate_when_unhealthy=False,
        ),
    ),
    (
        "HumanoidStandup",
        dict(
            impact_cost_range=(-INF, 1.0),
            impact_cost_weight=1e-6,
            uph_cost_weight=3.0,
            exclude_current_positions_from_observation=False,
            include_cvel_in_observation=False,
        ),
    ),
    ("Reacher", dict(reward_dist_weight=0.5, reward_control_weight=0.2, frame_skip=4)),
    ("Pusher", dict(reward_near_weight=1.0, reward_dist_weight=2.0, reward_control_weight=0.01)),
    (
        "Swimmer",
        dict(
            forward_reward_weight=0.5,
            ctrl_cost_weight=1e-2,
            reset_noise_scale=0.2,
            exclude_current_positions_from_observation=False,
        ),
    ),
    ("InvertedPendulum", dict(reset_noise_scale=0.05)),
    ("InvertedDoublePendulum", dict(healthy_reward=5.0, reset_noise_scale=0.2)),
]


@pytest.mark.parametrize("task,kw", VARIATIONS, ids=[f"{t}-{i}" for i, (t, _) in enumerate(VARIATIONS)])
def test_parity_kwargs(task, kw):
    """Constructor kwargs change both envs the same way (40 steps; structure and spaces equal)."""
    theirs, ours = _pair(task, **kw)
    assert ours.observation_space.shape == theirs.observation_space.shape
    assert getattr(theirs, "observation_structure", None) in (None, ours.observation_structure)
    assert ours.dt == theirs.dt
    worst, first, bad = compare_runs(task, 40, seed=5, **kw)
    assert bad == 0, f"{task} {kw}: obs {worst[0]:.2e} reward {worst[1]:.2e} info {worst[2]:.2e}, first {first}"


@pytest.mark.parametrize("task", TASKS)
def test_spec_matches_v5(task):
    """Registry entry, spaces, dt, integrator and solver settings as v5."""
    gs, os_ = gym.spec(f"{task}-v5"), gym.spec(f"numjoco/{task}-v0")
    assert (os_.max_episode_steps, os_.reward_threshold) == (gs.max_episode_steps, gs.reward_threshold)
    theirs, ours = _pair(task)
    assert ours.action_space == theirs.action_space
    assert ours.observation_space == theirs.observation_space
    assert ours.frame_skip == theirs.frame_skip and ours.dt == theirs.dt
    assert ours.metadata["render_fps"] == theirs.metadata["render_fps"]
    for f in ("timestep", "integrator", "solver", "iterations", "cone", "density", "viscosity"):
        assert getattr(ours.model.opt, f) == getattr(theirs.model.opt, f), f
    np.testing.assert_array_equal(ours.model.opt.gravity, theirs.model.opt.gravity)
    # every v5 constructor keyword is accepted with the same default
    import inspect

    v5 = inspect.signature(type(theirs).__init__).parameters
    mine = inspect.signature(type(ours)).parameters
    for name, p in v5.items():
        if name in ("self", "kwargs"):
            continue
        assert name in mine, f"{task}: v5 keyword {name} missing"
        if name not in ("xml_file", "default_camera_config"):
            assert np.all(np.asarray(mine[name].default == p.default)), (name, mine[name].default, p.default)
    assert os.path.basename(mine["xml_file"].default) == os.path.basename(v5["xml_file"].default)
