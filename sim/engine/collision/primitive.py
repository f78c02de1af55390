"""Primitive narrowphase (engine_collision_primitive.c): plane, sphere, capsule and cylinder pairs.

Every collider has the shared signature ``f(m, d, w, g1, g2, margin, en) -> n`` and writes MuJoCo's
mjPreContact fields of its n contacts into d.scr_con_dist/pos/normal/tangent[w, k].  The
``raw_*`` helpers take explicit poses (tuples) and the output row k, as MuJoCo's mjraw_* do.
Arithmetic follows MuJoCo's operation order so results agree to rounding.

The plane, sphere and capsule colliders also run on a block of worlds (w a BlockIdx, sim/jit/simd.py): their
tests are masks, a contact is stored (put_if) into the rows of the lanes where it exists, at each lane's own
count, and n is per lane; en says which lanes (or, for one world, whether the world) collide the pair at all.
"""

import math

from numba.extending import overload

from sim.jit import njit
from sim.jit.simd import LANES, BlockIdxType, block_number, false_like, lane_of, lnot, where, any_true
from sim.engine.math import normalize3

from sim.constants import MINVAL


@njit(cache=True)
def put(d, w, k, dist, p0, p1, p2, n0, n1, n2, t0, t1, t2):
    """Store pre-contact k of world w: dist, pos (3), normal (3), tangent (3)."""
    d.scr_con_dist[w, k] = dist
    p = d.scr_con_pos[w, k]
    p[0] = p0
    p[1] = p1
    p[2] = p2
    n = d.scr_con_normal[w, k]
    n[0] = n0
    n[1] = n1
    n[2] = n2
    t = d.scr_con_tangent[w, k]
    t[0] = t0
    t[1] = t1
    t[2] = t2


def put_if(d, w, k, valid, dist, p0, p1, p2, n0, n1, n2, t0, t1, t2):
    """put() where valid: world w's pre-contact k, or for a block w each lane l with valid[l] at its row k[l]
    (the block's rows of d.scr_con_*: lane l is world block*LANES + l)."""


@overload(put_if, inline="always")
def _put_if(d, w, k, valid, dist, p0, p1, p2, n0, n1, n2, t0, t1, t2):
    if isinstance(w, BlockIdxType):

        def lanes_impl(d, w, k, valid, dist, p0, p1, p2, n0, n1, n2, t0, t1, t2):
            w0 = block_number(w) * LANES
            for q in range(LANES):
                if lane_of(valid, q):
                    put(
                        d,
                        w0 + q,
                        int(lane_of(k, q)),
                        lane_of(dist, q),
                        lane_of(p0, q),
                        lane_of(p1, q),
                        lane_of(p2, q),
                        lane_of(n0, q),
                        lane_of(n1, q),
                        lane_of(n2, q),
                        lane_of(t0, q),
                        lane_of(t1, q),
                        lane_of(t2, q),
                    )

        return lanes_impl

    def impl(d, w, k, valid, dist, p0, p1, p2, n0, n1, n2, t0, t1, t2):
        if valid:
            put(d, w, k, dist, p0, p1, p2, n0, n1, n2, t0, t1, t2)

    return impl


@njit(cache=True, always_inline=True)
def count(valid):
    """1 where a contact exists, else 0 (an int for one world, per lane for a block)."""
    return where(valid, 1, 0)


@njit(cache=True)
def zaxis(mat):
    """Third column of a row-major 3x3 rotation (9,)."""
    return mat[2], mat[5], mat[8]


@njit(cache=True)
def clip(x, lo, hi):
    """mju_clip."""
    return where(x < lo, lo, where(x > hi, hi, x))


# ------------------------------------------------------------------ plane collisions


@njit(cache=True)
def raw_plane_sphere(d, w, k, margin, p1, n, p2, r2, en, t):
    """Plane (pos p1, normal n) against sphere (p2, radius r2) into row k (mjraw_PlaneSphere), tangent t; returns
    whether the contact exists (where en)."""
    cdist = (p2[0] - p1[0]) * n[0] + (p2[1] - p1[1]) * n[1] + (p2[2] - p1[2]) * n[2]
    valid = en & lnot(cdist > margin + r2)
    dist = cdist - r2
    s = -dist / 2 - r2
    put_if(
        d, w, k, valid, dist, p2[0] + n[0] * s, p2[1] + n[1] * s, p2[2] + n[2] * s, n[0], n[1], n[2], t[0], t[1], t[2]
    )
    return valid


@njit(cache=True)
def _pose(m, d, w, g):
    x = d.geom_xpos[w, g]
    return (x[0], x[1], x[2]), d.geom_xmat[w, g], m.geom_size[g]


@njit(cache=True)
def plane_sphere(m, d, w, g1, g2, margin, en):
    """mjc_PlaneSphere."""
    p1, mat1, _ = _pose(m, d, w, g1)
    p2, _, s2 = _pose(m, d, w, g2)
    return count(raw_plane_sphere(d, w, 0, margin, p1, zaxis(mat1), p2, s2[0], en, (0.0, 0.0, 0.0)))


@njit(cache=True)
def plane_capsule(m, d, w, g1, g2, margin, en):
    """mjc_PlaneCapsule: both end spheres against the plane, tangent along the capsule axis."""
    p1, mat1, _ = _pose(m, d, w, g1)
    p2, mat2, s2 = _pose(m, d, w, g2)
    n = zaxis(mat1)
    ax = zaxis(mat2)
    sg = (s2[1] * ax[0], s2[1] * ax[1], s2[1] * ax[2])
    e1 = (p2[0] + sg[0], p2[1] + sg[1], p2[2] + sg[2])
    n1 = count(raw_plane_sphere(d, w, 0, margin, p1, n, e1, s2[0], en, ax))
    e2 = (p2[0] - sg[0], p2[1] - sg[1], p2[2] - sg[2])
    return n1 + count(raw_plane_sphere(d, w, n1, margin, p1, n, e2, s2[0], en, ax))


@njit(cache=True)
def plane_cylinder(m, d, w, g1, g2, margin, en):
    """mjc_PlaneCylinder: nearest rim point, opposite rim point, two side points of the near disk (one world: en
    True)."""
    p1, mat1, _ = _pose(m, d, w, g1)
    p2, mat2, s2 = _pose(m, d, w, g2)
    n = zaxis(mat1)
    a0, a1, a2 = zaxis(mat2)
    prjaxis = n[0] * a0 + n[1] * a1 + n[2] * a2
    if prjaxis > 0:
        a0, a1, a2 = -a0, -a1, -a2
        prjaxis = -prjaxis
    v0, v1, v2 = p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]
    dist0 = v0 * n[0] + v1 * n[1] + v2 * n[2]
    v0, v1, v2 = a0 * prjaxis - n[0], a1 * prjaxis - n[1], a2 * prjaxis - n[2]
    len_sqr = v0 * v0 + v1 * v1 + v2 * v2
    if len_sqr >= MINVAL * MINVAL:
        scl = s2[0] / math.sqrt(len_sqr)
        v0, v1, v2 = v0 * scl, v1 * scl, v2 * scl
    else:
        v0, v1, v2 = mat2[0] * s2[0], mat2[3] * s2[0], mat2[6] * s2[0]
    prjvec = v0 * n[0] + v1 * n[1] + v2 * n[2]
    a0, a1, a2 = a0 * s2[1], a1 * s2[1], a2 * s2[1]
    prjaxis *= s2[1]

    cnt = 0
    dd = dist0 + prjaxis + prjvec
    if dd <= margin:
        h = -dd * 0.5
        put(
            d,
            w,
            cnt,
            dd,
            ((p2[0] + v0) + a0) + n[0] * h,
            ((p2[1] + v1) + a1) + n[1] * h,
            ((p2[2] + v2) + a2) + n[2] * h,
            n[0],
            n[1],
            n[2],
            0.0,
            0.0,
            0.0,
        )
        cnt += 1
    else:
        return 0
    dd = dist0 - prjaxis + prjvec
    if dd <= margin:
        h = -dd * 0.5
        put(
            d,
            w,
            cnt,
            dd,
            ((p2[0] + v0) - a0) + n[0] * h,
            ((p2[1] + v1) - a1) + n[1] * h,
            ((p2[2] + v2) - a2) + n[2] * h,
            n[0],
            n[1],
            n[2],
            0.0,
            0.0,
            0.0,
        )
        cnt += 1
    prjvec1 = -prjvec * 0.5
    dd = dist0 + prjaxis + prjvec1
    if dd <= margin:
        c0 = v1 * a2 - v2 * a1
        c1 = v2 * a0 - v0 * a2
        c2 = v0 * a1 - v1 * a0
        c0, c1, c2, _ = normalize3(c0, c1, c2)
        sc = s2[0] * math.sqrt(3.0) / 2
        c0, c1, c2 = c0 * sc, c1 * sc, c2 * sc
        h = -dd * 0.5
        for sgn in (1.0, -1.0):
            if sgn > 0:
                q0, q1, q2 = p2[0] + c0, p2[1] + c1, p2[2] + c2
            else:
                q0, q1, q2 = p2[0] - c0, p2[1] - c1, p2[2] - c2
            q0, q1, q2 = q0 + a0, q1 + a1, q2 + a2
            q0, q1, q2 = q0 + v0 * -0.5, q1 + v1 * -0.5, q2 + v2 * -0.5
            put(d, w, cnt, dd, q0 + n[0] * h, q1 + n[1] * h, q2 + n[2] * h, n[0], n[1], n[2], 0.0, 0.0, 0.0)
            cnt += 1
    return cnt


@njit(cache=True)
def plane_box(m, d, w, g1, g2, margin, en):
    """mjc_PlaneBox: up to 4 box corners below the plane (+margin), in corner order."""
    p1, mat1, _ = _pose(m, d, w, g1)
    p2, mat2, s2 = _pose(m, d, w, g2)
    n = zaxis(mat1)
    dist = (p2[0] - p1[0]) * n[0] + (p2[1] - p1[1]) * n[1] + (p2[2] - p1[2]) * n[2]
    cnt = count(false_like(en))
    for i in range(8):
        v0 = s2[0] if i & 1 else -s2[0]
        v1 = s2[1] if i & 2 else -s2[1]
        v2 = s2[2] if i & 4 else -s2[2]
        c0 = mat2[0] * v0 + mat2[1] * v1 + mat2[2] * v2
        c1 = mat2[3] * v0 + mat2[4] * v1 + mat2[5] * v2
        c2 = mat2[6] * v0 + mat2[7] * v1 + mat2[8] * v2
        ldist = n[0] * c0 + n[1] * c1 + n[2] * c2
        # the corners after the fourth contact are not looked at
        valid = en & (cnt < 4) & lnot((dist + ldist > margin) | (ldist > 0))
        dd = dist + ldist
        h = -dd / 2
        put_if(
            d,
            w,
            cnt,
            valid,
            dd,
            (c0 + p2[0]) + n[0] * h,
            (c1 + p2[1]) + n[1] * h,
            (c2 + p2[2]) + n[2] * h,
            n[0],
            n[1],
            n[2],
            0.0,
            0.0,
            0.0,
        )
        cnt += count(valid)
    return cnt


# ------------------------------------------------------------------ sphere and capsule collisions


@njit(cache=True)
def raw_sphere_sphere(d, w, k, margin, p1, z1, r1, p2, z2, r2, en):
    """Sphere (p1, r1) against sphere (p2, r2) into row k; z1, z2 geom z axes for coincident centers; returns
    whether the contact exists (where en)."""
    e0, e1, e2 = p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2]
    cdist_sqr = e0 * e0 + e1 * e1 + e2 * e2
    min_dist = margin + r1 + r2
    valid = en & lnot(cdist_sqr > min_dist * min_dist)
    dist = math.sqrt(cdist_sqr) - r1 - r2
    n0, n1, n2, ln = normalize3(p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2])
    small = ln < MINVAL
    if any_true(small & valid):
        c0, c1, c2, _ = normalize3(
            z1[1] * z2[2] - z1[2] * z2[1], z1[2] * z2[0] - z1[0] * z2[2], z1[0] * z2[1] - z1[1] * z2[0]
        )
        n0 = where(small, c0, n0)
        n1 = where(small, c1, n1)
        n2 = where(small, c2, n2)
    s = r1 + dist / 2
    put_if(d, w, k, valid, dist, n0 * s + p1[0], n1 * s + p1[1], n2 * s + p1[2], n0, n1, n2, 0.0, 0.0, 0.0)
    return valid


@njit(cache=True)
def sphere_sphere(m, d, w, g1, g2, margin, en):
    """mjc_SphereSphere."""
    p1, mat1, s1 = _pose(m, d, w, g1)
    p2, mat2, s2 = _pose(m, d, w, g2)
    return count(raw_sphere_sphere(d, w, 0, margin, p1, zaxis(mat1), s1[0], p2, zaxis(mat2), s2[0], en))


@njit(cache=True)
def raw_sphere_capsule(d, w, k, margin, p1, z1, r1, p2, mat2, s2, en):
    """Sphere against capsule: nearest segment point, then sphere-sphere (mjraw_SphereCapsule)."""
    ax = zaxis(mat2)
    x = clip(ax[0] * (p1[0] - p2[0]) + ax[1] * (p1[1] - p2[1]) + ax[2] * (p1[2] - p2[2]), -s2[1], s2[1])
    q = (ax[0] * x + p2[0], ax[1] * x + p2[1], ax[2] * x + p2[2])
    return raw_sphere_sphere(d, w, k, margin, p1, z1, r1, q, ax, s2[0], en)


@njit(cache=True)
def sphere_capsule(m, d, w, g1, g2, margin, en):
    """mjc_SphereCapsule."""
    p1, mat1, s1 = _pose(m, d, w, g1)
    p2, mat2, s2 = _pose(m, d, w, g2)
    return count(raw_sphere_capsule(d, w, 0, margin, p1, zaxis(mat1), s1[0], p2, mat2, s2, en))


@njit(cache=True, error_model="numpy")
def sphere_cylinder(m, d, w, g1, g2, margin, en):
    """mjc_SphereCylinder: side (sphere-sphere), cap (plane-sphere) or rim corner (point sphere) (one world: en
    True)."""
    p1, mat1, s1 = _pose(m, d, w, g1)
    p2, mat2, s2 = _pose(m, d, w, g2)
    radius, height = s2[0], s2[1]
    ax = zaxis(mat2)
    z1 = zaxis(mat1)
    v0, v1, v2 = p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2]
    x = ax[0] * v0 + ax[1] * v1 + ax[2] * v2
    ap0, ap1, ap2 = ax[0] * x, ax[1] * x, ax[2] * x
    pp0, pp1, pp2 = v0 - ap0, v1 - ap1, v2 - ap2
    p_proj_sqr = pp0 * pp0 + pp1 * pp1 + pp2 * pp2
    collide_side = abs(x) < height
    collide_cap = p_proj_sqr < radius * radius
    if collide_side and collide_cap:
        dist_cap = height - abs(x)
        dist_radius = radius - math.sqrt(p_proj_sqr)
        if dist_cap < dist_radius:
            collide_side = False
        else:
            collide_cap = False
    if collide_side:
        q = (ap0 + p2[0], ap1 + p2[1], ap2 + p2[2])
        return count(raw_sphere_sphere(d, w, 0, margin, p1, z1, s1[0], q, ax, s2[0], en))
    if collide_cap:
        if x > 0:
            pc = (p2[0] + ax[0] * height, p2[1] + ax[1] * height, p2[2] + ax[2] * height)
            nc = ax
        else:
            pc = (p2[0] + ax[0] * -height, p2[1] + ax[1] * -height, p2[2] + ax[2] * -height)
            nc = (-ax[0], -ax[1], -ax[2])
        nn = count(raw_plane_sphere(d, w, 0, margin, pc, nc, p1, s1[0], en, (0.0, 0.0, 0.0)))
        if nn:
            nr = d.scr_con_normal[w, 0]
            nr[0] = -nr[0]
            nr[1] = -nr[1]
            nr[2] = -nr[2]
        return nn
    sc = s2[0] / math.sqrt(p_proj_sqr)
    pp0, pp1, pp2 = pp0 * sc, pp1 * sc, pp2 * sc
    hh = height if x > 0 else -height
    q = (((ax[0] * hh) + pp0) + p2[0], ((ax[1] * hh) + pp1) + p2[1], ((ax[2] * hh) + pp2) + p2[2])
    return count(raw_sphere_sphere(d, w, 0, margin, p1, z1, s1[0], q, ax, 0.0, en))


@njit(cache=True, error_model="numpy")
def capsule_capsule(m, d, w, g1, g2, margin, en):
    """mjc_CapsuleCapsule: closest segment points (general) or up to 4 end tests (parallel axes)."""
    p1, mat1, s1 = _pose(m, d, w, g1)
    p2, mat2, s2 = _pose(m, d, w, g2)
    z1 = zaxis(mat1)
    z2 = zaxis(mat2)
    r1, r2 = s1[0], s2[0]
    b0, b1, b2 = z1[0] * s1[1], z1[1] * s1[1], z1[2] * s1[1]
    c0, c1, c2 = z2[0] * s2[1], z2[1] * s2[1], z2[2] * s2[1]
    f0, f1, f2 = p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2]
    ma = b0 * b0 + b1 * b1 + b2 * b2
    mb = -(b0 * c0 + b1 * c1 + b2 * c2)
    mc = c0 * c0 + c1 * c1 + c2 * c2
    u = -(b0 * f0 + b1 * f1 + b2 * f2)
    v = c0 * f0 + c1 * f1 + c2 * f2
    det = ma * mc - mb * mb
    general = abs(det) >= MINVAL
    n = count(false_like(en))
    if any_true(en & general):
        x1 = (mc * u - mb * v) / det
        x2 = (ma * v - mb * u) / det
        hi1 = x1 > 1
        lo1 = lnot(hi1) & (x1 < -1)
        x2 = where(hi1, (v - mb) / mc, where(lo1, (v + mb) / mc, x2))
        x1 = where(hi1, 1.0, where(lo1, -1.0, x1))
        hi2 = x2 > 1
        lo2 = lnot(hi2) & (x2 < -1)
        x1 = where(hi2, clip((u - mb) / ma, -1.0, 1.0), where(lo2, clip((u + mb) / ma, -1.0, 1.0), x1))
        x2 = where(hi2, 1.0, where(lo2, -1.0, x2))
        q1 = (b0 * x1 + p1[0], b1 * x1 + p1[1], b2 * x1 + p1[2])
        q2 = (c0 * x2 + p2[0], c1 * x2 + p2[1], c2 * x2 + p2[2])
        n = count(raw_sphere_sphere(d, w, 0, margin, q1, z1, r1, q2, z2, r2, en & general))
    parallel = en & lnot(general)
    if any_true(parallel):
        # parallel axes: contacts at both ends of the overlap of segment 2 projected on segment 1
        # (mujoco 3.17 behaviour, measured: ordered by the segment-1 parameter, duplicates kept)
        pa = (u + mb) / ma
        pb = (u - mb) / ma
        lo = clip(min(pa, pb), -1.0, 1.0)
        hi = clip(max(pa, pb), -1.0, 1.0)
        for x1 in (lo, hi):
            q1 = (b0 * x1 + p1[0], b1 * x1 + p1[1], b2 * x1 + p1[2])
            x2 = clip((v - mb * x1) / mc, -1.0, 1.0)
            q2 = (c0 * x2 + p2[0], c1 * x2 + p2[1], c2 * x2 + p2[2])
            n += count(raw_sphere_sphere(d, w, n, margin, q1, z1, r1, q2, z2, r2, parallel))
    return n
