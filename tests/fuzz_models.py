"""Hypothesis strategies for fuzzing the MJCF / URDF loaders, and the property every input must satisfy.

    mutated_mjcf()      a valid corpus model (Gymnasium's MuJoCo assets, tests/models/*.xml) with one to three
                        mutations: attribute values out of range or of the wrong type (empty, NaN, inf, huge,
                        words, too many / too few numbers, odd unicode digits), attributes removed or added
                        (unknown ones, ones of another element), elements duplicated (repeated names), removed
                        (broken references), moved, renamed; references redirected, default-class and include
                        cycles, huge sizes (<size>, <replicate count>), truncated text, stray text / comments /
                        CDATA / entities, and the document re-encoded (UTF-8 BOM, UTF-16, Latin-1, NUL bytes)
    generated_mjcf()    a random valid model of tests/mjcf_gen.py (seed drawn by hypothesis)
    mutated_urdf(), generated_urdf()    the same for URDF robots (tests/assets/urdf, tests/urdf_gen.py)

    check_input(case)   the property (see its docstring), returns a short outcome tag for statistics

An input is a `Case`: the document (str, or bytes for the encodings), the directory its relative file names
resolve against, in-memory assets, and a description of the mutations (hypothesis prints it on failure).
Every input goes to mujoco (the oracle) and to numjoco the same way: from a string plus assets, with the
working directory set to the model's folder for its mesh / texture / include files.
"""

import contextlib
import copy
import os
import threading
import time
import warnings
import xml.etree.ElementTree as ET

import numpy as np
from numba.core import event as numba_event
from hypothesis import strategies as st

import mujoco

import sim
from sim import api as smooth_api
from sim.jit.features import (
    F_CYLBOX,
    F_DIAGEXACT,
    F_ELLIPTIC,
    F_ENERGY,
    F_EQUALITY,
    F_FLUID,
    F_FWDINV,
    F_SPARSE,
    F_TENDON,
    F_TRN,
)
from sim.mjcf import schema

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
MODELS_DIR = os.path.join(TESTS_DIR, "models")
URDF_DIR = os.path.join(TESTS_DIR, "assets", "urdf")
HANG_SECONDS = 10.0  # the bound for one input (load + a few steps), compile time excluded
NSTEP = 20  # steps per accepted model


def _corpus():
    """[(name, directory, text)] of the valid MJCF models the mutations start from."""
    from conftest import gymnasium_assets_dir

    out = []
    dirs = [MODELS_DIR] + ([gymnasium_assets_dir()] if gymnasium_assets_dir() else [])
    for d in dirs:
        for fn in sorted(os.listdir(d)):
            if fn.endswith(".xml"):
                with open(os.path.join(d, fn), encoding="utf-8") as f:
                    out.append((fn, d, f.read()))
    return out


CORPUS = _corpus()
URDF_CORPUS = [
    (fn, URDF_DIR, open(os.path.join(URDF_DIR, fn), encoding="utf-8").read())
    for fn in sorted(os.listdir(URDF_DIR))
    if fn.endswith(".urdf")
]

# attribute names per tag from numjoco's schema (for "attribute of another element" / "missing attribute")
TAG_ATTRS = {}
for _el in schema.ELEMENTS.values():
    TAG_ATTRS.setdefault(_el.tag, set()).update(_el.attrs)
ALL_ATTRS = sorted(set().union(*TAG_ATTRS.values()))
ALL_TAGS = sorted(TAG_ATTRS)
URDF_TAGS = [
    "robot",
    "link",
    "joint",
    "inertial",
    "origin",
    "mass",
    "inertia",
    "visual",
    "collision",
    "geometry",
    "box",
    "cylinder",
    "sphere",
    "mesh",
    "material",
    "color",
    "parent",
    "child",
    "axis",
    "limit",
    "dynamics",
    "mujoco",
    "compiler",
]
URDF_ATTRS = [
    "name",
    "xyz",
    "rpy",
    "value",
    "ixx",
    "ixy",
    "ixz",
    "iyy",
    "iyz",
    "izz",
    "size",
    "radius",
    "length",
    "filename",
    "scale",
    "rgba",
    "link",
    "type",
    "lower",
    "upper",
    "effort",
    "velocity",
    "damping",
    "friction",
]
REF_ATTRS = (
    "joint",
    "joint1",
    "joint2",
    "body",
    "body1",
    "body2",
    "geom",
    "geom1",
    "geom2",
    "site",
    "class",
    "childclass",
    "material",
    "mesh",
    "texture",
    "hfield",
    "tendon",
    "tendon1",
    "actuator",
    "objname",
    "refsite",
    "target",
    "link",
    "site1",
    "site2",
    "cranksite",
    "slidersite",
    "sidesite",
)

# attribute values: out of range, wrong type, empty, non-finite, huge, odd characters
BAD_VALUES = [
    "",
    " ",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "-1",
    "0",
    "-0",
    "1e308",
    "-1e308",
    "1e-320",
    "1e400",
    "abc",
    "true",
    "false",
    "auto",
    "1 2",
    "1 2 3 4 5 6 7 8 9 10 11 12 13",
    "0x10",
    "1,2,3",
    "+1",
    ".5",
    "5.",
    "1e",
    "--1",
    "1..2",
    "99999999999999999999",
    "-2147483649",
    "2147483648",
    "\u0661\u0662",
    "\u00bd",
    "\uff11",
    "1\u00a02",
    "\t1\n2\r3",
    "e5",
    "1e+5",
    "1E5",
    "infinity",
    "-nan",
    "none",
    "world",
    "x" * 300,
]
# huge <size> values MuJoCo refuses at once (its allocation fails, or the number is beyond int32).  Not here:
# nkey / nuser_* of 1e9, which MuJoCo 3.17 itself accepts but takes minutes to compile (nkey=1e5: 26 s)
HUGE_SIZES = [
    ("size", "njmax", "2000000000"),
    ("size", "nconmax", "2000000000"),
    ("size", "memory", "1T"),
    ("size", "memory", "-1"),
    ("size", "nstack", "99999999999"),
    ("size", "nuserdata", "100000000000"),
    ("size", "nkey", "3000000000"),
    ("size", "nuser_body", "-2"),
    ("size", "memory", "1E"),
]


class Case:
    """One fuzz input: document text or bytes, base directory, assets, and what was done to it."""

    def __init__(self, doc, directory, assets=None, what=(), kind="mjcf"):
        self.doc = doc
        self.directory = directory
        self.assets = assets or {}
        self.what = tuple(what)
        self.kind = kind

    def __repr__(self):
        head = self.doc if isinstance(self.doc, str) else repr(self.doc[:4000])
        return (
            f"Case({self.kind}, dir={os.path.basename(self.directory)}, what={list(self.what)}, "
            f"assets={sorted(self.assets)})\n{head[:4000]}"
        )


# ------------------------------------------------------------------------------------------ tree mutations


def _elements(root):
    return [e for e in root.iter() if isinstance(e.tag, str)]


def _parent_map(root):
    return {c: p for p in root.iter() for c in p}


def _names(root):
    return sorted({e.get("name") for e in root.iter() if e.get("name")})


@st.composite
def _mutate_tree(draw, root, urdf=False):
    """Apply one tree mutation to root (in place); returns its description."""
    els = _elements(root)
    parents = _parent_map(root)
    op = draw(
        st.sampled_from(
            [
                "set",
                "set",
                "set",
                "del_attr",
                "add_attr",
                "dup",
                "dup",
                "remove",
                "move",
                "retag",
                "ref",
                "scale",
                "tokens",
            ]
            + ([] if urdf else ["default_cycle", "huge"])
        )
    )
    el = draw(st.sampled_from(els))
    attrs = sorted(el.attrib)
    if op == "set" or (op in ("del_attr", "scale", "tokens") and not attrs):
        name = (
            draw(st.sampled_from(attrs))
            if attrs and draw(st.booleans())
            else draw(
                st.sampled_from(sorted(TAG_ATTRS.get(el.tag, ())) or ALL_ATTRS)
                if not urdf
                else st.sampled_from(URDF_ATTRS)
            )
        )
        val = draw(
            st.sampled_from(BAD_VALUES)
            | st.floats(allow_nan=True, allow_infinity=True).map(repr)
            | st.integers(-(2**70), 2**70).map(str)
            | st.text(max_size=8)
        )
        el.set(name, val)
        return f"<{el.tag}> {name}={val!r}"
    if op == "del_attr":
        name = draw(st.sampled_from(attrs))
        del el.attrib[name]
        return f"<{el.tag}> del {name}"
    if op == "add_attr":
        name = draw(st.sampled_from(URDF_ATTRS if urdf else ALL_ATTRS) | st.sampled_from(["foo", "Name", "xmlns"]))
        val = draw(st.sampled_from(["0", "1", "0 0 1", "a", "true"]))
        el.set(name, val)
        return f"<{el.tag}> add {name}={val!r}"
    if op == "scale":
        name = draw(st.sampled_from(attrs))
        f = draw(st.sampled_from([0.0, -1.0, 1e-12, 1e12, 1e300, -1e-300, 3.0]))
        toks = el.get(name).split()
        try:
            el.set(name, " ".join(repr(float(t) * f) for t in toks))
        except ValueError:
            el.set(name, el.get(name) + " " + repr(f))
        return f"<{el.tag}> {name} *= {f}"
    if op == "tokens":
        name = draw(st.sampled_from(attrs))
        toks = el.get(name).split()
        if toks and draw(st.booleans()):
            toks.pop(draw(st.integers(0, len(toks) - 1)))
        else:
            toks.insert(draw(st.integers(0, len(toks))), draw(st.sampled_from(["0", "1", "-1", "1e9", "nan"])))
        el.set(name, " ".join(toks))
        return f"<{el.tag}> {name} tokens -> {' '.join(toks)!r}"
    if op in ("dup", "remove", "move") and el is root:
        op = "retag"
    if op == "dup":
        p = parents[el]
        p.insert(list(p).index(el) + 1, copy.deepcopy(el))
        return f"duplicate <{el.tag} name={el.get('name')!r}>"
    if op == "remove":
        parents[el].remove(el)
        return f"remove <{el.tag} name={el.get('name')!r}>"
    if op == "move":
        target = draw(st.sampled_from([e for e in els if e is not el and el not in e.iter()] or [root]))
        if el in list(target.iter()):
            return "move (no-op)"
        parents[el].remove(el)
        target.append(el)
        return f"move <{el.tag}> into <{target.tag}>"
    if op == "retag":
        new = draw(st.sampled_from(URDF_TAGS if urdf else ALL_TAGS) | st.sampled_from(["foo", "Body", "include"]))
        old, el.tag = el.tag, new
        return f"retag <{old}> -> <{new}>"
    if op == "ref":
        names = _names(root)
        cand = [a for a in attrs if a in REF_ATTRS] or attrs or ["name"]
        name = draw(st.sampled_from(cand))
        val = draw(st.sampled_from(names + ["nosuchname", "", "world"]) if names else st.just("nosuchname"))
        el.set(name, val)
        return f"<{el.tag}> {name} -> {val!r}"
    if op == "default_cycle":
        d = root.find("default")
        if d is None:
            d = ET.Element("default")
            root.insert(0, d)
        cls = draw(st.sampled_from(["main", "a", "b"]))
        inner = ET.SubElement(d, "default", {"class": cls})
        if draw(st.booleans()):
            ET.SubElement(inner, "default", {"class": cls})  # a class inside itself
        target = draw(st.sampled_from(els))
        target.set(draw(st.sampled_from(["class", "childclass"])), draw(st.sampled_from([cls, "undefined"])))
        return f"default class {cls!r} nested / referenced from <{target.tag}>"
    # huge sizes
    kind = draw(st.integers(0, 2))
    if kind == 0:
        tag, name, val = draw(st.sampled_from(HUGE_SIZES))
        s = root.find(tag)
        if s is None:
            s = ET.Element(tag)
            root.insert(0, s)
        s.set(name, val)
        return f"<{tag} {name}={val}>"
    wb = root.find("worldbody")
    if wb is None:
        return "huge (no worldbody)"
    # (a count of 1e5 already takes MuJoCo itself minutes: not a fair bound on numjoco)
    count = draw(st.sampled_from(["0", "-3", "300", "2.5", "x", "1e3", "2147483648"]))
    rep = ET.SubElement(wb, "replicate", {"count": count, "offset": "0 0 0.1"})
    ET.SubElement(rep, "geom", {"size": ".01"})
    return f"<replicate count={count}>"


# ------------------------------------------------------------------------------------------ text mutations


@st.composite
def _mutate_text(draw, text):
    """Text-level mutations (the result may be bytes for re-encodings)."""
    op = draw(st.sampled_from(["truncate", "stray", "comment", "entity", "encode", "garbage", "include_cycle"]))
    if op in ("encode", "garbage") and "file=" in text:
        op = "stray"  # re-encoded documents are loaded from a temporary file: no relative files
    if op == "truncate":
        cut = draw(st.integers(0, len(text)))
        return text[:cut], f"truncated at {cut}/{len(text)}", {}
    pos = [i for i, c in enumerate(text) if c == ">"] or [len(text) - 1]
    at = draw(st.sampled_from(pos)) + 1
    if op == "stray":
        s = draw(
            st.sampled_from(["hello", "  1 2 3 ", "&amp;", "\u00e9\u4e2d", "]]>", "&#x41;", "&#0;", "&nbsp;"])
            | st.text(alphabet=st.characters(blacklist_characters="<&"), max_size=10)
        )
        return text[:at] + s + text[at:], f"stray text {s!r} at {at}", {}
    if op == "comment":
        s = draw(st.sampled_from(["<!-- c -->", "<![CDATA[ <a> ]]>", "<?pi x?>", "<!-- -- -->", "<!---->"]))
        return text[:at] + s + text[at:], f"{s!r} at {at}", {}
    if op == "entity":
        s = draw(
            st.sampled_from(
                [
                    '<!DOCTYPE m [<!ENTITY e "1 0 0">]>',
                    '<!DOCTYPE m SYSTEM "nofile.dtd">',
                    '<!DOCTYPE m [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">'
                    '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;">]>',
                ]
            )
        )
        start = text.find("<mujoco") if "<mujoco" in text else text.find("<robot")
        body = text[max(start, 0) :]
        if draw(st.booleans()):
            body = body.replace(">", ">&e;", 1) if "ENTITY e" in s else body.replace(">", ">&d;", 1)
        return s + body, f"doctype {s[:40]!r}", {}
    if op == "encode":
        enc = draw(st.sampled_from(["utf-8-sig", "utf-16", "utf-16-le", "latin-1", "cp1252", "utf-32"]))
        t = text
        if draw(st.booleans()):  # a non-ASCII name makes the encoding matter
            t = t.replace('name="', 'name="\u00e9', 1).replace("name='", "name='\u00e9", 1)
        if draw(st.booleans()):
            t = f'<?xml version="1.0" encoding="{draw(st.sampled_from(["UTF-8", "ISO-8859-1", "UTF-16"]))}"?>\n' + t
        return t.encode(enc, errors="replace"), f"encoded {enc}", {}
    if op == "garbage":
        b = draw(st.binary(min_size=1, max_size=6))
        data = text.encode()
        return data[:at] + b + data[at:], f"bytes {b!r} at {at}", {}
    # include cycle: the model includes a file that includes itself (or the model includes itself)
    inc = draw(st.sampled_from(['<include file="loop.xml"/>', '<include file="self.xml"/>']))
    loop = '<mujoco><include file="loop.xml"/></mujoco>'
    first = text.find(">", text.find("<mujoco")) + 1 if "<mujoco" in text else at
    new = text[:first] + inc + text[first:]
    return new, f"include cycle {inc}", {"loop.xml": loop.encode(), "self.xml": new.encode()}


@st.composite
def mutated_mjcf(draw):
    """A corpus model with 1-3 tree mutations, or one text mutation."""
    name, directory, text = draw(st.sampled_from(CORPUS))
    return draw(_mutated(name, directory, text, urdf=False))


@st.composite
def mutated_urdf(draw):
    name, directory, text = draw(st.sampled_from(URDF_CORPUS))
    return draw(_mutated(name, directory, text, urdf=True))


@st.composite
def _mutated(draw, name, directory, text, urdf):
    what = [name]
    assets = {}
    if draw(st.integers(0, 4)) == 0:
        doc, desc, assets = draw(_mutate_text(text))
        what.append(desc)
    else:
        root = ET.fromstring(text)
        for _ in range(draw(st.integers(1, 3))):
            what.append(draw(_mutate_tree(root, urdf)))
        doc = ET.tostring(root, encoding="unicode")
    return Case(doc, directory, assets, what, "urdf" if urdf else "mjcf")


@st.composite
def generated_mjcf(draw):
    """A valid random model of tests/mjcf_gen.py (sometimes with <replicate>)."""
    import mjcf_gen

    seed = draw(st.integers(0, 10**6))
    rep = draw(st.integers(0, 3)) == 0
    return Case(
        mjcf_gen.generate(seed, replicate=rep) if rep else mjcf_gen.generate(seed),
        MODELS_DIR,
        {},
        [f"mjcf_gen seed {seed}" + (" replicate" if rep else "")],
    )


@st.composite
def generated_urdf(draw):
    import urdf_gen

    seed = draw(st.integers(0, 10**6))
    xml, assets = urdf_gen.generate(seed)
    return Case(xml, URDF_DIR, assets, [f"urdf_gen seed {seed}"], "urdf")


# ------------------------------------------------------------------------------------------ the property


@contextlib.contextmanager
def _in_dir(path):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


_TMP = []


def _bytes_path(data):
    """A file holding data (re-encoded documents are loaded from a path by both engines)."""
    import tempfile

    if not _TMP:
        _TMP.append(tempfile.mkdtemp(prefix="numjoco-fuzz-"))
    path = os.path.join(_TMP[0], "fuzz_%d.xml" % threading.get_ident())
    with open(path, "wb") as f:
        f.write(data)
    return path


# mujoco refusals that are not about the model: its arena (<size memory>, which numjoco does not use: it sizes
# its buffers from nconmax / njmax) is too small or cannot be allocated on this machine; or the Python bindings
# cannot decode a name holding bytes that are not UTF-8 (MuJoCo's C library accepts them, numjoco reads them as
# U+FFFD).  On these inputs either answer of numjoco is accepted (loading must still be clean and fast).
UNDECIDED = (
    "Could not allocate memory",
    "could not allocate mjData arena",
    "mj_stackAlloc: out of memory",
    "codec can't decode",
)


def load_mujoco(case):
    """(MjModel or None, error text)."""
    try:
        with warnings.catch_warnings(), _in_dir(case.directory):
            warnings.simplefilter("ignore")
            if isinstance(case.doc, bytes):
                return mujoco.MjModel.from_xml_path(_bytes_path(case.doc), case.assets), ""
            return mujoco.MjModel.from_xml_string(case.doc, case.assets), ""
    except (ValueError, mujoco.FatalError) as e:
        return None, str(e) or type(e).__name__


def load_ours(case):
    """(Model or None, sim.ModelError or None); any other exception propagates."""
    with warnings.catch_warnings(), _in_dir(case.directory):
        warnings.simplefilter("ignore")
        try:
            if isinstance(case.doc, bytes):
                return sim.load_model(_bytes_path(case.doc), assets=case.assets), None
            return sim.load_model(case.doc, assets=case.assets), None
        except sim.ModelError as e:
            return None, e


_COMPILED = set()
STEP_ALL = [False]
_COMMON_F = set()
# features compiled only for the models that use them (tendons, equality, fluid, transmissions, enable flags, the
# sparse Jacobian mode, elliptic cones: each also checked at run time), turned on for every fuzzed model and for
# the common models below, so that a fuzzed model falls into one of a few feature sets (the conformance tests run
# those models' own, smaller sets)
FUZZ_ON = (F_TENDON, F_EQUALITY, F_FLUID, F_TRN, F_ENERGY, F_FWDINV, F_DIAGEXACT, F_CYLBOX, F_SPARSE, F_ELLIPTIC)


def fuzz_features(m):
    """The feature set a fuzzed model is stepped with: its own plus FUZZ_ON."""
    smooth_api.require_features(m, *FUZZ_ON)
    return smooth_api.model_features(m)


def common_features():
    """The feature sets (sim/jit/features.py, with FUZZ_ON) the default run steps: Gymnasium's reacher (contacts
    through the second collision pass, the primal solver, Euler) and the URDF quadruped (the same with
    implicitfast), the two sets that most fuzzed inputs fall into.  FUZZ_ON makes these sets the fuzz tests' own
    (no other test compiles them), and each set is one more numba compile of much of the pipeline on a cold
    cache, so the default run steps the accepted models of these two sets only; the other accepted models (e.g.
    of hopper's set without the second pass, humanoid's PGS set, hopper with implicitfast) are loaded and their
    sizes compared with mujoco's but not stepped.  `--full` steps every accepted model (STEP_ALL).  Computed from
    the models, not written out: the feature tuple grows when sim/jit/features.py gains a part (F_SENSOR made
    every hard-coded 4-tuple stale, so no mutated model was stepped any more)."""
    if not _COMMON_F:
        from conftest import gymnasium_assets_dir

        g = gymnasium_assets_dir()
        paths = [os.path.join(URDF_DIR, "quadruped.urdf")] + ([os.path.join(g, "reacher.xml")] if g else [])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            models = [sim.load_model(p) for p in paths]
        _COMMON_F.update(fuzz_features(m) for m in models)
    return _COMMON_F


_LOCK = threading.Lock()


def _finite(d, fields=("qpos", "qvel", "qacc", "act")):
    return all(np.all(np.isfinite(getattr(d, f))) for f in fields)


def step_finite(m, theirs, nstep=NSTEP):
    """Step an accepted model with random controls next to mujoco: numjoco's state stays finite whenever
    mujoco's does (a bad state is reset by both engines, with a warning; a model whose mass matrix is singular
    can leave NaN in qvel right after MuJoCo's own reset, and then ours may too).  Returns the wall time of our
    steps, the first call of a feature set (the numba compile or cache load) excluded."""
    d = sim.Data(m)
    md = mujoco.MjData(theirs)
    F = fuzz_features(m)
    rng = np.random.default_rng(0)
    dt = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if F not in _COMPILED:
            sim.forward(m, d)
            _COMPILED.add(F)
        for k in range(nstep):
            if m.nu:
                u = rng.uniform(-1, 1, m.nu)
                d.ctrl = u
                md.ctrl[:] = u
            t0 = time.perf_counter()
            sim.step(m, d)
            dt += time.perf_counter() - t0
            mujoco.mj_step(theirs, md)
            if not _finite(d):
                assert not _finite(md), f"numjoco state not finite after step {k + 1}, mujoco finite"
    return dt


@contextlib.contextmanager
def wall_without_compile():
    """[seconds]: the wall time of the block less the time numba spent compiling in it, set on exit (the first
    load on a cold cache compiles the kernels of mj_setConst, 30-40 s: not a hang of the loader)."""
    out = [0.0]
    timer = numba_event.TimingListener()
    t0 = time.perf_counter()
    with numba_event.install_listener("numba:compile", timer):
        yield out
    out[0] = time.perf_counter() - t0 - (timer.duration if timer.done else 0.0)


def check_error(err, case):
    """A refusal names where: the file (the document name or an included file), and an element (XML syntax
    errors name a line instead)."""
    msg = str(err)
    assert isinstance(err, sim.ModelError)
    assert err.file is not None, f"error names no file: {msg}"
    assert err.element is not None or err.line is not None, f"error names neither element nor line: {msg}"
    if err.attribute is not None:
        assert f"'{err.attribute}'" in msg
    assert err.message and len(err.message) > 3, msg


def _assert_sizes(ours, theirs):
    """mujoco's sizes (nq, nv, nbody, ...) in numjoco's model."""
    for n in (
        "nq",
        "nv",
        "nbody",
        "njnt",
        "ngeom",
        "nsite",
        "nu",
        "na",
        "ntendon",
        "neq",
        "nsensor",
        "nmocap",
        "nkey",
        "nmesh",
    ):
        assert int(getattr(ours, n)) == int(getattr(theirs, n)), (
            f"{n}: numjoco {getattr(ours, n)} mujoco {getattr(theirs, n)}"
        )


def check_input(case, compare=True):
    """The fuzz property for one input; returns the outcome ('both-accept', 'both-reject', 'unsupported',
    'undecided', 'accepted-not-stepped').

    - numjoco raises nothing but sim.ModelError / sim.UnsupportedError while loading (any other exception
      propagates and fails the test), naming the file and the element (or line) at fault;
    - agreement with mujoco: an input mujoco rejects, numjoco rejects; an input mujoco accepts, numjoco accepts
      or refuses it as unsupported (UnsupportedError, the feature named);
    - an accepted model has mujoco's sizes (nq, nv, nbody, njnt, ngeom, nu, na, ...), steps NSTEP times next to
      mujoco with finite state whenever mujoco's is finite, and loading or stepping takes less than
      HANG_SECONDS.
    """
    with wall_without_compile() as t_load:
        theirs, terr = load_mujoco(case)
        ours, oerr = load_ours(case)
    t_load = t_load[0]
    assert t_load < HANG_SECONDS, f"loading took {t_load:.1f} s"
    if oerr is not None:
        check_error(oerr, case)
    if theirs is None and any(u in terr for u in UNDECIDED):
        return "undecided"
    if theirs is None:
        assert ours is None, f"mujoco rejects ({terr.strip()[:300]}) but numjoco accepts"
        return "both-reject"
    if ours is None:
        assert isinstance(oerr, sim.UnsupportedError), f"mujoco accepts but numjoco rejects: {oerr}"
        return "unsupported"
    if compare:
        _assert_sizes(ours, theirs)
    try:
        if not STEP_ALL[0] and fuzz_features(ours) not in common_features():
            return "accepted-not-stepped"
        dt = step_finite(ours, theirs)
    except sim.UnsupportedError as e:  # refused at the first simulation call (no file to name then)
        assert e.message and (e.file is None or e.element is not None or e.line is not None), str(e)
        return "unsupported"
    assert dt < HANG_SECONDS, f"{NSTEP} steps took {dt:.1f} s"
    return "both-accept"
