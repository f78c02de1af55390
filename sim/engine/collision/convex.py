"""General convex narrowphase (mjc_Convex, mjc_PlaneConvex): GJK/EPA with multi-contact as MuJoCo 3.17.

MuJoCo 3.17 runs its native GJK/EPA (engine_collision_gjk.c) unless DSBL_NATIVECCD is set (then libccd's
MPR with the perturbation multi-contact search: sim/engine/collision/mpr.py, dispatched by the driver).  Pairs of faces (box, mesh, cylinder caps) or of a
face and a capsule edge get up to 4 contacts (multicontact) unless DSBL_MULTICCD; the perturbation search of
older MuJoCo (mjc_Convex's multiCCD loop) is gone in 3.17.  Margins: the first GJK pass runs without them
(sphere / capsule as point / segment), shallow contacts are inflated back (gjk.ccd).
"""

import math
from sim.jit import njit
from sim.engine.math import normalize3

from sim.constants import OPT_DISABLE, OPT_CCD_TOLERANCE, OPT_CCD_ITERATIONS, DSBL_NATIVECCD, DSBL_MULTICCD, GEOM_BOX

from sim.errors import UnsupportedError as UnsupportedFeature
from sim.engine.collision.support import init_obj, ccd_support, I_MESHI
from sim.engine.collision.gjk import ccd, ST_NX, supports_multiccd


# the libccd path runs from the narrowphase (sim/engine/collision/mpr.py) for feature sets with F_LIBCCD, which
# sim/jit/features.py selects from the current options; a kernel compiled without it refuses the flag
LIBCCD_MISSING = (
    "disable flag nativeccd (libccd MPR collisions): this entry was compiled without the libccd path "
    "(feature F_LIBCCD); call sim.step / sim.forward on the model after setting the flag so that its feature set "
    "is re-selected"
)


@njit(cache=True)
def check_nativeccd(m):
    """Raise for DSBL_NATIVECCD in the native GJK/EPA entries (the libccd path is mpr.convex_libccd)."""
    if int(m.opt[OPT_DISABLE]) & DSBL_NATIVECCD:
        raise UnsupportedFeature(LIBCCD_MISSING)


@njit(cache=True)
def penetration(m, d, w, k0, max_contacts, margin):
    """Native-ccd contacts of objects 0 and 1 into d.scr_con_*[w, k0:]; returns their number (mjc_penetration)."""
    check_nativeccd(m)
    tol = m.opt[OPT_CCD_TOLERANCE]
    it = int(m.opt[OPT_CCD_ITERATIONS])
    if ccd(m, d, w, tol, it, max_contacts, 0.0) >= 0:
        return 0
    nx = d.scr_gjk_st[w, ST_NX]
    X1 = d.scr_gjk_x1[w]
    X2 = d.scr_gjk_x2[w]
    for i in range(nx):
        k = k0 + i
        d.scr_con_dist[w, k] = margin + d.scr_gjk_dist[w, i]
        n0 = X1[i, 0] - X2[i, 0]
        n1 = X1[i, 1] - X2[i, 1]
        n2 = X1[i, 2] - X2[i, 2]
        for c in range(3):
            d.scr_con_pos[w, k, c] = (X1[i, c] + X2[i, c]) * 0.5
            d.scr_con_tangent[w, k, c] = 0.0
        n0, n1, n2, _ = normalize3(n0, n1, n2)
        d.scr_con_normal[w, k, 0] = n0
        d.scr_con_normal[w, k, 1] = n1
        d.scr_con_normal[w, k, 2] = n2
    return nx


@njit(cache=True)
def max_contacts(m, d, w, g1, g2, margin):
    """Contacts one narrowphase pass may return (maxContacts): 4 for the pairs with a multi-contact recovery
    (faces of boxes, meshes, cylinders against faces or capsule edges) unless DSBL_MULTICCD, else 1."""
    t1 = m.geom_type[g1]
    t2 = m.geom_type[g2]
    if t1 == GEOM_BOX and t2 == GEOM_BOX:
        return 8
    if supports_multiccd(t1, t2):
        return 1 if int(m.opt[OPT_DISABLE]) & DSBL_MULTICCD else 4
    return 1


@njit(cache=True)
def convex(m, d, w, g1, g2, margin):
    """Contacts of two convex geoms into d.scr_con_*[w, :n]; returns n (mjc_Convex)."""
    check_nativeccd(m)
    init_obj(m, d, w, 0, g1, margin)
    init_obj(m, d, w, 1, g2, margin)
    mc = max_contacts(m, d, w, g1, g2, margin)
    return penetration(m, d, w, 0, mc, margin)


@njit(cache=True)
def plane_convex(m, d, w, g1, g2, margin):
    """Contacts of plane g1 with convex geom g2 (mesh, ellipsoid) into d.scr_con_*[w, :n] (mjc_PlaneConvex)."""
    mat1 = d.geom_xmat[w, g1]
    n0 = mat1[2]
    n1 = mat1[5]
    n2 = mat1[8]
    init_obj(m, d, w, 0, g2, 0.0)
    x, y, z = ccd_support(m, d, w, 0, -mat1[2], -mat1[5], -mat1[8])
    dist = n0 * (x - d.geom_xpos[w, g1, 0]) + n1 * (y - d.geom_xpos[w, g1, 1]) + n2 * (z - d.geom_xpos[w, g1, 2])
    d.scr_con_dist[w, 0] = dist
    if dist > margin:
        return 0
    h = -0.5 * dist
    d.scr_con_pos[w, 0, 0] = x + n0 * h
    d.scr_con_pos[w, 0, 1] = y + n1 * h
    d.scr_con_pos[w, 0, 2] = z + n2 * h
    d.scr_con_normal[w, 0, 0] = n0
    d.scr_con_normal[w, 0, 1] = n1
    d.scr_con_normal[w, 0, 2] = n2
    for c in range(3):
        d.scr_con_tangent[w, 0, c] = 0.0
    count = 1
    mid = m.geom_dataid[g2]
    if mid == -1 or m.mesh_polynum[mid] <= 0 or dist > margin:
        return count
    # mesh: the other vertices (up to 3) of the polygon at the support vertex most anti-aligned with the plane
    # normal, pruned to a maximum-area quadrilateral through the support vertex (hull4), that lie on the plane's
    # side of the mesh center
    vi = d.scr_ccd_i[w, 0, I_MESHI]
    gadr = m.mesh_graphadr[mid]
    if gadr >= 0:
        vi = m.mesh_graph[gadr + 2 + m.mesh_graph[gadr] + vi]
    adr = m.mesh_vertadr[mid]
    mat2 = d.geom_xmat[w, g2]
    l0 = mat2[0] * n0 + mat2[3] * n1 + mat2[6] * n2
    l1 = mat2[1] * n0 + mat2[4] * n1 + mat2[7] * n2
    l2 = mat2[2] * n0 + mat2[5] * n1 + mat2[8] * n2
    padr = m.mesh_polyadr[mid]
    madr = m.mesh_polymapadr[adr + vi]
    best = -1
    bdot = 1.0
    for i in range(m.mesh_polymapnum[adr + vi]):
        p = m.mesh_polymap[madr + i]
        pn = m.mesh_polynormal[padr + p]
        v = pn[0] * l0 + pn[1] * l1 + pn[2] * l2
        if v < bdot:
            bdot = v
            best = p
    if best < 0:
        return count
    fadr = m.mesh_polyvertadr[padr + best]
    fnum = m.mesh_polyvertnum[padr + best]
    a = 0
    for i in range(fnum):
        if m.mesh_polyvert[fadr + i] == vi:
            a = i
            break
    nh, q1, q2, q3 = _hull4(m, adr, fadr, fnum, a)
    pos2 = d.geom_xpos[w, g2]
    for k in range(1, nh):
        q = q1 if k == 1 else (q2 if k == 2 else q3)
        r = adr + m.mesh_polyvert[fadr + q]
        v0 = m.mesh_vert[r, 0]
        v1 = m.mesh_vert[r, 1]
        v2 = m.mesh_vert[r, 2]
        p0 = mat2[0] * v0 + mat2[1] * v1 + mat2[2] * v2 + pos2[0]
        p1 = mat2[3] * v0 + mat2[4] * v1 + mat2[5] * v2 + pos2[1]
        p2 = mat2[6] * v0 + mat2[7] * v1 + mat2[8] * v2 + pos2[2]
        if n0 * (p0 - pos2[0]) + n1 * (p1 - pos2[1]) + n2 * (p2 - pos2[2]) > 0:
            continue
        vd = n0 * (p0 - d.geom_xpos[w, g1, 0]) + n1 * (p1 - d.geom_xpos[w, g1, 1]) + n2 * (p2 - d.geom_xpos[w, g1, 2])
        if vd > margin:
            continue
        d.scr_con_dist[w, count] = vd
        h = -0.5 * vd
        d.scr_con_pos[w, count, 0] = p0 + n0 * h
        d.scr_con_pos[w, count, 1] = p1 + n1 * h
        d.scr_con_pos[w, count, 2] = p2 + n2 * h
        d.scr_con_normal[w, count, 0] = n0
        d.scr_con_normal[w, count, 1] = n1
        d.scr_con_normal[w, count, 2] = n2
        for c in range(3):
            d.scr_con_tangent[w, count, c] = 0.0
        count += 1
    return count


@njit(cache=True)
def _area4(m, adr, fadr, a, b, c, e):
    """Area of the quadrilateral of mesh polygon vertices a b c e (in polygon order) from its diagonals."""
    va = m.mesh_vert[adr + m.mesh_polyvert[fadr + a]]
    vb = m.mesh_vert[adr + m.mesh_polyvert[fadr + b]]
    vc = m.mesh_vert[adr + m.mesh_polyvert[fadr + c]]
    ve = m.mesh_vert[adr + m.mesh_polyvert[fadr + e]]
    x0 = va[0] - vc[0]
    x1 = va[1] - vc[1]
    x2 = va[2] - vc[2]
    y0 = vb[0] - ve[0]
    y1 = vb[1] - ve[1]
    y2 = vb[2] - ve[2]
    c0 = x1 * y2 - x2 * y1
    c1 = x2 * y0 - x0 * y2
    c2 = x0 * y1 - x1 * y0
    return 0.5 * math.sqrt(c0 * c0 + c1 * c1 + c2 * c2)


@njit(cache=True)
def _hull4(m, adr, fadr, n, a):
    """(count, b, c, e): a maximum-area quadrilateral a b c e of an n-vertex convex mesh polygon keeping vertex a
    (hull4f); count = min(n, 4)."""
    b = (a + 1) % n
    c = (a + 2) % n
    e = (a + 3) % n
    if n <= 4:
        return n, b, c, e
    rb, rc, re = b, c, e
    best = _area4(m, adr, fadr, a, b, c, e)
    while True:
        e1 = (e + 1) % n
        mn = _area4(m, adr, fadr, a, b, c, e1)
        if mn <= best:
            break
        e = e1
        best = mn
        rb, rc, re = b, c, e
        while True:
            c1 = (c + 1) % n
            mn = _area4(m, adr, fadr, a, b, c1, e)
            if mn <= best:
                break
            c = c1
            best = mn
            rb, rc, re = b, c, e
        while True:
            b1 = (b + 1) % n
            mn = _area4(m, adr, fadr, a, b1, c, e)
            if mn <= best:
                break
            b = b1
            best = mn
            rb, rc, re = b, c, e
    return 4, rb, rc, re
