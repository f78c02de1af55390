"""Python side of the renderer: the static RenderModel arrays built once per model (textures with their mip
pyramids, meshes with their BVHs, height fields) and the per-update tables (rendered objects with their colours
and materials as mjv_addGeoms / setMaterial choose them, cameras, lights, <visual> values).

Everything here is numpy; the jitted kernels get the arrays through the RenderModel structref (structs.py).
"""

import numpy as np

from . import layout as L
from .camera import SceneOption
from .tendon import spatial_tendons


def _arr(m, name, shape_tail, dtype, n):
    """Model field reshaped to (n, *shape_tail) (empty when the model lacks it)."""
    v = getattr(m, name, None)
    if v is None:
        return np.zeros((n,) + shape_tail, dtype=dtype)
    return np.ascontiguousarray(np.asarray(v, dtype=dtype).reshape((n,) + shape_tail))


# ------------------------------------------------------------------------------------------------ textures


def _srgb_to_linear(c):
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _downsample(img):
    """Next mip level (glGenerateMipmap box filter): each texel averages the source texels its footprint
    covers (2x2, or the area-weighted 3-texel footprint along an odd dimension)."""
    h, w = img.shape[:2]
    nh, nw = max(1, h // 2), max(1, w // 2)

    def weights(n, nn):
        # (nn, 3) source cells and weights averaging the source cells [i n/nn, (i+1) n/nn) (at most 3 of them)
        idx, wmat = np.zeros((nn, 3), np.int64), np.zeros((nn, 3))
        for i in range(nn):
            a, b = i * n / nn, (i + 1) * n / nn
            for k, j in enumerate(range(int(np.floor(a)), min(n, int(np.ceil(b))))):
                idx[i, k], wmat[i, k] = j, min(b, j + 1) - max(a, j)
            wmat[i] /= wmat[i].sum()
        return idx, wmat

    (iy, wy), (ix, wx) = weights(h, nh), weights(w, nw)
    # separable: rows, then columns, each a sum of three weighted gathers (a weight of 0 adds nothing)
    rows = sum(wy[:, k, None, None] * img[iy[:, k]] for k in range(3))
    return sum(wx[None, :, k, None] * rows[:, ix[:, k]] for k in range(3))


def _mips(img):
    levels = [img]
    while (levels[-1].shape[0] > 1 or levels[-1].shape[1] > 1) and len(levels) < L.MAXLEVEL:
        levels.append(_downsample(levels[-1]))
    return levels


def build_textures(m):
    """(tex_i (ntex, NTI) int64, texel (n, 4) float32 RGBA in [0, 1]; alpha 1 for RGB data) with the mip pyramid of every texture;
    a cube / skybox texture stores its six faces (+X, -X, +Y, -Y, +Z, -Z) per level."""
    ntex = int(getattr(m, "ntex", 0))
    tex_i = np.zeros((ntex, L.NTI), dtype=np.int64)
    chunks, adr = [], 0
    data = np.asarray(getattr(m, "tex_data", np.zeros(0, np.uint8)))
    for t in range(ntex):
        typ = int(m.tex_type[t])
        w, h, nc = int(m.tex_width[t]), int(m.tex_height[t]), int(m.tex_nchannel[t])
        a = int(m.tex_adr[t])
        raw = data[a : a + w * h * nc].astype(np.float64).reshape(h, w, nc) / 255.0
        if nc < 3 or nc > 4:
            raise ValueError(f"texture {t}: the renderer needs 3- or 4-channel data, got {nc}")
        rgba = np.ones((h, w, 4))
        rgba[..., :nc] = raw
        cs = getattr(m, "tex_colorspace", None)
        if cs is not None and int(np.asarray(cs).reshape(-1)[t]) == 2:  # mjCOLORSPACE_SRGB
            rgba[..., :3] = _srgb_to_linear(rgba[..., :3])
        if typ == L.TEXTURE_2D:
            faces = [rgba]
        elif w == h:  # one image repeated on the six faces
            faces = [rgba] * 6
        else:  # six faces stacked vertically
            if h != 6 * w:
                raise ValueError(f"texture {t}: cube / skybox data must be square or 6 square faces, got {w}x{h}")
            faces = [rgba[i * w : (i + 1) * w] for i in range(6)]
        pyramids = [_mips(faces[0])] * 6 if len(faces) == 6 and faces[0] is faces[1] else [_mips(f) for f in faces]
        nlev = len(pyramids[0])
        tex_i[t, L.TI_TYPE] = typ
        tex_i[t, L.TI_W] = w
        tex_i[t, L.TI_H] = faces[0].shape[0]
        tex_i[t, L.TI_NLEVEL] = nlev
        tex_i[t, L.TI_ALPHA] = int(nc == 4)
        for lev in range(nlev):
            lh, lw = pyramids[0][lev].shape[:2]
            tex_i[t, L.TI_LEVEL + 3 * lev] = adr
            tex_i[t, L.TI_LEVEL + 3 * lev + 1] = lw
            tex_i[t, L.TI_LEVEL + 3 * lev + 2] = lh
            for p in pyramids:
                chunks.append(p[lev].reshape(-1, 4))
                adr += lw * lh
    texel = np.concatenate(chunks) if chunks else np.zeros((1, 4))
    return tex_i, np.ascontiguousarray(texel, dtype=np.float32).reshape(-1, 4)


# ------------------------------------------------------------------------------------------------ meshes


def build_meshes(m):
    """mesh_i, mesh_vert, mesh_face (vertex, normal, texcoord ids per corner), mesh_normal, mesh_texcoord and
    the model's BVH arrays (float64 / int32)."""
    nmesh = int(getattr(m, "nmesh", 0))
    mesh_i = np.zeros((nmesh, L.NMI), dtype=np.int32)
    if nmesh == 0:
        z2 = np.zeros((1, 3))
        return (
            mesh_i,
            z2,
            np.zeros((1, 9), np.int32),
            z2,
            np.zeros((1, 2)),
            np.zeros((1, 6)),
            np.full((1, 2), -1, np.int32),
            np.full(1, -1, np.int32),
        )
    nface = int(np.asarray(m.mesh_face).reshape(-1, 3).shape[0])
    face = np.zeros((nface, 9), dtype=np.int32)
    face[:, 0:3] = np.asarray(m.mesh_face).reshape(-1, 3)
    face[:, 3:6] = np.asarray(m.mesh_facenormal).reshape(-1, 3)
    ftc = np.asarray(getattr(m, "mesh_facetexcoord", np.zeros((nface, 3)))).reshape(-1, 3)
    face[:, 6:9] = ftc if ftc.shape[0] == nface else 0
    mesh_i[:, L.MI_VERTADR] = m.mesh_vertadr
    mesh_i[:, L.MI_VERTNUM] = m.mesh_vertnum
    mesh_i[:, L.MI_FACEADR] = m.mesh_faceadr
    mesh_i[:, L.MI_FACENUM] = m.mesh_facenum
    mesh_i[:, L.MI_NORMALADR] = m.mesh_normaladr
    mesh_i[:, L.MI_TEXCOORDADR] = getattr(m, "mesh_texcoordadr", np.full(nmesh, -1))
    mesh_i[:, L.MI_BVHADR] = m.mesh_bvhadr
    mesh_i[:, L.MI_BVHNUM] = m.mesh_bvhnum
    tc = np.asarray(getattr(m, "mesh_texcoord", np.zeros((0, 2))), dtype=np.float64).reshape(-1, 2)
    return (
        mesh_i,
        np.ascontiguousarray(np.asarray(m.mesh_vert, dtype=np.float64).reshape(-1, 3)),
        face,
        np.ascontiguousarray(np.asarray(m.mesh_normal, dtype=np.float64).reshape(-1, 3)),
        np.ascontiguousarray(tc if len(tc) else np.zeros((1, 2))),
        np.ascontiguousarray(np.asarray(m.bvh_aabb, dtype=np.float64).reshape(-1, 6)),
        np.ascontiguousarray(np.asarray(m.bvh_child, dtype=np.int32).reshape(-1, 2)),
        np.ascontiguousarray(np.asarray(m.bvh_nodeid, dtype=np.int32).reshape(-1)),
    )


def build_hfields(m):
    nh = int(getattr(m, "nhfield", 0))
    hi = np.zeros((max(nh, 1), 3), dtype=np.int32)
    if nh == 0:
        return hi, np.zeros((1, 4)), np.zeros(1)
    hi[:, L.HI_NROW] = m.hfield_nrow
    hi[:, L.HI_NCOL] = m.hfield_ncol
    hi[:, L.HI_ADR] = m.hfield_adr
    return (
        hi,
        np.ascontiguousarray(np.asarray(m.hfield_size, dtype=np.float64).reshape(-1, 4)),
        np.ascontiguousarray(np.asarray(m.hfield_data, dtype=np.float64).reshape(-1)),
    )


def skin_bvh(vert, face):
    """(child (nnode, 2), face (nnode,)) of a bounding volume hierarchy over the triangles `face` (vertex ids into
    `vert`): median splits of the face centroids along their widest axis, one face per leaf (its index, -1 for
    internal nodes), parents before children.  Built once on the skin's rest vertices; the renderer refits the
    boxes to the skinned vertices every frame."""
    nf = len(face)
    cen = vert[face].mean(axis=1)
    child = np.full((max(2 * nf - 1, 1), 2), -1, np.int32)
    leaf = np.full(max(2 * nf - 1, 1), -1, np.int32)
    stack = [(0, np.arange(nf))]
    nnode = 1
    while stack:
        node, ids = stack.pop()
        if len(ids) == 1:
            leaf[node] = ids[0]
            continue
        c = cen[ids]
        axis = int(np.argmax(c.max(axis=0) - c.min(axis=0)))
        half = len(ids) // 2
        order = np.argpartition(c[:, axis], half)
        for j, part in enumerate((ids[order[:half]], ids[order[half:]])):
            child[node, j] = nnode
            stack.append((nnode, part))
            nnode += 1
    return child[:nnode], leaf[:nnode]


def build_skins(m):
    """(skin_i, skin_inflate, skin_vert, skin_face, skin_texcoord, bone_i, bone_f, bonevert_id, bonevert_w,
    bvh_child, bvh_face) of the model's skins (one-row placeholders when it has none)."""
    nskin = int(getattr(m, "nskin", 0) or 0)
    if nskin == 0:
        return (
            np.zeros((0, L.NSI), np.int32),
            np.zeros(0),
            np.zeros((1, 3)),
            np.zeros((1, 3), np.int32),
            np.zeros((1, 2)),
            np.zeros((1, 3), np.int32),
            np.zeros((1, 7)),
            np.zeros(1, np.int32),
            np.zeros(1),
            np.full((1, 2), -1, np.int32),
            np.full(1, -1, np.int32),
        )
    si = np.zeros((nskin, L.NSI), np.int32)
    for col, name in (
        (L.SI_VERTADR, "vertadr"),
        (L.SI_VERTNUM, "vertnum"),
        (L.SI_FACEADR, "faceadr"),
        (L.SI_FACENUM, "facenum"),
        (L.SI_BONEADR, "boneadr"),
        (L.SI_BONENUM, "bonenum"),
        (L.SI_TEXCOORDADR, "texcoordadr"),
    ):
        si[:, col] = np.asarray(getattr(m, "skin_" + name)).reshape(-1)
    nbone = len(np.asarray(m.skin_bonebodyid).reshape(-1))
    bi = np.zeros((max(nbone, 1), 3), np.int32)
    bi[:nbone, L.BI_BODY] = np.asarray(m.skin_bonebodyid).reshape(-1)
    bi[:nbone, L.BI_VERTADR] = np.asarray(m.skin_bonevertadr).reshape(-1)
    bi[:nbone, L.BI_VERTNUM] = np.asarray(m.skin_bonevertnum).reshape(-1)
    bf = np.zeros((max(nbone, 1), 7))
    bf[:nbone, L.BF_BINDPOS : L.BF_BINDPOS + 3] = np.asarray(m.skin_bonebindpos, np.float32).reshape(-1, 3)
    bf[:nbone, L.BF_BINDQUAT : L.BF_BINDQUAT + 4] = np.asarray(m.skin_bonebindquat, np.float32).reshape(-1, 4)
    tc = np.asarray(getattr(m, "skin_texcoord", np.zeros((0, 2))), np.float32).reshape(-1, 2).astype(np.float64)
    vert = np.asarray(m.skin_vert, np.float32).reshape(-1, 3).astype(np.float64)
    face = np.asarray(m.skin_face, np.int32).reshape(-1, 3)
    children, leaves = [], []
    nnode = 0
    for i in range(nskin):
        va, fa, fn = si[i, L.SI_VERTADR], si[i, L.SI_FACEADR], si[i, L.SI_FACENUM]
        child, leaf = skin_bvh(vert[va : va + si[i, L.SI_VERTNUM]], face[fa : fa + fn])
        si[i, L.SI_BVHADR], si[i, L.SI_BVHNUM] = nnode, len(leaf)
        children.append(child)
        leaves.append(leaf)
        nnode += len(leaf)

    def c(x, dt, shape):
        a = np.ascontiguousarray(np.asarray(x, dt).reshape(shape))
        return a if a.size else np.zeros((1,) + shape[1:], dt)

    return (
        si,
        np.asarray(m.skin_inflate, np.float32).astype(np.float64).reshape(-1),
        c(vert, np.float64, (-1, 3)),
        c(face, np.int32, (-1, 3)),
        c(tc, np.float64, (-1, 2)),
        bi,
        bf,
        c(m.skin_bonevertid, np.int32, (-1,)),
        c(np.asarray(m.skin_bonevertweight, np.float32), np.float64, (-1,)),
        np.ascontiguousarray(np.concatenate(children)),
        np.ascontiguousarray(np.concatenate(leaves)),
    )


# ------------------------------------------------------------------------------------------------ objects


def _site_aabb(stype, size):
    """Local bounding box (centre 0, half sizes) and bounding radius of sites, as the compiler does for geoms."""
    half = np.zeros((len(stype), 3))
    r = np.zeros(len(stype))
    for i, (t, s) in enumerate(zip(stype, size)):
        if t == L.GEOM_SPHERE:
            half[i] = s[0]
            r[i] = s[0]
        elif t == L.GEOM_CAPSULE:
            half[i] = (s[0], s[0], s[0] + s[1])
            r[i] = s[0] + s[1]
        elif t == L.GEOM_CYLINDER:
            half[i] = (s[0], s[0], s[1])
            r[i] = np.hypot(s[0], s[1])
        else:
            half[i] = s
            r[i] = np.linalg.norm(s)
    return half, r


# mjtVisFlag entries that add decor MuJoCo draws only on request (off by default): refused when set
_DECOR_FLAGS = {
    2: "joints",
    3: "cameras",
    4: "actuators",
    5: "activations",
    6: "lights",
    9: "constraints",
    10: "inertia boxes",
    11: "scaled inertia",
    12: "perturbation forces",
    14: "contact points",
    15: "island colours",
    16: "contact forces",
    17: "split contact forces",
    19: "auto connect",
    20: "centres of mass",
    21: "selection points",
    24: "flex vertices",
    26: "flex faces",
    28: "body BVHs",
    29: "mesh BVHs",
    30: "SDF iterations",
}


def _material(m, matid, rgba_in, use_tex):
    """(obj_i row, obj_f row) with setMaterial's colour, material and texture (mjv_addGeoms)."""
    fi = np.zeros(L.NOF)
    ii = np.zeros(L.NOI, dtype=np.int32)
    rgba = np.asarray(rgba_in, np.float32).astype(np.float64)
    emission, specular, shininess, reflectance = 0.0, 0.5, 0.5, 0.0
    texid, texuniform, texrepeat = -1, 0, (0.0, 0.0)
    if matid >= 0:
        emission = float(np.asarray(m.mat_emission).reshape(-1)[matid])
        specular = float(np.asarray(m.mat_specular).reshape(-1)[matid])
        shininess = float(np.asarray(m.mat_shininess).reshape(-1)[matid])
        reflectance = float(np.asarray(m.mat_reflectance).reshape(-1)[matid])
        # the geom's own rgba wins unless it is the default grey
        if tuple(np.asarray(rgba_in, np.float32)) == (
            np.float32(0.5),
            np.float32(0.5),
            np.float32(0.5),
            np.float32(1.0),
        ):
            rgba = np.asarray(m.mat_rgba, dtype=np.float32).reshape(-1, 4)[matid].astype(np.float64)
        if use_tex:
            texid = int(np.asarray(m.mat_texid).reshape(int(m.nmat), -1)[matid, 1])  # mjTEXROLE_RGB
            texuniform = int(np.asarray(m.mat_texuniform).reshape(-1)[matid])
            texrepeat = tuple(np.asarray(m.mat_texrepeat, dtype=np.float32).reshape(-1, 2)[matid])
    ii[L.OI_TEXID] = texid
    ii[L.OI_TEXTYPE] = -1 if texid < 0 else int(m.tex_type[texid])
    fi[L.OF_RGBA : L.OF_RGBA + 4] = rgba
    fi[L.OF_EMISSION] = emission
    fi[L.OF_SPECULAR] = specular
    fi[L.OF_SHININESS] = shininess
    fi[L.OF_REFLECTANCE] = reflectance
    fi[L.OF_TEXREPEAT : L.OF_TEXREPEAT + 2] = texrepeat
    fi[L.OF_TEXUNIFORM] = texuniform
    return ii, fi


def build_objects(m, opt):
    """(obj_i (nobj, NOI) int32, obj_f (nobj, NOF) float64): the geoms and sites mjv_addGeoms puts in the scene
    for mjvOption `opt` (groups, static flag, zero alpha skipped), with setMaterial's colour and material."""
    if opt is None:
        opt = SceneOption()
    flags = np.asarray(getattr(opt, "flags", SceneOption().flags)).reshape(-1)
    if len(flags) > 0 and flags[0]:
        raise ValueError("the renderer does not draw convex hulls (mjVIS_CONVEXHULL); turn that flag off")
    decor = [name for i, name in _DECOR_FLAGS.items() if i < len(flags) and flags[i]]
    if decor:
        raise NotImplementedError(
            "the renderer does not draw " + ", ".join(decor) + " (mjvOption flags); turn them off"
        )
    use_tex = bool(flags[SceneOption.VIS_TEXTURE])
    transparent = bool(flags[SceneOption.VIS_TRANSPARENT])
    show_static = bool(flags[SceneOption.VIS_STATIC])
    alpha_scale = float(m.vis.map.alpha)
    weld = np.asarray(m.body_weldid).reshape(-1)
    rows_i, rows_f = [], []
    for kind, prefix, n, grp_name, objtype in (
        (L.KIND_GEOM, "geom_", int(m.ngeom), "geomgroup", L.OBJ_GEOM),
        (L.KIND_SITE, "site_", int(m.nsite), "sitegroup", L.OBJ_SITE),
    ):
        if n == 0:
            continue
        groups = np.asarray(getattr(opt, grp_name)).reshape(-1)
        typ = _arr(m, prefix + "type", (), np.int32, n)
        size = _arr(m, prefix + "size", (3,), np.float64, n)
        rgba_in = _arr(m, prefix + "rgba", (4,), np.float32, n)
        matid = _arr(m, prefix + "matid", (), np.int32, n)
        body = _arr(m, prefix + "bodyid", (), np.int32, n)
        group = _arr(m, prefix + "group", (), np.int32, n)
        if kind == L.KIND_GEOM:
            if np.any(typ == L.GEOM_SDF):
                raise ValueError("the renderer does not draw SDF geoms")
            aabb = _arr(m, "geom_aabb", (6,), np.float64, n)
            rbound = _arr(m, "geom_rbound", (), np.float64, n)
            dataid = _arr(m, "geom_dataid", (), np.int32, n)
        else:
            half, rbound = _site_aabb(typ, size)
            aabb = np.concatenate([np.zeros((n, 3)), half], axis=1)
            dataid = np.full(n, -1, np.int32)
        for i in range(n):
            static = weld[body[i]] == 0
            if static and not show_static:
                continue
            if not groups[max(0, min(L.NGROUP - 1, group[i]))]:
                continue
            ii, fi = _material(m, matid[i], rgba_in[i], use_tex)
            if transparent and not static:
                fi[L.OF_RGBA + 3] *= alpha_scale
            if fi[L.OF_RGBA + 3] == 0:
                continue
            ii[L.OI_SRC] = i
            ii[L.OI_KIND] = kind
            ii[L.OI_OBJTYPE] = objtype
            ii[L.OI_TYPE] = typ[i]
            ii[L.OI_DATAID] = dataid[i]
            ii[L.OI_TEXCOORD] = int(
                typ[i] == L.GEOM_MESH
                and dataid[i] >= 0
                and int(np.asarray(m.mesh_texcoordadr).reshape(-1)[dataid[i]]) >= 0
            )
            ii[L.OI_BODY] = body[i]
            fi[L.OF_SIZE : L.OF_SIZE + 3] = size[i]
            fi[L.OF_AABB : L.OF_AABB + 6] = aabb[i]
            fi[L.OF_RBOUND] = rbound[i]
            rows_i.append(ii)
            rows_f.append(fi)
    # skins: one object each (triangles in world coordinates, placed every frame, under a face BVH)
    if bool(flags[SceneOption.VIS_SKIN]):
        sgroups = np.asarray(getattr(opt, "skingroup", SceneOption().skingroup)).reshape(-1)
        for i in range(int(getattr(m, "nskin", 0) or 0)):
            if not sgroups[max(0, min(L.NGROUP - 1, int(m.skin_group[i])))]:
                continue
            ii, fi = _material(m, int(m.skin_matid[i]), np.asarray(m.skin_rgba, np.float32).reshape(-1, 4)[i], use_tex)
            if transparent:
                fi[L.OF_RGBA + 3] *= alpha_scale
            if fi[L.OF_RGBA + 3] == 0:
                continue
            ii[L.OI_SRC] = i
            ii[L.OI_KIND] = L.KIND_SKIN
            ii[L.OI_OBJTYPE] = L.OBJ_SKIN
            ii[L.OI_TYPE] = L.GEOM_SKIN
            ii[L.OI_TEXCOORD] = int(int(m.skin_texcoordadr[i]) >= 0)
            ii[L.OI_BODY] = -1
            ii[L.OI_DATAID] = i
            fi[L.OF_SIZE : L.OF_SIZE + 3] = L.SKIN_SIZE
            rows_i.append(ii)
            rows_f.append(fi)
    # spatial tendons: slots for their segments (capsules placed every update), tendon objects (mjOBJ_TENDON)
    tgroups = np.asarray(getattr(opt, "tendongroup", SceneOption().tendongroup)).reshape(-1)
    for i, nseg in spatial_tendons(m, tgroups, bool(flags[SceneOption.VIS_TENDON])):
        ii, fi = _material(m, int(m.tendon_matid[i]), np.asarray(m.tendon_rgba, np.float32).reshape(-1, 4)[i], use_tex)
        if transparent:
            fi[L.OF_RGBA + 3] *= alpha_scale
        ii[L.OI_SRC] = i
        ii[L.OI_KIND] = L.KIND_TENDON
        ii[L.OI_OBJTYPE] = L.OBJ_TENDON
        ii[L.OI_TYPE] = L.GEOM_CAPSULE
        ii[L.OI_DATAID] = -1
        ii[L.OI_BODY] = -1
        for slot in range(nseg):
            rows_i.append(ii.copy())
            rows_f.append(fi.copy())
    if not rows_i:
        return np.zeros((0, L.NOI), np.int32), np.zeros((0, L.NOF))
    return np.ascontiguousarray(np.array(rows_i, dtype=np.int32)), np.ascontiguousarray(np.array(rows_f))


# ------------------------------------------------------------------------------------------------ cameras, lights


def build_cameras(m):
    ncam = int(getattr(m, "ncam", 0))
    ci = np.zeros((max(ncam, 1), L.NCI), dtype=np.int32)
    cf = np.zeros((max(ncam, 1), L.NCF))
    if ncam == 0:
        return ci, cf
    ci[:, L.CI_MODE] = m.cam_mode
    ci[:, L.CI_BODY] = m.cam_bodyid
    ci[:, L.CI_TARGET] = m.cam_targetbodyid
    ci[:, L.CI_PROJ] = getattr(m, "cam_projection", np.zeros(ncam))
    cf[:, L.CF_POS : L.CF_POS + 3] = np.asarray(m.cam_pos).reshape(-1, 3)
    cf[:, L.CF_QUAT : L.CF_QUAT + 4] = np.asarray(m.cam_quat).reshape(-1, 4)
    cf[:, L.CF_POS0 : L.CF_POS0 + 3] = np.asarray(m.cam_pos0).reshape(-1, 3)
    cf[:, L.CF_POSCOM0 : L.CF_POSCOM0 + 3] = np.asarray(m.cam_poscom0).reshape(-1, 3)
    cf[:, L.CF_MAT0 : L.CF_MAT0 + 9] = np.asarray(m.cam_mat0).reshape(-1, 9)
    cf[:, L.CF_FOVY] = m.cam_fovy
    cf[:, L.CF_IPD] = m.cam_ipd
    # MuJoCo keeps sensorsize / intrinsic in float32
    cf[:, L.CF_SENSOR : L.CF_SENSOR + 2] = np.asarray(m.cam_sensorsize, dtype=np.float32).reshape(-1, 2)
    cf[:, L.CF_INTRINSIC : L.CF_INTRINSIC + 4] = np.asarray(m.cam_intrinsic, dtype=np.float32).reshape(-1, 4)
    return ci, cf


def build_lights(m):
    nl = int(getattr(m, "nlight", 0))
    li = np.zeros((max(nl, 1), L.NLI), dtype=np.int32)
    lf = np.zeros((max(nl, 1), L.NLF))
    if nl == 0:
        return li, lf
    li[:, L.LI_MODE] = m.light_mode
    li[:, L.LI_BODY] = m.light_bodyid
    li[:, L.LI_TARGET] = m.light_targetbodyid
    li[:, L.LI_TYPE] = m.light_type
    li[:, L.LI_CASTSHADOW] = m.light_castshadow
    li[:, L.LI_ACTIVE] = m.light_active
    for col, name, k in (
        (L.LF_POS, "pos", 3),
        (L.LF_DIR, "dir", 3),
        (L.LF_POS0, "pos0", 3),
        (L.LF_DIR0, "dir0", 3),
        (L.LF_POSCOM0, "poscom0", 3),
    ):
        lf[:, col : col + k] = np.asarray(getattr(m, "light_" + name)).reshape(-1, k)
    for col, name, k in (
        (L.LF_AMBIENT, "ambient", 3),
        (L.LF_DIFFUSE, "diffuse", 3),
        (L.LF_SPECULAR, "specular", 3),
        (L.LF_ATTEN, "attenuation", 3),
        (L.LF_CUTOFF, "cutoff", 1),
        (L.LF_EXPONENT, "exponent", 1),
    ):
        lf[:, col : col + k] = np.asarray(getattr(m, "light_" + name), dtype=np.float32).reshape(-1, k)
    return li, lf


def scene_lights(m):
    """(model light ids in scene order, number of shadow-casting ones): mjv_makeLights keeps the headlight (when
    active) and the active model lights; mjr_render enables at most MAXLIGHT of them."""
    nslot = L.MAXLIGHT - (1 if int(m.vis.headlight.active) else 0)
    ids = [i for i in range(int(getattr(m, "nlight", 0))) if m.light_active[i]][:nslot]
    nshadow = sum(
        1 for i in ids if m.light_castshadow[i] and int(m.light_type[i]) in (L.LIGHT_SPOT, L.LIGHT_DIRECTIONAL)
    )
    return ids, nshadow


def build_vis(m, out=None):
    """RenderModel.vis from m.vis / m.stat (read at every update_scene, like mjv_updateScene)."""
    v = np.zeros(L.NV) if out is None else out
    ext = float(m.stat.extent)
    g, mp, hl = m.vis.global_, m.vis.map, m.vis.headlight
    v[L.V_ZNEAR] = np.float32(mp.znear * ext)
    v[L.V_ZFAR] = np.float32(mp.zfar * ext)
    v[L.V_EXTENT] = ext
    v[L.V_FOVY] = g.fovy
    v[L.V_IPD] = g.ipd
    v[L.V_ORTHO] = g.orthographic
    v[L.V_HEADACTIVE] = hl.active
    v[L.V_HEADAMBIENT : L.V_HEADAMBIENT + 3] = hl.ambient
    v[L.V_HEADDIFFUSE : L.V_HEADDIFFUSE + 3] = hl.diffuse
    v[L.V_HEADSPECULAR : L.V_HEADSPECULAR + 3] = hl.specular
    v[L.V_SHADOWCLIP] = ext * mp.shadowclip
    v[L.V_SHADOWSCALE] = mp.shadowscale
    v[L.V_HAZE] = mp.haze
    v[L.V_HAZERGBA : L.V_HAZERGBA + 4] = m.vis.rgba.haze
    # mujoco.Renderer converts the cleared depth buffer (0) to d / c with float32 coefficients: not quite zfar
    far, near = np.float32(v[L.V_ZFAR]), np.float32(v[L.V_ZNEAR])
    c = np.float32(-0.5) * (-(far + near) / (far - near)) - np.float32(0.5)
    dc = np.float32(-0.5) * (-(np.float32(2) * far * near) / (far - near))
    v[L.V_ZBG] = np.float32(np.float64(dc) / np.float64(c))  # (orthographic cameras report zfar)
    sky = [t for t in range(int(getattr(m, "ntex", 0))) if int(m.tex_type[t]) == L.TEXTURE_SKYBOX]
    v[L.V_SKYTEX] = sky[0] if sky else -1
    return v
