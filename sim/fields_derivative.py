"""Fields of the analytic derivatives used by the implicit integrators (qDeriv and its factorisation)."""

MODEL_SCALARS = []
MODEL_ARRAYS = []
DATA_ARRAYS = []


def model_arrays(m):
    """Derived derivative model arrays (none yet)."""
    return {}


def data_shapes(m, size):
    """Per-world shapes of the derivative scratch."""
    return {}
