"""numjoco's Stable-Baselines3 VecEnv: N worlds of one task of any family on its engine (envs/worlds.py protocol),
with DummyVecEnv's semantics over gym.make(id) envs seeded seed + i and the same numbers, bit for bit.

    import envs
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import VecMonitor, VecNormalize
    venv = VecNormalize(VecMonitor(envs.make_sb3_vec_env("numjoco/Hopper-v0", 16, seed=0)))
    PPO("MlpPolicy", venv).learn(100_000)

done = terminated or truncated with an immediate reset (the engine's same-step autoreset),
info["terminal_observation"] the last observation, info["TimeLimit.truncated"] = truncated and not terminated,
the reset info in reset_infos, rewards float32, observations stacked as DummyVecEnv stacks them (a Dict per key,
images as uint8); seed() / set_options() apply at the next reset(); get_attr / set_attr / env_method act on each
world seen as a single env (compute_reward of goal envs for HerReplayBuffer, a Control Suite world's RandomState
`random`).  Keywords: max_episode_steps, num_threads, randomization (envs/randomize.py) and the task's.  SB3's API
wants a list of info dicts: building them is the one Python loop over the worlds per step.
"""

import warnings

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from envs.vector import make_engine
from envs.worlds import split_info


class NumjocoSB3VecEnv(VecEnv):
    """SB3 VecEnv of n_envs worlds of a numjoco task (see the module doc)."""

    def __init__(self, task, n_envs, **options):
        self.engine = eng = make_engine(task, n_envs, same_step=True, **options)
        super().__init__(eng.num_envs, eng.env.observation_space, eng.env.action_space)
        self.render_mode = eng.env.render_mode
        self._actions = None
        self._started = False

    @property
    def template(self):
        """The env the engine drives (settings, spaces)."""
        return self.engine.env

    def _reset_seeds_now(self):
        """The seeds of this reset (those of seed(), one per world, or None each); clears them.  The tasks take
        no reset options."""
        if any(self._options):
            raise ValueError(f"numjoco tasks take no reset options, got {self._options}")
        seeds = list(self._seeds)
        self._reset_seeds()
        self._reset_options()
        return seeds

    # ------------------------------------------------------------------ VecEnv API
    def reset(self):
        eng = self.engine
        worlds = np.arange(self.num_envs)
        eng.seed(worlds, self._reset_seeds_now())
        self.reset_infos = split_info(eng.reset(worlds), self.num_envs)
        self._started = True
        return eng.observations()

    def step_async(self, actions):
        self._actions = actions

    def step_wait(self):
        eng = self.engine
        if not self._started:
            raise RuntimeError("reset() must be called before step()")
        actions, self._actions = self._actions, None
        reward, terminated, truncated, info, ended = eng.step_same(actions)
        infos = split_info(info, self.num_envs)
        for i, tl in enumerate((truncated & ~terminated).tolist()):
            infos[i]["TimeLimit.truncated"] = tl
        if ended is not None:
            rinfo = split_info(ended.reset_info, self.num_envs)
            for w in np.flatnonzero(ended.mask).tolist():
                infos[w]["terminal_observation"] = ended.obs[w]
                self.reset_infos[w] = rinfo[w]
        return eng.observations(), reward.astype(np.float32), terminated | truncated, infos

    def close(self):
        self.engine.close()

    def get_images(self):
        """Each world's render() (DummyVecEnv's: None with a warning unless render_mode is "rgb_array")."""
        if self.render_mode != "rgb_array":
            warnings.warn(
                f"The render mode is {self.render_mode}, but this method assumes it is `rgb_array` to obtain images.",
                stacklevel=2,
            )
            return [None] * self.num_envs
        return list(self.engine.render())

    def get_attr(self, attr_name, indices=None):
        return [self.engine.world_attr(i, attr_name) for i in self._get_indices(indices)]

    def set_attr(self, attr_name, value, indices=None):
        for i in self._get_indices(indices):
            self.engine.set_world_attr(i, attr_name, value)

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        return [
            self.engine.world_attr(i, method_name)(*method_args, **method_kwargs) for i in self._get_indices(indices)
        ]

    def env_is_wrapped(self, wrapper_class, indices=None):
        """No world is wrapped by a Gymnasium wrapper (monitor with VecMonitor)."""
        return [False for _ in self._get_indices(indices)]


def make_sb3_vec_env(env_id, n_envs, seed=None, **env_kwargs):
    """The SB3 VecEnv of n_envs worlds of env_id (a registered numjoco id, 'module:id', an entry point or a task
    class); world i seeded seed + i at the first reset when seed is given (the action space seeded with seed)."""
    venv = NumjocoSB3VecEnv(env_id, n_envs, **env_kwargs)
    if seed is not None:
        venv.seed(seed)
        venv.action_space.seed(seed)
    return venv
