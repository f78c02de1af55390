"""Name and path buffers of the compiled model (mjCModel::CopyNames / CopyPaths in MuJoCo's user_model.cc).

names: the model name, then every object name (NUL-terminated, '' for unnamed objects) in MuJoCo's kind order;
name_<kind>adr: the offset of each object's name in that buffer; names_map: one open-addressing hash table per
kind (2 slots per object, djb2-xor hash, linear probing; the layout mj_name2id reads). paths: the resolved file
of each mesh / height field / texture loaded from a file, <kind>_pathadr its offset (-1 when not from a file).
"""

import os

import numpy as np

from .mesh import asset_path

LOAD_MULTIPLE = 2  # mjLOAD_MULTIPLE: hash slots per object
DEFAULT_MODEL_NAME = "MuJoCo Model"

# (Context.names key, name_*adr field suffix, size field) in the order CopyNames concatenates them
NAME_KINDS = (
    ("body", "body", "nbody"),
    ("joint", "jnt", "njnt"),
    ("geom", "geom", "ngeom"),
    ("site", "site", "nsite"),
    ("camera", "cam", "ncam"),
    ("light", "light", "nlight"),
    ("flex", "flex", "nflex"),
    ("mesh", "mesh", "nmesh"),
    ("skin", "skin", "nskin"),
    ("hfield", "hfield", "nhfield"),
    ("texture", "tex", "ntex"),
    ("material", "mat", "nmat"),
    ("pair", "pair", "npair"),
    ("exclude", "exclude", "nexclude"),
    ("equality", "eq", "neq"),
    ("tendon", "tendon", "ntendon"),
    ("actuator", "actuator", "nu"),
    ("sensor", "sensor", "nsensor"),
    ("numeric", "numeric", "nnumeric"),
    ("text", "text", "ntext"),
    ("tuple", "tuple", "ntuple"),
    ("key", "key", "nkey"),
    ("plugin", "plugin", "nplugin"),
)


def hash_string(name, n):
    """mj_hashString: djb2 with xor over the bytes as (signed) C chars, modulo n."""
    h = 5381
    mask = (1 << 64) - 1
    for c in name.encode():
        if c >= 128:
            c -= 256  # char is signed: sign-extended when xor-ed into the uint64 hash
        h = (((h << 5) + h) & mask) ^ (c & mask)
    return h % n


def _hash_table(names):
    """One kind's names_map block: LOAD_MULTIPLE * len(names) slots, object ids by linear probing, else -1."""
    size = LOAD_MULTIPLE * len(names)
    table = [-1] * size
    for i, nm in enumerate(names):
        if not nm:
            continue
        j = hash_string(nm, size)
        while table[j] != -1:
            j = (j + 1) % size
        table[j] = i
    return table


def make_names(f, names, model_name):
    """Fill f with names (bytes), nnames, name_<kind>adr, names_map, nnames_map from names[kind] (by id)."""
    buf = bytearray(model_name.encode() + b"\0")
    table = []
    for kind, suffix, size in NAME_KINDS:
        lst = list(names.get(kind, []))
        n = int(f.get(size, len(lst)))
        if len(lst) != n:
            raise RuntimeError(f"compiler bug: {len(lst)} {kind} names for {size}={n}")
        adr = []
        for nm in lst:
            adr.append(len(buf))
            buf += nm.encode() + b"\0"
        f["name_" + suffix + "adr"] = np.array(adr, dtype=np.int32)
        table += _hash_table(lst)
    f["names"] = bytes(buf)
    f["nnames"] = len(buf)
    f["names_map"] = np.array(table, dtype=np.int32)
    f["nnames_map"] = len(table)


def _model_file_dir(ctx):
    """MuJoCo's modelfiledir: the folder of the model file as given ('' for a model read from a string)."""
    name = ctx.doc.source.name
    if name == "<string>":
        return ""
    d = os.path.dirname(name)
    return d + "/" if d else ""


def _abs_prefix(path):
    """FilePath::AbsPrefix: the leading '/' or '\\', or 'x:/' / 'x:\\' (a drive or scheme), else ''."""
    if not path:
        return ""
    if path[0] in "/\\":
        return path[0]
    for sep in (":/", ":\\"):
        pos = path.find(sep)
        if pos >= 0:
            return path[: pos + 2]
    return ""


def _combine(a, b):
    """FilePath::Combine: b if absolute, else a and b joined by one separator."""
    if _abs_prefix(b):
        return b
    if a and a[-1] not in "/\\":
        return a + "/" + b
    return a + b


def _path_reduce(path):
    """FilePath::PathReduce: drop '.' components and fold 'dir/..' pairs (separators become '/')."""
    prefix = _abs_prefix(path)
    dirs = []
    j = len(prefix)
    for i in range(j, len(path)):
        if path[i] in "/\\":
            part = path[j:i]
            j = i + 1
            if part == ".." and dirs and dirs[-1] != "..":
                dirs.pop()
            elif part != ".":
                dirs.append(part)
    dirs.append(path[j:])
    return prefix + "/".join(dirs)


def _resolved(ctx, el, kind):
    """The path MuJoCo stores for an asset element's file: compiler strippath and meshdir/texturedir/assetdir,
    then the model file's folder, reduced as MuJoCo's FilePath does."""
    fname = (el.get("file", "") or "") if el is not None else ""
    if not fname:
        return None
    path = _path_reduce(asset_path(ctx, fname, kind, el))
    return _path_reduce(_combine(_model_file_dir(ctx), path))


def make_paths(ctx, f):
    """Fill f with paths (bytes), npaths, hfield_pathadr, mesh_pathadr, skin_pathadr, tex_pathadr; the textures'
    content types follow the paths."""
    buf = bytearray()
    per_kind = (
        ("hfield", [_resolved(ctx, el, "mesh") for el in ctx.elems.get("hfield", [])]),
        ("mesh", [_resolved(ctx, m.el, "mesh") for m in getattr(ctx, "meshes", [])]),
        ("skin", [_resolved(ctx, s["el"], "mesh") for s in getattr(ctx, "skins", [])]),
        ("tex", [_resolved(ctx, t.el, "texture") for t in getattr(ctx, "textures", [])]),
    )
    for kind, files in per_kind:
        adr = []
        for p in files:
            if p is None:
                adr.append(-1)
                continue
            adr.append(len(buf))
            buf += p.encode() + b"\0"
        f[kind + "_pathadr"] = np.array(adr, dtype=np.int32)
    # then the textures' content types (MuJoCo 3.17's tex_contenttypeadr points at them)
    for t in getattr(ctx, "textures", []):
        ct = (t.el.get("content_type", "") or "") if t.el is not None else ""
        if ct:
            buf += ct.encode() + b"\0"
    if not buf:
        buf = bytearray(b"\0")
    f["paths"] = bytes(buf)
    f["npaths"] = len(buf)
