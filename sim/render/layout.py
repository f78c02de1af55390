"""Column layouts of the renderer's packed arrays (RenderModel.obj_i, obj_f, ... and Frame.view, lights, ...),
and the renderer's constants (MuJoCo's enum values where they exist)."""

# mjtGeom / mjtObj / mjtCamera / mjtCamLight / mjtLightType / mjtTexture / mjtRndFlag values
GEOM_PLANE, GEOM_HFIELD, GEOM_SPHERE, GEOM_CAPSULE, GEOM_ELLIPSOID = 0, 1, 2, 3, 4
GEOM_CYLINDER, GEOM_BOX, GEOM_MESH, GEOM_SDF = 5, 6, 7, 8
GEOM_LINE, GEOM_SKIN = 103, 106  # mjGEOM_LINE; mjGEOM_SKIN: one skin (RenderModel object) with a face BVH
OBJ_GEOM, OBJ_SITE, OBJ_CAMERA, OBJ_SKIN, OBJ_TENDON, OBJ_SENSOR = 5, 6, 7, 11, 18, 20
CAMERA_FREE, CAMERA_TRACKING, CAMERA_FIXED, CAMERA_USER = 0, 1, 2, 3
CAMLIGHT_FIXED, CAMLIGHT_TRACK, CAMLIGHT_TRACKCOM, CAMLIGHT_TARGETBODY, CAMLIGHT_TARGETBODYCOM = 0, 1, 2, 3, 4
LIGHT_SPOT, LIGHT_DIRECTIONAL, LIGHT_POINT, LIGHT_IMAGE = 0, 1, 2, 3
TEXTURE_2D, TEXTURE_CUBE, TEXTURE_SKYBOX = 0, 1, 2
RND_SHADOW, RND_WIREFRAME, RND_REFLECTION, RND_ADDITIVE, RND_SKYBOX, RND_FOG, RND_HAZE = 0, 1, 2, 3, 4, 5, 6
RND_DEPTH, RND_SEGMENT, RND_IDCOLOR, RND_CULL_FACE, NRNDFLAG = 7, 8, 9, 10, 11
NGROUP = 6  # mjNGROUP
MAXLIGHT = 8  # lights the fixed-function GL pipeline of mjr_render can enable (GL_LIGHT0..7)
MINVAL = 1e-15  # mjMINVAL
PI = 3.141592653589793

# --- RenderModel.obj_i columns (one row per rendered object: visible geoms, then visible sites)
OI_SRC, OI_KIND, OI_OBJTYPE, OI_TYPE, OI_DATAID, OI_TEXID, OI_TEXCOORD, OI_TEXTYPE, OI_BODY = range(9)
NOI = 9
KIND_GEOM, KIND_SITE, KIND_TENDON, KIND_SKIN = 0, 1, 2, 3
# --- RenderModel.obj_f columns
OF_SIZE = 0  # 3: geom_size (MuJoCo meaning per type)
OF_AABB = 3  # 6: local bounding box, centre then half sizes (geom_aabb)
OF_RBOUND = 9
OF_RGBA = 10  # 4: colour after setMaterial
OF_EMISSION, OF_SPECULAR, OF_SHININESS, OF_REFLECTANCE = 14, 15, 16, 17
OF_TEXREPEAT = 18  # 2
OF_TEXUNIFORM = 20
NOF = 21

# --- RenderModel.tex_i columns: type, width, height of one face (level 0), nlevel, then per level adr, w, h
TI_TYPE, TI_W, TI_H, TI_NLEVEL, TI_ALPHA, TI_LEVEL = 0, 1, 2, 3, 4, 5  # TI_ALPHA: 4 channels
MAXLEVEL = 16
NTI = TI_LEVEL + 3 * MAXLEVEL

# --- RenderModel.mesh_i columns
MI_VERTADR, MI_VERTNUM, MI_FACEADR, MI_FACENUM, MI_NORMALADR, MI_TEXCOORDADR, MI_BVHADR, MI_BVHNUM = range(8)
NMI = 8
# RenderModel.mesh_face columns: vertex ids (3), normal ids (3), texcoord ids (3)

# --- RenderModel.hfield_i columns
HI_NROW, HI_NCOL, HI_ADR = 0, 1, 2

# --- RenderModel.skin_i columns (per skin), bone_i (per bone: body, vertex list), bone_f (bindpos, bindquat)
# and SI_BVHADR / SI_BVHNUM: the skin's nodes in skin_bvh_child / skin_bvh_face (parents before children; a
# leaf holds one face, its index within the skin, internal nodes -1) and in Frame.skinbox (refit every frame)
SI_VERTADR, SI_VERTNUM, SI_FACEADR, SI_FACENUM, SI_BONEADR, SI_BONENUM, SI_TEXCOORDADR, SI_BVHADR, SI_BVHNUM = range(9)
NSI = 9
BI_BODY, BI_VERTADR, BI_VERTNUM = 0, 1, 2
BF_BINDPOS, BF_BINDQUAT = 0, 3
SKIN_SIZE = 0.1  # mjv_initGeom's default size, which a skin keeps (texuniform scales by it)

# --- RenderModel.cam_i / cam_f columns
CI_MODE, CI_BODY, CI_TARGET, CI_PROJ = 0, 1, 2, 3
NCI = 4
CF_POS, CF_QUAT, CF_POS0, CF_POSCOM0, CF_MAT0, CF_FOVY, CF_IPD, CF_SENSOR, CF_INTRINSIC = (
    0,
    3,
    7,
    10,
    13,
    22,
    23,
    24,
    26,
)
NCF = 30

# --- RenderModel.light_i / light_f columns
LI_MODE, LI_BODY, LI_TARGET, LI_TYPE, LI_CASTSHADOW, LI_ACTIVE = range(6)
NLI = 6
LF_POS, LF_DIR, LF_POS0, LF_DIR0, LF_POSCOM0, LF_AMBIENT, LF_DIFFUSE, LF_SPECULAR = 0, 3, 6, 9, 12, 15, 18, 21
LF_ATTEN, LF_CUTOFF, LF_EXPONENT = 24, 27, 28
NLF = 29

# --- RenderModel.vis entries
V_ZNEAR, V_ZFAR, V_EXTENT, V_FOVY, V_IPD, V_ORTHO = 0, 1, 2, 3, 4, 5
V_HEADACTIVE, V_HEADAMBIENT, V_HEADDIFFUSE, V_HEADSPECULAR = 6, 7, 10, 13
V_SHADOWCLIP, V_SHADOWSCALE, V_HAZE, V_HAZERGBA, V_SKYTEX, V_NSHADOW, V_NOBJ_GEOM = 16, 17, 18, 19, 23, 24, 25
V_ZBG, V_GRID = 26, 27  # V_ZBG: depth reported where nothing is drawn (mujoco.Renderer's, from a 0 buffer)
NV = 28

# --- Frame.opt entries
O_MODE, O_SHADOW, O_REFLECTION, O_SKYBOX, O_HAZE, O_AA, O_W, O_H, O_TILE, O_NTX, O_NTY, O_NWORLD = range(12)
O_NJOB, O_NVIEW = 12, 13
NO = 14
MODE_RGB, MODE_DEPTH, MODE_SEG = 0, 1, 2

# --- Frame.camprm (the mjvCamera in use)
CP_TYPE, CP_FIXEDID, CP_TRACKID, CP_LOOKAT, CP_DISTANCE, CP_AZIMUTH, CP_ELEVATION, CP_ORTHO = 0, 1, 2, 3, 6, 7, 8, 9
NCP = 10

# --- Frame.view[w, v]: a pinhole or orthographic view used for binning objects into a grid of cells
# (v = 0 the camera, 1 the mirror image of the camera in the reflecting geom, 2.. the shadow-casting lights)
VW_EYE, VW_RIGHT, VW_UP, VW_FWD = 0, 3, 6, 9
VW_X0, VW_Y0, VW_SX, VW_SY = 12, 13, 14, 15  # x/z = X0 + (px + 0.5) SX,  y/z = Y0 - (py + 0.5) SY
VW_ORTHO, VW_NEAR, VW_FAR, VW_CELL, VW_NCX, VW_NCY, VW_ACTIVE = 16, 17, 18, 19, 20, 21, 22
VW_NPX, VW_NPY = 23, 24  # extent of the view in pixels (cells * cell size for grids)
# 4: x/z low, high, y/z low, high (x, y for orthographic views) bounding the cells bin_view listed objects in, grown
# by a cell on every side (empty: low > high); a point outside them is in no listed object's cell
VW_OCC = 25
NVW = 29
VIEW_CAMERA, VIEW_MIRROR, VIEW_SHADOW = 0, 1, 2

# --- Frame.lights[w, i] (scene lights in mjr_render order: headlight first, then active model lights)
L_TYPE, L_SHADOWVIEW, L_POS, L_DIR, L_AMBIENT, L_DIFFUSE, L_SPECULAR, L_ATTEN = 0, 1, 2, 5, 8, 11, 14, 17
L_COSCUT, L_EXPONENT, L_SUPPORTED = 20, 21, 22
NL = 23

# --- Frame.obj_g[w, k]: per-world geometry and colour of the objects (static objects copy RenderModel.obj_f;
# tendon segments and skin triangles change every update)
G_SIZE, G_AABB, G_RBOUND, G_RGBA = 0, 3, 9, 10
NG = 14
# --- Frame.flag[w, k] bits per object and Frame.mirror[w] entries
FL_TRANSPARENT, FL_REFLECTIVE, FL_HIDDEN = 1, 2, 4  # hidden: alpha 0 this frame (unused dynamic slot)
M_ACTIVE, M_OBJ, M_POS, M_NORMAL, M_SCRATCH, M_NTRANS = 0, 1, 2, 5, 8, 17
M_HAZE, M_HAZEMAT, M_HAZEELEV = 18, 19, 28  # haze over the first infinite plane: on, plane axes, elevation
NM = 29
# Frame.skykey[w]: the camera orientation and frustum the cached skybox colours (Frame.skycache) were made for
NSKYKEY = 17
# --- Frame.jscr_i per job: BVH stack, then transparent-hit objects and parts; Frame.jscr_f: their distances
J_STACK, J_HK, J_HP, MAXTRANS = 0, 128, 136, 8
# --- Frame.ptex[w, k]: per-frame constants of a 2-D textured plane seen by the perspective camera (shade.py)
PT_VALID, PT_EX, PT_EY, PT_D0, PT_H, PT_A0, PT_B0, PT_A1, PT_B1 = 0, 1, 4, 7, 10, 11, 12, 13, 14
NPT = 15
# --- Frame.jpkt[job, i, x]: floor.py's values of pixel x of the tile row being shaded: hit (1 / 0), depth, colour,
# texture colour, the mip blend weight and each of the two mip levels' texel rows (00, 10, 01, 11) and weights
PK_OK, PK_T, PK_R, PK_TR, PK_BLEND, PK_LA, PK_LB = 0, 1, 2, 5, 8, 9, 15
NPK = 21
NJI = 144
# --- Frame.lines[w, i]: the scene's line geoms (rangefinder rays, mjGEOM_LINE), Frame.nline[w] of them: end points,
# the object they report in segmentation (id, mjtObj type), colour and width in pixels
LN_FROM, LN_TO, LN_OBJID, LN_OBJTYPE, LN_RGB, LN_WIDTH = 0, 3, 6, 7, 8, 11
NLN = 12
