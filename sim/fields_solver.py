"""Fields of the constraint solvers (PGS / CG / Newton): statistics as MuJoCo's d.solver* and solver scratch.

solver_* statistics mirror mjSolverStat for island 0 (MuJoCo 3.17 keeps NSOLVER entries).
Scratch (per world): scr_slv_nv (NV_ROWS, nv) dof vectors, scr_slv_efc (EFC_ROWS, njmax) efc vectors,
scr_slv_quad (3 njmax + 9,) line-search polynomials, scr_slv_int (INT_ROWS, njmax) old states / PGS blocks /
island type, id, state, scr_slv_H (nv, nv) dense Hessian and its Cholesky factor, scr_slv_Hc (nv, nv) the factor
with elliptic cones, scr_slv_J (njmax, nv) an island's gathered Jacobian (PGS: (J M^-1/2)' as (nv, njmax)),
scr_slv_small (160,) cone / QCQP blocks, scr_slv_L (4 nv + 5, nv) int the sparse Newton factor's pattern and
scr_slv_Jind (njmax, nv + 1) int J's nonzeros per row, both for models sparse when the Data is made (else no
rows; sim/engine/solver_sparse.py),
scr_slv_AR (nar, nar) dense J M^-1 J' + R for PGS (nar = njmax up to AR_CAP, else 0: PGS then raises).

Constraint islands (mj_island, sim/engine/island.py): nisland/nidof (nworld,), tree_island (ntree,), island_*
(ntree,) per island (at most ntree islands), dof_island / map_dof2idof / map_idof2dof (nv,), efc_island /
map_efc2iefc / map_iefc2efc (njmax,); solver_niter_island (NISLAND,) iterations per island (solver_niter
is island 0, MuJoCo's d.solver_niter[0]); statistics of island k, iteration t at k*MJ_NSOLVER + t.
scr_isl_int (4, L), L = max(njmax, nv, ntree, 1): identity list, saved efc_state, efc_tree, union-find parents.
"""
from sim.constants import NSOLVER

AR_CAP = 1500   # largest njmax for which the dense PGS matrix AR (njmax^2 float64 per world) is allocated
NV_ROWS = 21    # Ma, Mv, grad, Mgrad, search, gradold, Mgradold, graddif, Mgraddif, tmp, island qfrc_smooth /
                # qacc_smooth / qacc / qfrc_constraint, Cholesky update vector, 6 rows L_c' J_c (sim/engine/solver.py)
NISLAND = 20    # mjNISLAND: islands with statistics
MJ_NSOLVER = 200  # mjNSOLVER: statistics entries per island
EFC_ROWS = 10   # Jaref, Jv, 1/diag(AR) (PGS), force_prev, force_momentum, island D / R / frictionloss / aref / force
INT_ROWS = 5    # old states, PGS block starts, island type / id / state

MODEL_SCALARS = ['ntree']
MODEL_ARRAYS = [('body_treeid', 1, 'i'), ('tree_dofadr', 1, 'i')]
DATA_ARRAYS = [
    ('solver_niter', 1, 'i'), ('solver_fwdinv', 2, 'f'),
    ('solver_improvement', 2, 'f'), ('solver_gradient', 2, 'f'), ('solver_lineslope', 2, 'f'),
    ('solver_nactive', 2, 'i'), ('solver_nchange', 2, 'i'), ('solver_neval', 2, 'i'), ('solver_nupdate', 2, 'i'),
    ('scr_slv_nv', 3, 'f'), ('scr_slv_efc', 3, 'f'), ('scr_slv_quad', 2, 'f'), ('scr_slv_int', 3, 'i'),
    ('scr_slv_H', 3, 'f'), ('scr_slv_Hc', 3, 'f'), ('scr_slv_J', 3, 'f'), ('scr_slv_small', 2, 'f'),
    ('scr_slv_AR', 3, 'f'), ('scr_slv_L', 3, 'i'), ('scr_slv_Jind', 3, 'i'),
    ('solver_niter_island', 2, 'i'), ('nisland', 1, 'i'), ('nidof', 1, 'i'), ('tree_island', 2, 'i'),
    ('island_ntree', 2, 'i'), ('island_itreeadr', 2, 'i'), ('map_itree2tree', 2, 'i'),
    ('island_nv', 2, 'i'), ('island_idofadr', 2, 'i'), ('island_dofadr', 2, 'i'),
    ('island_ne', 2, 'i'), ('island_nf', 2, 'i'), ('island_nefc', 2, 'i'), ('island_iefcadr', 2, 'i'),
    ('dof_island', 2, 'i'), ('map_dof2idof', 2, 'i'), ('map_idof2dof', 2, 'i'),
    ('efc_island', 2, 'i'), ('map_efc2iefc', 2, 'i'), ('map_iefc2efc', 2, 'i'), ('scr_isl_int', 3, 'i'),
]


def model_arrays(m):
    """Derived solver model arrays (none)."""
    return {}


def _sparse(m):
    """mj_isSparse under the model's options now (jacobian sparse, or auto with nv >= 60)."""
    jac = int(getattr(getattr(m, 'opt', None), 'jacobian', 2))
    return jac == 1 or (jac == 2 and int(m.nv) >= 60)


def data_shapes(m, size):
    """Per-world shapes of the solver statistics and scratch."""
    nv, j = int(m.nv), int(size['njmax'])
    nar = j if j <= AR_CAP else 0
    s = dict(solver_niter=(), solver_fwdinv=(2,), scr_slv_nv=(NV_ROWS, nv), scr_slv_efc=(EFC_ROWS, j),
             scr_slv_quad=(3 * j + 9,), scr_slv_int=(INT_ROWS, j), scr_slv_H=(nv, nv), scr_slv_Hc=(nv, nv),
             scr_slv_J=(j, nv), scr_slv_small=(160,),
             scr_slv_AR=(nar, nar), scr_slv_L=(4 * nv + 5 if _sparse(m) else 0, nv),
             scr_slv_Jind=(j if _sparse(m) else 0, nv + 1))
    nt = int(m.ntree)
    s.update(solver_niter_island=(NISLAND,), nisland=(), nidof=(), tree_island=(nt,), map_itree2tree=(nt,),
             dof_island=(nv,), map_dof2idof=(nv,), map_idof2dof=(nv,), efc_island=(j,), map_efc2iefc=(j,),
             map_iefc2efc=(j,), scr_isl_int=(4, max(j, nv, nt, 1)))
    for n in ('ntree', 'itreeadr', 'nv', 'idofadr', 'dofadr', 'ne', 'nf', 'nefc', 'iefcadr'):
        s['island_' + n] = (max(nt, 1),)
    for n in ('improvement', 'gradient', 'lineslope', 'nactive', 'nchange', 'neval', 'nupdate'):
        s['solver_' + n] = (NSOLVER,)
    return s
