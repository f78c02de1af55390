"""Kinematic tree compiler: <worldbody> -> bodies, joints, dofs, geoms, sites, cameras, lights.

Follows MuJoCo's mjCBody/mjCJoint/mjCGeom/mjCSite/mjCCamera/mjCLight::Compile and mjCModel::CopyTree:
bodies are numbered in depth-first pre-order, each body's geoms/joints/sites/cameras/lights in document
order; <frame> elements are flattened into the poses of what they contain.
"""

import math

import numpy as np

from . import inertia as inr
from .context import farr, iarr, store_columns
from sim.user_util import EPS, frameaccum, frameinvert, full_inertia, normvec, rotvec, z2quat
from .frames import orientation
from sim.mjcf.elem import Elem
from sim.constants import MINVAL  # mjMINVAL

_DEG2RAD = math.pi / 180.0  # MuJoCo converts joint range / ref with x *= mjPI/180.0 (one rounded factor)
FRAME_EPS = 1e-6  # kFrameEps: poses closer than this are "the same frame"
FREE, BALL, SLIDE, HINGE = 0, 1, 2, 3
NQ = {FREE: 7, BALL: 4, SLIDE: 1, HINGE: 1}
NV = {FREE: 6, BALL: 3, SLIDE: 1, HINGE: 1}
SAMEFRAME_NONE, SAMEFRAME_BODY, SAMEFRAME_INERTIA, SAMEFRAME_BODYROT, SAMEFRAME_INERTIAROT = range(5)


def _same_vec(a, b):
    return all(abs(a[i] - b[i]) < FRAME_EPS for i in range(3))


def _same_quat(a, b):
    return all(abs(a[i] - b[i]) < FRAME_EPS for i in range(4)) or all(abs(a[i] + b[i]) < FRAME_EPS for i in range(4))


_ZERO = np.zeros(3)
_QUNIT = np.array([1.0, 0, 0, 0])


def _sameframe(pos, quat, ipos, iquat):
    """mjtSameFrame of an object pose relative to its body frame and inertial frame."""
    if _same_vec(pos, _ZERO) and _same_quat(quat, _QUNIT):
        return SAMEFRAME_BODY
    if _same_quat(quat, _QUNIT):
        return SAMEFRAME_BODYROT
    if _same_vec(pos, ipos) and _same_quat(quat, iquat):
        return SAMEFRAME_INERTIA
    if _same_quat(quat, iquat):
        return SAMEFRAME_INERTIAROT
    return SAMEFRAME_NONE


def checklimited(el, autolimits, limited, rng, attr="limited", rangeattr="range"):
    """Resolve a FalseTrueAuto limit flag as MuJoCo 3.17: "auto" is an error for a range other than (0, 0) when
    autolimits is off (checklimited), and otherwise limited exactly when range[0] < range[1]."""
    if limited != 2:
        return bool(limited)
    if not autolimits:
        if not (rng[0] == 0 and rng[1] == 0):
            raise el.error(f"'{attr}' must be specified when '{rangeattr}' is given and autolimits is disabled", attr)
        return False
    return bool(rng[0] < rng[1])


class Frame:
    """A <frame> element, or a static body fused into its parent (compiler fusestatic turns such a body into a
    frame, as mjs_fuseStatic does): its own pose as written (a quat is not normalised), its enclosing frame
    (None: the owner body's frame) and its owner (the BodyRec it sits in)."""

    def __init__(self, pos, quat, parent, owner):
        self.pos, self.quat, self.parent, self.owner = pos, quat, parent, owner
        self._pose = {}

    def pose(self, fused=True):
        """Compiled pose (pos, unit quat) in the owner body's frame, or (fused=True) in the frame of the kept
        body that receives the owner's objects.  As mjCFrame::Compile: the enclosing frame's compiled pose
        composed with the own pose as written, then normalised."""
        if fused not in self._pose:
            base = _frame_of(self.parent, self.owner, fused)
            if base is None:
                p, q = np.array(self.pos, dtype=np.float64), np.array(self.quat, dtype=np.float64)
            else:
                p, q = frameaccum(*base.pose(fused), self.pos, self.quat)
            normvec(q)
            self._pose[fused] = (p, q)
        return self._pose[fused]


def _frame_of(frame, owner, fused=True):
    """The frame an object of body `owner` sits in: its <frame>, else (fused=True) the frame a fused owner became."""
    if frame is None and fused and owner.fused:
        return owner.fframe
    return frame


def _frame_pose(frame, owner, fused=True):
    """Compiled pose of the frame an object of body `owner` sits in (see Frame.pose), None for the body frame."""
    f = _frame_of(frame, owner, fused)
    return None if f is None else f.pose(fused)


class BodyRec:
    """A body while compiling: its element, parent, accumulated objects and computed properties."""

    def __init__(self, el, parent, frame):
        self.el = el
        self.parent = parent
        self.frame = frame
        self.id = 0
        self.children = []
        self.joints = []  # (Elem, Frame)
        self.geoms = []
        self.sites = []
        self.cameras = []
        self.lights = []
        self.inertial = None


def _collect(el, rec, frame, ctx, bodies):
    """Walk a body's children in document order, flattening <frame>, creating child BodyRecs."""
    for c in el.children:
        k = c.key
        if k == "body":
            child = BodyRec(c, rec, frame)
            bodies.append(child)
            rec.children.append(child)
        elif k == "frame":
            q = orientation(c, *ctx.angles(c), normalize=False)
            p = np.array(c.get("pos"), dtype=np.float64)
            _collect(c, rec, Frame(p, q, frame, rec), ctx, bodies)
        elif k == "inertial":
            if rec.parent is None and c.origin is None:
                # MJCF refuses it; MuJoCo's URDF import gives the inertial of a link named "world" to the world
                raise c.error("world body cannot have inertia")
            rec.inertial = c
        elif k in ("joint", "freejoint"):
            if rec.parent is None:
                raise c.error("world body cannot have joints")
            rec.joints.append((c, frame))
        elif k == "geom":
            rec.geoms.append((c, frame))
        elif k == "site":
            rec.sites.append((c, frame))
        elif k == "camera":
            rec.cameras.append((c, frame))
        elif k == "light":
            rec.lights.append((c, frame))


def _order(rec, out):
    """Depth-first pre-order body list (mjCModel::MakeTreeLists); child bodies are collected per body first."""
    out.append(rec)
    for c in rec.children:
        _order(c, out)


def _gather(el, rec, frame, ctx, all_bodies):
    _collect(el, rec, frame, ctx, all_bodies)
    for c in rec.children:
        _gather(c.el, c, None, ctx, all_bodies)


def compile_bodies(ctx, mesh_props=None, hfield_props=None):
    """Fill body_*, jnt_*, dof_*, geom_*, site_*, cam_*, light_*, qpos0, qpos_spring and sizes in ctx.f.

    mesh_props(ctx, mesh_id, geom_el, geom_type) and hfield_props(ctx, hfield_id) come from the asset
    compiler (see compiler.mesh / compiler.hfield).
    """
    wb = ctx.root.find("worldbody")
    world_el = Elem("worldbody", "worldbody", ctx.file, None, {})
    for w in wb:
        if w.raw:
            raise w.error("world body cannot have attributes", next(iter(w.raw)))
        world_el.children.extend(w.children)
    world = BodyRec(world_el, None, None)
    tmp = [world]
    _gather(world_el, world, None, ctx, tmp)
    bodies = []
    _order(world, bodies)
    ctx.refused_fuse = set()
    _mark_fused(ctx, bodies)
    _fusion_frames(ctx, bodies)
    kept = [b for b in bodies if not b.fused]
    for i, b in enumerate(kept):
        b.id = i
        ctx.add("body", b.el if i else None, name="world" if i == 0 else None)
    nuser = _nuser(ctx)

    B = {
        k: []
        for k in (
            "pos",
            "quat",
            "ipos",
            "iquat",
            "mass",
            "inertia",
            "parentid",
            "weldid",
            "mocapid",
            "jntnum",
            "jntadr",
            "dofnum",
            "dofadr",
            "geomnum",
            "geomadr",
            "gravcomp",
            "user",
            "contype",
            "conaffinity",
            "margin",
            "rootid",
            "sameframe",
            "simple",
        )
    }
    J = {
        k: []
        for k in (
            "type",
            "group",
            "limited",
            "actfrclimited",
            "actgravcomp",
            "qposadr",
            "dofadr",
            "bodyid",
            "pos",
            "axis",
            "stiffness",
            "stiffnesspoly",
            "range",
            "actfrcrange",
            "solref",
            "solimp",
            "margin",
            "user",
        )
    }
    D = {
        k: []
        for k in (
            "bodyid",
            "jntid",
            "parentid",
            "solref",
            "solimp",
            "frictionloss",
            "armature",
            "damping",
            "dampingpoly",
        )
    }
    G = {
        k: []
        for k in (
            "type",
            "contype",
            "conaffinity",
            "condim",
            "bodyid",
            "dataid",
            "matid",
            "group",
            "priority",
            "sameframe",
            "solmix",
            "solref",
            "solimp",
            "size",
            "aabb",
            "rbound",
            "pos",
            "quat",
            "friction",
            "margin",
            "gap",
            "fluid",
            "user",
            "rgba",
            "surfacevel",
            "adhesion",
            "plugin",
        )
    }
    S = {k: [] for k in ("type", "bodyid", "matid", "group", "sameframe", "size", "pos", "quat", "user", "rgba")}
    qpos0, qpos_spring = [], []
    cams, lights = [], []
    nq = nv = 0
    lastdof = {}
    mocap_count = 0
    ctx.body_recs = kept
    items = [dict(geoms=[], sites=[], cams=[], lights=[]) for _ in kept]  # per final body, in id order

    for b in bodies:
        el = b.el
        if b.fused:
            _fuse_static(ctx, b, B, items, bodies, mesh_props, hfield_props)
            continue
        i = b.id
        par = b.parent.host if b.parent is not None else None
        if i == 0:
            pos, quat = np.zeros(3), np.array([1.0, 0, 0, 0])
        else:
            pos = np.array(el.get("pos"), dtype=np.float64)
            quat = orientation(el, *ctx.angles(el))
        mocap = bool(el.get("mocap", 0)) if i else False
        # joints decide the weld structure of this body
        b.has_joints = bool(b.joints)
        weldid = i if (i == 0 or b.joints or mocap) else B["weldid"][par.id]
        geoms = _body_geoms(ctx, b, i, weldid, mocap, bodies, B, mesh_props, hfield_props)
        ipos, iquat, mass, inertia = _inertial(ctx, b, i, pos, quat, geoms)
        b.own_pose = (pos, quat)
        fpose = _frame_pose(b.frame, b.parent) if b.parent is not None else None
        if fpose is not None:
            pos, quat = frameaccum(*fpose, pos, quat)
        normvec(quat)
        # ---- free joint alignment (compiler alignfree / freejoint align)
        align = False
        if len(b.joints) == 1 and not b.children:
            jel = b.joints[0][0]
            if jel.key == "freejoint":
                a_ = jel.get("align")
                align = a_ == 1 or (a_ == 2 and bool(ctx.comp_of(jel).get("alignfree")))
        inv_pos = inv_quat = None
        if align:
            pos, quat = frameaccum(pos, quat, ipos, iquat)
            inv_pos, inv_quat = frameinvert(ipos, iquat)
            ipos, iquat = np.zeros(3), np.array([1.0, 0, 0, 0])
            for g in geoms:
                g["pos"], g["quat"] = frameaccum(inv_pos, inv_quat, g["pos"], g["quat"])
        # ---- joints
        jstart = len(J["type"])
        dofstart = nv
        dofnum = 0
        hasball = False
        rotfound = False
        simple_ok = True
        b_lastdof = lastdof.get(par.id, -1) if par is not None else -1
        for jel, jframe in b.joints:
            jd = _compile_joint(ctx, jel, _frame_pose(jframe, b))
            if jd["type"] in (BALL, HINGE) and hasball:
                raise jel.error(f"ball followed by rotation in body '{el.get('name', '')}'")
            if jd["type"] == BALL:
                hasball = True
            jid = ctx.add("joint", jel)
            J["type"].append(jd["type"])
            J["group"].append(jd["group"])
            J["limited"].append(jd["limited"])
            J["actfrclimited"].append(jd["actfrclimited"])
            J["actgravcomp"].append(jd["actgravcomp"])
            J["qposadr"].append(nq)
            J["dofadr"].append(nv)
            J["bodyid"].append(i)
            J["pos"].append(jd["pos"])
            J["axis"].append(jd["axis"])
            J["stiffness"].append(jd["stiffness"][0])
            J["stiffnesspoly"].append(jd["stiffness"][1:3])
            J["range"].append(jd["range"])
            J["actfrcrange"].append(jd["actfrcrange"])
            J["solref"].append(jd["solreflimit"])
            J["solimp"].append(jd["solimplimit"])
            J["margin"].append(jd["margin"])
            J["user"].append(_pad(jd["user"], nuser["jnt"], jel, "joint"))
            ax = jd["axis"]
            aligned = sum(abs(ax[k]) > EPS for k in range(3)) == 1
            if rotfound or not _same_vec(jd["pos"], _ZERO) or (jd["type"] in (HINGE, SLIDE) and not aligned):
                simple_ok = False
            if jd["type"] in (BALL, HINGE):
                rotfound = True
            t = jd["type"]
            if t == FREE:
                qpos0.extend(list(pos) + list(quat))
                qpos_spring.extend(list(pos) + list(quat))
            elif t == BALL:
                qpos0.extend([1.0, 0, 0, 0])
                qpos_spring.extend([1.0, 0, 0, 0])
            else:
                qpos0.append(jd["ref"])
                qpos_spring.append(jd["springref"])
            for _ in range(NV[t]):
                D["bodyid"].append(i)
                D["jntid"].append(jid)
                D["solref"].append(jd["solreffriction"])
                D["solimp"].append(jd["solimpfriction"])
                D["frictionloss"].append(jd["frictionloss"])
                D["armature"].append(jd["armature"])
                D["damping"].append(jd["damping"][0])
                D["dampingpoly"].append(jd["damping"][1:3])
                D["parentid"].append(b_lastdof)
                b_lastdof = nv
                nv += 1
            nq += NQ[t]
            dofnum += NV[t]
            if dofnum > 6:
                raise jel.error(f"more than 6 dofs in body '{el.get('name', '')}'")
        lastdof[i] = b_lastdof
        if dofnum > 6:
            raise el.error(f"more than 6 dofs in body '{el.get('name', '')}'")
        nfree = sum(1 for jel, _ in b.joints if _joint_type(jel) == FREE)
        if nfree > 1 or (nfree == 1 and len(b.joints) > 1):
            raise el.error("free joint can only appear by itself")
        if nfree and par is not None and par.id != 0:
            fj = next(j for j, _ in b.joints if _joint_type(j) == FREE)
            raise fj.error("free joint can only be used on top level")
        if mocap and (dofnum or (par is not None and par.id != 0)):
            raise el.error(f"mocap body '{el.get('name', '')}' is not a fixed child of world", "mocap")
        if i == 0 or par.id == 0:
            rootid = i
        else:
            rootid = B["rootid"][par.id]
        # ---- body arrays
        B["pos"].append(pos)
        B["quat"].append(quat)
        B["ipos"].append(ipos)
        B["iquat"].append(iquat)
        B["mass"].append(mass)
        B["inertia"].append(inertia)
        B["parentid"].append(par.id if par is not None else 0)
        B["weldid"].append(weldid)
        B["mocapid"].append(mocap_count if mocap else -1)
        mocap_count += bool(mocap)
        B["jntnum"].append(len(b.joints))
        B["jntadr"].append(jstart if b.joints else -1)
        B["dofnum"].append(dofnum)
        B["dofadr"].append(dofstart if dofnum else -1)
        B["gravcomp"].append(el.get("gravcomp", 0.0) if i else 0.0)
        B["user"].append(_pad(el.get("user", np.zeros(0)) if i else np.zeros(0), nuser["body"], el, "body"))
        B["rootid"].append(rootid)
        b.simple_ok = simple_ok
        tr = [(inv_pos, inv_quat)] if align else []
        items[i]["geoms"].extend(geoms)
        for sel_, sframe in b.sites:
            sd = _compile_site(ctx, sel_, _frame_pose(sframe, b))
            if align:
                sd["pos"], sd["quat"] = frameaccum(inv_pos, inv_quat, sd["pos"], sd["quat"])
            items[i]["sites"].append((sel_, sd))
        items[i]["cams"].extend((cel, _frame_pose(cframe, b), tr) for cel, cframe in b.cameras)
        items[i]["lights"].extend((lel, _frame_pose(lframe, b), tr) for lel, lframe in b.lights)

    _fuse_inertia(ctx, kept, B, items)
    # objects per final body (own first, then those of fused descendants), frames and flags after fusion
    for b in kept:
        i = b.id
        it = items[i]
        ipos, iquat = B["ipos"][i], B["iquat"][i]
        geoms = it["geoms"]
        B["geomnum"].append(len(geoms))
        B["geomadr"].append(len(G["type"]) if geoms else -1)
        contype = conaff = 0
        margin = 0.0
        for g in geoms:
            contype |= g["contype"]
            conaff |= g["conaffinity"]
            margin = max(margin, g["margin"] + g["gap"])
            ctx.add("geom", g["el"])
            if ctx.discardvisual:
                ctx.geom_inertia_owner.append(g["dv_owner"])
            g.update(
                bodyid=i,
                user=_pad(g["user"], nuser["geom"], g["el"], "geom"),
                surfacevel=np.array(g["el"].get("surfacevel"), dtype=np.float64),
                adhesion=float(g["el"].get("adhesion")),
                plugin=-1,
                sameframe=_sameframe(g["pos"], g["quat"], ipos, iquat),
            )
            for k, col in G.items():
                col.append(g[k])
        B["contype"].append(contype)
        B["conaffinity"].append(conaff)
        B["margin"].append(margin)
        for sel_, sd in it["sites"]:
            ctx.add("site", sel_)
            sd.update(
                bodyid=i,
                matid=_matid(ctx, sel_),
                group=sel_.get("group"),
                rgba=sel_.get("rgba"),
                user=_pad(sel_.get("user", np.zeros(0)), nuser["site"], sel_, "site"),
                sameframe=_sameframe(sd["pos"], sd["quat"], ipos, iquat),
            )
            for k, col in S.items():
                col.append(sd[k])
        for cel, cpose, tr in it["cams"]:
            cams.append(_compile_camera(ctx, cel, cpose, i, tr))
        for lel, lpose, tr in it["lights"]:
            lights.append((lel, lpose, i, tr))
        _sameframe_simple(b, B)

    _check_moving_mass(kept, B)
    f = ctx.f
    nbody = len(kept)
    f.update(
        nbody=nbody, njnt=len(J["type"]), nq=nq, nv=nv, ngeom=len(G["type"]), nsite=len(S["type"]), nmocap=mocap_count
    )
    store_columns(
        f,
        "body_",
        B,
        dict(pos=3, quat=4, ipos=3, iquat=4, inertia=3, user=nuser["body"]),
        ints=(
            "parentid",
            "weldid",
            "mocapid",
            "jntnum",
            "jntadr",
            "dofnum",
            "dofadr",
            "geomnum",
            "geomadr",
            "contype",
            "conaffinity",
            "rootid",
            "sameframe",
            "simple",
        ),
    )
    store_columns(
        f,
        "jnt_",
        J,
        dict(pos=3, axis=3, stiffnesspoly=2, range=2, actfrcrange=2, solref=2, solimp=5, user=nuser["jnt"]),
        ints=("type", "group", "limited", "actfrclimited", "actgravcomp", "qposadr", "dofadr", "bodyid"),
    )
    store_columns(f, "dof_", D, dict(solref=2, solimp=5, dampingpoly=2), ints=("bodyid", "jntid", "parentid"))
    store_columns(
        f,
        "geom_",
        G,
        dict(
            solref=2,
            solimp=5,
            size=3,
            aabb=6,
            pos=3,
            quat=4,
            friction=3,
            fluid=12,
            user=nuser["geom"],
            rgba=4,
            surfacevel=6,
        ),
        ints=(
            "type",
            "contype",
            "conaffinity",
            "condim",
            "bodyid",
            "dataid",
            "matid",
            "group",
            "priority",
            "sameframe",
            "plugin",
        ),
    )
    store_columns(
        f,
        "site_",
        S,
        dict(size=3, pos=3, quat=4, user=nuser["site"], rgba=4),
        ints=("type", "bodyid", "matid", "group", "sameframe"),
    )
    f["qpos0"] = farr(qpos0)
    f["qpos_spring"] = farr(qpos_spring)
    f["body_plugin"] = np.full(nbody, -1, dtype=np.int32)
    _tree_fields(f)
    _check_sleep_policies(ctx, kept, f["body_treeid"])
    _cameras(ctx, cams, nuser)
    _lights(ctx, lights)


def _references(ctx):
    """Names of bodies referenced anywhere in the model, of sites used by force/torque sensors (such bodies are
    never fused: mjCModel::FuseStatic tries to resolve every reference without the body's name) and of geoms
    referenced by contact pairs, tendons, sensors and tuples (never discarded by compiler discardvisual)."""
    refs, ftsites, geomrefs = set(), set(), set()
    stack = [ctx.root]
    while stack:
        el = stack.pop()
        for c in el.children:
            if c.tag == "default":
                continue
            raw = c.raw
            for a in ("target", "body1", "body2", "body", "subtree1", "subtree2"):
                if a in raw:
                    refs.add(raw[a])
            if "objname" in raw and raw.get("objtype") in ("body", "xbody"):
                refs.add(raw["objname"])
            if "refname" in raw and raw.get("reftype") in ("body", "xbody"):
                refs.add(raw["refname"])
            if c.tag in ("force", "torque") and "site" in raw:
                ftsites.add(raw["site"])
            for a in ("geom1", "geom2", "geom"):
                if a in raw:
                    geomrefs.add(raw[a])
            if "objname" in raw and raw.get("objtype") == "geom":
                geomrefs.add(raw["objname"])
            if "refname" in raw and raw.get("reftype") == "geom":
                geomrefs.add(raw["refname"])
            stack.append(c)
    return refs, ftsites, geomrefs


def _mark_fused(ctx, bodies):
    """Set b.fused (compiler fusestatic: joint-less, non-mocap, unreferenced) and b.host (the kept body that
    receives b's objects: b itself, or its nearest kept ancestor)."""
    fuse = bool(ctx.comp.get("fusestatic"))
    # while fluid forces are on (they act on each body's inertia box), MuJoCo 3.17 fuses only into the world
    fluid = ctx.opt.density != 0 or ctx.opt.viscosity != 0
    refs, ftsites, ctx.geom_refs = _references(ctx)
    if not fuse:
        refs, ftsites = set(), set()
    keep = getattr(ctx, "keep_static", ())
    for b in bodies:
        name = b.el.raw.get("name", "") if b.parent is not None else "world"
        b.fused = (
            fuse
            and b.parent is not None
            and id(b.el) not in keep
            and not b.joints
            and not b.el.get("mocap", 0)
            and not (fluid and b.parent.host.parent is not None)
            and not (name and name in refs)
            and not any(sel.raw.get("name") in ftsites for sel, _ in b.sites)
            # MuJoCo 3.17 keeps a body whose gravity compensation differs from its parent's (measured on the
            # oracle: gravcomp on a parent or on a static child keeps that child)
            and float(b.el.get("gravcomp", 0.0))
            == (float(b.parent.el.get("gravcomp", 0.0)) if b.parent.parent is not None else 0.0)
        )
        b.host = b.parent.host if b.fused else b


def _fuse_static(ctx, b, B, items, bodies, mesh_props, hfield_props):
    """Fuse joint-less body b into its host (compiler fusestatic, as MuJoCo 3.17's mjs_fuseStatic on the spec):
    b becomes a frame of its parent (b.fframe) holding its geoms, sites, cameras, lights and child bodies.  Its
    own inertia, as compilation would infer it (mjs_adoptInertial), is kept in b.adopted for _fuse_inertia."""
    el = b.el
    host = b.host
    geoms = _body_geoms(ctx, b, host.id, B["weldid"][host.id], False, bodies, B, mesh_props, hfield_props)
    pos, quat = np.array(el.get("pos"), dtype=np.float64), orientation(el, *ctx.angles(el))
    ipos, iquat, mass, inertia = _inertial(ctx, b, host.id, pos, quat, geoms)
    if (
        ctx.comp_of(el).get("inertiafromgeom") == 1
        and b.parent.parent is not None
        and mass >= MINVAL
        and (b.bounded or b.parent.bounded)
    ):
        # MuJoCo 3.17 keeps such a body (measured on the oracle, tests/test_fuzz_mjcf.py): with inertiafromgeom
        # "true", a static body with mass whose boundmass / boundinertia raised its own inferred mass or inertia, or
        # its parent's, is not fused (children of the world are); compile_document compiles again keeping it
        ctx.refused_fuse.add(id(el))
    # b's pose in the host as a compiled body's: its normalised quat composed with its frame's pose
    fpose = _frame_pose(b.frame, b.parent)
    if fpose is not None:
        pos, quat = frameaccum(*fpose, pos, quat)
    b.adopted = (pos, quat, ipos, iquat, mass, inertia)
    for g in geoms:
        _place_geom(g, _frame_pose(g["frame"], b))
    it = items[host.id]
    it["geoms"].extend(geoms)
    for sel_, sframe in b.sites:
        it["sites"].append((sel_, _compile_site(ctx, sel_, _frame_pose(sframe, b))))
    it["cams"].extend((cel, _frame_pose(cframe, b), []) for cel, cframe in b.cameras)
    it["lights"].extend((lel, _frame_pose(lframe, b), []) for lel, lframe in b.lights)


def _fusion_frames(ctx, bodies):
    """b.fused_into (bodies fused into b, in body order) for every body, b.fframe for fused ones."""
    for b in bodies:
        b.fused_into = []
    for b in bodies:
        if b.fused:
            b.host.fused_into.append(b)
            b.fframe = Frame(
                np.array(b.el.get("pos"), dtype=np.float64),
                orientation(b.el, *ctx.angles(b.el), normalize=False),
                b.frame,
                b.parent,
            )


def _fuse_inertia(ctx, kept, B, items):
    """Inertia of the kept bodies that received fused ones, as MuJoCo 3.17 fuses on the spec before compiling.

    With inertiafromgeom="true", or "auto" when fusing is exact (neither the host nor any body fused into it
    has an explicit inertial, see _explicit, and boundmass / boundinertia change neither the host's own inferred
    inertia nor that of a fused body with mass), the fused geoms simply join the host's and its inertia is
    inferred from all of them at once.  Otherwise the host's own inertia is made explicit and the inertia of
    each fused body (b.adopted) is accumulated in turn (mjCBody::AccumulateInertia)."""
    for h in kept[1:]:
        if not h.fused_into:
            continue
        i = h.id
        ifg = ctx.comp_of(h.el).get("inertiafromgeom")
        accumulate = ifg == 0 or (
            ifg == 2
            and (
                _explicit(ctx, h)
                or h.bounded
                or any(_explicit(ctx, f) or (f.bounded and f.adopted[4] >= MINVAL) for f in h.fused_into)
            )
        )
        if accumulate:
            for f in h.fused_into:
                if f.adopted[4] >= MINVAL:
                    _accumulate_inertia(B, i, *f.adopted, f.el)
        else:
            B["ipos"][i], B["iquat"][i], B["mass"][i], B["inertia"][i] = _inertial(
                ctx, h, i, *h.own_pose, items[i]["geoms"]
            )


def _explicit(ctx, b):
    """Whether body b has an explicit inertial when static bodies are fused: its own <inertial>, or the one
    compiler discardvisual gives a body that loses a visual geom (MuJoCo 3.17 discards visual geoms on the spec
    first, making the inertia such a body infers from all its geoms explicit, mjs_adoptInertial)."""
    if b.inertial is not None:
        return True
    if not ctx.discardvisual:
        return False
    for gel, _ in b.geoms:
        if gel.get("contype") == 0 and gel.get("conaffinity") == 0 and gel.raw.get("name") not in ctx.geom_refs:
            return True
    return False


def _accumulate_inertia(B, h, pos, quat, ipos, iquat, mass, inertia, el):
    """Add a fused body's mass and inertia (pose pos/quat in the host frame) to host h (mjCBody::AccumulateInertia)."""
    opos, oquat = frameaccum(pos, quat, ipos, iquat)
    masses = (B["mass"][h], mass)
    inertias = (B["inertia"][h], inertia)
    iposes = (B["ipos"][h], opos)
    iquats = (B["iquat"][h], oquat)
    total = masses[0] + masses[1]
    if total < MINVAL:
        B["mass"][h], B["inertia"][h] = 0.0, np.zeros(3)
        B["ipos"][h], B["iquat"][h] = np.zeros(3), np.array([1.0, 0, 0, 0])
        return
    com = np.zeros(3)
    for j in range(2):
        com += masses[j] * iposes[j]
    com /= total
    toti = np.zeros(6)
    for j in range(2):
        toti += inr.global_inertia(inertias[j], iquats[j]) + inr.offcenter(masses[j], iposes[j] - com)
    full, q, err = full_inertia(toti)
    if err:
        raise el.error(f"error '{err}' in fusing static body inertias")
    B["mass"][h], B["ipos"][h], B["inertia"][h], B["iquat"][h] = total, com, full, q


def _sameframe_simple(b, B):
    """body_sameframe and body_simple of kept body b, from its final inertial frame (after fusion)."""
    i = b.id
    ipos, iquat = B["ipos"][i], B["iquat"][i]
    sf = (
        SAMEFRAME_BODY
        if (_same_vec(ipos, _ZERO) and _same_quat(iquat, _QUNIT))
        else (SAMEFRAME_BODYROT if _same_quat(iquat, _QUNIT) else SAMEFRAME_NONE)
    )
    if i == 0:
        # the world's sameframe stays "body" even with an inertial frame (URDF world link); simple does not
        B["sameframe"].append(SAMEFRAME_BODY)
        B["simple"].append(int(sf == SAMEFRAME_BODY))
        return
    B["sameframe"].append(sf)
    pid = B["parentid"][i]
    simple = sf == SAMEFRAME_BODY and (B["rootid"][i] == i or (B["parentid"][pid] == 0 and B["dofnum"][pid] == 0))
    if b.el.get("simple") == 0:
        simple = False
    if pid > 0:
        B["simple"][pid] = 0
    if not b.simple_ok:
        simple = False
    simple = int(simple)
    if simple and B["dofnum"][i]:
        simple = 2 if all(_joint_type(j) == SLIDE for j, _ in b.joints) else 1
    B["simple"].append(simple)


def _body_geoms(ctx, b, i, weldid, mocap, bodies, B, mesh_props, hfield_props):
    """Compiled geoms of body b (mjCGeom::Compile), posed in b's own frame (its <frame>s composed, not the frame
    a fused b became); mass_ and inertia are set where inferred.  i: the id of the kept body receiving them."""
    el = b.el
    comp = ctx.comp_of(el)
    ifg = comp.get("inertiafromgeom")  # 0 false, 1 true, 2 auto
    grange = comp.get("inertiagrouprange")
    explicit = b.inertial is not None
    geoms = []
    for gel, gframe in b.geoms:
        infer = i > 0 and (not explicit or ifg == 1) and grange[0] <= gel.get("group") <= grange[1]
        g = _compile_geom(
            ctx, gel, _frame_pose(gframe, b, fused=False), infer, weldid, bodies, B, mocap, i, mesh_props, hfield_props
        )
        g["frame"] = gframe
        if ctx.discardvisual:
            # for compiler.discard: the (original) body whose geom-inferred inertia this geom enters
            in_range = grange[0] <= g["group"] <= grange[1]
            if i > 0:
                adds = in_range and g["mass_"] > EPS
            else:  # a static body fused into the world: its mass is not inferred, judge from the attributes
                adds = in_range and (gel.get("mass") > 0 if gel.has("mass") else gel.get("density") > 0)
            g["dv_owner"] = el if b.parent is not None and adds else None
        geoms.append(g)
    return geoms


def _inertial(ctx, b, i, pos, quat, geoms):
    """Inertial frame, mass and principal inertia of body b (mjCBody::Compile, mjCBody::InertiaFromGeom):
    the explicit <inertial>, or (compiler inertiafromgeom) inferred from `geoms` (compiled geoms posed in b's
    frame, in body order); then boundmass / boundinertia / balanceinertia.  pos, quat: b's own pose (copied
    into the inertial frame when nothing defines it, as MuJoCo does).  i: id of the kept body that receives
    the inertia (0: the world, nothing is inferred or bounded).

    Returns (ipos, iquat, mass, inertia) in b's frame."""
    el = b.el
    comp = ctx.comp_of(el)
    boundmass, boundinertia = comp.get("boundmass"), comp.get("boundinertia")
    ifg = comp.get("inertiafromgeom")  # 0 false, 1 true, 2 auto
    grange = comp.get("inertiagrouprange")
    # ---- inertial
    explicit = b.inertial is not None
    ipos = None
    iquat = np.array([1.0, 0, 0, 0])
    mass = 0.0
    inertia = np.zeros(3)
    if explicit:
        ie = b.inertial
        ipos = np.array(ie.get("pos"), dtype=np.float64)
        mass = float(ie.get("mass"))
        has_full = ie.has("fullinertia")
        alts = [n for n in ("quat", "axisangle", "xyaxes", "zaxis", "euler") if n in ie.raw]
        if has_full and alts:
            raise ie.error("fullinertia and inertial orientation cannot both be specified", "fullinertia")
        if has_full and ie.has("diaginertia"):
            raise ie.error("fullinertia and diagonal inertia cannot both be specified", "fullinertia")
        if has_full:
            inertia, iquat, err = full_inertia(ie.get("fullinertia"))
            if err:
                raise ie.error(f"error '{err}' in fullinertia", "fullinertia")
        else:
            # no diaginertia / fullinertia: MuJoCo's default (zero) inertia; a moving body is then refused by the
            # mjMINVAL check below, a static one or inertiafromgeom="true" is fine (as in MuJoCo)
            inertia = np.array(ie.get("diaginertia", np.zeros(3)), dtype=np.float64)
            iquat = orientation(ie, *ctx.angles(ie))
    if i > 0 and (ifg == 1 or (ipos is None and ifg == 2)):
        sel = [g for g in geoms if grange[0] <= g["group"] <= grange[1] and g["mass_"] > EPS]
        if len(sel) == 1:
            ipos, iquat, mass, inertia = (
                sel[0]["pos"].copy(),
                sel[0]["quat"].copy(),
                sel[0]["mass_"],
                sel[0]["inertia"].copy(),
            )
        elif len(sel) > 1:
            mass = 0.0
            csum = [0.0, 0.0, 0.0]
            for g in sel:
                mass += g["mass_"]
                for k in range(3):
                    csum[k] += g["mass_"] * g["pos"][k]
            if mass < EPS:
                raise el.error("body mass is too small, cannot compute center of mass")
            com = np.array([csum[k] / mass for k in range(3)])
            toti = np.zeros(6)
            for g in sel:  # toti = toti + inert0 + inert1, left to right as mjCBody::InertiaFromGeom
                toti = toti + inr.global_inertia(g["inertia"], g["quat"])
                toti = toti + inr.offcenter(g["mass_"], g["pos"] - com)
            ipos = com
            inertia, iquat, err = full_inertia(toti)
            if err:
                raise el.error(f"error '{err}' in alternative for principal axes")
    if ipos is None:
        ipos, iquat = pos.copy(), quat.copy()
    b.bounded = False
    if i > 0:
        b.bounded = mass < boundmass or bool((inertia < boundinertia).any())
        mass = max(mass, boundmass)
        inertia = np.maximum(inertia, boundinertia)
        where = b.inertial if explicit else el
        if mass < 0:
            raise where.error("mass and inertia cannot be negative", "mass" if explicit else None)
        if (inertia < 0).any():
            raise where.error(
                "mass and inertia cannot be negative",
                ("fullinertia" if b.inertial.has("fullinertia") else "diaginertia") if explicit else None,
            )
        a, bb, c = inertia
        if a + bb < c or a + c < bb or bb + c < a:
            if comp.get("balanceinertia"):
                inertia = np.full(3, (a + bb + c) / 3.0)
            else:
                raise where.error(
                    "inertia must satisfy A + B >= C; use 'balanceinertia' to fix",
                    ("fullinertia" if b.inertial.has("fullinertia") else "diaginertia") if explicit else None,
                )
    iquat = np.array(iquat, dtype=np.float64)
    normvec(iquat)
    return ipos, iquat, mass, inertia


def _check_moving_mass(bodies, B):
    """Bodies with joints need mass and inertia >= mjMINVAL, possibly carried by welded static children."""

    def ok(b):
        if B["mass"][b.id] >= MINVAL and all(v >= MINVAL for v in B["inertia"][b.id]):
            return True
        return any(ok(c) for c in b.children if not c.joints and not c.fused)

    for b in bodies[1:]:
        if b.joints and not ok(b):
            msg = "mass and inertia of moving bodies must be larger than mjMINVAL"
            ie = b.inertial
            if ie is not None:  # point at the explicit value at fault
                if B["mass"][b.id] < MINVAL:
                    raise ie.error(msg, "mass")
                raise ie.error(msg, "fullinertia" if ie.has("fullinertia") else "diaginertia")
            raise b.el.error(msg)


def _joint_type(jel):
    return FREE if jel.key == "freejoint" else jel.get("type")


def _nuser(ctx):
    """nuser_* sizes: <size> value, or (when -1) the longest user array among objects of that kind."""
    size = ctx.size
    out = {}
    for kind in ("body", "jnt", "geom", "site", "cam", "tendon", "actuator", "sensor"):
        out[kind] = size.get("nuser_" + kind)
    if not hasattr(ctx, "_nuser_auto"):
        longest = {k: 0 for k in out}
        tags = {"body": ("body",), "jnt": ("joint",), "geom": ("geom",), "site": ("site",), "cam": ("camera",)}

        def walk(e):
            for kind, keys in tags.items():
                if e.key in keys and e.has("user"):
                    longest[kind] = max(longest[kind], len(e.get("user")))
            for c in e.children:
                if c.key != "default":
                    walk(c)

        walk(ctx.root)
        ctx._nuser_auto = longest
    for k, v in out.items():
        if v == -1:
            out[k] = ctx._nuser_auto.get(k, 0)
    ctx.nuser = out
    return out


def _pad(user, n, el, kind):
    user = np.asarray(user, dtype=np.float64)
    if len(user) > n:
        raise el.error(f"user has more values than nuser_{kind} in {kind}", "user")
    out = np.zeros(n)
    out[: len(user)] = user
    return out


def _matid(ctx, el):
    name = el.get("material")
    if not name or ctx.discardvisual:  # discardvisual deletes all materials
        return -1
    return ctx.lookup("material", name, el, "material")


def _compile_joint(ctx, el, fpose):
    """One joint's compiled values (mjCJoint::Compile); fpose: compiled pose of its frame or None."""
    if el.key == "freejoint":
        out = dict(
            type=FREE,
            group=el.get("group"),
            limited=0,
            actfrclimited=0,
            actgravcomp=0,
            pos=np.zeros(3),
            axis=np.array([0.0, 0, 1]),
            stiffness=np.zeros(3),
            range=np.zeros(2),
            actfrcrange=np.zeros(2),
            solreflimit=np.array([0.02, 1.0]),
            solimplimit=np.array([0.9, 0.95, 0.001, 0.5, 2]),
            margin=0.0,
            ref=0.0,
            springref=0.0,
            armature=0.0,
            damping=np.zeros(3),
            frictionloss=0.0,
            solreffriction=np.array([0.02, 1.0]),
            solimpfriction=np.array([0.9, 0.95, 0.001, 0.5, 2]),
            user=np.zeros(0),
        )
        return out
    auto = bool(ctx.comp_of(el).get("autolimits"))
    degree = ctx.angles(el)[0]
    t = el.get("type")
    rng = np.array(el.get("range"), dtype=np.float64)
    afr = np.array(el.get("actuatorfrcrange"), dtype=np.float64)
    sd = el.get("springdamper")
    if sd[0] or sd[1]:
        if sd[0] <= 0 or sd[1] <= 0:
            raise el.error("when defined, springdamper values must be positive in joint", "springdamper")
    if t == FREE:
        # mjCJoint::Compile clears a free joint's limited flag before the check that would refuse limited="true"
        limited = False
    else:
        limited = checklimited(el, auto, el.get("limited"), rng)
    if limited:
        if rng[0] >= rng[1] and t != BALL:
            raise el.error("range[0] should be smaller than range[1] in joint", "range")
        if rng[0] and t == BALL:
            raise el.error("range[0] should be 0 in ball joint", "range")
        if degree and t in (HINGE, BALL):
            rng = np.array([r * _DEG2RAD if r else r for r in rng])
    if t in (FREE, BALL):
        actfrclimited = False
    else:
        actfrclimited = checklimited(
            el,
            auto,
            el.get("actuatorfrclimited"),
            afr,
            "actuatorfrclimited",
            "actuatorfrcrange",
        )
    if actfrclimited and afr[0] >= afr[1]:
        raise el.error("actfrcrange[0] should be smaller than actfrcrange[1] in joint", "actuatorfrcrange")
    axis = np.array(el.get("axis"), dtype=np.float64)
    if t in (FREE, BALL):
        axis = np.array([0.0, 0.0, 1.0])
    elif fpose is not None:
        axis = rotvec(fpose[1], axis)
    if normvec(axis) < EPS:
        raise el.error("axis too small in joint", "axis")
    pos = np.array(el.get("pos"), dtype=np.float64)
    if t == FREE:
        pos = np.zeros(3)
    elif fpose is not None:
        pos, _ = frameaccum(*fpose, pos, _QUNIT)
    ref, springref = el.get("ref"), el.get("springref")
    if t == HINGE and degree:
        ref = ref * _DEG2RAD
        springref = springref * _DEG2RAD
    return dict(
        type=t,
        group=el.get("group"),
        limited=int(limited),
        actfrclimited=int(actfrclimited),
        actgravcomp=el.get("actuatorgravcomp"),
        pos=pos,
        axis=axis,
        stiffness=el.get("stiffness"),
        range=rng,
        actfrcrange=afr,
        solreflimit=el.get("solreflimit"),
        solimplimit=el.get("solimplimit"),
        margin=el.get("margin"),
        ref=ref,
        springref=springref,
        armature=el.get("armature"),
        damping=el.get("damping"),
        frictionloss=el.get("frictionloss"),
        solreffriction=el.get("solreffriction"),
        solimpfriction=el.get("solimpfriction"),
        user=el.get("user", np.zeros(0)),
        springdamper=sd,
    )


def _fromto(el, gtype, size, what):
    """pos, quat, size from a fromto segment (capsule/cylinder/ellipsoid/box), as mjCGeom::Compile."""
    if gtype not in (inr.CAPSULE, inr.CYLINDER, inr.ELLIPSOID, inr.BOX):
        raise el.error(f"fromto requires capsule, cylinder, box or ellipsoid in {what}", "fromto")
    if any(el.get("pos")):  # a pos of (0, 0, 0), written or inherited, is MuJoCo's "not defined"
        raise el.error(f"both pos and fromto defined in {what}", "fromto")
    ft = el.get("fromto")
    vec = np.array([ft[0] - ft[3], ft[1] - ft[4], ft[2] - ft[5]])
    size = size.copy()
    size[1] = normvec(vec) / 2
    if size[1] < EPS:
        raise el.error(f"fromto points too close in {what}", "fromto")
    if gtype in (inr.ELLIPSOID, inr.BOX):
        size[2] = size[1]
        size[1] = size[0]
    pos = np.array([(ft[0] + ft[3]) / 2, (ft[1] + ft[4]) / 2, (ft[2] + ft[5]) / 2])
    return pos, z2quat(vec), size


def _checksize(el, gtype, size, what="geom"):
    """Sizes a primitive needs must be positive (MuJoCo's checksize)."""
    need = {inr.PLANE: 0, inr.SPHERE: 1, inr.CAPSULE: 2, inr.CYLINDER: 2, inr.ELLIPSOID: 3, inr.BOX: 3}.get(gtype, 0)
    if gtype == inr.PLANE:
        if size[2] <= 0:
            raise el.error(f"plane size(3) must be positive in {what}", "size")
        return
    for k in range(need):
        if size[k] <= 0:
            raise el.error(f"size {k} must be positive in {what}", "size")


def _compile_geom(ctx, el, fpose, infer, weldid, bodies, B, mocap, bodyid, mesh_props, hfield_props):
    """One geom's compiled values (mjCGeom::Compile); mass_ and inertia are zero unless inferred.
    fpose: compiled pose of its frame or None; lpos/lquat keep the geom's pose before the frame."""
    gtype = el.get("type")
    condim = el.get("condim")
    if condim not in (1, 3, 4, 6):
        raise el.error("invalid condim in geom", "condim")
    meshname = el.get("mesh")
    hfname = el.get("hfield")
    if gtype in (inr.MESH, inr.SDF) and not meshname:
        raise el.error("mesh geom must have a mesh", "mesh")
    if gtype == inr.SDF:
        raise ctx.unsupported(el, "geom type 'sdf'", "type")
    if (gtype == inr.HFIELD) != bool(hfname):
        raise el.error("hfield geom must have an hfield (and only hfield geoms may)", "hfield")
    if gtype == inr.PLANE and weldid != 0 and not mocap:
        raise el.error("plane only allowed in static bodies", "type")
    size = np.array(el.get("size"), dtype=np.float64)
    if el.has("fromto"):
        pos, quat, size = _fromto(el, gtype, size, "geom")
    else:
        pos = np.array(el.get("pos"), dtype=np.float64)
        quat = orientation(el, *ctx.angles(el))
    shell = bool(el.get("shellinertia"))
    dataid = -1
    mesh_info = None
    if meshname:
        if el.has("fromto"):
            raise el.error("fromto cannot be used with mesh geom", "fromto")
        mid = ctx.lookup("mesh", meshname, el, "mesh")
        if mesh_props is None:
            raise ctx.unsupported(el, "mesh geoms", "mesh")
        mesh_info = mesh_props(ctx, mid, el, gtype)
        if gtype == inr.MESH:
            dataid = mid
            if shell:
                raise el.error("for mesh geoms, inertia should be specified in the mesh asset", "shellinertia")
        else:
            size = np.array(mesh_info["size"], dtype=np.float64)
        pos, quat = frameaccum(pos, quat, mesh_info["pos"], mesh_info["quat"])
    if gtype == inr.HFIELD:
        hid = ctx.lookup("hfield", hfname, el, "hfield")
        dataid = hid
        hinfo = hfield_props(ctx, hid)
        size = np.array(hinfo["size"], dtype=np.float64)
        hs = ctx.hfields[hid].size  # (x, y, z_top, z_bottom) of the asset
    elif gtype != inr.MESH:
        _checksize(el, gtype, size)
    if gtype == inr.MESH:
        size = np.array(mesh_info["size"], dtype=np.float64)
    # aabb and rbound
    if gtype == inr.HFIELD:
        aamm = np.array([-hs[0], -hs[1], -hs[3], hs[0], hs[1], hs[2]])
        rbound = math.sqrt(hs[0] * hs[0] + hs[1] * hs[1] + max(hs[2] * hs[2], hs[3] * hs[3]))
    elif gtype == inr.MESH:
        aamm = np.array(mesh_info["aamm"], dtype=np.float64)
        h = np.maximum(np.abs(aamm[:3]), np.abs(aamm[3:]))
        rbound = math.sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2])
    elif gtype == inr.PLANE:
        aamm = np.array([-1e10, -1e10, -1e10, 1e10, 1e10, 0.0])
        rbound = 0.0
    else:
        if gtype == inr.SPHERE:
            hi = np.array([size[0]] * 3)
            rbound = size[0]
        elif gtype == inr.CAPSULE:
            hi = np.array([size[0], size[0], size[0] + size[1]])
            rbound = size[0] + size[1]
        elif gtype == inr.CYLINDER:
            hi = np.array([size[0], size[0], size[1]])
            rbound = math.sqrt(size[0] * size[0] + size[1] * size[1])
        elif gtype == inr.ELLIPSOID:
            hi = size.copy()
            rbound = max(size[0], size[1], size[2])
        else:
            hi = size.copy()
            rbound = math.sqrt(size[0] * size[0] + size[1] * size[1] + size[2] * size[2])
        aamm = np.concatenate([-hi, hi])
    aabb = np.concatenate([(aamm[3:] + aamm[:3]) / 2, (aamm[3:] - aamm[:3]) / 2])
    # mass and inertia
    mass_ = 0.0
    inertia = np.zeros(3)
    if infer:
        if gtype == inr.MESH:
            vol = mesh_info["volume"]
        else:
            vol = inr.geom_volume(gtype, size, shell)
        density = el.get("density")
        if el.has("mass"):
            m = el.get("mass")
            if m == 0:
                mass_ = 0.0
                density = 0.0
            elif vol > EPS:
                mass_ = m
                density = m / vol
                inertia = _geom_inertia(gtype, size, mass_, shell, mesh_info)
        else:
            if density != 0:
                mass_ = density * vol
                inertia = _geom_inertia(gtype, size, mass_, shell, mesh_info)
        if mass_ < 0 or (inertia < 0).any() or density < 0:
            bad = "mass" if el.has("mass") and el.get("mass") < 0 else ("density" if el.get("density") < 0 else None)
            raise el.error("mass, inertia or density are negative in geom", bad)
    fluid = np.zeros(12)
    if el.get("fluidshape") == 1:
        fluid = inr.fluid_coefs(gtype, size, el.get("fluidcoef"))
    normvec(quat)
    matid = _matid(ctx, el)
    if matid == -1 and mesh_info is not None and mesh_info.get("material"):
        # a mesh geom without a material uses its mesh's material
        matid = ctx.lookup("material", mesh_info["material"], el, "mesh")
    g = dict(
        el=el,
        type=gtype,
        contype=el.get("contype"),
        conaffinity=el.get("conaffinity"),
        condim=condim,
        dataid=dataid,
        matid=matid,
        group=el.get("group"),
        priority=el.get("priority"),
        solmix=el.get("solmix"),
        solref=el.get("solref"),
        solimp=el.get("solimp"),
        size=size,
        aabb=aabb,
        rbound=rbound,
        pos=pos,
        quat=quat,
        friction=el.get("friction"),
        margin=el.get("margin"),
        gap=el.get("gap"),
        fluid=fluid,
        user=el.get("user", np.zeros(0)),
        rgba=el.get("rgba"),
        mass_=mass_,
        inertia=inertia,
        lpos=pos,
        lquat=quat,
    )
    _place_geom(g, fpose)
    return g


def _place_geom(g, fpose):
    """Geom pose in the frame fpose (None: the body frame) from its own pose, as mjCGeom::Compile."""
    pos, quat = g["lpos"], g["lquat"]
    if fpose is not None:
        pos, quat = frameaccum(*fpose, pos, quat)
        normvec(quat)
    g["pos"], g["quat"] = pos, quat


def _geom_inertia(gtype, size, mass, shell, mesh_info):
    if gtype == inr.MESH:
        box = mesh_info["inertia_box"]
        return np.array(
            [
                mass * (box[1] * box[1] + box[2] * box[2]) / 3,
                mass * (box[0] * box[0] + box[2] * box[2]) / 3,
                mass * (box[0] * box[0] + box[1] * box[1]) / 3,
            ]
        )
    return inr.geom_inertia(gtype, size, mass, shell)


def _compile_site(ctx, el, fpose):
    """One site (mjCSite::Compile): its orientation as written composed with its frame's pose, normalised."""
    gtype = el.get("type")
    if gtype in (inr.HFIELD, inr.PLANE):
        raise el.error("hfields and planes not allowed in site", "type")
    if el.get("mesh") and gtype != inr.MESH:
        raise el.error("mesh can only be specified for mesh sites", "mesh")
    if gtype == inr.MESH:
        if not el.get("mesh"):
            raise el.error("mesh site must have a valid mesh", "mesh")
        ctx.lookup("mesh", el.get("mesh"), el, "mesh")
        raise ctx.unsupported(el, "mesh sites (MuJoCo 3.17's site type 'mesh')", "type")
    if gtype == inr.SDF:
        raise ctx.unsupported(el, "sdf sites", "type")
    size = np.array(el.get("size"), dtype=np.float64)
    if el.has("fromto"):
        pos, quat, size = _fromto(el, gtype, size, "site")
    else:
        pos = np.array(el.get("pos"), dtype=np.float64)
        quat = orientation(el, *ctx.angles(el), normalize=False)
    if fpose is not None:
        pos, quat = frameaccum(*fpose, pos, quat)
    normvec(quat)
    _checksize(el, gtype, size)  # mjCSite::Compile calls the geom check (its message says "in geom")
    return dict(type=gtype, size=size, pos=pos, quat=quat)


def _compile_camera(ctx, el, fpose, bodyid, transforms):
    """One camera (mjCCamera::Compile); fpose: compiled pose of its frame or None; transforms: (pos, quat) frame
    changes applied after its own pose (free-joint alignment)."""
    pos = np.array(el.get("pos"), dtype=np.float64)
    quat = orientation(el, *ctx.angles(el), normalize=False)
    if fpose is not None:
        pos, quat = frameaccum(*fpose, pos, quat)
    normvec(quat)
    for tp, tq in transforms:
        pos, quat = frameaccum(tp, tq, pos, quat)
    fovy = el.get("fovy")
    if fovy >= 180:
        raise el.error("fovy too large in camera", "fovy")
    focal, focalpx = el.get("focal"), el.get("focalpixel")
    princ, princpx = el.get("principal"), el.get("principalpixel")
    ssize = np.array(el.get("sensorsize"), dtype=np.float32)
    res = el.get("resolution")
    has_intr = any(focal) or any(focalpx) or any(princ) or any(princpx)
    has_ss = ssize[0] > 0 and ssize[1] > 0
    if has_intr and not has_ss:
        raise el.error("focal/principal require sensorsize in camera", "sensorsize")
    if has_ss and (res[0] <= 0 or res[1] <= 0):
        raise el.error("sensorsize requires positive resolution in camera", "resolution")
    intr = np.zeros(4, dtype=np.float32)
    if has_ss:
        f32 = np.float32
        dens = (f32(res[0]) / ssize[0], f32(res[1]) / ssize[1])
        intr[0] = f32(focalpx[0]) / dens[0] if focalpx[0] else f32(focal[0])
        intr[1] = f32(focalpx[1]) / dens[1] if focalpx[1] else f32(focal[1])
        intr[2] = f32(princpx[0]) / dens[0] if princpx[0] else f32(princ[0])
        intr[3] = f32(princpx[1]) / dens[1] if princpx[1] else f32(princ[1])
        # atan2 of the float sizes, rounded to float, then scaled in double (matches MuJoCo 3.17 bit for bit)
        fovy = float(np.float32(math.atan2(float(ssize[1]) / 2, float(intr[1])))) * 360.0 / math.pi
    else:
        znear = np.float32(ctx.znear)
        intr[0] = intr[1] = znear
    target = -1
    if el.get("target"):
        target = ctx.lookup("body", el.get("target"), el, "target")
    output = 0 if el.get("output").split() else _CAMOUT["rgb"]  # an empty output keeps MuJoCo's default, rgb
    for word in el.get("output").split():
        if word not in _CAMOUT:
            raise el.error(f"invalid keyword '{word}', expected some of: {', '.join(_CAMOUT)}", "output")
        output |= _CAMOUT[word]
    ctx.add("camera", el)
    return dict(
        bodyid=bodyid,
        mode=el.get("mode"),
        targetbodyid=target,
        pos=pos,
        quat=quat,
        projection=el.get("projection"),
        fovy=fovy,
        ipd=el.get("ipd"),
        resolution=res,
        output=output,
        sensorsize=ssize,
        intrinsic=intr,
        user=el.get("user", np.zeros(0)),
        el=el,
    )


_CAMOUT = {"rgb": 1, "depth": 2, "distance": 4, "normal": 8, "segmentation": 16}  # mjtCamOutBit


def _cameras(ctx, cams, nuser):
    f = ctx.f
    f["ncam"] = len(cams)
    f["cam_bodyid"] = iarr([c["bodyid"] for c in cams])
    f["cam_mode"] = iarr([c["mode"] for c in cams])
    f["cam_targetbodyid"] = iarr([c["targetbodyid"] for c in cams])
    f["cam_pos"] = farr([c["pos"] for c in cams], 3)
    f["cam_quat"] = farr([c["quat"] for c in cams], 4)
    f["cam_projection"] = iarr([c["projection"] for c in cams])
    f["cam_fovy"] = farr([c["fovy"] for c in cams])
    f["cam_ipd"] = farr([c["ipd"] for c in cams])
    f["cam_resolution"] = iarr([c["resolution"] for c in cams], 2)
    f["cam_output"] = iarr([c["output"] for c in cams])
    f["cam_sensorsize"] = np.array([c["sensorsize"] for c in cams], dtype=np.float32).reshape(-1, 2)
    f["cam_intrinsic"] = np.array([c["intrinsic"] for c in cams], dtype=np.float32).reshape(-1, 4)
    f["cam_user"] = farr([_pad(c["user"], nuser["cam"], c["el"], "cam") for c in cams], nuser["cam"])


def _lights(ctx, lights):
    f = ctx.f
    rows = []
    for el, fpose, bodyid, transforms in lights:
        pos = np.array(el.get("pos"), dtype=np.float64)
        d = np.array(el.get("dir"), dtype=np.float64)
        if fpose is not None:
            pos, _ = frameaccum(*fpose, pos, _QUNIT)
            d = rotvec(fpose[1], d)
        if normvec(d) < EPS:
            raise el.error("zero direction in light", "dir")
        sft = el.get("softness")
        if sft < 0 or sft > 1:
            raise el.error("light softness must be in [0, 1]", "softness")
        for tp, tq in transforms:
            pos, _ = frameaccum(tp, tq, pos, _QUNIT)
            d = rotvec(tq, d)
        ltype = el.get("type")
        if el.has("directional") and "type" not in el.raw:
            ltype = 1 if el.get("directional") else 0
        target = ctx.lookup("body", el.get("target"), el, "target") if el.get("target") else -1
        texid = ctx.lookup("texture", el.get("texture"), el, "texture") if el.get("texture") else -1
        ctx.add("light", el)
        rows.append(
            dict(
                bodyid=bodyid,
                mode=el.get("mode"),
                targetbodyid=target,
                type=ltype,
                texid=texid,
                castshadow=el.get("castshadow"),
                active=el.get("active"),
                pos=pos,
                dir=d,
                bulbradius=el.get("bulbradius"),
                intensity=el.get("intensity"),
                range=el.get("range"),
                attenuation=el.get("attenuation"),
                cutoff=el.get("cutoff"),
                softness=sft,
                exponent=el.get("exponent"),
                ambient=el.get("ambient"),
                diffuse=el.get("diffuse"),
                specular=el.get("specular"),
            )
        )
    f["nlight"] = len(rows)
    for k in ("bodyid", "mode", "targetbodyid", "type", "texid", "castshadow", "active"):
        f["light_" + k] = iarr([r[k] for r in rows])
    for k in ("pos", "dir"):
        f["light_" + k] = farr([r[k] for r in rows], 3)
    for k in ("bulbradius", "intensity", "range", "cutoff", "softness", "exponent"):
        f["light_" + k] = np.array([r[k] for r in rows], dtype=np.float32)
    for k in ("attenuation", "ambient", "diffuse", "specular"):
        f["light_" + k] = np.array([r[k] for r in rows], dtype=np.float32).reshape(-1, 3)


def _check_sleep_policies(ctx, kept, treeid):
    """A body's sleep policy other than auto only on the first body of a kinematic tree (mjCModel::CopyTree)."""
    for i in range(1, len(kept)):
        el = kept[i].el
        if el is None or el.key != "body" or el.get("sleep", 0) == 0:
            continue
        if treeid[i] == -1 or treeid[i] == treeid[i - 1]:
            raise el.error("sleep policy only allowed for movable root bodies", "sleep")


def _tree_fields(f):
    """Kinematic-tree bookkeeping: dof_treeid, body_treeid, ntree, tree_*, dof_Madr, nM (CopyTree)."""
    nv, nbody = f["nv"], f["nbody"]
    par = f["dof_parentid"]
    treeid = np.zeros(nv, dtype=np.int32)
    ntree = 0
    for i in range(nv):
        if par[i] == -1:
            ntree += 1
        treeid[i] = ntree - 1
    f["dof_treeid"] = treeid
    f["ntree"] = ntree
    btree = np.full(nbody, -1, dtype=np.int32)
    for i in range(nbody):
        w = f["body_weldid"][i]
        if f["body_dofnum"][w]:
            btree[i] = treeid[f["body_dofadr"][w]]
    f["body_treeid"] = btree
    madr = np.zeros(nv, dtype=np.int32)
    nM = 0
    for i in range(nv):
        madr[i] = nM
        j = i
        while j >= 0:
            nM += 1
            j = par[j]
    f["dof_Madr"] = madr
    f["nM"] = nM
    tb_adr, tb_num, td_adr, td_num = [], [], [], []
    for t in range(ntree):
        bs = [i for i in range(nbody) if btree[i] == t]
        ds = [i for i in range(nv) if treeid[i] == t]
        tb_adr.append(bs[0])
        tb_num.append(len(bs))
        td_adr.append(ds[0])
        td_num.append(len(ds))
    f["tree_bodyadr"], f["tree_bodynum"] = iarr(tb_adr), iarr(tb_num)
    f["tree_dofadr"], f["tree_dofnum"] = iarr(td_adr), iarr(td_num)
