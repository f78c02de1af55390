"""InvertedPendulum: Gymnasium's InvertedPendulum-v5 on numjoco (reward 1 per step while the pole stands)."""

from envs.base import NumjocoEnv
from envs.spec import Task, qpos, qvel, Healthy, Range, FiniteObs


class InvertedPendulumEnv(NumjocoEnv):
    xml_file = "inverted_pendulum.xml"
    frame_skip = 2
    default_camera_config = {"trackbodyid": 0, "distance": 2.04}
    params = dict(reset_noise_scale=0.01)

    def task(self, p):
        return Task(
            observation={"qpos": qpos, "qvel": qvel},
            reward={"reward_survive": Healthy()},
            healthy=[FiniteObs(), Range(qpos[1], (-0.2, 0.2), closed=True)],
            reset_info=[],
        )
