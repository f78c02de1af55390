"""Convex narrowphase (mjc_Convex, mjc_PlaneConvex, mjc_ConvexHField) against MuJoCo 3.17 (native GJK/EPA).

Each case is a two-geom scene (MJCF string; meshes as inline vertex lists, height fields as inline
elevation) with random sizes and random relative poses placed near contact with mujoco's own geom distance
(touching, penetrating, separated within the margin).  Our kernel runs on sim's kinematics for world 0 and
returns mjPreContact rows; they are compared with mujoco's d.contact rows of the same geom pair after
mj_forward: count, dist, pos and frame[0:3] (the normal).  Our tangent rows are zero, as MuJoCo's
pre-contacts of these functions (the driver completes the frame with mju_makeFrame).

Margins: the pair's margin is the sum of the geoms' (MuJoCo's getMargin), as the driver passes it; height fields
included.  --full runs 5x more scenes.
"""

import itertools
import zlib

import mujoco
import numpy as np
import pytest

import sim.jit.cache  # noqa: F401  (must precede jitted modules)
from sim.jit import njit  # keyed on the package sources: numba's own cache would keep a stale build
from sim import api
from sim.engine.kinematics import kinematics
from sim.engine.collision.convex import convex, plane_convex
from sim.engine.collision.hfield import convex_hfield
from sim.jit.features import FULL

# We follow MuJoCo's GJK/EPA/multi-contact iterations step by step in float64: dist/pos/normal agree to
# round-off (measured max 6e-14 over every pair, margins included, on --full).
TOL = 1e-9

KIND_CONVEX, KIND_PLANE, KIND_HFIELD = 0, 1, 2


@njit(cache=True)
def _run(m, d, kind, g1, g2, margin):
    kinematics(m, d, 0)
    if kind == KIND_PLANE:
        return plane_convex(m, d, 0, g1, g2, margin)
    if kind == KIND_HFIELD:
        return convex_hfield(m, d, 0, g1, g2, margin, FULL)
    return convex(m, d, 0, g1, g2, margin)


def _rand_quat(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def _cloud(rng, n, scale):
    """Random convex point cloud (n points near an ellipsoid surface) as an inline vertex list."""
    p = rng.normal(size=(n, 3))
    p /= np.linalg.norm(p, axis=1)[:, None]
    p *= scale * rng.uniform(0.6, 1.0, size=3)
    p *= rng.uniform(0.85, 1.0, size=(n, 1))
    return p


def _geom(rng, kind, name, margin):
    """(asset xml, geom xml) of a random geom of the given kind."""
    s = rng.uniform(0.1, 0.3, size=3)
    attr = 'name="%s" margin="%g"' % (name, margin)
    if kind == "sphere":
        return "", '<geom type="sphere" size="%g" %s/>' % (s[0], attr)
    if kind in ("capsule", "cylinder"):
        return "", '<geom type="%s" size="%g %g" %s/>' % (kind, s[0], s[1], attr)
    if kind in ("ellipsoid", "box"):
        return "", '<geom type="%s" size="%g %g %g" %s/>' % (kind, s[0], s[1], s[2], attr)
    if kind == "mesh":  # random convex hull (hill-climbing support: >= 10 vertices)
        v = _cloud(rng, int(rng.integers(12, 30)), 0.25)
    elif kind == "meshbox":  # box as a mesh (8 vertices: exhaustive support, quad polygons)
        v = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float) * s
    elif kind == "tetra":
        v = _cloud(rng, 4, 0.25)
    else:
        raise ValueError(kind)
    vs = " ".join("%.6f" % x for x in v.ravel())
    return ('<mesh name="m_%s" vertex="%s"/>' % (name, vs), '<geom type="mesh" mesh="m_%s" %s/>' % (name, attr))


def _scene(rng, k1, k2, margin):
    """MJCF with geom a (kind k1) and geom b (kind k2), each on a free body; plane/hfield a is static."""
    if k1 == "plane":
        a1, g1 = "", '<geom name="a" type="plane" size="2 2 .1" margin="%g"/>' % margin
    elif k1 == "hfield":
        nr, nc = int(rng.integers(4, 9)), int(rng.integers(4, 9))
        elev = rng.uniform(0, 1, size=nr * nc)
        a1 = '<hfield name="h" nrow="%d" ncol="%d" size="%g %g %g %g" elevation="%s"/>' % (
            nr,
            nc,
            rng.uniform(0.4, 0.8),
            rng.uniform(0.4, 0.8),
            rng.uniform(0.1, 0.3),
            0.1,
            " ".join("%.4f" % e for e in elev),
        )
        g1 = '<geom name="a" type="hfield" hfield="h" margin="%g"/>' % margin
    else:
        a1, g = _geom(rng, k1, "a", margin)
        g1 = '<body name="A"><freejoint/>%s</body>' % g
    a2, g = _geom(rng, k2, "b", margin)
    g2 = '<body name="B" pos="0 0 1"><freejoint/>%s</body>' % g
    return '<mujoco><option gravity="0 0 0"/><asset>%s%s</asset><worldbody>%s%s</worldbody></mujoco>' % (a1, a2, g1, g2)


def _place(m, d, rng, static1, target):
    """Random poses with geom b moved along a random direction so that its distance to a is ~target."""
    d.qpos[:] = 0
    if not static1:
        d.qpos[0:3] = rng.normal(scale=0.05, size=3)
        d.qpos[3:7] = _rand_quat(rng)
    j = 0 if static1 else 7
    d.qpos[j + 3 : j + 7] = _rand_quat(rng)
    if static1:  # plane / hfield: above the surface
        d.qpos[j : j + 3] = [rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3), 0.5]
        u = np.array([0.0, 0.0, 1.0])
    else:
        u = rng.normal(size=3)
        u /= np.linalg.norm(u)
        d.qpos[j : j + 3] = d.qpos[0:3] + u * 0.8
    for _ in range(4):
        mujoco.mj_kinematics(m, d)
        if static1 and m.geom_type[0] == mujoco.mjtGeom.mjGEOM_HFIELD:
            # height field: lowest point of the bounding sphere between below the floor and above the top
            d.qpos[j + 2] = m.hfield_size[0][2] * rng.uniform(-0.2, 1.2) + m.geom_rbound[1] * rng.uniform(0.3, 1.1)
            return
        dist = mujoco.mj_geomDistance(m, d, 0, 1, 10.0, None)
        d.qpos[j : j + 3] -= u * (dist - target)


PAIRS_CONVEX = [
    ("sphere", "ellipsoid"),
    ("sphere", "mesh"),
    ("capsule", "ellipsoid"),
    ("capsule", "cylinder"),
    ("capsule", "mesh"),
    ("capsule", "tetra"),
    ("ellipsoid", "ellipsoid"),
    ("ellipsoid", "cylinder"),
    ("ellipsoid", "box"),
    ("ellipsoid", "mesh"),
    ("cylinder", "cylinder"),
    ("cylinder", "box"),
    ("cylinder", "mesh"),
    ("cylinder", "meshbox"),
    ("box", "mesh"),
    ("box", "meshbox"),
    ("box", "tetra"),
    ("mesh", "mesh"),
    ("meshbox", "meshbox"),
    ("tetra", "mesh"),
    ("meshbox", "mesh"),
]
PAIRS_PLANE = [("plane", "ellipsoid"), ("plane", "mesh"), ("plane", "meshbox"), ("plane", "tetra")]
PAIRS_HFIELD = [("hfield", k) for k in ("sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "meshbox")]

# Edge contacts (a capsule's or cylinder's side line clipped against a face) are two points; when the clipped
# edge leaves near-duplicate points, which two survive first is decided by round-off, and 3.17 sometimes lists
# the same two contacts in the other order.  For these pairs the contacts are matched as a set (each within
# TOL) and the configurations listed in the other order are counted: measured at most 2/60 per pair on the
# default run, 5/300 on --full (margins 0 and 0.02); bound below.
ORDER_FREE = {
    ("capsule", "cylinder"),
    ("capsule", "mesh"),
    ("capsule", "tetra"),
    ("cylinder", "cylinder"),
    ("cylinder", "mesh"),
    ("cylinder", "meshbox"),
    ("cylinder", "box"),
}
MAX_SWAPPED = 0.03  # fraction of configurations


def _cases(k1, k2, nscene, npose, seed, margins, extra_xml="", run=_run):
    """[(mujoco count, our count, max |diff| in order, max |diff| as a set)] for random near-contact poses; run:
    the jitted kernel of _run's signature."""
    rng = np.random.default_rng(seed)
    kind = KIND_PLANE if k1 == "plane" else KIND_HFIELD if k1 == "hfield" else KIND_CONVEX
    static1 = kind != KIND_CONVEX
    out = []
    for _ in range(nscene):
        margin = float(rng.choice(margins))
        xml = _scene(rng, k1, k2, margin).replace(
            '<option gravity="0 0 0"/>', '<option gravity="0 0 0">%s</option>' % extra_xml
        )
        m = mujoco.MjModel.from_xml_string(xml)
        md = mujoco.MjData(m)
        ms = api.model_struct(m)
        sd = api.Data(m)
        for _ in range(npose):
            size = float(np.mean(m.geom_rbound[1]))
            target = rng.uniform(-0.15 * size, 2 * margin if margin > 0 else 0.02 * size)
            _place(m, md, rng, static1, target)
            mujoco.mj_forward(m, md)
            sel = [i for i in range(md.ncon) if md.contact.geom1[i] == 0 and md.contact.geom2[i] == 1]
            sd._arrays["qpos"][0] = md.qpos
            # the pair's margin as MuJoCo's driver passes it (getMargin: sum of the geoms' margins)
            n = run(ms, sd._struct, kind, 0, 1, float(m.geom_margin[0] + m.geom_margin[1]))
            a = sd._arrays
            ours = [
                np.concatenate(([a["scr_con_dist"][0, k]], a["scr_con_pos"][0, k], a["scr_con_normal"][0, k]))
                for k in range(n)
            ]
            theirs = [np.concatenate(([md.contact[i].dist], md.contact[i].pos, md.contact[i].frame[:3])) for i in sel]
            for k in range(n):
                assert np.all(a["scr_con_tangent"][0, k] == 0)
            err = max((np.abs(x - y).max() for x, y in zip(ours, theirs)), default=0.0)
            err_set = err
            if len(ours) == len(theirs) and 1 < len(ours) <= 5:
                err_set = min(
                    max(np.abs(ours[p] - y).max() for p, y in zip(perm, theirs))
                    for perm in itertools.permutations(range(len(ours)))
                )
            out.append((len(sel), n, err, err_set))
    return out


def _check(k1, k2, request, margins, tol=TOL, nscene=6, npose=10, extra_xml="", run=_run, order_free=ORDER_FREE):
    if request.config.getoption("--full"):
        nscene *= 5
    cases = _cases(k1, k2, nscene, npose, zlib.crc32((k1 + k2 + extra_xml).encode()), margins, extra_xml, run)
    assert len(cases) >= 50
    assert sum(n for _, n, _, _ in cases) > 0, "no contacts generated"
    counts = [(nm, n) for nm, n, _, _ in cases if nm != n]
    assert not counts, "contact counts differ (mujoco, ours): %s" % counts[:10]
    if (k1, k2) in order_free:
        bad = [e for _, _, _, e in cases if e > tol]
        assert not bad, "contacts differ (as a set) by up to %g" % max(bad)
        swapped = sum(1 for _, _, e, _ in cases if e > tol)
        assert swapped <= MAX_SWAPPED * len(cases), "%d/%d configurations in another order" % (swapped, len(cases))
        return max(e for _, _, _, e in cases)
    bad = [e for _, _, e, _ in cases if e > tol]
    assert not bad, "%d/%d configurations differ, max error %g" % (len(bad), len(cases), max(bad))
    return max(e for _, _, e, _ in cases)


@pytest.mark.parametrize("k1,k2", PAIRS_CONVEX + PAIRS_PLANE + PAIRS_HFIELD)
def test_pair(k1, k2, request):
    _check(k1, k2, request, (0.0,))


@pytest.mark.parametrize("k1,k2", PAIRS_CONVEX + PAIRS_PLANE + PAIRS_HFIELD)
def test_pair_margin(k1, k2, request):
    """Margins of Fetch / Shadow Hand size (0.001 per geom) and larger ones (0.02).  Height fields: MuJoCo 3.17
    treats the prism as mjc_Convex treats a geom (both inflated, the margin added back to the distance, the
    geom's bounding box widened by the margin), not as the reference source's raised prism top; measured exact
    to round-off (6e-15 on the default run)."""
    _check(k1, k2, request, (0.001, 0.02))


@pytest.mark.parametrize("k1,k2", [("box", "mesh"), ("cylinder", "box"), ("capsule", "mesh"), ("mesh", "mesh")])
def test_pair_multiccd_disabled(k1, k2, request):
    """DSBL_MULTICCD: one contact per pair (no multi-contact recovery)."""
    _check(k1, k2, request, (0.0, 0.01), extra_xml='<flag multiccd="disable"/>')


FINE_MESH_XML = """<mujoco><option gravity="0 0 0"/><asset><mesh name="m" vertex="%s"/></asset><worldbody>
<body name="A"><freejoint/>%s</body>
<body name="B" pos="0 0 1"><freejoint/><geom name="b" type="mesh" mesh="m"/></body></worldbody></mujoco>"""


@pytest.mark.parametrize(
    "small", ['<geom name="a" type="sphere" size=".0006"/>', '<geom name="a" type="capsule" size=".0006 .004"/>']
)
def test_point_and_segment_against_fine_mesh(small):
    """A 0.6 mm sphere / capsule in shallow contact with a 1500-vertex mesh: ccd runs them as a point / segment,
    which MuJoCo 3.17 treats as polytopes (GJK without tolerance, as mesh against mesh); with the tolerance GJK
    stopped early and the contacts differed by 1e-13 here (9e-10 on robosuite's ALOHA gripper).  Measured 2.2e-16."""
    rng = np.random.default_rng(5)
    cloud = _cloud(rng, 1500, 0.05)
    m = mujoco.MjModel.from_xml_string(FINE_MESH_XML % (" ".join("%.6f" % x for x in cloud.ravel()), small))
    md = mujoco.MjData(m)
    ms, sd = api.model_struct(m), api.Data(m)
    worst, total = 0.0, 0
    for _ in range(40):
        _place(m, md, rng, False, rng.uniform(-0.0005, 0.0001))  # shallower than the radius: the point / segment pass
        mujoco.mj_forward(m, md)
        sd._arrays["qpos"][0] = md.qpos
        n = _run(ms, sd._struct, KIND_CONVEX, 0, 1, 0.0)
        assert n == md.ncon
        got = sd._arrays
        for k in range(n):
            c = md.contact[k]
            row = np.concatenate(([got["scr_con_dist"][0, k]], got["scr_con_pos"][0, k], got["scr_con_normal"][0, k]))
            worst = max(worst, np.abs(row - np.concatenate(([c.dist], c.pos, c.frame[:3]))).max())
        total += n
    assert total >= 20
    assert worst <= 1e-14, worst


HFIELD_TRAJ_XML = """<mujoco><option timestep="0.004"/><asset>
<hfield name="h" nrow="7" ncol="6" size=".4 .35 .1 .05" elevation="0 .2 .5 .3 .1 0  .1 .4 .9 .6 .2 .1  .2 .5 1 .7 .3 .1
  .1 .3 .6 .8 .4 .2  0 .2 .4 .5 .3 .1  0 .1 .2 .3 .2 0  0 0 .1 .1 0 0"/>
<mesh name="m" vertex="-.05 -.05 -.05  .05 -.05 -.05  -.05 .05 -.05  .05 .05 -.05  -.05 -.05 .05  .05 -.05 .05
  -.05 .05 .05  .05 .05 .06  0 0 .075  0 .065 0 .06 0 0"/></asset><worldbody>
<geom type="hfield" hfield="h" margin=".004"/>
<body pos="-.05 0 .2"><freejoint/><geom type="mesh" mesh="m" margin=".003"/></body>
<body pos=".08 .03 .3" euler="10 20 30"><freejoint/><geom type="box" size=".04 .04 .04" margin=".001"/></body>
<body pos="-.02 -.08 .4" euler="40 5 0"><freejoint/><geom type="cylinder" size=".03 .04" margin=".002"/></body>
<body pos=".05 -.05 .5"><freejoint/><geom type="sphere" size=".04" gap=".001"/></body>
<body pos="0 .1 .6" euler="0 70 0"><freejoint/><geom type="capsule" size=".02 .05"/></body>
</worldbody></mujoco>"""


def synced_trajectory(xml, nstep):
    """sim.step and mj_step from MuJoCo's state at every step of MuJoCo's trajectory: (largest ncon, worst
    contact error over dist / pos / frame, worst next-state error over qpos / qvel); contact counts asserted equal."""
    import sim

    m = sim.load_model(xml)
    d = sim.Data(m)
    mm = mujoco.MjModel.from_xml_string(xml)
    md = mujoco.MjData(mm)
    worst = worst_con = 0.0
    ncon = 0
    for i in range(nstep):
        d.qpos[:] = md.qpos
        d.qvel[:] = md.qvel
        d.qacc_warmstart[:] = md.qacc_warmstart
        sim.step(m, d)
        mujoco.mj_step(mm, md)
        ncon = max(ncon, md.ncon)
        assert d.ncon == md.ncon, i
        n = md.ncon
        if n:
            for a, b in ((d.contact.pos, md.contact.pos), (d.contact.frame, md.contact.frame)):
                worst_con = max(worst_con, np.abs(a[:n] - b[:n]).max())
            worst_con = max(worst_con, np.abs(d.contact.dist[:n] - md.contact.dist[:n]).max())
        worst = max(worst, np.abs(d.qpos - md.qpos).max(), np.abs(d.qvel - md.qvel).max())
    return ncon, worst_con, worst


@pytest.mark.full  # compiles a whole feature set (minutes cold): --full
def test_hfield_margin_trajectory():
    """Geoms with margins and a gap falling on a height field with a margin, 200 steps of sim.step and mj_step,
    each from MuJoCo's state: the same contacts (count, dist, pos, frame) and next state to round-off."""
    ncon, worst_con, worst = synced_trajectory(HFIELD_TRAJ_XML, 200)
    assert ncon >= 6
    assert worst_con <= TOL, worst_con
    assert worst < 1e-12, worst


# A cylinder resting on a box face (FetchSlide's puck on the table): the cap against the face gives 4 contacts.
# MuJoCo 3.17 clips the box face by the cap as a 16-gon (cylinderFace) and prunes the 16 clipped vertices to a
# quadrilateral (polygonQuad).  Every inscribed square of a regular 16-gon has the same area, so which 4 rim
# vertices survive is decided by the last bits of the clipped vertices: MuJoCo's cap polygon uses a cos/sin table
# written with 15 significant digits (not the correctly rounded values), and only with that table and its
# globalcoord order do we keep its 4 vertices (measured: none of these poses differs; with correctly rounded
# cos/sin, 9 of 24 to 21 of 40 poses differed by one rim step, 0.0097 m on this puck).  Poses: yaws, small tilts,
# either cap.
CYL_BOX_XML = """<mujoco><option gravity="0 0 0"/><worldbody>
<body><freejoint/><geom name="table" type="box" size="0.5 0.5 0.2"/></body>
<body pos="0 0 1"><freejoint/><geom name="puck" type="cylinder" size="0.025 0.02"/></body>
</worldbody></mujoco>"""


def _cylinder_box_cases(n=32, seed=7):
    """[(mujoco rows, our rows, puck xmat, puck xpos)] for the puck at random yaws (every second one tilted by
    ~1 degree, every fourth one upside down: the top cap on the table) pressed 0.05-1 mm into the table; rows
    are (dist, pos, normal) as in _cases."""
    m = mujoco.MjModel.from_xml_string(CYL_BOX_XML)
    md = mujoco.MjData(m)
    ms = api.model_struct(m)
    sd = api.Data(m)
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        q = np.zeros(4)
        tilt = rng.normal(scale=1.0, size=2) if i % 2 else np.zeros(2)
        flip = 180.0 if i % 4 >= 2 else 0.0
        mujoco.mju_euler2Quat(q, np.radians([tilt[0] + flip, tilt[1], rng.uniform(-180, 180)]), "xyz")
        md.qpos[:] = 0
        md.qpos[3] = 1
        md.qpos[7:10] = [rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3), 0.22 - rng.uniform(5e-5, 1e-3)]
        md.qpos[10:14] = q
        mujoco.mj_forward(m, md)
        sel = [k for k in range(md.ncon) if md.contact.geom1[k] == 1 and md.contact.geom2[k] == 0]
        sd._arrays["qpos"][0] = md.qpos
        nc = _run(ms, sd._struct, KIND_CONVEX, 1, 0, 0.0)
        a = sd._arrays
        ours = [
            np.concatenate(([a["scr_con_dist"][0, k]], a["scr_con_pos"][0, k], a["scr_con_normal"][0, k]))
            for k in range(nc)
        ]
        theirs = [np.concatenate(([md.contact[k].dist], md.contact[k].pos, md.contact[k].frame[:3])) for k in sel]
        out.append((theirs, ours, md.geom_xmat[1].reshape(3, 3).copy(), md.geom_xpos[1].copy()))
    return out


def _rim_vertex(x, pos, mat, r):
    """Distance of contact position x (projected on the cap plane) from the nearest vertex of the cap's 16-gon."""
    loc = mat.T @ (x - pos)
    k = np.round(np.arctan2(loc[1], loc[0]) / (np.pi / 8))
    v = r * np.array([np.cos(k * np.pi / 8), np.sin(k * np.pi / 8)])
    return float(np.abs(loc[:2] - v).max())


def test_cylinder_on_box_contacts():
    """Puck on a table: 4 contacts, each (dist, pos, normal) equal to MuJoCo's in order within TOL, and on a vertex
    of the cap's 16-gon: within TOL flat; tilted, the contact point is the middle of the penetration, off the rim
    vertex by half the depth times the tilt (measured 1.8e-5 for both), bound 1e-4."""
    errs = []
    for i, (theirs, ours, mat, pos) in enumerate(_cylinder_box_cases()):
        assert len(theirs) == len(ours) == 4
        rim_tol = 1e-4 if i % 2 else TOL
        for x, y in zip(ours, theirs):
            errs.append(np.abs(x - y).max())
            assert _rim_vertex(x[1:4], pos, mat, 0.025) <= rim_tol
    bad = [e for e in errs if e > TOL]
    assert not bad, "%d/%d contacts differ, max %g" % (len(bad), len(errs), max(bad))
