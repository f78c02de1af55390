"""The Fetch and Shadow Hand tasks' vector env is numjoco's one vector env (envs/vector.py) on their engine
(envs/robotics/engine.py); this name stays for the scripts and tests that import it from here."""

from envs.vector import NumjocoVectorEnv as RobotVectorEnv  # noqa: F401
