"""libccd's MPR penetration (ccdMPRPenetration, libccd 2.1 as MuJoCo 3.17 pins it, double precision) and MuJoCo's
libccd path of the convex narrowphase (mjDSBL_NATIVECCD: _libccd_wrapper, mjccd_support, mjc_fixNormal, the
multiCCD perturbation search of mjc_Convex).

Port of libccd's src/mpr.c with its vec3 helpers (src/vec3.c, src/ccd/vec3.h: CCD_EPS = DBL_EPSILON, ccdIsZero,
ccdEq) in the same floating-point operation order.  The portal (4 support points) lives in d.scr_simplex[w]
(4, 9): rows [v (Minkowski difference), v1 (object 0's point), v2 (object 1's point)]; the candidate v4 and the
perturbation frame in d.scr_simplex2[w, 0] / [w, 1].  Objects are those of sim/engine/collision/support.py.

Compiled only for feature sets with F_LIBCCD (models whose options disable nativeccd; sim/jit/features.py).
"""

import math
from sim.jit import njit
from sim.engine.math import cross, normalize3, axis_angle_quat, quat2mat

from sim.constants import (
    OPT_DISABLE,
    OPT_CCD_TOLERANCE,
    OPT_CCD_ITERATIONS,
    DSBL_MULTICCD,
    GEOM_SPHERE,
    GEOM_CAPSULE,
    GEOM_ELLIPSOID,
    GEOM_CYLINDER,
    GEOM_BOX,
    GEOM_HFIELD,
)
from sim.constants import MINVAL
from sim.engine.collision.support import init_obj, center, support, _climb, mesh_argmax, I_TYPE, I_DATA, I_MESHI, I_HILL
from sim.engine.collision.support import F_POS, F_MAT, F_SIZE, F_MARGIN

CCD_EPS = 2.220446049250313e-16  # DBL_EPSILON
REFINE_MAX = 100000  # safety cap on refinePortal's loop (libccd's has none; never reached by a convex pair)


@njit(cache=True)
def is_zero(x):
    """ccdIsZero: |x| < CCD_EPS."""
    return abs(x) < CCD_EPS


@njit(cache=True)
def eq(a, b):
    """ccdEq: a and b equal to CCD_EPS, absolutely or relatively to the larger magnitude."""
    ab = abs(a - b)
    if ab < CCD_EPS:
        return True
    fa = abs(a)
    fb = abs(b)
    if fb > fa:
        return ab < CCD_EPS * fb
    return ab < CCD_EPS * fa


@njit(cache=True)
def _dot(a0, a1, a2, b0, b1, b2):
    """ccdVec3Dot."""
    dot = a0 * b0
    dot += a1 * b1
    dot += a2 * b2
    return dot


@njit(cache=True)
def _normalize(a0, a1, a2):
    """ccdVec3Normalize (no guard)."""
    k = 1.0 / math.sqrt(_dot(a0, a1, a2, a0, a1, a2))
    return a0 * k, a1 * k, a2 * k


@njit(cache=True)
def _sign(x):
    """mju_sign."""
    if x < 0:
        return -1.0
    if x > 0:
        return 1.0
    return 0.0


@njit(cache=True)
def ccd_support(m, d, w, o, d0, d1, d2):
    """Support point (3,) of object o along (d0, d1, d2) inflated by margin/2 (mjccd_support); meshes keep the
    chosen vertex (exhaustive: vertex index, hill climbing: graph-local id) in d.scr_ccd_i[w, o, I_MESHI]."""
    f = d.scr_ccd_f[w, o]
    iv = d.scr_ccd_i[w, o]
    t = iv[I_TYPE]
    if t == GEOM_HFIELD:  # mjc_prism_support: the prism is already in the height field's frame
        p0, p1, p2 = support(m, d, w, o, d0, d1, d2)
        mg = f[F_MARGIN]
        return p0 + d0 * mg / 2, p1 + d1 * mg / 2, p2 + d2 * mg / 2
    l0 = f[F_MAT] * d0 + f[F_MAT + 3] * d1 + f[F_MAT + 6] * d2
    l1 = f[F_MAT + 1] * d0 + f[F_MAT + 4] * d1 + f[F_MAT + 7] * d2
    l2 = f[F_MAT + 2] * d0 + f[F_MAT + 5] * d1 + f[F_MAT + 8] * d2
    s0 = f[F_SIZE]
    s1 = f[F_SIZE + 1]
    s2 = f[F_SIZE + 2]
    if t == GEOM_SPHERE:
        r0, r1, r2 = l0 * s0, l1 * s0, l2 * s0
    elif t == GEOM_CAPSULE:
        r0, r1, r2 = l0 * s0, l1 * s0, l2 * s0
        r2 += _sign(l2) * s1
    elif t == GEOM_ELLIPSOID:
        r0, r1, r2, _ = normalize3(l0 * s0, l1 * s1, l2 * s2)
        r0 *= s0
        r1 *= s1
        r2 *= s2
    elif t == GEOM_CYLINDER:
        tmp = math.sqrt(l0 * l0 + l1 * l1)
        if tmp > MINVAL:
            r0 = l0 / tmp * s0
            r1 = l1 / tmp * s0
        else:
            r0 = 0.0
            r1 = 0.0
        r2 = _sign(l2) * s1
    elif t == GEOM_BOX:
        r0, r1, r2 = _sign(l0) * s0, _sign(l1) * s1, _sign(l2) * s2
    else:  # mesh
        mid = iv[I_DATA]
        adr = m.mesh_vertadr[mid]
        vert = m.mesh_vert
        if not iv[I_HILL]:  # no graph (or fewer than mjMESH_HILLCLIMB_MIN vertices): exhaustive search
            ib = mesh_argmax(m, mid, l0, l1, l2)
            iv[I_MESHI] = ib
        else:
            gadr = m.mesh_graphadr[mid]
            graph = m.mesh_graph
            numvert = graph[gadr]
            globalid = gadr + 2 + numvert
            start = 0 if iv[I_MESHI] < 0 else iv[I_MESHI]
            ib = _climb(graph, vert, adr, gadr + 2, globalid, gadr + 2 + 2 * numvert, start, l0, l1, l2)
            iv[I_MESHI] = ib
            ib = graph[globalid + ib]
        if ib < 0:
            r0 = r1 = r2 = 0.0
        else:
            r0 = vert[adr + ib, 0]
            r1 = vert[adr + ib, 1]
            r2 = vert[adr + ib, 2]
    mg = f[F_MARGIN]
    r0 += l0 * mg / 2
    r1 += l1 * mg / 2
    r2 += l2 * mg / 2
    return (
        f[F_MAT] * r0 + f[F_MAT + 1] * r1 + f[F_MAT + 2] * r2 + f[F_POS],
        f[F_MAT + 3] * r0 + f[F_MAT + 4] * r1 + f[F_MAT + 5] * r2 + f[F_POS + 1],
        f[F_MAT + 6] * r0 + f[F_MAT + 7] * r1 + f[F_MAT + 8] * r2 + f[F_POS + 2],
    )


@njit(cache=True)
def _mink_support(m, d, w, row, d0, d1, d2):
    """__ccdSupport: row (9,) <- [support1(dir) - support2(-dir), support1(dir), support2(-dir)]."""
    a0, a1, a2 = ccd_support(m, d, w, 0, d0, d1, d2)
    b0, b1, b2 = ccd_support(m, d, w, 1, -d0, -d1, -d2)
    row[0] = a0 - b0
    row[1] = a1 - b1
    row[2] = a2 - b2
    row[3] = a0
    row[4] = a1
    row[5] = a2
    row[6] = b0
    row[7] = b1
    row[8] = b2


@njit(cache=True)
def _set(p, i, src):
    """ccdSimplexSet: p[i] <- src (9,)."""
    for k in range(9):
        p[i, k] = src[k]


@njit(cache=True)
def _tri_normal(p, i, j, k):
    """Unit normal of (p[j] - p[i]) x (p[k] - p[i]) over the first three columns of the simplex rows."""
    a0, a1, a2 = p[j, 0] - p[i, 0], p[j, 1] - p[i, 1], p[j, 2] - p[i, 2]
    b0, b1, b2 = p[k, 0] - p[i, 0], p[k, 1] - p[i, 1], p[k, 2] - p[i, 2]
    c0, c1, c2 = cross(a0, a1, a2, b0, b1, b2)
    return _normalize(c0, c1, c2)


@njit(cache=True)
def _portal_dir(p):
    """Unit normal of the portal face v1 v2 v3 (portalDir)."""
    return _tri_normal(p, 1, 2, 3)


@njit(cache=True)
def _reach_tolerance(p, v4, d0, d1, d2, tol):
    """portalReachTolerance: the portal cannot expand by more than tol along dir."""
    dv1 = _dot(p[1, 0], p[1, 1], p[1, 2], d0, d1, d2)
    dv2 = _dot(p[2, 0], p[2, 1], p[2, 2], d0, d1, d2)
    dv3 = _dot(p[3, 0], p[3, 1], p[3, 2], d0, d1, d2)
    dv4 = _dot(v4[0], v4[1], v4[2], d0, d1, d2)
    dot1 = dv4 - dv1
    dot2 = dv4 - dv2
    dot3 = dv4 - dv3
    dot1 = min(dot1, dot2)  # CCD_FMIN (fmin: no NaN reaches here)
    dot1 = min(dot1, dot3)
    return eq(dot1, tol) or dot1 < tol


@njit(cache=True)
def _expand(p, v4):
    """expandPortal: replace the vertex of v1 v2 v3 that v4 supersedes."""
    c0, c1, c2 = cross(v4[0], v4[1], v4[2], p[0, 0], p[0, 1], p[0, 2])
    if _dot(p[1, 0], p[1, 1], p[1, 2], c0, c1, c2) > 0:
        if _dot(p[2, 0], p[2, 1], p[2, 2], c0, c1, c2) > 0:
            _set(p, 1, v4)
        else:
            _set(p, 3, v4)
    else:
        if _dot(p[3, 0], p[3, 1], p[3, 2], c0, c1, c2) > 0:
            _set(p, 2, v4)
        else:
            _set(p, 1, v4)


@njit(cache=True)
def _discover(m, d, w, p):
    """discoverPortal: -1 no intersection, 1 origin on v1, 2 origin on segment v0-v1, 0 portal built."""
    a0, a1, a2 = center(m, d, w, 0)
    b0, b1, b2 = center(m, d, w, 1)
    p[0, 3], p[0, 4], p[0, 5] = a0, a1, a2
    p[0, 6], p[0, 7], p[0, 8] = b0, b1, b2
    p[0, 0], p[0, 1], p[0, 2] = a0 - b0, a1 - b1, a2 - b2
    if is_zero(p[0, 0]) and is_zero(p[0, 1]) and is_zero(p[0, 2]):  # ccdVec3Eq(v0, origin): nudge the center
        p[0, 0] += CCD_EPS * 10.0
        p[0, 1] += 0.0
        p[0, 2] += 0.0

    d0, d1, d2 = _normalize(p[0, 0] * -1.0, p[0, 1] * -1.0, p[0, 2] * -1.0)
    _mink_support(m, d, w, p[1], d0, d1, d2)
    dot = _dot(p[1, 0], p[1, 1], p[1, 2], d0, d1, d2)
    if is_zero(dot) or dot < 0:
        return -1

    d0, d1, d2 = cross(p[0, 0], p[0, 1], p[0, 2], p[1, 0], p[1, 1], p[1, 2])
    if is_zero(_dot(d0, d1, d2, d0, d1, d2)):
        if is_zero(p[1, 0]) and is_zero(p[1, 1]) and is_zero(p[1, 2]):
            return 1
        return 2

    d0, d1, d2 = _normalize(d0, d1, d2)
    _mink_support(m, d, w, p[2], d0, d1, d2)
    dot = _dot(p[2, 0], p[2, 1], p[2, 2], d0, d1, d2)
    if is_zero(dot) or dot < 0:
        return -1

    d0, d1, d2 = _face_dir(p)
    if _dot(d0, d1, d2, p[0, 0], p[0, 1], p[0, 2]) > 0:
        for k in range(9):
            t = p[1, k]
            p[1, k] = p[2, k]
            p[2, k] = t
        d0, d1, d2 = d0 * -1.0, d1 * -1.0, d2 * -1.0

    while True:
        _mink_support(m, d, w, p[3], d0, d1, d2)
        dot = _dot(p[3, 0], p[3, 1], p[3, 2], d0, d1, d2)
        if is_zero(dot) or dot < 0:
            return -1
        cont = False
        c0, c1, c2 = cross(p[1, 0], p[1, 1], p[1, 2], p[3, 0], p[3, 1], p[3, 2])
        dot = _dot(c0, c1, c2, p[0, 0], p[0, 1], p[0, 2])
        if dot < 0 and not is_zero(dot):
            _set(p, 2, p[3])
            cont = True
        if not cont:
            c0, c1, c2 = cross(p[3, 0], p[3, 1], p[3, 2], p[2, 0], p[2, 1], p[2, 2])
            dot = _dot(c0, c1, c2, p[0, 0], p[0, 1], p[0, 2])
            if dot < 0 and not is_zero(dot):
                _set(p, 1, p[3])
                cont = True
        if cont:
            d0, d1, d2 = _face_dir(p)
        else:
            return 0


@njit(cache=True)
def _face_dir(p):
    """Unit normal of (v1 - v0) x (v2 - v0)."""
    return _tri_normal(p, 0, 1, 2)


@njit(cache=True)
def _refine(m, d, w, p, v4, tol):
    """refinePortal: 0 when the portal encloses the origin, -1 when the objects are separated."""
    for _ in range(REFINE_MAX):
        d0, d1, d2 = _portal_dir(p)
        dot = _dot(d0, d1, d2, p[1, 0], p[1, 1], p[1, 2])
        if is_zero(dot) or dot > 0:  # portalEncapsulesOrigin
            return 0
        _mink_support(m, d, w, v4, d0, d1, d2)
        dot = _dot(v4[0], v4[1], v4[2], d0, d1, d2)
        if not (is_zero(dot) or dot > 0) or _reach_tolerance(p, v4, d0, d1, d2, tol):
            return -1
        _expand(p, v4)
    return -1


@njit(cache=True)
def _dist2(a0, a1, a2, b0, b1, b2):
    """ccdVec3Dist2."""
    c0, c1, c2 = a0 - b0, a1 - b1, a2 - b2
    return _dot(c0, c1, c2, c0, c1, c2)


@njit(cache=True)
def _segment_dist2(x0, x1, x2, b0, b1, b2):
    """(dist^2, witness (3,)) from the origin to segment x-b (__ccdVec3PointSegmentDist2 with P = origin)."""
    e0, e1, e2 = b0 - x0, b1 - x1, b2 - x2
    a0, a1, a2 = x0 - 0.0, x1 - 0.0, x2 - 0.0
    t = -1.0 * _dot(a0, a1, a2, e0, e1, e2)
    t /= _dot(e0, e1, e2, e0, e1, e2)
    if t < 0 or is_zero(t):
        return _dist2(x0, x1, x2, 0.0, 0.0, 0.0), x0, x1, x2
    if t > 1 or eq(t, 1.0):
        return _dist2(b0, b1, b2, 0.0, 0.0, 0.0), b0, b1, b2
    w0, w1, w2 = e0 * t, e1 * t, e2 * t
    w0 += x0
    w1 += x1
    w2 += x2
    return _dist2(w0, w1, w2, 0.0, 0.0, 0.0), w0, w1, w2


@njit(cache=True)
def _tri_dist2(p):
    """(dist^2, witness (3,)) from the origin to triangle v1 v2 v3 of the portal (ccdVec3PointTriDist2)."""
    x0, x1, x2 = p[1, 0], p[1, 1], p[1, 2]
    d10, d11, d12 = p[2, 0] - x0, p[2, 1] - x1, p[2, 2] - x2
    d20, d21, d22 = p[3, 0] - x0, p[3, 1] - x1, p[3, 2] - x2
    a0, a1, a2 = x0 - 0.0, x1 - 0.0, x2 - 0.0
    v = _dot(d10, d11, d12, d10, d11, d12)
    ww = _dot(d20, d21, d22, d20, d21, d22)
    pp = _dot(a0, a1, a2, d10, d11, d12)
    q = _dot(a0, a1, a2, d20, d21, d22)
    r = _dot(d10, d11, d12, d20, d21, d22)
    dd = ww * v - r * r
    if is_zero(dd):
        s = -1.0
        t = -1.0
    else:
        s = (q * r - ww * pp) / dd
        t = (-s * r - q) / ww
    if (
        (is_zero(s) or s > 0)
        and (eq(s, 1.0) or s < 1)
        and (is_zero(t) or t > 0)
        and (eq(t, 1.0) or t < 1)
        and (eq(t + s, 1.0) or t + s < 1)
    ):
        d10 *= s
        d11 *= s
        d12 *= s
        d20 *= t
        d21 *= t
        d22 *= t
        w0, w1, w2 = x0, x1, x2
        w0 += d10
        w1 += d11
        w2 += d12
        w0 += d20
        w1 += d21
        w2 += d22
        return _dist2(w0, w1, w2, 0.0, 0.0, 0.0), w0, w1, w2
    dist, w0, w1, w2 = _segment_dist2(x0, x1, x2, p[2, 0], p[2, 1], p[2, 2])
    dist2, u0, u1, u2 = _segment_dist2(x0, x1, x2, p[3, 0], p[3, 1], p[3, 2])
    if dist2 < dist:
        dist, w0, w1, w2 = dist2, u0, u1, u2
    dist2, u0, u1, u2 = _segment_dist2(p[2, 0], p[2, 1], p[2, 2], p[3, 0], p[3, 1], p[3, 2])
    if dist2 < dist:
        dist, w0, w1, w2 = dist2, u0, u1, u2
    return dist, w0, w1, w2


@njit(cache=True)
def _find_pos(p):
    """Contact position (3,) from the barycentric coordinates of the origin in the final portal (findPos)."""
    d0, d1, d2 = _portal_dir(p)
    c = cross(p[1, 0], p[1, 1], p[1, 2], p[2, 0], p[2, 1], p[2, 2])
    b0 = _dot(c[0], c[1], c[2], p[3, 0], p[3, 1], p[3, 2])
    c = cross(p[3, 0], p[3, 1], p[3, 2], p[2, 0], p[2, 1], p[2, 2])
    b1 = _dot(c[0], c[1], c[2], p[0, 0], p[0, 1], p[0, 2])
    c = cross(p[0, 0], p[0, 1], p[0, 2], p[1, 0], p[1, 1], p[1, 2])
    b2 = _dot(c[0], c[1], c[2], p[3, 0], p[3, 1], p[3, 2])
    c = cross(p[2, 0], p[2, 1], p[2, 2], p[1, 0], p[1, 1], p[1, 2])
    b3 = _dot(c[0], c[1], c[2], p[0, 0], p[0, 1], p[0, 2])
    s = b0 + b1 + b2 + b3
    if is_zero(s) or s < 0:
        b0 = 0.0
        c = cross(p[2, 0], p[2, 1], p[2, 2], p[3, 0], p[3, 1], p[3, 2])
        b1 = _dot(c[0], c[1], c[2], d0, d1, d2)
        c = cross(p[3, 0], p[3, 1], p[3, 2], p[1, 0], p[1, 1], p[1, 2])
        b2 = _dot(c[0], c[1], c[2], d0, d1, d2)
        c = cross(p[1, 0], p[1, 1], p[1, 2], p[2, 0], p[2, 1], p[2, 2])
        b3 = _dot(c[0], c[1], c[2], d0, d1, d2)
        s = b1 + b2 + b3
    inv = 1.0 / s
    p10 = p11 = p12 = 0.0
    p20 = p21 = p22 = 0.0
    for i in range(4):
        b = b0 if i == 0 else (b1 if i == 1 else (b2 if i == 2 else b3))
        p10 += p[i, 3] * b
        p11 += p[i, 4] * b
        p12 += p[i, 5] * b
        p20 += p[i, 6] * b
        p21 += p[i, 7] * b
        p22 += p[i, 8] * b
    p10 *= inv
    p11 *= inv
    p12 *= inv
    p20 *= inv
    p21 *= inv
    p22 *= inv
    p10 += p20
    p11 += p21
    p12 += p22
    return p10 * 0.5, p11 * 0.5, p12 * 0.5


@njit(cache=True)
def mpr_penetration(m, d, w, tol, max_iterations):
    """(ret, depth, dir (3,), pos (3,)) of objects 0 and 1 (ccdMPRPenetration): ret 0 on penetration (dir the
    unit penetration direction, zero for a touching contact), -1 otherwise."""
    p = d.scr_simplex[w]
    v4 = d.scr_simplex2[w, 0]
    res = _discover(m, d, w, p)
    if res < 0:
        return -1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    if res == 1:  # findPenetrTouch
        x0, x1, x2 = p[1, 3], p[1, 4], p[1, 5]
        x0 += p[1, 6]
        x1 += p[1, 7]
        x2 += p[1, 8]
        return 0, 0.0, 0.0, 0.0, 0.0, x0 * 0.5, x1 * 0.5, x2 * 0.5
    if res == 2:  # findPenetrSegment
        x0, x1, x2 = p[1, 3], p[1, 4], p[1, 5]
        x0 += p[1, 6]
        x1 += p[1, 7]
        x2 += p[1, 8]
        depth = math.sqrt(_dot(p[1, 0], p[1, 1], p[1, 2], p[1, 0], p[1, 1], p[1, 2]))
        n0, n1, n2 = _normalize(p[1, 0], p[1, 1], p[1, 2])
        return 0, depth, n0, n1, n2, x0 * 0.5, x1 * 0.5, x2 * 0.5
    if _refine(m, d, w, p, v4, tol) < 0:
        return -1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    # findPenetr
    it = 0
    while True:
        d0, d1, d2 = _portal_dir(p)
        _mink_support(m, d, w, v4, d0, d1, d2)
        if _reach_tolerance(p, v4, d0, d1, d2, tol) or it > max_iterations:
            depth, n0, n1, n2 = _tri_dist2(p)
            depth = math.sqrt(depth)
            if is_zero(depth):
                n0 = n1 = n2 = 0.0
            else:
                n0, n1, n2 = _normalize(n0, n1, n2)
            x0, x1, x2 = _find_pos(p)
            return 0, depth, n0, n1, n2, x0, x1, x2
        _expand(p, v4)
        it += 1


@njit(cache=True)
def libccd_wrapper(m, d, w, k, margin):
    """One contact of objects 0 and 1 into d.scr_con_*[w, k] from libccd's MPR; returns 0 or 1
    (_libccd_wrapper)."""
    ret, depth, n0, n1, n2, x0, x1, x2 = mpr_penetration(
        m, d, w, m.opt[OPT_CCD_TOLERANCE], int(m.opt[OPT_CCD_ITERATIONS])
    )
    if ret != 0:
        return 0
    if is_zero(n0) and is_zero(n1) and is_zero(n2):  # ccdVec3Eq(dir, origin)
        return 0
    d.scr_con_dist[w, k] = margin - depth
    d.scr_con_normal[w, k, 0] = n0
    d.scr_con_normal[w, k, 1] = n1
    d.scr_con_normal[w, k, 2] = n2
    d.scr_con_pos[w, k, 0] = x0
    d.scr_con_pos[w, k, 1] = x1
    d.scr_con_pos[w, k, 2] = x2
    for c in range(3):
        d.scr_con_tangent[w, k, c] = 0.0
    return 1


# ------------------------------------------------------------------------------------------------------------------
# mjc_fixNormal


@njit(cache=True)
def _ellipsoid_inside(n0, n1, n2, p0, p1, p2, s0, s1, s2):
    """(processed, normal (3,)) for a point inside the ellipsoid, ray-projection SQP (mjc_ellipsoidInside)."""
    i0 = 1 / (s0 * s0)
    i1 = 1 / (s1 * s1)
    i2 = 1 / (s2 * s2)
    c = p0 * p0 * i0 + p1 * p1 * i1 + p2 * p2 * i2 - 1
    if c > 0:
        return False, n0, n1, n2
    n0, n1, n2, _ = normalize3(n0, n1, n2)
    for it in range(30):
        a = n0 * n0 * i0 + n1 * n1 * i1 + n2 * n2 * i2
        b = p0 * n0 * i0 + p1 * n1 * i1 + p2 * n2 * i2
        det = b * b - a * c
        if det < MINVAL or a < MINVAL:
            return it > 0, n0, n1, n2
        x = (-b + math.sqrt(det)) / a
        if x < 0:
            return it > 0, n0, n1, n2
        q0 = p0 + n0 * x
        q1 = p1 + n1 * x
        q2 = p2 + n2 * x
        m0, m1, m2, _ = normalize3(q0 * i0, q1 * i1, q2 * i2)
        e0, e1, e2 = n0 - m0, n1 - m1, n2 - m2
        change = math.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
        n0, n1, n2 = m0, m1, m2
        if change < 1e-6:
            break
    return True, n0, n1, n2


@njit(cache=True)
def _ellipsoid_outside(p0, p1, p2, s0, s1, s2):
    """Normal (3,) for a point outside the ellipsoid, diagonal QCQP (mjc_ellipsoidOutside)."""
    q0, q1, q2 = s0 * s0, s1 * s1, s2 * s2
    ps0, ps1, ps2 = p0 * p0 * q0, p1 * p1 * q1, p2 * p2 * q2
    la = 0.0
    for _ in range(30):
        r0 = 1 / (q0 + la)
        r1 = 1 / (q1 + la)
        r2 = 1 / (q2 + la)
        val = ps0 * r0 * r0 + ps1 * r1 * r1 + ps2 * r2 * r2 - 1
        if val < 1e-6:
            break
        deriv = -2 * (ps0 * r0 * r0 * r0 + ps1 * r1 * r1 * r1 + ps2 * r2 * r2 * r2)
        if deriv > -MINVAL:
            break
        delta = -val / deriv
        if delta < 1e-6:
            break
        la += delta
    n0, n1, n2, _ = normalize3(p0 / (q0 + la), p1 / (q1 + la), p2 / (q2 + la))
    return n0, n1, n2


@njit(cache=True)
def _fix_one(m, d, w, k, g, sgn):
    """(processed, normal (3,) in global frame) of geom g at contact k, its normal taken as sgn * contact normal."""
    t = m.geom_type[g]
    mat = d.geom_xmat[w, g]
    size = m.geom_size[g]
    e0 = d.scr_con_pos[w, k, 0] - d.geom_xpos[w, g, 0]
    e1 = d.scr_con_pos[w, k, 1] - d.geom_xpos[w, g, 1]
    e2 = d.scr_con_pos[w, k, 2] - d.geom_xpos[w, g, 2]
    c0 = sgn * d.scr_con_normal[w, k, 0]
    c1 = sgn * d.scr_con_normal[w, k, 1]
    c2 = sgn * d.scr_con_normal[w, k, 2]
    p0 = mat[0] * e0 + mat[3] * e1 + mat[6] * e2
    p1 = mat[1] * e0 + mat[4] * e1 + mat[7] * e2
    p2 = mat[2] * e0 + mat[5] * e1 + mat[8] * e2
    n0 = mat[0] * c0 + mat[3] * c1 + mat[6] * c2
    n1 = mat[1] * c0 + mat[4] * c1 + mat[7] * c2
    n2 = mat[2] * c0 + mat[5] * c1 + mat[8] * c2
    done = False
    if t == GEOM_SPHERE:
        n0, n1, n2 = p0, p1, p2
        done = True
    elif t == GEOM_CAPSULE:
        if p2 < -size[1]:
            n2 = p2 + size[1]
        elif p2 > size[1]:
            n2 = p2 - size[1]
        else:
            n2 = 0.0
        n0 = p0
        n1 = p1
        done = True
    elif t == GEOM_ELLIPSOID:
        if size[0] >= MINVAL and size[1] >= MINVAL and size[2] >= MINVAL:
            dst = p0 * p0 / (size[0] * size[0]) + p1 * p1 / (size[1] * size[1]) + p2 * p2 / (size[2] * size[2])
            if dst <= 1:
                done, n0, n1, n2 = _ellipsoid_inside(n0, n1, n2, p0, p1, p2, size[0], size[1], size[2])
            else:
                n0, n1, n2 = _ellipsoid_outside(p0, p1, p2, size[0], size[1], size[2])
                done = True
    elif t == GEOM_CYLINDER:
        if abs(p2) <= 0.95 * size[1]:
            dst1 = abs(size[1] - abs(p2))
            dst2 = abs(size[0] - math.sqrt(p0 * p0 + p1 * p1))
            if not (dst1 < 0.25 * dst2):
                n0 = p0
                n1 = p1
                n2 = 0.0
                done = True
    if not done:
        return False, c0, c1, c2
    n0, n1, n2, _ = normalize3(n0, n1, n2)
    return (
        True,
        mat[0] * n0 + mat[1] * n1 + mat[2] * n2,
        mat[3] * n0 + mat[4] * n1 + mat[5] * n2,
        mat[6] * n0 + mat[7] * n1 + mat[8] * n2,
    )


@njit(cache=True)
def _fixable(t):
    return t == GEOM_SPHERE or t == GEOM_CAPSULE or t == GEOM_ELLIPSOID or t == GEOM_CYLINDER


@njit(cache=True)
def fix_normal(m, d, w, k, g1, g2):
    """Replace contact k's normal by the analytic normal of a sphere, capsule, ellipsoid or cylinder geom
    (both: their difference) (mjc_fixNormal)."""
    ok1 = _fixable(m.geom_type[g1])
    ok2 = _fixable(m.geom_type[g2])
    if not ok1 and not ok2:
        return
    pr1 = pr2 = False
    a0 = a1 = a2 = b0 = b1 = b2 = 0.0
    if ok1:
        pr1, a0, a1, a2 = _fix_one(m, d, w, k, g1, 1.0)
    if ok2:
        pr2, b0, b1, b2 = _fix_one(m, d, w, k, g2, -1.0)
    nrm = d.scr_con_normal[w, k]
    if pr1 and pr2:
        nrm[0], nrm[1], nrm[2], _ = normalize3(a0 - b0, a1 - b1, a2 - b2)
    elif pr1:
        nrm[0], nrm[1], nrm[2] = a0, a1, a2
    elif pr2:
        nrm[0], nrm[1], nrm[2] = -b0, -b1, -b2


# ------------------------------------------------------------------------------------------------------------------
# mjc_Convex with mjDSBL_NATIVECCD


@njit(cache=True)
def _rotate_frame(f, o0, o1, o2, rot):
    """Rotate object frame f (pos, mat) by rot (9,) about point o, in place (mju_rotateFrame)."""
    x = f[F_MAT : F_MAT + 9]
    r00, r01, r02, r10, r11, r12, r20, r21, r22 = rot[0], rot[1], rot[2], rot[3], rot[4], rot[5], rot[6], rot[7], rot[8]
    for j in range(3):  # column j of rot * mat needs only column j of mat: in place
        x0, x1, x2 = x[j], x[3 + j], x[6 + j]
        x[j] = r00 * x0 + r01 * x1 + r02 * x2
        x[3 + j] = r10 * x0 + r11 * x1 + r12 * x2
        x[6 + j] = r20 * x0 + r21 * x1 + r22 * x2
    e0 = o0 - f[F_POS]
    e1 = o1 - f[F_POS + 1]
    e2 = o2 - f[F_POS + 2]
    v0 = r00 * e0 + r01 * e1 + r02 * e2
    v1 = r10 * e0 + r11 * e1 + r12 * e2
    v2 = r20 * e0 + r21 * e1 + r22 * e2
    v0 -= e0
    v1 -= e1
    v2 -= e2
    f[F_POS] -= v0
    f[F_POS + 1] -= v1
    f[F_POS + 2] -= v2


@njit(cache=True)
def _reset_pose(d, w, o, g):
    f = d.scr_ccd_f[w, o]
    for c in range(3):
        f[F_POS + c] = d.geom_xpos[w, g, c]
    for c in range(9):
        f[F_MAT + c] = d.geom_xmat[w, g, c]


@njit(cache=True)
def convex_libccd(m, d, w, g1, g2, margin):
    """Contacts of two convex geoms into d.scr_con_*[w, :n] through libccd's MPR with the perturbation search
    for up to 4 more contacts (mjc_Convex under mjDSBL_NATIVECCD); returns n."""
    init_obj(m, d, w, 0, g1, margin)
    init_obj(m, d, w, 1, g2, margin)
    ncon = libccd_wrapper(m, d, w, 0, margin)
    if ncon:
        fix_normal(m, d, w, 0, g1, g2)
    t1 = m.geom_type[g1]
    t2 = m.geom_type[g2]
    if (
        ncon != 1
        or int(m.opt[OPT_DISABLE]) & DSBL_MULTICCD
        or t1 == GEOM_ELLIPSOID
        or t1 == GEOM_SPHERE
        or t2 == GEOM_ELLIPSOID
        or t2 == GEOM_SPHERE
    ):
        return ncon
    fr = d.scr_simplex2[w, 1]
    for c in range(3):
        fr[c] = d.scr_con_normal[w, 0, c]
    for c in range(3, 9):
        fr[c] = 0.0
    _make_frame(fr)
    tolerance = 1e-3 * min(m.geom_rbound[g1], m.geom_rbound[g2])
    rot = d.scr_simplex2[w, 2]
    o0, o1, o2 = d.scr_con_pos[w, 0, 0], d.scr_con_pos[w, 0, 1], d.scr_con_pos[w, 0, 2]
    f1 = d.scr_ccd_f[w, 0]
    f2 = d.scr_ccd_f[w, 1]
    for axis in range(2):
        a = 3 + 3 * axis
        for sgn in range(2):
            angle = -1e-3 if sgn == 0 else 1e-3
            q0, q1, q2, q3 = axis_angle_quat(fr[a], fr[a + 1], fr[a + 2], angle)
            quat2mat(rot, q0, q1, q2, q3)
            _rotate_frame(f1, o0, o1, o2, rot)
            # g2 rotated the other way: rot transposed in place (rebuilt from the quaternion next pass)
            rot[1], rot[3] = rot[3], rot[1]
            rot[2], rot[6] = rot[6], rot[2]
            rot[5], rot[7] = rot[7], rot[5]
            _rotate_frame(f2, o0, o1, o2, rot)
            n = libccd_wrapper(m, d, w, ncon, margin)
            if n:
                fix_normal(m, d, w, ncon, g1, g2)
                distinct = True
                for i in range(ncon):
                    e0 = d.scr_con_pos[w, i, 0] - d.scr_con_pos[w, ncon, 0]
                    e1 = d.scr_con_pos[w, i, 1] - d.scr_con_pos[w, ncon, 1]
                    e2 = d.scr_con_pos[w, i, 2] - d.scr_con_pos[w, ncon, 2]
                    if math.sqrt(e0 * e0 + e1 * e1 + e2 * e2) <= tolerance:
                        distinct = False
                        break
                if distinct:
                    d.scr_con_dist[w, ncon] = d.scr_con_dist[w, 0]
                    ncon += 1
            _reset_pose(d, w, 0, g1)
            _reset_pose(d, w, 1, g2)
    return ncon


@njit(cache=True)
def _make_frame(fr):
    """mju_makeFrame on fr (9,): unit normal, tangent (0,1,0) or (0,0,1) made orthogonal, their cross product."""
    x0, x1, x2, _ = normalize3(fr[0], fr[1], fr[2])
    fr[0], fr[1], fr[2] = x0, x1, x2
    if math.sqrt(fr[3] * fr[3] + fr[4] * fr[4] + fr[5] * fr[5]) < 0.5:
        fr[3] = fr[4] = fr[5] = 0.0
        if fr[1] < 0.5 and fr[1] > -0.5:
            fr[4] = 1.0
        else:
            fr[5] = 1.0
    dt = fr[0] * fr[3] + fr[1] * fr[4] + fr[2] * fr[5]
    y0, y1, y2, _ = normalize3(fr[3] - fr[0] * dt, fr[4] - fr[1] * dt, fr[5] - fr[2] * dt)
    fr[3], fr[4], fr[5] = y0, y1, y2
    fr[6] = x1 * y2 - x2 * y1
    fr[7] = x2 * y0 - x0 * y2
    fr[8] = x0 * y1 - x1 * y0
