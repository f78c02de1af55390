"""Differential accept / refuse checker: MuJoCo 3.17's verdict on generated MJCF documents is the oracle.

Every case is one small document: a fixed host model (SKELETON: named bodies, joints of every type, geoms,
sites, tendons, an actuator, a camera, a mesh, a height field, a material, a default class) with one element of
interest written into it.  The cases come from three generators:

    attribute_cases()   for every element of the grammar (MuJoCo's own schema, mujoco.mj_printSchema, joined with
                        numjoco's sim/mjcf/schema*.py) and every attribute of it, the element with that attribute
                        set to each value of its domain: every keyword of an enum, numbers of both signs, zero,
                        the attribute's default written out, too few / too many numbers, a word, nan / inf,
                        the empty string; names of existing and missing objects for references
    combination_cases() the redundant combinations real files carry: every pair of orientation forms (identity and
                        not), pos / size / orientation beside fromto for every geom and site type, every joint
                        attribute on every joint type (with autolimits on and off), every geom attribute on every
                        geom type, every actuator shortcut on every transmission and joint type, attributes in
                        <default> classes next to their alternatives on the element
    (both are deterministic: the same cases on every run)

`check(case)` loads the document in mujoco and numjoco (sim.load_model):

    both accept             agree; the compiled models are compared field by field (tests/oracle.py), a field
                            mismatch is a disagreement of its own ("fields")
    both refuse             agree; numjoco's sim.ModelError must name the file, the line and the element
                            (else "bad error")
    MuJoCo crashes or hangs, numjoco refuses    "undecided" (MuJoCo has no verdict; its child process is
                            killed and a fresh one takes the next case)
    mujoco accepts, numjoco raises sim.UnsupportedError     "unsupported": a feature numjoco parses and does not
                            simulate (allowed by the project's rules, counted apart)
    mujoco accepts, numjoco refuses     disagreement "numjoco refuses"
    mujoco refuses, numjoco accepts     disagreement "numjoco accepts"
    numjoco raises another exception   disagreement "crash"

Known disagreements (KNOWN below) are the ones documented in docs/reliability.md with MuJoCo's message and ours.

    python tests/accept_refuse.py [--subset] [--markdown] [--json FILE]     run the sweep, print the counts and
                                                                            every disagreement

tests/test_accept_refuse.py runs it under pytest: a fixed subset by default, every case under --full.
"""

import collections
import itertools
import os
import re
import sys
import warnings

import mujoco
import numpy as np

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
if TESTS_DIR not in sys.path:
    sys.path.insert(0, TESTS_DIR)
if os.path.dirname(TESTS_DIR) not in sys.path:
    sys.path.insert(0, os.path.dirname(TESTS_DIR))

import oracle  # noqa: E402
import sim  # noqa: E402
from sim.mjcf import reader, schema, schema_sections  # noqa: E402,F401  (reader registers the whole grammar)

# --------------------------------------------------------------------------------------------- the host model

# Sections of the document; a case replaces ('=') or extends ('+') one of them.  Names the cases refer to:
# bodies b1 (hinge1), b2 (slide2, child of b1), b3 (free3), b4 (ball4); geoms floor (plane), g1 (sphere), g2
# (capsule), g3 (box), g4 (capsule); sites ws (world), s1, s2, s3, s4; camera wcam; tendons ten1 (fixed),
# ten2 (spatial); actuator act1; mesh mesh, hfield hf, texture tex, material mat; default class cls.
BASE = {
    "compiler": "",
    "option": "",
    "size": "",
    "statistic": "",
    "visual": "",
    "extension": "",
    "default": '<default class="cls"><geom rgba="1 0 0 1"/><joint damping=".1"/></default>',
    "asset": (
        '<texture name="tex" type="2d" builtin="checker" width="8" height="8" rgb1="1 1 1" rgb2="0 0 0"/>'
        '<material name="mat" texture="tex"/>'
        '<mesh name="mesh" vertex="0 0 0  .1 0 0  0 .1 0  0 0 .1"/>'
        '<hfield name="hf" nrow="3" ncol="3" size="1 1 .1 .1"/>'
    ),
    "worldbody_attrs": "",
    "worldbody": (
        '<geom name="floor" type="plane" size="5 5 .1"/>'
        '<site name="ws" pos="0 0 .5"/>'
        '<camera name="wcam" pos="0 -3 1" xyaxes="1 0 0 0 1 2"/>'
        '<body name="b1" pos="0 0 1">'
        '<joint name="hinge1" axis="0 1 0"/><geom name="g1" size=".1"/><site name="s1" pos=".1 0 0"/>'
        '<body name="b2" pos="0 0 -.3">'
        '<joint name="slide2" type="slide" axis="0 0 1"/><geom name="g2" type="capsule" size=".05 .1"/>'
        '<site name="s2" pos="0 0 -.1"/></body></body>'
        '<body name="b3" pos="1 0 1"><freejoint name="free3"/><geom name="g3" type="box" size=".1 .1 .1"/>'
        '<site name="s3" pos="0 0 .1"/></body>'
        '<body name="b4" pos="-1 0 1"><joint name="ball4" type="ball"/>'
        '<geom name="g4" type="capsule" fromto="0 0 0 0 0 -.3" size=".05"/><site name="s4" pos="0 0 -.3"/></body>'
    ),
    "deformable": "",
    "contact": "",
    "tendon": (
        '<fixed name="ten1"><joint joint="hinge1" coef="1"/><joint joint="slide2" coef="-1"/></fixed>'
        '<spatial name="ten2"><site site="s1"/><site site="s3"/></spatial>'
    ),
    "equality": "",
    "actuator": '<motor name="act1" joint="hinge1"/>',
    "sensor": "",
    "keyframe": "",
    "custom": "",
}

ORDER = (
    "compiler",
    "option",
    "size",
    "statistic",
    "visual",
    "extension",
    "default",
    "asset",
    "worldbody",
    "deformable",
    "contact",
    "tendon",
    "equality",
    "actuator",
    "sensor",
    "keyframe",
    "custom",
)
# sections written as a whole element (replaced by a case); the others are wrapped in <tag>...</tag>
WHOLE = ("compiler", "option", "size", "statistic")


def document(**sections):
    """The host model with sections replaced: a value '+text' appends text to the section, any other replaces."""
    s = dict(BASE)
    for k, v in sections.items():
        s[k] = s[k] + v[1:] if v.startswith("+") else v
    parts = ["<mujoco>"]
    for k in ORDER:
        if k in WHOLE:
            parts.append(s[k])
        elif k == "worldbody":
            parts.append(f"<worldbody{s['worldbody_attrs']}>{s['worldbody']}</worldbody>")
        elif s[k]:
            parts.append(f"<{k}>{s[k]}</{k}>")
    parts.append("</mujoco>")
    return "\n".join(parts)


def attrs_text(attrs):
    """' a="v" b="w"' of a dict (None values left out)."""
    return "".join(f' {k}="{v}"' for k, v in attrs.items() if v is not None)


def el(tag, attrs, inner=""):
    a = attrs_text(attrs)
    return f"<{tag}{a}>{inner}</{tag}>" if inner else f"<{tag}{a}/>"


# --------------------------------------------------------------------------------------------- the grammar


def mujoco_schema():
    """{path: set of attribute names} of MuJoCo's MJCF grammar (mj_printSchema), paths like 'worldbody/body/geom'
    ('(world)body' is written twice: as 'worldbody' and as 'worldbody/body')."""
    text = mujoco.mj_printSchema(False, False)
    nodes = []
    for line in text.splitlines():
        if not line.strip():
            continue
        m = re.match(r"^( *)(\S+) \((.)\)\s*(.*)$", line)
        if m and len(m.group(1)) < 30:
            nodes.append([len(m.group(1)) // 3, m.group(2), set(m.group(4).split())])
        else:
            nodes[-1][2] |= set(line.split())
    tree = {}
    stack = []
    for depth, name, attrs in nodes:
        stack = stack[:depth] + [name]
        if depth == 0:
            continue
        path = "/".join(stack[1:])
        if "(world)body" in path:
            tree[path.replace("(world)body", "worldbody/body")] = attrs
            if path == "(world)body":
                tree["worldbody"] = attrs
        else:
            tree[path] = attrs
    return tree


def our_attrs(path):
    """{name: schema.Attr} numjoco declares for the element at `path`, or None when it declares none there."""
    key = "mujoco"
    for tag in path.split("/"):
        el_ = schema.ELEMENTS[key]
        if tag not in el_.children:
            return None
        key = el_.children[tag]
    return schema.ELEMENTS[key].attrs


def our_paths():
    """Paths of numjoco's grammar (one level of <default> nesting, bodies one deep)."""
    out = []

    def walk(key, path, depth):
        out.append(path)
        for tag, ck in schema.ELEMENTS[key].children.items():
            p = f"{path}/{tag}" if path else tag
            if depth > 5 or (tag in ("default", "body", "frame", "replicate") and tag in path.split("/")):
                continue
            walk(ck, p, depth + 1)

    walk("mujoco", "", 0)
    return [p for p in out if p]


def grammar():
    """{path: sorted attribute names}: MuJoCo's grammar joined with numjoco's (frame and replicate, which MuJoCo
    reads outside its printed schema, come from numjoco's)."""
    mt = mujoco_schema()
    out = {p: set(a) for p, a in mt.items()}
    for p in our_paths():
        attrs = our_attrs(p)
        if p in out or p.startswith(("worldbody/frame", "worldbody/replicate", "worldbody/body/")):
            if p in out or p.split("/")[-1] in ("frame", "replicate"):
                out.setdefault(p, set()).update(attrs)
    return {p: sorted(a) for p, a in sorted(out.items())}


# --------------------------------------------------------------------------------------------- element templates

# path -> (section, base attributes, function(attrs) -> section text).  The tested attribute overrides a base
# attribute of the same name.


def _body(inner, name="tb"):
    return f'+<body name="{name}" pos="0 2 1">{inner}</body>'


def _sensor_base(tag):
    if tag in ("touch", "accelerometer", "velocimeter", "gyro", "force", "torque", "magnetometer", "rangefinder"):
        return {"site": "s1"}
    if tag == "camprojection":
        return {"site": "s1", "camera": "wcam"}
    if tag in ("ballquat", "ballangvel"):
        return {"joint": "ball4"}
    if tag.startswith("joint"):
        return {"joint": "hinge1"}
    if tag.startswith("tendon"):
        return {"tendon": "ten1"}
    if tag.startswith("actuator"):
        return {"actuator": "act1"}
    if tag.startswith("frame"):
        return {"objtype": "body", "objname": "b1"}
    if tag.startswith("subtree"):
        return {"body": "b1"}
    if tag == "insidesite":
        return {"site": "s1", "objtype": "body", "objname": "b3"}
    if tag in ("distance", "normal", "fromto"):
        return {"geom1": "g1", "geom2": "g3"}
    if tag == "tactile":
        return {"geom": "g1", "mesh": "mesh"}
    if tag == "user":
        return {"dim": "1"}
    if tag == "plugin":
        return {"plugin": "mujoco.sensor.touch_grid"}
    return {}


def _actuator_base(tag):
    if tag == "adhesion":
        return {"body": "b1"}
    if tag == "orientation":
        return {"joint": "ball4"}
    if tag == "plugin":
        return {"plugin": "mujoco.pid", "joint": "hinge1"}
    return {"joint": "hinge1"}


def template(path):
    """(section, base attributes, make) for the element at path, or None when the checker has no host for it."""
    parts = path.split("/")
    tag = parts[-1]
    top = parts[0]
    if path in ("compiler", "option", "size", "statistic"):
        return top, {}, lambda a: el(tag, a)
    if path == "compiler/lengthrange":
        return "compiler", {}, lambda a: el("compiler", {}, el("lengthrange", a))
    if path == "option/flag":
        return "option", {}, lambda a: el("option", {}, el("flag", a))
    if top == "visual":
        return "visual", {}, lambda a: el(tag, a)
    if path == "default":
        return "default", {"class": "tc"}, lambda a: "+" + el("default", a, '<geom rgba="0 1 0 1"/>')
    if top == "default":
        inner = parts[1:]
        if inner == ["material", "layer"]:
            return (
                "default",
                {"texture": "tex", "role": "rgb"},
                lambda a: "+" + el("default", {"class": "tc"}, el("material", {}, el("layer", a))),
            )
        return "default", {}, lambda a: "+" + el("default", {"class": "tc"}, el(inner[0], a))
    if top == "asset":
        if path == "asset/mesh":
            return "asset", {"name": "tm", "vertex": "0 0 0 1 0 0 0 1 0 0 0 1"}, lambda a: "+" + el("mesh", a)
        if path == "asset/mesh/plugin":
            return "asset", {"plugin": "mujoco.sdf.torus"}, lambda a: "+" + el("mesh", {"name": "tm"}, el("plugin", a))
        if path == "asset/hfield":
            return "asset", {"name": "th", "nrow": "2", "ncol": "2", "size": "1 1 1 1"}, lambda a: "+" + el("hfield", a)
        if path == "asset/skin":
            return (
                "asset",
                {"name": "tsk", "vertex": "0 0 0 1 0 0 0 1 0", "face": "0 1 2"},
                lambda a: (
                    "+"
                    + el(
                        "skin",
                        a,
                        '<bone body="b1" bindpos="0 0 0" bindquat="1 0 0 0" vertid="0 1 2" vertweight="1 1 1"/>',
                    )
                ),
            )
        if path == "asset/skin/bone":
            return (
                "asset",
                {"body": "b1", "bindpos": "0 0 0", "bindquat": "1 0 0 0", "vertid": "0 1 2", "vertweight": "1 1 1"},
                lambda a: (
                    "+" + el("skin", {"name": "tsk", "vertex": "0 0 0 1 0 0 0 1 0", "face": "0 1 2"}, el("bone", a))
                ),
            )
        if path == "asset/texture":
            return (
                "asset",
                {"name": "tt", "builtin": "flat", "width": "4", "height": "4"},
                lambda a: "+" + el("texture", a),
            )
        if path == "asset/material":
            return "asset", {"name": "tmat"}, lambda a: "+" + el("material", a)
        if path == "asset/material/layer":
            return (
                "asset",
                {"texture": "tex", "role": "rgb"},
                lambda a: "+" + el("material", {"name": "tmat"}, el("layer", a)),
            )
        if path == "asset/model":
            return "asset", {"name": "tmod", "file": "missing.xml"}, lambda a: "+" + el("model", a)
        return None
    if path == "worldbody":
        return "worldbody_attrs", {}, lambda a: attrs_text(a)
    if top == "worldbody":
        rest = parts[1:]
        if rest == ["body"]:
            return "worldbody", {"name": "tb", "pos": "0 2 1"}, lambda a: "+" + el("body", a, '<geom size=".1"/>')
        if rest[0] != "body" and rest[0] not in ("frame", "replicate"):
            rest = ["body"] + rest  # an element allowed in the world body: tested inside a body
        if rest[0] == "frame":
            if len(rest) == 1:
                return (
                    "worldbody",
                    {"name": "tfr"},
                    lambda a: "+" + el("frame", a, '<body name="tb"><geom size=".1"/></body>'),
                )
            rest = ["body"] + rest[1:]
        if rest[0] == "replicate":
            if len(rest) == 1:
                return "worldbody", {"count": "2"}, lambda a: "+" + el("replicate", a, '<geom size=".1" pos=".5 2 1"/>')
            rest = ["body"] + rest[1:]
        sub = rest[1:]
        if not sub:
            return None
        if sub == ["inertial"]:
            return (
                "worldbody",
                {"pos": "0 0 0", "mass": "1", "diaginertia": ".1 .1 .1"},
                lambda a: _body(el("inertial", a) + '<geom size=".1"/>'),
            )
        if sub == ["joint"]:
            return "worldbody", {"name": "tj"}, lambda a: _body(el("joint", a) + '<geom size=".1"/>')
        if sub == ["freejoint"]:
            return "worldbody", {"name": "tj"}, lambda a: _body(el("freejoint", a) + '<geom size=".1"/>')
        if sub == ["geom"]:
            return "worldbody", {"name": "tg", "size": ".1"}, lambda a: _body(el("geom", a))
        if sub == ["geom", "plugin"]:
            return (
                "worldbody",
                {"plugin": "mujoco.sdf.torus"},
                lambda a: _body(el("geom", {"type": "sdf"}, el("plugin", a))),
            )
        if sub == ["site"]:
            return "worldbody", {"name": "ts"}, lambda a: _body('<geom size=".1"/>' + el("site", a))
        if sub == ["camera"]:
            return "worldbody", {"name": "tc"}, lambda a: _body('<geom size=".1"/>' + el("camera", a))
        if sub == ["light"]:
            return "worldbody", {"name": "tl"}, lambda a: _body('<geom size=".1"/>' + el("light", a))
        if sub == ["attach"]:
            return (
                "worldbody",
                {"model": "missing", "prefix": "p_"},
                lambda a: _body('<geom size=".1"/>' + el("attach", a)),
            )
        if sub == ["plugin"]:
            return (
                "worldbody",
                {"plugin": "mujoco.elasticity.cable"},
                lambda a: _body('<geom size=".1"/>' + el("plugin", a)),
            )
        if sub == ["composite"]:
            return (
                "worldbody",
                {"type": "cable", "count": "4 1 1", "curve": "s", "size": "1"},
                lambda a: _body(el("composite", a, '<geom type="capsule" size=".01"/>')),
            )
        if sub == ["flexcomp"]:
            return (
                "worldbody",
                {"name": "tfc", "type": "grid", "count": "2 2 1", "spacing": ".1 .1 .1", "dim": "2"},
                (lambda a: _body('<geom size=".1"/>' + el("flexcomp", a))),
            )
        if sub[0] in ("composite", "flexcomp") and len(sub) == 2:
            outer = (
                ("composite", {"type": "cable", "count": "4 1 1", "curve": "s", "size": "1"})
                if sub[0] == "composite"
                else ("flexcomp", {"name": "tfc", "type": "grid", "count": "2 2 1", "spacing": ".1 .1 .1", "dim": "2"})
            )
            return "worldbody", {}, lambda a: _body('<geom size=".1"/>' + el(outer[0], outer[1], el(sub[1], a)))
        return None
    if path == "deformable/skin":
        return (
            "deformable",
            {"name": "tsk", "vertex": "0 0 0 1 0 0 0 1 0", "face": "0 1 2"},
            lambda a: el(
                "skin", a, '<bone body="b1" bindpos="0 0 0" bindquat="1 0 0 0" vertid="0 1 2" vertweight="1 1 1"/>'
            ),
        )
    if path == "deformable/skin/bone":
        return (
            "deformable",
            {"body": "b1", "bindpos": "0 0 0", "bindquat": "1 0 0 0", "vertid": "0 1 2", "vertweight": "1 1 1"},
            lambda a: el("skin", {"name": "tsk", "vertex": "0 0 0 1 0 0 0 1 0", "face": "0 1 2"}, el("bone", a)),
        )
    if path == "deformable/flex":
        return (
            "deformable",
            {"name": "tfl", "dim": "1", "body": "b1 b3", "vertex": "0 0 0 0 0 0"},
            lambda a: el("flex", a),
        )
    if top == "deformable" and len(parts) == 3:
        return (
            "deformable",
            {},
            lambda a: el("flex", {"name": "tfl", "dim": "1", "body": "b1 b3", "vertex": "0 0 0 0 0 0"}, el(tag, a)),
        )
    if path == "contact/pair":
        return "contact", {"geom1": "g1", "geom2": "g3"}, lambda a: el("pair", a)
    if path == "contact/exclude":
        return "contact", {"body1": "b1", "body2": "b3"}, lambda a: el("exclude", a)
    if path == "tendon/spatial":
        return "tendon", {"name": "tt"}, lambda a: "+" + el("spatial", a, '<site site="s1"/><site site="s3"/>')
    if path == "tendon/spatial/site":
        return (
            "tendon",
            {"site": "s1"},
            lambda a: "+" + el("spatial", {"name": "tt"}, el("site", a) + '<site site="s3"/>'),
        )
    if path == "tendon/spatial/geom":
        return (
            "tendon",
            {"geom": "g1"},
            lambda a: "+" + el("spatial", {"name": "tt"}, '<site site="s2"/>' + el("geom", a) + '<site site="s3"/>'),
        )
    if path == "tendon/spatial/pulley":
        return (
            "tendon",
            {"divisor": "2"},
            lambda a: (
                "+"
                + el(
                    "spatial",
                    {"name": "tt"},
                    '<site site="s1"/><site site="s3"/>' + el("pulley", a) + '<site site="s1"/><site site="s2"/>',
                )
            ),
        )
    if path == "tendon/fixed":
        return "tendon", {"name": "tt"}, lambda a: "+" + el("fixed", a, '<joint joint="hinge1" coef="1"/>')
    if path == "tendon/fixed/joint":
        return "tendon", {"joint": "hinge1"}, lambda a: "+" + el("fixed", {"name": "tt"}, el("joint", a))
    if top == "equality":
        base = {
            "connect": {"body1": "b1", "body2": "b3", "anchor": "0 0 0"},
            "weld": {"body1": "b1", "body2": "b3"},
            "joint": {"joint1": "hinge1", "joint2": "slide2"},
            "tendon": {"tendon1": "ten1"},
        }.get(tag, {"flex": "tfl"})
        return "equality", base, lambda a: el(tag, a)
    if top == "actuator":
        if path == "actuator/plugin/config":
            return (
                "actuator",
                {"key": "kp", "value": "1"},
                lambda a: "+" + el("plugin", _actuator_base("plugin"), el("config", a)),
            )
        return "actuator", _actuator_base(tag), lambda a: "+" + el(tag, a)
    if top == "sensor":
        if len(parts) == 3:
            return (
                "sensor",
                {"key": "size", "value": "1"},
                lambda a: el("plugin", _sensor_base("plugin"), el("config", a)),
            )
        return "sensor", _sensor_base(tag), lambda a: el(tag, a)
    if path == "keyframe/key":
        return "keyframe", {"name": "tk"}, lambda a: el("key", a)
    if path == "custom/numeric":
        return "custom", {"name": "tn", "data": "1 2"}, lambda a: el("numeric", a)
    if path == "custom/text":
        return "custom", {"name": "ttx", "data": "abc"}, lambda a: el("text", a)
    if path == "custom/tuple":
        return "custom", {"name": "ttu"}, lambda a: el("tuple", a, '<element objtype="body" objname="b1" prm="1"/>')
    if path == "custom/tuple/element":
        return "custom", {"objtype": "body", "objname": "b1"}, lambda a: el("tuple", {"name": "ttu"}, el("element", a))
    if top == "extension":
        chain = [
            ("plugin", {"plugin": "mujoco.pid"}),
            ("instance", {"name": "ti"}),
            ("config", {"key": "kp", "value": "1"}),
        ]
        depth = len(parts) - 2
        if depth < 0:
            return None

        def make(a, depth=depth):
            inner = ""
            for k in range(depth, -1, -1):
                t, b = chain[k]
                inner = el(t, a if k == depth else b, inner)
            return inner

        return "extension", chain[depth][1], make
    return None


# --------------------------------------------------------------------------------------------- value domains

# references to objects of the host model: a valid name per attribute (the invalid one is "missing")
REFS = {
    "joint": "hinge1",
    "jointinparent": "hinge1",
    "joint1": "hinge1",
    "joint2": "slide2",
    "tendon": "ten1",
    "tendon1": "ten1",
    "tendon2": "ten2",
    "site": "s1",
    "refsite": "s3",
    "cranksite": "s1",
    "slidersite": "s2",
    "sidesite": "s2",
    "site1": "s1",
    "site2": "s3",
    "body": "b1",
    "body1": "b1",
    "body2": "b3",
    "subtree1": "b1",
    "subtree2": "b3",
    "geom": "g1",
    "geom1": "g1",
    "geom2": "g3",
    "actuator": "act1",
    "objname": "b1",
    "refname": "b3",
    "camera": "wcam",
    "target": "b3",
    "material": "mat",
    "texture": "tex",
    "mesh": "mesh",
    "hfield": "hf",
    "class": "cls",
    "childclass": "cls",
    "model": "missing",
}
NUMBERS_REAL = ("0", "1", "-1", "0.5", "abc", "nan", "inf", "")
NUMBERS_INT = ("0", "1", "-1", "3", "2.5", "abc", "")


def _numbers(kind, n, default):
    """Value strings of a numeric attribute with n (None: scalar) values."""
    base = NUMBERS_REAL if kind == "real" else NUMBERS_INT
    if n is None:
        out = list(base) + ["1 2"]
        return out
    lo, hi = n
    hi_ = hi if hi is not None else max(lo, 3)
    out = []
    for cnt in sorted({lo, hi_} - {0}):
        out.append(" ".join(["1"] * cnt))
        out.append(" ".join(["0"] * cnt))
        out.append(
            " ".join((["-1", "0.5", "2"] * 4)[:cnt]) if kind == "real" else " ".join((["-1", "2", "3"] * 4)[:cnt])
        )
    if hi is not None:
        out.append(" ".join(["1"] * (hi + 1)))
    if lo > 1:
        out.append(" ".join(["1"] * (lo - 1)))
    first = max(lo, 1)
    out.append(" ".join(["1"] * (first - 1) + ["abc"]))
    out.append(" ".join(["1"] * (first - 1) + ["nan"]))
    out.append("")
    return out


def values(path, name, attr):
    """Value strings to try for attribute `name` (numjoco's schema.Attr or None) of the element at path."""
    tag = path.split("/")[-1]
    if attr is None or attr.kind == "str":
        if name == "name":
            dup = {
                "body": "b1",
                "geom": "g1",
                "site": "s1",
                "joint": "hinge1",
                "camera": "wcam",
                "mesh": "mesh",
                "texture": "tex",
                "material": "mat",
                "hfield": "hf",
                "spatial": "ten1",
                "fixed": "ten2",
            }.get(tag, "act1")
            return ["tname", dup, ""]
        if name in REFS:
            v = REFS[name]
            if tag in ("ballquat", "ballangvel", "orientation") and name == "joint":
                v = "ball4"
            return [v, "missing", ""]
        if attr is None:
            return ["0", "1", "abc"]
        return ["abc", ""]
    if attr.kind in ("enum", "bool"):
        out = list(attr.enum) + ["bogus"]
        if attr.kind == "bool":
            out.append("1")
        return out
    n = None if attr.nmin is None else (attr.nmin, attr.nmax)
    out = _numbers(attr.kind, n, attr.default)
    d = attr.default
    if d is not None:
        dt = " ".join(f"{x:g}" for x in np.atleast_1d(d)) if not isinstance(d, (int, float)) else f"{d:g}"
        if dt not in out:
            out.insert(0, dt)
    return out


# Attributes shared by a family of elements (sensors; actuator shortcuts) are read by one code path: their whole
# domain is tried on the representatives, the other members get their own attributes' domains only.
SENSOR_SHARED = ("name", "nsample", "interp", "delay", "interval", "cutoff", "noise", "user")
SENSOR_REPRESENTATIVES = ("touch", "jointpos", "framepos", "contact", "user", "tactile", "clock", "camprojection")
ACTUATOR_REPRESENTATIVES = ("general", "motor", "position")


def _shared(path):
    """Attribute names of the element at path whose domains the family's representatives cover, or ()."""
    parts = path.split("/")
    tag = parts[-1]
    if parts[0] == "sensor" and len(parts) == 2 and tag not in SENSOR_REPRESENTATIVES:
        return SENSOR_SHARED
    if parts[0] in ("actuator", "default") and len(parts) == 2 and tag in schema_sections.ACTUATOR_TABLES:
        if tag in ACTUATOR_REPRESENTATIVES:
            return ()
        rep = set(schema_sections.ACTUATOR_TABLES["general"].split()) | set(
            schema_sections.ACTUATOR_TABLES["motor"].split()
        )
        return tuple(a for a in our_attrs(path) or {} if a in rep)
    return ()


def attribute_cases():
    """[(label, xml)] of every attribute of every element with a host template, each set to every value of its
    domain (shared attributes of a family on its representatives)."""
    out = []
    for path, names in grammar().items():
        t = template(path)
        if t is None:
            continue
        section, base, make = t
        ours = our_attrs(path) or {}
        shared = _shared(path)
        # the element as the template writes it, then every attribute on it
        out.append((f"{path}", document(**{section: make(dict(base))})))
        for name in names:
            if name in shared and name not in base:
                continue
            for v in values(path, name, ours.get(name)):
                a = dict(base)
                a[name] = v
                out.append((f"{path} {name}={v!r}", document(**{section: make(a)})))
    return out


# --------------------------------------------------------------------------------------------- combinations

ORIENT = {
    "quat": ("1 0 0 0", "0.8 0.2 0.4 0.4"),
    "axisangle": ("0 0 1 0", "1 1 0 30"),
    "xyaxes": ("1 0 0 0 1 0", "0 1 0 -1 0 1"),
    "zaxis": ("0 0 1", "1 0 1"),
    "euler": ("0 0 0", "10 20 30"),
}
GEOM_TYPES = ("plane", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "hfield", "sdf")
GEOM_SIZE = {
    "plane": "1 1 .1",
    "sphere": ".1",
    "capsule": ".1 .2",
    "ellipsoid": ".1 .2 .3",
    "cylinder": ".1 .2",
    "box": ".1 .2 .3",
    "mesh": None,
    "hfield": None,
    "sdf": None,
}
JOINT_TYPES = ("hinge", "slide", "ball", "free")


def _orientation_cases():
    out = []
    hosts = {
        "body": lambda a: {"worldbody": "+" + el("body", {"name": "tb", "pos": "0 2 1", **a}, '<geom size=".1"/>')},
        "geom": lambda a: {"worldbody": _body(el("geom", {"type": "box", "size": ".1 .2 .3", **a}))},
        "site": lambda a: {"worldbody": _body('<geom size=".1"/>' + el("site", a))},
        "camera": lambda a: {"worldbody": _body('<geom size=".1"/>' + el("camera", a))},
        "frame": lambda a: {"worldbody": "+" + el("frame", a, '<body name="tb"><geom size=".1"/></body>')},
        "inertial": lambda a: {
            "worldbody": _body(
                el("inertial", {"pos": "0 0 0", "mass": "1", "diaginertia": ".1 .2 .3", **a}) + '<geom size=".1"/>'
            )
        },
        "default geom": lambda a: {
            "default": "+" + el("default", {"class": "tc"}, el("geom", a)),
            "worldbody": _body('<geom class="tc" type="box" size=".1 .2 .3"/>'),
        },
        "default site": lambda a: {
            "default": "+" + el("default", {"class": "tc"}, el("site", a)),
            "worldbody": _body('<geom size=".1"/><site class="tc"/>'),
        },
        "default camera": lambda a: {
            "default": "+" + el("default", {"class": "tc"}, el("camera", a)),
            "worldbody": _body('<geom size=".1"/><camera class="tc"/>'),
        },
    }
    for host, make in hosts.items():
        for f in ORIENT:
            for v in ORIENT[f]:
                out.append((f"orientation {host} {f}={v!r}", document(**make({f: v}))))
        for f1, f2 in itertools.combinations(ORIENT, 2):
            for i, j in ((0, 0), (1, 1), (0, 1)):
                a = {f1: ORIENT[f1][i], f2: ORIENT[f2][j]}
                out.append((f"orientation {host} {f1}+{f2} {a}", document(**make(a))))
    # the element's form beside its class's (another form) and the default form written out
    for host in ("geom", "site", "camera"):
        for f1, f2 in itertools.permutations(ORIENT, 2):
            cls = el("default", {"class": "tc"}, el(host, {f1: ORIENT[f1][1]}))
            inner = {
                "geom": '<geom class="tc" type="box" size=".1 .2 .3" {a}/>',
                "site": '<geom size=".1"/><site class="tc" {a}/>',
                "camera": '<geom size=".1"/><camera class="tc" {a}/>',
            }[host]
            out.append(
                (
                    f"orientation {host} class {f1} + element {f2}",
                    document(default="+" + cls, worldbody=_body(inner.format(a=attrs_text({f2: ORIENT[f2][1]})[1:]))),
                )
            )
    return out


def _fromto_cases():
    out = []
    for t in GEOM_TYPES:
        extra = {"mesh": {"mesh": "mesh"}, "hfield": {"hfield": "hf"}}.get(t, {})
        for size in ("", ".05", ".05 .1", ".05 .1 .2"):
            for other in (
                {},
                {"pos": "0 0 0"},
                {"pos": ".1 0 0"},
                {"quat": "1 0 0 0"},
                {"euler": "10 0 0"},
                {"zaxis": "0 0 1"},
            ):
                a = {"type": t, **extra, "fromto": "0 0 0 0 0 .3", "size": size or None, **other}
                out.append((f"fromto geom {a}", document(worldbody=_body(el("geom", a)))))
        for other in ({}, {"pos": "0 0 0"}):
            a = {"type": t, **extra, "fromto": "0 0 0 0 0 0", "size": ".05", **other}
            out.append((f"fromto geom zero length {a}", document(worldbody=_body(el("geom", a)))))
    for t in ("sphere", "capsule", "ellipsoid", "cylinder", "box"):
        for size in ("", ".05", ".05 .1 .2"):
            for other in ({}, {"pos": "0 0 0"}, {"quat": "1 0 0 0"}):
                a = {"type": t, "fromto": "0 0 0 .1 0 .3", "size": size or None, **other}
                out.append((f"fromto site {a}", document(worldbody=_body('<geom size=".1"/>' + el("site", a)))))
    # fromto in a default class, pos on the element
    for t in ("capsule", "box", "sphere"):
        cls = el("default", {"class": "tc"}, el("geom", {"type": t, "fromto": "0 0 0 0 0 .3", "size": ".05"}))
        for a in ({}, {"pos": "0 0 0"}, {"pos": ".1 0 0"}, {"fromto": "0 0 0 .3 0 0"}, {"size": ".05 .1"}):
            out.append(
                (
                    f"fromto default {t} element {a}",
                    document(default="+" + cls, worldbody=_body(el("geom", {"class": "tc", **a}))),
                )
            )
    return out


JOINT_ATTRS = {
    "axis": ("0 0 1", "1 0 0"),
    "pos": ("0 0 0", ".1 0 0"),
    "range": ("0 0", "-1 1", "0 1"),
    "limited": ("true", "false", "auto"),
    "ref": ("0", ".5"),
    "springref": ("0", ".5"),
    "stiffness": ("0", "1"),
    "damping": ("0", "1"),
    "armature": ("0", ".1"),
    "frictionloss": ("0", ".1"),
    "margin": ("0", ".1"),
    "springdamper": ("0 0", ".1 1"),
    "actuatorfrcrange": ("0 0", "-1 1"),
    "actuatorfrclimited": ("true", "false", "auto"),
    "actuatorgravcomp": ("true", "false"),
    "solreflimit": (".02 1",),
    "solimplimit": (".9 .95 .001 .5 2",),
    "group": ("0", "2"),
    "user": ("1 2",),
}


def _joint_cases():
    out = []
    for jt in JOINT_TYPES:
        for auto in ("true", "false"):
            comp = el("compiler", {"autolimits": auto})
            out.append(
                (
                    f"joint {jt} autolimits={auto}",
                    document(compiler=comp, worldbody=_body(el("joint", {"type": jt}) + '<geom size=".1"/>')),
                )
            )
            for name, vals in JOINT_ATTRS.items():
                for v in vals:
                    out.append(
                        (
                            f"joint {jt} autolimits={auto} {name}={v!r}",
                            document(
                                compiler=comp, worldbody=_body(el("joint", {"type": jt, name: v}) + '<geom size=".1"/>')
                            ),
                        )
                    )
            for lim in ("true", "false", "auto"):
                for rng in ("-1 1", "1 -1", "0 0"):
                    out.append(
                        (
                            f"joint {jt} autolimits={auto} limited={lim} range={rng}",
                            document(
                                compiler=comp,
                                worldbody=_body(
                                    el("joint", {"type": jt, "limited": lim, "range": rng}) + '<geom size=".1"/>'
                                ),
                            ),
                        )
                    )
            # in a default class (every joint of the class gets it), then on a joint of that type
            for name in ("range", "limited", "axis", "springref", "stiffness", "ref"):
                cls = el("default", {"class": "tc"}, el("joint", {name: JOINT_ATTRS[name][-1]}))
                out.append(
                    (
                        f"joint {jt} autolimits={auto} class {name}",
                        document(
                            compiler=comp,
                            default="+" + cls,
                            worldbody=_body(el("joint", {"class": "tc", "type": jt}) + '<geom size=".1"/>'),
                        ),
                    )
                )
    # two joints in one body, every order of types
    for j1, j2 in itertools.product(JOINT_TYPES, repeat=2):
        out.append(
            (
                f"joints {j1} then {j2}",
                document(worldbody=_body(el("joint", {"type": j1}) + el("joint", {"type": j2}) + '<geom size=".1"/>')),
            )
        )
    for j in ("hinge", "ball"):
        out.append(
            (
                f"freejoint then {j}",
                document(worldbody=_body("<freejoint/>" + el("joint", {"type": j}) + '<geom size=".1"/>')),
            )
        )
    # free joints below the world body
    for jt in ("free", "ball"):
        out.append(
            (
                f"{jt} joint in a child body",
                document(
                    worldbody="+"
                    + el(
                        "body",
                        {"name": "tb", "pos": "0 2 1"},
                        '<joint/><geom size=".1"/>'
                        + el("body", {"name": "tc"}, el("joint", {"type": jt}) + '<geom size=".1"/>'),
                    )
                ),
            )
        )
        out.append(
            (
                f"freejoint in a child body {jt}",
                document(
                    worldbody="+"
                    + el(
                        "body",
                        {"name": "tb", "pos": "0 2 1"},
                        '<joint/><geom size=".1"/>' + el("body", {"name": "tc"}, '<freejoint/><geom size=".1"/>'),
                    )
                ),
            )
        )
    return out


GEOM_ATTRS = {
    "size": ("", ".1", ".1 .2", ".1 .2 .3", "0", "0 0 0"),
    "mesh": ("mesh",),
    "hfield": ("hf",),
    "fitscale": ("1", "1.2"),
    "fluidshape": ("ellipsoid", "none"),
    "fluidcoef": (".5 .25 1.5 1 1",),
    "mass": ("0", "1"),
    "density": ("0", "1000"),
    "shellinertia": ("true", "false"),
    "material": ("mat",),
    "condim": ("1", "3", "4", "6"),
    "priority": ("0", "1"),
    "margin": ("0", ".01"),
    "gap": ("0", ".01"),
    "solmix": ("1",),
    "surfacevel": ("0 0 0", "1 0 0"),
    "adhesion": ("0",),
}


def _geom_cases():
    out = []
    for t in GEOM_TYPES:
        base = {"type": t, "size": GEOM_SIZE[t]}
        out.append((f"geom {t}", document(worldbody=_body(el("geom", base)))))
        for name, vals in GEOM_ATTRS.items():
            for v in vals:
                a = {**base, name: v or None}
                out.append((f"geom {t} {name}={v!r}", document(worldbody=_body(el("geom", a)))))
        # a static geom of the type in the world body, and one in a default class
        out.append(
            (
                f"world geom {t}",
                document(
                    worldbody="+"
                    + el(
                        "geom",
                        {**base, "mesh": "mesh" if t == "mesh" else None, "hfield": "hf" if t == "hfield" else None},
                    )
                ),
            )
        )
        cls = el("default", {"class": "tc"}, el("geom", {"type": t}))
        out.append(
            (
                f"default geom type {t}",
                document(default="+" + cls, worldbody=_body(el("geom", {"class": "tc", "size": ".1"}))),
            )
        )
    for t in ("sphere", "box", "capsule"):
        for name, v in (("mass", "1"), ("density", "500")):
            out.append(
                (
                    f"geom {t} mass and density {name}",
                    document(
                        worldbody=_body(el("geom", {"type": t, "size": ".1 .1 .1", "mass": "1", "density": "500"}))
                    ),
                )
            )
    return out


TRANSMISSIONS = {
    "joint hinge": {"joint": "hinge1"},
    "joint slide": {"joint": "slide2"},
    "joint ball": {"joint": "ball4"},
    "joint free": {"joint": "free3"},
    "jointinparent hinge": {"jointinparent": "hinge1"},
    "jointinparent ball": {"jointinparent": "ball4"},
    "tendon fixed": {"tendon": "ten1"},
    "tendon spatial": {"tendon": "ten2"},
    "site": {"site": "s1"},
    "site refsite": {"site": "s1", "refsite": "s3"},
    "slidercrank": {"cranksite": "s1", "slidersite": "s2", "cranklength": ".5"},
    "body": {"body": "b1"},
    "none": {},
    "joint and tendon": {"joint": "hinge1", "tendon": "ten1"},
}
SHORTCUT_EXTRA = {
    "general": ({}, {"gaintype": "affine", "biastype": "affine", "dyntype": "filter", "dynprm": ".1"}),
    "motor": ({}, {"ctrlrange": "-1 1"}),
    "position": (
        {},
        {"kp": "10", "kv": "1"},
        {"kp": "10", "dampratio": "1"},
        {"kv": "1", "dampratio": "1"},
        {"inheritrange": "1"},
        {"inheritrange": "1", "ctrlrange": "-1 1"},
        {"timeconst": ".1"},
    ),
    "velocity": ({}, {"kv": "2"}),
    "intvelocity": ({}, {"actrange": "-1 1"}, {"inheritrange": ".5"}, {"actlimited": "false"}),
    "damper": ({}, {"kv": "1", "ctrlrange": "0 1"}),
    "cylinder": ({}, {"area": ".1", "diameter": ".2"}),
    "muscle": ({}, {"lengthrange": ".1 .5"}, {"range": ".5 1.5", "force": "10"}),
    "adhesion": ({}, {"gain": "2", "ctrlrange": "0 1"}),
    "orientation": ({},),
    "pid": ({},),
    "dcmotor": ({}, {"motorconst": ".1", "resistance": "2", "inductance": ".001"}, {"nominal": "12 .5 100"}),
}


def _actuator_cases():
    out = []
    for tag, extras in SHORTCUT_EXTRA.items():
        for tname, trn in TRANSMISSIONS.items():
            for extra in extras:
                a = {"name": "ta", **trn, **extra}
                out.append((f"actuator {tag} {tname} {extra}", document(actuator="+" + el(tag, a))))
    # a shortcut's parameters in a default class, another shortcut on the element
    for t1, t2 in itertools.permutations(("motor", "position", "velocity", "intvelocity", "general"), 2):
        cls = el("default", {"class": "tc"}, el(t1, {"gear": "2", "ctrlrange": "-1 1"}))
        out.append(
            (
                f"actuator class {t1} element {t2}",
                document(default="+" + cls, actuator="+" + el(t2, {"class": "tc", "joint": "hinge1"})),
            )
        )
    # limits: *limited without a range, a range with limited false / auto, autolimits off
    for auto in ("true", "false"):
        comp = el("compiler", {"autolimits": auto})
        for lim in ("ctrl", "force", "act"):
            for ltd in (None, "true", "false", "auto"):
                for rng in (None, "-1 1", "1 -1"):
                    a = {
                        "name": "ta",
                        "joint": "hinge1",
                        "dyntype": "integrator" if lim == "act" else None,
                        f"{lim}limited": ltd,
                        f"{lim}range": rng,
                    }
                    out.append(
                        (
                            f"actuator autolimits={auto} {lim}limited={ltd} {lim}range={rng}",
                            document(compiler=comp, actuator="+" + el("general", a)),
                        )
                    )
    return out


def _tendon_cases():
    out = []
    for auto in ("true", "false"):
        comp = el("compiler", {"autolimits": auto})
        for kind, inner in (
            ("fixed", '<joint joint="hinge1" coef="1"/>'),
            ("spatial", '<site site="s1"/><site site="s3"/>'),
        ):
            for ltd in (None, "true", "false", "auto"):
                for rng in (None, "0 1", "1 0", "0 0"):
                    a = {"name": "tt", "limited": ltd, "range": rng}
                    out.append(
                        (
                            f"tendon {kind} autolimits={auto} limited={ltd} range={rng}",
                            document(compiler=comp, tendon="+" + el(kind, a, inner)),
                        )
                    )
            for name, v in (
                ("springlength", "0 1"),
                ("springlength", "1"),
                ("stiffness", "1"),
                ("damping", "1"),
                ("frictionloss", ".1"),
                ("armature", ".1"),
                ("actuatorfrcrange", "-1 1"),
                ("actuatorfrclimited", "true"),
                ("width", ".01"),
                ("material", "mat"),
                ("rgba", "1 0 0 1"),
            ):
                out.append(
                    (
                        f"tendon {kind} autolimits={auto} {name}={v}",
                        document(compiler=comp, tendon="+" + el(kind, {"name": "tt", name: v}, inner)),
                    )
                )
    # spatial paths: sites only, a wrapping geom of each type, a sidesite, pulleys
    for t, g in (("sphere", "g1"), ("capsule", "g2"), ("box", "g3"), ("cylinder", None)):
        if g is None:
            continue
        for side in (None, "s2", "s1"):
            inner = '<site site="s1"/>' + el("geom", {"geom": g, "sidesite": side}) + '<site site="s3"/>'
            out.append(
                (f"tendon wrap {t} sidesite={side}", document(tendon="+" + el("spatial", {"name": "tt"}, inner)))
            )
    for inner in (
        '<site site="s1"/>',
        '<geom geom="g1"/><site site="s1"/>',
        '<site site="s1"/><geom geom="g1"/>',
        '<pulley divisor="1"/><site site="s1"/><site site="s3"/>',
        '<site site="s1"/><site site="s1"/>',
    ):
        out.append((f"tendon spatial path {inner}", document(tendon="+" + el("spatial", {"name": "tt"}, inner))))
    return out


def _default_cases():
    """An attribute set in a default class beside an alternative set on the element (each side given once)."""
    out = []
    pairs = [
        ("geom", {"size": ".1 .2 .3"}, {"fromto": "0 0 0 0 0 .3"}, {"type": "box"}),
        ("geom", {"fromto": "0 0 0 0 0 .3"}, {"size": ".1"}, {"type": "capsule"}),
        ("geom", {"mass": "1"}, {"density": "300"}, {"type": "sphere", "size": ".1"}),
        ("geom", {"density": "300"}, {"mass": "1"}, {"type": "sphere", "size": ".1"}),
        ("geom", {"quat": "0 1 0 0"}, {"euler": "10 0 0"}, {"type": "box", "size": ".1 .1 .1"}),
        ("geom", {"type": "mesh"}, {"mesh": "mesh"}, {}),
        ("geom", {"mesh": "mesh"}, {"type": "sphere", "size": ".1"}, {}),
        ("joint", {"range": "-1 1"}, {"limited": "false"}, {}),
        ("joint", {"limited": "true"}, {"range": "-1 1"}, {}),
        ("joint", {"type": "ball"}, {"axis": "1 0 0"}, {}),
        ("joint", {"type": "free"}, {"range": "0 1"}, {}),
        ("joint", {"stiffness": "1"}, {"springdamper": ".1 1"}, {}),
        ("site", {"fromto": "0 0 0 0 0 .3"}, {"pos": "0 0 0"}, {"type": "capsule", "size": ".01"}),
        ("camera", {"mode": "targetbody"}, {"target": "b3"}, {}),
        ("camera", {"fovy": "60"}, {"focal": "1 1", "sensorsize": "1 1", "resolution": "100 100"}, {}),
        ("light", {"mode": "targetbody"}, {"target": "b3"}, {}),
        ("light", {"directional": "true"}, {"type": "spot"}, {}),
    ]
    hosts = {
        "geom": lambda a: _body(el("geom", a)),
        "joint": lambda a: _body(el("joint", a) + '<geom size=".1"/>'),
        "site": lambda a: _body('<geom size=".1"/>' + el("site", a)),
        "camera": lambda a: _body('<geom size=".1"/>' + el("camera", a)),
        "light": lambda a: _body('<geom size=".1"/>' + el("light", a)),
    }
    for tag, in_class, on_elem, common in pairs:
        for cls_attrs, el_attrs in ((in_class, on_elem), (on_elem, in_class), ({}, {**in_class, **on_elem})):
            cls = el("default", {"class": "tc"}, el(tag, {**common, **cls_attrs}))
            out.append(
                (
                    f"default {tag} class {cls_attrs} element {el_attrs}",
                    document(default="+" + cls, worldbody=hosts[tag]({"class": "tc", **el_attrs})),
                )
            )
    # the same attribute in nested classes and childclass
    for tag in ("geom", "joint", "site"):
        cls = (
            '<default class="tc">'
            + el(tag, {"group": "1"})
            + '<default class="td">'
            + el(tag, {"group": "2"})
            + "</default></default>"
        )
        for host in (
            '<body name="tb" pos="0 2 1" childclass="td">{x}</body>',
            '<body name="tb" pos="0 2 1">{x}</body>',
        ):
            x = {
                "geom": '<geom size=".1" class="tc"/>',
                "joint": '<joint/><geom size=".1"/>',
                "site": '<geom size=".1"/><site/>',
            }[tag]
            out.append(
                (f"default nested {tag} {host[:40]}", document(default="+" + cls, worldbody="+" + host.format(x=x)))
            )
    return out


def combination_cases():
    """[(label, xml)] of the redundant combinations (see the module docstring)."""
    return (
        _orientation_cases()
        + _fromto_cases()
        + _joint_cases()
        + _geom_cases()
        + _actuator_cases()
        + _tendon_cases()
        + _default_cases()
    )


def all_cases():
    """Every case, duplicates (the same document) dropped, in a fixed order."""
    seen = set()
    out = []
    for label, xml in attribute_cases() + combination_cases():
        if xml in seen:
            continue
        seen.add(xml)
        out.append((label, xml))
    return out


def subset(cases, n):
    """n cases spread evenly over the list (every k-th), always the same ones."""
    if len(cases) <= n:
        return list(cases)
    step = len(cases) / n
    return [cases[int(i * step)] for i in range(n)]


# --------------------------------------------------------------------------------------------- verdicts

# mujoco refusals that are about the machine, not the model (see tests/fuzz_models.py)
UNDECIDED = (
    "Could not allocate memory",
    "could not allocate mjData arena",
    "mj_stackAlloc: out of memory",
    "MuJoCo did not return",
    "MuJoCo crashed",
)

Result = collections.namedtuple("Result", "label outcome mujoco ours detail")


# MuJoCo errors after which its process is not reused: after "Caught an unknown exception!" (e.g. a <connect>
# with an empty anchor) the next load of a valid document in the same process never returns (MuJoCo 3.17)
POISONING = ("unknown exception",)

MUJOCO_TIMEOUT = 30.0  # seconds: some documents make MuJoCo's compiler loop (it is then "undecided")


def _mujoco_verdict(xml):
    """(True, '') when MuJoCo compiles the document, else (False, its error text)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mujoco.MjModel.from_xml_string(xml)
        return True, ""
    except (ValueError, RuntimeError, mujoco.FatalError) as e:  # RuntimeError: an exception MuJoCo did not type
        return False, " ".join(f"{type(e).__name__}: {e}".split())


def _worker(conn):
    while True:
        xml = conn.recv()
        if xml is None:
            return
        conn.send(_mujoco_verdict(xml))


class _MujocoProcess:
    """MuJoCo's verdicts from a child process, so that a document on which it does not return can be timed out."""

    def __init__(self):
        self.proc = None

    def verdict(self, xml):
        import multiprocessing

        if self.proc is None or not self.proc.is_alive():
            ctx = multiprocessing.get_context("fork")
            self.conn, child = ctx.Pipe()
            self.proc = ctx.Process(target=_worker, args=(child,), daemon=True)
            self.proc.start()
        self.conn.send(xml)
        try:
            if self.conn.poll(MUJOCO_TIMEOUT):
                out = self.conn.recv()
                if not out[0] and any(p in out[1] for p in POISONING):
                    self.close()  # the next document gets a fresh MuJoCo
                return out
            why = f"MuJoCo did not return within {MUJOCO_TIMEOUT:g} s"
        except EOFError:  # the child died: MuJoCo aborted or crashed on the document
            self.proc.join()
            why = f"MuJoCo crashed (exit code {self.proc.exitcode})"
        self.close()
        return None, why

    def close(self):
        """End the child process (a new one starts with the next verdict)."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.join()
            self.proc = None


_MUJOCO = _MujocoProcess()


def load_mujoco(xml):
    """(MjModel or None, error text); the verdict comes from a child process (a hang becomes 'undecided')."""
    ok, err = _MUJOCO.verdict(xml)
    if not ok:
        return None, err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mujoco.MjModel.from_xml_string(xml), ""


def load_ours(xml):
    """(Model or None, exception or None)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return sim.load_model(xml), None
    except Exception as e:  # noqa: BLE001  (classified by check: anything but ModelError is a disagreement)
        return None, e


def _error_ok(err):
    """A refusal names the file, the line and the element (and the attribute where one is at fault: not checked
    here, a refusal of a whole element has none)."""
    return err.file is not None and err.line is not None and err.element is not None and bool(err.message)


def check(label, xml, compare=True):
    """Result of one case: outcome one of 'accept', 'refuse', 'unsupported', 'undecided' (agreements) or
    'numjoco refuses', 'numjoco accepts', 'crash', 'fields', 'bad error' (disagreements); 'undecided' only when
    MuJoCo gives no verdict and numjoco refuses (numjoco accepting a document MuJoCo crashes on is a disagreement)."""
    theirs, terr = load_mujoco(xml)
    ours, oerr = load_ours(xml)
    oerr_text = "" if oerr is None else f"{type(oerr).__name__}: {oerr}"
    if oerr is not None and not isinstance(oerr, sim.ModelError):
        return Result(label, "crash", terr, oerr_text, "")
    if theirs is None:
        if any(u in terr for u in UNDECIDED) and ours is None:
            # MuJoCo has no verdict (it crashed or hung): refusing is the only answer that does not crash
            return Result(label, "undecided", terr, oerr_text, "")
        if ours is not None:
            return Result(label, "numjoco accepts", terr, "", "")
        if not _error_ok(oerr):
            return Result(label, "bad error", terr, oerr_text, "")
        return Result(label, "refuse", terr, oerr_text, "")
    if ours is None:
        if isinstance(oerr, sim.UnsupportedError):
            return Result(label, "unsupported", "", oerr_text, "")
        return Result(label, "numjoco refuses", "", oerr_text, "")
    if compare:
        mism = oracle.compare_models(ours, theirs)
        if mism:
            return Result(label, "fields", "", "", "; ".join(m[:200] for m in mism[:4]))
    return Result(label, "accept", "", "", "")


AGREE = ("accept", "refuse", "unsupported", "undecided")

# Disagreements left, each documented in docs/reliability.md ("Accept / refuse against MuJoCo"): label prefix ->
# the reason.  A case whose label starts with one of these may disagree; every other case must agree.
KNOWN = {}


def known(label):
    """The reason of a documented disagreement covering this case, or None."""
    for prefix, why in KNOWN.items():
        if label.startswith(prefix):
            return why
    return None


def run(cases, compare=True, progress=False):
    """[Result] of the cases."""
    out = []
    for i, (label, xml) in enumerate(cases):
        out.append(check(label, xml, compare))
        if progress and (i + 1) % 500 == 0:
            print(f"  {i + 1}/{len(cases)}", file=sys.stderr, flush=True)
    return out


def summary(results):
    """{outcome: count}."""
    return dict(collections.Counter(r.outcome for r in results))


def _markdown(results):
    lines = ["| case | outcome | MuJoCo | numjoco |", "|---|---|---|---|"]
    for r in results:
        if r.outcome in AGREE:
            continue
        cell = lambda s: s.replace("|", "\\|")[:300]  # noqa: E731
        lines.append(f"| `{cell(r.label)}` | {r.outcome} | {cell(r.mujoco)} | {cell(r.ours or r.detail)} |")
    return "\n".join(lines)


def main(argv):
    cases = all_cases()
    if "--subset" in argv:
        cases = subset(cases, 400)
    print(f"{len(cases)} cases", file=sys.stderr)
    results = run(cases, progress=True)
    counts = summary(results)
    print(counts)
    bad = [r for r in results if r.outcome not in AGREE]
    for r in bad:
        print(f"[{r.outcome}] {r.label}\n    mujoco: {r.mujoco[:300]}\n    ours:   {(r.ours or r.detail)[:300]}")
    if "--markdown" in argv:
        print(_markdown(results))
    if "--json" in argv:
        import json

        with open(argv[argv.index("--json") + 1], "w") as f:
            json.dump([r._asdict() for r in results], f)
    return counts


if __name__ == "__main__":
    main(sys.argv[1:])
