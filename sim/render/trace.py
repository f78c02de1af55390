"""Views, binning and ray traversal.

A view (Frame.views[w, v]) is a pinhole or orthographic projection with a grid of cells over its image: the
camera (cells = screen tiles of O_TILE pixels), the camera's mirror image in the reflecting geom (same tiles:
a reflected ray of pixel p is the virtual camera's ray through p), and one per shadow-casting light (cells over
its shadow-map square).  Every frame each object's bounding box is projected into each view and the object is
listed in the cells it covers, as compressed rows (planes, objects crossing the view's eye plane and objects
covering more than half of the cells go to the view's global list, which per-tile masks thin out for planes;
when the lists outgrow their buffer every cell searches all objects).  A ray then only tests the objects of its
cell.
"""

import math

from sim.jit import njit

from .geometry import to_local, hit_local
from .skin import hit_skin
from .layout import (
    GEOM_PLANE,
    GEOM_SKIN,
    OI_TYPE,
    G_SIZE,
    G_AABB,
    G_RBOUND,
    G_RGBA,
    FL_TRANSPARENT,
    FL_HIDDEN,
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
    VW_NPX,
    VW_NPY,
    VW_OCC,
)

EPS_Z = 1e-12


@njit(cache=True, fastmath=True)
def view_ray(v, px, py):
    """Ray (origin, direction) of view v through continuous pixel coordinates (px, py) (pixel centres at +0.5;
    row 0 at the top).  A perspective direction has unit component along the view axis, so the ray parameter
    is the depth along it."""
    x = v[VW_X0] + px * v[VW_SX]
    y = v[VW_Y0] - py * v[VW_SY]
    if v[VW_ORTHO] != 0:
        o = (
            v[VW_EYE] + x * v[VW_RIGHT] + y * v[VW_UP],
            v[VW_EYE + 1] + x * v[VW_RIGHT + 1] + y * v[VW_UP + 1],
            v[VW_EYE + 2] + x * v[VW_RIGHT + 2] + y * v[VW_UP + 2],
        )
        return o, (v[VW_FWD], v[VW_FWD + 1], v[VW_FWD + 2])
    d = (
        v[VW_FWD] + x * v[VW_RIGHT] + y * v[VW_UP],
        v[VW_FWD + 1] + x * v[VW_RIGHT + 1] + y * v[VW_UP + 1],
        v[VW_FWD + 2] + x * v[VW_RIGHT + 2] + y * v[VW_UP + 2],
    )
    return (v[VW_EYE], v[VW_EYE + 1], v[VW_EYE + 2]), d


@njit(cache=True, fastmath=True)
def project(v, p):
    """(px, py, depth) of world point p in view v (px, py continuous pixel / cell-space coordinates)."""
    r0, r1, r2 = p[0] - v[VW_EYE], p[1] - v[VW_EYE + 1], p[2] - v[VW_EYE + 2]
    x = r0 * v[VW_RIGHT] + r1 * v[VW_RIGHT + 1] + r2 * v[VW_RIGHT + 2]
    y = r0 * v[VW_UP] + r1 * v[VW_UP + 1] + r2 * v[VW_UP + 2]
    z = r0 * v[VW_FWD] + r1 * v[VW_FWD + 1] + r2 * v[VW_FWD + 2]
    if v[VW_ORTHO] == 0:
        if z <= EPS_Z:
            return -1e300, -1e300, z
        x /= z
        y /= z
    return (x - v[VW_X0]) / v[VW_SX], (v[VW_Y0] - y) / v[VW_SY], z


@njit(cache=True, fastmath=True)
def cell_of(v, px, py):
    """Cell index of continuous coordinates (px, py) in view v, -1 outside the view."""
    if px < 0 or py < 0 or px >= v[VW_NPX] or py >= v[VW_NPY]:
        return -1
    cell = v[VW_CELL]
    return int(py / cell) * int(v[VW_NCX]) + int(px / cell)  # both >= 0: truncation is floor


@njit(cache=True, fastmath=True)
def bin_view(rm, fr, w, vi, skip, use_plane, pp, pn):
    """List the objects of world w in the cells of view vi (skip: an object left out; with use_plane, objects
    entirely behind the plane (point pp, normal pn) are left out too).  The cell lists are compressed rows:
    cell c lists tobj[tstart[c]:tstart[c + 1]]; tstart[0] = -1 when they do not fit (every cell then searches
    all objects)."""
    v = fr.views[w, vi]
    tc = fr.tcnt[w, vi]
    ts = fr.tstart[w, vi]
    to = fr.tobj[w, vi]
    go = fr.gobj[w, vi]
    rect = fr.objcell[w]
    ncx = int(v[VW_NCX])
    ncy = int(v[VW_NCY])
    ncell = ncx * ncy
    cell = v[VW_CELL]
    near = v[VW_NEAR]
    far = v[VW_FAR]
    ortho = v[VW_ORTHO] != 0
    for c in range(ncell):
        tc[c] = 0
    ng = 0
    ox0, ox1, oy0, oy1 = ncx, -1, ncy, -1  # the cells listing an object: [ox0, ox1] x [oy0, oy1]
    for k in range(rm.nobj):
        rect[k, 0] = -1
        if k == skip or fr.obj_g[w, k, G_RGBA + 3] == 0:  # alpha 0: not drawn (MuJoCo skips it)
            continue
        pos = fr.obj_pos[w, k]
        mat = fr.obj_mat[w, k]
        if use_plane:
            s = (pos[0] - pp[0]) * pn[0] + (pos[1] - pp[1]) * pn[1] + (pos[2] - pp[2]) * pn[2]
            if s + fr.obj_g[w, k, G_RBOUND] < 0:
                continue
        if rm.obj_i[k, OI_TYPE] == GEOM_PLANE:
            go[ng] = k
            ng += 1
            continue
        ab = fr.obj_g[w, k, G_AABB : G_AABB + 6]
        xmin, xmax, ymin, ymax = 1e300, -1e300, 1e300, -1e300
        zmin, zmax = 1e300, -1e300
        for corner in range(8):
            l0 = ab[0] + (ab[3] if corner & 1 else -ab[3])
            l1 = ab[1] + (ab[4] if corner & 2 else -ab[4])
            l2 = ab[2] + (ab[5] if corner & 4 else -ab[5])
            p = (
                pos[0] + mat[0] * l0 + mat[1] * l1 + mat[2] * l2,
                pos[1] + mat[3] * l0 + mat[4] * l1 + mat[5] * l2,
                pos[2] + mat[6] * l0 + mat[7] * l1 + mat[8] * l2,
            )
            px, py, z = project(v, p)
            zmin = min(zmin, z)
            zmax = max(zmax, z)
            xmin = min(xmin, px)
            xmax = max(xmax, px)
            ymin = min(ymin, py)
            ymax = max(ymax, py)
        if zmax < near or zmin > far:
            continue
        if not ortho and zmin <= EPS_Z:
            go[ng] = k
            ng += 1
            continue
        xmin -= 1e-3
        ymin -= 1e-3
        xmax += 1e-3
        ymax += 1e-3
        if xmax < 0 or ymax < 0 or xmin >= v[VW_NPX] or ymin >= v[VW_NPY]:
            continue
        cx0 = max(0, int(math.floor(xmin / cell)))
        cx1 = min(ncx - 1, int(math.floor(xmax / cell)))
        cy0 = max(0, int(math.floor(ymin / cell)))
        cy1 = min(ncy - 1, int(math.floor(ymax / cell)))
        if 2 * (cx1 - cx0 + 1) * (cy1 - cy0 + 1) > ncell:
            go[ng] = k
            ng += 1
            continue
        rect[k, 0], rect[k, 1], rect[k, 2], rect[k, 3] = cx0, cx1, cy0, cy1
        ox0, ox1, oy0, oy1 = min(ox0, cx0), max(ox1, cx1), min(oy0, cy0), max(oy1, cy1)
        for cy in range(cy0, cy1 + 1):
            for cx in range(cx0, cx1 + 1):
                tc[cy * ncx + cx] += 1
    fr.gcnt[w, vi] = ng
    _occupied_bounds(v, ox0, ox1, oy0, oy1)
    if vi <= 1:
        _plane_masks(rm, fr, w, vi, ng)
    total = 0
    for c in range(ncell):
        ts[c] = total
        total += tc[c]
        tc[c] = ts[c]  # from here on: the fill cursor of cell c
    ts[ncell] = total
    if total > to.shape[0]:
        ts[0] = -1
        return
    for k in range(rm.nobj):
        if rect[k, 0] < 0:
            continue
        for cy in range(rect[k, 2], rect[k, 3] + 1):
            for cx in range(rect[k, 0], rect[k, 1] + 1):
                c = cy * ncx + cx
                to[tc[c]] = k
                tc[c] += 1


@njit(cache=True, fastmath=True)
def _occupied_bounds(v, ox0, ox1, oy0, oy1):
    """v[VW_OCC:VW_OCC + 4]: cells [ox0, ox1] x [oy0, oy1] grown by one cell on every side, as bounds of x/z and
    y/z (x and y for an orthographic view), the inverse of project's scaling; empty (low > high) without cells.
    The cell of margin covers project's rounding, so a point outside the bounds is in none of the cells."""
    if ox1 < 0:
        v[VW_OCC], v[VW_OCC + 1], v[VW_OCC + 2], v[VW_OCC + 3] = 1.0, -1.0, 1.0, -1.0
        return
    cell = v[VW_CELL]
    xa = v[VW_X0] + (ox0 - 1) * cell * v[VW_SX]
    xb = v[VW_X0] + (ox1 + 2) * cell * v[VW_SX]
    ya = v[VW_Y0] - (oy1 + 2) * cell * v[VW_SY]
    yb = v[VW_Y0] - (oy0 - 1) * cell * v[VW_SY]
    v[VW_OCC], v[VW_OCC + 1] = min(xa, xb), max(xa, xb)
    v[VW_OCC + 2], v[VW_OCC + 3] = min(ya, yb), max(ya, yb)


@njit(cache=True, fastmath=True)
def _plane_masks(rm, fr, w, vi, ng):
    """fr.gmask[w, vi, c]: bit i set when global object i (of the first 62) may be hit in pixel tile c.  A plane
    is hit along d from the eye when n.d and n.(eye - p) have opposite signs; n.d is linear in d, so a tile
    whose four corner rays all fail that cannot see the plane (the sky above a floor)."""
    v = fr.views[w, vi]
    mask = fr.gmask[w, vi]
    ncx = int(v[VW_NCX])
    ncy = int(v[VW_NCY])
    cell = v[VW_CELL]
    for c in range(ncx * ncy):
        mask[c] = -1
    if v[VW_ORTHO] != 0:
        return
    go = fr.gobj[w, vi]
    for i in range(min(ng, 62)):
        k = go[i]
        if rm.obj_i[k, OI_TYPE] != GEOM_PLANE:
            continue
        pos = fr.obj_pos[w, k]
        mat = fr.obj_mat[w, k]
        n = (mat[2], mat[5], mat[8])
        side = (v[VW_EYE] - pos[0]) * n[0] + (v[VW_EYE + 1] - pos[1]) * n[1] + (v[VW_EYE + 2] - pos[2]) * n[2]
        # n.d = n.fwd + x n.right + y n.up at unit depth
        nf = n[0] * v[VW_FWD] + n[1] * v[VW_FWD + 1] + n[2] * v[VW_FWD + 2]
        nr = n[0] * v[VW_RIGHT] + n[1] * v[VW_RIGHT + 1] + n[2] * v[VW_RIGHT + 2]
        nu = n[0] * v[VW_UP] + n[1] * v[VW_UP + 1] + n[2] * v[VW_UP + 2]
        for cy in range(ncy):
            for cx in range(ncx):
                hit = False
                for corner in range(4):
                    px = (cx + (corner & 1)) * cell
                    py = (cy + (corner >> 1)) * cell
                    x = v[VW_X0] + px * v[VW_SX]
                    y = v[VW_Y0] - py * v[VW_SY]
                    if (nf + x * nr + y * nu) * side < 0:
                        hit = True
                        break
                if not hit:
                    mask[cy * ncx + cx] &= ~(1 << i)


@njit(cache=True, fastmath=True)
def cell_range(fr, w, vi, cell):
    """(start, end) of cell's object list in fr.tobj[w, vi]; (-1, nobj) when every object must be searched."""
    ts = fr.tstart[w, vi]
    if cell < 0:
        return 0, 0
    if ts[0] < 0:
        return -1, 0
    return ts[cell], ts[cell + 1]


@njit(cache=True, fastmath=True)
def _test(rm, fr, w, k, o, d, tmin, tmax, cull, stack):
    if rm.obj_i[k, OI_TYPE] == GEOM_SKIN:
        return hit_skin(rm, fr, w, k, o, d, tmin, tmax, cull, stack)
    lp, lv = to_local(fr.obj_pos[w, k], fr.obj_mat[w, k], o, d)
    g = fr.obj_g[w, k]
    return hit_local(rm, k, (g[G_SIZE], g[G_SIZE + 1], g[G_SIZE + 2]), lp, lv, tmin, tmax, cull, stack)


@njit(cache=True, fastmath=True)
def nearest(rm, fr, w, vi, cell, o, d, tmin, tmax, skip, opaque_only, stack):
    """(t, object, part) of the nearest front-face hit with t in [tmin, tmax] among the candidates of `cell` in
    view vi (object -1: none); opaque_only leaves out objects flagged transparent this frame."""
    best = tmax
    bk = -1
    bp = 0
    flag = fr.flag[w]
    go = fr.gobj[w, vi]
    mask = fr.gmask[w, vi, cell] if vi <= 1 and cell >= 0 else -1
    for i in range(fr.gcnt[w, vi]):
        k = go[i]
        if (opaque_only and flag[k] & FL_TRANSPARENT) or (i < 62 and not (mask >> i) & 1):
            continue
        t, part = _test(rm, fr, w, k, o, d, tmin, best, True, stack)
        if t >= 0 and t <= best:
            best, bk, bp = t, k, part
    a, b = cell_range(fr, w, vi, cell)
    exhaustive = a < 0
    to = fr.tobj[w, vi]
    for i in range(rm.nobj if exhaustive else b - a):
        k = i if exhaustive else to[a + i]
        if k == skip or (opaque_only and flag[k] & FL_TRANSPARENT) or flag[k] & FL_HIDDEN:
            continue
        t, part = _test(rm, fr, w, k, o, d, tmin, best, True, stack)
        if t >= 0 and t <= best:
            best, bk, bp = t, k, part
    return best, bk, bp


@njit(cache=True, fastmath=True)
def cell_list(rm, fr, w, vi, cell, skip, opaque_only, lst):
    """Write the candidates of `cell` in view vi into lst as [n, k_1 .. k_n], in the order `nearest` tests them
    (global objects passing the tile's plane mask, then the cell's list); one pass per tile instead of one per
    pixel.  Returns n."""
    flag = fr.flag[w]
    go = fr.gobj[w, vi]
    mask = fr.gmask[w, vi, cell] if vi <= 1 and cell >= 0 else -1
    n = 0
    for i in range(fr.gcnt[w, vi]):
        k = go[i]
        if (opaque_only and flag[k] & FL_TRANSPARENT) or (i < 62 and not (mask >> i) & 1):
            continue
        n += 1
        lst[n] = k
    a, b = cell_range(fr, w, vi, cell)
    exhaustive = a < 0
    to = fr.tobj[w, vi]
    for i in range(rm.nobj if exhaustive else b - a):
        k = i if exhaustive else to[a + i]
        if k == skip or (opaque_only and flag[k] & FL_TRANSPARENT) or flag[k] & FL_HIDDEN:
            continue
        n += 1
        lst[n] = k
    lst[0] = n
    return n


@njit(cache=True, fastmath=True)
def nearest_in(rm, fr, w, lst, o, d, tmin, tmax, stack):
    """`nearest` over a candidate list made by cell_list."""
    best = tmax
    bk = -1
    bp = 0
    for i in range(1, lst[0] + 1):
        k = lst[i]
        t, part = _test(rm, fr, w, k, o, d, tmin, best, True, stack)
        if t >= 0 and t <= best:
            best, bk, bp = t, k, part
    return best, bk, bp


@njit(cache=True, fastmath=True)
def occluded(rm, fr, w, vi, cell, o, d, tmin, tmax, skip, stack):
    """True when any object of `cell` in view vi but `skip` crosses the ray segment (tmin, tmax) (both faces
    count)."""
    go = fr.gobj[w, vi]
    for i in range(fr.gcnt[w, vi]):
        if go[i] == skip:
            continue
        t, _ = _test(rm, fr, w, go[i], o, d, tmin, tmax, False, stack)
        if t >= 0:
            return True
    a, b = cell_range(fr, w, vi, cell)
    exhaustive = a < 0
    to = fr.tobj[w, vi]
    for i in range(rm.nobj if exhaustive else b - a):
        k = i if exhaustive else to[a + i]
        if k == skip or fr.flag[w, k] & FL_HIDDEN:
            continue
        t, _ = _test(rm, fr, w, k, o, d, tmin, tmax, False, stack)
        if t >= 0:
            return True
    return False


@njit(cache=True, fastmath=True, inline="always")
def _transparent_candidate(rm, fr, w, vi, a, b, i):
    """The i-th object transparent_hits considers in a cell whose list is tobj[a:b] (a < 0: every object), after
    the view's global objects; -1 when it is not a transparent, drawn one."""
    ng = fr.gcnt[w, vi]
    if i < ng:
        k = fr.gobj[w, vi, i]
    else:
        k = (i - ng) if a < 0 else fr.tobj[w, vi, a + i - ng]
    f = fr.flag[w, k]
    return k if f & FL_TRANSPARENT and not f & FL_HIDDEN else -1


@njit(cache=True, fastmath=True, inline="always")
def _ncandidate(rm, fr, w, vi, a, b):
    """How many objects transparent_hits considers in a cell whose list is tobj[a:b] (a < 0: every object)."""
    return fr.gcnt[w, vi] + (rm.nobj if a < 0 else b - a)


@njit(cache=True, fastmath=True)
def transparent_in(rm, fr, w, vi, cell):
    """True when transparent_hits would test an object in `cell` (a transparent, drawn one among its candidates)."""
    a, b = cell_range(fr, w, vi, cell)
    for i in range(_ncandidate(rm, fr, w, vi, a, b)):
        if _transparent_candidate(rm, fr, w, vi, a, b, i) >= 0:
            return True
    return False


@njit(cache=True, fastmath=True)
def transparent_hits(rm, fr, w, vi, cell, o, d, tmin, tmax, hk, ht, hp, stack):
    """Front-face hits of the transparent objects of `cell` with t in [tmin, tmax), at most len(hk) of them,
    ordered by the objects' camera-distance rank (mjr_render's sort); returns their number."""
    rank = fr.rank[w]
    cap = hk.shape[0]
    nh = 0
    a, b = cell_range(fr, w, vi, cell)
    for i in range(_ncandidate(rm, fr, w, vi, a, b)):
        k = _transparent_candidate(rm, fr, w, vi, a, b, i)
        if k < 0:
            continue
        dup = False
        for j in range(nh):
            if hk[j] == k:
                dup = True
        if dup:
            continue
        t, part = _test(rm, fr, w, k, o, d, tmin, tmax, True, stack)
        if t < 0 or t >= tmax or nh >= cap:
            continue
        # insert by rank
        j = nh
        while j > 0 and rank[hk[j - 1]] > rank[k]:
            hk[j] = hk[j - 1]
            ht[j] = ht[j - 1]
            hp[j] = hp[j - 1]
            j -= 1
        hk[j] = k
        ht[j] = t
        hp[j] = part
        nh += 1
    return nh


@njit(cache=True, fastmath=True)
def sky_distance(d, radius):
    """Distance along unit direction d from the head to MuJoCo's skybox (a closed cylinder of radius and
    half-height `radius` centred at the head)."""
    h = math.sqrt(d[0] * d[0] + d[1] * d[1])
    s = 1e300
    if h > 1e-12:
        s = radius / h
    if abs(d[2]) > 1e-12:
        s = min(s, radius / abs(d[2]))
    return s
