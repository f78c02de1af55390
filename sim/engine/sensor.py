"""Sensors and energy (engine_sensor.c): mj_sensorPos / mj_sensorVel / mj_sensorAcc and mj_energyPos /
mj_energyVel, with the helpers they need: cameras (mj_camlight), mj_subtreeVel, mj_objectVelocity /
mj_objectAcceleration, mju_insideGeom, mju_rayGeom, mj_geomDistance and the contact sensor's matching and
reductions.

Each stage entry (sensor_pos_stage, sensor_vel_stage, sensor_acc_stage) is called by the pipeline where
mj_forwardSkip / mj_inverseSkip call mj_sensor* and mj_energy*.  Sensors write d.sensordata[w] at their
sensor_adr, the cutoff is applied as apply_cutoff does, noise is never applied (as MuJoCo).  User sensors read
zero (no mjcb_sensor); tactile sensors are sim/engine/tactile.py's (compiled only with F_TACTILE), rangefinder
normals on meshes and height fields sim/engine/ray.py's (compiled only with F_RAYNORMAL); plugin
sensors are refused when the model struct is built (sim/io.py).  mj_rnePostConstraint runs only when an acceleration sensor needs it (flg_rnepost).
A sensor with a history buffer (nsample > 0) is computed or read from it as compute_or_read_sensor does (delay,
sampling interval) and fills it at mj_advance (advance_history_buffers, with the actuators' buffers).
"""

import math

import numpy as np

from sim.jit import njit
from sim.engine.history import advance_history, history_insert, history_read
from sim.engine.math import normalize3, mul_quat, cross, sub_quat, mat_vec3, mat_t_vec3
from sim.engine.kinematics import local_to_global
from sim.engine.solver import _dot as dot
from sim.engine.rne import contact_force
from sim.engine.parts import rne_post_constraint as rne_post_constraint_part
from sim.engine.ray import (
    ray_kernel,
    ray_plane,
    ray_sphere,
    ray_capsule,
    ray_ellipsoid,
    ray_cylinder,
    ray_box,
    ray_mesh_normal,
    ray_hfield_normal,
    _map,
)
from sim.engine.collision.driver import narrowphase, has_collider
from sim.jit.features import call_if, F_COLLIDE2, F_SENSOR, F_ENERGY, F_HISTORY, F_TACTILE, F_RAYNORMAL
from sim.engine.tactile import tactile_sensor
from sim.engine.collision.support import init_obj
from sim.engine.collision.gjk import ccd, ST_NX
from sim.constants import (
    OPT_DISABLE,
    OPT_ENABLE,
    OPT_GRAVITY,
    OPT_MAGNETIC,
    OPT_CCD_TOLERANCE,
    OPT_CCD_ITERATIONS,
    DSBL_SENSOR,
    DSBL_GRAVITY,
    DSBL_NATIVECCD,
    DSBL_SPRING,
    ENBL_ENERGY,
    MINVAL,
    JNT_FREE,
    JNT_BALL,
    TRN_TENDON,
    CNSTR_LIMIT_JOINT,
    CNSTR_LIMIT_TENDON,
    GEOM_PLANE,
    GEOM_SPHERE,
    GEOM_CAPSULE,
    GEOM_ELLIPSOID,
    GEOM_CYLINDER,
    GEOM_BOX,
    GEOM_HFIELD,
    GEOM_MESH,
)
from sim.constants import (
    SENS_TOUCH,
    SENS_ACCELEROMETER,
    SENS_VELOCIMETER,
    SENS_GYRO,
    SENS_FORCE,
    SENS_TORQUE,
    SENS_MAGNETOMETER,
    SENS_RANGEFINDER,
    SENS_CAMPROJECTION,
    SENS_JOINTPOS,
    SENS_JOINTVEL,
    SENS_TENDONPOS,
    SENS_TENDONVEL,
    SENS_ACTUATORPOS,
    SENS_ACTUATORVEL,
    SENS_ACTUATORFRC,
    SENS_JOINTACTFRC,
    SENS_TENDONACTFRC,
    SENS_BALLQUAT,
    SENS_BALLANGVEL,
    SENS_JOINTLIMITPOS,
    SENS_JOINTLIMITVEL,
    SENS_JOINTLIMITFRC,
    SENS_TENDONLIMITPOS,
    SENS_TENDONLIMITVEL,
    SENS_TENDONLIMITFRC,
    SENS_FRAMEPOS,
    SENS_FRAMEQUAT,
    SENS_FRAMEXAXIS,
    SENS_FRAMEZAXIS,
    SENS_FRAMELINVEL,
    SENS_FRAMEANGVEL,
    SENS_FRAMELINACC,
    SENS_SUBTREECOM,
    SENS_SUBTREELINVEL,
    SENS_SUBTREEANGMOM,
    SENS_INSIDESITE,
    SENS_GEOMDIST,
    SENS_GEOMNORMAL,
    SENS_GEOMFROMTO,
    SENS_CONTACT,
    SENS_TACTILE,
    SENS_E_POTENTIAL,
    SENS_E_KINETIC,
    SENS_CLOCK,
    SENS_USER,
)

STAGE_POS, STAGE_VEL, STAGE_ACC = 1, 2, 3
DATATYPE_REAL, DATATYPE_POSITIVE = 0, 1
OBJ_UNKNOWN, OBJ_BODY, OBJ_XBODY, OBJ_GEOM, OBJ_SITE, OBJ_CAMERA = 0, 1, 2, 5, 6, 7
CAM_TRACK, CAM_TRACKCOM, CAM_TARGETBODY, CAM_TARGETBODYCOM = 1, 2, 3, 4
PROJ_PERSPECTIVE = 0
# contact sensor data fields (mjtConDataField) and their sizes; reductions
CONDATA_SIZE = (1, 3, 3, 1, 3, 3, 3, 3, 3)
(CON_FOUND, CON_FORCE, CON_TORQUE, CON_DIST, CON_POS, CON_NORMAL, CON_TANGENT, CON_LINVEL, CON_ANGVEL) = range(9)
REDUCE_NONE, REDUCE_MINDIST, REDUCE_MAXFORCE, REDUCE_NETFORCE = 0, 1, 2, 3
# rangefinder data fields (mjtRayDataField)
RAY_DIST, RAY_DIR, RAY_ORIGIN, RAY_POINT, RAY_NORMAL, RAY_DEPTH = range(6)
MAXVAL = 1e10


# ------------------------------------------------------------------------------------------------
# small helpers (engine_util_spatial / engine_core_util)


@njit(cache=True)
def mul_sym(res, mat, vec, n, rownnz, rowadr, colind):
    """res (n,) = mat vec for a symmetric matrix in lower CSR storage, as mju_mulSymVecSparse (mj_mulM)."""
    for i in range(n):
        res[i] = 0.0
    for i in range(n):
        adr = rowadr[i]
        diag = rownnz[i] - 1
        res[i] = mat[adr + diag] * vec[i]
        for k in range(diag - 1, -1, -1):
            j = colind[adr + k]
            val = mat[adr + k]
            res[i] += val * vec[j]
            res[j] += val * vec[i]


@njit(cache=True)
def _put3(out, k, a0, a1, a2):
    """out[k:k+3] = (a0, a1, a2)."""
    out[k] = a0
    out[k + 1] = a1
    out[k + 2] = a2


@njit(cache=True)
def transform_motion(v, n0, n1, n2, o0, o1, o2):
    """Motion vector v (6,) moved from point o to point n, world orientation (mju_transformSpatial)."""
    x0, x1, x2 = cross(n0 - o0, n1 - o1, n2 - o2, v[0], v[1], v[2])
    return v[0], v[1], v[2], v[3] - x0, v[4] - x1, v[5] - x2


@njit(cache=True)
def obj_frame(d, w, objtype, objid):
    """(xpos (3,), xmat (9,)) rows of a spatial object (get_xpos_xmat)."""
    if objtype == OBJ_XBODY:
        return d.xpos[w, objid], d.xmat[w, objid]
    if objtype == OBJ_BODY:
        return d.xipos[w, objid], d.ximat[w, objid]
    if objtype == OBJ_GEOM:
        return d.geom_xpos[w, objid], d.geom_xmat[w, objid]
    if objtype == OBJ_SITE:
        return d.site_xpos[w, objid], d.site_xmat[w, objid]
    return d.cam_xpos[w, objid], d.cam_xmat[w, objid]


@njit(cache=True)
def obj_body(m, objtype, objid):
    """Body of a spatial object."""
    if objtype == OBJ_BODY or objtype == OBJ_XBODY:
        return objid
    if objtype == OBJ_GEOM:
        return m.geom_bodyid[objid]
    if objtype == OBJ_SITE:
        return m.site_bodyid[objid]
    return m.cam_bodyid[objid]


@njit(cache=True)
def obj_quat(m, d, w, objtype, objid):
    """Global orientation quaternion of an object (get_xquat)."""
    if objtype == OBJ_XBODY:
        q = d.xquat[w, objid]
        return q[0], q[1], q[2], q[3]
    if objtype == OBJ_BODY:
        b = objid
        p = m.body_iquat[objid]
    elif objtype == OBJ_GEOM:
        b = m.geom_bodyid[objid]
        p = m.geom_quat[objid]
    elif objtype == OBJ_SITE:
        b = m.site_bodyid[objid]
        p = m.site_quat[objid]
    else:
        b = m.cam_bodyid[objid]
        p = m.cam_quat[objid]
    q = d.xquat[w, b]
    return mul_quat(q[0], q[1], q[2], q[3], p[0], p[1], p[2], p[3])


@njit(cache=True)
def _motion_at(m, d, w, src, objtype, objid, local):
    """Motion vector src[w, body] (cvel or cacc, com-based) of an object's body moved to the object's origin,
    world or local orientation (the mju_transformSpatial of mj_objectVelocity / mj_objectAcceleration)."""
    b = obj_body(m, objtype, objid)
    pos, rot = obj_frame(d, w, objtype, objid)
    sc = d.subtree_com[w, m.body_rootid[b]]
    v = transform_motion(src[w, b], pos[0], pos[1], pos[2], sc[0], sc[1], sc[2])
    if not local:
        return v
    a0, a1, a2 = mat_t_vec3(rot, v[0], v[1], v[2])
    l0, l1, l2 = mat_t_vec3(rot, v[3], v[4], v[5])
    return a0, a1, a2, l0, l1, l2


@njit(cache=True)
def object_velocity(m, d, w, objtype, objid, local):
    """6D velocity (rot:lin) of an object at its origin, world or local orientation (mj_objectVelocity)."""
    if m.body_dofnum[m.body_weldid[obj_body(m, objtype, objid)]] == 0:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    return _motion_at(m, d, w, d.cvel, objtype, objid, local)


@njit(cache=True)
def object_acceleration(m, d, w, objtype, objid, local):
    """6D acceleration (rot:lin) of an object at its origin incl. the Coriolis term (mj_objectAcceleration)."""
    if m.body_dofnum[m.body_weldid[obj_body(m, objtype, objid)]] == 0:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    a = _motion_at(m, d, w, d.cacc, objtype, objid, local)
    v = _motion_at(m, d, w, d.cvel, objtype, objid, local)
    c0, c1, c2 = cross(v[0], v[1], v[2], v[3], v[4], v[5])
    return a[0], a[1], a[2], a[3] + c0, a[4] + c1, a[5] + c2


@njit(cache=True)
def inside_geom(pos, mat, size, typ, p0, p1, p2):
    """1 if point p is inside a primitive geom / site shape, else 0 (mju_insideGeom)."""
    v0 = p0 - pos[0]
    v1 = p1 - pos[1]
    v2 = p2 - pos[2]
    if typ == GEOM_SPHERE:
        return 1 if v0 * v0 + v1 * v1 + v2 * v2 < size[0] * size[0] else 0
    l0, l1, l2 = mat_t_vec3(mat, v0, v1, v2)
    if typ == GEOM_CAPSULE:
        zc = min(max(l2, -size[1]), size[1])
        return 1 if l0 * l0 + l1 * l1 + (l2 - zc) * (l2 - zc) < size[0] * size[0] else 0
    if typ == GEOM_ELLIPSOID:
        return (
            1
            if (l0 * l0 / (size[0] * size[0]) + l1 * l1 / (size[1] * size[1]) + l2 * l2 / (size[2] * size[2])) < 1
            else 0
        )
    if typ == GEOM_CYLINDER:
        return 1 if abs(l2) < size[1] and l0 * l0 + l1 * l1 < size[0] * size[0] else 0
    if typ == GEOM_BOX:
        return 1 if abs(l0) < size[0] and abs(l1) < size[1] and abs(l2) < size[2] else 0
    if typ == GEOM_PLANE:
        return 1 if l2 < 0 else 0
    return 0


@njit(cache=True)
def ray_geom(pos, mat, size, pnt, vec, typ):
    """Distance along pnt + x vec to a primitive geom, -1 if none (mju_rayGeom)."""
    if typ == GEOM_PLANE:
        return ray_plane(pos, mat, size, pnt, vec)
    if typ == GEOM_SPHERE:
        return ray_sphere(pos, size[0] * size[0], pnt, vec)
    if typ == GEOM_CAPSULE:
        return ray_capsule(pos, mat, size, pnt, vec)
    if typ == GEOM_ELLIPSOID:
        return ray_ellipsoid(pos, mat, size, pnt, vec)
    if typ == GEOM_CYLINDER:
        return ray_cylinder(pos, mat, size, pnt, vec)
    return ray_box(pos, mat, size, pnt, vec)


@njit(cache=True)
def ray_normal(m, d, w, g, pnt, vec, x, out):
    """out (3,) = surface normal of primitive geom g where pnt + x vec hits it, as the ray_* functions of
    engine_ray.c compute it (the hit face follows from the hit point)."""
    t = m.geom_type[g]
    pos = d.geom_xpos[w, g]
    mat = d.geom_xmat[w, g]
    size = m.geom_size[g]
    if t == GEOM_PLANE:
        out[0] = mat[2]
        out[1] = mat[5]
        out[2] = mat[8]
        return
    if t == GEOM_SPHERE:
        n0, n1, n2, _ = normalize3(
            pnt[0] + vec[0] * x - pos[0], pnt[1] + vec[1] * x - pos[1], pnt[2] + vec[2] * x - pos[2]
        )
        out[0] = n0
        out[1] = n1
        out[2] = n2
        return
    lp, lv = _map(pos, mat, pnt, vec)
    l0 = lp[0] + lv[0] * x
    l1 = lp[1] + lv[1] * x
    l2 = lp[2] + lv[2] * x
    if t == GEOM_CAPSULE:
        if abs(l2) <= size[1]:
            l2 = 0.0
        else:
            l2 = l2 - size[1] * (1.0 if l2 > 0 else -1.0)
        n0, n1, n2, _ = normalize3(l0, l1, l2)
    elif t == GEOM_ELLIPSOID:
        # the gradient as ray_ellipsoid forms it: l times the inverted squared sizes
        s0, s1, s2 = 1 / (size[0] * size[0]), 1 / (size[1] * size[1]), 1 / (size[2] * size[2])
        n0, n1, n2, _ = normalize3(s0 * l0, s1 * l1, s2 * l2)
    elif t == GEOM_CYLINDER:
        if abs(abs(l2) - size[1]) < abs(math.sqrt(l0 * l0 + l1 * l1) - size[0]):
            n0, n1, n2 = 0.0, 0.0, (1.0 if l2 > 0 else -1.0)
        else:
            n0, n1, n2, _ = normalize3(l0, l1, 0.0)
    else:
        r0 = abs(l0) / size[0]
        r1 = abs(l1) / size[1]
        r2 = abs(l2) / size[2]
        n0 = n1 = n2 = 0.0
        if r0 >= r1 and r0 >= r2:
            n0 = 1.0 if l0 > 0 else -1.0
        elif r1 >= r2:
            n1 = 1.0 if l1 > 0 else -1.0
        else:
            n2 = 1.0 if l2 > 0 else -1.0
    g0, g1, g2 = mat_vec3(mat, n0, n1, n2)
    out[0] = g0
    out[1] = g1
    out[2] = g2


# ------------------------------------------------------------------------------------------------
# cameras, subtree velocities, energy


@njit(cache=True)
def camlight(m, d, w):
    """cam_xpos (ncam, 3) and cam_xmat (ncam, 9) of world w (mj_camlight, cameras)."""
    cp = d.cam_xpos[w]
    cm = d.cam_xmat[w]
    xpos = d.xpos[w]
    sc = d.subtree_com[w]
    for i in range(m.ncam):
        b = m.cam_bodyid[i]
        t = m.cam_targetbodyid[i]
        local_to_global(cp, cm, i, m.cam_pos, m.cam_quat, xpos, d.xquat[w], d.xmat[w], d.xipos[w], d.ximat[w], b, 0)
        mode = m.cam_mode[i]
        if mode == CAM_TRACK or mode == CAM_TRACKCOM:
            for k in range(9):
                cm[i, k] = m.cam_mat0[i, k]
            for k in range(3):
                cp[i, k] = (xpos[b, k] + m.cam_pos0[i, k]) if mode == CAM_TRACK else (sc[b, k] + m.cam_poscom0[i, k])
        elif (mode == CAM_TARGETBODY or mode == CAM_TARGETBODYCOM) and t >= 0:
            tp = xpos[t] if mode == CAM_TARGETBODY else sc[t]
            z0, z1, z2, _ = normalize3(cp[i, 0] - tp[0], cp[i, 1] - tp[1], cp[i, 2] - tp[2])
            x0, x1, x2 = cross(0.0, 0.0, 1.0, z0, z1, z2)
            x0, x1, x2, _ = normalize3(x0, x1, x2)
            y0, y1, y2 = cross(z0, z1, z2, x0, x1, x2)
            y0, y1, y2, _ = normalize3(y0, y1, y2)
            cm[i, 0] = x0
            cm[i, 1] = y0
            cm[i, 2] = z0
            cm[i, 3] = x1
            cm[i, 4] = y1
            cm[i, 5] = z1
            cm[i, 6] = x2
            cm[i, 7] = y2
            cm[i, 8] = z2


@njit(cache=True)
def subtree_vel(m, d, w):
    """subtree_linvel, subtree_angmom (nbody, 3) of world w (mj_subtreeVel); sets flg_subtreevel."""
    bv = d.scr_sens_body[w]
    lin = d.subtree_linvel[w]
    ang = d.subtree_angmom[w]
    xipos = d.xipos[w]
    sc = d.subtree_com[w]
    for i in range(m.nbody):
        v = object_velocity(m, d, w, OBJ_BODY, i, False)
        for k in range(6):
            bv[i, k] = v[k]
        mass = m.body_mass[i]
        lin[i, 0] = v[3] * mass
        lin[i, 1] = v[4] * mass
        lin[i, 2] = v[5] * mass
        xm = d.ximat[w, i]
        e0, e1, e2 = mat_t_vec3(xm, v[0], v[1], v[2])
        e0 *= m.body_inertia[i, 0]
        e1 *= m.body_inertia[i, 1]
        e2 *= m.body_inertia[i, 2]
        a0, a1, a2 = mat_vec3(xm, e0, e1, e2)
        ang[i, 0] = a0
        ang[i, 1] = a1
        ang[i, 2] = a2
    for i in range(m.nbody - 1, -1, -1):
        if i:
            p = m.body_parentid[i]
            for k in range(3):
                lin[p, k] += lin[i, k]
        s = 1 / max(MINVAL, m.body_subtreemass[i])
        for k in range(3):
            lin[i, k] *= s
    for i in range(m.nbody - 1, 0, -1):
        p = m.body_parentid[i]
        mass = m.body_mass[i]
        c0, c1, c2 = cross(
            xipos[i, 0] - sc[i, 0],
            xipos[i, 1] - sc[i, 1],
            xipos[i, 2] - sc[i, 2],
            (bv[i, 3] - lin[i, 0]) * mass,
            (bv[i, 4] - lin[i, 1]) * mass,
            (bv[i, 5] - lin[i, 2]) * mass,
        )
        ang[i, 0] += c0
        ang[i, 1] += c1
        ang[i, 2] += c2
        for k in range(3):
            ang[p, k] += ang[i, k]
        sm = m.body_subtreemass[i]
        c0, c1, c2 = cross(
            sc[i, 0] - sc[p, 0],
            sc[i, 1] - sc[p, 1],
            sc[i, 2] - sc[p, 2],
            (lin[i, 0] - lin[p, 0]) * sm,
            (lin[i, 1] - lin[p, 1]) * sm,
            (lin[i, 2] - lin[p, 2]) * sm,
        )
        ang[p, 0] += c0
        ang[p, 1] += c1
        ang[p, 2] += c2
    d.flg_subtreevel[w] = 1


@njit(cache=True)
def poly_potential(linear, p0, p1, x):
    """Integral of mju_polyForce(t) t from 0 to x with mjNPOLY = 2 terms (mju_polyPotential, flg_odd = 0)."""
    res = 0.5 * linear * (x * x)
    xpow = x * x
    res += p0 / 3 * (xpow * x)
    xpow *= x
    res += p1 / 4 * (xpow * x)
    return res


@njit(cache=True)
def energy_pos(m, d, w):
    """energy[0] = gravitational + joint / tendon spring potential energy (mj_energyPos)."""
    e = 0.0
    flags = int(m.opt[OPT_DISABLE])
    qpos = d.qpos[w]
    if not (flags & DSBL_GRAVITY):
        g0 = m.opt[OPT_GRAVITY]
        g1 = m.opt[OPT_GRAVITY + 1]
        g2 = m.opt[OPT_GRAVITY + 2]
        for i in range(1, m.nbody):
            x = d.xipos[w, i]
            e -= m.body_mass[i] * (g0 * x[0] + g1 * x[1] + g2 * x[2])
    if not (flags & DSBL_SPRING):
        for b in range(1, m.nbody):
            for j in range(m.body_jntadr[b], m.body_jntadr[b] + m.body_jntnum[b]):
                k = m.jnt_stiffness[j]
                p0 = m.jnt_stiffnesspoly[j, 0]
                p1 = m.jnt_stiffnesspoly[j, 1]
                if k == 0 and p0 == 0 and p1 == 0:
                    continue
                a = m.jnt_qposadr[j]
                jt = m.jnt_type[j]
                if jt == JNT_FREE or jt == JNT_BALL:
                    if jt == JNT_FREE:
                        x0 = qpos[a] - m.qpos_spring[a]
                        x1 = qpos[a + 1] - m.qpos_spring[a + 1]
                        x2 = qpos[a + 2] - m.qpos_spring[a + 2]
                        e += poly_potential(k, p0, p1, math.sqrt(x0 * x0 + x1 * x1 + x2 * x2))
                        a += 3
                    s = m.qpos_spring
                    x0, x1, x2 = sub_quat(
                        qpos[a], qpos[a + 1], qpos[a + 2], qpos[a + 3], s[a], s[a + 1], s[a + 2], s[a + 3]
                    )
                    e += poly_potential(k, p0, p1, math.sqrt(x0 * x0 + x1 * x1 + x2 * x2))
                else:
                    e += poly_potential(k, p0, p1, qpos[a] - m.qpos_spring[a])
        for i in range(m.ntendon):
            length = d.ten_length[w, i]
            lo = m.tendon_lengthspring[i, 0]
            hi = m.tendon_lengthspring[i, 1]
            x = length - hi if length > hi else (length - lo if length < lo else 0.0)
            e += poly_potential(m.tendon_stiffness[i], m.tendon_stiffnesspoly[i, 0], m.tendon_stiffnesspoly[i, 1], x)
    d.energy[w, 0] = e
    d.flg_energypos[w] = 1


@njit(cache=True)
def energy_vel(m, d, w):
    """energy[1] = 0.5 qvel' M qvel (mj_energyVel)."""
    vec = d.scr_sens_nv[w]
    qvel = d.qvel[w]
    mul_sym(vec, d.M[w], qvel, m.nv, m.M_rownnz, m.M_rowadr, m.M_colind)
    d.energy[w, 1] = 0.5 * dot(vec, qvel, m.nv)
    d.flg_energyvel[w] = 1


# ------------------------------------------------------------------------------------------------
# distances and rays


@njit(cache=True)
def _ccd_pair(t1, t2):
    """The MuJoCo collider of type pair t1 <= t2 is mjc_Convex or mjc_BoxBox (mj_geomDistance uses nativeccd)."""
    if t1 == GEOM_SPHERE:
        return t2 == GEOM_ELLIPSOID or t2 > GEOM_BOX
    if t1 == GEOM_CAPSULE:
        return t2 != GEOM_CAPSULE and t2 != GEOM_BOX
    return t1 >= GEOM_ELLIPSOID


@njit(cache=True)
def ccd_distance(m, d, w, geom1, geom2, distmax, fromto):
    """Native-ccd distance of two convex geoms capped at distmax, witness segment into fromto
    (mj_geomDistanceCCD)."""
    init_obj(m, d, w, 0, geom1, 0.0)
    init_obj(m, d, w, 1, geom2, 0.0)
    res = ccd(m, d, w, m.opt[OPT_CCD_TOLERANCE], int(m.opt[OPT_CCD_ITERATIONS]), 1, distmax)
    if d.scr_gjk_st[w, ST_NX] > 0:
        for k in range(3):
            fromto[k] = d.scr_gjk_x1[w, 0, k]
            fromto[3 + k] = d.scr_gjk_x2[w, 0, k]
    return res if res < distmax else distmax


# compiled only for feature sets with the general colliders (a model with such a geom pair has them)
_ccd_distance = call_if(F_COLLIDE2, ccd_distance, 0.0)


@njit(cache=True)
def geom_distance(m, d, w, geom1, geom2, distmax, fromto, F):
    """Smallest signed distance between two geoms capped at distmax, and fromto (6,) the segment between
    their nearest points (mj_geomDistance)."""
    for k in range(6):
        fromto[k] = 0.0
    dist = distmax
    flip = m.geom_type[geom1] > m.geom_type[geom2]
    g1 = geom2 if flip else geom1
    g2 = geom1 if flip else geom2
    t1 = m.geom_type[g1]
    t2 = m.geom_type[g2]
    if not has_collider(t1, t2):
        return dist
    if _ccd_pair(t1, t2) and not int(m.opt[OPT_DISABLE]) & DSBL_NATIVECCD:
        return _ccd_distance(F, m, d, w, geom1, geom2, distmax, fromto)
    # the pair's collider with distmax as the margin (with nativeccd disabled: libccd's MPR for mjc_Convex pairs)
    n = narrowphase(m, d, w, g1, g2, distmax, F)
    smallest = -1
    for i in range(n):
        if d.scr_con_dist[w, i] < dist:
            dist = d.scr_con_dist[w, i]
            smallest = i
    if smallest >= 0:
        h = 0.5 * (-1.0 if flip else 1.0) * dist
        for k in range(3):
            p = d.scr_con_pos[w, smallest, k]
            nk = d.scr_con_normal[w, smallest, k]
            fromto[k] = p + nk * -h
            fromto[3 + k] = p + nk * h
    return dist


@njit(cache=True)
def ray_normal_data(m, d, w, g, bvh, pnt, vec, stack, out):
    """out (3,) = surface normal of mesh or height-field geom g where pnt + vec hits it (mj_rayMesh,
    mj_rayHfield with normal: the geom's ray cast again, now with its normal)."""
    pos = d.geom_xpos[w, g]
    mat = d.geom_xmat[w, g]
    if m.geom_type[g] == GEOM_MESH:
        _, n0, n1, n2 = ray_mesh_normal(m, bvh, pos, mat, m.geom_size[g], g, pnt, vec, stack)
    else:
        _, n0, n1, n2 = ray_hfield_normal(m, pos, mat, g, pnt, vec)
    out[0] = n0
    out[1] = n1
    out[2] = n2


@njit(cache=True)
def ray_normal_geom(m, d, w, g, bvh, pnt, vec, x, stack, out):
    """out (3,) = surface normal of geom g of any type mj_ray casts on where pnt + x vec hits it (the normal
    output of mj_ray; sim.api.ray's)."""
    t = m.geom_type[g]
    if t == GEOM_MESH or t == GEOM_HFIELD:
        ray_normal_data(m, d, w, g, bvh, pnt, vec, stack, out)
    else:
        ray_normal(m, d, w, g, pnt, vec, x, out)


# normals on meshes and height fields are compiled only for feature sets with F_RAYNORMAL
_ray_normal_data = call_if(F_RAYNORMAL, ray_normal_data)


@njit(cache=True)
def ray_cast(m, d, w, pnt, vec, bodyexclude, normal, F):
    """mj_ray(m, d, pnt, vec, NULL, 1, bodyexclude): distance to the nearest visible geom (-1: none); the
    surface normal there into normal (3,) (zero without a hit; on meshes and height fields only with
    F_RAYNORMAL)."""
    vis = (m.geom_matid, m.geom_group, m.ray_geom_alpha, m.ray_mat_alpha)
    bvh = (m.bvh_aabb, m.bvh_child, m.bvh_nodeid, m.mesh_bvhadr)
    dist, gid = ray_kernel(
        m, d, w, vis, bvh, pnt, vec, d.scr_sens_group[w], False, True, bodyexclude, d.scr_sens_stack[w]
    )
    normal[0] = 0.0
    normal[1] = 0.0
    normal[2] = 0.0
    if gid >= 0:
        t = m.geom_type[gid]
        if t != GEOM_MESH and t != GEOM_HFIELD:
            ray_normal(m, d, w, gid, pnt, vec, dist, normal)
        else:
            _ray_normal_data(F, m, d, w, gid, bvh, pnt, vec, d.scr_sens_stack[w], normal)
    return dist


@njit(cache=True)
def fill_raydata(out, k, spec, dist, origin, vec, normal, cam, cz0, cz1, cz2):
    """Write one ray's rangefinder fields (dist, dir, origin, point, normal, depth per spec) at out[k:];
    returns the next index (fill_raydata).  cam: camera depth (projection on the camera axis cz)."""
    hit = dist >= 0
    if spec & (1 << RAY_DIST):
        out[k] = dist
        k += 1
    if spec & (1 << RAY_DIR):
        for c in range(3):
            out[k + c] = vec[c] if hit else 0.0
        k += 3
    if spec & (1 << RAY_ORIGIN):
        for c in range(3):
            out[k + c] = origin[c]
        k += 3
    p0 = p1 = p2 = 0.0
    if hit:
        p0 = origin[0] + vec[0] * dist
        p1 = origin[1] + vec[1] * dist
        p2 = origin[2] + vec[2] * dist
    if spec & (1 << RAY_POINT):
        out[k] = p0
        out[k + 1] = p1
        out[k + 2] = p2
        k += 3
    if spec & (1 << RAY_NORMAL):
        for c in range(3):
            out[k + c] = normal[c] if hit else 0.0
        k += 3
    if spec & (1 << RAY_DEPTH):
        if not hit:
            out[k] = -1.0
        elif cam:
            out[k] = -((p0 - origin[0]) * cz0 + (p1 - origin[1]) * cz1 + (p2 - origin[2]) * cz2)
        else:
            out[k] = dist
        k += 1
    return k


@njit(cache=True)
def cam_intrinsics(m, c):
    """(fx, fy, cx, cy, extent) of camera c in pixels (mju_camIntrinsics; intrinsic/sensorsize in float32 as
    MuJoCo computes them)."""
    width = m.cam_resolution[c, 0]
    height = m.cam_resolution[c, 1]
    ss0 = np.float32(m.cam_sensorsize[c, 0])
    ss1 = np.float32(m.cam_sensorsize[c, 1])
    if m.cam_projection[c] == PROJ_PERSPECTIVE:
        if ss0 != 0 and ss1 != 0:
            fx = float(np.float32(m.cam_intrinsic[c, 0]) / ss0 * np.float32(width))
            fy = float(np.float32(m.cam_intrinsic[c, 1]) / ss1 * np.float32(height))
            cx = float(np.float32(m.cam_intrinsic[c, 2]) / ss0 * np.float32(width))
            cy = float(np.float32(m.cam_intrinsic[c, 3]) / ss1 * np.float32(height))
        else:
            fx = 0.5 / math.tan(m.cam_fovy[c] * math.pi / 360.0) * height
            fy = fx
            cx = width / 2.0
            cy = height / 2.0
    else:
        fx = width / 2.0
        fy = height / 2.0
        cx = fx
        cy = fy
    return fx, fy, cx, cy, m.cam_fovy[c]


@njit(cache=True)
def rangefinder(m, d, w, i, out, k, F):
    """Rangefinder i: one ray along the site z axis, or one per camera pixel (mj_computeSensorPos)."""
    spec = m.sensor_intprm[i, 0]
    objid = m.sensor_objid[i]
    vec = d.scr_sens_vec[w, 0]
    org = d.scr_sens_vec[w, 1]
    nrm = d.scr_sens_vec[w, 2]
    if m.sensor_objtype[i] == OBJ_SITE:
        mat = d.site_xmat[w, objid]
        vec[0] = mat[2]
        vec[1] = mat[5]
        vec[2] = mat[8]
        for c in range(3):
            org[c] = d.site_xpos[w, objid, c]
        dist = ray_cast(m, d, w, org, vec, m.site_bodyid[objid], nrm, F)
        fill_raydata(out, k, spec, dist, org, vec, nrm, False, 0.0, 0.0, 0.0)
        return
    width = m.cam_resolution[objid, 0]
    height = m.cam_resolution[objid, 1]
    cpos = d.cam_xpos[w, objid]
    cmat = d.cam_xmat[w, objid]
    fx, fy, cx, cy, extent = cam_intrinsics(m, objid)
    persp = m.cam_projection[objid] == PROJ_PERSPECTIVE
    for row in range(height):
        for col in range(width):
            px = col + 0.5 - cx
            py = row + 0.5 - cy
            if persp:
                for c in range(3):
                    org[c] = cpos[c]
                v0, v1, v2 = mat_vec3(cmat, px / fx, -py / fy, -1.0)
                v0, v1, v2, _ = normalize3(v0, v1, v2)
            else:
                v0 = -cmat[2]
                v1 = -cmat[5]
                v2 = -cmat[8]
                half = extent / 2
                o0, o1, o2 = mat_vec3(cmat, px / fx * half, -py / fy * half, 0.0)
                org[0] = cpos[0] + o0
                org[1] = cpos[1] + o1
                org[2] = cpos[2] + o2
            vec[0] = v0
            vec[1] = v1
            vec[2] = v2
            dist = ray_cast(m, d, w, org, vec, m.cam_bodyid[objid], nrm, F)
            k = fill_raydata(out, k, spec, dist, org, vec, nrm, True, cmat[2], cmat[5], cmat[8])


@njit(cache=True)
def cam_project(m, d, w, i, out, k):
    """Pixel coordinates of site objid in camera refid (cam_project)."""
    c = m.sensor_refid[i]
    s = m.sensor_objid[i]
    ss0 = np.float32(m.cam_sensorsize[c, 0])
    ss1 = np.float32(m.cam_sensorsize[c, 1])
    r0 = m.cam_resolution[c, 0]
    r1 = m.cam_resolution[c, 1]
    if ss0 != 0 and ss1 != 0:
        fx = float(np.float32(m.cam_intrinsic[c, 0]) / ss0 * np.float32(r0))
        fy = float(np.float32(m.cam_intrinsic[c, 1]) / ss1 * np.float32(r1))
    else:
        fx = 0.5 / math.tan(m.cam_fovy[c] * math.pi / 360.0) * r1
        fy = fx
    cp = d.cam_xpos[w, c]
    sp = d.site_xpos[w, s]
    p0, p1, p2 = mat_t_vec3(d.cam_xmat[w, c], sp[0] - cp[0], sp[1] - cp[1], sp[2] - cp[2])
    den = p2
    if abs(den) < MINVAL:
        den = min(den, -MINVAL) if den < 0 else max(den, MINVAL)
    out[k] = -fx * (p0 / den) + 0.5 * r0
    out[k + 1] = fy * (p1 / den) + 0.5 * r1


# ------------------------------------------------------------------------------------------------
# contact sensor


@njit(cache=True)
def _check_match(m, body, geom, typ, oid):
    """Contact side (body, geom) matches a sensor object (checkMatch)."""
    if typ == OBJ_UNKNOWN or typ == OBJ_SITE:
        return True
    if typ == OBJ_GEOM:
        return oid == geom
    if typ == OBJ_BODY:
        return oid == body
    if typ == OBJ_XBODY:
        while body > oid:
            body = m.body_parentid[body]
        return body == oid
    return False


@njit(cache=True)
def match_contact(m, d, w, c, type1, id1, type2, id2):
    """0: contact c does not match the sensor; 1: it does; -1: it does with the normal flipped (matchContact)."""
    if type1 == OBJ_UNKNOWN and type2 == OBJ_UNKNOWN:
        return 1
    if type1 == OBJ_SITE:
        p = d.contact_pos[w, c]
        if not inside_geom(
            d.site_xpos[w, id1], d.site_xmat[w, id1], m.site_size[id1], m.site_type[id1], p[0], p[1], p[2]
        ):
            return 0
    g1 = d.contact_geom[w, c, 0]
    g2 = d.contact_geom[w, c, 1]
    b1 = m.geom_bodyid[g1]
    b2 = m.geom_bodyid[g2]
    m11 = _check_match(m, b1, g1, type1, id1)
    m12 = _check_match(m, b2, g2, type1, id1)
    m21 = _check_match(m, b1, g1, type2, id2)
    m22 = _check_match(m, b2, g2, type2, id2)
    if not m11 and not m12:
        return 0
    if not m21 and not m22:
        return 0
    if type1 != OBJ_UNKNOWN and type2 != OBJ_UNKNOWN:
        reg = m11 and m22
        rev = m12 and m21
        if reg:
            return 1
        if rev:
            return -1
        return 0
    if type1 != OBJ_UNKNOWN:
        return 1 if m11 else -1
    return 1 if m22 else -1


@njit(cache=True)
def contact_velocity(m, d, w, c):
    """Velocity of geom 2 relative to geom 1 at contact c in the contact frame: (linear, angular)."""
    p = d.contact_pos[w, c]
    r0 = r1 = r2 = r3 = r4 = r5 = 0.0
    for side in range(2):
        b = m.geom_bodyid[d.contact_geom[w, c, side]]
        if m.body_dofnum[m.body_weldid[b]] == 0:
            continue
        sc = d.subtree_com[w, m.body_rootid[b]]
        v = transform_motion(d.cvel[w, b], p[0], p[1], p[2], sc[0], sc[1], sc[2])
        s = 1.0 if side else -1.0
        r0 += s * v[3]
        r1 += s * v[4]
        r2 += s * v[5]
        r3 += s * v[0]
        r4 += s * v[1]
        r5 += s * v[2]
    fr = d.contact_frame[w, c]
    l0, l1, l2 = mat_vec3(fr, r0, r1, r2)
    a0, a1, a2 = mat_vec3(fr, r3, r4, r5)
    return l0, l1, l2, a0, a1, a2


@njit(cache=True)
def contact_sensor(m, d, w, i, out, k0):
    """Contact sensor i: matching contacts, reduced (none / mindist / maxforce / netforce), into num slots of
    the selected data fields (mjSENS_CONTACT)."""
    spec = m.sensor_intprm[i, 0]
    reduce = m.sensor_intprm[i, 1]
    dim = m.sensor_dim[i]
    size = 0
    for f in range(9):
        if spec & (1 << f):
            size += CONDATA_SIZE[f]
    num = dim // size
    for k in range(dim):
        out[k0 + k] = 0.0
    crit = d.scr_sens_match[w]
    ids = d.scr_sens_mid[w, 0]
    flips = d.scr_sens_mid[w, 1]
    t1 = m.sensor_objtype[i]
    i1 = m.sensor_objid[i]
    t2 = m.sensor_reftype[i]
    i2 = m.sensor_refid[i]
    nmatch = 0
    for c in range(d.ncon[w]):
        mt = match_contact(m, d, w, c, t1, i1, t2, i2)
        if mt == 0:
            continue
        ids[nmatch] = c
        flips[nmatch] = 1 if mt < 0 else 0
        if reduce == REDUCE_MINDIST:
            crit[nmatch] = d.contact_dist[w, c]
        elif reduce == REDUCE_MAXFORCE:
            f = contact_force(m, d, w, c)
            crit[nmatch] = -(f[0] * f[0] + f[1] * f[1] + f[2] * f[2])
        nmatch += 1
    nslot = min(num, nmatch)
    if reduce == REDUCE_NETFORCE and nmatch > 0:
        # force-weighted centroid of the contact points, net wrench about it (total_wrench)
        q0 = q1 = q2 = 0.0
        total = 0.0
        for j in range(nmatch):
            f = contact_force(m, d, w, ids[j])
            sg = -1.0 if flips[j] else 1.0
            wt = math.sqrt((f[0] * sg) * (f[0] * sg) + (f[1] * sg) * (f[1] * sg) + (f[2] * sg) * (f[2] * sg))
            p = d.contact_pos[w, ids[j]]
            q0 += p[0] * wt
            q1 += p[1] * wt
            q2 += p[2] * wt
            total += wt
        sc = 1.0 / max(total, MINVAL)
        q0 *= sc
        q1 *= sc
        q2 *= sc
        F0 = F1 = F2 = T0 = T1 = T2 = 0.0
        for j in range(nmatch):
            f = contact_force(m, d, w, ids[j])
            sg = -1.0 if flips[j] else 1.0
            fr = d.contact_frame[w, ids[j]]
            p = d.contact_pos[w, ids[j]]
            f0, f1, f2 = mat_t_vec3(fr, f[0] * sg, f[1] * sg, f[2] * sg)
            t0, t1, t2 = mat_t_vec3(fr, f[3] * sg, f[4] * sg, f[5] * sg)
            F0 += f0
            F1 += f1
            F2 += f2
            T0 += t0
            T1 += t1
            T2 += t2
            c0, c1, c2 = cross(p[0] - q0, p[1] - q1, p[2] - q2, f0, f1, f2)
            T0 += c0
            T1 += c1
            T2 += c2
        k = k0
        if spec & (1 << CON_FOUND):
            out[k] = nmatch
            k += 1
        if spec & (1 << CON_FORCE):
            _put3(out, k, F0, F1, F2)
            k += 3
        if spec & (1 << CON_TORQUE):
            _put3(out, k, T0, T1, T2)
            k += 3
        if spec & (1 << CON_DIST):
            k += 1
        if spec & (1 << CON_POS):
            _put3(out, k, q0, q1, q2)
            k += 3
        if spec & (1 << CON_NORMAL):
            out[k] = 1.0
            k += 3
        if spec & (1 << CON_TANGENT):
            out[k + 1] = 1.0
        return
    if reduce == REDUCE_NETFORCE:
        return
    if reduce == REDUCE_MINDIST or reduce == REDUCE_MAXFORCE:
        # the nslot smallest (criterion, contact id), ascending (ContactSelect)
        for s in range(nslot):
            best = s
            for j in range(s + 1, nmatch):
                if crit[j] < crit[best] or (crit[j] == crit[best] and ids[j] < ids[best]):
                    best = j
            if best != s:
                cv = crit[s]
                crit[s] = crit[best]
                crit[best] = cv
                iv = ids[s]
                ids[s] = ids[best]
                ids[best] = iv
                iv = flips[s]
                flips[s] = flips[best]
                flips[best] = iv
    for s in range(nslot):
        c = ids[s]
        flip = flips[s] != 0
        k = k0 + s * size
        if spec & (1 << CON_FOUND):
            out[k] = nmatch
            k += 1
        if spec & ((1 << CON_FORCE) | (1 << CON_TORQUE)):
            f = contact_force(m, d, w, c)
            if spec & (1 << CON_FORCE):
                _put3(out, k, f[0], f[1], -f[2] if flip else f[2])
                k += 3
            if spec & (1 << CON_TORQUE):
                _put3(out, k, f[3], f[4], -f[5] if flip else f[5])
                k += 3
        if spec & (1 << CON_DIST):
            out[k] = d.contact_dist[w, c]
            k += 1
        if spec & (1 << CON_POS):
            for q in range(3):
                out[k + q] = d.contact_pos[w, c, q]
            k += 3
        if spec & (1 << CON_NORMAL):
            for q in range(3):
                out[k + q] = -d.contact_frame[w, c, q] if flip else d.contact_frame[w, c, q]
            k += 3
        if spec & (1 << CON_TANGENT):
            for q in range(3):
                out[k + q] = -d.contact_frame[w, c, 3 + q] if flip else d.contact_frame[w, c, 3 + q]
            k += 3
        if spec & ((1 << CON_LINVEL) | (1 << CON_ANGVEL)):
            v = contact_velocity(m, d, w, c)
            if spec & (1 << CON_LINVEL):
                _put3(out, k, v[0], v[1], -v[2] if flip else v[2])
                k += 3
            if spec & (1 << CON_ANGVEL):
                _put3(out, k, v[3], v[4], -v[5] if flip else v[5])


# ------------------------------------------------------------------------------------------------
# one sensor, stages


@njit(cache=True)
def _limit_row(d, w, typ, oid):
    """First efc row of limit type typ on object oid among the limit/contact rows, -1 if none."""
    for j in range(d.ne[w] + d.nf[w], d.nefc[w]):
        if d.efc_type[w, j] == typ and d.efc_id[w, j] == oid:
            return j
    return -1


@njit(cache=True)
def compute_sensor(m, d, w, i, out, F):
    """Evaluate sensor i into out[sensor_adr[i]:] (mj_computeSensorPos / Vel / Acc)."""
    t = m.sensor_type[i]
    k = m.sensor_adr[i]
    objtype = m.sensor_objtype[i]
    objid = m.sensor_objid[i]
    reftype = m.sensor_reftype[i]
    refid = m.sensor_refid[i]
    if t == SENS_USER:
        # zero (no mjcb_sensor); MuJoCo still prepares the stage's lazy quantities for the callback
        for j in range(m.sensor_dim[i]):
            out[k + j] = 0.0
        if m.sensor_needstage[i] == STAGE_VEL and not d.flg_subtreevel[w]:
            subtree_vel(m, d, w)
        elif m.sensor_needstage[i] == STAGE_ACC and not d.flg_rnepost[w]:
            rne_post_constraint_part(m, d, w, F)
            d.flg_rnepost[w] = 1
    elif t == SENS_JOINTPOS:
        out[k] = d.qpos[w, m.jnt_qposadr[objid]]
    elif t == SENS_JOINTVEL:
        out[k] = d.qvel[w, m.jnt_dofadr[objid]]
    elif t == SENS_TENDONPOS:
        out[k] = d.ten_length[w, objid]
    elif t == SENS_TENDONVEL:
        out[k] = d.ten_velocity[w, objid]
    elif t == SENS_ACTUATORPOS or t == SENS_ACTUATORVEL or t == SENS_ACTUATORFRC:
        src = (
            d.actuator_length[w]
            if t == SENS_ACTUATORPOS
            else (d.actuator_velocity[w] if t == SENS_ACTUATORVEL else d.actuator_force[w])
        )
        a = m.actuator_outadr[objid]
        for j in range(m.sensor_dim[i]):
            out[k + j] = src[a + j]
    elif t == SENS_BALLQUAT:
        a = m.jnt_qposadr[objid]
        q = d.qpos[w]
        n = math.sqrt(q[a] * q[a] + q[a + 1] * q[a + 1] + q[a + 2] * q[a + 2] + q[a + 3] * q[a + 3])
        if n < MINVAL:
            out[k] = 1.0
            out[k + 1] = 0.0
            out[k + 2] = 0.0
            out[k + 3] = 0.0
        else:
            inv = 1.0 / n
            for j in range(4):
                out[k + j] = q[a + j] * inv
    elif t == SENS_BALLANGVEL:
        a = m.jnt_dofadr[objid]
        for j in range(3):
            out[k + j] = d.qvel[w, a + j]
    elif (
        t == SENS_JOINTLIMITPOS
        or t == SENS_JOINTLIMITVEL
        or t == SENS_JOINTLIMITFRC
        or t == SENS_TENDONLIMITPOS
        or t == SENS_TENDONLIMITVEL
        or t == SENS_TENDONLIMITFRC
    ):
        joint = t == SENS_JOINTLIMITPOS or t == SENS_JOINTLIMITVEL or t == SENS_JOINTLIMITFRC
        j = _limit_row(d, w, CNSTR_LIMIT_JOINT if joint else CNSTR_LIMIT_TENDON, objid)
        out[k] = 0.0
        if j >= 0:
            if t == SENS_JOINTLIMITPOS or t == SENS_TENDONLIMITPOS:
                out[k] = d.efc_pos[w, j] - d.efc_margin[w, j]
            elif t == SENS_JOINTLIMITVEL or t == SENS_TENDONLIMITVEL:
                out[k] = d.efc_vel[w, j]
            else:
                out[k] = d.efc_force[w, j]
    elif t == SENS_JOINTACTFRC:
        out[k] = d.qfrc_actuator[w, m.jnt_dofadr[objid]]
    elif t == SENS_TENDONACTFRC:
        frc = 0.0
        for j in range(m.nu):
            if m.actuator_trntype[j] == TRN_TENDON and m.actuator_trnid[j, 0] == objid:
                frc += d.actuator_force[w, m.actuator_outadr[j]]
        out[k] = frc
    elif t == SENS_MAGNETOMETER:
        a0, a1, a2 = mat_t_vec3(
            d.site_xmat[w, objid], m.opt[OPT_MAGNETIC], m.opt[OPT_MAGNETIC + 1], m.opt[OPT_MAGNETIC + 2]
        )
        _put3(out, k, a0, a1, a2)
    elif t == SENS_CAMPROJECTION:
        cam_project(m, d, w, i, out, k)
    elif t == SENS_RANGEFINDER:
        rangefinder(m, d, w, i, out, k, F)
    elif t == SENS_FRAMEPOS or (t >= SENS_FRAMEXAXIS and t <= SENS_FRAMEZAXIS):
        xpos, xmat = obj_frame(d, w, objtype, objid)
        if t == SENS_FRAMEPOS:
            v0, v1, v2 = xpos[0], xpos[1], xpos[2]
        else:
            off = t - SENS_FRAMEXAXIS
            v0, v1, v2 = xmat[off], xmat[off + 3], xmat[off + 6]
        if refid >= 0:
            rpos, rmat = obj_frame(d, w, reftype, refid)
            if t == SENS_FRAMEPOS:
                v0, v1, v2 = mat_t_vec3(rmat, v0 - rpos[0], v1 - rpos[1], v2 - rpos[2])
            else:
                v0, v1, v2 = mat_t_vec3(rmat, v0, v1, v2)
        _put3(out, k, v0, v1, v2)
    elif t == SENS_FRAMEQUAT:
        q0, q1, q2, q3 = obj_quat(m, d, w, objtype, objid)
        if refid >= 0:
            r0, r1, r2, r3 = obj_quat(m, d, w, reftype, refid)
            q0, q1, q2, q3 = mul_quat(r0, -r1, -r2, -r3, q0, q1, q2, q3)
        out[k] = q0
        out[k + 1] = q1
        out[k + 2] = q2
        out[k + 3] = q3
    elif t == SENS_SUBTREECOM:
        for j in range(3):
            out[k + j] = d.subtree_com[w, objid, j]
    elif t == SENS_INSIDESITE:
        xpos, xmat = obj_frame(d, w, objtype, objid)
        if objtype == OBJ_BODY and objid > 0 and m.body_mass[objid] < MINVAL and m.body_subtreemass[objid] >= MINVAL:
            xpos = d.subtree_com[w, objid]
        out[k] = inside_geom(
            d.site_xpos[w, refid],
            d.site_xmat[w, refid],
            m.site_size[refid],
            m.site_type[refid],
            xpos[0],
            xpos[1],
            xpos[2],
        )
    elif t == SENS_GEOMDIST or t == SENS_GEOMNORMAL or t == SENS_GEOMFROMTO:
        cutoff = m.sensor_cutoff[i]
        dist = cutoff
        fr = d.scr_sens_ft[w, 0]
        tmp = d.scr_sens_ft[w, 1]
        if objtype == OBJ_BODY:
            n1 = int(m.body_geomnum[objid])
            id1 = int(m.body_geomadr[objid])
        else:
            n1 = 1
            id1 = int(objid)
        if reftype == OBJ_BODY:
            n2 = int(m.body_geomnum[refid])
            id2 = int(m.body_geomadr[refid])
        else:
            n2 = 1
            id2 = int(refid)
        for j in range(6):
            fr[j] = 0.0
        for g1 in range(id1, id1 + n1):
            for g2 in range(id2, id2 + n2):
                dn = geom_distance(m, d, w, g1, g2, cutoff, tmp, F)
                if dn < dist:
                    dist = dn
                    for j in range(6):
                        fr[j] = tmp[j]
        if t == SENS_GEOMDIST:
            out[k] = dist
        elif t == SENS_GEOMNORMAL:
            v0 = fr[3] - fr[0]
            v1 = fr[4] - fr[1]
            v2 = fr[5] - fr[2]
            if v0 != 0 or v1 != 0 or v2 != 0:
                v0, v1, v2, _ = normalize3(v0, v1, v2)
            _put3(out, k, v0, v1, v2)
        else:
            for j in range(6):
                out[k + j] = fr[j]
    elif t == SENS_E_POTENTIAL:
        if not d.flg_energypos[w]:
            energy_pos(m, d, w)
        out[k] = d.energy[w, 0]
    elif t == SENS_E_KINETIC:
        if not d.flg_energyvel[w]:
            energy_vel(m, d, w)
        out[k] = d.energy[w, 1]
    elif t == SENS_CLOCK:
        out[k] = d.time[w]
    elif t == SENS_VELOCIMETER or t == SENS_GYRO:
        v = object_velocity(m, d, w, OBJ_SITE, objid, True)
        if t == SENS_VELOCIMETER:
            _put3(out, k, v[3], v[4], v[5])
        else:
            _put3(out, k, v[0], v[1], v[2])
    elif t == SENS_FRAMELINVEL or t == SENS_FRAMEANGVEL:
        v0, v1, v2, v3, v4, v5 = object_velocity(m, d, w, objtype, objid, False)
        if refid >= 0:
            xpos, xmat = obj_frame(d, w, objtype, objid)
            rpos, rmat = obj_frame(d, w, reftype, refid)
            r = object_velocity(m, d, w, reftype, refid, False)
            c0, c1, c2 = cross(xpos[0] - rpos[0], xpos[1] - rpos[1], xpos[2] - rpos[2], r[0], r[1], r[2])
            w0, w1, w2 = mat_t_vec3(rmat, v0 - r[0], v1 - r[1], v2 - r[2])
            l0, l1, l2 = mat_t_vec3(rmat, (v3 - r[3]) + c0, (v4 - r[4]) + c1, (v5 - r[5]) + c2)
            v0, v1, v2, v3, v4, v5 = w0, w1, w2, l0, l1, l2
        if t == SENS_FRAMELINVEL:
            _put3(out, k, v3, v4, v5)
        else:
            _put3(out, k, v0, v1, v2)
    elif t == SENS_SUBTREELINVEL or t == SENS_SUBTREEANGMOM:
        if not d.flg_subtreevel[w]:
            subtree_vel(m, d, w)
        src = d.subtree_linvel[w, objid] if t == SENS_SUBTREELINVEL else d.subtree_angmom[w, objid]
        _put3(out, k, src[0], src[1], src[2])
    elif t == SENS_TOUCH:
        body = m.site_bodyid[objid]
        s = 0.0
        ray = d.scr_sens_vec[w, 0]
        for c in range(d.ncon[w]):
            b0 = m.geom_bodyid[d.contact_geom[w, c, 0]]
            b1 = m.geom_bodyid[d.contact_geom[w, c, 1]]
            if d.contact_efc_address[w, c] < 0 or (body != b0 and body != b1):
                continue
            cf = contact_force(m, d, w, c)
            if cf[0] <= 0:
                continue
            fr = d.contact_frame[w, c]
            r0, r1, r2, _ = normalize3(fr[0] * cf[0], fr[1] * cf[0], fr[2] * cf[0])
            if body == b1:
                r0 = r0 * -1
                r1 = r1 * -1
                r2 = r2 * -1
            ray[0] = r0
            ray[1] = r1
            ray[2] = r2
            if (
                ray_geom(
                    d.site_xpos[w, objid],
                    d.site_xmat[w, objid],
                    m.site_size[objid],
                    d.contact_pos[w, c],
                    ray,
                    m.site_type[objid],
                )
                >= 0
            ):
                s += cf[0]
        out[k] = s
    elif t == SENS_CONTACT:
        contact_sensor(m, d, w, i, out, k)
    elif t == SENS_TACTILE:
        _tactile_sensor(F, m, d, w, i, out, k)
    else:
        # acceleration sensors that read cacc / cfrc_int: mj_rnePostConstraint on demand
        if not d.flg_rnepost[w]:
            rne_post_constraint_part(m, d, w, F)
            d.flg_rnepost[w] = 1
        if t == SENS_ACCELEROMETER:
            acc = object_acceleration(m, d, w, OBJ_SITE, objid, True)
            _put3(out, k, acc[3], acc[4], acc[5])
        elif t == SENS_FORCE or t == SENS_TORQUE:
            b = m.site_bodyid[objid]
            sp = d.site_xpos[w, objid]
            sc = d.subtree_com[w, m.body_rootid[b]]
            fi = d.cfrc_int[w, b]
            c0, c1, c2 = cross(sp[0] - sc[0], sp[1] - sc[1], sp[2] - sc[2], fi[3], fi[4], fi[5])
            sm = d.site_xmat[w, objid]
            if t == SENS_FORCE:
                a0, a1, a2 = mat_t_vec3(sm, fi[3], fi[4], fi[5])
            else:
                a0, a1, a2 = mat_t_vec3(sm, fi[0] - c0, fi[1] - c1, fi[2] - c2)
            _put3(out, k, a0, a1, a2)
        else:
            acc = object_acceleration(m, d, w, objtype, objid, False)
            if t == SENS_FRAMELINACC:
                _put3(out, k, acc[3], acc[4], acc[5])
            else:
                _put3(out, k, acc[0], acc[1], acc[2])
    # cutoff (apply_cutoff): not for contact and fromto sensors, real: both sides, positive: upper side
    cutoff = m.sensor_cutoff[i]
    if cutoff > 0 and t != SENS_CONTACT and t != SENS_GEOMFROMTO:
        dt = m.sensor_datatype[i]
        for j in range(k, k + m.sensor_dim[i]):
            if dt == DATATYPE_REAL:
                if out[j] < -cutoff:
                    out[j] = -cutoff
                elif out[j] > cutoff:
                    out[j] = cutoff
            elif dt == DATATYPE_POSITIVE:
                out[j] = min(cutoff, out[j])


@njit(cache=True)
def sensor_stage(m, d, w, stage, F):
    """Every sensor of needstage `stage` (mj_sensorPos / mj_sensorVel / mj_sensorAcc)."""
    if m.nsensor == 0 or int(m.opt[OPT_DISABLE]) & DSBL_SENSOR:
        return
    out = d.sensordata[w]
    for i in range(m.nsensor):
        if m.sensor_needstage[i] == stage:
            if m.sensor_history[i, 0] > 0:
                _compute_or_read_sensor(F, m, d, w, i, out, F)
            else:
                compute_sensor(m, d, w, i, out, F)


@njit(cache=True)
def _sensor_buffer(m, d, w, i):
    """Sensor i's history buffer, a view of d.history[w] (sim/engine/history.py layout)."""
    adr = m.sensor_historyadr[i]
    return d.history[w, adr : adr + 2 + m.sensor_history[i, 0] * (1 + m.sensor_dim[i])]


@njit(cache=True)
def compute_or_read_sensor(m, d, w, i, out, F):
    """Sensor i with a history buffer (compute_or_read_sensor of engine_sensor.c): a delayed sensor reads its
    buffer at time - delay; a sensor sampled every `period` computes at a tick and reads its buffer between
    ticks; otherwise it computes."""
    n = m.sensor_history[i, 0]
    dim = m.sensor_dim[i]
    k = m.sensor_adr[i]
    buf = _sensor_buffer(m, d, w, i)
    t = d.time[w]
    if m.sensor_delay[i] > 0:
        history_read(buf, n, dim, t - m.sensor_delay[i], m.sensor_history[i, 1], out[k : k + dim])
        return
    period = m.sensor_interval[i, 0]
    if period > 0 and not buf[0] + period <= t:
        history_read(buf, n, dim, t, m.sensor_history[i, 1], out[k : k + dim])
        return
    compute_sensor(m, d, w, i, out, F)


# sensors without history buffers (every feature set without F_HISTORY) never compile the buffer reads
_compute_or_read_sensor = call_if(F_HISTORY, compute_or_read_sensor)


@njit(cache=True)
def advance_sensor_history(m, d, w, F):
    """mj_advance's sensor buffer update at the step's start time: every sensor with a buffer inserts a sample
    (one sampled every `period` only at a tick, its tick time advanced by period); a delayed sensor's sample is
    computed now, the others' copied from sensordata."""
    sample = d.scr_sens_data[w]
    t = d.time[w]
    for i in range(m.nsensor):
        n = m.sensor_history[i, 0]
        if n <= 0:
            continue
        dim = m.sensor_dim[i]
        k = m.sensor_adr[i]
        buf = _sensor_buffer(m, d, w, i)
        period = m.sensor_interval[i, 0]
        if period > 0:
            if not buf[0] + period <= t:
                continue
            buf[0] += period
        slot = history_insert(buf, n, dim, t)
        if m.sensor_delay[i] > 0:
            compute_sensor(m, d, w, i, sample, F)
            src = sample
        else:
            src = d.sensordata[w]
        for j in range(dim):
            buf[slot + j] = src[k + j]


# tactile sensors (SDF distances of mesh taxels) are compiled only for feature sets with F_TACTILE
_tactile_sensor = call_if(F_TACTILE, tactile_sensor)


# models without sensors never compile compute_sensor and its call tree (rays, distances, contact sensors)
_sensor_stage = call_if(F_SENSOR, sensor_stage)
_advance_sensor_history = call_if(F_SENSOR, advance_sensor_history)


@njit(cache=True)
def advance_history_buffers(m, d, w, F):
    """mj_advance's history update: the actuators' control buffers, then the sensors'."""
    advance_history(m, d, w)
    _advance_sensor_history(F, m, d, w, F)


@njit(cache=True)
def sensor_pos_stage(m, d, w, F, skipsensor, zero_energy):
    """Position stage of mj_forwardSkip (zero_energy) / mj_inverseSkip: cameras, position sensors, then
    mj_energyPos if the energy flag is on (energy zeroed otherwise in forward)."""
    camlight(m, d, w)
    d.flg_energypos[w] = 0
    if not skipsensor:
        _sensor_stage(F, m, d, w, STAGE_POS, F)
    if not d.flg_energypos[w]:
        if int(m.opt[OPT_ENABLE]) & ENBL_ENERGY:
            _energy_pos(F, m, d, w)
        elif zero_energy:
            d.energy[w, 0] = 0.0
            d.energy[w, 1] = 0.0


@njit(cache=True)
def sensor_vel_stage(m, d, w, F, skipsensor):
    """Velocity stage: velocity sensors, then mj_energyVel if the energy flag is on."""
    d.flg_subtreevel[w] = 0
    d.flg_energyvel[w] = 0
    if not skipsensor:
        _sensor_stage(F, m, d, w, STAGE_VEL, F)
    if int(m.opt[OPT_ENABLE]) & ENBL_ENERGY and not d.flg_energyvel[w]:
        _energy_vel(F, m, d, w)


@njit(cache=True)
def sensor_acc_stage(m, d, w, F):
    """Acceleration stage: acceleration sensors (mj_rnePostConstraint on demand)."""
    d.flg_rnepost[w] = 0
    _sensor_stage(F, m, d, w, STAGE_ACC, F)


# mj_energyPos / mj_energyVel of the forward pass, compiled only for feature sets with the energy flag (energy
# sensors call the kernels themselves)
_energy_pos = call_if(F_ENERGY, energy_pos)
_energy_vel = call_if(F_ENERGY, energy_vel)
