"""Procedural (builtin) meshes: <mesh builtin=".." params=".."/> as MuJoCo 3.17 makes them.

mjs_makeMesh (user_api.cc) validates the params and calls one of mjCMesh's generators (user_mesh.cc):
MakeSphere, MakeHemisphere, MakeCone, MakeSupersphere, MakeSupertorus, MakeWedge, MakeRect (plate), and in
3.17 the flexcomp-style point sets (grid, box, cylinder, ellipsoid, square, disc: mjCFlexcomp::MakeGrid /
MakeBox / MakeSquare of user_flexcomp.cc, their surface triangles as faces when dim is 2). A generator only
fills the user vertices (float32), and maybe faces and per-vertex normals (9 floats per vertex: normal and two
tangents, for wedge and plate); everything after that (hull, normals, inertia, frames) is the ordinary mesh
pipeline of compiler.mesh.

Arithmetic follows MuJoCo's: double precision rounded to float when stored, float arithmetic where MuJoCo
computes in float (the icosphere), libm's cos / sin / pow through Python's math module.
"""

import math

import numpy as np

from sim.user_util import normvec

MJPI = math.pi
EPS = 1e-14  # mjEPS

# mjtMeshBuiltin
(
    NONE,
    SPHERE,
    HEMISPHERE,
    CONE,
    SUPERSPHERE,
    SUPERTORUS,
    WEDGE,
    PLATE,
    GRID,
    BOX,
    CYLINDER,
    ELLIPSOID,
    SQUARE,
    DISC,
) = range(14)
INERTIA_SHELL = 3  # mjMESH_INERTIA_SHELL


class BuiltinError(Exception):
    """A params error of mjs_makeMesh (the message MuJoCo reports)."""


def _int(x):
    """C's static_cast<int> of a double (truncation toward zero)."""
    if not math.isfinite(x):
        raise BuiltinError("mesh builtin parameters must be finite")
    return int(x)


def _f32(vals):
    return np.asarray(vals, dtype=np.float64).astype(np.float32).reshape(-1, 3)


# ---------------------------------------------------------------------------------------------- mjCMesh::Make*


def make_hemisphere(res):
    """MakeHemisphere(res, make_faces=true, make_cap=true): quad-projected hemisphere with a bottom cap."""
    pole = (0.0, 0.0, 1.0)
    equator = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (-1.0, 0.0, 0.0), (0.0, -1.0, 0.0))
    nvert = 1 + 2 * (res + 1) * (res + 2) + 1
    vert = [pole]
    for row in range(res + 1):
        for side in range(4):
            factor = (row + 1) / (res + 1)
            a, b = equator[side], equator[(side + 1) % 4]
            start = [pole[i] + factor * (a[i] - pole[i]) for i in range(3)]
            end = [pole[i] + factor * (b[i] - pole[i]) for i in range(3)]
            delta = [(end[i] - start[i]) / (row + 1) for i in range(3)]
            for i in range(row + 1):
                p = [start[j] + i * delta[j] for j in range(3)]
                norm = math.sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2])
                vert.append((p[0] / norm, p[1] / norm, p[2] / norm))
    vert.append((0.0, 0.0, 0.0))  # centre of the bottom cap
    face = [0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 4, 1]
    for row in range(res):
        start_curr = 2 * row * (row + 1) + 1
        count_curr = 4 * (row + 1)
        start_next = start_curr + count_curr
        count_next = 4 * (row + 2)
        for side in range(4):
            for i in range(row + 2):
                vc = i + (row + 1) * side
                vn = i + (row + 2) * side
                face += [start_curr + vc % count_curr, start_next + vn % count_next, start_next + (vn + 1) % count_next]
                if i < row + 1:
                    face += [
                        start_curr + vc % count_curr,
                        start_next + (vn + 1) % count_next,
                        start_curr + (vc + 1) % count_curr,
                    ]
    start = 2 * res * (res + 1) + 1
    count = 4 * (res + 1)
    for i in range(count):
        face += [start + i, nvert - 1, start + (i + 1) % count]
    return _f32(vert), np.array(face, dtype=np.int64).reshape(-1, 3)


def make_sphere(subdiv):
    """MakeSphere(subdiv, make_faces=true): icosahedron subdivided `subdiv` times, in float arithmetic."""
    f = np.float32
    phi = f((1.0 + math.sqrt(5.0)) / 2.0)
    one = f(1.0)
    base = [-one, phi, 0, one, phi, 0, -one, -phi, 0, one, -phi, 0]
    base += [0, -one, phi, 0, one, phi, 0, -one, -phi, 0, one, -phi]
    base += [phi, 0, -one, phi, 0, one, -phi, 0, -one, -phi, 0, one]
    norm = math.sqrt(1.0 + float(phi * phi))  # phi * phi in float, the sum in double
    vert = [f(float(f(v)) / norm) for v in base]
    face = [0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11, 1, 5, 9, 5, 11, 4, 11, 10, 2, 10, 7, 6, 7, 1, 8]
    face += [3, 9, 4, 3, 4, 2, 3, 2, 6, 3, 6, 8, 3, 8, 9, 4, 9, 5, 2, 4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1]
    two = f(2.0)
    for _ in range(subdiv):
        cache = {}

        def midpoint(a, b):
            key = (min(a, b), max(a, b))
            if key in cache:
                return cache[key]
            m = [(vert[3 * a + k] + vert[3 * b + k]) / two for k in range(3)]
            n = np.sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2])
            idx = len(vert) // 3
            vert.extend([m[0] / n, m[1] / n, m[2] / n])
            cache[key] = idx
            return idx

        new = []
        for j in range(0, len(face), 3):
            v1, v2, v3 = face[j], face[j + 1], face[j + 2]
            m12, m23, m31 = midpoint(v1, v2), midpoint(v2, v3), midpoint(v3, v1)
            new += [v1, m12, m31, v2, m23, m12, v3, m31, m23, m12, m23, m31]
        face = new
    return np.array(vert, dtype=np.float32).reshape(-1, 3), np.array(face, dtype=np.int64).reshape(-1, 3)


def _aux_c(omega, m):
    c = math.cos(omega)
    return math.copysign(math.pow(abs(c), m), c)


def _aux_s(omega, m):
    s = math.sin(omega)
    return math.copysign(math.pow(abs(s), m), s)


def make_supersphere(res, e, n):
    """MakeSupersphere: superellipsoid rings between two poles."""
    vert = [(0.0, 0.0, -1.0)]
    for i in range(1, res):
        v = -MJPI / 2 + i * MJPI / res
        for j in range(res):
            u = -MJPI + j * 2 * MJPI / res
            vert.append((_aux_c(v, n) * _aux_c(u, e), _aux_c(v, n) * _aux_s(u, e), _aux_s(v, n)))
    vert.append((0.0, 0.0, 1.0))
    nvert = len(vert)
    face = []
    for j in range(res):
        face += [0, 1 + (j + 1) % res, 1 + j]
    for i in range(res - 2):
        for j in range(res):
            v1 = 1 + i * res + j
            v2 = 1 + i * res + (j + 1) % res
            v4 = 1 + (i + 1) * res + j
            v3 = 1 + (i + 1) * res + (j + 1) % res
            face += [v1, v2, v4, v2, v3, v4]
    last = 1 + (res - 2) * res
    for j in range(res):
        face += [last + j, last + (j + 1) % res, nvert - 1]
    return _f32(vert), np.array(face, dtype=np.int64).reshape(-1, 3)


def make_supertorus(res, radius, s, t):
    """MakeSupertorus: supertoroid on a res x res grid of (u, v)."""
    vert, face = [], []
    for i in range(res):
        for j in range(res):
            u = 2 * MJPI * i / res
            v = 2 * MJPI * j / res
            vert.append(
                (
                    (1 + radius * _aux_c(v, s)) * _aux_c(u, t),
                    (1 + radius * _aux_c(v, s)) * _aux_s(u, t),
                    radius * _aux_s(v, s),
                )
            )
    for i in range(res):
        for j in range(res):
            i1, j1 = (i + 1) % res, (j + 1) % res
            v1, v2, v3, v4 = i * res + j, i1 * res + j, i1 * res + j1, i * res + j1
            face += [v1, v2, v4, v2, v3, v4]
    return _f32(vert), np.array(face, dtype=np.int64).reshape(-1, 3)


def _linspace(lower, upper, n):
    """LinSpace: accumulated increments, as the C loop."""
    inc = (upper - lower) / (n - 1) if n > 1 else 0.0
    out = []
    for _ in range(n):
        out.append(lower)
        lower += inc
    return out


def _fovea(x, gamma):
    if not gamma:
        return x
    g = max(0.0, min(1.0, gamma))
    return g * math.pow(x, 5) + (1 - g) * x


def make_wedge(res, fov, gamma):
    """MakeWedge: taxel centres of a spherical wedge (unit radius) and their tangent frames (usernormal: normal,
    azimuth tangent, elevation tangent per vertex)."""
    edges = []
    for k in range(2):
        e = [_fovea(x, gamma) for x in _linspace(-1.0, 1.0, res[k] + 1)]
        s = fov[k] * MJPI / 180
        edges.append([s * x for x in e])
    vert, normal = [], []
    for i in range(res[0]):
        for j in range(res[1]):
            a = 0.5 * (edges[0][i + 1] + edges[0][i])
            e = 0.5 * (edges[1][j + 1] + edges[1][j])
            r = 1.0
            vert.append((r * math.cos(e) * math.sin(a), r * math.sin(e), -r * math.cos(e) * math.cos(a)))
            ta = np.array([r * math.cos(e) * math.cos(a), 0.0, r * math.cos(e) * math.sin(a)])
            te = np.array([-r * math.sin(e) * math.sin(a), r * math.cos(e), r * math.sin(e) * math.cos(a)])
            normvec(ta)
            normvec(te)
            n = (te[1] * ta[2] - te[2] * ta[1], te[2] * ta[0] - te[0] * ta[2], te[0] * ta[1] - te[1] * ta[0])
            normal += [n, tuple(ta), tuple(te)]
    return _f32(vert), _f32(normal)


def make_rect(res):
    """MakeRect (plate): cell centres of a [-1, 1]^2 grid at z = -1, identity frames, triangles between the
    centres; shell inertia."""
    vert, normal, face = [], [], []
    dx, dy = 2.0 / res[0], 2.0 / res[1]
    for i in range(res[0]):
        for j in range(res[1]):
            vert.append((-1 + (i + 0.5) * dx, -1 + (j + 0.5) * dy, -1.0))
            normal += [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]
    for i in range(1, res[0]):
        for j in range(1, res[1]):
            a, b = (i - 1) * res[1] + j - 1, i * res[1] + j - 1
            c, d = (i - 1) * res[1] + j, i * res[1] + j
            face += [a, b, c, d, c, b]
    return _f32(vert), _f32(normal), np.array(face, dtype=np.int64).reshape(-1, 3)


def make_cone(nedge, radius):
    """MakeCone: a discrete cone / frustum (bottom polygon at z = -1, top polygon or apex at z = 1)."""
    if nedge < 0:
        raise BuiltinError("Cone mesh type requires a nonnegative number of edges")
    vert = [(math.cos(2 * i * MJPI / nedge), math.sin(2 * i * MJPI / nedge), -1.0) for i in range(nedge)]
    if radius > 0:
        for i in range(nedge, 2 * nedge):
            vert.append((radius * math.cos(2 * i * MJPI / nedge), radius * math.sin(2 * i * MJPI / nedge), 1.0))
    else:
        vert.append((0.0, 0.0, 1.0))
    return _f32(vert)


# ---------------------------------------------------------------------------------------------- flexcomp shapes


def _grid(count, spacing, dim, disc):
    """mjCFlexcomp::MakeGrid for dim 2 or 3: points (double) and the triangles (dim 2; dim 3 makes tetrahedra,
    which a mesh does not keep). Returns (points, faces, nelement)."""
    point, face, nelem = [], [], 0
    if dim == 2:
        for ix in range(count[0]):
            for iy in range(count[1]):
                q = [[0, 1, 2], [0, 2, 3]]
                pos = (spacing[0] * (ix - 0.5 * (count[0] - 1)), spacing[1] * (iy - 0.5 * (count[1] - 1)))
                point.append([pos[0], pos[1], 0.0])
                if disc and ((pos[0] < -EPS and pos[1] > -EPS) or (pos[0] > -EPS and pos[1] < -EPS)):
                    q[0][2] = 3
                    q[1][0] = 1
                if ix < count[0] - 1 and iy < count[1] - 1:
                    c21 = count[2] * count[1]
                    v = (
                        c21 * ix + count[2] * iy,
                        c21 * (ix + 1) + count[2] * iy,
                        c21 * (ix + 1) + count[2] * (iy + 1),
                        c21 * ix + count[2] * (iy + 1),
                    )
                    face += [v[k] for s in range(2) for k in q[s]]
                    nelem += 2
    else:
        for ix in range(count[0]):
            for iy in range(count[1]):
                for iz in range(count[2]):
                    point.append(
                        [
                            spacing[0] * (ix - 0.5 * (count[0] - 1)),
                            spacing[1] * (iy - 0.5 * (count[1] - 1)),
                            spacing[2] * (iz - 0.5 * (count[2] - 1)),
                        ]
                    )
                    if ix < count[0] - 1 and iy < count[1] - 1 and iz < count[2] - 1:
                        nelem += 6
    return point, face, nelem


def _box_project(kind, count, spacing, ix, iy, iz):
    """mjCFlexcomp::BoxProject: a box-surface grid point projected on the box / cylinder / ellipsoid."""
    pos = np.array([2.0 * ix / (count[0] - 1) - 1, 2.0 * iy / (count[1] - 1) - 1, 2.0 * iz / (count[2] - 1) - 1])
    size = [0.5 * spacing[k] * (count[k] - 1) for k in range(3)]
    if kind == BOX:
        pos *= size
    elif kind == CYLINDER:
        l0 = max(abs(pos[0]), abs(pos[1]))
        xy = pos[:2].copy()
        normvec(xy)
        pos[0] = xy[0] * (size[0] * l0)
        pos[1] = xy[1] * (size[1] * l0)
        pos[2] *= size[2]
    else:
        normvec(pos)
        pos *= size
    return [float(x) for x in pos]


def _box(kind, count, spacing, dim):
    """mjCFlexcomp::MakeBox(dim, open=true): box-surface points (with the centre first for dim 3) and, for dim 2,
    the surface triangles of the box open at the top."""
    point = [[0.0, 0.0, 0.0]] if dim == 3 else []
    idx = {}
    is_open = dim == 2

    def add(ix, iy, iz):
        idx[(ix, iy, iz)] = len(point) - (1 if dim == 3 else 0)
        point.append(_box_project(kind, count, spacing, ix, iy, iz))

    for iz in range(0, count[2], count[2] - 1):
        for ix in range(count[0]):
            for iy in range(count[1]):
                if is_open and iz != 0:
                    continue
                add(ix, iy, iz)
    for iy in range(0, count[1], count[1] - 1):
        for ix in range(count[0]):
            for iz in range(count[2]):
                if iz > 0 and (is_open or iz < count[2] - 1):
                    add(ix, iy, iz)
    for ix in range(0, count[0], count[0] - 1):
        for iy in range(count[1]):
            for iz in range(count[2]):
                if iz > 0 and (is_open or iz < count[2] - 1) and 0 < iy < count[1] - 1:
                    add(ix, iy, iz)
    face = []
    if dim == 2:
        for iz in range(0, count[2], count[2] - 1):
            for ix in range(count[0] - 1):
                for iy in range(count[1] - 1):
                    if iz != 0:
                        continue
                    s1, s2 = (1, 0) if iz == 0 else (0, 1)
                    face += [idx[(ix, iy, iz)], idx[(ix + 1, iy + s1, iz)], idx[(ix + 1, iy + s2, iz)]]
                    face += [idx[(ix, iy, iz)], idx[(ix + s2, iy + 1, iz)], idx[(ix + s1, iy + 1, iz)]]
        for iy in range(0, count[1], count[1] - 1):
            for ix in range(count[0] - 1):
                for iz in range(count[2] - 1):
                    x0, dx = (ix, 1) if iy == 0 else (ix + 1, -1)
                    face += [idx[(x0, iy, iz)], idx[(x0 + dx, iy, iz)], idx[(x0 + dx, iy, iz + 1)]]
                    face += [idx[(x0, iy, iz)], idx[(x0 + dx, iy, iz + 1)], idx[(x0, iy, iz + 1)]]
        for ix in range(0, count[0], count[0] - 1):
            for iy in range(count[1] - 1):
                for iz in range(count[2] - 1):
                    y0, dy = (iy, 1) if ix != 0 else (iy + 1, -1)
                    face += [idx[(ix, y0, iz)], idx[(ix, y0 + dy, iz)], idx[(ix, y0 + dy, iz + 1)]]
                    face += [idx[(ix, y0, iz)], idx[(ix, y0 + dy, iz + 1)], idx[(ix, y0, iz + 1)]]
    return point, face


def _disc_project(point, count, spacing):
    """MakeSquare's radial projection of the square grid onto the disc."""
    size = (0.5 * spacing[0] * (count[0] - 1), 0.5 * spacing[1] * (count[1] - 1))
    for p in point:
        l0 = max(abs(p[0]), abs(p[1]))
        xy = np.array(p[:2])
        normvec(xy)
        p[0] = xy[0] * (size[0] * l0)
        p[1] = xy[1] * (size[1] * l0)


# ---------------------------------------------------------------------------------------------- mjs_makeMesh


def _grid_params(params):
    """count[3], spacing[3] and the optional dim of the flexcomp-style builtins."""
    count = [_int(x) for x in params[:3]]
    spacing = [float(x) for x in params[3:6]]
    return count, spacing


def make_builtin(builtin, params):
    """mjs_makeMesh: validate `params` for `builtin` (mjtMeshBuiltin) and generate the user data.

    Returns a dict with 'vert' (n,3) float32 and optionally 'face' (k,3) int64, 'normal' (m,3) float32 and
    'inertia' (the mesh inertia type the generator imposes). Raises BuiltinError with MuJoCo's message."""
    p = [float(x) for x in params]
    n = len(p)
    if builtin == HEMISPHERE:
        if n != 1:
            raise BuiltinError("Hemisphere mesh type requires 1 parameter")
        res = _int(p[0])
        if res < 0:
            raise BuiltinError("Hemisphere resolution cannot be negative")
        if res > 10:
            raise BuiltinError("Hemisphere resolution cannot be greater than 10")
        vert, face = make_hemisphere(res)
        return {"vert": vert, "face": face}
    if builtin == SPHERE:
        if n != 1:
            raise BuiltinError("Sphere mesh type requires 1 parameter")
        sub = _int(p[0])
        if sub < 0:
            raise BuiltinError("Sphere subdivision cannot be negative")
        if sub > 4:
            raise BuiltinError("Sphere subdivision cannot be greater than 4")
        vert, face = make_sphere(sub)
        return {"vert": vert, "face": face}
    if builtin == SUPERSPHERE:
        if n != 3:
            raise BuiltinError("Supersphere mesh type requires 3 parameters")
        res = _int(p[0])
        if res < 3:
            raise BuiltinError("Supersphere resolution must be greater than 2")
        if p[1] < 0:
            raise BuiltinError("Supersphere 'e' cannot be negative")
        if p[2] < 0:
            raise BuiltinError("Supersphere 'n' cannot be negative")
        vert, face = make_supersphere(res, p[1], p[2])
        return {"vert": vert, "face": face}
    if builtin == SUPERTORUS:
        if n != 4:
            raise BuiltinError("Supertorus mesh type requires 4 parameters")
        res = _int(p[0])
        if res < 3:
            raise BuiltinError("Supertorus resolution must be greater than 3")
        if p[1] <= 0 or p[1] > 1:
            raise BuiltinError("Supertorus radius must be in (0, 1]")
        if p[2] <= 0:
            raise BuiltinError("Supertorus 's' must be greater than 0")
        if p[3] <= 0:
            raise BuiltinError("Supertorus 't' must be greater than 0")
        vert, face = make_supertorus(res, p[1], p[2], p[3])
        return {"vert": vert, "face": face}
    if builtin == WEDGE:
        if n != 5:
            raise BuiltinError("Wedge builtin mesh types require 5 parameters")
        res = (_int(p[0]), _int(p[1]))
        fov, gamma = (p[2], p[3]), p[4]
        if fov[0] <= 0 or fov[0] > 180:
            raise BuiltinError("fov[0] must be a float between (0, 180] degrees")
        if fov[1] <= 0 or fov[1] > 90:
            raise BuiltinError("`fov[1]` must be a float between (0, 90] degrees")
        if res[0] <= 0 or res[1] <= 0:
            raise BuiltinError("Horizontal and vertical resolutions must be positive")
        if gamma < 0 or gamma > 1:
            raise BuiltinError("`gamma` must be a nonnegative float between [0, 1]")
        vert, normal = make_wedge(res, fov, gamma)
        return {"vert": vert, "normal": normal}
    if builtin == PLATE:
        if n != 2:
            raise BuiltinError("Plate builtin mesh type requires 2 parameters")
        res = (_int(p[0]), _int(p[1]))
        if res[0] <= 0 or res[1] <= 0:
            raise BuiltinError("Horizontal and vertical resolutions must be positive")
        vert, normal, face = make_rect(res)
        return {"vert": vert, "normal": normal, "face": face, "inertia": INERTIA_SHELL}
    if builtin == CONE:
        if n != 2:
            raise BuiltinError("Cone mesh type requires 2 parameters")
        return {"vert": make_cone(_int(p[0]), p[1])}
    if builtin == GRID:
        if n not in (6, 7):
            raise BuiltinError("Grid mesh type requires 6 or 7 parameters (count[3], spacing[3], [dim])")
        count, spacing = _grid_params(p)
        dim = _int(p[6]) if n == 7 else 3
        if dim not in (2, 3):
            raise BuiltinError("Grid dim must be 2 or 3")
        if any(c <= 0 for c in count[:dim]):
            raise BuiltinError("Grid count must be positive")
        if any(c != 1 for c in count[dim:]):
            raise BuiltinError("Grid count must be 1 along dimensions beyond dim")
        point, face, nelem = _grid(count, spacing, dim, False)
        if not nelem:
            raise BuiltinError("Failed to create grid mesh")
        return _flex_result(point, face, dim)
    if builtin in (BOX, CYLINDER, ELLIPSOID):
        if n not in (6, 7):
            raise BuiltinError(
                "Box/cylinder/ellipsoid mesh type requires 6 or 7 parameters (count[3], spacing[3], [dim])"
            )
        count, spacing = _grid_params(p)
        dim = _int(p[6]) if n == 7 else 3
        if dim not in (2, 3):
            raise BuiltinError("Mesh dim must be 2 or 3 for box/cylinder/ellipsoid")
        if any(c < 2 for c in count):
            raise BuiltinError("Box/cylinder/ellipsoid count must be at least 2")
        point, face = _box(builtin, count, spacing, dim)
        return _flex_result(point, face, dim)
    if builtin in (SQUARE, DISC):
        if n != 6:
            raise BuiltinError("Square/disc mesh type requires 6 parameters (count[3], spacing[3])")
        count, spacing = _grid_params(p)
        if count[0] <= 0 or count[1] <= 0:
            raise BuiltinError("Count must be positive")
        if count[2] != 1:
            raise BuiltinError("Square/disc count[2] must be 1")
        point, face, nelem = _grid(count, spacing, 2, builtin == DISC)
        if not nelem:
            raise BuiltinError("Failed to create square/disc mesh")
        if builtin == DISC:
            _disc_project(point, count, spacing)
        return _flex_result(point, face, 2)
    raise BuiltinError("Unsupported mesh type")


def _flex_result(point, face, dim):
    out = {"vert": _f32(point)}
    if dim == 2:
        out["face"] = np.array(face, dtype=np.int64).reshape(-1, 3)
        out["inertia"] = INERTIA_SHELL
    return out
