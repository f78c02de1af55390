"""The pipeline's parts: whole stages compiled on their own and called by symbol (sim/jit.py `part`), so that a
first compile runs them in a worker process while this one compiles the rest of the step.

    collision(m, d, w, F)           sim.collision.driver.collision (mj_collision), F masked to the colliders
    make_constraint(m, d, w, F)     sim.constraint.make_constraint (mj_makeConstraint), F masked to equality
    fwd_constraint(m, d, w, F)      sim.solver.fwd_constraint (mj_fwdConstraint), F masked to the solvers
    passive(m, d, w, F)             sim.passive.passive (mj_passive), F masked to fluid forces
    rne_post_constraint(m, d, w, F) sim.rne.rne_post_constraint(m, d, w) (mj_rnePostConstraint: env
                                    tasks, acceleration sensors)

Callers import these in place of the kernels, and pass their feature set F to each (it names the parts a worker
compiles together); the kernels themselves stay callable from Python and jitted code.  The worker compiles all
but collision, which a first compile runs in this process after typing the step: with the features of
sim/features.py the two shares are even (hopper: 19.8 CPU-s here, 19.4 in the worker; with collision in the
worker 14.9 and 26.0, the process waiting 13.8 s).
"""
import numba
from numba import types

from sim import constraint as _constraint
from sim.collision import driver as _driver
from sim import passive as _passive
from sim import rne as _rne
from sim import solver as _solver
from sim.features import F_COLLIDE2, F_CYLBOX, F_EQUALITY, F_FLUID, F_PGS, F_PRIMAL, NAMES, features
from sim.jit import part, request_parts
from sim.types import MODEL_TYPE, DATA_TYPE


def _mdw():
    return MODEL_TYPE, DATA_TYPE, types.int64


def collision_part(m, d, w, F):
    """Contacts of world w (mj_collision): sim.collision.driver.collision."""
    _driver.collision(m, d, w, F)


def make_constraint_part(m, d, w, F):
    """Constraint rows of world w (mj_makeConstraint): sim.constraint.make_constraint."""
    _constraint.make_constraint(m, d, w, F)


def fwd_constraint_part(m, d, w, F):
    """Constraint forces of world w (mj_fwdConstraint): sim.solver.fwd_constraint."""
    _solver.fwd_constraint(m, d, w, F)


def passive_part(m, d, w, F):
    """Passive forces of world w (mj_passive): sim.passive.passive."""
    _passive.passive(m, d, w, F)


def rne_post_constraint_part(m, d, w):
    """cacc, cfrc_int, cfrc_ext of world w (mj_rnePostConstraint): sim.rne.rne_post_constraint."""
    _rne.rne_post_constraint(m, d, w)


collision = part(collision_part, _mdw, nf=len(NAMES), uses=(F_COLLIDE2, F_CYLBOX), worker=False)
make_constraint = part(make_constraint_part, _mdw, nf=len(NAMES), uses=(F_EQUALITY,))
fwd_constraint = part(fwd_constraint_part, _mdw, nf=len(NAMES), uses=(F_PGS, F_PRIMAL))
passive = part(passive_part, _mdw, nf=len(NAMES), uses=(F_FLUID,))
rne_post_constraint = part(rne_post_constraint_part, _mdw)


def prefetch(m):
    """Have the parts for simulating model m (a numjoco Model) loaded or compiling in a worker (the compiler calls
    this before its own first compile, so that the worker overlaps it)."""
    try:
        request_parts(numba.typeof(features(m)))
    except Exception:       # a model the features cannot be read from yet: the first step requests them
        pass
