"""The one task resolver of the vector envs and the SB3 VecEnv: the task class behind a registered id, a
'module:id', a 'module:Class' entry point or a class, with the spec's keyword arguments and time limit."""

import importlib

import gymnasium as gym


def resolve_task(task, kwargs=None, base=None):
    """(task class, constructor kwargs, the spec's max_episode_steps or None) for a registered id (optionally
    'module:id', the module registering it), a 'module:Class' entry point or a class; kwargs override the
    registered ones.  base: the class the task must derive from (TypeError otherwise)."""
    kwargs, spec_steps = dict(kwargs or {}), None
    if isinstance(task, str):
        mod, _, rest = task.rpartition(":")
        if "/" in rest or "-v" in rest:
            if mod:
                importlib.import_module(mod)
            task = gym.spec(rest)
    if isinstance(task, gym.envs.registration.EnvSpec):
        task, kwargs, spec_steps = task.entry_point, dict(task.kwargs, **kwargs), task.max_episode_steps
    if isinstance(task, str):
        mod, _, attr = task.partition(":")
        task = getattr(importlib.import_module(mod), attr)
    if base is not None and not (isinstance(task, type) and issubclass(task, base)):
        raise TypeError(f"a numjoco vector env of this family needs a {base.__name__} task class, got {task!r}")
    return task, kwargs, spec_steps


def task_class(task):
    """The class `task` names (a class passes through); None when it names none (nothing is constructed)."""
    try:
        cls = resolve_task(task)[0]
    except (gym.error.Error, ImportError, AttributeError, ValueError):
        return None
    return cls if isinstance(cls, type) else None
