"""Two tiny pure-Python Gymnasium envs that exercise the whole training pipeline in seconds, without the engine.

``toy/PointReach-v0``: a point in the unit square moves by ``0.1 * action`` per step towards a target; Box
observation ``[x, y, target_x, target_y]``; reward ``-dist_weight * |p - t| - ctrl_cost_weight * |a|^2`` with
the terms in ``info`` (``reward_dist``, ``reward_ctrl``) and ``info["is_success"]``; 50 steps.

``toy/PointReachGoal-v0``: the same task as a goal-conditioned env (Dict observation ``observation`` /
``achieved_goal`` / ``desired_goal``, vectorised ``compute_reward``, ``reward_type="sparse"|"dense"``) for HER.

``toy/PointReach-v0`` also has a vector entry point (a SyncVectorEnv), standing in for our native vector envs.
Both render ``rgb_array`` frames (64 x 64, the point in red, the target in green); ``renderable=False`` makes
``render()`` raise, to test how training degrades when an env cannot render. Importing this module registers the
ids (the training env factory imports it for ``toy/`` ids).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces

_SIZE = 64


def _frame(pos: np.ndarray, target: np.ndarray) -> np.ndarray:
    img = np.full((_SIZE, _SIZE, 3), 235, np.uint8)
    yy, xx = np.mgrid[0:_SIZE, 0:_SIZE]
    for p, color, r in ((target, (40, 170, 60), 5), (pos, (210, 40, 40), 4)):
        cx, cy = (p + 1.0) * 0.5 * (_SIZE - 1)
        img[(xx - cx) ** 2 + (yy - cy) ** 2 <= r * r] = color
    return img


class PointReachEnv(gym.Env):
    """Point-mass reach in [-1, 1]^2 (Box observation)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 20}

    def __init__(
        self,
        dist_weight: float = 1.0,
        ctrl_cost_weight: float = 0.01,
        distance_threshold: float = 0.1,
        render_mode: str | None = None,
        renderable: bool = True,
    ):
        self.dist_weight, self.ctrl_cost_weight = float(dist_weight), float(ctrl_cost_weight)
        self.distance_threshold = float(distance_threshold)
        self.render_mode, self.renderable = render_mode, renderable
        self.action_space = spaces.Box(-1.0, 1.0, (2,), np.float32)
        self.observation_space = spaces.Box(-1.0, 1.0, (4,), np.float32)
        self._pos = np.zeros(2)
        self._target = np.zeros(2)

    def _obs(self):
        return np.concatenate([self._pos, self._target]).astype(np.float32)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self._pos = self.np_random.uniform(-0.9, 0.9, 2)
        self._target = self.np_random.uniform(-0.9, 0.9, 2)
        return self._obs(), {}

    def _move(self, action):
        a = np.clip(np.asarray(action, np.float64).reshape(2), -1.0, 1.0)
        self._pos = np.clip(self._pos + 0.1 * a, -1.0, 1.0)
        return a

    def step(self, action):
        a = self._move(action)
        dist = float(np.linalg.norm(self._pos - self._target))
        info = {
            "reward_dist": -self.dist_weight * dist,
            "reward_ctrl": -self.ctrl_cost_weight * float(a @ a),
            "is_success": dist < self.distance_threshold,
        }
        return self._obs(), info["reward_dist"] + info["reward_ctrl"], False, False, info

    def render(self):
        if not self.renderable:
            raise RuntimeError("PointReach was built with renderable=False")
        if self.render_mode != "rgb_array":
            return None
        return _frame(self._pos, self._target)


class PointReachGoalEnv(PointReachEnv):
    """Goal-conditioned point reach (Dict observation, `compute_reward` on batched goals) for HER."""

    def __init__(
        self,
        reward_type: str = "sparse",
        distance_threshold: float = 0.1,
        render_mode: str | None = None,
        renderable: bool = True,
    ):
        if reward_type not in ("sparse", "dense"):
            raise ValueError(f"reward_type must be 'sparse' or 'dense', got {reward_type!r}")
        super().__init__(distance_threshold=distance_threshold, render_mode=render_mode, renderable=renderable)
        self.reward_type = reward_type
        box = spaces.Box(-1.0, 1.0, (2,), np.float32)
        self.observation_space = spaces.Dict({"observation": box, "achieved_goal": box, "desired_goal": box})

    def _obs(self):
        p, t = self._pos.astype(np.float32), self._target.astype(np.float32)
        return {"observation": p.copy(), "achieved_goal": p.copy(), "desired_goal": t}

    def compute_reward(self, achieved_goal, desired_goal, info):
        d = np.linalg.norm(np.asarray(achieved_goal) - np.asarray(desired_goal), axis=-1)
        if self.reward_type == "sparse":
            return -(d >= self.distance_threshold).astype(np.float32)
        return -d.astype(np.float32)

    def step(self, action):
        self._move(action)
        obs = self._obs()
        reward = float(self.compute_reward(obs["achieved_goal"], obs["desired_goal"], None))
        dist = float(np.linalg.norm(self._pos - self._target))
        info = {"reward_goal": reward, "is_success": dist < self.distance_threshold}
        return obs, reward, False, False, info


def make_point_reach_vec(num_envs: int, max_episode_steps: int = 50, **kwargs) -> gym.vector.VectorEnv:
    """Vector entry point of toy/PointReach-v0 (a SyncVectorEnv), so that ``gym.make_vec`` takes the
    ``vector_entry_point`` path that our native vector envs use (RLlib's env runners, for one)."""
    return gym.vector.SyncVectorEnv(
        [lambda: gym.wrappers.TimeLimit(PointReachEnv(**kwargs), max_episode_steps) for _ in range(num_envs)]
    )


def _register():
    if "toy/PointReach-v0" not in gym.registry:
        gym.register(
            "toy/PointReach-v0",
            entry_point=f"{__name__}:PointReachEnv",
            max_episode_steps=50,
            vector_entry_point=f"{__name__}:make_point_reach_vec",
        )
    if "toy/PointReachGoal-v0" not in gym.registry:
        gym.register("toy/PointReachGoal-v0", entry_point=f"{__name__}:PointReachGoalEnv", max_episode_steps=50)


_register()
