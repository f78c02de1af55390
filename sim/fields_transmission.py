"""Fields of the slider-crank and reference-site actuator transmissions (mj_transmission): the rod
length per actuator and per-world dense Jacobian scratch."""
MODEL_SCALARS = []
MODEL_ARRAYS = [('actuator_cranklength', 1, 'f')]
DATA_ARRAYS = [('scr_trnjac', 4, 'f'), ('scr_trnrow', 2, 'f')]


def model_arrays(m):
    """No derived arrays (actuator_cranklength is an MjModel attribute)."""
    return {}


def data_shapes(m, size):
    """Per-world shapes: five dense (3, nv) Jacobian blocks and one moment row (nv,)."""
    nv = int(m.nv)
    return dict(scr_trnjac=(5, 3, nv), scr_trnrow=(nv,))
