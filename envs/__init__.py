"""numjoco's Gymnasium environments.  `import envs` registers the tasks under the `numjoco/` namespace:

    import gymnasium as gym, envs
    env = gym.make("numjoco/Hopper-v0")              # or gym.make("envs:numjoco/Hopper-v0") without the import
"""
from gymnasium.envs.registration import register, registry

from envs.base import NumjocoEnv  # noqa: F401

# id -> (entry point, max_episode_steps, reward_threshold)
TASKS = {
    'Hopper-v0': ('envs.tasks.hopper:HopperEnv', 1000, 3800.0),
}

for _name, (_entry, _steps, _thr) in TASKS.items():
    _id = 'numjoco/' + _name
    if _id not in registry:
        register(id=_id, entry_point=_entry, max_episode_steps=_steps, reward_threshold=_thr)
