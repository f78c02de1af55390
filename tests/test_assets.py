"""<asset> compilation (meshes, height fields, textures, materials) against the MuJoCo 3.17 oracle.

Fields are compared with the oracle's dtype: float32 fields (mesh_vert, mesh_normal, hfield_data, mat_*)
and float64 fields to 1e-10 unless a test says why not. The convex hulls (mesh_graph, hull faces, mesh_extrema,
polygons) are qhull's laid out as MuJoCo lays them out (compiler.qhull): compared exactly, in MuJoCo's order,
and by the order-free oracle.hull_mismatches as well.
"""

import os
import struct

import mujoco
import numpy as np
import pytest

from sim.compiler import assets as A, mesh as M
from sim.compiler.context import Context
from sim.user_util import frameaccum, quat2mat
from sim.compiler.hfield import hfield_geom_properties
from sim.errors import ModelError, UnsupportedError
from sim.mjcf import reader

import oracle

HERE = os.path.dirname(os.path.abspath(__file__))
ASSETS = os.path.join(HERE, "assets")
TOL = 1e-10

# fields laid out in qhull's order: compared exactly (integers) / bit for bit (polygon normals)
HULL_ORDER_FIELDS = oracle.HULL_ORDER_FIELDS


def files(*names):
    out = {}
    for n in names:
        with open(os.path.join(ASSETS, n), "rb") as fh:
            out[n] = fh.read()
    return out


def compile_both(xml, assets=None):
    ctx = Context(reader.read(xml, assets=assets))
    A.compile_assets(ctx)
    return ctx, mujoco.MjModel.from_xml_string(xml, assets or {})


def compare(ctx, m, skip=(), tol=None):
    """Every field we produce that MjModel has: shapes equal, ints exact, floats within tolerance.
    Returns {field: max abs error} for floats."""
    tol = tol or {}
    errs = {}
    for k, v in ctx.f.items():
        if k in skip or not hasattr(m, k):
            continue
        o = getattr(m, k)
        if isinstance(o, (int, np.integer)):
            assert int(v) == int(o), k
            continue
        o, v = np.asarray(o), np.asarray(v)
        assert o.shape == v.shape, (k, o.shape, v.shape)
        if np.issubdtype(o.dtype, np.floating):
            e = float(np.max(np.abs(o.astype(np.float64) - v.astype(np.float64)))) if o.size else 0.0
            errs[k] = e
            assert e <= tol.get(k, 0.0 if k in HULL_ORDER_FIELDS else TOL), (k, e)
        else:
            assert np.array_equal(o.astype(np.int64), v.astype(np.int64)), (k, o, v)
    return errs


def check_hull_matches(ctx, m, i, simplicial):
    mism = oracle.hull_mismatches(ctx.f, m, i, simplicial=simplicial)
    assert not mism, mism


def world_vertices(f, i):
    """Mesh vertices mapped back into the asset frame (mesh_quat * v + mesh_pos): frame-independent."""
    va, vn = f["mesh_vertadr"][i], f["mesh_vertnum"][i]
    v = np.asarray(f["mesh_vert"])[va : va + vn].astype(np.float64)
    return v @ quat2mat(np.asarray(f["mesh_quat"])[i]).T + np.asarray(f["mesh_pos"])[i]


TETRA = "0 0 0 1 0 0 0 1 0 0 0 1"
TETRA_F = "0 2 1 0 1 3 0 3 2 1 2 3"
BOX = "-1 -1 -1 1 -1 -1 1 1 -1 -1 1 -1 -1 -1 1 1 -1 1 1 1 1 -1 1 1"
BOX_F = "0 2 1 0 3 2 4 5 6 4 6 7 0 1 5 0 5 4 1 2 6 1 6 5 2 3 7 2 7 6 3 0 4 3 4 7"


def asset_xml(assets, geoms="", compiler=""):
    return f"<mujoco><compiler {compiler}/><asset>{assets}</asset><worldbody>{geoms}</worldbody></mujoco>"


# ---------------------------------------------------------------------------------------------- meshes


@pytest.mark.parametrize("inertia", ["legacy", "convex", "exact", "shell"])
@pytest.mark.parametrize("scale", ["1 1 1", "0.5 0.5 0.5", "2 2 2"])
def test_inline_tetra_and_box_all_inertia_modes(inertia, scale):
    # a collision geom on the box makes MuJoCo build its hull (mesh_graph, polygons)
    xml = asset_xml(
        # the regular tetrahedron has two equal principal moments: its frame is decided by rounding noise,
        # which for inertia="convex" comes from qhull's face order; so it uses "exact" there
        f'<mesh name="t" vertex="{TETRA}" face="{TETRA_F}" scale="{scale}" '
        f'inertia="{"exact" if inertia == "convex" else inertia}"/>'
        f'<mesh name="b" vertex="{BOX}" face="{BOX_F}" inertia="{inertia}" scale="{scale}"/>',
        '<geom type="mesh" mesh="t" contype="0" conaffinity="0"/><geom type="mesh" mesh="b"/>',
    )
    ctx, m = compile_both(xml)
    errs = compare(ctx, m)
    assert errs["mesh_quat"] <= TOL and errs["mesh_vert"] <= TOL
    check_hull_matches(ctx, m, 1, simplicial=False)


@pytest.mark.parametrize("inertia", ["legacy", "exact", "shell"])
def test_refpos_refquat_uniform_scale(inertia):
    xml = asset_xml(
        f'<mesh name="b" vertex="{BOX}" face="{BOX_F}" inertia="{inertia}" scale="0.5 0.5 0.5" '
        'refpos="0.1 0.2 0.3" refquat="1 0.2 0.3 0.4"/>'
        f'<mesh name="t" vertex="{TETRA}" face="{TETRA_F}" refpos="0.3 0 0" refquat="0 1 0 0"/>'
    )
    ctx, m = compile_both(xml)
    compare(ctx, m)


# Anisotropic scale / irregular shapes: the principal frame comes from MuJoCo 3.17's mjuu_eig3 with the mesh
# tolerance 1e-7 (sim.user_util.eig3 reproduces it bit for bit), so mesh_quat / mesh_vert / mesh_normal
# are compared at the default tolerance (float32 fields exactly as float32); hull-based meshes sum over the
# hull faces in qhull's order, as MuJoCo does.
FRAME_TOL = {}


@pytest.mark.parametrize("inertia", ["legacy", "convex", "exact", "shell"])
@pytest.mark.parametrize("scale", ["1 2 3", "-1 2 3"])
def test_anisotropic_scale(inertia, scale):
    xml = asset_xml(
        f'<mesh name="b" vertex="{BOX}" face="{BOX_F}" inertia="{inertia}" scale="{scale}" '
        'refpos="0.1 0.2 0.3" refquat="1 0.2 0.3 0.4"/>'
        f'<mesh name="t" vertex="{TETRA}" face="{TETRA_F}" scale="{scale}" inertia="{inertia}"/>',
        '<geom type="mesh" mesh="b" contype="0" conaffinity="0"/>',
    )
    ctx, m = compile_both(xml)
    compare(ctx, m, tol=FRAME_TOL)
    if m.mesh_graphadr[0] >= 0:
        check_hull_matches(ctx, m, 0, simplicial=False)
    for i in range(2):
        assert (
            np.max(
                np.abs(
                    world_vertices(ctx.f, i)
                    - world_vertices(
                        {
                            k: getattr(m, k)
                            for k in ("mesh_vertadr", "mesh_vertnum", "mesh_vert", "mesh_quat", "mesh_pos")
                        },
                        i,
                    )
                )
            )
            < 2e-6
        )  # float32 vertices (|v| ~ 3): a few ulps


def test_stl_binary_box_and_tetra():
    a = files("box.stl", "tetra.stl")
    xml = asset_xml(
        '<mesh file="box.stl" inertia="exact"/><mesh name="tet" file="tetra.stl" scale="2 2 2"/>',
        '<geom type="mesh" mesh="box"/><geom type="mesh" mesh="tet"/>',
    )
    ctx, m = compile_both(xml, a)
    compare(ctx, m)
    assert ctx.names["mesh"] == ["box", "tet"]
    check_hull_matches(ctx, m, 0, simplicial=False)
    check_hull_matches(ctx, m, 1, simplicial=True)


def test_stl_ascii_rejected_as_by_mujoco():
    a = files("box_ascii.stl")
    xml = asset_xml('<mesh file="box_ascii.stl"/>')
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_string(xml, a)
    with pytest.raises(ModelError, match="ASCII") as e:
        A.compile_assets(Context(reader.read(xml, assets=a)))
    assert e.value.element == "mesh" and e.value.attribute == "file"


def test_obj_lshape_quads_nonconvex():
    a = files("lshape.obj")
    for inertia in ("legacy", "exact", "convex", "shell"):
        xml = asset_xml(f'<mesh file="lshape.obj" inertia="{inertia}"/>', '<geom type="mesh" mesh="lshape"/>')
        ctx, m = compile_both(xml, a)
        compare(ctx, m, tol=FRAME_TOL)
        check_hull_matches(ctx, m, 0, simplicial=False)
        # the non-convex volume differs from the hull volume: exercised through the inertia box
        assert ctx.meshes[0].volume_ref() > 0


def test_obj_texcoord_normals_and_point_cloud():
    a = files("tetra_uv.obj", "irregular_points.obj")
    xml = asset_xml(
        '<mesh file="tetra_uv.obj"/><mesh file="irregular_points.obj" inertia="convex"/>',
        '<geom type="mesh" mesh="tetra_uv"/><geom type="mesh" mesh="irregular_points"/>',
    )
    ctx, m = compile_both(xml, a)
    # point cloud: faces come from the hull, in qhull's order (as MuJoCo lists them), and so do its vertex normals
    errs = compare(ctx, m, tol=FRAME_TOL)
    assert errs["mesh_normal"] == 0.0
    check_hull_matches(ctx, m, 1, simplicial=True)
    assert m.mesh_texcoordnum[0] == 4 and m.mesh_texcoordadr[1] == -1


def test_irregular_convex_hull_inline():
    rng = np.random.default_rng(11)
    p = rng.normal(size=(30, 3)) * [0.2, 0.1, 0.05]
    vs = " ".join("%.5f" % x for x in p.reshape(-1))
    xml = asset_xml(f'<mesh name="c" vertex="{vs}" inertia="convex"/>', '<geom type="mesh" mesh="c"/>')
    ctx, m = compile_both(xml)
    compare(ctx, m, tol=FRAME_TOL)
    check_hull_matches(ctx, m, 0, simplicial=True)
    assert ctx.f["nmeshface"] == m.nmeshface


def test_msh_binary_format():
    v = np.array([float(x) for x in BOX.split()], np.float32) * 0.2
    fc = np.array([int(x) for x in BOX_F.split()], np.int32)
    data = struct.pack("<4i", 8, 0, 0, 12) + v.tobytes() + fc.tobytes()
    xml = asset_xml('<mesh file="cube.msh" scale="1 1 -1"/>', '<geom type="mesh" mesh="cube"/>')
    ctx, m = compile_both(xml, {"cube.msh": data})
    compare(ctx, m)


def test_maxhullvert_and_smoothnormal_and_default_class():
    xml = (
        '<mujoco><default><mesh scale="0.5 0.5 0.5" inertia="exact"/></default><asset>'
        f'<mesh name="b" vertex="{BOX}" face="{BOX_F}" smoothnormal="true" maxhullvert="8"/></asset>'
        '<worldbody><geom type="mesh" mesh="b"/></worldbody></mujoco>'
    )
    ctx, m = compile_both(xml)
    compare(ctx, m)


# ---------------------------------------------------------------------------------------------- geoms


def geom_fields(ctx, gtype, meshid, gpos, gquat, el=None, fitscale=1.0):
    p = M.mesh_geom_properties(ctx, meshid, el, gtype, fitscale=fitscale)
    pos, quat = frameaccum(gpos, gquat, p["offset_pos"], p["offset_quat"])
    return p, pos, quat


@pytest.mark.parametrize("fitaabb", ["false", "true"])
def test_mesh_geom_properties_and_fitting(fitaabb):
    a = files("box.stl")
    types = ["mesh", "sphere", "capsule", "cylinder", "ellipsoid", "box"]
    geoms = "".join(
        f'<geom type="{t}" mesh="box" pos="0.1 -0.2 0.3" euler="10 20 30" fitscale="1.2" contype="0" conaffinity="0"/>'
        for t in types
    )
    xml = asset_xml(
        '<mesh file="box.stl" refquat="1 0.1 0.2 0.3"/>',
        f'<body pos="1 0 0">{geoms}</body>',
        compiler=f'fitaabb="{fitaabb}"',
    )
    ctx, m = compile_both(xml, a)
    geq = mujoco.MjModel.from_xml_string(asset_xml("", '<geom size="1" pos="0.1 -0.2 0.3" euler="10 20 30"/>'), {})
    gpos, gquat = geq.geom_pos[0], geq.geom_quat[0]
    for i, t in enumerate(types):
        gt = int(mujoco.mjtGeom.__members__["mjGEOM_" + t.upper()])
        p, pos, quat = geom_fields(ctx, gt, 0, gpos, gquat, fitscale=1.2)
        assert np.max(np.abs(pos - m.geom_pos[i])) < TOL
        assert np.max(np.abs(quat - m.geom_quat[i])) < TOL
        assert np.max(np.abs(p["size"] - m.geom_size[i])) < TOL, t
        if t == "mesh":
            assert p["is_mesh"] and m.geom_dataid[i] == 0
            assert np.max(np.abs(p["aabb"] - m.geom_aabb[i])) < TOL
            assert abs(p["rbound"] - m.geom_rbound[i]) < TOL
        else:
            assert not p["is_mesh"] and m.geom_dataid[i] == -1


def test_mesh_geom_mass_inertia_single_body():
    """A body whose only geom is a mesh: body_mass/body_inertia from volume*density and unit_inertia."""
    a = files("lshape.obj")
    xml = asset_xml(
        '<mesh file="lshape.obj" inertia="exact"/>',
        '<body><freejoint/><geom type="mesh" mesh="lshape" density="700"/></body>',
    )
    ctx, m = compile_both(xml, a)
    p = M.mesh_geom_properties(ctx, 0, None, M.GEOM_MESH)
    mass = 700 * p["volume"]
    assert abs(mass - m.body_mass[1]) < 1e-10
    assert np.max(np.abs(mass * p["unit_inertia"] - m.body_inertia[1])) < 1e-10


def test_shellinertia_on_mesh_geom_is_error():
    a = files("tetra.stl")
    xml = asset_xml('<mesh file="tetra.stl"/>', '<geom type="mesh" mesh="tetra" shellinertia="true"/>')
    with pytest.raises(ValueError, match="inertia should be specified in the mesh"):
        mujoco.MjModel.from_xml_string(xml, a)
    ctx = Context(reader.read(xml, assets=a))
    A.compile_assets(ctx)
    geom = ctx.root.first("worldbody").first("geom")
    with pytest.raises(ModelError) as e:
        M.mesh_geom_properties(ctx, 0, geom, M.GEOM_MESH)
    assert e.value.attribute == "shellinertia"


def test_body_fields_through_load_model():
    """Mesh geoms at offset poses in bodies: body mass/inertia/ipos/iquat (needs the lead's load_model)."""
    sim = pytest.importorskip("sim")
    if not hasattr(sim, "load_model"):
        pytest.skip("sim.load_model not available yet")
    a = files("lshape.obj", "box.stl")
    xml = asset_xml(
        '<mesh file="lshape.obj" inertia="exact"/><mesh file="box.stl" inertia="shell"/>',
        '<body pos="0 0 1"><freejoint/>'
        '<geom type="mesh" mesh="lshape" pos="0.1 0.2 0" euler="0 30 0"/>'
        '<geom type="mesh" mesh="box" pos="-0.3 0 0.1" mass="2"/>'
        '<geom type="box" mesh="box" pos="0 0 -0.4"/></body>',
    )
    ours = sim.load_model(xml, assets=a)
    m = mujoco.MjModel.from_xml_string(xml, a)
    for k in ("body_mass", "body_ipos", "geom_size", "geom_rbound"):
        assert np.max(np.abs(np.asarray(getattr(ours, k)) - getattr(m, k))) < 1e-9, k
    for k in ("body_inertia", "body_iquat", "geom_pos", "geom_quat"):
        assert np.max(np.abs(np.asarray(getattr(ours, k)) - getattr(m, k))) < TOL, k


# ---------------------------------------------------------------------------------------------- hfields


def test_hfield_inline_and_binary_file():
    a = files("terrain.bin")
    xml = asset_xml(
        '<hfield name="inl" nrow="3" ncol="4" size="1 2 0.5 0.1" '
        'elevation="1 2 3 4 5 6 7 8 9 10 11 12.5"/>'
        '<hfield name="zero" nrow="2" ncol="2" size="1 1 1 1"/>'
        '<hfield file="terrain.bin" size="3 2 1 0.2"/>',
        '<geom type="hfield" hfield="inl"/><geom type="hfield" hfield="terrain" pos="1 1 0"/>',
    )
    ctx, m = compile_both(xml, a)
    compare(ctx, m)
    assert ctx.names["hfield"] == ["inl", "zero", "terrain"]
    for gi, hid in ((0, 0), (1, 2)):
        p = hfield_geom_properties(ctx, hid)
        assert np.max(np.abs(p["size"] - m.geom_size[gi])) < TOL
        assert np.max(np.abs(p["aabb"] - m.geom_aabb[gi])) < TOL
        assert abs(p["rbound"] - m.geom_rbound[gi]) < TOL


def test_hfield_errors():
    with pytest.raises(ModelError, match="nrow"):
        A.compile_assets(
            Context(reader.read(asset_xml('<hfield nrow="2" ncol="2" size="1 1 1 1" elevation="1 2 3"/>')))
        )
    # (named: a nameless inline hfield is refused first, "empty name in height field", as MuJoCo refuses it)
    with pytest.raises(ModelError, match="positive"):
        A.compile_assets(Context(reader.read(asset_xml('<hfield name="h" nrow="2" ncol="2" size="1 1 0 1"/>'))))
    # a truncated PNG: an error for MuJoCo (lodepng) and for our decoder (tests/models/textures_png.xml: valid ones)
    truncated = asset_xml('<hfield file="h.png" size="1 1 1 1"/>')
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_string(truncated, {"h.png": b"\x89PNG"})
    with pytest.raises(ModelError, match="PNG") as e:
        A.compile_assets(Context(reader.read(truncated, assets={"h.png": b"\x89PNG"})))
    assert e.value.element == "hfield" and e.value.attribute == "file"
    bad = struct.pack("<2i", 3, 3) + b"\0" * 8
    with pytest.raises(ModelError, match="file size"):
        A.compile_assets(
            Context(reader.read(asset_xml('<hfield file="t.bin" size="1 1 1 1"/>'), assets={"t.bin": bad}))
        )


# ---------------------------------------------------------------------------------------------- textures


def test_builtin_textures_and_materials():
    xml = asset_xml(
        '<texture name="grid" type="2d" builtin="checker" rgb1=".1 .2 .3" rgb2=".2 .3 .4" width="32" height="16" '
        'mark="edge" markrgb=".8 .8 .8"/>'
        '<texture name="sky" type="skybox" builtin="gradient" rgb1=".3 .5 .7" rgb2="0 0 0" width="16" '
        'height="16"/>'
        '<texture name="cube" type="cube" builtin="flat" rgb1="1 0 0" rgb2="0 1 0" width="8" mark="cross" '
        'markrgb="0 0 1"/>'
        '<texture name="dots" type="2d" builtin="gradient" width="20" height="10" mark="random" random="0.1" '
        'markrgb="1 1 1"/>'
        '<texture name="cchk" type="cube" builtin="checker" width="6" mark="random" random="0.3"/>'
        '<material name="m0" texture="grid" texrepeat="2 3" texuniform="true" emission="0.1" specular="0.3" '
        'shininess="0.7" reflectance="0.2" rgba="0.1 0.2 0.3 0.4"/>'
        '<material name="m1"><layer texture="sky" role="rgb"/><layer texture="cube" role="normal"/></material>'
        '<material name="m2" metallic="0.5" roughness="0.25"/>'
    )
    ctx, m = compile_both(xml)
    compare(ctx, m)
    assert np.array_equal(ctx.f["tex_data"], m.tex_data)


def test_material_defaults_and_errors():
    xml = (
        '<mujoco><default><material specular="0.9" rgba="1 0 0 1"/><default class="c">'
        '<material shininess="0.1"/></default></default><asset>'
        '<material name="a"/><material name="b" class="c" rgba="0 1 0 1"/></asset></mujoco>'
    )
    ctx, m = compile_both(xml)
    compare(ctx, m)
    with pytest.raises(ModelError, match="unknown texture") as e:
        A.compile_assets(Context(reader.read(asset_xml('<material name="a" texture="nope"/>'))))
    assert e.value.attribute == "texture"
    missing = asset_xml('<texture name="t" type="2d" file="t.png"/>')
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_string(missing)
    with pytest.raises(ModelError) as e:
        A.compile_assets(Context(reader.read(missing)))
    assert e.value.element == "texture" and e.value.attribute == "file"
    bad = '<texture name="t" type="2d" builtin="flat" width="4" height="4" nchannel="4"/>'
    with pytest.raises(ValueError, match="3 channels"):
        mujoco.MjModel.from_xml_string(asset_xml(bad))
    with pytest.raises(ModelError, match="3 channels"):
        A.compile_assets(Context(reader.read(asset_xml(bad))))


# ---------------------------------------------------------------------------------------------- errors


def test_mesh_errors():
    def ours(assets_xml, geoms="", assets=None):
        A.compile_assets(Context(reader.read(asset_xml(assets_xml, geoms), assets=assets)))

    with pytest.raises(ModelError) as e:
        ours('<mesh file="missing.stl"/>')
    assert e.value.element == "mesh" and e.value.attribute == "file"
    with pytest.raises(ModelError, match="vertex index 7 does not exist") as e:
        ours(f'<mesh name="t" vertex="{TETRA}" face="0 1 7 0 1 2"/>')
    assert e.value.attribute == "face"
    with pytest.raises(ModelError, match="at least 4 vertices"):
        ours('<mesh name="t" vertex="0 0 0 1 0 0 0 1 0"/>')
    with pytest.raises(ModelError, match="coplanar"):
        ours('<mesh name="t" vertex="0 0 0 1 0 0 0 1 0 1 1 0"/>')
    with pytest.raises(ModelError, match="inconsistent orientation"):
        ours(f'<mesh name="t" vertex="{TETRA}" face="0 1 2 0 1 3 0 3 2 1 2 3" inertia="exact"/>')
    with pytest.raises(ModelError, match="wrong size|ASCII"):
        ours('<mesh file="bad.stl"/>', assets={"bad.stl": b"\0" * 80 + struct.pack("<i", 3) + b"\0" * 10})
    with pytest.raises(ModelError, match="maxhullvert"):
        ours(f'<mesh name="t" vertex="{TETRA}" maxhullvert="3"/>')
    with pytest.raises(ModelError, match="repeated name"):
        ours(f'<mesh name="t" vertex="{TETRA}"/><mesh name="t" vertex="{TETRA}"/>')
    with pytest.raises(UnsupportedError):
        ours('<mesh name="s"><plugin plugin="mujoco.sdf.torus"/></mesh>')
    # each of these is also an error in MuJoCo
    for bad in (
        f'<mesh name="t" vertex="{TETRA}" face="0 1 7 0 1 2"/>',
        '<mesh name="t" vertex="0 0 0 1 0 0 0 1 0 1 1 0"/>',
        '<mesh file="missing.stl"/>',
    ):
        with pytest.raises(ValueError):
            mujoco.MjModel.from_xml_string(asset_xml(bad, '<geom type="mesh" mesh="t"/>'))


def test_unknown_mesh_name_on_geom():
    ctx = Context(reader.read(asset_xml(f'<mesh name="t" vertex="{TETRA}"/>', '<geom type="mesh" mesh="x"/>')))
    A.compile_assets(ctx)
    geom = ctx.root.first("worldbody").first("geom")
    with pytest.raises(ModelError) as e:
        ctx.lookup("mesh", geom.get("mesh"), geom, "mesh")
    assert e.value.element == "geom" and e.value.attribute == "mesh"


def test_meshdir_and_strippath(tmp_path):
    d = tmp_path / "meshes"
    d.mkdir()
    with open(os.path.join(ASSETS, "tetra.stl"), "rb") as fh:
        (d / "tetra.stl").write_bytes(fh.read())
    xml = asset_xml(
        '<mesh file="some/where/tetra.stl"/>',
        '<geom type="mesh" mesh="tetra"/>',
        compiler='meshdir="meshes" strippath="true"',
    )
    path = tmp_path / "model.xml"
    path.write_text(xml)
    ctx = Context(reader.read_file(str(path)))
    A.compile_assets(ctx)
    m = mujoco.MjModel.from_xml_path(str(path))
    compare(ctx, m)


# ---------------------------------------------------------------------------------------------- principal frame


def _library_eig3():
    """MuJoCo 3.17's own mjuu_eig3(eigval, eigvec, quat, mat, tol) (exported C++ symbol), or None."""
    import ctypes

    path = os.path.join(os.path.dirname(mujoco.__file__), f"libmujoco.so.{mujoco.__version__}")
    try:
        fn = getattr(ctypes.CDLL(path), "_Z9mjuu_eig3PdS_S_PKdd")
    except (OSError, AttributeError):
        return None
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_double]

    def eig3(mat, tol):
        ev, vec, q, a = np.zeros(3), np.zeros(9), np.zeros(4), np.array(mat, dtype=np.float64)
        fn(ev.ctypes.data, vec.ctypes.data, q.ctypes.data, a.ctypes.data, tol)
        return ev, q

    return eig3


def test_eig3_is_bitwise_mujoco():
    """sim.user_util.eig3 against the library's mjuu_eig3 on random symmetric matrices (all scales, near-
    diagonal ones), at the mesh and body tolerances: eigenvalues and quaternion identical to the last bit."""
    from sim.user_util import EIG_TOL_BODY, EIG_TOL_MESH, eig3

    lib = _library_eig3()
    if lib is None:
        pytest.skip("mjuu_eig3 is not exported by this mujoco build")
    rng = np.random.default_rng(3)
    for k in range(600):
        a = rng.normal(size=(3, 3)) * 10.0 ** rng.uniform(-8, 3)
        if k % 3 == 0:
            a = np.diag(rng.uniform(1, 2, 3)) + 1e-7 * a
        s = (a @ a.T if k % 2 else a + a.T).reshape(9)
        for tol in (EIG_TOL_MESH, EIG_TOL_BODY):
            e1, q1 = eig3(s, tol=tol)
            e2, q2 = lib(s, tol)
            assert np.array_equal(e1, e2) and np.array_equal(q1, q2), (k, tol, e1 - e2, q1 - q2)


def test_random_irregular_meshes_frame_exact():
    """Perturbed boxes with anisotropic (also mirroring) scale and refquat: mesh_pos / mesh_quat (float64) and
    mesh_vert / mesh_normal (float32) equal MuJoCo's exactly."""
    rng = np.random.default_rng(5)
    box = np.array([float(x) for x in BOX.split()]).reshape(8, 3)
    for k in range(30):
        v = box * rng.uniform(0.2, 2, 3) + rng.normal(scale=0.15, size=(8, 3))
        vs = " ".join("%.6g" % x for x in v.reshape(-1))
        inertia = ("legacy", "exact", "shell")[k % 3]
        sc = " ".join("%.4g" % x for x in rng.uniform(0.3, 3, 3) * (-1 if k % 7 == 0 else 1))
        rq = " ".join("%.4g" % x for x in rng.normal(size=4))
        xml = asset_xml(
            f'<mesh name="m" vertex="{vs}" face="{BOX_F}" inertia="{inertia}" scale="{sc}" refquat="{rq}"/>'
        )
        ctx, m = compile_both(xml)
        for f in ("mesh_quat", "mesh_pos", "mesh_vert", "mesh_normal"):
            assert np.array_equal(np.asarray(ctx.f[f]), getattr(m, f)), (k, f)
