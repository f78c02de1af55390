"""Small quaternion / spatial helpers on float tuples and array rows (MuJoCo engine_util_spatial).

The helpers the block kernels share (sim/jit/simd.py) take floats or Vecs: their state-dependent short-cuts are
taken when every lane (one world: the one value) takes them, otherwise both sides are computed and `where` picks
per lane, so each lane gets the scalar function's exact result.
"""

import math
from sim.jit import njit
from sim.jit.simd import where, any_true, all_true
from sim.constants import MINVAL  # mjMINVAL


@njit(cache=True)
def normalize4(q0, q1, q2, q3):
    """Normalised quaternion tuple (4,), as mju_normalize4 (unit quat if norm < mjMINVAL)."""
    n = math.sqrt(q0 * q0 + q1 * q1 + q2 * q2 + q3 * q3)
    tiny = n < MINVAL
    if all_true(tiny):
        return 1.0, 0.0, 0.0, 0.0
    r0, r1, r2, r3 = q0, q1, q2, q3
    scale = abs(n - 1.0) > MINVAL
    if any_true(scale):
        inv = 1.0 / n
        r0 = where(scale, q0 * inv, q0)
        r1 = where(scale, q1 * inv, q1)
        r2 = where(scale, q2 * inv, q2)
        r3 = where(scale, q3 * inv, q3)
    return where(tiny, 1.0, r0), where(tiny, 0.0, r1), where(tiny, 0.0, r2), where(tiny, 0.0, r3)


@njit(cache=True)
def normalize3(v0, v1, v2):
    """(unit vector (3,), norm) as mju_normalize3 ((1,0,0) if norm < mjMINVAL)."""
    n = math.sqrt(v0 * v0 + v1 * v1 + v2 * v2)
    tiny = n < MINVAL
    if all_true(tiny):
        return 1.0, 0.0, 0.0, n
    inv = 1.0 / n
    return where(tiny, 1.0, v0 * inv), where(tiny, 0.0, v1 * inv), where(tiny, 0.0, v2 * inv), n


@njit(cache=True)
def mul_quat(a0, a1, a2, a3, b0, b1, b2, b3):
    """Quaternion product a*b (4,), mju_mulQuat."""
    return (
        a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3,
        a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2,
        a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1,
        a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0,
    )


@njit(cache=True)
def rot_vec_quat(v0, v1, v2, q0, q1, q2, q3):
    """Rotate vector (3,) by quaternion, mju_rotVecQuat (same special cases)."""
    zero = (v0 == 0.0) & (v1 == 0.0) & (v2 == 0.0)
    if all_true(zero):
        return 0.0, 0.0, 0.0
    ident = (q0 == 1.0) & (q1 == 0.0) & (q2 == 0.0) & (q3 == 0.0)
    if all_true(ident):
        return v0, v1, v2
    t0 = q0 * v0 + q2 * v2 - q3 * v1
    t1 = q0 * v1 + q3 * v0 - q1 * v2
    t2 = q0 * v2 + q1 * v1 - q2 * v0
    r0 = where(ident, v0, v0 + 2.0 * (q2 * t2 - q3 * t1))
    r1 = where(ident, v1, v1 + 2.0 * (q3 * t0 - q1 * t2))
    r2 = where(ident, v2, v2 + 2.0 * (q1 * t1 - q2 * t0))
    return where(zero, 0.0, r0), where(zero, 0.0, r1), where(zero, 0.0, r2)


@njit(cache=True)
def axis_angle_quat(a0, a1, a2, angle):
    """Quaternion (4,) for rotation by angle about unit axis, mju_axisAngle2Quat."""
    z = angle == 0.0
    if all_true(z):
        return 1.0, 0.0, 0.0, 0.0
    s = math.sin(angle * 0.5)
    c = math.cos(angle * 0.5)
    return where(z, 1.0, c), where(z, 0.0, a0 * s), where(z, 0.0, a1 * s), where(z, 0.0, a2 * s)


@njit(cache=True)
def quat2mat(out, q0, q1, q2, q3):
    """Write 3x3 rotation (9,) of quaternion into out, mju_quat2Mat."""
    ident = (q0 == 1.0) & (q1 == 0.0) & (q2 == 0.0) & (q3 == 0.0)
    if all_true(ident):
        out[0] = 1.0
        out[1] = 0.0
        out[2] = 0.0
        out[3] = 0.0
        out[4] = 1.0
        out[5] = 0.0
        out[6] = 0.0
        out[7] = 0.0
        out[8] = 1.0
        return
    q00 = q0 * q0
    q01 = q0 * q1
    q02 = q0 * q2
    q03 = q0 * q3
    q11 = q1 * q1
    q12 = q1 * q2
    q13 = q1 * q3
    q22 = q2 * q2
    q23 = q2 * q3
    q33 = q3 * q3
    out[0] = where(ident, 1.0, q00 + q11 - q22 - q33)
    out[4] = where(ident, 1.0, q00 - q11 + q22 - q33)
    out[8] = where(ident, 1.0, q00 - q11 - q22 + q33)
    out[1] = where(ident, 0.0, 2.0 * (q12 - q03))
    out[2] = where(ident, 0.0, 2.0 * (q13 + q02))
    out[3] = where(ident, 0.0, 2.0 * (q12 + q03))
    out[5] = where(ident, 0.0, 2.0 * (q23 - q01))
    out[6] = where(ident, 0.0, 2.0 * (q13 - q02))
    out[7] = where(ident, 0.0, 2.0 * (q23 + q01))


@njit(cache=True)
def mat_vec3(mat, v0, v1, v2):
    """mat (9,) times vector (3,)."""
    return (
        mat[0] * v0 + mat[1] * v1 + mat[2] * v2,
        mat[3] * v0 + mat[4] * v1 + mat[5] * v2,
        mat[6] * v0 + mat[7] * v1 + mat[8] * v2,
    )


@njit(cache=True)
def mat_t_vec3(mat, v0, v1, v2):
    """mat (9,) transposed times vector (3,)."""
    return (
        mat[0] * v0 + mat[3] * v1 + mat[6] * v2,
        mat[1] * v0 + mat[4] * v1 + mat[7] * v2,
        mat[2] * v0 + mat[5] * v1 + mat[8] * v2,
    )


@njit(cache=True)
def cross(a0, a1, a2, b0, b1, b2):
    """Cross product (3,)."""
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


@njit(cache=True)
def quat2vel(q0, q1, q2, q3, dt):
    """Angular velocity (3,) of quaternion over dt, mju_quat2Vel."""
    a0, a1, a2, s = normalize3(q1, q2, q3)
    speed = 2.0 * math.atan2(s, q0)
    if speed > math.pi:
        speed -= 2.0 * math.pi
    speed /= dt
    return a0 * speed, a1 * speed, a2 * speed


@njit(cache=True)
def sub_quat(a0, a1, a2, a3, b0, b1, b2, b3):
    """3D velocity res with qb*quat(res) = qa, mju_subQuat."""
    d0, d1, d2, d3 = mul_quat(b0, -b1, -b2, -b3, a0, a1, a2, a3)
    return quat2vel(d0, d1, d2, d3, 1.0)


@njit(cache=True)
def quat_integrate(q, v0, v1, v2, scale):
    """In-place quaternion row q (4,) integrated by angular velocity*scale, mju_quatIntegrate."""
    a0, a1, a2, n = normalize3(v0, v1, v2)
    r0, r1, r2, r3 = axis_angle_quat(a0, a1, a2, scale * n)
    p0, p1, p2, p3 = normalize4(q[0], q[1], q[2], q[3])
    o0, o1, o2, o3 = mul_quat(p0, p1, p2, p3, r0, r1, r2, r3)
    q[0] = o0
    q[1] = o1
    q[2] = o2
    q[3] = o3


@njit(cache=True)
def cross_motion(out, v, x):
    """out (6,) = v x x for motion vectors, mju_crossMotion."""
    out[0] = -v[2] * x[1] + v[1] * x[2]
    out[1] = v[2] * x[0] - v[0] * x[2]
    out[2] = -v[1] * x[0] + v[0] * x[1]
    out[3] = -v[2] * x[4] + v[1] * x[5]
    out[4] = v[2] * x[3] - v[0] * x[5]
    out[5] = -v[1] * x[3] + v[0] * x[4]
    out[3] += -v[5] * x[1] + v[4] * x[2]
    out[4] += v[5] * x[0] - v[3] * x[2]
    out[5] += -v[4] * x[0] + v[3] * x[1]


@njit(cache=True)
def cross_force_add(out, v, f):
    """out (6,) += v x* f for force vectors, mju_crossForce."""
    r0 = -v[2] * f[1] + v[1] * f[2]
    r1 = v[2] * f[0] - v[0] * f[2]
    r2 = -v[1] * f[0] + v[0] * f[1]
    r3 = -v[2] * f[4] + v[1] * f[5]
    r4 = v[2] * f[3] - v[0] * f[5]
    r5 = -v[1] * f[3] + v[0] * f[4]
    r0 += -v[5] * f[4] + v[4] * f[5]
    r1 += v[5] * f[3] - v[3] * f[5]
    r2 += -v[4] * f[3] + v[3] * f[4]
    out[0] += r0
    out[1] += r1
    out[2] += r2
    out[3] += r3
    out[4] += r4
    out[5] += r5


@njit(cache=True)
def mul_inert_vec(i, v):
    """6D inertia (10,) times motion vector (6,) -> tuple (6,), mju_mulInertVec."""
    return (
        i[0] * v[0] + i[3] * v[1] + i[4] * v[2] - i[8] * v[4] + i[7] * v[5],
        i[3] * v[0] + i[1] * v[1] + i[5] * v[2] + i[8] * v[3] - i[6] * v[5],
        i[4] * v[0] + i[5] * v[1] + i[2] * v[2] - i[7] * v[3] + i[6] * v[4],
        i[8] * v[1] - i[7] * v[2] + i[9] * v[3],
        i[6] * v[2] - i[8] * v[0] + i[9] * v[4],
        i[7] * v[0] - i[6] * v[1] + i[9] * v[5],
    )


@njit(cache=True)
def poly_force(linear, p0, p1, x, odd):
    """Polynomial force coefficient with mjNPOLY=2 terms, mju_polyForce."""
    if odd:
        x = abs(x)
    xp = x
    res = linear + p0 * xp
    xp *= x
    return res + p1 * xp


@njit(cache=True)
def d_poly_force(linear, p0, p1, x, odd):
    """Derivative of x*poly_force wrt x, mjd_xPolyForce."""
    if odd:
        x = abs(x)
    xp = x
    res = linear + 2.0 * p0 * xp
    xp *= x
    return res + 3.0 * p1 * xp


@njit(cache=True)
def add_to_scl_sparse_inc(dst, dcol, dadr, dnnz, src, scol, sadr, snnz, scl):
    """dst[dadr:dadr+dnnz] += scl * src[sadr:sadr+snnz] on matching column indices (both sorted); source
    entries outside the destination's pattern are dropped (mju_addToSclSparseInc)."""
    a = 0
    b = 0
    while a < snnz and b < dnnz:
        cs = scol[sadr + a]
        cd = dcol[dadr + b]
        if cs == cd:
            dst[dadr + b] += scl * src[sadr + a]
            a += 1
            b += 1
        elif cs < cd:
            a += 1
        else:
            b += 1
