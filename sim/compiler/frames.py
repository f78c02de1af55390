"""Orientation attributes of MJCF elements (MuJoCo's ResolveOrientation); the frame math itself is
sim/user_util.py (mjuu_*)."""

import math

import numpy as np

from sim.user_util import EPS, euler2quat, frame2quat, normvec, z2quat

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
