"""Generate the small mesh / height-field files used by tests/test_assets.py and the meshes of the URDF robots
in tests/assets/urdf/ (tests/test_urdf.py) (run once; outputs committed).

    python tests/assets/make_assets.py
"""

import os
import struct
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

TETRA_V = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float) * [0.3, 0.2, 0.4] + [0.1, -0.2, 0.05]
TETRA_F = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]

BOX_V = np.array([[x, y, z] for z in (-1, 1) for y in (-1, 1) for x in (-1, 1)], float) * [0.1, 0.2, 0.3]
# outward (counter-clockwise seen from outside) triangles of the box above
BOX_F = [
    [0, 2, 1],
    [1, 2, 3],
    [4, 5, 6],
    [5, 7, 6],
    [0, 1, 4],
    [1, 5, 4],
    [2, 6, 3],
    [3, 6, 7],
    [0, 4, 2],
    [2, 4, 6],
    [1, 3, 5],
    [3, 7, 5],
]


def irregular_points(n=14, seed=3):
    """Points on a squashed, shifted ellipsoid: all on the hull, hull in general position (simplicial)."""
    rng = np.random.default_rng(seed)
    p = rng.normal(size=(n, 3))
    p /= np.linalg.norm(p, axis=1, keepdims=True)
    return np.round(p * [0.3, 0.15, 0.1] + [0.05, 0.02, -0.03], 5)


def l_shape():
    """A non-convex L-shaped prism as quads (OBJ), outward orientation."""
    outline = [(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]  # counter-clockwise in xy
    v = [(x * 0.1, y * 0.1, 0.0) for x, y in outline] + [(x * 0.1, y * 0.1, 0.15) for x, y in outline]
    n = len(outline)
    quads = []
    for i in range(n):
        j = (i + 1) % n
        quads.append([i, j, n + j, n + i])
    bottom = [[0, 3, 2, 1], [0, 5, 4, 3]]  # two quads (clockwise from +z)
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

    xml = (
        f'<mujoco><asset><mesh name="m" vertex="{" ".join(map(repr, points.ravel().tolist()))}" '
        f'face="{" ".join(map(str, faces.ravel().tolist()))}"/></asset>'
        '<worldbody><geom type="mesh" mesh="m"/></worldbody></mujoco>'
    )
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
URDF_MESHES = [
    ("collision/link%d.stl" % i, ln, r, 10 + i, 1.0)
    for i, (ln, r) in enumerate(
        [
            (0.15, 0.06),
            (0.25, 0.055),
            (0.12, 0.05),
            (0.22, 0.05),
            (0.12, 0.045),
            (0.2, 0.045),
            (0.08, 0.04),
            (0.06, 0.035),
        ]
    )
] + [
    ("collision/hand.stl", 0.06, 0.05, 30, 1.0),
    ("visual/finger.obj", 0.05, 0.01, 31, 1.0),
    ("visual/link0.obj", 0.15, 0.06, 32, 1.0),  # same stem as collision/link0.stl (MuJoCo names both 'link0')
    ("visual/link1.obj", 0.25, 0.055, 33, 1.0),
    ("trunk_mm.obj", 267.0, 90.0, 40, 1.0),  # millimetres: used with scale 0.001
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
    bones = [
        ("upper", [0, 0, 0], [1, 0, 0, 0], [0, 1, 2, 3, 4, 5], [1, 1, 0.7, 0.7, 0.3, 0.3]),
        ("lower", [0.2, 0, 0], [0.9, 0, 0.1, 0], [2, 3, 4, 5, 6, 7], [0.3, 0.3, 0.7, 0.7, 2, 2]),
    ]
    write_skn(os.path.join(HERE, "strip.skn"), vert, tex, face, bones)


def _chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def _pack_bits(values, depth):
    """One scanline of samples of `depth` < 8 bits, most significant first."""
    per = 8 // depth
    out = []
    for i in range(0, len(values), per):
        v = 0
        for k in range(per):
            v = (v << depth) | (int(values[i + k]) if i + k < len(values) else 0)
        out.append(v)
    return bytes(out)


def _filtered(rows, bpp, rotate):
    """Scanlines with PNG filters (None, Sub, Up, Average, Paeth in turn when `rotate`, else None)."""
    out, prev = [], bytes(len(rows[0]))
    for k, row in enumerate(rows):
        ft = k % 5 if rotate else 0
        a = np.frombuffer(row, np.uint8).astype(int)
        p = np.frombuffer(prev, np.uint8).astype(int)
        res = np.zeros_like(a)
        for i in range(len(a)):
            left = a[i - bpp] if i >= bpp else 0
            up, ul = p[i], (p[i - bpp] if i >= bpp else 0)
            if ft == 0:
                pred = 0
            elif ft == 1:
                pred = left
            elif ft == 2:
                pred = up
            elif ft == 3:
                pred = (left + up) >> 1
            else:
                pp = left + up - ul
                pa, pb, pc = abs(pp - left), abs(pp - up), abs(pp - ul)
                pred = left if (pa <= pb and pa <= pc) else (up if pb <= pc else ul)
            res[i] = (a[i] - pred) & 255
        out.append(bytes([ft]) + res.astype(np.uint8).tobytes())
        prev = row
    return out


def write_png(path, pixels, color, depth, extra=b"", rotate_filters=False, interlace=False):
    """A PNG of `pixels` (h, w, channels) for colour type `color` and bit depth `depth` (our own encoder, for
    test data: every filter type, Adam7 interlacing, extra chunks such as PLTE / tRNS / sRGB)."""
    h, w = pixels.shape[:2]
    channels = pixels.shape[2]

    def rows_of(img):
        rws = []
        for r in range(img.shape[0]):
            line = img[r].reshape(-1)
            if depth == 16:
                rws.append(line.astype(">u2").tobytes())
            elif depth == 8:
                rws.append(line.astype(np.uint8).tobytes())
            else:
                rws.append(_pack_bits(line, depth))
        return rws

    bpp = max(1, channels * depth // 8)
    if not interlace:
        raw = b"".join(_filtered(rows_of(pixels), bpp, rotate_filters))
    else:
        raw = b""
        for x0, y0, dx, dy in (
            (0, 0, 8, 8),
            (4, 0, 8, 8),
            (0, 4, 4, 8),
            (2, 0, 4, 4),
            (0, 2, 2, 4),
            (1, 0, 2, 2),
            (0, 1, 1, 2),
        ):
            sub = pixels[y0::dy, x0::dx]
            if sub.size:
                raw += b"".join(_filtered(rows_of(sub), bpp, rotate_filters))
    with open(path, "wb") as fh:
        fh.write(
            b"\x89PNG\r\n\x1a\n"
            + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color, 0, 0, int(interlace)))
            + extra
            + _chunk(b"IDAT", zlib.compress(raw))
            + _chunk(b"IEND", b"")
        )


def png_textures():
    """PNG files of every colour type / bit depth, filters, interlacing, palette with tRNS, sRGB chunk, a cube
    grid and a cube face (tests/models/textures_png.xml), and a height field image."""
    d = os.path.join(HERE, "textures")
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(11)
    h, w = 5, 7
    write_png(os.path.join(d, "rgb8.png"), rng.integers(0, 256, (h, w, 3)), 2, 8, rotate_filters=True)
    write_png(os.path.join(d, "rgba8_srgb.png"), rng.integers(0, 256, (h, w, 4)), 6, 8, extra=_chunk(b"sRGB", b"\x00"))
    write_png(os.path.join(d, "grey16.png"), rng.integers(0, 65536, (h, w, 1)), 0, 16, rotate_filters=True)
    write_png(os.path.join(d, "grey2.png"), rng.integers(0, 4, (h, w, 1)), 0, 2)
    pal = rng.integers(0, 256, (5, 3)).astype(np.uint8)
    write_png(
        os.path.join(d, "palette4.png"),
        rng.integers(0, 5, (h, w, 1)),
        3,
        4,
        extra=_chunk(b"PLTE", pal.tobytes()) + _chunk(b"tRNS", b"\x80\x40"),
    )
    write_png(os.path.join(d, "grey_alpha8.png"), rng.integers(0, 256, (h, w, 2)), 4, 8)
    write_png(
        os.path.join(d, "rgb16_interlaced.png"),
        rng.integers(0, 65536, (11, 13, 3)),
        2,
        16,
        rotate_filters=True,
        interlace=True,
    )
    face = 4
    write_png(os.path.join(d, "cube_grid.png"), rng.integers(0, 256, (3 * face, 4 * face, 3)), 2, 8)
    write_png(os.path.join(d, "cube_face.png"), rng.integers(0, 256, (face, face, 3)), 2, 8)
    write_png(os.path.join(d, "terrain.png"), rng.integers(0, 256, (6, 9, 1)), 0, 8)


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
    png_textures()


if __name__ == "__main__":
    main()
