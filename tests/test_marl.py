"""PettingZoo ParallelEnvs on numjoco (envs/marl): MaMuJoCo-style factorisations and the two-arm task.

PettingZoo's own checks (parallel_api_test, parallel_seed_test, max_cycles_test) on every factorisation; local
observations against a direct reading of the Data (MaMuJoCo's build_obs order: distance, joint name, category;
bodies once per category; then the global joints), on the registered numjoco tasks.
"""

import types

import numpy as np
import pytest
import gymnasium as gym

pytest.importorskip("pettingzoo")
from pettingzoo.test import parallel_api_test, parallel_seed_test, max_cycles_test  # noqa: E402

import envs  # noqa: E402,F401
from envs import marl  # noqa: E402

CASES = [
    ("Hopper", "3x1"),
    ("HalfCheetah", "2x3"),
    ("HalfCheetah", "6x1"),
    ("Walker2d", "2x3"),
    ("Ant", "2x4"),
    ("Ant", "2x4d"),
    ("Ant", "4x2"),
    ("Humanoid", "9|8"),
]


def _make(scenario, conf, **kw):
    if scenario == "TwoArmReach":
        return marl.parallel_env(**kw)
    return marl.parallel_env(scenario, conf, **kw)


@pytest.mark.parametrize("scenario,conf", CASES + [("TwoArmReach", "shared"), ("TwoArmReach", "compete")])
def test_pettingzoo_checks(scenario, conf):
    kw = {"mode": conf} if scenario == "TwoArmReach" else {}
    conf = None if scenario == "TwoArmReach" else conf
    parallel_api_test(_make(scenario, conf, **kw), num_cycles=200)
    parallel_seed_test(lambda: _make(scenario, conf, **kw), num_cycles=100)
    mod = types.SimpleNamespace(
        parallel_env=lambda max_cycles: _make(scenario, conf, max_cycles=max_cycles, **kw),
        env=lambda max_cycles: __import__("pettingzoo.utils", fromlist=["x"]).parallel_to_aec(
            _make(scenario, conf, max_cycles=max_cycles, **kw)
        ),
    )
    max_cycles_test(mod)


def _reference_obs(env, scenario, agent, k=1):
    """MaMuJoCo's build_obs for one agent, read from the Data and the single-agent observation's clipping."""
    sc = marl.SCENARIOS[scenario]
    u = env.env.unwrapped
    m, d = u.model, u.data
    part = sc.partitions[env._conf][env.possible_agents.index(agent)]
    cats = sc.local_categories
    nodes = {n.joint: n for n in sc.nodes}
    skip = u.observation_structure.get("skipped_qpos", 0)
    clip_qvel = scenario in ("Hopper", "Walker2d")
    out = []

    def joint_vals(j, cat):
        jid = m.name2id("joint", j)
        if cat == "qpos":
            adr, n = int(m.jnt_qposadr[jid]), {0: 7, 1: 4}.get(int(m.jnt_type[jid]), 1)
            return [d.qpos[i] for i in range(adr, adr + n) if i >= skip]
        adr, n = int(m.jnt_dofadr[jid]), {0: 6, 1: 3}.get(int(m.jnt_type[jid]), 1)
        v = (d.qvel if cat == "qvel" else d.qfrc_actuator)[adr : adr + n]
        return list(np.clip(v, -10, 10) if (cat == "qvel" and clip_qvel) else v)

    def body_vals(node, cat, seen):
        vals = []
        for ref in node.bodies:
            b = m.jnt_bodyid[m.name2id("joint", ref[1])] if isinstance(ref, tuple) else m.name2id("body", ref)
            if (cat, b) in seen:
                continue
            seen.add((cat, b))
            row = np.asarray(getattr(d, cat))[b]
            vals += list(np.clip(row, -1, 1) if (cat == "cfrc_ext" and scenario == "Ant") else row)
        return vals

    kd = marl.partitions.joints_at_kdist(part, sc.edges, k)
    seen = set()
    for dist in sorted(kd):
        for j in kd[dist]:
            for cat in cats[min(dist, len(cats) - 1)]:
                out += (
                    joint_vals(j, cat) if cat in ("qpos", "qvel", "qfrc_actuator") else body_vals(nodes[j], cat, seen)
                )
    for cat in ("qpos", "qvel"):
        for g in sc.globals:
            out += joint_vals(g, cat)
    return np.array(out)


@pytest.mark.parametrize("scenario,conf", CASES)
def test_local_observations_follow_mamujoco(scenario, conf):
    env = _make(scenario, conf)
    env._conf = conf
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    for t in range(5):
        for a in env.possible_agents:
            np.testing.assert_array_equal(obs[a], _reference_obs(env, scenario, a), err_msg=f"{a} step {t}")
        obs = env.step({a: rng.uniform(-0.4, 0.4, env.action_space(a).shape).astype(np.float32) for a in env.agents})[0]
    assert np.array_equal(env.state(), env.env.unwrapped._obs[0])


def test_actions_and_shared_reward():
    env = marl.parallel_env("Hopper", "3x1")
    single = gym.make("numjoco/Hopper-v0")
    env.reset(seed=1)
    single.reset(seed=1)
    acts = {
        "agent_0": np.array([0.3], np.float32),
        "agent_1": np.array([-0.5], np.float32),
        "agent_2": np.array([0.9], np.float32),
    }
    _, rew, term, trunc, info = env.step(acts)
    o, r, *_ = single.step(np.array([0.3, -0.5, 0.9], np.float32))
    assert set(rew.values()) == {r} and np.array_equal(env.state(), o)
    assert env.action_space("agent_1").shape == (1,) and env.observation_space("agent_1").shape == (9,)
    with pytest.raises(ValueError, match="unknown agent_conf"):
        marl.parallel_env("Hopper", "2x2")
    with pytest.raises(ValueError, match="unknown scenario"):
        marl.parallel_env("Centipede", "2x4")


def test_two_arm_rewards():
    shared = marl.parallel_env("TwoArmReach", mode="shared")
    comp = marl.parallel_env("TwoArmReach", mode="compete")
    o1, _ = shared.reset(seed=0)
    comp.reset(seed=0)
    assert set(shared.possible_agents) == {"arm_0", "arm_1"} and o1["arm_0"].shape == (12,)
    a = {"arm_0": np.array([0.5, -0.2], np.float32), "arm_1": np.array([0.0, 0.3], np.float32)}
    _, rs, _, _, info = shared.step(a)
    _, rc, _, _, _ = comp.step(a)
    i = info["arm_0"]
    d0, d1 = -i["reward_dist_0"], -i["reward_dist_1"]
    c0, c1 = i["reward_ctrl_0"], i["reward_ctrl_1"]
    assert rs["arm_0"] == rs["arm_1"] == pytest.approx(-(d0 + d1) + c0 + c1, abs=1e-12)
    assert rc["arm_0"] == pytest.approx(d1 - d0 + c0, abs=1e-12) and rc["arm_1"] == pytest.approx(d0 - d1 + c1)
    assert c0 == pytest.approx(-0.1 * (0.25 + 0.04)) and c1 == pytest.approx(-0.1 * 0.09)


@pytest.mark.parametrize("scenario,conf", [("TwoArmReach", None), ("Hopper", "3x1")])
def test_shared_policy_through_supersuit(scenario, conf):
    """The example trains (a few PPO updates) one policy shared by all agents, via SuperSuit's VecEnv."""
    pytest.importorskip("supersuit")
    import torch

    torch.set_num_threads(1)
    from envs.marl.train_shared import train, make_shared_vec_env

    vec = make_shared_vec_env(scenario, conf, n_envs=2)
    n_agents = len(_make(scenario, conf).possible_agents)
    assert vec.num_envs == 2 * n_agents
    model, (first, last) = train(scenario, conf, steps=1024, n_envs=2)
    assert model.num_timesteps >= 1024 and np.isfinite(first) and np.isfinite(last)


@pytest.mark.full
def test_shared_sac_learns_two_arm_reach():
    """The example's SAC (one env: two agent slots of one shared policy), 8k steps: the mean return of the last 20
    monitored episodes beats the first 20 (measured -62.0 -> -49.1 with seed 0; asserted: +6).  ~40 s: --full."""
    pytest.importorskip("supersuit")
    import torch

    torch.set_num_threads(1)
    from envs.marl.train_shared import train

    _, (first, last) = train("TwoArmReach", None, steps=8000, n_envs=1, seed=0, algo="sac", mode="shared")
    assert last > first + 6, (first, last)
