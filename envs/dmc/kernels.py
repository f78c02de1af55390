"""The kernel of DMC task programs (envs/dmc/expr.py): observations and rewards of every world in one call.

    run_serial(dp, w, code, prm, reg, outputs, out)          world w
    run_batch(dp, nworld, code, prm, reg, outputs, out)      worlds 0..nworld-1 in parallel

dp is the address of a Data struct (sim.jit.struct_addr); code (ninstr, 4) int64 = (op, a, b, c), prm (ninstr, 5)
the instructions' parameters, reg (nworld, ninstr) scratch, outputs (nout,) the instructions whose values go to
out (nworld, nout).  The kernels read Data through its struct, so they are compiled once for every model.
"""

import math

from numba import prange

from sim.jit import njit, struct_at_address
from sim.types import DATA_TYPE
from sim.engine.task import row3
from envs.dmc.expr import (
    OP_LOAD,
    OP_CONST,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_NEG,
    OP_SIN,
    OP_COS,
    OP_LOG1P,
    OP_ARCSINH,
    OP_TANH,
    OP_SQRT,
    OP_ABS,
    OP_EXP,
    OP_MIN,
    OP_MAX,
    OP_LE,
    OP_LT,
    OP_WHERE,
    OP_TOL,
)

_data_at = struct_at_address(DATA_TYPE)


@njit
def load(d, w, f, i):
    """Element i of world w's flattened row of Data field expr.FIELDS[f]."""
    if f == 0:
        return d.qpos[w, i]
    if f == 1:
        return d.qvel[w, i]
    if f == 2:
        return d.act[w, i]
    if f == 3:
        return d.ctrl[w, i]
    if f == 4:
        return row3(d.xpos, w, i)
    if f == 5:
        return row3(d.xquat, w, i)
    if f == 6:
        return row3(d.xmat, w, i)
    if f == 7:
        return row3(d.xipos, w, i)
    if f == 8:
        return row3(d.geom_xpos, w, i)
    if f == 9:
        return row3(d.geom_xmat, w, i)
    if f == 10:
        return row3(d.site_xpos, w, i)
    if f == 11:
        return row3(d.site_xmat, w, i)
    if f == 12:
        return row3(d.subtree_com, w, i)
    if f == 13:
        return d.sensordata[w, i]
    if f == 14:
        return d.time[w]
    if f == 15:
        return row3(d.xanchor, w, i)
    if f == 16:
        return row3(d.xaxis, w, i)
    if f == 17:
        return row3(d.cvel, w, i)
    if f == 18:
        return d.ten_length[w, i]
    if f == 19:
        return d.ten_velocity[w, i]
    if f == 20:
        return d.actuator_length[w, i]
    if f == 21:
        return d.actuator_velocity[w, i]
    if f == 22:
        return d.actuator_force[w, i]
    if f == 23:
        return d.qacc[w, i]
    if f == 24:
        return d.qfrc_actuator[w, i]
    return math.nan


@njit
def sigmoid(x, kind, scale):
    """dm_control.utils.rewards._sigmoids (kind: index in expr.SIGMOIDS, scale from value_at_1)."""
    if kind == 0:  # gaussian
        y = x * scale
        return math.exp(-0.5 * (y * y))
    if kind == 1:  # hyperbolic
        return 1.0 / math.cosh(x * scale)
    if kind == 2:  # long_tail
        y = x * scale
        return 1.0 / (y * y + 1.0)
    if kind == 3:  # reciprocal
        return 1.0 / (abs(x) * scale + 1.0)
    if kind == 4:  # cosine
        y = x * scale
        return (1.0 + math.cos(math.pi * y)) / 2.0 if abs(y) < 1.0 else 0.0
    if kind == 5:  # linear
        y = x * scale
        return 1.0 - y if abs(y) < 1.0 else 0.0
    if kind == 6:  # quadratic
        y = x * scale
        return 1.0 - y * y if abs(y) < 1.0 else 0.0
    t = math.tanh(x * scale)  # tanh_squared
    return 1.0 - t * t


@njit
def tolerance(x, lower, upper, margin, kind, scale):
    """dm_control.utils.rewards.tolerance of one value."""
    inb = lower <= x and x <= upper
    if margin == 0.0:
        return 1.0 if inb else 0.0
    if inb:
        return 1.0
    dist = (lower - x if x < lower else x - upper) / margin
    return sigmoid(dist, int(kind), scale)


@njit
def _nan_min(a, b):
    """np.minimum: NaN if either is NaN."""
    if a != a or b != b:
        return math.nan
    return a if a <= b else b


@njit
def _nan_max(a, b):
    if a != a or b != b:
        return math.nan
    return a if a >= b else b


@njit
def run_world(d, w, code, prm, reg, outputs, out):
    """Run the program for world w: reg[w] the instruction values, out[w] the outputs."""
    r = reg[w]
    for k in range(code.shape[0]):
        op = code[k, 0]
        a = code[k, 1]
        b = code[k, 2]
        if op == OP_LOAD:
            v = load(d, w, a, code[k, 3])
        elif op == OP_CONST:
            v = prm[k, 0]
        elif op == OP_ADD:
            v = r[a] + r[b]
        elif op == OP_SUB:
            v = r[a] - r[b]
        elif op == OP_MUL:
            v = r[a] * r[b]
        elif op == OP_DIV:
            v = r[a] / r[b]
        elif op == OP_NEG:
            v = -r[a]
        elif op == OP_SIN:
            v = math.sin(r[a])
        elif op == OP_COS:
            v = math.cos(r[a])
        elif op == OP_LOG1P:
            v = math.log1p(r[a])
        elif op == OP_ARCSINH:
            v = math.asinh(r[a])
        elif op == OP_TANH:
            v = math.tanh(r[a])
        elif op == OP_SQRT:
            v = math.sqrt(r[a]) if r[a] >= 0.0 else math.nan
        elif op == OP_ABS:
            v = abs(r[a])
        elif op == OP_EXP:
            v = math.exp(r[a])
        elif op == OP_MIN:
            v = _nan_min(r[a], r[b])
        elif op == OP_MAX:
            v = _nan_max(r[a], r[b])
        elif op == OP_LE:
            v = 1.0 if r[a] <= r[b] else 0.0
        elif op == OP_LT:
            v = 1.0 if r[a] < r[b] else 0.0
        elif op == OP_WHERE:
            v = r[b] if r[a] != 0.0 else r[code[k, 3]]
        elif op == OP_TOL:
            v = tolerance(r[a], prm[k, 0], prm[k, 1], prm[k, 2], prm[k, 3], prm[k, 4])
        else:
            v = math.nan
        r[k] = v
    o = out[w]
    for j in range(outputs.shape[0]):
        o[j] = r[outputs[j]]


@njit(nogil=True)
def run_serial(dp, w, code, prm, reg, outputs, out):
    """The program for world w of the Data struct at address dp."""
    d = _data_at(dp)
    run_world(d, w, code, prm, reg, outputs, out)


@njit(parallel=True, refcount=True, nogil=True)
def run_batch(dp, nworld, code, prm, reg, outputs, out):
    """The program for worlds 0..nworld-1 of the Data struct at address dp, in parallel."""
    d = _data_at(dp)
    for i in prange(nworld):
        run_world(d, i, code, prm, reg, outputs, out)
