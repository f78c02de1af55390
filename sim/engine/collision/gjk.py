"""MuJoCo's native convex collision detection (engine_collision_gjk.c): GJK, EPA and multi-contact.

The two convex objects are the scratch objects 0 and 1 of sim.engine.collision.support.  Status (mjCCDStatus)
lives in per-world scratch: witness points d.scr_gjk_x1/x2[w] (MAXCONPAIR, 3), distances d.scr_gjk_dist[w]
(MAXCONPAIR,), integers d.scr_gjk_st[w] (ST_*).  Simplex / polytope vertices are rows (9,) = [v1 - v2, v1,
v2] with vertex indices (2,) (Vertex); polytope faces are integer rows [verts(3), adj(3), index] plus float
rows [v(3), dist2] (Face).  Divisions by zero follow IEEE semantics as in C (error_model='numpy').
Where the installed MuJoCo 3.17 differs from the C source we read (3.12), we follow 3.17 as measured: cylinder
caps and capsule edges in multicontact, margins (first GJK pass without them), witnesses projected on the
clipping face, face choice by the contact direction.
"""

import math
from sim.jit import njit

from sim.constants import GEOM_SPHERE, GEOM_CAPSULE, GEOM_CYLINDER, GEOM_BOX, GEOM_MESH, GEOM_HFIELD, MAXCONPAIR
from sim.engine.collision.support import (
    support,
    center,
    I_TYPE,
    I_VERT,
    I_DATA,
    I_MODE,
    F_MARGIN,
    F_SIZE,
    MODE_OWN,
    MODE_POINT,
    MODE_LINE,
)
from sim.constants import MINVAL  # mjMINVAL

MINVAL2 = MINVAL * MINVAL
MAXVAL2 = 1e10 * 1e10
MAX_LIMIT = 1.7976931348623157e308  # DBL_MAX
MINDIST2 = MINVAL2
MINDIST3 = MINVAL2
MINDIST4 = MINVAL2
MINEPATOL = MINVAL
FACE_TOL = 0.996
EDGE_TOL = 0.0888
# cylinder caps as 16-gons in multicontact
# The cap polygon's unit circle as MuJoCo 3.17 tabulates it (cylinderFace): 15 significant digits, not the
# correctly rounded cos/sin.  The difference (~1e-15) decides between the equal-area quadrilaterals of the clipped
# cap in polygonQuad, so these exact values are what makes a cylinder resting on a face get MuJoCo's 4 contacts.
_C1, _C2, _C3, _C4 = 0.923879532511287, 0.38268343236509, 0.707106781186548, 0.707106781186547
CYL_COS = (1.0, _C1, _C3, _C2, 0.0, -_C2, -_C4, -_C1, -1.0, -_C1, -_C3, -_C2, 0.0, _C2, _C4, _C1)
CYL_SIN = (0.0, _C2, _C4, _C1, 1.0, _C1, _C3, _C2, 0.0, -_C2, -_C4, -_C1, -1.0, -_C1, -_C3, -_C2)

# scr_gjk_st columns
ST_NX, ST_SEP, ST_NSIMPLEX, ST_GJKIT, ST_EPAST, ST_EPAIT, ST_MAXCON = 0, 1, 2, 3, 4, 5, 6
# scr_pt_n columns
PT_NV, PT_NF, PT_NMAP, PT_NEDGE, PT_MAXF = 0, 1, 2, 3, 4

EPA_P2_NONCONVEX, EPA_P3_BAD_NORMAL, EPA_P3_INVALID_V4, EPA_P3_INVALID_V5 = 2, 4, 5, 6
EPA_P3_MISSING_ORIGIN, EPA_P3_ORIGIN_ON_FACE, EPA_P4_MISSING_ORIGIN = 7, 8, 9

JIT = dict(cache=True, error_model="numpy")


# ---------------------------------------- small vector helpers --------------------------------------


@njit(**JIT)
def _dot(a0, a1, a2, b0, b1, b2):
    return a0 * b0 + a1 * b1 + a2 * b2


@njit(**JIT)
def _cross(a0, a1, a2, b0, b1, b2):
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


@njit(**JIT)
def _det3(v1, v2, v3):
    """v1 . (v2 x v3) of tuples (det3)."""
    return (
        v1[0] * (v2[1] * v3[2] - v2[2] * v3[1])
        + v1[1] * (v2[2] * v3[0] - v2[0] * v3[2])
        + v1[2] * (v2[0] * v3[1] - v2[1] * v3[0])
    )


@njit(**JIT)
def _normalize(v0, v1, v2):
    """mju_normalize3 on a tuple: (unit vector, norm)."""
    n = math.sqrt(v0 * v0 + v1 * v1 + v2 * v2)
    if n < MINVAL:
        return 1.0, 0.0, 0.0
    inv = 1 / n
    return v0 * inv, v1 * inv, v2 * inv


@njit(**JIT)
def _row(a, i):
    return a[i, 0], a[i, 1], a[i, 2]


@njit(**JIT)
def _vrow(V, i, off):
    return V[i, off], V[i, off + 1], V[i, off + 2]


@njit(**JIT)
def _set(a, i, x, y, z):
    a[i, 0] = x
    a[i, 1] = y
    a[i, 2] = z


# ---------------------------------------- support -------------------------------------------------


@njit(**JIT)
def vsupport(m, d, w, V, Vi, r, a0, a1, a2, b0, b1, b2):
    """Vertex r of V: S_1(a) - S_2(b) with margin/2 inflation (support in engine_collision_gjk.c)."""
    x, y, z = support(m, d, w, 0, a0, a1, a2)
    mg = d.scr_ccd_f[w, 0, F_MARGIN]
    if mg > 0:
        h = 0.5 * mg
        x += a0 * h
        y += a1 * h
        z += a2 * h
    V[r, 3] = x
    V[r, 4] = y
    V[r, 5] = z
    x, y, z = support(m, d, w, 1, b0, b1, b2)
    mg = d.scr_ccd_f[w, 1, F_MARGIN]
    if mg > 0:
        h = 0.5 * mg
        x += b0 * h
        y += b1 * h
        z += b2 * h
    V[r, 6] = x
    V[r, 7] = y
    V[r, 8] = z
    V[r, 0] = V[r, 3] - V[r, 6]
    V[r, 1] = V[r, 4] - V[r, 7]
    V[r, 2] = V[r, 5] - V[r, 8]
    Vi[r, 0] = d.scr_ccd_i[w, 0, I_VERT]
    Vi[r, 1] = d.scr_ccd_i[w, 1, I_VERT]


@njit(**JIT)
def _gjk_support(m, d, w, V, Vi, r, x0, x1, x2, xn):
    """Support along -x_k / |x_k| (gjkSupport)."""
    s = 1 / xn
    n0 = x0 * s
    n1 = x1 * s
    n2 = x2 * s
    vsupport(m, d, w, V, Vi, r, n0 * -1, n1 * -1, n2 * -1, n0, n1, n2)


@njit(**JIT)
def _epa_support(m, d, w, d0, d1, d2, dn):
    """Append the support vertex along d/|d| to the polytope, return its index (epaSupport)."""
    a0, a1, a2 = 1.0, 0.0, 0.0
    b0, b1, b2 = -1.0, 0.0, 0.0
    if dn > MINVAL:
        a0 = d0 / dn
        a1 = d1 / dn
        a2 = d2 / dn
        b0 = a0 * -1
        b1 = a1 * -1
        b2 = a2 * -1
    pn = d.scr_pt_n[w]
    n = pn[PT_NV]
    pn[PT_NV] += 1
    vsupport(m, d, w, d.scr_pt_v[w], d.scr_pt_vi[w], n, a0, a1, a2, b0, b1, b2)
    return n


@njit(**JIT)
def discrete_geoms(m, d, w):
    """True if both objects are polytopes without margin (discreteGeoms): meshes, boxes, height-field prisms, and
    spheres and capsules while ccd runs them as a point or a segment (MuJoCo 3.17 then drops GJK's tolerance too:
    measured on a small sphere against a 15,000-vertex mesh, where the tolerance stopped GJK two iterations early
    and the contact distance differed by 9e-10)."""
    if d.scr_ccd_f[w, 0, F_MARGIN] != 0 or d.scr_ccd_f[w, 1, F_MARGIN] != 0:
        return False
    t1 = d.scr_ccd_i[w, 0, I_TYPE]
    t2 = d.scr_ccd_i[w, 1, I_TYPE]
    p1 = d.scr_ccd_i[w, 0, I_MODE] != MODE_OWN
    p2 = d.scr_ccd_i[w, 1, I_MODE] != MODE_OWN
    return (p1 or t1 == GEOM_MESH or t1 == GEOM_BOX or t1 == GEOM_HFIELD) and (
        p2 or t2 == GEOM_MESH or t2 == GEOM_BOX or t2 == GEOM_HFIELD
    )


# ---------------------------------------- distance subalgorithm -----------------------------------


@njit(**JIT)
def _project_origin_plane(v1, v2, v3):
    """(fail, projection (3,)) of the origin on the plane v1 v2 v3 (projectOriginPlane)."""
    d21 = (v2[0] - v1[0], v2[1] - v1[1], v2[2] - v1[2])
    d31 = (v3[0] - v1[0], v3[1] - v1[1], v3[2] - v1[2])
    d32 = (v3[0] - v2[0], v3[1] - v2[1], v3[2] - v2[2])
    n = _cross(d32[0], d32[1], d32[2], d21[0], d21[1], d21[2])
    nv = _dot(n[0], n[1], n[2], v2[0], v2[1], v2[2])
    nn = _dot(n[0], n[1], n[2], n[0], n[1], n[2])
    if nn == 0:
        return True, 0.0, 0.0, 0.0
    if nv != 0 and nn > MINVAL:
        s = nv / nn
        return False, n[0] * s, n[1] * s, n[2] * s
    n = _cross(d21[0], d21[1], d21[2], d31[0], d31[1], d31[2])
    nv = _dot(n[0], n[1], n[2], v1[0], v1[1], v1[2])
    nn = _dot(n[0], n[1], n[2], n[0], n[1], n[2])
    if nn == 0:
        return True, 0.0, 0.0, 0.0
    if nv != 0 and nn > MINVAL:
        s = nv / nn
        return False, n[0] * s, n[1] * s, n[2] * s
    n = _cross(d31[0], d31[1], d31[2], d32[0], d32[1], d32[2])
    nv = _dot(n[0], n[1], n[2], v3[0], v3[1], v3[2])
    nn = _dot(n[0], n[1], n[2], n[0], n[1], n[2])
    s = nv / nn
    return False, n[0] * s, n[1] * s, n[2] * s


@njit(**JIT)
def _same_sign(a, b):
    if a > 0 and b > 0:
        return 1
    if a < 0 and b < 0:
        return -1
    return 0


@njit(**JIT)
def _s1d(s1, s2):
    """Barycentric coordinates (2,) of the point of segment s1 s2 closest to the origin (S1D)."""
    df = (s2[0] - s1[0], s2[1] - s1[1], s2[2] - s1[2])
    scl = -(_dot(s2[0], s2[1], s2[2], df[0], df[1], df[2]) / _dot(df[0], df[1], df[2], df[0], df[1], df[2]))
    p = (s2[0] + scl * df[0], s2[1] + scl * df[1], s2[2] + scl * df[2])
    mu_max = s1[0] - s2[0]
    index = 0
    mu = s1[1] - s2[1]
    if abs(mu) >= abs(mu_max):
        mu_max = mu
        index = 1
    mu = s1[2] - s2[2]
    if abs(mu) >= abs(mu_max):
        mu_max = mu
        index = 2
    c1 = p[index] - s2[index]
    c2 = s1[index] - p[index]
    if _same_sign(mu_max, c1) != 0 and _same_sign(mu_max, c2) != 0:
        return c1 / mu_max, c2 / mu_max
    return 0.0, 1.0


@njit(**JIT)
def _lc2(l0, l1, a, b):
    return l0 * a[0] + l1 * b[0], l0 * a[1] + l1 * b[1], l0 * a[2] + l1 * b[2]


@njit(**JIT)
def _lc3(l0, l1, l2, a, b, c):
    return (l0 * a[0] + l1 * b[0] + l2 * c[0], l0 * a[1] + l1 * b[1] + l2 * c[1], l0 * a[2] + l1 * b[2] + l2 * c[2])


@njit(**JIT)
def _tri_minor(s1, s2, s3):
    """Largest-magnitude 2x2 minor of the triangle's projection (value, kept axes x, y), shared by S2D and
    triAffineCoord."""
    m14 = s2[1] * s3[2] - s2[2] * s3[1] - s1[1] * s3[2] + s1[2] * s3[1] + s1[1] * s2[2] - s1[2] * s2[1]
    m24 = s2[0] * s3[2] - s2[2] * s3[0] - s1[0] * s3[2] + s1[2] * s3[0] + s1[0] * s2[2] - s1[2] * s2[0]
    m34 = s2[0] * s3[1] - s2[1] * s3[0] - s1[0] * s3[1] + s1[1] * s3[0] + s1[0] * s2[1] - s1[1] * s2[0]
    mu1 = abs(m14)
    mu2 = abs(m24)
    mu3 = abs(m34)
    if mu1 >= mu2 and mu1 >= mu3:
        mm, x, y = m14, 1, 2
    elif mu2 >= mu3:
        mm, x, y = m24, 0, 2
    else:
        mm, x, y = m34, 0, 1
    return mm, x, y


@njit(**JIT)
def _s2d(s1, s2, s3):
    """Barycentric coordinates (3,) of the point of triangle s1 s2 s3 closest to the origin (S2D)."""
    fail, p0, p1, p2 = _project_origin_plane(s1, s2, s3)
    if fail:
        a, b = _s1d(s1, s2)
        return a, b, 0.0
    mm, x, y = _tri_minor(s1, s2, s3)
    p = (p0, p1, p2)
    px = p[x]
    py = p[y]
    c31 = px * s2[y] + py * s3[x] + s2[x] * s3[y] - px * s3[y] - py * s2[x] - s3[x] * s2[y]
    c32 = px * s3[y] + py * s1[x] + s3[x] * s1[y] - px * s1[y] - py * s3[x] - s1[x] * s3[y]
    c33 = px * s1[y] + py * s2[x] + s1[x] * s2[y] - px * s2[y] - py * s1[x] - s2[x] * s1[y]
    comp1 = _same_sign(mm, c31)
    comp2 = _same_sign(mm, c32)
    comp3 = _same_sign(mm, c33)
    if comp1 != 0 and comp2 != 0 and comp3 != 0:
        return c31 / mm, c32 / mm, c33 / mm
    dmin = MAX_LIMIT
    r0 = 0.0
    r1 = 0.0
    r2 = 0.0
    if comp1 == 0:
        a, b = _s1d(s2, s3)
        x3 = _lc2(a, b, s2, s3)
        dd = _dot(x3[0], x3[1], x3[2], x3[0], x3[1], x3[2])
        r0, r1, r2 = 0.0, a, b
        dmin = dd
    if comp2 == 0:
        a, b = _s1d(s1, s3)
        x3 = _lc2(a, b, s1, s3)
        dd = _dot(x3[0], x3[1], x3[2], x3[0], x3[1], x3[2])
        if dd < dmin:
            r0, r1, r2 = a, 0.0, b
            dmin = dd
    if comp3 == 0:
        a, b = _s1d(s1, s2)
        x3 = _lc2(a, b, s1, s2)
        dd = _dot(x3[0], x3[1], x3[2], x3[0], x3[1], x3[2])
        if dd < dmin:
            r0, r1, r2 = a, b, 0.0
    return r0, r1, r2


@njit(**JIT)
def _s3d(s1, s2, s3, s4):
    """Barycentric coordinates (4,) of the point of tetrahedron s1..s4 closest to the origin (S3D)."""
    c41 = -_det3(s2, s3, s4)
    c42 = _det3(s1, s3, s4)
    c43 = -_det3(s1, s2, s4)
    c44 = _det3(s1, s2, s3)
    mdet = c41 + c42 + c43 + c44
    comp1 = _same_sign(mdet, c41)
    comp2 = _same_sign(mdet, c42)
    comp3 = _same_sign(mdet, c43)
    comp4 = _same_sign(mdet, c44)
    if comp1 != 0 and comp2 != 0 and comp3 != 0 and comp4 != 0:
        return c41 / mdet, c42 / mdet, c43 / mdet, c44 / mdet
    dmin = MAX_LIMIT
    r0 = 0.0
    r1 = 0.0
    r2 = 0.0
    r3 = 0.0
    if comp1 == 0:
        a, b, c = _s2d(s2, s3, s4)
        x3 = _lc3(a, b, c, s2, s3, s4)
        dd = _dot(x3[0], x3[1], x3[2], x3[0], x3[1], x3[2])
        r0, r1, r2, r3 = 0.0, a, b, c
        dmin = dd
    if comp2 == 0:
        a, b, c = _s2d(s1, s3, s4)
        x3 = _lc3(a, b, c, s1, s3, s4)
        dd = _dot(x3[0], x3[1], x3[2], x3[0], x3[1], x3[2])
        if dd < dmin:
            r0, r1, r2, r3 = a, 0.0, b, c
            dmin = dd
    if comp3 == 0:
        a, b, c = _s2d(s1, s2, s4)
        x3 = _lc3(a, b, c, s1, s2, s4)
        dd = _dot(x3[0], x3[1], x3[2], x3[0], x3[1], x3[2])
        if dd < dmin:
            r0, r1, r2, r3 = a, b, 0.0, c
            dmin = dd
    if comp4 == 0:
        a, b, c = _s2d(s1, s2, s3)
        x3 = _lc3(a, b, c, s1, s2, s3)
        dd = _dot(x3[0], x3[1], x3[2], x3[0], x3[1], x3[2])
        if dd < dmin:
            r0, r1, r2, r3 = a, b, c, 0.0
    return r0, r1, r2, r3


@njit(**JIT)
def _subdistance(n, S):
    """Barycentric coordinates (4,) of the closest point of the n-simplex S to the origin (subdistance)."""
    if n == 4:
        return _s3d(_row(S, 0), _row(S, 1), _row(S, 2), _row(S, 3))
    if n == 3:
        a, b, c = _s2d(_row(S, 0), _row(S, 1), _row(S, 2))
        return a, b, c, 0.0
    if n == 2:
        a, b = _s1d(_row(S, 0), _row(S, 1))
        return a, b, 0.0, 0.0
    return 1.0, 0.0, 0.0, 0.0


@njit(**JIT)
def _lincomb(lam, n, S, off):
    """sum_i lam[i] * S[i, off:off+3] for i < n (lincomb)."""
    if n == 1:
        return lam[0] * S[0, off], lam[0] * S[0, off + 1], lam[0] * S[0, off + 2]
    if n == 2:
        return _lc2(lam[0], lam[1], _vrow(S, 0, off), _vrow(S, 1, off))
    if n == 3:
        return _lc3(lam[0], lam[1], lam[2], _vrow(S, 0, off), _vrow(S, 1, off), _vrow(S, 2, off))
    if n == 4:
        a = _vrow(S, 0, off)
        b = _vrow(S, 1, off)
        c = _vrow(S, 2, off)
        e = _vrow(S, 3, off)
        return (
            lam[0] * a[0] + lam[1] * b[0] + lam[2] * c[0] + lam[3] * e[0],
            lam[0] * a[1] + lam[1] * b[1] + lam[2] * c[1] + lam[3] * e[1],
            lam[0] * a[2] + lam[1] * b[2] + lam[2] * c[2] + lam[3] * e[2],
        )
    return 0.0, 0.0, 0.0


# ---------------------------------------- GJK -----------------------------------------------------


@njit(**JIT)
def _signed_distance(nrm, r, S, a, b, c):
    """Signed distance of face (a, b, c) of S to the origin with its normal into nrm[r] (signedDistance)."""
    d1 = (S[c, 0] - S[a, 0], S[c, 1] - S[a, 1], S[c, 2] - S[a, 2])
    d2 = (S[b, 0] - S[a, 0], S[b, 1] - S[a, 1], S[b, 2] - S[a, 2])
    n = _cross(d1[0], d1[1], d1[2], d2[0], d2[1], d2[2])
    n2 = _dot(n[0], n[1], n[2], n[0], n[1], n[2])
    if n2 > MINVAL2 and n2 < MAXVAL2:
        s = 1 / math.sqrt(n2)
        _set(nrm, r, n[0] * s, n[1] * s, n[2] * s)
        return _dot(nrm[r, 0], nrm[r, 1], nrm[r, 2], S[a, 0], S[a, 1], S[a, 2])
    _set(nrm, r, n[0], n[1], n[2])
    return MAX_LIMIT


@njit(**JIT)
def _gjk_intersect(m, d, w):
    """1 if the objects intersect, 0 if not, -1 if inconclusive, from the GJK tetrahedron (gjkIntersect)."""
    st = d.scr_gjk_st[w]
    S0 = d.scr_simplex[w]
    S0i = d.scr_simplex_i[w]
    S = d.scr_simplex2[w]
    Si = d.scr_simplex2_i[w]
    nrm = d.scr_gjk_nrm[w]
    s = d.scr_gjk_s[w]
    for i in range(4):
        for j in range(9):
            S[i, j] = S0[i, j]
        Si[i, 0] = S0i[i, 0]
        Si[i, 1] = S0i[i, 1]
        s[i] = i
    dist = d.scr_gjk_tmp[w]
    k = st[ST_GJKIT]
    kmax = st[ST_MAXCON + 1]
    while k < kmax:
        dist[0] = _signed_distance(nrm, 0, S, s[2], s[1], s[3])
        dist[1] = _signed_distance(nrm, 1, S, s[0], s[2], s[3])
        dist[2] = _signed_distance(nrm, 2, S, s[1], s[0], s[3])
        dist[3] = _signed_distance(nrm, 3, S, s[0], s[1], s[2])
        if dist[3] == 0 or dist[2] == 0 or dist[1] == 0 or dist[0] == 0:
            st[ST_GJKIT] = k
            return -1
        i = 0 if dist[0] < dist[1] else 1
        j = 2 if dist[2] < dist[3] else 3
        index = i if dist[i] < dist[j] else j
        if dist[index] > 0:
            st[ST_NSIMPLEX] = 4
            for r in range(4):
                for c in range(9):
                    S0[r, c] = S[s[r], c]
                S0i[r, 0] = Si[s[r], 0]
                S0i[r, 1] = Si[s[r], 1]
            st[ST_GJKIT] = k
            return 1
        n0 = nrm[index, 0]
        n1 = nrm[index, 1]
        n2 = nrm[index, 2]
        r = s[index]
        vsupport(m, d, w, S, Si, r, n0, n1, n2, -n0, -n1, -n2)
        if _dot(n0, n1, n2, S[r, 0], S[r, 1], S[r, 2]) < 0:
            st[ST_NSIMPLEX] = 0
            st[ST_GJKIT] = k
            return 0
        i = (index + 1) & 3
        j = (index + 2) & 3
        sw = s[i]
        s[i] = s[j]
        s[j] = sw
        k += 1
    st[ST_GJKIT] = k
    return -1


@njit(**JIT)
def gjk(m, d, w, tol, kmax, cutoff):
    """GJK distance / intersection between objects 0 and 1, starting from x1[0] - x2[0] (gjk)."""
    st = d.scr_gjk_st[w]
    S = d.scr_simplex[w]
    Si = d.scr_simplex_i[w]
    X1 = d.scr_gjk_x1[w]
    X2 = d.scr_gjk_x2[w]
    dist = d.scr_gjk_dist[w]
    lam = d.scr_gjk_lam[w]
    get_dist = cutoff > 0
    backup = not get_dist
    n = 0
    k = 0
    tol2 = tol * tol
    st[ST_SEP] = 0
    st[ST_MAXCON + 1] = kmax
    disc = discrete_geoms(m, d, w)
    eps = 0.0 if disc else 0.5 * tol2
    min_norm = MINVAL if disc else tol
    x0 = X1[0, 0] - X2[0, 0]
    x1 = X1[0, 1] - X2[0, 1]
    x2 = X1[0, 2] - X2[0, 2]
    xn = math.sqrt(_dot(x0, x1, x2, x0, x1, x2))
    xnp = 0.0
    while k < kmax:
        if xn < min_norm or abs(xnp - xn) < MINVAL:
            break
        _gjk_support(m, d, w, S, Si, n, x0, x1, x2, xn)
        s0 = S[n, 0]
        s1 = S[n, 1]
        s2 = S[n, 2]
        if _dot(x0, x1, x2, x0 - s0, x1 - s1, x2 - s2) < eps:
            break
        lower = _dot(x0, x1, x2, s0, s1, s2)
        if not get_dist:
            if lower > 0:
                st[ST_SEP] = 1
                st[ST_GJKIT] = k
                st[ST_NSIMPLEX] = 0
                st[ST_NX] = 0
                dist[0] = MAX_LIMIT
                return
        elif cutoff < MAX_LIMIT:
            if lower > 0 and lower >= cutoff * xn:
                st[ST_SEP] = 1
                st[ST_GJKIT] = k
                st[ST_NSIMPLEX] = 0
                st[ST_NX] = 0
                dist[0] = MAX_LIMIT
                return
        if n == 3 and backup:
            st[ST_GJKIT] = k
            ret = _gjk_intersect(m, d, w)
            if ret != -1:
                st[ST_NX] = 0
                st[ST_SEP] = 1 if ret == 0 else 0
                dist[0] = 0.0 if ret > 0 else MAX_LIMIT
                return
            k = st[ST_GJKIT]
            backup = False
        l0, l1, l2, l3 = _subdistance(n + 1, S)
        lam[0] = l0
        lam[1] = l1
        lam[2] = l2
        lam[3] = l3
        n = 0
        for i in range(4):
            if lam[i] == 0:
                continue
            if n != i:
                for c in range(9):
                    S[n, c] = S[i, c]
                Si[n, 0] = Si[i, 0]
                Si[n, 1] = Si[i, 1]
            lam[n] = lam[i]
            n += 1
        if n < 1:
            st[ST_GJKIT] = k
            st[ST_NSIMPLEX] = 0
            st[ST_NX] = 0
            dist[0] = MAX_LIMIT
            st[ST_SEP] = 1
            return
        x0, x1, x2 = _lincomb(lam, n, S, 0)
        xnp = xn
        xn = math.sqrt(_dot(x0, x1, x2, x0, x1, x2))
        if n == 4:
            break
        k += 1
    if n > 0:
        a0, a1, a2 = _lincomb(lam, n, S, 3)
        _set(X1, 0, a0, a1, a2)
        a0, a1, a2 = _lincomb(lam, n, S, 6)
        _set(X2, 0, a0, a1, a2)
    T = d.scr_simplex2[w]
    Ti = d.scr_simplex2_i[w]
    _gjk_support(m, d, w, T, Ti, 0, x0, x1, x2, xn)
    if _dot(x0, x1, x2, T[0, 0], T[0, 1], T[0, 2]) > 0:
        st[ST_SEP] = 1
    st[ST_NX] = 1
    st[ST_GJKIT] = k
    st[ST_NSIMPLEX] = n
    dist[0] = 0.0 if (n == 4 and st[ST_SEP] == 0) else xn


# ---------------------------------------- EPA polytope --------------------------------------------


@njit(**JIT)
def _insert_vertex(d, w, V0, V0i, r):
    """Copy vertex r of (V0, V0i) into the polytope, return its index (insertVertex)."""
    pn = d.scr_pt_n[w]
    n = pn[PT_NV]
    pn[PT_NV] += 1
    V = d.scr_pt_v[w]
    Vi = d.scr_pt_vi[w]
    for c in range(9):
        V[n, c] = V0[r, c]
    Vi[n, 0] = V0i[r, 0]
    Vi[n, 1] = V0i[r, 1]
    return n


@njit(**JIT)
def _attach_face(d, w, v1, v2, v3, a1, a2, a3):
    """Append face (v1, v2, v3) with adjacent faces; return its squared distance to the origin (attachFace)."""
    pn = d.scr_pt_n[w]
    f = pn[PT_NF]
    pn[PT_NF] += 1
    FI = d.scr_pt_fi[w]
    FF = d.scr_pt_ff[w]
    V = d.scr_pt_v[w]
    FI[f, 0] = v1
    FI[f, 1] = v2
    FI[f, 2] = v3
    FI[f, 3] = a1
    FI[f, 4] = a2
    FI[f, 5] = a3
    fail, p0, p1, p2 = _project_origin_plane(_row(V, v3), _row(V, v2), _row(V, v1))
    if fail:
        return 0.0
    c = d.scr_pt_c[w]
    if _dot(p0, p1, p2, V[v1, 0] - c[0], V[v1, 1] - c[1], V[v1, 2] - c[2]) < 0:
        p0 = p0 * -1
        p1 = p1 * -1
        p2 = p2 * -1
    FF[f, 0] = p0
    FF[f, 1] = p1
    FF[f, 2] = p2
    FF[f, 3] = _dot(p0, p1, p2, p0, p1, p2)
    FI[f, 6] = -1
    return FF[f, 3]


@njit(**JIT)
def _replace_simplex3(d, w, v1, v2, v3):
    """Reset the polytope to the GJK simplex of polytope vertices v1, v2, v3 (replaceSimplex3)."""
    st = d.scr_gjk_st[w]
    S = d.scr_simplex[w]
    Si = d.scr_simplex_i[w]
    V = d.scr_pt_v[w]
    Vi = d.scr_pt_vi[w]
    st[ST_NSIMPLEX] = 3
    vs = (v1, v2, v3)
    for r in range(3):
        for c in range(9):
            S[r, c] = V[vs[r], c]
        Si[r, 0] = Vi[vs[r], 0]
        Si[r, 1] = Vi[vs[r], 1]
    pn = d.scr_pt_n[w]
    pn[PT_NF] = 0
    pn[PT_NV] = 0
    pn[PT_NMAP] = 0


@njit(**JIT)
def _same_side(p0, p1, p2, p3):
    d1 = (p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2])
    d2 = (p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2])
    n = _cross(d1[0], d1[1], d1[2], d2[0], d2[1], d2[2])
    dot1 = _dot(n[0], n[1], n[2], p3[0] - p0[0], p3[1] - p0[1], p3[2] - p0[2])
    dot2 = _dot(n[0], n[1], n[2], p0[0] * -1, p0[1] * -1, p0[2] * -1)
    if dot1 > 0 and dot2 > 0:
        return True
    if dot1 < 0 and dot2 < 0:
        return True
    return False


@njit(**JIT)
def _test_tetra(p0, p1, p2, p3):
    """True if the origin is inside tetrahedron p0..p3 (testTetra)."""
    return (
        _same_side(p0, p1, p2, p3)
        and _same_side(p1, p2, p3, p0)
        and _same_side(p2, p3, p0, p1)
        and _same_side(p3, p0, p1, p2)
    )


@njit(**JIT)
def _ray_triangle(v1, v2, v3, v4, v5):
    d12 = (v2[0] - v1[0], v2[1] - v1[1], v2[2] - v1[2])
    d13 = (v3[0] - v1[0], v3[1] - v1[1], v3[2] - v1[2])
    d14 = (v4[0] - v1[0], v4[1] - v1[1], v4[2] - v1[2])
    d15 = (v5[0] - v1[0], v5[1] - v1[1], v5[2] - v1[2])
    vol1 = _det3(d13, d14, d12)
    vol2 = _det3(d14, d15, d12)
    vol3 = _det3(d15, d13, d12)
    if vol1 >= 0 and vol2 >= 0 and vol3 >= 0:
        return 1
    if vol1 <= 0 and vol2 <= 0 and vol3 <= 0:
        return -1
    return 0


@njit(**JIT)
def _tri_affine(v1, v2, v3, p):
    """Affine coordinates (3,) of p on triangle v1 v2 v3 (triAffineCoord)."""
    mm, x, y = _tri_minor(v1, v2, v3)
    c31 = p[x] * v2[y] + p[y] * v3[x] + v2[x] * v3[y] - p[x] * v3[y] - p[y] * v2[x] - v3[x] * v2[y]
    c32 = p[x] * v3[y] + p[y] * v1[x] + v3[x] * v1[y] - p[x] * v1[y] - p[y] * v3[x] - v1[x] * v3[y]
    c33 = p[x] * v1[y] + p[y] * v2[x] + v1[x] * v2[y] - p[x] * v2[y] - p[y] * v1[x] - v2[x] * v1[y]
    return c31 / mm, c32 / mm, c33 / mm


@njit(**JIT)
def _tri_point_intersect(v1, v2, v3, p):
    l0, l1, l2 = _tri_affine(v1, v2, v3, p)
    if l0 < 0 or l1 < 0 or l2 < 0:
        return False
    pr = (
        v1[0] * l0 + v2[0] * l1 + v3[0] * l2,
        v1[1] * l0 + v2[1] * l1 + v3[1] * l2,
        v1[2] * l0 + v2[2] * l1 + v3[2] * l2,
    )
    df = (pr[0] - p[0], pr[1] - p[1], pr[2] - p[2])
    return math.sqrt(_dot(df[0], df[1], df[2], df[0], df[1], df[2])) < MINVAL


@njit(**JIT)
def _fill_map(d, w, nf):
    FI = d.scr_pt_fi[w]
    mp = d.scr_pt_map[w]
    for i in range(nf):
        mp[i] = i
        FI[i, 6] = i
    d.scr_pt_n[w, PT_NMAP] = nf


@njit(**JIT)
def _polytope3(m, d, w):
    """Initial hexahedron from a GJK triangle; 0 on success (polytope3)."""
    S = d.scr_simplex[w]
    Si = d.scr_simplex_i[w]
    v1 = _row(S, 0)
    v2 = _row(S, 1)
    v3 = _row(S, 2)
    c = d.scr_pt_c[w]
    third = 1.0 / 3.0
    c[0] = (v1[0] + v2[0] + v3[0]) * third
    c[1] = (v1[1] + v2[1] + v3[1]) * third
    c[2] = (v1[2] + v2[2] + v3[2]) * third
    n = _cross(v2[0] - v1[0], v2[1] - v1[1], v2[2] - v1[2], v3[0] - v1[0], v3[1] - v1[1], v3[2] - v1[2])
    nn = math.sqrt(_dot(n[0], n[1], n[2], n[0], n[1], n[2]))
    if nn < MINVAL:
        return EPA_P3_BAD_NORMAL
    v1i = _insert_vertex(d, w, S, Si, 0)
    v2i = _insert_vertex(d, w, S, Si, 1)
    v3i = _insert_vertex(d, w, S, Si, 2)
    v5i = _epa_support(m, d, w, n[0] * -1, n[1] * -1, n[2] * -1, nn)
    v4i = _epa_support(m, d, w, n[0], n[1], n[2], nn)
    V = d.scr_pt_v[w]
    v4 = _row(V, v4i)
    v5 = _row(V, v5i)
    if _tri_point_intersect(v1, v2, v3, v4):
        return EPA_P3_INVALID_V4
    if _tri_point_intersect(v1, v2, v3, v5):
        return EPA_P3_INVALID_V5
    if d.scr_gjk_dist[w, 0] > 10 * MINVAL and not _test_tetra(v1, v2, v3, v4) and not _test_tetra(v1, v2, v3, v5):
        return EPA_P3_MISSING_ORIGIN
    if _attach_face(d, w, v4i, v1i, v2i, 1, 3, 2) < MINDIST3:
        return EPA_P3_ORIGIN_ON_FACE
    if _attach_face(d, w, v4i, v3i, v1i, 2, 4, 0) < MINDIST3:
        return EPA_P3_ORIGIN_ON_FACE
    if _attach_face(d, w, v4i, v2i, v3i, 0, 5, 1) < MINDIST3:
        return EPA_P3_ORIGIN_ON_FACE
    if _attach_face(d, w, v5i, v2i, v1i, 5, 0, 4) < MINDIST3:
        return EPA_P3_ORIGIN_ON_FACE
    if _attach_face(d, w, v5i, v1i, v3i, 3, 1, 5) < MINDIST3:
        return EPA_P3_ORIGIN_ON_FACE
    if _attach_face(d, w, v5i, v3i, v2i, 4, 2, 3) < MINDIST3:
        return EPA_P3_ORIGIN_ON_FACE
    _fill_map(d, w, 6)
    return 0


@njit(**JIT)
def _polytope2(m, d, w):
    """Initial hexahedron from a GJK segment; 0 on success (polytope2)."""
    S = d.scr_simplex[w]
    Si = d.scr_simplex_i[w]
    v1 = _row(S, 0)
    v2 = _row(S, 1)
    c = d.scr_pt_c[w]
    c[0] = (v1[0] + v2[0]) * 0.5
    c[1] = (v1[1] + v2[1]) * 0.5
    c[2] = (v1[2] + v2[2]) * 0.5
    df = (v2[0] - v1[0], v2[1] - v1[1], v2[2] - v1[2])
    value = MAX_LIMIT
    index = 0
    for i in range(3):
        if abs(df[i]) < value:
            value = abs(df[i])
            index = i
    e0 = 1.0 if index == 0 else 0.0
    e1 = 1.0 if index == 1 else 0.0
    e2 = 1.0 if index == 2 else 0.0
    d1 = _cross(e0, e1, e2, df[0], df[1], df[2])
    # rotation by 120 degrees about df (rotmat)
    nrm = math.sqrt(_dot(df[0], df[1], df[2], df[0], df[1], df[2]))
    u1 = df[0] / nrm
    u2 = df[1] / nrm
    u3 = df[2] / nrm
    sn = 0.86602540378
    cs = -0.5
    R0 = cs + u1 * u1 * (1 - cs)
    R1 = u1 * u2 * (1 - cs) - u3 * sn
    R2 = u1 * u3 * (1 - cs) + u2 * sn
    R3 = u2 * u1 * (1 - cs) + u3 * sn
    R4 = cs + u2 * u2 * (1 - cs)
    R5 = u2 * u3 * (1 - cs) - u1 * sn
    R6 = u1 * u3 * (1 - cs) - u2 * sn
    R7 = u2 * u3 * (1 - cs) + u1 * sn
    R8 = cs + u3 * u3 * (1 - cs)
    d2 = (
        R0 * d1[0] + R1 * d1[1] + R2 * d1[2],
        R3 * d1[0] + R4 * d1[1] + R5 * d1[2],
        R6 * d1[0] + R7 * d1[1] + R8 * d1[2],
    )
    d3 = (
        R0 * d2[0] + R1 * d2[1] + R2 * d2[2],
        R3 * d2[0] + R4 * d2[1] + R5 * d2[2],
        R6 * d2[0] + R7 * d2[1] + R8 * d2[2],
    )
    v1i = _insert_vertex(d, w, S, Si, 0)
    v2i = _insert_vertex(d, w, S, Si, 1)
    v3i = _epa_support(m, d, w, d1[0], d1[1], d1[2], math.sqrt(_dot(d1[0], d1[1], d1[2], d1[0], d1[1], d1[2])))
    v4i = _epa_support(m, d, w, d2[0], d2[1], d2[2], math.sqrt(_dot(d2[0], d2[1], d2[2], d2[0], d2[1], d2[2])))
    v5i = _epa_support(m, d, w, d3[0], d3[1], d3[2], math.sqrt(_dot(d3[0], d3[1], d3[2], d3[0], d3[1], d3[2])))
    V = d.scr_pt_v[w]
    v3 = _row(V, v3i)
    v4 = _row(V, v4i)
    v5 = _row(V, v5i)
    if _attach_face(d, w, v1i, v3i, v4i, 1, 3, 2) < MINDIST2:
        _replace_simplex3(d, w, v1i, v3i, v4i)
        return _polytope3(m, d, w)
    if _attach_face(d, w, v1i, v5i, v3i, 2, 4, 0) < MINDIST2:
        _replace_simplex3(d, w, v1i, v5i, v3i)
        return _polytope3(m, d, w)
    if _attach_face(d, w, v1i, v4i, v5i, 0, 5, 1) < MINDIST2:
        _replace_simplex3(d, w, v1i, v4i, v5i)
        return _polytope3(m, d, w)
    if _attach_face(d, w, v2i, v4i, v3i, 5, 0, 4) < MINDIST2:
        _replace_simplex3(d, w, v2i, v4i, v3i)
        return _polytope3(m, d, w)
    if _attach_face(d, w, v2i, v3i, v5i, 3, 1, 5) < MINDIST2:
        _replace_simplex3(d, w, v2i, v3i, v5i)
        return _polytope3(m, d, w)
    if _attach_face(d, w, v2i, v5i, v4i, 4, 2, 3) < MINDIST2:
        _replace_simplex3(d, w, v2i, v5i, v4i)
        return _polytope3(m, d, w)
    if _ray_triangle(v1, v2, v3, v4, v5) == 0:
        return EPA_P2_NONCONVEX
    _fill_map(d, w, 6)
    return 0


@njit(**JIT)
def _polytope4(m, d, w):
    """Initial polytope from a GJK tetrahedron; 0 on success (polytope4)."""
    S = d.scr_simplex[w]
    Si = d.scr_simplex_i[w]
    v1 = _insert_vertex(d, w, S, Si, 0)
    v2 = _insert_vertex(d, w, S, Si, 1)
    v3 = _insert_vertex(d, w, S, Si, 2)
    v4 = _insert_vertex(d, w, S, Si, 3)
    V = d.scr_pt_v[w]
    c = d.scr_pt_c[w]
    for k in range(3):
        c[k] = (V[v1, k] + V[v2, k] + V[v3, k] + V[v4, k]) * 0.25
    if _attach_face(d, w, v1, v2, v3, 1, 3, 2) < MINDIST4:
        _replace_simplex3(d, w, v1, v2, v3)
        return _polytope3(m, d, w)
    if _attach_face(d, w, v1, v4, v2, 2, 3, 0) < MINDIST4:
        _replace_simplex3(d, w, v1, v4, v2)
        return _polytope3(m, d, w)
    if _attach_face(d, w, v1, v3, v4, 0, 3, 1) < MINDIST4:
        _replace_simplex3(d, w, v1, v3, v4)
        return _polytope3(m, d, w)
    if _attach_face(d, w, v4, v3, v2, 2, 0, 1) < MINDIST4:
        _replace_simplex3(d, w, v4, v3, v2)
        return _polytope3(m, d, w)
    if not _test_tetra(_row(V, v1), _row(V, v2), _row(V, v3), _row(V, v4)):
        return EPA_P4_MISSING_ORIGIN
    _fill_map(d, w, 4)
    return 0


@njit(**JIT)
def _delete_face(d, w, f):
    """Remove face f from the map and mark it deleted (deleteFace)."""
    FI = d.scr_pt_fi[w]
    mp = d.scr_pt_map[w]
    pn = d.scr_pt_n[w]
    idx = FI[f, 6]
    if idx >= 0:
        pn[PT_NMAP] -= 1
        mp[idx] = mp[pn[PT_NMAP]]
        FI[mp[idx], 6] = idx
    FI[f, 6] = -2


@njit(**JIT)
def _get_edge(FI, f, vertex):
    if FI[f, 0] == vertex:
        return 0
    if FI[f, 1] == vertex:
        return 1
    return 2


@njit(**JIT)
def _add_edge(d, w, f, e):
    pn = d.scr_pt_n[w]
    h = d.scr_pt_hzn[w]
    h[pn[PT_NEDGE], 0] = f
    h[pn[PT_NEDGE], 1] = e
    pn[PT_NEDGE] += 1


@njit(**JIT)
def _visible(d, w, f, wv):
    FF = d.scr_pt_ff[w]
    V = d.scr_pt_v[w]
    return _dot(FF[f, 0], FF[f, 1], FF[f, 2], V[wv, 0], V[wv, 1], V[wv, 2]) - FF[f, 3] > MINVAL


@njit(**JIT)
def _horizon_rec(d, w, f, e, wv):
    """Depth-first horizon search from face f entered through edge e (horizonRec, iterative); visible?"""
    if not _visible(d, w, f, wv):
        return False
    FI = d.scr_pt_fi[w]
    stk = d.scr_pt_stk[w]
    _delete_face(d, w, f)
    sp = 0
    stk[0, 0] = f
    stk[0, 1] = e
    stk[0, 2] = 1
    sp = 1
    while sp > 0:
        t = sp - 1
        cf = stk[t, 0]
        ce = stk[t, 1]
        k = stk[t, 2]
        if k == 3:
            sp -= 1
            continue
        stk[t, 2] = k + 1
        i = (ce + k) % 3
        adj = FI[cf, 3 + i]
        if FI[adj, 6] > -2:
            adj_edge = _get_edge(FI, adj, FI[cf, (i + 1) % 3])
            if _visible(d, w, adj, wv):
                _delete_face(d, w, adj)
                stk[sp, 0] = adj
                stk[sp, 1] = adj_edge
                stk[sp, 2] = 1
                sp += 1
            else:
                _add_edge(d, w, adj, adj_edge)
    return True


@njit(**JIT)
def _horizon(d, w, f, wv):
    """Horizon of the faces visible from vertex wv, starting at face f (horizon)."""
    FI = d.scr_pt_fi[w]
    _delete_face(d, w, f)
    a = FI[f, 3]
    e = _get_edge(FI, a, FI[f, 1])
    if not _horizon_rec(d, w, a, e, wv):
        _add_edge(d, w, a, e)
    a = FI[f, 4]
    e = _get_edge(FI, a, FI[f, 2])
    if FI[a, 6] > -2 and not _horizon_rec(d, w, a, e, wv):
        _add_edge(d, w, a, e)
    a = FI[f, 5]
    e = _get_edge(FI, a, FI[f, 0])
    if FI[a, 6] > -2 and not _horizon_rec(d, w, a, e, wv):
        _add_edge(d, w, a, e)


@njit(**JIT)
def _store_map(d, w, f, dist2, lower2, upper2):
    if dist2 >= lower2 and dist2 <= upper2:
        pn = d.scr_pt_n[w]
        i = pn[PT_NMAP]
        pn[PT_NMAP] += 1
        d.scr_pt_map[w, i] = f
        d.scr_pt_fi[w, f, 6] = i


@njit(**JIT)
def epa(m, d, w, tol, max_iterations):
    """Expand the polytope towards the penetration depth; return the closest face or -1 (epa)."""
    st = d.scr_gjk_st[w]
    pn = d.scr_pt_n[w]
    FI = d.scr_pt_fi[w]
    FF = d.scr_pt_ff[w]
    V = d.scr_pt_v[w]
    Vi = d.scr_pt_vi[w]
    mp = d.scr_pt_map[w]
    upper = MAX_LIMIT
    upper2 = MAX_LIMIT
    face = -1
    disc = discrete_geoms(m, d, w)
    tolerance = MINEPATOL if disc else tol
    kmax = max_iterations if max_iterations < 1000 else 1000
    k = 0
    while k < kmax:
        pface = face
        lower2 = MAX_LIMIT
        for i in range(pn[PT_NMAP]):
            if FF[mp[i], 3] < lower2:
                face = mp[i]
                lower2 = FF[face, 3]
        if lower2 > upper2 or face < 0:
            face = pface
            break
        if lower2 <= 0:
            break
        lower = math.sqrt(lower2)
        wi = _epa_support(m, d, w, FF[face, 0], FF[face, 1], FF[face, 2], lower)
        upper_k = _dot(FF[face, 0], FF[face, 1], FF[face, 2], V[wi, 0], V[wi, 1], V[wi, 2]) / lower
        if upper_k < upper:
            upper = upper_k
            upper2 = upper * upper
        if upper - lower < tolerance:
            if k == 0 and upper < lower - 1e-10:
                face = -1
            break
        if disc:
            nv = pn[PT_NV] - 1
            i = 0
            while i < nv:
                if Vi[wi, 0] == Vi[i, 0] and Vi[wi, 1] == Vi[i, 1]:
                    break
                i += 1
            if i != nv:
                break
        _horizon(d, w, face, wi)
        if pn[PT_NEDGE] < 3:
            face = -1
            break
        nfaces = pn[PT_NF]
        nedges = pn[PT_NEDGE]
        if nedges > pn[PT_MAXF] - pn[PT_NF]:
            break
        h = d.scr_pt_hzn[w]
        hf = h[0, 0]
        he = h[0, 1]
        v1 = FI[hf, he]
        v2 = FI[hf, (he + 1) % 3]
        FI[hf, 3 + he] = nfaces
        dist2 = _attach_face(d, w, wi, v2, v1, nfaces + nedges - 1, hf, nfaces + 1)
        if dist2 == 0:
            face = -1
            break
        _store_map(d, w, pn[PT_NF] - 1, dist2, lower2, upper2)
        for i in range(1, nedges):
            cur = nfaces + i
            nxt = nfaces + (i + 1) % nedges
            hf = h[i, 0]
            he = h[i, 1]
            v1 = FI[hf, he]
            v2 = FI[hf, (he + 1) % 3]
            FI[hf, 3 + he] = cur
            dist2 = _attach_face(d, w, wi, v2, v1, cur - 1, hf, nxt)
            if dist2 == 0:
                face = -1
                break
            _store_map(d, w, pn[PT_NF] - 1, dist2, lower2, upper2)
        pn[PT_NEDGE] = 0
        if pn[PT_NMAP] == 0 or face < 0:
            break
        k += 1
    st[ST_EPAIT] = k
    if face >= 0:
        a = FI[face, 0]
        b = FI[face, 1]
        c = FI[face, 2]
        l0, l1, l2 = _tri_affine(_row(V, a), _row(V, b), _row(V, c), _row(FF, face))
        x = _lc3(l0, l1, l2, _vrow(V, a, 3), _vrow(V, b, 3), _vrow(V, c, 3))
        _set(d.scr_gjk_x1[w], 0, x[0], x[1], x[2])
        x = _lc3(l0, l1, l2, _vrow(V, a, 6), _vrow(V, b, 6), _vrow(V, c, 6))
        _set(d.scr_gjk_x2[w], 0, x[0], x[1], x[2])
        d.scr_gjk_dist[w, 0] = -math.sqrt(FF[face, 3])
        st[ST_NX] = 1
    else:
        st[ST_NX] = 0
        d.scr_gjk_dist[w, 0] = 0.0
    return face


# ---------------------------------------- multi-contact -------------------------------------------


@njit(**JIT)
def _area4(P, a, b, c, e):
    """Area of the quadrilateral a b c e of polygon rows P: half the norm of its diagonals' cross product (area4)."""
    g = _cross(
        P[a, 0] - P[c, 0], P[a, 1] - P[c, 1], P[a, 2] - P[c, 2], P[b, 0] - P[e, 0], P[b, 1] - P[e, 1], P[b, 2] - P[e, 2]
    )
    return 0.5 * math.sqrt(_dot(g[0], g[1], g[2], g[0], g[1], g[2]))


@njit(**JIT)
def _nxt(nvert, i):
    return 0 if i == nvert - 1 else i + 1


@njit(**JIT)
def _polygon_quad(P, nvert):
    """Indices (4,) of a maximum-area quadrilateral of polygon P (polygonQuad)."""
    a, b, c, e = 0, 1, 2, 3
    r0, r1, r2, r3 = a, b, c, e
    best = _area4(P, a, b, c, e)
    while a < nvert:
        while True:
            mn = _area4(P, a, b, c, _nxt(nvert, e))
            if mn <= best:
                break
            best = mn
            e = _nxt(nvert, e)
            r0, r1, r2, r3 = a, b, c, e
            while True:
                mn = _area4(P, a, b, _nxt(nvert, c), e)
                if mn <= best:
                    break
                best = mn
                c = _nxt(nvert, c)
                r0, r1, r2, r3 = a, b, c, e
            while True:
                mn = _area4(P, a, _nxt(nvert, b), c, e)
                if mn <= best:
                    break
                best = mn
                b = _nxt(nvert, b)
                r0, r1, r2, r3 = a, b, c, e
        if b == a:
            b = _nxt(nvert, b)
            if c == b:
                c = _nxt(nvert, c)
                if e == c:
                    e = _nxt(nvert, e)
        a += 1
    return r0, r1, r2, r3


@njit(**JIT)
def _witness_on_face(d, w, k, P, i, F, n, wd):
    """Witness pair k from clipped vertex P[i] on face F (point F[0], normal n); distance (witnessOnFace)."""
    v0 = P[i, 0]
    v1 = P[i, 1]
    v2 = P[i, 2]
    # w1: the vertex projected on the face's plane; w2: w1 moved back along wd to the vertex's depth
    pd = _dot(v0 - F[0, 0], v1 - F[0, 1], v2 - F[0, 2], n[0], n[1], n[2])
    a0 = v0 - pd * n[0]
    a1 = v1 - pd * n[1]
    a2 = v2 - pd * n[2]
    dist = _dot(a0 - v0, a1 - v1, a2 - v2, wd[0], wd[1], wd[2])
    _set(d.scr_gjk_x1[w], k, a0, a1, a2)
    _set(d.scr_gjk_x2[w], k, a0 - dist * wd[0], a1 - dist * wd[1], a2 - dist * wd[2])
    d.scr_gjk_dist[w, k] = dist


@njit(**JIT)
def _polygon_clip(d, w, F1, nf1, F2, nf2, n, wd, mg):
    """Clip polygon F2 against the side planes of polygon F1 and store the witnesses (polygonClip); vertices
    farther than mg (the margins not in the faces) from F1's plane are dropped.  Returns their number (0: the
    status is left as it was)."""
    if nf1 < 3:
        return 0
    st = d.scr_gjk_st[w]
    pnrm = d.scr_mc_pn[w]
    pd = d.scr_mc_pd[w]
    buf = d.scr_mc_poly[w]
    for i in range(nf1):
        j = i + 1 if i < nf1 - 1 else 0
        a = _row(F1, i)
        b = _row(F1, j)
        v3 = (a[0] + n[0], a[1] + n[1], a[2] + n[2])
        r = _cross(b[0] - a[0], b[1] - a[1], b[2] - a[2], v3[0] - a[0], v3[1] - a[1], v3[2] - a[2])
        r = _normalize(r[0], r[1], r[2])
        _set(pnrm, i, r[0], r[1], r[2])
        pd[i] = _dot(r[0], r[1], r[2], a[0], a[1], a[2])
    cur = 0
    npoly = nf2
    nclip = 0
    for i in range(nf2):
        _set(buf[0], i, F2[i, 0], F2[i, 1], F2[i, 2])
    for e in range(nf1):
        P = buf[cur]
        C = buf[1 - cur]
        pe = _row(pnrm, e)
        ae = _row(F1, e)
        for i in range(npoly):
            q = i + 1 if i < npoly - 1 else 0
            PQ = (P[q, 0] - P[i, 0], P[q, 1] - P[i, 1], P[q, 2] - P[i, 2])
            in1 = _dot(P[i, 0] - ae[0], P[i, 1] - ae[1], P[i, 2] - ae[2], pe[0], pe[1], pe[2]) > -MINVAL
            in2 = _dot(P[q, 0] - ae[0], P[q, 1] - ae[1], P[q, 2] - ae[2], pe[0], pe[1], pe[2]) > -MINVAL
            if not in1 and not in2:
                continue
            if in1 and in2:
                _set(C, nclip, P[q, 0], P[q, 1], P[q, 2])
                nclip += 1
                continue
            tmp = _dot(pe[0], pe[1], pe[2], PQ[0], PQ[1], PQ[2])
            if tmp != 0.0:
                t = (pd[e] - _dot(pe[0], pe[1], pe[2], P[i, 0], P[i, 1], P[i, 2])) / tmp
                if t >= 0.0 and t <= 1.0:
                    _set(C, nclip, P[i, 0] + t * PQ[0], P[i, 1] + t * PQ[1], P[i, 2] + t * PQ[2])
                    nclip += 1
            if in2:
                _set(C, nclip, P[q, 0], P[q, 1], P[q, 2])
                nclip += 1
        cur = 1 - cur
        npoly = nclip
        nclip = 0
    P = buf[cur]
    mcount = npoly
    npoly = 0
    for i in range(mcount):
        if _dot(P[i, 0] - F1[0, 0], P[i, 1] - F1[0, 1], P[i, 2] - F1[0, 2], n[0], n[1], n[2]) <= mg:
            if npoly != i:
                _set(P, npoly, P[i, 0], P[i, 1], P[i, 2])
            npoly += 1
    if npoly < 1:
        return 0
    if st[ST_MAXCON] < 5 and npoly > 4:
        st[ST_NX] = 4
        q0, q1, q2, q3 = _polygon_quad(P, npoly)
        _witness_on_face(d, w, 0, P, q0, F1, n, wd)
        _witness_on_face(d, w, 1, P, q1, F1, n, wd)
        _witness_on_face(d, w, 2, P, q2, F1, n, wd)
        _witness_on_face(d, w, 3, P, q3, F1, n, wd)
        return 4
    if nf2 == 2 and npoly > 2:
        b1 = 0
        b2 = 1
        dd = 0.0
        for i in range(npoly):
            for j in range(i + 1, npoly):
                df = (P[j, 0] - P[i, 0], P[j, 1] - P[i, 1], P[j, 2] - P[i, 2])
                d2 = _dot(df[0], df[1], df[2], df[0], df[1], df[2])
                if d2 > dd:
                    dd = d2
                    b1 = i
                    b2 = j
        _witness_on_face(d, w, 0, P, b1, F1, n, wd)
        _witness_on_face(d, w, 1, P, b2, F1, n, wd)
        st[ST_NX] = 2
        return 2
    if npoly > MAXCONPAIR:
        npoly = MAXCONPAIR
    for i in range(npoly):
        _witness_on_face(d, w, i, P, i, F1, n, wd)
    st[ST_NX] = npoly
    return npoly


@njit(**JIT)
def _gcoord(f, l0, l1, l2, with_pos):
    """mat * (l0, l1, l2) (+ pos) for object row f (globalcoord)."""
    r0 = f[3] * l0 + f[4] * l1 + f[5] * l2
    r1 = f[6] * l0 + f[7] * l1 + f[8] * l2
    r2 = f[9] * l0 + f[10] * l1 + f[11] * l2
    if with_pos:
        r0 += f[0]
        r1 += f[1]
        r2 += f[2]
    return r0, r1, r2


@njit(**JIT)
def _intersect(res, A, a0, n, B, b0, mm):
    """Up to 2 common integers of A[a0:a0+n] and B[b0:b0+mm] into res; count (intersect)."""
    count = 0
    for i in range(n):
        for j in range(mm):
            if A[a0 + i] == B[b0 + j]:
                res[count] = A[a0 + i]
                count += 1
                if count == 2:
                    return 2
    return count


@njit(**JIT)
def _mesh_normals(m, d, w, o, N, idx, dim, vi):
    """Candidate polygon normals of a mesh feature given by up to 3 vertices (meshNormals)."""
    f = d.scr_ccd_f[w, o]
    mid = d.scr_ccd_i[w, o, I_DATA]
    vadr = m.mesh_vertadr[mid]
    padr = m.mesh_polyadr[mid]
    pmap = m.mesh_polymap
    pnrm = m.mesh_polynormal
    tmp = d.scr_mc_tmp[w]
    if dim == 3:
        n = _intersect(
            tmp,
            pmap,
            m.mesh_polymapadr[vadr + vi[0]],
            m.mesh_polymapnum[vadr + vi[0]],
            pmap,
            m.mesh_polymapadr[vadr + vi[1]],
            m.mesh_polymapnum[vadr + vi[1]],
        )
        if n == 0:
            return 0
        n = _intersect(tmp[2:], tmp, 0, n, pmap, m.mesh_polymapadr[vadr + vi[2]], m.mesh_polymapnum[vadr + vi[2]])
        if n == 0:
            return 0
        p = tmp[2]
        r = _gcoord(f, pnrm[padr + p, 0], pnrm[padr + p, 1], pnrm[padr + p, 2], False)
        _set(N, 0, r[0], r[1], r[2])
        idx[0] = p
        return 1
    if dim == 2:
        n = _intersect(
            tmp,
            pmap,
            m.mesh_polymapadr[vadr + vi[0]],
            m.mesh_polymapnum[vadr + vi[0]],
            pmap,
            m.mesh_polymapadr[vadr + vi[1]],
            m.mesh_polymapnum[vadr + vi[1]],
        )
        for i in range(n):
            p = tmp[i]
            r = _gcoord(f, pnrm[padr + p, 0], pnrm[padr + p, 1], pnrm[padr + p, 2], False)
            _set(N, i, r[0], r[1], r[2])
            idx[i] = p
        return n
    if dim == 1:
        adr = m.mesh_polymapadr[vadr + vi[0]]
        num = m.mesh_polymapnum[vadr + vi[0]]
        for i in range(num):
            p = pmap[adr + i]
            r = _gcoord(f, pnrm[padr + p, 0], pnrm[padr + p, 1], pnrm[padr + p, 2], False)
            _set(N, i, r[0], r[1], r[2])
            idx[i] = p
        return num
    return 0


@njit(**JIT)
def _mesh_edge_normals(m, d, w, o, N, E, dim, v, v1i):
    """Unit directions along candidate mesh edges from vertex v[0] and their end points (meshEdgeNormals)."""
    if dim == 2:
        _set(E, 0, v[1, 0], v[1, 1], v[1, 2])
        r = _normalize(v[1, 0] - v[0, 0], v[1, 1] - v[0, 1], v[1, 2] - v[0, 2])
        _set(N, 0, r[0], r[1], r[2])
        return 1
    if dim == 1:
        f = d.scr_ccd_f[w, o]
        mid = d.scr_ccd_i[w, o, I_DATA]
        vadr = m.mesh_vertadr[mid]
        padr = m.mesh_polyadr[mid]
        adr = m.mesh_polymapadr[vadr + v1i]
        num = m.mesh_polymapnum[vadr + v1i]
        for i in range(num):
            p = padr + m.mesh_polymap[adr + i]
            a = m.mesh_polyvertadr[p]
            nv = m.mesh_polyvertnum[p]
            for j in range(nv):
                if m.mesh_polyvert[a + j] == v1i:
                    k = nv - 1 if j == 0 else j - 1
                    q = vadr + m.mesh_polyvert[a + k]
                    r = _gcoord(f, m.mesh_vert[q, 0], m.mesh_vert[q, 1], m.mesh_vert[q, 2], True)
                    _set(E, i, r[0], r[1], r[2])
                    r = _normalize(r[0] - v[0, 0], r[1] - v[0, 1], r[2] - v[0, 2])
                    _set(N, i, r[0], r[1], r[2])
                    break
        return num
    return 0


@njit(**JIT)
def _box_normals2(f, N, idx, n):
    """Box face normal within FACE_TOL of direction n, if any (boxNormals2)."""
    l0 = f[3] * n[0] + f[6] * n[1] + f[9] * n[2]
    l1 = f[4] * n[0] + f[7] * n[1] + f[10] * n[2]
    l2 = f[5] * n[0] + f[8] * n[1] + f[11] * n[2]
    s = 1 / math.sqrt(_dot(l0, l1, l2, l0, l1, l2))
    l0 = l0 * s
    l1 = l1 * s
    l2 = l2 * s
    for i in range(6):
        ax = i // 2
        sg = 1.0 if i % 2 == 0 else -1.0
        c0 = sg if ax == 0 else 0.0
        c1 = sg if ax == 1 else 0.0
        c2 = sg if ax == 2 else 0.0
        if _dot(l0, l1, l2, c0, c1, c2) > FACE_TOL:
            r = _gcoord(f, c0, c1, c2, False)
            _set(N, 0, r[0], r[1], r[2])
            idx[0] = i
            return 1
    return 0


@njit(**JIT)
def _box_normals(d, w, o, N, idx, dim, vi, dr):
    """Candidate face normals of a box feature given by up to 3 corner indices (boxNormals)."""
    f = d.scr_ccd_f[w, o]
    v1 = vi[0]
    v2 = vi[1]
    v3 = vi[2]
    if dim == 3:
        c = 0
        x = int((v1 & 1) != 0 and (v2 & 1) != 0 and (v3 & 1) != 0) - int(
            (v1 & 1) == 0 and (v2 & 1) == 0 and (v3 & 1) == 0
        )
        y = int((v1 & 2) != 0 and (v2 & 2) != 0 and (v3 & 2) != 0) - int(
            (v1 & 2) == 0 and (v2 & 2) == 0 and (v3 & 2) == 0
        )
        z = int((v1 & 4) != 0 and (v2 & 4) != 0 and (v3 & 4) != 0) - int(
            (v1 & 4) == 0 and (v2 & 4) == 0 and (v3 & 4) == 0
        )
        r = _gcoord(f, float(x), float(y), float(z), False)
        _set(N, 0, r[0], r[1], r[2])
        sgn = x + y + z
        if x != 0:
            idx[c] = 0
            c += 1
        if y != 0:
            idx[c] = 2
            c += 1
        if z != 0:
            idx[c] = 4
            c += 1
        if sgn == -1:
            idx[0] += 1
        return 1 if c == 1 else _box_normals2(f, N, idx, dr)
    if dim == 2:
        c = 0
        x = int((v1 & 1) != 0 and (v2 & 1) != 0) - int((v1 & 1) == 0 and (v2 & 1) == 0)
        y = int((v1 & 2) != 0 and (v2 & 2) != 0) - int((v1 & 2) == 0 and (v2 & 2) == 0)
        z = int((v1 & 4) != 0 and (v2 & 4) != 0) - int((v1 & 4) == 0 and (v2 & 4) == 0)
        if x != 0:
            r = _gcoord(f, float(x), 0.0, 0.0, False)
            _set(N, 0, r[0], r[1], r[2])
            idx[c] = 0 if x > 0 else 1
            c += 1
        if y != 0:
            r = _gcoord(f, 0.0, float(y), 0.0, False)
            _set(N, c, r[0], r[1], r[2])
            idx[c] = 2 if y > 0 else 3
            c += 1
        if z != 0:
            r = _gcoord(f, 0.0, 0.0, float(z), False)
            _set(N, 1, r[0], r[1], r[2])
            idx[c] = 4 if z > 0 else 5
            c += 1
        return 2 if c == 2 else _box_normals2(f, N, idx, dr)
    if dim == 1:
        x = 1.0 if (v1 & 1) != 0 else -1.0
        y = 1.0 if (v1 & 2) != 0 else -1.0
        z = 1.0 if (v1 & 4) != 0 else -1.0
        r = _gcoord(f, x, 0.0, 0.0, False)
        _set(N, 0, r[0], r[1], r[2])
        r = _gcoord(f, 0.0, y, 0.0, False)
        _set(N, 1, r[0], r[1], r[2])
        r = _gcoord(f, 0.0, 0.0, z, False)
        _set(N, 2, r[0], r[1], r[2])
        idx[0] = 0 if x > 0 else 1
        idx[1] = 2 if y > 0 else 3
        idx[2] = 4 if z > 0 else 5
        return 3
    return 0


@njit(**JIT)
def _box_edge_normals(d, w, o, N, E, dim, v, v1i):
    """Unit directions along candidate box edges from corner v[0] and their end points (boxEdgeNormals)."""
    if dim == 2:
        _set(E, 0, v[1, 0], v[1, 1], v[1, 2])
        r = _normalize(v[1, 0] - v[0, 0], v[1, 1] - v[0, 1], v[1, 2] - v[0, 2])
        _set(N, 0, r[0], r[1], r[2])
        return 1
    if dim == 1:
        f = d.scr_ccd_f[w, o]
        x = f[F_SIZE] if (v1i & 1) != 0 else -f[F_SIZE]
        y = f[F_SIZE + 1] if (v1i & 2) != 0 else -f[F_SIZE + 1]
        z = f[F_SIZE + 2] if (v1i & 4) != 0 else -f[F_SIZE + 2]
        for k in range(3):
            e = _gcoord(f, -x if k == 0 else x, -y if k == 1 else y, -z if k == 2 else z, True)
            _set(E, k, e[0], e[1], e[2])
            r = _normalize(e[0] - v[0, 0], e[1] - v[0, 1], e[2] - v[0, 2])
            _set(N, k, r[0], r[1], r[2])
        return 3
    return 0


@njit(**JIT)
def _box_face(d, w, o, F, idx):
    """Corners (4, 3) of box face idx in MuJoCo's order (boxFace)."""
    f = d.scr_ccd_f[w, o]
    s0 = f[F_SIZE]
    s1 = f[F_SIZE + 1]
    s2 = f[F_SIZE + 2]
    if idx == 0:
        c = ((s0, s1, s2), (s0, s1, -s2), (s0, -s1, -s2), (s0, -s1, s2))
    elif idx == 1:
        c = ((-s0, s1, -s2), (-s0, s1, s2), (-s0, -s1, s2), (-s0, -s1, -s2))
    elif idx == 2:
        c = ((-s0, s1, -s2), (s0, s1, -s2), (s0, s1, s2), (-s0, s1, s2))
    elif idx == 3:
        c = ((-s0, -s1, s2), (s0, -s1, s2), (s0, -s1, -s2), (-s0, -s1, -s2))
    elif idx == 4:
        c = ((-s0, s1, s2), (s0, s1, s2), (s0, -s1, s2), (-s0, -s1, s2))
    elif idx == 5:
        c = ((s0, s1, -s2), (-s0, s1, -s2), (-s0, -s1, -s2), (s0, -s1, -s2))
    else:
        return 0
    for i in range(4):
        r = _gcoord(f, c[i][0], c[i][1], c[i][2], True)
        _set(F, i, r[0], r[1], r[2])
    return 4


@njit(**JIT)
def _mesh_face(m, d, w, o, F, idx):
    """Vertices of mesh polygon idx in reverse order (meshFace); returns their number."""
    f = d.scr_ccd_f[w, o]
    mid = d.scr_ccd_i[w, o, I_DATA]
    vadr = m.mesh_vertadr[mid]
    p = m.mesh_polyadr[mid] + idx
    adr = m.mesh_polyvertadr[p]
    nv = m.mesh_polyvertnum[p]
    j = 0
    for i in range(nv - 1, -1, -1):
        q = vadr + m.mesh_polyvert[adr + i]
        r = _gcoord(f, m.mesh_vert[q, 0], m.mesh_vert[q, 1], m.mesh_vert[q, 2], True)
        _set(F, j, r[0], r[1], r[2])
        j += 1
    return nv


@njit(**JIT)
def _simplex_dim(vi, v):
    """Number of distinct vertices (1..3) of a face feature; compacts vi, v (simplexDim)."""
    if vi[0] == vi[1]:
        if vi[0] == vi[2]:
            return 1
        vi[1] = vi[2]
        _set(v, 1, v[2, 0], v[2, 1], v[2, 2])
        return 2
    return 2 if (vi[2] == vi[0] or vi[2] == vi[1]) else 3


@njit(**JIT)
def _cylinder_normals(d, w, o, N, idx, dim, vi):
    """Cap normal of a cylinder whose feature lies on one cap (cylinderNormals): vi 0 top, 1 bottom."""
    if dim != 1:
        return 0
    f = d.scr_ccd_f[w, o]
    sg = -1.0 if vi[0] != 0 else 1.0
    _set(N, 0, f[5] * sg, f[8] * sg, f[11] * sg)
    idx[0] = vi[0]
    return 1


@njit(**JIT)
def _cylinder_edge_normals(d, w, o, N, E, dim, v, v1i):
    """Side line of a cylinder from the rim point v[0] to the other cap (cylinderEdgeNormals); start into v[0]."""
    if dim != 1 and dim != 2:
        return 0
    f = d.scr_ccd_f[w, o]
    sg = 1.0 if v1i != 0 else -1.0
    if f[F_MARGIN] > 0:
        # the polytope's vertex is margin-inflated: project it back onto the rim
        e0 = v[0, 0] - f[0]
        e1 = v[0, 1] - f[1]
        e2 = v[0, 2] - f[2]
        l0 = f[3] * e0 + f[6] * e1 + f[9] * e2
        l1 = f[4] * e0 + f[7] * e1 + f[10] * e2
        n2 = l0 * l0 + l1 * l1
        scl = f[F_SIZE] / math.sqrt(n2) if n2 >= MINVAL2 else 0.0
        r = _gcoord(f, scl * l0, scl * l1, -sg * f[F_SIZE + 1], True)
        _set(v, 0, r[0], r[1], r[2])
    a0 = f[5] * sg
    a1 = f[8] * sg
    a2 = f[11] * sg
    _set(N, 0, a0, a1, a2)
    h = 2.0 * f[F_SIZE + 1]
    _set(E, 0, v[0, 0] + a0 * h, v[0, 1] + a1 * h, v[0, 2] + a2 * h)
    return 1


@njit(**JIT)
def _capsule_edge_normals(d, w, o, N, E, v, X):
    """Capsule surface line through witness X[0] along the axis (capsuleEdgeNormals); start into v[0]."""
    f = d.scr_ccd_f[w, o]
    a0 = f[5]
    a1 = f[8]
    a2 = f[11]
    pr = _dot(X[0, 0] - f[0], X[0, 1] - f[1], X[0, 2] - f[2], a0, a1, a2)
    ln = f[F_SIZE + 1]
    _set(N, 0, a0, a1, a2)
    s = -pr - ln
    _set(v, 0, X[0, 0] + a0 * s, X[0, 1] + a1 * s, X[0, 2] + a2 * s)
    s = -pr + ln
    _set(E, 0, X[0, 0] + a0 * s, X[0, 1] + a1 * s, X[0, 2] + a2 * s)
    return 1


@njit(**JIT)
def _cylinder_face(d, w, o, F, idx):
    """Cap idx (0 top, 1 bottom) of a cylinder as a 16-gon (cylinderFace): the local points
    (r cos_k, -+r sin_k, +-h) (the bottom cap turned the other way) mapped as globalcoord does."""
    f = d.scr_ccd_f[w, o]
    sg = -1.0 if idx != 0 else 1.0
    h = sg * f[F_SIZE + 1]
    r = f[F_SIZE]
    for k in range(16):
        p = _gcoord(f, r * CYL_COS[k], -sg * (r * CYL_SIN[k]), h, True)
        _set(F, k, p[0], p[1], p[2])
    return 16


@njit(**JIT)
def _feature_normals(m, d, w, o, N, idx, dim, vi, dr):
    t = d.scr_ccd_i[w, o, I_TYPE]
    if t == GEOM_BOX:
        return _box_normals(d, w, o, N, idx, dim, vi, dr)
    if t == GEOM_MESH:
        return _mesh_normals(m, d, w, o, N, idx, dim, vi)
    if t == GEOM_CYLINDER:
        return _cylinder_normals(d, w, o, N, idx, dim, vi)
    return 0


@njit(**JIT)
def _feature_vertices(m, d, w, o, v, vi, dim):
    """Box corners / mesh vertices v[:dim] of feature indices vi without the margin inflation of the polytope."""
    f = d.scr_ccd_f[w, o]
    for k in range(dim if dim < 3 else 3):
        if d.scr_ccd_i[w, o, I_TYPE] == GEOM_BOX:
            r = _gcoord(
                f,
                f[F_SIZE] if (vi[k] & 1) != 0 else -f[F_SIZE],
                f[F_SIZE + 1] if (vi[k] & 2) != 0 else -f[F_SIZE + 1],
                f[F_SIZE + 2] if (vi[k] & 4) != 0 else -f[F_SIZE + 2],
                True,
            )
        else:
            q = m.mesh_vertadr[d.scr_ccd_i[w, o, I_DATA]] + vi[k]
            r = _gcoord(f, m.mesh_vert[q, 0], m.mesh_vert[q, 1], m.mesh_vert[q, 2], True)
        _set(v, k, r[0], r[1], r[2])


@njit(**JIT)
def _edge_normals(m, d, w, o, N, E, dim, v, vi, X):
    t = d.scr_ccd_i[w, o, I_TYPE]
    if t == GEOM_BOX or t == GEOM_MESH:
        if d.scr_ccd_f[w, o, F_MARGIN] > 0:
            _feature_vertices(m, d, w, o, v, vi, dim)
        if t == GEOM_BOX:
            return _box_edge_normals(d, w, o, N, E, dim, v, vi[0])
        return _mesh_edge_normals(m, d, w, o, N, E, dim, v, vi[0])
    if t == GEOM_CYLINDER:
        return _cylinder_edge_normals(d, w, o, N, E, dim, v, vi[0])
    if t == GEOM_CAPSULE:
        return _capsule_edge_normals(d, w, o, N, E, v, X)
    return 0


@njit(**JIT)
def _face_of(m, d, w, o, F, idx):
    t = d.scr_ccd_i[w, o, I_TYPE]
    if t == GEOM_BOX:
        return _box_face(d, w, o, F, idx)
    if t == GEOM_MESH:
        return _mesh_face(m, d, w, o, F, idx)
    if t == GEOM_CYLINDER:
        return _cylinder_face(d, w, o, F, idx)
    return 0


@njit(**JIT)
def supports_multiccd(t1, t2):
    """Pairs with a multi-contact recovery: faces (box, mesh, cylinder) against faces or capsule edges."""
    f1 = t1 == GEOM_BOX or t1 == GEOM_MESH or t1 == GEOM_CYLINDER
    f2 = t2 == GEOM_BOX or t2 == GEOM_MESH or t2 == GEOM_CYLINDER
    return (f1 and f2) or (f1 and t2 == GEOM_CAPSULE) or (f2 and t1 == GEOM_CAPSULE)


@njit(**JIT)
def _aligned_faces(N1, nn1, N2, nn2, dr):
    """(found, i, j): face normals N1[i], N2[j] facing each other within FACE_TOL (alignedFaces)."""
    # faces turned against the contact direction dr (within EDGE_TOL); the most opposed pair wins
    dtol = EDGE_TOL * math.sqrt(_dot(dr[0], dr[1], dr[2], dr[0], dr[1], dr[2]))
    best = -FACE_TOL
    found = False
    ri = 0
    rj = 0
    for i in range(nn1):
        if _dot(N1[i, 0], N1[i, 1], N1[i, 2], dr[0], dr[1], dr[2]) >= -dtol:
            continue
        for j in range(nn2):
            if _dot(N2[j, 0], N2[j, 1], N2[j, 2], dr[0], dr[1], dr[2]) <= dtol:
                continue
            v = _dot(N1[i, 0], N1[i, 1], N1[i, 2], N2[j, 0], N2[j, 1], N2[j, 2])
            if v < best:
                best = v
                ri = i
                rj = j
                found = True
    return found, ri, rj


@njit(**JIT)
def _aligned_face_edge(EN, ne, FN, nfn, dr):
    """(found, edge j, face i): an edge direction perpendicular to a face normal within EDGE_TOL
    (alignedFaceEdge)."""
    for i in range(nfn):
        # faces turned away from the contact direction do not take part
        if _dot(FN[i, 0], FN[i, 1], FN[i, 2], dr[0], dr[1], dr[2]) <= MINVAL:
            continue
        for j in range(ne):
            if abs(_dot(EN[j, 0], EN[j, 1], EN[j, 2], FN[i, 0], FN[i, 1], FN[i, 2])) < EDGE_TOL:
                return True, j, i
    return False, 0, 0


@njit(**JIT)
def multicontact(m, d, w, face):
    """Recover up to max_contacts contacts from aligned faces / edges of polytope face `face` (multicontact)."""
    for o in range(2):
        if d.scr_ccd_i[w, o, I_TYPE] == GEOM_MESH and m.mesh_polynum[d.scr_ccd_i[w, o, I_DATA]] == 0:
            return
    FI = d.scr_pt_fi[w]
    V = d.scr_pt_v[w]
    Vi = d.scr_pt_vi[w]
    vi = d.scr_mc_vi[w]  # (2, 3) vertex indices of the face feature on each geom
    vv = d.scr_mc_vv[w]  # (2, 3, 3) their positions
    for k in range(3):
        for o in range(2):
            vi[o, k] = Vi[FI[face, k], o]
            for c in range(3):
                vv[o, k, c] = V[FI[face, k], 3 + 3 * o + c]
    nf1 = _simplex_dim(vi[0], vv[0])
    nf2 = _simplex_dim(vi[1], vv[1])
    X1 = d.scr_gjk_x1[w]
    X2 = d.scr_gjk_x2[w]
    dr = (X2[0, 0] - X1[0, 0], X2[0, 1] - X1[0, 1], X2[0, 2] - X1[0, 2])
    drn = (X1[0, 0] - X2[0, 0], X1[0, 1] - X2[0, 1], X1[0, 2] - X2[0, 2])
    N1 = d.scr_mc_n[w, 0]
    N2 = d.scr_mc_n[w, 1]
    idx1 = d.scr_mc_idx[w, 0]
    idx2 = d.scr_mc_idx[w, 1]
    E = d.scr_mc_end[w]
    nn1 = _feature_normals(m, d, w, 0, N1, idx1, nf1, vi[0], drn)
    nn2 = _feature_normals(m, d, w, 1, N2, idx2, nf2, vi[1], dr)
    found, ri, rj = _aligned_faces(N1, nn1, N2, nn2, dr)
    edgecon1 = False
    edgecon2 = False
    if not found:
        if nf1 < 3 and nn2 > 0 and (nf1 <= nf2 or nn1 == 0):
            nn1 = _edge_normals(m, d, w, 0, N1, E, nf1, vv[0], vi[0], X1)
            found, ri, rj = _aligned_face_edge(N1, nn1, N2, nn2, dr)
            edgecon1 = True
        elif nf2 < 3:
            nn2 = _edge_normals(m, d, w, 1, N2, E, nf2, vv[1], vi[1], X2)
            found, ri, rj = _aligned_face_edge(N2, nn2, N1, nn1, drn)
            edgecon2 = True
        if not found:
            return
    F1 = d.scr_mc_face[w, 0]
    F2 = d.scr_mc_face[w, 1]
    if edgecon1:
        _set(F1, 0, vv[0, 0, 0], vv[0, 0, 1], vv[0, 0, 2])
        _set(F1, 1, E[ri, 0], E[ri, 1], E[ri, 2])
        nf1 = 2
    else:
        nf1 = _face_of(m, d, w, 0, F1, idx1[rj] if edgecon2 else idx1[ri])
    if edgecon2:
        _set(F2, 0, vv[1, 0, 0], vv[1, 0, 1], vv[1, 0, 2])
        _set(F2, 1, E[ri, 0], E[ri, 1], E[ri, 2])
        nf2 = 2
    else:
        nf2 = _face_of(m, d, w, 1, F2, idx2[rj])
    # margins not in the faces (a capsule's edge passes through its inflated witness already)
    t1 = d.scr_ccd_i[w, 0, I_TYPE]
    t2 = d.scr_ccd_i[w, 1, I_TYPE]
    mg1 = 0.5 * d.scr_ccd_f[w, 0, F_MARGIN] if t1 != GEOM_CAPSULE else 0.0
    mg2 = 0.5 * d.scr_ccd_f[w, 1, F_MARGIN] if t2 != GEOM_CAPSULE else 0.0
    mg = mg1 + mg2
    if edgecon1:
        n = (N2[rj, 0], N2[rj, 1], N2[rj, 2])
        nrm = (n[0] * -1.0, n[1] * -1.0, n[2] * -1.0)
        nx = _polygon_clip(d, w, F2, nf2, F1, nf1, n, nrm, mg)
        if nx == 0:
            return
        for k in range(nx):
            for c in range(3):
                t = X1[k, c]
                X1[k, c] = X2[k, c]
                X2[k, c] = t
    elif edgecon2:
        n = (N1[rj, 0], N1[rj, 1], N1[rj, 2])
        nrm = n
        nx = _polygon_clip(d, w, F1, nf1, F2, nf2, n, (n[0] * -1.0, n[1] * -1.0, n[2] * -1.0), mg)
    else:
        n = (N2[rj, 0], N2[rj, 1], N2[rj, 2])
        nrm = (n[0] * -1.0, n[1] * -1.0, n[2] * -1.0)
        nx = _polygon_clip(d, w, F1, nf1, F2, nf2, (N1[ri, 0], N1[ri, 1], N1[ri, 2]), n, mg)
    if nx == 0 or (mg1 == 0 and mg2 == 0):
        return
    for k in range(nx):
        for c in range(3):
            X1[k, c] += mg1 * nrm[c]
            X2[k, c] -= mg2 * nrm[c]
        d.scr_gjk_dist[w, k] -= mg


@njit(**JIT)
def _simplex_face(d, w):
    """Polytope face 0 from the GJK simplex's first three vertices (repeated when it has fewer) for the
    multi-contact of a shallow (margin) contact."""
    S = d.scr_simplex[w]
    Si = d.scr_simplex_i[w]
    V = d.scr_pt_v[w]
    Vi = d.scr_pt_vi[w]
    ns = d.scr_gjk_st[w, ST_NSIMPLEX]
    for r in range(3):
        q = r if r < ns else 0
        for c in range(9):
            V[r, c] = S[q, c]
        Vi[r, 0] = Si[q, 0]
        Vi[r, 1] = Si[q, 1]
    FI = d.scr_pt_fi[w]
    FI[0, 0] = 0
    FI[0, 1] = 1
    FI[0, 2] = 2
    return 0


# ---------------------------------------- driver --------------------------------------------------


@njit(**JIT)
def _inflate(d, w, m1, m2):
    """Move witness points out by the sphere/capsule radii (inflate)."""
    X1 = d.scr_gjk_x1[w]
    X2 = d.scr_gjk_x2[w]
    n = _normalize(X2[0, 0] - X1[0, 0], X2[0, 1] - X1[0, 1], X2[0, 2] - X1[0, 2])
    if m1 != 0:
        for c in range(3):
            X1[0, c] += m1 * n[c]
    if m2 != 0:
        for c in range(3):
            X2[0, c] -= m2 * n[c]
    d.scr_gjk_dist[w, 0] -= m1 + m2


@njit(**JIT)
def _set_centers(m, d, w):
    a = center(m, d, w, 0)
    _set(d.scr_gjk_x1[w], 0, a[0], a[1], a[2])
    a = center(m, d, w, 1)
    _set(d.scr_gjk_x2[w], 0, a[0], a[1], a[2])


@njit(**JIT)
def ccd(m, d, w, tol, max_iterations, max_contacts, cutoff):
    """General convex collision of objects 0 and 1; negative for penetration (mjc_ccd).  cutoff
    (config.dist_cutoff): separation distances up to it are recovered (mj_geomDistance), 0 for contacts.

    Spheres and capsules are shrunk to points and segments, and objects with a margin (height-field prisms
    included) lose it, for a first GJK pass whose result is inflated back when it is a
    shallow contact (then, for a pair with multi-contact, the GJK simplex stands for the EPA face); deep
    contacts rerun GJK and EPA on the full (margin-inflated) objects.
    Witnesses: d.scr_gjk_x1/x2[w, :nx], d.scr_gjk_dist[w, :nx] with nx = d.scr_gjk_st[w, ST_NX].
    """
    if 6 * max_iterations > d.scr_pt_ff.shape[1]:
        raise ValueError("opt.ccd_iterations exceeds the convex-collision scratch size of this Data")
    st = d.scr_gjk_st[w]
    _set_centers(m, d, w)
    st[ST_GJKIT] = 0
    st[ST_EPAIT] = 0
    st[ST_EPAST] = -1
    st[ST_MAXCON] = max_contacts
    dist = d.scr_gjk_dist[w]
    t1 = d.scr_ccd_i[w, 0, I_TYPE]
    t2 = d.scr_ccd_i[w, 1, I_TYPE]
    mg1 = d.scr_ccd_f[w, 0, F_MARGIN]
    mg2 = d.scr_ccd_f[w, 1, F_MARGIN]
    multi = supports_multiccd(t1, t2)
    shrink = mg1 > 0 or mg2 > 0
    ps1 = t1 == GEOM_SPHERE or t1 == GEOM_CAPSULE
    ps2 = t2 == GEOM_SPHERE or t2 == GEOM_CAPSULE
    if ps1 or ps2 or shrink:
        fm1 = 0.0
        fm2 = 0.0
        if ps1:
            fm1 = d.scr_ccd_f[w, 0, F_SIZE] + 0.5 * mg1
            d.scr_ccd_i[w, 0, I_MODE] = MODE_POINT if t1 == GEOM_SPHERE else MODE_LINE
            d.scr_ccd_f[w, 0, F_MARGIN] = 0.0
        elif shrink:
            fm1 = 0.5 * mg1
            d.scr_ccd_f[w, 0, F_MARGIN] = 0.0
        if ps2:
            fm2 = d.scr_ccd_f[w, 1, F_SIZE] + 0.5 * mg2
            d.scr_ccd_i[w, 1, I_MODE] = MODE_POINT if t2 == GEOM_SPHERE else MODE_LINE
            d.scr_ccd_f[w, 1, F_MARGIN] = 0.0
        elif shrink:
            fm2 = 0.5 * mg2
            d.scr_ccd_f[w, 1, F_MARGIN] = 0.0
        gjk(m, d, w, tol, max_iterations, cutoff + fm1 + fm2)
        d.scr_ccd_f[w, 0, F_MARGIN] = mg1
        d.scr_ccd_f[w, 1, F_MARGIN] = mg2
        d.scr_ccd_i[w, 0, I_MODE] = MODE_OWN
        d.scr_ccd_i[w, 1, I_MODE] = MODE_OWN
        if dist[0] > tol:
            _inflate(d, w, fm1, fm2)
            if dist[0] > cutoff:
                dist[0] = MAX_LIMIT
            elif dist[0] < 0 and max_contacts > 1 and multi and st[ST_NSIMPLEX] > 0:
                multicontact(m, d, w, _simplex_face(d, w))
            return _min_dist(d, w)
        if max_contacts == 0:
            st[ST_NX] = 0
            dist[0] = 0.0
            return 0.0
        st[ST_GJKIT] = 0
        _set_centers(m, d, w)
    gjk(m, d, w, tol, max_iterations, cutoff)
    if max_contacts == 0:
        return dist[0]
    if dist[0] <= tol and st[ST_NSIMPLEX] > 1 and st[ST_SEP] == 0:
        dist[0] = 0.0
        pn = d.scr_pt_n[w]
        pn[PT_NV] = 0
        pn[PT_NF] = 0
        pn[PT_NMAP] = 0
        pn[PT_NEDGE] = 0
        pn[PT_MAXF] = 6 * max_iterations
        ns = st[ST_NSIMPLEX]
        if ns == 2:
            ret = _polytope2(m, d, w)
        elif ns == 3:
            ret = _polytope3(m, d, w)
        else:
            ret = _polytope4(m, d, w)
        st[ST_EPAST] = ret
        if ret == 0:
            face = epa(m, d, w, tol, max_iterations)
            if max_contacts > 1 and face >= 0 and multi:
                multicontact(m, d, w, face)
    return _min_dist(d, w)


@njit(**JIT)
def _min_dist(d, w):
    """Smallest of the status distances d.scr_gjk_dist[w, :nx] (at least the first)."""
    dist = d.scr_gjk_dist[w]
    mind = dist[0]
    for i in range(1, d.scr_gjk_st[w, ST_NX]):
        if dist[i] < mind:
            mind = dist[i]
    return mind
