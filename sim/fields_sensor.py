"""Fields of sensors, energy, cameras and inverse dynamics (engine_sensor.c, mj_camlight, engine_inverse.c).

Model: the sensor_* rows, the camera frames and intrinsics (mj_camlight, camprojection, camera rangefinders),
site shapes (touch zones, insidesite, contact sensor site filters), the ray visibility arrays and mesh BVH of
mj_ray (ray_geom_alpha / ray_mat_alpha: alpha channel of geom_rgba / mat_rgba, as float64).
Data (per world): sensordata (nsensordata,), energy (2,) = (potential, kinetic), subtree_linvel/angmom
(nbody, 3), cam_xpos/cam_xmat (ncam, 3/9), qfrc_inverse (nv,), userdata (nuserdata,), MuJoCo's lazy-evaluation
flags flg_energypos / flg_energyvel / flg_subtreevel / flg_rnepost, and scratch: scr_sens_body (nbody, 6) body
velocities, scr_sens_nv (nv,), scr_sens_vec (4, 3) ray origin / direction / normal, scr_sens_match (nconmax,)
contact-sensor criteria with scr_sens_mid (2, nconmax) ids and flips, scr_sens_ft (2, 6) fromto segments, scr_sens_stack (50,) ray BVH stack and
scr_sens_group (6,) geom groups; scr_inv_nv (5, nv) and scr_inv_efc (2, njmax) for mj_inverse / mj_compareFwdInv.
"""
import numpy as np

MAXTREEDEPTH = 50   # mjMAXTREEDEPTH (ray BVH stack)

MODEL_SCALARS = ['nsensor', 'nsensordata', 'ncam', 'nuserdata']
MODEL_ARRAYS = [
    ('sensor_type', 1, 'i'), ('sensor_datatype', 1, 'i'), ('sensor_needstage', 1, 'i'),
    ('sensor_objtype', 1, 'i'), ('sensor_objid', 1, 'i'), ('sensor_reftype', 1, 'i'), ('sensor_refid', 1, 'i'),
    ('sensor_intprm', 2, 'i'), ('sensor_dim', 1, 'i'), ('sensor_adr', 1, 'i'), ('sensor_cutoff', 1, 'f'),
    ('actuator_outadr', 1, 'i'), ('jnt_actuatorid', 1, 'i'), ('site_type', 1, 'i'), ('site_size', 2, 'f'),
    ('cam_mode', 1, 'i'), ('cam_bodyid', 1, 'i'), ('cam_targetbodyid', 1, 'i'), ('cam_pos', 2, 'f'),
    ('cam_quat', 2, 'f'), ('cam_poscom0', 2, 'f'), ('cam_pos0', 2, 'f'), ('cam_mat0', 2, 'f'),
    ('cam_resolution', 2, 'i'), ('cam_fovy', 1, 'f'), ('cam_intrinsic', 2, 'f'), ('cam_sensorsize', 2, 'f'),
    ('cam_projection', 1, 'i'),
    ('geom_matid', 1, 'i'), ('geom_group', 1, 'i'), ('ray_geom_alpha', 1, 'f'), ('ray_mat_alpha', 1, 'f'),
    ('bvh_aabb', 2, 'f'), ('bvh_child', 2, 'i'), ('bvh_nodeid', 1, 'i'), ('mesh_bvhadr', 1, 'i'),
]
DATA_ARRAYS = [
    ('sensordata', 2, 'f'), ('energy', 2, 'f'), ('subtree_linvel', 3, 'f'), ('subtree_angmom', 3, 'f'),
    ('cam_xpos', 3, 'f'), ('cam_xmat', 3, 'f'), ('qfrc_inverse', 2, 'f'), ('userdata', 2, 'f'),
    ('flg_energypos', 1, 'i'), ('flg_energyvel', 1, 'i'), ('flg_subtreevel', 1, 'i'), ('flg_rnepost', 1, 'i'),
    ('scr_sens_body', 3, 'f'), ('scr_sens_nv', 2, 'f'), ('scr_sens_vec', 3, 'f'), ('scr_sens_match', 2, 'f'),
    ('scr_sens_mid', 3, 'i'), ('scr_sens_ft', 3, 'f'), ('scr_sens_stack', 2, 'i'), ('scr_sens_group', 2, 'i'),
    ('scr_inv_nv', 3, 'f'), ('scr_inv_efc', 3, 'f'),
]

# mjtSensor
(SENS_TOUCH, SENS_ACCELEROMETER, SENS_VELOCIMETER, SENS_GYRO, SENS_FORCE, SENS_TORQUE, SENS_MAGNETOMETER,
 SENS_RANGEFINDER, SENS_CAMPROJECTION, SENS_JOINTPOS, SENS_JOINTVEL, SENS_TENDONPOS, SENS_TENDONVEL,
 SENS_ACTUATORPOS, SENS_ACTUATORVEL, SENS_ACTUATORFRC, SENS_JOINTACTFRC, SENS_TENDONACTFRC, SENS_BALLQUAT,
 SENS_BALLANGVEL, SENS_JOINTLIMITPOS, SENS_JOINTLIMITVEL, SENS_JOINTLIMITFRC, SENS_TENDONLIMITPOS,
 SENS_TENDONLIMITVEL, SENS_TENDONLIMITFRC, SENS_FRAMEPOS, SENS_FRAMEQUAT, SENS_FRAMEXAXIS, SENS_FRAMEYAXIS,
 SENS_FRAMEZAXIS, SENS_FRAMELINVEL, SENS_FRAMEANGVEL, SENS_FRAMELINACC, SENS_FRAMEANGACC, SENS_SUBTREECOM,
 SENS_SUBTREELINVEL, SENS_SUBTREEANGMOM, SENS_INSIDESITE, SENS_GEOMDIST, SENS_GEOMNORMAL, SENS_GEOMFROMTO,
 SENS_CONTACT, SENS_E_POTENTIAL, SENS_E_KINETIC, SENS_CLOCK, SENS_TACTILE, SENS_PLUGIN, SENS_USER) = range(49)
RAYDATA_NORMAL = 4
GEOM_MESH, GEOM_HFIELD = 7, 1


def _check(m):
    """Raise UnsupportedFeature for sensors numjoco does not evaluate (also refused by the MJCF compiler)."""
    from sim.types import UnsupportedFeature
    st = np.asarray(getattr(m, 'sensor_type', np.zeros(0))).reshape(-1)
    if st.size == 0:
        return
    if np.any(st == SENS_TACTILE):
        raise UnsupportedFeature('tactile sensors are not supported (they need MuJoCo\'s SDF distance of mesh '
                                 'taxels to the touching geoms)')
    if np.any(st == SENS_PLUGIN):
        raise UnsupportedFeature('sensor plugins are not supported')
    if np.any(np.asarray(getattr(m, 'sensor_plugin', -np.ones(st.size))).reshape(-1) >= 0):
        raise UnsupportedFeature('sensor plugins are not supported')
    gt = np.asarray(m.geom_type).reshape(-1)
    spec = np.asarray(m.sensor_intprm).reshape(st.size, -1)
    rng = (st == SENS_RANGEFINDER) & ((spec[:, 0] >> RAYDATA_NORMAL) & 1 == 1)
    if np.any(rng) and np.any((gt == GEOM_MESH) | (gt == GEOM_HFIELD)):
        raise UnsupportedFeature('rangefinder data "normal" on a model with mesh or height-field geoms is not '
                                 'supported (surface normals are computed for primitive geoms only)')
    ins = st == SENS_INSIDESITE
    if np.any(ins):
        stype = np.asarray(m.site_type).reshape(-1)
        refid = np.asarray(m.sensor_refid).reshape(-1)
        if np.any(stype[refid[ins]] == GEOM_MESH):
            raise UnsupportedFeature('insidesite with a mesh site is not supported')
    if np.any(st == SENS_CONTACT):
        objtype = np.asarray(m.sensor_objtype).reshape(-1)
        objid = np.asarray(m.sensor_objid).reshape(-1)
        stype = np.asarray(m.site_type).reshape(-1)
        for i in np.flatnonzero((st == SENS_CONTACT) & (objtype == 6)):
            if stype[objid[i]] == GEOM_MESH:
                raise UnsupportedFeature('contact sensor with a mesh site filter is not supported')


def _rows(m, name, ncol, dtype, n):
    a = np.asarray(getattr(m, name, np.zeros((n, ncol))), dtype=dtype)
    return np.ascontiguousarray(a.reshape(n, ncol))


def model_arrays(m):
    """Derived arrays: ray visibility alphas, camera intrinsics as float64, actuator_outadr / jnt_actuatorid
    when the model object lacks them."""
    _check(m)
    ngeom = int(m.ngeom)
    ncam = int(getattr(m, 'ncam', 0))
    nu = int(m.nu)
    rgba = np.asarray(getattr(m, 'geom_rgba', np.ones((ngeom, 4))), dtype=np.float64).reshape(ngeom, 4)
    mat = np.asarray(getattr(m, 'mat_rgba', np.ones((0, 4))), dtype=np.float64).reshape(-1, 4)
    out = dict(ncam=ncam, nuserdata=int(getattr(m, 'nuserdata', 0)),
               nsensor=int(getattr(m, 'nsensor', 0)), nsensordata=int(getattr(m, 'nsensordata', 0)),
               ray_geom_alpha=np.ascontiguousarray(rgba[:, 3]), ray_mat_alpha=np.ascontiguousarray(mat[:, 3]),
               cam_intrinsic=_rows(m, 'cam_intrinsic', 4, np.float64, ncam),
               cam_sensorsize=_rows(m, 'cam_sensorsize', 2, np.float64, ncam),
               cam_resolution=_rows(m, 'cam_resolution', 2, np.int32, ncam),
               cam_mat0=_rows(m, 'cam_mat0', 9, np.float64, ncam) if hasattr(m, 'cam_mat0') else np.zeros((ncam, 9)))
    for name, default in (('actuator_outadr', np.arange(nu)), ('jnt_actuatorid', -np.ones(int(m.njnt))),
                          ('geom_matid', -np.ones(ngeom)), ('geom_group', np.zeros(ngeom)),
                          ('cam_projection', np.zeros(ncam))):
        if not hasattr(m, name):
            out[name] = np.asarray(default, dtype=np.int32)
    # camera frames not set yet (the compiler's mj_setConst builds a struct before computing them)
    for name, ncol in (('cam_poscom0', 3), ('cam_pos0', 3), ('cam_mode', 0), ('cam_targetbodyid', 0)):
        if not hasattr(m, name):
            out[name] = np.zeros((ncam, ncol)) if ncol else np.zeros(ncam, np.int32)
    if np.asarray(getattr(m, 'bvh_aabb', np.zeros(0))).size == 0:
        out.update(bvh_aabb=np.zeros((0, 6)), bvh_child=np.zeros((0, 2), np.int32),
                   bvh_nodeid=np.zeros(0, np.int32), mesh_bvhadr=-np.ones(int(getattr(m, 'nmesh', 0)), np.int32))
    else:
        out.update(bvh_aabb=np.asarray(m.bvh_aabb, dtype=np.float64).reshape(-1, 6),
                   bvh_child=np.asarray(m.bvh_child, dtype=np.int32).reshape(-1, 2))
    nsensor = out['nsensor']
    if nsensor == 0:
        out['sensor_intprm'] = np.zeros((0, 3), np.int32)
    return out


def data_shapes(m, size):
    """Per-world shapes of the sensor / energy / camera / inverse fields and their scratch."""
    nv, nbody, nc, j = int(m.nv), int(m.nbody), int(size['nconmax']), int(size['njmax'])
    return dict(sensordata=(int(getattr(m, 'nsensordata', 0)),), energy=(2,), subtree_linvel=(nbody, 3),
                subtree_angmom=(nbody, 3), cam_xpos=(int(getattr(m, 'ncam', 0)), 3),
                cam_xmat=(int(getattr(m, 'ncam', 0)), 9), qfrc_inverse=(nv,),
                userdata=(int(getattr(m, 'nuserdata', 0)),), flg_energypos=(), flg_energyvel=(),
                flg_subtreevel=(), flg_rnepost=(), scr_sens_body=(nbody, 6), scr_sens_nv=(nv,),
                scr_sens_vec=(4, 3), scr_sens_match=(nc,), scr_sens_mid=(2, nc), scr_sens_ft=(2, 6),
                scr_sens_stack=(MAXTREEDEPTH,), scr_sens_group=(6,), scr_inv_nv=(5, nv), scr_inv_efc=(2, j))
