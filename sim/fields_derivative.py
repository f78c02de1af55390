"""Fields of the analytic velocity derivatives used by the implicit integrators (mjd_smooth_vel,
mj_implicit): qDeriv / qLU in the symmetric dof-dof sparsity D, the body-dof sparsity B of the
RNE derivative, and per-world scratch."""
MODEL_SCALARS = ['nD', 'nB']
MODEL_ARRAYS = [
    ('D_rownnz', 1, 'i'), ('D_rowadr', 1, 'i'), ('D_colind', 1, 'i'), ('D_diag', 1, 'i'),
    ('B_rownnz', 1, 'i'), ('B_rowadr', 1, 'i'), ('B_colind', 1, 'i'),
    ('mapM2D', 1, 'i'), ('mapD2M', 1, 'i'), ('tree_dofnum', 1, 'i'), ('dof_treeid', 1, 'i'),
]
DATA_ARRAYS = [
    ('qDeriv', 2, 'f'), ('qLU', 2, 'f'),
    ('scr_dcdofdot', 3, 'f'), ('scr_dcvel', 3, 'f'), ('scr_dcacc', 3, 'f'), ('scr_dcfrc', 3, 'f'),
    ('scr_mat6', 3, 'f'), ('scr_fjac', 3, 'f'), ('scr_fjacind', 2, 'i'), ('scr_luint', 2, 'i'),
    ('scr_impvec', 3, 'f'),
]


def model_arrays(m):
    """No derived arrays (all fields are MjModel attributes)."""
    return {}


def data_shapes(m, size):
    """Per-world shapes of qDeriv/qLU (nD,), the sparse RNE-derivative scratch and small work buffers."""
    nv, nD, nB = int(m.nv), int(m.nD), int(m.nB)
    return dict(qDeriv=(nD,), qLU=(nD,), scr_dcdofdot=(nD, 6), scr_dcvel=(nB, 6), scr_dcacc=(nB, 6),
                scr_dcfrc=(nB, 6), scr_mat6=(5, 36), scr_fjac=(6, nv), scr_fjacind=(nv,), scr_luint=(nv,),
                scr_impvec=(2, nv))
