"""<equality>: connect, weld, joint and tendon constraints -> eq_type, eq_obj1id/obj2id, eq_objtype, eq_active0,
eq_solref, eq_solimp, eq_data and neq.  flex / flexvert / flexstrain raise UnsupportedError.

eq_data of body-based connect/weld constraints depends on the body poses at qpos0 (MuJoCo fills it in
mj_setConst).  At qpos0 every hinge/slide/ball joint is at its reference, so the poses follow from the static
body_pos/body_quat chain alone, except free joints whose pose is qpos0 itself: they are computed here
(`body_poses_qpos0`), and the setconst stage has nothing left to do for equality constraints.

eq_data columns (MuJoCo 3.17, 12 per constraint): connect: anchor in body1 (0:3), anchor in body2 (3:6);
weld: anchor in body2 (0:3), relative position (3:6) and quaternion (6:10), torquescale (10), and 1 in column 11
when the relative pose was computed from qpos0 (0 when given by relpose); joint/tendon: polycoef (0:5).
"""

import numpy as np

from .context import farr, iarr
from sim.user_util import quat2mat
from sim.constants import JNT_FREE, JNT_HINGE, JNT_SLIDE

EQ_CONNECT, EQ_WELD, EQ_JOINT, EQ_TENDON = 0, 1, 2, 3
OBJ_BODY, OBJ_SITE = 1, 6
NEQDATA = 12


def quat_mul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array(
        [
            w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
            w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
            w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
        ]
    )


def _normalize(q):
    n = np.sqrt(q @ q)
    return q / n if n > 0 else np.array([1.0, 0, 0, 0])


def body_poses_qpos0(f):
    """World positions (nbody, 3) and unit quaternions (nbody, 4) of all bodies at qpos0 (mj_kinematics)."""
    nbody = len(f["body_pos"])
    xpos = np.zeros((nbody, 3))
    xquat = np.zeros((nbody, 4))
    xquat[0] = [1, 0, 0, 0]
    parent = f["body_parentid"]
    jtype, jadr, qadr, qpos0 = f["jnt_type"], f["body_jntadr"], f["jnt_qposadr"], f["qpos0"]
    jnum = f["body_jntnum"]
    for b in range(1, nbody):
        p = parent[b]
        xpos[b] = xpos[p] + quat2mat(xquat[p]) @ f["body_pos"][b]
        xquat[b] = _normalize(quat_mul(xquat[p], f["body_quat"][b]))
        for j in range(jadr[b], jadr[b] + jnum[b]):
            if jtype[j] == JNT_FREE:
                a = qadr[j]
                xpos[b] = qpos0[a : a + 3]
                xquat[b] = _normalize(np.array(qpos0[a + 3 : a + 7], dtype=np.float64))
    return xpos, xquat


def equality_elements(ctx):
    out = []
    for sec in ctx.root.find("equality"):
        out.extend(sec.children)
    return out


def compile_equality(ctx):
    """Fill ctx.f with the equality fields; registers equality names."""
    f = ctx.f
    elems = equality_elements(ctx)
    for el in elems:
        ctx.add("equality", el)
    cols = {k: [] for k in ("type", "obj1", "obj2", "objtype", "active", "solref", "solimp", "data")}
    poses = None
    for el in elems:
        if el.key in ("equality_flex", "flexvert", "flexstrain"):
            raise ctx.unsupported(el, f"<{el.tag}> equality constraints (flex)")
        data = np.zeros(NEQDATA)
        data[1] = 1.0
        data[10] = 1.0
        if el.key in ("connect", "weld"):
            etype = EQ_CONNECT if el.key == "connect" else EQ_WELD
            sites = el.has("site1") or el.has("site2")
            bodies = el.has("body1") or el.has("body2") or el.has("anchor") or el.has("relpose")
            if sites and bodies:
                attr = next(a for a in ("body1", "body2", "anchor", "relpose") if el.has(a))
                raise el.error(
                    "site semantics (site1/site2) cannot be mixed with body semantics (body1/body2/anchor/relpose)",
                    attr,
                )
            if sites:
                if not (el.has("site1") and el.has("site2")):
                    raise el.error("site1 and site2 must be given together", "site2" if el.has("site1") else "site1")
                objtype = OBJ_SITE
                o1 = ctx.lookup("site", el.get("site1"), el, "site1")
                o2 = ctx.lookup("site", el.get("site2"), el, "site2")
            else:
                if not el.has("body1"):
                    raise el.error("missing body1 (or site1/site2)", "body1")
                if etype == EQ_CONNECT and not el.has("anchor"):
                    raise el.error("a body connect constraint needs an anchor", "anchor")
                objtype = OBJ_BODY
                o1 = ctx.lookup("body", el.get("body1"), el, "body1")
                o2 = ctx.lookup("body", el.get("body2"), el, "body2") if el.get("body2") else 0  # '' = the world
            if o1 == o2:
                raise el.error(
                    "the two objects of an equality constraint must differ", "body2" if objtype == OBJ_BODY else "site2"
                )
            if etype == EQ_CONNECT:
                if objtype == OBJ_SITE:
                    data[:] = 0
                else:
                    if poses is None:
                        poses = body_poses_qpos0(f)
                    xpos, xquat = poses
                    anchor = np.asarray(el.get("anchor"), dtype=np.float64)
                    data[0:3] = anchor
                    pos = xpos[o1] + quat2mat(xquat[o1]) @ anchor
                    data[3:6] = quat2mat(xquat[o2]).T @ (pos - xpos[o2])
            else:
                if objtype == OBJ_BODY:
                    data[0:3] = el.get("anchor") if el.has("anchor") else 0.0
                    if el.has("relpose"):
                        data[3:10] = el.get("relpose")
                if el.has("torquescale"):
                    data[10] = el.get("torquescale")
                if objtype == OBJ_BODY:
                    if np.any(data[6:10] != 0):
                        data[6:10] = _normalize(data[6:10])
                    else:
                        if poses is None:
                            poses = body_poses_qpos0(f)
                        xpos, xquat = poses
                        pos = xpos[o2] + quat2mat(xquat[o2]) @ data[0:3]
                        data[3:6] = quat2mat(xquat[o1]).T @ (pos - xpos[o1])
                        neg1 = xquat[o1] * np.array([1, -1, -1, -1])
                        data[6:10] = quat_mul(neg1, xquat[o2])
                        data[11] = 1.0
        else:
            is_joint = el.key == "equality_joint"
            etype = EQ_JOINT if is_joint else EQ_TENDON
            objtype = 0  # MuJoCo leaves eq_objtype at mjOBJ_UNKNOWN for joint/tendon constraints
            ns, a1, a2 = ("joint", "joint1", "joint2") if is_joint else ("tendon", "tendon1", "tendon2")
            o1 = ctx.lookup(ns, el.get(a1), el, a1)
            o2 = ctx.lookup(ns, el.get(a2), el, a2) if el.get(a2) else -1  # '' = none, as not given
            if o1 == o2:
                raise el.error(f"{ns} '{el.get(a1)}' is repeated in the equality constraint", a2)
            if is_joint:
                for o, a in ((o1, a1), (o2, a2)):
                    if o >= 0 and f["jnt_type"][o] not in (JNT_HINGE, JNT_SLIDE):
                        raise el.error("only hinge and slide joints can be used in a joint equality", a)
            data[0:5] = el.get("polycoef")
        cols["type"].append(etype)
        cols["obj1"].append(o1)
        cols["obj2"].append(o2)
        cols["objtype"].append(objtype)
        cols["active"].append(int(el.get("active")))
        cols["solref"].append(el.get("solref"))
        cols["solimp"].append(el.get("solimp"))
        cols["data"].append(data)

    f["neq"] = len(elems)
    f["eq_type"] = iarr(cols["type"])
    f["eq_obj1id"] = iarr(cols["obj1"])
    f["eq_obj2id"] = iarr(cols["obj2"])
    f["eq_objtype"] = iarr(cols["objtype"])
    f["eq_active0"] = iarr(cols["active"])
    f["eq_solref"] = farr(cols["solref"], 2)
    f["eq_solimp"] = farr(cols["solimp"], 5)
    f["eq_data"] = farr(cols["data"], NEQDATA)
