"""Fields of the constraint solvers (PGS / CG / Newton): statistics as MuJoCo's d.solver* and solver scratch.

solver_* statistics mirror mjSolverStat for island 0 (MuJoCo 3.17 keeps NSOLVER entries).
"""
from sim.types import NSOLVER

MODEL_SCALARS = []
MODEL_ARRAYS = []
DATA_ARRAYS = [
    ('solver_niter', 1, 'i'), ('solver_fwdinv', 2, 'f'),
    ('solver_improvement', 2, 'f'), ('solver_gradient', 2, 'f'), ('solver_lineslope', 2, 'f'),
    ('solver_nactive', 2, 'i'), ('solver_nchange', 2, 'i'), ('solver_neval', 2, 'i'), ('solver_nupdate', 2, 'i'),
]


def model_arrays(m):
    """Derived solver model arrays (none yet)."""
    return {}


def data_shapes(m, size):
    """Per-world shapes of the solver statistics and scratch."""
    s = dict(solver_niter=(), solver_fwdinv=(2,))
    for n in ('improvement', 'gradient', 'lineslope', 'nactive', 'nchange', 'neval', 'nupdate'):
        s['solver_' + n] = (NSOLVER,)
    return s
