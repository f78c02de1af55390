"""Stable-Baselines3 VecEnv on the batched engine of envs/vector.py (one compiled call steps every world).

    import envs
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import VecMonitor, VecNormalize
    venv = VecNormalize(VecMonitor(envs.make_sb3_vec_env("numjoco/Hopper-v0", 16, seed=0)))
    PPO("MlpPolicy", venv).learn(100_000)

Semantics are DummyVecEnv's over gym.make(id) envs seeded seed + i (and the same numbers, bit for bit): done =
terminated or truncated with an immediate reset, info["terminal_observation"] the last observation,
info["TimeLimit.truncated"] = truncated and not terminated, the reset info in reset_infos, rewards float32;
seed() / set_options() apply at the next reset(); get_attr / set_attr / env_method act on each world seen as a
single env (envs.vector.WorldView; compute_reward of goal envs for HerReplayBuffer).  Keywords of the task,
max_episode_steps, num_threads and randomization (envs/randomize.py) are accepted by make_sb3_vec_env.
SB3's API wants a list of info dicts: building them is the one Python loop over the worlds per step.
"""

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from envs.vector import BatchEngine, WorldView
from sim.constants import ST_DIVERGED


class WorldsVecEnv(VecEnv):
    """What the SB3 VecEnvs on a batched engine share (numjoco tasks, Control Suite, Fetch / Shadow Hand): the
    actions held until step_wait, the seeds of the next reset, and get_attr / set_attr / env_method /
    env_is_wrapped on world i seen as a single env (world_attr / set_world_attr)."""

    _actions = None

    def world_attr(self, i, name):
        """Attribute `name` of world i seen as a single env."""
        raise NotImplementedError

    def set_world_attr(self, i, name, value):
        raise AttributeError(
            f"{name!r} is shared by the worlds of a numjoco vector env and cannot be set per environment; "
            "create the env with the value instead"
        )

    def take_reset_seeds(self):
        """The seeds of this reset (those of seed(), one per world, or None: each world continues its generator);
        clears them.  The tasks take no reset options."""
        if any(self._options):
            raise ValueError(f"numjoco tasks take no reset options, got {self._options}")
        seeds = self._seeds if any(s is not None for s in self._seeds) else None
        self._reset_seeds()
        self._reset_options()
        return seeds

    def step_async(self, actions):
        self._actions = actions

    def take_actions(self):
        """The actions of step_async (once)."""
        actions, self._actions = self._actions, None
        return actions

    def get_attr(self, attr_name, indices=None):
        return [self.world_attr(i, attr_name) for i in self._get_indices(indices)]

    def set_attr(self, attr_name, value, indices=None):
        for i in self._get_indices(indices):
            self.set_world_attr(i, attr_name, value)

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        return [self.world_attr(i, method_name)(*method_args, **method_kwargs) for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None):
        """No world is wrapped by a Gymnasium wrapper (monitor with VecMonitor)."""
        return [False for _ in self._get_indices(indices)]


class NumjocoSB3VecEnv(WorldsVecEnv):
    """SB3 VecEnv of n_envs worlds of a numjoco task (see the module doc)."""

    def __init__(self, task, n_envs, *, max_episode_steps=None, num_threads=None, randomization=None, **kwargs):
        self.engine = eng = BatchEngine(
            task,
            n_envs,
            max_episode_steps=max_episode_steps,
            same_step=True,
            num_threads=num_threads,
            randomization=randomization,
            **kwargs,
        )
        super().__init__(eng.nworld, eng.template.observation_space, eng.template.action_space)
        self._actions = None
        self._obs = [None] * eng.nworld  # each world's observation (tasks with Python layers)

    # ------------------------------------------------------------------ VecEnv API
    def reset(self):
        eng = self.engine
        seeds = self.take_reset_seeds()
        worlds = np.arange(self.num_envs)
        eng.reset(worlds, seeds)
        if eng.python_layers:
            self._layered_resets(worlds)
            return self._stack()
        self.reset_infos = _split_info(eng.reset_info(worlds), self.num_envs)
        return eng.emit(eng.obs.copy(), None if eng.obs_type == "states" else eng.frames())

    def step_wait(self):
        eng = self.engine
        if eng.rngs[0] is None:
            raise RuntimeError("reset() must be called before step()")
        eng.set_actions(self._actions)
        final = eng.step(None)
        actions = self.take_actions()
        if eng.python_layers:
            return self._layered_step_wait(actions)
        term, trunc = eng.ended()
        done = term | trunc
        rewards = eng.reward.astype(np.float32)
        infos = [dict(zip(eng.names, row)) for row in eng.terms[:, eng.term_cols].tolist()]
        tl = (trunc & ~term).tolist()
        for i, info in enumerate(infos):
            info["TimeLimit.truncated"] = tl[i]
        for key, field in eng.info_arrays:
            rows = getattr(eng.data, field)
            for i, info in enumerate(infos):
                info[key] = rows[i].copy()
        for w in np.flatnonzero(eng.status[:, ST_DIVERGED]):
            infos[w]["diverged"] = True
        frames = None if eng.obs_type == "states" else eng.frames()  # before the resets: the last frames
        if done.any():
            worlds = np.flatnonzero(done)
            if final is None:  # reset here, after reading the last step
                eng.finish_same_step(worlds)
            rinfo = _split_info(eng.reset_info(worlds), self.num_envs)
            for w in worlds:
                infos[w]["terminal_observation"] = eng.emit(
                    eng.final_obs[w].copy(), None if frames is None else frames[w].copy()
                )
                self.reset_infos[w] = rinfo[w]
            if frames is not None:
                frames[worlds] = eng.frames(worlds)
        return eng.emit(eng.obs.copy(), frames), rewards, done, infos

    def _layered_step_wait(self, actions):
        """A step of a task with Python layers (step / reset overrides), per world as DummyVecEnv runs them."""
        eng, n = self.engine, self.num_envs
        rewards = np.zeros(n, np.float32)
        dones = np.zeros(n, bool)
        infos = [None] * n
        for w, (o, r, te, tr, info) in enumerate(eng.layered_steps(np.arange(n), actions)):
            rewards[w], dones[w] = r, te or tr
            info["TimeLimit.truncated"] = tr and not te
            if dones[w]:
                info["terminal_observation"] = o
            else:
                self._obs[w] = o
            infos[w] = info
        if dones.any():
            worlds = np.flatnonzero(dones)
            eng.finish_same_step(worlds)
            self._layered_resets(worlds)
        return self._stack(), rewards, dones, infos

    def _layered_resets(self, worlds):
        """The reset results of the listed worlds (just reset) through the task's Python layers, with their
        randomised values."""
        vals = None if self.engine.randomizer is None else self.engine.randomizer.values
        for w, (o, info) in zip(worlds.tolist(), self.engine.layered_resets(worlds)):
            self._obs[w], self.reset_infos[w] = o, info
            if vals is not None:
                info["randomization"] = {k: v[w].copy() for k, v in vals.items()}

    def _stack(self):
        """The worlds' observations (tasks with Python layers) as SB3 batches them (Dict: per key)."""
        if isinstance(self.observation_space, spaces.Dict):
            return {k: np.stack([o[k] for o in self._obs]) for k in self.observation_space.spaces}
        return np.stack(self._obs)

    def close(self):
        self.engine.close()

    def world_attr(self, i, name):
        return getattr(WorldView(self.engine, i), name)

    def set_world_attr(self, i, name, value):
        setattr(WorldView(self.engine, i), name, value)

    def get_images(self):
        return [WorldView(self.engine, i).render() for i in range(self.num_envs)]


def _split_info(info, n):
    """Gymnasium's vector info (dict of arrays with _masks) -> one dict per world."""
    out = [{} for _ in range(n)]
    for k, v in info.items():
        if k.startswith("_"):
            continue
        mask = info.get("_" + k)
        if isinstance(v, dict):
            sub = _split_info(v, n)
            for w in np.flatnonzero(mask):
                out[w][k] = sub[w]
            continue
        vals = (
            v.tolist()
            if v.ndim == 1 and v.dtype != object
            else [np.copy(x) if isinstance(x, np.ndarray) else x for x in v]
        )
        for w in np.flatnonzero(mask):
            out[w][k] = vals[w]
    return out


def make_sb3_vec_env(env_id, n_envs, seed=None, **env_kwargs):
    """The SB3 VecEnv of n_envs worlds of env_id (a registered numjoco id, 'module:id' or a task class); world i
    seeded seed + i at the first reset when seed is given (the action space seeded with seed).  The numjoco tasks
    get NumjocoSB3VecEnv, the Control Suite tasks DMCSB3VecEnv (envs/dmc/sb3.py), the Fetch and Shadow Hand
    tasks RobotSB3VecEnv (envs/robotics/sb3.py: batched Python layers)."""
    from envs.dmc.base import DMCEnv
    from envs.entry import task_class
    from envs.robotics.core import RobotEnv

    cls = task_class(env_id)
    if cls is not None and issubclass(cls, RobotEnv):
        from envs.robotics.sb3 import RobotSB3VecEnv as vec_class
    elif cls is not None and issubclass(cls, DMCEnv):
        from envs.dmc.sb3 import DMCSB3VecEnv as vec_class
    else:
        vec_class = NumjocoSB3VecEnv
    return seeded(vec_class(env_id, n_envs, **env_kwargs), seed)


def seeded(venv, seed):
    """venv with seed() applied (world i reset with seed + i next) and its action space seeded; seed None: as is."""
    if seed is not None:
        venv.seed(seed)
        venv.action_space.seed(seed)
    return venv
