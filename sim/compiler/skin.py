"""Skins: <skin> in <deformable> (or <asset>) -> the skin_* Model fields (mjCSkin::Compile, MuJoCo's
user_mesh.cc).

A skin is a triangle mesh whose vertices follow bodies ("bones") for rendering only: it changes no physics, so
numjoco keeps it in the Model for the renderer and simulates the rest.  MuJoCo's rules, checked against 3.17:
inline data (vertex, texcoord, face; per bone body, bindpos, bindquat, vertid, vertweight) or an .skn file
(binary: int32 nvert, ntexcoord, nface, nbone; float32 vertices, texcoords; int32 faces; per bone a 40-byte body
name, bindpos, bindquat, int32 vertex count, int32 ids, float32 weights), never both; every vertex needs a
positive total weight and the weights of a vertex are normalised over its bones; bind quaternions are
normalised; a skin names a material (dropped with discardvisual) and bodies (which fusestatic keeps).
"""

import struct

import numpy as np

from .context import iarr
from sim.user_util import normvec
from .mesh import asset_path, stripext, strippath

MINVAL = 1e-15  # mjMINVAL
NGROUP = 6  # mjNGROUP


class _Skin:
    def __init__(self, el):
        self.el = el
        self.vert = np.zeros(0, np.float32)
        self.texcoord = np.zeros(0, np.float32)
        self.face = np.zeros(0, np.int64)
        self.bodyname, self.bindpos, self.bindquat, self.vertid, self.vertweight = [], [], [], [], []
        self.bone_els = []


def _inline(el):
    s = _Skin(el)
    if el.has("vertex"):
        s.vert = np.asarray(el.get("vertex"), np.float32)
    if el.has("texcoord"):
        s.texcoord = np.asarray(el.get("texcoord"), np.float32)
    if el.has("face"):
        s.face = np.asarray(el.get("face"), np.int64)
    for b in el.find("skin_bone"):
        s.bone_els.append(b)
        s.bodyname.append(b.get("body"))
        s.bindpos.append(np.asarray(b.get("bindpos"), np.float32))
        s.bindquat.append(np.asarray(b.get("bindquat"), np.float32))
        s.vertid.append(np.asarray(b.get("vertid"), np.int64))
        s.vertweight.append(np.asarray(b.get("vertweight"), np.float32))
    return s


def load_skn(el, data, fname):
    """A skin from the bytes of an SKN file (mjCSkin::LoadSKN), with MuJoCo's checks."""
    s = _Skin(el)
    n = len(data)

    def bad(msg):
        return el.error(f"{msg} in SKN file '{fname}'", "file")

    if n == 0:
        raise bad("empty data")
    if n < 16:
        raise bad("missing header")
    nvert, ntex, nface, nbone = struct.unpack_from("<4i", data, 0)
    if min(nvert, ntex, nface, nbone) < 0:
        raise bad("negative size in header")
    if n < 16 + 4 * (3 * nvert + 2 * ntex + 3 * nface + 18 * nbone):
        raise bad("insufficient data")
    cnt = 0

    def floats(k):
        nonlocal cnt
        out = np.frombuffer(data, "<f4", k, 16 + 4 * cnt).astype(np.float32)
        cnt += k
        return out

    def ints(k):
        nonlocal cnt
        out = np.frombuffer(data, "<i4", k, 16 + 4 * cnt).astype(np.int64)
        cnt += k
        return out

    s.vert = floats(3 * nvert)
    s.texcoord = floats(2 * ntex)
    s.face = ints(3 * nface)
    for i in range(nbone):
        if n // 4 - 4 - cnt < 18:
            raise bad(f"insufficient data (bone {i})")
        raw = data[16 + 4 * cnt : 16 + 4 * cnt + 39]
        s.bodyname.append(raw.split(b"\0", 1)[0].decode("latin-1"))
        cnt += 10
        s.bindpos.append(floats(3))
        s.bindquat.append(floats(4))
        vcount = int(ints(1)[0])
        if vcount < 1:
            raise bad(f"vertex count must be positive (bone {i})")
        if (n // 4 - 4 - cnt) // 2 < vcount:
            raise bad(f"insufficient vertex data (bone {i})")
        s.vertid.append(ints(vcount))
        s.vertweight.append(floats(vcount))
        s.bone_els.append(el)
    if n != 16 + 4 * cnt:
        raise bad("unexpected buffer size")
    return s


def _load(ctx, el):
    file = el.get("file", "") or ""
    if not file:
        return _inline(el)
    if any(el.has(a) for a in ("vertex", "texcoord", "face")) or el.find("skin_bone"):
        raise el.error(f"both skin data and file were specified: {file}", "file")
    path = asset_path(ctx, file, "mesh", el)
    if not path.lower().endswith(".skn"):
        raise el.error(f"unknown skin file type: {file} (MuJoCo reads .skn)", "file")
    return load_skn(el, ctx.doc.source.read(path, el), file)


def _compile(ctx, s):
    """Checks, weight normalisation and bind quaternion normalisation of one skin (mjCSkin::Compile)."""
    el = s.el
    if not (len(s.vert) and len(s.face) and s.bodyname):
        raise el.error("missing data in skin: vertex, face and at least one bone are required")
    if len(s.vert) % 3:
        raise el.error("vertex data must be a multiple of 3 in skin", "vertex")
    nvert = len(s.vert) // 3
    if len(s.texcoord) and len(s.texcoord) != 2 * nvert:
        raise el.error("vertex and texcoord data have incompatible sizes in skin", "texcoord")
    if len(s.face) % 3:
        raise el.error("face data must be a multiple of 3 in skin", "face")
    bodyid = [ctx.lookup("body", name, b, "body") for name, b in zip(s.bodyname, s.bone_els)]
    matid = -1
    mat = el.get("material", "") or ""
    if mat and not ctx.discardvisual:  # discardvisual deletes every material first
        matid = ctx.ids["material"].get(mat, -1)
        if matid < 0:
            raise el.error(f"material '{mat}' not found in skin", "material")
    total = np.zeros(nvert, np.float32)
    for ids, w, b in zip(s.vertid, s.vertweight, s.bone_els):
        if len(ids) != len(w) or len(ids) == 0:
            raise b.error("vertid and vertweight must have the same non-zero size in skin", "vertweight")
        for j, wj in zip(ids, w):
            if j < 0 or j >= nvert:
                raise b.error(f"vertid {int(j)} out of range in skin", "vertid")
            total[j] += wj  # float accumulation, bone by bone as MuJoCo
    for i in range(nvert):
        if total[i] <= MINVAL:
            raise el.error(f"vertex {i} must have positive total weight in skin")
    weights = [
        np.array([w[k] / total[ids[k]] for k in range(len(ids))], np.float32) for ids, w in zip(s.vertid, s.vertweight)
    ]
    quats = []
    for q in s.bindquat:
        qd = q.astype(np.float64)
        normvec(qd)
        quats.append(qd.astype(np.float32))
    return dict(
        el=el,
        vert=s.vert.reshape(-1, 3),
        texcoord=s.texcoord.reshape(-1, 2),
        face=s.face.reshape(-1, 3),
        bodyid=bodyid,
        bindpos=s.bindpos,
        bindquat=quats,
        vertid=s.vertid,
        vertweight=weights,
        matid=matid,
    )


def _stack(parts, width, dtype):
    """Concatenation of arrays as rows of `width` (flat when None), typed, empty-safe."""
    shape = (-1,) if width is None else (-1, width)
    if not parts:
        return np.zeros((0,) if width is None else (0, width), dtype)
    return np.ascontiguousarray(np.concatenate([np.asarray(p, dtype).reshape(shape) for p in parts]))


def skin_elements(ctx):
    """<skin> elements in document order (from <asset> and <deformable>)."""
    out = []
    for c in ctx.root.children:
        if c.key in ("asset", "deformable"):
            out += [e for e in c.children if e.key == "skin"]
    return out


def compile_skins(ctx):
    """Fill nskin* and skin_* in ctx.f (after the bodies, whose ids the bones use, and the materials)."""
    skins = []
    for el in skin_elements(ctx):
        group = el.get("group")
        if group < 0 or group >= NGROUP:
            raise el.error("skin group must be between 0 and 5", "group")
        ctx.add("skin", el, name=el.get("name", "") or stripext(strippath(el.get("file", "") or "")))
        skins.append(_compile(ctx, _load(ctx, el)))
    f = ctx.f
    f32 = np.float32
    f["nskin"] = len(skins)
    f["nskinvert"] = sum(len(s["vert"]) for s in skins)
    f["nskintexvert"] = sum(len(s["texcoord"]) for s in skins)
    f["nskinface"] = sum(len(s["face"]) for s in skins)
    f["nskinbone"] = sum(len(s["bodyid"]) for s in skins)
    f["nskinbonevert"] = sum(len(v) for s in skins for v in s["vertid"])
    f["skin_matid"] = iarr([s["matid"] for s in skins])
    f["skin_group"] = iarr([s["el"].get("group") for s in skins])
    f["skin_rgba"] = np.array([s["el"].get("rgba") for s in skins], f32).reshape(-1, 4)
    f["skin_inflate"] = np.array([s["el"].get("inflate") for s in skins], f32)
    vadr = tadr = fadr = badr = bvadr = 0
    cols = {
        k: []
        for k in (
            "vertadr",
            "vertnum",
            "texcoordadr",
            "faceadr",
            "facenum",
            "boneadr",
            "bonenum",
            "bonevertadr",
            "bonevertnum",
            "bonebodyid",
        )
    }
    for s in skins:
        cols["vertadr"].append(vadr)
        cols["vertnum"].append(len(s["vert"]))
        cols["texcoordadr"].append(tadr if len(s["texcoord"]) else -1)
        cols["faceadr"].append(fadr)
        cols["facenum"].append(len(s["face"]))
        cols["boneadr"].append(badr)
        cols["bonenum"].append(len(s["bodyid"]))
        for ids in s["vertid"]:
            cols["bonevertadr"].append(bvadr)
            cols["bonevertnum"].append(len(ids))
            bvadr += len(ids)
        cols["bonebodyid"] += s["bodyid"]
        vadr += len(s["vert"])
        tadr += len(s["texcoord"])
        fadr += len(s["face"])
        badr += len(s["bodyid"])
    for k, v in cols.items():
        f["skin_" + k] = iarr(v)
    f["skin_vert"] = _stack([s["vert"] for s in skins], 3, f32)
    f["skin_texcoord"] = _stack([s["texcoord"] for s in skins], 2, f32)
    f["skin_face"] = _stack([s["face"] for s in skins], 3, np.int32)
    f["skin_bonebindpos"] = _stack([x for s in skins for x in s["bindpos"]], 3, f32)
    f["skin_bonebindquat"] = _stack([x for s in skins for x in s["bindquat"]], 4, f32)
    f["skin_bonevertid"] = _stack([x for s in skins for x in s["vertid"]], None, np.int32)
    f["skin_bonevertweight"] = _stack([x for s in skins for x in s["vertweight"]], None, f32)
    ctx.skins = skins
