"""Texture sampling as OpenGL does it for MuJoCo's textures: 2-D textures wrap (GL_REPEAT), cube and skybox
textures select a face by the major axis of the lookup vector (the GL cube-map table) and clamp to its edges;
both filter GL_LINEAR when magnified and GL_LINEAR_MIPMAP_LINEAR (trilinear over the mip pyramid built in
scene.build_textures) when minified, the level of detail coming from the texel footprint of one pixel.
"""

import math

import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from sim.jit.simd import LANES, vec, VecType
from sim.jit import njit

from .layout import TI_NLEVEL, TI_LEVEL, TI_ALPHA


@intrinsic
def _f64_bits(typingctx, x):
    """The IEEE-754 bits of a float64 as an int64."""

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.int64(types.float64), codegen


@intrinsic
def _bits_f64(typingctx, x):
    """The float64 with the IEEE-754 bits of an int64."""

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.int64), codegen


_F4 = ir.VectorType(ir.FloatType(), 4)


@intrinsic
def _blend4(typingctx, tx, i00, i10, i01, i11, w00, w10, w01, w11):
    """w00 tx[i00] + w10 tx[i10] + w01 tx[i01] + w11 tx[i11] over the four float32 channels of the RGBA texel
    rows at once (one <4 x float> per texel row, fast-math as the scalar expression, summed in its order)."""
    if not (isinstance(tx, types.Array) and tx.dtype == types.float32 and tx.ndim == 2 and tx.layout == "C"):
        return None  # rows of 4 float32 channels, contiguous
    f4 = types.UniTuple(types.float32, 4)

    def codegen(context, builder, sig, args):
        arr = context.make_array(sig.args[0])(context, builder, args[0])
        base = builder.bitcast(arr.data, _F4.as_pointer())
        acc = None
        for k in range(4):
            row = builder.load(builder.gep(base, [args[1 + k]]), align=4)
            wv = builder.insert_element(ir.Constant(_F4, None), args[5 + k], ir.Constant(ir.IntType(32), 0))
            wv = builder.shuffle_vector(
                wv, ir.Constant(_F4, None), ir.Constant(ir.VectorType(ir.IntType(32), 4), [0, 0, 0, 0])
            )
            term = builder.fmul(wv, row, flags=("fast",))
            acc = term if acc is None else builder.fadd(acc, term, flags=("fast",))
        vals = [builder.extract_element(acc, ir.Constant(ir.IntType(32), k)) for k in range(4)]
        return context.make_tuple(builder, f4, vals)

    sig = f4(tx, i00, i10, i01, i11, w00, w10, w01, w11)
    return sig, codegen


@njit(cache=True, fastmath=True)
def fast_log2(x):
    """log2 of a positive finite x to within 4e-5 (exponent bits plus a quintic on the mantissa in [1, 2)); the
    texture level of detail needs no more (a trilinear blend is continuous in it)."""
    b = _f64_bits(x)
    e = ((b >> 52) & 2047) - 1023
    m = _bits_f64((b & 0xFFFFFFFFFFFFF) | 0x3FF0000000000000)
    p = ((((0.04342891 * m - 0.40486717) * m + 1.5939014) * m - 3.4924943) * m + 5.046876) * m - 2.786813
    return e + p


_I64V = ir.VectorType(ir.IntType(64), LANES)


@intrinsic
def _exponent_mantissa(typingctx, x):
    """Lane-wise (unbiased exponent as a float, mantissa in [1, 2)) of the IEEE-754 bits of a positive Vec, as
    fast_log2 splits a float64."""
    if not isinstance(x, VecType):
        return None

    def codegen(context, builder, sig, args):
        b = builder.bitcast(args[0], _I64V)

        def splat(c):
            return ir.Constant(_I64V, [c] * LANES)

        e = builder.sub(builder.and_(builder.lshr(b, splat(52)), splat(2047)), splat(1023))
        m = builder.or_(builder.and_(b, splat(0xFFFFFFFFFFFFF)), splat(0x3FF0000000000000))
        out = context.make_tuple(
            builder, sig.return_type, [builder.sitofp(e, args[0].type), builder.bitcast(m, args[0].type)]
        )
        return out

    return types.UniTuple(vec, 2)(x), codegen


@njit(cache=True, fastmath=True, inline="always")
def fast_log2_vec(x):
    """fast_log2 lane by lane (a Vec of positive finite values)."""
    e, m = _exponent_mantissa(x)
    return e + (((((0.04342891 * m - 0.40486717) * m + 1.5939014) * m - 3.4924943) * m + 5.046876) * m - 2.786813)


@njit(cache=True, fastmath=True, inline="always")
def _bilinear(tx, adr, w, h, u, v, wrap):
    """Bilinear sample (float32 RGBA) of the w x h image starting at row adr of the RGBA texel rows tx,
    coordinates (u, v) (row 0 at v = 0), repeated (wrap) or clamped to the edges.  An RGB texture stores alpha
    1, so all four channels are read and blended together (one vector operation)."""
    if wrap:
        x = (u - math.floor(u)) * w - 0.5
        y = (v - math.floor(v)) * h - 0.5
        if x < 0:
            x += w
        if y < 0:
            y += h
        x0 = min(int(x), w - 1)
        y0 = min(int(y), h - 1)
        ax = x - x0
        ay = y - y0
        x1 = x0 + 1 if x0 + 1 < w else 0
        y1 = y0 + 1 if y0 + 1 < h else 0
    else:
        x = u * w - 0.5
        y = v * h - 0.5
        fx = math.floor(x)
        fy = math.floor(y)
        ax = x - fx
        ay = y - fy
        x0 = min(max(int(fx), 0), w - 1)
        y0 = min(max(int(fy), 0), h - 1)
        x1 = min(x0 + 1, w - 1) if fx >= 0 else 0
        y1 = min(y0 + 1, h - 1) if fy >= 0 else 0
    r0 = adr + y0 * w
    r1 = adr + y1 * w
    i00 = r0 + x0
    i10 = r0 + x1
    i01 = r1 + x0
    i11 = r1 + x1
    bx = np.float32(ax)
    by = np.float32(ay)
    w00 = (np.float32(1) - bx) * (np.float32(1) - by)
    w10 = bx * (np.float32(1) - by)
    w01 = (np.float32(1) - bx) * by
    w11 = bx * by
    return _blend4(tx, i00, i10, i01, i11, w00, w10, w01, w11)


@njit(cache=True, fastmath=True, inline="always")
def _level(rm, tid, lev, face, u, v, wrap):
    ti = rm.tex_i[tid]
    adr = ti[TI_LEVEL + 3 * lev]
    w = ti[TI_LEVEL + 3 * lev + 1]
    h = ti[TI_LEVEL + 3 * lev + 2]
    return _bilinear(rm.texel, adr + face * w * h, w, h, u, v, wrap)


@njit(cache=True, fastmath=True)
def _trilinear(rm, tid, face, u, v, lod, wrap):
    """GL_LINEAR_MIPMAP_LINEAR: the two levels around lod blended (float64 RGBA); one level when lod is outside
    the pyramid or within 1/64 of a level."""
    nlev = rm.tex_i[tid, TI_NLEVEL]
    blend = False
    g = np.float32(0)
    if lod <= 0.0:
        la = 0
    elif lod >= nlev - 1:
        la = nlev - 1
    else:
        la = int(math.floor(lod))
        f = lod - la
        if f > 63.0 / 64:
            la += 1
        elif f >= 1.0 / 64:
            blend = True
            g = np.float32(f)
    a = _level(rm, tid, la, face, u, v, wrap)
    if blend:
        b = _level(rm, tid, la + 1, face, u, v, wrap)
        a = (
            a[0] + g * (b[0] - a[0]),
            a[1] + g * (b[1] - a[1]),
            a[2] + g * (b[2] - a[2]),
            a[3] + g * (b[3] - a[3]),
        )
    return float(a[0]), float(a[1]), float(a[2]), (float(a[3]) if rm.tex_i[tid, TI_ALPHA] != 0 else 1.0)


@njit(cache=True, fastmath=True)
def cube_face(s, t, r):
    """GL cube-map face (0..5 = +X, -X, +Y, -Y, +Z, -Z), major-axis magnitude and face coordinates (sc, tc)."""
    ax, ay, az = abs(s), abs(t), abs(r)
    if ax >= ay and ax >= az:
        if s > 0:
            return 0, ax, -r, -t
        return 1, ax, r, -t
    if ay >= az:
        if t > 0:
            return 2, ay, s, r
        return 3, ay, s, -r
    if r > 0:
        return 4, az, s, -t
    return 5, az, -s, -t


@njit(cache=True, fastmath=True)
def _face_uv(face, s, t, r):
    """Face coordinates of (s, t, r) projected on `face` (continuous across its edges)."""
    if face == 0:
        ma, sc, tc = s, -r, -t
    elif face == 1:
        ma, sc, tc = -s, r, -t
    elif face == 2:
        ma, sc, tc = t, s, r
    elif face == 3:
        ma, sc, tc = -t, s, -r
    elif face == 4:
        ma, sc, tc = r, s, -t
    else:
        ma, sc, tc = -r, -s, -t
    if ma < 1e-300:
        ma = 1e-300
    return 0.5 * (sc / ma + 1), 0.5 * (tc / ma + 1)


@njit(cache=True, fastmath=True)
def _lod(du0, dv0, du1, dv1, w, h):
    """GL's level of detail: log2 of the longer texel-space footprint of a pixel step along x or y."""
    a = (du0 * w) ** 2 + (dv0 * h) ** 2
    b = (du1 * w) ** 2 + (dv1 * h) ** 2
    rho2 = a if a > b else b
    if rho2 <= 1.0:
        return 0.0
    return 0.5 * fast_log2(rho2)


@njit(cache=True, fastmath=True)
def _wrap_diff(x):
    """Difference of a periodic coordinate taken the short way round (azimuth-based u of spheres, cylinders)."""
    return x - math.floor(x + 0.5)


@njit(cache=True, fastmath=True)
def sample_2d_grad(rm, tid, u, v, du0, dv0, du1, dv1):
    """Trilinear 2-D sample at (u, v) with the coordinate steps of one pixel along x (du0, dv0) and y."""
    w = rm.tex_i[tid, TI_LEVEL + 1]
    h = rm.tex_i[tid, TI_LEVEL + 2]
    return _trilinear(rm, tid, 0, u, v, _lod(du0, dv0, du1, dv1, w, h), True)


@njit(cache=True, fastmath=True)
def sample_2d(rm, tid, uv, uvx, uvy, periodic_u):
    """Trilinear 2-D sample at uv with the footprint given by the neighbouring pixels' coordinates uvx, uvy."""
    w = rm.tex_i[tid, TI_LEVEL + 1]
    h = rm.tex_i[tid, TI_LEVEL + 2]
    du0 = uvx[0] - uv[0]
    du1 = uvy[0] - uv[0]
    if periodic_u:
        du0 = _wrap_diff(du0)
        du1 = _wrap_diff(du1)
    lod = _lod(du0, uvx[1] - uv[1], du1, uvy[1] - uv[1], w, h)
    return _trilinear(rm, tid, 0, uv[0], uv[1], lod, True)


@njit(cache=True, fastmath=True)
def sample_cube(rm, tid, c, cx, cy):
    """Trilinear cube-map sample for the lookup vector c with neighbouring pixels' vectors cx, cy."""
    face, _, _, _ = cube_face(c[0], c[1], c[2])
    u, v = _face_uv(face, c[0], c[1], c[2])
    ux, vx = _face_uv(face, cx[0], cx[1], cx[2])
    uy, vy = _face_uv(face, cy[0], cy[1], cy[2])
    w = rm.tex_i[tid, TI_LEVEL + 1]
    lod = _lod(ux - u, vx - v, uy - u, vy - v, w, w)
    return _trilinear(rm, tid, face, u, v, lod, False)


@njit(cache=True, fastmath=True)
def sample_cube_base(rm, tid, c):
    """Bilinear cube-map sample of level 0 (a magnified texture)."""
    face, _, _, _ = cube_face(c[0], c[1], c[2])
    u, v = _face_uv(face, c[0], c[1], c[2])
    a = _level(rm, tid, 0, face, u, v, False)
    return float(a[0]), float(a[1]), float(a[2]), (float(a[3]) if rm.tex_i[tid, TI_ALPHA] != 0 else 1.0)
