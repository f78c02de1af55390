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

<attach body|frame prefix> without `model` (self-attachment): a copy of a body or frame parsed earlier, names
prefixed, in a frame at the attach's place, keeping the default class it had; section elements copied as above
(originals stay).

<attach model body|frame prefix> with <asset><model name file>: the model file is read as a model of its own
(its includes, replicates, attachments and default classes) and compiled without constants (for its keyframes).
The named body or frame, or (neither given) the content of its worldbody in a new frame, is copied in with every
name prefixed (and, unlike a self-attachment, material / mesh / height field / texture references and default
class names, its "main" included); the copies keep the attribute values their own defaults gave them and the
compiler settings of their model (angle, eulerseq, autolimits, inertia options, asset folders relative to its
file).  All its assets (meshes, skins, height fields, textures, materials), numeric and text fields are added
with prefixed names, its section elements are copied when their prefixed references resolve in this model
(MuJoCo's CopyList), and its keyframes become keyframes of this model: the attached joints, actuators and mocap
bodies take the keyframe's values, everything else its default (qpos0, zeros, body pose).
"""

import copy
import math
import os
import warnings

import numpy as np

from sim.user_util import euler2quat, frameaccum
from sim.errors import UnsupportedError
from . import numbers
from . import schema
from .elem import Elem, merge_singletons

# tree element key -> name space
TREE_KINDS = {
    "body": "body",
    "joint": "joint",
    "freejoint": "joint",
    "geom": "geom",
    "site": "site",
    "camera": "camera",
    "light": "light",
    "frame": "frame",
}
# order in which mjCModel::operator+= copies the non-tree lists (and operator-= prunes them, tuples excepted)
SECTION_KINDS = ("pair", "exclude", "tendon", "equality", "actuator", "sensor", "tuple")
_SECTION_OF = {
    "contact": ("pair", "exclude"),
    "tendon": ("tendon",),
    "equality": ("equality",),
    "actuator": ("actuator",),
    "sensor": ("sensor",),
    "custom": ("tuple",),
}
_TUPLE_NS = {
    "body": "body",
    "xbody": "body",
    "joint": "joint",
    "geom": "geom",
    "site": "site",
    "camera": "camera",
    "light": "light",
    "tendon": "tendon",
    "actuator": "actuator",
    "sensor": "sensor",
    "pair": "pair",
    "exclude": "exclude",
    "equality": "equality",
    "tuple": "tuple",
    "frame": "frame",
}


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


# the sections whose objects MuJoCo 3.17 names as it parses them (mjXReader::Parse order: custom, asset, contact,
# deformable, equality, tendon, actuator, sensor; the body tree after them, keyframes when compiling), and the name
# space of each element key in them
_PARSE_ORDER = ("custom", "asset", "contact", "deformable", "equality", "tendon", "actuator", "sensor")
_NAMED_ASSETS = {
    "mesh": "mesh",
    "skin": "skin",
    "hfield": "hfield",
    "texture": "texture",
    "material": "material",
    "numeric": "numeric",
    "text": "text",
    "tuple": "tuple",
}
_FILE_NAMED = ("mesh", "skin", "hfield", "texture")  # an unnamed one takes its file name (mjuu_strippath/ext)


def check_section_names(root):
    """Refuse a name repeated within one kind among the non-tree objects, in the order MuJoCo's reader meets them
    (mjs_setName refuses a name its kind already has: the first repetition in that order is the error)."""
    seen = {}
    for tag in _PARSE_ORDER:
        for sec in root.find(tag):
            for el in sec.children:
                kind = _NAMED_ASSETS.get(el.key) or _kind(el)
                if kind is None:
                    continue
                name = el.raw.get("name", "")
                if not name and el.key in _FILE_NAMED:
                    f = el.raw.get("file", "").replace("\\", "/").rsplit("/", 1)[-1]
                    name = f[: f.rfind(".")] if "." in f else f
                if not name:
                    continue
                names = seen.setdefault(kind, set())
                if name in names:
                    raise el.error(f"repeated name '{name}' in {kind}", "name" if "name" in el.raw else "file")
                names.add(name)


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
        return (("body1", "body") if "body1" in raw else ("geom1", "geom")), (
            ("body2", "body") if "body2" in raw else ("geom2", "geom")
        )
    if tag == "contact":
        first = [a for a in ("site", "body1", "subtree1", "geom1") if a in raw]
        second = [a for a in ("body2", "subtree2", "geom2") if a in raw]
        ns = {
            "site": "site",
            "body1": "body",
            "subtree1": "body",
            "geom1": "geom",
            "body2": "body",
            "subtree2": "body",
            "geom2": "geom",
        }
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
        space = {
            "joint": "joint",
            "jointinparent": "joint",
            "tendon": "tendon",
            "site": "site",
            "refsite": "site",
            "cranksite": "site",
            "slidersite": "site",
            "body": "body",
        }
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
            attr, space = {
                "fixed_joint": ("joint", "joint"),
                "spatial_site": ("site", "site"),
                "spatial_geom": ("geom", "geom"),
            }[w.key]
            side = w.raw.get("sidesite", "")
            if attr not in w.raw:
                raise w.error("missing required attribute", attr)
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


def _apply(el, changes, class_prefix=None, comp=None, attach=None):
    """A deep copy of section element `el` with the resolved names written in; from another model
    (class_prefix given): its default class renamed and its compiler settings attached."""
    new = deep_copy(el, el.parent)
    for key, value in changes.items():
        if isinstance(key, tuple):
            _set(new.children[key[0]], key[1], value)
        else:
            _set(new, key, value)
    if class_prefix is not None:
        _set_comp([new], comp, class_prefix, attach)
    return new


def _set(el, attr, value):
    """Write an attribute as written text and, for an element whose values are already resolved, as value."""
    el.raw[attr] = value
    if el.dclass is not None:
        el.values[attr] = value


def deep_copy(el, parent):
    """A copy of an Elem subtree (raw attributes and any resolved values copied)."""
    new = copy.copy(el)
    new.raw = dict(el.raw)
    new.values = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in el.values.items()}
    new.parent = parent
    new.children = [deep_copy(c, new) for c in el.children]
    return new


def _set_comp(els, comp, class_prefix=None, attach=None):
    """Mark copies from another model: its compiler settings, its class names prefixed (section elements; tree
    elements get theirs through merge_classes), and for keyframes the <attach> each copy came with."""
    for e in els:
        e.comp = comp
        if class_prefix is not None and e.dclass is not None:
            e.dclass = class_prefix + e.dclass
        if attach is not None and e.extra and "source" in e.extra:
            e.extra = {"source": e.extra["source"], "attach": attach}
        _set_comp(e.children, comp, class_prefix, attach)


def _identity_frame(att, parent):
    return Elem(
        "frame",
        "frame",
        att.file,
        att.line,
        {},
        parent,
        att.origin or ("attach", {a: ("attach", None, att.line) for a in ("pos", "quat", "childclass")}),
    )


def _class_in_effect(el):
    """The default class an element of this document inherits (its own childclass or an ancestor's)."""
    e = el.parent
    while e is not None:
        if e.key in ("body", "frame", "replicate") and "childclass" in e.raw:
            return e.raw["childclass"]
        e = e.parent
    return "main"


def _find_tree(root, kind, name):
    """The body or frame called `name` in a (resolved) document."""
    stack = [c for wb in root.find("worldbody") for c in wb.children]
    while stack:
        e = stack.pop(0)
        if e.key == kind and e.raw.get("name") == name:
            return e
        stack = [c for c in e.children if c.key in ("body", "frame")] + stack
    return None


def _authored(root, key):
    """{attribute: (text, element)} written in a model's <option> (flags as 'flag:<name>') or <size> sections,
    the last one winning."""
    out = {}
    for sec in root.find(key):
        for a, v in sec.raw.items():
            out[a] = (v, sec)
        for fl in sec.children:
            for a, v in fl.raw.items():
                out["flag:" + a] = (v, fl)
    return out


# compiler conflict="merge": MuJoCo's per-field strategy for values authored in both models (modeledit.rst,
# Attribute Merging); flags are OR-ed (a disable flag set to 'disable', an enable flag to 'enable', on either side)
_MERGE_MIN = {"timestep", "tolerance", "ls_tolerance", "noslip_tolerance", "ccd_tolerance", "sleep_tolerance"}
_MERGE_MAX = {
    "iterations",
    "ls_iterations",
    "noslip_iterations",
    "ccd_iterations",
    "sdf_iterations",
    "sdf_initpoints",
    "nkey",
    "nuserdata",
    "nuser_body",
    "nuser_jnt",
    "nuser_geom",
    "nuser_site",
    "nuser_cam",
    "nuser_tendon",
    "nuser_actuator",
    "nuser_sensor",
    "memory",
}


def _merge_value(key, attr, mine, theirs):
    """Merged attribute text, or None when the field is not mergeable (MuJoCo raises a conflict error)."""
    if attr.startswith("flag:"):
        wanted = "enable" if attr[5:] in schema.ENABLE_FLAGS else "disable"
        return wanted if wanted in (mine.strip(), theirs.strip()) else mine
    if attr == "actuatorgroupdisable":
        groups = sorted({int(x) for x in (mine + " " + theirs).split()})
        return " ".join(str(g) for g in groups)
    if attr == "memory":
        return max(mine, theirs, key=_bytes)
    if attr in _MERGE_MIN or attr in _MERGE_MAX:
        a, b = float(mine), float(theirs)
        return mine if (a <= b) == (attr in _MERGE_MIN) else theirs
    return None


def _bytes(text):
    """Byte count of a <size memory> value (K/M/G/T/P/E suffixes)."""
    t = text.strip().upper()
    scale = 1024 ** ("KMGTPE".index(t[-1]) + 1) if t and t[-1] in "KMGTPE" else 1
    try:
        return int(t.rstrip("KMGTPE").strip() or 0) * scale
    except ValueError:  # not a byte count: the compiler refuses it (<size memory>)
        return -1


def _same_text(a, b):
    """Two attribute texts with the same meaning (numbers compared as numbers)."""
    ta, tb = a.split(), b.split()
    try:
        return [float(x) for x in ta] == [float(x) for x in tb]
    except ValueError:
        return ta == tb


def _is_default(key, attr, value):
    if attr.startswith("flag:"):
        spec, attr = schema.ELEMENTS["flag"], attr[5:]
    else:
        spec = schema.ELEMENTS[key]
    a = spec.attrs.get(attr)
    if a is None or a.default is None:
        return False
    d = a.default
    if a.enum:
        return a.enum.get(value.strip()) == d
    return _same_text(" ".join(str(x) for x in np.atleast_1d(d)), value)


def _stem(filename):
    """File name without folder and extension (the implicit name of a file asset)."""
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    return base[: base.rfind(".")] if "." in base else base


def _sub_compiler(sub, folder):
    """The merged <compiler> of an attached model, its asset folders made relative to this model's folder."""
    comp = merge_singletons(sub.root.find("compiler"), "compiler")
    comp.dclass = "main"
    assetdir = comp.get("assetdir", "") or ""
    for attr, own in (
        ("meshdir", comp.get("meshdir", "") or assetdir),
        ("texturedir", comp.get("texturedir", "") or assetdir),
        ("assetdir", assetdir),
    ):
        value = os.path.join(folder, own) if folder else own
        comp.raw[attr] = comp.values[attr] = value
    return comp


# ------------------------------------------------------------------------------------------ the walk


class Composer:
    """The state of MuJoCo's worldbody parse: existing names and the section lists."""

    def __init__(self, doc, degree, eulerseq, depth=0, read=None, compile_submodel=None):
        self.doc = doc
        self.read = read  # the reader (sim/mjcf/reader.py read) of an attached model file
        self.compile_submodel = compile_submodel  # Document -> (Model without constants, Context), or None
        self.root = root = doc.root
        self.degree = degree
        self.eulerseq = eulerseq
        self.depth = depth
        self.names = Names()
        self.names.add("body", "world")
        self.tree = {"body": {}, "frame": {}}  # name -> Elem, for self-attachment
        self.lists = {k: [] for k in SECTION_KINDS}  # kind -> [Elem] in list order
        self.originals = set()
        for sec in root.children:
            for kind in _SECTION_OF.get(sec.key, ()):
                for el in sec.children:
                    if _kind(el) == kind:
                        self.lists[kind].append(el)
                        self.originals.add(id(el))
                        self.names.add(kind, el.raw.get("name", ""))

    def run(self):
        check_section_names(self.root)
        self.read_submodels()
        for wb in self.root.find("worldbody"):
            self.walk(wb)
        # write the section lists back into their containers (copies at the end of the last container)
        for sec in self.root.children:
            kinds = _SECTION_OF.get(sec.key, ())
            if kinds:
                sec.children = [c for c in sec.children if _kind(c) not in kinds]
        for kind in SECTION_KINDS:
            secs = [s for s in self.root.children if kind in _SECTION_OF.get(s.key, ())]
            if self.lists[kind] and not secs:
                secs = [self.container(next(k for k, v in _SECTION_OF.items() if kind in v))]
            for e in self.lists[kind]:
                target = e.parent if id(e) in self.originals else secs[-1]
                e.parent = target
                target.children.append(e)

    def container(self, key):
        """The last top-level section `key` (<asset>, <custom>, <keyframe>, ...), created when missing."""
        found = self.root.find(key)
        if found:
            return found[-1]
        sec = Elem(key, key, self.root.file, None, {}, self.root)
        self.root.children.append(sec)
        return sec

    def walk(self, el):
        """Visit el's children in document order, expanding replicates and attachments; registers tree names."""
        out = []
        for c in el.children:
            if c.key == "replicate":
                out.extend(self.replicate(c, el))
                continue
            if c.key == "attach":
                out.append(self.attach(c, el))
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
        if check and ns in self.tree and name:
            self.tree[ns][name] = el
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
        count = _int(rep, "count")  # zero or negative: no replica (MuJoCo accepts it)
        cc = rep.raw.get("childclass")
        if cc is not None and cc not in self.doc.classes:  # checked as it is parsed, whatever the count
            raise rep.error(f"unknown default childclass '{cc}'", "childclass")
        offset = _floats(rep, "offset", 3)
        euler = _floats(rep, "euler", 3)
        sep = rep.raw.get("sep", "")
        seq = self.eulerseq
        if len(seq) != 3 or any(c not in "xyzXYZ" for c in seq):
            if "euler" in rep.raw:
                raise rep.error("euler sequence can only contain x, y, z, X, Y, Z (compiler eulerseq)", "euler")
            seq = "xyz"  # zero angles: the sequence does not matter (MuJoCo does not look at it)
        # the content first (inner replicates expand here), as MuJoCo parses it into a placeholder body
        self.walk(rep)
        content = rep.children
        unit = np.array(euler, dtype=np.float64)
        if self.degree:
            unit = unit / 180.0 * math.pi
        rotation = euler2quat(unit, seq)
        pos = np.zeros(3)
        frames = []
        for i in range(count):
            eul = np.array([i * euler[0], i * euler[1], i * euler[2]])
            if self.degree:
                eul = eul / 180.0 * math.pi
            quat = euler2quat(eul, seq)
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

    def copy_sections(self, prefix, suffix, source=None, comp=None, attach=None):
        """mjCModel::operator+=: namespaced copies of the section elements that resolve here, from this model
        (self-attachment, replicate) or from the lists of another one (`source`: kind -> [Elem])."""
        for kind in SECTION_KINDS:
            for el in list(self.lists[kind] if source is None else source[kind]):
                changes = resolve(el, self.names, prefix, suffix)
                if changes is not None:
                    new = _apply(el, changes, prefix if source is not None else None, comp, attach)
                    self.lists[kind].append(new)
                    self.names.add(kind, new.raw.get("name", ""))

    # -- <attach> ---------------------------------------------------------------------------------------

    def attach(self, att, parent):
        """The frame that replaces an <attach> element (mjXReader::Body 'attach' + mjs_attach)."""
        prefix = att.raw.get("prefix")
        if prefix is None:
            raise att.error("missing required attribute", "prefix")
        kind = "body" if "body" in att.raw else ("frame" if "frame" in att.raw else None)
        name = att.raw.get(kind, "") if kind else ""
        frame = _identity_frame(att, parent)
        if "model" not in att.raw:
            if kind is None:
                raise att.error("either 'body' or 'frame' attribute must be specified for self-attach")
            if self.names.has(kind, prefix + name):
                raise att.error(f"cannot self-attach: element {prefix + name} already exists", kind)
            src = self.tree[kind].get(name)
            if src is None:
                raise att.error(f"could not find {kind} '{name}' in the current model for self-attachment", kind)
            cls = _class_in_effect(src)
            if cls != "main":
                frame.raw["childclass"] = cls
            frame.children = [deep_copy(src, frame)]
            _rename_tree(frame.children, prefix, "")
            self.register_tree(frame.children)
            self.copy_sections(prefix, "")
            return frame
        if kind is not None and self.names.has(kind, prefix + name):
            raise att.error(f"cannot attach: element {name} already exists with prefix {prefix}", kind)
        sub, sub_model, comp = self.submodel(att)
        if kind is None:
            src = [c for wb in sub.root.find("worldbody") for c in wb.children]
        else:
            src = [_find_tree(sub.root, kind, name)]
            if src[0] is None:
                raise att.error(f"could not find {kind} '{name}' in model asset '{att.raw['model']}'", kind)
        frame.children = [deep_copy(e, frame) for e in src]
        _rename_tree(frame.children, prefix, "", other=True)
        _set_comp(frame.children, comp, class_prefix=prefix, attach=att)
        self.register_tree(frame.children)
        self.merge_globals(sub, att)
        self.merge_classes(sub, prefix, att)
        self.copy_assets(sub, prefix, comp)
        lists = {k: [] for k in SECTION_KINDS}
        for sec in sub.root.children:
            for k in _SECTION_OF.get(sec.key, ()):
                lists[k] += [e for e in sec.children if _kind(e) == k]
        self.copy_sections(prefix, "", source=lists, comp=comp, attach=att)
        self.copy_keys(sub, sub_model, prefix, att)
        return frame

    def submodel(self, att):
        """(Document, Model without constants, compiler Elem for its elements) of <asset><model name=...>."""
        mname = att.raw["model"]
        if mname not in self.doc.submodels:
            raise att.error(f"could not find model '{mname}'", "model")
        return self.doc.submodels[mname]

    def read_submodels(self):
        """Every <asset><model>, read when the assets are (MuJoCo parses them whether attached or not); named by
        its `name`, else by the model name in its file."""
        for a in self.root.find("asset"):
            for el in a.children:
                if el.key == "asset_model":
                    sub = self.read_submodel(el)
                    name = el.raw.get("name") or sub[0].root.raw.get("model", "MuJoCo Model")
                    self.doc.submodels[name] = sub

    def read_submodel(self, el):
        if self.depth > 10:
            raise el.error("model assets nested too deep (a model that attaches itself?)", "file")
        file = el.raw.get("file")
        if not file:
            raise el.error("missing required attribute", "file")
        if self.compile_submodel is None:
            raise el.error("attaching a model file needs the compiler: load the model with sim.load_model", "file")
        src = self.doc.source
        data = src.read(file, el)
        folder = os.path.dirname(file)
        sub = self.read(
            data,
            name=file,
            directory=os.path.join(src.directory, folder),
            assets=src.assets,
            depth=self.depth + 1,
            compile_submodel=self.compile_submodel,
        )
        model, sctx = self.compile_submodel(sub)
        # what keyframes set: each joint, actuator and mocap body remembers its index in the attached model
        for kind in ("joint", "actuator", "body"):
            for k, e in enumerate(sctx.elems[kind]):
                if e is not None:
                    e.extra = {"source": (kind, k)}
        return sub, model, _sub_compiler(sub, folder)

    def merge_globals(self, sub, att):
        """<option> (with its flags) and <size> of the attached model against this model's, by the compiler's
        `conflict` policy (MuJoCo's attribute merging): warning (default) keeps this model's values and warns when
        the attached model's differ; error refuses values authored in both that differ; merge adopts the values
        only the attached model authors and merges the others field by field (_merge_value).  <visual> is not
        merged (rendering only)."""
        policy = "warning"
        for c in self.root.find("compiler"):
            policy = c.raw.get("conflict", policy).strip()
        for key in ("option", "size"):
            mine, theirs = _authored(self.root, key), _authored(sub.root, key)
            for attr, (value, el) in theirs.items():
                own = mine.get(attr)
                same = own is not None and _same_text(own[0], value)
                if policy == "warning":
                    if not same and (own is not None or not _is_default(key, attr, value)):
                        warnings.warn(
                            f"{att.file}:{att.line}: attaching model '{att.raw['model']}': {key} "
                            f"{attr} is {value!r} there, this model keeps "
                            f"{own[0] if own else 'its default'} (compiler conflict='warning')",
                            stacklevel=2,
                        )
                elif policy == "error":
                    if own is not None and not same:
                        raise att.error(
                            f"attach conflict with model '{att.raw['model']}' (compiler conflict="
                            f"'error'): {key} {attr} is {own[0]!r} here and {value!r} there",
                            "model",
                        )
                elif own is None:
                    self.adopt(key, attr, value)
                elif not same:
                    merged = _merge_value(key, attr, own[0], value)
                    if merged is None:
                        raise att.error(
                            f"attach conflict with model '{att.raw['model']}' (compiler conflict="
                            f"'merge'): {key} {attr} is {own[0]!r} here and {value!r} there, and "
                            "MuJoCo does not merge this field",
                            "model",
                        )
                    self.adopt(key, attr, merged)

    def adopt(self, key, attr, value):
        """Write an <option> / <size> attribute (or option flag 'flag:<name>') into this model."""
        sec = self.container(key)
        if attr.startswith("flag:"):
            flags = sec.find("flag")
            if flags:
                flag = flags[-1]
            else:
                flag = Elem("flag", "flag", sec.file, sec.line, {}, sec)
                sec.children.append(flag)
            flag.raw[attr[5:]] = value
        else:
            sec.raw[attr] = value

    def merge_classes(self, sub, prefix, att):
        """The attached model's default classes under prefixed names (its elements keep their class)."""
        classes = self.doc.classes
        for name, cls in sub.classes.items():
            new = copy.copy(cls)
            new.name = prefix + name
            if new.name in classes:
                raise att.error(f"repeated default class name '{new.name}'", "prefix")
            classes[new.name] = new

    def copy_assets(self, sub, prefix, comp):
        """Every asset, numeric and text field of the attached model, names (and asset references) prefixed."""
        groups = (("asset", ("mesh", "skin", "hfield", "texture", "material")), ("custom", ("numeric", "text")))
        for sec_key, keys in groups:
            items = [e for s in sub.root.find(sec_key) for e in s.children if e.key in keys]
            if not items:
                continue
            target = self.container(sec_key)
            for e in items:
                new = deep_copy(e, target)
                name = e.get("name", "") or (_stem(e.get("file", "") or "") if e.key != "skin" else "")
                if name:
                    _set(new, "name", prefix + name)
                for attr in ("material", "texture"):
                    if e.get(attr):
                        _set(new, attr, prefix + e.get(attr))
                for b in new.children:
                    if b.key == "skin_bone" and b.get("body"):
                        _set(b, "body", prefix + b.get("body"))
                    if b.key == "material_layer" and b.get("texture"):
                        _set(b, "texture", prefix + b.get("texture"))
                _set_comp([new], comp, class_prefix=prefix)
                target.children.append(new)

    def copy_keys(self, sub, model, prefix, att):
        """Keyframes of the attached model as pending keys of this one (resolved by compiler.keyframe)."""
        keys = [e for s in sub.root.find("keyframe") for e in s.children]
        if not keys:
            return
        target = self.container("keyframe")
        for i, e in enumerate(keys):
            new = deep_copy(e, target)
            if e.get("name"):
                _set(new, "name", prefix + e.get("name"))
            new.extra = {"attached_key": (model, i, prefix, att)}
            target.children.append(new)

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
    raw = {"pos": " ".join(repr(float(x)) for x in pos), "quat": " ".join(repr(float(x)) for x in quat)}
    if "childclass" in rep.raw:
        raw["childclass"] = rep.raw["childclass"]
    # errors about the frame name the replicate it stands for
    origin = rep.origin or (
        "replicate",
        {a: ("replicate", a if a in rep.raw else None, rep.line) for a in ("pos", "quat", "childclass")},
    )
    return Elem("frame", "frame", rep.file, rep.line, raw, parent, origin)


def _rename_tree(els, prefix, suffix, other=False):
    """Namespace the names and intra-tree references of copied tree elements (mjCBase / mjCGeom / mjCSite /
    mjCCamera / mjCLight::NameSpace): materials, meshes and height fields are renamed only when the elements come
    from another model (`other`)."""
    for e in els:

        def rename(attr):
            v = e.get(attr) if e.dclass is not None else e.raw.get(attr)
            if v:
                _set(e, attr, prefix + v + suffix)

        if e.key in TREE_KINDS:
            rename("name")
        if e.key in ("camera", "light"):
            rename("target")
        if e.key == "light":
            rename("texture")
        if other and e.key in ("geom", "site"):
            rename("material")
        if other and e.key == "geom":
            rename("mesh")
            rename("hfield")
        _rename_tree(e.children, prefix, suffix, other)


def _int(el, attr):
    t = el.raw.get(attr)
    if t is None:
        raise el.error("missing required attribute", attr)
    toks = numbers.split(t)
    try:
        if len(toks) != 1:
            raise numbers.NumberError(t, "bad format")
        return numbers.integer(toks[0])
    except numbers.NumberError as e:
        raise el.error(f"invalid integer '{t}'" if e.reason == "bad format" else f"{e.reason}: '{t}'", attr) from None


def _floats(el, attr, n):
    t = el.raw.get(attr, "")
    if not numbers.split(t):
        return [0.0] * n
    try:
        vals = [numbers.real(x) for x in numbers.split(t)]
    except numbers.NumberError as e:
        raise el.error(f"invalid number in '{t}'" if e.reason == "bad format" else f"{e.reason}: '{t}'", attr) from None
    if not all(math.isfinite(v) for v in vals):
        raise el.error(
            f"non-finite number in '{t}' (numjoco does not simulate models with non-finite parameters)",
            attr,
            cls=UnsupportedError,
        )
    if len(vals) != n:
        raise el.error(f"expected {n} values, got {len(vals)}", attr)
    return vals


def compose(doc, degree, eulerseq, depth=0, read=None, compile_submodel=None):
    """Expand every <replicate> and <attach> of a parsed document in place.  read: the reader of attached model
    files (sim/mjcf/reader.py read); compile_submodel: Document -> (Model without constants, Context) of such a
    file (sim.compiler.compile_submodel, which sim.loader passes to the reader); None refuses <attach model>."""
    Composer(doc, degree, eulerseq, depth, read, compile_submodel).run()
    return doc
