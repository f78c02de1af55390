"""The field registry of numjoco's Model, Data and Task structs (MJX's types.py, MuJoCo's mjxmacro.h): one
section per stage, each declaring the Model scalars (int64) and arrays and the per-world Data arrays its kernels
read and write, as (name, ndim, kind) with kind 'f' (float64) or 'i' (int32); Data arrays carry a leading world
axis (nworld, ...), so one kernel path serves one world (serial entry) and a batch (parallel entry).

A section also says how its values come from a model: Model fields are read from any object with MjModel
attribute names (a mujoco.MjModel or the numjoco compiler's Model) by name unless its `derived(m)` computes them
(effective armature, body contact flags, ...), and `shapes(m, size)` gives the per-world shape of each of its
Data arrays, size being the buffer capacities {'nconmax', 'njmax'} (sim/io.py data_sizes).  The struct types
concatenate the sections in SECTIONS order; sim/io.py builds the structs.
"""

from typing import Callable, NamedTuple

import numpy as np
from numba import types
from numba.experimental import structref

import sim.jit.cache  # noqa: F401  (sets the source-hash-keyed numba cache dir first)
from sim.constants import (
    BOXBOX_MAXVERT,
    MAXCONPAIR,
    MAXTREEDEPTH,
    NISLAND,
    NSOLVER,
    NWARNING,
    OPT_CCD_ITERATIONS,
    SLV_EFC_ROWS,
    SLV_INT_ROWS,
    PGS_ORDER_CAP,
    SLV_NV_ROWS,
    AR_CAP,
    SOL_PGS,
)
from sim.jit import short_struct_type


class Section(NamedTuple):
    """The fields of one stage."""

    name: str
    model_scalars: list  # Model sizes and flags (int64)
    model_arrays: list  # (name, ndim, kind) Model arrays
    data_arrays: list  # (name, ndim with the world axis, kind) Data arrays
    derived: Callable  # m -> {name: value} of the Model fields not read from m by name
    shapes: Callable  # (m, size) -> {name: per-world shape} of the Data arrays


# ------------------------------------------------------------------------------------------------------------------
# smooth dynamics: kinematics, com, tendons, transmissions, CRB and factorisation, RNE, passive forces, actuation,
# integration (sim/engine/kinematics.py ... integrate.py).  The Model arrays ending in _eff are the MjModel values
# plus the actuators' contributions (mj_actuatorArmature / mj_actuatorDamping), computed by sim/io.py; scr_* are
# per-world scratch.


def _smooth_shapes(m, size):
    """Per-world shapes of the smooth-dynamics Data arrays."""
    nq, nv, nu, na, nbody = int(m.nq), int(m.nv), int(m.nu), int(m.na), int(m.nbody)
    nC = int(getattr(m, "nC", getattr(m, "nM", 0)))
    nJmom = int(getattr(m, "nJmom", 0))
    s = dict(
        time=(),
        qpos=(nq,),
        qvel=(nv,),
        act=(na,),
        ctrl=(nu,),
        history=(int(getattr(m, "nhistory", 0)),),
        qfrc_applied=(nv,),
        xfrc_applied=(nbody, 6),
        mocap_pos=(int(m.nmocap), 3),
        mocap_quat=(int(m.nmocap), 4),
        qacc=(nv,),
        act_dot=(na,),
        qacc_warmstart=(nv,),
        xpos=(nbody, 3),
        xquat=(nbody, 4),
        xmat=(nbody, 9),
        xipos=(nbody, 3),
        ximat=(nbody, 9),
        xanchor=(int(m.njnt), 3),
        xaxis=(int(m.njnt), 3),
        geom_xpos=(int(m.ngeom), 3),
        geom_xmat=(int(m.ngeom), 9),
        site_xpos=(int(m.nsite), 3),
        site_xmat=(int(m.nsite), 9),
        subtree_com=(nbody, 3),
        cinert=(nbody, 10),
        crb=(nbody, 10),
        cdof=(nv, 6),
        cvel=(nbody, 6),
        cdof_dot=(nv, 6),
        ten_length=(int(m.ntendon),),
        ten_J=(int(getattr(m, "nJten", 0)),),
        ten_velocity=(int(m.ntendon),),
        wrap_xpos=(2 * int(m.nwrap), 3),
        wrap_obj=(2 * int(m.nwrap),),
        ten_wrapadr=(int(m.ntendon),),
        ten_wrapnum=(int(m.ntendon),),
        actuator_length=(nu,),
        actuator_moment=(nJmom,),
        moment_rownnz=(nu,),
        moment_rowadr=(nu,),
        moment_colind=(nJmom,),
        actuator_velocity=(nu,),
        actuator_force=(nu,),
        qfrc_actuator=(nv,),
        M=(nC,),
        qLD=(nC,),
        qLDiagInv=(nv,),
        qH=(nC,),
        qHDiagInv=(nv,),
        qfrc_spring=(nv,),
        qfrc_damper=(nv,),
        qfrc_gravcomp=(nv,),
        qfrc_fluid=(nv,),
        qfrc_adhesion=(nv,),
        qfrc_passive=(nv,),
        qfrc_bias=(nv,),
        qfrc_smooth=(nv,),
        qacc_smooth=(nv,),
        qfrc_constraint=(nv,),
        cacc=(nbody, 6),
        cfrc_int=(nbody, 6),
        cfrc_ext=(nbody, 6),
        warning_number=(NWARNING + 1,),
        warning_lastinfo=(NWARNING + 1,),
        scr_body6a=(nbody, 6),
        scr_body6b=(nbody, 6),
        scr_nv=(6, nv),
        scr_ctrl=(nu,),
        scr_rk_x=(4, nq + nv + na),
        scr_rk_f=(4, nv + na),
        scr_rk_dx=(2 * nv + na,),
        scr_deriv=(2, nv),
        scr_tenjac=(2, 3, nv),
    )
    return s


def _smooth_derived(m):
    """None here: sim/io.py computes the effective armature / damping and packs the options."""
    return {}


SMOOTH = Section(
    "smooth",
    model_scalars=[
        "nq",
        "nv",
        "nu",
        "na",
        "nbody",
        "njnt",
        "ngeom",
        "nsite",
        "ntendon",
        "nwrap",
        "nmocap",
        "nC",
        "nJten",
        "nJmom",
        "nflg_gravcomp",
        "nhistory",
    ],
    model_arrays=[
        # options (sim/model.py Option, packed)
        ("opt", 1, "f"),
        # reference configurations
        ("qpos0", 1, "f"),
        ("qpos_spring", 1, "f"),
        # bodies
        ("body_parentid", 1, "i"),
        ("body_rootid", 1, "i"),
        ("body_weldid", 1, "i"),
        ("body_mocapid", 1, "i"),
        ("body_jntnum", 1, "i"),
        ("body_jntadr", 1, "i"),
        ("body_dofnum", 1, "i"),
        ("body_dofadr", 1, "i"),
        ("body_geomnum", 1, "i"),
        ("body_geomadr", 1, "i"),
        ("body_sameframe", 1, "i"),
        ("body_pos", 2, "f"),
        ("body_quat", 2, "f"),
        ("body_ipos", 2, "f"),
        ("body_iquat", 2, "f"),
        ("body_mass", 1, "f"),
        ("body_subtreemass", 1, "f"),
        ("body_inertia", 2, "f"),
        ("body_gravcomp", 1, "f"),
        # joints
        ("jnt_type", 1, "i"),
        ("jnt_qposadr", 1, "i"),
        ("jnt_dofadr", 1, "i"),
        ("jnt_bodyid", 1, "i"),
        ("jnt_pos", 2, "f"),
        ("jnt_axis", 2, "f"),
        ("jnt_stiffness", 1, "f"),
        ("jnt_stiffnesspoly", 2, "f"),
        ("jnt_actfrclimited", 1, "i"),
        ("jnt_actfrcrange", 2, "f"),
        ("jnt_actgravcomp", 1, "i"),
        # dofs
        ("dof_bodyid", 1, "i"),
        ("dof_jntid", 1, "i"),
        ("dof_parentid", 1, "i"),
        ("dof_simplenum", 1, "i"),
        ("dof_M0", 1, "f"),
        ("dof_damping", 1, "f"),
        ("dof_dampingpoly", 2, "f"),
        ("dof_armature_eff", 1, "f"),
        ("dof_damping_eff", 1, "f"),
        ("dof_dampingpoly_eff", 2, "f"),
        ("dof_eulerdamp", 1, "i"),
        # sparsity of the inertia matrix M
        ("M_rownnz", 1, "i"),
        ("M_rowadr", 1, "i"),
        ("M_colind", 1, "i"),
        # geom and site frames
        ("geom_bodyid", 1, "i"),
        ("geom_sameframe", 1, "i"),
        ("geom_pos", 2, "f"),
        ("geom_quat", 2, "f"),
        ("site_bodyid", 1, "i"),
        ("site_sameframe", 1, "i"),
        ("site_pos", 2, "f"),
        ("site_quat", 2, "f"),
        # tendons
        ("tendon_adr", 1, "i"),
        ("tendon_num", 1, "i"),
        ("tendon_stiffness", 1, "f"),
        ("tendon_stiffnesspoly", 2, "f"),
        ("tendon_damping_eff", 1, "f"),
        ("tendon_dampingpoly_eff", 2, "f"),
        ("tendon_armature_eff", 1, "f"),
        ("tendon_lengthspring", 2, "f"),
        ("tendon_actfrclimited", 1, "i"),
        ("tendon_actfrcrange", 2, "f"),
        # sparsity of the tendon Jacobian
        ("ten_J_rownnz", 1, "i"),
        ("ten_J_rowadr", 1, "i"),
        ("ten_J_colind", 1, "i"),
        # tendon wrapping
        ("wrap_type", 1, "i"),
        ("wrap_objid", 1, "i"),
        ("wrap_prm", 1, "f"),
        # actuators
        ("actuator_trntype", 1, "i"),
        ("actuator_dyntype", 1, "i"),
        ("actuator_gaintype", 1, "i"),
        ("actuator_biastype", 1, "i"),
        ("actuator_trnid", 2, "i"),
        ("actuator_actadr", 1, "i"),
        ("actuator_actnum", 1, "i"),
        ("actuator_group", 1, "i"),
        ("actuator_ctrllimited", 1, "i"),
        ("actuator_forcelimited", 1, "i"),
        ("actuator_actlimited", 1, "i"),
        ("actuator_ctrlrange", 2, "f"),
        ("actuator_delay", 1, "f"),
        ("actuator_history", 2, "i"),
        ("actuator_historyadr", 1, "i"),
        ("actuator_forcerange", 2, "f"),
        ("actuator_actrange", 2, "f"),
        ("actuator_gear", 2, "f"),
        ("actuator_dynprm", 2, "f"),
        ("actuator_gainprm", 2, "f"),
        ("actuator_biasprm", 2, "f"),
        ("actuator_actearly", 1, "i"),
        ("actuator_ctrlspec", 1, "i"),
        ("actuator_lengthrange", 2, "f"),
        ("actuator_acc0", 1, "f"),
    ],
    data_arrays=[
        ("time", 1, "f"),
        ("qpos", 2, "f"),
        ("qvel", 2, "f"),
        ("act", 2, "f"),
        ("ctrl", 2, "f"),
        ("history", 2, "f"),
        ("qfrc_applied", 2, "f"),
        ("xfrc_applied", 3, "f"),
        ("mocap_pos", 3, "f"),
        ("mocap_quat", 3, "f"),
        ("qacc", 2, "f"),
        ("act_dot", 2, "f"),
        ("qacc_warmstart", 2, "f"),
        ("xpos", 3, "f"),
        ("xquat", 3, "f"),
        ("xmat", 3, "f"),
        ("xipos", 3, "f"),
        ("ximat", 3, "f"),
        ("xanchor", 3, "f"),
        ("xaxis", 3, "f"),
        ("geom_xpos", 3, "f"),
        ("geom_xmat", 3, "f"),
        ("site_xpos", 3, "f"),
        ("site_xmat", 3, "f"),
        ("subtree_com", 3, "f"),
        ("cinert", 3, "f"),
        ("crb", 3, "f"),
        ("cdof", 3, "f"),
        ("cvel", 3, "f"),
        ("cdof_dot", 3, "f"),
        ("ten_length", 2, "f"),
        ("ten_J", 2, "f"),
        ("ten_velocity", 2, "f"),
        ("wrap_xpos", 3, "f"),
        ("wrap_obj", 2, "i"),
        ("ten_wrapadr", 2, "i"),
        ("ten_wrapnum", 2, "i"),
        ("actuator_length", 2, "f"),
        ("actuator_moment", 2, "f"),
        ("moment_rownnz", 2, "i"),
        ("moment_rowadr", 2, "i"),
        ("moment_colind", 2, "i"),
        ("actuator_velocity", 2, "f"),
        ("actuator_force", 2, "f"),
        ("qfrc_actuator", 2, "f"),
        ("M", 2, "f"),
        ("qLD", 2, "f"),
        ("qLDiagInv", 2, "f"),
        ("qH", 2, "f"),
        ("qHDiagInv", 2, "f"),
        ("qfrc_spring", 2, "f"),
        ("qfrc_damper", 2, "f"),
        ("qfrc_gravcomp", 2, "f"),
        ("qfrc_fluid", 2, "f"),
        ("qfrc_adhesion", 2, "f"),
        ("qfrc_passive", 2, "f"),
        ("qfrc_bias", 2, "f"),
        ("qfrc_smooth", 2, "f"),
        ("qacc_smooth", 2, "f"),
        ("qfrc_constraint", 2, "f"),
        ("cacc", 3, "f"),
        ("cfrc_int", 3, "f"),
        ("cfrc_ext", 3, "f"),
        ("warning_number", 2, "i"),
        ("warning_lastinfo", 2, "i"),
        ("scr_body6a", 3, "f"),
        ("scr_body6b", 3, "f"),
        ("scr_nv", 3, "f"),
        ("scr_ctrl", 2, "f"),
        ("scr_rk_x", 3, "f"),
        ("scr_rk_f", 3, "f"),
        ("scr_rk_dx", 2, "f"),
        ("scr_deriv", 3, "f"),
        ("scr_tenjac", 4, "f"),
    ],
    derived=_smooth_derived,
    shapes=_smooth_shapes,
)


# ------------------------------------------------------------------------------------------------------------------
# collision: broadphase, narrowphase, contact parameters (sim/engine/collision/, mj_collision)
#
# Fields of the collision stage (broadphase, primitive narrowphase, contact parameters, ray).
#
# Declares the Model arrays the collision kernels read and the per-world contact buffer, whose capacity
# ``nconmax`` comes from data_sizes (sim.types).  Contact arrays mirror MuJoCo's mjContact fields as
# ``contact_<field>`` with shape (nworld, nconmax, ...); ``ncon`` (nworld,) counts the valid rows.


def _collision_body_flags(m, name):
    """body_contype / body_conaffinity: OR of the body's geom bits (as mj_setConst / the compiler)."""
    v = getattr(m, name, None)
    if v is not None:
        return v
    nbody = int(m.nbody)
    out = np.zeros(nbody, np.int32)
    gb = np.asarray(m.geom_bodyid)
    g = np.asarray(getattr(m, "geom_" + name[5:]))
    for i in range(int(m.ngeom)):
        out[gb[i]] |= g[i]
    return out


def _collision_derived(m):
    """Derived collision model arrays (everything else is read from m by name)."""
    return dict(
        body_contype=_collision_body_flags(m, "body_contype"),
        body_conaffinity=_collision_body_flags(m, "body_conaffinity"),
    )


def _collision_shapes(m, size):
    """Per-world shapes of the contact buffer."""
    c = int(size["nconmax"])
    s = dict(
        ncon=(),
        scr_con_dist=(MAXCONPAIR,),
        scr_con_pos=(MAXCONPAIR, 3),
        scr_con_normal=(MAXCONPAIR, 3),
        scr_con_tangent=(MAXCONPAIR, 3),
    )
    nb = max(int(m.nbody), 1)
    gnum = np.asarray(m.body_geomnum).reshape(-1)
    # always-colliding bodies (world with geoms, dof-less bodies with planes) pair with every body
    gtype = np.asarray(m.geom_type).reshape(-1)
    gadr = np.asarray(m.body_geomadr).reshape(-1)
    weld = np.asarray(m.body_weldid).reshape(-1)
    dofnum = np.asarray(m.body_dofnum).reshape(-1)
    nstatic = 0
    for b in range(int(m.nbody)):
        plane = bool(np.any(gtype[gadr[b] : gadr[b] + gnum[b]] == 0)) if gnum[b] else False
        nstatic += int((b == 0 and gnum[b] > 0) or (dofnum[weld[b]] == 0 and plane))
    maxbf = nb * (nb - 1) // 2 + nstatic * nb + 1
    maxleaf = int(gnum.max()) ** 2 if gnum.size else 1
    s.update(
        scr_boxpoly=(2, BOXBOX_MAXVERT, 3),
        scr_boxdist=(BOXBOX_MAXVERT,),
        scr_aamm=(nb, 6),
        scr_sapval=(2 * nb,),
        scr_sapid=(2 * nb,),
        scr_sapbufval=(2 * nb,),
        scr_sapbufid=(2 * nb,),
        scr_sapactive=(nb,),
        scr_bfid=(nb,),
        scr_bfkey=(maxbf,),
        scr_bfbuf=(maxbf,),
        scr_bfpay=(maxbf,),
        scr_bfpaybuf=(maxbf,),
        scr_leafpair=(max(maxleaf, 1), 2),
    )
    for n, shp in CONTACT_FIELDS + CONTACT_INT_FIELDS:
        s["contact_" + n] = (c,) + shp
    return s


# contact buffer: (name, per-contact shape); Data arrays contact_<name> (nworld, nconmax, ...)
CONTACT_FIELDS = [
    ("dist", ()),
    ("pos", (3,)),
    ("frame", (9,)),
    ("includemargin", ()),
    ("friction", (5,)),
    ("solref", (2,)),
    ("solreffriction", (2,)),
    ("solimp", (5,)),
    ("mu", ()),
    ("H", (36,)),
    ("adhesion", ()),
]
CONTACT_INT_FIELDS = [
    ("dim", ()),
    ("geom1", ()),
    ("geom2", ()),
    ("geom", (2,)),
    ("flex", (2,)),
    ("elem", (2,)),
    ("vert", (2,)),
    ("exclude", ()),
    ("efc_address", ()),
]
# narrowphase output (MuJoCo's mjPreContact, up to MAXCONPAIR per geom pair) before the driver adds them
PRECONTACT_FIELDS = [
    ("scr_con_dist", 2, "f"),
    ("scr_con_pos", 3, "f"),
    ("scr_con_normal", 3, "f"),
    ("scr_con_tangent", 3, "f"),
]
# collision scratch: box-box clipping polygons, broadphase (sweep-and-prune) and midphase buffers
SCRATCH_FIELDS = [
    ("scr_boxpoly", 4, "f"),
    ("scr_boxdist", 2, "f"),
    ("scr_aamm", 3, "f"),
    ("scr_sapval", 2, "f"),
    ("scr_sapid", 2, "i"),
    ("scr_sapbufval", 2, "f"),
    ("scr_sapbufid", 2, "i"),
    ("scr_sapactive", 2, "i"),
    ("scr_bfid", 2, "i"),
    ("scr_bfkey", 2, "f"),
    ("scr_bfbuf", 2, "f"),
    ("scr_bfpay", 2, "i"),
    ("scr_bfpaybuf", 2, "i"),
    ("scr_leafpair", 3, "i"),
]

COLLISION = Section(
    "collision",
    model_scalars=[
        "npair",
        "nexclude",
    ],
    model_arrays=[
        ("geom_type", 1, "i"),
        ("geom_contype", 1, "i"),
        ("geom_conaffinity", 1, "i"),
        ("geom_condim", 1, "i"),
        ("geom_priority", 1, "i"),
        ("geom_dataid", 1, "i"),
        ("geom_solmix", 1, "f"),
        ("geom_solref", 2, "f"),
        ("geom_solimp", 2, "f"),
        ("geom_friction", 2, "f"),
        ("geom_margin", 1, "f"),
        ("geom_gap", 1, "f"),
        ("geom_size", 2, "f"),
        ("geom_rbound", 1, "f"),
        ("geom_aabb", 2, "f"),
        ("geom_adhesion", 1, "f"),
        ("geom_surfacevel", 2, "f"),
        ("body_contype", 1, "i"),
        ("body_conaffinity", 1, "i"),
        ("pair_dim", 1, "i"),
        ("pair_geom1", 1, "i"),
        ("pair_geom2", 1, "i"),
        ("pair_signature", 1, "i"),
        ("pair_solref", 2, "f"),
        ("pair_solreffriction", 2, "f"),
        ("pair_solimp", 2, "f"),
        ("pair_margin", 1, "f"),
        ("pair_gap", 1, "f"),
        ("pair_friction", 2, "f"),
        ("pair_adhesion", 1, "f"),
        ("exclude_signature", 1, "i"),
    ],
    data_arrays=(
        [("ncon", 1, "i")]
        + PRECONTACT_FIELDS
        + SCRATCH_FIELDS
        + [("contact_" + n, 2 + len(s), "f") for n, s in CONTACT_FIELDS]
        + [("contact_" + n, 2 + len(s), "i") for n, s in CONTACT_INT_FIELDS]
    ),
    derived=_collision_derived,
    shapes=_collision_shapes,
)


# ------------------------------------------------------------------------------------------------------------------
# convex collision: meshes, ellipsoids, cylinders (GJK / EPA / multi-contact) and height fields
#
# Fields of the convex narrowphase (GJK/EPA/multi-contact for meshes, ellipsoids, cylinders) and height fields.
#
# Declares the mesh / height-field Model arrays the convex kernels read and their per-world scratch: the two
# collision objects (sim.engine.collision.support), the GJK status and simplex, the EPA polytope (sized by
# opt.ccd_iterations as mjc_ccdSize) and the multi-contact polygon buffers (sized by the largest mesh polygon
# and vertex degree).


def _convex_ccd_iterations(m):
    opt = m.opt
    it = getattr(opt, "ccd_iterations", None)
    if it is None:
        it = np.asarray(opt)[OPT_CCD_ITERATIONS]
    return int(it)


def _convex_mesh_extrema(m):
    """mesh_extrema (nmesh, 27): graph-local id of the vertex farthest along each 3x3x3 grid direction."""
    nmesh = int(m.nmesh)
    out = np.zeros((nmesh, 27), np.int32)
    graph = np.asarray(m.mesh_graph)
    vert = np.asarray(m.mesh_vert, np.float32).reshape(-1, 3)
    for i in range(nmesh):
        ga = int(m.mesh_graphadr[i])
        if ga < 0:
            continue
        nv = int(graph[ga])
        gid = graph[ga + 2 + nv : ga + 2 + 2 * nv]
        v = vert[int(m.mesh_vertadr[i]) + gid]
        k = 0
        for cx in (-1, 0, 1):
            for cy in (-1, 0, 1):
                for cz in (-1, 0, 1):
                    dot = (v[:, 0] * np.float32(cx) + v[:, 1] * np.float32(cy)) + v[:, 2] * np.float32(cz)
                    out[i, k] = int(np.argmax(dot))  # first maximum, as the strict '>' scan
                    k += 1
    return out


def _convex_derived(m):
    """Derived convex-collision model arrays (everything else is read from m by name)."""
    if getattr(m, "mesh_extrema", None) is not None:
        return {}
    return dict(mesh_extrema=_convex_mesh_extrema(m))


def _convex_shapes(m, size):
    """Per-world shapes of the convex-collision scratch."""
    n = max(_convex_ccd_iterations(m), 1)
    nv, nf = 5 + n, 6 * n
    pnum = np.asarray(getattr(m, "mesh_polyvertnum", np.zeros(0)))
    mnum = np.asarray(getattr(m, "mesh_polymapnum", np.zeros(0)))
    # polygons: box faces (4), cylinder caps (16-gons), mesh polygons
    pmax = max(16, int(pnum.max()) if pnum.size else 0, int(getattr(m, "npolygonmax", 0) or 0))
    dmax = max(3, int(mnum.max()) if mnum.size else 0, int(getattr(m, "nmeshdegmax", 0) or 0))
    return dict(
        scr_ccd_f=(2, 20),
        scr_ccd_i=(2, 8),
        scr_prism=(6, 3),
        scr_simplex=(4, 9),
        scr_simplex_i=(4, 2),
        scr_simplex2=(4, 9),
        scr_simplex2_i=(4, 2),
        scr_gjk_x1=(MAXCONPAIR, 3),
        scr_gjk_x2=(MAXCONPAIR, 3),
        scr_gjk_dist=(MAXCONPAIR,),
        scr_gjk_st=(8,),
        scr_gjk_lam=(4,),
        scr_gjk_tmp=(4,),
        scr_gjk_nrm=(4, 3),
        scr_gjk_s=(4,),
        scr_pt_v=(nv, 9),
        scr_pt_vi=(nv, 2),
        scr_pt_fi=(nf, 7),
        scr_pt_ff=(nf, 4),
        scr_pt_map=(nf,),
        scr_pt_hzn=(nf, 2),
        scr_pt_stk=(nf, 3),
        scr_pt_n=(8,),
        scr_pt_c=(3,),
        scr_mc_vi=(2, 3),
        scr_mc_vv=(2, 3, 3),
        scr_mc_n=(2, dmax, 3),
        scr_mc_idx=(2, dmax),
        scr_mc_end=(dmax, 3),
        scr_mc_face=(2, pmax, 3),
        scr_mc_poly=(2, 2 * pmax + 2, 3),
        scr_mc_pn=(pmax, 3),
        scr_mc_pd=(pmax,),
        scr_mc_tmp=(4,),
    )


CONVEX = Section(
    "convex",
    model_scalars=[
        "nmesh",
        "nhfield",
    ],
    model_arrays=[
        ("mesh_vertadr", 1, "i"),
        ("mesh_vertnum", 1, "i"),
        ("mesh_vert", 2, "f"),
        ("mesh_faceadr", 1, "i"),
        ("mesh_facenum", 1, "i"),
        ("mesh_face", 2, "i"),
        ("mesh_graphadr", 1, "i"),
        ("mesh_graph", 1, "i"),
        ("mesh_extrema", 2, "i"),
        ("mesh_polynum", 1, "i"),
        ("mesh_polyadr", 1, "i"),
        ("mesh_polynormal", 2, "f"),
        ("mesh_polyvertadr", 1, "i"),
        ("mesh_polyvertnum", 1, "i"),
        ("mesh_polyvert", 1, "i"),
        ("mesh_polymapadr", 1, "i"),
        ("mesh_polymapnum", 1, "i"),
        ("mesh_polymap", 1, "i"),
        ("hfield_size", 2, "f"),
        ("hfield_nrow", 1, "i"),
        ("hfield_ncol", 1, "i"),
        ("hfield_adr", 1, "i"),
        ("hfield_data", 1, "f"),
    ],
    data_arrays=[
        ("scr_ccd_f", 3, "f"),
        ("scr_ccd_i", 3, "i"),
        ("scr_prism", 3, "f"),
        ("scr_simplex", 3, "f"),
        ("scr_simplex_i", 3, "i"),
        ("scr_simplex2", 3, "f"),
        ("scr_simplex2_i", 3, "i"),
        ("scr_gjk_x1", 3, "f"),
        ("scr_gjk_x2", 3, "f"),
        ("scr_gjk_dist", 2, "f"),
        ("scr_gjk_st", 2, "i"),
        ("scr_gjk_lam", 2, "f"),
        ("scr_gjk_tmp", 2, "f"),
        ("scr_gjk_nrm", 3, "f"),
        ("scr_gjk_s", 2, "i"),
        ("scr_pt_v", 3, "f"),
        ("scr_pt_vi", 3, "i"),
        ("scr_pt_fi", 3, "i"),
        ("scr_pt_ff", 3, "f"),
        ("scr_pt_map", 2, "i"),
        ("scr_pt_hzn", 3, "i"),
        ("scr_pt_stk", 3, "i"),
        ("scr_pt_n", 2, "i"),
        ("scr_pt_c", 2, "f"),
        ("scr_mc_vi", 3, "i"),
        ("scr_mc_vv", 4, "f"),
        ("scr_mc_n", 4, "f"),
        ("scr_mc_idx", 3, "i"),
        ("scr_mc_end", 3, "f"),
        ("scr_mc_face", 4, "f"),
        ("scr_mc_poly", 4, "f"),
        ("scr_mc_pn", 3, "f"),
        ("scr_mc_pd", 2, "f"),
        ("scr_mc_tmp", 2, "i"),
    ],
    derived=_convex_derived,
    shapes=_convex_shapes,
)


# ------------------------------------------------------------------------------------------------------------------
# constraint assembly: equality, friction loss, limits, contacts (mj_makeConstraint, mj_projectConstraint)
#
# Fields of constraint assembly (mj_makeConstraint / mj_projectConstraint inputs and the efc_* rows).
#
# The efc buffer has capacity ``njmax`` rows per world; ``nefc`` (nworld,) counts the valid rows and
# ne / nf / nl the equality / friction-loss / limit rows at its head.  efc_J is stored dense (njmax, nv).
# ``narena`` (nworld,) is MuJoCo's arena size in bytes (mjData.narena): the constraint rows are dropped, with
# MuJoCo's warning, where MuJoCo's arena could not hold them (sim/engine/constraint.py).


def _constraint_derived(m):
    """Derived constraint model arrays (everything else is read from m by name)."""
    return {}


def _constraint_shapes(m, size):
    """Per-world shapes of the efc buffer (capacity njmax) and eq_active."""
    j, nv = int(size["njmax"]), int(m.nv)
    s = dict(
        eq_active=(int(m.neq),),
        ne=(),
        nf=(),
        nl=(),
        nefc=(),
        narena=(),
        efc_J=(j, nv),
        efc_KBIP=(j, 4),
        tendon_efcadr=(int(m.ntendon),),
        scr_cjac=(6, 3, nv),
        scr_cframe=(6, nv),
        scr_cnstr_nv=(nv,),
    )
    for n, nd, _ in CONSTRAINT.data_arrays:
        if n not in s:
            s[n] = (j,)
    return s


CONSTRAINT = Section(
    "constraint",
    model_scalars=[
        "neq",
    ],
    model_arrays=[
        ("eq_type", 1, "i"),
        ("eq_obj1id", 1, "i"),
        ("eq_obj2id", 1, "i"),
        ("eq_objtype", 1, "i"),
        ("eq_active0", 1, "i"),
        ("eq_solref", 2, "f"),
        ("eq_solimp", 2, "f"),
        ("eq_data", 2, "f"),
        ("dof_frictionloss", 1, "f"),
        ("dof_solref", 2, "f"),
        ("dof_solimp", 2, "f"),
        ("dof_invweight0", 1, "f"),
        ("jnt_limited", 1, "i"),
        ("jnt_range", 2, "f"),
        ("jnt_margin", 1, "f"),
        ("jnt_solref", 2, "f"),
        ("jnt_solimp", 2, "f"),
        ("tendon_limited", 1, "i"),
        ("tendon_range", 2, "f"),
        ("tendon_margin", 1, "f"),
        ("tendon_solref_lim", 2, "f"),
        ("tendon_solimp_lim", 2, "f"),
        ("tendon_frictionloss", 1, "f"),
        ("tendon_solref_fri", 2, "f"),
        ("tendon_solimp_fri", 2, "f"),
        ("tendon_invweight0", 1, "f"),
        ("body_invweight0", 2, "f"),
        ("tendon_length0", 1, "f"),
    ],
    data_arrays=[
        ("eq_active", 2, "i"),
        ("ne", 1, "i"),
        ("nf", 1, "i"),
        ("nl", 1, "i"),
        ("nefc", 1, "i"),
        ("narena", 1, "f"),
        ("efc_type", 2, "i"),
        ("efc_id", 2, "i"),
        ("efc_J", 3, "f"),
        ("efc_pos", 2, "f"),
        ("efc_margin", 2, "f"),
        ("efc_frictionloss", 2, "f"),
        ("efc_diagA", 2, "f"),
        ("efc_KBIP", 3, "f"),
        ("efc_D", 2, "f"),
        ("efc_R", 2, "f"),
        ("efc_vel", 2, "f"),
        ("efc_aref", 2, "f"),
        ("efc_b", 2, "f"),
        ("efc_force", 2, "f"),
        ("efc_state", 2, "i"),
        ("tendon_efcadr", 2, "i"),
        ("scr_cjac", 4, "f"),
        ("scr_cframe", 3, "f"),
        ("scr_cnstr_nv", 2, "f"),
    ],
    derived=_constraint_derived,
    shapes=_constraint_shapes,
)


# ------------------------------------------------------------------------------------------------------------------
# constraint solvers and islands (mj_fwdConstraint, mj_island)
#
# Fields of the constraint solvers (PGS / CG / Newton): statistics as MuJoCo's d.solver* and solver scratch.
#
# solver_* statistics mirror mjSolverStat for island 0 (MuJoCo 3.17 keeps NSOLVER entries).
# Scratch (per world): scr_slv_nv (SLV_NV_ROWS, nv) dof vectors, scr_slv_efc (SLV_EFC_ROWS, njmax) efc vectors,
# scr_slv_quad (3 njmax + 9,) line-search polynomials, scr_slv_int (SLV_INT_ROWS, njmax) old states / PGS blocks /
# island type, id, state, scr_slv_H (nv, nv) dense Hessian and its Cholesky factor, scr_slv_Hc (nv, nv) the factor
# with elliptic cones, scr_slv_J (njmax, nv) an island's gathered Jacobian (PGS: (J M^-1/2)' as (nv, njmax)),
# scr_slv_small (160,) cone / QCQP blocks, scr_pgs_order (PGS_ORDER_CAP or 0,) and scr_pgs_meta (4,) int PGS's
# block visiting orders (sol_pgs), scr_slv_L (4 nv + 5, nv) int the sparse Newton factor's pattern and
# scr_slv_Jind (njmax, nv + 1) int J's nonzeros per row, both for models sparse when the Data is made (else no
# rows; sim/engine/solver_sparse.py),
# scr_slv_AR (nar, nar) dense J M^-1 J' + R for the dual solvers (PGS, noslip; in the sparse mode with MuJoCo's
# sparse pattern marked): nar = njmax up to AR_CAP, else AR_CAP for a model that uses a dual solver when the Data
# is made (zero pages but for the rows in use), else 0; a problem with more rows
# than nar runs on AR rows computed on the fly from Y = J L^-T D^-1/2 (rows in scr_slv_J) and scr_slv_yr (2, njmax)
# int, the first and last dof of each Y row's support (sim/engine/solver.py).
#
# Constraint islands (mj_island, sim/engine/island.py): nisland/nidof (nworld,), tree_island (ntree,), island_*
# (ntree,) per island (at most ntree islands), dof_island / map_dof2idof / map_idof2dof (nv,), efc_island /
# map_efc2iefc / map_iefc2efc (njmax,); solver_niter_island (NISLAND,) iterations per island (solver_niter
# is island 0, MuJoCo's d.solver_niter[0]); statistics of island k, iteration t at k*MJ_NSOLVER + t.
# scr_isl_int (4, L), L = max(njmax, nv, ntree, 1): identity list, saved efc_state, efc_tree, union-find parents.


def _solver_sparse(m):
    """mj_isSparse under the model's options now (jacobian sparse, or auto with nv >= 60)."""
    jac = int(getattr(getattr(m, "opt", None), "jacobian", 2))
    return jac == 1 or (jac == 2 and int(m.nv) >= 60)


def _solver_derived(m):
    """Derived solver model arrays (none)."""
    return {}


def _solver_shapes(m, size):
    """Per-world shapes of the solver statistics and scratch."""
    nv, j = int(m.nv), int(size["njmax"])
    dual = False
    opt = getattr(m, "opt", None)
    if opt is not None:
        dual = int(opt.solver) == SOL_PGS or int(opt.noslip_iterations) > 0
    nar = j if j <= AR_CAP else (AR_CAP if dual else 0)
    s = dict(
        solver_niter=(),
        solver_fwdinv=(2,),
        scr_slv_nv=(SLV_NV_ROWS, nv),
        scr_slv_efc=(SLV_EFC_ROWS, j),
        scr_slv_quad=(3 * j + 9,),
        scr_slv_int=(SLV_INT_ROWS, j),
        scr_slv_H=(nv, nv),
        scr_slv_Hc=(nv, nv),
        scr_slv_J=(j, nv),
        scr_slv_small=(160,),
        scr_pgs_order=(PGS_ORDER_CAP if dual else 0,),
        scr_pgs_meta=(4,),
        scr_slv_AR=(nar, nar),
        scr_slv_yr=(2, j),
        scr_slv_L=(4 * nv + 5 if _solver_sparse(m) else 0, nv),
        scr_slv_Jind=(j if _solver_sparse(m) else 0, nv + 1),
    )
    nt = int(m.ntree)
    s.update(
        solver_niter_island=(NISLAND,),
        nisland=(),
        nidof=(),
        tree_island=(nt,),
        map_itree2tree=(nt,),
        dof_island=(nv,),
        map_dof2idof=(nv,),
        map_idof2dof=(nv,),
        efc_island=(j,),
        map_efc2iefc=(j,),
        map_iefc2efc=(j,),
        scr_isl_int=(4, max(j, nv, nt, 1)),
    )
    for n in ("ntree", "itreeadr", "nv", "idofadr", "dofadr", "ne", "nf", "nefc", "iefcadr"):
        s["island_" + n] = (max(nt, 1),)
    for n in ("improvement", "gradient", "lineslope", "nactive", "nchange", "neval", "nupdate"):
        s["solver_" + n] = (NSOLVER,)
    return s


SOLVER = Section(
    "solver",
    model_scalars=[
        "ntree",
    ],
    model_arrays=[
        ("body_treeid", 1, "i"),
        ("tree_dofadr", 1, "i"),
    ],
    data_arrays=[
        ("solver_niter", 1, "i"),
        ("solver_fwdinv", 2, "f"),
        ("solver_improvement", 2, "f"),
        ("solver_gradient", 2, "f"),
        ("solver_lineslope", 2, "f"),
        ("solver_nactive", 2, "i"),
        ("solver_nchange", 2, "i"),
        ("solver_neval", 2, "i"),
        ("solver_nupdate", 2, "i"),
        ("scr_slv_nv", 3, "f"),
        ("scr_slv_efc", 3, "f"),
        ("scr_slv_quad", 2, "f"),
        ("scr_slv_int", 3, "i"),
        ("scr_slv_H", 3, "f"),
        ("scr_slv_Hc", 3, "f"),
        ("scr_slv_J", 3, "f"),
        ("scr_slv_small", 2, "f"),
        ("scr_pgs_order", 2, "i"),
        ("scr_pgs_meta", 2, "i"),
        ("scr_slv_AR", 3, "f"),
        ("scr_slv_yr", 3, "i"),
        ("scr_slv_L", 3, "i"),
        ("scr_slv_Jind", 3, "i"),
        ("solver_niter_island", 2, "i"),
        ("nisland", 1, "i"),
        ("nidof", 1, "i"),
        ("tree_island", 2, "i"),
        ("island_ntree", 2, "i"),
        ("island_itreeadr", 2, "i"),
        ("map_itree2tree", 2, "i"),
        ("island_nv", 2, "i"),
        ("island_idofadr", 2, "i"),
        ("island_dofadr", 2, "i"),
        ("island_ne", 2, "i"),
        ("island_nf", 2, "i"),
        ("island_nefc", 2, "i"),
        ("island_iefcadr", 2, "i"),
        ("dof_island", 2, "i"),
        ("map_dof2idof", 2, "i"),
        ("map_idof2dof", 2, "i"),
        ("efc_island", 2, "i"),
        ("map_efc2iefc", 2, "i"),
        ("map_iefc2efc", 2, "i"),
        ("scr_isl_int", 3, "i"),
    ],
    derived=_solver_derived,
    shapes=_solver_shapes,
)


# ------------------------------------------------------------------------------------------------------------------
# analytic velocity derivatives of the implicit integrators (mjd_smooth_vel, mj_implicit)
#
# Fields of the analytic velocity derivatives used by the implicit integrators (mjd_smooth_vel,
# mj_implicit): qDeriv / qLU in the symmetric dof-dof sparsity D, the body-dof sparsity B of the
# RNE derivative, and per-world scratch.


def _derivative_derived(m):
    """No derived arrays (all fields are MjModel attributes)."""
    return {}


def _derivative_shapes(m, size):
    """Per-world shapes of qDeriv/qLU (nD,), the sparse RNE-derivative scratch and small work buffers."""
    nv, nD, nB = int(m.nv), int(m.nD), int(m.nB)
    return dict(
        qDeriv=(nD,),
        qLU=(nD,),
        scr_dcdofdot=(nD, 6),
        scr_dcvel=(nB, 6),
        scr_dcacc=(nB, 6),
        scr_dcfrc=(nB, 6),
        scr_mat6=(5, 36),
        scr_fjac=(6, nv),
        scr_fjacind=(nv,),
        scr_luint=(nv,),
        scr_impvec=(2, nv),
    )


DERIVATIVE = Section(
    "derivative",
    model_scalars=[
        "nD",
        "nB",
    ],
    model_arrays=[
        ("D_rownnz", 1, "i"),
        ("D_rowadr", 1, "i"),
        ("D_colind", 1, "i"),
        ("D_diag", 1, "i"),
        ("B_rownnz", 1, "i"),
        ("B_rowadr", 1, "i"),
        ("B_colind", 1, "i"),
        ("mapM2D", 1, "i"),
        ("mapD2M", 1, "i"),
        ("tree_dofnum", 1, "i"),
        ("dof_treeid", 1, "i"),
    ],
    data_arrays=[
        ("qDeriv", 2, "f"),
        ("qLU", 2, "f"),
        ("scr_dcdofdot", 3, "f"),
        ("scr_dcvel", 3, "f"),
        ("scr_dcacc", 3, "f"),
        ("scr_dcfrc", 3, "f"),
        ("scr_mat6", 3, "f"),
        ("scr_fjac", 3, "f"),
        ("scr_fjacind", 2, "i"),
        ("scr_luint", 2, "i"),
        ("scr_impvec", 3, "f"),
    ],
    derived=_derivative_derived,
    shapes=_derivative_shapes,
)


# ------------------------------------------------------------------------------------------------------------------
# slider-crank, site and body transmissions (mj_transmission) and the ellipsoid fluid model
#
# Fields of the slider-crank, reference-site and body (adhesion) actuator transmissions (mj_transmission):
# the rod length per actuator, per-world dense Jacobian scratch; and the per-geom ellipsoid fluid
# coefficients read by sim/engine/fluid.py (mj_ellipsoidFluidModel).


def _transmission_derived(m):
    """No derived arrays (actuator_cranklength and geom_fluid (ngeom, 12) are MjModel attributes)."""
    return {}


def _transmission_shapes(m, size):
    """Per-world shapes: five dense (3, nv) Jacobian blocks, one moment row (nv,) and the body
    transmission's row of in-gap excluded contacts (nv,)."""
    nv = int(m.nv)
    return dict(scr_trnjac=(5, 3, nv), scr_trnrow=(nv,), scr_trnexcl=(nv,))


TRANSMISSION = Section(
    "transmission",
    model_scalars=[],
    model_arrays=[
        ("actuator_cranklength", 1, "f"),
        ("geom_fluid", 2, "f"),
    ],
    data_arrays=[
        ("scr_trnjac", 4, "f"),
        ("scr_trnrow", 2, "f"),
        ("scr_trnexcl", 2, "f"),
    ],
    derived=_transmission_derived,
    shapes=_transmission_shapes,
)


# ------------------------------------------------------------------------------------------------------------------
# the pipeline drivers (sim/engine/forward.py)
#
# Fields of the pipeline drivers (sim/engine/forward.py): per-world bitmask of the watched warning counters that moved
# during the last call (1 contact buffer full, 2 constraint buffer full, 4 diverged and reset, 8 bad ctrl), read by
# sim/api.py to warn only when something happened.


def _pipeline_derived(m):
    return {}


def _pipeline_shapes(m, size):
    return dict(warn_moved=())


PIPELINE = Section(
    "pipeline",
    model_scalars=[],
    model_arrays=[],
    data_arrays=[
        ("warn_moved", 1, "i"),
    ],
    derived=_pipeline_derived,
    shapes=_pipeline_shapes,
)


# ------------------------------------------------------------------------------------------------------------------
# sensors, energy, cameras and inverse dynamics (engine_sensor.c, mj_camlight, engine_inverse.c)
#
# Fields of sensors, energy, cameras and inverse dynamics (engine_sensor.c, mj_camlight, engine_inverse.c).
#
# Model: the sensor_* rows, the camera frames and intrinsics (mj_camlight, camprojection, camera rangefinders),
# site shapes (touch zones, insidesite, contact sensor site filters), the ray visibility arrays and mesh BVH of
# mj_ray (ray_geom_alpha / ray_mat_alpha: alpha channel of geom_rgba / mat_rgba, as float64).
# Data (per world): sensordata (nsensordata,), energy (2,) = (potential, kinetic), subtree_linvel/angmom
# (nbody, 3), cam_xpos/cam_xmat (ncam, 3/9), qfrc_inverse (nv,), userdata (nuserdata,), MuJoCo's lazy-evaluation
# flags flg_energypos / flg_energyvel / flg_subtreevel / flg_rnepost, and scratch: scr_sens_body (nbody, 6) body
# velocities, scr_sens_nv (nv,), scr_sens_vec (4, 3) ray origin / direction / normal, scr_sens_match (nconmax,)
# contact-sensor criteria with scr_sens_mid (2, nconmax) ids and flips, scr_sens_ft (2, 6) fromto segments, scr_sens_stack (50,) ray BVH stack and
# scr_sens_group (6,) geom groups, scr_sens_data (nsensordata,) a delayed sensor's sample for its history buffer;
# the sensor history fields sensor_delay / sensor_interval (period, phase) / sensor_history (nsample, interp) /
# sensor_historyadr (sim/engine/history.py); scr_inv_nv (5, nv) and scr_inv_efc (2, njmax) for mj_inverse / mj_compareFwdInv.


def _sensor_rows(m, name, ncol, dtype, n):
    a = np.asarray(getattr(m, name, np.zeros((n, ncol))), dtype=dtype)
    return np.ascontiguousarray(a.reshape(n, ncol))


def _sensor_derived(m):
    """Derived arrays: ray visibility alphas, camera intrinsics as float64, actuator_outadr / jnt_actuatorid
    when the model object lacks them."""
    ngeom = int(m.ngeom)
    ncam = int(getattr(m, "ncam", 0))
    nu = int(m.nu)
    rgba = np.asarray(getattr(m, "geom_rgba", np.ones((ngeom, 4))), dtype=np.float64).reshape(ngeom, 4)
    mat = np.asarray(getattr(m, "mat_rgba", np.ones((0, 4))), dtype=np.float64).reshape(-1, 4)
    out = dict(
        ncam=ncam,
        nuserdata=int(getattr(m, "nuserdata", 0)),
        nsensor=int(getattr(m, "nsensor", 0)),
        nsensordata=int(getattr(m, "nsensordata", 0)),
        ray_geom_alpha=np.ascontiguousarray(rgba[:, 3]),
        ray_mat_alpha=np.ascontiguousarray(mat[:, 3]),
        cam_intrinsic=_sensor_rows(m, "cam_intrinsic", 4, np.float64, ncam),
        cam_sensorsize=_sensor_rows(m, "cam_sensorsize", 2, np.float64, ncam),
        cam_resolution=_sensor_rows(m, "cam_resolution", 2, np.int32, ncam),
        cam_mat0=_sensor_rows(m, "cam_mat0", 9, np.float64, ncam) if hasattr(m, "cam_mat0") else np.zeros((ncam, 9)),
    )
    for name, default in (
        ("actuator_outadr", np.arange(nu)),
        ("jnt_actuatorid", -np.ones(int(m.njnt))),
        ("geom_matid", -np.ones(ngeom)),
        ("geom_group", np.zeros(ngeom)),
        ("cam_projection", np.zeros(ncam)),
    ):
        if not hasattr(m, name):
            out[name] = np.asarray(default, dtype=np.int32)
    # camera frames not set yet (the compiler's mj_setConst builds a struct before computing them)
    for name, ncol in (("cam_poscom0", 3), ("cam_pos0", 3), ("cam_mode", 0), ("cam_targetbodyid", 0)):
        if not hasattr(m, name):
            out[name] = np.zeros((ncam, ncol)) if ncol else np.zeros(ncam, np.int32)
    if np.asarray(getattr(m, "bvh_aabb", np.zeros(0))).size == 0:
        out.update(
            bvh_aabb=np.zeros((0, 6)),
            bvh_child=np.zeros((0, 2), np.int32),
            bvh_nodeid=np.zeros(0, np.int32),
            mesh_bvhadr=-np.ones(int(getattr(m, "nmesh", 0)), np.int32),
        )
    else:
        out.update(
            bvh_aabb=np.asarray(m.bvh_aabb, dtype=np.float64).reshape(-1, 6),
            bvh_child=np.asarray(m.bvh_child, dtype=np.int32).reshape(-1, 2),
        )
    nsensor = out["nsensor"]
    if nsensor == 0:
        out["sensor_intprm"] = np.zeros((0, 3), np.int32)
        out["sensor_interval"] = np.zeros((0, 2))
        out["sensor_history"] = np.zeros((0, 2), np.int32)
    return out


def _sensor_shapes(m, size):
    """Per-world shapes of the sensor / energy / camera / inverse fields and their scratch."""
    nv, nbody, nc, j = int(m.nv), int(m.nbody), int(size["nconmax"]), int(size["njmax"])
    return dict(
        sensordata=(int(getattr(m, "nsensordata", 0)),),
        energy=(2,),
        subtree_linvel=(nbody, 3),
        subtree_angmom=(nbody, 3),
        cam_xpos=(int(getattr(m, "ncam", 0)), 3),
        cam_xmat=(int(getattr(m, "ncam", 0)), 9),
        qfrc_inverse=(nv,),
        userdata=(int(getattr(m, "nuserdata", 0)),),
        flg_energypos=(),
        flg_energyvel=(),
        flg_subtreevel=(),
        flg_rnepost=(),
        scr_sens_body=(nbody, 6),
        scr_sens_data=(int(getattr(m, "nsensordata", 0)),),
        scr_sens_nv=(nv,),
        scr_sens_vec=(4, 3),
        scr_sens_match=(nc,),
        scr_sens_mid=(2, nc),
        scr_sens_ft=(2, 6),
        scr_sens_stack=(MAXTREEDEPTH,),
        scr_sens_group=(6,),
        scr_inv_nv=(5, nv),
        scr_inv_efc=(2, j),
    )


SENSOR = Section(
    "sensor",
    model_scalars=[
        "nsensor",
        "nsensordata",
        "ncam",
        "nuserdata",
    ],
    model_arrays=[
        ("sensor_type", 1, "i"),
        ("sensor_datatype", 1, "i"),
        ("sensor_needstage", 1, "i"),
        ("sensor_objtype", 1, "i"),
        ("sensor_objid", 1, "i"),
        ("sensor_reftype", 1, "i"),
        ("sensor_refid", 1, "i"),
        ("sensor_intprm", 2, "i"),
        ("sensor_dim", 1, "i"),
        ("sensor_adr", 1, "i"),
        ("sensor_cutoff", 1, "f"),
        ("sensor_delay", 1, "f"),
        ("sensor_interval", 2, "f"),
        ("sensor_history", 2, "i"),
        ("sensor_historyadr", 1, "i"),
        ("actuator_outadr", 1, "i"),
        ("jnt_actuatorid", 1, "i"),
        ("site_type", 1, "i"),
        ("site_size", 2, "f"),
        ("cam_mode", 1, "i"),
        ("cam_bodyid", 1, "i"),
        ("cam_targetbodyid", 1, "i"),
        ("cam_pos", 2, "f"),
        ("cam_quat", 2, "f"),
        ("cam_poscom0", 2, "f"),
        ("cam_pos0", 2, "f"),
        ("cam_mat0", 2, "f"),
        ("cam_resolution", 2, "i"),
        ("cam_fovy", 1, "f"),
        ("cam_intrinsic", 2, "f"),
        ("cam_sensorsize", 2, "f"),
        ("cam_projection", 1, "i"),
        ("geom_matid", 1, "i"),
        ("geom_group", 1, "i"),
        ("ray_geom_alpha", 1, "f"),
        ("ray_mat_alpha", 1, "f"),
        ("bvh_aabb", 2, "f"),
        ("bvh_child", 2, "i"),
        ("bvh_nodeid", 1, "i"),
        ("mesh_bvhadr", 1, "i"),
        ("mesh_normaladr", 1, "i"),
        ("mesh_normalnum", 1, "i"),
        ("mesh_normal", 2, "f"),
        ("mesh_octadr", 1, "i"),
    ],
    data_arrays=[
        ("sensordata", 2, "f"),
        ("energy", 2, "f"),
        ("subtree_linvel", 3, "f"),
        ("subtree_angmom", 3, "f"),
        ("cam_xpos", 3, "f"),
        ("cam_xmat", 3, "f"),
        ("qfrc_inverse", 2, "f"),
        ("userdata", 2, "f"),
        ("flg_energypos", 1, "i"),
        ("flg_energyvel", 1, "i"),
        ("flg_subtreevel", 1, "i"),
        ("flg_rnepost", 1, "i"),
        ("scr_sens_body", 3, "f"),
        ("scr_sens_data", 2, "f"),
        ("scr_sens_nv", 2, "f"),
        ("scr_sens_vec", 3, "f"),
        ("scr_sens_match", 2, "f"),
        ("scr_sens_mid", 3, "i"),
        ("scr_sens_ft", 3, "f"),
        ("scr_sens_stack", 2, "i"),
        ("scr_sens_group", 2, "i"),
        ("scr_inv_nv", 3, "f"),
        ("scr_inv_efc", 3, "f"),
    ],
    derived=_sensor_derived,
    shapes=_sensor_shapes,
)


# ------------------------------------------------------------------------------------------------------------------
# the Model and Data structs

SECTIONS = (SMOOTH, COLLISION, CONVEX, CONSTRAINT, SOLVER, DERIVATIVE, TRANSMISSION, PIPELINE, SENSOR)
MODEL_SCALARS = [n for s in SECTIONS for n in s.model_scalars]
MODEL_ARRAYS = [f for s in SECTIONS for f in s.model_arrays]
DATA_ARRAYS = [f for s in SECTIONS for f in s.data_arrays]
for _tab in (MODEL_SCALARS, [n for n, _, _ in MODEL_ARRAYS], [n for n, _, _ in DATA_ARRAYS]):
    assert len(set(_tab)) == len(_tab), "duplicate field names across the sections"


def data_shapes(m, size):
    """Per-world shapes (without the world axis) of every Data array."""
    out = {}
    for s in SECTIONS:
        out.update(s.shapes(m, size))
    return out


def _arr_type(nd, k):
    return types.Array(types.float64 if k == "f" else types.int32, nd, "C")


@structref.register
@short_struct_type
class ModelType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((n, types.unliteral(t)) for n, t in fields)


@structref.register
@short_struct_type
class DataType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((n, types.unliteral(t)) for n, t in fields)


@structref.register
@short_struct_type
class TaskType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((n, types.unliteral(t)) for n, t in fields)


class ModelStruct(structref.StructRefProxy):
    """Opaque handle to the jitted model (no Python attribute access)."""


class DataStruct(structref.StructRefProxy):
    """Opaque handle to the jitted data (no Python attribute access)."""


class TaskStruct(structref.StructRefProxy):
    """Opaque handle to a jitted task program (TASK_SCALARS, TASK_ARRAYS below)."""


structref.define_boxing(ModelType, ModelStruct)
structref.define_boxing(DataType, DataStruct)
structref.define_boxing(TaskType, TaskStruct)

MODEL_TYPE = ModelType(
    tuple([(n, types.int64) for n in MODEL_SCALARS] + [(n, _arr_type(nd, k)) for n, nd, k in MODEL_ARRAYS])
)
DATA_TYPE = DataType(tuple((n, _arr_type(nd, k)) for n, nd, k in DATA_ARRAYS))


# ------------------------------------------------------------------------------------------------------------------
# the Task struct: an environment step described as data and run inside the physics entry
#
# A task program (built in Python by envs/, run by sim/engine/task.py) reads scalar *sources*: a Data array and a flat
# index into its per-world row (field codes TASK_SOURCES below), and from them fills per-world outputs: the observation
# (one op per element), reward terms, health checks, termination and truncation. The same compiled entry serves
# `sim.step` (an empty task, enabled = 0) and every environment, single or batched, so no task costs a compile.
#
# Program (no world axis):
#   obs_src, obs_src2, obs_op (nobs,) int; obs_lo, obs_hi (nobs,): element = op(x[src] - x[src2]) clipped
#   term_kind, term_el0, term_nel, term_flags (nterm,) int; term_w, term_sign, term_rlo, term_rhi (nterm,)
#   el_src, el_src2 (nel,) int; el_coef, el_off, el_lo, el_hi (nel,): term elements v = clip(x - x2, lo, hi) - off
#   chk_src, chk_op (nchk,) int; chk_lo, chk_hi (nchk,): health checks (all must pass)
#   src (nsrc, 2) int: (field code, flat index in the per-world row)
#   fprm (4,): dt (the env step's duration, for velocity terms)
#   ins (nins, 4) int, ins_prm (nins, 5): an expression program in SSA form, evaluated before the observation and
#     the terms read it: instruction k = (op, a, b, c) with operands a, b (earlier instructions), c the third
#     operand of where / the flat index of a load (whose a is the field code), its constants in ins_prm[k]
#     (ops OP_* in sim/constants.py); source 'reg' reads instruction k's value of the last evaluation
#   keep_adr (nkeep,) int: the sensordata entries that keep their values through the forward after the steps
#     (refresh = 1: dm_control's step ends with mj_step1, which leaves the acceleration-stage sensors alone)
# Per world (leading world axis): action (nu,), obs / final_obs (nobs,), terms / reset_terms (the terms flagged
#   FLAG_RESET, evaluated by a reset) / before (nterm,), reward,
#   status (9,) int: terminated, truncated, diverged, healthy, elapsed, reset_mask, final (same-step reset done),
#   bad action, action given as float32; reset_qpos (nq,), reset_qvel (nv,), reset_act (na,), reset_ctrl (nu,): the
#   state the next reset of that world starts from (drawn by the env beforehand); reg (nins,): the expression values;
#   keep (nkeep,): scratch; mode: what the next call does with the world (MODE_STEP; MODE_SKIP: nothing;
#   MODE_OBSERVE: the env has reset its state itself, the call clears its status and observes it), set back to
#   MODE_STEP by the call.

# Data arrays a source can read (code = index); 'action' is the task's own action buffer
TASK_SOURCES = (
    "qpos",
    "qvel",
    "act",
    "ctrl",
    "qacc",
    "xpos",
    "xquat",
    "xipos",
    "xmat",
    "site_xpos",
    "geom_xpos",
    "subtree_com",
    "cinert",
    "cvel",
    "cacc",
    "cfrc_ext",
    "cfrc_int",
    "qfrc_actuator",
    "qfrc_constraint",
    "qfrc_applied",
    "actuator_force",
    "actuator_length",
    "actuator_velocity",
    "ten_length",
    "time",
    "action",
    "sensordata",
    "geom_xmat",
    "site_xmat",
    "xanchor",
    "xaxis",
    "ten_velocity",
    "reg",
)
CODE = {n: i for i, n in enumerate(TASK_SOURCES)}
TASK_SCALARS = [
    "enabled",
    "nobs",
    "nterm",
    "nchk",
    "nins",
    "same_step",
    "rne_post",
    "refresh",
    "max_steps",
    "terminate",
]
TASK_ARRAYS = [
    ("src", 2, "i"),
    ("obs_src", 1, "i"),
    ("obs_src2", 1, "i"),
    ("obs_op", 1, "i"),
    ("obs_lo", 1, "f"),
    ("obs_hi", 1, "f"),
    ("term_kind", 1, "i"),
    ("term_el0", 1, "i"),
    ("term_nel", 1, "i"),
    ("term_flags", 1, "i"),
    ("term_w", 1, "f"),
    ("term_sign", 1, "f"),
    ("term_rlo", 1, "f"),
    ("term_rhi", 1, "f"),
    ("el_src", 1, "i"),
    ("el_src2", 1, "i"),
    ("el_coef", 1, "f"),
    ("el_off", 1, "f"),
    ("el_lo", 1, "f"),
    ("el_hi", 1, "f"),
    ("chk_src", 1, "i"),
    ("chk_op", 1, "i"),
    ("chk_lo", 1, "f"),
    ("chk_hi", 1, "f"),
    ("fprm", 1, "f"),
    ("ins", 2, "i"),
    ("ins_prm", 2, "f"),
    ("keep_adr", 1, "i"),
    ("action", 2, "f"),
    ("obs", 2, "f"),
    ("final_obs", 2, "f"),
    ("terms", 2, "f"),
    ("reset_terms", 2, "f"),
    ("before", 2, "f"),
    ("reward", 1, "f"),
    ("status", 2, "i"),
    ("reset_qpos", 2, "f"),
    ("reset_qvel", 2, "f"),
    ("reset_act", 2, "f"),
    ("reset_ctrl", 2, "f"),
    ("reg", 2, "f"),
    ("keep", 2, "f"),
    ("mode", 1, "i"),
]
TASK_TYPE = TaskType(
    tuple([(n, types.int64) for n in TASK_SCALARS] + [(n, _arr_type(nd, k)) for n, nd, k in TASK_ARRAYS])
)
