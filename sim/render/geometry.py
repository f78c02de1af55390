"""Ray intersection with every geom type in the geom's local frame (engine_ray.c semantics, exact shapes).

Each `hit_*` takes the local ray origin lp and direction lv (tuples; lv need not be unit), the accepted range
[tmin, tmax] of the ray parameter and `cull`: with cull=True only surfaces the ray enters count (front faces, as
OpenGL draws them with back-face culling); with cull=False the nearest surface crossing counts (shadow rays:
MuJoCo renders every face into the shadow map).  They return (t, part): t < 0 when there is no hit, part says
which surface was hit (shading needs it: capsule side / caps, box face, mesh face, height-field triangle).
Planes are seen from both sides (mjr_render flips the culled face for a plane seen from behind): part 0 front,
1 back.
"""

import math

from sim.jit import njit
from sim.engine.ray import _map as to_local  # noqa: F401  (ray origin and direction in a geom frame, ray_map)

from .layout import (
    GEOM_PLANE,
    GEOM_HFIELD,
    GEOM_SPHERE,
    GEOM_CAPSULE,
    GEOM_ELLIPSOID,
    GEOM_CYLINDER,
    GEOM_BOX,
    GEOM_MESH,
    MINVAL,
    MI_VERTADR,
    MI_FACEADR,
    MI_BVHADR,
    HI_NROW,
    HI_NCOL,
    HI_ADR,
    OI_TYPE,
    OI_DATAID,
)

MAXSTACK = 128  # BVH traversal stack (mjMAXTREEDEPTH is 50)
# height-field parts (negative): sides x-, x+, y-, y+ and the bottom; top triangles are 2 * cell + (0 | 1)
HF_XNEG, HF_XPOS, HF_YNEG, HF_YPOS, HF_BOTTOM = -1, -2, -3, -4, -5


@njit(cache=True, fastmath=True)
def _roots(a, b, c):
    """Roots x0 <= x1 of a x^2 + 2 b x + c = 0 (x0 > x1 signals none), as ray_quad."""
    det = b * b - a * c
    if det < 0 or a < MINVAL:
        return 1.0, -1.0
    det = math.sqrt(det)
    return (-b - det) / a, (-b + det) / a


@njit(cache=True, fastmath=True)
def _pick(x0, x1, tmin, tmax, cull):
    """Entering root x0 if in range; with cull=False the exiting root x1 otherwise; -1 if neither."""
    if x0 > x1:
        return -1.0
    if tmin <= x0 <= tmax:
        return x0
    if not cull and tmin <= x1 <= tmax:
        return x1
    return -1.0


@njit(cache=True, fastmath=True)
def hit_plane(lp, lv, size, tmin, tmax):
    """Plane z = 0 within |x| <= size[0], |y| <= size[1] (a size <= 0 is infinite); both sides."""
    if abs(lv[2]) < MINVAL:
        return -1.0, 0
    t = -lp[2] / lv[2]
    if t < tmin or t > tmax:
        return -1.0, 0
    x = lp[0] + t * lv[0]
    y = lp[1] + t * lv[1]
    if (size[0] > 0 and abs(x) > size[0]) or (size[1] > 0 and abs(y) > size[1]):
        return -1.0, 0
    return t, (0 if lv[2] < 0 else 1)


@njit(cache=True, fastmath=True)
def hit_sphere(lp, lv, r, tmin, tmax, cull):
    a = lv[0] * lv[0] + lv[1] * lv[1] + lv[2] * lv[2]
    b = lv[0] * lp[0] + lv[1] * lp[1] + lv[2] * lp[2]
    c = lp[0] * lp[0] + lp[1] * lp[1] + lp[2] * lp[2] - r * r
    x0, x1 = _roots(a, b, c)
    return _pick(x0, x1, tmin, tmax, cull), 0


@njit(cache=True, fastmath=True)
def hit_ellipsoid(lp, lv, size, tmin, tmax, cull):
    s0, s1, s2 = 1 / (size[0] * size[0]), 1 / (size[1] * size[1]), 1 / (size[2] * size[2])
    a = s0 * lv[0] * lv[0] + s1 * lv[1] * lv[1] + s2 * lv[2] * lv[2]
    b = s0 * lv[0] * lp[0] + s1 * lv[1] * lp[1] + s2 * lv[2] * lp[2]
    c = s0 * lp[0] * lp[0] + s1 * lp[1] * lp[1] + s2 * lp[2] * lp[2] - 1
    x0, x1 = _roots(a, b, c)
    return _pick(x0, x1, tmin, tmax, cull), 0


@njit(cache=True, fastmath=True)
def _better(t, best):
    return t >= 0 and (best < 0 or t < best)


@njit(cache=True, fastmath=True)
def _tube(lp, lv, r, h, tmin, tmax, cull):
    """The round side of radius r between z = -h and h of a capsule or cylinder (part 0), or -1."""
    a = lv[0] * lv[0] + lv[1] * lv[1]
    b = lv[0] * lp[0] + lv[1] * lp[1]
    c = lp[0] * lp[0] + lp[1] * lp[1] - r * r
    x0, x1 = _roots(a, b, c)
    if x0 > x1:
        return -1.0
    if tmin <= x0 <= tmax and abs(lp[2] + x0 * lv[2]) <= h:
        return x0
    if not cull and tmin <= x1 <= tmax and abs(lp[2] + x1 * lv[2]) <= h:
        return x1
    return -1.0


@njit(cache=True, fastmath=True)
def hit_capsule(lp, lv, size, tmin, tmax, cull):
    """Capsule: side (part 0), top cap (1), bottom cap (2)."""
    r, h = size[0], size[1]
    best, part = -1.0, 0
    t = _tube(lp, lv, r, h, tmin, tmax, cull)
    if _better(t, best):
        best, part = t, 0
    a = lv[0] * lv[0] + lv[1] * lv[1] + lv[2] * lv[2]
    for side in range(2):
        sgn = 1.0 if side == 0 else -1.0
        l2 = lp[2] - h * sgn
        b = lv[0] * lp[0] + lv[1] * lp[1] + lv[2] * l2
        c = lp[0] * lp[0] + lp[1] * lp[1] + l2 * l2 - r * r
        x0, x1 = _roots(a, b, c)
        if x0 > x1:
            continue
        for k in range(2):
            x = x0 if k == 0 else x1
            if k == 1 and cull:
                break
            z = lp[2] + x * lv[2]
            if tmin <= x <= tmax and z * sgn >= h and _better(x, best):
                best, part = x, 1 + side
    return best, part


@njit(cache=True, fastmath=True)
def hit_cylinder(lp, lv, size, tmin, tmax, cull):
    """Cylinder: side (part 0), top disk (1), bottom disk (2)."""
    r, h = size[0], size[1]
    best, part = -1.0, 0
    if abs(lv[2]) > MINVAL:
        for side in range(2):
            sgn = 1.0 if side == 0 else -1.0
            if cull and lv[2] * sgn >= 0:  # entering the top disk needs lv.z < 0, the bottom lv.z > 0
                continue
            x = (sgn * h - lp[2]) / lv[2]
            if tmin <= x <= tmax:
                p0 = lp[0] + x * lv[0]
                p1 = lp[1] + x * lv[1]
                if p0 * p0 + p1 * p1 <= r * r and _better(x, best):
                    best, part = x, 1 + side
    t = _tube(lp, lv, r, h, tmin, tmax, cull)
    if _better(t, best):
        best, part = t, 0
    return best, part


@njit(cache=True, error_model="numpy", fastmath=True)
def hit_box(lp, lv, size, tmin, tmax, cull):
    """Box (slab method): part = 2 * axis + (1 if the +side face else 0)."""
    tn, tf = -1e300, 1e300
    fn, ff = 0, 0
    for k in range(3):
        if abs(lv[k]) < MINVAL:
            if abs(lp[k]) > size[k]:
                return -1.0, 0
            continue
        inv = 1.0 / lv[k]
        t1 = (-size[k] - lp[k]) * inv
        t2 = (size[k] - lp[k]) * inv
        f1, f2 = 2 * k, 2 * k + 1
        if t1 > t2:
            t1, t2 = t2, t1
            f1, f2 = f2, f1
        if t1 > tn:
            tn, fn = t1, f1
        if t2 < tf:
            tf, ff = t2, f2
    if tn > tf:
        return -1.0, 0
    if tmin <= tn <= tmax:
        return tn, fn
    if not cull and tmin <= tf <= tmax:
        return tf, ff
    return -1.0, 0


@njit(cache=True, error_model="numpy", fastmath=True)
def _slab_range(aabb, lp, lv, tmin, tmax):
    """(entry, exit) parameters of the ray in the box (centre, half size) clipped to [tmin, tmax]; entry > exit
    when the ray misses it."""
    tn, tf = tmin, tmax
    for k in range(3):
        inv = 1.0 / lv[k] if lv[k] != 0.0 else math.copysign(1e300, lv[k])
        t1 = (aabb[k] - aabb[3 + k] - lp[k]) * inv
        t2 = (aabb[k] + aabb[3 + k] - lp[k]) * inv
        if t1 > t2:
            t1, t2 = t2, t1
        if t1 > tn:
            tn = t1
        if t2 < tf:
            tf = t2
        if tn > tf:
            return 1.0, -1.0
    return tn, tf


@njit(cache=True, fastmath=True)
def _slab(aabb, lp, lv, tmin, tmax):
    """Entry parameter of the ray into the box clipped to [tmin, tmax], or -1."""
    tn, tf = _slab_range(aabb, lp, lv, tmin, tmax)
    return tn if tn <= tf else -1.0


@njit(cache=True, fastmath=True)
def tri_hit(v0, v1, v2, lp, lv, tmin, tmax, cull):
    """Moller-Trumbore: (t, u, v) of the ray through triangle (v0, v1, v2), t < 0 if none; with cull only the
    counter-clockwise (front) side."""
    e10, e11, e12 = v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2]
    e20, e21, e22 = v2[0] - v0[0], v2[1] - v0[1], v2[2] - v0[2]
    p0 = lv[1] * e22 - lv[2] * e21
    p1 = lv[2] * e20 - lv[0] * e22
    p2 = lv[0] * e21 - lv[1] * e20
    det = e10 * p0 + e11 * p1 + e12 * p2
    if cull:
        if det <= 0:
            return -1.0, 0.0, 0.0
    elif det == 0:
        return -1.0, 0.0, 0.0
    inv = 1.0 / det
    s0, s1, s2 = lp[0] - v0[0], lp[1] - v0[1], lp[2] - v0[2]
    u = (s0 * p0 + s1 * p1 + s2 * p2) * inv
    if u < 0 or u > 1:
        return -1.0, 0.0, 0.0
    q0 = s1 * e12 - s2 * e11
    q1 = s2 * e10 - s0 * e12
    q2 = s0 * e11 - s1 * e10
    v = (lv[0] * q0 + lv[1] * q1 + lv[2] * q2) * inv
    if v < 0 or u + v > 1:
        return -1.0, 0.0, 0.0
    t = (e20 * q0 + e21 * q1 + e22 * q2) * inv
    if t < tmin or t > tmax:
        return -1.0, 0.0, 0.0
    return t, u, v


@njit(cache=True, fastmath=True)
def mesh_tri(rm, mid, f):
    """Vertices of face f (index within mesh mid) as tuples."""
    vadr = rm.mesh_i[mid, MI_VERTADR]
    row = rm.mesh_face[rm.mesh_i[mid, MI_FACEADR] + f]
    a, b, c = vadr + row[0], vadr + row[1], vadr + row[2]
    V = rm.mesh_vert
    return ((V[a, 0], V[a, 1], V[a, 2]), (V[b, 0], V[b, 1], V[b, 2]), (V[c, 0], V[c, 1], V[c, 2]))


@njit(cache=True, fastmath=True)
def hit_mesh(rm, mid, lp, lv, tmin, tmax, cull, stack):
    """Nearest triangle through the mesh BVH (near child first, nodes beyond the best hit pruned);
    part = face index within the mesh."""
    adr = rm.mesh_i[mid, MI_BVHADR]
    best, part = -1.0, 0
    if _slab(rm.bvh_aabb[adr], lp, lv, tmin, tmax) < 0:
        return best, part
    hi = tmax
    n = 1
    stack[0] = 0
    while n > 0:
        n -= 1
        node = stack[n]
        fid = rm.bvh_nodeid[adr + node]
        if fid >= 0:
            v0, v1, v2 = mesh_tri(rm, mid, fid)
            t, _, _ = tri_hit(v0, v1, v2, lp, lv, tmin, hi, cull)
            if t >= 0:
                best, part, hi = t, fid, t
            continue
        c0 = rm.bvh_child[adr + node, 0]
        c1 = rm.bvh_child[adr + node, 1]
        t0 = _slab(rm.bvh_aabb[adr + c0], lp, lv, tmin, hi) if c0 >= 0 else -1.0
        t1 = _slab(rm.bvh_aabb[adr + c1], lp, lv, tmin, hi) if c1 >= 0 else -1.0
        if t0 >= 0 and t1 >= 0:
            if n + 2 > MAXSTACK:
                continue
            if t0 <= t1:
                stack[n] = c1
                stack[n + 1] = c0
            else:
                stack[n] = c0
                stack[n + 1] = c1
            n += 2
        elif t0 >= 0:
            stack[n] = c0
            n += 1
        elif t1 >= 0:
            stack[n] = c1
            n += 1
    return best, part


@njit(cache=True, fastmath=True)
def hfield_vertex(rm, hid, r, c):
    """Local position of grid point (row r, column c) of height field hid."""
    nrow = rm.hfield_i[hid, HI_NROW]
    ncol = rm.hfield_i[hid, HI_NCOL]
    size = rm.hfield_size[hid]
    x = size[0] * (2.0 * c / (ncol - 1) - 1.0)
    y = size[1] * (2.0 * r / (nrow - 1) - 1.0)
    return x, y, rm.hfield_data[rm.hfield_i[hid, HI_ADR] + r * ncol + c] * size[2]


@njit(cache=True, fastmath=True)
def hfield_triangle(rm, hid, part):
    """Vertices of top triangle `part` (2 * (r * (ncol - 1) + c) + k), counter-clockwise seen from above
    (mj_rayHfield's split of each cell along its (c, r)-(c+1, r+1) diagonal, as mjr_uploadHField)."""
    ncol = rm.hfield_i[hid, HI_NCOL]
    cell = part // 2
    r = cell // (ncol - 1)
    c = cell - r * (ncol - 1)
    v00 = hfield_vertex(rm, hid, r, c)
    v11 = hfield_vertex(rm, hid, r + 1, c + 1)
    if part % 2 == 0:
        return v00, hfield_vertex(rm, hid, r, c + 1), v11
    return v00, v11, hfield_vertex(rm, hid, r + 1, c)


@njit(cache=True, fastmath=True)
def _hf_profile(rm, hid, side, s):
    """Height of the boundary profile of side (HF_XNEG..HF_YPOS) at coordinate s along it."""
    nrow = rm.hfield_i[hid, HI_NROW]
    ncol = rm.hfield_i[hid, HI_NCOL]
    size = rm.hfield_size[hid]
    adr = rm.hfield_i[hid, HI_ADR]
    if side == HF_XNEG or side == HF_XPOS:
        g = (s + size[1]) / (2 * size[1]) * (nrow - 1)
        i = min(nrow - 2, max(0, int(math.floor(g))))
        col = 0 if side == HF_XNEG else ncol - 1
        z0 = rm.hfield_data[adr + i * ncol + col]
        z1 = rm.hfield_data[adr + (i + 1) * ncol + col]
    else:
        g = (s + size[0]) / (2 * size[0]) * (ncol - 1)
        i = min(ncol - 2, max(0, int(math.floor(g))))
        row = 0 if side == HF_YNEG else nrow - 1
        z0 = rm.hfield_data[adr + row * ncol + i]
        z1 = rm.hfield_data[adr + row * ncol + i + 1]
    f = g - i
    return (z0 * (1 - f) + z1 * f) * size[2]


@njit(cache=True, fastmath=True)
def hit_hfield(rm, hid, lp, lv, tmin, tmax, cull):
    """Height field: top triangles (grid cells visited along the ray, 2-D DDA), the four sides below the boundary
    profile and the bottom at -size[3]."""
    nrow = rm.hfield_i[hid, HI_NROW]
    ncol = rm.hfield_i[hid, HI_NCOL]
    size = rm.hfield_size[hid]
    box = (0.0, 0.0, 0.5 * (size[2] - size[3]), size[0], size[1], 0.5 * (size[2] + size[3]))
    t0 = _slab(box, lp, lv, tmin, tmax)
    if t0 < 0:
        return -1.0, 0
    best, part = -1.0, 0
    # bottom (normal -z) and sides (outward normals)
    for s in range(5):
        if s < 4:
            ax = 0 if s < 2 else 1
            sgn = -1.0 if s % 2 == 0 else 1.0
            plane = sgn * size[ax]
        else:
            ax = 2
            sgn = -1.0
            plane = -size[3]
        if abs(lv[ax]) < MINVAL or (cull and lv[ax] * sgn >= 0):
            continue
        t = (plane - lp[ax]) / lv[ax]
        if t < tmin or t > tmax or not _better(t, best):
            continue
        x, y, z = lp[0] + t * lv[0], lp[1] + t * lv[1], lp[2] + t * lv[2]
        if s == 4:
            if abs(x) <= size[0] and abs(y) <= size[1]:
                best, part = t, HF_BOTTOM
        else:
            side = -1 - s
            u = y if ax == 0 else x
            if abs(u) <= size[1 - ax] and -size[3] <= z <= _hf_profile(rm, hid, side, u):
                best, part = t, side
    # top surface: walk the cells the ray crosses between entering and leaving the bounding box
    _, t1 = _slab_range(box, lp, lv, tmin, tmax if best < 0 else best)
    if t1 < t0:
        return best, part
    dx = 2 * size[0] / (ncol - 1)
    dy = 2 * size[1] / (nrow - 1)
    x = lp[0] + t0 * lv[0]
    y = lp[1] + t0 * lv[1]
    cx = min(ncol - 2, max(0, int(math.floor((x + size[0]) / dx))))
    cy = min(nrow - 2, max(0, int(math.floor((y + size[1]) / dy))))
    stepx = 1 if lv[0] > 0 else -1
    stepy = 1 if lv[1] > 0 else -1
    if abs(lv[0]) > MINVAL:
        nxb = -size[0] + (cx + (1 if stepx > 0 else 0)) * dx
        tmx = (nxb - lp[0]) / lv[0]
        tdx = dx / abs(lv[0])
    else:
        tmx, tdx = 1e300, 1e300
    if abs(lv[1]) > MINVAL:
        nyb = -size[1] + (cy + (1 if stepy > 0 else 0)) * dy
        tmy = (nyb - lp[1]) / lv[1]
        tdy = dy / abs(lv[1])
    else:
        tmy, tdy = 1e300, 1e300
    for _ in range(nrow + ncol):
        for k in range(2):
            pid = 2 * (cy * (ncol - 1) + cx) + k
            v0, v1, v2 = hfield_triangle(rm, hid, pid)
            t, _, _ = tri_hit(v0, v1, v2, lp, lv, tmin, t1, cull)
            if t >= 0 and _better(t, best):
                best, part = t, pid
        tnext = tmx if tmx < tmy else tmy
        if (best >= 0 and best <= tnext) or tnext > t1:
            break
        if tmx < tmy:
            cx += stepx
            tmx += tdx
            if cx < 0 or cx > ncol - 2:
                break
        else:
            cy += stepy
            tmy += tdy
            if cy < 0 or cy > nrow - 2:
                break
    return best, part


@njit(cache=True, fastmath=True)
def hit_local(rm, k, size, lp, lv, tmin, tmax, cull, stack):
    """(t, part) of object k of the RenderModel (of that size) for the local ray (lp, lv)."""
    typ = rm.obj_i[k, OI_TYPE]
    if typ == GEOM_PLANE:
        return hit_plane(lp, lv, size, tmin, tmax)
    if typ == GEOM_SPHERE:
        return hit_sphere(lp, lv, size[0], tmin, tmax, cull)
    if typ == GEOM_CAPSULE:
        return hit_capsule(lp, lv, size, tmin, tmax, cull)
    if typ == GEOM_ELLIPSOID:
        return hit_ellipsoid(lp, lv, size, tmin, tmax, cull)
    if typ == GEOM_CYLINDER:
        return hit_cylinder(lp, lv, size, tmin, tmax, cull)
    if typ == GEOM_BOX:
        return hit_box(lp, lv, size, tmin, tmax, cull)
    if typ == GEOM_MESH:
        return hit_mesh(rm, rm.obj_i[k, OI_DATAID], lp, lv, tmin, tmax, cull, stack)
    if typ == GEOM_HFIELD:
        return hit_hfield(rm, rm.obj_i[k, OI_DATAID], lp, lv, tmin, tmax, cull)
    return -1.0, 0
