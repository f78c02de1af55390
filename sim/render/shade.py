"""Shading as mjr_render's fixed-function OpenGL pipeline computes it (render_gl3.c), per pixel:

* surface: the normal of the exact shape (smooth mesh normals from mesh_normal, flat height-field triangles),
  texture coordinates as MuJoCo's display lists give them (canonical UVs of the builtin shapes scaled by texrepeat
  and, with texuniform, by the geom size; object-linear coordinates for meshes without UVs and height fields;
  object coordinates for cube textures) and the texture sampled with GL's filtering;
* light: GL lighting with local viewer, colour material (rgba drives ambient and diffuse), specular = material
  specular, exponent = shininess * 128, directional and spot lights with attenuation, exponent and cutoff; the
  regular pass sums the lights without shadows, each shadow-casting light adds its own clamped term where the
  shadow map does not occlude the point, the texture modulates each pass; a reflecting plane adds the mirrored
  scene (colours times reflectance, all lights, no shadows); transparent geoms are blended over the result
  front to back and back to front as mjr_render draws them.
"""

import math

from sim.jit import njit

from .geometry import mesh_tri, hfield_triangle, HF_XNEG, HF_XPOS, HF_YNEG, HF_YPOS, HF_BOTTOM
from .layout import (
    GEOM_PLANE,
    GEOM_HFIELD,
    GEOM_SPHERE,
    GEOM_CAPSULE,
    GEOM_ELLIPSOID,
    GEOM_CYLINDER,
    GEOM_BOX,
    GEOM_MESH,
    GEOM_SKIN,
    SI_TEXCOORDADR,
    SI_VERTADR,
    PI,
    OI_TYPE,
    OI_SRC,
    OI_DATAID,
    OI_TEXID,
    OI_TEXCOORD,
    OI_TEXTYPE,
    G_SIZE,
    G_RGBA,
    OF_EMISSION,
    OF_SPECULAR,
    OF_SHININESS,
    OF_REFLECTANCE,
    OF_TEXREPEAT,
    OF_TEXUNIFORM,
    TEXTURE_2D,
    TI_W,
    MI_NORMALADR,
    MI_TEXCOORDADR,
    MI_FACEADR,
    LIGHT_DIRECTIONAL,
    L_TYPE,
    L_SHADOWVIEW,
    L_POS,
    L_DIR,
    L_AMBIENT,
    L_DIFFUSE,
    L_SPECULAR,
    L_ATTEN,
    L_COSCUT,
    L_EXPONENT,
    L_SUPPORTED,
    VW_EYE,
    VW_ORTHO,
    VW_FWD,
    VW_NEAR,
    VW_RIGHT,
    VW_UP,
    VW_SX,
    VW_SY,
    V_SKYTEX,
    V_EXTENT,
    FL_REFLECTIVE,
    M_ACTIVE,
    M_NORMAL,
    VIEW_MIRROR,
    J_STACK,
    J_HK,
    VIEW_CAMERA,
    VW_X0,
    VW_Y0,
    VW_OCC,
    PT_VALID,
    PT_EX,
    PT_EY,
    PT_D0,
    PT_H,
    PT_A0,
    PT_A1,
    PT_B0,
    PT_B1,
)
from .skin import skin_tri, skin_face_vertices
from .texture import sample_2d, sample_2d_grad, sample_cube, sample_cube_base
from .trace import view_ray, project, cell_of, cell_range, nearest_in, occluded, EPS_Z

SHADOW_EPS = 1e-4  # shadow-ray start offset along the normal, relative to stat.extent


# ------------------------------------------------------------------------------------------------ surface


@njit(cache=True, fastmath=True)
def obj_size(fr, w, k):
    """Size (3,) of object k in world w (geom_size, or a tendon segment's radius and half length)."""
    g = fr.obj_g[w, k]
    return g[G_SIZE], g[G_SIZE + 1], g[G_SIZE + 2]


@njit(cache=True, fastmath=True)
def _mv(mat, x, y, z):
    return (
        mat[0] * x + mat[1] * y + mat[2] * z,
        mat[3] * x + mat[4] * y + mat[5] * z,
        mat[6] * x + mat[7] * y + mat[8] * z,
    )


@njit(cache=True, fastmath=True)
def _mtv(mat, x, y, z):
    return (
        mat[0] * x + mat[3] * y + mat[6] * z,
        mat[1] * x + mat[4] * y + mat[7] * z,
        mat[2] * x + mat[5] * y + mat[8] * z,
    )


@njit(cache=True, fastmath=True)
def _unit(x, y, z):
    n = math.sqrt(x * x + y * y + z * z)
    if n < 1e-300:
        return 0.0, 0.0, 1.0
    return x / n, y / n, z / n


@njit(cache=True, fastmath=True)
def _bary(v0, v1, v2, p):
    """Barycentric weights (of v1, v2) of p projected on the triangle's plane (may be outside [0, 1])."""
    e10, e11, e12 = v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2]
    e20, e21, e22 = v2[0] - v0[0], v2[1] - v0[1], v2[2] - v0[2]
    q0, q1, q2 = p[0] - v0[0], p[1] - v0[1], p[2] - v0[2]
    d00 = e10 * e10 + e11 * e11 + e12 * e12
    d01 = e10 * e20 + e11 * e21 + e12 * e22
    d11 = e20 * e20 + e21 * e21 + e22 * e22
    d20 = q0 * e10 + q1 * e11 + q2 * e12
    d21 = q0 * e20 + q1 * e21 + q2 * e22
    den = d00 * d11 - d01 * d01
    if den == 0:
        return 0.0, 0.0
    return (d11 * d20 - d01 * d21) / den, (d00 * d21 - d01 * d20) / den


@njit(cache=True, fastmath=True)
def local_normal(rm, k, s, part, lp):
    """Outward unit normal of object k (of size s) at local point lp on surface `part`."""
    typ = rm.obj_i[k, OI_TYPE]
    if typ == GEOM_PLANE:
        return 0.0, 0.0, 1.0
    if typ == GEOM_SPHERE:
        return _unit(lp[0], lp[1], lp[2])
    if typ == GEOM_ELLIPSOID:
        return _unit(lp[0] / (s[0] * s[0]), lp[1] / (s[1] * s[1]), lp[2] / (s[2] * s[2]))
    if typ == GEOM_CAPSULE:
        if part == 0:
            return _unit(lp[0], lp[1], 0.0)
        return _unit(lp[0], lp[1], lp[2] - (s[1] if part == 1 else -s[1]))
    if typ == GEOM_CYLINDER:
        if part == 0:
            return _unit(lp[0], lp[1], 0.0)
        return 0.0, 0.0, (1.0 if part == 1 else -1.0)
    if typ == GEOM_BOX:
        ax = part // 2
        sg = 1.0 if part % 2 == 1 else -1.0
        return (sg if ax == 0 else 0.0), (sg if ax == 1 else 0.0), (sg if ax == 2 else 0.0)
    if typ == GEOM_MESH:
        mid = rm.obj_i[k, OI_DATAID]
        v0, v1, v2 = mesh_tri(rm, mid, part)
        b1, b2 = _bary(v0, v1, v2, lp)
        row = rm.mesh_face[rm.mesh_i[mid, MI_FACEADR] + part]
        na = rm.mesh_i[mid, MI_NORMALADR]
        N = rm.mesh_normal
        n0, n1, n2 = na + row[3], na + row[4], na + row[5]
        b0 = 1 - b1 - b2
        return _unit(
            b0 * N[n0, 0] + b1 * N[n1, 0] + b2 * N[n2, 0],
            b0 * N[n0, 1] + b1 * N[n1, 1] + b2 * N[n2, 1],
            b0 * N[n0, 2] + b1 * N[n1, 2] + b2 * N[n2, 2],
        )
    if typ == GEOM_HFIELD:
        if part == HF_XNEG:
            return -1.0, 0.0, 0.0
        if part == HF_XPOS:
            return 1.0, 0.0, 0.0
        if part == HF_YNEG:
            return 0.0, -1.0, 0.0
        if part == HF_YPOS:
            return 0.0, 1.0, 0.0
        if part == HF_BOTTOM:
            return 0.0, 0.0, -1.0
        v0, v1, v2 = hfield_triangle(rm, rm.obj_i[k, OI_DATAID], part)
        e1 = (v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2])
        e2 = (v2[0] - v0[0], v2[1] - v0[1], v2[2] - v0[2])
        return _unit(e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0])
    return 0.0, 0.0, 1.0


@njit(cache=True, fastmath=True)
def _az(x, y):
    a = math.atan2(y, x) / (2 * PI)
    return a + 1.0 if a < 0 else a


@njit(cache=True, fastmath=True)
def _tex_scale(rm, k, s):
    """The texture matrix scale of settexture for explicit UVs: texrepeat (1 where <= 0), times the geom size
    with texuniform."""
    r0 = rm.obj_f[k, OF_TEXREPEAT]
    r1 = rm.obj_f[k, OF_TEXREPEAT + 1]
    sc0 = r0 if r0 > 0 else 1.0
    sc1 = r1 if r1 > 0 else 1.0
    if rm.obj_f[k, OF_TEXUNIFORM] != 0:
        if s[0] > 0:
            sc0 *= s[0]
        if s[1] > 0:
            sc1 *= s[1]
    return sc0, sc1


@njit(cache=True, fastmath=True)
def tex_coord(rm, k, s, part, lp):
    """Texture coordinates of local point lp of object k: (u, v, 0) for a 2-D texture, after the texture
    matrix (texrepeat, texuniform); the object-linear lookup vector (s, t, r) for a cube texture."""
    typ = rm.obj_i[k, OI_TYPE]
    uniform = rm.obj_f[k, OF_TEXUNIFORM] != 0
    if rm.obj_i[k, OI_TEXTYPE] != TEXTURE_2D:
        # cube: display-list object coordinates, times the size with texuniform
        if typ == GEOM_SPHERE:
            x, y, z = lp[0] / s[0], lp[1] / s[0], lp[2] / s[0]
            f0, f1, f2 = s[0], s[0], s[0]
        elif typ == GEOM_ELLIPSOID or typ == GEOM_BOX:
            x, y, z = lp[0] / s[0], lp[1] / s[1], lp[2] / s[2]
            f0, f1, f2 = s[0], s[1], s[2]
        elif typ == GEOM_CYLINDER:
            x, y, z = lp[0] / s[0], lp[1] / s[0], lp[2] / s[1]
            f0, f1, f2 = s[0], s[0], s[1]
        elif typ == GEOM_CAPSULE:
            x, y = lp[0] / s[0], lp[1] / s[0]
            if part == 0:
                z = lp[2] / s[1]
            elif part == 1:
                z = 1 + (lp[2] - s[1]) / s[0]
            else:
                z = -1 + (lp[2] + s[1]) / s[0]
            f0, f1, f2 = s[0], s[0], s[1]
        else:
            x, y, z = lp[0], lp[1], lp[2]
            f0, f1, f2 = 1.0, 1.0, 1.0
        if uniform:
            return x * f0, y * f1, z * f2
        return x, y, z
    r0 = rm.obj_f[k, OF_TEXREPEAT]
    r1 = rm.obj_f[k, OF_TEXREPEAT + 1]
    texcoord = rm.obj_i[k, OI_TEXCOORD] != 0
    if typ == GEOM_MESH and texcoord:
        mid = rm.obj_i[k, OI_DATAID]
        v0, v1, v2 = mesh_tri(rm, mid, part)
        b1, b2 = _bary(v0, v1, v2, lp)
        row = rm.mesh_face[rm.mesh_i[mid, MI_FACEADR] + part]
        ta = rm.mesh_i[mid, MI_TEXCOORDADR]
        T = rm.mesh_texcoord
        b0 = 1 - b1 - b2
        u = b0 * T[ta + row[6], 0] + b1 * T[ta + row[7], 0] + b2 * T[ta + row[8], 0]
        v = b0 * T[ta + row[6], 1] + b1 * T[ta + row[7], 1] + b2 * T[ta + row[8], 1]
        sc0, sc1 = _tex_scale(rm, k, s)
        return u * sc0, v * sc1, 0.0
    if typ == GEOM_MESH or typ == GEOM_HFIELD:
        # object-linear texgen: s = 0.5 scl0 x - 0.5, t = -0.5 scl1 y - 0.5, scl = texrepeat / size
        sc0, sc1 = r0, r1
        if s[0] > 0:
            sc0 = sc0 / max(1e-15, s[0])
        if s[1] > 0:
            sc1 = sc1 / max(1e-15, s[1])
        if uniform:
            if s[0] > 0:
                sc0 *= s[0]
            if s[1] > 0:
                sc1 *= s[1]
        return 0.5 * sc0 * lp[0] - 0.5, -0.5 * sc1 * lp[1] - 0.5, 0.0
    # builtin shapes: canonical UVs
    shift = 0.0
    if typ == GEOM_PLANE:
        u = (lp[0] + s[0]) / (2 * s[0]) if s[0] > 0 else 0.5 * lp[0]
        v = 1 - (lp[1] + s[1]) / (2 * s[1]) if s[1] > 0 else -0.5 * lp[1]
        if s[0] <= 0 or s[1] <= 0:
            shift = -0.5
    elif typ == GEOM_BOX:
        ax = part // 2
        X, Y, Z = lp[0] / s[0], lp[1] / s[1], lp[2] / s[2]
        if ax == 2:
            u, v = (X + 1) / 2, (1 - Y) / 2
        elif ax == 0:
            u, v = (Y + 1) / 2, (1 - Z) / 2
        else:
            u, v = (X + 1) / 2, (1 - Z) / 2
    elif typ == GEOM_SPHERE or typ == GEOM_ELLIPSOID:
        sx, sy, sz = (s[0], s[0], s[0]) if typ == GEOM_SPHERE else (s[0], s[1], s[2])
        x, y, z = _unit(lp[0] / sx, lp[1] / sy, lp[2] / sz)
        u = _az(x, y)
        v = 0.5 - math.asin(max(-1.0, min(1.0, z))) / PI
    elif typ == GEOM_CYLINDER:
        if part == 0:
            u = _az(lp[0], lp[1])
            v = (1 - lp[2] / s[1]) / 2
        else:
            u = 0.5 + 0.5 * lp[0] / s[0]
            v = 0.5 + 0.5 * lp[1] / s[0]
    elif typ == GEOM_CAPSULE:
        u = _az(lp[0], lp[1])
        if part == 0:
            v = (1 - lp[2] / s[1]) / 2
        elif part == 1:
            v = 1 - math.asin(max(-1.0, min(1.0, (lp[2] - s[1]) / s[0]))) / (PI / 2)
        else:
            v = -math.asin(max(-1.0, min(1.0, (lp[2] + s[1]) / s[0]))) / (PI / 2)
    else:
        u, v = 0.0, 0.0
    sc0, sc1 = _tex_scale(rm, k, s)
    return u * sc0 + shift, v * sc1 + shift, 0.0


@njit(cache=True, fastmath=True)
def _periodic_u(rm, k, part):
    """True when u is an azimuth (wraps at 0 / 1)."""
    typ = rm.obj_i[k, OI_TYPE]
    if typ == GEOM_SPHERE or typ == GEOM_ELLIPSOID:
        return True
    if typ == GEOM_CAPSULE:
        return True
    return typ == GEOM_CYLINDER and part == 0


@njit(cache=True, fastmath=True)
def _plane_hit(o, d, p, n):
    """Point where the ray (o, d) meets the plane (p, n); p itself when the ray is parallel to it."""
    den = d[0] * n[0] + d[1] * n[1] + d[2] * n[2]
    if abs(den) < 1e-12:
        return p
    t = ((p[0] - o[0]) * n[0] + (p[1] - o[1]) * n[1] + (p[2] - o[2]) * n[2]) / den
    return o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2]


@njit(cache=True, fastmath=True, inline="always")
def texture(rm, fr, w, k, part, lp, P, N, vi, px, py):
    """RGBA of object k's texture at local point lp / world point P (normal N) seen through pixel (px, py) of
    view vi; the level of detail from the pixel's neighbours projected on the tangent plane."""
    if vi == VIEW_CAMERA and fr.ptex[w, k, PT_VALID] != 0:
        return _camera_plane_texture(rm, fr, w, k, lp, px, py)
    if rm.obj_i[k, OI_TYPE] == GEOM_PLANE and rm.obj_i[k, OI_TEXTYPE] == TEXTURE_2D:
        return _plane_texture(
            rm,
            k,
            obj_size(fr, w, k),
            rm.obj_i[k, OI_TEXID],
            lp,
            fr.views[w, vi],
            fr.obj_pos[w, k],
            fr.obj_mat[w, k],
            px,
            py,
        )
    return _texture_any(rm, fr, w, k, part, lp, P, N, vi, px, py)


@njit(cache=True, fastmath=True)
def _texture_any(rm, fr, w, k, part, lp, P, N, vi, px, py):
    """texture() for every object but 2-D textured planes."""
    tid = rm.obj_i[k, OI_TEXID]
    v = fr.views[w, vi]
    pos = fr.obj_pos[w, k]
    mat = fr.obj_mat[w, k]
    s = obj_size(fr, w, k)
    ox, dx = view_ray(v, px + 1.0, py)
    oy, dy = view_ray(v, px, py + 1.0)
    Px = _plane_hit(ox, dx, P, N)
    Py = _plane_hit(oy, dy, P, N)
    if rm.obj_i[k, OI_TYPE] == GEOM_SKIN:
        c = _skin_coord(rm, fr, w, k, part, s, P)
        cx = _skin_coord(rm, fr, w, k, part, s, Px)
        cy = _skin_coord(rm, fr, w, k, part, s, Py)
    else:
        lpx = _mtv(mat, Px[0] - pos[0], Px[1] - pos[1], Px[2] - pos[2])
        lpy = _mtv(mat, Py[0] - pos[0], Py[1] - pos[1], Py[2] - pos[2])
        c = tex_coord(rm, k, s, part, lp)
        cx = tex_coord(rm, k, s, part, lpx)
        cy = tex_coord(rm, k, s, part, lpy)
    if rm.obj_i[k, OI_TEXTYPE] == TEXTURE_2D:
        return sample_2d(rm, tid, c, cx, cy, _periodic_u(rm, k, part))
    return sample_cube(rm, tid, c, cx, cy)


@njit(cache=True, fastmath=True)
def plane_texture_setup(rm, fr, w):
    """Per-frame constants of _camera_plane_texture for every 2-D textured plane of world w seen by a perspective
    camera: in the plane's frame the ray direction of pixel (px, py) is d0 + px ex + py ey, the eye's height
    above the plane is h, and the texture coordinates are u = A0 x + B0, v = A1 y + B1 (tex_coord's plane
    mapping with the texture matrix)."""
    v = fr.views[w, VIEW_CAMERA]
    ortho = v[VW_ORTHO] != 0
    for k in range(rm.nobj):
        pt = fr.ptex[w, k]
        pt[PT_VALID] = 0.0
        if ortho or rm.obj_i[k, OI_TYPE] != GEOM_PLANE or rm.obj_i[k, OI_TEXTYPE] != TEXTURE_2D:
            continue
        pos = fr.obj_pos[w, k]
        mat = fr.obj_mat[w, k]
        s = obj_size(fr, w, k)
        ex = _mtv(mat, v[VW_SX] * v[VW_RIGHT], v[VW_SX] * v[VW_RIGHT + 1], v[VW_SX] * v[VW_RIGHT + 2])
        ey = _mtv(mat, -v[VW_SY] * v[VW_UP], -v[VW_SY] * v[VW_UP + 1], -v[VW_SY] * v[VW_UP + 2])
        d0 = _mtv(
            mat,
            v[VW_FWD] + v[VW_X0] * v[VW_RIGHT] + v[VW_Y0] * v[VW_UP],
            v[VW_FWD + 1] + v[VW_X0] * v[VW_RIGHT + 1] + v[VW_Y0] * v[VW_UP + 1],
            v[VW_FWD + 2] + v[VW_X0] * v[VW_RIGHT + 2] + v[VW_Y0] * v[VW_UP + 2],
        )
        for i in range(3):
            pt[PT_EX + i] = ex[i]
            pt[PT_EY + i] = ey[i]
            pt[PT_D0 + i] = d0[i]
        pt[PT_H] = mat[2] * (v[VW_EYE] - pos[0]) + mat[5] * (v[VW_EYE + 1] - pos[1]) + mat[8] * (v[VW_EYE + 2] - pos[2])
        sc0, sc1 = _tex_scale(rm, k, s)
        shift = -0.5 if s[0] <= 0 or s[1] <= 0 else 0.0
        a0 = sc0 * 0.5 / s[0] if s[0] > 0 else 0.5 * sc0
        a1 = -sc1 * 0.5 / s[1] if s[1] > 0 else -0.5 * sc1
        pt[PT_A0] = a0
        pt[PT_A1] = a1
        pt[PT_B0] = (0.5 * sc0 if s[0] > 0 else 0.0) + shift
        pt[PT_B1] = (0.5 * sc1 if s[1] > 0 else 0.0) + shift
        pt[PT_VALID] = 1.0


@njit(cache=True, fastmath=True)
def _camera_plane_texture(rm, fr, w, k, lp, px, py):
    """_plane_texture for the camera's rays from the per-frame constants of plane_texture_setup."""
    pt = fr.ptex[w, k]
    l0 = pt[PT_D0] + px * pt[PT_EX] + py * pt[PT_EY]
    l1 = pt[PT_D0 + 1] + px * pt[PT_EX + 1] + py * pt[PT_EY + 1]
    l2 = pt[PT_D0 + 2] + px * pt[PT_EX + 2] + py * pt[PT_EY + 2]
    if abs(l2) < 1e-300:
        return 1.0, 1.0, 1.0, 1.0
    inv = 1.0 / l2
    fx = pt[PT_EX + 2] * inv
    fy = pt[PT_EY + 2] * inv
    t = -pt[PT_H] * inv
    a0 = pt[PT_A0]
    a1 = pt[PT_A1]
    return sample_2d_grad(
        rm,
        rm.obj_i[k, OI_TEXID],
        a0 * lp[0] + pt[PT_B0],
        a1 * lp[1] + pt[PT_B1],
        a0 * t * (pt[PT_EX] - l0 * fx),
        a1 * t * (pt[PT_EX + 1] - l1 * fx),
        a0 * t * (pt[PT_EY] - l0 * fy),
        a1 * t * (pt[PT_EY + 1] - l1 * fy),
    )


@njit(cache=True, fastmath=True, inline="always")
def _plane_texture(rm, k, s, tid, lp, v, pos, mat, px, py):
    """2-D texture on a plane: u, v are affine in the local x, y (tex_coord's plane mapping, texture matrix
    included), so the footprint of a pixel comes from the exact derivative of the local hit point along the
    view's pixel axes."""
    o, d = view_ray(v, px, py)
    ld = _mtv(mat, d[0], d[1], d[2])
    if abs(ld[2]) < 1e-300:
        return 1.0, 1.0, 1.0, 1.0
    inv = 1.0 / ld[2]
    ex = _mtv(mat, v[VW_SX] * v[VW_RIGHT], v[VW_SX] * v[VW_RIGHT + 1], v[VW_SX] * v[VW_RIGHT + 2])
    ey = _mtv(mat, -v[VW_SY] * v[VW_UP], -v[VW_SY] * v[VW_UP + 1], -v[VW_SY] * v[VW_UP + 2])
    fx = ex[2] * inv
    fy = ey[2] * inv
    if v[VW_ORTHO] != 0:
        t = 1.0
    else:
        t = -(mat[2] * (o[0] - pos[0]) + mat[5] * (o[1] - pos[1]) + mat[8] * (o[2] - pos[2])) * inv
    dx0, dx1 = t * (ex[0] - ld[0] * fx), t * (ex[1] - ld[1] * fx)
    dy0, dy1 = t * (ey[0] - ld[0] * fy), t * (ey[1] - ld[1] * fy)
    sc0, sc1 = _tex_scale(rm, k, s)
    shift = -0.5 if s[0] <= 0 or s[1] <= 0 else 0.0
    if s[0] > 0:
        h0 = 0.5 / s[0]
        u = (lp[0] + s[0]) * h0
        a0 = sc0 * h0
    else:
        u = 0.5 * lp[0]
        a0 = 0.5 * sc0
    if s[1] > 0:
        h1 = 0.5 / s[1]
        vv = 1 - (lp[1] + s[1]) * h1
        a1 = -sc1 * h1
    else:
        vv = -0.5 * lp[1]
        a1 = -0.5 * sc1
    return sample_2d_grad(rm, tid, u * sc0 + shift, vv * sc1 + shift, a0 * dx0, a1 * dx1, a0 * dy0, a1 * dy1)


# ------------------------------------------------------------------------------------------------ light


@njit(cache=True, fastmath=True, inline="always")
def light_vec(lt, P):
    """Unit vector from P to the light and the light's attenuation times spot factor there (0 outside a spot
    light's cone); lt[L_DIR] is a unit vector."""
    if lt[L_TYPE] == LIGHT_DIRECTIONAL:
        return -lt[L_DIR], -lt[L_DIR + 1], -lt[L_DIR + 2], 1.0
    L0, L1, L2 = lt[L_POS] - P[0], lt[L_POS + 1] - P[1], lt[L_POS + 2] - P[2]
    dist = math.sqrt(L0 * L0 + L1 * L1 + L2 * L2)
    if dist > 1e-300:
        inv = 1.0 / dist
        L0, L1, L2 = L0 * inv, L1 * inv, L2 * inv
    den = lt[L_ATTEN] + lt[L_ATTEN + 1] * dist + lt[L_ATTEN + 2] * dist * dist
    att = 1.0 / den if den > 0 else 1.0
    if lt[L_COSCUT] > -1.5:
        c = -(L0 * lt[L_DIR] + L1 * lt[L_DIR + 1] + L2 * lt[L_DIR + 2])
        if c < lt[L_COSCUT]:
            return L0, L1, L2, 0.0
        if lt[L_EXPONENT] != 0:
            att *= spec_power(max(c, 0.0), lt[L_EXPONENT])
    return L0, L1, L2, att


@njit(cache=True, fastmath=True, inline="always")
def light_term(lt, P, N, V, rgb, spec, shin):
    """GL fixed-function contribution of one light (ambient + diffuse + specular, attenuation and spot)."""
    L0, L1, L2, att = light_vec(lt, P)
    if att == 0:
        return 0.0, 0.0, 0.0
    return _term(lt, L0, L1, L2, att, N, V, rgb, spec, shin)


@njit(cache=True, fastmath=True)
def spec_power(x, e):
    """x ** e for x in [0, 1]: repeated squaring when e is a whole number up to 1024 (GL's shininess * 128 and a
    spot light's exponent almost always are), the library pow otherwise."""
    n = int(e)
    if n != e or n > 1024 or n < 0:
        return x**e
    r = 1.0
    b = x
    while n > 0:
        if n & 1:
            r *= b
        b *= b
        n >>= 1
    return r


@njit(cache=True, fastmath=True, inline="always")
def _term(lt, L0, L1, L2, att, N, V, rgb, spec, shin):
    nl = N[0] * L0 + N[1] * L1 + N[2] * L2
    r = lt[L_AMBIENT] * rgb[0]
    g = lt[L_AMBIENT + 1] * rgb[1]
    b = lt[L_AMBIENT + 2] * rgb[2]
    if nl > 0:
        r += nl * lt[L_DIFFUSE] * rgb[0]
        g += nl * lt[L_DIFFUSE + 1] * rgb[1]
        b += nl * lt[L_DIFFUSE + 2] * rgb[2]
        if spec != 0:
            H0, H1, H2 = L0 + V[0], L1 + V[1], L2 + V[2]
            hn = H0 * H0 + H1 * H1 + H2 * H2
            nd = N[0] * H0 + N[1] * H1 + N[2] * H2
            # nh = nd / |H|; nh^shin <= exp(-shin (1 - nh)): below e^-8 the term is invisible, skip it.  The test
            # shin (1 - nh) < 8, i.e. nh shin > shin - 8, squared (both sides positive when shin > 8): no root
            if hn > 0 and nd > 0 and (shin <= 8 or nd * nd * shin * shin > (shin - 8) * (shin - 8) * hn):
                nh = nd / math.sqrt(hn)
                if shin * (1 - nh) < 8:
                    sp = spec_power(nh, shin) * spec
                    r += sp * lt[L_SPECULAR]
                    g += sp * lt[L_SPECULAR + 1]
                    b += sp * lt[L_SPECULAR + 2]
    return att * r, att * g, att * b


@njit(cache=True, fastmath=True)
def _clamp(x):
    return 0.0 if x < 0 else (1.0 if x > 1 else x)


@njit(cache=True, fastmath=True, inline="always")
def material(rm, fr, w, k, part, lp, P, N, vi, px, py, scale):
    """(rgb * scale, texture rgba, specular, shininess exponent, emission) of object k at the hit."""
    f = rm.obj_f[k]
    g = fr.obj_g[w, k]
    rgb = (g[G_RGBA] * scale, g[G_RGBA + 1] * scale, g[G_RGBA + 2] * scale)
    if rm.obj_i[k, OI_TEXID] >= 0:
        tex = texture(rm, fr, w, k, part, lp, P, N, vi, px, py)
    else:
        tex = (1.0, 1.0, 1.0, 1.0)
    return rgb, tex, f[OF_SPECULAR], f[OF_SHININESS] * 128.0, f[OF_EMISSION]


@njit(cache=True, fastmath=True, inline="always")
def surface(rm, fr, w, k, part, o, d, t):
    """World point, world unit normal and local point of the hit (t along (o, d)) on object k."""
    P = (o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2])
    pos = fr.obj_pos[w, k]
    mat = fr.obj_mat[w, k]
    lp = _mtv(mat, P[0] - pos[0], P[1] - pos[1], P[2] - pos[2])
    if rm.obj_i[k, OI_TYPE] == GEOM_SKIN:
        return P, _skin_normal(rm, fr, w, k, part, P), lp
    typ = rm.obj_i[k, OI_TYPE]
    if typ == GEOM_PLANE:
        return P, (mat[2], mat[5], mat[8]), lp  # a column of the orthonormal frame: unit already
    nl = local_normal(rm, k, obj_size(fr, w, k), part, lp)
    n = _mv(mat, nl[0], nl[1], nl[2])
    return P, _unit(n[0], n[1], n[2]), lp


@njit(cache=True, fastmath=True)
def _skin_normal(rm, fr, w, k, part, P):
    """Smooth normal of face `part` of skin k at P (its vertex normals, barycentric weights)."""
    v0, v1, v2 = skin_tri(rm, fr, w, k, part)
    b1, b2 = _bary(v0, v1, v2, P)
    b0 = 1 - b1 - b2
    a, b, c = skin_face_vertices(rm, k, part)
    N = fr.skinnorm[w]
    return _unit(
        b0 * N[a, 0] + b1 * N[b, 0] + b2 * N[c, 0],
        b0 * N[a, 1] + b1 * N[b, 1] + b2 * N[c, 1],
        b0 * N[a, 2] + b1 * N[b, 2] + b2 * N[c, 2],
    )


@njit(cache=True, fastmath=True)
def _skin_coord(rm, fr, w, k, part, s, P):
    """Texture coordinates of world point P on face `part` of skin k: the skin's UVs (texture matrix applied) when it
    has them, else object-linear coordinates of the world position (a skin is drawn untransformed)."""
    r0 = rm.obj_f[k, OF_TEXREPEAT]
    r1 = rm.obj_f[k, OF_TEXREPEAT + 1]
    uniform = rm.obj_f[k, OF_TEXUNIFORM] != 0
    if rm.obj_i[k, OI_TEXTYPE] != TEXTURE_2D:
        if uniform:
            return P[0] * s[0], P[1] * s[1], P[2] * s[2]
        return P[0], P[1], P[2]
    ta = rm.skin_i[rm.obj_i[k, OI_SRC], SI_TEXCOORDADR]
    if ta >= 0:
        v0, v1, v2 = skin_tri(rm, fr, w, k, part)
        b1, b2 = _bary(v0, v1, v2, P)
        b0 = 1 - b1 - b2
        a, b, c = skin_face_vertices(rm, k, part)
        vadr = rm.skin_i[rm.obj_i[k, OI_SRC], SI_VERTADR]
        T = rm.skin_texcoord
        ia, ib, ic = ta + a - vadr, ta + b - vadr, ta + c - vadr
        sc0, sc1 = _tex_scale(rm, k, s)
        return (
            (b0 * T[ia, 0] + b1 * T[ib, 0] + b2 * T[ic, 0]) * sc0,
            (b0 * T[ia, 1] + b1 * T[ib, 1] + b2 * T[ic, 1]) * sc1,
            0.0,
        )
    sc0, sc1 = r0, r1
    if uniform:
        sc0 *= s[0]
        sc1 *= s[1]
    return 0.5 * sc0 * P[0] - 0.5, -0.5 * sc1 * P[1] - 0.5, 0.0


@njit(cache=True, fastmath=True)
def lit_all(rm, fr, w, k, part, o, d, t, vi, px, py, scale, eye):
    """Colour (r, g, b, alpha) of a hit lit by every light without shadows (reflections and transparent geoms),
    rgb scaled by `scale` (the reflectance for mirrored geoms)."""
    P, N, lp = surface(rm, fr, w, k, part, o, d, t)
    rgb, tex, spec, shin, emis = material(rm, fr, w, k, part, lp, P, N, vi, px, py, scale)
    V = _unit(eye[0] - P[0], eye[1] - P[1], eye[2] - P[2])
    r, g, b = emis * rgb[0], emis * rgb[1], emis * rgb[2]
    nl = fr.nlight[w]
    amb = 0.3
    for j in range(nl):
        lt = fr.lights[w, j]
        if lt[L_SUPPORTED] == 0:
            continue
        amb = 0.0
        c = light_term(lt, P, N, V, rgb, spec, shin)
        r += c[0]
        g += c[1]
        b += c[2]
    r += amb * rgb[0]
    g += amb * rgb[1]
    b += amb * rgb[2]
    return (_clamp(r) * tex[0], _clamp(g) * tex[1], _clamp(b) * tex[2], fr.obj_g[w, k, G_RGBA + 3] * tex[3])


@njit(cache=True, fastmath=True)
def shade_opaque(rm, fr, w, k, part, o, d, t, px, py, job):
    """Final colour of an opaque hit (regular pass, shadow passes, reflection); job: whose scratch holds the
    BVH stack and the pixel tile's mirror candidates (kernels.tile_lists)."""
    stack = fr.jscr_i[job, J_STACK:J_HK]
    P, N, lp = surface(rm, fr, w, k, part, o, d, t)
    rgb, tex, spec, shin, emis = material(rm, fr, w, k, part, lp, P, N, 0, px, py, 1.0)
    v0 = fr.views[w, 0]
    V = _unit(v0[VW_EYE] - P[0], v0[VW_EYE + 1] - P[1], v0[VW_EYE + 2] - P[2])
    r, g, b = emis * rgb[0], emis * rgb[1], emis * rgb[2]
    nl = fr.nlight[w]
    amb = 0.3
    for j in range(nl):
        lt = fr.lights[w, j]
        if lt[L_SUPPORTED] != 0:
            amb = 0.0
            if lt[L_SHADOWVIEW] < 0:
                c = light_term(lt, P, N, V, rgb, spec, shin)
                r += c[0]
                g += c[1]
                b += c[2]
    r = _clamp(r + amb * rgb[0]) * tex[0]
    g = _clamp(g + amb * rgb[1]) * tex[1]
    b = _clamp(b + amb * rgb[2]) * tex[2]
    # shadow-casting lights: one additive pass each, only where the shadow map sees this point
    eps = SHADOW_EPS * rm.vis[V_EXTENT]
    convex = _convex(rm, k)
    for j in range(nl):
        lt = fr.lights[w, j]
        vi = int(lt[L_SHADOWVIEW])
        if vi < 0:
            continue
        L0, L1, L2, att = light_vec(lt, P)
        if att == 0:
            continue
        ndl = N[0] * L0 + N[1] * L1 + N[2] * L2
        if ndl <= 0 and (convex or (lt[L_AMBIENT] == 0 and lt[L_AMBIENT + 1] == 0 and lt[L_AMBIENT + 2] == 0)):
            continue  # a convex object shadows its own far side; no ambient: nothing to add anyway
        if not lit_by(rm, fr, w, vi, P, N, eps, k if convex else -1, stack):
            continue
        c = _term(lt, L0, L1, L2, att, N, V, rgb, spec, shin)
        r += _clamp(c[0]) * tex[0]
        g += _clamp(c[1]) * tex[1]
        b += _clamp(c[2]) * tex[2]
    # reflection: the mirrored scene (rgb * reflectance, all lights) under the reflecting plane / box top
    if mirror_in_tile(fr, w, k, job):
        typ = rm.obj_i[k, OI_TYPE]
        if typ == GEOM_PLANE or (typ == GEOM_BOX and part == 5):
            c = reflection(rm, fr, w, k, o, d, P, px, py, fr.jcand[job, VIEW_MIRROR], stack)
            r += c[0]
            g += c[1]
            b += c[2]
    return r, g, b


@njit(cache=True, fastmath=True, inline="always")
def mirror_in_tile(fr, w, k, job):
    """True when object k reflects and job's tile has mirror candidates (the reflection is to be traced)."""
    return (fr.flag[w, k] & FL_REFLECTIVE) != 0 and fr.mirror[w, M_ACTIVE] != 0 and fr.jcand[job, VIEW_MIRROR, 0] > 0


@njit(cache=True, fastmath=True)
def _convex(rm, k):
    """Primitive shapes are convex (a point facing away from a light is in the object's own shadow, and the
    object cannot shadow a point facing the light); meshes, height fields and skins are not assumed to be."""
    typ = rm.obj_i[k, OI_TYPE]
    return typ != GEOM_MESH and typ != GEOM_HFIELD and typ != GEOM_SKIN


@njit(cache=True, fastmath=True, inline="always")
def lit_by(rm, fr, w, vi, P, N, eps, skip, stack):
    """True when the shadow map of the light with view vi does not occlude point P (normal N): outside the
    light's shadow frustum a point is lit; inside, any object (but `skip`) between the point (offset by eps
    along N) and the light's near plane occludes it."""
    Q = (P[0] + eps * N[0], P[1] + eps * N[1], P[2] + eps * N[2])
    if outside_occupied(fr, w, vi, Q, skip):
        return True
    return lit_in_map(rm, fr, w, vi, Q, skip, stack)


@njit(cache=True, fastmath=True, inline="always")
def _no_global(fr, w, vi, skip):
    """View vi's global list (objects every cell searches) holds nothing but `skip`."""
    ng = fr.gcnt[w, vi]
    return ng == 0 or (ng == 1 and fr.gobj[w, vi, 0] == skip)


@njit(cache=True, fastmath=True, inline="always")
def outside_occupied(fr, w, vi, Q, skip):
    """True when Q is known lit without a lookup: only the cells' lists are to be searched (no global object but
    `skip`, lists not overflowed) and Q lies outside the cells that list an object (bin_view's VW_OCC bounds),
    or behind the eye plane of a perspective view; tested without project's divisions."""
    if fr.tstart[w, vi, 0] < 0 or not _no_global(fr, w, vi, skip):
        return False
    v = fr.views[w, vi]
    r0, r1, r2 = Q[0] - v[VW_EYE], Q[1] - v[VW_EYE + 1], Q[2] - v[VW_EYE + 2]
    x = r0 * v[VW_RIGHT] + r1 * v[VW_RIGHT + 1] + r2 * v[VW_RIGHT + 2]
    y = r0 * v[VW_UP] + r1 * v[VW_UP + 1] + r2 * v[VW_UP + 2]
    s = 1.0
    if v[VW_ORTHO] == 0:
        s = r0 * v[VW_FWD] + r1 * v[VW_FWD + 1] + r2 * v[VW_FWD + 2]
        if s <= EPS_Z:
            return True  # project puts it outside the view (cell -1)
    return x < s * v[VW_OCC] or x > s * v[VW_OCC + 1] or y < s * v[VW_OCC + 2] or y > s * v[VW_OCC + 3]


@njit(cache=True, fastmath=True)
def lit_in_map(rm, fr, w, vi, Q, skip, stack):
    """lit_by's lookup of the offset point Q in the shadow map: its cell, then the objects listed there."""
    v = fr.views[w, vi]
    px, py, z = project(v, Q)
    cell = cell_of(v, px, py)
    if cell < 0:
        return True
    near = v[VW_NEAR]
    if z < near:
        return True
    a, b = cell_range(fr, w, vi, cell)
    if a == b and _no_global(fr, w, vi, skip):
        return True  # nothing in the cell to test
    if v[VW_ORTHO] != 0:
        d = (-v[VW_FWD], -v[VW_FWD + 1], -v[VW_FWD + 2])
        tmax = z - near
    else:
        d = (v[VW_EYE] - Q[0], v[VW_EYE + 1] - Q[1], v[VW_EYE + 2] - Q[2])
        tmax = 1.0 - near / z
    return not occluded(rm, fr, w, vi, cell, Q, d, 0.0, tmax, skip, stack)


@njit(cache=True, fastmath=True)
def reflection(rm, fr, w, k, o, d, P, px, py, lst, stack):
    """Colour the reflecting object k adds at P: the first opaque hit of the mirrored ray (the mirror view's
    ray through the same pixel, candidates lst from its tile), lit by all lights with its colour times k's
    reflectance; black if none."""
    if lst[0] == 0:
        return 0.0, 0.0, 0.0
    n = fr.mirror[w, M_NORMAL : M_NORMAL + 3]
    dn = d[0] * n[0] + d[1] * n[1] + d[2] * n[2]
    dr = (d[0] - 2 * dn * n[0], d[1] - 2 * dn * n[1], d[2] - 2 * dn * n[2])
    t, k2, part = nearest_in(rm, fr, w, lst, P, dr, 1e-9, 1e300, stack)
    if k2 < 0:
        return 0.0, 0.0, 0.0
    v1 = fr.views[w, VIEW_MIRROR]
    c = lit_all(
        rm,
        fr,
        w,
        k2,
        part,
        P,
        dr,
        t,
        VIEW_MIRROR,
        px,
        py,
        rm.obj_f[k, OF_REFLECTANCE],
        (v1[VW_EYE], v1[VW_EYE + 1], v1[VW_EYE + 2]),
    )
    return c[0], c[1], c[2]


@njit(cache=True, fastmath=True)
def sky(rm, fr, w, d, px, py):
    """Skybox colour for view direction d (the first skybox texture on MuJoCo's cylinder around the head,
    lookup vector (x, z, -y), unlit); black without one."""
    tid = int(rm.vis[V_SKYTEX])
    if tid < 0:
        return 0.0, 0.0, 0.0
    v = fr.views[w, 0]
    c0 = (d[0], d[2], -d[1])
    # a face coordinate moves by at most 3 |step| / |d| per pixel (major axis >= |d| / sqrt 3): when that is
    # under one texel the texture is magnified everywhere and needs no derivatives
    if 1.5 * rm.tex_i[tid, TI_W] * max(v[VW_SX], v[VW_SY]) <= 1.0 or v[VW_ORTHO] != 0:
        c = sample_cube_base(rm, tid, c0)
        return c[0], c[1], c[2]
    _, dx = view_ray(v, px + 1.0, py)
    _, dy = view_ray(v, px, py + 1.0)
    c = sample_cube(rm, tid, c0, (dx[0], dx[2], -dx[1]), (dy[0], dy[2], -dy[1]))
    return c[0], c[1], c[2]
