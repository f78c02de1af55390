"""PettingZoo ParallelEnv over one numjoco env: agents drive disjoint sets of its actuators, observe slices of
its state, share (or split) its reward.

MultiAgentNumjocoEnv is the machinery (actions scattered into the single env's action, observations gathered
from one pool vector by precomputed indices, rewards from the env's reward terms); mamujoco() builds the
MaMuJoCo-style factorisations of envs/marl/partitions.py on it.
"""

import functools

import numpy as np
import gymnasium as gym
from gymnasium import spaces
from pettingzoo import ParallelEnv

import sim
from sim.constants import TRN_JOINT, TRN_JOINTINPARENT
from envs.spec import dof_size, qpos_size
from envs.marl.partitions import SCENARIOS, Node, joints_at_kdist

_DATA_CATEGORIES = ("qpos", "qvel", "cinert", "cvel", "qfrc_actuator", "cfrc_ext")
_BODY_WIDTH = {"cinert": 10, "cvel": 6, "cfrc_ext": 6}


class MultiAgentNumjocoEnv(ParallelEnv):
    """Agents over the single env `env` (a gym.make'd numjoco env, TimeLimit included).

    actions: {agent: actuator indices it drives (its action vector in that order)}
    observations: {agent: indices into the pool = concat(the env's observation, data arrays in `pool_fields`)}
    rewards: None (every agent gets the env's reward) or fn(reward, info) -> {agent: reward}
    state(): the env's observation (the single-agent view).
    """

    metadata = {"render_modes": ["rgb_array"], "name": "numjoco_multiagent", "is_parallelizable": True}

    def __init__(self, env, actions, observations, pool_fields=(), rewards=None, needs_rne=False):
        self.env = env
        self.possible_agents = list(actions)
        self.agents = []
        u = env.unwrapped
        self._model, self._data = u.model, u.data
        nu = self._model.nu
        used = sorted(i for a in actions.values() for i in a)
        if used != list(range(nu)):
            raise ValueError(f"the agents must drive every actuator exactly once; they drive {used} of {nu}")
        self._act_idx = {a: np.asarray(ix, np.int64) for a, ix in actions.items()}
        self._obs_idx = {a: np.asarray(ix, np.int64) for a, ix in observations.items()}
        self._pool_fields = tuple(pool_fields)
        self._rewards = rewards
        self._needs_rne = needs_rne
        low, high = env.action_space.low, env.action_space.high
        self._action_spaces = {a: spaces.Box(low[ix], high[ix], dtype=np.float32) for a, ix in self._act_idx.items()}
        self._observation_spaces = {
            a: spaces.Box(-np.inf, np.inf, (len(ix),), np.float64) for a, ix in self._obs_idx.items()
        }
        self.state_space = env.observation_space
        self._obs = None
        self.render_mode = u.render_mode

    def __getstate__(self):
        st = dict(self.__dict__)
        del st["_model"], st["_data"]  # the env's own (its pickling rebuilds them)
        return st

    def __setstate__(self, st):
        self.__dict__.update(st)
        self._model, self._data = self.env.unwrapped.model, self.env.unwrapped.data

    @functools.lru_cache(maxsize=None)
    def observation_space(self, agent):
        return self._observation_spaces[agent]

    @functools.lru_cache(maxsize=None)
    def action_space(self, agent):
        return self._action_spaces[agent]

    def _observations(self, obs):
        self._obs = obs
        if self._needs_rne:
            sim.rne_post_constraint(self._model, self._data)
        pool = (
            obs
            if not self._pool_fields
            else np.concatenate([obs] + [np.ravel(getattr(self._data, f)) for f in self._pool_fields])
        )
        return {a: pool[ix] for a, ix in self._obs_idx.items()}

    def reset(self, seed=None, options=None):
        obs, info = self.env.reset(seed=seed, options=options)
        if seed is not None:
            for i, a in enumerate(self.possible_agents):
                self._action_spaces[a].seed(seed + i)
        self.agents = list(self.possible_agents)
        return self._observations(obs), {a: dict(info) for a in self.agents}

    def step(self, actions):
        if not self.agents:
            raise RuntimeError("step() after the episode ended: call reset()")
        act = np.zeros(self.env.action_space.shape, np.float32)
        for a in self.agents:
            if a not in actions:
                raise KeyError(f"no action for agent {a!r}")
            act[self._act_idx[a]] = actions[a]
        obs, reward, terminated, truncated, info = self.env.step(act)
        rew = (
            {a: float(reward) for a in self.agents}
            if self._rewards is None
            else {a: float(r) for a, r in self._rewards(reward, info).items()}
        )
        agents = self.agents
        term = {a: bool(terminated) for a in agents}
        trunc = {a: bool(truncated) for a in agents}
        infos = {a: dict(info) for a in agents}
        observations = self._observations(obs)
        if terminated or truncated:
            self.agents = []
        return observations, rew, term, trunc, infos

    def state(self):
        return np.array(self._obs, dtype=np.float64)

    def render(self):
        return self.env.render()

    def close(self):
        self.env.close()


def obs_segments(env):
    """{segment name: slice of the flat observation} of a numjoco env (observation_structure in order, without
    the skipped entries)."""
    u = env.unwrapped
    out, off = {}, 0
    for name, size in u.observation_structure.items():
        if name not in u._spec.skipped:
            out[name] = slice(off, off + size)
            off += size
    return out


def _qpos_range(m, j):
    return range(int(m.jnt_qposadr[j]), int(m.jnt_qposadr[j]) + qpos_size(m.jnt_type[j]))


def _dof_range(m, j):
    return range(int(m.jnt_dofadr[j]), int(m.jnt_dofadr[j]) + dof_size(m.jnt_type[j]))


class _Sources:
    """Index of each (category, element) in the pool: in the env's observation when one of its segments holds
    it (MaMuJoCo's observation factorisation: qpos after the skipped ones, qvel, cinert / cvel / cfrc_ext of
    bodies 1.., qfrc_actuator of dofs 6..), else in a data array appended to the pool."""

    def __init__(self, env):
        u = env.unwrapped
        self.m = u.model
        self.nobs = u._prog.nobs
        self.seg = obs_segments(env)
        self.skipped = int(u.observation_structure.get("skipped_qpos", 0))
        self.fields = []
        self.offsets = {}

    def _obs_index(self, cat, i):
        seg = self.seg.get(cat)
        if seg is None:
            return None
        size = seg.stop - seg.start
        m = self.m
        if cat == "qpos":
            k, n = i - self.skipped, m.nq - self.skipped
        elif cat == "qvel":
            k, n = i, m.nv
        elif cat == "qfrc_actuator":
            k, n = i - 6, m.nv - 6
        else:
            w = _BODY_WIDTH[cat]
            k, n = i - w, (m.nbody - 1) * w
        if size != n:
            raise ValueError(f"the {cat} segment of the observation has {size} elements, expected {n}")
        return seg.start + k if 0 <= k < n else -1

    def index(self, cat, i):
        """Pool index of element i of Data field cat (flat, per world); -1: not observed (a skipped qpos)."""
        k = self._obs_index(cat, i)
        if k is not None:
            return k
        if cat not in self.offsets:
            self.offsets[cat] = self.nobs + sum(_field_size(self.m, f) for f in self.fields)
            self.fields.append(cat)
        return self.offsets[cat] + i


def _field_size(m, f):
    return {
        "qpos": m.nq,
        "qvel": m.nv,
        "qfrc_actuator": m.nv,
        "cinert": 10 * m.nbody,
        "cvel": 6 * m.nbody,
        "cfrc_ext": 6 * m.nbody,
    }[f]


def _body(m, ref):
    if isinstance(ref, tuple):
        j = m.name2id("joint", ref[1])
        if j < 0:
            raise ValueError(f"no joint named {ref[1]!r}")
        return int(m.jnt_bodyid[j])
    b = m.name2id("body", ref)
    if b < 0:
        raise ValueError(f"no body named {ref!r}")
    return b


def _node_items(src, m, node, cat, seen):
    """Pool indices of category `cat` of a node (a joint): its qpos / qvel / qfrc_actuator elements, or the rows
    of its bodies not yet observed (bodies are observed once per category)."""
    j = m.name2id("joint", node.joint)
    if j < 0:
        raise ValueError(f"no joint named {node.joint!r} in the model")
    if cat == "qpos":
        ix = [src.index("qpos", i) for i in _qpos_range(m, j)]
    elif cat in ("qvel", "qfrc_actuator"):
        ix = [src.index(cat, i) for i in _dof_range(m, j)]
    elif cat in _BODY_WIDTH:
        ix = []
        w = _BODY_WIDTH[cat]
        for ref in node.bodies:
            b = _body(m, ref)
            if (cat, b) not in seen:
                seen.add((cat, b))
                ix += [src.index(cat, b * w + c) for c in range(w)]
    else:
        raise ValueError(f"unknown observation category {cat!r}; known: {_DATA_CATEGORIES}")
    return [i for i in ix if i >= 0]


def mamujoco(
    scenario,
    agent_conf,
    agent_obsk=1,
    local_categories=None,
    global_categories=("qpos", "qvel"),
    max_cycles=None,
    task=None,
    **env_kwargs,
):
    """MaMuJoCo-style ParallelEnv: scenario 'Hopper' | 'HalfCheetah' | 'Walker2d' | 'Ant' | 'Humanoid',
    agent_conf '3x1' | '2x3' | '6x1' | '2x4' | '2x4d' | '4x2' | '9|8' (see partitions.SCENARIOS), agent_obsk
    (graph distance of the joints an agent observes; None: one agent seeing the whole observation),
    local_categories per distance (default MaMuJoCo's per scenario), global_categories of the root joints,
    max_cycles (truncation; default the task's max_episode_steps), task (another registered id with the same
    model), other keywords to the task."""
    if scenario not in SCENARIOS:
        raise ValueError(f"unknown scenario {scenario!r}; known: {sorted(SCENARIOS)}")
    sc = SCENARIOS[scenario]
    task = task or sc.task
    if task not in gym.registry:
        raise gym.error.NameNotFound(f"{task} (the single-agent task of scenario {scenario}) is not registered")
    kw = dict(env_kwargs)
    if max_cycles is not None:
        kw["max_episode_steps"] = int(max_cycles)
    env = gym.make(task, **kw)
    m = env.unwrapped.model
    if agent_obsk is None or agent_conf is None:
        n = env.observation_space.shape[0]
        return MultiAgentNumjocoEnv(env, {"agent_0": list(range(m.nu))}, {"agent_0": list(range(n))})
    if agent_conf not in sc.partitions:
        raise ValueError(f"unknown agent_conf {agent_conf!r} for {scenario}; known: {sorted(sc.partitions)}")
    nodes = {nd.joint: nd for nd in sc.nodes}
    act_of = {}
    for a in range(m.nu):
        if int(m.actuator_trntype[a]) not in (TRN_JOINT, TRN_JOINTINPARENT):
            raise ValueError(f"actuator {a} of {task} does not drive a joint")
        act_of[m.id2name("joint", int(m.actuator_trnid[a][0]))] = a
    cats = local_categories or sc.local_categories
    cats = [cats[k if k < len(cats) else -1] for k in range(agent_obsk + 1)]
    src = _Sources(env)
    actions, observations = {}, {}
    for i, part in enumerate(sc.partitions[agent_conf]):
        agent = f"agent_{i}"
        actions[agent] = [act_of[j] for j in part]
        kd = joints_at_kdist(part, sc.edges, agent_obsk)
        ix, seen = [], set()
        for k in sorted(kd):
            for j in kd[k]:
                for cat in cats[k]:
                    ix += _node_items(src, m, nodes[j], cat, seen)
        seen = set()
        for cat in global_categories:
            for g in sc.globals:
                ix += _node_items(src, m, Node(g), cat, seen)
        observations[agent] = ix
    needs_rne = any(f in ("cfrc_ext",) for f in src.fields)
    return MultiAgentNumjocoEnv(env, actions, observations, pool_fields=src.fields, needs_rne=needs_rne)
