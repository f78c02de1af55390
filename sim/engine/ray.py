"""Ray casting (engine_ray.c mj_ray): nearest intersection of pnt + x*vec (x >= 0) with visible geoms.

Primitive geoms (plane, sphere, capsule, ellipsoid, cylinder, box), meshes (triangles, traversing the mesh
BVH as mju_rayTree; the BVH comes from the model: a mujoco.MjModel or a sim.load_model Model) and height
fields (mj_rayHfield) are supported; SDF geoms raise UnsupportedFeature in ``ray``.  ray_mesh_normal and
ray_hfield_normal add the surface normal at the hit (mj_rayMesh / mj_rayHfield with `normal`); the primitives'
normals are sim/engine/sensor.py's ray_normal.
"""

import math

import numpy as np
from sim.jit import njit

from sim.engine.math import mat_vec3, mat_t_vec3
from sim.constants import (
    GEOM_BOX,
    GEOM_CAPSULE,
    GEOM_CYLINDER,
    GEOM_ELLIPSOID,
    GEOM_HFIELD,
    GEOM_MESH,
    GEOM_PLANE,
    GEOM_SPHERE,
    MINVAL,
    NGROUP,
)


@njit(cache=True)
def _map(pos, mat, pnt, vec):
    """Ray point and direction in the geom frame (ray_map)."""
    d0, d1, d2 = pnt[0] - pos[0], pnt[1] - pos[1], pnt[2] - pos[2]
    lp = (
        mat[0] * d0 + mat[3] * d1 + mat[6] * d2,
        mat[1] * d0 + mat[4] * d1 + mat[7] * d2,
        mat[2] * d0 + mat[5] * d1 + mat[8] * d2,
    )
    lv = (
        mat[0] * vec[0] + mat[3] * vec[1] + mat[6] * vec[2],
        mat[1] * vec[0] + mat[4] * vec[1] + mat[7] * vec[2],
        mat[2] * vec[0] + mat[5] * vec[1] + mat[8] * vec[2],
    )
    return lp, lv


@njit(cache=True)
def _quad(a, b, c):
    """Roots x0 <= x1 of a x^2 + 2 b x + c = 0 and the smallest non-negative one, else -1 (ray_quad)."""
    det = b * b - a * c
    if det < 0 or a < MINVAL:
        return -1.0, -1.0, -1.0
    det = math.sqrt(det)
    x0 = (-b - det) / a
    x1 = (-b + det) / a
    if x0 >= 0:
        return x0, x0, x1
    if x1 >= 0:
        return x1, x0, x1
    return -1.0, x0, x1


@njit(cache=True)
def ray_plane(pos, mat, size, pnt, vec):
    """Front face of a plane, within its rendered rectangle when size > 0 (ray_plane)."""
    lp, lv = _map(pos, mat, pnt, vec)
    if lv[2] > -MINVAL:
        return -1.0
    x = -lp[2] / lv[2]
    if x < 0:
        return -1.0
    p0 = lp[0] + x * lv[0]
    p1 = lp[1] + x * lv[1]
    if (size[0] <= 0 or abs(p0) <= size[0]) and (size[1] <= 0 or abs(p1) <= size[1]):
        return x
    return -1.0


@njit(cache=True)
def ray_sphere(pos, dist_sqr, pnt, vec):
    """Sphere of squared radius dist_sqr (ray_sphere)."""
    d0, d1, d2 = pnt[0] - pos[0], pnt[1] - pos[1], pnt[2] - pos[2]
    a = vec[0] * vec[0] + vec[1] * vec[1] + vec[2] * vec[2]
    b = vec[0] * d0 + vec[1] * d1 + vec[2] * d2
    c = d0 * d0 + d1 * d1 + d2 * d2 - dist_sqr
    return _quad(a, b, c)[0]


@njit(cache=True)
def ray_capsule(pos, mat, size, pnt, vec):
    """Capsule: round side between the caps, top and bottom half spheres (ray_capsule)."""
    ssz = size[0] + size[1]
    if ray_sphere(pos, ssz * ssz, pnt, vec) < 0:
        return -1.0
    lp, lv = _map(pos, mat, pnt, vec)
    x = -1.0
    a = lv[0] * lv[0] + lv[1] * lv[1]
    b = lv[0] * lp[0] + lv[1] * lp[1]
    c = lp[0] * lp[0] + lp[1] * lp[1] - size[0] * size[0]
    sol = _quad(a, b, c)[0]
    if sol >= 0 and abs(lp[2] + sol * lv[2]) <= size[1]:
        x = sol
    a = lv[0] * lv[0] + lv[1] * lv[1] + lv[2] * lv[2]
    for side in (1.0, -1.0):
        l2 = lp[2] - size[1] * side
        b = lv[0] * lp[0] + lv[1] * lp[1] + lv[2] * l2
        c = lp[0] * lp[0] + lp[1] * lp[1] + l2 * l2 - size[0] * size[0]
        _, x0, x1 = _quad(a, b, c)
        for xx in (x0, x1):
            z = lp[2] + xx * lv[2]
            if xx >= 0 and ((side > 0 and z >= size[1]) or (side < 0 and z <= -size[1])):
                if x < 0 or xx < x:
                    x = xx
    return x


@njit(cache=True)
def ray_ellipsoid(pos, mat, size, pnt, vec):
    """Ellipsoid (ray_ellipsoid)."""
    lp, lv = _map(pos, mat, pnt, vec)
    s0, s1, s2 = 1 / (size[0] * size[0]), 1 / (size[1] * size[1]), 1 / (size[2] * size[2])
    a = s0 * lv[0] * lv[0] + s1 * lv[1] * lv[1] + s2 * lv[2] * lv[2]
    b = s0 * lv[0] * lp[0] + s1 * lv[1] * lp[1] + s2 * lv[2] * lp[2]
    c = s0 * lp[0] * lp[0] + s1 * lp[1] * lp[1] + s2 * lp[2] * lp[2] - 1
    return _quad(a, b, c)[0]


@njit(cache=True)
def ray_cylinder(pos, mat, size, pnt, vec):
    """Cylinder: flat caps within the radius, round side between the caps (ray_cylinder)."""
    ssz = size[0] * size[0] + size[1] * size[1]
    if ray_sphere(pos, ssz, pnt, vec) < 0:
        return -1.0
    lp, lv = _map(pos, mat, pnt, vec)
    x = -1.0
    if abs(lv[2]) > MINVAL:
        for side in (-1.0, 1.0):
            sol = (side * size[1] - lp[2]) / lv[2]
            if sol >= 0:
                p0 = lp[0] + sol * lv[0]
                p1 = lp[1] + sol * lv[1]
                if p0 * p0 + p1 * p1 <= size[0] * size[0]:
                    if x < 0 or sol < x:
                        x = sol
    a = lv[0] * lv[0] + lv[1] * lv[1]
    b = lv[0] * lp[0] + lv[1] * lp[1]
    c = lp[0] * lp[0] + lp[1] * lp[1] - size[0] * size[0]
    sol = _quad(a, b, c)[0]
    if sol >= 0 and abs(lp[2] + sol * lv[2]) <= size[1]:
        if x < 0 or sol < x:
            x = sol
    return x


@njit(cache=True)
def _box_face(lp, lv, size, i, side):
    """Distance to the box face at side*size[i] if the local ray crosses it within the rectangle, else -1."""
    if not abs(lv[i]) > MINVAL:
        return -1.0
    i0 = 1 if i == 0 else 0
    i1 = 1 if i == 2 else 2
    sol = (side * size[i] - lp[i]) / lv[i]
    if sol >= 0:
        p0 = lp[i0] + sol * lv[i0]
        p1 = lp[i1] + sol * lv[i1]
        if abs(p0) <= size[i0] and abs(p1) <= size[i1]:
            return sol
    return -1.0


@njit(cache=True)
def ray_box_all(pos, mat, size, pnt, vec):
    """Box: the 6 faces (ray_box with `all`): (x, all) where all[2*axis + (side+1)/2] is the distance to the
    face at side*size[axis] when the ray crosses it (else -1), x the nearest of them (-1: no hit)."""
    ssz = size[0] * size[0] + size[1] * size[1] + size[2] * size[2]
    if ray_sphere(pos, ssz, pnt, vec) < 0:
        return -1.0, (-1.0, -1.0, -1.0, -1.0, -1.0, -1.0)
    lp, lv = _map(pos, mat, pnt, vec)
    all_ = (
        _box_face(lp, lv, size, 0, -1.0),
        _box_face(lp, lv, size, 0, 1.0),
        _box_face(lp, lv, size, 1, -1.0),
        _box_face(lp, lv, size, 1, 1.0),
        _box_face(lp, lv, size, 2, -1.0),
        _box_face(lp, lv, size, 2, 1.0),
    )
    x = -1.0
    for k in range(6):
        if all_[k] >= 0 and (x < 0 or all_[k] < x):
            x = all_[k]
    return x, all_


@njit(cache=True)
def ray_box(pos, mat, size, pnt, vec):
    """Box: the 6 faces (ray_box)."""
    return ray_box_all(pos, mat, size, pnt, vec)[0]


@njit(cache=True, error_model="numpy")
def _slab(aabb, pos, mat, pnt, vec):
    """Ray against a box (center, half-size) in the geom frame (mju_raySlab)."""
    src, dr = _map(pos, mat, pnt, vec)
    tmin = 0.0
    tmax = np.inf
    for k in range(3):
        inv = 1.0 / dr[k]  # IEEE: +-inf for a zero component, as in C
        t1 = ((aabb[k] - aabb[3 + k]) - src[k]) * inv
        t2 = ((aabb[k] + aabb[3 + k]) - src[k]) * inv
        mn = t1 if t1 < t2 else t2
        mx = t2 if t1 < t2 else t1
        tmin = tmin if tmin > mn else mn
        tmax = tmax if tmax < mx else mx
    return tmin < tmax


@njit(cache=True)
def _ray_triangle(v, lp, lv, b0, b1):
    """(x, n0, n1, n2): ray against triangle v (3, 3) in the geom frame, b0/b1 span the plane normal to lv
    (ray_triangle); n = (v0 - v2) x (v1 - v2), the triangle normal before mju_normalize3 (zero without a hit)."""
    p00 = b0[0] * (v[0][0] - lp[0]) + b0[1] * (v[0][1] - lp[1]) + b0[2] * (v[0][2] - lp[2])
    p01 = b1[0] * (v[0][0] - lp[0]) + b1[1] * (v[0][1] - lp[1]) + b1[2] * (v[0][2] - lp[2])
    p10 = b0[0] * (v[1][0] - lp[0]) + b0[1] * (v[1][1] - lp[1]) + b0[2] * (v[1][2] - lp[2])
    p11 = b1[0] * (v[1][0] - lp[0]) + b1[1] * (v[1][1] - lp[1]) + b1[2] * (v[1][2] - lp[2])
    p20 = b0[0] * (v[2][0] - lp[0]) + b0[1] * (v[2][1] - lp[1]) + b0[2] * (v[2][2] - lp[2])
    p21 = b1[0] * (v[2][0] - lp[0]) + b1[1] * (v[2][1] - lp[1]) + b1[2] * (v[2][2] - lp[2])
    if (
        (p00 > 0 and p10 > 0 and p20 > 0)
        or (p00 < 0 and p10 < 0 and p20 < 0)
        or (p01 > 0 and p11 > 0 and p21 > 0)
        or (p01 < 0 and p11 < 0 and p21 < 0)
    ):
        return -1.0, 0.0, 0.0, 0.0
    a0, a1, a2, a3 = p00 - p20, p10 - p20, p01 - p21, p11 - p21
    bb0, bb1 = -p20, -p21
    det = a0 * a3 - a1 * a2
    if abs(det) < MINVAL:
        return -1.0, 0.0, 0.0, 0.0
    t0 = (a3 * bb0 - a1 * bb1) / det
    t1 = (-a2 * bb0 + a0 * bb1) / det
    if t0 < 0 or t1 < 0 or t0 + t1 > 1:
        return -1.0, 0.0, 0.0, 0.0
    e0 = (v[0][0] - v[2][0], v[0][1] - v[2][1], v[0][2] - v[2][2])
    e1 = (v[1][0] - v[2][0], v[1][1] - v[2][1], v[1][2] - v[2][2])
    e2 = (lp[0] - v[2][0], lp[1] - v[2][1], lp[2] - v[2][2])
    n0 = e0[1] * e1[2] - e0[2] * e1[1]
    n1 = e0[2] * e1[0] - e0[0] * e1[2]
    n2 = e0[0] * e1[1] - e0[1] * e1[0]
    denom = lv[0] * n0 + lv[1] * n1 + lv[2] * n2
    if abs(denom) < MINVAL:
        return -1.0, 0.0, 0.0, 0.0
    return -(e2[0] * n0 + e2[1] * n1 + e2[2] * n2) / denom, n0, n1, n2


@njit(cache=True)
def _normalize(x, y, z):
    """mju_normalize3 (scaled by the reciprocal of the norm, as MuJoCo does)."""
    n = math.sqrt(x * x + y * y + z * z)
    if n < MINVAL:
        return 1.0, 0.0, 0.0
    inv = 1 / n
    return x * inv, y * inv, z * inv


@njit(cache=True)
def _plane_basis(lv):
    """Orthonormal b0, b1 spanning the plane normal to the local ray direction lv (mj_rayMesh, mj_rayHfield)."""
    if abs(lv[0]) >= abs(lv[1]) and abs(lv[0]) >= abs(lv[2]):
        b0 = (0.0, 1.0, 1.0)
    elif abs(lv[1]) >= abs(lv[2]):
        b0 = (1.0, 0.0, 1.0)
    else:
        b0 = (1.0, 1.0, 0.0)
    s = -(lv[0] * b0[0] + lv[1] * b0[1] + lv[2] * b0[2]) / (lv[0] * lv[0] + lv[1] * lv[1] + lv[2] * lv[2])
    c0, c1, c2 = _normalize(b0[0] + lv[0] * s, b0[1] + lv[1] * s, b0[2] + lv[2] * s)
    bb0 = _normalize(c1 * lv[2] - c2 * lv[1], c2 * lv[0] - c0 * lv[2], c0 * lv[1] - c1 * lv[0])
    return bb0, (c0, c1, c2)


@njit(cache=True)
def _nearest_face(all_, x):
    """Index 2*axis + (side+1)/2 of the face where ray_box_all found its nearest hit x (ray_box's face_axis,
    face_side: the first face in MuJoCo's loop order at that distance)."""
    for k in range(6):
        if all_[k] == x:
            return k
    return 0


@njit(cache=True)
def _face_vec(k):
    """Unit outward normal (3,) of box face k = 2*axis + (side+1)/2 in the box frame."""
    s = 1.0 if k & 1 else -1.0
    a = k >> 1
    return (s if a == 0 else 0.0, s if a == 1 else 0.0, s if a == 2 else 0.0)


@njit(cache=True)
def _hfield_hit(m, pos, mat, g, pnt, vec):
    """(x, kind, n0, n1, n2) of mj_rayHfield: base box, then the two triangles of each grid cell the ray crosses
    inside the top box, then the four sides of the top box below the boundary profile.  kind says what was hit
    and what n is: 0 nothing; 1 the base box, top box missed (n: face normal, box frame); 2 the base box, top box
    crossed (n as 1); 3 a triangle (n its normal before normalizing); 4 a side of the top box (n: unit, geom
    frame)."""
    hid = m.geom_dataid[g]
    nrow = m.hfield_nrow[hid]
    ncol = m.hfield_ncol[hid]
    size = m.hfield_size[hid]
    adr = m.hfield_adr[hid]
    data = m.hfield_data
    base_size = (size[0], size[1], size[3] * 0.5)
    base_pos = (pos[0] - mat[2] * size[3] * 0.5, pos[1] - mat[5] * size[3] * 0.5, pos[2] - mat[8] * size[3] * 0.5)
    top_size = (size[0], size[1], size[2] * 0.5)
    top_pos = (pos[0] + mat[2] * size[2] * 0.5, pos[1] + mat[5] * size[2] * 0.5, pos[2] + mat[8] * size[2] * 0.5)
    x, all_b = ray_box_all(base_pos, mat, base_size, pnt, vec)
    kind = 0
    n0 = n1 = n2 = 0.0
    if x >= 0:
        kind = 1
        n0, n1, n2 = _face_vec(_nearest_face(all_b, x))
    top, all_ = ray_box_all(top_pos, mat, top_size, pnt, vec)
    if top < 0:
        return x, kind, n0, n1, n2
    if kind == 1:
        kind = 2
    lp, lv = _map(pos, mat, pnt, vec)
    b0, b1 = _plane_basis(lv)
    # ray segment inside the top box
    seg0, seg1 = 0.0, top
    for i in range(6):
        if all_[i] > seg1:
            seg0 = top
            seg1 = all_[i]
    dx = (2.0 * size[0]) / (ncol - 1)
    dy = (2.0 * size[1]) / (nrow - 1)
    sx0 = (lp[0] + seg0 * lv[0] + size[0]) / dx
    sx1 = (lp[0] + seg1 * lv[0] + size[0]) / dx
    sy0 = (lp[1] + seg0 * lv[1] + size[1]) / dy
    sy1 = (lp[1] + seg1 * lv[1] + size[1]) / dy
    cmin = max(0, int(math.floor(min(sx0, sx1))) - 1)
    cmax = min(ncol - 1, int(math.ceil(max(sx0, sx1))) + 1)
    rmin = max(0, int(math.floor(min(sy0, sy1))) - 1)
    rmax = min(nrow - 1, int(math.ceil(max(sy0, sy1))) + 1)
    for r in range(rmin, rmax):
        for c in range(cmin, cmax):
            x0, x1 = dx * c - size[0], dx * (c + 1) - size[0]
            y0, y1 = dy * r - size[1], dy * (r + 1) - size[1]
            z00 = data[adr + r * ncol + c] * size[2]
            z01 = data[adr + r * ncol + c + 1] * size[2]
            z11 = data[adr + (r + 1) * ncol + c + 1] * size[2]
            z10 = data[adr + (r + 1) * ncol + c] * size[2]
            # two triangles per cell, counter-clockwise seen from above (their normals point up)
            sol, t0, t1, t2 = _ray_triangle(((x0, y0, z00), (x1, y0, z01), (x1, y1, z11)), lp, lv, b0, b1)
            if sol >= 0 and (x < 0 or sol < x):
                x = sol
                kind = 3
                n0, n1, n2 = t0, t1, t2
            sol, t0, t1, t2 = _ray_triangle(((x0, y0, z00), (x1, y1, z11), (x0, y1, z10)), lp, lv, b0, b1)
            if sol >= 0 and (x < 0 or sol < x):
                x = sol
                kind = 3
                n0, n1, n2 = t0, t1, t2
    # sides of the top box (x = -+size[0], y = -+size[1]): hit when below the edge profile
    for i in range(4):
        if all_[i] >= 0 and (all_[i] < x or x < 0):
            z = (lp[2] + all_[i] * lv[2]) / size[2]
            if i < 2:
                y = (lp[1] + all_[i] * lv[1] + size[1]) / dy
                yb = max(0.0, min(nrow - 2.0, math.floor(y)))
                col = ncol - 1 if i == 1 else 0
                z0 = data[adr + _round(yb) * ncol + col]
                z1 = data[adr + _round(yb + 1) * ncol + col]
            else:
                y = (lp[0] + all_[i] * lv[0] + size[0]) / dx
                yb = max(0.0, min(ncol - 2.0, math.floor(y)))
                row = (nrow - 1) * ncol if i == 3 else 0
                z0 = data[adr + _round(yb) + row]
                z1 = data[adr + _round(yb + 1) + row]
            if z < z0 * (yb + 1 - y) + z1 * (y - yb):
                x = all_[i]
                kind = 4
                n0, n1, n2 = _face_vec(i)
    return x, kind, n0, n1, n2


@njit(cache=True)
def ray_hfield(m, pos, mat, g, pnt, vec):
    """Height field (mj_rayHfield): distance, -1 if none."""
    return _hfield_hit(m, pos, mat, g, pnt, vec)[0]


@njit(cache=True)
def ray_hfield_normal(m, pos, mat, g, pnt, vec):
    """(x, n0, n1, n2): mj_rayHfield with its normal (global frame, zero without a hit).  As MuJoCo: a base
    box hit is rotated to the global frame, back to the geom frame when the ray crosses the top box, and to
    the global frame again; a triangle's normal is normalized, then rotated."""
    x, kind, n0, n1, n2 = _hfield_hit(m, pos, mat, g, pnt, vec)
    if kind == 0:
        return x, 0.0, 0.0, 0.0
    if kind == 1 or kind == 2:
        n0, n1, n2 = mat_vec3(mat, n0, n1, n2)  # ray_box's normal
        if kind == 1:
            return x, n0, n1, n2
        n0, n1, n2 = mat_t_vec3(mat, n0, n1, n2)
    elif kind == 3:
        n0, n1, n2 = _normalize(n0, n1, n2)
    n0, n1, n2 = mat_vec3(mat, n0, n1, n2)
    return x, n0, n1, n2


@njit(cache=True)
def _round(v):
    """mju_round: C round() (halves away from zero) to int."""
    return int(math.floor(v + 0.5)) if v >= 0 else -int(math.floor(-v + 0.5))


@njit(cache=True)
def _mesh_hit(m, bvh, pos, mat, size, g, pnt, vec, stack):
    """(x, n0, n1, n2) of mj_rayMesh: bounding box, then BVH traversal with ray-triangle tests (mju_rayTree);
    n is the hit triangle's normal before normalizing (geom frame), zero without a hit."""
    if ray_box(pos, mat, size, pnt, vec) < 0:
        return -1.0, 0.0, 0.0, 0.0
    mid = m.geom_dataid[g]
    bvh_aabb, bvh_child, bvh_nodeid, mesh_bvhadr = bvh
    adr = mesh_bvhadr[mid]
    lp, lv = _map(pos, mat, pnt, vec)
    bb0, bb1 = _plane_basis(lv)
    x = -1.0
    n0 = n1 = n2 = 0.0
    nstack = 1
    stack[0] = 0
    vadr = m.mesh_vertadr[mid]
    fadr = m.mesh_faceadr[mid]
    while nstack:
        nstack -= 1
        node = stack[nstack]
        if not _slab(bvh_aabb[adr + node], pos, mat, pnt, vec):
            continue
        fid = bvh_nodeid[adr + node]
        if fid != -1:
            f = m.mesh_face[fid + fadr]
            v = (
                (m.mesh_vert[vadr + f[0], 0], m.mesh_vert[vadr + f[0], 1], m.mesh_vert[vadr + f[0], 2]),
                (m.mesh_vert[vadr + f[1], 0], m.mesh_vert[vadr + f[1], 1], m.mesh_vert[vadr + f[1], 2]),
                (m.mesh_vert[vadr + f[2], 0], m.mesh_vert[vadr + f[2], 1], m.mesh_vert[vadr + f[2], 2]),
            )
            sol, t0, t1, t2 = _ray_triangle(v, lp, lv, bb0, bb1)
            if sol >= 0 and (x < 0 or sol < x):
                x = sol
                n0, n1, n2 = t0, t1, t2
            continue
        for i in range(2):
            ch = bvh_child[adr + node, i]
            if ch != -1:
                stack[nstack] = ch
                nstack += 1
    return x, n0, n1, n2


@njit(cache=True)
def ray_mesh(m, bvh, pos, mat, size, g, pnt, vec, stack):
    """Mesh (mj_rayMesh): distance, -1 if none."""
    return _mesh_hit(m, bvh, pos, mat, size, g, pnt, vec, stack)[0]


@njit(cache=True)
def ray_mesh_normal(m, bvh, pos, mat, size, g, pnt, vec, stack):
    """(x, n0, n1, n2): mj_rayMesh with its normal, the hit triangle's face normal (v0 - v2) x (v1 - v2)
    normalized and rotated to the global frame (its winding decides the side, as in MuJoCo); zero without a
    hit."""
    x, n0, n1, n2 = _mesh_hit(m, bvh, pos, mat, size, g, pnt, vec, stack)
    if x < 0:
        return x, 0.0, 0.0, 0.0
    n0, n1, n2 = _normalize(n0, n1, n2)
    n0, n1, n2 = mat_vec3(mat, n0, n1, n2)
    return x, n0, n1, n2


@njit(cache=True)
def eliminate(m, vis, g, geomgroup, use_group, flg_static, bodyexclude):
    """True if geom g is skipped: excluded body, invisible, static, or group off (ray_eliminate).

    vis = (geom_matid, geom_group, geom_rgba alpha, mat_rgba alpha), passed in from Python.
    """
    geom_matid, geom_group, geom_alpha, mat_alpha = vis
    if m.geom_bodyid[g] == bodyexclude:
        return True
    mat = geom_matid[g]
    if mat < 0 and geom_alpha[g] == 0:
        return True
    if mat >= 0 and mat_alpha[mat] == 0:
        return True
    if not flg_static and m.body_weldid[m.geom_bodyid[g]] == 0:
        return True
    if not use_group:
        return False
    gid = min(NGROUP - 1, max(0, geom_group[g]))
    return geomgroup[gid] == 0


@njit(cache=True)
def ray_kernel(m, d, w, vis, bvh, pnt, vec, geomgroup, use_group, flg_static, bodyexclude, stack):
    """(dist, geomid) of the nearest hit of pnt + x vec, x >= 0, over non-eliminated geoms (mj_ray)."""
    dist = -1.0
    gid = -1
    for g in range(m.ngeom):
        if eliminate(m, vis, g, geomgroup, use_group, flg_static, bodyexclude):
            continue
        t = m.geom_type[g]
        pos = d.geom_xpos[w, g]
        mat = d.geom_xmat[w, g]
        size = m.geom_size[g]
        if t == GEOM_PLANE:
            nd = ray_plane(pos, mat, size, pnt, vec)
        elif t == GEOM_SPHERE:
            nd = ray_sphere(pos, size[0] * size[0], pnt, vec)
        elif t == GEOM_CAPSULE:
            nd = ray_capsule(pos, mat, size, pnt, vec)
        elif t == GEOM_ELLIPSOID:
            nd = ray_ellipsoid(pos, mat, size, pnt, vec)
        elif t == GEOM_CYLINDER:
            nd = ray_cylinder(pos, mat, size, pnt, vec)
        elif t == GEOM_BOX:
            nd = ray_box(pos, mat, size, pnt, vec)
        elif t == GEOM_MESH:
            nd = ray_mesh(m, bvh, pos, mat, size, g, pnt, vec, stack)
        elif t == GEOM_HFIELD:
            nd = ray_hfield(m, pos, mat, g, pnt, vec)
        else:
            nd = -1.0
        if nd >= 0 and (nd < dist or dist < 0):
            dist = nd
            gid = g
    return dist, gid
