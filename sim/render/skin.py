"""Skins (mjv_updateActiveSkin): vertices blended from their bones' poses (linear blend skinning with the bind
poses), area-weighted vertex normals, inflation along the normals; each skin is one renderer object (as it is
one mjvGeom) whose triangles, in world coordinates, are found through a BVH over its faces (built once by
scene.skin_bvh, its boxes refit to the skinned vertices every frame); a hit's part is the face (index within the
skin), smooth-shaded with the vertex normals, textured with the skin's texture coordinates."""

from sim.jit import njit
from sim.engine.math import mul_quat, quat2mat

from .geometry import tri_hit, MAXSTACK, _slab
from .layout import (
    MINVAL,
    SI_VERTADR,
    SI_VERTNUM,
    SI_FACEADR,
    SI_FACENUM,
    SI_BONEADR,
    SI_BONENUM,
    SI_BVHADR,
    SI_BVHNUM,
    BI_BODY,
    BI_VERTADR,
    BI_VERTNUM,
    BF_BINDPOS,
    BF_BINDQUAT,
    OI_TYPE,
    OI_SRC,
    GEOM_SKIN,
    G_AABB,
    G_RBOUND,
    M_SCRATCH,
)


@njit(cache=True, fastmath=True)
def update_skins(rm, fr, w):
    """Skin vertices and normals of world w (fr.skinvert / skinnorm), then the bounding boxes of the skin
    triangle objects (they live in world coordinates)."""
    V = fr.skinvert[w]
    Nn = fr.skinnorm[w]
    rot = fr.mirror[w, M_SCRATCH : M_SCRATCH + 9]
    for s in range(rm.skin_i.shape[0]):
        si = rm.skin_i[s]
        vadr, vnum = si[SI_VERTADR], si[SI_VERTNUM]
        for v in range(vadr, vadr + vnum):
            for c in range(3):
                V[v, c] = 0.0
                Nn[v, c] = 0.0
        for j in range(si[SI_BONEADR], si[SI_BONEADR] + si[SI_BONENUM]):
            bf = rm.bone_f[j]
            body = rm.bone_i[j, BI_BODY]
            bq = fr.xquat[w, body]
            # quat = xquat * conj(bindquat), rotate = quat2mat(quat), translate = xpos - rotate bindpos
            q = mul_quat(
                bq[0],
                bq[1],
                bq[2],
                bq[3],
                bf[BF_BINDQUAT],
                -bf[BF_BINDQUAT + 1],
                -bf[BF_BINDQUAT + 2],
                -bf[BF_BINDQUAT + 3],
            )
            quat2mat(rot, q[0], q[1], q[2], q[3])
            bp = (bf[BF_BINDPOS], bf[BF_BINDPOS + 1], bf[BF_BINDPOS + 2])
            bx = fr.xpos[w, body]
            t0 = bx[0] - (rot[0] * bp[0] + rot[1] * bp[1] + rot[2] * bp[2])
            t1 = bx[1] - (rot[3] * bp[0] + rot[4] * bp[1] + rot[5] * bp[2])
            t2 = bx[2] - (rot[6] * bp[0] + rot[7] * bp[1] + rot[8] * bp[2])
            for k in range(rm.bone_i[j, BI_VERTADR], rm.bone_i[j, BI_VERTADR] + rm.bone_i[j, BI_VERTNUM]):
                v = vadr + rm.bonevert_id[k]
                wt = rm.bonevert_w[k]
                p = rm.skin_vert[v]
                V[v, 0] += wt * (rot[0] * p[0] + rot[1] * p[1] + rot[2] * p[2] + t0)
                V[v, 1] += wt * (rot[3] * p[0] + rot[4] * p[1] + rot[5] * p[2] + t1)
                V[v, 2] += wt * (rot[6] * p[0] + rot[7] * p[1] + rot[8] * p[2] + t2)
        for f in range(si[SI_FACEADR], si[SI_FACEADR] + si[SI_FACENUM]):
            a, b, c = vadr + rm.skin_face[f, 0], vadr + rm.skin_face[f, 1], vadr + rm.skin_face[f, 2]
            e10, e11, e12 = V[b, 0] - V[a, 0], V[b, 1] - V[a, 1], V[b, 2] - V[a, 2]
            e20, e21, e22 = V[c, 0] - V[a, 0], V[c, 1] - V[a, 1], V[c, 2] - V[a, 2]
            n0 = e11 * e22 - e12 * e21
            n1 = e12 * e20 - e10 * e22
            n2 = e10 * e21 - e11 * e20
            for v in (a, b, c):
                Nn[v, 0] += n0
                Nn[v, 1] += n1
                Nn[v, 2] += n2
        infl = rm.skin_inflate[s]
        for v in range(vadr, vadr + vnum):
            n = (Nn[v, 0] ** 2 + Nn[v, 1] ** 2 + Nn[v, 2] ** 2) ** 0.5
            scl = 1.0 / max(MINVAL, n)
            for c in range(3):
                Nn[v, c] *= scl
                V[v, c] += infl * Nn[v, c]
        _refit(rm, fr, w, s)
    for k in range(rm.nobj):
        if rm.obj_i[k, OI_TYPE] != GEOM_SKIN:
            continue
        root = fr.skinbox[w, rm.skin_i[rm.obj_i[k, OI_SRC], SI_BVHADR]]
        g = fr.obj_g[w, k]
        r2 = 0.0
        for c in range(3):
            g[G_AABB + c] = root[c]
            g[G_AABB + 3 + c] = root[3 + c]
            r2 += root[3 + c] ** 2
        g[G_RBOUND] = r2**0.5


@njit(cache=True, fastmath=True)
def _refit(rm, fr, w, s):
    """Boxes (centre, half size) of skin s's BVH nodes around its skinned vertices, children before parents."""
    si = rm.skin_i[s]
    adr = si[SI_BVHADR]
    V = fr.skinvert[w]
    box = fr.skinbox[w]
    vadr = si[SI_VERTADR]
    for node in range(adr + si[SI_BVHNUM] - 1, adr - 1, -1):
        f = rm.skin_bvh_face[node]
        lo0 = lo1 = lo2 = 1e300
        hi0 = hi1 = hi2 = -1e300
        if f >= 0:
            row = rm.skin_face[si[SI_FACEADR] + f]
            for j in range(3):
                v = vadr + row[j]
                lo0, hi0 = min(lo0, V[v, 0]), max(hi0, V[v, 0])
                lo1, hi1 = min(lo1, V[v, 1]), max(hi1, V[v, 1])
                lo2, hi2 = min(lo2, V[v, 2]), max(hi2, V[v, 2])
        else:
            for j in range(2):
                b = box[adr + rm.skin_bvh_child[node, j]]
                lo0, hi0 = min(lo0, b[0] - b[3]), max(hi0, b[0] + b[3])
                lo1, hi1 = min(lo1, b[1] - b[4]), max(hi1, b[1] + b[4])
                lo2, hi2 = min(lo2, b[2] - b[5]), max(hi2, b[2] + b[5])
        b = box[node]
        b[0], b[3] = 0.5 * (lo0 + hi0), 0.5 * (hi0 - lo0)
        b[1], b[4] = 0.5 * (lo1 + hi1), 0.5 * (hi1 - lo1)
        b[2], b[5] = 0.5 * (lo2 + hi2), 0.5 * (hi2 - lo2)


@njit(cache=True, fastmath=True)
def skin_face_vertices(rm, k, part):
    """Vertex indices (into the skin vertex arrays) of face `part` of skin object k."""
    s = rm.obj_i[k, OI_SRC]
    vadr = rm.skin_i[s, SI_VERTADR]
    row = rm.skin_face[rm.skin_i[s, SI_FACEADR] + part]
    return vadr + row[0], vadr + row[1], vadr + row[2]


@njit(cache=True, fastmath=True)
def skin_tri(rm, fr, w, k, part):
    """World positions of the vertices of face `part` of skin object k."""
    a, b, c = skin_face_vertices(rm, k, part)
    V = fr.skinvert[w]
    return (V[a, 0], V[a, 1], V[a, 2]), (V[b, 0], V[b, 1], V[b, 2]), (V[c, 0], V[c, 1], V[c, 2])


@njit(cache=True, fastmath=True)
def hit_skin(rm, fr, w, k, o, d, tmin, tmax, cull, stack):
    """(t, face) of the nearest face of skin object k the ray (world) meets, through the skin's BVH (near child
    first, nodes beyond the best hit pruned, as geometry.hit_mesh); t < 0 if none."""
    adr = rm.skin_i[rm.obj_i[k, OI_SRC], SI_BVHADR]
    box = fr.skinbox[w]
    best, part = -1.0, 0
    if _slab(box[adr], o, d, tmin, tmax) < 0:
        return best, part
    hi = tmax
    n = 1
    stack[0] = 0
    while n > 0:
        n -= 1
        node = adr + stack[n]
        f = rm.skin_bvh_face[node]
        if f >= 0:
            v0, v1, v2 = skin_tri(rm, fr, w, k, f)
            t, _, _ = tri_hit(v0, v1, v2, o, d, tmin, hi, cull)
            if t >= 0:
                best, part, hi = t, f, t
            continue
        c0 = rm.skin_bvh_child[node, 0]
        c1 = rm.skin_bvh_child[node, 1]
        t0 = _slab(box[adr + c0], o, d, tmin, hi)
        t1 = _slab(box[adr + c1], o, d, tmin, hi)
        if t0 >= 0 and t1 >= 0:
            if n + 2 > MAXSTACK:
                continue
            if t0 <= t1:
                stack[n] = c1
                stack[n + 1] = c0
            else:
                stack[n] = c0
                stack[n + 1] = c1
            n += 2
        elif t0 >= 0:
            stack[n] = c0
            n += 1
        elif t1 >= 0:
            stack[n] = c1
            n += 1
    return best, part
