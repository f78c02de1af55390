"""<sensor>: every sensor type of MuJoCo 3.17, compiled to the sensor_* fields (type, object/reference resolution,
datatype, needstage, dimension, address, noise, cutoff, user data) and nsensor / nsensordata / nuser_sensor.

Every type compiles and is evaluated by sim/engine/sensor.py (tactile sensors by sim/engine/tactile.py) except
sensor plugins, which raise UnsupportedError.  Sensor history (nsample / interp / delay / interval) fills sensor_history / sensor_historyadr /
sensor_delay / sensor_interval and adds each buffer to nhistory after the actuators' (sim/engine/history.py).
Run after the body, tendon and actuator stages (sensors refer to their objects and actuator_outnum).
"""

import numpy as np

from .context import farr, iarr
from .tendon import rows2, user_rows
from sim.constants import JNT_BALL, JNT_HINGE, JNT_SLIDE

# mjtObj
OBJ = {
    "unknown": 0,
    "body": 1,
    "xbody": 2,
    "joint": 3,
    "dof": 4,
    "geom": 5,
    "site": 6,
    "camera": 7,
    "light": 8,
    "flex": 9,
    "mesh": 10,
    "skin": 11,
    "hfield": 12,
    "texture": 13,
    "material": 14,
    "pair": 15,
    "exclude": 16,
    "equality": 17,
    "tendon": 18,
    "actuator": 19,
    "sensor": 20,
    "numeric": 21,
    "text": 22,
    "tuple": 23,
    "key": 24,
    "plugin": 25,
}
OBJNAME = {v: k for k, v in OBJ.items()}
# name space (Context.names key) of each mjtObj; xbody shares the body names
_NAMESPACE = {
    1: "body",
    2: "body",
    3: "joint",
    5: "geom",
    6: "site",
    7: "camera",
    8: "light",
    9: "flex",
    10: "mesh",
    11: "skin",
    12: "hfield",
    13: "texture",
    14: "material",
    15: "pair",
    16: "exclude",
    17: "equality",
    18: "tendon",
    19: "actuator",
    20: "sensor",
    21: "numeric",
    22: "text",
    23: "tuple",
    24: "key",
    25: "plugin",
}

# mjtSensor
SENSOR_TYPES = (
    "touch",
    "accelerometer",
    "velocimeter",
    "gyro",
    "force",
    "torque",
    "magnetometer",
    "rangefinder",
    "camprojection",
    "jointpos",
    "jointvel",
    "tendonpos",
    "tendonvel",
    "actuatorpos",
    "actuatorvel",
    "actuatorfrc",
    "jointactuatorfrc",
    "tendonactuatorfrc",
    "ballquat",
    "ballangvel",
    "jointlimitpos",
    "jointlimitvel",
    "jointlimitfrc",
    "tendonlimitpos",
    "tendonlimitvel",
    "tendonlimitfrc",
    "framepos",
    "framequat",
    "framexaxis",
    "frameyaxis",
    "framezaxis",
    "framelinvel",
    "frameangvel",
    "framelinacc",
    "frameangacc",
    "subtreecom",
    "subtreelinvel",
    "subtreeangmom",
    "insidesite",
    "distance",
    "normal",
    "fromto",
    "contact",
    "e_potential",
    "e_kinetic",
    "clock",
    "tactile",
    "plugin",
    "user",
)
SENS = {t: i for i, t in enumerate(SENSOR_TYPES)}

DATATYPE_REAL, DATATYPE_POSITIVE, DATATYPE_AXIS, DATATYPE_QUATERNION = 0, 1, 2, 3
STAGE_NONE, STAGE_POS, STAGE_VEL, STAGE_ACC = 0, 1, 2, 3

# contact sensor data fields (mjtConDataField) and sizes; rangefinder data fields (mjtRayDataField)
CONDATA = ("found", "force", "torque", "dist", "pos", "normal", "tangent", "linvel", "angvel")
CONDATA_SIZE = (1, 3, 3, 1, 3, 3, 3, 3, 3)
RAYDATA = ("dist", "dir", "origin", "point", "normal", "depth")
RAYDATA_SIZE = (1, 3, 3, 3, 3, 1)

_DATATYPE = {
    "touch": 1,
    "insidesite": 1,
    "framexaxis": 2,
    "frameyaxis": 2,
    "framezaxis": 2,
    "normal": 2,
    "ballquat": 3,
    "framequat": 3,
}
_ACC = {
    "touch",
    "accelerometer",
    "force",
    "torque",
    "actuatorfrc",
    "jointactuatorfrc",
    "tendonactuatorfrc",
    "jointlimitfrc",
    "tendonlimitfrc",
    "framelinacc",
    "frameangacc",
    "contact",
}
_VEL = {
    "tactile",  # mjSTAGE_VEL in MuJoCo 3.17 (measured; acceleration stage in the older reference source)
    "velocimeter",
    "gyro",
    "jointvel",
    "tendonvel",
    "actuatorvel",
    "ballangvel",
    "jointlimitvel",
    "tendonlimitvel",
    "framelinvel",
    "frameangvel",
    "subtreelinvel",
    "subtreeangmom",
}
_DIM = {"camprojection": 2, "fromto": 6, "ballquat": 4, "framequat": 4}
for _t in (
    "accelerometer",
    "velocimeter",
    "gyro",
    "force",
    "torque",
    "magnetometer",
    "ballangvel",
    "framepos",
    "framexaxis",
    "frameyaxis",
    "framezaxis",
    "framelinvel",
    "frameangvel",
    "framelinacc",
    "frameangacc",
    "subtreecom",
    "subtreelinvel",
    "subtreeangmom",
    "normal",
):
    _DIM[_t] = 3

_SITE_SENSORS = ("touch", "accelerometer", "velocimeter", "gyro", "force", "torque", "magnetometer")
_JOINT_SENSORS = {
    "jointpos",
    "jointvel",
    "jointactuatorfrc",
    "ballquat",
    "ballangvel",
    "jointlimitpos",
    "jointlimitvel",
    "jointlimitfrc",
}
_TENDON_SENSORS = {"tendonpos", "tendonvel", "tendonactuatorfrc", "tendonlimitpos", "tendonlimitvel", "tendonlimitfrc"}
_FRAME_SENSORS = {
    "framepos",
    "framequat",
    "framexaxis",
    "frameyaxis",
    "framezaxis",
    "framelinvel",
    "frameangvel",
    "framelinacc",
    "frameangacc",
}


def sensor_elements(ctx):
    out = []
    for sec in ctx.root.find("sensor"):
        out.extend(sec.children)
    return out


def _keywords(el, attr, keys):
    """Bit field of a keyword list attribute that must be written in canonical order."""
    words = el.get(attr).split()
    bits = []
    for w in words:
        if w not in keys:
            raise el.error(f"invalid keyword '{w}', expected some of: {', '.join(keys)}", attr)
        bits.append(keys.index(w))
    if not bits:
        raise el.error("expected at least one keyword", attr)
    for a, b in zip(bits, bits[1:]):
        if b <= a:
            raise el.error(f"data keywords must be unique and in this order: {', '.join(keys)}", attr)
    return sum(1 << b for b in bits), bits


def _lookup(ctx, el, objtype, name, attr):
    ns = _NAMESPACE.get(objtype)
    if ns is None:
        raise el.error(f"objects of type '{OBJNAME.get(objtype, objtype)}' cannot be referenced by name", attr)
    if not name:
        raise el.error("missing object name", attr)
    return ctx.lookup(ns, name, el, attr)


def _one_sensor(ctx, el):
    """(type, objtype, objid, reftype, refid, intprm, datatype, needstage, dim) of one sensor element."""
    f = ctx.f
    tag = "contact" if el.key == "sensor_contact" else ("user" if el.key == "sensor_user" else el.tag)
    if el.key == "sensor_plugin":
        raise ctx.unsupported(el, "sensor plugins")
    stype = SENS[tag]
    objtype = reftype = 0
    objid = refid = -1
    intprm = [0, 0, 0]
    datatype = _DATATYPE.get(tag, DATATYPE_REAL)
    needstage = STAGE_ACC if tag in _ACC else STAGE_VEL if tag in _VEL else STAGE_POS
    dim = _DIM.get(tag, 1)

    if tag in _SITE_SENSORS:
        objtype, objid = OBJ["site"], ctx.lookup("site", el.get("site"), el, "site")
    elif tag == "camprojection":
        objtype, objid = OBJ["site"], ctx.lookup("site", el.get("site"), el, "site")
        reftype, refid = OBJ["camera"], ctx.lookup("camera", el.get("camera"), el, "camera")
        res = f["cam_resolution"][refid]
        if not res[0] or not res[1]:
            raise el.error("camera projection sensor needs a camera with a resolution", "camera")
    elif tag == "rangefinder":
        if el.has("site") == el.has("camera"):
            raise el.error(
                "rangefinder needs exactly one of 'site' and 'camera'", "camera" if el.has("site") else "site"
            )
        spec = 1
        if el.get("data", "").split():  # an empty data list keeps the default
            spec, _ = _keywords(el, "data", RAYDATA)
        intprm[0] = spec
        size = sum(RAYDATA_SIZE[i] for i in range(len(RAYDATA)) if spec & (1 << i))
        if el.has("site"):
            objtype, objid = OBJ["site"], ctx.lookup("site", el.get("site"), el, "site")
            dim = size
        else:
            objtype, objid = OBJ["camera"], ctx.lookup("camera", el.get("camera"), el, "camera")
            res = f["cam_resolution"][objid]
            dim = size * int(res[0]) * int(res[1])
    elif tag in _JOINT_SENSORS:
        objtype, objid = OBJ["joint"], ctx.lookup("joint", el.get("joint"), el, "joint")
        jt = f["jnt_type"][objid]
        if tag in ("jointpos", "jointvel", "jointactuatorfrc") and jt not in (JNT_SLIDE, JNT_HINGE):
            raise el.error(f"<{tag}> needs a slide or hinge joint", "joint")
        if tag in ("ballquat", "ballangvel") and jt != JNT_BALL:
            raise el.error(f"<{tag}> needs a ball joint", "joint")
        if tag.startswith("jointlimit") and not f["jnt_limited"][objid]:
            raise el.error(f"<{tag}> needs a limited joint", "joint")
    elif tag in _TENDON_SENSORS:
        objtype, objid = OBJ["tendon"], ctx.lookup("tendon", el.get("tendon"), el, "tendon")
        if tag.startswith("tendonlimit") and not f["tendon_limited"][objid]:
            raise el.error(f"<{tag}> needs a limited tendon", "tendon")
    elif tag in ("actuatorpos", "actuatorvel", "actuatorfrc"):
        objtype, objid = OBJ["actuator"], ctx.lookup("actuator", el.get("actuator"), el, "actuator")
        dim = int(f["actuator_outnum"][objid]) if "actuator_outnum" in f else 1
    elif tag in _FRAME_SENSORS:
        objtype = el.get("objtype")
        objid = _lookup(ctx, el, objtype, el.get("objname"), "objname")
        if el.has("reftype") != el.has("refname"):
            raise el.error("reftype and refname must be given together", "refname" if el.has("reftype") else "reftype")
        if el.has("reftype"):
            reftype = el.get("reftype")
            refid = _lookup(ctx, el, reftype, el.get("refname"), "refname")
    elif tag in ("subtreecom", "subtreelinvel", "subtreeangmom"):
        objtype, objid = OBJ["body"], ctx.lookup("body", el.get("body"), el, "body")
    elif tag == "insidesite":
        objtype = el.get("objtype")
        objid = _lookup(ctx, el, objtype, el.get("objname"), "objname")
        reftype, refid = OBJ["site"], ctx.lookup("site", el.get("site"), el, "site")
    elif tag in ("distance", "normal", "fromto"):
        for side, (g, b) in enumerate((("geom1", "body1"), ("geom2", "body2"))):
            if el.has(g) == el.has(b):
                raise el.error(f"exactly one of '{g}' and '{b}' is required", g)
            if el.has(b):
                t, i = OBJ["body"], ctx.lookup("body", el.get(b), el, b)
            else:
                t, i = OBJ["geom"], ctx.lookup("geom", el.get(g), el, g)
                if f["geom_type"][i] == 1:
                    raise el.error("height fields are not supported in geom distance sensors", g)
            if side == 0:
                objtype, objid = t, i
            else:
                reftype, refid = t, i
        if objtype == reftype and objid == refid:
            raise el.error("the two bodies/geoms of a distance sensor must differ", "geom2")
    elif tag == "contact":
        first = [a for a in ("site", "body1", "subtree1", "geom1") if el.has(a)]
        second = [a for a in ("body2", "subtree2", "geom2") if el.has(a)]
        if len(first) > 1:
            raise el.error("at most one of 'geom1', 'body1', 'subtree1', 'site' can be given", first[1])
        if len(second) > 1:
            raise el.error("at most one of 'geom2', 'body2', 'subtree2' can be given", second[1])
        kinds = {
            "site": ("site", "site"),
            "body1": ("body", "body"),
            "subtree1": ("xbody", "body"),
            "geom1": ("geom", "geom"),
            "body2": ("body", "body"),
            "subtree2": ("xbody", "body"),
            "geom2": ("geom", "geom"),
        }
        if first:
            t, ns = kinds[first[0]]
            objtype, objid = OBJ[t], ctx.lookup(ns, el.get(first[0]), el, first[0])
        if second:
            t, ns = kinds[second[0]]
            reftype, refid = OBJ[t], ctx.lookup(ns, el.get(second[0]), el, second[0])
        spec = 1
        if el.get("data", "").split():  # an empty data list keeps the default
            spec, _ = _keywords(el, "data", CONDATA)
        reduce = el.get("reduce")
        num = el.get("num")
        if num <= 0:
            raise el.error("'num' must be positive", "num")
        velbits = (1 << 7) | (1 << 8)
        if reduce == 3 and spec & velbits:
            raise el.error("netforce reduction is incompatible with linvel or angvel", "reduce")
        intprm = [spec, reduce, num]
        dim = num * sum(CONDATA_SIZE[i] for i in range(len(CONDATA)) if spec & (1 << i))
        if spec & ((1 << 1) | (1 << 2)) or reduce in (2, 3):
            needstage = STAGE_ACC
        elif spec & velbits:
            needstage = STAGE_VEL
        else:
            needstage = STAGE_POS
    elif tag in ("e_potential", "e_kinetic", "clock"):
        pass
    elif tag == "tactile":
        # mjCSensor::Compile (objtype mesh, reftype geom), dim 3 channels per taxel (mesh vertex), and
        # engine_io.c's check that the geom's body has a collision geom
        objtype, objid = OBJ["mesh"], ctx.lookup("mesh", el.get("mesh"), el, "mesh")
        reftype, refid = OBJ["geom"], ctx.lookup("geom", el.get("geom"), el, "geom")
        body = f["geom_bodyid"][refid]
        bodies = np.asarray(f["geom_bodyid"])
        colliding = (np.asarray(f["geom_contype"]) != 0) | (np.asarray(f["geom_conaffinity"]) != 0)
        if not np.any(colliding[bodies == body]):
            raise el.error("Touch sensor requires a body with at least one collision geom", "geom")
        dim = 3 * int(f["mesh_vertnum"][objid])
    elif tag == "user":
        if el.has("objtype") != el.has("objname"):
            raise el.error("objtype and objname must be given together", "objname" if el.has("objtype") else "objtype")
        if el.has("objtype"):
            objtype = OBJ.get(el.get("objtype"), 0)
            if objtype == 0:
                raise el.error(f"unknown object type '{el.get('objtype')}'", "objtype")
            objid = _lookup(ctx, el, objtype, el.get("objname"), "objname")
        datatype = el.get("datatype")
        needstage = el.get("needstage")
        dim = el.get("dim")
        if dim < 0:
            raise el.error("sensor dim must be non-negative", "dim")
        if datatype == DATATYPE_AXIS and dim != 3:
            raise el.error("datatype 'axis' requires dim=3", "dim")
        if datatype == DATATYPE_QUATERNION and dim != 4:
            raise el.error("datatype 'quaternion' requires dim=4", "dim")
    return stype, objtype, objid, reftype, refid, intprm, datatype, needstage, dim


def compile_sensor(ctx):
    """Fill ctx.f with the sensor fields; registers sensor names."""
    f = ctx.f
    elems = sensor_elements(ctx)
    for el in elems:
        ctx.add("sensor", el)
    user, nuser = user_rows(ctx, elems, "sensor")
    cols = {
        k: []
        for k in (
            "type",
            "objtype",
            "objid",
            "reftype",
            "refid",
            "intprm",
            "datatype",
            "needstage",
            "dim",
            "adr",
            "cutoff",
            "noise",
            "delay",
            "interval",
            "nsample",
        )
    }
    adr = 0
    for el in elems:
        noise = el.get("noise", 0.0)
        cutoff = el.get("cutoff", 0.0)
        if noise < 0:
            raise el.error("sensor noise cannot be negative", "noise")
        if cutoff < 0:
            raise el.error("sensor cutoff cannot be negative", "cutoff")
        interval = np.zeros(2)
        given = np.asarray(el.get("interval", np.zeros(2)), dtype=np.float64)  # one or two values
        interval[: len(given)] = given
        if interval[0] < 0:
            raise el.error("sensor interval (period) cannot be negative", "interval")
        if interval[1] > 0:
            raise el.error("sensor interval phase must not be positive", "interval")
        if interval[0] > 0 and interval[1] <= -interval[0]:
            raise el.error("sensor interval phase must be greater than -period", "interval")
        delay, nsample = el.get("delay", 0.0), el.get("nsample", 0)
        if delay > 0 and nsample <= 0:
            raise el.error("delay > 0 needs a history buffer (nsample > 0)", "delay")
        vals = _one_sensor(ctx, el)
        stype, objtype, objid, reftype, refid, intprm, datatype, needstage, dim = vals
        if cutoff > 0 and (datatype == DATATYPE_QUATERNION or (datatype == DATATYPE_AXIS and stype != SENS["normal"])):
            raise el.error("cutoff cannot be applied to an axis or quaternion sensor", "cutoff")
        cols["delay"].append(delay)
        cols["interval"].append(interval)
        cols["nsample"].append(nsample)
        for k, v in zip(
            ("type", "objtype", "objid", "reftype", "refid", "intprm", "datatype", "needstage", "dim"), vals
        ):
            cols[k].append(v)
        cols["adr"].append(adr)
        cols["cutoff"].append(cutoff)
        cols["noise"].append(noise)
        adr += dim

    n = len(elems)
    f["nsensor"] = n
    f["nsensordata"] = adr
    f["nuser_sensor"] = nuser
    for k in ("type", "objtype", "objid", "reftype", "refid", "datatype", "needstage", "dim", "adr"):
        f["sensor_" + k] = iarr(cols[k])
    f["sensor_intprm"] = iarr(cols["intprm"], 3)
    f["sensor_cutoff"] = farr(cols["cutoff"])
    f["sensor_noise"] = farr(cols["noise"])
    f["sensor_user"] = rows2(user, n, nuser)
    f["sensor_plugin"] = iarr([-1] * n)
    f["sensor_delay"] = farr(cols["delay"])
    f["sensor_interval"] = farr(cols["interval"], 2)
    f["sensor_history"] = iarr([[ns, el.get("interp", 0)] for ns, el in zip(cols["nsample"], elems)], 2)
    # sensor history buffers (2 + nsample (1 + dim) values each) follow the actuators' in d.history
    nhist = f.get("nhistory", 0)
    hadr = []
    for ns, dim in zip(cols["nsample"], cols["dim"]):
        hadr.append(nhist if ns > 0 else -1)
        nhist += 2 + ns * (1 + dim) if ns > 0 else 0
    f["sensor_historyadr"] = iarr(hadr)
    f["nhistory"] = nhist


compile_sensors = compile_sensor  # name used by the pipeline in compiler/__init__.py
