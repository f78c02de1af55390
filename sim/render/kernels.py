"""Render kernels: per-world scene setup, per-band pixel loops, the edge anti-aliasing pass and the one entry
point (`render_frames`) that runs them for every world of the frame in parallel (prange over worlds, then over
(world, band) jobs, so a single image also uses every thread)."""

import math

import numpy as np

from numba import prange

from sim.jit import njit
from sim.jit.atomic import NWORKER, fetch_add

from .camlight import camera_view, make_lights
from .skin import update_skins
from .layout import (
    GEOM_PLANE,
    GEOM_BOX,
    OI_TYPE,
    OI_SRC,
    OI_OBJTYPE,
    G_SIZE,
    G_RGBA,
    G_RBOUND,
    OF_REFLECTANCE,
    FL_TRANSPARENT,
    FL_REFLECTIVE,
    FL_HIDDEN,
    M_ACTIVE,
    M_OBJ,
    M_POS,
    M_NORMAL,
    M_SCRATCH,
    M_NTRANS,
    M_HAZE,
    M_HAZEMAT,
    M_HAZEELEV,
    MODE_RGB,
    MODE_DEPTH,
    O_HAZE,
    V_SKYTEX,
    V_HAZE,
    V_HAZERGBA,
    V_ZBG,
    PI,
    NSKYKEY,
    VW_X0,
    O_MODE,
    O_REFLECTION,
    O_SKYBOX,
    O_AA,
    O_W,
    O_TILE,
    O_NTX,
    O_NWORLD,
    O_NJOB,
    O_NVIEW,
    V_ZNEAR,
    V_ZFAR,
    VIEW_CAMERA,
    VIEW_MIRROR,
    VIEW_SHADOW,
    VW_EYE,
    VW_RIGHT,
    VW_UP,
    VW_FWD,
    VW_ORTHO,
    VW_NEAR,
    VW_FAR,
    VW_ACTIVE,
    NVW,
    J_STACK,
    J_HK,
    J_HP,
    MAXTRANS,
    PK_OK,
    PK_T,
    PK_R,
)
from .floor import floor_ok, shade_row
from .lines import draw_lines
from .shade import shade_opaque, sky, lit_all, _clamp, plane_texture_setup, reflection, mirror_in_tile
from .trace import bin_view, view_ray, transparent_hits, transparent_in, sky_distance, cell_list, nearest_in


@njit(cache=True, fastmath=True)
def setup_world(rm, fr, w):
    """Camera, lights, per-object flags (transparent, reflecting), the mirror and shadow views and the bins of
    every view for world w."""
    v0 = fr.views[w, VIEW_CAMERA]
    mir = fr.mirror[w]
    head, fwd = camera_view(rm, fr, w, v0, mir[M_SCRATCH : M_SCRATCH + 9])
    rgb = fr.opt[O_MODE] == MODE_RGB
    nview = fr.opt[O_NVIEW]
    for vi in range(1, nview):
        fr.views[w, vi, VW_ACTIVE] = 0.0
    fr.nlight[w] = make_lights(rm, fr, w, head, fwd)
    if rm.skin_i.shape[0] > 0:
        update_skins(rm, fr, w)
    if rgb:
        plane_texture_setup(rm, fr, w)
    # transparency (alpha < 0.995, or a plane seen from behind) and the one reflecting geom (mjr_render)
    flag = fr.flag[w]
    ntrans = 0
    refl = -1
    for k in range(rm.nobj):
        f = 0
        if fr.obj_g[w, k, G_RGBA + 3] == 0:
            f = FL_HIDDEN
        elif rgb:
            pos = fr.obj_pos[w, k]
            mat = fr.obj_mat[w, k]
            typ = rm.obj_i[k, OI_TYPE]
            behind = (
                typ == GEOM_PLANE
                and ((head[0] - pos[0]) * mat[2] + (head[1] - pos[1]) * mat[5] + (head[2] - pos[2]) * mat[8]) < 0
            )
            if fr.obj_g[w, k, G_RGBA + 3] < 0.995 or behind:
                f |= FL_TRANSPARENT
                ntrans += 1
            elif refl < 0 and (typ == GEOM_PLANE or typ == GEOM_BOX) and rm.obj_f[k, OF_REFLECTANCE] > 0:
                refl = k
                f |= FL_REFLECTIVE
        flag[k] = f
    mir[M_NTRANS] = ntrans
    mir[M_HAZE] = 0.0
    if rgb and fr.opt[O_SKYBOX] != 0 and fr.opt[O_HAZE] != 0 and rm.vis[V_SKYTEX] >= 0:
        _haze(rm, fr, w, head)
    if ntrans > 0:
        _rank_transparent(rm, fr, w, head)
    bin_view(rm, fr, w, VIEW_CAMERA, -1, False, head, head)
    if rgb and fr.opt[O_SKYBOX] != 0:
        _sky_cache(fr, w, v0)
    mir[M_ACTIVE] = 0.0
    if rgb and refl >= 0 and fr.opt[O_REFLECTION] != 0:
        _mirror(rm, fr, w, refl)
    for vi in range(VIEW_SHADOW, nview):
        if fr.views[w, vi, VW_ACTIVE] != 0:
            bin_view(rm, fr, w, vi, -1, False, head, head)


@njit(cache=True, fastmath=True)
def _haze(rm, fr, w, head):
    """mjr_render's haze: over the first infinite plane (both sizes 0) below the head, a truncated cone around
    the head blends the haze colour into the skybox and the far plane near the horizon."""
    mir = fr.mirror[w]
    for k in range(rm.nobj):
        g = fr.obj_g[w, k]
        if rm.obj_i[k, OI_TYPE] != GEOM_PLANE or g[G_SIZE] != 0 or g[G_SIZE + 1] != 0 or g[G_RGBA + 3] == 0:
            continue
        pos = fr.obj_pos[w, k]
        mat = fr.obj_mat[w, k]
        dst = 0.7 * rm.vis[V_ZFAR]
        elev = ((head[0] - pos[0]) * mat[2] + (head[1] - pos[1]) * mat[5] + (head[2] - pos[2]) * mat[8]) / dst
        if elev >= 0:
            mir[M_HAZE] = 1.0
            mir[M_HAZEELEV] = elev
            for i in range(9):
                mir[M_HAZEMAT + i] = mat[i]
        return


@njit(cache=True, fastmath=True)
def haze_over(rm, fr, w, d, dist, r, g, b):
    """Blend the haze (rgb of vis.rgba.haze, alpha rising from 0 at the plane to 1 at height h* and falling to 0
    at the head) where the view ray d meets the haze cone nearer than `dist` (the hit's distance)."""
    mir = fr.mirror[w]
    mat = mir[M_HAZEMAT : M_HAZEMAT + 9]
    n = math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
    u0 = (mat[0] * d[0] + mat[3] * d[1] + mat[6] * d[2]) / n
    u1 = (mat[1] * d[0] + mat[4] * d[1] + mat[7] * d[2]) / n
    u2 = (mat[2] * d[0] + mat[5] * d[1] + mat[8] * d[2]) / n
    if u2 >= 0:
        return r, g, b
    elev = mir[M_HAZEELEV]
    rr = rm.vis[V_HAZE]
    q = math.sqrt(u0 * u0 + u1 * u1)
    den = q - rr * u2 / elev if elev > 0 else 0.0
    if den <= 0:
        return r, g, b
    s = 1.0 / den  # distance in units of the skybox radius 0.7 zfar
    h = 1.0 + s * u2 / elev
    if h < 0 or s * 0.7 * rm.vis[V_ZFAR] > dist:
        return r, g, b
    a0 = math.atan2(1.0, rr)
    hstar = math.sqrt(0.5) * rr * math.sin(a0) / math.sin(0.75 * PI - a0)
    a = h / hstar if h < hstar else (1.0 - h) / (1.0 - hstar)
    c = rm.vis[V_HAZERGBA : V_HAZERGBA + 3]
    return a * c[0] + (1 - a) * r, a * c[1] + (1 - a) * g, a * c[2] + (1 - a) * b


@njit(cache=True, fastmath=True)
def hazed(rm, fr, w, d, t, r, g, b):
    """The clamped colour of a hit at ray parameter t along d, under the haze (haze_over at distance t |d|)."""
    r, g, b = _clamp(r), _clamp(g), _clamp(b)
    return haze_over(rm, fr, w, d, t * math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), r, g, b)


@njit(cache=True, fastmath=True)
def _sky_cache(fr, w, v0):
    """Keep the cached skybox colours of world w when the camera's orientation and frustum are those they were
    made for (the skybox depends on the view direction only: a tracking camera sees the same sky every frame);
    otherwise mark every pixel uncomputed."""
    key = fr.skykey[w]
    same = key[NSKYKEY - 1] == 1.0
    for i in range(NSKYKEY - 1):
        x = v0[VW_RIGHT + i] if i < 9 else v0[VW_X0 + i - 9]
        if key[i] != x:
            same = False
            key[i] = x
    if not same:
        key[NSKYKEY - 1] = 1.0
        c = fr.skycache[w]
        for py in range(c.shape[0]):
            for px in range(c.shape[1]):
                c[py, px, 0] = -1.0


@njit(cache=True, fastmath=True)
def _rank_transparent(rm, fr, w, head):
    """rank[k]: position of transparent object k in mjr_render's sort by camera distance (distance to the
    head minus the bounding radius; planes last)."""
    flag = fr.flag[w]
    rank = fr.rank[w]
    for k in range(rm.nobj):
        if not flag[k] & FL_TRANSPARENT:
            continue
        dk = _camdist(rm, fr, w, k, head)
        r = 0
        for j in range(rm.nobj):
            if j == k or not flag[j] & FL_TRANSPARENT:
                continue
            dj = _camdist(rm, fr, w, j, head)
            if dj < dk or (dj == dk and j < k):
                r += 1
        rank[k] = r


@njit(cache=True, fastmath=True)
def _camdist(rm, fr, w, k, head):
    if rm.obj_i[k, OI_TYPE] == GEOM_PLANE:
        return 1e10
    p = fr.obj_pos[w, k]
    return math.sqrt((p[0] - head[0]) ** 2 + (p[1] - head[1]) ** 2 + (p[2] - head[2]) ** 2) - fr.obj_g[w, k, G_RBOUND]


@njit(cache=True, fastmath=True)
def _mirror(rm, fr, w, k):
    """Mirror plane of reflecting object k (a plane, or the +Z face of a box) and the camera's mirror image as
    view 1; nothing when the camera is behind the plane."""
    pos = fr.obj_pos[w, k]
    mat = fr.obj_mat[w, k]
    n = (mat[2], mat[5], mat[8])
    off = fr.obj_g[w, k, G_SIZE + 2] if rm.obj_i[k, OI_TYPE] == GEOM_BOX else 0.0
    p = (pos[0] + off * n[0], pos[1] + off * n[1], pos[2] + off * n[2])
    v0 = fr.views[w, VIEW_CAMERA]
    v1 = fr.views[w, VIEW_MIRROR]
    e = (v0[VW_EYE] - p[0]) * n[0] + (v0[VW_EYE + 1] - p[1]) * n[1] + (v0[VW_EYE + 2] - p[2]) * n[2]
    if e < 0:
        return
    for i in range(NVW):
        v1[i] = v0[i]
    for i in range(3):
        v1[VW_EYE + i] = v0[VW_EYE + i] - 2 * e * n[i]
    for base in (VW_RIGHT, VW_UP, VW_FWD):
        dn = v0[base] * n[0] + v0[base + 1] * n[1] + v0[base + 2] * n[2]
        for i in range(3):
            v1[base + i] = v0[base + i] - 2 * dn * n[i]
    v1[VW_NEAR] = 0.0
    v1[VW_FAR] = 1e300
    mir = fr.mirror[w]
    mir[M_ACTIVE] = 1.0
    mir[M_OBJ] = k
    for i in range(3):
        mir[M_POS + i] = p[i]
        mir[M_NORMAL + i] = n[i]
    bin_view(rm, fr, w, VIEW_MIRROR, k, True, p, n)


@njit(cache=True, fastmath=True)
def pixel_rgb(rm, fr, w, px, py, cell, job, cached):
    """(r, g, b) in [0, 1], the object seen (-1: none) and its depth for the ray through continuous pixel
    coordinates (px, py) of world w (in screen tile `cell`, whose candidate lists tile_lists has put in job's
    scratch); cached: (px, py) is a pixel centre whose skybox colour may be cached."""
    v0 = fr.views[w, VIEW_CAMERA]
    o, d = view_ray(v0, px, py)
    stack = fr.jscr_i[job, J_STACK:J_HK]
    znear = rm.vis[V_ZNEAR]
    zfar = rm.vis[V_ZFAR]
    lst = fr.jcand[job, VIEW_CAMERA]
    if lst[0] == 0:
        t, k, part = zfar, -1, 0
    else:
        t, k, part = nearest_in(rm, fr, w, lst, o, d, znear, zfar, stack)
    skybox = fr.opt[O_SKYBOX] != 0
    ntrans = fr.mirror[w, M_NTRANS] > 0
    tlim = zfar
    if skybox:
        # MuJoCo draws the skybox on a cylinder of radius 0.7 zfar around the head, after the opaque geoms;
        # it is at least 0.7 zfar away, so nearer hits need no test
        rad = 0.7 * zfar
        d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
        if (k >= 0 and t * t * d2 > rad * rad) or ntrans:
            dl = math.sqrt(d2)
            tlim = min(zfar, sky_distance((d[0] / dl, d[1] / dl, d[2] / dl), rad) / dl)
            if k >= 0 and t > tlim:
                k = -1
    if k < 0:
        t = zfar
        if skybox:
            if cached:
                c = fr.skycache[w, int(py), int(px)]
                if c[0] < 0:
                    r, g, b = sky(rm, fr, w, d, px, py)
                    c[0], c[1], c[2] = r, g, b
                else:
                    r, g, b = c[0], c[1], c[2]
            else:
                r, g, b = sky(rm, fr, w, d, px, py)
        else:
            r, g, b = 0.0, 0.0, 0.0
    else:
        r, g, b = shade_opaque(rm, fr, w, k, part, o, d, t, px, py, job)
        tlim = t
    if fr.mirror[w, M_HAZE] != 0:
        r, g, b = hazed(rm, fr, w, d, tlim, r, g, b)
    if ntrans:
        hk = fr.jscr_i[job, J_HK : J_HK + MAXTRANS]
        hp = fr.jscr_i[job, J_HP : J_HP + MAXTRANS]
        ht = fr.jscr_f[job, 0:MAXTRANS]
        nh = transparent_hits(rm, fr, w, VIEW_CAMERA, cell, o, d, znear, tlim, hk, ht, hp, stack)
        if nh > 0:
            r, g, b = _clamp(r), _clamp(g), _clamp(b)
            eye = (v0[VW_EYE], v0[VW_EYE + 1], v0[VW_EYE + 2])
            # mjr_render draws the transparent geoms front to back, then back to front (alpha blending)
            for rep in range(2):
                for i in range(nh):
                    j = i if rep == 0 else nh - 1 - i
                    kk = hk[j]
                    c = lit_all(rm, fr, w, kk, hp[j], o, d, ht[j], VIEW_CAMERA, px, py, 1.0, eye)
                    a = c[3]
                    if rm.obj_i[kk, OI_TYPE] == GEOM_PLANE and hp[j] == 1:
                        a *= 0.3  # a plane seen from behind (renderGeom)
                    r = a * c[0] + (1 - a) * r
                    g = a * c[1] + (1 - a) * g
                    b = a * c[2] + (1 - a) * b
    return r, g, b, k, t


@njit(cache=True, fastmath=True)
def _u8(x):
    if x <= 0:
        return 0
    if x >= 1:
        return 255
    return int(x * 255.0 + 0.5)


@njit(cache=True, fastmath=True, inline="always")
def _put(fr, rgb, w, py, px, r, g, b, k, t, aa):
    """Write pixel (px, py)'s colour and, for the anti-aliasing pass, its object and depth."""
    out = rgb[w, py, px]
    out[0] = _u8(r)
    out[1] = _u8(g)
    out[2] = _u8(b)
    if aa:
        fr.idbuf[w, py, px] = k
        fr.zbuf[w, py, px] = t


@njit(cache=True, fastmath=True)
def tile_lists(rm, fr, w, job, cell, rgb):
    """Candidate lists of screen tile `cell` of world w in job's scratch: the camera's (opaque objects only for
    rgb) and, for rgb with a mirror, the mirror view's.  Returns the camera list's length."""
    n = cell_list(rm, fr, w, VIEW_CAMERA, cell, -1, rgb, fr.jcand[job, VIEW_CAMERA])
    if rgb and fr.mirror[w, M_ACTIVE] != 0:
        cell_list(rm, fr, w, VIEW_MIRROR, cell, int(fr.mirror[w, M_OBJ]), True, fr.jcand[job, VIEW_MIRROR])
    else:
        fr.jcand[job, VIEW_MIRROR, 0] = 0
    return n


@njit(cache=True, fastmath=True, inline="always")
def floor_pixel(rm, fr, w, k, job, i, px, py, cell, mirror):
    """(r, g, b, object, depth) of pixel (px, py), the i-th of the tile row floor.shade_row has shaded for the plane
    k: that colour plus the mirror's reflection (when the tile has mirror candidates) and the haze, as pixel_rgb
    adds them, where the plane is seen; pixel_rgb's elsewhere."""
    pk = fr.jpkt[job]
    if pk[PK_OK, i] == 0:
        return pixel_rgb(rm, fr, w, px + 0.5, py + 0.5, cell, job, True)
    r, g, b, t = pk[PK_R, i], pk[PK_R + 1, i], pk[PK_R + 2, i], pk[PK_T, i]
    haze = fr.mirror[w, M_HAZE] != 0
    if mirror or haze:
        o, d = view_ray(fr.views[w, VIEW_CAMERA], px + 0.5, py + 0.5)
        if mirror:
            P = (o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2])
            c = reflection(
                rm, fr, w, k, o, d, P, px + 0.5, py + 0.5, fr.jcand[job, VIEW_MIRROR], fr.jscr_i[job, J_STACK:J_HK]
            )
            r += c[0]
            g += c[1]
            b += c[2]
        if haze:
            r, g, b = hazed(rm, fr, w, d, t, r, g, b)
    return r, g, b, k, t


@njit(cache=True, fastmath=True)
def floor_tile_ok(rm, fr, w, cell, lst):
    """True when screen tile `cell`, whose camera list (opaque candidates) is lst, goes to floor_tile: its one
    candidate a plane floor.floor_ok accepts, and no transparent object to blend over it there."""
    if lst[0] != 1 or not floor_ok(rm, fr, w, lst[1]):
        return False
    return fr.mirror[w, M_NTRANS] == 0 or not transparent_in(rm, fr, w, VIEW_CAMERA, cell)


@njit(cache=True, fastmath=True)
def floor_tile(rm, fr, w, k, job, cell, xa, xb, ya, yb, rgb):
    """Screen tile `cell` (pixels [xa, xb) x [ya, yb)) of world w whose only candidate is the plane k (floor_ok),
    row by row: floor.shade_row, then floor_pixel per pixel."""
    aa = fr.opt[O_AA] != 0
    mirror = mirror_in_tile(fr, w, k, job)
    for py in range(ya, yb):
        shade_row(rm, fr, w, k, job, xa, xb - xa, py)
        for i in range(xb - xa):
            px = xa + i
            r, g, b, kk, t = floor_pixel(rm, fr, w, k, job, i, px, py, cell, mirror)
            _put(fr, rgb, w, py, px, r, g, b, kk, t, aa)


@njit(cache=True, fastmath=True)
def render_band(rm, fr, job, rgb, depth, seg):
    """Pixels of rows [y0, y1) of world w for job (w, y0, y1), screen tile by screen tile (y0 is a multiple of
    the tile size)."""
    w = fr.job[job, 0]
    y0 = fr.job[job, 1]
    y1 = fr.job[job, 2]
    mode = fr.opt[O_MODE]
    width = fr.opt[O_W]
    tile = fr.opt[O_TILE]
    ntx = fr.opt[O_NTX]
    v0 = fr.views[w, VIEW_CAMERA]
    znear = rm.vis[V_ZNEAR]
    zfar = rm.vis[V_ZFAR]
    stack = fr.jscr_i[job, J_STACK:J_HK]
    aa = fr.opt[O_AA] != 0
    isrgb = mode == MODE_RGB
    lst = fr.jcand[job, VIEW_CAMERA]
    bg = zfar if v0[VW_ORTHO] != 0 else rm.vis[V_ZBG]
    skybox = fr.opt[O_SKYBOX] != 0
    plain = fr.mirror[w, M_HAZE] == 0 and fr.mirror[w, M_NTRANS] == 0
    for ty in range(y0 // tile, (y1 + tile - 1) // tile):
        ya = max(y0, ty * tile)
        yb = min(y1, ty * tile + tile)
        for tx in range(ntx):
            xa = tx * tile
            xb = min(width, xa + tile)
            cell = ty * ntx + tx
            n = tile_lists(rm, fr, w, job, cell, isrgb)
            if isrgb and n == 0 and plain:
                # nothing but the background in this tile: the (cached) skybox, or black
                for py in range(ya, yb):
                    for px in range(xa, xb):
                        out = rgb[w, py, px]
                        if skybox:
                            c = fr.skycache[w, py, px]
                            if c[0] < 0:
                                _, d = view_ray(v0, px + 0.5, py + 0.5)
                                r, g, b = sky(rm, fr, w, d, px + 0.5, py + 0.5)
                                c[0], c[1], c[2] = r, g, b
                            else:
                                r, g, b = float(c[0]), float(c[1]), float(c[2])
                            out[0] = _u8(r)
                            out[1] = _u8(g)
                            out[2] = _u8(b)
                        else:
                            out[0] = 0
                            out[1] = 0
                            out[2] = 0
                        if aa:
                            fr.idbuf[w, py, px] = -1
                            fr.zbuf[w, py, px] = zfar
                continue
            if isrgb and floor_tile_ok(rm, fr, w, cell, lst):
                floor_tile(rm, fr, w, lst[1], job, cell, xa, xb, ya, yb, rgb)
                continue
            for py in range(ya, yb):
                for px in range(xa, xb):
                    if isrgb:
                        r, g, b, k, t = pixel_rgb(rm, fr, w, px + 0.5, py + 0.5, cell, job, True)
                        _put(fr, rgb, w, py, px, r, g, b, k, t, aa)
                        continue
                    if n == 0:
                        t, k = zfar, -1
                    else:
                        o, d = view_ray(v0, px + 0.5, py + 0.5)
                        t, k, part = nearest_in(rm, fr, w, lst, o, d, znear, zfar, stack)
                    if mode == MODE_DEPTH:
                        depth[w, py, px] = t if k >= 0 else bg
                    else:
                        s = seg[w, py, px]
                        if k >= 0:
                            s[0] = rm.obj_i[k, OI_SRC]
                            s[1] = rm.obj_i[k, OI_OBJTYPE]
                        else:
                            s[0] = -1
                            s[1] = -1


# 4x multisample pattern (offsets from the pixel centre), as GL's standard rotated grid
_AA = ((-0.125, -0.375), (0.375, -0.125), (-0.375, 0.125), (0.125, 0.375))


@njit(cache=True, fastmath=True)
def antialias_band(rm, fr, job, rgb):
    """Re-render with 4 samples the pixels of the band whose object differs from a neighbour's (or whose depth
    jumps by more than 2 %): anti-aliased silhouettes at a fraction of full supersampling."""
    w = fr.job[job, 0]
    y0 = fr.job[job, 1]
    y1 = fr.job[job, 2]
    width = fr.opt[O_W]
    height = rgb.shape[1]
    tile = fr.opt[O_TILE]
    ntx = fr.opt[O_NTX]
    ids = fr.idbuf[w]
    zb = fr.zbuf[w]
    last = -1
    for py in range(y0, y1):
        for px in range(width):
            k = ids[py, px]
            z = zb[py, px]
            edge = False
            for q in range(4):
                qx = px + (1 if q == 0 else (-1 if q == 1 else 0))
                qy = py + (1 if q == 2 else (-1 if q == 3 else 0))
                if qx < 0 or qy < 0 or qx >= width or qy >= height:
                    continue
                if ids[qy, qx] != k or abs(zb[qy, qx] - z) > 0.02 * z:
                    edge = True
                    break
            if not edge:
                continue
            cell = (py // tile) * ntx + px // tile
            if cell != last:
                tile_lists(rm, fr, w, job, cell, True)
                last = cell
            r = g = b = 0.0
            for s in range(4):
                c = pixel_rgb(rm, fr, w, px + 0.5 + _AA[s][0], py + 0.5 + _AA[s][1], cell, job, False)
                r += _clamp(c[0])
                g += _clamp(c[1])
                b += _clamp(c[2])
            out = rgb[w, py, px]
            out[0] = _u8(0.25 * r)
            out[1] = _u8(0.25 * g)
            out[2] = _u8(0.25 * b)


@njit(parallel=True, refcount=True)
def render_frames(rm, fr, rgb, depth, seg):
    """Render every world of the frame: setup per world, then the (world, band) jobs, then anti-aliasing, then
    the line geoms (lines.py) over the finished images.  The bands differ in cost (sky against floor): the
    threads take them one at a time from a shared counter (sim/jit/atomic.py), where a prange would give each
    thread a fixed contiguous share."""
    nworld = fr.opt[O_NWORLD]
    for w in prange(nworld):
        setup_world(rm, fr, w)
    njob = fr.opt[O_NJOB]
    counter = np.empty(1, np.int64)
    counter[0] = 0
    for t in prange(min(njob, NWORKER)):
        while True:
            j = fetch_add(counter, 0, 1)
            if j >= njob:
                break
            render_band(rm, fr, j, rgb, depth, seg)
    if fr.opt[O_AA] != 0 and fr.opt[O_MODE] == MODE_RGB:
        for j in prange(njob):
            antialias_band(rm, fr, j, rgb)
    nline = 0
    for w in range(nworld):
        nline += fr.nline[w]
    if nline > 0:
        for j in prange(njob):
            draw_lines(rm, fr, j, rgb, depth, seg)
