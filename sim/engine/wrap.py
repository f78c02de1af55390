"""Tendon wrapping geometry around spheres and cylinders (engine_util_misc: mju_wrap and its 2-D helpers).

All functions are pure: inputs are scalars / small arrays, results are returned as tuples."""

import math
from sim.jit import njit

from sim.constants import MINVAL, WRAP_CYLINDER

_NOWRAP = -1.0


@njit(cache=True)
def _segments_intersect(a0, a1, b0, b1, c0, c1, e0, e1):
    """True if 2-D segments (a, b) and (c, e) intersect (is_intersect in engine_util_misc)."""
    det = (e1 - c1) * (b0 - a0) - (e0 - c0) * (b1 - a1)
    if abs(det) < MINVAL:
        return False
    s = ((e0 - c0) * (a1 - c1) - (e1 - c1) * (a0 - c0)) / det
    t = ((b0 - a0) * (a1 - c1) - (b1 - a1) * (a0 - c0)) / det
    return s >= 0 and s <= 1 and t >= 0 and t <= 1


@njit(cache=True)
def _normalize2(x, y):
    """(x, y) / |(x, y)|, or (1, 0) below MINVAL (mju_normalize, n=2)."""
    n = math.sqrt(x * x + y * y)
    if n < MINVAL:
        return 1.0, 0.0
    inv = 1.0 / n
    return x * inv, y * inv


@njit(cache=True)
def _arc_length(p0x, p0y, p1x, p1y, ind, radius):
    """Arc length between two points of the circle, long way round when selected (length_circle)."""
    ax, ay = _normalize2(p0x, p0y)
    bx, by = _normalize2(p1x, p1y)
    angle = math.acos(ax * bx + ay * by)
    crs = p0y * p1x - p0x * p1y
    if (crs > 0 and ind) or (crs < 0 and not ind):
        angle = 2 * math.pi - angle
    return radius * angle


@njit(cache=True)
def wrap_circle(e0, e1, e2, e3, has_side, sd0, sd1, radius):
    """2-D wrap of segment end points (e0,e1)-(e2,e3) around the circle at the origin (wrap_circle).

    Returns (length or -1, p0x, p0y, p1x, p1y): the tangent points; sd is the scaled side point."""
    sqlen0 = e0 * e0 + e1 * e1
    sqlen1 = e2 * e2 + e3 * e3
    sqrad = radius * radius
    if sqlen0 < sqrad or sqlen1 < sqrad or radius < MINVAL:
        return _NOWRAP, 0.0, 0.0, 0.0, 0.0
    dx = e2 - e0
    dy = e3 - e1
    dd = dx * dx + dy * dy
    if dd < MINVAL:
        return _NOWRAP, 0.0, 0.0, 0.0, 0.0
    # nearest point of the segment to the origin
    a = -(dx * e0 + dy * e1) / dd
    if a < 0:
        a = 0.0
    elif a > 1:
        a = 1.0
    nx = a * dx + e0
    ny = a * dy + e1
    if nx * nx + ny * ny > sqrad and (not has_side or sd0 * nx + sd1 * ny >= 0):
        return _NOWRAP, 0.0, 0.0, 0.0, 0.0
    sq0 = math.sqrt(sqlen0 - sqrad)
    sq1 = math.sqrt(sqlen1 - sqrad)
    # the two candidate tangent pairs (sgn = +1, -1) and their goodness
    best_good = 0.0
    best = 0
    r00 = r01 = r10 = r11 = 0.0
    q00 = q01 = q10 = q11 = 0.0
    for i in range(2):
        sgn = 1.0 if i == 0 else -1.0
        s00 = (e0 * sqrad + sgn * radius * e1 * sq0) / sqlen0
        s01 = (e1 * sqrad - sgn * radius * e0 * sq0) / sqlen0
        s10 = (e2 * sqrad - sgn * radius * e3 * sq1) / sqlen1
        s11 = (e3 * sqrad + sgn * radius * e2 * sq1) / sqlen1
        if has_side:
            tx, ty = _normalize2(s00 + s10, s01 + s11)
            good = tx * sd0 + ty * sd1
        else:
            tx = s00 - s10
            ty = s01 - s11
            good = -(tx * tx + ty * ty)
        if _segments_intersect(e0, e1, s00, s01, e2, e3, s10, s11):
            good = -10000.0
        if i == 0:
            best_good = good
            r00, r01, r10, r11 = s00, s01, s10, s11
        else:
            q00, q01, q10, q11 = s00, s01, s10, s11
            # solution 0 only when strictly better
            if not (best_good > good):
                best = 1
    if best == 1:
        r00, r01, r10, r11 = q00, q01, q10, q11
    if _segments_intersect(e0, e1, r00, r01, e2, e3, r10, r11):
        return _NOWRAP, 0.0, 0.0, 0.0, 0.0
    return _arc_length(r00, r01, r10, r11, best, radius), r00, r01, r10, r11


@njit(cache=True)
def _inside_fun(A, B, G, z):
    """asin(A z) + asin(B z) - 2 asin(z) + G: root gives the inside-wrap tangent (wrap_inside)."""
    return math.asin(A * z) + math.asin(B * z) - 2 * math.asin(z) + G


@njit(cache=True)
def wrap_inside(e0, e1, e2, e3, radius):
    """2-D wrap when the side site is inside the circle: single contact point by Newton's method (wrap_inside).

    Returns (0 or -1, p0x, p0y, p1x, p1y) with p0 == p1."""
    # mujoco 3.17 returns the converged root here: with the C snapshot's tolerance (1e-6 on f) the tangent
    # point differs from the oracle by up to 2e-8; iterating to |f| <= 1e-10 (quadratic convergence, so in
    # practice to round-off) agrees to ~1e-12 except where z -> 1 makes the root ill-conditioned
    maxiter = 20
    zinit = 1 - 1e-7
    tolerance = 1e-10
    len0 = math.sqrt(e0 * e0 + e1 * e1)
    len1 = math.sqrt(e2 * e2 + e3 * e3)
    dx = e2 - e0
    dy = e3 - e1
    dd = dx * dx + dy * dy
    if len0 <= radius or len1 <= radius or radius < MINVAL or len0 < MINVAL or len1 < MINVAL:
        return _NOWRAP, 0.0, 0.0, 0.0, 0.0
    if dd > MINVAL:
        a = -(dx * e0 + dy * e1) / dd
        if a > 0 and a < 1:
            tx = e0 + a * dx
            ty = e1 + a * dy
            if math.sqrt(tx * tx + ty * ty) <= radius:
                return _NOWRAP, 0.0, 0.0, 0.0, 0.0
    # fallback for numerical failure: scaled mid point direction
    px, py = _normalize2(0.5 * (e0 + e2), 0.5 * (e1 + e3))
    px *= radius
    py *= radius
    A = radius / len0
    B = radius / len1
    cosG = (len0 * len0 + len1 * len1 - dd) / (2 * len0 * len1)
    if cosG < -1 + MINVAL:
        return _NOWRAP, 0.0, 0.0, 0.0, 0.0
    elif cosG > 1 - MINVAL:
        return 0.0, px, py, px, py
    G = math.acos(cosG)
    z = zinit
    f = _inside_fun(A, B, G, z)
    if f > 0:
        return 0.0, px, py, px, py
    it = 0
    while it < maxiter and abs(f) > tolerance:
        df = (
            A / max(MINVAL, math.sqrt(1 - z * z * A * A))
            + B / max(MINVAL, math.sqrt(1 - z * z * B * B))
            - 2 / max(MINVAL, math.sqrt(1 - z * z))
        )
        if df > -MINVAL:
            return 0.0, px, py, px, py
        z1 = z - f / df
        if z1 > z:
            return 0.0, px, py, px, py
        z = z1
        f = _inside_fun(A, B, G, z)
        if f > tolerance:
            return 0.0, px, py, px, py
        it += 1
    if it >= maxiter:
        return 0.0, px, py, px, py
    # rotate the end point selected by the orientation of (end0, end1) by ang
    if e0 * e3 - e1 * e2 > 0:
        vx, vy = e0, e1
        ang = math.asin(z) - math.asin(A * z)
    else:
        vx, vy = e2, e3
        ang = math.asin(z) - math.asin(B * z)
    vx, vy = _normalize2(vx, vy)
    c = math.cos(ang)
    s = math.sin(ang)
    px = radius * (c * vx - s * vy)
    py = radius * (s * vx + c * vy)
    return 0.0, px, py, px, py


@njit(cache=True)
def _to_local(xmat, xpos, x):
    """xmat' (x - xpos) for a 3-vector x (mju_mulMatTVec3 of the difference)."""
    t0 = x[0] - xpos[0]
    t1 = x[1] - xpos[1]
    t2 = x[2] - xpos[2]
    return (
        xmat[0] * t0 + xmat[3] * t1 + xmat[6] * t2,
        xmat[1] * t0 + xmat[4] * t1 + xmat[7] * t2,
        xmat[2] * t0 + xmat[5] * t1 + xmat[8] * t2,
    )


@njit(cache=True)
def _normalize3(x, y, z):
    n = math.sqrt(x * x + y * y + z * z)
    if n < MINVAL:
        return 1.0, 0.0, 0.0
    inv = 1.0 / n
    return x * inv, y * inv, z * inv


@njit(cache=True)
def wrap(x0, x1, xpos, xmat, radius, wtype, has_side, side):
    """Wrap the segment x0-x1 (3,) around a sphere/cylinder geom at xpos/xmat (3,)/(9,) (mju_wrap).

    Returns (length or -1 for no wrap, the two tangent points as 6 floats); side (3,) is the side site
    position, used only if has_side."""
    p00, p01, p02 = _to_local(xmat, xpos, x0)
    p10, p11, p12 = _to_local(xmat, xpos, x1)
    if math.sqrt(p00 * p00 + p01 * p01 + p02 * p02) < MINVAL or math.sqrt(p10 * p10 + p11 * p11 + p12 * p12) < MINVAL:
        return _NOWRAP, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    # 2-D frame (axis a, axis b) of the wrapping circle
    if wtype == WRAP_CYLINDER:
        a0, a1, a2 = 1.0, 0.0, 0.0
        b0, b1, b2 = 0.0, 1.0, 0.0
    else:
        a0, a1, a2 = _normalize3(p00, p01, p02)
        # plane normal = p0 x p1
        n0 = p01 * p12 - p02 * p11
        n1 = p02 * p10 - p00 * p12
        n2 = p00 * p11 - p01 * p10
        nrm = math.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
        if nrm < MINVAL:
            # parallel points: normal from a, and a vector with 0 at a's largest component
            k = 0
            if abs(a1) > abs(a0) and abs(a1) > abs(a2):
                k = 1
            if abs(a2) > abs(a0) and abs(a2) > abs(a1):
                k = 2
            c0 = 0.0 if k == 0 else 1.0
            c1 = 0.0 if k == 1 else 1.0
            c2 = 0.0 if k == 2 else 1.0
            n0, n1, n2 = _normalize3(a1 * c2 - a2 * c1, a2 * c0 - a0 * c2, a0 * c1 - a1 * c0)
        else:
            inv = 1.0 / nrm
            n0 *= inv
            n1 *= inv
            n2 *= inv
        b0, b1, b2 = _normalize3(n1 * a2 - n2 * a1, n2 * a0 - n0 * a2, n0 * a1 - n1 * a0)
    d0 = p00 * a0 + p01 * a1 + p02 * a2
    d1 = p00 * b0 + p01 * b1 + p02 * b2
    d2 = p10 * a0 + p11 * a1 + p12 * a2
    d3 = p10 * b0 + p11 * b1 + p12 * b2
    inside = False
    sd0 = sd1 = 0.0
    if has_side:
        s0, s1, s2 = _to_local(xmat, xpos, side)
        sd0, sd1 = _normalize2(s0 * a0 + s1 * a1 + s2 * a2, s0 * b0 + s1 * b1 + s2 * b2)
        sd0 *= radius
        sd1 *= radius
        inside = math.sqrt(s0 * s0 + s1 * s1 + s2 * s2) < radius
    if inside:
        wlen, t00, t01, t10, t11 = wrap_inside(d0, d1, d2, d3, radius)
    else:
        wlen, t00, t01, t10, t11 = wrap_circle(d0, d1, d2, d3, has_side, sd0, sd1, radius)
    if wlen < 0:
        return _NOWRAP, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    # back to 3-D local coordinates
    r0 = a0 * t00 + b0 * t01
    r1 = a1 * t00 + b1 * t01
    r2 = a2 * t00 + b2 * t01
    r3 = a0 * t10 + b0 * t11
    r4 = a1 * t10 + b1 * t11
    r5 = a2 * t10 + b2 * t11
    if wtype == WRAP_CYLINDER:
        # heights interpolated along the unrolled path; helix length
        L0 = math.sqrt((p00 - r0) * (p00 - r0) + (p01 - r1) * (p01 - r1))
        L1 = math.sqrt((p10 - r3) * (p10 - r3) + (p11 - r4) * (p11 - r4))
        r2 = p02 + (p12 - p02) * L0 / (L0 + wlen + L1)
        r5 = p02 + (p12 - p02) * (L0 + wlen) / (L0 + wlen + L1)
        h = abs(r5 - r2)
        wlen = math.sqrt(wlen * wlen + h * h)
    # to the global frame
    return (
        wlen,
        xmat[0] * r0 + xmat[1] * r1 + xmat[2] * r2 + xpos[0],
        xmat[3] * r0 + xmat[4] * r1 + xmat[5] * r2 + xpos[1],
        xmat[6] * r0 + xmat[7] * r1 + xmat[8] * r2 + xpos[2],
        xmat[0] * r3 + xmat[1] * r4 + xmat[2] * r5 + xpos[0],
        xmat[3] * r3 + xmat[4] * r4 + xmat[5] * r5 + xpos[1],
        xmat[6] * r3 + xmat[7] * r4 + xmat[8] * r5 + xpos[2],
    )
