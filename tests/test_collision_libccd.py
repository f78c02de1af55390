"""libccd convex collisions (<flag nativeccd="disable"/>: mjc_Convex through libccd's MPR, mjc_fixNormal, the
multiCCD perturbation search; height-field prisms through MPR) against MuJoCo 3.17.

The pair scenes, poses and the comparison are tests/test_collision_convex.py's (random sizes and relative poses
near contact, count / dist / pos / normal of every contact of the pair), run on the libccd kernels with the flag
set in the scene's <option>.  Box-box, capsule-box, the primitive pairs and plane-convex do not go through libccd
in MuJoCo 3.17 (measured: the same contacts with and without the flag); plane-convex is checked here too.
"""

import mujoco
import numpy as np
import pytest

import sim
import sim.jit.cache  # noqa: F401  (must precede jitted modules)
from sim.jit import njit  # keyed on the package sources: numba's own cache would keep a stale build
from sim import api
from sim.engine.kinematics import kinematics
from sim.engine.collision.mpr import convex_libccd
from sim.jit.features import F_LIBCCD, features

from test_collision_convex import _check, synced_trajectory, _run as run_native, KIND_CONVEX, PAIRS_CONVEX, PAIRS_HFIELD

FLAG = '<flag nativeccd="disable"/>'

# We follow libccd's MPR and MuJoCo's wrapper step by step in float64 (same operation order): measured max error
# over dist, pos and normal 6.7e-16 (--full: 300 poses per pair and margin set, every pair below, height fields and
# planes included); no contact count differs.  TOL leaves room for round-off only.
TOL = 1e-12


@njit(cache=True)
def _run(m, d, kind, g1, g2, margin):
    if kind != KIND_CONVEX:  # plane and height field: the convex tests' kernel (the latter with F_LIBCCD on)
        return run_native(m, d, kind, g1, g2, margin)
    kinematics(m, d, 0)
    return convex_libccd(m, d, 0, g1, g2, margin)


PAIRS = PAIRS_CONVEX  # every one goes through libccd with the flag
# the default run: one pair of each support kind, with and without margins (the rest under --full)
DEFAULT = {("capsule", "ellipsoid"), ("cylinder", "mesh"), ("box", "mesh"), ("mesh", "mesh")}


def _params(pairs):
    return [p if p in DEFAULT else pytest.param(*p, marks=pytest.mark.full) for p in pairs]


@pytest.mark.parametrize("k1,k2", _params(PAIRS))
def test_pair(k1, k2, request):
    _check(k1, k2, request, (0.0,), tol=TOL, extra_xml=FLAG, run=_run, order_free=set())


@pytest.mark.parametrize("k1,k2", _params(PAIRS))
def test_pair_margin(k1, k2, request):
    _check(k1, k2, request, (0.001, 0.02), tol=TOL, extra_xml=FLAG, run=_run, order_free=set())


@pytest.mark.parametrize(
    "k1,k2", [p if p[1] == "box" else pytest.param(*p, marks=pytest.mark.full) for p in PAIRS_HFIELD]
)
def test_hfield(k1, k2, request):
    """Height-field prisms through MPR, normals fixed (mjc_ConvexHField's libccd branch), with and without margins
    (the prism inflated by margin/2 in mjccd_support as every other object, as measured against 3.17)."""
    _check(k1, k2, request, (0.0, 0.001, 0.02), tol=TOL, extra_xml=FLAG, run=_run, order_free=set())


@pytest.mark.parametrize("k1,k2", [("plane", "mesh"), ("plane", "ellipsoid")])
def test_plane(k1, k2, request):
    """mjc_PlaneConvex has no libccd branch in 3.17: the same contacts with the flag."""
    _check(k1, k2, request, (0.0, 0.01), tol=TOL, extra_xml=FLAG, run=_run, order_free=set())


RESTING_XML = """<mujoco><option gravity="0 0 0">%s</option><asset>
<mesh name="m" vertex="-.1 -.1 -.1  .1 -.1 -.1  -.1 .1 -.1  .1 .1 -.1  -.1 -.1 .1  .1 -.1 .1  -.1 .1 .1  .1 .1 .12
  0 0 .15  0 .13 0 .12 0 0"/></asset><worldbody>
<body><freejoint/><geom name="a" type="%s" size="%s" %s margin="%g"/></body>
<body pos="0 0 1"><freejoint/><geom name="b" type="mesh" mesh="m" margin="%g"/></body>
</worldbody></mujoco>"""


@pytest.mark.parametrize(
    "k1,size,top",
    [("box", ".1 .1 .1", 0.1), ("cylinder", ".1 .1", 0.1), ("mesh", "", 0.1), ("capsule", ".05 .1", 0.15)],
)
def test_resting_multicontact(k1, size, top):
    """A mesh resting face-on on a geom (small tilts and yaws, the arm-on-table case of dm_control's manipulation
    tasks): the perturbation search adds up to 4 contacts (rotations of 1e-3 rad about the contact frame's
    tangents); with multiccd disabled one contact.  Compared contact by contact with MuJoCo."""
    rng = np.random.default_rng(7)
    total = {True: 0, False: 0}
    for multi in (True, False):
        for margin in (0.0, 0.005):
            flags = FLAG if multi else '<flag nativeccd="disable" multiccd="disable"/>'
            mesh = 'mesh="m"' if k1 == "mesh" else ""
            xml = RESTING_XML % (flags, k1, size or ".1", mesh, margin, margin)
            m = mujoco.MjModel.from_xml_string(xml)
            md = mujoco.MjData(m)
            ms = api.model_struct(m)
            sd = api.Data(m)
            for _ in range(8):
                md.qpos[:] = 0
                md.qpos[3:7] = [0, 1, 0, 0] if k1 == "mesh" else [1, 0, 0, 0]  # the mesh's flat face up
                tilt = rng.normal(scale=0.02, size=3)
                tilt[2] = rng.uniform(-np.pi, np.pi)
                mujoco.mju_euler2Quat(md.qpos[10:14], tilt, "xyz")
                md.qpos[7:10] = [rng.uniform(-0.02, 0.02), rng.uniform(-0.02, 0.02), top + 0.1 - rng.uniform(0, 0.01)]
                mujoco.mj_forward(m, md)
                sd._arrays["qpos"][0] = md.qpos
                n = _run(ms, sd._struct, 0, 0, 1, 2 * margin)
                a = sd._arrays
                assert n == md.ncon
                total[multi] += n
                for k in range(n):
                    c = md.contact[k]
                    assert abs(a["scr_con_dist"][0, k] - c.dist) <= TOL
                    np.testing.assert_allclose(a["scr_con_pos"][0, k], c.pos, rtol=0, atol=TOL)
                    np.testing.assert_allclose(a["scr_con_normal"][0, k], c.frame[:3], rtol=0, atol=TOL)
    assert total[False] == 16  # one contact per pose
    if k1 != "capsule":
        assert total[True] > 16  # the perturbations found more


TRAJ_XML = """<mujoco><option timestep="0.004"><flag nativeccd="disable"/></option><asset>
<mesh name="m" vertex="-.05 -.05 -.05  .05 -.05 -.05  -.05 .05 -.05  .05 .05 -.05  -.05 -.05 .05  .05 -.05 .05
  -.05 .05 .05  .05 .05 .06  0 0 .075  0 .065 0 .06 0 0"/></asset><worldbody>
<geom type="plane" size="1 1 .1"/>
<body pos="0 0 .06"><freejoint/><geom type="mesh" mesh="m"/></body>
<body pos=".01 .02 .2" euler="10 20 30"><freejoint/><geom type="box" size=".04 .04 .04"/></body>
<body pos="-.02 0 .33" euler="40 5 0"><freejoint/><geom type="cylinder" size=".03 .04"/></body>
<body pos="0 .01 .45" euler="0 70 0"><freejoint/><geom type="capsule" size=".02 .05" margin=".002"/></body>
<body pos=".02 0 .56"><freejoint/><geom type="ellipsoid" size=".04 .03 .02"/></body>
</worldbody></mujoco>"""


@pytest.mark.full  # compiles a whole feature set (minutes cold): --full
def test_trajectory():
    """A pile of convex geoms falling on a mesh with nativeccd disabled, 150 steps of sim.step and mj_step, each
    step from MuJoCo's state: the same contacts (count, dist, pos, frame) and next state to round-off.  (Run freely
    the two trajectories part by chaos: measured 4.4e-6 in qpos after 150 steps of impacts, while every synced
    step agrees to 7e-15.)"""
    assert sim.api.model_features(sim.load_model(TRAJ_XML))[F_LIBCCD]
    ncon, worst_con, worst = synced_trajectory(TRAJ_XML, 150)
    assert ncon >= 6
    assert worst_con <= TOL, worst_con
    assert worst < 1e-12, worst


def test_features_follow_flag():
    """F_LIBCCD follows opt.disableflags (the flag is a run-time option in MuJoCo): set or cleared after loading,
    the next step selects (and compiles, once) the feature set with or without the libccd path."""
    m = sim.load_model(TRAJ_XML.replace('<flag nativeccd="disable"/>', ""))
    assert not features(m)[F_LIBCCD]
    m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_NATIVECCD)
    assert features(m)[F_LIBCCD]


@pytest.mark.full  # the manipulation models compile their own feature set and process 9 meshes (minutes cold)
def test_manipulation_corpus_model():
    """dm_control's manipulation_reach_site (nativeccd disabled) through the corpus harness: contacts, forces and a
    1000-step trajectory as MuJoCo's (measured: dist 0, qacc 6e-10 relative, trajectory 1.4e-13)."""
    import corpus
    import corpus_check

    rec = corpus_check.check(corpus.by_name()["dm_control/built/manipulation_reach_site"])
    assert rec["status"] == "match", rec["reasons"]
    assert rec["traj_steps"] == corpus_check.N_TRAJ
