"""Generate the small mesh / height-field files used by tests/test_assets.py and the meshes of the URDF robots
in tests/assets/urdf/ (tests/test_urdf.py) (run once; outputs committed).

    python tests/assets/make_assets.py
"""

import os
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

TETRA_V = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float) * [0.3, 0.2, 0.4] + [0.1, -0.2, 0.05]
TETRA_F = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]

BOX_V = np.array([[x, y, z] for z in (-1, 1) for y in (-1, 1) for x in (-1, 1)], float) * [0.1, 0.2, 0.3]
# outward (counter-clockwise seen from outside) triangles of the box above
BOX_F = [[0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6], [0, 1, 4], [1, 5, 4], [2, 6, 3], [3, 6, 7],
         [0, 4, 2], [2, 4, 6], [1, 3, 5], [3, 7, 5]]


def irregular_points(n=14, seed=3):
    """Points on a squashed, shifted ellipsoid: all on the hull, hull in general position (simplicial)."""
    rng = np.random.default_rng(seed)
    p = rng.normal(size=(n, 3))
    p /= np.linalg.norm(p, axis=1, keepdims=True)
    return np.round(p * [0.3, 0.15, 0.1] + [0.05, 0.02, -0.03], 5)


def l_shape():
    """A non-convex L-shaped prism as quads (OBJ), outward orientation."""
    outline = [(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]      # counter-clockwise in xy
    v = [(x * 0.1, y * 0.1, 0.0) for x, y in outline] + [(x * 0.1, y * 0.1, 0.15) for x, y in outline]
    n = len(outline)
    quads = []
    for i in range(n):
        j = (i + 1) % n
        quads.append([i, j, n + j, n + i])
    bottom = [[0, 3, 2, 1], [0, 5, 4, 3]]                           # two quads (clockwise from +z)
    top = [[n + 0, n + 1, n + 2, n + 3], [n + 0, n + 3, n + 4, n + 5]]
    return np.array(v), quads + bottom + top


def write_stl_binary(path, v, f):
    with open(path, "wb") as fh:
        fh.write(b"numjoco test mesh".ljust(80, b" "))
        fh.write(struct.pack("<i", len(f)))
        for tri in f:
            fh.write(struct.pack("<3f", 0, 0, 0))
            for i in tri:
                fh.write(struct.pack("<3f", *v[i]))
            fh.write(b"\0\0")


def write_stl_ascii(path, v, f):
    with open(path, "w") as fh:
        fh.write("solid box\n")
        for tri in f:
            fh.write("  facet normal 0 0 0\n    outer loop\n")
            for i in tri:
                fh.write("      vertex %.6f %.6f %.6f\n" % tuple(v[i]))
            fh.write("    endloop\n  endfacet\n")
        fh.write("endsolid box\n")


def write_obj(path, v, faces, extra="", digits=6):
    with open(path, "w") as fh:
        fh.write("# numjoco test mesh\n" + extra)
        for p in v:
            fh.write("v " + " ".join("%.*g" % (digits, x) if digits != 6 else "%.6f" % x for x in p) + "\n")
        for face in faces:
            fh.write("f " + " ".join(str(i + 1) for i in face) + "\n")


def _all_triangles(points, faces):
    """True when MuJoCo's polygon merge (normals binned at 0.01 rad) leaves every hull face a triangle: then
    the hull's polygons do not depend on the order in which qhull lists its faces (checked with our compiler,
    whose MakePolygons follows MuJoCo's)."""
    from sim.compiler import compile_document
    from sim.mjcf import reader
    xml = (f'<mujoco><asset><mesh name="m" vertex="{" ".join(map(repr, points.ravel().tolist()))}" '
           f'face="{" ".join(map(str, faces.ravel().tolist()))}"/></asset>'
           '<worldbody><geom type="mesh" mesh="m"/></worldbody></mujoco>')
    num = compile_document(reader.read(xml), set_constants=False).mesh_polyvertnum
    return bool((num == 3).all())


def link_hull(length, radius, seed, n=16):
    """Points of a rounded, slightly irregular link shape along +z (length, radius in metres) and the
    outward faces of their convex hull: a closed convex mesh in general position (every point on the hull, no
    two hull faces with normals in the same 0.01 rad bin), so that MuJoCo's hull of it is unique and its
    polygons are its triangles."""
    import sys
    sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
    from sim.compiler.mesh import convex_hull
    for attempt in range(100):
        rng = np.random.default_rng(seed * 1000 + attempt)
        p = rng.normal(size=(n, 3))
        p /= np.linalg.norm(p, axis=1, keepdims=True)
        p = (p * [radius, radius * 0.9, length / 2] + [0, 0, length / 2]).astype(np.float32).astype(np.float64)
        faces = convex_hull(p)
        if len(np.unique(faces)) == n and _all_triangles(p, faces):
            return p, faces
    raise RuntimeError(f"no general-position hull found for seed {seed}")


# URDF robot meshes: (file, length, radius, seed, unit scale written into the file)
URDF_MESHES = [("collision/link%d.stl" % i, ln, r, 10 + i, 1.0) for i, (ln, r) in enumerate(
    [(0.15, 0.06), (0.25, 0.055), (0.12, 0.05), (0.22, 0.05), (0.12, 0.045), (0.2, 0.045), (0.08, 0.04),
     (0.06, 0.035)])] + [
    ("collision/hand.stl", 0.06, 0.05, 30, 1.0),
    ("visual/finger.obj", 0.05, 0.01, 31, 1.0),
    ("visual/link0.obj", 0.15, 0.06, 32, 1.0),     # same stem as collision/link0.stl (MuJoCo names both 'link0')
    ("visual/link1.obj", 0.25, 0.055, 33, 1.0),
    ("trunk_mm.obj", 267.0, 90.0, 40, 1.0),         # millimetres: used with scale 0.001
]


def urdf_meshes():
    d = os.path.join(HERE, "urdf", "meshes")
    for rel, length, radius, seed, _ in URDF_MESHES:
        path = os.path.join(d, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        v, f = link_hull(length, radius, seed)
        if rel.endswith(".stl"):
            write_stl_binary(path, v, f)
        else:
            write_obj(path, v, f, digits=9)


def write_skn(path, vert, texcoord, face, bones):
    """MuJoCo's binary skin format: int32 nvert, ntexcoord, nface, nbone; float32 vertices, texcoords; int32
    faces; per bone a 40-byte body name, float32 bindpos[3], bindquat[4], int32 count, int32 ids, float32
    weights."""
    vert, texcoord, face = (np.asarray(a) for a in (vert, texcoord, face))
    with open(path, "wb") as fh:
        fh.write(struct.pack("<4i", len(vert), len(texcoord), len(face), len(bones)))
        fh.write(np.asarray(vert, "<f4").tobytes() + np.asarray(texcoord, "<f4").tobytes())
        fh.write(np.asarray(face, "<i4").tobytes())
        for body, bindpos, bindquat, ids, weights in bones:
            fh.write(body.encode().ljust(40, b"\0"))
            fh.write(np.asarray(bindpos, "<f4").tobytes() + np.asarray(bindquat, "<f4").tobytes())
            fh.write(struct.pack("<i", len(ids)) + np.asarray(ids, "<i4").tobytes())
            fh.write(np.asarray(weights, "<f4").tobytes())


def skin_strip():
    """A strip of 2 x 4 vertices along x, skinned to two bodies 'upper' and 'lower' (tests/models/skin.xml)."""
    vert = [[x * 0.1, y * 0.05, 0.0] for x in range(4) for y in (-1, 1)]
    tex = [[x / 3, (y + 1) / 2] for x in range(4) for y in (-1, 1)]
    face = [[2 * i, 2 * i + 2, 2 * i + 1] for i in range(3)] + [[2 * i + 1, 2 * i + 2, 2 * i + 3] for i in range(3)]
    bones = [("upper", [0, 0, 0], [1, 0, 0, 0], [0, 1, 2, 3, 4, 5], [1, 1, 0.7, 0.7, 0.3, 0.3]),
             ("lower", [0.2, 0, 0], [0.9, 0, 0.1, 0], [2, 3, 4, 5, 6, 7], [0.3, 0.3, 0.7, 0.7, 2, 2])]
    write_skn(os.path.join(HERE, "strip.skn"), vert, tex, face, bones)


def main():
    write_stl_binary(os.path.join(HERE, "tetra.stl"), TETRA_V, TETRA_F)
    write_stl_binary(os.path.join(HERE, "box.stl"), BOX_V, BOX_F)
    write_stl_ascii(os.path.join(HERE, "box_ascii.stl"), BOX_V, BOX_F)
    pts = irregular_points()
    write_obj(os.path.join(HERE, "irregular_points.obj"), pts, [])
    v, quads = l_shape()
    write_obj(os.path.join(HERE, "lshape.obj"), v, quads)
    # OBJ with texture coordinates and normals referenced by the faces (v/vt/vn)
    with open(os.path.join(HERE, "tetra_uv.obj"), "w") as fh:
        for p in TETRA_V:
            fh.write("v %.6f %.6f %.6f\n" % tuple(p))
        for uv in ((0, 0), (1, 0), (0, 1), (1, 1)):
            fh.write("vt %g %g\n" % uv)
        fh.write("vn 0 0 -1\nvn 0 -1 0\nvn -1 0 0\nvn 0.577 0.577 0.577\n")
        for k, tri in enumerate(TETRA_F):
            fh.write("f " + " ".join(f"{i + 1}/{i + 1}/{k + 1}" for i in tri) + "\n")
    # MuJoCo's binary hfield: int32 nrow, int32 ncol, float32 data
    rng = np.random.default_rng(7)
    h = rng.uniform(-0.5, 2.0, size=(5, 7)).astype(np.float32)
    with open(os.path.join(HERE, "terrain.bin"), "wb") as fh:
        fh.write(struct.pack("<2i", 5, 7))
        fh.write(h.tobytes())
    urdf_meshes()
    skin_strip()


if __name__ == "__main__":
    main()
