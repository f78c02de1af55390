"""Convex hulls as MuJoCo builds them (mjCMesh::MakeGraph, user_mesh.cc): qhull with MuJoCo's options, through scipy.

MuJoCo runs qhull ("qhull Qt", plus "Q9 TA<n>" for maxhullvert), then qh_triangulate and qh_vertexneighbors, and
lays out the hull in qhull's own orders:

* hull vertices in the order of qhull's vertex list (qh.vertex_list);
* each vertex's neighbours: for each facet around the vertex, in the order of the vertex's neighbour set, the
  facet's other vertices in the facet's vertex-set order, first occurrence kept;
* faces in the order of qhull's facet list, the first two vertices swapped for a facet of top orientation.

scipy's qhull (scipy.spatial, qhull 2020.2, the same algorithm as MuJoCo 3.17's qhull 8.1-alpha) computes the
same hull; its Python API gives the facet list (facets and their vertex sets in qhull's order) but not the vertex
list, the neighbour sets, nor the facets' orientation flags.  Those are read here from the qhull state that
scipy's private `_Qhull` object keeps alive: qhull's facet / vertex / set structures (facetT, vertexT, setT of
libqhull_r.h) are read with ctypes, at the byte offsets of qhull 2020.2 on 64-bit little-endian platforms.  The
qhT is found through the object's `options` field and checked (dimension, point count, point array) before any
pointer in it is followed; the facet and vertex lists are located by their counts and every structure read is
checked against what scipy's API reports (the same facets, vertex sets and counts) before it is used.  When a
check fails (another scipy build or qhull version), the hull is laid out from the API alone: the same hull (vertex
set, faces, their orientation), neighbour lists in facet-list order as qh_vertexneighbors builds them, hull
vertices in order of first appearance in the facet list; a warning says so.
"""

import ctypes
import struct
import sys
import warnings

import numpy as np

__all__ = ["Hull", "QhullError", "convex_hull"]


class QhullError(Exception):
    """qhull could not build the hull (MuJoCo: "qhull error")."""


class Hull:
    """qhull's hull of a point cloud in MuJoCo's layout.

    vertices: (nv,) point ids of the hull vertices (MuJoCo's vert_globalid order).
    neighbors: list (per hull vertex) of the point ids of its neighbours (MuJoCo's edge order).
    faces: (nf, 3) point ids of the triangles (MuJoCo's face_globalid, counter-clockwise seen from outside).
    exact: True when the layout was read from qhull's state (identical to MuJoCo's), False for the fallback.
    """

    def __init__(self, vertices, neighbors, faces, exact):
        self.vertices = vertices
        self.neighbors = neighbors
        self.faces = faces
        self.exact = exact


# qhull 2020.2 structure offsets on 64-bit platforms (libqhull_r.h): the fields read here
_QH_HULL_DIM, _QH_NUM_POINTS, _QH_FIRST_POINT = 632, 640, 648  # qhT (before its jmp_buf members)
_QH_SCAN = (704, 4096)  # qhT byte range searched for the facet / vertex list block (after the jmp_bufs)
# offsets inside the list block that starts at qh.facet_list
_L_NUM_VISIBLE, _L_VERTEX_LIST, _L_NUM_FACETS, _L_NUM_VERTICES = 40, 88, 112, 116
_F_NEXT, _F_VERTICES, _F_ID, _F_FLAGS = 56, 64, 108, 112  # facetT
_F_TOPORIENT_BIT = 12  # nummerge:9, tricoplanar, newfacet, visible
_V_NEXT, _V_POINT, _V_NEIGHBORS = 0, 16, 24  # vertexT


def _u64(addr):
    return ctypes.c_uint64.from_address(addr).value


def _i32(addr):
    return ctypes.c_int32.from_address(addr).value


def _set_items(addr):
    """Elements of a qhull setT (pointers) at addr: maxsize, then elements; the slot after the last holds size+1,
    or 0 when the set is full."""
    if not addr:
        return []
    maxsize = _i32(addr)
    if maxsize < 0 or maxsize > 1 << 24:
        raise _Unreadable("set size")
    raw = ctypes.string_at(addr + 8, 8 * maxsize + 4)
    last = struct.unpack_from("<i", raw, 8 * maxsize)[0]
    size = maxsize if last == 0 else last - 1
    if size < 0 or size > maxsize:
        raise _Unreadable("set size")
    return list(struct.unpack_from("<%dQ" % size, raw)) if size else []


class _Unreadable(Exception):
    pass


def _qh_address(q, points):
    """Address of the qhT that the scipy `_Qhull` object q keeps: the pointer field declared four fields before
    the `options` bytes object (whose id is known), checked against hull_dim, num_points and first_point."""
    words = (ctypes.c_uint64 * (type(q).__basicsize__ // 8)).from_address(id(q))
    k = next((i for i, w in enumerate(words) if w == id(q.options)), None)
    if k is None or k < 4 or words[k + 1] != id(q.mode_option):
        raise _Unreadable("_Qhull layout")
    qh = words[k - 4]
    if (
        not qh
        or _i32(qh + _QH_HULL_DIM) != 3
        or _i32(qh + _QH_NUM_POINTS) != len(points)
        or _u64(qh + _QH_FIRST_POINT) != points.ctypes.data
    ):
        raise _Unreadable("qhT layout")
    return qh


def _read_state(q, points, facets_api):
    """qhull's vertex list, neighbour sets and facet orientation, read from its structures (64-bit little-endian
    platforms: the offsets above)."""
    if ctypes.sizeof(ctypes.c_void_p) != 8 or sys.byteorder != "little":
        raise _Unreadable("not a 64-bit little-endian platform")
    qh = _qh_address(q, points)
    nf, nv = len(facets_api), len(np.unique(facets_api))
    block = None
    for off in range(_QH_SCAN[0], _QH_SCAN[1], 8):
        a = qh + off
        if (
            _i32(a + _L_NUM_FACETS) == nf
            and _i32(a + _L_NUM_VERTICES) == nv
            and _i32(a + _L_NUM_VISIBLE) == 0
            and _u64(a)
            and _u64(a + _L_VERTEX_LIST)
        ):
            block = a
            break
    if block is None:
        raise _Unreadable("facet list")
    base, stride, npts = points.ctypes.data, 8 * 3, len(points)

    def pid(vertex):
        p = _u64(vertex + _V_POINT) - base
        if p < 0 or p % stride or p // stride >= npts:
            raise _Unreadable("point id")
        return p // stride

    # facet list (FORALLfacets: up to the sentinel, whose next is NULL)
    fptr, fverts, ftop, index = _u64(block), [], [], {}
    span = _F_FLAGS + 4 - _F_NEXT
    while fptr:
        raw = ctypes.string_at(fptr + _F_NEXT, span)
        nxt, vset = struct.unpack_from("<QQ", raw)
        if not nxt:
            break
        if len(fverts) >= nf:
            raise _Unreadable("facet count")
        vs = _set_items(vset)
        if len(vs) != 3:
            raise _Unreadable("facet vertices")
        index[fptr] = len(fverts)
        fverts.append(vs)
        ftop.append((struct.unpack_from("<I", raw, _F_FLAGS - _F_NEXT)[0] >> _F_TOPORIENT_BIT) & 1)
        fptr = nxt
    if len(fverts) != nf:
        raise _Unreadable("facet count")
    vpid = {v: pid(v) for v in {v for vs in fverts for v in vs}}
    fpid = np.array([[vpid[v] for v in vs] for vs in fverts], dtype=np.int64).reshape(-1, 3)
    if not np.array_equal(fpid, facets_api):
        raise _Unreadable("facets differ from scipy's")
    # vertex list (FORALLvertices)
    order, vptr = [], _u64(block + _L_VERTEX_LIST)
    while vptr and _u64(vptr + _V_NEXT):
        if len(order) >= nv:
            raise _Unreadable("vertex count")
        order.append(vptr)
        vptr = _u64(vptr + _V_NEXT)
    if len(order) != nv or set(order) != set(vpid):
        raise _Unreadable("vertex list")
    nsets = [_set_items(_u64(v + _V_NEIGHBORS)) for v in order]
    if all(not s for s in nsets):
        nbr_facets = None  # qh.VERTEXneighbors unset (no merge happened): qh_vertexneighbors builds them
    elif all(s for s in nsets):
        try:
            nbr_facets = [[index[f] for f in s] for s in nsets]
        except KeyError:
            raise _Unreadable("neighbour set") from None
    else:
        raise _Unreadable("neighbour sets")
    return np.array([vpid[v] for v in order], dtype=np.int64), nbr_facets, np.array(ftop, dtype=bool)


def _fresh_neighbors(vertices, facets):
    """qh_vertexneighbors: each vertex's facets in facet-list order."""
    pos = {p: i for i, p in enumerate(vertices.tolist())}
    out = [[] for _ in pos]
    for j, f in enumerate(facets.tolist()):
        for p in f:
            out[pos[p]].append(j)
    return out


def _orientation_from_planes(points, facets, equations):
    """Top orientation of each facet as MuJoCo uses it (swap of the first two vertices gives an outward
    triangle), from the facet planes; a zero-area triangle takes its orientation from an edge neighbour."""
    a, b, c = points[facets[:, 0]], points[facets[:, 1]], points[facets[:, 2]]
    d = np.einsum("ij,ij->i", np.cross(b - a, c - a), equations[:, :3])
    top = d < 0
    unknown = list(np.flatnonzero(d == 0))
    edges = {}
    for j, f in enumerate(facets):
        for k in range(3):
            edges.setdefault((int(f[k]), int(f[(k + 1) % 3])), []).append(j)
    for _ in range(len(unknown)):
        if not unknown:
            break
        left = []
        for j in unknown:
            f = facets[j]
            src = None
            for k in range(3):
                u, v = int(f[k]), int(f[(k + 1) % 3])
                for n in edges.get((u, v), []) + edges.get((v, u), []):
                    if n != j and n not in unknown:
                        src = (u, v, n)
                        break
                if src:
                    break
            if src is None:
                left.append(j)
                continue
            u, v, n = src
            g = facets[n]
            gout = [g[1], g[0], g[2]] if top[n] else list(g)
            # f runs u -> v in its stored order; outward, it must run the shared edge against its neighbour
            top[j] = any(int(gout[k]) == u and int(gout[(k + 1) % 3]) == v for k in range(3))
        unknown = left
    return top


def convex_hull(points, maxhullvert=-1):
    """qhull's convex hull of (n, 3) float64 points in MuJoCo's layout (a Hull); QhullError when qhull fails."""
    from scipy.spatial import _qhull

    pts = np.ascontiguousarray(points, dtype=np.float64).copy()
    opts = b"" if maxhullvert < 0 else b"Q9 TA%d" % (maxhullvert - 4)
    try:
        q = _qhull._Qhull(b"i", pts, opts, required_options=b"Qt")
    except _qhull.QhullError as e:
        raise QhullError(str(e).strip()) from None
    try:
        q.triangulate()
        facets, _, equations, _, _ = q.get_simplex_facet_array()
        facets = np.asarray(facets, dtype=np.int64)
        try:
            vertices, nbr_facets, top = _read_state(q, pts, facets)
            exact = True
        except _Unreadable as e:
            warnings.warn(
                f"numjoco: qhull's internal lists could not be read from scipy ({e}); convex hulls are "
                "MuJoCo's but their vertex and neighbour order may differ",
                stacklevel=3,
            )
            seen = {}
            for p in facets.reshape(-1):
                seen.setdefault(int(p), None)
            vertices = np.array(list(seen), dtype=np.int64)
            nbr_facets = None
            top = _orientation_from_planes(pts, facets, np.asarray(equations))
            exact = False
    finally:
        q.close()
    if nbr_facets is None:
        nbr_facets = _fresh_neighbors(vertices, facets)
    fl3 = facets.tolist()
    neighbors = [
        list(dict.fromkeys(p1 for j in fl for p1 in fl3[j] if p1 != p))  # first occurrences, in order
        for p, fl in zip(vertices.tolist(), nbr_facets)
    ]
    faces = facets.copy()
    faces[top, 0], faces[top, 1] = facets[top, 1], facets[top, 0]
    return Hull(vertices, neighbors, faces, exact)
