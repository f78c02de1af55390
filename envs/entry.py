"""The task class behind a registered id, a 'module:id', a 'module:Class' entry point or a class (nothing is
constructed): what the vector-env factories dispatch on."""

import importlib

import gymnasium as gym


def task_class(task):
    """The class `task` names (a class passes through); None when it names none."""
    if isinstance(task, str):
        mod, _, rest = task.rpartition(":")
        if "/" in rest or "-v" in rest:
            if mod:
                importlib.import_module(mod)
            try:
                task = gym.spec(rest).entry_point
            except gym.error.Error:
                return None
    if isinstance(task, str):
        mod, _, attr = task.partition(":")
        try:
            task = getattr(importlib.import_module(mod), attr)
        except (ImportError, AttributeError):
            return None
    return task if isinstance(task, type) else None
