"""Constraint solvers on MuJoCo's convex soft-constraint problem: PGS, CG, Newton (engine_solver.c)."""
from numba import njit


@njit(cache=True)
def fwd_constraint(m, d, w):
    """qacc, efc_force, efc_state, qfrc_constraint of world w (mj_fwdConstraint)."""
    d.qfrc_constraint[w][:] = 0.0
    d.qacc[w][:] = d.qacc_smooth[w]
