"""Textures and materials: the tex_* and mat_* Model fields (mjCTexture / mjCMaterial).

Builtin textures (gradient, checker, flat, with edge/cross/random marks) are generated exactly as MuJoCo
does; PNG files are decoded (compiler.png) into 2D textures, cube / skybox textures from one file (repeated or a
grid of faces) or from one file per face, with hflip / vflip and the sRGB colour space detection of
mjCTexture::Load2D / LoadCubeSingle / LoadCubeSeparate.  KTX files raise UnsupportedError.
"""

import math

import numpy as np

from .mesh import asset_path, strippath, stripext
from .png import PNGError, read_png

NTEXROLE = 10  # mjNTEXROLE
ROLE_RGB = 1  # mjTEXROLE_RGB
TEX_2D = 0
BUILTIN_NONE, BUILTIN_GRADIENT, BUILTIN_CHECKER, BUILTIN_FLAT = 0, 1, 2, 3
MARK_NONE, MARK_EDGE, MARK_CROSS, MARK_RANDOM = 0, 1, 2, 3


class Texture:
    def __init__(self, name, el):
        self.name = name
        self.el = el
        self.type = 1
        self.colorspace = 0
        self.width = 0
        self.height = 0
        self.nchannel = 3
        self.data = np.zeros(0, np.uint8)


def _byte(x):
    """(std::byte)(255 * x): truncation toward zero, wrapped to 8 bits."""
    return np.asarray(np.trunc(255 * np.asarray(x, dtype=np.float64)), dtype=np.int64) & 0xFF


def _interp(rgb1, rgb2, pos):
    """interp(): sigmoid blend of two colours for pos in (-1, 1); pos may be an array."""
    correction = 1.0 / math.sqrt(2)
    alpha = 0.5 * (1 + pos / np.sqrt(1 + pos * pos) / correction)
    alpha = np.clip(alpha, 0, 1)[..., None]
    return _byte(alpha * np.asarray(rgb1) + (1 - alpha) * np.asarray(rgb2))


def _checker(w, h, c1, c2):
    img = np.empty((h, w, 3), np.int64)
    img[: h // 2, : w // 2] = c1
    img[h // 2 :, w // 2 :] = c1
    img[: h // 2, w // 2 :] = c2
    img[h // 2 :, : w // 2] = c2
    return img


def mt19937_64_uniform(seed, n):
    """n draws of std::uniform_real_distribution<double>(0, 1) on std::mt19937_64(seed), as generate_canonical makes
    them from one 64-bit draw each (float64, (n,)): the twist and tempering on whole state vectors."""
    mt = np.zeros(312, dtype=np.uint64)
    x = seed & 0xFFFFFFFFFFFFFFFF
    mt[0] = x
    for i in range(1, 312):
        x = (6364136223846793005 * (x ^ (x >> 62)) + i) & 0xFFFFFFFFFFFFFFFF
        mt[i] = x
    upper, lower, matrix = np.uint64(0xFFFFFFFF80000000), np.uint64(0x7FFFFFFF), np.uint64(0xB5026F5AA96619E9)
    one, zero = np.uint64(1), np.uint64(0)
    ntwist = -(-n // 312)
    out = np.empty((ntwist, 312), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for t in range(ntwist):
            # the in-place twist in three runs: i < 156 reads the old state only, 156 <= i < 311 the run just
            # written (mt[i - 156]), i = 311 both
            for lo, hi in ((0, 156), (156, 311)):
                y = (mt[lo:hi] & upper) | (mt[lo + 1 : hi + 1] & lower)
                mag = np.where(y & one, matrix, zero)
                src = mt[lo + 156 : hi + 156] if hi <= 156 else mt[lo - 156 : hi - 156]
                mt[lo:hi] = src ^ (y >> one) ^ mag
            y = (mt[311] & upper) | (mt[0] & lower)
            mt[311] = mt[155] ^ (y >> one) ^ (matrix if y & one else zero)
            out[t] = mt
    y = out.reshape(-1)[:n].copy()
    y ^= (y >> np.uint64(29)) & np.uint64(0x5555555555555555)
    y ^= (y << np.uint64(17)) & np.uint64(0x71D67FFFEDA60000)
    y ^= (y << np.uint64(37)) & np.uint64(0xFFF7EEE000000000)
    y ^= y >> np.uint64(43)
    r = y.astype(np.float64) / 18446744073709551616.0
    return np.where(r < 1.0, r, np.nextafter(1.0, 0.0))


def _random_dots(rgb, markrgb, width, height, prob):
    """randomdot(): rgb is the flat byte buffer viewed as (npixel, 3) for the first width*height pixels; pixel k
    gets the mark when the k-th draw of std::mt19937_64(42) is below prob."""
    n = width * height
    rgb[:n][mt19937_64_uniform(42, n) < prob] = _byte(markrgb)


def builtin_2d(t, rgb1, rgb2, markrgb, builtin, mark, random):
    w, h = t.width, t.height
    img = np.zeros((h, w, 3), np.int64)
    if builtin == BUILTIN_GRADIENT:
        c = np.arange(w, dtype=np.float64)[None, :]
        r = np.arange(h, dtype=np.float64)[:, None]
        x = 2 * c / float(w - 1) - 1
        y = 1 - 2 * r / float(h - 1)
        pos = 2 * np.sqrt(x * x + y * y) - 1
        img = _interp(rgb2, rgb1, pos)
    elif builtin == BUILTIN_CHECKER:
        img = _checker(w, h, _byte(rgb1), _byte(rgb2))
    elif builtin == BUILTIN_FLAT:
        img[:] = _byte(rgb1)
    m = _byte(markrgb)
    if mark == MARK_EDGE:
        img[:, 0] = m
        img[:, w - 1] = m
        img[0, :] = m
        img[h - 1, :] = m
    elif mark == MARK_CROSS:
        img[:, w // 2] = m
        img[h // 2, :] = m
    flat = img.reshape(-1, 3)
    if mark == MARK_RANDOM and random > 0:
        _random_dots(flat, markrgb, w, h, random)
    return flat


def builtin_cube(t, rgb1, rgb2, markrgb, builtin, mark, random):
    w = t.width
    faces = np.zeros((6, w, w, 3), np.int64)
    if builtin == BUILTIN_GRADIENT:
        c = np.arange(w, dtype=np.float64)[None, :]
        r = np.arange(w, dtype=np.float64)[:, None]
        x = 2 * c / float(w - 1) - 1
        y = 1 - 2 * r / float(w - 1)
        elside = np.arcsin(y / np.sqrt(1 + x * x + y * y)) / (0.5 * math.pi)
        elup = 1 - np.arccos(1.0 / np.sqrt(1 + x * x + y * y)) / (0.5 * math.pi)
        side = _interp(rgb1, rgb2, elside)
        for j in (0, 1, 4, 5):
            faces[j] = side
        faces[2] = _interp(rgb1, rgb2, elup)
        faces[3] = _interp(rgb1, rgb2, -elup)
    elif builtin == BUILTIN_CHECKER:
        c1, c2 = _byte(rgb1), _byte(rgb2)
        for j in range(4):
            faces[j] = _checker(w, w, c1, c2)
        for j in (4, 5):
            faces[j] = _checker(w, w, c2, c1)
    elif builtin == BUILTIN_FLAT:
        faces[:] = _byte(rgb1)
        faces[3] = _byte(rgb2)
    m = _byte(markrgb)
    if mark == MARK_EDGE:
        faces[:, :, 0] = m
        faces[:, :, w - 1] = m
        faces[:, 0, :] = m
        faces[:, w - 1, :] = m
    elif mark == MARK_CROSS:
        faces[:, :, w // 2] = m
        faces[:, w // 2, :] = m
    flat = faces.reshape(-1, 3)
    if mark == MARK_RANDOM and random > 0:
        _random_dots(flat, markrgb, w, t.height, random)
    return flat


def compile_texture(ctx, el, name):
    """mjCTexture::Compile: builtin textures, PNG files (2D, cube / skybox from one file or one per face)."""
    t = Texture(name, el)
    t.type = int(el.get("type"))
    t.colorspace = int(el.get("colorspace"))
    t.width, t.height = int(el.get("width")), int(el.get("height"))
    t.nchannel = int(el.get("nchannel"))
    gl = el.get("gridlayout", None)
    gs = el.get("gridsize")
    # checked where gridlayout is written (here, or on the <default><texture> that sets it: mjcf.reader)
    if "gridlayout" in el.raw and len(gl) != int(gs[0]) * int(gs[1]):
        raise el.error("gridlayout length must match gridsize", "gridlayout")
    builtin = int(el.get("builtin"))
    if builtin != BUILTIN_NONE:
        if t.nchannel != 3:
            raise el.error("builtin textures must have 3 channels", "nchannel")
        if t.width < 1:
            raise el.error("Invalid width of builtin texture", "width")
        if t.type != TEX_2D:
            t.height = 6 * t.width
        elif t.height < 1:
            raise el.error("Invalid height of builtin texture", "height")
        args = (
            np.asarray(el.get("rgb1"), dtype=np.float64),
            np.asarray(el.get("rgb2"), dtype=np.float64),
            np.asarray(el.get("markrgb"), dtype=np.float64),
            builtin,
            int(el.get("mark")),
            float(el.get("random")),
        )
        rgb = builtin_2d(t, *args) if t.type == TEX_2D else builtin_cube(t, *args)
        data = np.zeros(t.nchannel * t.width * t.height, np.uint8)
        n = min(len(data), 3 * len(rgb))
        data[:n] = rgb.reshape(-1)[:n].astype(np.uint8)
        t.data = data
        return t
    if el.get("file", ""):
        attr = "file"
        w, h, img = _load_image(ctx, el, t, attr)
        if t.type == TEX_2D:
            t.width, t.height, t.data = w, h, img
            return t
        gs = [int(x) for x in el.get("gridsize")]
        if gs[0] < 1 or gs[1] < 1 or gs[0] * gs[1] > 12:
            raise el.error("gridsize must be non-zero and no more than 12 squares in texture", "gridsize")
        if w // gs[1] != h // gs[0] or w % gs[1] or h % gs[0]:
            raise el.error("PNG size must be integer multiple of gridsize in texture", "gridsize")
        if gs == [1, 1]:
            t.width = t.height = w
            t.data = img[: 3 * w * w].copy()
            return t
        t.width = w // gs[1]
        t.height = 6 * t.width
        faces = _cube_faces(t, el)
        layout = gl or ""
        image = img.reshape(h, w, 3)
        for k in range(gs[0] * gs[1]):
            sym = layout[k] if k < len(layout) else "."
            if sym == ".":
                continue
            if sym not in _FACES:
                raise el.error("gridlayout symbol is not among '.RLUDFB' in texture", "gridlayout")
            r0, c0 = t.width * (k // gs[1]), t.width * (k % gs[1])
            faces[_FACES.index(sym)] = image[r0 : r0 + t.width, c0 : c0 + t.width].reshape(-1)
        t.data = np.concatenate(faces)
        return t
    files = [a for a in _CUBE_FILES if el.get(a, "")]
    if not files:
        if t.type == TEX_2D:
            raise el.error("Cannot load 2D texture from separate files, texture")
        raise el.error("No cubefiles_ defined in cube or skybox texture")
    if t.type == TEX_2D:
        raise el.error("Cannot load 2D texture from separate files, texture", files[0])
    faces = [None] * 6
    for i, attr in enumerate(_CUBE_FILES):
        if not el.get(attr, ""):
            continue
        w, h, img = _load_image(ctx, el, t, attr)
        if w != h:
            raise el.error("non-square PNG file in cube or skybox texture", attr)
        if t.width == 0:
            t.width, t.height = w, 6 * w
        elif t.width != w:
            raise el.error("PNG file has an incompatible size in cube or skybox texture", attr)
        faces[i] = img[: 3 * w * w]
    rest = _cube_faces(t, el)
    t.data = np.concatenate([f if f is not None else rest[i] for i, f in enumerate(faces)])
    return t


_FACES = "RLUDFB"
_CUBE_FILES = ("fileright", "fileleft", "fileup", "filedown", "filefront", "fileback")


def _cube_faces(t, el):
    """Six faces of rgb1 (the colour of faces a cube texture leaves undefined)."""
    face = np.tile(_byte(np.asarray(el.get("rgb1"), dtype=np.float64)).astype(np.uint8), t.width * t.width)
    return [face.copy() for _ in range(6)]


def _load_image(ctx, el, t, attr):
    """(width, height, pixels) of a PNG texture file, flipped as asked (mjCTexture::LoadFlip); sets the colour
    space when it is auto."""

    file = el.get(attr)
    path = asset_path(ctx, file, "texture", el)
    ct = el.get("content_type", "") or ""
    if not ct:
        ext = path.rsplit(".", 1)[-1].lower() if "." in path else ""
        ct = {"png": "image/png", "ktx": "image/ktx"}.get(ext, "")
    if ct == "image/ktx":
        raise ctx.unsupported(el, "KTX textures", attr)
    if ct != "image/png":
        raise el.error(f"unsupported content type: '{ct}'", attr)
    if t.type != TEX_2D and t.nchannel != 3:
        raise el.error("cube and skybox textures must have 3 channels", "nchannel")
    try:
        w, h, img, srgb = read_png(ctx.doc.source.read(path, el), t.nchannel)
    except PNGError as e:
        raise el.error(f"error decoding PNG file '{file}': {e}", attr) from None
    if el.get("hflip"):
        img = img.reshape(h, w, -1)[:, ::-1].reshape(-1).copy()
    if el.get("vflip"):
        img = img.reshape(h, w, -1)[::-1].reshape(-1).copy()
    if t.colorspace == 0:
        t.colorspace = 2 if srgb else 1
    return w, h, img


def compile_textures(ctx, elems):
    textures = []
    for el in elems:
        name = el.get("name", "") or ""
        if not name:
            name = stripext(strippath(el.get("file", "") or ""))
        if not name and el.get("type") != 2:  # a skybox needs no name
            raise el.error("empty name in texture", "name")
        ctx.add("texture", el, name=name)
        textures.append(compile_texture(ctx, el, name))
    ctx.textures = textures
    f = ctx.f
    f["ntex"] = len(textures)
    f["tex_type"] = np.array([t.type for t in textures], np.int32)
    f["tex_colorspace"] = np.array([t.colorspace for t in textures], np.int32)
    f["tex_height"] = np.array([t.height for t in textures], np.int32)
    f["tex_width"] = np.array([t.width for t in textures], np.int32)
    f["tex_nchannel"] = np.array([t.nchannel for t in textures], np.int32)
    sizes = [len(t.data) for t in textures]
    f["tex_adr"] = np.array(np.cumsum([0] + sizes)[:-1], np.int64)
    f["ntexdata"] = int(sum(sizes))
    f["tex_data"] = np.concatenate([t.data for t in textures]) if textures else np.zeros(0, np.uint8)
    return textures


def compile_materials(ctx, elems):
    """mjCMaterial + IndexAssets' texture lookup: the mat_* fields (float32 as in MuJoCo)."""
    rows = []
    for el in elems:
        if not el.get("name", ""):
            raise el.error("empty name in material", "name")
        ctx.add("material", el)
        texid = [-1] * NTEXROLE
        cls = ctx.doc.classes.get(el.dclass or "main")
        for role, (tex, ly) in cls.layers.items() if cls is not None else ():
            texid[role] = ctx.lookup("texture", tex, ly, "texture")
        layers = el.find("material_layer")
        # an empty texture name is no texture (MuJoCo looks up only non-empty names)
        if el.get("texture") and layers:
            raise layers[0].error("A material with a texture attribute cannot have layer sub-elements")
        if el.get("texture"):
            texid[ROLE_RGB] = ctx.lookup("texture", el.get("texture"), el, "texture")
        for ly in layers:
            if ly.get("texture"):
                texid[int(ly.get("role"))] = ctx.lookup("texture", ly.get("texture"), ly, "texture")
        rows.append((el, texid))
    f = ctx.f
    f["nmat"] = len(rows)
    g = lambda a: np.array([el.get(a) for el, _ in rows], np.float32)  # noqa: E731
    f["mat_texid"] = np.array([t for _, t in rows], np.int32).reshape(-1, NTEXROLE)
    f["mat_texuniform"] = np.array([bool(el.get("texuniform")) for el, _ in rows], np.uint8)
    f["mat_texrepeat"] = g("texrepeat").reshape(-1, 2)
    for a in ("emission", "specular", "shininess", "reflectance", "metallic", "roughness"):
        f["mat_" + a] = g(a)
    f["mat_rgba"] = g("rgba").reshape(-1, 4)
