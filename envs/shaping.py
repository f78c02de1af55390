"""Reward shaping that stays inside the compiled env step: extra reward / info terms added to a task's program.

    env = envs.RewardTerms(gym.make("numjoco/Hopper-v0"), {"reward_height": Value(qpos[1]) * 0.1})

is the wrapper form of env.unwrapped.add_terms(...): the terms (envs.spec Term objects) are compiled into the
task program, evaluated by the physics entry with the task's own terms, reported in info under their keys and
summed into the reward (info-only terms with info=...).
"""

import gymnasium as gym


class RewardTerms(gym.Wrapper):
    """Add reward terms ({info key: Term}) and info-only terms to the wrapped numjoco env's compiled step."""

    def __init__(self, env, reward=None, info=None):
        super().__init__(env)
        if not hasattr(env.unwrapped, "add_terms"):
            raise TypeError(f"RewardTerms needs a numjoco env (NumjocoEnv), got {type(env.unwrapped).__name__}")
        env.unwrapped.add_terms(reward, info)
