"""numjoco's physics core: MuJoCo's pipeline in Python, compiled with numba.

    m = sim.load_model("envs/assets/hopper.xml")   # MJCF -> static Model (MjModel names and shapes)
    d = sim.Data(m)                             # or sim.Data(m, nworld=256) for a batch of worlds
    sim.step(m, d)
"""

from .jit import cache as _cache  # noqa: F401  (must come first: sets the numba cache directory)
from .errors import ModelError, UnsupportedError
from .loader import load_model
from .model import Model


def _keep_openmp_threads():
    """Make numba's thread-pool launch keep the calling thread's OpenMP thread count.  With the omp threading
    layer numba's launch calls omp_set_num_threads(NUMBA_NUM_THREADS), and libgomp is shared with torch (and
    OpenMP BLAS): a torch.set_num_threads(1) made before became 2, spinning workers against ours (a 64-64 tanh
    MLP forward went 106 -> 766 us, PPO on Hopper ran 2.5x slower than on Gymnasium's env).  The pool still
    starts lazily, at the first parallel call, so a process that never runs one stays safe to fork."""
    from numba.np.ufunc import parallel
    launch = parallel._launch_threads
    if getattr(launch, 'keeps_openmp_threads', False):
        return

    def _launch_threads():
        if parallel._is_initialized:
            return launch()
        import ctypes
        libs = []
        try:
            with open('/proc/self/maps') as f:
                paths = {line.split()[-1] for line in f if 'libgomp' in line}
            for path in sorted(paths):
                lib = ctypes.CDLL(path)
                libs.append((lib, lib.omp_get_max_threads()))
        except (OSError, AttributeError, IndexError):      # no /proc, or not an OpenMP runtime: nothing to keep
            pass
        launch()
        for lib, before in libs:
            if lib.omp_get_max_threads() != before:
                lib.omp_set_num_threads(before)
    _launch_threads.keeps_openmp_threads = True
    parallel._launch_threads = _launch_threads


_keep_openmp_threads()

# the public names served by modules that import the compiled engine: loaded on first use, so that compiling a
# model (sim.load_model) stays cheap
_LAZY = {"Data": "sim.data", "Renderer": "sim.render"}
_LAZY.update({_n: "sim.api" for _n in ("forward", "step", "reset", "full_inertia", "rne_post_constraint", "inverse",
                                         "ray", "transition_fd")})
_LAZY.update({_n: "sim.state" for _n in (
    "get_state", "set_state", "state_size", "extract_state", "copy_state",
    "STATE_TIME", "STATE_QPOS", "STATE_QVEL", "STATE_ACT", "STATE_HISTORY", "STATE_WARMSTART", "STATE_CTRL",
    "STATE_QFRC_APPLIED", "STATE_XFRC_APPLIED", "STATE_EQ_ACTIVE", "STATE_MOCAP_POS", "STATE_MOCAP_QUAT",
    "STATE_USERDATA", "STATE_PLUGIN", "NSTATE", "STATE_PHYSICS", "STATE_FULLPHYSICS", "STATE_USER",
    "STATE_INTEGRATION")})


def __getattr__(name: str):
    if name in _LAZY:
        import importlib
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value     # later lookups skip this function (sim.step is called per env step)
        return value
    raise AttributeError(f"module 'sim' has no attribute '{name}'")


__all__ = ["load_model", "Model", "ModelError", "UnsupportedError"] + list(_LAZY)
