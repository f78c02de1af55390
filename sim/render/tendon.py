"""Spatial tendons as mjv_addGeoms draws them (addSpatialTendonGeoms): capsules of the tendon's width between
consecutive wrap points (none across a pulley), the arc on a wrapping sphere or cylinder split into
max(1, round(angle * numslices / pi)) pieces along the surface (a great circle / a helix; measured against
mujoco 3.17's mjv_updateScene, whose arcs are not in the 3.12 sources this follows otherwise), or, for a slack
string-like tendon under gravity (mjv_isCatenary), capsules along its catenary (mjv_catenary).  The colour mixes
towards vis.rgba.constraint with the impedance of an active length limit, for a tendon without a material whose
colour is the default grey.

Numpy, vectorised over worlds; the segments become renderer objects (capsules) of each world every update.
"""

import math

import numpy as np

WRAP_JOINT, WRAP_SPHERE, WRAP_CYLINDER = 1, 4, 5  # mjtWrap (fixed tendons are not drawn)
GEOM_SPHERE, GEOM_CYLINDER = 2, 5
TRN_TENDON = 3  # mjTRN_TENDON
CNSTR_LIMIT_TENDON = 4  # mjCNSTR_LIMIT_TENDON
DSBL_GRAVITY = 1 << 7  # mjDSBL_GRAVITY
NPOLY = 3


def spatial_tendons(m, groups, flag_tendon):
    """[(tendon id, segment slots)] of the spatial tendons drawn with tendongroup `groups`."""
    out = []
    if not flag_tendon:
        return out
    for i in range(int(getattr(m, "ntendon", 0) or 0)):
        if int(m.wrap_type[m.tendon_adr[i]]) == WRAP_JOINT:
            continue
        if not groups[max(0, min(5, int(m.tendon_group[i])))]:
            continue
        adr, num = int(m.tendon_adr[i]), int(m.tendon_num[i])
        ngeom = sum(1 for j in range(adr, adr + num) if int(m.wrap_type[j]) in (WRAP_SPHERE, WRAP_CYLINDER))
        nseg = 2 * num - 1 + ngeom * int(m.vis.quality.numslices)
        if _catenary_static(m, i):
            nseg = max(nseg, min(int(m.vis.quality.numslices) + 1, 100) - 1)
        out.append((i, nseg))
    return out


def _has(m, name, i, n=1):
    v = np.asarray(getattr(m, name)).reshape(int(m.ntendon), -1)[i]
    return bool(np.any(v[:n] != 0))


def _catenary_static(m, i):
    """The model-only conditions of mjv_isCatenary (the length test is made every frame)."""
    stiff = _has(m, "tendon_stiffness", i) or _has(m, "tendon_stiffnesspoly", i, NPOLY)
    ls = np.asarray(m.tendon_lengthspring).reshape(-1, 2)[i]
    rng = np.asarray(m.tendon_range).reshape(-1, 2)[i]
    limitedspring = stiff and ls[0] == 0 and ls[1] > 0
    limitedconstraint = (not stiff) and bool(m.tendon_limited[i]) and rng[0] == 0
    damping = _has(m, "tendon_damping", i) or _has(m, "tendon_dampingpoly", i, NPOLY)
    gravity = not (int(m.opt.disableflags) & DSBL_GRAVITY) and np.linalg.norm(m.opt.gravity) > 1e-15
    actuated = any(
        int(m.actuator_trntype[j]) == TRN_TENDON and int(np.asarray(m.actuator_trnid).reshape(-1, 2)[j, 0]) == i
        for j in range(int(m.nu))
    )
    return (
        gravity
        and int(m.tendon_num[i]) == 2
        and (limitedspring or limitedconstraint)
        and not damping
        and float(m.tendon_frictionloss[i]) == 0
        and not actuated
    )


def _catenary_length(m, i, length):
    """mjv_isCatenary's length for tendon i at current length `length`, or None when it draws straight."""
    stiff = _has(m, "tendon_stiffness", i) or _has(m, "tendon_stiffnesspoly", i, NPOLY)
    if stiff:
        return float(np.asarray(m.tendon_lengthspring).reshape(-1, 2)[i, 1])
    upper = float(np.asarray(m.tendon_range).reshape(-1, 2)[i, 1])
    return upper if length < upper else None


def _cosh(x):
    e = math.exp(x)
    return 0.5 * (e + 1 / e)


def _solve_catenary(v, h, length):
    """solve_catenary (Newton with backtracking, as MuJoCo)."""
    intercept = 1 / math.sqrt(math.sqrt(length * length - v * v) / h - 1)

    def residual(b):
        a = 0.5 / b
        e = math.exp(a)
        sinh, cosh = 0.5 * (e - 1 / e), 0.5 * (e + 1 / e)
        return 1 / math.sqrt(2 * b * sinh - 1) - intercept, (a * cosh - sinh) * (2 * b * sinh - 1) ** -1.5

    b = intercept / math.sqrt(24)
    for _ in range(50):
        res, grad = residual(b)
        if abs(res) < 1e-9:
            break
        step = -res / grad
        for _ in range(10):
            if abs(residual(b + step)[0]) < abs(res):
                break
            step *= 0.5
        b += step
    return b


def catenary(x0, x1, gravity, length, n):
    """mjv_catenary: points (k, 3) along a catenary of `length` hanging between x0 and x1."""
    x0, x1 = np.asarray(x0, float), np.asarray(x1, float)
    if np.linalg.norm(x1 - x0) > length:
        return np.stack([x0, x1])
    up = -np.asarray(gravity, float)
    up = up / np.linalg.norm(up)
    x01 = x1 - x0
    across = x01 - up * (up @ x01)
    norm = np.linalg.norm(across)
    across = across / norm if norm >= 1e-15 else np.zeros(3)
    h = x01 @ across
    v = x01 @ up
    if length > 100 * h:
        d_up = -0.5 * (math.sqrt(length * length - h * h) - v)
        d_across = h * d_up / (2 * d_up - v)
        return np.stack([x0, x0 + d_up * up + d_across * across, x1])
    bh = _solve_catenary(v, h, length) * h
    h_off = -0.5 * (math.log((length + v) / (length - v)) * bh - h)
    v_off = -_cosh(h_off / bh) * bh
    pts = [x0]
    for i in range(1, n - 1):
        hor = i * h / n
        pts.append(x0 + hor * across + (bh * _cosh((hor - h_off) / bh) + v_off) * up)
    pts.append(x1)
    return np.stack(pts)


def quat_z2vec(vec):
    """mju_quatZ2Vec for rows of vec (k, 3): minimal rotation taking +z to each vector, as (k, 4)."""
    vec = np.asarray(vec, float).reshape(-1, 3)
    q = np.zeros((len(vec), 4))
    q[:, 0] = 1.0
    nv = np.linalg.norm(vec, axis=1)
    for r in range(len(vec)):
        if nv[r] < 1e-15:
            continue
        vn = vec[r] / nv[r]
        axis = np.array([-vn[1], vn[0], 0.0])
        a = np.linalg.norm(axis)
        if a < 1e-15:
            if vn[2] < 0:
                q[r] = (0.0, 1.0, 0.0, 0.0)
            continue
        axis /= a
        ang = math.atan2(a, vn[2])
        q[r] = (math.cos(ang / 2), *(axis * math.sin(ang / 2)))
    return q


def segments(m, arrays, w, i):
    """[(from (3,), to (3,), width)] drawn for tendon i in world w (addSpatialTendonGeoms)."""
    adr = int(arrays["ten_wrapadr"][w, i])
    num = int(arrays["ten_wrapnum"][w, i])
    xpos = arrays["wrap_xpos"][w].reshape(-1, 3)
    obj = arrays["wrap_obj"][w].reshape(-1)
    width = float(m.tendon_width[i])
    length = None
    if _catenary_static(m, i):
        length = _catenary_length(m, i, float(arrays["ten_length"][w, i]))
    if length is not None:
        pts = catenary(xpos[adr], xpos[adr + 1], m.opt.gravity, length, min(int(m.vis.quality.numslices) + 1, 100))
        return [(pts[j], pts[j + 1], width) for j in range(len(pts) - 1)]
    out = []
    nslice = int(m.vis.quality.numslices)
    for j in range(adr, adr + num - 1):
        if obj[j] == -2 or obj[j + 1] == -2:
            continue
        if obj[j] >= 0 and obj[j + 1] >= 0:
            pts = _arc(m, arrays, w, int(obj[j]), xpos[j], xpos[j + 1], nslice)
            out.extend((pts[k], pts[k + 1], width) for k in range(len(pts) - 1))
        else:
            out.append((xpos[j], xpos[j + 1], width))
    return out


def _arc(m, arrays, w, g, a, b, nslice):
    """Points from a to b along wrapping geom g (sphere: great circle; cylinder: helix about its axis)."""
    if np.linalg.norm(b - a) < 1e-12:
        return [a]
    c = arrays["geom_xpos"][w, g]
    R = arrays["geom_xmat"][w, g].reshape(3, 3)
    pa, pb = R.T @ (a - c), R.T @ (b - c)
    if int(m.geom_type[g]) == GEOM_CYLINDER:
        a0, a1 = math.atan2(pa[1], pa[0]), math.atan2(pb[1], pb[0])
        delta = (a1 - a0 + math.pi) % (2 * math.pi) - math.pi
        theta = abs(delta)
    else:
        ua, ub = pa / np.linalg.norm(pa), pb / np.linalg.norm(pb)
        theta = math.acos(max(-1.0, min(1.0, float(ua @ ub))))
    x = theta * nslice / math.pi
    n = max(1, int(math.floor(x + 0.5)))  # C round()
    pts = [a]
    for k in range(1, n):
        s = k / n
        if int(m.geom_type[g]) == GEOM_CYLINDER:
            ang = a0 + s * delta
            rad = (1 - s) * math.hypot(pa[0], pa[1]) + s * math.hypot(pb[0], pb[1])
            lp = np.array([rad * math.cos(ang), rad * math.sin(ang), (1 - s) * pa[2] + s * pb[2]])
        else:
            lp = (math.sin((1 - s) * theta) * pa + math.sin(s * theta) * pb) / math.sin(theta)
        pts.append(c + R @ lp)
    pts.append(b)
    return pts


def limit_impedance(m, arrays, w, i):
    """Impedance of tendon i's active length-limit row in world w (0 when not at its limit)."""
    ne, nf, nl = int(arrays["ne"][w]), int(arrays["nf"][w]), int(arrays["nl"][w])
    typ = arrays["efc_type"][w]
    ids = arrays["efc_id"][w]
    kbip = arrays["efc_KBIP"][w].reshape(len(typ), -1)
    imp = 0.0
    for k in range(ne + nf, ne + nf + nl):
        if typ[k] == CNSTR_LIMIT_TENDON and ids[k] == i:
            imp = float(kbip[k, 2])
    return imp
