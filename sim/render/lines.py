"""Line geoms: the rangefinder rays mjv_updateScene adds (addRangefinderGeoms, mjVIS_RANGEFINDER, on by default)
and the pixels OpenGL gives them.

`scene_lines` (Python, every update_scene) lists the lines of each world as addRangefinderGeoms makes them: a
site rangefinder that measured a distance draws a line from the site along its z axis to the hit point, a camera
rangefinder one per pixel that measured one (from mju_camPixelRay's origin along its direction), a geomfromto
sensor one between its two points unless both are zero; colour vis.rgba.rangefinder, objid the sensor,
mjOBJ_SENSOR.  renderGeom draws an mjGEOM_LINE unlit with glLineWidth(3 * vis.global.linewidth).

`draw_lines` rasterises them over a finished image as Mesa's llvmpipe (the GL mujoco.Renderer gets without a
GPU: EGL or OSMesa) rasterises a wide line without multisampling (lp_setup_line.c): the segment is clipped to the
view frustum (draw's clipper), its window end points decide with the diamond-exit rule whether the first and
last pixel columns (rows for a y-major line) are drawn, and the covered pixels are those whose centres lie in the
parallelogram of the line's height (width) `round(width)` pixels across the major axis, its corners snapped to
1/256 pixel, with the top-left fill convention.  Depth is interpolated along the major axis only (the "preferred
wide-lines formula") and tested (GL_LEQUAL) against the depth of what the pixel shows, which is recomputed by
casting the pixel's ray, and against the lines drawn before it there (in scene order: a later line wins a tie).
Segmentation (id mjOBJ_SENSOR, the sensor), depth and colour are written where it passes.  The float arithmetic of lp_setup_line is done in float32 as there.
"""

import math

import numpy as np

from sim.jit import njit
from sim.constants import SENS_RANGEFINDER, SENS_GEOMFROMTO

from . import layout as L
from .layout import (
    LN_FROM,
    LN_TO,
    LN_OBJID,
    LN_OBJTYPE,
    LN_RGB,
    LN_WIDTH,
    MODE_RGB,
    MODE_DEPTH,
    O_MODE,
    O_TILE,
    O_NTX,
    O_W,
    O_H,
    V_ZNEAR,
    V_ZFAR,
    VIEW_CAMERA,
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
    J_STACK,
    J_HK,
)
from .trace import nearest, view_ray

RAYDATA_SIZE = (1, 3, 3, 3, 3, 1)  # mjRAYDATA_SIZE: dist, dir, origin, point, normal, depth
RAYDATA_DIST, RAYDATA_POINT, RAYDATA_NORMAL = 0, 3, 4
PROJ_PERSPECTIVE = 0

# ------------------------------------------------------------------------------------------------ scene (Python)


def line_sources(m):
    """[(sensor id, kind, rays)] of the sensors addRangefinderGeoms draws lines for (kind "site", "camera" or
    "fromto"; rays: the most lines it can draw), and the sensors whose other decor (a sphere at the hit point, an
    arrow along the normal) the renderer does not draw, as (sensor id, what)."""
    out, undrawn = [], []
    nsensor = int(getattr(m, "nsensor", 0) or 0)
    if nsensor == 0:
        return out, undrawn
    st = np.asarray(m.sensor_type).reshape(-1)
    ot = np.asarray(m.sensor_objtype).reshape(-1)
    oid = np.asarray(m.sensor_objid).reshape(-1)
    spec = np.asarray(m.sensor_intprm).reshape(nsensor, -1)[:, 0]
    for i in range(nsensor):
        if st[i] == SENS_GEOMFROMTO:
            out.append((i, "fromto", 1))
        elif st[i] == SENS_RANGEFINDER:
            if spec[i] & ((1 << RAYDATA_POINT) | (1 << RAYDATA_NORMAL)):
                undrawn.append((i, "rangefinder hit points and normals"))
            if not spec[i] & (1 << RAYDATA_DIST):
                continue
            if ot[i] == L.OBJ_SITE:
                out.append((i, "site", 1))
            elif ot[i] == L.OBJ_CAMERA:
                res = np.asarray(m.cam_resolution).reshape(-1, 2)[oid[i]]
                out.append((i, "camera", int(res[0]) * int(res[1])))
    return out, undrawn


def _cam_rays(m, arrays, worlds, c):
    """(origin (nw, n, 3), unit direction (nw, n, 3)) of camera c's pixel rays, row by row (mju_camPixelRay with
    mju_camIntrinsics, as the camera rangefinder casts them)."""
    width, height = (int(x) for x in np.asarray(m.cam_resolution).reshape(-1, 2)[c])
    ss = np.asarray(m.cam_sensorsize, np.float32).reshape(-1, 2)[c]
    intr = np.asarray(m.cam_intrinsic, np.float32).reshape(-1, 4)[c]
    fovy = float(np.asarray(m.cam_fovy).reshape(-1)[c])
    persp = int(np.asarray(m.cam_projection).reshape(-1)[c]) == PROJ_PERSPECTIVE
    if persp and ss[0] != 0 and ss[1] != 0:
        fx = float(intr[0] / ss[0] * np.float32(width))
        fy = float(intr[1] / ss[1] * np.float32(height))
        cx = float(intr[2] / ss[0] * np.float32(width))
        cy = float(intr[3] / ss[1] * np.float32(height))
    elif persp:
        fx = fy = 0.5 / math.tan(fovy * math.pi / 360.0) * height
        cx, cy = width / 2.0, height / 2.0
    else:
        fx, fy = width / 2.0, height / 2.0
        cx, cy = fx, fy
    row, col = np.divmod(np.arange(width * height), width)
    px = col + 0.5 - cx
    py = row + 0.5 - cy
    pos = arrays["cam_xpos"][worlds][:, c]  # (nw, 3)
    mat = arrays["cam_xmat"][worlds][:, c].reshape(-1, 3, 3)
    if persp:
        v = np.stack([px / fx, -py / fy, -np.ones_like(px)], axis=1)  # (n, 3) camera frame
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        d = np.einsum("wij,nj->wni", mat, v)
        o = np.broadcast_to(pos[:, None, :], d.shape)
    else:
        half = fovy / 2
        lo = np.stack([px / fx * half, -py / fy * half, np.zeros_like(px)], axis=1)
        o = pos[:, None, :] + np.einsum("wij,nj->wni", mat, lo)
        d = np.broadcast_to(-mat[:, None, :, 2], o.shape)
    return o, d


def scene_lines(m, arrays, worlds, sources, out, count, cap):
    """Fill out[i, :count[i]] with the lines of world worlds[i] (Frame.lines rows: end points, sensor id,
    mjOBJ_SENSOR, vis.rgba.rangefinder, width in pixels), at most `cap` per world."""
    nw = len(worlds)
    count[:nw] = 0
    if not sources or cap <= 0:
        return
    sd = arrays["sensordata"][worlds]  # (nw, nsensordata)
    adr = np.asarray(m.sensor_adr).reshape(-1)
    oid = np.asarray(m.sensor_objid).reshape(-1)
    spec = np.asarray(m.sensor_intprm).reshape(len(adr), -1)[:, 0]
    rgb = np.asarray(m.vis.rgba.rangefinder, np.float32)[:3].astype(np.float64)
    width = 3.0 * float(np.float32(m.vis.global_.linewidth))
    for i, kind, _ in sources:
        if kind == "fromto":
            ft = sd[:, adr[i] : adr[i] + 6]
            a, b = ft[:, None, :3], ft[:, None, 3:]
            ok = np.any(ft != 0, axis=1)[:, None]
        else:
            size = sum(RAYDATA_SIZE[j] for j in range(len(RAYDATA_SIZE)) if spec[i] & (1 << j))
            if kind == "site":
                dist = sd[:, adr[i] : adr[i] + 1]
                a = arrays["site_xpos"][worlds][:, oid[i]][:, None, :]
                u = arrays["site_xmat"][worlds][:, oid[i]].reshape(-1, 3, 3)[:, None, :, 2]
            else:
                a, u = _cam_rays(m, arrays, worlds, int(oid[i]))
                n = a.shape[1]
                dist = sd[:, adr[i] : adr[i] + n * size].reshape(nw, n, size)[:, :, 0]
            ok = dist >= 0
            b = a + u * dist[..., None]
        for w in range(nw):
            sel = np.flatnonzero(ok[w])
            k = min(len(sel), cap - count[w])
            if k <= 0:
                continue
            rows = out[w, count[w] : count[w] + k]
            aw = np.broadcast_to(a[w], b[w].shape)
            rows[:, LN_FROM : LN_FROM + 3] = aw[sel[:k]]
            rows[:, LN_TO : LN_TO + 3] = b[w][sel[:k]]
            rows[:, LN_OBJID] = i
            rows[:, LN_OBJTYPE] = L.OBJ_SENSOR
            rows[:, LN_RGB : LN_RGB + 3] = rgb
            rows[:, LN_WIDTH] = width
            count[w] += k


# ------------------------------------------------------------------------------------------------ raster (jitted)

FIXED_ORDER = 8
FIXED_ONE = 1 << FIXED_ORDER
_H = np.float32(0.5)
_Z = np.float32(0.0)
_ONE = np.float32(1.0)


@njit(cache=True)
def _snap(a):
    """lp_setup's subpixel_snap: a in 1/256 pixels, rounded to nearest (ties to even, as lrintf)."""
    return np.int64(np.rint(np.float32(FIXED_ONE) * a))


@njit(cache=True)
def _frac(x):
    return x - np.float32(math.floor(x))


@njit(cache=True)
def _homogeneous(v, p, H):
    """Window coordinates of world point p in view v times its depth w along the view axis (w = 1 for an
    orthographic view): (x w, y w, depth), x from the left, y from the bottom (OpenGL's window coordinates)."""
    r0, r1, r2 = p[0] - v[VW_EYE], p[1] - v[VW_EYE + 1], p[2] - v[VW_EYE + 2]
    xe = r0 * v[VW_RIGHT] + r1 * v[VW_RIGHT + 1] + r2 * v[VW_RIGHT + 2]
    ye = r0 * v[VW_UP] + r1 * v[VW_UP + 1] + r2 * v[VW_UP + 2]
    ze = r0 * v[VW_FWD] + r1 * v[VW_FWD + 1] + r2 * v[VW_FWD + 2]
    if v[VW_ORTHO] != 0:
        return (xe - v[VW_X0]) / v[VW_SX], H - (v[VW_Y0] - ye) / v[VW_SY], ze
    return (xe - v[VW_X0] * ze) / v[VW_SX], H * ze - (v[VW_Y0] * ze - ye) / v[VW_SY], ze


@njit(cache=True)
def _clip(v, p, q, W, H):
    """The segment p-q of view v clipped to its frustum as draw's clipper does (the parameters where it leaves
    each plane, in homogeneous coordinates): (a, b, ok) with a, b as _homogeneous gives them."""
    x0, y0, z0 = _homogeneous(v, p, H)
    x1, y1, z1 = _homogeneous(v, q, H)
    ortho = v[VW_ORTHO] != 0
    w0 = 1.0 if ortho else z0
    w1 = 1.0 if ortho else z1
    t0, t1 = 0.0, 0.0
    for i in range(6):
        if i == 0:
            d0, d1 = x0, x1
        elif i == 1:
            d0, d1 = W * w0 - x0, W * w1 - x1
        elif i == 2:
            d0, d1 = y0, y1
        elif i == 3:
            d0, d1 = H * w0 - y0, H * w1 - y1
        elif i == 4:
            d0, d1 = z0 - v[VW_NEAR], z1 - v[VW_NEAR]
        else:
            d0, d1 = v[VW_FAR] - z0, v[VW_FAR] - z1
        if d1 < 0:
            t1 = max(t1, d1 / (d1 - d0))
        if d0 < 0:
            t0 = max(t0, d0 / (d0 - d1))
        if t0 + t1 >= 1.0:
            return (0.0, 0.0, 1.0), (0.0, 0.0, 1.0), False
    a = (x0 + t0 * (x1 - x0), y0 + t0 * (y1 - y0), z0 + t0 * (z1 - z0))
    b = (x1 + t1 * (x0 - x1), y1 + t1 * (y0 - y1), z1 + t1 * (z0 - z1))
    return a, b, True


@njit(cache=True)
def _setup(x1, y1, x2, y2, width, X, Y):
    """lp_setup_line's parallelogram of the line (x1, y1) - (x2, y2) (window coordinates, float32): its corners
    in 1/256 pixels relative to the pixel centres into X, Y (int64[4]); returns whether the line is x-major."""
    fw = np.int64(np.rint(max(np.float32(1.0), width))) * FIXED_ONE
    dx = x1 - x2
    dy = y1 - y2
    x_off = y_off = x_off_end = y_off_end = _Z
    x1d = x1 - np.float32(math.floor(x1)) - _H
    y1d = y1 - np.float32(math.floor(y1)) - _H
    x2d = x2 - np.float32(math.floor(x2)) - _H
    y2d = y2 - np.float32(math.floor(y2)) - _H
    ax, ay, bx, by = x1, y1, x2, y2
    if abs(dx) >= abs(dy):
        dydx = dy / dx
        if y2d == -_H and dy < 0:
            y2d = _H
        # diamond exit rule for the start and the end point
        if abs(x1d) + abs(y1d) < _H:
            ds = True
        elif (x1d >= 0) == (-dx >= 0):
            ds = False
        elif (-y1d >= 0) != (dy >= 0):
            ds = True
        else:
            yi = _frac(y1) + x1d * dydx
            ds = yi < _ONE and yi > _Z
        if abs(x2d) + abs(y2d) < _H:
            de = False
        elif (x2d >= 0) != (-dx >= 0):
            de = False
        elif (-y2d >= 0) == (dy >= 0):
            de = True
        else:
            yi = _frac(y2) + x2d * dydx
            de = yi < _ONE and yi > _Z
        if dx < 0:
            ax, ay, bx, by = x2, y2, x1, y1
            if (x1d <= 0) != ds:
                x_off_end = -x1d - _H
                y_off_end = x_off_end * dydx
            if (x2d > 0) != de:
                x_off = -x2d - _H
                y_off = x_off * dydx
        else:
            if (x1d > 0) != ds:
                x_off = -x1d + _H
                y_off = x_off * dydx
            if (x2d <= 0) != de:
                x_off_end = -x2d + _H
                y_off_end = x_off_end * dydx
        X[0] = _snap(ax + x_off - _H)
        X[1] = _snap(bx + x_off_end - _H)
        X[2] = X[1]
        X[3] = X[0]
        Y[0] = _snap(ay + y_off - _H) - fw // 2
        Y[1] = _snap(by + y_off_end - _H) - fw // 2
        Y[2] = _snap(by + y_off_end - _H) + fw // 2
        Y[3] = _snap(ay + y_off - _H) + fw // 2
        return True
    dxdy = dx / dy
    if x2d == -_H and dx < 0:
        x2d = _H
    if abs(x1d) + abs(y1d) < _H:
        ds = True
    elif (-y1d >= 0) == (dy >= 0):
        ds = False
    elif (x1d >= 0) != (-dx >= 0):
        ds = True
    else:
        xi = _frac(x1) + y1d * dxdy
        ds = xi < _ONE and xi > _Z
    if abs(x2d) + abs(y2d) < _H:
        de = False
    elif (-y2d >= 0) != (dy >= 0):
        de = False
    elif (x2d >= 0) == (-dx >= 0):
        de = True
    else:
        xi = _frac(x2) + y2d * dxdy
        de = xi < _ONE and xi >= _Z
    if dy > 0:
        ax, ay, bx, by = x2, y2, x1, y1
        if (y1d > 0) != ds:
            y_off_end = -y1d + _H
            x_off_end = y_off_end * dxdy
        if (y2d <= 0) != de:
            y_off = -y2d + _H
            x_off = y_off * dxdy
    else:
        if (y1d <= 0) != ds:
            y_off = -y1d - _H
            x_off = y_off * dxdy
        if (y2d > 0) != de:
            y_off_end = -y2d - _H
            x_off_end = y_off_end * dxdy
    X[0] = _snap(ax + x_off - _H) - fw // 2
    X[1] = _snap(bx + x_off_end - _H) - fw // 2
    X[2] = _snap(bx + x_off_end - _H) + fw // 2
    X[3] = _snap(ax + x_off - _H) + fw // 2
    Y[0] = _snap(ay + y_off - _H)
    Y[1] = _snap(by + y_off_end - _H)
    Y[2] = Y[1]
    Y[3] = Y[0]
    return False


@njit(cache=True)
def _inside(X, Y, i, j):
    """Pixel (i, j) (column, row from the bottom) is covered by the parallelogram X, Y: the four half-edge
    functions positive, ties to the top-left (lp_setup_line's plane constants)."""
    for e in range(4):
        f = (e + 1) % 4
        dcdy = X[e] - X[f]
        dcdx = Y[e] - Y[f]
        c = dcdx * X[e] - dcdy * Y[e]
        if dcdx < 0 or (dcdx == 0 and dcdy > 0):
            c += 1
        if c - dcdx * (i * FIXED_ONE) + dcdy * (j * FIXED_ONE) <= 0:
            return False
    return True


@njit(cache=True)
def draw_lines(rm, fr, job, rgb, depth, seg):
    """The lines of world w over rows [ya, yb) of its finished image (job (w, ya, yb))."""
    w = fr.job[job, 0]
    ya = fr.job[job, 1]
    yb = fr.job[job, 2]
    nl = fr.nline[w]
    if nl == 0:
        return
    v = fr.views[w, VIEW_CAMERA]
    W = fr.opt[O_W]
    H = fr.opt[O_H]
    mode = fr.opt[O_MODE]
    tile = fr.opt[O_TILE]
    ntx = fr.opt[O_NTX]
    stack = fr.jscr_i[job, J_STACK:J_HK]
    znear = rm.vis[V_ZNEAR]
    zfar = rm.vis[V_ZFAR]
    ortho = v[VW_ORTHO] != 0
    X = np.empty(4, np.int64)
    Y = np.empty(4, np.int64)
    zl_buf = fr.zbuf[w]  # the depth of the lines drawn so far (the anti-aliasing pass that used it is over)
    for py in range(ya, yb):
        for px in range(W):
            zl_buf[py, px] = np.inf
    for li in range(nl):
        ln = fr.lines[w, li]
        a, b, ok = _clip(v, ln[LN_FROM : LN_FROM + 3], ln[LN_TO : LN_TO + 3], W, H)
        if not ok:
            continue
        wa = 1.0 if ortho else a[2]
        wb = 1.0 if ortho else b[2]
        x1, y1 = np.float32(a[0] / wa), np.float32(a[1] / wa)
        x2, y2 = np.float32(b[0] / wb), np.float32(b[1] / wb)
        if (x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2) == 0:
            continue
        xmajor = _setup(x1, y1, x2, y2, np.float32(ln[LN_WIDTH]), X, Y)
        # depth along the major axis: 1 / depth (perspective) or depth (orthographic) is linear in window space
        za = a[2] if ortho else 1.0 / a[2]
        zb = b[2] if ortho else 1.0 / b[2]
        s0, s1 = (float(x1), float(x2)) if xmajor else (float(y1), float(y2))
        dz = (zb - za) / (s1 - s0) if s1 != s0 else 0.0
        i0 = max(0, (min(X[0], X[1], X[2], X[3]) + FIXED_ONE - 1) >> FIXED_ORDER)
        i1 = min(W - 1, ((max(X[0], X[1], X[2], X[3]) + FIXED_ONE - 1) >> FIXED_ORDER) - 1)
        j0 = max(H - yb, (min(Y[0], Y[1], Y[2], Y[3]) + FIXED_ONE - 1) >> FIXED_ORDER)
        j1 = min(H - 1 - ya, ((max(Y[0], Y[1], Y[2], Y[3]) + FIXED_ONE - 1) >> FIXED_ORDER) - 1)
        for j in range(j0, j1 + 1):
            py = H - 1 - j
            for i in range(i0, i1 + 1):
                if not _inside(X, Y, i, j):
                    continue
                z = za + dz * ((i + 0.5 if xmajor else j + 0.5) - s0)
                zl = z if ortho else 1.0 / z
                prev = zl_buf[py, i]
                if np.float32(zl) > prev:
                    continue  # behind a line drawn before
                if prev == np.inf:  # no line here yet: test against what the pixel shows
                    o, d = view_ray(v, i + 0.5, py + 0.5)
                    cell = (py // tile) * ntx + i // tile
                    t, k, _ = nearest(rm, fr, w, VIEW_CAMERA, cell, o, d, znear, zfar, -1, mode == MODE_RGB, stack)
                    if k >= 0 and zl > t:
                        continue
                zl_buf[py, i] = zl
                if mode == MODE_RGB:
                    out = rgb[w, py, i]
                    for c in range(3):
                        x = ln[LN_RGB + c]
                        out[c] = 0 if x <= 0 else (255 if x >= 1 else int(x * 255.0 + 0.5))
                elif mode == MODE_DEPTH:
                    depth[w, py, i] = zl
                else:
                    seg[w, py, i, 0] = int(ln[LN_OBJID])
                    seg[w, py, i, 1] = int(ln[LN_OBJTYPE])
