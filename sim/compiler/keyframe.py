"""<keyframe> and <custom>: keyframes (key_*) and custom numeric / text / tuple fields.

Keyframes: missing arrays default to qpos0, zeros, and the mocap bodies' body_pos / body_quat; given arrays may
not be longer than nq / nv / na / 3 nmocap / 4 nmocap / nu (shorter ones overwrite the start of the default, as
mujoco 3.17 does); <size nkey=N> appends default keyframes up to N.
Quaternions (ball/free joints in key_qpos, key_mquat) are normalized as MuJoCo does.  Run after the body,
actuator (na, nu) stages.
"""

import math

import numpy as np

from sim.errors import UnsupportedError
from .context import farr, iarr
from sim.user_util import normvec
from .sensor import OBJ, _NAMESPACE
from .tendon import size_elem
from sim.constants import MINVAL  # mjMINVAL

JNT_FREE, JNT_BALL = 0, 1
MJEPS = 1e-14


def _normvec(v):
    """mjuu_normvec: normalize unless (nearly) zero or already unit."""
    v = np.array(v, dtype=np.float64)
    normvec(v)
    return v


def _normalize4(v):
    """mju_normalize4: zero -> identity quaternion; otherwise scaled by 1/norm unless unit within mjMINVAL."""
    nrm = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3])
    if nrm < MINVAL:
        return np.array([1.0, 0, 0, 0])
    return v * (1 / nrm) if abs(nrm - 1) > MINVAL else v


def compile_keyframes(ctx):
    """Fill ctx.f with nkey and key_time/qpos/qvel/act/mpos/mquat/ctrl; registers key names."""
    f = ctx.f
    nq, nv = f["nq"], f["nv"]
    na, nu = f.get("na", 0), f.get("nu", 0)
    mocapid = f["body_mocapid"]
    nmocap = int(f.get("nmocap", int(np.sum(np.asarray(mocapid) >= 0))))
    mpos0 = np.zeros(3 * nmocap)
    mquat0 = np.zeros(4 * nmocap)
    for b, mid in enumerate(mocapid):
        if mid >= 0:
            mpos0[3 * mid : 3 * mid + 3] = f["body_pos"][b]
            mquat0[4 * mid : 4 * mid + 4] = f["body_quat"][b]

    elems = []
    for sec in ctx.root.find("keyframe"):
        elems.extend(sec.children)
    nkey_size = max(0, size_elem(ctx).get("nkey"))  # a negative nkey reserves no keyframe (MuJoCo 3.17)

    rows = {k: [] for k in ("time", "qpos", "qvel", "act", "mpos", "mquat", "ctrl")}
    spec = (
        ("qpos", nq, f["qpos0"], "nq"),
        ("qvel", nv, None, "nv"),
        ("act", na, None, "na"),
        ("mpos", 3 * nmocap, mpos0, "3*nmocap"),
        ("mquat", 4 * nmocap, mquat0, "4*nmocap"),
        ("ctrl", nu, None, "nu"),
    )
    for el in elems + [None] * max(0, nkey_size - len(elems)):
        if el is not None:
            ctx.add("key", el)
        else:
            ctx.add("key", None, name="")
        if el is not None and el.extra and "attached_key" in el.extra:
            row = _attached_key(ctx, el, spec)
            rows["time"].append(row.pop("time"))
            for attr, v in row.items():
                rows[attr].append(v)
            continue
        label = (el.get("name") or f"#{len(rows['time'])}") if el is not None else ""
        rows["time"].append(el.get("time") if el is not None else 0.0)
        for attr, n, default, what in spec:
            v = np.zeros(n) if default is None else np.array(default, dtype=np.float64)
            if el is not None and el.has(attr) and len(el.get(attr)):
                given = np.array(el.get(attr), dtype=np.float64)
                if len(given) > n:
                    raise el.error(
                        f"keyframe '{label}': invalid {attr} size, expected at most {n} ({what}), got {len(given)}",
                        attr,
                    )
                # MuJoCo 3.17 accepts a shorter array: it overwrites the start of the default (measured for
                # qpos/qvel/act/ctrl); a partial mocap array is ignored (measured: mpos="1 2" keeps body_pos)
                if attr in ("mpos", "mquat"):
                    if len(given) == n:
                        v = given
                else:
                    v[: len(given)] = given
            rows[attr].append(v)

    jtype, qadr = f["jnt_type"], f["jnt_qposadr"]
    for q in rows["qpos"]:
        for j in range(len(jtype)):
            if jtype[j] in (JNT_BALL, JNT_FREE):
                a = qadr[j] + (3 if jtype[j] == JNT_FREE else 0)
                q[a : a + 4] = _normalize4(_normvec(q[a : a + 4].copy()))
    for mq in rows["mquat"]:
        for i in range(nmocap):
            mq[4 * i : 4 * i + 4] = _normvec(mq[4 * i : 4 * i + 4].copy())

    nkey = len(rows["time"])
    f["nkey"] = nkey
    f["key_time"] = farr(rows["time"])
    for attr, n, _, _ in spec:
        f["key_" + attr] = farr(rows[attr], n) if n else np.zeros((nkey, 0))


compile_keyframe = compile_keyframes


def _attached_key(ctx, el, spec):
    """A keyframe of a model attached with <attach model=...> (mjcf.compose): this model's defaults (qpos0,
    zeros, mocap body poses), overwritten for the attached joints, actuators and mocap bodies by the values the
    keyframe has in its own (compiled) model.  A keyframe that sets objects the attachment left out (a body or
    frame attached alone) is refused: MuJoCo 3.17 re-indexes such keyframes in a way that depends on later
    attachments of the same model."""
    sub, k, prefix, att = el.extra["attached_key"]
    f = ctx.f
    row = {
        attr: (np.zeros(n) if default is None else np.array(default, dtype=np.float64)) for attr, n, default, _ in spec
    }
    row["time"] = float(sub.key_time[k])
    found = {"joint": {}, "actuator": {}, "body": {}}
    for kind in found:
        for i, e in enumerate(ctx.elems[kind]):
            x = getattr(e, "extra", None)
            if x and x.get("attach") is att and x["source"][0] == kind:
                # a replicated attachment: the keyframe sets the first copy (MuJoCo attaches keyframes once)
                found[kind].setdefault(x["source"][1], i)
    missing = (
        sub.njnt - len(found["joint"])
        or sub.nu - len(found["actuator"])
        or int(np.sum(sub.body_mocapid >= 0)) - sum(1 for b in found["body"] if sub.body_mocapid[b] >= 0)
    )
    if missing:
        raise att.error(
            f"keyframe '{el.get('name', '')}' of model '{att.raw.get('model')}' sets joints, "
            "actuators or mocap bodies this attachment leaves out: MuJoCo re-indexes such keyframes in "
            "an order-dependent way that numjoco does not reproduce",
            "model",
            cls=UnsupportedError,
        )
    # only the values the keyframe writes move over (a shorter array writes its start; mocap arrays all or
    # nothing); the others keep this model's defaults
    given = {a: (len(el.get(a)) if el.has(a) else 0) for a in ("qpos", "qvel", "act", "ctrl", "mpos", "mquat")}
    nmocap_sub = int(np.sum(sub.body_mocapid >= 0))
    for a, w in (("mpos", 3), ("mquat", 4)):
        given[a] = given[a] if given[a] == w * nmocap_sub else 0

    def move(attr, src, dst, n):
        for i in range(n):
            if src + i < given[attr]:
                row[attr][dst + i] = getattr(sub, "key_" + attr)[k][src + i]

    nqj = {0: 7, 1: 4, 2: 1, 3: 1}
    nvj = {0: 6, 1: 3, 2: 1, 3: 1}
    for j, p in found["joint"].items():
        t = int(sub.jnt_type[j])
        move("qpos", int(sub.jnt_qposadr[j]), int(f["jnt_qposadr"][p]), nqj[t])
        move("qvel", int(sub.jnt_dofadr[j]), int(f["jnt_dofadr"][p]), nvj[t])
    for u, p in found["actuator"].items():
        move("ctrl", u, p, 1)
        move("act", int(sub.actuator_actadr[u]), int(f["actuator_actadr"][p]), int(sub.actuator_actnum[u]))
    for bsub, p in found["body"].items():
        m, mp = int(sub.body_mocapid[bsub]), int(f["body_mocapid"][p])
        if m >= 0 and mp >= 0:
            move("mpos", 3 * m, 3 * mp, 3)
            move("mquat", 4 * m, 4 * mp, 4)
    return row


def compile_custom(ctx):
    """Fill ctx.f with numeric_*, text_*, tuple_* and their sizes; registers their names."""
    f = ctx.f
    numerics, texts, tuples = [], [], []
    for sec in ctx.root.find("custom"):
        for c in sec.children:
            {"numeric": numerics, "text": texts, "tuple": tuples}[c.key].append(c)

    adr, nadr, nsize, ndata = 0, [], [], []
    for el in numerics:
        ctx.add("numeric", el)
        data = np.asarray(el.get("data", np.zeros(0)), dtype=np.float64)
        size = el.get("size") if el.has("size") else len(data)
        if el.has("size") and len(data) > size:
            raise el.error(
                f"numeric '{el.get('name')}': size {size} is smaller than the data array ({len(data)} values)", "size"
            )
        if size < 1 or size > 500:
            raise el.error("custom numeric size must be between 1 and 500", "size" if el.has("size") else "data")
        row = np.zeros(size)
        row[: len(data)] = data
        nadr.append(adr)
        nsize.append(size)
        ndata.extend(row)
        adr += size
    f["nnumeric"] = len(numerics)
    f["nnumericdata"] = adr
    f["numeric_adr"] = iarr(nadr)
    f["numeric_size"] = iarr(nsize)
    f["numeric_data"] = farr(ndata)

    buf, tadr, tsize = b"", [], []
    for el in texts:
        ctx.add("text", el)
        s = el.get("data")
        if not s:
            raise el.error("text field cannot be empty", "data")
        raw = s.encode() + b"\0"
        tadr.append(len(buf))
        tsize.append(len(raw))
        buf += raw
    f["ntext"] = len(texts)
    f["ntextdata"] = len(buf)
    f["text_adr"] = iarr(tadr)
    f["text_size"] = iarr(tsize)
    f["text_data"] = buf

    for el in tuples:  # names first: a tuple may refer to another tuple
        ctx.add("tuple", el)
    tadr, tsz, otype, oid, oprm = [], [], [], [], []
    for el in tuples:
        items = el.children
        if not items:
            raise el.error(f"tuple '{el.get('name')}' is empty")
        tadr.append(len(otype))
        tsz.append(len(items))
        for c in items:
            t = OBJ.get(c.get("objtype"), 0)
            if t == 0 or t not in _NAMESPACE:
                raise c.error(f"unknown object type '{c.get('objtype')}'", "objtype")
            otype.append(t)
            oid.append(ctx.lookup(_NAMESPACE[t], c.get("objname"), c, "objname"))
            oprm.append(c.get("prm"))
    f["ntuple"] = len(tuples)
    f["ntupledata"] = len(otype)
    f["tuple_adr"] = iarr(tadr)
    f["tuple_size"] = iarr(tsz)
    f["tuple_objtype"] = iarr(otype)
    f["tuple_objid"] = iarr(oid)
    f["tuple_objprm"] = farr(oprm)
