"""Accept exactly what MuJoCo 3.17 accepts, refuse what it refuses (issue 34), and build its convex hulls.

* ACCEPT: models MuJoCo loads that numjoco used to refuse (several top-level <default>s, an XML declaration after
  white space, <body>/<frame> directly inside <mujoco>, a mesh whose inertia box is NaN as C's sqrt makes it):
  they load and every field matches the oracle (tests/oracle.py).
* REFUSE: models MuJoCo refuses that numjoco used to load: sim.ModelError with MuJoCo's reason, naming the file,
  line, element and attribute (the guard asserts MuJoCo's message holds the same reason).
* Hulls: qhull's hull laid out as MuJoCo lays it out (sim/compiler/qhull.py): mesh_graph, hull faces, extrema,
  polygons and their normals, bit for bit, on random point clouds (hypothesis) and on the meshes that dm_control
  and gymnasium_robotics ship (a sample by default, all of them with --full).
"""

import glob
import os

import mujoco
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oracle

import sim
from sim.compiler import compile_document
from sim.mjcf import reader

# every mesh field MuJoCo lays out from the hull (or sums in hull order), and what the mesh frame decides
MESH_FIELDS = [
    "nmeshgraph",
    "nmeshpoly",
    "nmeshpolyvert",
    "nmeshpolymap",
    "mesh_graph",
    "mesh_graphadr",
    "mesh_face",
    "mesh_facenormal",
    "mesh_facenum",
    "mesh_extrema",
    "mesh_polyvert",
    "mesh_polyvertadr",
    "mesh_polyvertnum",
    "mesh_polymap",
    "mesh_polymapadr",
    "mesh_polymapnum",
    "mesh_polynormal",
    "mesh_polyadr",
    "mesh_polynum",
    "mesh_vert",
    "mesh_normal",
    "mesh_pos",
    "mesh_quat",
    "bvh_aabb",
    "bvh_child",
    "bvh_nodeid",
    "bvh_depth",
    "mesh_bvhadr",
    "mesh_bvhnum",
    "geom_size",
    "geom_aabb",
    "geom_rbound",
    "body_mass",
    "body_inertia",
    "body_iquat",
    "body_ipos",
]


def _static(xml, assets=None):
    return compile_document(reader.read(xml, assets=assets), set_constants=False)


# ------------------------------------------------------------------------------------------------ accepted


def _flat_disc(seed=1):
    """A closed mesh 2e-10 thick: its principal moments violate A + B >= C by rounding, C's sqrt makes its box
    NaN (MuJoCo loads it; a static body keeps the NaN inertia)."""
    rng = np.random.default_rng(seed)
    ang = np.sort(rng.uniform(0, 2 * np.pi, 8))
    r = rng.uniform(0.5, 1.5, 8)
    top = np.c_[r * np.cos(ang), r * np.sin(ang), np.full(8, 1e-10)]
    bot = top * [1, 1, -1]
    return " ".join("%.9g" % x for x in np.r_[top, bot].ravel())


ACCEPT = {
    "two_top_level_defaults": """<mujoco>
      <default><geom size=".2" rgba="1 0 0 1"/><default class="a"><geom size=".3"/></default></default>
      <default><geom type="box" size=".1 .2 .3"/><joint damping="2"/><motor gear="3"/>
        <default class="b"><geom size=".4 .5 .6"/></default></default>
      <worldbody><body><freejoint/><geom/><geom class="a" type="sphere"/><geom class="b"/></body>
        <body pos="1 0 0"><joint name="h"/><geom type="sphere"/></body></worldbody>
      <actuator><motor joint="h"/></actuator></mujoco>""",
    "top_level_default_class_empty_or_main": """<mujoco>
      <default class=""><geom size=".2"/></default><default class="main"><geom rgba="0 1 0 1"/></default>
      <worldbody><body><freejoint/><geom/></body></worldbody></mujoco>""",
    "declaration_after_white_space": """

   <?xml version="1.0" encoding="utf-8"?>
<mujoco><worldbody><body><freejoint/><geom size=".1"/></body></worldbody></mujoco>""",
    "body_and_frame_directly_in_mujoco": """<mujoco><body name="ignored"><geom size="1"/></body>
      <frame pos="1 0 0"><geom size="1"/></frame>
      <worldbody><body name="kept"><freejoint/><geom size=".1"/></body></worldbody></mujoco>""",
    "site_sphere_unused_negative_sizes": """<mujoco><worldbody><body><freejoint/><geom size=".1"/>
      <site type="sphere" size=".1 -1 -1"/><site type="capsule" size=".1 -1" fromto="0 0 0 0 0 1"/>
      </body></worldbody></mujoco>""",
    "mesh_inertia_box_nan": f"""<mujoco><asset><mesh name="m" vertex="{_flat_disc()}"/></asset>
      <worldbody><body><geom type="mesh" mesh="m"/></body><body pos="0 0 1"><freejoint/><geom size=".1"/></body>
      </worldbody></mujoco>""",
}


@pytest.mark.compiler
@pytest.mark.oracle
@pytest.mark.parametrize("name", sorted(ACCEPT))
def test_accepts_what_mujoco_accepts(name):
    xml = ACCEPT[name]
    theirs = mujoco.MjModel.from_xml_string(xml)
    ours = sim.load_model(xml)
    oracle.assert_models_match(ours, theirs, label=name)
    if name == "mesh_inertia_box_nan":
        assert np.isnan(theirs.body_inertia[1]).any() and np.isnan(ours.body_inertia[1]).any()


def test_defaults_of_an_included_file(tmp_path):
    """The usual shape of the 16 models of issue 34: a top-level <default> in the main file and one in each
    included file, all adding to the main class."""
    (tmp_path / "part.xml").write_text(
        '<mujocoinclude><default><joint armature=".1"/>'
        '<default class="p"><geom rgba="0 0 1 1"/></default></default>'
        '<worldbody><body name="b" pos="0 0 1"><joint/><geom class="p" size=".1"/>'
        "</body></worldbody></mujocoinclude>"
    )
    (tmp_path / "main.xml").write_text(
        '<mujoco><default><geom size=".3" friction=".5"/></default>'
        '<include file="part.xml"/><worldbody><geom type="plane" size="1 1 1"/>'
        "</worldbody></mujoco>"
    )
    path = str(tmp_path / "main.xml")
    oracle.assert_models_match(sim.load_model(path), mujoco.MjModel.from_xml_path(path))


def test_declaration_after_white_space_keeps_line_numbers():
    xml = '\n\n  <?xml version="1.0"?>\n<mujoco>\n<worldbody>\n<geom size="1" bogus="2"/>\n</worldbody></mujoco>'
    with pytest.raises(ValueError, match="line 6"):
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(sim.ModelError) as e:
        sim.load_model(xml)
    assert (e.value.line, e.value.element, e.value.attribute) == (6, "geom", "bogus")


# ------------------------------------------------------------------------------------------------ refused

# name: (xml, MuJoCo's reason, element, attribute, line)
REFUSE = {
    "site_size_negative": (
        '<mujoco>\n<worldbody>\n<site size="-1"/>\n</worldbody></mujoco>',
        "size 0 must be positive in geom",
        "site",
        "size",
        3,
    ),
    "site_capsule_half_length_zero": (
        '<mujoco>\n<worldbody>\n<body>\n<site type="capsule" size=".1 0"/>\n</body></worldbody></mujoco>',
        "size 1 must be positive in geom",
        "site",
        "size",
        4,
    ),
    "default_class_empty": (
        '<mujoco>\n<default>\n<default class="">\n<geom size="1"/></default></default></mujoco>',
        "empty class name",
        "default",
        "class",
        3,
    ),
    "default_class_missing": (
        "<mujoco>\n<default>\n<default>\n</default></default></mujoco>",
        "empty class name",
        "default",
        "class",
        3,
    ),
    "default_class_repeated_across_tops": (
        '<mujoco>\n<default><default class="x"/></default>\n<default><default class="x"/></default></mujoco>',
        "repeated default class name",
        "default",
        "class",
        3,
    ),
    "default_element_twice": (
        '<mujoco>\n<default>\n<geom size="1"/><geom size="2"/></default></mujoco>',
        "unique element 'geom' found 2 times",
        "default",
        None,
        2,
    ),
}


@pytest.mark.compiler
@pytest.mark.oracle
@pytest.mark.parametrize("name", sorted(REFUSE))
def test_refuses_what_mujoco_refuses(name):
    xml, reason, element, attribute, line = REFUSE[name]
    with pytest.raises(ValueError) as theirs:
        mujoco.MjModel.from_xml_string(xml)
    assert reason in str(theirs.value)
    with pytest.raises(sim.ModelError) as ours:
        sim.load_model(xml)
    e = ours.value
    assert reason in e.message and (e.element, e.attribute, e.line) == (element, attribute, line), str(e)
    assert e.file == "<string>" and "<string>" in str(e)


def _write(tmp_path, files):
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


INCLUDES = {
    # name: (main file, MuJoCo's reason or None when it loads, the file and line our error names)
    "same_file_twice": (
        '<mujoco>\n<include file="a.xml"/>\n<include file="a.xml"/>\n</mujoco>',
        "File 'a.xml' already included",
        "main.xml",
        3,
    ),
    "same_file_twice_other_spelling": (
        '<mujoco>\n<include file="a.xml"/>\n<include file="sub/../a.xml"/>\n</mujoco>',
        "File 'a.xml' already included",
        "main.xml",
        3,
    ),
    # b.xml's "c.xml" resolves to sub/c.xml and is recorded as sub/sub/c.xml: MuJoCo includes sub/c.xml again
    "nested_then_direct": (
        '<mujoco>\n<include file="sub/b.xml"/>\n<include file="sub/c.xml"/>\n</mujoco>',
        None,
        None,
        None,
    ),
    # b.xml's "c.xml" is not in the model's folder: it resolves to sub/c.xml, included before
    "direct_then_nested": (
        '<mujoco>\n<include file="sub/c.xml"/>\n<include file="sub/b.xml"/>\n</mujoco>',
        "File 'sub/c.xml' already included",
        "sub/b.xml",
        1,
    ),
    # d.xml's "e.xml" is found in the model's folder: MuJoCo records it as sub/e.xml, so including e.xml again
    # from the model passes its check
    "model_folder_first": (
        '<mujoco>\n<include file="sub/d.xml"/>\n<include file="e.xml"/>\n</mujoco>',
        None,
        None,
        None,
    ),
    "empty_include_file": (
        '<mujoco>\n<include file="empty.xml"/>\n</mujoco>',
        "Empty include file 'empty.xml'",
        "main.xml",
        2,
    ),
}
INCLUDED = {
    "a.xml": '<mujoco><worldbody><geom name="a" size="1"/></worldbody></mujoco>',
    "e.xml": '<mujoco><worldbody><geom size="1"/></worldbody></mujoco>',
    "empty.xml": "<mujoco/>",
    "sub/b.xml": '<x><include file="c.xml"/></x>',
    "sub/c.xml": '<x><worldbody><geom size="1"/></worldbody></x>',
    "sub/d.xml": '<x><include file="e.xml"/></x>',
}


@pytest.mark.compiler
@pytest.mark.oracle
@pytest.mark.parametrize("name", sorted(INCLUDES))
def test_includes_as_mujoco(name, tmp_path, monkeypatch):
    """MuJoCo refuses a file included a second time: it compares the name as resolved (as written when the
    model's folder has the file, else under the including file's folder) with the including folder + name of
    every file included before (with a relative model path the folders are relative too)."""
    main, reason, efile, line = INCLUDES[name]
    _write(tmp_path, {**INCLUDED, "main.xml": main})
    monkeypatch.chdir(tmp_path)
    if reason is None:
        oracle.assert_models_match(sim.load_model("main.xml"), mujoco.MjModel.from_xml_path("main.xml"))
        return
    with pytest.raises(ValueError) as theirs:
        mujoco.MjModel.from_xml_path("main.xml")
    assert reason in str(theirs.value)
    with pytest.raises(sim.ModelError) as ours:
        sim.load_model("main.xml")
    e = ours.value
    assert reason in e.message and (e.element, e.attribute, e.line, e.file) == ("include", "file", line, efile), str(e)


def test_top_level_replicate_is_checked_as_a_body():
    """MuJoCo's schema takes a <replicate> directly in <mujoco> for a worldbody: 'count' is not an attribute."""
    xml = '<mujoco>\n<replicate count="2"><geom size="1"/></replicate>\n</mujoco>'
    with pytest.raises(ValueError, match="count"):
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(sim.ModelError) as e:
        sim.load_model(xml)
    assert (e.value.element, e.value.attribute, e.value.line) == ("replicate", "count", 2)


# ------------------------------------------------------------------------------------------------ hulls


def _cloud(kind, n, rng):
    if kind == "gauss":
        return rng.normal(size=(n, 3))
    if kind == "grid":  # many coplanar facets: qhull merges, then triangulates
        g = np.linspace(-1, 1, 2 + n % 5)
        return np.array([[x, y, z] for x in g for y in g for z in g]) * rng.uniform(0.2, 2, 3)
    if kind == "integer":  # coplanar and collinear points everywhere
        return rng.integers(-3, 4, size=(n, 3)).astype(float)
    if kind == "prism":  # two coplanar caps and a ring of quads
        k = 3 + n % 30
        a = np.linspace(0, 2 * np.pi, k, endpoint=False)
        c = np.c_[np.cos(a), np.sin(a)]
        return np.r_[np.c_[c, np.ones(k)], np.c_[c, -np.ones(k)], [[0, 0, 1], [0, 0, -1]]]
    p = rng.normal(size=(n, 3))  # sphere: every point on the hull
    return p / np.linalg.norm(p, axis=1, keepdims=True)


def _mesh_xml(points, scale, inertia, maxhullvert, refquat):
    vs = " ".join(repr(float(x)) for x in np.asarray(points, np.float32).ravel())
    return (
        f'<mujoco><asset><mesh name="m" vertex="{vs}" scale="{scale}" inertia="{inertia}" '
        f'maxhullvert="{maxhullvert}" refquat="{refquat}" refpos="0.1 0 0.2"/></asset><worldbody><body>'
        '<freejoint/><geom type="mesh" mesh="m"/></body></worldbody></mujoco>'
    )


def _check_hull_case(xml, assets=None):
    try:
        theirs = mujoco.MjModel.from_xml_string(xml, assets or {})
    except ValueError as e:
        with pytest.raises(sim.ModelError):
            _static(xml, assets)
        return str(e)
    ours = _static(xml, assets)
    oracle.assert_models_match(ours, theirs, fields=MESH_FIELDS, names=False, rtol=0, atol=0)
    assert not oracle.hull_mismatches(ours, theirs, 0)
    return None


@pytest.mark.compiler
@pytest.mark.oracle
@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(["gauss", "grid", "integer", "prism", "sphere"]),
    n=st.integers(5, 250),
    seed=st.integers(0, 2**32 - 1),
    scale=st.sampled_from(["1 1 1", "-1 1 1", "1 -2 0.5", "-1 -1 -1", "0.01 0.01 0.01"]),
    inertia=st.sampled_from(["legacy", "convex", "exact", "shell"]),
    maxhullvert=st.sampled_from([-1, -1, 4, 6, 10, 20, 50]),
    rotate=st.booleans(),
)
def test_hull_matches_qhull_layout_on_random_clouds(kind, n, seed, scale, inertia, maxhullvert, rotate):
    """Every hull field bit for bit: graph (vertex order, neighbour order), faces (qhull's facet order and
    orientation), extrema, polygons (libc++ hash-map order, mirrored by a negative scale), Newell normals,
    the face BVH, and the mass properties summed over the hull faces."""
    rng = np.random.default_rng(seed)
    q = rng.normal(size=4)
    refquat = " ".join(map(str, q / np.linalg.norm(q))) if rotate else "1 0 0 0"
    _check_hull_case(_mesh_xml(_cloud(kind, n, rng), scale, inertia, maxhullvert, refquat))


def test_hull_layout_is_read_from_qhull():
    """The layout comes from qhull's own lists (not the fallback): a merged hull (integer grid) whose neighbour
    sets qhull maintained incrementally, and a simplicial one whose sets qh_vertexneighbors builds."""
    from sim.compiler import qhull

    rng = np.random.default_rng(3)
    for pts in (rng.integers(-2, 3, size=(60, 3)).astype(float), rng.normal(size=(40, 3))):
        assert qhull.convex_hull(pts).exact


def test_hull_fallback_has_the_same_hull(monkeypatch):
    """When qhull's lists cannot be read, the hull is the same (vertex set, faces, orientation), and MuJoCo's
    layout where it needs no internal list (here a grid, whose vertex and neighbour orders follow the facets)."""
    from sim.compiler import qhull

    def unreadable(*args):
        raise qhull._Unreadable("test")

    rng = np.random.default_rng(4)
    pts = rng.normal(size=(50, 3))
    exact = qhull.convex_hull(pts)
    monkeypatch.setattr(qhull, "_read_state", unreadable)
    with pytest.warns(UserWarning, match="could not be read"):
        fb = qhull.convex_hull(pts)
    assert not fb.exact
    assert np.array_equal(fb.faces, exact.faces)
    assert sorted(fb.vertices.tolist()) == sorted(exact.vertices.tolist())
    assert sorted((v, sorted(nb)) for v, nb in zip(fb.vertices.tolist(), fb.neighbors)) == sorted(
        (v, sorted(nb)) for v, nb in zip(exact.vertices.tolist(), exact.neighbors)
    )


def _package_meshes():
    out = []
    for pkg in ("dm_control", "gymnasium_robotics"):
        mod = pytest.importorskip(pkg)
        root = os.path.dirname(mod.__file__)
        for ext in ("stl", "obj", "msh"):
            out += sorted(glob.glob(os.path.join(root, "**", f"*.{ext}"), recursive=True))
    return out


@pytest.mark.compiler
@pytest.mark.oracle
def test_hull_matches_on_package_meshes(full_run):
    """The meshes dm_control and gymnasium_robotics ship (470): each as a colliding mesh, every hull field bit for
    bit.  By default an evenly spread sample of 12 files under 100 kB (the whole set under --full)."""
    paths = _package_meshes()
    assert len(paths) > 400
    if not full_run:
        small = [p for p in paths if os.path.getsize(p) < 100_000]
        paths = small[:: len(small) // 12][:12]
    refused = []
    for p in paths:
        xml = (
            f'<mujoco><compiler meshdir="{os.path.dirname(p)}"/><asset><mesh name="m" '
            f'file="{os.path.basename(p)}"/></asset><worldbody><body><freejoint/><geom type="mesh" mesh="m"/>'
            "</body></worldbody></mujoco>"
        )
        why = _check_hull_case(xml)
        if why:
            refused.append((p, why))
    assert len(refused) <= len(paths) // 10, refused
