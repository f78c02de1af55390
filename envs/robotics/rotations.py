"""Rotation conventions of Gymnasium-Robotics' tasks, batched over a leading axis (numpy, float64).

Quaternions are (w, x, y, z) as MuJoCo's; Euler angles are the static-frame x-y-z ("sxyz") angles that
gymnasium_robotics.utils.rotations uses for the Fetch object's orientation and the Shadow Hand's goals.  Every
function takes arrays of shape (..., 4), (..., 3) or (..., 3, 3) and computes element-wise, with the same formulas
(so the same numbers) as those helpers.
"""

import itertools

import numpy as np

_EPS4 = np.finfo(np.float64).eps * 4.0


def quat_mul(q0, q1):
    """Hamilton product q0 q1, (..., 4)."""
    q0, q1 = np.asarray(q0, np.float64), np.asarray(q1, np.float64)
    w0, x0, y0, z0 = q0[..., 0], q0[..., 1], q0[..., 2], q0[..., 3]
    w1, x1, y1, z1 = q1[..., 0], q1[..., 1], q1[..., 2], q1[..., 3]
    return np.stack(
        [
            w0 * w1 - x0 * x1 - y0 * y1 - z0 * z1,
            w0 * x1 + x0 * w1 + y0 * z1 - z0 * y1,
            w0 * y1 + y0 * w1 + z0 * x1 - x0 * z1,
            w0 * z1 + z0 * w1 + x0 * y1 - y0 * x1,
        ],
        axis=-1,
    )


def quat_conjugate(q):
    """(w, -x, -y, -z), (..., 4)."""
    out = -np.asarray(q, np.float64)
    out[..., 0] *= -1
    return out


def quat_from_angle_and_axis(angle, axis):
    """Unit quaternion of a rotation by angle (...,) about axis (..., 3) (normalised first)."""
    angle = np.asarray(angle, np.float64)
    axis = np.asarray(axis, np.float64)
    axis = axis / np.linalg.norm(axis, axis=-1, keepdims=True)
    q = np.concatenate([np.cos(angle / 2.0)[..., None], np.sin(angle / 2.0)[..., None] * axis], axis=-1)
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def quat2mat(q):
    """Rotation matrix (..., 3, 3) of a quaternion (..., 4), normalised on the fly (identity for a zero one)."""
    q = np.asarray(q, np.float64)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    n = np.sum(q * q, axis=-1)
    s = 2.0 / n
    X, Y, Z = x * s, y * s, z * s
    wX, wY, wZ = w * X, w * Y, w * Z
    xX, xY, xZ = x * X, x * Y, x * Z
    yY, yZ, zZ = y * Y, y * Z, z * Z
    mat = np.empty(q.shape[:-1] + (3, 3))
    mat[..., 0, 0] = 1.0 - (yY + zZ)
    mat[..., 0, 1] = xY - wZ
    mat[..., 0, 2] = xZ + wY
    mat[..., 1, 0] = xY + wZ
    mat[..., 1, 1] = 1.0 - (xX + zZ)
    mat[..., 1, 2] = yZ - wX
    mat[..., 2, 0] = xZ - wY
    mat[..., 2, 1] = yZ + wX
    mat[..., 2, 2] = 1.0 - (xX + yY)
    return np.where((n > np.finfo(np.float64).eps)[..., None, None], mat, np.eye(3))


def mat2euler(mat):
    """sxyz Euler angles (..., 3) of rotation matrices (..., 3, 3)."""
    mat = np.asarray(mat, np.float64)
    cy = np.sqrt(mat[..., 2, 2] * mat[..., 2, 2] + mat[..., 1, 2] * mat[..., 1, 2])
    ok = cy > _EPS4
    e = np.empty(mat.shape[:-1])
    e[..., 2] = np.where(ok, -np.arctan2(mat[..., 0, 1], mat[..., 0, 0]), -np.arctan2(-mat[..., 1, 0], mat[..., 1, 1]))
    e[..., 1] = -np.arctan2(-mat[..., 0, 2], cy)
    e[..., 0] = np.where(ok, -np.arctan2(mat[..., 1, 2], mat[..., 2, 2]), 0.0)
    return e


def euler2mat(euler):
    """Rotation matrices (..., 3, 3) of sxyz Euler angles (..., 3)."""
    euler = np.asarray(euler, np.float64)
    ai, aj, ak = -euler[..., 2], -euler[..., 1], -euler[..., 0]
    si, sj, sk = np.sin(ai), np.sin(aj), np.sin(ak)
    ci, cj, ck = np.cos(ai), np.cos(aj), np.cos(ak)
    cc, cs, sc, ss = ci * ck, ci * sk, si * ck, si * sk
    mat = np.empty(euler.shape[:-1] + (3, 3))
    mat[..., 2, 2] = cj * ck
    mat[..., 2, 1] = sj * sc - cs
    mat[..., 2, 0] = sj * cc + ss
    mat[..., 1, 2] = cj * sk
    mat[..., 1, 1] = sj * ss + cc
    mat[..., 1, 0] = sj * cs - sc
    mat[..., 0, 2] = -sj
    mat[..., 0, 1] = cj * si
    mat[..., 0, 0] = cj * ci
    return mat


def euler2quat(euler):
    """Quaternions (..., 4) of sxyz Euler angles (..., 3)."""
    euler = np.asarray(euler, np.float64)
    ai, aj, ak = euler[..., 2] / 2, -euler[..., 1] / 2, euler[..., 0] / 2
    si, sj, sk = np.sin(ai), np.sin(aj), np.sin(ak)
    ci, cj, ck = np.cos(ai), np.cos(aj), np.cos(ak)
    cc, cs, sc, ss = ci * ck, ci * sk, si * ck, si * sk
    q = np.empty(euler.shape[:-1] + (4,))
    q[..., 0] = cj * cc + sj * ss
    q[..., 3] = cj * sc - sj * cs
    q[..., 2] = -(cj * ss + sj * cc)
    q[..., 1] = cj * cs - sj * sc
    return q


def quat2euler(q):
    """sxyz Euler angles (..., 3) of quaternions (..., 4)."""
    return mat2euler(quat2mat(q))


def parallel_quats():
    """The 24 rotations that map the axes of a cube onto its axes, as quaternions (24, 4), in the order of
    gymnasium_robotics.utils.rotations.get_parallel_rotations (the "parallel" target rotations draw an index)."""
    mult90 = [0, np.pi / 2, -np.pi / 2, np.pi]
    found = []
    for euler in itertools.product(mult90, repeat=3):
        canonical = np.round(mat2euler(euler2mat(np.array(euler))) / (np.pi / 2))
        if canonical[0] == -2:
            canonical[0] = 2
        if canonical[2] == -2:
            canonical[2] = 2
        canonical *= np.pi / 2
        if all((canonical != r).any() for r in found):
            found.append(canonical)
    if len(found) != 24:
        raise AssertionError(f"expected 24 parallel rotations, found {len(found)}")
    return euler2quat(np.array(found))
