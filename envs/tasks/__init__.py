"""numjoco's tasks: one short declarative file each on envs.base.NumjocoEnv."""
