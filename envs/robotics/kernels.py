"""The one compiled entry of the robotics tasks: advance a list of worlds of a batch.

    advance(m, d, t, worlds, flags, nstep, F)     for each listed world, in parallel: mj_resetData (flags & RESET),
                                                  nstep mj_step, then mj_forward (flags & FORWARD)

Gymnasium-Robotics' envs interleave Python with the physics (a mocap target set from the gripper's pose before
the steps, finger joints pinned and mj_forward after them, a reset that settles the object for 200 steps): the
Python side (numpy over the worlds, envs/robotics/core.py) runs between calls of this entry, which serves every
world of a batch or any subset (a partial reset), so a model compiles this one entry per feature set
(sim/jit/features.py).
"""

import numpy as np
from numba import prange

from sim.jit import njit
from sim.api import reset_world, run_world

RESET, FORWARD = 1, 2


@njit(parallel=True, refcount=True)
def advance(m, d, t, worlds, flags, nstep, F):
    """For each listed world w (worlds (k,) int64): mj_resetData if flags & RESET, nstep steps (mj_step), then
    mj_forward if flags & FORWARD; d.warn_moved[w] gets the watched-warning bits that moved (run_world's)."""
    for i in prange(worlds.shape[0]):
        w = np.int64(worlds[i])
        if flags & RESET:
            reset_world(m, d, w)
        moved = 0
        if nstep > 0:
            moved |= run_world(m, d, t, w, nstep, F)
        if flags & FORWARD:
            moved |= run_world(m, d, t, w, 0, F)
        d.warn_moved[w] = moved
