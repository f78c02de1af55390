"""Kernels of the numjoco tasks' engine (envs/engine.py, envs/randomize.py): reset a list of worlds, and recompute
the mj_setConst constants of a world's own Model struct after domain randomisation changed its inertial fields.

    reset_worlds(m, d, t, worlds, mptrs, flags, body_simple, F)   one parallel entry (per feature set F,
                                                                  sim/jit/features.py), flags SET_CONST | RESTART | FINAL

The physics step of the vector env is sim.api.run (sim/engine/forward.py run_batch); this entry serves only the
resets that must happen outside it: a partial reset (reset(options={"reset_mask": ...})) and the worlds whose
randomised model must be in place before their reset.  It is compiled on first use (and cached like every kernel).
"""

import numpy as np
from numba import prange

from sim.jit import njit, struct_at
from sim.api import restart_world, set_const

SET_CONST, RESTART, FINAL, OWN_BIAS = 1, 2, 4, 8


@njit(parallel=True, refcount=True)
def reset_worlds(m, d, t, worlds, mptrs, flags, body_simple, F):
    """For each listed world (in parallel), with its own Model struct when mptrs is not empty: the mj_setConst
    constants (flags & SET_CONST), then its reset to the pending task state (flags & RESTART; a same-step
    autoreset keeping the step's reward when flags & FINAL)."""
    for i in prange(worlds.shape[0]):
        w = np.int64(worlds[i])
        if mptrs.shape[0] == 0:
            mw = m
        else:
            mw = struct_at(mptrs[w], m)
        if flags & SET_CONST:
            set_const(mw, d, w, body_simple, (flags & OWN_BIAS) != 0, F)
        if flags & RESTART:
            restart_world(mw, d, t, w, (flags & FINAL) != 0, F)
