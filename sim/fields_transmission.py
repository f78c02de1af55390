"""Fields of the slider-crank, reference-site and body (adhesion) actuator transmissions (mj_transmission):
the rod length per actuator, per-world dense Jacobian scratch; and the per-geom ellipsoid fluid
coefficients read by sim/engine/fluid.py (mj_ellipsoidFluidModel)."""
MODEL_SCALARS = []
MODEL_ARRAYS = [('actuator_cranklength', 1, 'f'), ('geom_fluid', 2, 'f')]
DATA_ARRAYS = [('scr_trnjac', 4, 'f'), ('scr_trnrow', 2, 'f'), ('scr_trnexcl', 2, 'f')]


def model_arrays(m):
    """No derived arrays (actuator_cranklength and geom_fluid (ngeom, 12) are MjModel attributes)."""
    return {}


def data_shapes(m, size):
    """Per-world shapes: five dense (3, nv) Jacobian blocks, one moment row (nv,) and the body
    transmission's row of in-gap excluded contacts (nv,)."""
    nv = int(m.nv)
    return dict(scr_trnjac=(5, 3, nv), scr_trnrow=(nv,), scr_trnexcl=(nv,))
