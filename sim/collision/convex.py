"""General convex narrowphase (mjc_Convex, mjc_PlaneConvex): GJK/EPA with multi-contact as MuJoCo 3.17.

MuJoCo 3.17 runs its native GJK/EPA (engine_collision_gjk.c) unless DSBL_NATIVECCD is set (then libccd's
MPR, which is not reproduced here: UnsupportedFeature).  Box/mesh pairs without margin get up to 4 contacts
from the EPA polytope (multicontact).  Other pairs return the single GJK/EPA contact: the installed MuJoCo
3.17 does not produce the extra contacts of the perturbation search found in the C snapshot (mjc_Convex's
multiCCD loop), so that loop is not reproduced.  Margins are handled differently by 3.17 (e.g. box/mesh
pairs get several contacts within the margin, ellipsoid pairs other witness points); only pairs with a
sphere or capsule (shrunk to a point / segment by mjc_ccd) match, all others raise UnsupportedFeature.
"""
import math
from sim.jit import njit
from sim.math import normalize3

from sim.types import (OPT_DISABLE, OPT_CCD_TOLERANCE, OPT_CCD_ITERATIONS, DSBL_NATIVECCD, DSBL_MULTICCD,
                       GEOM_BOX, UnsupportedFeature)
from sim.collision.support import init_obj, ccd_support, I_MESHI
from sim.collision.gjk import ccd, ST_NX, supports_multiccd

MINVAL = 1e-15
MAXPLANEMESH = 3      # maxplanemesh
TOLPLANEMESH = 0.3    # tolplanemesh


@njit(cache=True)
def check_nativeccd(m):
    """Raise for DSBL_NATIVECCD: the libccd (MPR) path of MuJoCo is not reproduced."""
    if int(m.opt[OPT_DISABLE]) & DSBL_NATIVECCD:
        raise UnsupportedFeature('disable flag nativeccd (libccd MPR collisions) is not supported')


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
def _add_plane_mesh(m, d, w, k, a, g1, g2):
    """Contact k of plane g1 with mesh vertex row a of geom g2 unless near contact 0 (addplanemesh)."""
    mat2 = d.geom_xmat[w, g2]
    v0 = m.mesh_vert[a, 0]
    v1 = m.mesh_vert[a, 1]
    v2 = m.mesh_vert[a, 2]
    p0 = mat2[0] * v0 + mat2[1] * v1 + mat2[2] * v2 + d.geom_xpos[w, g2, 0]
    p1 = mat2[3] * v0 + mat2[4] * v1 + mat2[5] * v2 + d.geom_xpos[w, g2, 1]
    p2 = mat2[6] * v0 + mat2[7] * v1 + mat2[8] * v2 + d.geom_xpos[w, g2, 2]
    f0 = p0 - d.scr_con_pos[w, 0, 0]
    f1 = p1 - d.scr_con_pos[w, 0, 1]
    f2 = p2 - d.scr_con_pos[w, 0, 2]
    if math.sqrt(f0 * f0 + f1 * f1 + f2 * f2) < TOLPLANEMESH * m.geom_rbound[g2]:
        return 0
    mat1 = d.geom_xmat[w, g1]
    n0 = mat1[2]
    n1 = mat1[5]
    n2 = mat1[8]
    dist = (n0 * (p0 - d.geom_xpos[w, g1, 0]) + n1 * (p1 - d.geom_xpos[w, g1, 1])
            + n2 * (p2 - d.geom_xpos[w, g1, 2]))
    d.scr_con_dist[w, k] = dist
    h = -0.5 * dist
    d.scr_con_pos[w, k, 0] = p0 + n0 * h
    d.scr_con_pos[w, k, 1] = p1 + n1 * h
    d.scr_con_pos[w, k, 2] = p2 + n2 * h
    d.scr_con_normal[w, k, 0] = n0
    d.scr_con_normal[w, k, 1] = n1
    d.scr_con_normal[w, k, 2] = n2
    for c in range(3):
        d.scr_con_tangent[w, k, c] = 0.0
    return 1


@njit(cache=True)
def plane_convex(m, d, w, g1, g2, margin):
    """Contacts of plane g1 with convex geom g2 (mesh, ellipsoid) into d.scr_con_*[w, :n] (mjc_PlaneConvex)."""
    mat1 = d.geom_xmat[w, g1]
    n0 = mat1[2]
    n1 = mat1[5]
    n2 = mat1[8]
    init_obj(m, d, w, 0, g2, 0.0)
    x, y, z = ccd_support(m, d, w, 0, -mat1[2], -mat1[5], -mat1[8])
    dist = (n0 * (x - d.geom_xpos[w, g1, 0]) + n1 * (y - d.geom_xpos[w, g1, 1])
            + n2 * (z - d.geom_xpos[w, g1, 2]))
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
    if mid == -1:
        return count
    adr = m.mesh_vertadr[mid]
    mat2 = d.geom_xmat[w, g2]
    # -normal in the mesh frame and the inclusion threshold relative to the geom center
    l0 = mat2[0] * -n0 + mat2[3] * -n1 + mat2[6] * -n2
    l1 = mat2[1] * -n0 + mat2[4] * -n1 + mat2[7] * -n2
    l2 = mat2[2] * -n0 + mat2[5] * -n1 + mat2[8] * -n2
    thr = (n0 * (d.geom_xpos[w, g2, 0] - d.geom_xpos[w, g1, 0]) + n1 * (d.geom_xpos[w, g2, 1] - d.geom_xpos[w, g1, 1])
           + n2 * (d.geom_xpos[w, g2, 2] - d.geom_xpos[w, g1, 2])) - margin
    best = d.scr_ccd_i[w, 0, I_MESHI]
    gadr = m.mesh_graphadr[mid]
    if gadr < 0:
        i = 0
        while i < m.mesh_vertnum[mid] and count < MAXPLANEMESH:
            a = adr + i
            v = l0 * m.mesh_vert[a, 0] + l1 * m.mesh_vert[a, 1] + l2 * m.mesh_vert[a, 2]
            if v > thr and i != best:
                count += _add_plane_mesh(m, d, w, count, a, g1, g2)
            i += 1
    elif best >= 0:
        graph = m.mesh_graph
        numvert = graph[gadr]
        i = graph[gadr + 2 + best]
        while True:
            loc = graph[gadr + 2 + 2 * numvert + i]
            if loc < 0 or count >= MAXPLANEMESH:
                break
            a = adr + graph[gadr + 2 + numvert + loc]
            v = l0 * m.mesh_vert[a, 0] + l1 * m.mesh_vert[a, 1] + l2 * m.mesh_vert[a, 2]
            if v > thr:
                count += _add_plane_mesh(m, d, w, count, a, g1, g2)
            i += 1
    return count
