"""Procedural meshes (<mesh builtin=.. params=..>) against MuJoCo 3.17: every mjtMeshBuiltin value.

Two levels: the user data mjs_makeMesh generates (read from the oracle's MjSpec: uservert / userface /
usernormal / inertia, compared bit for bit), and the compiled model (every mesh_* field and the body inertia
through our mesh pipeline, with test_assets.compare: float32 fields exact, float64 within 1e-10; measured 0).
The params validation is compared message by message with MuJoCo's.
"""

import mujoco
import numpy as np
import pytest

import sim
from sim.compiler import mesh_builtin as B
from sim.errors import ModelError

from test_assets import check_hull_matches, compare, compile_both

NAMES = {
    k.lower(): int(v)
    for k, v in ((n[len("mjMESH_BUILTIN_") :], v) for n, v in mujoco.mjtMeshBuiltin.__members__.items())
}

# (builtin, params): one cheap case per builtin in the default set, more under --full
DEFAULT = [
    ("sphere", "1"),
    ("hemisphere", "2"),
    ("cone", "5 0.5"),
    ("cone", "7 0"),
    ("supersphere", "8 0.5 2"),
    ("supertorus", "8 .3 .5 2"),
    ("wedge", "5 4 120 45 0.3"),
    ("plate", "5 4"),
    ("grid", "2 3 4 .1 .2 .3"),
    ("grid", "4 5 1 -.1 .25 .3 2"),
    ("box", "3 3 3 .1 .2 .3 2"),
    ("cylinder", "2 3 4 .1 .2 .3"),
    ("ellipsoid", "4 5 3 .3 .2 .1 2"),
    ("square", "5 5 1 .1 .2 .3"),
    ("disc", "6 6 1 .1 .1 .1"),
]
FULL = [
    ("sphere", "0"),
    ("sphere", "3"),
    ("sphere", "4"),
    ("sphere", "2.7"),
    ("hemisphere", "0"),
    ("hemisphere", "10"),
    ("cone", "3 1"),
    ("cone", "12 2"),
    ("cone", "8 -1"),
    ("supersphere", "3 1 1"),
    ("supersphere", "12 2.5 0.3"),
    ("supersphere", "5 0 0"),
    ("supertorus", "3 1 1 1"),
    ("supertorus", "16 .5 2 .7"),
    ("wedge", "3 3 60 30 0"),
    ("wedge", "8 6 180 90 1"),
    ("wedge", "2 7 33 17 0.7"),
    ("plate", "6 2"),
    ("plate", "2 3"),
    ("grid", "3 3 3 .1 .1 .1 3"),
    ("box", "2 3 4 .1 .2 .3"),
    ("box", "5 4 6 .1 .1 .2 3"),
    ("cylinder", "3 3 3 .1 .2 .3 2"),
    ("ellipsoid", "2 3 4 .1 .2 .3"),
    ("square", "6 6 1 .1 .1 .1"),
    ("disc", "8 8 1 .1 .2 .1"),
]
CASES = DEFAULT + [pytest.param(*c, marks=pytest.mark.full) for c in FULL]


def mesh_xml(builtin, params, collide=True, extra=""):
    ca = "" if collide else ' contype="0" conaffinity="0"'
    return (
        f'<mujoco><asset><mesh name="m" builtin="{builtin}" params="{params}"{extra}/></asset>'
        f'<worldbody><body><freejoint/><geom type="mesh" mesh="m"{ca}/></body></worldbody></mujoco>'
    )


def test_every_builtin_value_is_covered():
    assert set(NAMES) - {"none"} == {b for b, _ in DEFAULT}


@pytest.mark.parametrize("builtin,params", CASES)
def test_generated_user_data_bitwise(builtin, params):
    spec = mujoco.MjSpec.from_string(mesh_xml(builtin, params, collide=False))
    me = spec.meshes[0]
    got = B.make_builtin(NAMES[builtin], params.split())
    np.testing.assert_array_equal(got["vert"], np.asarray(me.uservert, np.float32).reshape(-1, 3))
    np.testing.assert_array_equal(got.get("face", np.zeros((0, 3))), np.asarray(me.userface).reshape(-1, 3))
    np.testing.assert_array_equal(
        got.get("normal", np.zeros((0, 3), np.float32)), np.asarray(me.usernormal, np.float32).reshape(-1, 3)
    )
    assert got.get("inertia", int(mujoco.mjtMeshInertia.mjMESH_INERTIA_LEGACY)) == int(me.inertia)


@pytest.mark.parametrize("builtin,params", CASES)
def test_compiled_mesh_fields(builtin, params):
    # flat shapes (plate, square, disc, 2-D grid) have no convex hull: MuJoCo refuses them on a colliding geom
    p = params.split()
    flat = builtin in ("plate", "square", "disc") or (builtin == "grid" and len(p) == 7 and p[6] == "2")
    for collide in (False,) if flat else (True, False):
        xml = mesh_xml(builtin, params, collide)
        ctx, m = compile_both(xml)
        errs = compare(ctx, m)
        assert max(errs.values()) == 0.0, errs
        if collide:
            check_hull_matches(ctx, m, 0, simplicial=False)
        ours = sim.load_model(xml)
        for k in ("body_mass", "body_inertia", "body_ipos", "body_iquat"):
            np.testing.assert_array_equal(np.asarray(getattr(ours, k)), getattr(m, k), err_msg=k)


@pytest.mark.parametrize("builtin", ["plate", "square", "disc"])
def test_flat_builtin_on_colliding_geom_refused_as_mujoco(builtin):
    params = "3 4" if builtin == "plate" else "3 4 1 .1 .1 .1"
    xml = mesh_xml(builtin, params)
    with pytest.raises(ValueError, match="coplanar vertices") as theirs:
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(ModelError, match="coplanar vertices"):
        sim.load_model(xml)
    assert "coplanar" in str(theirs.value)


BAD = [
    ("sphere", "1 2"),
    ("sphere", "-1"),
    ("sphere", "5"),
    ("hemisphere", "-1"),
    ("hemisphere", "11"),
    ("hemisphere", "1 2"),
    ("cone", "3"),
    ("supersphere", "2 1 1"),
    ("supersphere", "3 -1 1"),
    ("supersphere", "3 1 -1"),
    ("supersphere", "3 1"),
    ("supertorus", "2 .5 1 1"),
    ("supertorus", "3 0 1 1"),
    ("supertorus", "3 1.5 1 1"),
    ("supertorus", "3 .5 0 1"),
    ("supertorus", "3 .5 1 0"),
    ("wedge", "2 2 60 30"),
    ("wedge", "2 2 0 30 0"),
    ("wedge", "2 2 181 30 0"),
    ("wedge", "2 2 60 0 0"),
    ("wedge", "2 2 60 91 0"),
    ("wedge", "0 2 60 30 0"),
    ("wedge", "2 2 60 30 -1"),
    ("wedge", "2 2 60 30 1.5"),
    ("plate", "0 1"),
    ("plate", "2"),
    ("grid", "2 3"),
    ("grid", "2 2 2 .1 .1 .1 1"),
    ("grid", "2 2 2 .1 .1 .1 4"),
    ("grid", "0 2 2 .1 .1 .1"),
    ("grid", "2 -1 2 .1 .1 .1 2"),
    ("grid", "2 2 2 .1 .1 .1 2"),
    ("grid", "2 2 0 .1 .1 .1 2"),
    ("grid", "2 3 1 .1 .2 .3"),
    ("grid", "2 1 1 .1 .1 .1 2"),
    ("box", "1"),
    ("box", "1 2 2 .1 .1 .1"),
    ("cylinder", "2 2 2 .1 .1 .1 1"),
    ("ellipsoid", "0 2 2 .1 .1 .1 5"),
    ("square", "2 2 1 .1 .1 .1 2"),
    ("square", "0 2 2 .1 .1 .1"),
    ("disc", "2 2 0 .1 .1 .1"),
    ("square", "1 2 1 .1 .1 .1"),
    ("none", "1"),
]


@pytest.mark.parametrize("builtin,params", BAD)
def test_params_errors_as_mujoco(builtin, params):
    xml = mesh_xml(builtin, params)
    with pytest.raises(ValueError) as theirs:
        mujoco.MjModel.from_xml_string(xml)
    msg = str(theirs.value).split("\n")[0].removeprefix("XML Error: Error: ")
    with pytest.raises(ModelError) as ours:
        sim.load_model(xml)
    assert ours.value.element == "mesh" and ours.value.attribute == "params" and ours.value.line == 1
    assert str(ours.value).endswith(msg), (str(ours.value), msg)


def test_builtin_without_params_refused_as_mujoco():
    xml = mesh_xml("sphere", "1").replace(' params="1"', "")
    with pytest.raises(ValueError, match="required attribute missing: 'params'"):
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(ModelError, match="required attribute missing: 'params'") as e:
        sim.load_model(xml)
    assert e.value.attribute == "params"


def test_builtin_overrides_user_inertia_faces_normals():
    # plate imposes shell inertia over the attribute; its faces and frames replace inline ones
    xml = mesh_xml("plate", "5 4", collide=False, extra=' inertia="convex" face="0 1 2" normal="0 0 1"')
    ctx, m = compile_both(xml)
    assert max(compare(ctx, m).values()) == 0.0
    assert m.mesh_vertnum[0] == 20 and m.mesh_facenum[0] == 24


@pytest.mark.parametrize("other", ['vertex="0 0 0 1 0 0 0 1 0 0 0 1"', 'file="a.stl"'])
def test_builtin_with_vertex_or_file_is_a_schema_violation(other):
    xml = mesh_xml("sphere", "1", extra=" " + other)
    with pytest.raises(ValueError) as theirs:
        mujoco.MjModel.from_xml_string(xml)
    msg = str(theirs.value).split("\n")[0].removeprefix("XML Error: ")
    with pytest.raises(ModelError) as ours:
        sim.load_model(xml)
    assert str(ours.value).endswith(msg), (str(ours.value), msg)
