"""Setup shared by the constraint-solver tests (tests/test_solver.py, tests/test_island.py): mujoco's smooth
quantities, efc rows and contacts copied into our Data, and our fwd_constraint run on them."""

import mujoco

from oracle import dense_efc_J
import sim.jit.cache  # noqa: F401  (must precede jitted modules)
from sim.jit import njit  # keyed on the package sources: numba's own cache would keep a stale build
from sim.jit.features import FULL
from sim.engine.solver import fwd_constraint, project_dual


@njit(cache=True)
def drive(m, d):
    """Our fwd_constraint on world 0 (every solver feature compiled in), after the part of the position stage it
    reads: PGS's AR (project_dual)."""
    project_dual(m, d, 0)
    fwd_constraint(m, d, 0, FULL)


def copy_inputs(m, md, d):
    """Copy mujoco's smooth quantities, efc rows and contacts into our single-world Data d."""
    A = d._arrays
    nefc, ncon = md.nefc, md.ncon
    assert A["efc_J"].shape[1] >= nefc and A["contact_dim"].shape[1] >= ncon
    for k in ("qpos", "qvel", "qacc_warmstart", "qacc_smooth", "qfrc_smooth", "M", "qLD", "qLDiagInv"):
        A[k][0] = getattr(md, k)
    A["ne"][0], A["nf"][0], A["nl"][0], A["nefc"][0], A["ncon"][0] = md.ne, md.nf, md.nl, nefc, ncon
    A["efc_J"][0, :nefc] = dense_efc_J(m, md)
    Jind = A["scr_slv_Jind"]
    if mujoco.mj_isSparse(m) and Jind.shape[1] and Jind.shape[2] == m.nv + 1:
        # the rows' structural pattern, as the constraint assembly keeps it in the sparse mode
        for i in range(nefc):
            a, n = md.efc_J_rowadr[i], md.efc_J_rownnz[i]
            Jind[0, i, 0] = n
            Jind[0, i, 1 : 1 + n] = md.efc_J_colind[a : a + n]
    for k in ("type", "id", "D", "R", "aref", "frictionloss", "diagA", "pos", "margin", "vel"):
        A["efc_" + k][0, :nefc] = getattr(md, "efc_" + k)
    A["efc_force"][0, :nefc] = 0.0
    A["efc_state"][0, :nefc] = -1
    for k in ("mu", "friction", "dim", "efc_address", "H", "geom"):
        A["contact_" + k][0, :ncon] = getattr(md.contact, k)
