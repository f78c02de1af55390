"""Fields of the pipeline drivers (sim/engine/forward.py): per-world bitmask of the watched warning counters that moved
during the last call (1 contact buffer full, 2 constraint buffer full, 4 diverged and reset, 8 bad ctrl), read by
sim/api.py to warn only when something happened."""
MODEL_SCALARS = []
MODEL_ARRAYS = []
DATA_ARRAYS = [('warn_moved', 1, 'i')]


def model_arrays(m):
    return {}


def data_shapes(m, size):
    return dict(warn_moved=())
