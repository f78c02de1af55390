"""Compare a numjoco `Model` against the official `mujoco.MjModel` (the oracle), field by field.

Only tests and benchmarks import this module (it imports mujoco; sim/ never does).

    mismatches = compare_models(ours, theirs)        # list of human-readable strings, [] when equal
    assert_models_match(ours, theirs)                # AssertionError listing every mismatch

What is compared
----------------
* every attribute of mujoco.MjModel that is a numpy array or an int (the sizes nq, nv, ...), when our Model has
  it too; attributes in REQUIRED_FIELDS must exist on ours (a missing one is a mismatch, never skipped);
  attributes in IGNORED_FIELDS are never compared (see the reasons there);
* shapes exactly, dtype kind (integer-like: int/uint/bool  vs  float), values: integers exactly, floats to
  |ours - theirs| <= ATOL + RTOL * |theirs| (FLOAT_RTOL / FLOAT_ATOL below);
* m.opt (every numeric attribute of MjOption; REQUIRED_OPT must exist) and m.stat (REQUIRED_STAT);
* m.vis (mjVisual, section by section: vis.global_, vis.quality, vis.headlight, vis.map, vis.scale, vis.rgba;
  every attribute of each section must exist on ours, except IGNORED_VIS);
* names: mujoco.mj_id2name(theirs, type, i) against our named access ``ours.<kind>(i).name`` and the
  reverse lookup ``ours.<kind>(name).id``.

Documented special cases
------------------------
* QUAT_FIELDS (unit quaternions, one per row: body_quat, body_iquat, geom_quat, site_quat, cam_quat, mesh_quat,
  key_mquat, skin_bonebindquat) are compared up to sign per row: q and -q are the same rotation.
* body principal inertia (body_inertia + body_iquat): when a body's principal moments are repeated (two or three
  equal within INERTIA_DEGENERATE_RTOL), its principal axes are not unique, so for that body the full inertia
  tensor in the body frame, R diag(I) R^T with R = quat2mat(iquat), is compared instead of body_inertia and
  body_iquat separately.  Bodies with distinct moments compare body_inertia and body_iquat (up to sign) to the
  float tolerance.
* names and paths (bytes) are compared exactly; so are the name_*adr / *_pathadr offsets and names_map.
* bvh_* rows of a mesh whose faces MuJoCo lists in qhull's order (a mesh given without faces gets its hull's
  faces; ours come in another order, see tests/test_assets.py) are compared as the set of leaf boxes, since
  the tree layout follows the face order (BVH_NODE_FIELDS); every other BVH row exactly / to the tolerance.
"""

import math

import numpy as np

import mujoco

from sim.user_util import quat2mat

# Float tolerance: a float matches when |ours - theirs| <= FLOAT_ATOL + FLOAT_RTOL * |theirs| (elementwise).
# The compiler does the same double-precision arithmetic as MuJoCo's (mostly in the same order), so values
# agree to a few ulps; 1e-10 leaves room for a different summation order in derived quantities (subtree
# masses, mj_setConst outputs such as dof_M0 / body_invweight0 / stat.meaninertia) while catching any real
# modelling difference.  NaN matches NaN, +-inf matches the same infinity.
FLOAT_RTOL = 1e-10
FLOAT_ATOL = 1e-10

# Principal moments closer than this (relative to the largest) count as repeated: the principal axes are then
# ill-defined (a rounding-level perturbation of the tensor rotates them by ~eps/gap), so the tensor is
# compared instead.  Generous on purpose: a gap of 1e-6 already turns 1e-16 roundoff into 1e-10 axis error.
INERTIA_DEGENERATE_RTOL = 1e-5

# body_iquat of bodies with distinct principal moments is compared like every float field (up to sign): our
# eig3 (sim/user_util.py) reproduces 3.17's mjuu_eig3 iteration bit for bit, so the principal frames
# agree to rounding of the inertia tensor (measured max 8.8e-13 over the corpus and 2000 random models).

# Rows of these fields are unit quaternions: compared up to sign per row.
QUAT_FIELDS = frozenset(
    {
        "body_quat",
        "body_iquat",
        "geom_quat",
        "site_quat",
        "cam_quat",
        "mesh_quat",
        "key_mquat",
        "skin_bonebindquat",
    }
)

# Never compared (with the reason).
IGNORED_FIELDS = {
    "signature": "hash of the compiled model's memory layout in MuJoCo; no meaning for numjoco",
    "nbuffer": "MuJoCo's mjModel buffer size in bytes",
}

# BVH node arrays: rows of mesh trees over hull faces (listed in qhull's order by MuJoCo) are compared
# order-free (_compare_hull_bvh), the other rows element by element.
BVH_NODE_FIELDS = frozenset({"bvh_aabb", "bvh_child", "bvh_nodeid", "bvh_depth"})

# bytes attributes of MjModel (not numpy arrays): compared exactly.
BYTES_FIELDS = ("names", "paths")

# ---------------------------------------------------------------------------------- what we must provide

_SIZES = """
nq nv nu na nbody njnt ngeom nsite ncam nlight ntendon nwrap nsensor nsensordata neq npair nexclude nkey
nmocap nM nC nJten nJmom ngravcomp ntree nuserdata nmesh nmat ntex nhfield
nuser_body nuser_jnt nuser_geom nuser_site nuser_cam nuser_tendon nuser_actuator nuser_sensor
"""
_BODY = """
body_parentid body_rootid body_weldid body_mocapid body_jntnum body_jntadr body_dofnum body_dofadr
body_treeid body_geomnum body_geomadr body_simple body_sameframe body_pos body_quat body_ipos body_iquat
body_mass body_subtreemass body_inertia body_invweight0 body_gravcomp body_margin body_contype
body_conaffinity body_user
"""
_JOINT = """
jnt_type jnt_qposadr jnt_dofadr jnt_bodyid jnt_group jnt_limited jnt_actfrclimited jnt_actgravcomp
jnt_solref jnt_solimp jnt_pos jnt_axis jnt_stiffness jnt_range jnt_actfrcrange jnt_margin jnt_user
"""
_DOF = """
dof_bodyid dof_jntid dof_parentid dof_treeid dof_Madr dof_simplenum dof_solref dof_solimp dof_frictionloss
dof_armature dof_damping dof_invweight0 dof_M0
"""
_GEOM = """
geom_type geom_contype geom_conaffinity geom_condim geom_bodyid geom_dataid geom_matid geom_group
geom_priority geom_sameframe geom_solmix geom_solref geom_solimp geom_size geom_aabb geom_rbound geom_pos
geom_quat geom_friction geom_margin geom_gap geom_fluid geom_rgba geom_user
"""
_SITE = "site_type site_bodyid site_matid site_group site_sameframe site_size site_pos site_quat site_rgba site_user"
_CAM = """
cam_mode cam_bodyid cam_targetbodyid cam_pos cam_quat cam_poscom0 cam_pos0 cam_mat0 cam_projection cam_fovy
cam_ipd cam_resolution cam_sensorsize cam_intrinsic cam_user
"""
_LIGHT = """
light_mode light_bodyid light_targetbodyid light_type light_castshadow light_bulbradius light_intensity
light_range light_active light_pos light_dir light_poscom0 light_pos0 light_dir0 light_attenuation
light_cutoff light_exponent light_ambient light_diffuse light_specular
"""
_TENDON = """
tendon_adr tendon_num tendon_matid tendon_group tendon_limited tendon_actfrclimited tendon_width
tendon_solref_lim tendon_solimp_lim tendon_solref_fri tendon_solimp_fri tendon_range tendon_actfrcrange
tendon_margin tendon_stiffness tendon_damping tendon_armature tendon_frictionloss tendon_lengthspring
tendon_length0 tendon_invweight0 tendon_user tendon_rgba
wrap_type wrap_objid wrap_prm
"""
_ACTUATOR = """
actuator_trntype actuator_dyntype actuator_gaintype actuator_biastype actuator_trnid actuator_actadr
actuator_actnum actuator_group actuator_ctrllimited actuator_forcelimited actuator_actlimited
actuator_dynprm actuator_gainprm actuator_biasprm actuator_actearly actuator_ctrlrange actuator_forcerange
actuator_actrange actuator_gear actuator_cranklength actuator_acc0 actuator_length0 actuator_lengthrange
actuator_user
"""
_SENSOR = """
sensor_type sensor_datatype sensor_needstage sensor_objtype sensor_objid sensor_reftype sensor_refid
sensor_intprm sensor_dim sensor_adr sensor_cutoff sensor_noise sensor_user
"""
_EQ = "eq_type eq_obj1id eq_obj2id eq_objtype eq_active0 eq_solref eq_solimp eq_data"
_CONTACT = """
pair_dim pair_geom1 pair_geom2 pair_signature pair_solref pair_solreffriction pair_solimp pair_margin
pair_gap pair_friction exclude_signature
"""
_KEY = "key_time key_qpos key_qvel key_act key_mpos key_mquat key_ctrl"
_MISC = "qpos0 qpos_spring M_rownnz M_rowadr M_colind"
_NAMES = """
nnames nnames_map names_map name_bodyadr name_jntadr name_geomadr name_siteadr name_camadr name_lightadr
name_flexadr name_meshadr name_skinadr name_hfieldadr name_texadr name_matadr name_pairadr name_excludeadr
name_eqadr name_tendonadr name_actuatoradr name_sensoradr name_numericadr name_textadr name_tupleadr
name_keyadr name_pluginadr npaths hfield_pathadr mesh_pathadr tex_pathadr
"""
_BVH = """
nbvh nbvhstatic nbvhdynamic bvh_aabb bvh_child bvh_nodeid bvh_depth body_bvhadr body_bvhnum mesh_bvhadr
mesh_bvhnum noct mesh_octadr mesh_octnum oct_aabb oct_child oct_coeff oct_depth
"""

_SKIN = """
nskin nskinvert nskintexvert nskinface nskinbone nskinbonevert skin_matid skin_group skin_rgba skin_inflate
skin_vertadr skin_vertnum skin_texcoordadr skin_faceadr skin_facenum skin_boneadr skin_bonenum skin_vert
skin_texcoord skin_face skin_bonevertadr skin_bonevertnum skin_bonebindpos skin_bonebindquat skin_bonebodyid
skin_bonevertid skin_bonevertweight skin_pathadr name_skinadr
"""

# MjModel fields the numjoco compiler is expected to provide: missing on our Model = a mismatch.
REQUIRED_FIELDS = tuple(
    " ".join(
        [
            _SIZES,
            _BODY,
            _JOINT,
            _DOF,
            _GEOM,
            _SITE,
            _CAM,
            _LIGHT,
            _TENDON,
            _ACTUATOR,
            _SENSOR,
            _EQ,
            _CONTACT,
            _KEY,
            _MISC,
            _NAMES,
            _BVH,
            _SKIN,
        ]
    ).split()
)

# MjOption / MjStatistic attributes that must exist on ours.opt / ours.stat.
REQUIRED_OPT = tuple(
    """
timestep impratio tolerance ls_tolerance noslip_tolerance ccd_tolerance gravity wind magnetic density
viscosity o_margin o_solref o_solimp o_friction integrator cone jacobian solver iterations ls_iterations
noslip_iterations ccd_iterations disableflags enableflags disableactuator
""".split()
)
REQUIRED_STAT = ("meaninertia", "meanmass", "meansize", "extent", "center")
# mjVisual sections (Python attribute names of MjVisual); every attribute of each must exist on ours.vis.<section>
VIS_SECTIONS = ("global_", "quality", "headlight", "map", "scale", "rgba")
# mjVisual attributes never compared (with the reason)
IGNORED_VIS = {
    "rgba.bv": "mujoco 3.17's bindings expose vis.rgba.bv as an empty array (the C struct holds 4 floats)",
    "rgba.bvactive": "mujoco 3.17's bindings expose vis.rgba.bvactive as an empty array (4 floats in C)",
}

# Object kinds whose names are compared: (mjtObj, size attribute, accessor names tried on our Model, required)
NAMED_OBJECTS = (
    (mujoco.mjtObj.mjOBJ_BODY, "nbody", ("body",), True),
    (mujoco.mjtObj.mjOBJ_JOINT, "njnt", ("joint", "jnt"), True),
    (mujoco.mjtObj.mjOBJ_GEOM, "ngeom", ("geom",), True),
    (mujoco.mjtObj.mjOBJ_SITE, "nsite", ("site",), True),
    (mujoco.mjtObj.mjOBJ_CAMERA, "ncam", ("camera", "cam"), True),
    (mujoco.mjtObj.mjOBJ_LIGHT, "nlight", ("light",), True),
    (mujoco.mjtObj.mjOBJ_TENDON, "ntendon", ("tendon",), True),
    (mujoco.mjtObj.mjOBJ_ACTUATOR, "nu", ("actuator",), True),
    (mujoco.mjtObj.mjOBJ_SENSOR, "nsensor", ("sensor",), True),
    (mujoco.mjtObj.mjOBJ_EQUALITY, "neq", ("equality", "eq"), True),
    (mujoco.mjtObj.mjOBJ_PAIR, "npair", ("pair",), True),
    (mujoco.mjtObj.mjOBJ_EXCLUDE, "nexclude", ("exclude",), True),
    (mujoco.mjtObj.mjOBJ_KEY, "nkey", ("keyframe", "key"), True),
    (mujoco.mjtObj.mjOBJ_MESH, "nmesh", ("mesh",), False),
    (mujoco.mjtObj.mjOBJ_MATERIAL, "nmat", ("material", "mat"), False),
    (mujoco.mjtObj.mjOBJ_TEXTURE, "ntex", ("texture", "tex"), False),
    (mujoco.mjtObj.mjOBJ_HFIELD, "nhfield", ("hfield",), False),
    (mujoco.mjtObj.mjOBJ_NUMERIC, "nnumeric", ("numeric",), False),
    (mujoco.mjtObj.mjOBJ_TEXT, "ntext", ("text",), False),
    (mujoco.mjtObj.mjOBJ_TUPLE, "ntuple", ("tuple",), False),
)

# field prefix -> (mjtObj used to name rows in messages)
_ROW_OBJ = {
    "body": mujoco.mjtObj.mjOBJ_BODY,
    "jnt": mujoco.mjtObj.mjOBJ_JOINT,
    "geom": mujoco.mjtObj.mjOBJ_GEOM,
    "site": mujoco.mjtObj.mjOBJ_SITE,
    "cam": mujoco.mjtObj.mjOBJ_CAMERA,
    "light": mujoco.mjtObj.mjOBJ_LIGHT,
    "tendon": mujoco.mjtObj.mjOBJ_TENDON,
    "actuator": mujoco.mjtObj.mjOBJ_ACTUATOR,
    "sensor": mujoco.mjtObj.mjOBJ_SENSOR,
    "eq": mujoco.mjtObj.mjOBJ_EQUALITY,
    "pair": mujoco.mjtObj.mjOBJ_PAIR,
    "exclude": mujoco.mjtObj.mjOBJ_EXCLUDE,
    "key": mujoco.mjtObj.mjOBJ_KEY,
    "mesh": mujoco.mjtObj.mjOBJ_MESH,
    "mat": mujoco.mjtObj.mjOBJ_MATERIAL,
}

_MAX_REPORTED = 3  # differing entries listed per field


def mujoco_fields(theirs=None):
    """(array field names, int size names) of mujoco.MjModel, sorted."""
    if theirs is None:
        theirs = mujoco.MjModel.from_xml_string("<mujoco/>")
    arrays, sizes = [], []
    for name in dir(theirs):
        if name.startswith("_"):
            continue
        try:
            v = getattr(theirs, name)
        except Exception:  # pragma: no cover - defensive: some bindings raise for exotic attributes
            continue
        if isinstance(v, np.ndarray):
            arrays.append(name)
        elif isinstance(v, (int, np.integer)) and not isinstance(v, bool):
            sizes.append(name)
    return sorted(arrays), sorted(sizes)


_FIELDS_CACHE = None


def _all_fields():
    global _FIELDS_CACHE
    if _FIELDS_CACHE is None:
        _FIELDS_CACHE = mujoco_fields()
    return _FIELDS_CACHE


# ------------------------------------------------------------------------------------------------ helpers

_MISSING = object()


def _get(obj, name):
    """Attribute of our model, or _MISSING; an exception while computing it is reported, not raised."""
    try:
        return getattr(obj, name)
    except AttributeError:
        return _MISSING
    except Exception as e:  # a property that crashes is a finding, not a harness failure
        return e


def _kind(dtype):
    k = np.dtype(dtype).kind
    if k in "iub":
        return "int"
    if k == "f":
        return "float"
    return k


def _row_label(theirs, field, row):
    """' (body 3 'torso')' for a row of a per-object field, '' when unknown."""
    prefix = field.split("_", 1)[0]
    obj = _ROW_OBJ.get(prefix)
    if obj is None or theirs is None:
        return ""
    try:
        name = mujoco.mj_id2name(theirs, obj, int(row))
    except Exception:
        name = None
    return f" ({prefix} {row}{' ' + repr(name) if name else ''})"


def _fmt(v):
    if isinstance(v, (bool, np.bool_)):
        return repr(bool(v))
    if isinstance(v, (int, np.integer)):
        return repr(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, np.ndarray):
        return np.array2string(v, precision=12, separator=", ")
    return repr(v)


def _float_close(a, b, rtol, atol):
    """Elementwise |a-b| <= atol + rtol*|b| with NaN==NaN and equal infinities."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        ok = np.abs(a - b) <= atol + rtol * np.abs(b)
    ok |= np.isnan(a) & np.isnan(b)
    ok |= np.isinf(a) & np.isinf(b) & (np.sign(a) == np.sign(b))
    return ok


def _diff_message(field, ours, theirs_arr, bad, theirs_model):
    """Describe differing entries: count and the first few with both values."""
    idx = np.argwhere(bad)
    parts = [f"{field}: {len(idx)} of {bad.size} entries differ"]
    for ix in idx[:_MAX_REPORTED]:
        ix = tuple(int(i) for i in ix)
        label = _row_label(theirs_model, field, ix[0]) if len(ix) >= 1 else ""
        parts.append(f"[{', '.join(map(str, ix))}]{label}: ours={_fmt(ours[ix])} mujoco={_fmt(theirs_arr[ix])}")
    return "; ".join(parts)


def _rows_diff_message(field, ours, theirs_arr, bad_rows, theirs_model, why=""):
    idx = np.flatnonzero(bad_rows)
    parts = [f"{field}: {len(idx)} of {len(bad_rows)} rows differ{why}"]
    for r in idx[:_MAX_REPORTED]:
        parts.append(f"row {r}{_row_label(theirs_model, field, r)}: ours={_fmt(ours[r])} mujoco={_fmt(theirs_arr[r])}")
    return "; ".join(parts)


def inertia_tensor(inertia, iquat):
    """Full 3x3 inertia tensor in the body frame: R diag(I) R^T, R = quat2mat(iquat)."""
    q = np.asarray(iquat, dtype=np.float64)
    n = math.sqrt(float(q @ q))
    R = quat2mat(q / n if n > 0 else np.array([1.0, 0, 0, 0]))
    return R @ np.diag(np.asarray(inertia, dtype=np.float64)) @ R.T


def inertia_is_degenerate(inertia, rtol=INERTIA_DEGENERATE_RTOL):
    """True when two principal moments are equal within rtol of the largest (principal axes not unique)."""
    I = np.sort(np.asarray(inertia, dtype=np.float64))
    scale = max(abs(I[-1]), 1e-300)
    return bool(np.any(np.diff(I) <= rtol * scale))


# ------------------------------------------------------------------------------------------ comparisons


def _compare_array(field, ov, tv, rtol, atol, theirs_model, out):
    """Shape / kind / values of one array field; appends messages to out."""
    if isinstance(ov, Exception):
        out.append(f"{field}: reading it on our Model raised {type(ov).__name__}: {ov}")
        return
    try:
        oa = np.asarray(ov)
    except Exception as e:
        out.append(f"{field}: not convertible to an array ({type(e).__name__}: {e})")
        return
    ta = np.asarray(tv)
    if oa.shape != ta.shape:
        out.append(f"{field}: shape ours={oa.shape} mujoco={ta.shape}")
        return
    ok_kind, tk = _kind(oa.dtype), _kind(ta.dtype)
    if ok_kind != tk:
        out.append(f"{field}: dtype kind ours={oa.dtype} ({ok_kind}) mujoco={ta.dtype} ({tk})")
        return
    if ta.size == 0:
        return
    if tk == "int":
        bad = oa.astype(np.int64) != ta.astype(np.int64)
        if bad.any():
            out.append(_diff_message(field, oa, ta, bad, theirs_model))
        return
    if tk != "float":
        if not np.array_equal(oa, ta):
            out.append(f"{field}: values differ")
        return
    if field in QUAT_FIELDS and ta.ndim == 2 and ta.shape[1] == 4:
        same = _float_close(oa, ta, rtol, atol).all(axis=1)
        flipped = _float_close(-oa, ta, rtol, atol).all(axis=1)
        bad_rows = ~(same | flipped)
        if bad_rows.any():
            out.append(_rows_diff_message(field, oa, ta, bad_rows, theirs_model, " (compared up to sign)"))
        return
    bad = ~_float_close(oa, ta, rtol, atol)
    if bad.any():
        out.append(_diff_message(field, oa, ta, bad, theirs_model))


def _compare_inertia(ours, theirs, rtol, atol, out):
    """body_inertia + body_iquat with the repeated-eigenvalue special case (see module docstring)."""
    oi, oq = _get(ours, "body_inertia"), _get(ours, "body_iquat")
    for name, v in (("body_inertia", oi), ("body_iquat", oq)):
        if v is _MISSING:
            out.append(f"{name}: missing on our Model (required)")
        elif isinstance(v, Exception):
            out.append(f"{name}: reading it on our Model raised {type(v).__name__}: {v}")
    if oi is _MISSING or oq is _MISSING or isinstance(oi, Exception) or isinstance(oq, Exception):
        return
    oi, oq = np.asarray(oi), np.asarray(oq)
    ti, tq = theirs.body_inertia, theirs.body_iquat
    shape_ok = True
    for name, o, t in (("body_inertia", oi, ti), ("body_iquat", oq, tq)):
        if o.shape != t.shape:
            out.append(f"{name}: shape ours={o.shape} mujoco={t.shape}")
            shape_ok = False
        elif _kind(o.dtype) != "float":
            out.append(f"{name}: dtype kind ours={o.dtype} mujoco={t.dtype}")
            shape_ok = False
    if not shape_ok:
        return
    degenerate = np.array([inertia_is_degenerate(ti[b]) for b in range(theirs.nbody)], dtype=bool)
    # distinct principal moments: compare separately (iquat up to sign)
    sub = []
    keep = ~degenerate
    if keep.any():
        bad = ~_float_close(oi, ti, rtol, atol)
        bad[degenerate] = False
        if bad.any():
            sub.append(_diff_message("body_inertia", oi, ti, bad, theirs))
        same = _float_close(oq, tq, rtol, atol).all(axis=1)
        flipped = _float_close(-oq, tq, rtol, atol).all(axis=1)
        badq = ~(same | flipped) & keep
        if badq.any():
            why = " (compared up to sign"
            if all(
                np.allclose(inertia_tensor(oi[b], oq[b]), inertia_tensor(ti[b], tq[b]), rtol=1e-9, atol=1e-12)
                for b in np.flatnonzero(badq)
            ):
                why += "; the inertia tensors agree to 1e-9"
            sub.append(_rows_diff_message("body_iquat", oq, tq, badq, theirs, why + ")"))
    # repeated moments: compare the full tensors
    bad_t = []
    for b in np.flatnonzero(degenerate):
        To = inertia_tensor(oi[b], oq[b])
        Tt = inertia_tensor(ti[b], tq[b])
        scale = float(np.max(np.abs(ti[b]))) if ti[b].size else 0.0
        if not np.all(np.abs(To - Tt) <= atol + rtol * scale):
            bad_t.append((b, To, Tt))
    if bad_t:
        parts = [
            f"body inertia tensor (bodies with repeated principal moments): {len(bad_t)} of "
            f"{int(degenerate.sum())} bodies differ"
        ]
        for b, To, Tt in bad_t[:_MAX_REPORTED]:
            parts.append(
                f"body {b}{_row_label(theirs, 'body_x', b)}: ours inertia={_fmt(oi[b])} "
                f"iquat={_fmt(oq[b])} mujoco inertia={_fmt(ti[b])} iquat={_fmt(tq[b])}"
            )
        sub.append("; ".join(parts))
    out.extend(sub)


def _hull_order_bvh_rows(ours, theirs):
    """Bool mask over bvh rows of mesh trees whose mesh faces are listed in another order than MuJoCo's (faces
    of a mesh given without faces come from the convex hull, whose order is qhull's): None when there are none.
    A mesh BVH splits faces by their order on ties, so those trees are compared order-free."""
    try:
        of, oadr = np.asarray(ours.mesh_face), np.asarray(ours.mesh_bvhadr)
        if of.shape != theirs.mesh_face.shape or oadr.shape != theirs.mesh_bvhadr.shape:
            return None
    except AttributeError:
        return None
    mask = np.zeros(theirs.nbvh, dtype=bool)
    for i in range(theirs.nmesh):
        a, n = theirs.mesh_faceadr[i], theirs.mesh_facenum[i]
        if not np.array_equal(of[a : a + n], theirs.mesh_face[a : a + n]) and theirs.mesh_bvhadr[i] >= 0:
            mask[theirs.mesh_bvhadr[i] : theirs.mesh_bvhadr[i] + theirs.mesh_bvhnum[i]] = True
    return mask if mask.any() else None


def _compare_hull_bvh(ours, theirs, rtol, atol, out):
    """Mesh trees over hull faces in another order: same node count (mesh_bvhnum), and the same leaf boxes
    (the face boxes) as a set, to the float tolerance."""
    for i in range(theirs.nmesh):
        a, n = theirs.mesh_faceadr[i], theirs.mesh_facenum[i]
        if np.array_equal(np.asarray(ours.mesh_face)[a : a + n], theirs.mesh_face[a : a + n]):
            continue
        b, k = theirs.mesh_bvhadr[i], theirs.mesh_bvhnum[i]
        leaves = []
        for m in (ours, theirs):
            sl = slice(b, b + k)
            box = np.asarray(m.bvh_aabb)[sl][np.asarray(m.bvh_nodeid)[sl] >= 0]
            leaves.append(box[np.lexsort(np.round(box, 9).T[::-1])])
        if leaves[0].shape != leaves[1].shape or not _float_close(leaves[0], leaves[1], rtol, atol).all():
            out.append(f"bvh_aabb: leaf boxes of mesh {i} (hull faces, compared as a set) differ")


def _compare_struct(label, ostruct, tstruct, required, rtol, atol, out, fields=None):
    """Numeric attributes of MjOption / MjStatistic against ours.opt / ours.stat."""
    if ostruct is _MISSING or isinstance(ostruct, Exception):
        if required:
            out.append(f"{label}: missing on our Model (required)")
        return
    for name in sorted(n for n in dir(tstruct) if not n.startswith("_")):
        full = f"{label}.{name}"
        if fields is not None and full not in fields and label not in fields:
            continue
        tv = getattr(tstruct, name)
        if callable(tv) or not isinstance(tv, (int, float, np.ndarray, np.number)):
            continue
        ov = _get(ostruct, name)
        if ov is _MISSING:
            if name in required:
                out.append(f"{full}: missing on our Model (required)")
            continue
        if isinstance(ov, Exception):
            out.append(f"{full}: reading it on our Model raised {type(ov).__name__}: {ov}")
            continue
        if isinstance(tv, np.ndarray):
            _compare_array(full, ov, tv, rtol, atol, None, out)
        elif isinstance(tv, (int, np.integer)):
            try:
                ok = float(ov) == float(tv) and float(ov) == int(float(ov))
            except (TypeError, ValueError):
                ok = False
            if not ok:
                out.append(f"{full}: ours={_fmt(ov)} mujoco={_fmt(tv)}")
        else:
            try:
                ok = bool(_float_close(float(ov), float(tv), rtol, atol))
            except (TypeError, ValueError):
                ok = False
            if not ok:
                out.append(f"{full}: ours={_fmt(ov)} mujoco={_fmt(tv)}")


def _compare_vis(ours, theirs, rtol, atol, out, fields=None):
    """m.vis against MjModel.vis, one section at a time (labels vis.<section>.<attribute>)."""
    ovis = _get(ours, "vis")
    if ovis is _MISSING or ovis is None or isinstance(ovis, Exception):
        out.append("vis: missing on our Model (required)")
        return
    for sec in VIS_SECTIONS:
        tsec = getattr(theirs.vis, sec)
        names = set(n for n in dir(tsec) if not n.startswith("_"))
        names -= set(k.split(".", 1)[1] for k in IGNORED_VIS if k.startswith(sec + "."))
        label = "vis." + sec
        sub = fields
        if fields is not None and ("vis" in fields or label in fields):
            sub = None
        osec = _get(ovis, sec)
        _compare_struct(label, osec, _Only(tsec, names), names, rtol, atol, out, sub)


class _Only:
    """Attribute view of an mjVisual section restricted to `names` (IGNORED_VIS left out)."""

    def __init__(self, obj, names):
        self._obj, self._names = obj, names

    def __dir__(self):
        return sorted(self._names)

    def __getattr__(self, name):
        return getattr(self._obj, name)


def _compare_names(ours, theirs, out):
    for objtype, nattr, accessors, required in NAMED_OBJECTS:
        n = getattr(theirs, nattr)
        if n == 0:
            continue
        acc = None
        for a in accessors:
            v = _get(ours, a)
            if v is not _MISSING and callable(v):
                acc = v
                break
        kind = accessors[0]
        if acc is None:
            if required:
                out.append(f"names: our Model has no named access '{accessors[0]}(...)' for {n} {kind}(s)")
            continue
        bad = []
        for i in range(n):
            tname = mujoco.mj_id2name(theirs, objtype, i) or ""
            try:
                oname = acc(i).name
            except Exception as e:
                bad.append(f"{kind}({i}).name raised {type(e).__name__}: {e}")
                continue
            oname = "" if oname is None else oname
            if oname != tname:
                bad.append(f"{kind} {i}: ours={oname!r} mujoco={tname!r}")
                continue
            if tname:
                try:
                    oid = acc(tname).id
                except Exception as e:
                    bad.append(f"{kind}({tname!r}).id raised {type(e).__name__}: {e}")
                    continue
                if int(oid) != i:
                    bad.append(f"{kind}({tname!r}).id: ours={oid} mujoco={i}")
        if bad:
            out.append(f"names of {kind}: {len(bad)} problem(s); " + "; ".join(bad[:_MAX_REPORTED]))


def compare_models(ours, theirs, rtol=FLOAT_RTOL, atol=FLOAT_ATOL, fields=None, names=True, skip=()):
    """Every difference between our Model and a mujoco.MjModel, as a list of strings ([] when they match).

    ours: a numjoco Model (or anything with MjModel-named attributes, e.g. another mujoco.MjModel);
    theirs: the mujoco.MjModel oracle; rtol/atol: float tolerance (see FLOAT_RTOL); fields: optional
    iterable restricting the comparison to these MjModel attribute names (also 'opt', 'stat', 'opt.<name>',
    'stat.<name>', 'vis', 'vis.<section>', 'vis.<section>.<name>', 'names'); names: compare names through named
    access; skip: field names left out (e.g. HULL_ORDER_FIELDS, compared by hull_mismatches instead).
    """
    fields = None if fields is None else set(fields)
    skip = set(skip)
    out = []
    arrays, sizes = _all_fields()

    def wanted(name):
        return (fields is None or name in fields) and name not in skip

    required = set(REQUIRED_FIELDS)
    inertia_special = wanted("body_inertia") or wanted("body_iquat")
    hull_rows = _hull_order_bvh_rows(ours, theirs)
    for name in sizes + arrays:
        if name in IGNORED_FIELDS or not wanted(name):
            continue
        if name in ("body_inertia", "body_iquat"):
            continue  # handled together below
        tv = getattr(theirs, name)
        ov = _get(ours, name)
        if (
            name in BVH_NODE_FIELDS
            and hull_rows is not None
            and not isinstance(ov, Exception)
            and ov is not _MISSING
            and np.shape(ov) == np.shape(tv)
        ):
            ov, tv = np.asarray(ov)[~hull_rows], np.asarray(tv)[~hull_rows]
        if ov is _MISSING:
            if name in required:
                out.append(f"{name}: missing on our Model (required)")
            continue
        if isinstance(tv, np.ndarray):
            _compare_array(name, ov, tv, rtol, atol, theirs, out)
        else:
            if isinstance(ov, Exception):
                out.append(f"{name}: reading it on our Model raised {type(ov).__name__}: {ov}")
                continue
            if isinstance(ov, (bool, np.bool_)) or not isinstance(ov, (int, np.integer)):
                out.append(f"{name}: ours={ov!r} is not an int (mujoco={tv})")
            elif int(ov) != int(tv):
                out.append(f"{name}: ours={int(ov)} mujoco={int(tv)}")
    if inertia_special:
        _compare_inertia(ours, theirs, rtol, atol, out)
    if hull_rows is not None and wanted("bvh_aabb"):
        _compare_hull_bvh(ours, theirs, rtol, atol, out)
    for name in BYTES_FIELDS:
        if not wanted(name):
            continue
        ov, tv = _get(ours, name), bytes(getattr(theirs, name))
        if ov is _MISSING:
            out.append(f"{name}: missing on our Model (required)")
        elif isinstance(ov, Exception) or not isinstance(ov, (bytes, bytearray)):
            out.append(f"{name}: ours is {type(ov).__name__}, not bytes")
        elif bytes(ov) != tv:
            out.append(f"{name}: ours={bytes(ov)!r} mujoco={tv!r}")

    for label, req in (("opt", REQUIRED_OPT), ("stat", REQUIRED_STAT)):
        if fields is None or label in fields or any(f.startswith(label + ".") for f in fields):
            _compare_struct(label, _get(ours, label), getattr(theirs, label), set(req), rtol, atol, out, fields)
    if fields is None or "vis" in fields or any(f.startswith("vis.") for f in fields):
        _compare_vis(ours, theirs, rtol, atol, out, fields)
    if names and wanted("names"):
        _compare_names(ours, theirs, out)
    return out


def assert_models_match(ours, theirs, rtol=FLOAT_RTOL, atol=FLOAT_ATOL, fields=None, names=True, label="", skip=()):
    """AssertionError listing every mismatch (compare_models) when the models differ."""
    mism = compare_models(ours, theirs, rtol=rtol, atol=atol, fields=fields, names=names, skip=skip)
    if mism:
        head = f"{label}: " if label else ""
        raise AssertionError(f"{head}{len(mism)} field mismatch(es) against mujoco:\n  " + "\n  ".join(mism))


# ------------------------------------------------------------------------------------- convex hulls of meshes

# Mesh fields laid out in qhull's order (MuJoCo builds the convex hull of a colliding mesh with qhull; numjoco's
# own hull lists vertices, faces and neighbours in another order, and may triangulate coplanar facets
# differently): compare_models(..., skip=HULL_ORDER_FIELDS) leaves them out and hull_mismatches compares their
# content order-free.
HULL_ORDER_FIELDS = frozenset(
    {
        "mesh_graph",
        "mesh_extrema",
        "mesh_polyvert",
        "mesh_polymap",
        "mesh_polynormal",
        "mesh_polyvertadr",
        "mesh_polyvertnum",
    }
)


def _field(obj, name):
    return obj[name] if isinstance(obj, dict) else getattr(obj, name)


def hull_of(obj, i):
    """(global vertex ids, faces as canonical rotations, neighbour sets, numvert, numface) of mesh i's convex
    hull graph; obj: a Model / MjModel or a dict of its fields."""
    adr = _field(obj, "mesh_graphadr")[i]
    g = np.asarray(_field(obj, "mesh_graph"))[adr:]
    nv, nf = int(g[0]), int(g[1])
    gid = g[2 + nv : 2 + 2 * nv]
    edges = g[2 + 2 * nv : 2 + 3 * nv + 3 * nf]
    faces = g[2 + 3 * nv + 3 * nf : 2 + 3 * nv + 6 * nf].reshape(-1, 3)
    nbrs, cur, k = {}, [], 0
    for e in edges:
        if e == -1:
            nbrs[int(gid[k])] = frozenset(int(gid[x]) for x in cur)
            cur, k = [], k + 1
        else:
            cur.append(int(e))

    def canon(t):
        t = [int(x) for x in t]
        r = t.index(min(t))
        return tuple(t[r:] + t[:r])

    return set(int(x) for x in gid), {canon(t) for t in faces}, nbrs, nv, nf


def polygons_of(obj, i):
    """{canonical vertex cycle: normal} of mesh i's polygons (coplanar hull faces merged)."""
    adr, num = _field(obj, "mesh_polyadr")[i], _field(obj, "mesh_polynum")[i]
    out = {}
    for p in range(adr, adr + num):
        a, n = _field(obj, "mesh_polyvertadr")[p], _field(obj, "mesh_polyvertnum")[p]
        cyc = [int(x) for x in np.asarray(_field(obj, "mesh_polyvert"))[a : a + n]]
        r = cyc.index(min(cyc))
        out[tuple(cyc[r:] + cyc[:r])] = np.asarray(_field(obj, "mesh_polynormal"))[p]
    return out


def hull_mismatches(ours, theirs, i, simplicial=None):
    """Order-free comparison of mesh i's hull (HULL_ORDER_FIELDS) against MuJoCo's, as a list of strings:
    vertex set, vertex and face counts, polygons and their normals (<= 1e-6: normals from float vertices), the
    polygons around every vertex, and the extreme vertex in each of the 27 directions (its projection, ties
    being broken by hull order).  Faces and neighbours are compared when the hull is simplicial (no coplanar
    facets, so the triangulation is unique); simplicial=None decides from MuJoCo's polygons (all triangles)."""
    out = []
    if _field(theirs, "mesh_graphadr")[i] < 0 or _field(ours, "mesh_graphadr")[i] < 0:
        if _field(theirs, "mesh_graphadr")[i] != _field(ours, "mesh_graphadr")[i]:
            out.append(f"mesh {i}: hull present in only one model")
        return out
    ho, ht = hull_of(ours, i), hull_of(theirs, i)
    if ho[0] != ht[0]:
        out.append(f"mesh {i}: hull vertex sets differ")
    if ho[3:] != ht[3:]:
        out.append(f"mesh {i}: hull (numvert, numface) ours={ho[3:]} mujoco={ht[3:]}")
    po, pt = polygons_of(ours, i), polygons_of(theirs, i)
    if simplicial is None:
        simplicial = all(len(c) == 3 for c in pt)
    if simplicial and (ho[1] != ht[1] or ho[2] != ht[2]):
        out.append(f"mesh {i}: faces or vertex neighbours of a simplicial hull differ")
    if set(po) != set(pt):
        out.append(f"mesh {i}: polygons differ")
        return out
    for key in po:
        if np.max(np.abs(po[key] - pt[key])) >= 1e-6:
            out.append(f"mesh {i}: normal of polygon {key} differs")
    va, vn = _field(theirs, "mesh_vertadr")[i], _field(theirs, "mesh_vertnum")[i]
    cyc_o, cyc_t = list(po), list(pt)
    for v in range(va, va + vn):
        around = []
        for obj, cyc in ((ours, cyc_o), (theirs, cyc_t)):
            a, n = _field(obj, "mesh_polymapadr")[v], _field(obj, "mesh_polymapnum")[v]
            around.append({cyc[int(j)] for j in np.asarray(_field(obj, "mesh_polymap"))[a : a + n]})
        if around[0] != around[1]:
            out.append(f"mesh {i}: polygons around vertex {v} differ")
            break
    ex_o, ex_t = np.asarray(_field(ours, "mesh_extrema"))[i], np.asarray(_field(theirs, "mesh_extrema"))[i]
    gid_o = np.asarray(_field(ours, "mesh_graph"))[_field(ours, "mesh_graphadr")[i] :][2 + ho[3] : 2 + 2 * ho[3]]
    gid_t = np.asarray(_field(theirs, "mesh_graph"))[_field(theirs, "mesh_graphadr")[i] :][2 + ht[3] : 2 + 2 * ht[3]]
    vert = np.asarray(_field(theirs, "mesh_vert"))[va : va + vn]
    k = 0
    for cx in (-1, 0, 1):
        for cy in (-1, 0, 1):
            for cz in (-1, 0, 1):
                d = np.array([cx, cy, cz], np.float32)
                if abs(float(vert[gid_o[ex_o[k]]] @ d) - float(vert[gid_t[ex_t[k]]] @ d)) >= 1e-6:
                    out.append(f"mesh {i}: extreme vertex in direction {(cx, cy, cz)} differs")
                k += 1
    return out


def load_pair(text, directory, stem="_pair"):
    """(ours, theirs) for model text written to a temporary file in `directory` (so that the files it names
    resolve), loaded by sim.load_model and mujoco.MjModel.from_xml_path; a sim.ModelError / ValueError raised by
    either is returned in its place.  Warnings from sim are silenced (tests check them where they matter)."""
    import os
    import warnings
    import sim

    path = os.path.join(directory, f"{stem}_{os.getpid()}.xml")
    with open(path, "w") as f:
        f.write(text)
    try:
        try:
            theirs = mujoco.MjModel.from_xml_path(path)
        except ValueError as e:
            theirs = e
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ours = sim.load_model(path)
        except sim.ModelError as e:
            ours = e
    finally:
        os.remove(path)
    return ours, theirs


def mismatch_fields(mismatches):
    """Field names of compare_models messages (the text before the first ':'), for grouping failures."""
    return [m.split(":", 1)[0] for m in mismatches]


def dense_efc_J(m, md):
    """MuJoCo's efc_J as a dense (nefc, nv) array, whether MuJoCo stored it dense or sparse (CSR rows)."""
    nefc = md.nefc
    if not mujoco.mj_isSparse(m):
        return md.efc_J[: nefc * m.nv].reshape(nefc, m.nv).copy()
    J = np.zeros((nefc, m.nv))
    for i in range(nefc):
        a, n = md.efc_J_rowadr[i], md.efc_J_rownnz[i]
        J[i, md.efc_J_colind[a : a + n]] = md.efc_J[a : a + n]
    return J


def random_qpos(m, rng, spread):
    """qpos0 + spread * N(0, 1) with fresh random unit quaternions for free and ball joints (nq,)."""
    qpos = m.qpos0 + spread * rng.standard_normal(m.nq)
    for j in range(m.njnt):
        adr = m.jnt_qposadr[j]
        if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
            q = rng.standard_normal(4)
            qpos[adr + 3 : adr + 7] = q / np.linalg.norm(q)
        elif m.jnt_type[j] == mujoco.mjtJoint.mjJNT_BALL:
            q = rng.standard_normal(4)
            qpos[adr : adr + 4] = q / np.linalg.norm(q)
    return qpos
