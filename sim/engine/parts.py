"""The pipeline's parts: whole stages compiled on their own and called by symbol (sim/jit/parts.py `part`), so
that a first compile runs them in a worker process while this one compiles the rest of the step.

    collision(m, d, w, F)           sim.engine.collision.driver.collision (mj_collision), F masked to the colliders
    make_constraint(m, d, w, F)     sim.engine.constraint.make_constraint (mj_makeConstraint), F masked to equality
    constraint_islands(m, d, w, F)   sim.engine.solver.constraint_islands, constraint_warmstart and
    constraint_warmstart(m, d, w, F) constraint_solve (mj_fwdConstraint: the islands, efc_b and the warmstart,
    constraint_solve(m, d, w, F)     then the solvers; apart so that the block step runs the warmstart and the
                                     solve of the worlds it takes on the block, sim/engine/batch/solver.py), F
                                     masked to the solvers, the sparse Jacobian mode, elliptic cones and noslip
    passive(m, d, w, F)             sim.engine.passive.passive (mj_passive), F masked to fluid forces and
                                    adhesion
    rne_post_constraint(m, d, w, F) sim.engine.rne.rne_post_constraint (mj_rnePostConstraint: env tasks,
                                    acceleration sensors), F masked to equality and tendons

Callers import these in place of the kernels, and pass their feature set F to each (it names the parts a worker
compiles together); the kernels themselves stay callable from Python and jitted code.  The worker compiles
make_constraint, the three constraint parts and rne_post_constraint; a first compile runs collision and passive in this
process, after typing the step (worker=False), which evens the two shares out since sim/jit/features.py prunes what
a model does not use (the measured split: docs/performance.md).
"""

import numba
from numba import types

from sim.engine import constraint as _constraint
from sim.engine.collision import driver as _driver
from sim.engine import passive as _passive
from sim.engine import rne as _rne
from sim.engine import solver as _solver
from sim.jit.features import (
    F_ADHESION,
    F_COLLIDE2,
    F_CYLBOX,
    F_ELLIPTIC,
    F_EQUALITY,
    F_FLUID,
    F_LIBCCD,
    F_NOSLIP,
    F_PGS,
    F_PRIMAL,
    F_SPARSE,
    F_TENDON,
    NAMES,
    features,
)
from sim.jit import part, request_parts
from sim.types import MODEL_TYPE, DATA_TYPE


def _mdw():
    return MODEL_TYPE, DATA_TYPE, types.int64


def collision_part(m, d, w, F):
    """Contacts of world w (mj_collision): sim.engine.collision.driver.collision."""
    _driver.collision(m, d, w, F)


def make_constraint_part(m, d, w, F):
    """Constraint rows of world w (mj_makeConstraint): sim.engine.constraint.make_constraint."""
    _constraint.make_constraint(m, d, w, F)


def constraint_islands_part(m, d, w, F):
    """mj_fwdConstraint's start of world w (counters, islands): sim.engine.solver.constraint_islands."""
    _solver.constraint_islands(m, d, w, F)


def constraint_warmstart_part(m, d, w, F):
    """efc_b and the warmstart of world w: sim.engine.solver.constraint_warmstart."""
    _solver.constraint_warmstart(m, d, w, F)


def constraint_solve_part(m, d, w, F):
    """The rest of mj_fwdConstraint of world w: sim.engine.solver.constraint_solve."""
    _solver.constraint_solve(m, d, w, F)


def passive_part(m, d, w, F):
    """Passive forces of world w (mj_passive): sim.engine.passive.passive."""
    _passive.passive(m, d, w, F)


def rne_post_constraint_part(m, d, w, F):
    """cacc, cfrc_int, cfrc_ext of world w (mj_rnePostConstraint): sim.engine.rne.rne_post_constraint."""
    _rne.rne_post_constraint(m, d, w, F)


collision = part(collision_part, _mdw, nf=len(NAMES), uses=(F_COLLIDE2, F_CYLBOX, F_LIBCCD), worker=False)
make_constraint = part(make_constraint_part, _mdw, nf=len(NAMES), uses=(F_EQUALITY,))
_SOLVER_USES = (F_PGS, F_PRIMAL, F_SPARSE, F_ELLIPTIC, F_NOSLIP)
constraint_islands = part(constraint_islands_part, _mdw, nf=len(NAMES), uses=_SOLVER_USES)
constraint_warmstart = part(constraint_warmstart_part, _mdw, nf=len(NAMES), uses=_SOLVER_USES)
constraint_solve = part(constraint_solve_part, _mdw, nf=len(NAMES), uses=_SOLVER_USES)
passive = part(passive_part, _mdw, nf=len(NAMES), uses=(F_FLUID, F_ADHESION), worker=False)
rne_post_constraint = part(rne_post_constraint_part, _mdw, nf=len(NAMES), uses=(F_EQUALITY, F_TENDON))


def prefetch(m):
    """Have the parts for simulating model m (a numjoco Model) loaded or compiling in a worker (the compiler calls
    this before its own first compile, so that the worker overlaps it)."""
    try:
        request_parts(numba.typeof(features(m)))
    except Exception:  # a model the features cannot be read from yet: the first step requests them
        pass
