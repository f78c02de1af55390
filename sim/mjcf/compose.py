"""Model composition: <replicate> and <attach> expanded in the parsed document, as MuJoCo 3.17's parser does it
with mjs_attach (xml_native_reader.cc mjXReader::Body, user_model.cc mjCModel::operator+= / operator-=).

MuJoCo parses every section before the <worldbody> and then walks the body tree in document order.  We do the
same on the Elem tree (before default classes are applied), keeping a registry of the names that exist at each
point of that walk.

<replicate count sep offset euler childclass>: its content is walked first (inner replicates expand first), then
for replica i = 0..count-1 a <frame> is made at the replicate's place, with pos_i and quat_i (quat_i = euler
angles i * euler, pos_(i+1) = pos_i + quat_i * offset, MuJoCo's compiler angle / eulerseq), holding a copy of the
content in which every tree name (body, joint, geom, site, camera, light, frame) and camera / light target and
light texture gets the suffix sep + i (zero-padded to the digits of count).  After each replica every element of
the other sections (pair, exclude, tendon, equality, actuator, sensor, tuple, in that order) is copied with the
suffix applied to its name and references (MuJoCo's NameSpace), when the suffixed references resolve among the
names that exist then (MuJoCo's ResolveReferences, with its fall-backs: one of the two objects of a pair,
exclude or sensor, and any wrap of a tendon, may keep its plain name); copies go to the end of their lists.
Finally the original content disappears and the section elements that resolved before but no longer do are
dropped (tuples stay and fail to compile).  Keyframes are neither copied nor renamed.
"""

import copy
import math

import numpy as np

from ..compiler.frames import euler2quat, frameaccum
from ..errors import ModelError

# tree element key -> name space
TREE_KINDS = {"body": "body", "joint": "joint", "freejoint": "joint", "geom": "geom", "site": "site",
              "camera": "camera", "light": "light", "frame": "frame"}
# order in which mjCModel::operator+= copies the non-tree lists (and operator-= prunes them, tuples excepted)
SECTION_KINDS = ("pair", "exclude", "tendon", "equality", "actuator", "sensor", "tuple")
_SECTION_OF = {"contact": ("pair", "exclude"), "tendon": ("tendon",), "equality": ("equality",),
               "actuator": ("actuator",), "sensor": ("sensor",), "custom": ("tuple",)}
_TUPLE_NS = {"body": "body", "xbody": "body", "joint": "joint", "geom": "geom", "site": "site", "camera": "camera",
             "light": "light", "tendon": "tendon", "actuator": "actuator", "sensor": "sensor", "pair": "pair",
             "exclude": "exclude", "equality": "equality", "tuple": "tuple", "frame": "frame"}


def _kind(el):
    """Section kind of a non-tree element, or None."""
    k = el.key
    if k in ("pair", "exclude", "tuple"):
        return k
    if k in ("spatial", "fixed"):
        return "tendon"
    if k in ("connect", "weld", "equality_joint", "equality_tendon", "equality_flex", "flexvert", "flexstrain"):
        return "equality"
    p = el.parent.key if el.parent is not None else None
    if p == "actuator":
        return "actuator"
    if p == "sensor":
        return "sensor"
    return None


# ------------------------------------------------------------------------------------------ references


def _sensor_refs(el):
    """((obj attribute, name space) or None, (ref attribute, name space) or None) of a sensor element."""
    raw = el.raw
    tag = "contact" if el.key == "sensor_contact" else ("user" if el.key == "sensor_user" else el.tag)
    if tag in ("touch", "accelerometer", "velocimeter", "gyro", "force", "torque", "magnetometer"):
        return ("site", "site"), None
    if tag == "camprojection":
        return ("site", "site"), ("camera", "camera")
    if tag == "rangefinder":
        return (("site", "site") if "site" in raw else ("camera", "camera")), None
    if tag.startswith("joint") or tag in ("ballquat", "ballangvel"):
        return ("joint", "joint"), None
    if tag.startswith("tendon"):
        return ("tendon", "tendon"), None
    if tag.startswith("actuator"):
        return ("actuator", "actuator"), None
    if tag.startswith("subtree"):
        return ("body", "body"), None
    if tag.startswith("frame") or tag == "insidesite" or tag == "user":
        obj = ("objname", _TUPLE_NS.get(raw.get("objtype", ""), "?")) if "objtype" in raw else None
        if tag == "insidesite":
            return obj, ("site", "site")
        ref = ("refname", _TUPLE_NS.get(raw.get("reftype", ""), "?")) if "reftype" in raw else None
        return obj, ref
    if tag in ("distance", "normal", "fromto"):
        return (("body1", "body") if "body1" in raw else ("geom1", "geom")), \
            (("body2", "body") if "body2" in raw else ("geom2", "geom"))
    if tag == "contact":
        first = [a for a in ("site", "body1", "subtree1", "geom1") if a in raw]
        second = [a for a in ("body2", "subtree2", "geom2") if a in raw]
        ns = {"site": "site", "body1": "body", "subtree1": "body", "geom1": "geom", "body2": "body",
              "subtree2": "body", "geom2": "geom"}
        return ((first[0], ns[first[0]]) if first else None), ((second[0], ns[second[0]]) if second else None)
    if tag == "tactile":
        return ("mesh", "mesh"), ("geom", "geom")
    return None, None


class Names:
    """The names that exist at a point of MuJoCo's parse, per name space."""

    def __init__(self):
        self.sets = {}

    def has(self, ns, name):
        return name in self.sets.get(ns, ())

    def add(self, ns, name):
        if name:
            self.sets.setdefault(ns, {}).setdefault(name, 0)
            self.sets[ns][name] += 1

    def remove(self, ns, name):
        if name and name in self.sets.get(ns, {}):
            self.sets[ns][name] -= 1
            if not self.sets[ns][name]:
                del self.sets[ns][name]


def resolve(el, names, prefix, suffix):
    """{attribute or (child index, attribute): new value} for a copy of section element `el` namespaced with
    prefix / suffix, or None when its references do not resolve (MuJoCo's NameSpace + ResolveReferences)."""
    def ns(x):
        return prefix + x + suffix
    kind = _kind(el)
    raw = el.raw
    out = {}
    if raw.get("name"):
        out["name"] = ns(raw["name"])
    if kind in ("pair", "exclude"):
        a1, a2, space = ("geom1", "geom2", "geom") if kind == "pair" else ("body1", "body2", "body")
        if not _two(names, space, raw.get(a1, ""), space, raw.get(a2, ""), ns, out, a1, a2):
            return None
    elif kind == "sensor":
        obj, ref = _sensor_refs(el)
        if obj is None and ref is None:
            return out
        if obj is None or ref is None:
            attr, space = obj or ref
            name = raw.get(attr, "")
            if not (name and names.has(space, ns(name))):
                return None
            out[attr] = ns(name)
        elif not _two(names, obj[1], raw.get(obj[0], ""), ref[1], raw.get(ref[0], ""), ns, out, obj[0], ref[0]):
            return None
    elif kind == "equality":
        if el.key in ("connect", "weld"):
            pair = ("site1", "site2", "site") if "site1" in raw else ("body1", "body2", "body")
        elif el.key == "equality_joint":
            pair = ("joint1", "joint2", "joint")
        elif el.key == "equality_tendon":
            pair = ("tendon1", "tendon2", "tendon")
        else:
            return None
        for attr in pair[:2]:
            if raw.get(attr):
                if not names.has(pair[2], ns(raw[attr])):
                    return None
                out[attr] = ns(raw[attr])
        if not raw.get(pair[0]):
            return None
    elif kind == "actuator":
        space = {"joint": "joint", "jointinparent": "joint", "tendon": "tendon", "site": "site",
                 "refsite": "site", "cranksite": "site", "slidersite": "site", "body": "body"}
        found = False
        for attr, sp in space.items():
            if raw.get(attr):
                if not names.has(sp, ns(raw[attr])):
                    return None
                out[attr] = ns(raw[attr])
                found = True
        if not found:
            return None
    elif kind == "tendon":
        nwrap = nfail = 0
        for i, w in enumerate(el.children):
            if w.key == "pulley":
                continue
            nwrap += 1
            attr, space = {"fixed_joint": ("joint", "joint"), "spatial_site": ("site", "site"),
                           "spatial_geom": ("geom", "geom")}[w.key]
            side = w.raw.get("sidesite", "")
            if names.has(space, ns(w.raw[attr])) and (not side or names.has("site", ns(side))):
                out[(i, attr)] = ns(w.raw[attr])
                if side:
                    out[(i, "sidesite")] = ns(side)
            elif names.has(space, w.raw[attr]) and (not side or names.has("site", side)):
                nfail += 1
            else:
                return None
        if nfail == nwrap:
            return None
    elif kind == "tuple":
        for w in el.children:
            if not names.has(_TUPLE_NS.get(w.raw.get("objtype", ""), "?"), w.raw.get("objname", "")):
                return None
    return out


def _two(names, s1, n1, s2, n2, ns, out, a1, a2):
    """Two references namespaced together; the one that fails keeps its plain name when the other resolves
    (the fall-back of mjCPair / mjCBodyPair / mjCSensor::ResolveReferences)."""
    x1, x2 = ns(n1), ns(n2)
    f1, f2 = names.has(s1, x1), names.has(s2, x2)
    if not f1 and f2:
        x1 = n1
        f1 = names.has(s1, x1)
    if f1 and not f2:
        x2 = n2
        f2 = names.has(s2, x2)
    if not (f1 and f2):
        return False
    out[a1], out[a2] = x1, x2
    return True


def _apply(el, changes):
    """A deep copy of section element `el` with the resolved names written in."""
    new = deep_copy(el, el.parent)
    for key, value in changes.items():
        if isinstance(key, tuple):
            new.children[key[0]].raw[key[1]] = value
        else:
            new.raw[key] = value
    return new


def deep_copy(el, parent):
    """A copy of an Elem subtree (raw attributes copied, values not yet filled)."""
    new = copy.copy(el)
    new.raw = dict(el.raw)
    new.values = {}
    new.parent = parent
    new.children = [deep_copy(c, new) for c in el.children]
    return new


# ------------------------------------------------------------------------------------------ the walk


class Composer:
    """The state of MuJoCo's worldbody parse: existing names and the section lists."""

    def __init__(self, root, degree, eulerseq):
        self.root = root
        self.degree = degree
        self.eulerseq = eulerseq
        self.names = Names()
        self.names.add("body", "world")
        self.lists = {k: [] for k in SECTION_KINDS}       # kind -> [Elem] in list order
        self.originals = set()
        for sec in root.children:
            for kind in _SECTION_OF.get(sec.key, ()):
                for el in sec.children:
                    if _kind(el) == kind:
                        self.lists[kind].append(el)
                        self.originals.add(id(el))
                        self.names.add(kind, el.raw.get("name", ""))

    def run(self):
        for wb in self.root.find("worldbody"):
            self.walk(wb)
        # write the section lists back into their containers (copies at the end of the last container)
        for sec in self.root.children:
            kinds = _SECTION_OF.get(sec.key, ())
            if kinds:
                sec.children = [c for c in sec.children if _kind(c) not in kinds]
        for kind in SECTION_KINDS:
            secs = [s for s in self.root.children if kind in _SECTION_OF.get(s.key, ())]
            for e in self.lists[kind]:
                target = e.parent if id(e) in self.originals else secs[-1]
                e.parent = target
                target.children.append(e)

    def walk(self, el):
        """Visit el's children in document order, expanding replicates; registers tree names."""
        out = []
        for c in el.children:
            if c.key == "replicate":
                out.extend(self.replicate(c, el))
                continue
            self.register(c, check=True)
            if c.children and c.key in ("body", "frame", "worldbody"):
                self.walk(c)
            out.append(c)
        el.children = out

    def register(self, el, remove=False, check=False):
        ns = TREE_KINDS.get(el.key)
        if ns is None:
            return
        name = el.raw.get("name", "")
        if remove:
            self.names.remove(ns, name)
            return
        if check and name and self.names.has(ns, name):
            # MuJoCo names objects as it parses them (mjs_setName), so a name that an earlier replica took is
            # refused there; copies themselves are not checked against the replicate's own content
            raise el.error(f"repeated name '{name}' in {ns}", "name")
        self.names.add(ns, name)

    def register_tree(self, els, remove=False):
        for e in els:
            self.register(e, remove)
            if e.key in ("body", "frame"):
                self.register_tree(e.children, remove)

    def replicate(self, rep, parent):
        count = _int(rep, "count")       # zero or negative: no replica (MuJoCo accepts it)
        offset = _floats(rep, "offset", 3)
        euler = _floats(rep, "euler", 3)
        sep = rep.raw.get("sep", "")
        # the content first (inner replicates expand here), as MuJoCo parses it into a placeholder body
        self.walk(rep)
        content = rep.children
        unit = np.array(euler, dtype=np.float64)
        if self.degree:
            unit = unit / 180.0 * math.pi
        rotation = euler2quat(unit, self.eulerseq)
        pos = np.zeros(3)
        frames = []
        for i in range(count):
            eul = np.array([i * euler[0], i * euler[1], i * euler[2]])
            if self.degree:
                eul = eul / 180.0 * math.pi
            quat = euler2quat(eul, self.eulerseq)
            suffix = sep + str(i).zfill(len(str(count)))
            frame = _make_frame(rep, parent, pos, quat)
            frame.children = [deep_copy(c, frame) for c in content]
            _rename_tree(frame.children, "", suffix)
            self.register_tree(frame.children)
            frames.append(frame)
            self.copy_sections("", suffix)
            pos, _ = frameaccum(pos, quat, np.array(offset, dtype=np.float64), rotation)
        # the placeholder disappears: drop what resolved with it and no longer does
        old = copy.deepcopy(self.names.sets)
        self.register_tree(content, remove=True)
        self.prune(old)
        return frames

    def copy_sections(self, prefix, suffix):
        """mjCModel::operator+= for a self-attachment: namespaced copies of the section elements that resolve."""
        for kind in SECTION_KINDS:
            for el in list(self.lists[kind]):
                changes = resolve(el, self.names, prefix, suffix)
                if changes is not None:
                    new = _apply(el, changes)
                    self.lists[kind].append(new)
                    self.names.add(kind, new.raw.get("name", ""))

    def prune(self, old_sets):
        """mjCModel::RemoveFromList after a subtree was deleted."""
        old = Names()
        old.sets = old_sets
        for kind in SECTION_KINDS[:-1]:
            keep = []
            for el in self.lists[kind]:
                if resolve(el, old, "", "") is not None and resolve(el, self.names, "", "") is None:
                    self.names.remove(kind, el.raw.get("name", ""))
                    continue
                keep.append(el)
            self.lists[kind] = keep


def _make_frame(rep, parent, pos, quat):
    from .reader import Elem
    raw = {"pos": " ".join(repr(float(x)) for x in pos), "quat": " ".join(repr(float(x)) for x in quat)}
    if "childclass" in rep.raw:
        raw["childclass"] = rep.raw["childclass"]
    # errors about the frame name the replicate it stands for
    origin = rep.origin or ("replicate", {a: ("replicate", a if a in rep.raw else None, rep.line)
                                          for a in ("pos", "quat", "childclass")})
    return Elem("frame", "frame", rep.file, rep.line, raw, parent, origin)


def _rename_tree(els, prefix, suffix):
    """Namespace the names and intra-tree references of copied tree elements (mjCBase / mjCCamera / mjCLight
    NameSpace for a self-attachment: materials, meshes and height fields keep their names)."""
    for e in els:
        raw = e.raw
        if e.key in TREE_KINDS and raw.get("name"):
            raw["name"] = prefix + raw["name"] + suffix
        if e.key in ("camera", "light") and raw.get("target"):
            raw["target"] = prefix + raw["target"] + suffix
        if e.key == "light" and raw.get("texture"):
            raw["texture"] = prefix + raw["texture"] + suffix
        _rename_tree(e.children, prefix, suffix)


def _int(el, attr):
    t = el.raw.get(attr)
    if t is None:
        raise el.error("missing required attribute", attr)
    try:
        return int(t)
    except ValueError:
        raise el.error(f"invalid integer '{t}'", attr) from None


def _floats(el, attr, n):
    t = el.raw.get(attr, "")
    if not t.split():
        return [0.0] * n
    try:
        vals = [float(x) for x in t.split()]
    except ValueError:
        raise el.error(f"invalid number in '{t}'", attr) from None
    if len(vals) != n:
        raise el.error(f"expected {n} values, got {len(vals)}", attr)
    return vals


def compose(root, degree, eulerseq):
    """Expand every <replicate> (and <attach>) of a parsed document in place."""
    Composer(root, degree, eulerseq).run()
    return root
