"""Box narrowphase (engine_collision_box.c): sphere-box, capsule-box and box-box (SAT + face clipping).

Same calling convention as sim/engine/collision/primitive.py: ``f(m, d, w, g1, g2, margin) -> n`` writing
d.scr_con_*[w, :n].  Box-local vectors are tuples; matrices are row-major (9,) views.
"""

import math

from sim.jit import njit

from sim.constants import MINVAL, MAXVAL
from sim.engine.math import normalize3
from sim.engine.collision.primitive import put, zaxis, clip, _pose

# box-box rounding scales (double precision values of MuJoCo's mjBOXBOX_* constants)
SEPEPS = 1e-13  # separation slack per unit of summed half-sizes
PAREPS = 1e-16  # sin^2 below which an edge-cross axis is discarded
SGNEPS = 1e-9  # axis component below which the support corner is ambiguous
DUPEPS = 1e-14  # squared relative radius for deduplicating clipped vertices
EDGEBIAS = 1e-6  # relative penalty of edge axes against the best face axis
MAXVERT = 12  # clipped polygon capacity


@njit(cache=True)
def _mv(mat, v0, v1, v2):
    """mat @ v for a row-major (9,) matrix."""
    return (
        mat[0] * v0 + mat[1] * v1 + mat[2] * v2,
        mat[3] * v0 + mat[4] * v1 + mat[5] * v2,
        mat[6] * v0 + mat[7] * v1 + mat[8] * v2,
    )


@njit(cache=True)
def _mtv(mat, v0, v1, v2):
    """mat^T @ v for a row-major (9,) matrix."""
    return (
        mat[0] * v0 + mat[3] * v1 + mat[6] * v2,
        mat[1] * v0 + mat[4] * v1 + mat[7] * v2,
        mat[2] * v0 + mat[5] * v1 + mat[8] * v2,
    )


@njit(cache=True)
def set3(t, i, v):
    """Tuple t (3,) with component i replaced by v."""
    if i == 0:
        return (v, t[1], t[2])
    if i == 1:
        return (t[0], v, t[2])
    return (t[0], t[1], v)


@njit(cache=True)
def raw_sphere_box(d, w, k, margin, p1, r1, p2, mat2, s2):
    """Sphere (p1, r1) against box (p2, mat2, half-sizes s2) into row k (mjraw_SphereBox)."""
    c0, c1, c2 = _mtv(mat2, p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2])
    k0 = clip(c0, -s2[0], s2[0]) if s2[0] > 0 else c0
    k1 = clip(c1, -s2[1], s2[1]) if s2[1] > 0 else c1
    k2 = clip(c2, -s2[2], s2[2]) if s2[2] > 0 else c2
    t0, t1, t2, dist = normalize3(k0 - c0, k1 - c1, k2 - c2)
    if dist - r1 > margin:
        return 0
    if dist <= MINVAL:
        closest = (s2[0] + s2[1] + s2[2]) * 2
        kk = 0
        cen = (c0, c1, c2)
        for i in range(6):
            sg = 1.0 if i % 2 else -1.0
            v = abs(sg * s2[i // 2] - cen[i // 2])
            if closest > v:
                closest = v
                kk = i
        nr0, nr1, nr2 = 0.0, 0.0, 0.0
        val = -1.0 if kk % 2 else 1.0
        if kk // 2 == 0:
            nr0 = val
        elif kk // 2 == 1:
            nr1 = val
        else:
            nr2 = val
        h = (r1 - closest) / 2
        q0, q1, q2 = c0 + nr0 * h, c1 + nr1 * h, c2 + nr2 * h
        n0, n1, n2 = _mv(mat2, nr0, nr1, nr2)
        dist = -closest
    else:
        e0, e1, e2 = c0 + t0 * r1, c1 + t1 * r1, c2 + t2 * r1
        q0, q1, q2 = 0.0 + k0 * 0.5, 0.0 + k1 * 0.5, 0.0 + k2 * 0.5
        q0, q1, q2 = q0 + e0 * 0.5, q1 + e1 * 0.5, q2 + e2 * 0.5
        n0, n1, n2 = _mv(mat2, t0, t1, t2)
    g0, g1, g2 = _mv(mat2, q0, q1, q2)
    put(d, w, k, dist - r1, g0 + p2[0], g1 + p2[1], g2 + p2[2], n0, n1, n2, 0.0, 0.0, 0.0)
    return 1


@njit(cache=True)
def sphere_box(m, d, w, g1, g2, margin):
    """mjc_SphereBox."""
    p1, _, s1 = _pose(m, d, w, g1)
    p2, mat2, s2 = _pose(m, d, w, g2)
    return raw_sphere_box(d, w, 0, margin, p1, s1[0], p2, mat2, s2)


@njit(cache=True, error_model="numpy")
def capsule_box(m, d, w, g1, g2, margin):
    """mjc_CapsuleBox: closest capsule-segment point to the box, plus a second point when the segment
    lies along a face or edge; each point is collided as a sphere (mjraw_CapsuleBox)."""
    p1, mat1, size1 = _pose(m, d, w, g1)
    p2, mat2, size2 = _pose(m, d, w, g2)
    halflength = size1[1]
    secondpos = -4.0
    pos = _mtv(mat2, p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2])
    z1 = zaxis(mat1)
    axis = _mtv(mat2, z1[0], z1[1], z1[2])
    halfaxis = (axis[0] * halflength, axis[1] * halflength, axis[2] * halflength)
    axisdir = 0
    if halfaxis[0] > 0:
        axisdir += 1
    if halfaxis[1] > 0:
        axisdir += 2
    if halfaxis[2] > 0:
        axisdir += 4
    bestdistmax = margin + 2 * (size1[0] + halflength + size2[0] + size2[1] + size2[2])
    bestdist = bestdistmax
    bestsegmentpos = 0.0
    bestboxpos = 0.0
    cltype = -4
    clface = -1
    clcorner = 0
    cledge = 0

    # box faces against the segment end points
    for i in (-1, 1):
        t = (pos[0] + halfaxis[0] * i, pos[1] + halfaxis[1] * i, pos[2] + halfaxis[2] * i)
        o0, o1, o2 = t[0], t[1], t[2]
        c1 = 0
        c2 = -1
        for j in range(3):
            if t[j] < -size2[j]:
                c1 += 1
                c2 = j
                t = set3(t, j, -size2[j])
            elif t[j] > size2[j]:
                c1 += 1
                c2 = j
                t = set3(t, j, size2[j])
        if c1 > 1:
            continue
        e0, e1, e2 = t[0] - o0, t[1] - o1, t[2] - o2
        dist = e0 * e0 + e1 * e1 + e2 * e2
        if dist < bestdist:
            bestdist = dist
            bestsegmentpos = float(i)
            cltype = -2 + i
            clface = c2

    # box edges against the segment
    for j in range(3):
        for i in range(8):
            if (i & (1 << j)) != 0:
                continue
            c = set3(
                (size2[0] if i & 1 else -size2[0], size2[1] if i & 2 else -size2[1], size2[2] if i & 4 else -size2[2]),
                j,
                0.0,
            )
            dif = (c[0] - pos[0], c[1] - pos[1], c[2] - pos[2])
            ma = size2[j] * size2[j]
            mb = -size2[j] * halfaxis[j]
            mc = size1[1] * size1[1]
            u = -size2[j] * dif[j]
            v = halfaxis[0] * dif[0] + halfaxis[1] * dif[1] + halfaxis[2] * dif[2]
            det = ma * mc - mb * mb
            if abs(det) < MINVAL:
                continue
            idet = 1 / det
            x1 = (mc * u - mb * v) * idet
            x2 = (ma * v - mb * u) * idet
            s1 = 1
            s2 = 1
            if x1 > 1:
                x1 = 1.0
                s1 = 2
                x2 = (v - mb) * (1 / mc)
            elif x1 < -1:
                x1 = -1.0
                s1 = 0
                x2 = (v + mb) * (1 / mc)
            if x2 > 1:
                x2 = 1.0
                s2 = 2
                x1 = (u - mb) * (1 / ma)
                if x1 > 1:
                    x1 = 1.0
                    s1 = 2
                elif x1 < -1:
                    x1 = -1.0
                    s1 = 0
            elif x2 < -1:
                x2 = -1.0
                s2 = 0
                x1 = (u + mb) * (1 / ma)
                if x1 > 1:
                    x1 = 1.0
                    s1 = 2
                elif x1 < -1:
                    x1 = -1.0
                    s1 = 0
            f = (dif[0] + halfaxis[0] * -x2, dif[1] + halfaxis[1] * -x2, dif[2] + halfaxis[2] * -x2)
            f = set3(f, j, f[j] + size2[j] * x1)
            dd = f[0] * f[0] + f[1] * f[1] + f[2] * f[2]
            cc = s1 * 3 + s2
            if dd < bestdist - MINVAL:
                bestdist = dd
                bestsegmentpos = x2
                bestboxpos = x1
                clcorner = i + (1 << j) * (cc // 6)
                cledge = j
                cltype = cc

    if cltype == -4:
        return 0

    mul = 0.0
    if cltype >= 0 and cltype // 3 != 1:
        # closest to a box corner
        c1 = axisdir ^ clcorner
        if c1 == 0 or c1 == 7:
            pass  # no second point: secondpos keeps its sentinel (< -3)
        else:
            de = 0.0
            dp = 0.0
            if c1 == 1 or c1 == 2 or c1 == 4:
                mul = 1.0
                de = 1 - bestsegmentpos
                dp = 1 + bestsegmentpos
            if c1 == 3 or c1 == 5 or c1 == 6:
                mul = -1.0
                c1 = 7 - c1
                dp = 1 - bestsegmentpos
                de = 1 + bestsegmentpos
            ax, ax1, ax2 = 0, 1, 2
            if c1 == 2:
                ax, ax1, ax2 = 1, 2, 0
            if c1 == 4:
                ax, ax1, ax2 = 2, 0, 1
            if axis[ax] * axis[ax] > 0.5:
                secondpos = de
                e1 = 2 * size2[ax] / abs(halfaxis[ax])
                if e1 < secondpos:
                    secondpos = e1
                secondpos *= mul
            else:
                secondpos = dp
                e1 = 2 * size2[ax1] / abs(halfaxis[ax1])
                if e1 < secondpos:
                    secondpos = e1
                e1 = 2 * size2[ax2] / abs(halfaxis[ax2])
                if e1 < secondpos:
                    secondpos = e1
                secondpos *= -mul
    elif cltype >= 0 and cltype // 3 == 1:
        # closest to a box edge
        c1 = axisdir ^ clcorner
        c1 &= 7 - (1 << cledge)
        if c1 != 1 and c1 != 2 and c1 != 4:
            pass  # no second point: secondpos keeps its sentinel (< -3)
        else:
            ax1, ax2 = 1, 2
            if cledge == 1:
                ax1, ax2 = 2, 0
            if cledge == 2:
                ax1, ax2 = 0, 1
            ax = cledge
            if abs(axis[ax1]) > abs(axis[ax2]):
                ax1 = ax2
            ax2 = 3 - ax - ax1
            if c1 & (1 << ax2):
                mul = 1.0
                secondpos = 1 - bestsegmentpos
            else:
                mul = -1.0
                secondpos = 1 + bestsegmentpos
            e1 = 2 * size2[ax2] / abs(halfaxis[ax2])
            if e1 < secondpos:
                secondpos = e1
            if ((axisdir & (1 << ax)) != 0) == ((c1 & (1 << ax2)) != 0):
                e2 = 1 - bestboxpos
            else:
                e2 = 1 + bestboxpos
            e1 = size2[ax] * e2 / abs(halfaxis[ax])
            if e1 < secondpos:
                secondpos = e1
            secondpos *= mul
    elif cltype < 0:
        # a segment end is closest to a box face
        if clface == -1:
            pass  # no second point: secondpos keeps its sentinel (< -3)
        else:
            mul = 1.0 if cltype == -3 else -1.0
            secondpos = 2.0
            t = (pos[0] + halfaxis[0] * -mul, pos[1] + halfaxis[1] * -mul, pos[2] + halfaxis[2] * -mul)
            for i in range(3):
                if i != clface:
                    e1 = (size2[i] - t[i]) / halfaxis[i] * mul
                    if e1 > 0:
                        if e1 < secondpos:
                            secondpos = e1
                    e1 = (-size2[i] - t[i]) / halfaxis[i] * mul
                    if e1 > 0:
                        if e1 < secondpos:
                            secondpos = e1
            secondpos *= mul

    q = _mv(
        mat2,
        pos[0] + halfaxis[0] * bestsegmentpos,
        pos[1] + halfaxis[1] * bestsegmentpos,
        pos[2] + halfaxis[2] * bestsegmentpos,
    )
    n = raw_sphere_box(d, w, 0, margin, (q[0] + p2[0], q[1] + p2[1], q[2] + p2[2]), size1[0], p2, mat2, size2)
    if secondpos > -3:
        sp = secondpos + bestsegmentpos
        q = _mv(mat2, pos[0] + halfaxis[0] * sp, pos[1] + halfaxis[1] * sp, pos[2] + halfaxis[2] * sp)
        n += raw_sphere_box(d, w, n, margin, (q[0] + p2[0], q[1] + p2[1], q[2] + p2[2]), size1[0], p2, mat2, size2)
    return n


@njit(cache=True)
def _clip_half_plane(nin, cur, spare, coord, sign, limit, dk):
    """Clip polygon cur[:nin] against sign*v[coord] <= limit (Sutherland-Hodgman step).

    Returns (nout, swapped): when every vertex is inside cur is untouched; else the result is in spare.
    """
    all_inside = True
    for k in range(nin):
        dk[k] = sign * cur[k, coord] - limit
        if not dk[k] <= 0:
            all_inside = False
    if all_inside:
        return nin, False
    nout = 0
    for k in range(nin):
        k1 = 0 if k + 1 == nin else k + 1
        dp = dk[k]
        dq = dk[k1]
        if dp <= 0 and nout < MAXVERT:
            spare[nout, 0] = cur[k, 0]
            spare[nout, 1] = cur[k, 1]
            spare[nout, 2] = cur[k, 2]
            nout += 1
        if ((dp < 0 and dq > 0) or (dp > 0 and dq < 0)) and nout < MAXVERT:
            t = dp / (dp - dq)
            for c in range(3):
                spare[nout, c] = cur[k, c] + t * (cur[k1, c] - cur[k, c])
            nout += 1
    return nout, True


@njit(cache=True, error_model="numpy")
def box_box(m, d, w, g1, g2, margin):
    """mjc_BoxBox: separating-axis test over 15 axes, then face clipping or an edge-edge contact."""
    p1, mat1, size1 = _pose(m, d, w, g1)
    p2, mat2, size2 = _pose(m, d, w, g2)
    pos21 = _mtv(mat1, p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2])
    pos12 = _mtv(mat2, p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2])
    # rot = mat1^T mat2 (box2 axes in box1 frame, row-major), as a tuple
    rot = (
        mat1[0] * mat2[0] + mat1[3] * mat2[3] + mat1[6] * mat2[6],
        mat1[0] * mat2[1] + mat1[3] * mat2[4] + mat1[6] * mat2[7],
        mat1[0] * mat2[2] + mat1[3] * mat2[5] + mat1[6] * mat2[8],
        mat1[1] * mat2[0] + mat1[4] * mat2[3] + mat1[7] * mat2[6],
        mat1[1] * mat2[1] + mat1[4] * mat2[4] + mat1[7] * mat2[7],
        mat1[1] * mat2[2] + mat1[4] * mat2[5] + mat1[7] * mat2[8],
        mat1[2] * mat2[0] + mat1[5] * mat2[3] + mat1[8] * mat2[6],
        mat1[2] * mat2[1] + mat1[5] * mat2[4] + mat1[8] * mat2[7],
        mat1[2] * mat2[2] + mat1[5] * mat2[5] + mat1[8] * mat2[8],
    )
    rotabs = (
        abs(rot[0]),
        abs(rot[1]),
        abs(rot[2]),
        abs(rot[3]),
        abs(rot[4]),
        abs(rot[5]),
        abs(rot[6]),
        abs(rot[7]),
        abs(rot[8]),
    )

    septol = margin + SEPEPS * (size1[0] + size1[1] + size1[2] + size2[0] + size2[1] + size2[2])
    sep_best = -MAXVAL
    code = -1
    for i in range(3):
        radius2 = rotabs[3 * i] * size2[0] + rotabs[3 * i + 1] * size2[1] + rotabs[3 * i + 2] * size2[2]
        sep = abs(pos21[i]) - size1[i] - radius2
        if sep > septol:
            return 0
        if sep > sep_best:
            sep_best = sep
            code = i
    for j in range(3):
        radius1 = rotabs[j] * size1[0] + rotabs[3 + j] * size1[1] + rotabs[6 + j] * size1[2]
        sep = abs(pos12[j]) - size2[j] - radius1
        if sep > septol:
            return 0
        if sep > sep_best:
            sep_best = sep
            code = 3 + j
    sep_face = sep_best
    code_face = code

    for i in range(3):
        for j in range(3):
            i1 = (i + 1) % 3
            i2 = (i + 2) % 3
            ax1 = -rot[3 * i2 + j]
            ax2 = rot[3 * i1 + j]
            norm2 = ax1 * ax1 + ax2 * ax2
            if norm2 < PAREPS:
                continue
            inv = 1 / math.sqrt(norm2)
            ax1 *= inv
            ax2 *= inv
            radius1 = size1[i1] * abs(ax1) + size1[i2] * abs(ax2)
            j1 = (j + 1) % 3
            j2 = (j + 2) % 3
            a2_1 = ax1 * rot[3 * i1 + j1] + ax2 * rot[3 * i2 + j1]
            a2_2 = ax1 * rot[3 * i1 + j2] + ax2 * rot[3 * i2 + j2]
            radius2 = size2[j1] * abs(a2_1) + size2[j2] * abs(a2_2)
            sep = abs(ax1 * pos21[i1] + ax2 * pos21[i2]) - radius1 - radius2
            if sep > septol:
                return 0
            if sep - EDGEBIAS * abs(sep) > sep_best and sep > sep_face:
                sep_best = sep
                code = 6 + 3 * i + j
    if code < 0:
        return 0

    if code >= 6:
        # substitute the best face axis for a nearly parallel edge axis that is not clearly better
        i = (code - 6) // 3
        j = (code - 6) % 3
        i1 = (i + 1) % 3
        i2 = (i + 2) % 3
        axv = set3(set3((0.0, 0.0, 0.0), i1, -rot[3 * i2 + j]), i2, rot[3 * i1 + j])
        a0, a1, a2, _ = normalize3(axv[0], axv[1], axv[2])
        if code_face < 3:
            face_dot = abs((a0, a1, a2)[code_face])
        else:
            f = code_face - 3
            face_dot = abs(a0 * rot[f] + a1 * rot[3 + f] + a2 * rot[6 + f])
        if face_dot > 0.99 and sep_best < sep_face + 0.05 * abs(sep_face) + MINVAL:
            code = code_face
            sep_best = sep_face

    if code >= 6:
        return _box_edge_contact(d, w, code, rot, pos21, p1, mat1, size1, size2, septol)
    return _box_face_contacts(d, w, code, rot, pos21, pos12, p1, mat1, size1, p2, mat2, size2, margin)


@njit(cache=True)
def _box_edge_contact(d, w, code, rot, pos21, p1, mat1, size1, size2, septol):
    """Edge-edge contact of mjc_BoxBox: midpoint of the closest points of the two supporting edges."""
    i = (code - 6) // 3
    j = (code - 6) % 3
    i1 = (i + 1) % 3
    i2 = (i + 2) % 3
    j1 = (j + 1) % 3
    j2 = (j + 2) % 3
    axv = set3(set3((0.0, 0.0, 0.0), i1, -rot[3 * i2 + j]), i2, rot[3 * i1 + j])
    a0, a1, a2, _ = normalize3(axv[0], axv[1], axv[2])
    if a0 * pos21[0] + a1 * pos21[1] + a2 * pos21[2] < 0:
        a0, a1, a2 = -a0, -a1, -a2
    axis = (a0, a1, a2)
    a2v = (
        a0 * rot[0] + a1 * rot[3] + a2 * rot[6],
        a0 * rot[1] + a1 * rot[4] + a2 * rot[7],
        a0 * rot[2] + a1 * rot[5] + a2 * rot[8],
    )
    amb1 = -1
    amb2 = -1
    if abs(axis[i1]) < SGNEPS:
        amb1 = i1
    elif abs(axis[i2]) < SGNEPS:
        amb1 = i2
    if abs(a2v[j1]) < SGNEPS:
        amb2 = j1
    elif abs(a2v[j2]) < SGNEPS:
        amb2 = j2
    d2 = (rot[j], rot[3 + j], rot[6 + j])
    b = d2[i]
    denom = 1 - b * b
    best_d2 = MAXVAL
    w1 = (0.0, 0.0, 0.0)
    w2 = (0.0, 0.0, 0.0)
    for v1 in range(2 if amb1 >= 0 else 1):
        for v2 in range(2 if amb2 >= 0 else 1):
            c1 = set3((0.0, 0.0, 0.0), i1, size1[i1] if axis[i1] >= 0 else -size1[i1])
            c1 = set3(c1, i2, size1[i2] if axis[i2] >= 0 else -size1[i2])
            if amb1 >= 0 and v1:
                c1 = set3(c1, amb1, -c1[amb1])
            cc = set3((0.0, 0.0, 0.0), j1, -size2[j1] if a2v[j1] >= 0 else size2[j1])
            cc = set3(cc, j2, -size2[j2] if a2v[j2] >= 0 else size2[j2])
            if amb2 >= 0 and v2:
                cc = set3(cc, amb2, -cc[amb2])
            c2 = _mv(rot, cc[0], cc[1], cc[2])
            c2 = (c2[0] + pos21[0], c2[1] + pos21[1], c2[2] + pos21[2])
            e = (c2[0] - c1[0], c2[1] - c1[1], c2[2] - c1[2])
            d1e = e[i]
            d2e = d2[0] * e[0] + d2[1] * e[1] + d2[2] * e[2]
            s = 0.0 if denom < MINVAL else (d1e - b * d2e) / denom
            s = clip(s, -size1[i], size1[i])
            t = clip(b * s - d2e, -size2[j], size2[j])
            s = clip(d1e + b * t, -size1[i], size1[i])
            q1 = set3(c1, i, c1[i] + s)
            q2 = (c2[0] + d2[0] * t, c2[1] + d2[1] * t, c2[2] + d2[2] * t)
            gp = (q2[0] - q1[0], q2[1] - q1[1], q2[2] - q1[2])
            gap2 = gp[0] * gp[0] + gp[1] * gp[1] + gp[2] * gp[2]
            if gap2 < best_d2:
                best_d2 = gap2
                w1 = q1
                w2 = q2
    dist = (w2[0] - w1[0]) * a0 + (w2[1] - w1[1]) * a1 + (w2[2] - w1[2]) * a2
    if dist > septol:
        return 0
    mid = _mv(mat1, 0.5 * (w1[0] + w2[0]), 0.5 * (w1[1] + w2[1]), 0.5 * (w1[2] + w2[2]))
    n = _mv(mat1, a0, a1, a2)
    put(d, w, 0, dist, mid[0] + p1[0], mid[1] + p1[1], mid[2] + p1[2], n[0], n[1], n[2], 0.0, 0.0, 0.0)
    return 1


@njit(cache=True)
def _box_face_contacts(d, w, code, rot, pos21, pos12, p1, mat1, size1, p2, mat2, size2, margin):
    """Face contacts of mjc_BoxBox: incident face clipped by the reference face's side planes."""
    ref1 = code < 3
    a = code if ref1 else code - 3
    sizeref = size1 if ref1 else size2
    sizeinc = size2 if ref1 else size1
    posref = p1 if ref1 else p2
    matref = mat1 if ref1 else mat2
    posoi = pos21 if ref1 else pos12
    if ref1:
        rinc = rot
    else:
        rinc = (rot[0], rot[3], rot[6], rot[1], rot[4], rot[7], rot[2], rot[5], rot[8])
    sgn = 1.0 if posoi[a] >= 0 else -1.0
    binc = 0
    for k in range(1, 3):
        if abs(rinc[3 * a + k]) > abs(rinc[3 * a + binc]):
            binc = k
    tinc = -1.0 if sgn * rinc[3 * a + binc] > 0 else 1.0
    ax = (a + 1) % 3
    ay = (a + 2) % 3
    bu = (binc + 1) % 3
    bv = (binc + 2) % 3
    # incident face center and half-edge offsets in (x, y, z) = (ax, ay, a) reference coordinates
    sb = sizeinc[binc]
    cx = (
        posoi[ax] + tinc * sb * rinc[3 * ax + binc],
        posoi[ay] + tinc * sb * rinc[3 * ay + binc],
        sgn * (posoi[a] + tinc * sb * rinc[3 * a + binc]) - sizeref[a],
    )
    du = (sizeinc[bu] * rinc[3 * ax + bu], sizeinc[bu] * rinc[3 * ay + bu], sizeinc[bu] * rinc[3 * a + bu] * sgn)
    dv = (sizeinc[bv] * rinc[3 * ax + bv], sizeinc[bv] * rinc[3 * ay + bv], sizeinc[bv] * rinc[3 * a + bv] * sgn)
    buf0 = d.scr_boxpoly[w, 0]
    buf1 = d.scr_boxpoly[w, 1]
    dk = d.scr_boxdist[w]
    for k in range(4):
        su = 1.0 if (k == 0 or k == 3) else -1.0
        sv = 1.0 if k < 2 else -1.0
        for r in range(3):
            buf0[k, r] = cx[r] + su * du[r] + sv * dv[r]
    cur = buf0
    spare = buf1
    nvert = 4
    for step in range(4):
        coord = 0 if step < 2 else 1
        sign = 1.0 if step % 2 == 0 else -1.0
        lim = sizeref[ax] if step < 2 else sizeref[ay]
        nvert, swapped = _clip_half_plane(nvert, cur, spare, coord, sign, lim, dk)
        if swapped:
            cur, spare = spare, cur

    normal_s = sgn if ref1 else -sgn
    n0 = normal_s * matref[a]
    n1 = normal_s * matref[3 + a]
    n2 = normal_s * matref[6 + a]
    dupe2 = DUPEPS * (sizeref[ax] * sizeref[ax] + sizeref[ay] * sizeref[ay])
    naccept = 0
    for k in range(nvert):
        if cur[k, 2] > margin:
            continue
        dupe = False
        for q in range(naccept):
            pq = d.scr_con_tangent[w, q]  # accepted (x, y, z) kept in the tangent rows until the end
            dx = pq[0] - cur[k, 0]
            dy = pq[1] - cur[k, 1]
            if dx * dx + dy * dy < dupe2:
                dupe = True
                break
        if not dupe:
            t = d.scr_con_tangent[w, naccept]
            t[0] = cur[k, 0]
            t[1] = cur[k, 1]
            t[2] = cur[k, 2]
            naccept += 1
    for k in range(naccept):
        t = d.scr_con_tangent[w, k]
        vx, vy, vz = t[0], t[1], t[2]
        pc = set3(set3(set3((0.0, 0.0, 0.0), ax, vx), ay, vy), a, sgn * (sizeref[a] + 0.5 * vz))
        g = _mv(matref, pc[0], pc[1], pc[2])
        put(d, w, k, vz, g[0] + posref[0], g[1] + posref[1], g[2] + posref[2], n0, n1, n2, 0.0, 0.0, 0.0)
    return naccept
