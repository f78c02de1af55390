"""Jitted Model / Data / Task struct constructors: each takes a tuple of the field values in the order of the field
tables (sim/types.py MODEL_SCALARS + MODEL_ARRAYS, DATA_ARRAYS; sim/fields_task.py) and builds the struct with one
intrinsic (sim.jit.struct_from_tuple)."""
from sim.jit import njit, struct_from_tuple
from sim.types import MODEL_TYPE, DATA_TYPE, TASK_TYPE


@njit(refcount=True)
def _new_model(values):
    return struct_from_tuple(MODEL_TYPE, values)


@njit(refcount=True)
def _new_data(values):
    return struct_from_tuple(DATA_TYPE, values)


@njit(refcount=True)
def _new_task(values):
    return struct_from_tuple(TASK_TYPE, values)


def new_model(*values):
    """Model struct from the field values (scalars as ints, arrays with the table's dtype and rank)."""
    return _new_model(tuple(values))


def new_data(*values):
    return _new_data(tuple(values))


def new_task(*values):
    return _new_task(tuple(values))
