"""Model / Data / Task struct constructors: each takes the field values in the order of the field tables
(sim/types.py MODEL_SCALARS + MODEL_ARRAYS, DATA_ARRAYS; sim/fields_task.py) and builds the struct from Python
(sim.jit.struct_new) around one small jitted allocator."""
from sim.jit import njit, struct_alloc, struct_new
from sim.types import MODEL_TYPE, DATA_TYPE, TASK_TYPE


@njit(refcount=True)
def _alloc(struct_type):
    """An empty struct of struct_type (one compile per struct type)."""
    return struct_alloc(struct_type)


def new_model(*values):
    """Model struct from the field values (scalars as ints, arrays with the table's dtype and rank)."""
    return struct_new(_alloc, MODEL_TYPE, values)


def new_data(*values):
    return struct_new(_alloc, DATA_TYPE, values)


def new_task(*values):
    return struct_new(_alloc, TASK_TYPE, values)
