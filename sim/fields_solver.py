"""Fields of the constraint solvers (PGS / CG / Newton): statistics as MuJoCo's d.solver* and solver scratch.

solver_* statistics mirror mjSolverStat for island 0 (MuJoCo 3.17 keeps NSOLVER entries).
Scratch (per world): scr_slv_nv (NV_ROWS, nv) dof vectors, scr_slv_efc (EFC_ROWS, njmax) efc vectors,
scr_slv_quad (3 njmax + 9,) line-search polynomials, scr_slv_int (2, njmax) old states / PGS blocks,
scr_slv_H (nv, nv) dense Hessian and its Cholesky factor, scr_slv_small (160,) cone / QCQP blocks,
scr_slv_AR (nar, nar) dense J M^-1 J' + R for PGS (nar = njmax up to AR_CAP, else 0: PGS then raises).
"""
from sim.types import NSOLVER

AR_CAP = 1500   # largest njmax for which the dense PGS matrix AR (njmax^2 float64 per world) is allocated
NV_ROWS = 10    # Ma, Mv, grad, Mgrad, search, gradold, Mgradold, graddif, Mgraddif, tmp
EFC_ROWS = 5    # Jaref, Jv, D (Newton) or 1/diag(AR) (PGS), force_prev, force_momentum

MODEL_SCALARS = []
MODEL_ARRAYS = []
DATA_ARRAYS = [
    ('solver_niter', 1, 'i'), ('solver_fwdinv', 2, 'f'),
    ('solver_improvement', 2, 'f'), ('solver_gradient', 2, 'f'), ('solver_lineslope', 2, 'f'),
    ('solver_nactive', 2, 'i'), ('solver_nchange', 2, 'i'), ('solver_neval', 2, 'i'), ('solver_nupdate', 2, 'i'),
    ('scr_slv_nv', 3, 'f'), ('scr_slv_efc', 3, 'f'), ('scr_slv_quad', 2, 'f'), ('scr_slv_int', 3, 'i'),
    ('scr_slv_H', 3, 'f'), ('scr_slv_small', 2, 'f'), ('scr_slv_AR', 3, 'f'),
]


def model_arrays(m):
    """Derived solver model arrays (none)."""
    return {}


def data_shapes(m, size):
    """Per-world shapes of the solver statistics and scratch."""
    nv, j = int(m.nv), int(size['njmax'])
    nar = j if j <= AR_CAP else 0
    s = dict(solver_niter=(), solver_fwdinv=(2,), scr_slv_nv=(NV_ROWS, nv), scr_slv_efc=(EFC_ROWS, j),
             scr_slv_quad=(3 * j + 9,), scr_slv_int=(2, j), scr_slv_H=(nv, nv), scr_slv_small=(160,),
             scr_slv_AR=(nar, nar))
    for n in ('improvement', 'gradient', 'lineslope', 'nactive', 'nchange', 'neval', 'nupdate'):
        s['solver_' + n] = (NSOLVER,)
    return s
