"""Compiler conformance on a corpus of MJCF files: numjoco's Model must equal mujoco.MjModel field by field.

Corpus: every XML in gymnasium's MuJoCo asset folder, every XML in the repository's assets/ folder (searched
recursively) and every top-level XML in tests/models/ (our feature models; files they include live in
tests/models/include/ and are not models by themselves).

The first tests check the harness itself (tests/oracle.py) on pairs of mujoco models.
"""

import copy
import glob
import os

import numpy as np
import pytest

import mujoco

import oracle

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(TESTS_DIR)
MODELS_DIR = os.path.join(TESTS_DIR, "models")


def _gymnasium_dir():
    try:
        import gymnasium
    except ImportError:  # pragma: no cover
        return None
    d = os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets")
    return d if os.path.isdir(d) else None


def corpus():
    """pytest params (path, id) of every corpus model."""
    out = []
    g = _gymnasium_dir()
    if g:
        out += [
            pytest.param(p, id="gymnasium/" + os.path.basename(p)) for p in sorted(glob.glob(os.path.join(g, "*.xml")))
        ]
    adir = os.path.join(REPO_DIR, "envs", "assets")
    out += [
        pytest.param(p, id="assets/" + os.path.relpath(p, adir))
        for p in sorted(glob.glob(os.path.join(adir, "**", "*.xml"), recursive=True))
    ]
    out += [
        pytest.param(p, id="models/" + os.path.basename(p))
        for p in sorted(glob.glob(os.path.join(MODELS_DIR, "*.xml")))
    ]
    return out


CORPUS = corpus()

# Feature models whose feature the numjoco core does not simulate yet: sim.load_model raising
# sim.UnsupportedError on them is an expected failure (xfail, with the reason); once supported they are
# compared like every other model.  Each unsupported feature lives in its own small model so that the others
# keep their coverage.  Delete entries as the core grows.
KNOWN_UNSUPPORTED = {}

# corpus models with fields known to differ: per field the measured max abs error and an upper bound; every other
# field is compared at the oracle's tolerance, these to their bound, and the test is an expected failure while
# they differ beyond the tolerance (it fails once they match: then delete the entry)
KNOWN_DIFFERENT = {
    "tendons_wrap.xml": {
        "reason": "at qpos0 the segment s1-s2 is exactly tangent to the wrapping cylinder; there our wrap decision "
        "and tangent points differ from 3.17 (away from tangency the wrap matches to 1e-16, "
        "tests/test_tendon.py)",
        # field: (measured max abs error, bound)
        "fields": {
            "tendon_length0": (7.45e-10, 1e-9),
            "actuator_length0": (7.45e-10, 1e-9),
            "tendon_lengthspring": (7.45e-10, 1e-9),
        },
    },
}


def _load_ours(path_or_xml, name):
    import sim

    try:
        return sim.load_model(path_or_xml)
    except sim.UnsupportedError as e:
        if name in KNOWN_UNSUPPORTED:
            pytest.xfail(f"not simulated yet: {KNOWN_UNSUPPORTED[name]} ({e})")
        raise


@pytest.mark.compiler
@pytest.mark.oracle
@pytest.mark.parametrize("path", CORPUS)
def test_corpus_model_matches_mujoco(path):
    theirs = mujoco.MjModel.from_xml_path(path)
    name = os.path.basename(path)
    ours = _load_ours(path, name)
    known = KNOWN_DIFFERENT.get(name)
    if known is None:
        oracle.assert_models_match(ours, theirs, label=name)
        return
    fields = known["fields"]
    oracle.assert_models_match(ours, theirs, label=name, skip=set(fields))
    errors = {}
    for field, (measured, bound) in fields.items():
        err = float(np.max(np.abs(np.asarray(getattr(ours, field), np.float64) - getattr(theirs, field))))
        assert err <= bound, f"{name}: {field} differs by {err:.3g}, more than the bound {bound:g}"
        if oracle.compare_models(ours, theirs, fields=[field], names=False):
            errors[field] = err
    if not errors:
        pytest.fail(f"{name} now matches mujoco: remove it from KNOWN_DIFFERENT")
    pytest.xfail(
        f"{known['reason']}: "
        + ", ".join(
            f"{f} off by {e:.3g} (measured {fields[f][0]:g}, bound {fields[f][1]:g})" for f, e in errors.items()
        )
    )


@pytest.mark.compiler
@pytest.mark.oracle
def _self_contained(path):
    """True for a model that names no other file (includes, meshes, model assets...)."""
    with open(path) as f:
        text = f.read()
    return "<include" not in text and "file=" not in text


@pytest.mark.parametrize(
    "path",
    [
        p
        for p in CORPUS
        if p.id.startswith("models/")
        and os.path.basename(p.values[0]) not in KNOWN_UNSUPPORTED
        and _self_contained(p.values[0])
    ][:8],
)
def test_corpus_model_from_string_matches_file(path):
    """load_model accepts XML text too (file-free models): same result as from the path."""
    with open(path) as f:
        text = f.read()
    theirs = mujoco.MjModel.from_xml_string(text)
    ours = _load_ours(text, os.path.basename(path))
    oracle.assert_models_match(ours, theirs, label=os.path.basename(path))


def test_feature_models_are_valid_mujoco():
    """Every feature model loads in mujoco (guards the corpus itself) and there are at least 20 of them."""
    paths = sorted(glob.glob(os.path.join(MODELS_DIR, "*.xml")))
    assert len(paths) >= 20
    for p in paths:
        mujoco.MjModel.from_xml_path(p)
    names = {os.path.basename(p) for p in paths}
    assert set(KNOWN_UNSUPPORTED) <= names


# ---------------------------------------------------------------------------------------- harness self-test

_HARNESS_XML = """
<mujoco>
  <option timestep="0.005"/>
  <worldbody>
    <light name="top" pos="0 0 3"/>
    <camera name="cam" pos="0 -2 1" xyaxes="1 0 0 0 1 1"/>
    <body name="a" pos="0 0 1" euler="10 20 30">
      <freejoint/>
      <geom type="box" size=".1 .2 .3" euler="5 0 0"/>
      <geom name="cyl" type="cylinder" size=".05 .1" pos=".2 0 0"/>
      <site name="s" pos="0 0 .1"/>
      <body name="b" pos="0 0 -.4">
        <joint name="hinge" axis="0 1 0" range="-30 30"/>
        <geom type="sphere" size=".1"/>
      </body>
    </body>
  </worldbody>
  <actuator><motor name="m" joint="hinge" gear="2"/></actuator>
  <sensor><jointpos joint="hinge"/></sensor>
  <keyframe><key name="home" qpos="0 0 1 1 0 0 0 .1"/></keyframe>
</mujoco>
"""


def _pair():
    a = mujoco.MjModel.from_xml_string(_HARNESS_XML)
    return a, copy.deepcopy(a)


def test_oracle_identical_models_match():
    a, b = _pair()
    assert oracle.compare_models(b, a) == []
    oracle.assert_models_match(b, a)


def test_oracle_gymnasium_self_match():
    g = _gymnasium_dir()
    if not g:
        pytest.skip("gymnasium not installed")
    for p in sorted(glob.glob(os.path.join(g, "*.xml"))):
        assert oracle.compare_models(mujoco.MjModel.from_xml_path(p), mujoco.MjModel.from_xml_path(p)) == []


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda m: m.body_pos.__setitem__((2, 1), m.body_pos[2, 1] + 1e-7), "body_pos"),
        (lambda m: m.geom_size.__setitem__((0, 0), m.geom_size[0, 0] * (1 + 1e-8)), "geom_size"),
        (lambda m: m.jnt_type.__setitem__(1, 2), "jnt_type"),
        (lambda m: m.geom_quat.__setitem__(0, [1, 0, 0, 0]), "geom_quat"),
        (lambda m: setattr(m.opt, "timestep", 0.004), "opt.timestep"),
        (lambda m: m.opt.gravity.__setitem__(2, -9.8), "opt.gravity"),
        (lambda m: setattr(m.stat, "meanmass", 3.0), "stat.meanmass"),
        (lambda m: m.body_mass.__setitem__(1, 2.0), "body_mass"),
        (lambda m: m.body_inertia.__setitem__(1, m.body_inertia[1] * 1.01), "body_inertia"),
        (lambda m: m.actuator_gear.__setitem__((0, 0), 3.0), "actuator_gear"),
        (lambda m: m.key_qpos.__setitem__((0, 2), 1.5), "key_qpos"),
        (lambda m: m.bvh_aabb.__setitem__((1, 4), m.bvh_aabb[1, 4] + 1e-8), "bvh_aabb"),
        (lambda m: m.bvh_nodeid.__setitem__(slice(None), m.bvh_nodeid[::-1].copy()), "bvh_nodeid"),
        (lambda m: m.bvh_child.__setitem__((0, 0), 2), "bvh_child"),
        (lambda m: m.body_bvhnum.__setitem__(1, 0), "body_bvhnum"),
        (lambda m: m.name_bodyadr.__setitem__(1, 0), "name_bodyadr"),
        (lambda m: m.names_map.__setitem__(slice(None), -1), "names_map"),
        # a 1e-9 rotation of a principal frame with well separated moments (the box body)
        (lambda m: m.body_iquat.__setitem__(1, m.body_iquat[1] + np.array([0, 1e-9, 0, 0])), "body_iquat"),
    ],
)
def test_oracle_detects_perturbation(mutate, field):
    a, b = _pair()
    mutate(b)
    mism = oracle.compare_models(b, a)
    assert mism, f"perturbing {field} went unnoticed"
    assert any(m.startswith(field) for m in mism), mism


def test_oracle_quaternion_sign_is_ignored():
    a, b = _pair()
    b.body_quat[1] *= -1
    b.geom_quat[0] *= -1
    b.key_mquat[...] *= -1
    assert oracle.compare_models(b, a) == []


class _Fake:
    """A stand-in 'our Model': attributes copied from an MjModel, some removed or replaced."""

    def __init__(self, m, drop=(), replace=None):
        self._m = m
        self._drop = set(drop)
        self._replace = dict(replace or {})

    def __getattr__(self, name):
        if name in self._drop:
            raise AttributeError(name)
        if name in self._replace:
            return self._replace[name]
        return getattr(self._m, name)


def test_oracle_reports_missing_required_field():
    a, b = _pair()
    mism = oracle.compare_models(_Fake(b, drop=["body_pos", "nq", "geom_aabb"]), a)
    for f in ("body_pos", "nq", "geom_aabb"):
        assert any(m.startswith(f + ":") and "missing" in m for m in mism), (f, mism)


def test_oracle_missing_optional_field_is_skipped():
    a, b = _pair()
    assert "flex_vert" not in oracle.REQUIRED_FIELDS
    assert oracle.compare_models(_Fake(b, drop=["flex_vert", "mesh_vert"]), a) == []


def test_oracle_bytes_fields():
    """names / paths are compared exactly; a missing one is reported."""
    a, b = _pair()
    mism = oracle.compare_models(_Fake(b, replace={"names": a.names.replace(b"hinge", b"hingE")}), a)
    assert any(m.startswith("names:") for m in mism), mism
    mism = oracle.compare_models(_Fake(b, drop=["paths"]), a)
    assert any(m.startswith("paths:") and "missing" in m for m in mism), mism


def test_oracle_shape_and_kind():
    a, b = _pair()
    mism = oracle.compare_models(
        _Fake(
            b,
            replace={
                "body_pos": b.body_pos[:-1],
                "jnt_type": b.jnt_type.astype(np.float64),
                "body_mass": b.body_mass.astype(np.int32),
            },
        ),
        a,
    )
    assert any(m.startswith("body_pos: shape") for m in mism), mism
    assert any(m.startswith("jnt_type: dtype") for m in mism), mism
    assert any(m.startswith("body_mass: dtype") for m in mism), mism
    # bool/uint8 in mujoco vs int32 in numjoco is the same kind
    assert (
        oracle.compare_models(
            _Fake(
                b,
                replace={
                    "jnt_limited": b.jnt_limited.astype(np.int32),
                    "body_sameframe": b.body_sameframe.astype(np.int32),
                },
            ),
            a,
        )
        == []
    )


def test_oracle_names():
    a, b = _pair()

    class Named:
        def __init__(self, i, name):
            self.id, self.name = i, name

    names = [mujoco.mj_id2name(a, mujoco.mjtObj.mjOBJ_GEOM, i) or "" for i in range(a.ngeom)]
    names[1] = "renamed"

    def geom(key):
        i = names.index(key) if isinstance(key, str) else key
        return Named(i, names[i])

    mism = oracle.compare_models(_Fake(b, replace={"geom": geom}), a)
    assert len(mism) == 1 and mism[0].startswith("names of geom"), mism
    mism = oracle.compare_models(_Fake(b, drop=["body"]), a)
    assert any("named access 'body" in m for m in mism), mism


def test_oracle_repeated_inertia_compares_tensor():
    """A cylinder along z has I_xx == I_yy: any rotation about z of the principal axes is equally right."""
    xml = """<mujoco><worldbody><body><freejoint/>
             <geom type="cylinder" size=".1 .3"/><geom type="sphere" size=".2" pos="0 0 .5"/>
             </body><body pos="1 0 0"><freejoint/><geom type="box" size=".1 .2 .3" euler="0 0 30"/></body>
             </worldbody></mujoco>"""
    a = mujoco.MjModel.from_xml_string(xml)
    assert oracle.inertia_is_degenerate(a.body_inertia[1])
    assert not oracle.inertia_is_degenerate(a.body_inertia[2])
    b = copy.deepcopy(a)
    # rotate body 1's principal frame by 40 degrees about z and swap the two equal moments: same tensor
    th = np.deg2rad(20)
    qz = np.array([np.cos(th), 0, 0, np.sin(th)])
    q = np.zeros(4)
    mujoco.mju_mulQuat(q, a.body_iquat[1], qz)
    b.body_iquat[1] = q
    b.body_inertia[1] = a.body_inertia[1][[1, 0, 2]]
    assert oracle.compare_models(b, a) == []
    # the same change on the box body (distinct moments) is a mismatch
    mujoco.mju_mulQuat(q, a.body_iquat[2], qz)
    b.body_iquat[2] = q
    mism = oracle.compare_models(b, a)
    assert any(m.startswith("body_iquat") for m in mism), mism
    # a changed moment on the degenerate body is a mismatch too
    b = copy.deepcopy(a)
    b.body_inertia[1, 2] *= 1.001
    mism = oracle.compare_models(b, a)
    assert any("inertia tensor" in m for m in mism), mism


def test_oracle_required_fields_exist_in_mujoco():
    arrays, sizes = oracle.mujoco_fields()
    have = set(arrays) | set(sizes)
    assert not [f for f in oracle.REQUIRED_FIELDS if f not in have]
    m = mujoco.MjModel.from_xml_string("<mujoco/>")
    assert all(hasattr(m.opt, f) for f in oracle.REQUIRED_OPT)
    assert all(hasattr(m.stat, f) for f in oracle.REQUIRED_STAT)


# ---------------------------------------------------------------------------------- compiler discardvisual
# (the corpus models discardvisual.xml / discardvisual_refs.xml cover materials, textures, pairs, sensors,
# tuples, fusestatic; these add the cases that need asset files, height fields or other inertia settings)

_VIS = '<geom size=".1" contype="0" conaffinity="0" {}/>'
_DV_INERTIA_CASES = {
    "free_body": ("", '<body name="b"><freejoint/><geom size=".1"/>' + _VIS.format("") + "</body>"),
    "explicit_inertial": (
        "",
        '<body name="b"><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>'
        '<geom size=".1"/>' + _VIS.format("") + "</body>",
    ),
    "world_geom": ("", _VIS.format("") + '<body name="b"><freejoint/><geom size=".1"/></body>'),
    "massless": ("", '<body name="b"><freejoint/><geom size=".1"/>' + _VIS.format('mass="0"') + "</body>"),
    "group_outside": (
        'inertiagrouprange="0 1"',
        '<body name="b"><freejoint/><geom size=".1"/>' + _VIS.format('group="2"') + "</body>",
    ),
    "static_body": ("", '<body name="b"><geom size=".1"/>' + _VIS.format("") + "</body>"),
    "static_fused": ('fusestatic="true"', '<body name="b"><geom size=".1"/>' + _VIS.format("") + "</body>"),
    "mocap": ("", '<body name="b" mocap="true"><geom size=".1"/>' + _VIS.format("") + "</body>"),
    "pair_keeps": (
        "",
        '<body name="b"><freejoint/><geom size=".1"/>'
        + _VIS.format('name="p"')
        + '</body><geom name="fl" type="plane" size="1 1 1"/></worldbody><contact>'
        '<pair geom1="p" geom2="fl"/></contact><worldbody>',
    ),
}


@pytest.mark.compiler
@pytest.mark.oracle
@pytest.mark.parametrize("ifg", ["true", "auto"])
@pytest.mark.parametrize("case", sorted(_DV_INERTIA_CASES))
def test_discardvisual_inertiafromgeom(case, ifg):
    """3.17 refuses (inertiafromgeom="true") to drop a geom whose mass entered a body's inertia; "auto" keeps
    the inertia computed with the visual geoms."""
    import sim

    comp, body = _DV_INERTIA_CASES[case]
    xml = (
        f'<mujoco><compiler discardvisual="true" inertiafromgeom="{ifg}" {comp}/><worldbody>{body}</worldbody></mujoco>'
    )
    try:
        theirs = mujoco.MjModel.from_xml_string(xml)
    except ValueError as e:
        assert "discarding visual geoms would change the inertia" in str(e)
        with pytest.raises(sim.ModelError, match="discarding visual geoms would change the inertia") as ei:
            sim.load_model(xml)
        assert ei.value.element == "body"
        return
    oracle.assert_models_match(sim.load_model(xml), theirs, label=case)


def test_discardvisual_assets_hfield_and_file_texcoords():
    """Visual hfield geoms go (the hfield stays); texture coordinates of kept meshes stay (from a file and
    inline); a mesh used by a visual and by a colliding (fitted box) geom stays."""
    import sim

    files = {n: open(os.path.join(TESTS_DIR, "assets", n), "rb").read() for n in ("tetra_uv.obj",)}
    xml = """<mujoco><compiler discardvisual="true"/>
      <asset>
        <hfield name="hf" nrow="3" ncol="3" size="1 1 .2 .1" elevation="0 1 0 1 2 1 0 1 0"/>
        <mesh name="tuv" file="tetra_uv.obj"/>
        <mesh name="inl" vertex="0 0 0 .1 0 0 0 .2 0 0 0 .3" face="0 2 1 0 1 3 0 3 2 1 2 3"
              texcoord="0 0 1 0 0 1 1 1"/>
      </asset>
      <worldbody>
        <geom type="hfield" hfield="hf" contype="0" conaffinity="0"/>
        <geom type="plane" size="3 3 .1"/>
        <body pos="0 0 1"><freejoint/>
          <geom type="mesh" mesh="tuv" contype="0" conaffinity="0"/>
          <geom type="box" mesh="tuv" pos=".3 0 0"/>
          <geom type="mesh" mesh="inl" contype="0" conaffinity="0" group="1"/>
          <geom type="box" mesh="inl" pos="-.3 0 0"/>
        </body>
      </worldbody></mujoco>"""
    theirs = mujoco.MjModel.from_xml_string(xml, files)
    assert theirs.ngeom == 3 and theirs.nhfield == 1 and theirs.nmesh == 2
    assert theirs.mesh_texcoordnum[0] > 0 and theirs.mesh_texcoordnum[1] == 4
    oracle.assert_models_match(sim.load_model(xml, assets=files), theirs, label="dv_assets")


def test_discardvisual_wrapping_geom_is_kept():
    """A geom a spatial tendon wraps around is not visual (its id is renumbered in wrap_objid).  The core does
    not simulate geom wrapping yet, so this compares the compiled structure without mj_setConst."""
    from sim.compiler import compile_document
    from sim.mjcf import reader

    xml = """<mujoco><compiler discardvisual="true"/>
      <worldbody>
        <geom type="box" size=".1 .1 .1" contype="0" conaffinity="0"/>
        <body name="a"><freejoint/><geom size=".1"/><site name="s1" pos="0 0 .3"/>
          <geom type="sphere" size=".01" contype="0" conaffinity="0"/>
          <geom name="w" type="cylinder" size=".05 .1" pos=".2 0 0" contype="0" conaffinity="0"/>
          <site name="s2" pos=".4 0 .3"/></body>
      </worldbody>
      <tendon><spatial><site site="s1"/><geom geom="w"/><site site="s2"/></spatial></tendon></mujoco>"""
    theirs = mujoco.MjModel.from_xml_string(xml)
    ours = compile_document(reader.read(xml), set_constants=False)
    assert theirs.ngeom == 2
    for k in (
        "ngeom",
        "wrap_objid",
        "wrap_type",
        "geom_type",
        "geom_bodyid",
        "body_geomadr",
        "body_geomnum",
        "body_contype",
        "body_conaffinity",
        "body_mass",
        "geom_size",
    ):
        assert np.array_equal(np.asarray(getattr(ours, k)), np.asarray(getattr(theirs, k))), k
    assert np.allclose(ours.body_inertia, theirs.body_inertia, rtol=1e-12, atol=0)


# --------------------------------------------------------------------------------- bounding volume hierarchies


def _subdivided_box_obj(k, rng, jitter):
    """OBJ text of a box surface split into 2*k*k triangles per side (faces shuffled): many face centres tie
    along the split axes, which exercises the median split's tie-breaking (std::nth_element order)."""
    index, verts, faces = {}, [], []

    def vid(p):
        key = tuple(np.round(p, 9))
        if key not in index:
            index[key] = len(verts)
            verts.append(p)
        return index[key]

    g = np.linspace(-1, 1, k + 1)
    for ax in range(3):
        for s in (-1, 1):
            for i in range(k):
                for j in range(k):

                    def corner(a, b):
                        p = np.zeros(3)
                        p[ax], p[(ax + 1) % 3], p[(ax + 2) % 3] = s, g[a], g[b]
                        return p

                    q = [vid(corner(i, j)), vid(corner(i + 1, j)), vid(corner(i + 1, j + 1)), vid(corner(i, j + 1))]
                    q = q[::-1] if s < 0 else q
                    faces += [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]
    v = np.array(verts) * np.array([1, 1.5, 0.7]) + jitter * rng.normal(size=(len(verts), 3))
    f = np.array(faces)[rng.permutation(len(faces))]
    return (
        "".join("v %.9f %.9f %.9f\n" % tuple(x) for x in v) + "".join("f %d %d %d\n" % tuple(x + 1) for x in f)
    ).encode()


@pytest.mark.compiler
@pytest.mark.oracle
@pytest.mark.parametrize("k, jitter", [(3, 0.0), (8, 0.0), (8, 1e-3), (12, 0.0)])
def test_bvh_matches_with_ties(k, jitter):
    """Mesh face BVH (up to 1728 faces) and a body BVH over geoms at tied positions: every node as MuJoCo's."""
    from sim.compiler import compile_document
    from sim.mjcf import reader

    rng = np.random.default_rng(k)
    obj = _subdivided_box_obj(k, rng, jitter)
    spheres = "".join(
        '<geom type="sphere" size=".1" pos="%g %g %g"/>' % tuple(np.round(rng.uniform(-1, 1, 3), 1)) for _ in range(9)
    )
    xml = (
        f'<mujoco><asset><mesh name="c" file="c.obj"/></asset><worldbody><body><freejoint/>'
        f'<geom type="mesh" mesh="c" contype="0" conaffinity="0"/>{spheres}</body></worldbody></mujoco>'
    )
    theirs = mujoco.MjModel.from_xml_string(xml, {"c.obj": obj})
    ours = compile_document(reader.read(xml, assets={"c.obj": obj}), set_constants=False)
    assert theirs.mesh_bvhnum[0] == 4 * 6 * k * k - 1
    oracle.assert_models_match(
        ours,
        theirs,
        names=False,
        fields=[
            "mesh_face",
            "mesh_vert",
            "bvh_aabb",
            "bvh_child",
            "bvh_nodeid",
            "bvh_depth",
            "body_bvhadr",
            "body_bvhnum",
            "mesh_bvhadr",
            "mesh_bvhnum",
            "nbvh",
        ],
    )


def test_names_buffer_copies():
    """Model.names is MuJoCo's name buffer (bytes) and survives pickle / deepcopy with its per-kind lookup."""
    import pickle

    import sim

    xml = '<mujoco model="nm"><worldbody><body name="b"><freejoint/><geom name="g" size=".1"/></body></worldbody></mujoco>'
    ours = sim.load_model(xml)
    assert ours.names == mujoco.MjModel.from_xml_string(xml).names
    for other in (pickle.loads(pickle.dumps(ours)), copy.deepcopy(ours)):
        assert other.names == ours.names and other.names["geom"] == ["g"] and other.geom("g").id == 0
