"""Convex collision objects and their support functions (MuJoCo mjCCDObj, mjc_*Support, mjc_center).

An object o in {0, 1} lives in per-world scratch:
  d.scr_ccd_f[w, o] (20,): pos [0:3], mat [3:12] (row-major), size [12:16], margin [16]
  d.scr_ccd_i[w, o] (8,):  geom, geom type, vertindex, meshindex, mesh/hfield id, support override
                           (0 own, 1 point, 2 line), hill-climb flag
Height-field prisms (mjc_ConvexHField) keep their 6 vertices in d.scr_prism[w] (6, 3).
"""

import math
from sim.jit import njit
from sim.engine.math import normalize3

from sim.constants import GEOM_SPHERE, GEOM_CAPSULE, GEOM_ELLIPSOID, GEOM_CYLINDER, GEOM_BOX, GEOM_MESH, GEOM_HFIELD
from sim.constants import MINVAL  # mjMINVAL

MINVAL2 = MINVAL * MINVAL
FLT_MAX = 3.4028234663852886e38
MESH_HILLCLIMB_MIN = 10  # mjMESH_HILLCLIMB_MIN

# columns of scr_ccd_f / scr_ccd_i
F_POS, F_MAT, F_SIZE, F_MARGIN = 0, 3, 12, 16
I_GEOM, I_TYPE, I_VERT, I_MESHI, I_DATA, I_MODE, I_HILL = 0, 1, 2, 3, 4, 5, 6
MODE_OWN, MODE_POINT, MODE_LINE = 0, 1, 2


@njit(cache=True)
def init_obj(m, d, w, o, g, margin):
    """Set object o from geom g at its global pose (mjc_initCCDObj)."""
    f = d.scr_ccd_f[w, o]
    iv = d.scr_ccd_i[w, o]
    t = m.geom_type[g]
    iv[I_GEOM] = g
    iv[I_TYPE] = t
    iv[I_VERT] = -1
    iv[I_MESHI] = -1
    iv[I_DATA] = m.geom_dataid[g]
    iv[I_MODE] = MODE_OWN
    iv[I_HILL] = 0
    f[F_MARGIN] = margin
    for k in range(3):
        f[F_POS + k] = d.geom_xpos[w, g, k]
        f[F_SIZE + k] = m.geom_size[g, k]
    f[F_SIZE + 3] = 0.0
    for k in range(9):
        f[F_MAT + k] = d.geom_xmat[w, g, k]
    if t == GEOM_MESH:
        mid = m.geom_dataid[g]
        if m.mesh_graphadr[mid] >= 0 and m.mesh_vertnum[mid] >= MESH_HILLCLIMB_MIN:
            iv[I_HILL] = 1
    elif t == GEOM_HFIELD:
        hid = m.geom_dataid[g]
        for k in range(4):
            f[F_SIZE + k] = m.hfield_size[hid, k]


@njit(cache=True)
def center(m, d, w, o):
    """Center (3,) of object o (mjc_center): geom position or prism centroid."""
    if d.scr_ccd_i[w, o, I_TYPE] == GEOM_HFIELD:
        p = d.scr_prism[w]
        x = 0.0
        y = 0.0
        z = 0.0
        for i in range(6):
            x += p[i, 0]
            y += p[i, 1]
            z += p[i, 2]
        s = 1.0 / 6.0
        return x * s, y * s, z * s
    f = d.scr_ccd_f[w, o]
    return f[0], f[1], f[2]


@njit(cache=True)
def _to_global(f, l0, l1, l2):
    """mat * local + pos (localToGlobal)."""
    return (
        f[3] * l0 + f[4] * l1 + f[5] * l2 + f[0],
        f[6] * l0 + f[7] * l1 + f[8] * l2 + f[1],
        f[9] * l0 + f[10] * l1 + f[11] * l2 + f[2],
    )


@njit(cache=True)
def _to_local(f, d0, d1, d2):
    """mat^T * dir (mulMatTVec3)."""
    return (f[3] * d0 + f[6] * d1 + f[9] * d2, f[4] * d0 + f[7] * d1 + f[10] * d2, f[5] * d0 + f[8] * d1 + f[11] * d2)


@njit(cache=True)
def _mesh_exhaustive(m, f, iv, l0, l1, l2):
    """Index of the mesh vertex with largest projection, warm-started from the cache (mjc_meshSupport)."""
    mid = iv[I_DATA]
    adr = m.mesh_vertadr[mid]
    nv = m.mesh_vertnum[mid]
    vert = m.mesh_vert
    best = -FLT_MAX
    imax = 0
    if iv[I_VERT] >= 0:
        imax = iv[I_VERT]
        best = l0 * vert[adr + imax, 0] + l1 * vert[adr + imax, 1] + l2 * vert[adr + imax, 2]
    for i in range(nv):
        v = l0 * vert[adr + i, 0] + l1 * vert[adr + i, 1] + l2 * vert[adr + i, 2]
        if v > best:
            best = v
            imax = i
    iv[I_VERT] = imax
    return imax


@njit(cache=True)
def _climb(graph, vert, adr, edgeadr, globalid, localid, start, l0, l1, l2):
    """Hill climbing on a convex-hull graph from local vertex start: move to any neighbour with a larger
    projection on (l0, l1, l2), scanning the start vertex's neighbour list, until no neighbour improves;
    returns the local vertex index (the climb of mjc_hillclimbSupport and of the ccd mesh support)."""
    imax = start
    gi = adr + graph[globalid + imax]
    best = l0 * vert[gi, 0] + l1 * vert[gi, 1] + l2 * vert[gi, 2]
    prev = -1
    while imax != prev:
        prev = imax
        i = graph[edgeadr + imax]
        while True:
            sub = graph[localid + i]
            if sub < 0:
                break
            gs = adr + graph[globalid + sub]
            v = l0 * vert[gs, 0] + l1 * vert[gs, 1] + l2 * vert[gs, 2]
            if v > best:
                best = v
                imax = sub
            i += 1
    return imax


@njit(cache=True)
def _mesh_hillclimb(m, f, iv, l0, l1, l2):
    """Index of the support vertex by hill climbing on the convex-hull graph (mjc_hillclimbSupport)."""
    mid = iv[I_DATA]
    adr = m.mesh_vertadr[mid]
    vert = m.mesh_vert
    gadr = m.mesh_graphadr[mid]
    graph = m.mesh_graph
    numvert = graph[gadr]
    edgeadr = gadr + 2
    globalid = gadr + 2 + numvert
    localid = gadr + 2 + 2 * numvert
    cx = int(l0 > 0.4) - int(l0 < -0.4) + 1
    cy = int(l1 > 0.4) - int(l1 < -0.4) + 1
    cz = int(l2 > 0.4) - int(l2 < -0.4) + 1
    seed = m.mesh_extrema[mid, cx * 9 + cy * 3 + cz]
    if iv[I_MESHI] >= 0:
        gc = adr + graph[globalid + iv[I_MESHI]]
        gs = adr + graph[globalid + seed]
        cached = l0 * vert[gc, 0] + l1 * vert[gc, 1] + l2 * vert[gc, 2]
        sd = l0 * vert[gs, 0] + l1 * vert[gs, 1] + l2 * vert[gs, 2]
        imax = seed if sd > cached else iv[I_MESHI]
    else:
        imax = seed
    imax = _climb(graph, vert, adr, edgeadr, globalid, localid, imax, l0, l1, l2)
    iv[I_MESHI] = imax
    iv[I_VERT] = graph[globalid + imax]
    return iv[I_VERT]


@njit(cache=True)
def support(m, d, w, o, d0, d1, d2):
    """Support point (3,) of object o along unit direction (d0, d1, d2) (obj->support); updates caches."""
    f = d.scr_ccd_f[w, o]
    iv = d.scr_ccd_i[w, o]
    mode = iv[I_MODE]
    if mode == MODE_POINT:
        return f[0], f[1], f[2]
    if mode == MODE_LINE:
        dot = f[5] * d0 + f[8] * d1 + f[11] * d2
        scl = f[F_SIZE + 1] if dot >= 0 else -f[F_SIZE + 1]
        return f[5] * scl + f[0], f[8] * scl + f[1], f[11] * scl + f[2]
    t = iv[I_TYPE]
    if t == GEOM_SPHERE:
        r = f[F_SIZE]
        return r * d0 + f[0], r * d1 + f[1], r * d2 + f[2]
    if t == GEOM_HFIELD:
        p = d.scr_prism[w]
        ist = 0 if d2 < 0 else 3
        ib = ist
        best = p[ist, 0] * d0 + p[ist, 1] * d1 + p[ist, 2] * d2
        for i in range(1, 3):
            v = p[ist + i, 0] * d0 + p[ist + i, 1] * d1 + p[ist + i, 2] * d2
            if v > best:
                ib = ist + i
                best = v
        return p[ib, 0], p[ib, 1], p[ib, 2]
    l0, l1, l2 = _to_local(f, d0, d1, d2)
    s0 = f[F_SIZE]
    s1 = f[F_SIZE + 1]
    s2 = f[F_SIZE + 2]
    if t == GEOM_CAPSULE:
        r0 = l0 * s0
        r1 = l1 * s0
        r2 = l2 * s0
        r2 += s1 if l2 >= 0 else -s1
        return _to_global(f, r0, r1, r2)
    if t == GEOM_ELLIPSOID:
        r0 = l0 * s0
        r1 = l1 * s1
        r2 = l2 * s2
        n2 = r0 * r0 + r1 * r1 + r2 * r2
        if n2 < MINVAL2:
            return f[3] * s0 + f[0], f[6] * s0 + f[1], f[9] * s0 + f[2]
        inv = 1 / math.sqrt(n2)
        r0 *= inv * s0
        r1 *= inv * s1
        r2 *= inv * s2
        return _to_global(f, r0, r1, r2)
    if t == GEOM_CYLINDER:
        n2 = l0 * l0 + l1 * l1
        scl = s0 / math.sqrt(n2) if n2 >= MINVAL2 else 0.0
        # feature index: 0 on the top cap's rim, 1 on the bottom's (the cylinder faces of multicontact)
        iv[I_VERT] = 0 if l2 >= 0 else 1
        return _to_global(f, scl * l0, scl * l1, s1 if l2 >= 0 else -s1)
    if t == GEOM_BOX:
        r0 = s0 if l0 >= 0 else -s0
        r1 = s1 if l1 >= 0 else -s1
        r2 = s2 if l2 >= 0 else -s2
        vi = 1 if r0 > 0 else 0
        if r1 > 0:
            vi |= 2
        if r2 > 0:
            vi |= 4
        iv[I_VERT] = vi
        return _to_global(f, r0, r1, r2)
    # mesh
    if iv[I_HILL]:
        i = _mesh_hillclimb(m, f, iv, l0, l1, l2)
    else:
        i = _mesh_exhaustive(m, f, iv, l0, l1, l2)
    a = m.mesh_vertadr[iv[I_DATA]] + i
    return _to_global(f, m.mesh_vert[a, 0], m.mesh_vert[a, 1], m.mesh_vert[a, 2])


@njit(cache=True)
def mesh_argmax(m, mid, l0, l1, l2):
    """Index of mesh mid's first vertex of largest projection on local direction (l0, l1, l2), -1 if none
    exceeds -1e10 (mjccd_support's exhaustive search)."""
    adr = m.mesh_vertadr[mid]
    vert = m.mesh_vert
    best = -1e10
    ib = -1
    for i in range(m.mesh_vertnum[mid]):
        v = l0 * vert[adr + i, 0] + l1 * vert[adr + i, 1] + l2 * vert[adr + i, 2]
        if v > best:
            best = v
            ib = i
    return ib


@njit(cache=True)
def ccd_support(m, d, w, o, d0, d1, d2):
    """libccd-style support (mjccd_support) with margin/2 inflation; used by mjc_PlaneConvex.

    Returns the point (3,); for meshes the chosen vertex (exhaustive: global index, graph: local id) is
    left in d.scr_ccd_i[w, o, I_MESHI] as MuJoCo's obj->meshindex.
    """
    f = d.scr_ccd_f[w, o]
    iv = d.scr_ccd_i[w, o]
    t = iv[I_TYPE]
    l0, l1, l2 = _to_local(f, d0, d1, d2)
    s0 = f[F_SIZE]
    s1 = f[F_SIZE + 1]
    s2 = f[F_SIZE + 2]
    if t == GEOM_ELLIPSOID:
        r0 = l0 * s0
        r1 = l1 * s1
        r2 = l2 * s2
        r0, r1, r2, _ = normalize3(r0, r1, r2)
        r0 *= s0
        r1 *= s1
        r2 *= s2
    elif t == GEOM_MESH:
        mid = iv[I_DATA]
        adr = m.mesh_vertadr[mid]
        vert = m.mesh_vert
        gadr = m.mesh_graphadr[mid]
        if gadr < 0:
            ib = mesh_argmax(m, mid, l0, l1, l2)
            iv[I_MESHI] = ib
        else:
            graph = m.mesh_graph
            numvert = graph[gadr]
            edgeadr = gadr + 2
            globalid = gadr + 2 + numvert
            localid = gadr + 2 + 2 * numvert
            ib = _climb(graph, vert, adr, edgeadr, globalid, localid, 0 if iv[I_MESHI] < 0 else iv[I_MESHI], l0, l1, l2)
            iv[I_MESHI] = ib
            ib = graph[globalid + ib]
        r0 = vert[adr + ib, 0]
        r1 = vert[adr + ib, 1]
        r2 = vert[adr + ib, 2]
    else:
        return support(m, d, w, o, d0, d1, d2)
    h = f[F_MARGIN] / 2
    r0 += l0 * h
    r1 += l1 * h
    r2 += l2 * h
    return (
        f[3] * r0 + f[4] * r1 + f[5] * r2 + f[0],
        f[6] * r0 + f[7] * r1 + f[8] * r2 + f[1],
        f[9] * r0 + f[10] * r1 + f[11] * r2 + f[2],
    )
