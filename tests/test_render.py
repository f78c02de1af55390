"""sim.Renderer against MuJoCo: depth and segmentation per pixel against mujoco.mj_multiRay cast from the same
camera through the same pixel centres; cameras, lights and the drawn objects against mjv_updateScene (which
needs no OpenGL); the API of mujoco.Renderer; batched worlds.  The look is checked against committed reference
images in tests/test_render_look.py.
"""

import os

import numpy as np
import pytest

import mujoco

import sim
from sim.render import Camera, SceneOption, apply_camera_config, gymnasium_free_camera
from conftest import gymnasium_assets_dir, TESTS_DIR
from oracle import random_qpos
from numba import njit
from sim.render.layout import VIEW_SHADOW, O_NVIEW, VW_ACTIVE, J_STACK, J_HK, O_TILE, O_NTX, O_W, O_H
from sim.render.layout import PK_OK
from sim.render.shade import outside_occupied, lit_in_map
from sim.render.floor import shade_row
from sim.render.kernels import tile_lists, floor_tile_ok, floor_pixel, pixel_rgb
from sim.render.shade import mirror_in_tile

pytestmark = pytest.mark.oracle

GYM = gymnasium_assets_dir()
MODELS = os.path.join(TESTS_DIR, "models")
SCENE = os.path.join(MODELS, "render_scene.xml")
GYM_MODELS = [
    "hopper.xml",
    "ant.xml",
    "humanoid.xml",
    "half_cheetah.xml",
    "walker2d_v5.xml",
    "swimmer.xml",
    "reacher.xml",
    "pusher_v5.xml",
    "inverted_double_pendulum.xml",
]
LOCAL_MODELS = [
    "render_scene.xml",
    "mesh_bvh.xml",
    "hfield_geom.xml",
    "geoms_primitives.xml",
    "sites_cameras_lights.xml",
]
# geom ids must agree on this fraction of the pixels, depths to this relative error where they do (issue 13)
ID_AGREEMENT = 0.999
DEPTH_RTOL = 1e-6


def _path(name):
    if name in GYM_MODELS:
        if GYM is None:
            pytest.skip("gymnasium is not installed")
        return os.path.join(GYM, name)
    return os.path.join(MODELS, name)


def _pair(path, seed=0, spread=0.1, nworld=None):
    """(our model, our data, MuJoCo's model, MuJoCo's data) at the same random state, poses computed."""
    m = sim.load_model(path)
    mm = mujoco.MjModel.from_xml_path(path)
    md = mujoco.MjData(mm)
    rng = np.random.default_rng(seed)
    md.qpos[:] = random_qpos(mm, rng, spread)
    mujoco.mj_forward(mm, md)
    d = sim.Data(m, nworld=nworld)
    d.qpos = md.qpos.copy()
    sim.forward(m, d)
    return m, d, mm, md


def _no_sites():
    opt = SceneOption()
    opt.sitegroup[:] = 0  # mj_ray sees geoms only
    return opt


def _mj_scene(mm, md, cam, opt=None):
    scn = mujoco.MjvScene(mm, 2000)
    mujoco.mjv_updateScene(mm, md, opt or mujoco.MjvOption(), None, cam, mujoco.mjtCatBit.mjCAT_ALL, scn)
    return scn


def _mj_camera(mm, camera):
    cam = mujoco.MjvCamera()
    if camera == -1:
        mujoco.mjv_defaultFreeCamera(mm, cam)
    else:
        cam.type = mujoco.mjtCamera.mjCAMERA_FIXED
        cam.fixedcamid = camera
    return cam


_GROUPS = np.array([1, 1, 1, 0, 0, 0], np.uint8)


def _geoms_containing(mm, md, p):
    """Primitive geoms whose solid contains point p (a camera inside a geom sees out of it: OpenGL culls the
    back faces, while mj_ray would return the exit point)."""
    out = []
    for g in range(mm.ngeom):
        lp = md.geom_xmat[g].reshape(3, 3).T @ (p - md.geom_xpos[g])
        s = mm.geom_size[g]
        t = mm.geom_type[g]
        if t == mujoco.mjtGeom.mjGEOM_SPHERE:
            inside = lp @ lp < s[0] ** 2
        elif t == mujoco.mjtGeom.mjGEOM_CAPSULE:
            z = np.clip(lp[2], -s[1], s[1])
            inside = lp[0] ** 2 + lp[1] ** 2 + (lp[2] - z) ** 2 < s[0] ** 2
        elif t == mujoco.mjtGeom.mjGEOM_CYLINDER:
            inside = lp[0] ** 2 + lp[1] ** 2 < s[0] ** 2 and abs(lp[2]) < s[1]
        elif t == mujoco.mjtGeom.mjGEOM_BOX:
            inside = np.all(np.abs(lp) < s)
        elif t == mujoco.mjtGeom.mjGEOM_ELLIPSOID:
            inside = np.sum((lp / s) ** 2) < 1
        else:
            inside = False
        if inside:
            out.append(g)
    return out


def _mj_ray(mm, md, o, u):
    gid = np.array([-1], np.int32)
    dist = mujoco.mj_ray(mm, md, o, u, _GROUPS, 1, -1, gid)
    return dist, gid[0]


def _background(mm, c):
    """The depth mujoco.Renderer reports where nothing is drawn: its conversion of a cleared buffer (0)."""
    if c.orthographic:
        return np.float32(mm.vis.map.zfar * mm.stat.extent)
    far = np.float32(mm.vis.map.zfar * mm.stat.extent)
    near = np.float32(mm.vis.map.znear * mm.stat.extent)
    cc = np.float32(-0.5) * (-(far + near) / (far - near)) - np.float32(0.5)
    dc = np.float32(-0.5) * (-(np.float32(2) * far * near) / (far - near))
    return np.float32(np.float64(dc) / np.float64(cc))


def compare_rays(m, d, mm, md, camera, height=48, width=64, world=None):
    """(fraction of pixels whose geom agrees with mj_multiRay cast through our pixel centres, max relative
    depth error where they agree, number of such pixels that hit a geom)."""
    r = sim.Renderer(m, height, width)
    r.update_scene(d, camera=camera, world=world, scene_option=_no_sites())
    r.enable_segmentation_rendering()
    seg = r.render()
    r.enable_depth_rendering()
    depth = r.render()
    c = r.camera(0)
    o, dirs = r.pixel_rays(0)
    n = dirs.reshape(-1, 3)
    unit = n / np.linalg.norm(n, axis=1, keepdims=True)
    nray = len(unit)
    o_rows = np.broadcast_to(np.asarray(o, np.float64).reshape(-1, 3), (nray, 3))
    ours_id = np.where(seg[..., 1].reshape(-1) == mujoco.mjtObj.mjOBJ_GEOM, seg[..., 0].reshape(-1), -1)
    ours_depth = depth.reshape(-1).astype(np.float64)
    geomid = np.zeros(nray, np.int32)
    dist = np.zeros(nray)
    group = mm.geom_group.copy()
    if not c.orthographic:
        mm.geom_group[_geoms_containing(mm, md, c.pos)] = 5  # out of the rays' geomgroup
    try:
        if c.orthographic:  # parallel rays: one mj_ray each
            for i in range(nray):
                dist[i], geomid[i] = _mj_ray(mm, md, o_rows[i], unit[i])
        else:
            mujoco.mj_multiRay(
                mm,
                md,
                np.asarray(o, np.float64),
                unit.reshape(-1),
                _GROUPS,
                1,
                -1,
                geomid,
                dist,
                None,
                nray,
                mujoco.mjMAXVAL,
            )
        # mj_multiRay culls geoms by bounding angles, which misses meshes on some rays (measured: 6 of 3072
        # pixels of mesh_bvh.xml, where mj_ray hits the mesh at our depth); where it disagrees with us, mj_ray
        # (the same semantics without that culling) decides
        for i in np.flatnonzero(ours_id != geomid):
            dist[i], geomid[i] = _mj_ray(mm, md, o_rows[i], unit[i])
    finally:
        mm.geom_group[:] = group
    cosf = unit @ c.forward
    # OpenGL clips what is nearer than the near plane and culls the back faces of a geom the plane cuts: where
    # the hit is that near, cast again from the near plane, leaving out the geoms that contain its start
    for i in np.flatnonzero((geomid >= 0) & (dist * cosf < c.frustum_near)):
        t0 = c.frustum_near / cosf[i]
        p = o_rows[i] + t0 * unit[i]
        mm.geom_group[_geoms_containing(mm, md, p)] = 5
        try:
            dd, geomid[i] = _mj_ray(mm, md, p, unit[i])
        finally:
            mm.geom_group[:] = group
        dist[i] = t0 + dd
    theirs = np.where(geomid >= 0, dist * cosf, np.inf)
    # two geoms with coincident surfaces (the same depth, to the depth tolerance): either id is right
    tie = (
        (ours_id != geomid)
        & (ours_id >= 0)
        & (geomid >= 0)
        & (np.abs(ours_depth - theirs) <= DEPTH_RTOL * np.abs(theirs))
    )
    geomid = np.where(tie, ours_id, geomid)
    # OpenGL clips at the near and far planes: so does the renderer; apply the same to the oracle
    geomid = np.where((theirs >= c.frustum_near) & (theirs <= c.frustum_far), geomid, -1)
    agree = ours_id == geomid
    hit = agree & (geomid >= 0)
    rel = np.abs(ours_depth[hit] - theirs[hit]) / theirs[hit] if hit.any() else np.zeros(1)
    # float32 output: allow its rounding on top of the tolerance
    rel = np.maximum(rel - 2**-24, 0)
    assert np.all(ours_depth[~(ours_id >= 0)] == _background(mm, c))
    return agree.mean(), rel.max(), hit.sum()


# ------------------------------------------------------------------------------------------------ depth, seg


@pytest.mark.parametrize("name", GYM_MODELS + LOCAL_MODELS)
def test_depth_and_segmentation_free_camera(name):
    m, d, mm, md = _pair(_path(name), seed=1)
    frac, rel, nhit = compare_rays(m, d, mm, md, -1)
    assert nhit > 100, "the camera should see the model"
    assert frac >= ID_AGREEMENT, f"geom ids agree on {frac:.5f} of the pixels"
    assert rel <= DEPTH_RTOL, f"depth relative error {rel:.3g}"


@pytest.mark.parametrize("camera", ["fixed", "wide", "ortho", "target", "intrinsic", "track", "trackcom", "onboard"])
def test_depth_and_segmentation_model_cameras(camera):
    m, d, mm, md = _pair(SCENE, seed=2)
    frac, rel, nhit = compare_rays(m, d, mm, md, camera, height=40, width=52)
    assert nhit > 50
    assert frac >= ID_AGREEMENT, f"geom ids agree on {frac:.5f} of the pixels"
    assert rel <= DEPTH_RTOL, f"depth relative error {rel:.3g}"


@pytest.mark.full
@pytest.mark.parametrize("name", GYM_MODELS + LOCAL_MODELS)
@pytest.mark.parametrize("seed", range(4))
def test_depth_and_segmentation_sweep(name, seed):
    """Larger images, several states and every model camera."""
    m, d, mm, md = _pair(_path(name), seed=seed, spread=0.3)
    for cam in [-1] + list(range(mm.ncam)):
        frac, rel, _ = compare_rays(m, d, mm, md, cam, height=120, width=160)
        assert frac >= ID_AGREEMENT, f"camera {cam}: geom ids agree on {frac:.5f} of the pixels"
        assert rel <= DEPTH_RTOL, f"camera {cam}: depth relative error {rel:.3g}"


def test_depth_is_along_the_camera_axis():
    """Depth in metres along the axis (as mujoco.Renderer converts its depth buffer), zfar where nothing is hit."""
    m, d, mm, md = _pair(SCENE)
    r = sim.Renderer(m, 30, 40)
    r.update_scene(d, camera="ortho")
    r.enable_depth_rendering()
    depth = r.render()
    assert depth.dtype == np.float32 and depth.shape == (30, 40)
    # the orthographic camera 6 m above the floor looks straight down
    floor = depth[np.abs(depth - 6.0) < 1e-5]
    assert floor.size > 100
    r.update_scene(d, camera=-1)
    r.enable_depth_rendering()
    sky_dir = Camera.default_free(m)
    sky_dir.lookat[:] = (0.0, 0.0, 50.0)
    sky_dir.elevation = 60.0  # high above the scene, looking up: nothing but the skybox
    r.update_scene(d, camera=sky_dir)
    depth = r.render()
    assert np.all(depth == _background(mm, r.camera()))
    r.enable_segmentation_rendering()
    seg = r.render()
    assert seg.dtype == np.int32 and seg.shape == (30, 40, 2) and np.all(seg == -1)


# ------------------------------------------------------------------------------------------------ cameras


@pytest.mark.parametrize("name", ["render_scene.xml", "sites_cameras_lights.xml", "humanoid.xml", "hopper.xml"])
def test_model_cameras_match_cam_xpos_xmat(name):
    """Every model camera (fixed, track, trackcom, targetbody, targetbodycom) has MuJoCo's cam_xpos / cam_xmat."""
    m, d, mm, md = _pair(_path(name), seed=3, spread=0.4)
    r = sim.Renderer(m, 8, 8)
    for c in range(mm.ncam):
        r.update_scene(d, camera=c)
        r.render()
        cam = r.camera()
        xmat = md.cam_xmat[c].reshape(3, 3)
        np.testing.assert_allclose(cam.pos, md.cam_xpos[c], rtol=0, atol=1e-12)
        np.testing.assert_allclose(cam.forward, -xmat[:, 2], rtol=0, atol=1e-12)
        np.testing.assert_allclose(cam.up, xmat[:, 1], rtol=0, atol=1e-12)
        np.testing.assert_allclose(cam.right, xmat[:, 0], rtol=0, atol=1e-12)


def test_camera_modes_are_all_covered():
    mm = mujoco.MjModel.from_xml_path(SCENE)
    assert set(mm.cam_mode) == {0, 1, 2, 4}
    mm2 = mujoco.MjModel.from_xml_path(os.path.join(MODELS, "sites_cameras_lights.xml"))
    assert 3 in set(mm2.cam_mode) or 4 in set(mm2.cam_mode)


@pytest.mark.parametrize("kind", ["default", "free", "tracking"])
def test_free_and_tracking_camera_frame(kind):
    """mjv_cameraFrame semantics for the free camera (mjv_defaultFreeCamera or set by hand) and the tracking
    camera (lookat = the body's subtree centre of mass)."""
    m, d, mm, md = _pair(_path("humanoid.xml"), seed=4)
    mcam = mujoco.MjvCamera()
    mujoco.mjv_defaultFreeCamera(mm, mcam)
    ours = Camera.default_free(m)
    if kind != "default":
        for c in (mcam, ours):
            c.lookat[:] = (0.3, -0.2, 1.1)
            c.distance, c.azimuth, c.elevation = 3.3, 137.0, -21.0
    if kind == "tracking":
        mcam.type = mujoco.mjtCamera.mjCAMERA_TRACKING
        mcam.trackbodyid = 1
        ours.type, ours.trackbodyid = Camera.TRACKING, 1
        mujoco.mjv_updateCamera(mm, md, mcam, mujoco.MjvScene(mm, 10))
    head, fwd, up, right = np.zeros(3), np.zeros(3), np.zeros(3), np.zeros(3)
    mujoco.mjv_cameraFrame(head, fwd, up, right, md, mcam)
    r = sim.Renderer(m, 8, 8)
    r.update_scene(d, camera=ours)
    r.render()
    cam = r.camera()
    np.testing.assert_allclose(cam.pos, head, rtol=0, atol=1e-12)
    np.testing.assert_allclose(cam.forward, fwd, rtol=0, atol=1e-12)
    np.testing.assert_allclose(cam.up, up, rtol=0, atol=1e-12)
    np.testing.assert_allclose(cam.right, right, rtol=0, atol=1e-12)
    if kind == "tracking":  # mjv_updateCamera moves the tracking camera's lookat, and so do we
        np.testing.assert_allclose(ours.lookat, mcam.lookat, rtol=0, atol=1e-12)


@pytest.mark.parametrize("camera", [-1, "fixed", "wide", "ortho", "intrinsic"])
@pytest.mark.parametrize("size", [(48, 64), (64, 48)])
def test_frustum_matches_mjv_update_scene(camera, size):
    """Frustum at the near plane as mjr_render sets it (mjv_cameraFrustum, the viewport aspect ratio)."""
    m, d, mm, md = _pair(SCENE)
    cid = camera if camera == -1 else mm.camera(camera).id
    scn = _mj_scene(mm, md, _mj_camera(mm, cid))
    g = mujoco.mjv_averageCamera(scn.camera[0], scn.camera[1])
    h, w = size
    halfw = g.frustum_width if g.frustum_width else 0.5 * w / h * (g.frustum_top - g.frustum_bottom)
    r = sim.Renderer(m, h, w)
    r.update_scene(d, camera=camera)
    r.render()
    c = r.camera()
    tol = dict(rtol=2e-7, atol=1e-9)  # mjvGLCamera is float32
    np.testing.assert_allclose(c.frustum_top, g.frustum_top, **tol)
    np.testing.assert_allclose(c.frustum_bottom, g.frustum_bottom, **tol)
    np.testing.assert_allclose(c.frustum_left, g.frustum_center - halfw, **tol)
    np.testing.assert_allclose(c.frustum_right, g.frustum_center + halfw, **tol)
    np.testing.assert_allclose(c.frustum_near, g.frustum_near, **tol)
    np.testing.assert_allclose(c.frustum_far, g.frustum_far, **tol)
    assert c.orthographic == bool(g.orthographic)
    np.testing.assert_allclose(c.pos, g.pos, rtol=0, atol=2e-6)
    np.testing.assert_allclose(c.forward, g.forward, rtol=0, atol=1e-6)
    np.testing.assert_allclose(c.up, g.up, rtol=0, atol=1e-6)


# ------------------------------------------------------------------------------------------------ scene


@pytest.mark.parametrize("name", ["render_scene.xml", "sites_cameras_lights.xml", "hopper.xml", "ant.xml"])
def test_lights_match_mjv_make_lights(name):
    """Headlight and model lights (positions, directions in every mode, colours, spot parameters)."""
    m, d, mm, md = _pair(_path(name), seed=5)
    scn = _mj_scene(mm, md, _mj_camera(mm, -1))
    r = sim.Renderer(m, 8, 8)
    r.update_scene(d)
    r.render()
    lights = r._fa["lights"][0]
    assert int(r._fa["nlight"][0]) == scn.nlight
    from sim.render import layout as L

    for i in range(scn.nlight):
        ml, row = scn.lights[i], lights[i]
        assert int(row[L.L_TYPE]) == ml.type
        np.testing.assert_allclose(row[L.L_POS : L.L_POS + 3], ml.pos, rtol=0, atol=2e-6)
        np.testing.assert_allclose(row[L.L_DIR : L.L_DIR + 3], ml.dir, rtol=0, atol=2e-6)
        for col, attr in ((L.L_AMBIENT, "ambient"), (L.L_DIFFUSE, "diffuse"), (L.L_SPECULAR, "specular")):
            np.testing.assert_allclose(row[col : col + 3], getattr(ml, attr), rtol=0, atol=0)
        assert (row[L.L_SHADOWVIEW] >= 0) == bool(ml.castshadow and ml.type in (0, 1))
        if ml.type == mujoco.mjtLightType.mjLIGHT_SPOT:
            np.testing.assert_allclose(row[L.L_ATTEN : L.L_ATTEN + 3], ml.attenuation, rtol=0, atol=0)
            np.testing.assert_allclose(row[L.L_COSCUT], np.cos(np.deg2rad(ml.cutoff)), rtol=1e-12)
            assert row[L.L_EXPONENT] == ml.exponent


@pytest.mark.parametrize("name", GYM_MODELS + LOCAL_MODELS)
def test_drawn_objects_match_mjv_add_geoms(name):
    """The geoms and sites drawn, in order, with MuJoCo's colour and material (setMaterial)."""
    m, d, mm, md = _pair(_path(name))
    scn = _mj_scene(mm, md, _mj_camera(mm, -1))
    theirs = [
        scn.geoms[i]
        for i in range(scn.ngeom)
        if scn.geoms[i].objtype in (mujoco.mjtObj.mjOBJ_GEOM, mujoco.mjtObj.mjOBJ_SITE)
    ]
    r = sim.Renderer(m, 8, 8)
    r.update_scene(d)
    from sim.render import layout as L

    oi, of = r._obj_i, r._obj_f
    assert len(oi) == len(theirs)
    for k, g in enumerate(theirs):
        assert (oi[k, L.OI_SRC], oi[k, L.OI_OBJTYPE], oi[k, L.OI_TYPE]) == (g.objid, g.objtype, g.type)
        np.testing.assert_array_equal(of[k, L.OF_RGBA : L.OF_RGBA + 4].astype(np.float32), g.rgba)
        for col, attr in (
            (L.OF_EMISSION, "emission"),
            (L.OF_SPECULAR, "specular"),
            (L.OF_SHININESS, "shininess"),
            (L.OF_REFLECTANCE, "reflectance"),
        ):
            assert np.float32(of[k, col]) == np.float32(getattr(g, attr)), attr
        assert oi[k, L.OI_TEXID] == g.texid
        if g.texid >= 0:
            np.testing.assert_array_equal(of[k, L.OF_TEXREPEAT : L.OF_TEXREPEAT + 2].astype(np.float32), g.texrepeat)
            assert of[k, L.OF_TEXUNIFORM] == g.texuniform


def test_scene_option_groups_and_sites():
    """Sites are drawn in groups 0-2 like MuJoCo's default mjvOption; groups switch geoms and sites off."""
    m, d, mm, md = _pair(os.path.join(MODELS, "sites_cameras_lights.xml"))
    r = sim.Renderer(m, 8, 8)
    r.update_scene(d)
    assert r.scene.ngeom == m.ngeom + m.nsite
    opt = SceneOption()
    opt.sitegroup[:] = 0
    opt.geomgroup[0] = 0
    r.update_scene(d, scene_option=opt)
    assert r.scene.ngeom == 0
    mopt = mujoco.MjvOption()  # a mujoco.MjvOption works too
    mopt.sitegroup[2] = 0
    r.update_scene(d, scene_option=mopt)
    scn = _mj_scene(mm, md, _mj_camera(mm, -1), mopt)
    assert r.scene.ngeom == sum(1 for i in range(scn.ngeom) if scn.geoms[i].objtype in (5, 6))


# ------------------------------------------------------------------------------------------------ API


def test_api_shapes_modes_and_out():
    m, d, mm, md = _pair(SCENE)
    with sim.Renderer(m, 24, 32) as r:
        assert (r.height, r.width, r.model) == (24, 32, m)
        r.update_scene(d, camera="fixed")
        img = r.render()
        assert img.dtype == np.uint8 and img.shape == (24, 32, 3) and img.max() > 0
        out = np.zeros((24, 32, 3), np.uint8)
        assert r.render(out=out) is out and np.array_equal(out, img)
        r.enable_depth_rendering()
        assert r.render().shape == (24, 32)
        out32 = np.zeros((24, 32), np.float64)  # cast, as mujoco.Renderer does
        assert r.render(out=out32) is out32 and out32.max() > 0
        with pytest.raises(ValueError, match="out.shape"):
            r.render(out=np.zeros((24, 32, 3), np.float32))
        r.enable_segmentation_rendering()
        assert r._depth_rendering is False
        seg = r.render()
        assert seg.shape == (24, 32, 2) and seg.dtype == np.int32
        r.disable_segmentation_rendering()
        assert np.array_equal(r.render(), img)
    with pytest.raises(RuntimeError, match="after close"):
        r.render()


def test_api_camera_arguments():
    m, d, mm, md = _pair(SCENE)
    r = sim.Renderer(m, 16, 16)
    r.update_scene(d, camera="wide")
    a = r.render()
    r.update_scene(d, camera=mm.camera("wide").id)
    assert np.array_equal(r.render(), a)
    r.update_scene(d, camera=Camera.fixed(mm.camera("wide").id))
    assert np.array_equal(r.render(), a)
    mc = mujoco.MjvCamera()  # any mjvCamera-like object
    mc.type, mc.fixedcamid = mujoco.mjtCamera.mjCAMERA_FIXED, mm.camera("wide").id
    r.update_scene(d, camera=mc)
    assert np.array_equal(r.render(), a)
    r.update_scene(d, camera=None)
    b = r.render()
    r.update_scene(d, camera=-1)
    assert np.array_equal(r.render(), b)
    with pytest.raises(ValueError, match='camera "nope" does not exist'):
        r.update_scene(d, camera="nope")
    with pytest.raises(ValueError, match="out of range"):
        r.update_scene(d, camera=mm.ncam)
    bad = Camera(Camera.TRACKING, trackbodyid=99)
    with pytest.raises(ValueError, match="track body id"):
        r.update_scene(d, camera=bad)
    with pytest.raises(RuntimeError, match="update_scene"):
        sim.Renderer(m, 4, 4).render()


def test_gymnasium_camera_config():
    """apply_camera_config sets attributes as Gymnasium's MujocoRenderer._set_cam_config does; the free camera
    Gymnasium starts from looks at the median geom position from stat.extent away."""
    m, d, mm, md = _pair(_path("hopper.xml"))
    cfg = {"trackbodyid": 2, "distance": 3.0, "lookat": np.array((0.0, 0.0, 1.15)), "elevation": -20.0}
    cam = apply_camera_config(gymnasium_free_camera(m, d), cfg)
    mcam = mujoco.MjvCamera()
    mcam.type = mujoco.mjtCamera.mjCAMERA_FREE
    mcam.fixedcamid = -1
    for i in range(3):
        mcam.lookat[i] = np.median(md.geom_xpos[:, i])
    mcam.distance = mm.stat.extent
    for key, value in cfg.items():
        if isinstance(value, np.ndarray):
            getattr(mcam, key)[:] = value
        else:
            setattr(mcam, key, value)
    for attr in ("type", "trackbodyid", "distance", "azimuth", "elevation"):
        assert getattr(cam, attr) == getattr(mcam, attr), attr
    np.testing.assert_array_equal(cam.lookat, mcam.lookat)
    with pytest.raises(AttributeError, match="no attribute 'zoom'"):
        apply_camera_config(cam, {"zoom": 2})


def test_batch_equals_single_worlds():
    """One call renders every world; each image is the single-world render of that world, bit for bit."""
    m = sim.load_model(SCENE)
    d = sim.Data(m, nworld=3)
    rng = np.random.default_rng(7)
    mm = mujoco.MjModel.from_xml_path(SCENE)
    d.qpos = np.stack([random_qpos(mm, rng, 0.2) for _ in range(3)])
    sim.forward(m, d)
    r = sim.Renderer(m, 20, 28)
    for mode in ("rgb", "depth", "seg"):
        if mode == "depth":
            r.enable_depth_rendering()
        elif mode == "seg":
            r.enable_segmentation_rendering()
        r.update_scene(d, camera="track")
        batch = r.render()
        assert batch.shape[0] == 3
        for w in range(3):
            r.update_scene(d, camera="track", world=w)
            assert np.array_equal(r.render(), batch[w]), (mode, w)
        assert not np.array_equal(batch[0], batch[1])


def test_scene_is_a_snapshot():
    """update_scene copies the poses: stepping the data afterwards does not change the next render."""
    m, d, mm, md = _pair(_path("hopper.xml"))
    r = sim.Renderer(m, 16, 16)
    r.update_scene(d, camera="track")
    a = r.render()
    d.qpos = d.qpos + 0.3
    sim.forward(m, d)
    assert np.array_equal(r.render(), a)
    r.update_scene(d, camera="track")
    assert not np.array_equal(r.render(), a)


def test_decor_options_raise():
    """mjvOption flags for decor the renderer does not draw (contact points, joints, ...) raise, not ignored."""
    m, d, mm, md = _pair(_path("hopper.xml"))
    r = sim.Renderer(m, 8, 8)
    opt = mujoco.MjvOption()
    opt.flags[mujoco.mjtVisFlag.mjVIS_CONTACTPOINT] = 1
    with pytest.raises(NotImplementedError, match="contact points"):
        r.update_scene(d, scene_option=opt)


def test_unsupported_flags_raise():
    m, d, mm, md = _pair(_path("hopper.xml"))
    r = sim.Renderer(m, 8, 8)
    r.update_scene(d)
    r.scene.flags[mujoco.mjtRndFlag.mjRND_WIREFRAME] = 1
    with pytest.raises(NotImplementedError, match="wireframe"):
        r.render()


def test_depth_buffer_inverts_mujoco_renderer_conversion():
    """depth_buffer gives the reverse-Z buffer values (Gymnasium's depth_array) that mujoco.Renderer's
    conversion maps back to the metric depth."""
    from sim.render import depth_buffer

    m, d, mm, md = _pair(_path("hopper.xml"))
    r = sim.Renderer(m, 24, 24)
    r.update_scene(d, camera="track")
    r.enable_depth_rendering()
    depth = r.render()
    buf = depth_buffer(depth, m)
    assert buf.dtype == np.float32 and buf.min() >= 0 and buf.max() <= 1
    # mujoco.Renderer's conversion (rendering/classic/renderer.py), applied to our buffer
    far = np.float32(mm.vis.map.zfar * mm.stat.extent)
    near = np.float32(mm.vis.map.znear * mm.stat.extent)
    c = np.float32(-0.5) * (-(far + near) / (far - near)) - np.float32(0.5)
    dc = np.float32(-0.5) * (-(np.float32(2) * far * near) / (far - near))
    back = (dc / (buf.astype(np.float64) + c)).astype(np.float32)
    np.testing.assert_allclose(back, depth, rtol=2e-5)
    assert np.all(buf[depth == _background(mm, r.camera())] == 0)


def test_visual_compiled_with_mujoco_values():
    """Model.vis holds mjVisual (the renderer reads znear / zfar / headlight / fovy / haze from it)."""
    import oracle

    for name in ("hopper.xml", "render_scene.xml"):
        path = _path(name)
        oracle.assert_models_match(
            sim.load_model(path), mujoco.MjModel.from_xml_path(path), fields=["vis"], names=False, label=name
        )


def test_what_is_not_drawn_is_said():
    """A rangefinder's rays are drawn (no warning), the spheres and arrows at the hit points and normals of one
    that reports them are not: a warning says so."""
    import warnings

    m = sim.load_model(os.path.join(MODELS, "sensors_many.xml"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sim.Renderer(m, 8, 8)
    xml = """<mujoco><worldbody><geom type="plane" size="1 1 .1"/><site name="s" pos="0 0 1" zaxis="0 0 -1"/>
    </worldbody><sensor><rangefinder site="s" data="dist point normal"/></sensor></mujoco>"""
    with pytest.warns(UserWarning, match="rangefinder hit points and normals"):
        sim.Renderer(sim.load_model(xml), 8, 8)


# ------------------------------------------------------------------------------------------------ tendons


def _seg_depth_rays(m, d, cam, height, width):
    """(segmentation (n, 2), depth (n,) float64, camera, unit pixel-ray directions (n, 3)) of one frame with
    the sites hidden."""
    r = sim.Renderer(m, height, width)
    r.update_scene(d, camera=cam, scene_option=_no_sites())
    r.enable_segmentation_rendering()
    seg = r.render().reshape(-1, 2)
    r.enable_depth_rendering()
    depth = r.render().reshape(-1).astype(np.float64)
    _, dirs = r.pixel_rays()
    dirs = dirs.reshape(-1, 3)
    return seg, depth, r.camera(), dirs / np.linalg.norm(dirs, axis=1, keepdims=True)


TENDONS = os.path.join(MODELS, "render_tendons.xml")


@pytest.mark.parametrize(
    "name,q",
    [
        ("render_tendons.xml", 0.3),
        ("render_tendons.xml", -0.6),
        ("tendons.xml", None),
        ("tendons_wrap.xml", None),
        ("render_tendon_arcs.xml", 0.0),
        ("render_tendon_arcs.xml", 0.15),
    ],
)
def test_tendon_segments_match_mjv_update_scene(name, q):
    """Spatial tendons drawn as MuJoCo does: one capsule per segment between wrap points (half width inside a
    wrapping geom, none across a pulley), catenaries for slack strings, the limit colour, hidden groups."""
    path = os.path.join(MODELS, name)
    m, d, mm, md = _pair(path, seed=6)
    if q is not None:
        md.qpos[0] = q
        mujoco.mj_forward(mm, md)
        d.qpos = md.qpos.copy()
        sim.forward(m, d)
    scn = _mj_scene(mm, md, _mj_camera(mm, -1))
    theirs = [scn.geoms[i] for i in range(scn.ngeom) if scn.geoms[i].objtype == mujoco.mjtObj.mjOBJ_TENDON]
    r = sim.Renderer(m, 8, 8)
    r.update_scene(d)
    from sim.render import layout as L

    g = r._fa["obj_g"][0]
    rows = [
        k
        for k in range(len(r._obj_i))
        if r._obj_i[k, L.OI_OBJTYPE] == mujoco.mjtObj.mjOBJ_TENDON and g[k, L.G_RGBA + 3] > 0
    ]
    assert len(rows) == len(theirs) > 0
    for k, t in zip(rows, theirs):
        assert r._obj_i[k, L.OI_SRC] == t.objid
        # mjvGeom holds float32: size (radius, radius, half length) of the capsule, pos, mat, rgba
        np.testing.assert_allclose(r._fa["obj_pos"][0, k], t.pos, rtol=0, atol=2e-6)
        np.testing.assert_allclose(r._fa["obj_mat"][0, k], t.mat.reshape(-1), rtol=0, atol=2e-6)
        np.testing.assert_allclose(g[k, [L.G_SIZE, L.G_SIZE, L.G_SIZE + 1]], t.size, rtol=2e-6, atol=1e-7)
        np.testing.assert_allclose(g[k, L.G_RGBA : L.G_RGBA + 4], t.rgba, rtol=0, atol=1e-6)
    if name == "render_tendons.xml":
        ids = {t.objid for t in theirs}
        assert mm.tendon("hidden").id not in ids
        assert sum(t.objid == mm.tendon("string").id for t in theirs) > 10  # a catenary


def test_tendon_depth_and_segmentation():
    """Tendon pixels against the oracle: the nearest of mj_ray (geoms) and mju_rayGeom on MuJoCo's own tendon
    capsules (mjv_updateScene), cast through our pixel centres."""
    m, d, mm, md = _pair(TENDONS, seed=0, spread=0.0)
    md.qpos[0] = 0.3
    mujoco.mj_forward(mm, md)
    d.qpos = md.qpos.copy()
    sim.forward(m, d)
    cam = Camera.default_free(m)
    cam.elevation, cam.distance = -10.0, 2.5
    cam.lookat[:] = (0.0, 0.0, 1.2)
    seg, depth, c, unit = _seg_depth_rays(m, d, cam, 60, 80)
    mcam = mujoco.MjvCamera()
    scn = _mj_scene(mm, md, mcam)
    caps = [scn.geoms[i] for i in range(scn.ngeom) if scn.geoms[i].objtype == mujoco.mjtObj.mjOBJ_TENDON]
    agree, hits, worst = 0, 0, 0.0
    for i, u in enumerate(unit):
        dist, gid = _mj_ray(mm, md, c.pos, u)
        best = (dist if gid >= 0 else np.inf, gid, mujoco.mjtObj.mjOBJ_GEOM)
        for t in caps:
            size = np.array([t.size[0], t.size[2], 0.0])
            dd = mujoco.mju_rayGeom(
                t.pos.astype(np.float64),
                t.mat.astype(np.float64).reshape(-1),
                size,
                c.pos,
                u,
                mujoco.mjtGeom.mjGEOM_CAPSULE,
            )
            if 0 <= dd < best[0]:
                best = (dd, t.objid, mujoco.mjtObj.mjOBJ_TENDON)
        want = (best[1], best[2]) if best[1] >= 0 else (-1, -1)
        if tuple(seg[i]) == want:
            agree += 1
            if want[1] == mujoco.mjtObj.mjOBJ_TENDON:
                hits += 1
                theirs = best[0] * (u @ c.forward)
                # MuJoCo's tendon capsules are float32 (mjvGeom): compare at that precision
                worst = max(worst, abs(depth[i] - theirs) / theirs)
    assert hits > 30
    assert agree / len(unit) >= 0.995, f"agreement {agree / len(unit):.4f}"
    assert worst <= 1e-5


# ------------------------------------------------------------------------------------------------ skins

SKIN = os.path.join(MODELS, "render", "render_skin.xml")


def _skin_pair(bend):
    """Our model of render_skin.xml without its skin (numjoco's compiler does not parse <skin> yet) plus
    MuJoCo's compiled skin fields, and MuJoCo's model; both at hinge angle `bend`."""
    import re

    with open(SKIN) as f:
        xml = f.read()
    m = sim.load_model(re.sub(r"\n\s*<deformable>.*?</deformable>", "", xml, flags=re.S))
    mm = mujoco.MjModel.from_xml_path(SKIN)
    m.nskin = int(mm.nskin)
    for name in dir(mm):
        if name.startswith("skin_"):
            setattr(m, name, np.array(getattr(mm, name)))
    md = mujoco.MjData(mm)
    md.qpos[0] = bend
    mujoco.mj_forward(mm, md)
    d = sim.Data(m)
    d.qpos = md.qpos.copy()
    sim.forward(m, d)
    return m, d, mm, md


@pytest.mark.parametrize("bend", [0.0, 0.7, -1.2])
def test_skin_vertices_match_mjv_update_active_skin(bend):
    """Linear blend skinning, vertex normals and inflation as mjv_updateActiveSkin (MuJoCo keeps float32)."""
    m, d, mm, md = _skin_pair(bend)
    scn = _mj_scene(mm, md, _mj_camera(mm, -1))
    r = sim.Renderer(m, 8, 8)
    r.update_scene(d)
    r.render()
    np.testing.assert_allclose(r._fa["skinvert"][0], np.asarray(scn.skinvert).reshape(-1, 3), rtol=0, atol=2e-6)
    np.testing.assert_allclose(r._fa["skinnorm"][0], np.asarray(scn.skinnormal).reshape(-1, 3), rtol=0, atol=2e-6)


def test_skin_depth_and_segmentation():
    """Skin pixels against MuJoCo's skin vertices (mjv_updateScene) intersected by each pixel ray (Moller-
    Trumbore in numpy) together with mj_ray for the geoms: object ids and types (mjOBJ_SKIN) and depths."""
    m, d, mm, md = _skin_pair(0.7)
    scn = _mj_scene(mm, md, _mj_camera(mm, -1))
    vert = np.asarray(scn.skinvert, np.float64).reshape(-1, 3)
    face = np.asarray(mm.skin_face).reshape(-1, 3)
    cam = Camera.default_free(m)
    cam.lookat[:] = (0.0, 0.0, 0.6)
    cam.distance, cam.elevation, cam.azimuth = 2.0, -20.0, 60.0
    seg, depth, c, unit = _seg_depth_rays(m, d, cam, 48, 64)
    v0, v1, v2 = vert[face[:, 0]], vert[face[:, 1]], vert[face[:, 2]]
    e1, e2 = v1 - v0, v2 - v0
    agree, nskin, worst = 0, 0, 0.0
    for i, u in enumerate(unit):
        dist, gid = _mj_ray(mm, md, c.pos, u)
        best = (dist if gid >= 0 else np.inf, gid, mujoco.mjtObj.mjOBJ_GEOM)
        p = np.cross(u, e2)
        det = np.einsum("ij,ij->i", e1, p)
        s = c.pos - v0
        with np.errstate(divide="ignore", invalid="ignore"):
            a = np.einsum("ij,ij->i", s, p) / det
            q = np.cross(s, e1)
            b = (q @ u) / det
            t = np.einsum("ij,ij->i", e2, q) / det
        ok = (det > 0) & (a >= 0) & (b >= 0) & (a + b <= 1) & (t > 0)  # front faces, as OpenGL culls
        if ok.any() and t[ok].min() < best[0]:
            best = (t[ok].min(), 0, mujoco.mjtObj.mjOBJ_SKIN)
        want = (best[1], best[2]) if best[1] >= 0 else (-1, -1)
        if tuple(seg[i]) == want:
            agree += 1
            if want[1] == mujoco.mjtObj.mjOBJ_SKIN:
                nskin += 1
                theirs = best[0] * (u @ c.forward)
                worst = max(worst, abs(depth[i] - theirs) / theirs)
    assert nskin > 100
    assert agree / len(unit) >= ID_AGREEMENT, f"agreement {agree / len(unit):.4f}"
    assert worst <= 1e-5  # MuJoCo's skin vertices are float32


def test_model_changes_between_frames_are_drawn():
    """Colours, groups and lights set on the model at run time (domain randomisation) show in the next frame,
    as mjv_updateScene reads them every update."""
    m, d, mm, md = _pair(_path("hopper.xml"))
    r = sim.Renderer(m, 24, 24)
    r.update_scene(d, camera="track")
    a = r.render()
    torso = m.geom("torso_geom").id
    m.geom_rgba[torso] = (0.1, 0.9, 0.1, 1.0)
    r.update_scene(d, camera="track")
    b = r.render()
    assert not np.array_equal(a, b)
    from sim.render import layout as L

    k = int(np.flatnonzero((r._obj_i[:, L.OI_SRC] == torso) & (r._obj_i[:, L.OI_KIND] == L.KIND_GEOM))[0])
    np.testing.assert_allclose(r._obj_f[k, L.OF_RGBA : L.OF_RGBA + 4], (0.1, 0.9, 0.1, 1.0), rtol=1e-6)
    m.light_diffuse[0] = (0.2, 0.2, 0.2)
    r.update_scene(d, camera="track")
    c = r.render()
    assert c.mean() < b.mean()


def test_light_exponents_by_repeated_squaring():
    """GL's specular (shininess x 128) and spot exponents are whole numbers almost always: shade.spec_power takes
    them by repeated squaring instead of libm's pow, whose result it matches to the round-off of the squarings
    (a relative error below e * 2.3e-16 for exponent e); any other exponent goes through pow itself."""
    from sim.render.shade import spec_power

    rng = np.random.default_rng(0)
    xs = np.concatenate([rng.uniform(0.0, 1.0, 200), [0.0, 1e-300, 0.5, 1.0]])
    for e in (0, 1, 2, 3, 4, 10, 77, 128, 1000, 1024):
        for x in xs:
            want = x**e
            assert abs(spec_power(x, float(e)) - want) <= max(e, 1) * 2.3e-16 * want, (x, e)
    for e in (0.5, 2.25, 1025.0, 4096.0):
        for x in xs:
            assert spec_power(x, e) == x**e, (x, e)


@njit
def _shadow_shortcut_check(rm, fr, points):
    """Over every active shadow view, point and skipped object (none, or any one), how often: the shortcut
    answers lit; it does so where the full lookup says shadowed; the full lookup says shadowed."""
    stack = fr.jscr_i[0, J_STACK:J_HK]
    taken = 0
    wrong = 0
    shadowed = 0
    for vi in range(VIEW_SHADOW, fr.opt[O_NVIEW]):
        if fr.views[0, vi, VW_ACTIVE] == 0:
            continue
        for i in range(points.shape[0]):
            Q = (points[i, 0], points[i, 1], points[i, 2])
            for skip in range(-1, rm.nobj):
                lit = lit_in_map(rm, fr, 0, vi, Q, skip, stack)
                if not lit:
                    shadowed += 1
                if outside_occupied(fr, 0, vi, Q, skip):
                    taken += 1
                    if not lit:
                        wrong += 1
    return taken, wrong, shadowed


@pytest.mark.parametrize("name", ["render_scene.xml", "hopper.xml"])
def test_shadow_lookup_shortcut_is_exact(name):
    """shade.lit_by answers "lit" without projecting a point that lies outside the cells of the light's map that
    list an object (trace._occupied_bounds, a cell of margin); the full lookup must agree wherever it does, for
    points all over the scene, near the objects (where the shadows are) and on the floor, with a directional
    (orthographic map) and a spot light (perspective map, points behind its eye too)."""
    m = sim.load_model(_path(name))
    d = sim.Data(m)
    d.qpos = random_qpos(m, np.random.default_rng(1), 0.2)
    sim.forward(m, d)
    r = sim.Renderer(m, 120, 120)
    r.update_scene(d, camera=-1)
    r.render()
    rng = np.random.default_rng(2)
    xpos = np.asarray(d.geom_xpos)
    near = xpos[rng.integers(0, len(xpos), 3000)] + rng.normal(0.0, 0.3, (3000, 3))
    wide = rng.uniform(-6.0, 6.0, (3000, 3))
    floor = np.column_stack([rng.uniform(-4.0, 4.0, (3000, 2)), np.full(3000, 1e-4)])
    points = np.concatenate([near, wide, floor])
    taken, wrong, shadowed = _shadow_shortcut_check(r._rm, r._frame, points)
    assert shadowed > 100 and taken > 1000  # both answers occur: the comparison can fail
    assert wrong == 0


@njit
def _floor_against_pixels(rm, fr, w):
    """Every screen tile of world w that render_band hands to kernels.floor_tile, shaded row by row as it does
    (floor.shade_row, kernels.floor_pixel) and, pixel by pixel, by the general path (kernels.pixel_rgb): pixels
    the plane covers, pixels passed on to the general path, the largest colour and depth differences and the
    pixels whose object differs."""
    job = 0
    tile = fr.opt[O_TILE]
    ntx = fr.opt[O_NTX]
    width = fr.opt[O_W]
    height = fr.opt[O_H]
    nseen = npassed = nobj = 0
    dc = dt = 0.0
    for ty in range((height + tile - 1) // tile):
        for tx in range(ntx):
            cell = ty * ntx + tx
            tile_lists(rm, fr, w, job, cell, True)
            if not floor_tile_ok(rm, fr, w, cell, fr.jcand[job, 0]):
                continue
            k = fr.jcand[job, 0, 1]
            mirror = mirror_in_tile(fr, w, k, job)
            xa = tx * tile
            xb = min(width, xa + tile)
            for py in range(ty * tile, min(height, ty * tile + tile)):
                shade_row(rm, fr, w, k, job, xa, xb - xa, py)
                for i in range(xb - xa):
                    if fr.jpkt[job, PK_OK, i] == 0:
                        npassed += 1
                        continue
                    nseen += 1
                    a = floor_pixel(rm, fr, w, k, job, i, xa + i, py, cell, mirror)
                    b = pixel_rgb(rm, fr, w, xa + i + 0.5, py + 0.5, cell, job, False)
                    if a[3] != b[3]:
                        nobj += 1
                        continue
                    dt = max(dt, abs(a[4] - b[4]) / b[4])
                    dc = max(dc, abs(a[0] - b[0]), abs(a[1] - b[1]), abs(a[2] - b[2]))
    return nseen, npassed, dc, dt, nobj


@pytest.mark.parametrize(
    "name, camera",
    [
        ("hopper.xml", -1),
        ("humanoid.xml", -1),
        ("render_scene.xml", -1),
        ("render_scene.xml", "fixed"),
        ("render_scene_opaque", -1),
        ("render_infinite.xml", "low"),
        ("render_tendons.xml", -1),
    ],
)
def test_floor_tiles_match_the_per_pixel_path(name, camera):
    """Tiles that see nothing but a plane are shaded a tile row at a time, LANES pixels per instruction
    (sim/render/floor.py); every pixel of them must get the per-pixel path's object, depth and colour: a textured
    floor with a directional shadow-casting light and a mirror (hopper, humanoid), a floor with a spot light's
    shadow, a specular material, a finite edge and a transparent geom, blended over the tiles it is listed in
    (render_scene, and with the geom made opaque), an infinite one under haze (render_infinite), an untextured one
    (render_tendons).  The colour
    may differ by float rounding only: the vectors run IEEE arithmetic, the per-pixel path fast-math's (fused
    multiply-adds), and a texture weight is rounded to float32 (2^-24 relative) before the blend."""
    m = sim.load_model(_path(name.replace("_opaque", ".xml")))
    if name == "render_scene_opaque":
        m.geom_rgba[m.geom("glass").id, 3] = 1.0
    d = sim.Data(m)
    if name != "render_infinite.xml":  # a tilted box would fill render_infinite's screen
        d.qpos = random_qpos(m, np.random.default_rng(3), 0.1)
    sim.forward(m, d)
    r = sim.Renderer(m, 200, 160)
    if camera == "low":  # looking out over the plane: the horizon's haze
        camera = Camera(lookat=(0.0, 0.0, 0.5), distance=4.0, azimuth=30.0, elevation=-8.0)
    r.update_scene(d, camera=camera)
    r.render()
    nseen, npassed, dc, dt, nobj = _floor_against_pixels(r._rm, r._frame, 0)
    assert nseen > 5000, nseen  # the packet path is taken: the comparison can fail
    assert nobj == 0
    assert dt <= 1e-13, dt
    assert dc <= 2.4e-7, dc  # 2 float32 ulps at 1: measured 7.7e-8
