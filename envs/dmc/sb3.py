"""Stable-Baselines3 VecEnv of a Control Suite task on the batched engine (envs/dmc/vector.py DMCVectorEnv, in
Gymnasium's same-step autoreset mode).

    import envs
    from stable_baselines3 import PPO
    venv = envs.make_sb3_vec_env("numjoco/dmc-cartpole-balance-v0", 8, seed=0, obs_type="pixels", action_repeat=2)
    PPO("CnnPolicy", venv).learn(100_000)         # SB3 adds VecTransposeImage for the (84, 84, 3) uint8 images

DummyVecEnv's semantics over gym.make(id) envs seeded seed + i, with the same numbers: observations stacked as
DummyVecEnv stacks them (a Dict per key, the flat vector with flat_observation=True, the uint8 images with
obs_type="pixels"), float32 rewards, done = terminated or truncated with an immediate reset,
info["terminal_observation"], info["TimeLimit.truncated"], info["discount"] (and info["diverged"]) as the single
env gives them.  get_attr / env_method act on each world seen as a single env: its RandomState (`random`), its
frame (`render`) and last reward (`reward`); the task's settings are shared; the state lives in the batch
(`venv.vector_env.data`, a world axis first).  SB3's API wants a list of info dicts: building them is the one
Python loop over the worlds per step.
"""

import warnings

import numpy as np
from gymnasium.vector import AutoresetMode

from envs.dmc.vector import DMCVectorEnv
from envs.sb3 import WorldsVecEnv

# attributes of a single env that hold its simulation state: a world's is a row of the batch, not the template's
_BATCHED_STATE = frozenset(
    ("data", "physics", "np_random", "step", "reset", "initialize_episode", "_out", "_reg", "_count")
    + ("_needs_reset", "_evaluate", "_observation", "_render_pixels", "_diverged", "_diverged0")
)


class DMCSB3VecEnv(WorldsVecEnv):
    """SB3 VecEnv of n_envs worlds of a Control Suite task (see the module doc); kwargs go to the task
    (time_limit, action_repeat, flat_observation, obs_type, width, height, camera_id, render_mode, task
    parameters); num_threads: numba threads of the batched calls."""

    _renderer = None  # render() / get_images(): the single env's renderer over the batched Data

    def __init__(self, task, n_envs, *, num_threads=None, **kwargs):
        self.vector_env = v = DMCVectorEnv(
            task, n_envs, autoreset_mode=AutoresetMode.SAME_STEP, num_threads=num_threads, **kwargs
        )
        super().__init__(v.num_envs, v.single_observation_space, v.single_action_space)

    @property
    def template(self):
        """The task's single env the batch was built from (settings, spaces, the observation program)."""
        return self.vector_env.template

    def reset(self):
        obs, _ = self.vector_env.reset(seed=self.take_reset_seeds())
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def step_wait(self):
        obs, reward, terminated, truncated, info = self.vector_env.step(self.take_actions())
        done = terminated | truncated
        tl = (truncated & ~terminated).tolist()
        infos = [{"discount": d, "TimeLimit.truncated": t} for d, t in zip(info["discount"].tolist(), tl)]
        for w in np.flatnonzero(info.get("_diverged", ())):
            infos[w]["diverged"] = True
        for w in np.flatnonzero(done):
            infos[w]["terminal_observation"] = info["final_obs"][w]
            self.reset_infos[w] = {}
        return obs, reward.astype(np.float32), done, infos

    def close(self):
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
        self.vector_env.close()

    def world_attr(self, i, name):
        v = self.vector_env
        if name == "random":
            return v._rngs[i]
        if name == "render":
            return lambda: self._render(i)
        if name == "reward":
            return lambda: float(v._out[i, -1])
        if name in _BATCHED_STATE or (name == "model" and v.world_rows is not None):
            raise AttributeError(
                f"{name!r} of a world is held in the batched engine, not in a single env: see venv.vector_env "
                "(data with a world axis first; world_rows: the model arrays a task sets per episode)"
            )
        return getattr(self.template, name)

    def _render(self, world=None):
        """The single env's render() of a world (None: every world, a leading world axis)."""
        tpl = self.template
        if tpl.render_mode is None:
            return tpl.render()  # Gymnasium's warning, None
        if self._renderer is None:
            from envs.render import EnvRenderer

            self._renderer = EnvRenderer(tpl)
        return self._renderer.render_data(self.vector_env.data, world)

    def get_images(self):
        """Each world's render() in one batched call (DummyVecEnv's: None with a warning unless render_mode is
        "rgb_array")."""
        if self.render_mode != "rgb_array":
            warnings.warn(
                f"The render mode is {self.render_mode}, but this method assumes it is `rgb_array` to obtain images.",
                stacklevel=2,
            )
            return [None] * self.num_envs
        return list(self._render())
