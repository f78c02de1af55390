"""Frame, orientation and inertia math of MuJoCo's user code (user_util.cc: mjuu_*), in numpy float64: the
compiler's, the MJCF reader's (URDF import, model composition) and the renderer's (sim.render's tendon capsules).
Each function rounds as its mjuu_ original (the order of its sums and products), bit for bit.
"""

import math

import numpy as np

EPS = 1e-14  # mjEPS
EIG_EPS = 1e-12
EIG_TOL_BODY = 4e-15  # mjuu_eig3 tolerance of the body-inertia callers in 3.17
EIG_TOL_MESH = 1e-7  # mjuu_eig3 tolerance of mjCMesh::Process in 3.17


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


def _mulmat(a, b):
    return [sum(a[3 * i + k] * b[3 * k + j] for k in range(3)) for i in range(3) for j in range(3)]


def eig3(mat, tol=EIG_TOL_BODY):
    """Eigen-decomposition of a symmetric 3x3 (row-major list of 9) by MuJoCo 3.17's quaternion Jacobi
    (mjuu_eig3(eigval, eigvec, quat, mat, tol); the 3.17 binary differs from the older source snapshot).

    Returns (eigval (3,) decreasing, quat (4,)) where quat rotates the principal frame into the input frame.
    3.17's rules (read from the 3.17 library and checked bit for bit against it on random matrices):
    the iteration stops when the largest off-diagonal entry is <= max(tol, 4e-15) * max|mat_ij| (no cosine
    exit); each Jacobi rotation is the quaternion (cos, sin) of the half angle built from the tangent
    t = tan(angle): h = t / (1 + sqrt(1 + t^2)), cos = 1 / sqrt(1 + h^2), sin = h cos; the product is
    normalised twice (mjuu_mulquat, then mjuu_normvec); eigenvalues are sorted with the margin
    max(1e-12, tol) * max|mat_ij|.  Callers: mesh principal frame tol = 1e-7 (EIG_TOL_MESH), body inertia
    (fullinertia, geom sums) tol = 4e-15 (EIG_TOL_BODY).
    """
    mat = [float(x) for x in mat]
    scale = 0.0
    for x in mat:
        scale = max(abs(x), scale)
    thresh = max(tol, 4e-15) * scale
    quat = np.array([1.0, 0.0, 0.0, 0.0])
    eigval = np.zeros(3)
    for _ in range(500):
        ev = quat2mat(quat).reshape(9).tolist()
        evt = [ev[0], ev[3], ev[6], ev[1], ev[4], ev[7], ev[2], ev[5], ev[8]]
        d = _mulmat(_mulmat(evt, mat), ev)
        eigval[:] = (d[0], d[4], d[8])
        if abs(d[1]) > abs(d[2]) and abs(d[1]) > abs(d[5]):
            rk, ck, rotk = 0, 1, 2
        elif abs(d[2]) > abs(d[5]):
            rk, ck, rotk = 0, 2, 1
        else:
            rk, ck, rotk = 1, 2, 0
        off = d[3 * rk + ck]
        if abs(off) <= thresh:
            break
        tau = (d[4 * ck] - d[4 * rk]) / (2 * off)
        if tau >= 0:
            t = 1.0 / (tau + math.sqrt(tau * tau + 1))
        else:
            t = -1.0 / (math.sqrt(tau * tau + 1) - tau)
        h = t / (math.sqrt(t * t + 1) + 1)  # tan of the half angle
        c = 1.0 / math.sqrt(h * h + 1)
        rot = np.zeros(4)
        rot[0] = c
        rot[rotk + 1] = (h if rotk == 1 else -h) * c
        quat = mulquat(quat, rot)
        normvec(quat)
    # sort eigenvalues in decreasing order (bubble sort over pairs 0,1,0), rotating the frame along
    eps = max(EIG_EPS, tol) * scale
    for j in range(3):
        j1 = j % 2
        if eigval[j1] + eps < eigval[j1 + 1]:
            eigval[j1], eigval[j1 + 1] = eigval[j1 + 1], eigval[j1]
            rot = np.zeros(4)
            rot[0] = 0.707106781186548
            rot[(j1 + 2) % 3 + 1] = rot[0]
            quat = mulquat(quat, rot)
            normvec(quat)
    return eigval, quat


def full_inertia(full6):
    """Principal inertia and frame quaternion of a full inertia (xx, yy, zz, xy, xz, yz) (mjuu_fullInertia).

    Returns (inertia (3,), quat (4,), error message or None).
    """
    f = full6
    eigval, quat = eig3([f[0], f[3], f[4], f[3], f[1], f[5], f[4], f[5], f[2]])
    if eigval[2] < 1e-14:
        return eigval, quat, "inertia must have positive eigenvalues"
    return eigval, quat, None
