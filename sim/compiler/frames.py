"""Frame and orientation math used by the compiler (pure numpy, float64), as MuJoCo's user_util."""

import math

import numpy as np

EPS = 1e-14  # mjEPS


def normvec(v):
    """Normalise v in place unless its norm is within EPS of 1 (mjuu_normvec); returns the old norm."""
    nrm = 0.0
    for x in v:  # sequential sum as in C (np.dot rounds differently in ~20% of cases)
        nrm += float(x) * float(x)
    if nrm < EPS:
        return 0.0
    nrm = math.sqrt(nrm)
    if abs(nrm - 1.0) > EPS:
        v /= nrm
    return nrm


def mulquat(a, b, normalize=True):
    """Quaternion product a*b (w, x, y, z): normalised as the compiler's mjuu_mulquat, or raw as the engine's
    mju_mulQuat (normalize=False)."""
    q = np.array(
        [
            a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
            a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
            a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
            a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
        ]
    )
    if normalize:
        normvec(q)
    return q


def negquat(q):
    return np.array([q[0], -q[1], -q[2], -q[3]])


def quat2mat(q):
    """Rotation matrices (..., 3, 3) of unit quaternions q (..., 4) (mjuu_quat2mat, mju_quat2Mat); a single
    quaternion (1, 0, 0, 0) gives the exact identity, as both do."""
    q = np.asarray(q)
    if q.ndim == 1 and q[0] == 1 and q[1] == 0 and q[2] == 0 and q[3] == 0:
        return np.eye(3)
    q0, q1, q2, q3 = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    q00, q01, q02, q03 = q0 * q0, q0 * q1, q0 * q2, q0 * q3
    q11, q12, q13 = q1 * q1, q1 * q2, q1 * q3
    q22, q23, q33 = q2 * q2, q2 * q3, q3 * q3
    mat = np.stack(
        [
            q00 + q11 - q22 - q33,
            2 * (q12 - q03),
            2 * (q13 + q02),
            2 * (q12 + q03),
            q00 - q11 + q22 - q33,
            2 * (q23 - q01),
            2 * (q13 - q02),
            2 * (q23 + q01),
            q00 - q11 - q22 + q33,
        ],
        axis=-1,
    )
    return mat.reshape(q.shape[:-1] + (3, 3))


def matvec(mat, v):
    """mat @ v written out as mjuu_mulvecmat (same rounding)."""
    return np.array(
        [
            mat[0][0] * v[0] + mat[0][1] * v[1] + mat[0][2] * v[2],
            mat[1][0] * v[0] + mat[1][1] * v[1] + mat[1][2] * v[2],
            mat[2][0] * v[0] + mat[2][1] * v[1] + mat[2][2] * v[2],
        ]
    )


def rotvec(q, v):
    """Rotate vector v by quaternion q (mjuu_rotVecQuat)."""
    v = np.asarray(v, dtype=np.float64)
    if v[0] == 0 and v[1] == 0 and v[2] == 0:
        return np.zeros(3)
    if q[0] == 1 and q[1] == 0 and q[2] == 0 and q[3] == 0:
        return v.copy()
    t = np.array(
        [
            q[0] * v[0] + q[2] * v[2] - q[3] * v[1],
            q[0] * v[1] + q[3] * v[0] - q[1] * v[2],
            q[0] * v[2] + q[1] * v[1] - q[2] * v[0],
        ]
    )
    return np.array(
        [
            v[0] + 2 * (q[2] * t[2] - q[3] * t[1]),
            v[1] + 2 * (q[3] * t[0] - q[1] * t[2]),
            v[2] + 2 * (q[1] * t[1] - q[2] * t[0]),
        ]
    )


def frameaccum(pos, quat, childpos, childquat):
    """Compose (pos, quat) with a child frame: returns the child's pose in the parent's frame (mjuu_frameaccum)."""
    newpos = np.asarray(pos, dtype=np.float64) + matvec(quat2mat(quat), childpos)
    return newpos, mulquat(quat, childquat)


def frameinvert(pos, quat):
    """Inverse of a frame transformation (mjuu_frameinvert)."""
    q = negquat(quat)
    return -matvec(quat2mat(q), pos), q


def frame2quat(x, y, z):
    """Quaternion of the frame whose axes are x, y, z (matrix columns), as mjuu_frame2quat."""
    m = (x, y, z)
    q = np.zeros(4)
    if m[0][0] + m[1][1] + m[2][2] > 0:
        q[0] = 0.5 * math.sqrt(1 + m[0][0] + m[1][1] + m[2][2])
        q[1] = 0.25 * (m[1][2] - m[2][1]) / q[0]
        q[2] = 0.25 * (m[2][0] - m[0][2]) / q[0]
        q[3] = 0.25 * (m[0][1] - m[1][0]) / q[0]
    elif m[0][0] > m[1][1] and m[0][0] > m[2][2]:
        q[1] = 0.5 * math.sqrt(1 + m[0][0] - m[1][1] - m[2][2])
        q[0] = 0.25 * (m[1][2] - m[2][1]) / q[1]
        q[2] = 0.25 * (m[1][0] + m[0][1]) / q[1]
        q[3] = 0.25 * (m[2][0] + m[0][2]) / q[1]
    elif m[1][1] > m[2][2]:
        q[2] = 0.5 * math.sqrt(1 - m[0][0] + m[1][1] - m[2][2])
        q[0] = 0.25 * (m[2][0] - m[0][2]) / q[2]
        q[1] = 0.25 * (m[1][0] + m[0][1]) / q[2]
        q[3] = 0.25 * (m[2][1] + m[1][2]) / q[2]
    else:
        q[3] = 0.5 * math.sqrt(1 - m[0][0] - m[1][1] + m[2][2])
        q[0] = 0.25 * (m[0][1] - m[1][0]) / q[3]
        q[1] = 0.25 * (m[2][0] + m[0][2]) / q[3]
        q[2] = 0.25 * (m[2][1] + m[1][2]) / q[3]
    normvec(q)
    return q


def z2quat(vec):
    """Quaternion rotating (0,0,1) onto the unit vector `vec` (mjuu_z2quat)."""
    q = np.zeros(4)
    q[1:] = np.cross([0.0, 0.0, 1.0], vec)
    s = normvec(q[1:])
    if s < 1e-10:
        q[1:] = (1.0, 0.0, 0.0)
    ang = math.atan2(s, vec[2])
    q[0] = math.cos(ang / 2)
    q[1:] *= math.sin(ang / 2)
    return q


ALTERNATIVES = ("quat", "axisangle", "xyaxes", "zaxis", "euler")


def orientation(el, degree, eulerseq, names=ALTERNATIVES, normalize=True):
    """Resolve an element's orientation attributes into a quaternion (MuJoCo's ResolveOrientation).

    `names` are the attribute names for (quat, axisangle, xyaxes, zaxis, euler) on this element.
    At most one may be given.  A quat is normalised unless normalize=False: ResolveOrientation leaves it as
    written, and frames, sites and cameras compose it with their enclosing frame before normalising (the
    product then rounds differently from the product with the normalised quat).
    """
    given = [n for n in names if n in el.raw]
    if len(given) > 1:
        raise el.error(f"orientation given more than once ({', '.join(given)})", given[1])
    # an alternative set in a default class also counts when the element itself sets none
    if not given:
        given = [n for n in names if el.has(n)][:1]
    kind = given[0] if given else names[0]
    if kind == names[0]:
        q = np.array(el.get(names[0], np.array([1.0, 0, 0, 0])), dtype=np.float64)
        qn = q.copy()
        if normvec(qn) < EPS:
            raise el.error("quaternion is zero", kind)
        return qn if normalize else q
    if kind == names[1]:
        aa = np.array(el.get(kind), dtype=np.float64)
        if degree:
            aa[3] = aa[3] / 180.0 * math.pi
        if normvec(aa[:3]) < EPS:
            raise el.error("axisangle too small", kind)
        h = aa[3] / 2
        return np.array([math.cos(h), math.sin(h) * aa[0], math.sin(h) * aa[1], math.sin(h) * aa[2]])
    if kind == names[2]:
        xy = np.array(el.get(kind), dtype=np.float64)
        x, y = xy[:3], xy[3:]
        if normvec(x) < EPS:
            raise el.error("xaxis too small", kind)
        y -= x * (float(x[0]) * float(y[0]) + float(x[1]) * float(y[1]) + float(x[2]) * float(y[2]))  # mjuu_dot3
        if normvec(y) < EPS:
            raise el.error("yaxis too small", kind)
        z = np.cross(x, y)
        if normvec(z) < EPS:
            raise el.error("cross(xaxis, yaxis) too small", kind)
        return frame2quat(x, y, z)
    if kind == names[3]:
        z = np.array(el.get(kind), dtype=np.float64)
        if normvec(z) < EPS:
            raise el.error("zaxis too small", kind)
        return z2quat(z)
    eul = np.array(el.get(kind), dtype=np.float64)
    if degree:
        eul = eul / 180.0 * math.pi
    if any(c not in "xyzXYZ" for c in eulerseq):  # <compiler eulerseq> is checked where it is used (MuJoCo)
        raise el.error("euler sequence can only contain x, y, z, X, Y, Z (compiler eulerseq)", kind)
    return euler2quat(eul, eulerseq)


def euler2quat(eul, eulerseq):
    """Unit quaternion of Euler angles in radians; eulerseq: lower case axes rotate with the frame (intrinsic),
    upper case axes stay fixed (extrinsic), as MuJoCo's ResolveOrientation."""
    q = np.array([1.0, 0, 0, 0])
    for i in range(3):
        c = eulerseq[i]
        r = np.array([math.cos(eul[i] / 2), 0.0, 0.0, 0.0])
        r["xyz".index(c.lower()) + 1] = math.sin(eul[i] / 2)
        q = mulquat(q, r) if c.islower() else mulquat(r, q)
    normvec(q)
    return q
