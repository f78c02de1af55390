"""Height-field assets: the hfield_* Model fields (MuJoCo's mjCHField::Compile and the reader's inline
elevation handling), and what an hfield geom takes from its asset."""

import math
import os
import struct

import numpy as np

from .mesh import asset_path, strippath, stripext

EPS = 1e-14


class HField:
    def __init__(self, name, el):
        self.name = name
        self.el = el
        self.size = np.zeros(4)
        self.nrow = 0
        self.ncol = 0
        self.data = np.zeros(0, np.float32)


def load_custom(el, data, fname):
    """MuJoCo's binary hfield format: int32 nrow, int32 ncol, then nrow*ncol float32 (LoadCustom)."""
    if len(data) < 1:
        raise el.error(f"could not read hfield file '{fname}'", "file")
    if len(data) < 8:
        raise el.error(f"hfield missing header '{fname}'", "file")
    nrow, ncol = struct.unpack_from("<2i", data, 0)
    if nrow < 1 or ncol < 1:
        raise el.error(f"non-positive hfield dimensions in file '{fname}'", "file")
    if len(data) != nrow * ncol * 4 + 8:
        raise el.error(f"unexpected file size in file '{fname}'", "file")
    return nrow, ncol, np.frombuffer(data, "<f4", nrow * ncol, 8).astype(np.float32)


def load_png(el, data, fname):
    """mjCHField::LoadPNG: grey levels (lodepng's 8-bit grey), rows reversed so that the first row is the
    image's bottom one."""
    from .png import PNGError, read_png

    try:
        ncol, nrow, grey, _ = read_png(data, 1)
    except PNGError as e:
        raise el.error(f"error decoding PNG file '{fname}': {e}", "file") from None
    return nrow, ncol, grey.reshape(nrow, ncol)[::-1].reshape(-1).astype(np.float32)


def compile_hfield(ctx, el, name):
    """Load one <hfield>: inline elevation (rows flipped so the XML reads top to bottom), zeros, or a file;
    then normalise the elevation to [0, 1] in float32 as MuJoCo does."""
    h = HField(name, el)
    h.size = np.array(el.get("size"), dtype=np.float64)
    file = el.get("file", "") or ""
    nrow, ncol = int(el.get("nrow")), int(el.get("ncol"))
    data = np.zeros(0, np.float32)
    if not file and nrow > 0 and ncol > 0:
        if el.has("elevation"):
            elev = np.asarray(el.get("elevation"), dtype=np.float64).astype(np.float32)
            _check_elevation(el)
            data = elev.reshape(nrow, ncol)[::-1].reshape(-1).copy()
        else:
            data = np.zeros(nrow * ncol, np.float32)
    if file:
        nrow = ncol = 0  # CopyFromSpec clears the sizes of file hfields
    for i in range(4):
        if h.size[i] <= 0:
            raise el.error("size parameter is not positive in hfield", "size")
    if file:
        # (nrow/ncol/elevation next to a file are ignored by MuJoCo's reader and compiler)
        ct = el.get("content_type", "") or ""
        if not ct:
            ext = os.path.splitext(file)[1].lower()
            ct = "image/png" if ext == ".png" else ""
        if not ct:
            ct = "image/vnd.mujoco.hfield"
        if ct not in ("image/png", "image/vnd.mujoco.hfield"):
            raise el.error(f"unsupported content type: '{ct}'", "content_type")
        path = asset_path(ctx, file, "mesh", el)  # MuJoCo resolves hfield files against meshdir
        if ct == "image/png":
            nrow, ncol, data = load_png(el, ctx.doc.source.read(path, el), file)
        else:
            nrow, ncol, data = load_custom(el, ctx.doc.source.read(path, el), file)
    if nrow < 1 or ncol < 1 or not len(data):
        raise el.error("hfield not specified")
    emin = np.float32(min(np.float32(1e10), data.min()))
    emax = np.float32(max(np.float32(-1e10), data.max()))
    if emin > emax:
        raise el.error(f"invalid data range in hfield '{file}'")
    data = (data - emin).astype(np.float32)
    rng = np.float32(emax - emin)
    if float(rng) > EPS:
        data = (data / rng).astype(np.float32)
    h.nrow, h.ncol, h.data = nrow, ncol, data
    return h


def _check_elevation(el):
    """The XML reader's check of inline elevation data (mjXReader, before any compiler check)."""
    nrow, ncol = int(el.get("nrow")), int(el.get("ncol"))
    if not (el.get("file", "") or "") and nrow > 0 and ncol > 0 and el.has("elevation"):
        if len(el.get("elevation")) != nrow * ncol:
            raise el.error("elevation data length must match nrow*ncol", "elevation")


def compile_hfields(ctx, elems):
    """Compile every <hfield>, register names (defaulting to the file name), fill the hfield_* fields."""
    hfields = []
    for el in elems:
        _check_elevation(el)
        name = el.get("name", "") or stripext(strippath(el.get("file", "") or ""))
        if not name:
            raise el.error("empty name in height field", "name")
        if el.has("file") and not el.get("file"):
            raise el.error("hfield not specified (empty file)", "file")
        ctx.add("hfield", el, name=name)
        hfields.append(compile_hfield(ctx, el, name))
    ctx.hfields = hfields
    f = ctx.f
    f["nhfield"] = len(hfields)
    f["nhfielddata"] = int(sum(h.nrow * h.ncol for h in hfields))
    f["hfield_size"] = np.array([h.size for h in hfields], np.float64).reshape(-1, 4)
    f["hfield_nrow"] = np.array([h.nrow for h in hfields], np.int32)
    f["hfield_ncol"] = np.array([h.ncol for h in hfields], np.int32)
    f["hfield_adr"] = np.array(np.cumsum([0] + [h.nrow * h.ncol for h in hfields])[:-1], np.int32)
    f["hfield_data"] = (
        np.concatenate([h.data for h in hfields]).astype(np.float32) if hfields else np.zeros(0, np.float32)
    )
    return hfields


def hfield_geom_properties(ctx, hfield_id):
    """What an hfield geom takes from its asset (mjCGeom::Compile, ComputeAABB, GetRBound):
    size (3,) = (x, y, 0.25*z_top + 0.5*z_bottom); rbound; aabb (6,) = center + half sizes in the geom frame.
    (For mass, MuJoCo treats an hfield geom as a box of this size.)"""
    s = ctx.hfields[hfield_id].size
    size = np.array([s[0], s[1], 0.25 * s[2] + 0.5 * s[3]])
    rbound = math.sqrt(s[0] * s[0] + s[1] * s[1] + max(s[2] * s[2], s[3] * s[3]))
    amin = np.array([-s[0], -s[1], -s[3]])
    amax = np.array([s[0], s[1], s[2]])
    aabb = np.concatenate([(amax + amin) / 2, (amax - amin) / 2])
    return {"size": size, "rbound": rbound, "aabb": aabb}
