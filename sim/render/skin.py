"""Skins (mjv_updateActiveSkin): vertices blended from their bones' poses (linear blend skinning with the bind
poses), area-weighted vertex normals, inflation along the normals; each skin face is a renderer object (a
triangle in world coordinates, smooth-shaded with the vertex normals, textured with the skin's texture
coordinates)."""

from sim.jit import njit
from sim.engine.math import mul_quat, quat2mat

from .geometry import tri_hit
from .layout import (
    MINVAL,
    SI_VERTADR,
    SI_VERTNUM,
    SI_FACEADR,
    SI_FACENUM,
    SI_BONEADR,
    SI_BONENUM,
    BI_BODY,
    BI_VERTADR,
    BI_VERTNUM,
    BF_BINDPOS,
    BF_BINDQUAT,
    OI_TYPE,
    OI_SRC,
    OI_DATAID,
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
    for k in range(rm.nobj):
        if rm.obj_i[k, OI_TYPE] != GEOM_SKIN:
            continue
        v0, v1, v2 = skin_tri(rm, fr, w, k)
        g = fr.obj_g[w, k]
        r2 = 0.0
        for c in range(3):
            lo = min(v0[c], v1[c], v2[c])
            hi = max(v0[c], v1[c], v2[c])
            g[G_AABB + c] = 0.5 * (lo + hi)
            g[G_AABB + 3 + c] = 0.5 * (hi - lo)
            r2 += (0.5 * (hi - lo)) ** 2
        g[G_RBOUND] = r2**0.5


@njit(cache=True, fastmath=True)
def skin_face_vertices(rm, k):
    """Vertex indices (into the skin vertex arrays) of skin triangle object k."""
    s = rm.obj_i[k, OI_SRC]
    f = rm.obj_i[k, OI_DATAID]
    vadr = rm.skin_i[s, SI_VERTADR]
    return vadr + rm.skin_face[f, 0], vadr + rm.skin_face[f, 1], vadr + rm.skin_face[f, 2]


@njit(cache=True, fastmath=True)
def skin_tri(rm, fr, w, k):
    """World positions of skin triangle object k's vertices."""
    a, b, c = skin_face_vertices(rm, k)
    V = fr.skinvert[w]
    return (V[a, 0], V[a, 1], V[a, 2]), (V[b, 0], V[b, 1], V[b, 2]), (V[c, 0], V[c, 1], V[c, 2])


@njit(cache=True, fastmath=True)
def hit_skin(rm, fr, w, k, o, d, tmin, tmax, cull):
    """(t, 0) of the ray (world) through skin triangle object k, t < 0 if none."""
    v0, v1, v2 = skin_tri(rm, fr, w, k)
    t, _, _ = tri_hit(v0, v1, v2, o, d, tmin, tmax, cull)
    return t, 0
