"""structref types of the renderer: RenderModel (static, built once per model and scene option) and Frame (the
per-renderer scene snapshot, scratch and bins, with a leading world axis).

Both are built from numpy arrays by `sim.render.scene`; the jitted code reads their fields by name.  Column
layouts of the packed 2-D arrays (obj_i, obj_f, ...) are the constants in sim.render.layout.
"""

from numba.core import types
from numba.experimental import structref

from sim.jit import njit

_f64 = lambda nd: types.Array(types.float64, nd, "C")  # noqa: E731
_f32 = lambda nd: types.Array(types.float32, nd, "C")  # noqa: E731
_i32 = lambda nd: types.Array(types.int32, nd, "C")  # noqa: E731
_i64 = lambda nd: types.Array(types.int64, nd, "C")  # noqa: E731

RENDER_MODEL_FIELDS = (
    ("nobj", types.int64),
    ("obj_i", _i32(2)),
    ("obj_f", _f64(2)),
    ("tex_i", _i64(2)),
    ("texel", _f32(2)),
    ("mesh_i", _i32(2)),
    ("mesh_vert", _f64(2)),
    ("mesh_face", _i32(2)),
    ("mesh_normal", _f64(2)),
    ("mesh_texcoord", _f64(2)),
    ("bvh_aabb", _f64(2)),
    ("bvh_child", _i32(2)),
    ("bvh_nodeid", _i32(1)),
    ("hfield_i", _i32(2)),
    ("hfield_size", _f64(2)),
    ("hfield_data", _f64(1)),
    ("cam_i", _i32(2)),
    ("cam_f", _f64(2)),
    ("light_i", _i32(2)),
    ("light_f", _f64(2)),
    ("vis", _f64(1)),
    ("skin_i", _i32(2)),
    ("skin_inflate", _f64(1)),
    ("skin_vert", _f64(2)),
    ("skin_face", _i32(2)),
    ("skin_texcoord", _f64(2)),
    ("bone_i", _i32(2)),
    ("bone_f", _f64(2)),
    ("bonevert_id", _i32(1)),
    ("bonevert_w", _f64(1)),
    ("skin_bvh_child", _i32(2)),
    ("skin_bvh_face", _i32(1)),
)

FRAME_FIELDS = (
    ("opt", _i64(1)),
    ("camprm", _f64(1)),
    ("obj_pos", _f64(3)),
    ("obj_mat", _f64(3)),
    ("obj_g", _f64(3)),
    ("ptex", _f64(3)),
    ("xpos", _f64(3)),
    ("xquat", _f64(3)),
    ("xmat", _f64(3)),
    ("subtree_com", _f64(3)),
    ("views", _f64(3)),
    ("lights", _f64(3)),
    ("nlight", _i64(1)),
    ("tcnt", _i32(3)),
    ("tstart", _i32(3)),
    ("tobj", _i32(3)),
    ("objcell", _i32(3)),
    ("gobj", _i32(3)),
    ("gcnt", _i32(2)),
    ("gmask", _i64(3)),
    ("flag", _i32(2)),
    ("rank", _i32(2)),
    ("mirror", _f64(2)),
    ("idbuf", _i32(3)),
    ("zbuf", _f32(3)),
    ("job", _i64(2)),
    ("jscr_i", _i32(2)),
    ("jcand", _i32(3)),
    ("jscr_f", _f64(2)),
    ("jpkt", _f64(3)),
    ("skycache", _f32(4)),
    ("skykey", _f64(2)),
    ("skinvert", _f64(3)),
    ("skinnorm", _f64(3)),
    ("skinbox", _f64(3)),
    ("lines", _f64(3)),
    ("nline", _i64(1)),
)


@structref.register
class RenderModelType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((n, types.unliteral(t)) for n, t in fields)


@structref.register
class FrameType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((n, types.unliteral(t)) for n, t in fields)


class RenderModelStruct(structref.StructRefProxy):
    """Opaque handle to the jitted render model."""


class FrameStruct(structref.StructRefProxy):
    """Opaque handle to the jitted frame buffers."""


structref.define_boxing(RenderModelType, RenderModelStruct)
structref.define_boxing(FrameType, FrameStruct)

RENDER_MODEL_TYPE = RenderModelType(RENDER_MODEL_FIELDS)
FRAME_TYPE = FrameType(FRAME_FIELDS)


@njit(cache=True, refcount=True)
def new_render_model(
    nobj,
    obj_i,
    obj_f,
    tex_i,
    texel,
    mesh_i,
    mesh_vert,
    mesh_face,
    mesh_normal,
    mesh_texcoord,
    bvh_aabb,
    bvh_child,
    bvh_nodeid,
    hfield_i,
    hfield_size,
    hfield_data,
    cam_i,
    cam_f,
    light_i,
    light_f,
    vis,
    skin_i,
    skin_inflate,
    skin_vert,
    skin_face,
    skin_texcoord,
    bone_i,
    bone_f,
    bonevert_id,
    bonevert_w,
    skin_bvh_child,
    skin_bvh_face,
):
    st = structref.new(RENDER_MODEL_TYPE)
    st.nobj = nobj
    st.obj_i = obj_i
    st.obj_f = obj_f
    st.tex_i = tex_i
    st.texel = texel
    st.mesh_i = mesh_i
    st.mesh_vert = mesh_vert
    st.mesh_face = mesh_face
    st.mesh_normal = mesh_normal
    st.mesh_texcoord = mesh_texcoord
    st.bvh_aabb = bvh_aabb
    st.bvh_child = bvh_child
    st.bvh_nodeid = bvh_nodeid
    st.hfield_i = hfield_i
    st.hfield_size = hfield_size
    st.hfield_data = hfield_data
    st.cam_i = cam_i
    st.cam_f = cam_f
    st.light_i = light_i
    st.light_f = light_f
    st.vis = vis
    st.skin_i = skin_i
    st.skin_inflate = skin_inflate
    st.skin_vert = skin_vert
    st.skin_face = skin_face
    st.skin_texcoord = skin_texcoord
    st.bone_i = bone_i
    st.bone_f = bone_f
    st.bonevert_id = bonevert_id
    st.bonevert_w = bonevert_w
    st.skin_bvh_child = skin_bvh_child
    st.skin_bvh_face = skin_bvh_face
    return st


@njit(cache=True, refcount=True)
def new_frame(
    opt,
    camprm,
    obj_pos,
    obj_mat,
    obj_g,
    ptex,
    xpos,
    xquat,
    xmat,
    subtree_com,
    views,
    lights,
    nlight,
    tcnt,
    tstart,
    tobj,
    objcell,
    gobj,
    gcnt,
    gmask,
    flag,
    rank,
    mirror,
    idbuf,
    zbuf,
    job,
    jscr_i,
    jcand,
    jscr_f,
    jpkt,
    skycache,
    skykey,
    skinvert,
    skinnorm,
    skinbox,
    lines,
    nline,
):
    st = structref.new(FRAME_TYPE)
    st.opt = opt
    st.camprm = camprm
    st.obj_pos = obj_pos
    st.obj_mat = obj_mat
    st.obj_g = obj_g
    st.ptex = ptex
    st.xpos = xpos
    st.xquat = xquat
    st.xmat = xmat
    st.subtree_com = subtree_com
    st.views = views
    st.lights = lights
    st.nlight = nlight
    st.tcnt = tcnt
    st.tstart = tstart
    st.tobj = tobj
    st.objcell = objcell
    st.gobj = gobj
    st.gcnt = gcnt
    st.gmask = gmask
    st.flag = flag
    st.rank = rank
    st.mirror = mirror
    st.idbuf = idbuf
    st.zbuf = zbuf
    st.job = job
    st.jscr_i = jscr_i
    st.jcand = jcand
    st.jscr_f = jscr_f
    st.jpkt = jpkt
    st.skycache = skycache
    st.skykey = skykey
    st.skinvert = skinvert
    st.skinnorm = skinnorm
    st.skinbox = skinbox
    st.lines = lines
    st.nline = nline
    return st
