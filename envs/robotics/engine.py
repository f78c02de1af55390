"""The engine of the Fetch and Shadow Hand tasks behind the vector envs (envs/worlds.py protocol): N worlds in one
batched Data (RobotEnv.batched), each env step one pass of numpy over the worlds and one compiled call for their
physics.  Worlds draw their initial states and goals from their own generators (Python, only for the worlds that
reset); the time limit truncates."""

import numpy as np
from gymnasium.utils import seeding

from envs.entry import resolve_task
from envs.robotics.core import RobotEnv
from envs.worlds import Worlds, check_num_envs, check_threads


class RobotEngine(Worlds):
    """num_envs worlds of a robotics task: the batched task (env), each world's generator and step count, the time
    limit; kwargs go to the task (reward_type=...)."""

    def __init__(self, task, num_envs, *, max_episode_steps=None, num_threads=None, same_step=False, **kwargs):
        cls, kwargs, spec_steps = resolve_task(task, kwargs, RobotEnv)
        n = self.num_envs = check_num_envs(num_envs)
        self.task_class, self.kwargs = cls, kwargs
        self.env = cls.batched(n, **kwargs)
        self.env.num_threads = check_threads(num_threads)
        steps = spec_steps if max_episode_steps is None else max_episode_steps
        self.max_episode_steps = int(steps or 0)
        self.elapsed = np.zeros(n, np.int64)
        self.all = np.arange(n, dtype=np.int64)

    @property
    def model(self):
        return self.env.model

    @property
    def data(self):
        return self.env.data

    def seed(self, worlds, seeds):
        rngs = self.env._rngs
        for w, s in zip(np.asarray(worlds).tolist(), seeds):
            if s is not None or rngs[w] is None:
                rngs[w], _ = seeding.np_random(s)

    def reset(self, worlds):
        worlds = np.asarray(worlds, np.int64)
        self.env.reset_worlds(worlds)
        self.elapsed[worlds] = 0
        return {}

    def step(self, actions, reset=None):
        """Step the worlds not in `reset`, reset those; info["is_success"] of the stepped ones."""
        env, n = self.env, self.num_envs
        a = env.check_actions(actions, (n,) + env.action_space.shape)
        reset = np.zeros(n, bool) if reset is None else reset
        stepped = np.flatnonzero(~reset)
        reward = np.zeros(n)
        terminated = np.zeros(n, bool)
        truncated = np.zeros(n, bool)
        success = np.zeros(n, np.float32)
        if stepped.size:
            env.step_worlds(stepped, a[stepped])
            self.elapsed[stepped] += 1
            _, ag = env.observe(stepped)
            dg = env._goal[stepped]
            succ = env.goal_success(ag, dg)
            info = {"is_success": succ}
            reward[stepped] = env.compute_reward(ag, dg, info)
            terminated[stepped] = env.compute_terminated(ag, dg, info)
            tr = np.asarray(env.compute_truncated(ag, dg, info), bool)
            if self.max_episode_steps:
                tr = tr | (self.elapsed[stepped] >= self.max_episode_steps)
            truncated[stepped], success[stepped] = tr, succ
        if reset.any():
            self.reset(np.flatnonzero(reset))
        info = {}
        if stepped.size:
            shown = ~reset
            info["is_success"] = np.where(shown, success, np.float32(0))
            info["_is_success"] = shown
        return reward, terminated, truncated, info

    def observations(self):
        return self.env.observations(self.all)

    def world_observations(self, worlds):
        obs = self.env.observations(np.asarray(worlds, np.int64))
        return [{k: v[i].copy() for k, v in obs.items()} for i in range(len(worlds))]

    def render(self):
        """A frame per world, each with its own goal marked."""
        return [self.env.render_world(w) for w in range(self.num_envs)]

    def world_attr(self, w, name):
        """An attribute of world w seen as a single env: its generator, goal and Data rows; the rest is shared."""
        env = self.env
        if name == "np_random":
            return env._rngs[w]
        if name == "goal":
            return env._goal[w].copy()
        if name in env.p:
            return env.p[name]
        return getattr(env, name)

    def set_world_attr(self, w, name, value):
        if name != "goal":
            super().set_world_attr(w, name, value)
        self.env._goal[w] = value
