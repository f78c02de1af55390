"""Packet shading of floor tiles.

Most of a free camera's frame is floor: screen tiles whose only candidate is one opaque plane.  There every pixel
runs the same arithmetic, so floor_tile shades a tile row LANES pixels per instruction (sim.jit.simd's
vectors): the plane's hit, the texture's level of detail and the bilinear texel addresses of its two mip levels,
and each light's GL term (shade.light_vec and shade._term lane by lane).  The texel fetches and blends, the
shadow-map lookups that shade.outside_occupied's shortcut cannot settle and the mirror's reflection run per pixel
as shade_opaque runs them; the pixels the plane does not cover (past its edges, beyond the skybox) go through
kernels' general path.  The arithmetic is shade_opaque's term by term; the vector operations round as IEEE
operations (simd.py: no fast-math contractions), so a pixel's colour agrees with the per-pixel path's to float
rounding.
"""

import numpy as np

from sim.jit.simd import (
    LANES,
    any_lane,
    lane,
    mask_lane,
    select,
    splat,
    vabs,
    vfloor,
    vld,
    vsqrt,
    vst,
    with_lane,
)
from sim.jit import njit

from .layout import (
    GEOM_PLANE,
    LIGHT_DIRECTIONAL,
    MINVAL,
    OI_TYPE,
    OI_TEXID,
    OF_EMISSION,
    OF_SPECULAR,
    OF_SHININESS,
    G_SIZE,
    G_RGBA,
    V_ZNEAR,
    V_ZFAR,
    V_EXTENT,
    O_SKYBOX,
    TI_NLEVEL,
    TI_LEVEL,
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
    VIEW_CAMERA,
    VW_EYE,
    VW_RIGHT,
    VW_UP,
    VW_FWD,
    VW_X0,
    VW_Y0,
    VW_SX,
    VW_SY,
    VW_ORTHO,
    VW_OCC,
    PT_VALID,
    PT_EX,
    PT_EY,
    PT_D0,
    PT_H,
    PT_A0,
    PT_B0,
    PT_A1,
    PT_B1,
    PK_OK,
    PK_T,
    PK_R,
    PK_TR,
    PK_BLEND,
    PK_LA,
    PK_LB,
    J_STACK,
    J_HK,
)
from .shade import SHADOW_EPS, _no_global, lit_in_map
from .texture import _blend4, fast_log2_vec
from .trace import EPS_Z


@njit(cache=True, fastmath=True)
def floor_ok(rm, fr, w, k):
    """True when object k, a camera tile's only (opaque) candidate, can be shaded by floor_tile: a plane seen by a
    perspective camera, untextured or with a 2-D texture (plane_texture_setup's constants made)."""
    if rm.obj_i[k, OI_TYPE] != GEOM_PLANE or fr.views[w, VIEW_CAMERA, VW_ORTHO] != 0:
        return False
    return rm.obj_i[k, OI_TEXID] < 0 or fr.ptex[w, k, PT_VALID] != 0


@njit(cache=True, fastmath=True, inline="always")
def _clamp(x):
    """shade._clamp lane by lane."""
    return select(x < 0.0, 0.0, select(x > 1.0, 1.0, x))


@njit(cache=True, fastmath=True, inline="always")
def _power(x, e):
    """shade.spec_power lane by lane (e the same for every lane)."""
    n = int(e)
    if n != e or n > 1024 or n < 0:
        r = x
        for q in range(LANES):
            r = with_lane(r, q, lane(x, q) ** e)
        return r
    r = splat(1.0)
    b = x
    while n > 0:
        if n & 1:
            r = r * b
        b = b * b
        n >>= 1
    return r


@njit(cache=True, fastmath=True, inline="always")
def _light_vec(lt, P0, P1, P2):
    """shade.light_vec lane by lane: unit vector to the light and attenuation times spot factor."""
    if lt[L_TYPE] == LIGHT_DIRECTIONAL:
        return splat(-lt[L_DIR]), splat(-lt[L_DIR + 1]), splat(-lt[L_DIR + 2]), splat(1.0)
    L0 = lt[L_POS] - P0
    L1 = lt[L_POS + 1] - P1
    L2 = lt[L_POS + 2] - P2
    dist = vsqrt(L0 * L0 + L1 * L1 + L2 * L2)
    inv = select(dist > 1e-300, 1.0 / dist, 1.0)
    L0 = L0 * inv
    L1 = L1 * inv
    L2 = L2 * inv
    den = lt[L_ATTEN] + lt[L_ATTEN + 1] * dist + lt[L_ATTEN + 2] * dist * dist
    att = select(den > 0.0, 1.0 / den, 1.0)
    if lt[L_COSCUT] > -1.5:
        c = -(L0 * lt[L_DIR] + L1 * lt[L_DIR + 1] + L2 * lt[L_DIR + 2])
        if lt[L_EXPONENT] != 0:
            att = att * _power(select(c > 0.0, c, 0.0), lt[L_EXPONENT])
        att = select(c < lt[L_COSCUT], 0.0, att)
    return L0, L1, L2, att


@njit(cache=True, fastmath=True, inline="always")
def _term(lt, L0, L1, L2, att, N, V0, V1, V2, rgb, spec, shin):
    """shade._term lane by lane: ambient + diffuse + specular of one light, times its attenuation."""
    nl = N[0] * L0 + N[1] * L1 + N[2] * L2
    front = nl > 0.0
    r = splat(lt[L_AMBIENT] * rgb[0])
    g = splat(lt[L_AMBIENT + 1] * rgb[1])
    b = splat(lt[L_AMBIENT + 2] * rgb[2])
    r = select(front, r + nl * lt[L_DIFFUSE] * rgb[0], r)
    g = select(front, g + nl * lt[L_DIFFUSE + 1] * rgb[1], g)
    b = select(front, b + nl * lt[L_DIFFUSE + 2] * rgb[2], b)
    if spec != 0:
        H0 = L0 + V0
        H1 = L1 + V1
        H2 = L2 + V2
        hn = H0 * H0 + H1 * H1 + H2 * H2
        nd = N[0] * H0 + N[1] * H1 + N[2] * H2
        on = front & (hn > 0.0) & (nd > 0.0)
        if shin > 8:
            on = on & (nd * nd * shin * shin > (shin - 8) * (shin - 8) * hn)
        nh = nd / vsqrt(hn)
        on = on & (shin * (1.0 - nh) < 8.0)
        if any_lane(on):
            sp = _power(nh, shin) * spec
            r = select(on, r + sp * lt[L_SPECULAR], r)
            g = select(on, g + sp * lt[L_SPECULAR + 1], g)
            b = select(on, b + sp * lt[L_SPECULAR + 2], b)
    return att * r, att * g, att * b


@njit(cache=True, fastmath=True, inline="always")
def _centres():
    """Pixel-centre offsets of the lanes (0.5, 1.5, ...): lane q of vector j of a row is pixel xa + j LANES + q."""
    offs = splat(0.5)
    for q in range(LANES):
        offs = with_lane(offs, q, q + 0.5)
    return offs


@njit(cache=True, fastmath=True, inline="always")
def _to_eye(e0, e1, e2, P0, P1, P2):
    """Unit vectors from the points P to the eye e (shade._unit of eye - P, lane by lane)."""
    V0 = e0 - P0
    V1 = e1 - P1
    V2 = e2 - P2
    vn = vsqrt(V0 * V0 + V1 * V1 + V2 * V2)
    return V0 / vn, V1 / vn, V2 / vn


@njit(cache=True, fastmath=True, inline="always")
def _ray(v, px, py):
    """view_ray's perspective direction for LANES pixel x-coordinates px (a Vec) on row py."""
    x = v[VW_X0] + px * v[VW_SX]
    y = v[VW_Y0] - py * v[VW_SY]
    return (
        v[VW_FWD] + x * v[VW_RIGHT] + y * v[VW_UP],
        v[VW_FWD + 1] + x * v[VW_RIGHT + 1] + y * v[VW_UP + 1],
        v[VW_FWD + 2] + x * v[VW_RIGHT + 2] + y * v[VW_UP + 2],
    )


@njit(cache=True, fastmath=True, inline="always")
def _mip_rows(rm, tid, lev, u, v, pk, row, j):
    """_bilinear's texel rows and weights (wrapped 2-D texture, level lev per lane) stored as pk[row..row+6]."""
    ti = rm.tex_i[tid]
    wv = splat(1.0)
    hv = splat(1.0)
    av = splat(0.0)
    for q in range(LANES):
        li = TI_LEVEL + 3 * int(lane(lev, q))
        av = with_lane(av, q, float(ti[li]))
        wv = with_lane(wv, q, float(ti[li + 1]))
        hv = with_lane(hv, q, float(ti[li + 2]))
    x = (u - vfloor(u)) * wv - 0.5
    y = (v - vfloor(v)) * hv - 0.5
    x = select(x < 0.0, x + wv, x)
    y = select(y < 0.0, y + hv, y)
    x0 = vfloor(x)
    y0 = vfloor(y)
    x0 = select(x0 > wv - 1.0, wv - 1.0, x0)
    y0 = select(y0 > hv - 1.0, hv - 1.0, y0)
    ax = x - x0
    ay = y - y0
    x1 = select(x0 + 1.0 < wv, x0 + 1.0, 0.0)
    y1 = select(y0 + 1.0 < hv, y0 + 1.0, 0.0)
    r0 = av + y0 * wv
    r1 = av + y1 * wv
    vst(pk[row], j, r0 + x0)
    vst(pk[row + 1], j, r0 + x1)
    vst(pk[row + 2], j, r1 + x0)
    vst(pk[row + 3], j, r1 + x1)
    vst(pk[row + 4], j, ax)
    vst(pk[row + 5], j, ay)


@njit(cache=True, fastmath=True)
def _row_regular(rm, fr, w, k, job, xa, n, py, skybox):
    """Vector pass over a tile row: the plane's hit (PK_OK, PK_T), the texture's mip levels, blend and texel
    addresses, and the lights without shadow maps plus ambient (PK_R.., before shade_opaque's clamp)."""
    v = fr.views[w, VIEW_CAMERA]
    pk = fr.jpkt[job]
    pos = fr.obj_pos[w, k]
    mat = fr.obj_mat[w, k]
    gk = fr.obj_g[w, k]
    s0 = gk[G_SIZE]
    s1 = gk[G_SIZE + 1]
    rgb = (gk[G_RGBA], gk[G_RGBA + 1], gk[G_RGBA + 2])
    f = rm.obj_f[k]
    spec = f[OF_SPECULAR]
    shin = f[OF_SHININESS] * 128.0
    emis = f[OF_EMISSION]
    N = (mat[2], mat[5], mat[8])
    e0, e1, e2 = v[VW_EYE], v[VW_EYE + 1], v[VW_EYE + 2]
    # to_local of the eye (shade's surface and geometry.hit_plane in the plane's frame)
    q0, q1, q2 = e0 - pos[0], e1 - pos[1], e2 - pos[2]
    lo0 = mat[0] * q0 + mat[3] * q1 + mat[6] * q2
    lo1 = mat[1] * q0 + mat[4] * q1 + mat[7] * q2
    lo2 = mat[2] * q0 + mat[5] * q1 + mat[8] * q2
    znear = rm.vis[V_ZNEAR]
    zfar = rm.vis[V_ZFAR]
    rad = 0.7 * zfar
    tid = rm.obj_i[k, OI_TEXID]
    pt = fr.ptex[w, k]
    nlev = float(rm.tex_i[tid, TI_NLEVEL]) if tid >= 0 else 1.0
    tw = float(rm.tex_i[tid, TI_LEVEL + 1]) if tid >= 0 else 1.0
    th = float(rm.tex_i[tid, TI_LEVEL + 2]) if tid >= 0 else 1.0
    nl = fr.nlight[w]
    offs = _centres()
    pyc = py + 0.5
    for j in range((n + LANES - 1) // LANES):
        px = offs + float(xa + j * LANES)
        d0, d1, d2 = _ray(v, px, pyc)
        # geometry.hit_plane through trace.nearest_in (tmin znear, tmax zfar); kernels.pixel_rgb's skybox test
        lv0 = mat[0] * d0 + mat[3] * d1 + mat[6] * d2
        lv1 = mat[1] * d0 + mat[4] * d1 + mat[7] * d2
        lv2 = mat[2] * d0 + mat[5] * d1 + mat[8] * d2
        t = -lo2 / lv2
        ok = (vabs(lv2) >= MINVAL) & (t >= znear) & (t <= zfar)
        if s0 > 0:
            ok = ok & (vabs(lo0 + t * lv0) <= s0)
        if s1 > 0:
            ok = ok & (vabs(lo1 + t * lv1) <= s1)
        if skybox:
            ok = ok & (t * t * (d0 * d0 + d1 * d1 + d2 * d2) <= rad * rad)
        vst(pk[PK_OK], j, select(ok, 1.0, 0.0))
        vst(pk[PK_T], j, t)
        # shade.surface
        P0 = e0 + t * d0
        P1 = e1 + t * d1
        P2 = e2 + t * d2
        if tid >= 0:
            # shade._camera_plane_texture, texture._lod and texture._trilinear's choice of levels
            lp0 = mat[0] * (P0 - pos[0]) + mat[3] * (P1 - pos[1]) + mat[6] * (P2 - pos[2])
            lp1 = mat[1] * (P0 - pos[0]) + mat[4] * (P1 - pos[1]) + mat[7] * (P2 - pos[2])
            l0 = pt[PT_D0] + px * pt[PT_EX] + pyc * pt[PT_EY]
            l1 = pt[PT_D0 + 1] + px * pt[PT_EX + 1] + pyc * pt[PT_EY + 1]
            l2 = pt[PT_D0 + 2] + px * pt[PT_EX + 2] + pyc * pt[PT_EY + 2]
            inv = 1.0 / l2
            fx = pt[PT_EX + 2] * inv
            fy = pt[PT_EY + 2] * inv
            tt = -pt[PT_H] * inv
            a0 = pt[PT_A0]
            a1 = pt[PT_A1]
            u = a0 * lp0 + pt[PT_B0]
            vv = a1 * lp1 + pt[PT_B1]
            du0 = a0 * tt * (pt[PT_EX] - l0 * fx)
            dv0 = a1 * tt * (pt[PT_EX + 1] - l1 * fx)
            du1 = a0 * tt * (pt[PT_EY] - l0 * fy)
            dv1 = a1 * tt * (pt[PT_EY + 1] - l1 * fy)
            ra = du0 * tw * (du0 * tw) + dv0 * th * (dv0 * th)
            rb = du1 * tw * (du1 * tw) + dv1 * th * (dv1 * th)
            rho2 = select(ra > rb, ra, rb)
            big = ok & (rho2 > 1.0)
            lod = select(big, 0.5 * fast_log2_vec(select(big, rho2, 2.0)), 0.0)
            fl = vfloor(lod)
            fr_ = lod - fl
            la = select(fr_ > 63.0 / 64, fl + 1.0, fl)
            g = select((fr_ >= 1.0 / 64) & (fr_ <= 63.0 / 64), fr_, 0.0)
            low = lod <= 0.0
            high = lod >= nlev - 1.0
            la = select(low, 0.0, select(high, nlev - 1.0, la))
            g = select(low | high, 0.0, g)
            vst(pk[PK_BLEND], j, g)
            _mip_rows(rm, tid, la, u, vv, pk, PK_LA, j)
            _mip_rows(rm, tid, select(la + 1.0 > nlev - 1.0, la, la + 1.0), u, vv, pk, PK_LB, j)
        # the lights without a shadow map (shade_opaque's regular pass)
        V0, V1, V2 = _to_eye(e0, e1, e2, P0, P1, P2)
        r = splat(emis * rgb[0])
        g_ = splat(emis * rgb[1])
        b = splat(emis * rgb[2])
        amb = 0.3
        for i in range(nl):
            lt = fr.lights[w, i]
            if lt[L_SUPPORTED] != 0:
                amb = 0.0
                if lt[L_SHADOWVIEW] < 0:
                    L0, L1, L2, att = _light_vec(lt, P0, P1, P2)
                    c = _term(lt, L0, L1, L2, att, N, V0, V1, V2, rgb, spec, shin)
                    r = r + select(att == 0.0, 0.0, c[0])
                    g_ = g_ + select(att == 0.0, 0.0, c[1])
                    b = b + select(att == 0.0, 0.0, c[2])
        vst(pk[PK_R], j, r + amb * rgb[0])
        vst(pk[PK_R + 1], j, g_ + amb * rgb[1])
        vst(pk[PK_R + 2], j, b + amb * rgb[2])


@njit(cache=True, fastmath=True, inline="always")
def _level_texel(tx, pk, row, i):
    """texture._bilinear's blend (float32 RGBA) of pixel i's texel rows and weights stored at pk[row..row+6]."""
    one = np.float32(1)
    bx = np.float32(pk[row + 4, i])
    by = np.float32(pk[row + 5, i])
    return _blend4(
        tx,
        int(pk[row, i]),
        int(pk[row + 1, i]),
        int(pk[row + 2, i]),
        int(pk[row + 3, i]),
        (one - bx) * (one - by),
        bx * (one - by),
        (one - bx) * by,
        bx * by,
    )


@njit(cache=True, fastmath=True)
def _row_texels(rm, k, pk, n):
    """Per pixel: texture._trilinear's fetches and blends from the addresses _row_regular stored (PK_TR..)."""
    tx = rm.texel
    for i in range(n):
        if pk[PK_OK, i] == 0:
            continue
        a = _level_texel(tx, pk, PK_LA, i)
        if pk[PK_BLEND, i] != 0:
            g = np.float32(pk[PK_BLEND, i])
            b = _level_texel(tx, pk, PK_LB, i)
            a = (a[0] + g * (b[0] - a[0]), a[1] + g * (b[1] - a[1]), a[2] + g * (b[2] - a[2]), a[3])
        pk[PK_TR, i] = float(a[0])
        pk[PK_TR + 1, i] = float(a[1])
        pk[PK_TR + 2, i] = float(a[2])


@njit(cache=True, fastmath=True)
def _row_shadowed(rm, fr, w, k, job, xa, n, py):
    """Vector pass over a tile row: the clamped, textured regular colour plus each shadow-casting light's term
    where its shadow map sees the point (shade_opaque's shadow passes); the colour back in PK_R.."""
    v = fr.views[w, VIEW_CAMERA]
    pk = fr.jpkt[job]
    stack = fr.jscr_i[job, J_STACK:J_HK]
    mat = fr.obj_mat[w, k]
    gk = fr.obj_g[w, k]
    rgb = (gk[G_RGBA], gk[G_RGBA + 1], gk[G_RGBA + 2])
    f = rm.obj_f[k]
    spec = f[OF_SPECULAR]
    shin = f[OF_SHININESS] * 128.0
    N = (mat[2], mat[5], mat[8])
    e0, e1, e2 = v[VW_EYE], v[VW_EYE + 1], v[VW_EYE + 2]
    eps = SHADOW_EPS * rm.vis[V_EXTENT]
    nl = fr.nlight[w]
    offs = _centres()
    pyc = py + 0.5
    for j in range((n + LANES - 1) // LANES):
        tr = vld(pk[PK_TR], j)
        tg = vld(pk[PK_TR + 1], j)
        tb = vld(pk[PK_TR + 2], j)
        r = _clamp(vld(pk[PK_R], j)) * tr
        g = _clamp(vld(pk[PK_R + 1], j)) * tg
        b = _clamp(vld(pk[PK_R + 2], j)) * tb
        px = offs + float(xa + j * LANES)
        d0, d1, d2 = _ray(v, px, pyc)
        t = vld(pk[PK_T], j)
        P0 = e0 + t * d0
        P1 = e1 + t * d1
        P2 = e2 + t * d2
        V0, V1, V2 = _to_eye(e0, e1, e2, P0, P1, P2)
        ok = vld(pk[PK_OK], j) != 0.0
        for i in range(nl):
            lt = fr.lights[w, i]
            vi = int(lt[L_SHADOWVIEW])
            if vi < 0:
                continue
            L0, L1, L2, att = _light_vec(lt, P0, P1, P2)
            # a plane is convex: a point facing away from the light is in its own shadow
            on = ok & (att != 0.0) & (N[0] * L0 + N[1] * L1 + N[2] * L2 > 0.0)
            if not any_lane(on):
                continue
            Q0 = P0 + eps * N[0]
            Q1 = P1 + eps * N[1]
            Q2 = P2 + eps * N[2]
            # shade.outside_occupied
            sv = fr.views[w, vi]
            known = on & (splat(0.0) != splat(0.0))
            if fr.tstart[w, vi, 0] >= 0 and _no_global(fr, w, vi, k):
                r0 = Q0 - sv[VW_EYE]
                r1 = Q1 - sv[VW_EYE + 1]
                r2 = Q2 - sv[VW_EYE + 2]
                x = r0 * sv[VW_RIGHT] + r1 * sv[VW_RIGHT + 1] + r2 * sv[VW_RIGHT + 2]
                y = r0 * sv[VW_UP] + r1 * sv[VW_UP + 1] + r2 * sv[VW_UP + 2]
                s = splat(1.0)
                behind = known
                if sv[VW_ORTHO] == 0:
                    s = r0 * sv[VW_FWD] + r1 * sv[VW_FWD + 1] + r2 * sv[VW_FWD + 2]
                    behind = s <= EPS_Z
                known = (
                    behind
                    | (x < s * sv[VW_OCC])
                    | (x > s * sv[VW_OCC + 1])
                    | (y < s * sv[VW_OCC + 2])
                    | (y > s * sv[VW_OCC + 3])
                )
            lit = select(known, 1.0, 0.0)
            need = on & ~known
            for q in range(min(LANES, n - j * LANES)):
                if mask_lane(need, q):
                    if not lit_in_map(rm, fr, w, vi, (lane(Q0, q), lane(Q1, q), lane(Q2, q)), k, stack):
                        lit = with_lane(lit, q, 0.0)
                    else:
                        lit = with_lane(lit, q, 1.0)
            use = on & (lit != 0.0)
            if not any_lane(use):
                continue
            c = _term(lt, L0, L1, L2, att, N, V0, V1, V2, rgb, spec, shin)
            r = r + select(use, _clamp(c[0]) * tr, 0.0)
            g = g + select(use, _clamp(c[1]) * tg, 0.0)
            b = b + select(use, _clamp(c[2]) * tb, 0.0)
        vst(pk[PK_R], j, r)
        vst(pk[PK_R + 1], j, g)
        vst(pk[PK_R + 2], j, b)


@njit(cache=True, fastmath=True)
def shade_row(rm, fr, w, k, job, xa, n, py):
    """Pixels [xa, xa + n) of row py of world w, in a tile whose only candidate is the plane k (floor_ok): PK_OK
    where the plane is seen (else kernels' general path shades the pixel), and there the depth PK_T and colour
    PK_R.. of shade_opaque but the reflection."""
    pk = fr.jpkt[job]
    textured = rm.obj_i[k, OI_TEXID] >= 0
    _row_regular(rm, fr, w, k, job, xa, n, py, fr.opt[O_SKYBOX] != 0)
    if textured:
        _row_texels(rm, k, pk, n)
    else:
        for c in range(3):
            for i in range(n):
                pk[PK_TR + c, i] = 1.0
    _row_shadowed(rm, fr, w, k, job, xa, n, py)
