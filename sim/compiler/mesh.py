"""Mesh assets: loading (STL / OBJ / MSH / inline), processing and the mesh_* Model fields.

Follows MuJoCo's mjCMesh (user_mesh.cc) step by step, with one function per MuJoCo step:

    load (stl/obj decoder plugins, LoadMSH, inline vertex/face) -> CheckInitialMesh -> Process:
      half-edge orientation check -> MakeGraph (convex hull) -> MakeNormal -> MakePolygons ->
      left-handed winding swap -> ApplyTransformations (refpos, refquat, scale) -> ComputeFaceCentroid ->
      ComputeVolume / ComputeSurfaceArea -> ComputeInertia -> mjuu_eig3 -> inertia box ->
      translate to the centre of mass + Rotate to the principal axes (aamm) -> MakePolygonNormals.

Arithmetic is done in the order MuJoCo does it (sequential sums, float32 where MuJoCo stores float) so that
symmetric meshes, whose principal axes are decided by rounding noise, still come out identical.

The convex hull is qhull's, run through scipy with MuJoCo's options and laid out in qhull's orders as MuJoCo
lays it out (compiler.qhull): mesh_graph, hull faces and everything derived from them as MuJoCo's.
"""

import itertools
import math
import os
import struct
import warnings

import numpy as np

from sim.mjcf import numbers

from sim.user_util import EIG_TOL_MESH, eig3, normvec, quat2mat, rotvec
from .bvh import mesh_tree
from . import mesh_builtin, mesh_cache, qhull

MINVAL = 1e-15  # mjMINVAL
EPS = 1e-14  # mjEPS (user code)

INERTIA_CONVEX, INERTIA_EXACT, INERTIA_LEGACY, INERTIA_SHELL = 0, 1, 2, 3  # mjtMeshInertia
GEOM_PLANE, GEOM_HFIELD, GEOM_SPHERE, GEOM_CAPSULE, GEOM_ELLIPSOID, GEOM_CYLINDER, GEOM_BOX, GEOM_MESH, GEOM_SDF = (
    range(9)
)

_CONTENT_TYPES = {".stl": "model/stl", ".obj": "model/obj", ".msh": "model/vnd.mujoco.msh"}


class Mesh:
    """One compiled mesh (the mjCMesh state MuJoCo copies into the Model)."""

    def __init__(self, name, el):
        self.name = name
        self.el = el
        self.vert = np.zeros((0, 3), np.float32)  # final vertices (float32, principal frame)
        self.normal = np.zeros((0, 3), np.float32)
        self.texcoord = np.zeros((0, 2), np.float32)
        self.face = np.zeros((0, 3), np.int32)
        self.facenormal = np.zeros((0, 3), np.int32)
        self.facetexcoord = np.zeros((0, 3), np.int32)
        self.graph = None  # int32 array (MuJoCo's convex hull graph) or None
        self.polygons = []  # list of vertex-id lists
        self.polygon_normals = np.zeros((0, 3))
        self.polygon_map = None  # per vertex, the polygons through it: (count (nvert,), ids), _polygon_map
        self.pos = np.zeros(3)
        self.quat = np.array([1.0, 0, 0, 0])
        self.scale = np.ones(3)
        self.volume = 0.0
        self.surface = 0.0
        self.boxsz = np.zeros(3)
        self.aamm = np.array([1e10, 1e10, 1e10, -1e10, -1e10, -1e10])
        self.inertia = INERTIA_LEGACY
        self.material = ""
        self.tree = None  # bvh.Tree over the faces (mjCMesh::tree_)

    def volume_ref(self):
        """GetVolumeRef: surface area for shell inertia, else volume."""
        return self.surface if self.inertia == INERTIA_SHELL else self.volume


# ---------------------------------------------------------------------------------------------- helpers


def _err(el, msg, attr=None):
    return el.error(msg, attr)


def _f32(x):
    return np.asarray(x, dtype=np.float32)


def _cross(a, b):
    """Row-wise cross product with mjuu_crossvec's expression order."""
    return np.stack(
        [
            a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
            a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
            a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0],
        ],
        axis=-1,
    )


def _dot3(a, b):
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1] + a[..., 2] * b[..., 2]


def _seqsum(x, axis=0):
    """Left-to-right sum (as a C loop accumulates), not numpy's pairwise summation."""
    x = np.asarray(x, dtype=np.float64)
    if x.shape[axis] == 0:
        return np.sum(x, axis=axis)
    return np.take(np.add.accumulate(x, axis=axis), -1, axis=axis)


def _triangles(dvert, face):
    """The static helper `triangle` of user_mesh.cc for all faces: (area, unit normal, center).

    Faces whose normal length is below mjMINVAL get area 0 (and an unnormalised normal)."""
    v1, v2, v3 = dvert[face[:, 0]], dvert[face[:, 1]], dvert[face[:, 2]]
    center = (v1 + v2 + v3) / 3
    nrm = _cross(v2 - v1, v3 - v1)
    length = np.sqrt(_dot3(nrm, nrm))
    small = length < MINVAL
    safe = np.where(small, 1.0, length)
    normal = np.where(small[:, None], nrm, nrm / safe[:, None])
    area = np.where(small, 0.0, 0.5 * length)
    return area, normal, center


def _mulvecmat(m, v):
    """mjuu_mulvecmat: rows of v (n,3) multiplied by the matrix m (res = m @ v)."""
    return np.stack(
        [
            m[0, 0] * v[:, 0] + m[0, 1] * v[:, 1] + m[0, 2] * v[:, 2],
            m[1, 0] * v[:, 0] + m[1, 1] * v[:, 1] + m[1, 2] * v[:, 2],
            m[2, 0] * v[:, 0] + m[2, 1] * v[:, 1] + m[2, 2] * v[:, 2],
        ],
        axis=-1,
    )


def _mulvecmatT(m, v):
    """mjuu_mulvecmatT: res = m^T @ v for rows of v."""
    return np.stack(
        [
            m[0, 0] * v[:, 0] + m[1, 0] * v[:, 1] + m[2, 0] * v[:, 2],
            m[0, 1] * v[:, 0] + m[1, 1] * v[:, 1] + m[2, 1] * v[:, 2],
            m[0, 2] * v[:, 0] + m[1, 2] * v[:, 1] + m[2, 2] * v[:, 2],
        ],
        axis=-1,
    )


def strippath(filename):
    """mjuu_strippath: drop the directory part."""
    return filename.replace("\\", "/").rsplit("/", 1)[-1]


def stripext(filename):
    """mjuu_stripext: drop the last extension."""
    i = filename.rfind(".")
    return filename if i < 0 else filename[:i]


def asset_path(ctx, filename, kind, el=None):
    """Path of an asset file: compiler strippath, then meshdir / texturedir / assetdir as MuJoCo resolves them
    (those of the model the asset element `el` comes from, for an attached model)."""
    comp = ctx.comp_of(el)
    if comp.get("strippath"):
        filename = strippath(filename)
    if os.path.isabs(filename):
        return filename
    assetdir = comp.get("assetdir", "") or ""
    d = ""
    if kind == "mesh":
        d = comp.get("meshdir", "") or assetdir
    elif kind == "texture":
        d = comp.get("texturedir", "") or assetdir
    else:
        d = assetdir
    return os.path.join(d, filename) if d else filename


def content_type(el, filename):
    """GetAssetContentType: the explicit content_type, else from the file extension."""
    ct = el.get("content_type", "") or ""
    if ct:
        return ct
    return _CONTENT_TYPES.get(os.path.splitext(filename)[1].lower(), "")


def load_stl(el, data, fname):
    """Binary STL, as MuJoCo's stl_decoder: vertices are de-duplicated by exact bit pattern in order of first
    appearance. ASCII STL is rejected, as by MuJoCo."""
    n = len(data)
    if n == 0:
        raise _err(el, f"STL file '{fname}' is empty", "file")
    if n < 84:
        raise _err(el, f"invalid header in STL file '{fname}'", "file")
    nface = struct.unpack_from("<i", data, 80)[0]
    if nface < 1 or nface > 200000:
        raise _err(
            el,
            f"number of faces should be between 1 and 200000 in STL file '{fname}'; "
            "perhaps this is an ASCII file? (MuJoCo reads binary STL only)",
            "file",
        )
    if nface * 50 != n - 84:
        raise _err(
            el,
            f"STL file '{fname}' has wrong size; perhaps this is an ASCII file? (MuJoCo reads binary STL only)",
            "file",
        )
    rec = np.frombuffer(
        data, dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")]), count=nface, offset=84
    )
    v = np.ascontiguousarray(rec["v"].reshape(-1, 3))
    if np.any(np.abs(v.astype(np.float64)) > 2.0**30):
        raise _err(el, f"vertex in STL file '{fname}' exceeds maximum bounds", "file")
    bits = v.view(np.int32).reshape(-1, 3)
    _, first, inverse = np.unique(bits, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # unique rows in order of first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    face = rank[inverse.reshape(-1)].reshape(-1, 3)
    return {"vert": v[first[order]].astype(np.float32), "face": face.astype(np.int64)}


def _obj_index(tok, count, el, fname, what):
    i = int(tok)
    if i > 0:
        return i - 1
    if i < 0:
        return count + i
    raise _err(el, f"invalid {what} index 0 in OBJ file '{fname}'", "file")


def load_obj(el, data, fname):
    """Wavefront OBJ as MuJoCo's obj_decoder (tinyobjloader): v/vt/vn and faces of the first shape;
    quads are split into two triangles along the shorter diagonal, other polygons are fanned."""
    verts, normals, texcoords = [], [], []
    faces = []  # list of lists of (v, vt, vn)
    shapes = 0  # faces before the second group/object belong to the first shape only
    try:
        text = data.decode("utf-8", errors="replace")
    except Exception:  # pragma: no cover
        raise _err(el, f"could not parse OBJ file '{fname}'", "file") from None
    in_first = True
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        key = parts[0]
        try:
            if key == "v":
                verts.append([float(x) for x in parts[1:4]])
                if len(verts[-1]) != 3:
                    raise ValueError
            elif key == "vn":
                normals.append([float(x) for x in parts[1:4]])
            elif key == "vt":
                uv = [float(x) for x in parts[1:3]]
                texcoords.append(uv + [0.0] * (2 - len(uv)))
            elif key in ("o", "g"):
                if faces:
                    in_first = False
                shapes += 1
            elif key == "f":
                if not in_first:
                    continue
                poly = []
                for tok in parts[1:]:
                    sub = tok.split("/")
                    vi = _obj_index(sub[0], len(verts), el, fname, "vertex")
                    ti = _obj_index(sub[1], len(texcoords), el, fname, "texcoord") if len(sub) > 1 and sub[1] else -1
                    ni = _obj_index(sub[2], len(normals), el, fname, "normal") if len(sub) > 2 and sub[2] else -1
                    poly.append((vi, ti, ni))
                if len(poly) < 3:
                    continue
                faces.append(poly)
        except ValueError:
            raise _err(el, f"could not parse OBJ file '{fname}' (line {lineno})", "file") from None
    vert = np.array(verts, dtype=np.float64).reshape(-1, 3)
    tri = []
    for poly in faces:
        if len(poly) == 3:
            tri.append(poly)
        elif len(poly) == 4:
            p = [vert[q[0]] if 0 <= q[0] < len(vert) else np.zeros(3) for q in poly]
            p = [np.asarray(x, dtype=np.float32) for x in p]
            e02 = p[2] - p[0]
            e13 = p[3] - p[1]
            if float(np.dot(e02, e02)) < float(np.dot(e13, e13)):
                tri += [[poly[0], poly[1], poly[2]], [poly[0], poly[2], poly[3]]]
            else:
                tri += [[poly[0], poly[1], poly[3]], [poly[1], poly[2], poly[3]]]
        else:
            raise el.error(
                f"OBJ file '{fname}' has a face with {len(poly)} vertices; only triangles and "
                "quads are supported by numjoco",
                "file",
                cls=_unsupported_cls(),
            )
    out = {
        "vert": vert.astype(np.float32),
        "face": np.array([[q[0] for q in t] for t in tri], dtype=np.int64).reshape(-1, 3),
    }
    out["normal"] = np.array(normals, dtype=np.float32).reshape(-1, 3)
    tc = np.array(texcoords, dtype=np.float32).reshape(-1, 2)
    if len(tc):
        tc[:, 1] = np.float32(1) - tc[:, 1]
    out["texcoord"] = tc
    if len(out["normal"]):
        out["facenormal"] = np.array([[q[2] for q in t] for t in tri], dtype=np.int64).reshape(-1, 3)
    if len(tc):
        out["facetexcoord"] = np.array([[q[1] for q in t] for t in tri], dtype=np.int64).reshape(-1, 3)
    out["is_obj"] = True
    return out


def _unsupported_cls():
    from sim.errors import UnsupportedError

    return UnsupportedError


def load_msh(el, data, fname, righthand):
    """MuJoCo's legacy binary MSH format (LoadMSH)."""
    n = len(data)
    if n == 0:
        raise _err(el, f"MSH file '{fname}' is empty", "file")
    if n < 16:
        raise _err(el, f"missing header in MSH file '{fname}'", "file")
    nv, nn, nt, nf = struct.unpack_from("<4i", data, 0)
    if nv < 4 or nf < 0 or nn < 0 or nt < 0 or (nn > 0 and nn != nv) or (nt > 0 and nt != nv):
        raise _err(el, f"invalid sizes in MSH file '{fname}'", "file")
    if n != 16 + 12 * nv + 12 * nn + 8 * nt + 12 * nf:
        raise _err(el, f"unexpected file size in MSH file '{fname}'", "file")
    off = 16
    vert = np.frombuffer(data, "<f4", 3 * nv, off).reshape(-1, 3).astype(np.float32)
    off += 12 * nv
    out = {"vert": vert}
    if nn:
        out["normal"] = np.frombuffer(data, "<f4", 3 * nv, off).reshape(-1, 3).astype(np.float32)
        off += 12 * nv
    if nt:
        out["texcoord"] = np.frombuffer(data, "<f4", 2 * nv, off).reshape(-1, 2).astype(np.float32)
        off += 8 * nv
    if nf:
        face = np.frombuffer(data, "<i4", 3 * nf, off).reshape(-1, 3).astype(np.int64)
        out["facenormal"] = face.copy()
        if nt:
            out["facetexcoord"] = face.copy()
        if not righthand:
            face = face[:, [0, 2, 1]]
        out["face"] = face
    return out


def _check_finite(el, vert):
    bad = np.nonzero(~np.isfinite(vert).all(axis=1))[0]
    if len(bad):
        raise _err(el, f"vertex coordinate {int(bad[0])} is not finite")


def make_builtin_data(el):
    """OneMesh's builtin step: the user data a procedural mesh generates (mjs_makeMesh), or None without builtin.

    As the XML reader, any builtin value (also "none") requires params; MuJoCo's params errors name the
    params attribute."""
    if not el.has("builtin"):
        return None
    for other in ("vertex", "file"):  # mjcf.schema's exclusions
        if el.has(other):
            raise _err(el, f"Schema violation: at most one of 'builtin', '{other}' can be specified", other)
    tokens = numbers.split(el.get("params", "") or "")
    if not tokens:
        raise _err(el, "required attribute missing: 'params'", "params")
    try:
        params = [numbers.real(t) for t in tokens]
    except numbers.NumberError:
        raise _err(el, "bad format in attribute 'params'", "params") from None
    try:
        return mesh_builtin.make_builtin(int(el.get("builtin")), params)
    except mesh_builtin.BuiltinError as e:
        raise _err(el, str(e), "params") from None


def load_mesh_data(ctx, el, builtin=None):
    """Raw mesh data of one <mesh>: dict with float32 vert/normal/texcoord and int face/facenormal/facetexcoord
    (TryCompile's loading part, including the 'repeated ... specification' checks). `builtin` (the generated
    data of a procedural mesh) replaces the user vertices, faces and normals it sets, as mjs_makeMesh does."""
    spec = {}
    if el.has("vertex"):
        v = np.asarray(el.get("vertex"), dtype=np.float64)
        if len(v) % 3:
            raise _err(el, "vertex data must be a multiple of 3", "vertex")
        spec["vert"] = _f32(v).reshape(-1, 3)
    if el.has("face"):
        f = np.asarray(el.get("face"), dtype=np.int64)
        if len(f) % 3:
            raise _err(el, "face data must be a multiple of 3", "face")
        spec["face"] = f.reshape(-1, 3)
    if el.has("normal"):
        nrm = np.asarray(el.get("normal"), dtype=np.float64)
        if len(nrm) % 3:
            raise _err(el, "normal data must be a multiple of 3", "normal")
        spec["normal"] = _f32(nrm).reshape(-1, 3)
    if el.has("texcoord"):
        tc = np.asarray(el.get("texcoord"), dtype=np.float64)
        if len(tc) % 2:
            raise _err(el, "texcoord must be a multiple of 2", "texcoord")
        spec["texcoord"] = _f32(tc).reshape(-1, 2)
    if builtin is not None:
        spec.update({k: v for k, v in builtin.items() if k in ("vert", "face", "normal")})
    if "vert" in spec:
        _check_finite(el, spec["vert"])

    file = el.get("file", "") or ""
    if not file:
        spec["content_type"] = el.get("content_type", "") or ""
        return spec
    path = asset_path(ctx, file, "mesh", el)
    ct = content_type(el, path)
    data = ctx.doc.source.read(path, el)
    scale = el.get("scale")
    if ct == "model/stl":
        got = load_stl(el, data, file)
    elif ct == "model/obj":
        got = load_obj(el, data, file)
    elif ct == "model/vnd.mujoco.msh":
        got = load_msh(el, data, file, float(scale[0] * scale[1] * scale[2]) > 0)
    else:
        raise _err(el, f"no decoder found for mesh file '{file}' (content type '{ct}')", "file")
    _check_finite(el, got["vert"])
    for key, what in (("normal", "normal"), ("texcoord", "texcoord"), ("face", "face"), ("vert", "vertex")):
        if len(got.get(key, ())) and len(spec.get(key, ())):
            raise _err(el, f"repeated {what} specification")
    for key in ("normal", "texcoord", "face"):
        if not len(got.get(key, ())) and key in spec:
            got[key] = spec[key]
    got["content_type"] = ct
    return got


# ---------------------------------------------------------------------------------------------- checks


def check_initial(el, m, data):
    """CheckInitialMesh."""
    nv = len(m.vert)
    if nv < 4:
        raise _err(el, "at least 4 vertices required")
    if (
        len(m.texcoord)
        and len(m.texcoord) != nv
        and not len(m.facetexcoord)
        and data.get("content_type") != "model/obj"
    ):
        raise _err(el, "texcoord must be 2*nv if face texcoord indices are not provided in an OBJ file", "texcoord")
    f = m.face.reshape(-1)
    bad = np.nonzero((f >= nv) | (f < 0))[0]
    if len(bad):
        i = int(bad[0])
        raise _err(el, f"in face {i // 3}, vertex index {int(f[i])} does not exist", "face")


def check_orientation(m, dvert):
    """Half-edge check of Process(): with inertia='exact', a half-edge used twice means inconsistently
    oriented faces. Returns the offending (v0, v1) or None."""
    if not len(m.face):
        return None
    area, _, _ = _triangles(dvert, m.face)
    f = m.face[area > math.sqrt(MINVAL)]
    he = np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]], axis=1).reshape(-1, 2)
    if not len(he):
        return None
    he = he[np.lexsort((he[:, 1], he[:, 0]))]
    dup = np.nonzero((he[1:] == he[:-1]).all(axis=1))[0]
    return tuple(int(x) for x in he[dup[0]]) if len(dup) else None


# ---------------------------------------------------------------------------------------------- convex hull


def _hull_precheck(el, name, dvert):
    """The colocated / collinear / coplanar checks at the start of MakeGraph."""
    nv = len(dvert)
    d = np.sqrt(_dot3(dvert[1:] - dvert[0], dvert[1:] - dvert[0]))
    idx = np.nonzero(d > MINVAL)[0]
    if not len(idx):
        raise _err(
            el,
            f"mesh '{name}' has colocated vertices, cannot compute convex hull. Consider using a small sphere instead",
        )
    v1 = int(idx[0]) + 1
    len1 = float(d[v1 - 1])
    edge1 = dvert[v1] - dvert[0]
    normal = None
    for i in range(1, nv):
        if i == v1:
            continue
        edge2 = dvert[i] - dvert[0]
        len2 = math.sqrt(float(_dot3(edge2, edge2)))
        if len2 < MINVAL:
            continue
        n = _cross(edge1, edge2)
        nn = math.sqrt(float(_dot3(n, n)))
        if nn > MINVAL * len1 * len2:
            normal = n / nn
            break
    if normal is None:
        raise _err(
            el,
            f"mesh '{name}' has collinear vertices, cannot compute convex hull. Consider using a thin capsule instead",
        )
    off = _dot3(dvert, normal) - float(_dot3(normal, dvert[0]))
    if not np.any(np.abs(off) > MINVAL * len1):
        raise _err(
            el,
            f"mesh '{name}' has coplanar vertices, cannot compute convex hull. "
            "Consider using a primitive geom type (plane or thin box) instead",
        )


def convex_hull(points):
    """Triangulated convex hull of (n,3) points as MuJoCo builds it (qhull): (m,3) int array of faces,
    counter-clockwise seen from outside, in qhull's facet order."""
    return qhull.convex_hull(points).faces


def make_graph(el, name, dvert, maxhullvert):
    """MakeGraph: MuJoCo's convex-hull graph from qhull (see compiler.qhull)
    [numvert, numface, vert_edgeadr[numvert], vert_globalid[numvert], edge_localid[numvert+3*numface],
     face_globalid[3*numface]] (neighbour lists end with -1)."""
    if len(dvert) < 4:
        return None
    _hull_precheck(el, name, dvert)
    try:
        hull = qhull.convex_hull(dvert, maxhullvert)
    except qhull.QhullError as e:
        raise _err(el, f"qhull error (mesh '{name}'): {e}") from None
    local = {int(g): i for i, g in enumerate(hull.vertices.tolist())}
    numvert, numface = len(hull.vertices), len(hull.faces)
    edgeadr, edges, adr = [], [], 0
    for lst in hull.neighbors:
        edgeadr.append(adr)
        edges += [local[p] for p in lst] + [-1]
        adr += len(lst) + 1
    if adr != numvert + 3 * numface:
        raise _err(el, f"wrong size in the convex hull graph of mesh '{name}'")
    return np.array(
        [numvert, numface] + edgeadr + hull.vertices.tolist() + edges + hull.faces.reshape(-1).tolist(), dtype=np.int32
    )


def graph_faces(graph):
    nv, nf = int(graph[0]), int(graph[1])
    start = 2 + 3 * nv + 3 * nf
    return graph[start : start + 3 * nf].reshape(-1, 3).astype(np.int64)


# ---------------------------------------------------------------------------------------------- normals


def _accumulate_f32(acc, index, contrib):
    """acc[index[i]] = float32(double(acc[index[i]]) + contrib[i]) for i in order (C's `float += double`)."""
    if not len(index):
        return
    order = np.argsort(index, kind="stable")
    idx = index[order]
    starts = np.r_[0, np.nonzero(np.diff(idx))[0] + 1]
    rank = np.arange(len(idx)) - np.repeat(starts, np.diff(np.r_[starts, len(idx)]))
    con = contrib[order]
    for r in range(int(rank.max()) + 1):
        sel = rank == r
        ii = idx[sel]
        acc[ii] = (acc[ii].astype(np.float64) + con[sel]).astype(np.float32)


def _normvec_rows(v):
    """mjuu_normvec on each row (double): returns (normalised rows, norms; 0 when the squared norm < mjEPS)."""
    sq = _dot3(v, v)
    nrm = np.sqrt(sq)
    zero = sq < EPS
    scale = (np.abs(nrm - 1) > EPS) & ~zero
    out = np.where(scale[:, None], v / np.where(scale, nrm, 1.0)[:, None], v)
    return out, np.where(zero, 0.0, nrm)


def make_normal(m, dvert, smooth):
    """MakeNormal: area-weighted vertex normals (float32), dropping faces at large angles unless smooth."""
    nv, nf = len(dvert), len(m.face)
    normal = np.zeros((nv, 3), np.float32)
    if not len(m.facenormal):
        m.facenormal = np.zeros((nf, 3), np.int64)
    f = m.face
    nrm = _cross(dvert[f[:, 1]] - dvert[f[:, 0]], dvert[f[:, 2]] - dvert[f[:, 0]])
    nrm, area = _normvec_rows(nrm)
    wn = nrm * area[:, None]
    index = f.reshape(-1)  # face-major order, as the C loop
    contrib = np.repeat(wn, 3, axis=0)
    flat = normal.reshape(-1)
    for k in range(3):
        _accumulate_f32(flat, 3 * index + k, contrib[:, k])
    m.facenormal = f.copy()
    if not smooth:
        vn, _ = _normvec_rows(normal.astype(np.float64)[index])
        drop = _dot3(np.repeat(nrm, 3, axis=0), vn) < 0.8
        remove = np.zeros((nv, 3), np.float32)
        rf = remove.reshape(-1)
        for k in range(3):
            _accumulate_f32(rf, 3 * index[drop] + k, contrib[drop, k])
        normal = normal - remove
    ln = np.sqrt(normal[:, 0] * normal[:, 0] + normal[:, 1] * normal[:, 1] + normal[:, 2] * normal[:, 2])
    ok = ln > MINVAL
    normal = np.where(
        ok[:, None], normal / np.where(ok, ln, np.float32(1))[:, None], np.array([0, 0, 1], np.float32)
    ).astype(np.float32)
    m.normal = normal


# ---------------------------------------------------------------------------------------------- polygons


class _Polygon:
    """MeshPolygon of user_mesh.cc: coplanar hull faces merged into boundary edges grouped in islands."""

    def __init__(self, v1, v2, v3):
        self.edges = [(v1, v2), (v2, v3), (v3, v1)]
        self.islands = [0, 0, 0]
        self.nisland = 1

    def _combine(self, i1, i2):
        if i2 < i1:
            i1, i2 = i2, i1
        self.islands = [i1 if x == i2 else (x - 1 if x > i2 else x) for x in self.islands]
        return i1, i2

    def insert(self, v1, v2, v3):
        add = [True, True, True]
        island = -1
        for slot, (a, b) in enumerate(((v1, v2), (v2, v3), (v3, v1))):
            for i, e in enumerate(self.edges):
                if e == (b, a):
                    other = self.islands[i]
                    if island == -1:
                        island = other
                    elif other != island:
                        self.nisland -= 1
                        island, _ = self._combine(island, other)
                    add[slot] = False
                    del self.edges[i]
                    del self.islands[i]
                    break
        if island == -1:
            island = self.nisland
            self.nisland += 1
        for slot, e in enumerate(((v1, v2), (v2, v3), (v3, v1))):
            if add[slot]:
                self.edges.append(e)
                self.islands.append(island)

    def paths(self):
        if len(self.edges) == 3:
            return [[self.edges[0][0], self.edges[1][0], self.edges[2][0]]]
        out = []
        for i in range(self.nisland):
            path = []
            for j, e in enumerate(self.edges):
                if self.islands[j] == i:
                    path = [e[0], e[1]]
                    break
            if not path:
                continue
            nxt = path[-1]
            for _ in range(len(self.edges)):
                finished = False
                for k in range(1, len(self.edges)):  # MuJoCo starts this scan at 1
                    if self.islands[k] == i and self.edges[k][0] == nxt:
                        nxt = self.edges[k][1]
                        if nxt == path[0]:
                            out.append(path)
                            finished = True
                            break
                        path.append(nxt)
                        break
                if finished:
                    break
        return out


def _polygon_keys(dvert, faces, tol):
    """MeshPolygonKey of each face (m, 3): rounded (azimuth, polar) angles of the face normal, or None for a
    degenerate face."""
    v1, v2, v3 = dvert[faces[:, 0]], dvert[faces[:, 1]], dvert[faces[:, 2]]
    n = _cross(v2 - v1, v3 - v1)
    ln = np.sqrt(_dot3(n, n))
    with np.errstate(divide="ignore", invalid="ignore"):
        n = n / ln[:, None] + 0.0
    keys = []
    pole = float(round_half_away(math.pi / tol))
    for (n0, n1, n2), small in zip(n.tolist(), (ln < MINVAL).tolist()):
        if small:
            keys.append(None)
        elif abs(n2) > 1.0 - 1e-7:
            keys.append((0.0, pole if n2 < 0 else 0.0))
        else:
            keys.append((float(round_half_away(math.atan2(n1, n0) / tol)), float(round_half_away(math.acos(n2) / tol))))
    return keys


def round_half_away(x):
    """std::round (halves away from zero)."""
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


def _hash_double(x):
    """libc++'s std::hash<double> on 64-bit platforms: the bit pattern, 0 for +-0."""
    return 0 if x == 0 else struct.unpack("<Q", struct.pack("<d", x))[0]


def _next_prime(n):
    """Smallest prime >= n (libc++'s __next_prime)."""
    while True:
        if n > 1 and all(n % d for d in range(2, int(math.isqrt(n)) + 1)):
            return n
        n += 1


def _constrain_hash(h, bc):
    return h & (bc - 1) if not bc & (bc - 1) else (h if h < bc else h % bc)


def unordered_order(keys, hashes):
    """Iteration order of a libc++ std::unordered_map (MuJoCo 3.17's wheels are built with libc++) after
    inserting the distinct `keys` in this order with these hash values (max_load_factor 1): libc++'s
    __hash_table, a singly linked list whose buckets point at the node before their first node; a new node goes
    first in its bucket, or first in the list when its bucket is empty; a rehash relinks the list."""
    nxt = {None: None}  # node -> next node; None is the list head (before-begin)
    buckets, bc, size, hv = {}, 0, 0, {}

    def rehash(n):
        nonlocal buckets, bc
        n = 2 if n == 1 else (_next_prime(n) if n & (n - 1) else n)
        if n <= bc:
            return
        bc, buckets = n, {}
        pp, cp = None, nxt[None]
        if cp is None:
            return
        phash = _constrain_hash(hv[cp], bc)
        buckets[phash] = None
        pp, cp = cp, nxt[cp]
        while cp is not None:
            chash = _constrain_hash(hv[cp], bc)
            if chash == phash:
                pp = cp
            elif chash not in buckets:
                buckets[chash] = pp
                pp, phash = cp, chash
            else:
                nxt[pp] = nxt[cp]
                before = buckets[chash]
                nxt[cp] = nxt[before]
                nxt[before] = cp
            cp = nxt[pp]

    for k, h in zip(keys, hashes):
        hv[k] = h
        if size + 1 > bc or bc == 0:
            pow2 = bc > 2 and not bc & (bc - 1)
            rehash(max(2 * bc + (not pow2), size + 1))
        b = _constrain_hash(h, bc)
        if b not in buckets:
            nxt[k] = nxt[None]
            nxt[None] = k
            buckets[b] = None
            if nxt[k] is not None:
                buckets[_constrain_hash(hv[nxt[k]], bc)] = k
        else:
            before = buckets[b]
            nxt[k] = nxt[before]
            nxt[before] = k
        size += 1
    out, k = [], nxt[None]
    while k is not None:
        out.append(k)
        k = nxt[k]
    return out


def make_polygons(m, dvert):
    """MakePolygons: merge coplanar hull triangles into polygons, listed in the iteration order of MuJoCo's
    std::unordered_map from normal key to polygon (unordered_order)."""
    tol = 0.01
    faces = graph_faces(m.graph)
    groups = {}  # key -> hull faces with that normal key, in face order (a key's first face makes its polygon)
    for f, key in enumerate(_polygon_keys(dvert, faces, tol)):
        if key is not None:
            groups.setdefault(key, []).append(f)
    keys = list(groups)
    order = unordered_order(keys, [_hash_double(a) ^ _hash_double(b) for a, b in keys])
    fl = faces.tolist()
    paths, normals = [], []
    for key in order:
        theta, phi = tol * key[0], tol * key[1]
        normal = (math.cos(theta) * math.sin(phi), math.sin(theta) * math.sin(phi), math.cos(phi))
        members = groups[key]
        if len(members) == 1:
            found = [fl[members[0]]]  # one triangle: its own boundary cycle
        else:
            poly = _Polygon(*fl[members[0]])
            for f in members[1:]:
                poly.insert(*fl[f])
            found = poly.paths()
        for path in found:
            if len(path) >= 3:
                paths.append(path)
                normals.append(normal)
    normals = np.array(normals, dtype=np.float64).reshape(-1, 3)
    flip = (_dot3(_newell(dvert, paths), normals) < 0).tolist()
    m.polygons = [path[:1] + path[1:][::-1] if f else path for path, f in zip(paths, flip)]
    m.polygon_normals = normals
    m.polygon_map = _polygon_map(m.polygons, len(dvert))


def _cycles(paths):
    """(lengths (k,), concatenated vertex ids) of a list of vertex-id lists."""
    lens = np.fromiter(map(len, paths), np.int64, len(paths))
    return lens, np.fromiter(itertools.chain.from_iterable(paths), np.int64, int(lens.sum()))


def _polygon_map(polygons, nvert):
    """Per vertex, the ids of the polygons through it, in polygon order (MakePolygons' polygon_map):
    (count per vertex (nvert,), the ids vertex after vertex)."""
    lens, flat = _cycles(polygons)
    ids = np.repeat(np.arange(len(polygons)), lens)[np.argsort(flat, kind="stable")]
    return np.bincount(flat, minlength=nvert), ids


def _newell(dvert, paths):
    """Newell's normal (unnormalised) of each vertex cycle (k, 3), each summed in cycle order."""
    if not paths:
        return np.zeros((0, 3))
    lens, flat = _cycles(paths)
    start = np.r_[0, np.cumsum(lens)[:-1]]
    pos = np.arange(len(flat))
    nxt = pos + 1
    last = start + lens - 1
    nxt[last] = start  # the cycle closes on its first vertex
    p, q = dvert[flat], dvert[flat[nxt]]
    terms = np.stack(
        [
            (p[:, 1] - q[:, 1]) * (p[:, 2] + q[:, 2]),
            (p[:, 2] - q[:, 2]) * (p[:, 0] + q[:, 0]),
            (p[:, 0] - q[:, 0]) * (p[:, 1] + q[:, 1]),
        ],
        axis=1,
    )
    acc = terms[start].copy()
    for r in range(1, int(lens.max())):
        sel = lens > r
        acc[sel] = acc[sel] + terms[start[sel] + r]
    return acc


def make_polygon_normals(m, dvert):
    """MakePolygonNormals of MuJoCo 3.17: Newell's normal of the polygon's vertex cycle, divided by its length
    (matched bit for bit on the oracle; older MuJoCo used the first three vertices)."""
    if not m.polygons:
        return
    n = _newell(dvert, m.polygons)
    ln = np.sqrt(n[:, 0] * n[:, 0] + n[:, 1] * n[:, 1] + n[:, 2] * n[:, 2])
    small = ln < EPS
    with np.errstate(divide="ignore", invalid="ignore"):
        unit = n / ln[:, None]
    m.polygon_normals[:] = np.where(small[:, None], np.array([1.0, 0.0, 0.0]), unit)


# ---------------------------------------------------------------------------------------------- processing


def apply_transformations(m, dvert, refpos, refquat, scale):
    """ApplyTransformations: subtract refpos, rotate by refquat^-1, scale; normals follow (float32)."""
    if refpos[0] != 0 or refpos[1] != 0 or refpos[2] != 0:
        dvert = dvert - refpos
    normal = m.normal
    if refquat[0] != 1 or refquat[1] != 0 or refquat[2] != 0 or refquat[3] != 0:
        q = np.array(refquat, dtype=np.float64)
        normvec(q)
        mat = quat2mat(q)
        dvert = _mulvecmatT(mat, dvert)
        if len(normal):
            normal = _mulvecmatT(mat, normal.astype(np.float64)).astype(np.float32)
    if scale[0] != 1 or scale[1] != 1 or scale[2] != 1:
        dvert = dvert * scale
        if len(normal):
            normal = (normal.astype(np.float64) / scale).astype(np.float32)
    if len(normal):
        ln = normal[:, 0] * normal[:, 0] + normal[:, 1] * normal[:, 1] + normal[:, 2] * normal[:, 2]
        ok = ln > MINVAL
        scl = np.float32(1) / np.sqrt(np.where(ok, ln, np.float32(1)))
        normal = np.where(ok[:, None], normal * scl[:, None], np.array([0, 0, 1], np.float32))
        m.normal = normal.astype(np.float32)
    return dvert


def face_centroid(m, dvert):
    """ComputeFaceCentroid: area-weighted centroid of the faces and the total area."""
    area, _, center = _triangles(dvert, m.face)
    total = float(_seqsum(area))
    cen = _seqsum(area[:, None] * center)
    if total >= MINVAL:
        cen = cen / total
    return cen, total


def compute_volume(m, faces, dvert, facecen):
    """ComputeVolume: signed (abs for legacy) pyramid volumes from the face centroid; returns (volume, CoM)."""
    area, normal, center = _triangles(dvert, faces)
    vol = _dot3(center - facecen, normal) * area / 3
    if m.inertia == INERTIA_LEGACY:
        vol = np.abs(vol)
    total = float(_seqsum(vol))
    com = _seqsum(vol[:, None] * (center * 3.0 / 4.0 + facecen / 4.0))
    if total >= MINVAL:
        com = com / total
    return total, com


def compute_surface(m, dvert, facecen):
    """ComputeSurfaceArea: total area and area-weighted centre (shell inertia)."""
    area, _, center = _triangles(dvert, m.face)
    total = float(_seqsum(area))
    com = _seqsum(area[:, None] * (center * 3.0 / 4.0 + facecen / 4.0))
    if total >= MINVAL:
        com = com / total
    return total, com


def compute_inertia(m, faces, dvert, com):
    """ComputeInertia: (xx, yy, zz, xy, xz, yz) unit-density inertia about com and the recomputed volume."""
    vc = dvert - com
    D, E, F = vc[faces[:, 0]], vc[faces[:, 1]], vc[faces[:, 2]]
    area, normal, center = _triangles(vc, faces)
    if m.inertia == INERTIA_SHELL:
        vol = area
    else:
        vol = _dot3(center, normal) * area / 3
    if m.inertia == INERTIA_LEGACY:
        vol = np.abs(vol)
    C = 12 if m.inertia == INERTIA_SHELL else 20
    terms = []
    for a, b in ((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)):
        s = (
            2 * (D[:, a] * D[:, b] + E[:, a] * E[:, b] + F[:, a] * F[:, b])
            + D[:, a] * E[:, b]
            + D[:, b] * E[:, a]
            + D[:, a] * F[:, b]
            + D[:, b] * F[:, a]
            + E[:, a] * F[:, b]
            + E[:, b] * F[:, a]
        )
        terms.append(vol / C * s)
    P = _seqsum(np.stack(terms, axis=1))
    total = float(_seqsum(vol))
    return np.array([P[1] + P[2], P[0] + P[2], P[0] + P[1], -P[3], -P[4], -P[5]]), total


def rotate(m, quat, dvert):
    """Rotate: express vertices and normals in the principal frame, record the aamm box."""
    mat = quat2mat(np.array([quat[0], -quat[1], -quat[2], -quat[3]]))
    dvert = _mulvecmat(mat, dvert)
    m.aamm = np.concatenate([np.minimum(m.aamm[:3], dvert.min(axis=0)), np.maximum(m.aamm[3:], dvert.max(axis=0))])
    if len(m.normal):
        m.normal = _mulvecmat(mat, m.normal.astype(np.float64)).astype(np.float32)
    return dvert


def process(m, el, needhull, smooth, refpos, refquat, maxhullvert, data):
    """mjCMesh::Process."""
    dvert = m.vert.astype(np.float64)
    bad = check_orientation(m, dvert)
    if bad is not None and m.inertia == INERTIA_EXACT:
        raise _err(
            el,
            f"faces of mesh '{m.name}' have inconsistent orientation. Please check the faces "
            f"containing the vertices {bad[0] + 1} and {bad[1] + 1}.",
        )
    if needhull or not len(m.face):
        m.graph = make_graph(el, m.name, dvert, maxhullvert)
    if not len(m.face) and m.graph is not None:
        m.face = graph_faces(m.graph)
    if not len(m.normal):
        make_normal(m, dvert, smooth)
    if len(m.facenormal) and m.facenormal.shape != m.face.shape:
        raise _err(el, "face data must have the same size as face normal data")
    if not len(m.facetexcoord) and len(m.texcoord):
        m.facetexcoord = m.face.copy()
    if not len(m.facenormal):
        per = (3 * len(m.normal)) // (3 * len(m.vert))
        m.facenormal = per * m.face
    if m.graph is not None:
        make_polygons(m, dvert)
    if m.graph is not None and not float(m.scale[0] * m.scale[1] * m.scale[2]) > 0:
        # MuJoCo 3.17 also re-winds the hull faces and reverses the polygons (each cycle runs backwards from its
        # first vertex) for a mirroring scale, after merging the faces into polygons (not in the snapshot source;
        # measured on the oracle)
        hf = graph_faces(m.graph)[:, [0, 2, 1]]
        m.graph[len(m.graph) - hf.size :] = hf.reshape(-1)
        m.polygons = [p[:1] + p[1:][::-1] for p in m.polygons]
    if m.graph is None:
        m.polygon_map = _polygon_map([], len(dvert))
    if not float(m.scale[0] * m.scale[1] * m.scale[2]) > 0:
        m.face = m.face[:, [0, 2, 1]]
        m.facenormal = m.facenormal[:, [0, 2, 1]]
        if len(m.facetexcoord):
            m.facetexcoord = m.facetexcoord[:, [0, 2, 1]]

    dvert = apply_transformations(m, dvert, refpos, refquat, m.scale)
    facecen, area = face_centroid(m, dvert)
    if area < MINVAL:
        raise _err(el, f"mesh surface area is too small: {m.name}")
    faces = graph_faces(m.graph) if m.inertia == INERTIA_CONVEX else m.face
    if m.inertia == INERTIA_SHELL:
        m.surface, com = compute_surface(m, dvert, facecen)
        if m.surface < MINVAL:
            raise _err(el, f"mesh surface area is too small: {m.name}")
    else:
        m.volume, com = compute_volume(m, faces, dvert, facecen)
        if m.volume < MINVAL:
            if m.volume < 0:
                raise _err(el, f"mesh volume is negative (misoriented triangles): {m.name}")
            raise _err(el, f"mesh volume is too small: {m.name} . Try setting inertia to shell")
    inert, total = compute_inertia(m, faces, dvert, com)
    if m.inertia == INERTIA_SHELL:
        m.surface = total
    else:
        m.volume = total
    full = [inert[0], inert[3], inert[4], inert[3], inert[1], inert[5], inert[4], inert[5], inert[2]]
    eigval, quat = eig3(full, tol=EIG_TOL_MESH)
    if eigval[2] <= 0:
        raise _err(el, f"eigenvalue of mesh inertia must be positive: {m.name}")
    atol, rtol = 1e-9, 1e-6
    e = eigval
    if (
        e[0] + e[1] < e[2] * (1.0 - rtol) - atol
        or e[0] + e[2] < e[1] * (1.0 - rtol) - atol
        or e[1] + e[2] < e[0] * (1.0 - rtol) - atol
    ):
        raise _err(el, f"eigenvalues of mesh inertia violate A + B >= C: {m.name}")
    vol = m.volume_ref()
    # C's sqrt: NaN for a (rounding-level) negative argument of a near-degenerate inertia; MuJoCo keeps it
    with np.errstate(invalid="ignore"):
        m.boxsz = 0.5 * np.sqrt(
            np.array([6 * (e[1] + e[2] - e[0]) / vol, 6 * (e[0] + e[2] - e[1]) / vol, 6 * (e[0] + e[1] - e[2]) / vol])
        )
    dvert = dvert - com
    dvert = rotate(m, quat, dvert)
    m.pos = np.array(com, dtype=np.float64)
    m.quat = np.array(quat, dtype=np.float64)
    make_polygon_normals(m, dvert)
    m.tree = mesh_tree(dvert, m.face)  # the face BVH, from the double-precision vertices
    m.vert = dvert.astype(np.float32)


def compile_mesh(ctx, el, name, needhull):
    """Load and process one <mesh> element into a Mesh."""
    builtin = make_builtin_data(el)
    if el.first("mesh_plugin") is not None:
        raise ctx.unsupported(el, "mesh plugins (SDF meshes)")
    maxhullvert = int(el.get("maxhullvert"))
    if maxhullvert != -1 and maxhullvert < 4:
        raise _err(el, "maxhullvert must be larger than 3", "maxhullvert")
    m = Mesh(name, el)
    m.scale = np.array(el.get("scale"), dtype=np.float64)
    m.inertia = int(el.get("inertia"))
    if builtin is not None and "inertia" in builtin:
        m.inertia = builtin["inertia"]  # MakeRect and the 2-D flexcomp shapes set spec.inertia to shell
    needhull = needhull or m.inertia == INERTIA_CONVEX
    m.material = "" if ctx.discardvisual else (el.get("material", "") or "")
    data = load_mesh_data(ctx, el, builtin)
    m.vert = data.get("vert", np.zeros((0, 3), np.float32))
    m.face = np.asarray(data.get("face", np.zeros((0, 3), np.int64)), dtype=np.int64).reshape(-1, 3)
    m.normal = data.get("normal", np.zeros((0, 3), np.float32))
    m.texcoord = data.get("texcoord", np.zeros((0, 2), np.float32))
    m.facenormal = np.asarray(data.get("facenormal", np.zeros((0, 3))), np.int64).reshape(-1, 3)
    m.facetexcoord = np.asarray(data.get("facetexcoord", np.zeros((0, 3))), np.int64).reshape(-1, 3)
    if not len(m.vert) and builtin is None:
        raise _err(
            el, "no vertices" if el.has("vertex") or el.has("file") else "mesh needs a file, vertex data or a builtin"
        )
    check_initial(el, m, data)
    refquat = np.array(el.get("refquat"), dtype=np.float64)
    refpos = np.array(el.get("refpos"), dtype=np.float64)
    smooth = bool(el.get("smoothnormal"))
    if not mesh_cache.enabled():
        process(m, el, needhull, smooth, refpos, refquat, maxhullvert, data)
        return m
    # Process's results from the mesh cache when the same data was processed with the same attributes
    k = mesh_cache.key(m, needhull, smooth, refpos, refquat, maxhullvert)
    hit = mesh_cache.get(k)
    if hit is not None:
        m.__dict__.update(hit)
        return m
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        process(m, el, needhull, smooth, refpos, refquat, maxhullvert, data)
    for w in caught:  # shown as processing shows them; a mesh that warns is processed (and warns) every time
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
    if not caught:
        mesh_cache.put(k, m)
    return m


# ---------------------------------------------------------------------------------------------- model


def meshes_needing_hull(ctx):
    """Names of meshes whose convex hull MuJoCo builds: used by a colliding mesh/sdf geom (contype or
    conaffinity nonzero, or named in a contact pair)."""
    geoms = []

    def walk(el):
        for c in el.children:
            if c.key == "geom":
                geoms.append(c)
            elif c.key in ("body", "frame"):
                walk(c)

    for wb in ctx.root.find("worldbody"):
        walk(wb)
    paired = set()
    for contact in ctx.root.find("contact"):
        for p in contact.children:
            if p.tag == "pair":
                for a in ("geom1", "geom2"):
                    if p.raw.get(a):
                        paired.add(p.raw[a])
    need = set()
    for g in geoms:
        mesh = g.get("mesh", "")
        if not mesh or g.get("type") not in (GEOM_MESH, GEOM_SDF):
            continue
        if g.get("contype") or g.get("conaffinity") or (g.get("name", "") in paired and g.get("name", "")):
            need.add(mesh)
    return need


def compile_meshes(ctx, elems):
    """Compile every <mesh> element (in document order), register the names, fill the mesh_* fields."""
    need = meshes_needing_hull(ctx)
    meshes = []
    for el in elems:
        name = el.get("name", "") or stripext(strippath(el.get("file", "") or ""))
        if not name:
            raise el.error("empty name in mesh", "name")
        ctx.add("mesh", el, name=name)
        meshes.append(compile_mesh(ctx, el, name, name in need))
    mesh_cache.prune()  # bound the disk cache once the model's meshes are stored
    ctx.meshes = meshes
    fill_mesh_fields(ctx.f, meshes)
    return meshes


def _extrema(vert, graph):
    """mesh_extrema: per 27 directions (cx, cy, cz in -1..1) the local hull-vertex id with the largest
    float32 projection (first one on ties)."""
    out = np.zeros(27, np.int32)
    if graph is None:
        return out
    nv = int(graph[0])
    gid = graph[2 + nv : 2 + 2 * nv]
    v = vert[gid].astype(np.float32)
    k = 0
    for cx in (-1, 0, 1):
        for cy in (-1, 0, 1):
            for cz in (-1, 0, 1):
                dot = v[:, 0] * np.float32(cx) + v[:, 1] * np.float32(cy) + v[:, 2] * np.float32(cz)
                out[k] = int(np.argmax(dot))
                k += 1
    return out


def fill_mesh_fields(f, meshes):
    """mjCModel::CopyObjects for meshes: concatenated arrays with per-mesh addresses."""
    n = len(meshes)
    f["nmesh"] = n

    def cat(arrs, w, dt):
        return np.ascontiguousarray(np.concatenate(arrs).astype(dt)) if arrs else np.zeros((0, w) if w else (0,), dt)

    nvert = [len(m.vert) for m in meshes]
    nnorm = [len(m.normal) for m in meshes]
    ntex = [len(m.texcoord) for m in meshes]
    nface = [len(m.face) for m in meshes]
    ngraph = [0 if m.graph is None else len(m.graph) for m in meshes]
    npoly = [len(m.polygons) for m in meshes]

    def adr(counts):
        return np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int32) if counts else np.zeros(0, np.int32)

    f["nmeshvert"], f["nmeshnormal"], f["nmeshtexcoord"] = sum(nvert), sum(nnorm), sum(ntex)
    f["nmeshface"], f["nmeshgraph"], f["nmeshpoly"] = sum(nface), sum(ngraph), sum(npoly)
    f["mesh_vertadr"], f["mesh_vertnum"] = adr(nvert), np.array(nvert, np.int32)
    f["mesh_normaladr"], f["mesh_normalnum"] = adr(nnorm), np.array(nnorm, np.int32)
    f["mesh_texcoordadr"] = np.array([a if t else -1 for a, t in zip(adr(ntex), ntex)], np.int32)
    f["mesh_texcoordnum"] = np.array(ntex, np.int32)
    f["mesh_faceadr"], f["mesh_facenum"] = adr(nface), np.array(nface, np.int32)
    f["mesh_graphadr"] = np.array([a if g else -1 for a, g in zip(adr(ngraph), ngraph)], np.int32)
    f["mesh_polyadr"], f["mesh_polynum"] = adr(npoly), np.array(npoly, np.int32)
    f["mesh_vert"] = cat([m.vert for m in meshes], 3, np.float32)
    f["mesh_normal"] = cat([m.normal for m in meshes], 3, np.float32)
    f["mesh_texcoord"] = cat([m.texcoord for m in meshes], 2, np.float32)
    f["mesh_face"] = cat([m.face for m in meshes], 3, np.int32)
    f["mesh_facenormal"] = cat([m.facenormal for m in meshes], 3, np.int32)
    f["mesh_facetexcoord"] = cat(
        [m.facetexcoord if len(m.texcoord) else np.zeros_like(m.face) for m in meshes], 3, np.int32
    )
    f["mesh_graph"] = cat([m.graph for m in meshes if m.graph is not None], 0, np.int32)
    f["mesh_extrema"] = cat([_extrema(m.vert, m.graph)[None] for m in meshes], 27, np.int32)
    f["mesh_scale"] = cat([m.scale[None] for m in meshes], 3, np.float64)
    f["mesh_pos"] = cat([m.pos[None] for m in meshes], 3, np.float64)
    f["mesh_quat"] = cat([m.quat[None] for m in meshes], 4, np.float64)
    # polygons
    cyc = [_cycles(m.polygons) for m in meshes]
    polyvertnum = np.concatenate([c[0] for c in cyc] + [np.zeros(0, np.int64)])
    polyvert = np.concatenate([c[1] for c in cyc] + [np.zeros(0, np.int64)])
    maps = [
        m.polygon_map
        if m.polygon_map is not None and len(m.polygon_map[0]) == len(m.vert)
        else (np.zeros(len(m.vert), np.int64), np.zeros(0, np.int64))
        for m in meshes
    ]
    polymapnum = np.concatenate([c for c, _ in maps] + [np.zeros(0, np.int64)])
    polymap = np.concatenate([i for _, i in maps] + [np.zeros(0, np.int64)])
    f["nmeshpolyvert"], f["nmeshpolymap"] = len(polyvert), len(polymap)
    f["mesh_polynormal"] = cat([m.polygon_normals for m in meshes], 3, np.float64)
    f["mesh_polyvert"] = polyvert.astype(np.int32)
    f["mesh_polyvertadr"] = (np.cumsum(polyvertnum) - polyvertnum).astype(np.int32)
    f["mesh_polyvertnum"] = polyvertnum.astype(np.int32)
    f["mesh_polymap"] = polymap.astype(np.int32)
    f["mesh_polymapadr"] = (np.cumsum(polymapnum) - polymapnum).astype(np.int32)
    f["mesh_polymapnum"] = polymapnum.astype(np.int32)
    # mj_setConst: largest polygon and largest number of polygons at a vertex
    f["npolygonmax"] = int(polyvertnum.max()) if len(polyvertnum) else 0
    f["nmeshdegmax"] = int(polymapnum.max()) if len(polymapnum) else 0


# ---------------------------------------------------------------------------------------------- geoms


def mesh_geom_properties(ctx, mesh_id, geom_el, geom_type, fitscale=None):
    """What a geom with mesh= needs from its mesh (mjCGeom::Compile's mesh branch, FitGeom, ComputeAABB,
    GetRBound, GetVolume, SetInertia).

    Returns a dict:
      offset_pos (3,), offset_quat (4,): frame to accumulate into the geom frame with
          ``frameaccum(geom_pos, geom_quat, offset_pos, offset_quat)`` (sim/user_util.py, mjuu_frameaccum), for every type.
      size (3,): geom_size (mesh geoms: max |aamm| per axis; fitted primitives: the fitted size).
      is_mesh: True for type mesh/sdf (the geom keeps its mesh: geom_dataid = mesh id), False for a fitted
          primitive (geom_dataid = -1; volume/inertia/rbound/aabb then come from the primitive formulas).
      material: the mesh's material name ('' if none), used when the geom sets no material.
    and, for mesh/sdf geoms only:
      aabb (6,): geom_aabb (center, half sizes) in the geom frame (from the mesh aamm).
      rbound: geom_rbound (norm of the per-axis max |aamm|).
      volume: mesh volume (surface area for inertia="shell") — geom mass = density * volume unless mass given.
      unit_inertia (3,): principal inertia per unit mass in the geom frame: geom inertia = mass * unit_inertia.
    Aliases kept for the body compiler: pos = offset_pos, quat = offset_quat, aamm (6,) = the mesh's
    (min, max) box in the geom frame, inertia_box (3,) = the mesh's equivalent inertia box half sizes.
    Raises ModelError for shellinertia on a mesh geom (MuJoCo: the inertia type belongs to the mesh asset).
    """
    m = ctx.meshes[mesh_id]
    center = np.zeros(3)
    out = {"is_mesh": geom_type in (GEOM_MESH, GEOM_SDF), "material": m.material}
    if geom_type in (GEOM_MESH, GEOM_SDF):
        if geom_el is not None and geom_el.get("shellinertia"):
            raise geom_el.error("for mesh geoms, inertia should be specified in the mesh asset", "shellinertia")
        a = m.aamm
        h = np.array([max(abs(a[0]), abs(a[3])), max(abs(a[1]), abs(a[4])), max(abs(a[2]), abs(a[5]))])
        out["size"] = h
        out["rbound"] = math.sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2])
        out["aabb"] = np.array(
            [
                (a[3] + a[0]) / 2,
                (a[4] + a[1]) / 2,
                (a[5] + a[2]) / 2,
                (a[3] - a[0]) / 2,
                (a[4] - a[1]) / 2,
                (a[5] - a[2]) / 2,
            ]
        )
        out["volume"] = m.volume_ref()
        b = m.boxsz
        out["unit_inertia"] = np.array(
            [(b[1] * b[1] + b[2] * b[2]) / 3, (b[0] * b[0] + b[2] * b[2]) / 3, (b[0] * b[0] + b[1] * b[1]) / 3]
        )
    else:
        if fitscale is None:
            fitscale = geom_el.get("fitscale") if geom_el is not None else 1.0
        out["size"], center = fit_geom(ctx, m, geom_el, geom_type, fitscale)
    offset = rotvec(m.quat, center) + m.pos
    out["offset_pos"] = offset
    out["offset_quat"] = m.quat.copy()
    out["pos"], out["quat"] = out["offset_pos"], out["offset_quat"]
    out["aamm"] = m.aamm.copy()
    out["inertia_box"] = m.boxsz.copy()
    return out


def fit_geom(ctx, m, geom_el, geom_type, fitscale):
    """FitGeom: primitive size fitted to the mesh's inertia box, or to its aabb with compiler fitaabb
    (then also the aabb centre, in the mesh frame). Returns (size (3,), center (3,))."""
    size = np.zeros(3)
    if geom_el is not None and geom_el.has("size"):
        size[:] = (
            np.asarray(geom_el.get("size"), dtype=np.float64)[:3]
            if len(geom_el.get("size")) >= 3
            else np.r_[geom_el.get("size"), np.zeros(3 - len(geom_el.get("size")))]
        )
    center = np.zeros(3)
    if not ctx.comp_of(geom_el).get("fitaabb"):
        b = m.boxsz
        if geom_type == GEOM_SPHERE:
            size[0] = (b[0] + b[1] + b[2]) / 3
        elif geom_type == GEOM_CAPSULE:
            size[0] = (b[0] + b[1]) / 2
            size[1] = max(0.0, b[2] - size[0] / 2)
        elif geom_type == GEOM_CYLINDER:
            size[0] = (b[0] + b[1]) / 2
            size[1] = b[2]
        elif geom_type in (GEOM_ELLIPSOID, GEOM_BOX):
            size[:] = b
        else:
            raise (geom_el or m.el).error(f"invalid geom type in fitting mesh {m.name}", "type")
    else:
        a = m.aamm
        center = np.array([(a[0] + a[3]) / 2, (a[1] + a[4]) / 2, (a[2] + a[5]) / 2])
        half = np.array([a[3] - center[0], a[4] - center[1], a[5] - center[2]])
        if geom_type == GEOM_SPHERE:
            size[0] = max(max(half[0], half[1]), half[2])
        elif geom_type in (GEOM_CAPSULE, GEOM_CYLINDER):
            size[0] = max(half[0], half[1])
            size[1] = half[2]
            if geom_type == GEOM_CAPSULE:
                size[1] -= size[0]
        elif geom_type in (GEOM_ELLIPSOID, GEOM_BOX):
            size[:] = half
        else:
            raise (geom_el or m.el).error(f"invalid fittype in mesh {m.name}", "type")
    return size * fitscale, center
