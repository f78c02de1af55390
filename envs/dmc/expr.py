"""Symbolic physics for DeepMind Control Suite tasks: a task's observation and reward written as dm_control writes
them (numpy over named Data fields), recorded as a program that one compiled kernel evaluates for every world.

    def get_observation(self, physics):          # physics: a Symbols object, not the simulation
        return {'orientations': physics.xmat[1:, ['xx', 'xz']].ravel(), 'height': physics.xpos['torso', 'z'],
                'velocity': physics.qvel[:]}

    def get_reward(self, physics):
        standing = tolerance(physics.xpos['torso', 'z'], bounds=(1.2, inf), margin=0.6)
        return (3 * standing + (1 + physics.xmat['torso', 'zz']) / 2) / 4

Fields index as dm_control's `physics.named.data`: a row by object name (body, geom, site, joint, sensor,
actuator), a list of names, an int or a slice, then a column by index or by dm_control's column names (x y z;
xx xy ... zz; qw qx qy qz).  Values are numpy object arrays of Node, so numpy's own operators, np.sin / np.cos /
np.log1p / np.arcsinh / np.tanh / np.sqrt / np.exp / abs, .dot, .ravel, np.hstack, slicing and broadcasting work
unchanged; reductions and comparisons use the functions below (sum, mean, prod, norm, minimum, maximum, le, lt,
where, tolerance), which reduce in numpy's float64 order.  Nodes are hash-consed: a value computed twice is one
instruction.  Program.build keeps the instructions the outputs need (envs/dmc/kernels.py runs them).
"""

import math

import numpy as np

from envs.spec import dof_size, qpos_size
from sim.constants import JNT_HINGE

# Data fields the kernel reads (code = index): per-world rows flattened, as the Data arrays hold them
FIELDS = (
    "qpos",
    "qvel",
    "act",
    "ctrl",
    "xpos",
    "xquat",
    "xmat",
    "xipos",
    "geom_xpos",
    "geom_xmat",
    "site_xpos",
    "site_xmat",
    "subtree_com",
    "sensordata",
    "time",
    "xanchor",
    "xaxis",
    "cvel",
    "ten_length",
    "ten_velocity",
    "actuator_length",
    "actuator_velocity",
    "actuator_force",
    "qacc",
    "qfrc_actuator",
)
CODE = {n: i for i, n in enumerate(FIELDS)}

# instruction ops (envs/dmc/kernels.py)
(
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
) = range(21)
# sigmoids of dm_control.utils.rewards.tolerance
SIGMOIDS = ("gaussian", "hyperbolic", "long_tail", "reciprocal", "cosine", "linear", "quadratic", "tanh_squared")

_COLS3 = ("x", "y", "z")
_COLS9 = ("xx", "xy", "xz", "yx", "yy", "yz", "zx", "zy", "zz")
_COLS4 = ("qw", "qx", "qy", "qz")
# field -> (object kind naming its rows, column names); 1-D fields: kind only (an object spans several entries)
_LAYOUT = {
    "xpos": ("body", _COLS3),
    "xquat": ("body", _COLS4),
    "xmat": ("body", _COLS9),
    "xipos": ("body", _COLS3),
    "geom_xpos": ("geom", _COLS3),
    "geom_xmat": ("geom", _COLS9),
    "site_xpos": ("site", _COLS3),
    "site_xmat": ("site", _COLS9),
    "subtree_com": ("body", _COLS3),
    "xanchor": ("joint", _COLS3),
    "xaxis": ("joint", _COLS3),
    "cvel": ("body", ("rx", "ry", "rz", "tx", "ty", "tz")),
    "qpos": ("joint", None),
    "qvel": ("joint", None),
    "qacc": ("joint", None),
    "qfrc_actuator": ("joint", None),
    "act": ("actuator", None),
    "ctrl": ("actuator", None),
    "sensordata": ("sensor", None),
    "ten_length": ("tendon", None),
    "ten_velocity": ("tendon", None),
    "actuator_length": ("actuator", None),
    "actuator_velocity": ("actuator", None),
    "actuator_force": ("actuator", None),
    "time": (None, None),
}


class Node:
    """One scalar of the program (an instruction of its Builder)."""

    __slots__ = ("b", "i")

    def __init__(self, b, i):
        self.b, self.i = b, i

    def _bin(self, op, other, swap=False):
        if isinstance(other, np.ndarray):
            return NotImplemented
        o = self.b.wrap(other)
        return self.b.emit(op, o, self) if swap else self.b.emit(op, self, o)

    def __add__(self, o):
        return self._bin(OP_ADD, o)

    def __radd__(self, o):
        return self._bin(OP_ADD, o, True)

    def __sub__(self, o):
        return self._bin(OP_SUB, o)

    def __rsub__(self, o):
        return self._bin(OP_SUB, o, True)

    def __mul__(self, o):
        return self._bin(OP_MUL, o)

    def __rmul__(self, o):
        return self._bin(OP_MUL, o, True)

    def __truediv__(self, o):
        return self._bin(OP_DIV, o)

    def __rtruediv__(self, o):
        return self._bin(OP_DIV, o, True)

    def __neg__(self):
        return self.b.emit(OP_NEG, self)

    def __pos__(self):
        return self

    def __abs__(self):
        return self.b.emit(OP_ABS, self)

    def __pow__(self, p):
        if p == 2:
            return self * self  # numpy's x**2 is square(x) = x * x
        raise ValueError(f"only x**2 is supported, got x**{p}")

    # numpy's object loops call these for np.sin(a), np.log1p(a), ...
    def sin(self):
        return self.b.emit(OP_SIN, self)

    def cos(self):
        return self.b.emit(OP_COS, self)

    def log1p(self):
        return self.b.emit(OP_LOG1P, self)

    def arcsinh(self):
        return self.b.emit(OP_ARCSINH, self)

    def tanh(self):
        return self.b.emit(OP_TANH, self)

    def sqrt(self):
        return self.b.emit(OP_SQRT, self)

    def exp(self):
        return self.b.emit(OP_EXP, self)

    def __bool__(self):
        raise TypeError("a symbolic value has no truth value while the program is built: use where(), le(), lt()")

    def __float__(self):
        raise TypeError("a symbolic value has no float value while the program is built")

    def __repr__(self):
        return f"Node({self.i}: {self.b.ops[self.i]})"


class Builder:
    """Instructions in SSA form: (op, a, b, c) with a, b operand instructions, c a parameter row; hash-consed."""

    def __init__(self):
        self.ops, self.prm, self._seen = [], [], {}

    def emit(self, op, a=None, b=None, params=()):
        key = (op, -1 if a is None else a.i, -1 if b is None else b.i, tuple(params))
        i = self._seen.get(key)
        if i is None:
            i = self._seen[key] = len(self.ops)
            self.ops.append(key)
        return Node(self, i)

    def const(self, v):
        return self.emit(OP_CONST, params=(float(v),))

    def load(self, field, index):
        return self.emit(OP_LOAD, params=(CODE[field], int(index)))

    def wrap(self, v):
        if isinstance(v, Node):
            return v
        if isinstance(v, (bool, int, float, np.floating, np.integer)):
            return self.const(v)
        if isinstance(v, np.ndarray) and v.ndim == 0:
            return self.wrap(v.item())
        raise TypeError(f"cannot use {type(v).__name__} {v!r} in a symbolic expression")


def _obj(a):
    """An object array (a Node alone becomes a 0-d one)."""
    if isinstance(a, np.ndarray):
        return a
    out = np.empty((), object)
    out[()] = a
    return out


def _map(f, *args):
    """Element-wise f over broadcast arguments (arrays of Node or numbers); a scalar result stays a scalar."""
    arrs = np.broadcast_arrays(*[_obj(a) if isinstance(a, Node) else np.asarray(a, dtype=object) for a in args])
    out = np.empty(arrs[0].shape, object)
    for idx in np.ndindex(out.shape):
        out[idx] = f(*[a[idx] for a in arrs])
    return out[()] if out.ndim == 0 else out


def _builder(*args):
    for a in args:
        for x in np.asarray(a, dtype=object).ravel() if not isinstance(a, Node) else [a]:
            if isinstance(x, Node):
                return x.b
    raise TypeError("no symbolic value among the arguments")


def _elems(x):
    return list(np.asarray(x, dtype=object).ravel()) if not isinstance(x, Node) else [x]


def _pairwise(v):
    """numpy's float64 summation order (pairwise_sum: sequential under 8 elements, 8 accumulators up to 128)."""
    n = len(v)
    if n < 8:
        r = v[0]
        for x in v[1:]:
            r = r + x
        return r
    if n <= 128:
        r = list(v[:8])
        i = 8
        while i < n - n % 8:
            r = [r[j] + v[i + j] for j in range(8)]
            i += 8
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for x in v[i:]:
            res = res + x
        return res
    n2 = (n // 2) - (n // 2) % 8
    return _pairwise(v[:n2]) + _pairwise(v[n2:])


def sum(x):  # noqa: A001  (numpy's name)
    """np.sum of a float64 array, in numpy's order."""
    v = _elems(x)
    return _pairwise(v) if v else 0.0


def mean(x):
    v = _elems(x)
    return _pairwise(v) / len(v)


def prod(x):
    v = _elems(x)
    r = v[0]
    for e in v[1:]:
        r = r * e
    return r


def norm(x):
    """np.linalg.norm of a vector: sqrt of the sum of squares."""
    v = _elems(x)
    s = v[0] * v[0]
    for e in v[1:]:
        s = s + e * e
    b = _builder(*v)
    return b.emit(OP_SQRT, b.wrap(s))


def _reduce(op, x):
    v = _elems(x)
    b = _builder(*v)
    r = b.wrap(v[0])
    for e in v[1:]:
        r = b.emit(op, r, b.wrap(e))
    return r


def amin(x):
    """np.min of an array (NaN propagates as in numpy)."""
    return _reduce(OP_MIN, x)


def amax(x):
    return _reduce(OP_MAX, x)


def minimum(a, c):
    b = _builder(a, c)
    return _map(lambda x, y: b.emit(OP_MIN, b.wrap(x), b.wrap(y)), a, c)


def maximum(a, c):
    b = _builder(a, c)
    return _map(lambda x, y: b.emit(OP_MAX, b.wrap(x), b.wrap(y)), a, c)


def le(a, c):
    """1.0 where a <= c, else 0.0 (float(a <= c) in dm_control)."""
    b = _builder(a, c)
    return _map(lambda x, y: b.emit(OP_LE, b.wrap(x), b.wrap(y)), a, c)


def lt(a, c):
    b = _builder(a, c)
    return _map(lambda x, y: b.emit(OP_LT, b.wrap(x), b.wrap(y)), a, c)


def where(cond, a, c):
    """a where cond != 0, else c (cond from le / lt)."""
    b = _builder(cond, a, c)
    return _map(lambda k, x, y: b.emit(OP_WHERE, b.wrap(k), b.wrap(x), (b.wrap(y).i,)), cond, a, c)


def _sigmoid_scale(value_at_1, sigmoid):
    """dm_control.utils.rewards._sigmoids' scale (its checks, its formulas)."""
    if sigmoid in ("cosine", "linear", "quadratic"):
        if not 0 <= value_at_1 < 1:
            raise ValueError(f"`value_at_1` must be nonnegative and smaller than 1, got {value_at_1}.")
    elif not 0 < value_at_1 < 1:
        raise ValueError(f"`value_at_1` must be strictly between 0 and 1, got {value_at_1}.")
    if sigmoid == "gaussian":
        return float(np.sqrt(-2 * np.log(value_at_1)))
    if sigmoid == "hyperbolic":
        return float(np.arccosh(1 / value_at_1))
    if sigmoid == "long_tail":
        return float(np.sqrt(1 / value_at_1 - 1))
    if sigmoid == "reciprocal":
        return float(1 / value_at_1 - 1)
    if sigmoid == "cosine":
        return float(np.arccos(2 * value_at_1 - 1) / np.pi)
    if sigmoid == "linear":
        return float(1 - value_at_1)
    if sigmoid == "quadratic":
        return float(np.sqrt(1 - value_at_1))
    if sigmoid == "tanh_squared":
        return float(np.arctanh(np.sqrt(1 - value_at_1)))
    raise ValueError(f"Unknown sigmoid type {sigmoid!r}.")


def tolerance(x, bounds=(0.0, 0.0), margin=0.0, sigmoid="gaussian", value_at_margin=0.1):
    """dm_control.utils.rewards.tolerance, element-wise: 1 inside the inclusive bounds, a sigmoid of the distance
    to the nearest bound / margin outside (0 outside when margin == 0)."""
    lower, upper = bounds
    if lower > upper:
        raise ValueError("Lower bound must be <= upper bound.")
    if margin < 0:
        raise ValueError("`margin` must be non-negative.")
    scale = _sigmoid_scale(value_at_margin, sigmoid) if margin != 0 else 0.0
    prm = (float(lower), float(upper), float(margin), float(SIGMOIDS.index(sigmoid)), scale)
    b = _builder(x)
    return _map(lambda v: b.emit(OP_TOL, b.wrap(v), params=prm), x)


def object_id(model, kind, name):
    i = model.name2id(kind, name)
    if i < 0:
        raise KeyError(f"no {kind} named '{name}' in the model")
    return i


def entries(model, field, kind, name):
    """The entries of a 1-D field that belong to object `name`: a joint's qpos / dofs, a sensor's data, ..."""
    m = model
    i = object_id(m, kind, name)
    if field == "qpos":
        n = qpos_size(m.jnt_type[i])
        a = int(m.jnt_qposadr[i])
    elif field in ("qvel", "qacc", "qfrc_actuator") or field.startswith("dof_"):
        n = dof_size(m.jnt_type[i])
        a = int(m.jnt_dofadr[i])
    elif field == "sensordata":
        a, n = int(m.sensor_adr[i]), int(m.sensor_dim[i])
    elif field == "act":
        a, n = int(m.actuator_actadr[i]), int(m.actuator_actnum[i])
    else:
        a, n = i, 1
    return slice(a, a + n)


def named_key(model, field, kind, cols, nrow, key):
    """dm_control's named indexing of a field (rows of object kind, column names cols or None for a 1-D field
    whose objects span entries) as a numpy index."""

    def row(k):
        if isinstance(k, str):
            return entries(model, field, kind, k) if cols is None else object_id(model, kind, k)
        if isinstance(k, (list, tuple)) and k and isinstance(k[0], str):
            if cols is None:
                return np.concatenate([np.arange(nrow)[entries(model, field, kind, x)] for x in k])
            return [object_id(model, kind, x) for x in k]
        if isinstance(k, np.ndarray) and k.dtype.kind in "US":
            return np.vectorize(lambda x: object_id(model, kind, str(x)))(k)
        return k

    def col(k):
        if isinstance(k, str):
            return cols.index(k)
        if isinstance(k, (list, tuple)) and k and isinstance(k[0], str):
            return [cols.index(x) for x in k]
        return k

    if isinstance(key, tuple) and cols is not None:
        r, c = key
        return row(r), col(c)
    return row(key)


_XYZ = ("x", "y", "z")
_MODEL_LAYOUT = {
    "geom_pos": ("geom", _XYZ),
    "geom_size": ("geom", _XYZ),
    "geom_rgba": ("geom", ("r", "g", "b", "a")),
    "geom_quat": ("geom", ("qw", "qx", "qy", "qz")),
    "site_pos": ("site", _XYZ),
    "site_size": ("site", _XYZ),
    "site_rgba": ("site", ("r", "g", "b", "a")),
    "body_pos": ("body", _XYZ),
    "body_quat": ("body", ("qw", "qx", "qy", "qz")),
    "body_mass": ("body", None),
    "light_pos": ("light", _XYZ),
    "jnt_range": ("joint", ("min", "max")),
    "jnt_limited": ("joint", None),
    "jnt_type": ("joint", None),
    "dof_damping": ("joint", None),
    "dof_armature": ("joint", None),
    "actuator_gear": ("actuator", None),
    "actuator_ctrlrange": ("actuator", ("min", "max")),
}


class NamedArray:
    """A numeric array indexed as dm_control's named views (names of rows, names of columns)."""

    def __init__(self, model, field, arr, kind, cols):
        self._m, self._f, self._a, self._kind, self._cols = model, field, arr, kind, cols

    def _key(self, key):
        return named_key(self._m, self._f, self._kind, self._cols, self._a.shape[0], key)

    def __getitem__(self, key):
        return self._a[self._key(key)]

    def __setitem__(self, key, value):
        self._a[self._key(key)] = value


class _Named:
    def __init__(self, model, src, layout):
        self._m, self._src, self._layout = model, src, layout

    def __getattr__(self, name):
        if name not in self._layout:
            raise AttributeError(f"no named view of {name}")
        kind, cols = self._layout[name]
        arr = getattr(self._src, name)
        if cols is not None and arr.ndim == 1:
            arr = arr.reshape(-1, len(cols))
        return NamedArray(self._m, name, arr, kind, cols)


class Field:
    """A Data field as dm_control's named view: field[rows] or field[rows, columns] -> object array of Node."""

    def __init__(self, sym, name):
        self.sym, self.name = sym, name
        m = sym.model
        kind, cols = _LAYOUT[name]
        self.kind, self.cols = kind, cols
        if name == "time":
            self.nodes = np.array([sym.b.load("time", 0)], object)
            return
        if cols is not None:
            n = int(getattr(m, "n" + ("jnt" if kind == "joint" else kind)))
            k = len(cols)
            flat = [sym.b.load(name, i) for i in range(n * k)]
            self.nodes = np.array(flat, object).reshape(n, k) if flat else np.empty((n, k), object)
        else:
            size = {
                "qpos": m.nq,
                "qvel": m.nv,
                "qacc": m.nv,
                "qfrc_actuator": m.nv,
                "act": m.na,
                "ctrl": m.nu,
                "sensordata": m.nsensordata,
                "ten_length": m.ntendon,
                "ten_velocity": m.ntendon,
                "actuator_length": m.nu,
                "actuator_velocity": m.nu,
                "actuator_force": m.nu,
            }[name]
            nodes = [sym.b.load(name, i) for i in range(int(size))]
            self.nodes = np.array(nodes, object) if nodes else np.empty(0, object)

    def __getitem__(self, key):
        return self.nodes[named_key(self.sym.model, self.name, self.kind, self.cols, self.nodes.shape[0], key)]

    @property
    def shape(self):
        return self.nodes.shape


class Symbols:
    """The symbolic physics a task's get_observation / get_reward receive: physics.qpos, physics.xmat, ... (Field),
    physics.model the numjoco Model (constants)."""

    def __init__(self, model):
        self.model = model
        self.b = Builder()
        self._fields = {}
        self.named = _ModelViews(model)

    def __getattr__(self, name):
        if name in _LAYOUT:
            f = self._fields.get(name)
            if f is None:
                f = self._fields[name] = Field(self, name)
            return f
        raise AttributeError(name)

    def hinge_names(self):
        """Names of the hinge joints, in joint order."""
        m = self.model
        return [m.id2name("joint", j) for j in range(int(m.njnt)) if int(m.jnt_type[j]) == JNT_HINGE]

    def sensor_names(self, *types):
        """Names of the sensors of the given mjtSensor types, in sensor order (quadruped's _get_sensor_names)."""
        m = self.model
        st = np.asarray(m.sensor_type).ravel()
        return [m.id2name("sensor", int(s)) for s in np.flatnonzero(np.isin(st, types))]


class _ModelViews:
    """physics.named.model in get_observation / get_reward: the model's constants by name (numbers)."""

    def __init__(self, model):
        self.model = _Named(model, model, _MODEL_LAYOUT)


class Program:
    """The instructions the outputs need, renumbered, as arrays: code (ninstr, 4) int64 = (op, a, b, c),
    prm (ninstr, 5) float64, outputs (nout,) int64 (instruction per output)."""

    def __init__(self, b, outputs):
        outs = [b.wrap(o) for o in outputs]
        need = set()
        stack = [o.i for o in outs]
        while stack:
            i = stack.pop()
            if i in need:
                continue
            need.add(i)
            op, a, c, params = b.ops[i]
            stack += [j for j in (a, c) if j >= 0]
            if op == OP_WHERE:
                stack.append(params[0])
        keep = sorted(need)
        new = {old: k for k, old in enumerate(keep)}
        self.code = np.zeros((len(keep), 4), np.int64)
        self.prm = np.zeros((len(keep), 5), np.float64)
        for k, old in enumerate(keep):
            op, a, c, params = b.ops[old]
            self.code[k, 0] = op
            self.code[k, 1] = new[a] if a >= 0 else -1
            self.code[k, 2] = new[c] if c >= 0 else -1
            if op == OP_LOAD:
                self.code[k, 1], self.code[k, 3] = params
            elif op == OP_WHERE:
                self.code[k, 3] = new[params[0]]
            else:
                self.prm[k, : len(params)] = params
        self.outputs = np.array([new[o.i] for o in outs], np.int64)
        self.fields = sorted({FIELDS[int(c)] for c in self.code[self.code[:, 0] == OP_LOAD, 1]})


def constant(x):
    """True when x is a plain number (not symbolic)."""
    return not isinstance(x, (Node, np.ndarray)) or (isinstance(x, np.ndarray) and x.dtype != object)


INF = math.inf
