"""URDF import against MuJoCo 3.17's own (mujoco.MjModel.from_xml_path / from_xml_string load URDF too).

Models: tests/assets/urdf/panda_arm.urdf (a Franka-Panda-like 7-dof arm with gripper, STL collision and OBJ visual
meshes) and tests/assets/urdf/quadruped.urdf (an A1-like quadruped on a floating base above a ground box, with a
<mujoco> extension block), variants of them with <mujoco><compiler/option/size> extension tags, small URDFs for
each import rule (mjcf/urdf.py's docstring lists them), malformed URDFs, and seeded random robots
(tests/urdf_gen.py).  Compiled Models are compared field by field (tests/oracle.py, float tolerance 1e-10), the
mesh fields laid out in qhull's order (oracle.HULL_ORDER_FIELDS) included, and the hulls order-free by
oracle.hull_mismatches as well.  Short simulations compare sim.step with mujoco.mj_step.
"""

import os
import re

import mujoco
import numpy as np
import pytest

import oracle
import urdf_gen

import sim

HERE = os.path.dirname(os.path.abspath(__file__))
URDF_DIR = os.path.join(HERE, "assets", "urdf")
PANDA = os.path.join(URDF_DIR, "panda_arm.urdf")
QUADRUPED = os.path.join(URDF_DIR, "quadruped.urdf")

N_RANDOM = 150
N_RANDOM_FULL = 1500


def assert_same(ours, theirs, label=""):
    """Field-by-field equality (the convex hulls in qhull's order, as MuJoCo lays them out), and the hulls'
    content order-free as well."""
    mism = oracle.compare_models(ours, theirs)
    for i in range(theirs.nmesh):
        mism += oracle.hull_mismatches(ours, theirs, i)
    assert not mism, f"{label}: {len(mism)} mismatch(es) against mujoco:\n  " + "\n  ".join(mism)


def load_both(text, assets=None):
    """(ours, theirs) or the exception each raised, for URDF text."""
    try:
        theirs = mujoco.MjModel.from_xml_string(text, assets or {})
    except ValueError as e:
        theirs = e
    try:
        ours = sim.load_model(text, assets=assets)
    except sim.ModelError as e:
        ours = e
    return ours, theirs


def check_agree(text, assets=None, label=""):
    """Both accept and match, or both reject (ours with a ModelError): returns (ours, theirs)."""
    ours, theirs = load_both(text, assets)
    if isinstance(theirs, Exception):
        assert isinstance(ours, Exception), f"{label}: mujoco rejects ({theirs}) but numjoco accepts"
        assert not isinstance(ours, sim.UnsupportedError), f"{label}: {ours}"
    else:
        assert not isinstance(ours, Exception), f"{label}: mujoco accepts, numjoco raises {ours}"
        assert_same(ours, theirs, label)
    return ours, theirs


# ------------------------------------------------------------------------------------------ the two robots


@pytest.mark.compiler
@pytest.mark.oracle
@pytest.mark.parametrize("path", [PANDA, QUADRUPED], ids=["panda_arm", "quadruped"])
def test_robot_file_matches_mujoco(path):
    theirs = mujoco.MjModel.from_xml_path(path)
    ours = sim.load_model(path)
    assert_same(ours, theirs, os.path.basename(path))
    if path == PANDA:  # what the file exercises, so that the comparison is not vacuous
        assert (theirs.nbody, theirs.njnt, theirs.nmesh) == (10, 9, 11)  # hand and flange fused into link7
        assert theirs.mesh_graphadr.max() >= 0  # collision meshes have hulls
    else:
        assert (theirs.nbody, theirs.njnt, theirs.ngeom, theirs.nmesh) == (14, 13, 27, 1)
        assert theirs.opt.integrator == mujoco.mjtIntegrator.mjINT_IMPLICITFAST


@pytest.mark.compiler
@pytest.mark.oracle
def test_robot_from_string_with_assets():
    """load_model(URDF text, assets=...) gives the same Model as MuJoCo's from_xml_string."""
    with open(PANDA) as f:
        text = f.read()
    assets = {}
    for m in set(re.findall(r'filename="([^"]+)"', text)):
        with open(os.path.join(URDF_DIR, m), "rb") as f:
            assets[os.path.basename(m)] = f.read()
    ours, theirs = check_agree(text, assets, "panda from string")
    assert theirs.nmesh == 11


# <mujoco> extension blocks inserted into the panda (first child of <robot>): every compiler attribute the
# URDF import honours, and options / sizes
PANDA_VARIANTS = {
    "discardvisual_false": '<compiler discardvisual="false"/>',
    "fusestatic_false": '<compiler fusestatic="false"/>',
    "keep_everything": '<compiler discardvisual="false" fusestatic="false"/>',
    "inertiafromgeom_true": '<compiler inertiafromgeom="true"/>',
    "inertiafromgeom_false": '<compiler inertiafromgeom="false"/>',
    "strippath_meshdir": '<compiler strippath="true" meshdir="meshes/collision"/>',  # finger.obj not there
    "meshdir_assetdir": '<compiler meshdir="." assetdir="nonexistent"/>',
    "boundmass_boundinertia": '<compiler boundmass="0.7" boundinertia="0.002"/>',
    "settotalmass": '<compiler settotalmass="20"/>',
    "angle_degree_ignored": '<compiler angle="degree" eulerseq="zyx"/>',
    "autolimits_false": '<compiler autolimits="false"/>',  # rejected by both
    "options": (
        '<option timestep="0.001" integrator="RK4" gravity="0 0 -3" cone="elliptic">'
        '<flag contact="disable" frictionloss="disable"/></option><size njmax="100" nconmax="20"/>'
    ),
    "unknown_attributes_ignored": '<compiler not_an_attribute="1" discardvisual="false"/>',
}


@pytest.mark.compiler
@pytest.mark.oracle
@pytest.mark.parametrize("name", sorted(PANDA_VARIANTS))
def test_panda_extension_variants(name):
    with open(PANDA) as f:
        text = f.read()
    text = text.replace('<robot name="panda">', f'<robot name="panda"><mujoco>{PANDA_VARIANTS[name]}</mujoco>')
    ours, theirs = oracle.load_pair(text, URDF_DIR, f"_variant_{name}")  # next to the meshes it names
    expect_reject = name in ("strippath_meshdir", "autolimits_false")
    assert isinstance(theirs, Exception) == expect_reject, theirs
    if expect_reject:
        assert isinstance(ours, sim.ModelError) and not isinstance(ours, sim.UnsupportedError), ours
        assert f"_variant_{name}" in str(ours)
    else:
        assert not isinstance(ours, Exception), ours
        assert_same(ours, theirs, name)
    if name == "discardvisual_false":
        # the visual mesh visual/link0.obj comes first and takes the name 'link0': the collision geom naming
        # collision/link0.stl reuses it (MuJoCo names meshes after the file stem)
        assert theirs.nmesh == 11 and mujoco.mj_id2name(theirs, mujoco.mjtObj.mjOBJ_MESH, 0) == "link0"
        path0 = bytes(theirs.paths)[theirs.mesh_pathadr[0] :].split(b"\0")[0]
        assert path0.endswith(b"visual/link0.obj"), path0


# ---------------------------------------------------------------------------------------- simulations


def _trajectory(path, nstep, qpos=None):
    """Max over steps of |qpos - qpos_mj| and |qvel - qvel_mj| / max(1, |qvel_mj|), and the contact counts."""
    theirs = mujoco.MjModel.from_xml_path(path)
    ours = sim.load_model(path)
    md = mujoco.MjData(theirs)
    d = sim.Data(ours)
    if qpos is not None:
        md.qpos[:] = qpos
        d.qpos = qpos
    err, ncon, nefc = 0.0, [], []
    for _ in range(nstep):
        mujoco.mj_step(theirs, md)
        sim.step(ours, d)
        qp, qv = np.asarray(d.qpos).ravel(), np.asarray(d.qvel).ravel()
        err = max(
            err,
            float(np.max(np.abs(qp - md.qpos))),
            float(np.max(np.abs(qv - md.qvel))) / max(1.0, float(np.max(np.abs(md.qvel)))),
        )
        assert int(np.asarray(d.ncon).ravel()[0]) == md.ncon
        ncon.append(md.ncon)
        nefc.append(md.nefc)
    assert np.all(np.isfinite(md.qpos))
    return err, ncon, nefc


# (start pose, bound, what it exercises): without contacts the arithmetic is MuJoCo's (measured 2.9e-15); with
# mesh-mesh contacts the penetration depth comes from EPA on our own convex hull (qhull orders the hull
# differently), which agrees with MuJoCo's to ~1e-12 of the depth (1e-9 absolute here, measured 1.2e-9 on qpos
# over the 300 steps), hence the looser bound there
PANDA_POSES = {
    "limits_friction": ([0.3, 0.3, -0.4, -1.5, 0.5, 1.2, 0.7, 0.02, 0.01], 1e-9),
    "self_contact": ([0, -0.5, 0, -2.0, 0, 1.5, 0.7, 0.03, 0.0], 1e-6),
}


@pytest.mark.oracle
@pytest.mark.parametrize("pose", sorted(PANDA_POSES))
def test_panda_simulates_as_mujoco(pose):
    """300 steps from a bent pose under gravity: joint limits, friction loss and damping active (and, for
    'self_contact', the hand falling onto the base: mesh-mesh contacts)."""
    qpos, bound = PANDA_POSES[pose]
    err, ncon, nefc = _trajectory(PANDA, 300, np.array(qpos))
    assert err <= bound, err
    assert max(nefc) > 0  # limit / friction rows were active: the comparison covers constraints
    assert (max(ncon) > 0) == (pose == "self_contact")


@pytest.mark.oracle
@pytest.mark.full
def test_quadruped_simulates_as_mujoco():
    """400 steps: the quadruped falls on the ground box and its legs fold (sphere, capsule, box contacts,
    elliptic cones, implicitfast); measured max error 3e-14, asserted 1e-8 (contacts amplify round-off).
    --full only: its feature set (elliptic cones, implicitfast, energy, box colliders) is compiled by no other
    default test (about 90 CPU-s on a cold cache); URDF dynamics stay in the default set with the panda poses."""
    err, ncon, nefc = _trajectory(QUADRUPED, 400)
    assert err <= 1e-8, err
    assert max(ncon) >= 4


# ----------------------------------------------------------------------------------------- import rules

IN = (
    '<inertial><origin xyz="0.01 0.02 0.03" rpy="0.3 -0.2 0.1"/><mass value="1.5"/>'
    '<inertia ixx="0.02" iyy="0.03" izz="0.025" ixy="0.001" ixz="-0.002" iyz="0.0005"/></inertial>'
)
COL = '<collision><geometry><sphere radius="0.1"/></geometry></collision>'


def chain(joint_type="revolute", joint_extra="", child_extra="", head="", base="base"):
    return (
        f'<robot name="r">{head}<link name="{base}"/><link name="a">{IN}{COL}{child_extra}</link>'
        f'<joint name="j" type="{joint_type}"><parent link="{base}"/><child link="a"/>'
        f'<origin xyz="0 0.1 1" rpy="0.1 0.2 0.3"/>{joint_extra}</joint></robot>'
    )


RULES = {
    # joint types
    "revolute": chain("revolute", '<axis xyz="0 1 1"/>'),
    "continuous": chain("continuous", '<axis xyz="0 0 1"/><limit effort="5" velocity="1"/>'),
    "continuous_with_limits": chain("continuous", '<limit lower="-1" upper="1"/>'),
    "prismatic": chain("prismatic", '<axis xyz="1 0 0"/><limit lower="-0.1" upper="0.2" effort="-30"/>'),
    "fixed_fused": chain("fixed"),
    "fixed_kept": chain("fixed", head='<mujoco><compiler fusestatic="false"/></mujoco>'),
    "floating_from_world": chain("floating", base="world"),
    "floating_from_fused_root": chain(
        "floating", '<limit lower="-1" upper="1" effort="3"/><dynamics damping="0.5" friction="0.1"/>'
    ),
    "planar": chain(
        "planar", '<axis xyz="0 1 1"/><limit lower="-1" upper="1" effort="3"/><dynamics damping="0.5" friction="0.1"/>'
    ),
    "planar_default_axis": chain("planar"),
    "spherical": chain("spherical", '<axis xyz="0 1 0"/><limit lower="0" upper="1"/>'),
    "default_axis": chain("revolute"),
    "unnormalised_axis": chain("revolute", '<axis xyz="0 3 4"/>'),
    # limits
    "one_sided_limit": chain("revolute", '<limit lower="-1"/>'),
    "inverted_limit": chain("revolute", '<limit lower="1" upper="-1"/>'),
    "equal_limit": chain("revolute", '<limit lower="0.5" upper="0.5"/>'),
    "empty_lower_is_absent": chain("revolute", '<limit lower="" upper="1"/>'),
    "negative_effort": chain("revolute", '<limit effort="-5"/>'),
    "dynamics": chain("revolute", '<dynamics damping="0.3" friction="0.02"/>'),
    # links and inertia
    "world_link_with_geoms_and_inertial": chain("revolute", base="world").replace(
        '<link name="world"/>', f'<link name="world">{IN}{COL}</link>'
    ),
    "no_inertial_inertia_from_geoms": chain("revolute").replace(IN, ""),
    "zero_inertia_static": (
        '<robot name="r"><mujoco><compiler fusestatic="false"/></mujoco><link name="a">'
        '<inertial><origin xyz="0.1 0 0" rpy="0.3 0.2 0.1"/><mass value="1"/><inertia ixx="0" '
        'iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/></inertial></link></robot>'
    ),
    "degenerate_inertia_rotated": chain("revolute").replace(
        IN,
        '<inertial><origin rpy="0 0 3.14159265359"/><mass value="1"/><inertia ixx="0.01" iyy="0.01" '
        'izz="0.005" ixy="0" ixz="0" iyz="0"/></inertial>',
    ),
    "balanceinertia": chain("revolute", head='<mujoco><compiler balanceinertia="true"/></mujoco>').replace(
        IN, '<inertial><mass value="1"/><inertia ixx="1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>'
    ),
    "unplaced_second_root": chain("revolute").replace(
        '<link name="base"/>', f'<link name="base"/><link name="b">{IN}{COL}</link>'
    ),
    "links_after_joints": (
        '<robot name="r"><joint name="j" type="revolute"><parent link="p"/><child link="c"/>'
        f'</joint><link name="c">{IN}{COL}</link><link name="p"/></robot>'
    ),
    # names
    "duplicate_joint_names": (
        '<robot name="r"><link name="w"/>'
        + "".join(f'<link name="l{i}">{IN}{COL}</link>' for i in range(3))
        + '<joint name="j" type="revolute"><parent link="l0"/><child link="l1"/></joint>'
        '<joint name="j" type="planar"><parent link="w"/><child link="l0"/></joint>'
        '<joint name="j_TY" type="prismatic"><parent link="l1"/><child link="l2"/></joint>'
        "</robot>"
    ),
    "duplicate_geom_names": (
        '<robot name="r"><mujoco><compiler discardvisual="false"/></mujoco><link name="a">'
        '<visual name="v"><geometry><box size="0.1 0.2 0.3"/></geometry></visual>'
        '<collision><geometry><sphere radius="0.1"/></geometry></collision>'
        '<collision name="c"><geometry><cylinder radius="0.1" length="0.2"/></geometry>'
        '</collision></link><link name="b"><collision name="c"><geometry><capsule '
        'radius="0.1" length="0.2"/></geometry></collision></link></robot>'
    ),
    "no_robot_name": '<robot><link name="a"/></robot>',
    # geometry and materials
    "materials": (
        '<robot name="r"><mujoco><compiler discardvisual="false"/></mujoco>'
        '<material name="red"><color rgba="1 0 0 1"/></material>'
        '<material name="red"><color rgba="0 1 0 1"/></material>'
        '<material name="textured"><texture filename="x.png"/></material><link name="a">'
        '<visual><geometry><box size="0.1 0.2 0.3"/></geometry><material name="red"/></visual>'
        f"{COL}"
        '<visual><geometry><sphere radius="0.1"/></geometry><material name="textured"/></visual>'
        '<visual><geometry><sphere radius="0.2"/></geometry><material name="blue">'
        '<color rgba="0 0 1 0.5"/></material></visual>'
        '<visual><geometry><sphere radius="0.3"/></geometry><material name="unknown"/></visual>'
        "</link></robot>"
    ),
    "shape_precedence": (
        '<robot name="r"><link name="a"><collision><geometry><sphere radius="1"/>'
        '<box size="1 2 3"/></geometry></collision></link></robot>'
    ),
    "ignored_elements": (
        '<robot name="r"><gazebo reference="a"><x/></gazebo><transmission name="t"/>'
        '<link name="a" bogus="1"><bogus/></link></robot>'
    ),
    "mujoco_option_size": (
        '<robot name="r"><mujoco><option timestep="0.01" integrator="RK4"><flag '
        'gravity="disable"/></option><size njmax="50"/></mujoco><link name="a"/></robot>'
    ),
    "uppercase_root": '<ROBOT name="r"><link name="a"/></ROBOT>',
    # tinyxml2 reads an XML declaration after white space (issue 34: a URDF that a Python package ships so)
    "declaration_after_white_space": '\n  \n\t<?xml version="1.0" encoding="utf-8"?>\n' + chain("revolute"),
}


@pytest.mark.compiler
@pytest.mark.oracle
@pytest.mark.parametrize("name", sorted(RULES))
def test_import_rule(name, capfd):
    ours, theirs = check_agree(RULES[name], label=name)
    assert not isinstance(theirs, Exception), theirs  # every rule case is a valid model


@pytest.mark.compiler
@pytest.mark.oracle
def test_mesh_names_and_scales(tmp_path):
    """One mesh asset per (file stem, scale): a second scale gets the stem plus a counter; a file with the same
    stem in another folder reuses the first asset (MuJoCo names meshes by stem only)."""
    src = os.path.join(URDF_DIR, "meshes")
    assets = {}
    for rel in ("collision/link2.stl", "visual/finger.obj", "collision/link3.stl"):
        with open(os.path.join(src, rel), "rb") as f:
            assets[os.path.basename(rel)] = f.read()
    geoms = "".join(
        f'<collision><geometry><mesh filename="{fn}"{sc}/></geometry></collision>'
        for fn, sc in (
            ("link2.stl", ""),
            ("link2.stl", ' scale="1 1 1"'),
            ("link2.stl", ' scale="0.5 0.5 0.5"'),
            ("other/link2.stl", ' scale="0.5 0.5 0.5"'),
            ("finger.obj", ' scale="1 1 2"'),
            ("link3.stl", ""),
        )
    )
    text = f'<robot name="r"><link name="a">{geoms}</link></robot>'
    ours, theirs = check_agree(text, assets, "meshes")
    names = [mujoco.mj_id2name(theirs, mujoco.mjtObj.mjOBJ_MESH, i) for i in range(theirs.nmesh)]
    assert names == ["link2", "link21", "finger", "link3"]


# ---------------------------------------------------------------------------------------- malformed URDF

# (URDF text, element, attribute, line): MuJoCo rejects each; we must raise a ModelError naming them
L1 = f'<link name="base"/>\n<link name="a">{IN}{COL}</link>\n'
MALFORMED = {
    "link_without_name": ('<robot name="r">\n<link/>\n</robot>', "link", "name", 2),
    "repeated_link": ('<robot name="r">\n<link name="a"/>\n<link name="a"/>\n</robot>', "link", "name", 3),
    "joint_unknown_child": (
        f'<robot name="r">\n{L1}<joint name="j" type="fixed"><parent link="base"/>'
        '<child link="nope"/></joint>\n</robot>',
        "joint",
        None,
        4,
    ),
    "joint_without_parent": (
        f'<robot name="r">\n{L1}<joint name="j" type="fixed">\n<child link="a"/></joint>\n</robot>',
        "joint",
        None,
        4,
    ),
    "two_parents": (
        f'<robot name="r">\n{L1}<link name="b"/>\n<joint name="j" type="fixed"><parent link="base"/>'
        '<child link="a"/></joint>\n<joint name="k" type="fixed"><parent link="b"/><child link="a"/>'
        "</joint>\n</robot>",
        "joint",
        None,
        6,
    ),
    "cycle": (
        f'<robot name="r">\n<link name="a">{IN}</link>\n<link name="b">{IN}</link>\n<joint name="j" '
        'type="revolute"><parent link="a"/><child link="b"/></joint>\n<joint name="k" type="revolute">'
        '<parent link="b"/><child link="a"/></joint>\n</robot>',
        "link",
        None,
        2,
    ),
    "bad_joint_type": (
        f'<robot name="r">\n{L1}<joint name="j" type="hinge"><parent link="base"/><child link="a"/></joint>\n</robot>',
        "joint",
        "type",
        4,
    ),
    "joint_without_name": (
        f'<robot name="r">\n{L1}<joint type="revolute"><parent link="base"/><child link="a"/></joint>\n</robot>',
        "joint",
        "name",
        4,
    ),
    "origin_two_values": (
        f'<robot name="r">\n{L1}<joint name="j" type="revolute"><parent link="base"/>'
        '<child link="a"/>\n<origin xyz="1 2"/></joint>\n</robot>',
        "origin",
        "xyz",
        5,
    ),
    "origin_bad_number": (
        f'<robot name="r">\n{L1}<joint name="j" type="revolute"><parent link="base"/>'
        '<child link="a"/>\n<origin rpy="0 x 0"/></joint>\n</robot>',
        "origin",
        "rpy",
        5,
    ),
    "axis_zero": (
        f'<robot name="r">\n{L1}<joint name="j" type="revolute"><parent link="base"/>'
        '<child link="a"/>\n<axis xyz="0 0 0"/></joint>\n</robot>',
        "axis",
        "xyz",
        5,
    ),
    "axis_without_xyz": (
        f'<robot name="r">\n{L1}<joint name="j" type="revolute"><parent link="base"/>'
        '<child link="a"/>\n<axis/></joint>\n</robot>',
        "axis",
        "xyz",
        5,
    ),
    "limit_two_values": (
        f'<robot name="r">\n{L1}<joint name="j" type="revolute"><parent link="base"/>'
        '<child link="a"/>\n<limit lower="1 2" upper="3"/></joint>\n</robot>',
        "limit",
        "lower",
        5,
    ),
    "two_origins": (
        f'<robot name="r">\n{L1}<joint name="j" type="revolute"><parent link="base"/>'
        '<child link="a"/><origin/>\n<origin/></joint>\n</robot>',
        "origin",
        None,
        5,
    ),
    "inertial_without_mass": (
        '<robot name="r">\n<link name="a"><inertial>\n<inertia ixx="1" iyy="1" izz="1" '
        'ixy="0" ixz="0" iyz="0"/></inertial></link>\n</robot>',
        "inertial",
        None,
        2,
    ),
    "inertia_without_ixy": (
        '<robot name="r">\n<link name="a"><inertial><mass value="1"/>\n<inertia ixx="1" '
        'iyy="1" izz="1" ixz="0" iyz="0"/></inertial></link>\n</robot>',
        "inertia",
        "ixy",
        3,
    ),
    "inertia_not_positive": (
        '<robot name="r">\n<link name="base"/>\n<link name="a"><inertial><mass value="1"/>'
        '\n<inertia ixx="1" iyy="1" izz="1" ixy="2" ixz="0" iyz="0"/></inertial></link>\n'
        '<joint name="j" type="revolute"><parent link="base"/><child link="a"/></joint>\n'
        "</robot>",
        "inertia",
        None,
        4,
    ),
    "inertia_triangle": (
        '<robot name="r">\n<link name="base"/>\n<link name="a"><inertial><mass value="1"/>'
        '\n<inertia ixx="1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>\n'
        '<joint name="j" type="revolute"><parent link="base"/><child link="a"/></joint>\n'
        "</robot>",
        "inertia",
        None,
        4,
    ),
    "massless_moving_link": (
        '<robot name="r">\n<link name="base"/>\n<link name="a"><inertial>\n<mass value="0"/>'
        '<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>\n'
        '<joint name="j" type="revolute"><parent link="base"/><child link="a"/></joint>\n'
        "</robot>",
        "mass",
        "value",
        4,
    ),
    "geometry_missing": (
        '<robot name="r">\n<link name="a"><collision>\n<geometry><cone/></geometry></collision></link>\n</robot>',
        "geometry",
        None,
        3,
    ),
    "box_two_values": (
        '<robot name="r">\n<link name="a"><collision><geometry>\n<box size="1 2"/></geometry>'
        "</collision></link>\n</robot>",
        "box",
        "size",
        3,
    ),
    "negative_radius": (
        '<robot name="r">\n<link name="a"><collision><geometry>\n<sphere radius="-1"/>'
        "</geometry></collision></link>\n</robot>",
        "sphere",
        "radius",
        3,
    ),
    "cylinder_without_length": (
        '<robot name="r">\n<link name="a"><collision><geometry>\n<cylinder radius="1"/>'
        "</geometry></collision></link>\n</robot>",
        "cylinder",
        "length",
        3,
    ),
    "mesh_file_missing": (
        '<robot name="r">\n<link name="a"><collision><geometry>\n<mesh '
        'filename="no/such/file.stl"/></geometry></collision></link>\n</robot>',
        "mesh",
        "filename",
        3,
    ),
    "mesh_scale_empty": (
        '<robot name="r">\n<link name="a"><collision><geometry>\n<mesh filename="x.stl" '
        'scale=""/></geometry></collision></link>\n</robot>',
        "mesh",
        "scale",
        3,
    ),
    "color_three_values": (
        '<robot name="r">\n<material name="m">\n<color rgba="1 0 0"/></material>\n<link name="a"/>\n</robot>',
        "color",
        "rgba",
        3,
    ),
    "material_without_name_or_color": (
        '<robot name="r"><mujoco><compiler discardvisual="false"/></mujoco>\n'
        '<link name="a"><visual><geometry><sphere radius="1"/></geometry>\n'
        "<material/></visual></link>\n</robot>",
        "material",
        "name",
        3,
    ),
    "two_mujoco_blocks": ('<robot name="r">\n<mujoco/>\n<mujoco/>\n<link name="a"/>\n</robot>', "mujoco", None, 3),
    "compiler_bad_value": (
        '<robot name="r">\n<mujoco>\n<compiler fusestatic="maybe"/></mujoco>\n<link name="a"/>\n</robot>',
        "compiler",
        "fusestatic",
        3,
    ),
    "option_bad_integrator": (
        '<robot name="r">\n<mujoco>\n<option integrator="RK5"/></mujoco>\n<link name="a"/>\n</robot>',
        "option",
        "integrator",
        3,
    ),
    "free_joint_not_top_level": (
        f'<robot name="r"><mujoco><compiler fusestatic="false"/></mujoco>\n{L1}'
        f'<link name="b">{IN}{COL}</link>\n<joint name="j" type="revolute"><parent '
        'link="base"/><child link="a"/></joint>\n<joint name="k" type="floating">'
        '<parent link="a"/><child link="b"/></joint>\n</robot>',
        "joint",
        None,
        6,
    ),
    "child_is_world": (
        f'<robot name="r">\n<link name="world"/>\n<link name="a">{IN}</link>\n<joint name="j" '
        'type="revolute"><parent link="a"/><child link="world"/></joint>\n</robot>',
        "joint",
        None,
        4,
    ),
    "autolimits_off_with_limits": (
        f'<robot name="r"><mujoco><compiler autolimits="false"/></mujoco>\n{L1}'
        '<joint name="j" type="revolute"><parent link="base"/><child link="a"/>\n'
        '<limit lower="-1" upper="1"/></joint>\n</robot>',
        "limit",
        "lower",
        5,
    ),
    "not_xml": ('<robot name="r">\n<link name="a">\n</robot>', None, None, 3),
}


@pytest.mark.compiler
@pytest.mark.oracle
@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_urdf(name):
    text, element, attribute, line = MALFORMED[name]
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_string(text)
    with pytest.raises(sim.ModelError) as e:
        sim.load_model(text)
    err = e.value
    assert not isinstance(err, sim.UnsupportedError), err
    assert (err.element, err.attribute, err.line) == (element, attribute, line), str(err)


def test_error_names_the_urdf_file(tmp_path):
    path = tmp_path / "broken_robot.urdf"
    path.write_text(MALFORMED["inertia_without_ixy"][0])
    with pytest.raises(sim.ModelError) as e:
        sim.load_model(str(path))
    assert e.value.file == str(path) and "broken_robot.urdf" in str(e.value)
    assert (e.value.element, e.value.attribute, e.value.line) == ("inertia", "ixy", 3)


# ---------------------------------------------------------------------------------------- random robots


def pytest_generate_tests(metafunc):
    if "urdf_seed" in metafunc.fixturenames:
        n = N_RANDOM_FULL if metafunc.config.getoption("--full") else N_RANDOM
        metafunc.parametrize("urdf_seed", range(n), ids=[f"seed{s:04d}" for s in range(n)])


@pytest.mark.compiler
@pytest.mark.oracle
def test_random_urdf(urdf_seed):
    """numjoco accepts exactly the random robots MuJoCo accepts, and compiles them to the same Model
    (reproduce with python tests/urdf_gen.py <seed>)."""
    text, assets = urdf_gen.generate(urdf_seed)
    check_agree(text, assets, f"urdf_gen seed {urdf_seed}")


def test_random_urdf_generator_mostly_valid():
    """The generator is not vacuous: most robots are valid and every joint type appears."""
    valid, types = 0, set()
    for s in range(60):
        text, assets = urdf_gen.generate(s)
        types.update(re.findall(r'type="(\w+)"', text))
        try:
            mujoco.MjModel.from_xml_string(text, assets)
            valid += 1
        except ValueError:
            pass
    assert valid >= 40
    assert set(urdf_gen.JOINT_TYPES) <= types
