"""URDF import: a <robot> document -> the MJCF node tree the compiler consumes, as MuJoCo 3.17 imports URDF
(mjXURDF::Parse in xml_urdf.cc, with the URDF defaults of xml.cc).

What MuJoCo does, and so do we (each rule checked against mujoco 3.17, tests/test_urdf.py):
- compiler defaults for URDF: fusestatic and discardvisual on; a <mujoco> child of <robot> may hold <compiler>,
  <option> and <size> (MJCF attributes; unknown ones are ignored as MuJoCo's reader ignores them); angles are
  always radians (compiler angle is forced to radian);
- every <link> becomes a body (a link named "world" is the world body); the tree comes from the joints' parent /
  child links: roots in link order, children in joint order; a root link is static (no free joint), so with
  fusestatic it is fused into the world; a link's pose is its parent joint's <origin> (xyz, rpy = extrinsic
  X-Y-Z Euler angles); links in a cycle are never placed ("URDF body not found");
- joints: revolute and continuous -> hinge, prismatic -> slide, floating -> free, spherical -> ball,
  planar -> two slides (x and y of the frame whose z is the axis) and a hinge about the axis, named
  <name>_TX / _TY / _RZ; fixed -> no joint (the child is static and fused with fusestatic); axis defaults to
  (1, 0, 0); <dynamics damping friction> -> damping / frictionloss (copied to the three planar joints);
  <limit lower upper> -> range, not limited when one bound is missing or lower >= upper (else limited by
  autolimits); |effort| > 0 -> actuatorfrcrange (-|effort|, |effort|) (planar: both only on the first joint);
  a joint name already used (planar suffixes included) leaves the later joint unnamed;
- <inertial>: <origin> -> ipos, <mass value>, <inertia ixx..iyz> (all six required): the inertia is rotated
  into the link frame by the origin's rpy and the body's inertial frame is its principal frame; an all-zero
  inertia is "undefined" (principal moments 0, the origin's rotation kept);
- <visual> (skipped with discardvisual) and <collision> children in document order become geoms: box (size
  halved), cylinder and capsule (radius, length halved), sphere, mesh (filename, scale); visual geoms are
  contype = conaffinity = 0, group 1, density 0; the rgba of a visual's material (a <color>, else a named
  <material> anywhere in the file with a <color>; the first of a name wins) is also given to the geoms that
  follow in the same link until another material; a geom name already used leaves the geom unnamed, and a
  visual or collision without a name repeats the previous one's (so it stays unnamed);
- meshes: one asset per (file stem, scale), named after the file stem (path and extension stripped), a second
  scale of the same stem gets the stem plus a counter; compiler strippath strips the file's folder;
- other elements (transmission, gazebo, ...) and attributes are ignored.

The nodes carry their URDF element and line (Elem.origin) so that compiler errors name what the user wrote.
"""

import math
import warnings

import numpy as np

from sim.user_util import euler2quat, full_inertia, quat2mat, z2quat
from sim.errors import ModelError, UnsupportedError
from . import numbers
from . import schema

JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar", "spherical")
WORLD = "world"


def _num(x):
    """Exact text of a float (Python's repr round-trips float64)."""
    return repr(float(x))


def _vec(v):
    return " ".join(_num(x) for x in v)


class _Reader:
    """One URDF document being translated (the state of mjXURDF)."""

    def __init__(self, root, fname):
        self.file = fname
        self.root = root
        self.joint_names = set()  # names given to joints so far (later duplicates stay unnamed)
        self.geom_names = set()  # likewise for geoms (urGeomNames)
        self.meshes = {}  # mesh name stem -> list of (scale tuple, asset name)
        self.mesh_nodes = []  # MJCF <mesh> asset nodes, in creation order
        self.materials = {}  # material name -> rgba text (first definition wins)

    # -- errors and attribute access (mjXUtil) ------------------------------------------------------------

    def error(self, node, message, attribute=None, cls=ModelError):
        return cls(message, file=self.file, line=node[2], element=node[0], attribute=attribute)

    def sub(self, node, name, required=False):
        """The unique child element `name` (FindSubElem): error when repeated, or missing and required."""
        found = None
        for c in node[3]:
            if c[0] == name:
                if found is not None:
                    raise self.error(c, f"repeated element: '{name}'")
                found = c
        if found is None and required:
            raise self.error(node, f"missing element: '{name}'")
        return found

    def text(self, node, attr, required=False):
        v = node[1].get(attr)
        if v is None and required:
            raise self.error(node, "required attribute missing", attr)
        return v

    def numbers(self, node, attr, n, required=False, exact=True, blank_ok=True):
        """Up to n numbers of an attribute (ReadAttr): None when absent (or blank, read as absent), an error
        when required and absent, with more than n values, or (exact) fewer than n."""
        text = node[1].get(attr)
        if text is None or (blank_ok and not numbers.split(text)):
            if required:
                raise self.error(node, "required attribute missing", attr)
            return None
        parts = numbers.split(text)
        if not parts:
            raise self.error(node, f"problem reading attribute '{attr}'", attr)
        try:
            vals = [numbers.real(p) for p in parts]
        except numbers.NumberError as e:
            what = "invalid number" if e.reason == "bad format" else e.reason
            raise self.error(node, f"{what} '{e.token}' in '{text}'", attr) from None
        if not all(math.isfinite(v) for v in vals):
            raise self.error(
                node,
                f"non-finite number in '{text}' (MuJoCo accepts inf / nan here; numjoco does "
                "not simulate models with non-finite parameters)",
                attr,
                cls=UnsupportedError,
            )
        if len(vals) > n:
            raise self.error(node, f"attribute '{attr}' has too much data", attr)
        if exact and len(vals) < n:
            raise self.error(node, f"attribute '{attr}' does not have enough data", attr)
        return vals

    def node(self, tag, attrs, src, children=(), amap=None):
        """An MJCF node (tag, attrs, line, children, file, origin) standing for URDF element `src`."""
        return (tag, attrs, src[2], list(children), self.file, (src[0], amap or {}))

    # -- <origin> -----------------------------------------------------------------------------------------

    def origin(self, node):
        """(pos, quat, origin element or None) of an element's <origin> child (mjXURDF::Origin)."""
        o = self.sub(node, "origin")
        pos, quat = np.zeros(3), np.array([1.0, 0, 0, 0])
        if o is not None:
            xyz = self.numbers(o, "xyz", 3)
            if xyz is not None:
                pos = np.array(xyz)
            rpy = self.numbers(o, "rpy", 3)
            if rpy is not None:
                quat = euler2quat(np.array(rpy), "XYZ")
        return pos, quat, o

    def pose_map(self, o, fallback):
        """Error locations of pos / quat: the <origin> element when there is one."""
        src = o if o is not None else fallback
        return {
            "pos": (src[0], "xyz" if o is not None else None, src[2]),
            "quat": (src[0], "rpy" if o is not None else None, src[2]),
        }

    # -- the document ---------------------------------------------------------------------------------------

    def translate(self):
        root = self.root
        top = []
        mj = self.sub(root, "mujoco")
        comp_attrs = {"fusestatic": "true", "discardvisual": "true"}
        comp_src, comp_children = root, []
        if mj is not None:
            for tag in ("compiler", "option", "size"):
                sec = self.sub(mj, tag)
                if sec is None:
                    continue
                if tag == "compiler":
                    comp_attrs.update(self._known(sec, "compiler"))
                    comp_src = sec
                    lr = self.sub(sec, "lengthrange")
                    if lr is not None:
                        comp_children.append(self.node("lengthrange", self._known(lr, "lengthrange"), lr))
                elif tag == "option":
                    flags = [self.node("flag", self._known(f, "flag"), f) for f in sec[3] if f[0] == "flag"]
                    top.append(self.node("option", self._known(sec, "option"), sec, flags))
                else:
                    top.append(self.node("size", self._known(sec, "size"), sec))
        comp_attrs["angle"] = "radian"  # MuJoCo forces radians for URDF
        self.discardvisual = comp_attrs["discardvisual"].strip() == "true"
        self.strippath = comp_attrs.get("strippath", "false").strip() == "true"
        top.insert(0, self.node("compiler", comp_attrs, comp_src, comp_children))
        self._materials(root)
        worldbody = self._tree()
        if self.mesh_nodes:
            top.append(self.node("asset", {}, root, self.mesh_nodes))
        top.append(worldbody)
        attrs = {}
        if "name" in root[1]:
            attrs["model"] = root[1]["name"]
        return self.node("mujoco", attrs, root, top)

    def _known(self, node, key):
        """The attributes MJCF knows for `key`: MuJoCo's section readers ignore the others, and so do we (with
        a Python warning naming them)."""
        spec = schema.ELEMENTS[key].attrs
        for k in node[1]:
            if k not in spec:
                warnings.warn(
                    str(self.error(node, "attribute ignored (MuJoCo's URDF import ignores it)", k)), stacklevel=2
                )
        return {k: v for k, v in node[1].items() if k in spec}

    def _materials(self, node):
        """Named materials with a <color> anywhere in the file (mjXURDF::MakeMaterials)."""
        if node[0] == "material" and "name" in node[1] and node[1]["name"] not in self.materials:
            color = self.sub(node, "color")
            if color is not None:
                rgba = self.numbers(color, "rgba", 4, required=True)
                self.materials[node[1]["name"]] = _vec(rgba)
        for c in node[3]:
            self._materials(c)

    # -- kinematic tree -------------------------------------------------------------------------------------

    def _tree(self):
        root = self.root
        links = [c for c in root[3] if c[0] == "link"]
        joints = [c for c in root[3] if c[0] == "joint"]
        names, index = [], {}
        for lk in links:
            name = self.text(lk, "name", required=True)
            if name in index:
                raise self.error(lk, f"repeated URDF name: '{name}'", "name")
            index[name] = len(names)
            names.append(name)
        parent = [-1] * len(links)
        kids = [[] for _ in links]
        child_joint = {}
        for jt in joints:
            ids = []
            for role in ("parent", "child"):
                e = self.sub(jt, role, required=True)
                ln = self.text(e, "link", required=True)
                ids.append(index.get(ln))
            if ids[0] is None or ids[1] is None:
                raise self.error(jt, "URDF joint parent or child missing")
            if parent[ids[1]] >= 0:
                raise self.error(jt, f"URDF body has multiple parents: '{names[ids[1]]}'")
            parent[ids[1]] = ids[0]
            kids[ids[0]].append(ids[1])
            child_joint[ids[1]] = jt
        # bodies: roots in link order, children in joint order (mjXURDF::AddToTree)
        world = ("worldbody", {}, root[2], [], self.file, ("robot", {}))
        bodies = {}

        def add(n, container):
            if names[n] == WORLD:
                node = world
            else:
                node = self.node("body", {"name": names[n]}, links[n], amap={"name": ("link", "name", links[n][2])})
                container[3].append(node)
            bodies[n] = node
            for k in kids[n]:
                add(k, node)

        for n in range(len(links)):
            if parent[n] < 0:
                add(n, world)
        self.world_inertial = None
        for n, lk in enumerate(links):
            if n not in bodies:
                raise self.error(lk, "URDF body not found (the link is part of a cycle of joints)")
            self._link(lk, bodies[n])
        for jt in joints:
            self._joint(jt, bodies, index)
        # body content in MJCF order: inertial, joints, geoms, then the child bodies
        order = {"inertial": 0, "joint": 1, "geom": 2, "body": 3}
        for node in list(bodies.values()):
            node[3].sort(key=lambda c: order[c[0]])
        return world

    def _link(self, lk, body):
        """Inertial and geoms of one link (mjXURDF::Body)."""
        inertial = self.sub(lk, "inertial")
        if inertial is not None:
            body[3].append(self._inertial(inertial))
        rgba = None
        geom_name = ""
        for c in lk[3]:
            if c[0] == "visual":
                mat = self.sub(c, "material")
                if mat is not None:
                    color = self.sub(mat, "color")
                    if color is not None:
                        rgba = _vec(self.numbers(color, "rgba", 4, required=True))
                    else:
                        mname = self.text(mat, "name", required=True)
                        rgba = self.materials.get(mname, rgba)
                if self.discardvisual:
                    continue
            elif c[0] != "collision":
                continue
            g = self._geom(c, c[0] == "collision")
            if rgba is not None:
                g[1]["rgba"] = rgba
            if "name" in c[1]:
                geom_name = c[1]["name"]
            if geom_name not in self.geom_names:
                if geom_name:
                    g[1]["name"] = geom_name
                self.geom_names.add(geom_name)
            body[3].append(g)

    def _inertial(self, ie):
        pos, quat, o = self.origin(ie)
        mass_el = self.sub(ie, "mass", required=True)
        mass = self.numbers(mass_el, "value", 1, required=True)[0]
        inert_el = self.sub(ie, "inertia", required=True)
        full = [self.numbers(inert_el, a, 1, required=True)[0] for a in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")]
        amap = self.pose_map(o, ie)
        amap["mass"] = ("mass", "value", mass_el[2])
        amap["diaginertia"] = amap["fullinertia"] = ("inertia", None, inert_el[2])
        if any(v != 0 for v in full):
            # the inertia rotated into the link frame by the origin's rpy, then its principal frame; a
            # non-positive-definite inertia is left to the compiler, which refuses it
            rot = quat2mat(quat)
            tensor = (
                rot
                @ np.array([[full[0], full[3], full[4]], [full[3], full[1], full[5]], [full[4], full[5], full[2]]])
                @ rot.T
            )
            full = [tensor[0, 0], tensor[1, 1], tensor[2, 2], tensor[0, 1], tensor[0, 2], tensor[1, 2]]
            inertia, quat, err = full_inertia(np.array(full))
            if err is None:
                attrs = {"diaginertia": _vec(inertia)}
            else:
                attrs = {"fullinertia": _vec(full)}
                quat = None
        else:
            attrs = {"diaginertia": "0 0 0"}
        attrs.update(pos=_vec(pos), mass=_num(mass))
        if quat is not None:
            attrs["quat"] = _vec(quat)
        return self.node("inertial", attrs, ie, amap=amap)

    def _joint(self, jt, bodies, index):
        """The joint(s) of a URDF joint, added to its child's body, whose pose it sets (mjXURDF::Joint)."""
        jtype = self.text(jt, "type", required=True)
        if jtype not in JOINT_TYPES:
            raise self.error(jt, f"invalid joint type '{jtype}' in URDF joint definition", "type")
        name = self.text(jt, "name", required=True)
        child = bodies[index[self.text(self.sub(jt, "child"), "link")]]
        pos, quat, o = self.origin(jt)
        axis_el = self.sub(jt, "axis")
        axis = np.array([1.0, 0, 0])
        if axis_el is not None:
            axis = np.array(self.numbers(axis_el, "xyz", 3, required=True))
        if child[0] == "worldbody":
            if jtype != "fixed":
                raise self.error(jt, "joint found in world body (the child link is 'world')")
        else:
            child[1]["pos"], child[1]["quat"] = _vec(pos), _vec(quat)
            child[5][1].update(self.pose_map(o, jt))
        if jtype == "fixed":
            return
        amap = {"name": ("joint", "name", jt[2]), "type": ("joint", "type", jt[2])}
        if axis_el is not None:
            amap["axis"] = ("axis", "xyz", axis_el[2])
        if jtype in ("revolute", "continuous", "prismatic", "spherical"):
            t = {"prismatic": "slide", "spherical": "ball"}.get(jtype, "hinge")
            specs = [(name, t, axis)]
        elif jtype == "floating":
            specs = [(name, "free", None)]
        else:  # planar: slides along x and y of the frame whose z is the axis, and a hinge about the axis
            mat = quat2mat(z2quat(axis))
            specs = [
                (name + "_TX", "slide", mat[:, 0]),
                (name + "_TY", "slide", mat[:, 1]),
                (name + "_RZ", "hinge", axis),
            ]
        nodes = []
        for jname, t, ax in specs:
            attrs = {"type": t}
            if ax is not None:
                attrs["axis"] = _vec(ax)
            if jname not in self.joint_names:
                self.joint_names.add(jname)
                attrs["name"] = jname
            nodes.append(self.node("joint", attrs, jt, amap=dict(amap)))
        dyn = self.sub(jt, "dynamics")
        if dyn is not None:
            damping = self.numbers(dyn, "damping", 1)
            friction = self.numbers(dyn, "friction", 1)
            for n in nodes:
                if damping is not None:
                    n[1]["damping"] = _num(damping[0])
                    n[5][1]["damping"] = ("dynamics", "damping", dyn[2])
                if friction is not None:
                    n[1]["frictionloss"] = _num(friction[0])
                    n[5][1]["frictionloss"] = ("dynamics", "friction", dyn[2])
        lim = self.sub(jt, "limit")
        if lim is not None:
            first = nodes[0]
            lower = self.numbers(lim, "lower", 1)
            upper = self.numbers(lim, "upper", 1)
            rng = [lower[0] if lower else 0.0, upper[0] if upper else 0.0]
            if lower is not None or upper is not None:
                first[1]["range"] = _vec(rng)
            if (lower is None) != (upper is None) or rng[0] >= rng[1]:
                first[1]["limited"] = "false"
            first[5][1]["range"] = first[5][1]["limited"] = ("limit", "lower", lim[2])
            effort = self.numbers(lim, "effort", 1)
            if effort is not None and abs(effort[0]) > 0:
                first[1]["actuatorfrcrange"] = _vec([-abs(effort[0]), abs(effort[0])])
                first[5][1]["actuatorfrcrange"] = first[5][1]["actuatorfrclimited"] = ("limit", "effort", lim[2])
        child[3].extend(nodes)

    # -- geoms ----------------------------------------------------------------------------------------------

    def _geom(self, el, collision):
        """A geom for a <visual> or <collision> (mjXURDF::Geom)."""
        geo = self.sub(el, "geometry", required=True)
        attrs = {}
        amap = {}
        if not collision:
            attrs.update(contype="0", conaffinity="0", group="1", density="0")
        shape = None
        for kind in ("box", "cylinder", "sphere", "capsule", "mesh"):
            shape = self.sub(geo, kind)
            if shape is not None:
                break
        if shape is None:
            raise self.error(geo, "visual geometry specification not found")
        kind = shape[0]
        if kind == "box":
            size = [v / 2 for v in self.numbers(shape, "size", 3, required=True)]
            attrs.update(type="box", size=_vec(size))
            amap["size"] = ("box", "size", shape[2])
        elif kind == "sphere":
            attrs.update(type="sphere", size=_num(self.numbers(shape, "radius", 1, required=True)[0]))
            amap["size"] = ("sphere", "radius", shape[2])
        elif kind in ("cylinder", "capsule"):
            r = self.numbers(shape, "radius", 1, required=True)[0]
            half = self.numbers(shape, "length", 1, required=True)[0] / 2
            attrs.update(type=kind, size=_vec([r, half]))
            amap["size"] = (kind, "radius|length", shape[2])
        else:
            attrs.update(type="mesh", mesh=self._mesh(shape))
            amap["mesh"] = ("mesh", "filename", shape[2])
        pos, quat, o = self.origin(el)
        attrs.update(pos=_vec(pos), quat=_vec(quat))
        amap.update(self.pose_map(o, el))
        return self.node("geom", attrs, el, amap=amap)

    def _mesh(self, shape):
        """Name of the mesh asset for a <mesh filename scale>, created on first use of a (stem, scale)."""
        filename = self.text(shape, "filename", required=True)
        scale = self.numbers(shape, "scale", 3, blank_ok=False)
        scale = tuple(scale) if scale is not None else (1.0, 1.0, 1.0)
        if self.strippath:
            filename = _strippath(filename)
        stem = _stripext(_strippath(filename))
        known = self.meshes.setdefault(stem, [])
        for s, name in known:
            if s == scale:
                return name
        name = stem if not known else stem + str(len(known))
        known.append((scale, name))
        amap = {
            "file": ("mesh", "filename", shape[2]),
            "scale": ("mesh", "scale", shape[2]),
            "name": ("mesh", "filename", shape[2]),
        }
        self.mesh_nodes.append(
            self.node("mesh", {"name": name, "file": filename, "scale": _vec(scale)}, shape, amap=amap)
        )
        return name


def _strippath(filename):
    """mjuu_strippath: drop the folder part."""
    return filename.replace("\\", "/").rsplit("/", 1)[-1]


def _stripext(filename):
    """mjuu_stripext: drop the last extension."""
    i = filename.rfind(".")
    return filename if i < 0 else filename[:i]


def to_mjcf(root, fname):
    """The MJCF node tree (reader node tuples) of a parsed <robot> element from file `fname`."""
    return _Reader(root, fname).translate()
