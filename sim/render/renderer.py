"""sim.Renderer: the API of mujoco.Renderer on numjoco's ray caster (no OpenGL), for one world or a batch.

r = sim.Renderer(m, height=480, width=480)
r.update_scene(d, camera="track")          # camera: -1 / None (free), id, name, or a Camera / MjvCamera
rgb = r.render()                           # uint8 (H, W, 3); (nworld, H, W, 3) for a batched Data
r.enable_depth_rendering(); depth = r.render()          # float32 metres along the camera axis
r.enable_segmentation_rendering(); seg = r.render()     # int32 (H, W, 2): object id, mjtObj type
"""

import weakref

import numpy as np

from sim.user_util import quat2mat
from sim.jit.simd import LANES

from . import layout as L
from . import scene as S
from . import tendon as T
from . import lines as LN
from .camera import Camera, SceneOption, option_key
from .structs import new_frame, new_render_model

_STATIC = weakref.WeakKeyDictionary()  # model -> static arrays (textures, meshes, height fields)

_DEFAULT_FLAGS = {L.RND_SHADOW: 1, L.RND_REFLECTION: 1, L.RND_SKYBOX: 1, L.RND_HAZE: 1, L.RND_CULL_FACE: 1}
_UNSUPPORTED_FLAGS = {
    L.RND_WIREFRAME: "wireframe",
    L.RND_ADDITIVE: "additive transparency",
    L.RND_FOG: "fog",
    L.RND_DEPTH: "the depth-map overlay (mjRND_DEPTH)",
}
# model fields the object table depends on: it is rebuilt when one of them changes (colours set at run time, ...)
_MATERIAL_FIELDS = (
    "geom_rgba",
    "geom_matid",
    "geom_group",
    "geom_size",
    "geom_type",
    "site_rgba",
    "site_matid",
    "site_group",
    "site_size",
    "site_type",
    "mat_rgba",
    "mat_emission",
    "mat_specular",
    "mat_shininess",
    "mat_reflectance",
    "mat_texid",
    "mat_texrepeat",
    "mat_texuniform",
    "tendon_rgba",
    "tendon_matid",
    "tendon_group",
    "tendon_width",
    "skin_rgba",
    "skin_matid",
    "skin_group",
)
# model fields the camera and light tables (scene.build_cameras, build_lights, scene_lights) are made from: they
# are rebuilt when one of them changes
_CAMLIGHT_FIELDS = tuple(
    "cam_" + f
    for f in (
        "mode",
        "bodyid",
        "targetbodyid",
        "projection",
        "pos",
        "quat",
        "pos0",
        "poscom0",
        "mat0",
        "fovy",
        "ipd",
        "sensorsize",
        "intrinsic",
    )
) + tuple(
    "light_" + f
    for f in (
        "mode",
        "bodyid",
        "targetbodyid",
        "type",
        "castshadow",
        "active",
        "pos",
        "dir",
        "pos0",
        "dir0",
        "poscom0",
        "ambient",
        "diffuse",
        "specular",
        "attenuation",
        "cutoff",
        "exponent",
    )
)


def depth_buffer(depth, model, orthographic=False):
    """The OpenGL depth-buffer values (reverse Z: 1 at znear, 0 at zfar, float32) that give `depth` (metres
    along the camera axis, what Renderer returns with depth rendering on) under mujoco.Renderer's conversion:
    what Gymnasium's MujocoRenderer returns for render_mode="depth_array"."""
    extent = float(model.stat.extent)
    far = np.float32(model.vis.map.zfar * extent)
    near = np.float32(model.vis.map.znear * extent)
    depth = np.asarray(depth, dtype=np.float64)
    if orthographic:
        z = (far - depth) / (far - near)
        return np.clip(z, 0.0, 1.0).astype(np.float32)
    else:
        c = -(far + near) / (far - near)
        dc = -(np.float32(2) * far * near) / (far - near)
        c = np.float32(-0.5) * c - np.float32(0.5)
        dc = np.float32(-0.5) * dc
        z = dc / depth - c
    # nothing drawn (the depth Renderer reports there, dc / c): the cleared buffer, 0
    bg = np.float32(np.float64(dc) / np.float64(c))
    return np.where(depth >= bg, 0.0, np.clip(z, 0.0, 1.0)).astype(np.float32)


class RenderScene:
    """What mujoco.Renderer.scene offers that applies here: `flags` (uint8, indexed by mjtRndFlag: shadow,
    reflection, skybox, haze, ...) and `ngeom` (objects in the scene after the last update_scene)."""

    def __init__(self):
        self.flags = np.zeros(L.NRNDFLAG, dtype=np.uint8)
        for k, v in _DEFAULT_FLAGS.items():
            self.flags[k] = v
        self.ngeom = 0


def _not_drawn(m):
    """What mjv_addGeoms draws by default for this model that the renderer does not: the spheres and arrows
    of rangefinders that report hit points or normals (their rays are drawn)."""
    return sorted({what for _, what in LN.line_sources(m)[1]})


def _scene_slots(obj_i):
    """The mjvScene.geoms slot each object row takes in mjv_addGeoms' order (skins, geoms, sites, spatial tendon
    segments): rows whose slot is maxgeom or more do not fit the scene."""
    kind = obj_i[:, L.OI_KIND]
    order = np.concatenate([np.flatnonzero(kind == k) for k in (L.KIND_SKIN, L.KIND_GEOM, L.KIND_SITE, L.KIND_TENDON)])
    slot = np.empty(len(obj_i), np.int64)
    slot[order] = np.arange(len(order))
    return slot


def _static(m):
    ent = _STATIC.get(m)
    if ent is None:
        tex_i, texel = S.build_textures(m)
        meshes = S.build_meshes(m)
        hfields = S.build_hfields(m)
        ent = (tex_i, texel, meshes, hfields, S.build_skins(m))
        _STATIC[m] = ent
    return ent


class Renderer:
    """Renders a numjoco Model's scene without OpenGL: rgb, depth or segmentation, one world or a batch.

    height, width: image size (the offscreen-buffer limit of mujoco.Renderer does not apply); max_geom: the
    scene capacity (mjvScene.maxgeom: objects beyond it are dropped with a warning, as MuJoCo does).
    shadows / reflection / skybox: MuJoCo's scene flags (on by default); antialias: 4 samples on silhouette
    pixels (MuJoCo's default is 4x MSAA; off here by default, which is what pixel observations want).
    """

    def __init__(
        self,
        model,
        height=480,
        width=480,
        max_geom=10000,
        *,
        shadows=True,
        reflection=True,
        skybox=True,
        antialias=False,
    ):
        if getattr(model, "vis", None) is None:
            raise ValueError("the model has no <visual> settings (Model.vis); compile it with sim.load_model")
        missing = _not_drawn(model)
        if missing:
            import warnings

            warnings.warn(
                "the numjoco renderer does not draw " + " and ".join(missing) + ", which MuJoCo shows by default",
                stacklevel=2,
            )
        height, width = int(height), int(width)
        if height < 1 or width < 1:
            raise ValueError(f"image size must be positive, got {height}x{width}")
        self._model = model
        self._height = height
        self._width = width
        self._max_geom = int(max_geom)
        self._scene = RenderScene()
        self._scene.flags[L.RND_SHADOW] = bool(shadows)
        self._scene.flags[L.RND_REFLECTION] = bool(reflection)
        self._scene.flags[L.RND_SKYBOX] = bool(skybox)
        self.antialias = bool(antialias)
        self._scene_option = SceneOption()
        self._depth_rendering = False
        self._segmentation_rendering = False
        self._tile = 8 if max(height, width) <= 128 else 16
        self._static = _static(model)
        self._cam_i, self._cam_f = S.build_cameras(model)
        self._light_i, self._light_f = S.build_lights(model)
        self._vis = np.zeros(L.NV)
        self._objkey = None
        self._camkey = None
        self._nshadow = 0
        self._tendon_rows = {}
        self._line_sources = LN.line_sources(model)[0]
        self._line_cap = 0  # lines the scene has room for (mjvScene.maxgeom less the objects' slots)
        self._obj_i = self._obj_f = None
        self._rm = None
        self._frame = None
        self._fa = None
        self._frame_key = None
        self._nworld = None  # worlds in the last update (None: a single image)
        self._updated = False
        self._closed = False
        self._warned = False

    # -------------------------------------------------------------------------------------------- properties
    @property
    def model(self):
        return self._model

    @property
    def scene(self):
        return self._scene

    @property
    def height(self):
        return self._height

    @property
    def width(self):
        return self._width

    def enable_depth_rendering(self):
        self._segmentation_rendering = False
        self._depth_rendering = True

    def disable_depth_rendering(self):
        self._depth_rendering = False

    def enable_segmentation_rendering(self):
        self._segmentation_rendering = True
        self._depth_rendering = False

    def disable_segmentation_rendering(self):
        self._segmentation_rendering = False

    # -------------------------------------------------------------------------------------------- scene
    def _camera_params(self, data, camera, world):
        m = self._model
        ncam = int(getattr(m, "ncam", 0))
        if camera is None:
            camera = -1
        if isinstance(camera, str):
            cid = m.name2id("camera", camera)
            if cid == -1:
                raise ValueError(f'The camera "{camera}" does not exist.')
            camera = cid
        if isinstance(camera, (int, np.integer)):
            cid = int(camera)
            if cid < -1 or cid >= ncam:
                raise ValueError(f"The camera id {cid} is out of range [-1, {ncam}).")
            camera = Camera.default_free(m) if cid == -1 else Camera.fixed(cid)
        if not hasattr(camera, "type"):
            raise TypeError(f"camera must be None, an int id, a name or a Camera, got {type(camera).__name__}")
        ctype = int(camera.type)
        p = np.zeros(L.NCP)
        p[L.CP_TYPE] = ctype
        if ctype == L.CAMERA_FIXED:
            cid = int(camera.fixedcamid)
            if not 0 <= cid < ncam:
                raise ValueError(f"fixed camera id {cid} is outside the valid range [0, {ncam})")
            p[L.CP_FIXEDID] = cid
        elif ctype in (L.CAMERA_FREE, L.CAMERA_TRACKING):
            p[L.CP_LOOKAT : L.CP_LOOKAT + 3] = np.asarray(camera.lookat, dtype=np.float64).reshape(3)
            p[L.CP_DISTANCE] = camera.distance
            p[L.CP_AZIMUTH] = camera.azimuth
            p[L.CP_ELEVATION] = camera.elevation
            p[L.CP_TRACKID] = -1
            if ctype == L.CAMERA_TRACKING:
                tb = int(camera.trackbodyid)
                if not 0 <= tb < int(m.nbody):
                    raise ValueError(f"track body id {tb} is outside the valid range [0, {int(m.nbody)})")
                p[L.CP_TRACKID] = tb
                # mjv_updateCamera: the tracking camera's lookat follows the body's subtree centre of mass
                sc = data._arrays["subtree_com"][0 if world is None else world, tb]
                camera.lookat[:] = sc
        else:
            raise ValueError(f"unsupported camera type {ctype} (free 0, tracking 1, fixed 2)")
        return p

    def _refresh_tables(self, opt):
        m = self._model
        key = (
            option_key(opt),
            tuple(np.asarray(getattr(m, f)).tobytes() for f in _MATERIAL_FIELDS if getattr(m, f, None) is not None),
            float(m.vis.map.alpha),
        )
        if key != self._objkey:
            obj_i, obj_f = S.build_objects(m, opt)
            slots = _scene_slots(obj_i)
            keep = slots < self._max_geom
            nlines = sum(n for _, _, n in self._line_sources)
            self._line_cap = min(nlines, max(0, self._max_geom - (int(slots.max()) + 1 if len(slots) else 0)))
            if not keep.all() or self._line_cap < nlines:
                if not self._warned:
                    import warnings

                    warnings.warn(f"Pre-allocated visual geom buffer is full. Increase maxgeom above {self._max_geom}.")
                    self._warned = True
                obj_i, obj_f = obj_i[keep].copy(), obj_f[keep].copy()
            self._objkey = key
            self._obj_i, self._obj_f = np.ascontiguousarray(obj_i), np.ascontiguousarray(obj_f)
            kind, src = self._obj_i[:, L.OI_KIND], self._obj_i[:, L.OI_SRC]
            g, s, sk = (np.flatnonzero(kind == k) for k in (L.KIND_GEOM, L.KIND_SITE, L.KIND_SKIN))
            self._kind_rows = (g, src[g], s, src[s], sk)  # object rows of each kind and their source ids
            self._tendon_rows = {}
            for r in np.flatnonzero(obj_i[:, L.OI_KIND] == L.KIND_TENDON):
                self._tendon_rows.setdefault(int(obj_i[r, L.OI_SRC]), []).append(int(r))
            self._rm = None
        camkey = (
            int(getattr(m, "ncam", 0)),
            int(getattr(m, "nlight", 0)),
            int(m.vis.headlight.active),
            tuple(np.asarray(v).tobytes() for v in (getattr(m, f, None) for f in _CAMLIGHT_FIELDS) if v is not None),
        )
        if camkey != self._camkey:
            ci, cf = S.build_cameras(m)
            li, lf = S.build_lights(m)
            self._cam_i[...], self._cam_f[...] = ci, cf
            self._light_i[...], self._light_f[...] = li, lf
            self._nshadow = S.scene_lights(m)[1]
            self._camkey = camkey
        nshadow = self._nshadow
        S.build_vis(m, out=self._vis)
        nobj = len(self._obj_i)
        self._vis[L.V_NSHADOW] = nshadow
        # shadow-map cells: finer for large images (fewer false candidates per shadow ray), small for batches
        self._vis[L.V_GRID] = 16 if max(self._height, self._width) <= 128 else 48
        if self._vis[L.V_ZNEAR] <= 0:
            raise ValueError("vis.map.znear * stat.extent must be positive (mjvScene frustum_near too small)")
        if self._rm is None:
            tex_i, texel, meshes, hfields, skins = self._static
            mesh_i, mesh_vert, mesh_face, mesh_normal, mesh_tc, bvh_aabb, bvh_child, bvh_nodeid = meshes
            hi, hsize, hdata = hfields
            self._rm = new_render_model(
                nobj,
                self._obj_i,
                self._obj_f,
                tex_i,
                texel,
                mesh_i,
                mesh_vert,
                mesh_face,
                mesh_normal,
                mesh_tc,
                bvh_aabb,
                bvh_child,
                bvh_nodeid,
                hi,
                hsize,
                hdata,
                self._cam_i,
                self._cam_f,
                self._light_i,
                self._light_f,
                self._vis,
                *skins,
            )
        self._scene.ngeom = nobj

    def _alloc_frame(self, nw):
        import numba

        nobj = len(self._obj_i)
        nshadow = int(self._vis[L.V_NSHADOW])
        nview = 2 + nshadow
        H, W, T = self._height, self._width, self._tile
        ntx, nty = -(-W // T), -(-H // T)
        grid = int(self._vis[L.V_GRID])
        nthread = numba.get_num_threads()
        nband = max(1, min(nty, -(-4 * nthread // nw)))
        key = (nw, nobj, nview, H, W, T, nband, int(self._model.nbody), self._line_cap)
        if key == self._frame_key:
            return
        ncell = max(ntx * nty, grid * grid)
        nskv = max(1, len(self._static[4][2]))
        nskn = max(1, len(self._static[4][10]))
        cap = max(2 * ncell, 16 * nobj, 64)  # cell-list entries per view (more: every cell searches all)
        nb = int(self._model.nbody)
        rows = -(-nty // nband) * T
        jobs = [(w, y, min(H, y + rows)) for w in range(nw) for y in range(0, H, rows)]
        job = np.array(jobs, dtype=np.int64).reshape(-1, 3)
        aa = (nw, H, W)
        opt = np.zeros(L.NO, dtype=np.int64)
        self._fa = dict(
            opt=opt,
            camprm=np.zeros(L.NCP),
            obj_pos=np.zeros((nw, nobj, 3)),
            obj_mat=np.zeros((nw, nobj, 9)),
            obj_g=np.zeros((nw, nobj, L.NG)),
            ptex=np.zeros((nw, max(nobj, 1), L.NPT)),
            xpos=np.zeros((nw, nb, 3)),
            xquat=np.zeros((nw, nb, 4)),
            xmat=np.zeros((nw, nb, 9)),
            subtree_com=np.zeros((nw, nb, 3)),
            views=np.zeros((nw, nview, L.NVW)),
            lights=np.zeros((nw, L.MAXLIGHT, L.NL)),
            nlight=np.zeros(nw, np.int64),
            tcnt=np.zeros((nw, nview, ncell), np.int32),
            tstart=np.zeros((nw, nview, ncell + 1), np.int32),
            tobj=np.zeros((nw, nview, cap), np.int32),
            objcell=np.zeros((nw, max(nobj, 1), 4), np.int32),
            gobj=np.zeros((nw, nview, max(nobj, 1)), np.int32),
            gcnt=np.zeros((nw, nview), np.int32),
            gmask=np.full((nw, 2, ncell), -1, np.int64),
            flag=np.zeros((nw, max(nobj, 1)), np.int32),
            rank=np.zeros((nw, max(nobj, 1)), np.int32),
            mirror=np.zeros((nw, L.NM)),
            idbuf=np.zeros(aa, np.int32),
            zbuf=np.zeros(aa, np.float32),
            job=job,
            jscr_i=np.zeros((len(job), L.NJI), np.int32),
            jcand=np.zeros((len(job), 2, 2 * max(nobj, 1) + 2), np.int32),
            jscr_f=np.zeros((len(job), L.MAXTRANS)),
            jpkt=np.zeros((len(job), L.NPK, -(-T // LANES) * LANES)),
            skycache=np.full((nw, H, W, 3), -1, np.float32),
            skykey=np.zeros((nw, L.NSKYKEY)),
            skinvert=np.zeros((nw, nskv, 3)),
            skinnorm=np.zeros((nw, nskv, 3)),
            skinbox=np.zeros((nw, nskn, 6)),
            lines=np.zeros((nw, max(1, self._line_cap), L.NLN)),
            nline=np.zeros(nw, np.int64),
        )
        fa = self._fa
        opt[L.O_W], opt[L.O_H], opt[L.O_TILE], opt[L.O_NTX], opt[L.O_NTY] = W, H, T, ntx, nty
        opt[L.O_NWORLD], opt[L.O_NJOB], opt[L.O_NVIEW] = nw, len(job), nview
        self._frame = new_frame(*[fa[n] for n, _ in _FRAME_ORDER])
        self._frame_key = key

    def update_scene(self, data, camera=-1, world=None, scene_option=None):
        """Take the poses of `data` (all worlds of a batched Data, or world `world`) and the camera: a model
        camera id or name, -1 / None for the default free camera (mjv_defaultFreeCamera), or a Camera /
        mujoco.MjvCamera (free, tracking or fixed).  scene_option: a SceneOption / mujoco.MjvOption."""
        if self._closed:
            raise RuntimeError("update_scene cannot be called after close.")
        m = self._model
        arrays = data._arrays
        if arrays["xpos"].shape[1] != int(m.nbody) or arrays["geom_xpos"].shape[1] != int(m.ngeom):
            raise ValueError("data does not belong to this renderer's model")
        batched = getattr(data, "nworld", None) is not None
        if world is not None:
            world = int(world)
            n = arrays["xpos"].shape[0]
            if not 0 <= world < n:
                raise ValueError(f"world {world} is out of range [0, {n})")
        sel = world if world is not None else (None if batched else 0)
        opt = scene_option if scene_option is not None else self._scene_option
        self._refresh_tables(opt)
        camprm = self._camera_params(data, camera, sel if sel is not None else 0)
        nw = arrays["xpos"].shape[0] if sel is None else 1
        self._alloc_frame(nw)
        fa = self._fa
        fa["camprm"][:] = camprm
        worlds = slice(None) if sel is None else slice(sel, sel + 1)
        g, gsrc, s, ssrc, sk = self._kind_rows
        if len(g):
            fa["obj_pos"][:, g] = arrays["geom_xpos"][worlds][:, gsrc]
            fa["obj_mat"][:, g] = arrays["geom_xmat"][worlds][:, gsrc]
        if len(s):
            fa["obj_pos"][:, s] = arrays["site_xpos"][worlds][:, ssrc]
            fa["obj_mat"][:, s] = arrays["site_xmat"][worlds][:, ssrc]
        og = fa["obj_g"]
        of = self._obj_f
        og[:, :, L.G_SIZE : L.G_SIZE + 3] = of[:, L.OF_SIZE : L.OF_SIZE + 3]
        og[:, :, L.G_AABB : L.G_AABB + 6] = of[:, L.OF_AABB : L.OF_AABB + 6]
        og[:, :, L.G_RBOUND] = of[:, L.OF_RBOUND]
        og[:, :, L.G_RGBA : L.G_RGBA + 4] = of[:, L.OF_RGBA : L.OF_RGBA + 4]
        if len(sk):  # skin triangles are given in world coordinates
            fa["obj_pos"][:, sk] = 0.0
            fa["obj_mat"][:, sk] = np.eye(3).reshape(-1)
        if self._tendon_rows:
            self._place_tendons(arrays, range(nw) if sel is None else [sel])
        for name in ("xpos", "xquat", "xmat", "subtree_com"):
            fa[name][...] = arrays[name][worlds]
        flags = np.asarray(getattr(opt, "flags", SceneOption().flags)).reshape(-1)
        if self._line_sources and flags[SceneOption.VIS_RANGEFINDER]:
            ws = np.arange(nw) if sel is None else np.array([sel])
            LN.scene_lines(m, arrays, ws, self._line_sources, fa["lines"], fa["nline"], self._line_cap)
        else:
            fa["nline"][:] = 0
        self._scene.ngeom = len(self._obj_i) + int(fa["nline"][0])
        self._nworld = None if (sel is not None) else nw
        self._updated = True

    def _place_tendons(self, arrays, worlds):
        """Segments of the spatial tendons in every world of the frame (capsules between wrap points, or along
        the catenary), unused slots hidden, colours mixed with the limit impedance (addSpatialTendonGeoms)."""
        m, fa = self._model, self._fa
        gray = (np.float32(0.5), np.float32(0.5), np.float32(0.5), np.float32(1.0))
        constraint = np.asarray(m.vis.rgba.constraint, np.float64)[:3]
        for i, rows in self._tendon_rows.items():
            recolor = (
                int(m.tendon_matid[i]) == -1 and tuple(np.asarray(m.tendon_rgba, np.float32).reshape(-1, 4)[i]) == gray
            )
            base = self._obj_f[rows[0], L.OF_RGBA : L.OF_RGBA + 3]
            for slot, w in enumerate(worlds):
                segs = T.segments(m, arrays, w, i)
                g = fa["obj_g"][slot]
                if segs:
                    a = np.array([s[0] for s in segs])
                    b = np.array([s[1] for s in segs])
                    width = np.array([s[2] for s in segs])
                    r = rows[: len(segs)]
                    half = 0.5 * np.linalg.norm(b - a, axis=1)
                    fa["obj_pos"][slot, r] = 0.5 * (a + b)
                    fa["obj_mat"][slot, r] = quat2mat(T.quat_z2vec(b - a)).reshape(-1, 9)
                    g[r, L.G_SIZE : L.G_SIZE + 3] = np.stack([width, half, np.zeros_like(half)], axis=1)  # geom_size
                    g[r, L.G_AABB : L.G_AABB + 3] = 0.0
                    g[r, L.G_AABB + 3 : L.G_AABB + 6] = np.stack([width, width, half + width], axis=1)
                    g[r, L.G_RBOUND] = half + width
                g[rows[len(segs) :], L.G_RGBA + 3] = 0.0  # unused slots: not drawn
                if recolor:
                    imp = T.limit_impedance(m, arrays, w, i)
                    g[rows, L.G_RGBA : L.G_RGBA + 3] = (1 - imp) * base + imp * constraint

    # -------------------------------------------------------------------------------------------- render
    def render(self, *, out=None):
        """The image of the last update_scene: uint8 (H, W, 3), float32 depth (H, W) in metres, or int32
        segmentation (H, W, 2) (object id, mjtObj type; -1 for the background); a batch adds a leading world
        axis.  out: optional array of that shape to write into (returned)."""
        if self._closed:
            raise RuntimeError("render cannot be called after close.")
        if not self._updated:
            raise RuntimeError("call update_scene before render")
        flags = self._scene.flags
        for f, what in _UNSUPPORTED_FLAGS.items():
            if flags[f]:
                raise NotImplementedError(f"the numjoco renderer does not draw {what}; clear scene.flags[{f}]")
        from .kernels import render_frames

        fa = self._fa
        opt = fa["opt"]
        mode = L.MODE_DEPTH if self._depth_rendering else L.MODE_SEG if self._segmentation_rendering else L.MODE_RGB
        opt[L.O_MODE] = mode
        opt[L.O_SHADOW] = int(flags[L.RND_SHADOW])
        opt[L.O_REFLECTION] = int(flags[L.RND_REFLECTION])
        opt[L.O_SKYBOX] = int(flags[L.RND_SKYBOX])
        opt[L.O_HAZE] = int(flags[L.RND_HAZE])
        opt[L.O_AA] = int(self.antialias)
        nw = opt[L.O_NWORLD]
        H, W = self._height, self._width
        if mode == L.MODE_RGB:
            shape, dtype = (nw, H, W, 3), np.uint8
        elif mode == L.MODE_DEPTH:
            shape, dtype = (nw, H, W), np.float32
        else:
            shape, dtype = (nw, H, W, 2), np.int32
        want = shape if self._nworld is not None else shape[1:]
        if out is not None and tuple(out.shape) != want:
            raise ValueError(f"Expected `out.shape == {want}`. Got `out.shape={tuple(out.shape)}` instead.")
        direct = out is not None and out.dtype == dtype and out.flags.c_contiguous
        buf = out.reshape(shape) if direct else np.empty(shape, dtype)
        rgb = buf if mode == L.MODE_RGB else _DUMMY_RGB
        depth = buf if mode == L.MODE_DEPTH else _DUMMY_DEPTH
        seg = buf if mode == L.MODE_SEG else _DUMMY_SEG
        render_frames(self._rm, self._frame, rgb, depth, seg)
        res = buf if self._nworld is not None else buf[0]
        if out is not None and not direct:
            out[...] = res
            return out
        return out if direct else res

    def camera(self, world=0):
        """The camera of the last render of `world` (the mono camera mjr_render uses, like the average of
        mjvScene.camera): pos, forward, up, right (float64 (3,) each), the frustum at the near plane
        (frustum_left / right / bottom / top, frustum_near / far, as glFrustum / glOrtho take them) and
        orthographic."""
        if self._fa is None or not self._updated:
            raise RuntimeError("no camera yet: call update_scene and render first")
        v = self._fa["views"][world, L.VIEW_CAMERA]
        ortho = bool(v[L.VW_ORTHO])
        near = v[L.VW_NEAR]
        s = 1.0 if ortho else near
        x0, y0 = v[L.VW_X0], v[L.VW_Y0]
        x1 = x0 + self._width * v[L.VW_SX]
        y1 = y0 - self._height * v[L.VW_SY]
        from types import SimpleNamespace

        return SimpleNamespace(
            pos=v[L.VW_EYE : L.VW_EYE + 3].copy(),
            forward=v[L.VW_FWD : L.VW_FWD + 3].copy(),
            up=v[L.VW_UP : L.VW_UP + 3].copy(),
            right=v[L.VW_RIGHT : L.VW_RIGHT + 3].copy(),
            frustum_left=x0 * s,
            frustum_right=x1 * s,
            frustum_bottom=y1 * s,
            frustum_top=y0 * s,
            frustum_near=near,
            frustum_far=v[L.VW_FAR],
            orthographic=ortho,
        )

    def pixel_rays(self, world=0):
        """(origin (3,) or (H, W, 3), direction (H, W, 3)) of the rays through the pixel centres of the last
        render's camera (row 0 at the top); perspective directions have unit component along the camera axis,
        so depth = ray parameter."""
        c = self.camera(world)
        v = self._fa["views"][world, L.VIEW_CAMERA]
        x = v[L.VW_X0] + (np.arange(self._width) + 0.5) * v[L.VW_SX]
        y = v[L.VW_Y0] - (np.arange(self._height) + 0.5) * v[L.VW_SY]
        X, Y = np.meshgrid(x, y)
        if c.orthographic:
            o = c.pos + X[..., None] * c.right + Y[..., None] * c.up
            return o, np.broadcast_to(c.forward, o.shape).copy()
        return c.pos, c.forward + X[..., None] * c.right + Y[..., None] * c.up

    def close(self):
        """Release the buffers (render and update_scene then raise)."""
        self._frame = None
        self._rm = None
        self._fa = None
        self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.close()


_FRAME_ORDER = tuple(
    (n, 0)
    for n in (
        "opt",
        "camprm",
        "obj_pos",
        "obj_mat",
        "obj_g",
        "ptex",
        "xpos",
        "xquat",
        "xmat",
        "subtree_com",
        "views",
        "lights",
        "nlight",
        "tcnt",
        "tstart",
        "tobj",
        "objcell",
        "gobj",
        "gcnt",
        "gmask",
        "flag",
        "rank",
        "mirror",
        "idbuf",
        "zbuf",
        "job",
        "jscr_i",
        "jcand",
        "jscr_f",
        "jpkt",
        "skycache",
        "skykey",
        "skinvert",
        "skinnorm",
        "skinbox",
        "lines",
        "nline",
    )
)
_DUMMY_RGB = np.zeros((1, 1, 1, 3), np.uint8)
_DUMMY_DEPTH = np.zeros((1, 1, 1), np.float32)
_DUMMY_SEG = np.zeros((1, 1, 1, 2), np.int32)
