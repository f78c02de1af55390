"""Mass properties at compile time: primitive geom volumes and inertias, principal axes, fluid coefficients.

Reproduces mjCGeom::GetVolume / SetInertia / SetFluidCoefs and mjuu_globalinertia / mjuu_offcenter from MuJoCo's
user code (mjuu_eig3 / mjuu_fullInertia: sim/user_util.py).
"""

import math

import numpy as np

from sim.user_util import quat2mat

PLANE, HFIELD, SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX, MESH, SDF = range(9)


def geom_volume(gtype, size, shell):
    """Volume (or surface area for shell inertia) of a primitive geom."""
    r = size[0]
    if gtype == SPHERE:
        return 4 * math.pi * r * r if shell else 4 * math.pi * r * r * r / 3
    if gtype == CAPSULE:
        h = 2 * size[1]
        return (4 * math.pi * r * r + 2 * math.pi * r * h) if shell else math.pi * (r * r * h + 4 * r * r * r / 3)
    if gtype == CYLINDER:
        h = 2 * size[1]
        return (2 * math.pi * r * r + 2 * math.pi * r * h) if shell else math.pi * r * r * h
    if gtype == ELLIPSOID:
        if shell:  # Thomsen's approximation of the ellipsoid surface
            p = 1.6075
            t = (size[0] * size[1]) ** p + (size[1] * size[2]) ** p + (size[2] * size[0]) ** p
            return 4 * math.pi * (t / 3) ** (1 / p)
        return 4 * math.pi * size[0] * size[1] * size[2] / 3
    if gtype in (BOX, HFIELD):
        if shell:
            return 8 * (size[0] * size[1] + size[1] * size[2] + size[2] * size[0])
        return size[0] * size[1] * size[2] * 8
    return 0.0


def geom_inertia(gtype, size, mass, shell):
    """Principal inertia (3,) of a primitive geom of given mass, in the geom frame (mjCGeom::SetInertia)."""
    s = size
    if gtype == SPHERE:
        v = 2 * mass * s[0] * s[0] / (3 if shell else 5)
        return np.array([v, v, v])
    if gtype == CAPSULE:
        hh, h, r = s[1], 2 * s[1], s[0]
        if not shell:
            ms = mass * 4 * r / (4 * r + 3 * h)
            mc = mass - ms
            ixy = mc * (3 * r * r + h * h) / 12
            iz = mc * r * r / 2
            si = 2 * ms * r * r / 5
            ixy += si + ms * h * (3 * r + 2 * h) / 8
            return np.array([ixy, ixy, iz + si])
        a_s = 4 * math.pi * r * r
        a_c = 2 * math.pi * r * h
        ms = mass * a_s / (a_s + a_c)
        mc = mass - ms
        ixy = mc * (6 * r * r + h * h) / 12
        iz = mc * r * r
        si = 2 * ms * r * r / 3
        com = r / 2
        pos = hh + com
        ixy += si + ms * (pos * pos - com * com)
        return np.array([ixy, ixy, iz + si])
    if gtype == CYLINDER:
        hh, h, r = s[1], 2 * s[1], s[0]
        if not shell:
            ixy = mass * (3 * r * r + h * h) / 12
            return np.array([ixy, ixy, mass * r * r / 2])
        a_d = math.pi * r * r
        a_c = 2 * math.pi * r * h
        md = mass * a_d / (2 * a_d + a_c)
        mc = mass - 2 * md
        ixy = mc * (6 * r * r + h * h) / 12
        iz = mc * r * r
        dx = md * r * r / 4 + md * hh * hh
        dz = md * r * r / 2
        return np.array([ixy + 2 * dx, ixy + 2 * dx, iz + 2 * dz])
    if gtype == ELLIPSOID:
        s00, s11, s22 = s[0] * s[0], s[1] * s[1], s[2] * s[2]
        if not shell:
            return np.array([mass * (s11 + s22) / 5, mass * (s00 + s22) / 5, mass * (s00 + s11) / 5])
        # shell: difference of two solid ellipsoids (eps-expanded minus original)
        eps = 1e-6
        va = 4 * math.pi * s[0] * s[1] * s[2] / 3
        ae, be, ce = s[0] + eps, s[1] + eps, s[2] + eps
        vb = 4 * math.pi * ae * be * ce / 3
        rho = mass / (vb - va)
        ma, mb = va * rho, vb * rho
        ia = np.array([ma * (s11 + s22) / 5, ma * (s00 + s22) / 5, ma * (s00 + s11) / 5])
        ib = np.array([mb * (be * be + ce * ce) / 5, mb * (ae * ae + ce * ce) / 5, mb * (ae * ae + be * be) / 5])
        return ib - ia
    if gtype in (BOX, HFIELD):
        s00, s11, s22 = s[0] * s[0], s[1] * s[1], s[2] * s[2]
        if not shell:
            return np.array([mass * (s11 + s22) / 3, mass * (s00 + s22) / 3, mass * (s00 + s11) / 3])
        lx, ly, lz = 2 * s[0], 2 * s[1], 2 * s[2]
        a0, a1, a2 = lx * ly, ly * lz, lz * lx
        at = 2 * (a0 + a1 + a2)
        m0, m1, m2 = mass * a0 / at, mass * a1 / at, mass * a2 / at
        ix0, iy0, iz0 = m0 * ly * ly / 12, m0 * lx * lx / 12, m0 * (lx * lx + ly * ly) / 12
        ix1, iy1, iz1 = m1 * (ly * ly + lz * lz) / 12, m1 * lz * lz / 12, m1 * ly * ly / 12
        ix2, iy2, iz2 = m2 * lz * lz / 12, m2 * (lx * lx + lz * lz) / 12, m2 * lx * lx / 12
        return np.array(
            [
                2 * (m0 * s22 + m2 * s11 + ix0 + ix1 + ix2),
                2 * (m0 * s22 + m1 * s00 + iy0 + iy1 + iy2),
                2 * (m1 * s00 + m2 * s11 + iz0 + iz1 + iz2),
            ]
        )
    return np.zeros(3)


def global_inertia(local, quat):
    """Rotate a diagonal inertia into a full one: (xx, yy, zz, xy, xz, yz) (mjuu_globalinertia)."""
    m = quat2mat(quat).reshape(9)
    t = [
        m[0] * local[0],
        m[3] * local[0],
        m[6] * local[0],
        m[1] * local[1],
        m[4] * local[1],
        m[7] * local[1],
        m[2] * local[2],
        m[5] * local[2],
        m[8] * local[2],
    ]
    return np.array(
        [
            m[0] * t[0] + m[1] * t[3] + m[2] * t[6],
            m[3] * t[1] + m[4] * t[4] + m[5] * t[7],
            m[6] * t[2] + m[7] * t[5] + m[8] * t[8],
            m[0] * t[1] + m[1] * t[4] + m[2] * t[7],
            m[0] * t[2] + m[1] * t[5] + m[2] * t[8],
            m[3] * t[2] + m[4] * t[5] + m[5] * t[8],
        ]
    )


def offcenter(mass, d):
    """Parallel-axis correction for a point mass at offset d, as (xx, yy, zz, xy, xz, yz) (mjuu_offcenter)."""
    return np.array(
        [
            mass * (d[1] * d[1] + d[2] * d[2]),
            mass * (d[0] * d[0] + d[2] * d[2]),
            mass * (d[0] * d[0] + d[1] * d[1]),
            -mass * d[0] * d[1],
            -mass * d[0] * d[2],
            -mass * d[1] * d[2],
        ]
    )


# ---------------------------------------------------------------------------------------------- fluid

_KRONROD_W = (
    0.01146766,
    0.03154605,
    0.05239501,
    0.07032663,
    0.08450236,
    0.09517529,
    0.10221647,
    0.10474107,
    0.10221647,
    0.09517529,
    0.08450236,
    0.07032663,
    0.05239501,
    0.03154605,
    0.01146766,
)
# quadrature nodes after the change of variable l = x^3 / (1-x)^2 on the 15-point Kronrod points, and dl/dx
_KRONROD_L = (
    7.865151709349917e-08,
    1.7347976913907274e-05,
    0.0003548008144506193,
    0.002846636252924549,
    0.014094260903596077,
    0.053063261727396636,
    0.17041978741317773,
    0.5,
    1.4036301548686991,
    3.9353484827022642,
    11.644841677041734,
    39.53187807410903,
    177.5711362220801,
    1429.4772912937397,
    54087.416549217705,
)
_KRONROD_D = (
    5.538677720489877e-05,
    0.002080868285293228,
    0.016514126520723166,
    0.07261900344370877,
    0.23985243401862602,
    0.6868318249020725,
    1.8551129519182894,
    5.0,
    14.060031152313941,
    43.28941239611009,
    156.58546376397112,
    747.9826085305024,
    5827.4042950027115,
    116754.0197944512,
    25482945.327264845,
)


def _added_mass_kappa(dx, dy, dz):
    """Added-mass coefficient of an ellipsoid (mjCGeom::GetAddedMassKappa), by K15 quadrature on [0, inf)."""
    ix, iy, iz = 1.0 / (dx * dx), 1.0 / (dy * dy), 1.0 / (dz * dz)
    scale = (dx * dx * dx * dy * dz) ** 0.4
    kappa = 0.0
    for w, lk, dk in zip(_KRONROD_W, _KRONROD_L, _KRONROD_D):
        lam = scale * lk
        denom = (1 + lam * ix) * math.sqrt((1 + lam * ix) * (1 + lam * iy) * (1 + lam * iz))
        kappa += scale * dk / denom * w
    return kappa * ix


def fluid_coefs(gtype, size, coefs):
    """geom_fluid (12,) for the ellipsoid fluid model: flag, 5 coefficients, virtual mass (3), inertia (3)."""
    if gtype == SPHERE:
        dx = dy = dz = size[0]
    elif gtype == CAPSULE:
        dx, dy, dz = size[0], size[0], size[1] + size[0]
    elif gtype == CYLINDER:
        dx, dy, dz = size[0], size[0], size[1]
    else:
        dx, dy, dz = size[0], size[1], size[2]
    vol = 4.0 / 3.0 * math.pi * dx * dy * dz
    kx = _added_mass_kappa(dx, dy, dz)
    ky = _added_mass_kappa(dy, dz, dx)
    kz = _added_mass_kappa(dz, dx, dy)
    eps = 1e-14

    def fac(a, b, ka, kb):
        d = a * a - b * b  # squared by multiplication, as MuJoCo's pow2 (x ** 2 calls pow, which can differ)
        return d * d * abs(kb - ka) / max(eps, abs(2 * (a * a - b * b) + (a * a + b * b) * (ka - kb)))

    ixf = fac(dy, dz, ky, kz)
    iyf = fac(dz, dx, kz, kx)
    izf = fac(dx, dy, kx, ky)
    out = np.zeros(12)
    out[0] = 1.0
    out[1:6] = coefs
    out[6:9] = (vol * kx / max(eps, 2 - kx), vol * ky / max(eps, 2 - ky), vol * kz / max(eps, 2 - kz))
    out[9:12] = (vol * ixf / 5, vol * iyf / 5, vol * izf / 5)
    return out
