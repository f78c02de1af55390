"""numjoco's physics core: MuJoCo's pipeline in Python, compiled with numba.

m = sim.load_model("envs/assets/hopper.xml")   # MJCF -> static Model (MjModel names and shapes)
d = sim.Data(m)                             # or sim.Data(m, nworld=256) for a batch of worlds
sim.step(m, d)
"""

from .jit import cache as _cache  # noqa: F401  (the numba machinery; its patches: sim/jit/patches.py)
from .errors import ModelError, UnsupportedError
from .loader import load_model
from .model import Model

# the public names served by modules that import the compiled engine: loaded on first use, so that compiling a
# model (sim.load_model) stays cheap
_LAZY = {"Data": "sim.data", "Renderer": "sim.render"}
_LAZY.update(
    {
        _n: "sim.api"
        for _n in ("forward", "step", "reset", "full_inertia", "rne_post_constraint", "inverse", "ray", "transition_fd")
    }
)
_LAZY.update(
    {
        _n: "sim.state"
        for _n in (
            "get_state",
            "set_state",
            "state_size",
            "extract_state",
            "copy_state",
            "STATE_TIME",
            "STATE_QPOS",
            "STATE_QVEL",
            "STATE_ACT",
            "STATE_HISTORY",
            "STATE_WARMSTART",
            "STATE_CTRL",
            "STATE_QFRC_APPLIED",
            "STATE_XFRC_APPLIED",
            "STATE_EQ_ACTIVE",
            "STATE_MOCAP_POS",
            "STATE_MOCAP_QUAT",
            "STATE_USERDATA",
            "STATE_PLUGIN",
            "NSTATE",
            "STATE_PHYSICS",
            "STATE_FULLPHYSICS",
            "STATE_USER",
            "STATE_INTEGRATION",
        )
    }
)


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # later lookups skip this function (sim.step is called per env step)
        return value
    raise AttributeError(f"module 'sim' has no attribute '{name}'")


__all__ = ["load_model", "Model", "ModelError", "UnsupportedError"] + list(_LAZY)
