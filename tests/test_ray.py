"""mj_ray (sim/engine/ray.py) against mujoco.mj_ray: random rays through scenes of every supported geom type.

Every scene runs twice on the sim side: with the mujoco.MjModel itself and with our compiled Model
(sim.load_model, whose mesh BVHs come from sim/compiler/bvh.py). Distances must agree to 1e-12, surface normals
(mj_ray's normal output) bitwise. Rangefinders reporting normals on meshes and height fields: their sensordata
bitwise (the rangefinder kernel at MuJoCo's kinematics by default, the whole mj_forward under --full).
"""

import os

import mujoco
import numpy as np
import pytest

from sim.api import Data as SimData, forward as sim_forward
from sim.api import ray
from sim import api
from sim.jit import features
from sim.jit.features import F_RAYNORMAL
import sim
import oracle

ASSETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "assets")
TOL = 1e-12
# Rays that hit a mesh whose principal frame our compiler chooses differently from MuJoCo's (two equal
# principal moments make mesh_quat arbitrary up to a rotation about the repeated axis: the scene's 'tet'):
# mesh_vert is float32 in that frame, so the same triangles differ by float32 rounding (~1e-8 relative);
# measured distance error 6.5e-10. Every other hit is held to TOL.
TOL_FRAME = 1e-8


def _frame_differs(m, sm):
    """Geom ids of mesh geoms whose mesh frame differs between the oracle model and the sim-side model."""
    if sm is m:
        return set()
    out = set()
    for g in range(m.ngeom):
        if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH:
            i = m.geom_dataid[g]
            if not (
                np.allclose(sm.mesh_quat[i], m.mesh_quat[i], atol=1e-12, rtol=0)
                or np.allclose(sm.mesh_quat[i], -m.mesh_quat[i], atol=1e-12, rtol=0)
            ):
                out.add(g)
    return out


MESH = """<mesh name="tet" vertex="0 0 0  .3 0 0  0 .3 0  0 0 .3"/>
          <mesh name="oct" vertex=".2 0 0  -.2 0 0  0 .25 0  0 -.25 0  0 0 .15  0 0 -.15"/>"""

SCENE = """
<mujoco>
  <asset>{mesh}<material name="hidden" rgba="1 1 1 0"/></asset>
  <worldbody>
    <geom type="plane" size="3 3 .1" group="0"/>
    <geom type="plane" size="0 0 1" pos="0 0 -1" group="5"/>
    <geom type="box" size=".3 .3 .3" pos="1.5 1.5 .3" group="1"/>
    <body name="b1" pos="0 0 1"><freejoint/>
      <geom type="sphere" size=".2" group="1"/>
      <geom type="capsule" size=".1 .3" pos=".4 0 0" group="2"/>
      <geom type="ellipsoid" size=".1 .2 .3" pos="-.4 0 0" group="3"/>
    </body>
    <body name="b2" pos=".5 .8 .8"><freejoint/>
      <geom type="cylinder" size=".15 .25" group="4"/>
      <geom type="box" size=".1 .2 .15" pos="0 .5 0" group="2"/>
      <geom type="sphere" size=".15" pos="0 -.5 0" material="hidden"/>
      <geom type="sphere" size=".15" pos=".5 -.5 0" rgba="1 0 0 0"/>
    </body>
    <body name="b3" pos="-.8 -.5 .6"><freejoint/>
      {meshgeoms}
    </body>
  </worldbody>
</mujoco>
"""


def scene_xml(with_mesh=True):
    return SCENE.format(
        mesh=MESH if with_mesh else "",
        meshgeoms=(
            '<geom type="mesh" mesh="tet"/><geom type="mesh" mesh="oct" pos="0 .5 0"/>'
            if with_mesh
            else '<geom type="box" size=".1 .1 .1"/>'
        ),
    )


def make_model(with_mesh=True):
    return mujoco.MjModel.from_xml_string(scene_xml(with_mesh))


HFIELD_SCENE = """
<mujoco>
  <compiler meshdir="{assets}"/>
  <asset>
    <hfield name="grid" nrow="6" ncol="8" size="1.2 .9 .4 .2" elevation="{elev}"/>
    <hfield file="terrain.bin" size=".8 .8 .3 .1"/>
  </asset>
  <worldbody>
    <geom type="hfield" hfield="grid" pos="0 0 0" group="0"/>
    <geom type="hfield" hfield="terrain" pos="1.4 1.2 .1" euler="5 -10 30" group="1"/>
    <body pos="-.8 -.6 .9"><freejoint/>
      <geom type="box" size=".1 .15 .1" group="2"/>
    </body>
  </worldbody>
</mujoco>
"""


def hfield_xml():
    rng = np.random.default_rng(7)
    elev = " ".join(f"{v:.4f}" for v in rng.uniform(0, 1, 48))
    return HFIELD_SCENE.format(assets=ASSETS, elev=elev)


# colliding meshes: MuJoCo builds their convex hulls; 'cloud' has no faces (its faces are the hull's)
MESH_SCENE = """
<mujoco>
  <compiler meshdir="{assets}"/>
  <asset>
    <mesh file="box.stl" scale=".3 .3 .3"/>
    <mesh file="lshape.obj" scale="2 2 2"/>
    <mesh file="tetra_uv.obj"/>
    <mesh name="cloud" file="irregular_points.obj" scale="2 2 2"/>
  </asset>
  <worldbody>
    <geom type="plane" size="3 3 .1"/>
    <body pos="0 0 1"><freejoint/>
      <geom type="mesh" mesh="box"/>
      <geom type="mesh" mesh="lshape" pos=".5 0 0" euler="10 20 30"/>
    </body>
    <body pos=".5 .8 .8"><freejoint/>
      <geom type="mesh" mesh="tetra_uv"/>
      <geom type="mesh" mesh="cloud" pos="0 -.5 0"/>
    </body>
  </worldbody>
</mujoco>
"""


def mesh_xml():
    return MESH_SCENE.format(assets=ASSETS)


def _models(xml):
    """(oracle MjModel, sim-side models: the MjModel and our compiled Model)."""
    m = mujoco.MjModel.from_xml_string(xml)
    return m, {"mjmodel": m, "compiled": sim.load_model(xml)}


def _states(m, rng, n):
    for _ in range(n):
        q = m.qpos0.copy()
        for j in range(m.njnt):
            a = m.jnt_qposadr[j]
            q[a : a + 3] += rng.normal(0, 0.3, 3)
            qq = rng.normal(size=4)
            q[a + 3 : a + 7] = qq / np.linalg.norm(qq)
        yield q


def _check(m, rng, nstate, nray, sm=None, **kw):
    """Random states and rays: geom id equal and distance within TOL; sm is the sim-side model (m if None)."""
    sm = m if sm is None else sm
    d = mujoco.MjData(m)
    sd = SimData(sm)
    loose = _frame_differs(m, sm)
    nhit = 0
    maxerr = 0.0
    for q in _states(m, rng, nstate):
        d.qpos[:] = q
        mujoco.mj_forward(m, d)
        sd.qpos[:] = q
        sim_forward(sm, sd)
        for _ in range(nray):
            pnt = rng.uniform(-2, 2, 3) + np.array([0, 0, 1.0])
            target = rng.uniform(-1, 1, 3) * np.array([1.5, 1.5, 0.8]) + np.array([0, 0, 0.6])
            vec = (target - pnt) * rng.uniform(0.3, 3)
            gid = np.array([-1], np.int32)
            grp = kw.get("geomgroup")
            nrm = np.full(3, np.nan)
            dist = mujoco.mj_ray(
                m,
                d,
                pnt,
                vec,
                None if grp is None else np.asarray(grp, np.uint8),
                int(kw.get("flg_static", True)),
                kw.get("bodyexclude", -1),
                gid,
                nrm,
            )
            snrm = np.full(3, np.nan)
            sdist, sgid = ray(sm, sd, pnt, vec, normal=snrm, **kw)
            assert sgid == gid[0], (sgid, gid[0], sdist, dist)
            assert abs(sdist - dist) <= (TOL_FRAME if sgid in loose else TOL), (sgid, sdist, dist)
            _check_normal(m, sgid, snrm, nrm, sgid in loose)
            maxerr = max(maxerr, abs(sdist - dist))
            nhit += gid[0] >= 0
    return nhit, maxerr


def _check_normal(m, g, ours, theirs, loose=False):
    """mj_ray's normal output (the ray(..., normal=) argument): zero on a miss, else the normal of the geom's
    surface as engine_ray.c's ray_* / mj_rayMesh / mj_rayHfield compute it; bitwise (measured: every hit of
    this file's scenes, every geom type), loose meshes (see TOL_FRAME) within TOL_FRAME."""
    if loose:
        assert np.max(np.abs(ours - theirs)) <= TOL_FRAME, (g, ours, theirs)
    else:
        assert np.array_equal(ours, theirs), (g, ours, theirs, ours - theirs)


@pytest.mark.oracle
@pytest.mark.parametrize("side", ["mjmodel", "compiled"])
def test_ray_all_types(side):
    m, sms = _models(scene_xml(True))
    nhit, err = _check(m, np.random.default_rng(0), 10, 100, sm=sms[side])
    assert nhit > 200


@pytest.mark.oracle
@pytest.mark.parametrize(
    "kw",
    [
        dict(geomgroup=[1, 0, 1, 0, 1, 0]),
        dict(geomgroup=[0, 1, 1, 1, 1, 1]),
        dict(flg_static=False),
        dict(bodyexclude=1),
        dict(bodyexclude=0),
    ],
    ids=["group_a", "group_b", "nostatic", "exclude1", "exclude_world"],
)
def test_ray_filters(kw):
    m, sms = _models(scene_xml(True))
    for sm in sms.values():
        nhit, _ = _check(m, np.random.default_rng(1), 4, 60, sm=sm, **kw)
        assert nhit > 20


def _hfield_rays(m, rng, n):
    """Rays aimed at the height fields: from above, grazing (nearly horizontal, through the box sides) and
    from below (the base box)."""
    for k in range(n):
        g = k % 2
        centre = np.array([0, 0, 0.1]) if g == 0 else np.array([1.4, 1.2, 0.2])
        target = centre + rng.uniform(-1, 1, 3) * np.array([1.3, 1.0, 0.3])
        kind = k % 3
        if kind == 0:
            pnt = target + np.array([*rng.uniform(-1, 1, 2), rng.uniform(0.5, 2)])
        elif kind == 1:
            ang = rng.uniform(0, 2 * np.pi)
            pnt = target + np.array([2 * np.cos(ang), 2 * np.sin(ang), rng.uniform(-0.1, 0.1)])
        else:
            pnt = target + np.array([*rng.uniform(-0.5, 0.5, 2), -rng.uniform(0.5, 1.5)])
        yield pnt, (target - pnt) * rng.uniform(0.3, 3)


@pytest.mark.oracle
@pytest.mark.parametrize("side", ["mjmodel", "compiled"])
@pytest.mark.parametrize(
    "geomgroup", [None, [1, 0, 1, 0, 0, 0], [0, 1, 0, 0, 0, 0]], ids=["all", "grid_box", "terrain"]
)
def test_ray_hfield(side, geomgroup):
    """mj_rayHfield: random rays against two height fields (one rotated, from a file) and a box; every hit
    geom and distance as mujoco.mj_ray, misses too."""
    m, sms = _models(hfield_xml())
    sm = sms[side]
    rng = np.random.default_rng(3)
    d = mujoco.MjData(m)
    sd = SimData(sm)
    q = m.qpos0.copy()
    d.qpos[:] = q
    mujoco.mj_forward(m, d)
    sd.qpos[:] = q
    sim_forward(sm, sd)
    hits = {0: 0, 1: 0, 2: 0}
    nmiss = 0
    maxerr = 0.0
    grp = None if geomgroup is None else np.asarray(geomgroup, np.uint8)
    for pnt, vec in _hfield_rays(m, rng, 600):
        gid = np.array([-1], np.int32)
        nrm = np.full(3, np.nan)
        dist = mujoco.mj_ray(m, d, pnt, vec, grp, 1, -1, gid, nrm)
        snrm = np.full(3, np.nan)
        sdist, sgid = ray(sm, sd, pnt, vec, geomgroup=geomgroup, normal=snrm)
        assert sgid == gid[0], (pnt, vec, sgid, gid[0], sdist, dist)
        assert abs(sdist - dist) <= TOL, (pnt, vec, sdist, dist)
        _check_normal(m, sgid, snrm, nrm)
        maxerr = max(maxerr, abs(sdist - dist))
        if gid[0] >= 0:
            hits[int(gid[0])] += 1
        else:
            nmiss += 1
    assert nmiss > 20
    if geomgroup is None:
        assert hits[0] > 100 and hits[1] > 100, hits


@pytest.mark.oracle
@pytest.mark.parametrize("side", ["mjmodel", "compiled"])
def test_ray_colliding_meshes(side):
    """Meshes with convex hulls (one a point cloud whose faces are the hull's, listed in another order than
    qhull's: its BVH differs in layout but holds the same faces)."""
    m, sms = _models(mesh_xml())
    nhit, _ = _check(m, np.random.default_rng(5), 6, 100, sm=sms[side])
    assert nhit > 150


@pytest.mark.compiler
@pytest.mark.oracle
@pytest.mark.parametrize("xml", [scene_xml, hfield_xml, mesh_xml], ids=["scene", "hfield", "meshes"])
def test_compiled_bvh_matches(xml):
    """The compiler's bvh_* / body_bvh* / mesh_bvh* arrays (tests/oracle.py compares hull-face meshes as
    sets of leaf boxes), names and paths equal MuJoCo's."""
    text = xml()
    theirs = mujoco.MjModel.from_xml_string(text)
    ours = sim.load_model(text)
    fields = [
        "nbvh",
        "nbvhstatic",
        "nbvhdynamic",
        "bvh_aabb",
        "bvh_child",
        "bvh_nodeid",
        "bvh_depth",
        "body_bvhadr",
        "body_bvhnum",
        "mesh_bvhadr",
        "mesh_bvhnum",
        "names",
        "paths",
        "names_map",
        "mesh_pathadr",
        "hfield_pathadr",
        "noct",
        "mesh_octadr",
        "mesh_octnum",
    ]
    oracle.assert_models_match(ours, theirs, fields=fields, names=False)


# rangefinders with "normal" data on a scene of meshes (one with a convex hull), a tilted height field and an
# ellipsoid, their sites on a free "eye" body (12 directions) plus a perspective and an orthographic camera
RANGEFINDER_SCENE = """
<mujoco>
  <compiler meshdir="{assets}"/>
  <asset>
    <mesh name="oct" vertex=".2 0 0  -.2 0 0  0 .25 0  0 -.25 0  0 0 .15  0 0 -.15"/>
    <mesh file="lshape.obj" scale="2 2 2"/>
    <hfield name="grid" nrow="6" ncol="8" size="1.2 .9 .4 .2" elevation="{elev}"/>
  </asset>
  <worldbody>
    <geom type="hfield" hfield="grid" euler="5 -10 30"/>
    <body name="m" pos="0 0 1"><freejoint/>
      <geom type="mesh" mesh="oct"/>
      <geom type="mesh" mesh="lshape" pos=".5 0 0"/>
      <geom type="ellipsoid" size=".1 .2 .15" pos="-.5 0 0"/>
    </body>
    <body name="eye" pos=".3 .2 1.5"><freejoint/>
      <geom type="sphere" size=".01" rgba="1 1 1 0"/>
      {sites}
      <camera name="cam" resolution="5 4" fovy="60"/>
      <camera name="ortho" resolution="4 3" projection="orthographic" fovy="1.5"/>
    </body>
  </worldbody>
  <sensor>
    {rangefinders}
    <rangefinder camera="cam" data="dist normal depth"/>
    <rangefinder camera="ortho" data="normal"/>
  </sensor>
</mujoco>
"""


def rangefinder_xml():
    rng = np.random.default_rng(7)
    elev = " ".join(f"{v:.4f}" for v in rng.uniform(0, 1, 48))
    az = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    sites = "".join(
        f'<site name="s{i}" zaxis="{np.cos(a):.3f} {np.sin(a):.3f} {z}"/>'
        for i, (a, z) in enumerate(zip(az, [-1, -0.3, 0.2] * 4))
    )
    rf = "".join(f'<rangefinder site="s{i}" data="dist point normal"/>' for i in range(12))
    return RANGEFINDER_SCENE.format(assets=ASSETS, elev=elev, sites=sites, rangefinders=rf)


def _rangefinder_states(m, rng, n):
    """Random poses of the meshes' body and of the eye (above, beside and below the height field)."""
    for _ in range(n):
        q = m.qpos0.copy()
        q[0:3] += rng.normal(0, 0.3, 3)
        q[7:10] = rng.uniform(-1.3, 1.3, 3) + np.array([0, 0, 0.6])
        for a in (3, 10):
            qq = rng.normal(size=4)
            q[a : a + 4] = qq / np.linalg.norm(qq)
        yield q


def _hit_geoms(m, d):
    """Geom ids the site rangefinders hit (mujoco.mj_ray), to check the scene covers every kind."""
    out = []
    for i in range(m.nsensor):
        if m.sensor_objtype[i] == mujoco.mjtObj.mjOBJ_SITE:
            s = m.sensor_objid[i]
            gid = np.array([-1], np.int32)
            mujoco.mj_ray(m, d, d.site_xpos[s], d.site_xmat[s, [2, 5, 8]].copy(), None, 1, m.site_bodyid[s], gid)
            out.append(int(gid[0]))
    return out


@pytest.mark.oracle
@pytest.mark.parametrize("side", ["mjmodel", "compiled"])
def test_rangefinder_normal_kernel(side):
    """Rangefinder sensordata with normals on meshes, a height field and an ellipsoid (site and camera
    rangefinders), bitwise: the rangefinder kernel (sim/engine/sensor.py) at MuJoCo's kinematics, with the
    model's own feature set (F_RAYNORMAL on), so that the test compiles in seconds; the whole mj_forward is
    test_rangefinder_normal_forward's (--full)."""
    from sim.engine.sensor import rangefinder

    xml = rangefinder_xml()
    mm, sms = _models(xml)
    m = sms[side]
    assert not _frame_differs(mm, m)
    F = api.model_features(m)
    assert F[F_RAYNORMAL]
    ms = api.model_struct(m)
    md = mujoco.MjData(mm)
    sd = SimData(m)
    out = np.zeros(mm.nsensordata)
    hits = set()
    for q in _rangefinder_states(mm, np.random.default_rng(3), 60):
        md.qpos[:] = q
        mujoco.mj_forward(mm, md)
        for f in ("geom_xpos", "geom_xmat", "site_xpos", "site_xmat", "cam_xpos", "cam_xmat"):
            getattr(sd, f)[:] = getattr(md, f)
        out[:] = np.nan
        for i in range(mm.nsensor):
            rangefinder(ms, sd._struct, 0, i, out, mm.sensor_adr[i], F)
        assert np.array_equal(out, md.sensordata), np.flatnonzero(out != md.sensordata)
        hits.update(_hit_geoms(mm, md))
    assert hits >= {-1, 0, 1, 2, 3}, hits


@pytest.mark.full
@pytest.mark.oracle
@pytest.mark.parametrize("side", ["mjmodel", "compiled"])
def test_rangefinder_normal_forward(side):
    """The same sensors through sim.forward (mj_forward's sensor stage), bitwise at 200 random poses."""
    xml = rangefinder_xml()
    mm, sms = _models(xml)
    m = sms[side]
    md = mujoco.MjData(mm)
    sd = SimData(m)
    for q in _rangefinder_states(mm, np.random.default_rng(4), 200):
        md.qpos[:] = q
        mujoco.mj_forward(mm, md)
        sd.qpos[:] = q
        sim_forward(m, sd)
        assert np.array_equal(np.asarray(sd.sensordata).reshape(-1), md.sensordata)


def test_rangefinder_normal_feature():
    """F_RAYNORMAL only for a rangefinder with "normal" data in a model with meshes or height fields: without
    it the sensor stage compiles as before (no mesh / height-field normal code)."""
    xml = rangefinder_xml()
    assert features.needs_raynormal(mujoco.MjModel.from_xml_string(xml))
    assert not features.needs_raynormal(
        mujoco.MjModel.from_xml_string(xml.replace(" normal", "").replace('data="normal"', 'data="dist"'))
    )
    assert not features.needs_raynormal(mujoco.MjModel.from_xml_string(scene_xml(True)))
    prim = scene_xml(False).replace("</mujoco>", '<sensor><rangefinder site="s" data="normal"/></sensor></mujoco>')
    prim = prim.replace('<body name="b1" pos="0 0 1">', '<body name="b1" pos="0 0 1"><site name="s"/>')
    assert not features.needs_raynormal(mujoco.MjModel.from_xml_string(prim))
