"""Tactile sensor (engine_sensor.c, mjSENS_TACTILE of mj_computeSensorAcc and tactile_taxel_batch) with the
primitive signed distances of geomDistance (engine_collision_sdf.c).

The taxels are the vertices of the sensor's mesh placed with its reference geom's frame. For every geom in
contact with the reference geom's weld body (deduplicated in contact order), each taxel's signed distance to it
is evaluated; where it is negative the sensor keeps, per taxel, the deepest penetration (channel 0) and, when
the mesh has per-vertex frames (mesh_normalnum == 3 * mesh_vertnum, e.g. the wedge and plate builtins), sums
|relative velocity . tangent| over the touching geoms (channels 1 and 2).  MuJoCo 3.17 differs from the older
reference source here (measured on the oracle): both bodies' velocities are taken at the taxel, and the relative
velocity is mapped into the geom's frame and dotted with the mesh-frame tangents (no mesh_quat rotation). Mesh geoms without an octree
(mesh_octadr == -1: every mesh numjoco compiles, MuJoCo builds octrees only for SDF geoms) are skipped as
MuJoCo skips them. Compiled only for feature sets with F_TACTILE (sim/engine/sensor.py).
"""

import math

from sim.jit import njit
from sim.engine.math import cross, mat_vec3, mat_t_vec3, normalize3
from sim.constants import (
    GEOM_PLANE,
    GEOM_SPHERE,
    GEOM_CAPSULE,
    GEOM_ELLIPSOID,
    GEOM_CYLINDER,
    GEOM_BOX,
    GEOM_MESH,
)


@njit(cache=True)
def _norm3(a0, a1, a2):
    return math.sqrt(a0 * a0 + a1 * a1 + a2 * a2)


@njit(cache=True)
def geom_distance_sdf(typ, size, x0, x1, x2):
    """Signed distance of local point x (3,) to a primitive geom of half-sizes size (3,) (geomDistance)."""
    if typ == GEOM_PLANE:
        return x2
    if typ == GEOM_SPHERE:
        return _norm3(x0, x1, x2) - size[0]
    if typ == GEOM_BOX:
        a0 = abs(x0) - size[0]
        a1 = abs(x1) - size[1]
        a2 = abs(x2) - size[2]
        if a0 >= 0 or a1 >= 0 or a2 >= 0:
            return _norm3(max(a0, 0.0), max(a1, 0.0), max(a2, 0.0)) + min(max(a0, max(a1, a2)), 0.0)
        # radialField3d: a unit field rotating from radial to the face normals
        f0 = -size[0] / a0
        f1 = -size[1] / a1
        f2 = -size[2] / a2
        f0, f1, f2, _ = normalize3(f0, f1, f2)
        if x0 < 0:
            f0 = -f0
        if x1 < 0:
            f1 = -f1
        if x2 < 0:
            f2 = -f2
        t0 = -a0 / abs(f0)
        t1 = -a1 / abs(f1)
        t2 = -a2 / abs(f2)
        return -min(t0, min(t1, t2)) * _norm3(f0, f1, f2)
    if typ == GEOM_CAPSULE:
        z = x2
        if z < -size[1]:
            z = -size[1]
        elif z > size[1]:
            z = size[1]
        return _norm3(x0, x1, x2 - z) - size[0]
    if typ == GEOM_ELLIPSOID:
        a0 = x0 / size[0]
        a1 = x1 / size[1]
        a2 = x2 / size[2]
        k0 = _norm3(a0, a1, a2)
        k1 = _norm3(a0 / size[0], a1 / size[1], a2 / size[2])
        return k0 * (k0 - 1.0) / k1
    if typ == GEOM_CYLINDER:
        a0 = math.sqrt(x0 * x0 + x1 * x1) - size[0]
        a1 = abs(x2) - size[1]
        b0 = max(a0, 0.0)
        b1 = max(a1, 0.0)
        return min(max(a0, a1), 0.0) + math.sqrt(b0 * b0 + b1 * b1)
    return 0.0


@njit(cache=True)
def tactile_sensor(m, d, w, i, out, k):
    """Tactile sensor i into out[k : k + 3 * nvert] (channel-major: depth, |slip| along tangent 1, tangent 2)."""
    mesh = m.sensor_objid[i]
    geom = m.sensor_refid[i]
    weld = m.body_weldid[m.geom_bodyid[geom]]
    nvert = m.mesh_vertnum[mesh]
    for j in range(m.sensor_dim[i]):
        out[k + j] = 0.0

    # geoms in contact with the sensor's weld body, each once, in contact order (scratch: scr_sens_mid[w, 0])
    ids = d.scr_sens_mid[w, 0]
    ncontact = 0
    for c in range(d.ncon[w]):
        g1 = d.contact_geom[w, c, 0]
        g2 = d.contact_geom[w, c, 1]
        for side in range(2):
            if m.body_weldid[m.geom_bodyid[g1 if side == 0 else g2]] != weld:
                continue
            other = g2 if side == 0 else g1
            add = True
            for j in range(ncontact):
                if ids[j] == other:
                    add = False
                    break
            if add:
                ids[ncontact] = other
                ncontact += 1
    if ncontact == 0:
        return

    gpos = d.geom_xpos[w, geom]
    gmat = d.geom_xmat[w, geom]
    vadr = m.mesh_vertadr[mesh]
    nadr = m.mesh_normaladr[mesh]
    has_frame = m.mesh_normalnum[mesh] == 3 * nvert
    wcom = d.subtree_com[w, m.body_rootid[weld]]
    wvel = d.cvel[w, weld]
    for j in range(nvert):
        v = m.mesh_vert[vadr + j]
        x0, x1, x2 = mat_vec3(gmat, v[0], v[1], v[2])
        x0 += gpos[0]
        x1 += gpos[1]
        x2 += gpos[2]
        for gi in range(ncontact):
            g = ids[gi]
            typ = m.geom_type[g]
            # mesh geoms without an octree have no SDF: skipped (tactile_taxel_batch)
            if typ == GEOM_MESH and m.mesh_octadr[m.geom_dataid[g]] == -1:
                continue
            op = d.geom_xpos[w, g]
            l0, l1, l2 = mat_t_vec3(d.geom_xmat[w, g], x0 - op[0], x1 - op[1], x2 - op[2])
            depth = min(geom_distance_sdf(typ, m.geom_size[g], l0, l1, l2), 0.0)
            if depth == 0:
                continue
            # relative linear velocity at the taxel of the sensor body and of the other geom's body
            # (mju_transformSpatial of each cvel to the taxel position)
            c0, c1, c2 = cross(x0 - wcom[0], x1 - wcom[1], x2 - wcom[2], wvel[0], wvel[1], wvel[2])
            b = m.geom_bodyid[g]
            ocom = d.subtree_com[w, m.body_rootid[b]]
            ovel = d.cvel[w, b]
            e0, e1, e2 = cross(x0 - ocom[0], x1 - ocom[1], x2 - ocom[2], ovel[0], ovel[1], ovel[2])
            r0 = (wvel[3] - c0) - (ovel[3] - e0)
            r1 = (wvel[4] - c1) - (ovel[4] - e1)
            r2 = (wvel[5] - c2) - (ovel[5] - e2)
            if -depth > out[k + j]:
                out[k + j] = -depth
            if has_frame:
                # slip along the taxel's tangents: the relative velocity in the geom's (= mesh) frame
                v0, v1, v2 = mat_t_vec3(gmat, r0, r1, r2)
                t = m.mesh_normal[nadr + 3 * j + 1]
                out[k + nvert + j] += abs(v0 * t[0] + v1 * t[1] + v2 * t[2])
                t = m.mesh_normal[nadr + 3 * j + 2]
                out[k + 2 * nvert + j] += abs(v0 * t[0] + v1 * t[1] + v2 * t[2])
