"""Cameras and lights of one world: mj_camlight (model cameras and lights in every mode), mjv_cameraFrame and
mjv_cameraFrustum (the camera's frame and projection), mjv_makeLights (the scene's light list, headlight
first), and the shadow views of the lights (mjr_render's shadow-map projections).
"""

import math

from sim.jit import njit
from sim.engine.math import mul_quat, rot_vec_quat, quat2mat, normalize3

from .layout import (
    CAMERA_TRACKING,
    CAMERA_FIXED,
    CAMLIGHT_TRACK,
    CAMLIGHT_TRACKCOM,
    CAMLIGHT_TARGETBODY,
    CAMLIGHT_TARGETBODYCOM,
    LIGHT_SPOT,
    LIGHT_DIRECTIONAL,
    MAXLIGHT,
    PI,
    CI_MODE,
    CI_BODY,
    CI_TARGET,
    CI_PROJ,
    CF_POS,
    CF_QUAT,
    CF_POS0,
    CF_POSCOM0,
    CF_MAT0,
    CF_FOVY,
    CF_SENSOR,
    CF_INTRINSIC,
    LI_MODE,
    LI_BODY,
    LI_TARGET,
    LI_TYPE,
    LI_CASTSHADOW,
    LI_ACTIVE,
    LF_POS,
    LF_DIR,
    LF_POS0,
    LF_DIR0,
    LF_POSCOM0,
    LF_AMBIENT,
    LF_DIFFUSE,
    LF_SPECULAR,
    LF_ATTEN,
    LF_CUTOFF,
    LF_EXPONENT,
    V_ZNEAR,
    V_ZFAR,
    V_FOVY,
    V_ORTHO,
    V_HEADACTIVE,
    V_HEADAMBIENT,
    V_HEADDIFFUSE,
    V_HEADSPECULAR,
    V_SHADOWCLIP,
    V_SHADOWSCALE,
    V_GRID,
    CP_TYPE,
    CP_FIXEDID,
    CP_TRACKID,
    CP_LOOKAT,
    CP_DISTANCE,
    CP_AZIMUTH,
    CP_ELEVATION,
    O_W,
    O_H,
    O_TILE,
    O_NTX,
    O_NTY,
    O_SHADOW,
    O_MODE,
    MODE_RGB,
    VW_EYE,
    VW_RIGHT,
    VW_UP,
    VW_FWD,
    VW_X0,
    VW_Y0,
    VW_SX,
    VW_SY,
    VW_ORTHO,
    VW_NEAR,
    VW_FAR,
    VW_CELL,
    VW_NCX,
    VW_NCY,
    VW_ACTIVE,
    VW_NPX,
    VW_NPY,
    VIEW_SHADOW,
    L_TYPE,
    L_SHADOWVIEW,
    L_POS,
    L_DIR,
    L_AMBIENT,
    L_DIFFUSE,
    L_SPECULAR,
    L_ATTEN,
    L_COSCUT,
    L_EXPONENT,
    L_SUPPORTED,
    NL,
)


@njit(cache=True, fastmath=True)
def _local2global(fr, w, body, f, col):
    """Position f[col:col+3] given in the frame of `body` of world w, in the world frame (mj_local2Global)."""
    bx = fr.xpos[w, body]
    bm = fr.xmat[w, body]
    return (
        bm[0] * f[col] + bm[1] * f[col + 1] + bm[2] * f[col + 2] + bx[0],
        bm[3] * f[col] + bm[4] * f[col + 1] + bm[5] * f[col + 2] + bx[1],
        bm[6] * f[col] + bm[7] * f[col + 1] + bm[8] * f[col + 2] + bx[2],
    )


@njit(cache=True, fastmath=True)
def _tracked(fr, w, body, mode, f, col_pos0, col_poscom0):
    """Position of a track / trackcom camera or light: the body position or subtree centre of mass plus the
    offset it had at qpos0."""
    if mode == CAMLIGHT_TRACK:
        b, c = fr.xpos[w, body], col_pos0
    else:
        b, c = fr.subtree_com[w, body], col_poscom0
    return b[0] + f[c], b[1] + f[c + 1], b[2] + f[c + 2]


@njit(cache=True, fastmath=True)
def cam_pose(rm, fr, w, c, mat):
    """mj_camlight for camera c of world w: writes cam_xmat into mat (9,), returns cam_xpos (3,)."""
    body = rm.cam_i[c, CI_BODY]
    mode = rm.cam_i[c, CI_MODE]
    cf = rm.cam_f[c]
    bq = fr.xquat[w, body]
    p0, p1, p2 = _local2global(fr, w, body, cf, CF_POS)
    q = mul_quat(bq[0], bq[1], bq[2], bq[3], cf[CF_QUAT], cf[CF_QUAT + 1], cf[CF_QUAT + 2], cf[CF_QUAT + 3])
    quat2mat(mat, q[0], q[1], q[2], q[3])
    if mode == CAMLIGHT_TRACK or mode == CAMLIGHT_TRACKCOM:
        for i in range(9):
            mat[i] = cf[CF_MAT0 + i]
        p0, p1, p2 = _tracked(fr, w, body, mode, cf, CF_POS0, CF_POSCOM0)
    elif mode == CAMLIGHT_TARGETBODY or mode == CAMLIGHT_TARGETBODYCOM:
        tb = rm.cam_i[c, CI_TARGET]
        if tb >= 0:
            tp = fr.xpos[w, tb] if mode == CAMLIGHT_TARGETBODY else fr.subtree_com[w, tb]
            z0, z1, z2, _ = normalize3(p0 - tp[0], p1 - tp[1], p2 - tp[2])
            # x = (0, 0, 1) x z, y = z x x
            x0, x1, x2, _ = normalize3(-z1, z0, 0.0)
            y0, y1, y2, _ = normalize3(z1 * x2 - z2 * x1, z2 * x0 - z0 * x2, z0 * x1 - z1 * x0)
            mat[0], mat[1], mat[2] = x0, y0, z0
            mat[3], mat[4], mat[5] = x1, y1, z1
            mat[6], mat[7], mat[8] = x2, y2, z2
    return p0, p1, p2


@njit(cache=True, fastmath=True)
def light_pose(rm, fr, w, i):
    """mj_camlight for model light i of world w: (light_xpos, light_xdir) as tuples."""
    body = rm.light_i[i, LI_BODY]
    mode = rm.light_i[i, LI_MODE]
    lf = rm.light_f[i]
    bq = fr.xquat[w, body]
    p0, p1, p2 = _local2global(fr, w, body, lf, LF_POS)
    d = rot_vec_quat(lf[LF_DIR], lf[LF_DIR + 1], lf[LF_DIR + 2], bq[0], bq[1], bq[2], bq[3])
    d0, d1, d2 = d[0], d[1], d[2]
    if mode == CAMLIGHT_TRACK or mode == CAMLIGHT_TRACKCOM:
        d0, d1, d2 = lf[LF_DIR0], lf[LF_DIR0 + 1], lf[LF_DIR0 + 2]
        p0, p1, p2 = _tracked(fr, w, body, mode, lf, LF_POS0, LF_POSCOM0)
    elif mode == CAMLIGHT_TARGETBODY or mode == CAMLIGHT_TARGETBODYCOM:
        tb = rm.light_i[i, LI_TARGET]
        if tb >= 0:
            tp = fr.xpos[w, tb] if mode == CAMLIGHT_TARGETBODY else fr.subtree_com[w, tb]
            d0, d1, d2 = tp[0] - p0, tp[1] - p1, tp[2] - p2
    d0, d1, d2, _ = normalize3(d0, d1, d2)
    return (p0, p1, p2), (d0, d1, d2)


@njit(cache=True, fastmath=True)
def _set_basis(v, eye, fwd, up):
    """View rows of gluLookAt (mjr_lookAt): right = f x up, up = right x f, both normalised."""
    f0, f1, f2, _ = normalize3(fwd[0], fwd[1], fwd[2])
    s0, s1, s2, _ = normalize3(f1 * up[2] - f2 * up[1], f2 * up[0] - f0 * up[2], f0 * up[1] - f1 * up[0])
    u0, u1, u2, _ = normalize3(s1 * f2 - s2 * f1, s2 * f0 - s0 * f2, s0 * f1 - s1 * f0)
    for i in range(3):
        v[VW_EYE + i] = eye[i]
    v[VW_RIGHT], v[VW_RIGHT + 1], v[VW_RIGHT + 2] = s0, s1, s2
    v[VW_UP], v[VW_UP + 1], v[VW_UP + 2] = u0, u1, u2
    v[VW_FWD], v[VW_FWD + 1], v[VW_FWD + 2] = f0, f1, f2


@njit(cache=True, fastmath=True)
def camera_view(rm, fr, w, v, mat):
    """View 0 of world w from the camera spec fr.camprm (mjv_cameraFrame + mjv_cameraFrustum + setView);
    mat is (9,) scratch.  Also returns the camera frame (headpos, forward, up) for the headlight."""
    cp = fr.camprm
    vis = rm.vis
    ctype = int(cp[CP_TYPE])
    znear = vis[V_ZNEAR]
    zfar = vis[V_ZFAR]
    width = fr.opt[O_W]
    height = fr.opt[O_H]
    ortho = False
    fovy = vis[V_FOVY]
    sensor = False
    if ctype == CAMERA_FIXED:
        c = int(cp[CP_FIXEDID])
        h = cam_pose(rm, fr, w, c, mat)
        fwd = (-mat[2], -mat[5], -mat[8])
        up = (mat[1], mat[4], mat[7])
        ortho = rm.cam_i[c, CI_PROJ] == 1
        fovy = rm.cam_f[c, CF_FOVY]
        sensor = rm.cam_f[c, CF_SENSOR + 1] != 0
    else:
        ca = math.cos(cp[CP_AZIMUTH] / 180.0 * PI)
        sa = math.sin(cp[CP_AZIMUTH] / 180.0 * PI)
        ce = math.cos(cp[CP_ELEVATION] / 180.0 * PI)
        se = math.sin(cp[CP_ELEVATION] / 180.0 * PI)
        fwd = (ce * ca, ce * sa, se)
        up = (-se * ca, -se * sa, ce)
        ortho = vis[V_ORTHO] != 0
        dist = cp[CP_DISTANCE]
        tb = int(cp[CP_TRACKID])
        if ctype == CAMERA_TRACKING and tb >= 0:
            la = fr.subtree_com[w, tb]
            h = (la[0] - dist * fwd[0], la[1] - dist * fwd[1], la[2] - dist * fwd[2])
        else:
            h = (cp[CP_LOOKAT] - dist * fwd[0], cp[CP_LOOKAT + 1] - dist * fwd[1], cp[CP_LOOKAT + 2] - dist * fwd[2])
    _set_basis(v, h, fwd, up)
    # frustum at the near plane (mjv_cameraFrustum), then per unit depth for rays
    if ortho:
        top = fovy / 2
        bottom = -top
        halfw = 0.5 * width / height * (top - bottom)
        left, right = -halfw, halfw
        scale = 1.0
    elif sensor:
        cf = rm.cam_f[int(cp[CP_FIXEDID])]
        fx, fy, cx, cy = cf[CF_INTRINSIC], cf[CF_INTRINSIC + 1], cf[CF_INTRINSIC + 2], cf[CF_INTRINSIC + 3]
        sw, sh = cf[CF_SENSOR], cf[CF_SENSOR + 1]
        zh0 = znear / fx * (sw / 2 - cx)
        zh1 = znear / fx * (sw / 2 + cx)
        top = znear / fy * (sh / 2 - cy)
        bottom = -(znear / fy * (sh / 2 + cy))
        halfw = (zh1 + zh0) / 2
        center = (zh1 - zh0) / 2
        if halfw == 0:
            halfw = 0.5 * width / height * (top - bottom)
        left, right = center - halfw, center + halfw
        scale = 1.0 / znear
    else:
        top = znear * math.tan(fovy * PI / 360.0)
        bottom = -top
        halfw = 0.5 * width / height * (top - bottom)
        left, right = -halfw, halfw
        scale = 1.0 / znear
    v[VW_X0] = left * scale
    v[VW_Y0] = top * scale
    v[VW_SX] = (right - left) * scale / width
    v[VW_SY] = (top - bottom) * scale / height
    v[VW_ORTHO] = 1.0 if ortho else 0.0
    v[VW_NEAR] = znear
    v[VW_FAR] = zfar
    v[VW_CELL] = fr.opt[O_TILE]
    v[VW_NCX] = fr.opt[O_NTX]
    v[VW_NCY] = fr.opt[O_NTY]
    v[VW_NPX] = width
    v[VW_NPY] = height
    v[VW_ACTIVE] = 1.0
    return h, fwd


@njit(cache=True, fastmath=True)
def _ortho_vec(d):
    """mjr_orthoVec: d x (-1, 0, 0), or d x (0, 1, 0) when that is too short; normalised."""
    r0, r1, r2 = 0.0, -d[2], d[1]
    if r0 * r0 + r1 * r1 + r2 * r2 > 0.01:
        x0, x1, x2, _ = normalize3(r0, r1, r2)
        return x0, x1, x2
    x0, x1, x2, _ = normalize3(-d[2], 0.0, d[0])
    return x0, x1, x2


@njit(cache=True, fastmath=True)
def make_lights(rm, fr, w, headpos, headfwd):
    """mjv_makeLights + the light setup of mjr_render for world w: fr.lights[w] rows (headlight first, then the
    active model lights, at most MAXLIGHT), and the shadow view of each shadow-casting light.  Returns the
    number of scene lights."""
    vis = rm.vis
    lt = fr.lights[w]
    n = 0
    if vis[V_HEADACTIVE] != 0:
        row = lt[0]
        for i in range(NL):
            row[i] = 0.0
        row[L_TYPE] = LIGHT_DIRECTIONAL
        row[L_SHADOWVIEW] = -1
        for i in range(3):
            row[L_POS + i] = headpos[i]
            row[L_DIR + i] = headfwd[i]
            row[L_AMBIENT + i] = vis[V_HEADAMBIENT + i]
            row[L_DIFFUSE + i] = vis[V_HEADDIFFUSE + i]
            row[L_SPECULAR + i] = vis[V_HEADSPECULAR + i]
        row[L_ATTEN] = 1.0
        row[L_COSCUT] = -2.0
        row[L_SUPPORTED] = 1.0
        n = 1
    shadows = fr.opt[O_SHADOW] != 0 and fr.opt[O_MODE] == MODE_RGB
    nshadow = 0
    for i in range(rm.light_i.shape[0]):
        if n >= MAXLIGHT:
            break
        if rm.light_i[i, LI_ACTIVE] == 0:
            continue
        pos, d = light_pose(rm, fr, w, i)
        row = lt[n]
        lf = rm.light_f[i]
        typ = rm.light_i[i, LI_TYPE]
        row[L_TYPE] = typ
        row[L_SHADOWVIEW] = -1
        for k in range(3):
            row[L_POS + k] = pos[k]
            row[L_DIR + k] = d[k]
            row[L_AMBIENT + k] = lf[LF_AMBIENT + k]
            row[L_DIFFUSE + k] = lf[LF_DIFFUSE + k]
            row[L_SPECULAR + k] = lf[LF_SPECULAR + k]
        supported = typ == LIGHT_SPOT or typ == LIGHT_DIRECTIONAL
        row[L_SUPPORTED] = 1.0 if supported else 0.0
        if typ == LIGHT_SPOT:
            row[L_ATTEN] = lf[LF_ATTEN]
            row[L_ATTEN + 1] = lf[LF_ATTEN + 1]
            row[L_ATTEN + 2] = lf[LF_ATTEN + 2]
            cut = lf[LF_CUTOFF]
            # glLightf(GL_SPOT_CUTOFF) accepts [0, 90] and 180; other values leave the default 180 (no cone)
            row[L_COSCUT] = math.cos(cut * PI / 180.0) if 0 <= cut <= 90 else -2.0
            row[L_EXPONENT] = lf[LF_EXPONENT]
        else:
            row[L_ATTEN], row[L_ATTEN + 1], row[L_ATTEN + 2] = 1.0, 0.0, 0.0
            row[L_COSCUT] = -2.0
            row[L_EXPONENT] = 0.0
        if shadows and supported and rm.light_i[i, LI_CASTSHADOW] != 0:
            vi = VIEW_SHADOW + nshadow
            row[L_SHADOWVIEW] = vi
            shadow_view(rm, fr, w, vi, typ, pos, d, lf[LF_CUTOFF])
            nshadow += 1
        n += 1
    return n


@njit(cache=True, fastmath=True)
def shadow_view(rm, fr, w, vi, typ, pos, d, cutoff):
    """The light's shadow-map projection as a view with a grid of cells: orthographic +-shadowclip for a
    directional light, perspective with fovy = min(2 cutoff shadowscale, 160) for a spot light; depth range
    [znear, zfar] of the camera (mjr_render)."""
    vis = rm.vis
    v = fr.views[w, vi]
    up = _ortho_vec(d)
    _set_basis(v, pos, d, up)
    g = vis[V_GRID]
    if typ == LIGHT_DIRECTIONAL:
        clip = vis[V_SHADOWCLIP]
        v[VW_ORTHO] = 1.0
        v[VW_X0] = -clip
        v[VW_Y0] = clip
        v[VW_SX] = 2 * clip / g
        v[VW_SY] = 2 * clip / g
    else:
        fovy = min(2 * cutoff * vis[V_SHADOWSCALE], 160.0)
        hh = math.tan(fovy / 360.0 * PI)
        v[VW_ORTHO] = 0.0
        v[VW_X0] = -hh
        v[VW_Y0] = hh
        v[VW_SX] = 2 * hh / g
        v[VW_SY] = 2 * hh / g
    v[VW_NEAR] = vis[V_ZNEAR]
    v[VW_FAR] = vis[V_ZFAR]
    v[VW_CELL] = 1.0
    v[VW_NCX] = g
    v[VW_NCY] = g
    v[VW_NPX] = g
    v[VW_NPY] = g
    v[VW_ACTIVE] = 1.0
