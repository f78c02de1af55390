"""The declarative language of numjoco tasks: observation segments, reward terms and health checks over Data fields.

A task file describes its step with these objects; envs/base.py compiles them into a task program (arrays) that
the physics entry runs after the frame_skip steps (sim/engine/task.py), so an env step is one compiled call.

    qpos[1:]                    elements of a Data field (per world): int, slice, or an object name
    xpos["torso"][:2]           a body / site / geom / joint / actuator / sensor row by name, then sliced
    qvel.clip(-10, 10)          element-wise clip;  qpos[:2].cos() / .sin()
    xpos["a"] - xpos["b"]       element-wise difference;  qpos[1] - 1.25   (a constant offset)

    xpos.row("torso"), xpos.row(1) a body / site / geom row by name or id (Ant's main_body)
    (site_xpos["tip"][[0, 2]] - (0, 2)).weighted((0.01, 1))   per-element coefficients of a sum / sum of squares

    Velocity(qpos[0])           (after - before) / dt over the env step
    SumSq(action), SumSq(cfrc_ext, clip=(-1, 1)), Sum(x), Norm(a - b), Healthy(), Value(x), Const(1.0)
    term * w, -term, term.clip(lo, hi), term.before_step(), term.in_action_dtype()

    Range(qpos[1], (0.7, inf)), Range(x, (lo, hi), closed=True), Finite(x), FiniteObs()
"""

import copy
import math
from collections import namedtuple

import numpy as np

from sim.constants import (
    CHK_CLOSED,
    CHK_FINITE,
    CHK_OBS_FINITE,
    CHK_OPEN,
    JNT_BALL,
    JNT_FREE,
    OBS_COS,
    OBS_SIN,
    OBS_VALUE,
    TERM_DELTA,
    TERM_HEALTHY,
    TERM_NORM,
    TERM_SQ,
    TERM_SUM,
)
from sim.types import CODE

INF = math.inf


def qpos_size(jnt_type):
    """qpos entries of a joint of type jnt_type (mjtJoint): free 7, ball 4, slide / hinge 1."""
    return {JNT_FREE: 7, JNT_BALL: 4}.get(int(jnt_type), 1)


def dof_size(jnt_type):
    """Degrees of freedom of a joint of type jnt_type (mjtJoint): free 6, ball 3, slide / hinge 1."""
    return {JNT_FREE: 6, JNT_BALL: 3}.get(int(jnt_type), 1)


# element of an observation or a term: sources (code, flat index) and how to combine them; coef weighs the
# element in a term's sum (1 in observations)
Elem = namedtuple("Elem", "src src2 op lo hi off coef", defaults=(1.0,))

# Data field -> (object kind whose names index its rows, row-size attribute or int); 1-D fields by dof/joint etc.
_ROWS = {
    "xpos": ("body", 3),
    "xquat": ("body", 4),
    "xipos": ("body", 3),
    "xmat": ("body", 9),
    "subtree_com": ("body", 3),
    "cinert": ("body", 10),
    "cvel": ("body", 6),
    "cacc": ("body", 6),
    "cfrc_ext": ("body", 6),
    "cfrc_int": ("body", 6),
    "site_xpos": ("site", 3),
    "geom_xpos": ("geom", 3),
}


def _flat_size(m, field):
    """Number of elements in one world's row of a Data field."""
    if field in _ROWS:
        kind, k = _ROWS[field]
        return int(getattr(m, "n" + kind)) * k
    return {
        "qpos": m.nq,
        "qvel": m.nv,
        "qacc": m.nv,
        "qfrc_actuator": m.nv,
        "qfrc_constraint": m.nv,
        "qfrc_applied": m.nv,
        "act": m.na,
        "ctrl": m.nu,
        "action": m.nu,
        "actuator_force": m.nu,
        "actuator_length": m.nu,
        "actuator_velocity": m.nu,
        "ten_length": m.ntendon,
        "sensordata": m.nsensordata,
        "time": 1,
    }[field]


def _named_range(m, field, name):
    """Flat index range of object `name` in a field's row: a body row, a joint's qpos/qvel, a sensor, ..."""

    def oid(kind):
        i = m.name2id(kind, name)
        if i < 0:
            raise KeyError(f"no {kind} named '{name}' in the model (field {field})")
        return i

    if field in _ROWS:
        kind, k = _ROWS[field]
        i = oid(kind)
        return range(i * k, (i + 1) * k)
    if field == "qpos":
        j = oid("joint")
        n = qpos_size(m.jnt_type[j])
        return range(int(m.jnt_qposadr[j]), int(m.jnt_qposadr[j]) + n)
    if field in ("qvel", "qacc", "qfrc_actuator", "qfrc_constraint", "qfrc_applied"):
        j = oid("joint")
        n = dof_size(m.jnt_type[j])
        return range(int(m.jnt_dofadr[j]), int(m.jnt_dofadr[j]) + n)
    if field == "sensordata":
        s = oid("sensor")
        return range(int(m.sensor_adr[s]), int(m.sensor_adr[s]) + int(m.sensor_dim[s]))
    if field in ("ctrl", "action", "actuator_force", "actuator_length", "actuator_velocity"):
        i = oid("actuator")
        return range(i, i + 1)
    if field == "ten_length":
        i = oid("tendon")
        return range(i, i + 1)
    if field == "act":
        i = oid("actuator")
        return range(int(m.actuator_actadr[i]), int(m.actuator_actadr[i]) + int(m.actuator_actnum[i]))
    raise KeyError(f"field {field} cannot be indexed by name")


class Vec:
    """A vector of observation / term elements, resolved against a Model when the task is compiled."""

    def __init__(self, build):
        self._build = build  # Model -> list of Elem

    def resolve(self, m):
        return list(self._build(m))

    def _map(self, f):
        return Vec(lambda m: [f(e) for e in self._build(m)])

    def __getitem__(self, key):
        if isinstance(key, str):
            raise TypeError('index a field by name, then slice: xpos["torso"][:2]')
        return Vec(lambda m: _index(self._build(m), key))

    def clip(self, lo, hi):
        return self._map(lambda e: e._replace(lo=float(lo), hi=float(hi)))

    def sin(self):
        return self._map(lambda e: e._replace(op=OBS_SIN))

    def cos(self):
        return self._map(lambda e: e._replace(op=OBS_COS))

    def __sub__(self, other):
        if isinstance(other, Vec):

            def build(m):
                a, b = self._build(m), other._build(m)
                if len(a) != len(b):
                    raise ValueError(f"difference of vectors of sizes {len(a)} and {len(b)}")
                return [x._replace(src2=y.src) for x, y in zip(a, b)]

            return Vec(build)
        off = np.asarray(other, dtype=np.float64)

        def build_off(m):
            a = self._build(m)
            o = np.broadcast_to(off, (len(a),))
            return [x._replace(off=x.off + float(v)) for x, v in zip(a, o)]

        return Vec(build_off)

    def weighted(self, coef):
        """Per-element coefficients (a scalar or one per element) of a Sum / SumSq / Norm term."""
        c = np.asarray(coef, dtype=np.float64)

        def build(m):
            a = self._build(m)
            w = np.broadcast_to(c, (len(a),))
            return [x._replace(coef=x.coef * float(v)) for x, v in zip(a, w)]

        return Vec(build)

    def __len__(self):
        raise TypeError("the size of a Vec is known once compiled against a model")


def _index(elems, key):
    if isinstance(key, (int, np.integer)):
        return [elems[key]]
    if isinstance(key, slice):
        return elems[key]
    return [elems[int(i)] for i in key]


class Field(Vec):
    """A Data field; field[name] selects the rows of a named object (body, site, geom, joint, sensor, ...)."""

    def __init__(self, name):
        if name not in CODE:
            raise KeyError(f"unknown task field {name}; known: {sorted(CODE)}")
        self.name = name
        code = CODE[name]
        super().__init__(
            lambda m: [Elem((code, i), None, OBS_VALUE, -INF, INF, 0.0) for i in range(_flat_size(m, name))]
        )

    def __getitem__(self, key):
        if isinstance(key, str):
            name, field, code = key, self.name, CODE[self.name]
            return Vec(
                lambda m: [Elem((code, i), None, OBS_VALUE, -INF, INF, 0.0) for i in _named_range(m, field, name)]
            )
        return super().__getitem__(key)

    def row(self, key):
        """Row `key` (a name or an id) of a per-object field: xpos.row("torso") == xpos["torso"],
        xpos.row(1) is body 1's row (a plain integer index selects one flat element)."""
        if isinstance(key, str):
            return self[key]
        if self.name not in _ROWS:
            raise KeyError(f"field {self.name} has no rows")
        kind, k = _ROWS[self.name]
        code, i = CODE[self.name], int(key)

        def build(m):
            n = int(getattr(m, "n" + kind))
            if not 0 <= i < n:
                raise KeyError(f"{kind} id {i} out of range (n{kind} = {n}, field {self.name})")
            return [Elem((code, j), None, OBS_VALUE, -INF, INF, 0.0) for j in range(i * k, (i + 1) * k)]

        return Vec(build)


qpos, qvel, act, ctrl, qacc = Field("qpos"), Field("qvel"), Field("act"), Field("ctrl"), Field("qacc")
xpos, xquat, xipos, xmat = Field("xpos"), Field("xquat"), Field("xipos"), Field("xmat")
site_xpos, geom_xpos, subtree_com = Field("site_xpos"), Field("geom_xpos"), Field("subtree_com")
cinert, cvel, cacc, cfrc_ext, cfrc_int = (
    Field("cinert"),
    Field("cvel"),
    Field("cacc"),
    Field("cfrc_ext"),
    Field("cfrc_int"),
)
qfrc_actuator, qfrc_constraint, qfrc_applied = Field("qfrc_actuator"), Field("qfrc_constraint"), Field("qfrc_applied")
actuator_force, actuator_length, actuator_velocity = (
    Field("actuator_force"),
    Field("actuator_length"),
    Field("actuator_velocity"),
)
ten_length, time, action, sensordata = Field("ten_length"), Field("time"), Field("action"), Field("sensordata")


class _State(Vec):
    """state_vector(): qpos then qvel (MujocoEnv.state_vector)."""

    def __init__(self):
        super().__init__(lambda m: qpos.resolve(m) + qvel.resolve(m))


state = _State()


class Term:
    """A reward / info term: sign * clip(weight * v, lo, hi), v by kind (see module doc)."""

    def __init__(self, kind, vec=None, weight=1.0, sign=1.0, lo=-INF, hi=INF, pre=False, action_dtype=False):
        self.kind, self.vec, self.weight, self.sign, self.lo, self.hi, self.pre = kind, vec, weight, sign, lo, hi, pre
        self.action_dtype = action_dtype

    def _copy(self, **kw):
        t = Term(self.kind, self.vec, self.weight, self.sign, self.lo, self.hi, self.pre, self.action_dtype)
        t.__dict__.update(kw)
        return t

    def __mul__(self, w):
        if self.kind == TERM_SUM and self.vec is None:  # Const(c) * w
            return self._copy(lo=self.lo * float(w), hi=self.hi * float(w))
        return self._copy(weight=self.weight * float(w))

    __rmul__ = __mul__

    def __neg__(self):
        return self._copy(sign=-self.sign)

    def clip(self, lo, hi):
        """Clip weight * v (the cost before its sign), e.g. Humanoid's contact cost range."""
        return self._copy(lo=float(lo), hi=float(hi))

    def before_step(self):
        """Evaluate on the state before the physics steps (Gymnasium's v4 Reacher and Pusher do)."""
        return self._copy(pre=True)

    def in_action_dtype(self):
        """A SumSq of action elements computed as Gymnasium's `w * np.sum(np.square(action))`: in the action's
        dtype (float32 squares, sum and weight for a float32 action), not in float64.  The compiled program has
        no float32 arithmetic: envs/base.py recomputes these terms with numpy after the compiled call when the
        action is not float64 (a few microseconds)."""
        if self.kind != TERM_SQ:
            raise ValueError("in_action_dtype() applies to SumSq(action) terms")
        return self._copy(action_dtype=True)


def Velocity(x):
    """(x after the env step - x before) / dt, for one element x."""
    return Term(TERM_DELTA, x)


def Value(x):
    """The value of one element (or the sum of several)."""
    return Term(TERM_SUM, x)


def Sum(x):
    return Term(TERM_SUM, x)


def SumSq(x, clip=None):
    """Sum of squares of x, each element clipped to `clip` first if given."""
    return Term(TERM_SQ, x if clip is None else x.clip(*clip))


def Norm(x):
    """Euclidean norm of x (e.g. Norm(xpos["a"] - xpos["b"]))."""
    return Term(TERM_NORM, x)


def Healthy():
    """1 while every health check passes, else 0."""
    return Term(TERM_HEALTHY)


def Const(c):
    """A constant c (e.g. HumanoidStandup's +1 per step); Const(c) * w == Const(c * w)."""
    return Term(TERM_SUM, None, lo=float(c), hi=float(c))


class Check:
    def __init__(self, op, vec=None, lo=-INF, hi=INF):
        self.op, self.vec, self.lo, self.hi = op, vec, lo, hi


def Range(x, bounds, closed=False):
    """Every element of x in (lo, hi) (closed=True: [lo, hi]); NaN fails."""
    lo, hi = bounds
    return Check(CHK_CLOSED if closed else CHK_OPEN, x, float(lo), float(hi))


def Finite(x):
    return Check(CHK_FINITE, x)


def FiniteObs():
    return Check(CHK_OBS_FINITE)


class Task:
    """What one env step computes.

    observation: {segment name: Vec} in order (observation_structure gives each segment's size);
    reward: {info key: Term} summed into the reward as Gymnasium does (positive terms minus costs); a key
    starting with '_' counts in the reward but is not reported in info (HumanoidStandup's constant +1);
    info: {info key: Term} reported in info only; reset_info: keys of info also reported by reset (default: all
    info terms that are not velocities); healthy: checks; terminate: end the episode when unhealthy;
    skipped: extra observation_structure entries (e.g. {"skipped_qpos": 1});
    info_arrays: {info key: Data field name} whole per-world rows copied into info after each step and reset
    (Humanoid's tendon_length / tendon_velocity).
    """

    def __init__(
        self,
        observation,
        reward,
        info=None,
        healthy=(),
        terminate=True,
        reset_info=None,
        skipped=None,
        info_arrays=None,
    ):
        self.observation = dict(observation)
        self.reward = dict(reward)
        self.info = dict(info or {})
        self.healthy = list(healthy)
        self.terminate = bool(terminate)
        self.reset_info = (
            list(reset_info) if reset_info is not None else [k for k, t in self.info.items() if t.kind != TERM_DELTA]
        )
        self.skipped = dict(skipped or {})
        self.info_arrays = dict(info_arrays or {})

    def with_terms(self, reward=None, info=None):
        """A copy with extra reward / info terms appended (env.add_terms)."""
        t = copy.copy(self)
        t.reward = dict(self.reward, **(reward or {}))
        t.info = dict(self.info, **(info or {}))
        return t
