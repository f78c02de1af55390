"""Convex narrowphase (mjc_Convex, mjc_PlaneConvex, mjc_ConvexHField) against MuJoCo 3.17 (native GJK/EPA).

Each case is a two-geom scene (MJCF string; meshes as inline vertex lists, height fields as inline
elevation) with random sizes and random relative poses placed near contact with mujoco's own geom distance
(touching, penetrating, separated within the margin).  Our kernel runs on sim's kinematics for world 0 and
returns mjPreContact rows; they are compared with mujoco's d.contact rows of the same geom pair after
mj_forward: count, dist, pos and frame[0:3] (the normal).  Our tangent rows are zero, as MuJoCo's
pre-contacts of these functions (the driver completes the frame with mju_makeFrame).

We follow the C snapshot's GJK/EPA/multi-contact step by step; the installed 3.17 differs from it in a few
places (listed in KNOWN / PAIRS_MARGIN_UNSUPPORTED with measured agreement).  --full runs 5x more scenes.
"""
import zlib

import mujoco
import numpy as np
import pytest

import sim.cache  # noqa: F401  (must precede jitted modules)
from numba import njit
from sim import smooth_api as api
from sim.kinematics import kinematics
from sim.collision.convex import convex, plane_convex
from sim.collision.hfield import convex_hfield
from sim.types import UnsupportedFeature

# We follow MuJoCo's GJK/EPA/multi-contact iterations step by step in float64, so the results agree to
# round-off; TOL bounds dist/pos/normal differences (measured max reported by test_report).
TOL = 1e-6

KIND_CONVEX, KIND_PLANE, KIND_HFIELD = 0, 1, 2


@njit(cache=True)
def _run(m, d, kind, g1, g2, margin):
    kinematics(m, d, 0)
    if kind == KIND_PLANE:
        return plane_convex(m, d, 0, g1, g2, margin)
    if kind == KIND_HFIELD:
        return convex_hfield(m, d, 0, g1, g2, margin)
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
    if kind == 'sphere':
        return '', '<geom type="sphere" size="%g" %s/>' % (s[0], attr)
    if kind in ('capsule', 'cylinder'):
        return '', '<geom type="%s" size="%g %g" %s/>' % (kind, s[0], s[1], attr)
    if kind in ('ellipsoid', 'box'):
        return '', '<geom type="%s" size="%g %g %g" %s/>' % (kind, s[0], s[1], s[2], attr)
    if kind == 'mesh':        # random convex hull (hill-climbing support: >= 10 vertices)
        v = _cloud(rng, int(rng.integers(12, 30)), 0.25)
    elif kind == 'meshbox':   # box as a mesh (8 vertices: exhaustive support, quad polygons)
        v = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float) * s
    elif kind == 'tetra':
        v = _cloud(rng, 4, 0.25)
    else:
        raise ValueError(kind)
    vs = ' '.join('%.6f' % x for x in v.ravel())
    return ('<mesh name="m_%s" vertex="%s"/>' % (name, vs),
            '<geom type="mesh" mesh="m_%s" %s/>' % (name, attr))


def _scene(rng, k1, k2, margin):
    """MJCF with geom a (kind k1) and geom b (kind k2), each on a free body; plane/hfield a is static."""
    if k1 == 'plane':
        a1, g1 = '', '<geom name="a" type="plane" size="2 2 .1" margin="%g"/>' % margin
    elif k1 == 'hfield':
        nr, nc = int(rng.integers(4, 9)), int(rng.integers(4, 9))
        elev = rng.uniform(0, 1, size=nr * nc)
        a1 = ('<hfield name="h" nrow="%d" ncol="%d" size="%g %g %g %g" elevation="%s"/>'
              % (nr, nc, rng.uniform(0.4, 0.8), rng.uniform(0.4, 0.8), rng.uniform(0.1, 0.3), 0.1,
                 ' '.join('%.4f' % e for e in elev)))
        g1 = '<geom name="a" type="hfield" hfield="h" margin="%g"/>' % margin
    else:
        a1, g = _geom(rng, k1, 'a', margin)
        g1 = '<body name="A"><freejoint/>%s</body>' % g
    a2, g = _geom(rng, k2, 'b', margin)
    g2 = '<body name="B" pos="0 0 1"><freejoint/>%s</body>' % g
    return ('<mujoco><option gravity="0 0 0"/><asset>%s%s</asset><worldbody>%s%s</worldbody></mujoco>'
            % (a1, a2, g1, g2))


def _place(m, d, rng, static1, target):
    """Random poses with geom b moved along a random direction so that its distance to a is ~target."""
    d.qpos[:] = 0
    if not static1:
        d.qpos[0:3] = rng.normal(scale=0.05, size=3)
        d.qpos[3:7] = _rand_quat(rng)
    j = 0 if static1 else 7
    d.qpos[j + 3:j + 7] = _rand_quat(rng)
    if static1:   # plane / hfield: above the surface
        d.qpos[j:j + 3] = [rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3), 0.5]
        u = np.array([0.0, 0.0, 1.0])
    else:
        u = rng.normal(size=3)
        u /= np.linalg.norm(u)
        d.qpos[j:j + 3] = d.qpos[0:3] + u * 0.8
    for _ in range(4):
        mujoco.mj_kinematics(m, d)
        if static1 and m.geom_type[0] == mujoco.mjtGeom.mjGEOM_HFIELD:
            # height field: lowest point of the bounding sphere between below the floor and above the top
            d.qpos[j + 2] = m.hfield_size[0][2] * rng.uniform(-0.2, 1.2) + m.geom_rbound[1] * rng.uniform(0.3, 1.1)
            return
        dist = mujoco.mj_geomDistance(m, d, 0, 1, 10.0, None)
        d.qpos[j:j + 3] -= u * (dist - target)


PAIRS_CONVEX = [('sphere', 'ellipsoid'), ('sphere', 'mesh'), ('capsule', 'ellipsoid'), ('capsule', 'cylinder'),
                ('capsule', 'mesh'), ('ellipsoid', 'ellipsoid'), ('ellipsoid', 'cylinder'), ('ellipsoid', 'box'),
                ('ellipsoid', 'mesh'), ('cylinder', 'cylinder'), ('cylinder', 'box'), ('cylinder', 'mesh'),
                ('box', 'mesh'), ('box', 'meshbox'), ('box', 'tetra'), ('mesh', 'mesh'), ('meshbox', 'meshbox'),
                ('tetra', 'mesh'), ('meshbox', 'mesh')]
PAIRS_PLANE = [('plane', 'ellipsoid'), ('plane', 'mesh'), ('plane', 'meshbox'), ('plane', 'tetra')]
PAIRS_HFIELD = [('hfield', k) for k in ('sphere', 'capsule', 'ellipsoid', 'cylinder', 'box', 'mesh', 'meshbox')]
# pairs with a margin that match 3.17: a sphere or capsule is involved (mjc_ccd shrinks it to a point /
# segment), or the plane-convex support-vertex test
PAIRS_MARGIN = [('sphere', 'ellipsoid'), ('sphere', 'mesh'), ('capsule', 'ellipsoid'), ('capsule', 'cylinder'),
                ('capsule', 'mesh'), ('plane', 'ellipsoid'), ('plane', 'mesh')]
# margin > 0 otherwise: 3.17 differs from the C snapshot (measured: box/mesh pairs return 2-3 contacts within
# the margin where the snapshot returns 1; ellipsoid-ellipsoid/cylinder/box/mesh contacts differ by up to
# 1.6e-2; height fields return more prism contacts) -> UnsupportedFeature
PAIRS_MARGIN_UNSUPPORTED = [('ellipsoid', 'ellipsoid'), ('ellipsoid', 'box'), ('cylinder', 'box'), ('box', 'mesh'),
                            ('mesh', 'mesh'), ('hfield', 'sphere'), ('hfield', 'box')]

# Known disagreements with the installed MuJoCo 3.17, whose narrowphase differs from the C snapshot we follow.
# Measured with margin 0 on the default run (60 configurations) and on --full (300).  Value: (reason, whether
# the configurations with a single contact on both sides still match exactly in both runs).
_TWO = ('3.17 returns 2 contacts (from another first contact) in some configurations, an algorithm absent '
        'from the C snapshot, whose perturbation multiCCD would give 3-5: we return the GJK/EPA contact')
_CLIP = 'the multi-contact polygon clipping of 3.17 differs in some face configurations'
_PLANE = ('3.17 selects the extra plane-mesh vertex contacts differently from mjc_PlaneConvex (first contact '
          'exact)')
KNOWN = {
    ('capsule', 'cylinder'): (_TWO + '; counts agree 59/60, 293/300 (one single contact off by 1.2e-2)', False),
    ('capsule', 'mesh'): (_TWO + '; counts agree 46/60, 227/300', True),
    ('cylinder', 'cylinder'): (_TWO + '; counts agree 54/60, 279/300 (one single contact off by 1.2e-5)', False),
    ('cylinder', 'box'): (_TWO + '; counts agree 53/60, 260/300 (3 single contacts off by up to 1.2)', False),
    ('cylinder', 'mesh'): (_TWO + '; counts agree 46/60, 237/300 (one single contact off by 1.2e-4)', False),
    ('box', 'mesh'): (_CLIP + '; exact 55/60, 286/300, max error 3.1e-3', True),
    ('box', 'meshbox'): (_CLIP + '; exact 60/60, 297/300, max error 0.43', True),
    ('box', 'tetra'): (_CLIP + '; exact 60/60, 299/300, max error 7.7e-4', True),
    ('tetra', 'mesh'): (_CLIP + '; exact 58/60, 289/300, max error 3.1e-3', True),
    ('mesh', 'mesh'): (_CLIP + ' and single EPA contacts of two hill-climbing meshes differ up to 4e-5; exact '
                       '55/60, 277/300, max error 7.6e-2', False),
    ('meshbox', 'mesh'): (_CLIP + ' and single EPA contacts differ up to 1e-4; exact 57/60, 284/300, max '
                          'error 3.3e-3', False),
    ('plane', 'mesh'): (_PLANE + '; exact 37/60, 218/300 (margin 0.02: 15/60, 103/300)', True),
    ('plane', 'meshbox'): (_PLANE + '; exact 59/60, 298/300', True),
    ('plane', 'tetra'): (_PLANE + '; exact 60/60, 292/300', True),
}

# With a margin (sphere/capsule pairs), 3.17's GJK iterations stop at other points within ccd_tolerance than
# the snapshot's: positions/normals differ by up to 2.6e-5 (measured on --full; distances agree to 1e-12).
TOL_MARGIN = 1e-4


def _cases(k1, k2, nscene, npose, seed, margins):
    """[(mujoco count, our count, max |diff| over compared contacts)] for random near-contact poses."""
    rng = np.random.default_rng(seed)
    kind = KIND_PLANE if k1 == 'plane' else KIND_HFIELD if k1 == 'hfield' else KIND_CONVEX
    static1 = kind != KIND_CONVEX
    out = []
    for _ in range(nscene):
        margin = float(rng.choice(margins))
        m = mujoco.MjModel.from_xml_string(_scene(rng, k1, k2, margin))
        md = mujoco.MjData(m)
        ms = api.model_struct(m, collision=False)
        sd = api.Data(m)
        for _ in range(npose):
            size = float(np.mean(m.geom_rbound[1]))
            target = rng.uniform(-0.15 * size, margin if margin > 0 else 0.02 * size)
            _place(m, md, rng, static1, target)
            mujoco.mj_forward(m, md)
            sel = [i for i in range(md.ncon) if md.contact.geom1[i] == 0 and md.contact.geom2[i] == 1]
            sd._arrays['qpos'][0] = md.qpos
            n = _run(ms, sd._struct, kind, 0, 1, float(m.geom_margin[0] + m.geom_margin[1]))
            a = sd._arrays
            err = 0.0
            for k, i in enumerate(sel[:n]):
                c = md.contact[i]
                err = max(err, abs(a['scr_con_dist'][0, k] - c.dist),
                          np.abs(a['scr_con_pos'][0, k] - c.pos).max(),
                          np.abs(a['scr_con_normal'][0, k] - c.frame[:3]).max())
                assert np.all(a['scr_con_tangent'][0, k] == 0)
            out.append((len(sel), n, err))
    return out


def _check(k1, k2, request, margins, tol, nscene=6, npose=10):
    if request.config.getoption('--full'):
        nscene *= 5
    cases = _cases(k1, k2, nscene, npose, zlib.crc32((k1 + k2).encode()), margins)
    assert len(cases) >= 50
    assert sum(n for _, n, _ in cases) > 0, 'no contacts generated'
    reason, single_exact = KNOWN.get((k1, k2), ('', True))
    if single_exact:   # configurations with one contact on both sides: always exact
        single = [e for nm, n, e in cases if nm == n == 1]
        assert max(single, default=0.0) <= tol, 'single-contact max error %g' % max(single)
    bad = [(nm, n, e) for nm, n, e in cases if nm != n or e > tol]
    if bad and reason:
        pytest.xfail('%s; here %d/%d configurations differ (max error %.2g, count mismatches %d)'
                     % (reason, len(bad), len(cases), max(e for _, _, e in bad),
                        sum(1 for nm, n, _ in bad if nm != n)))
    assert not bad, 'mismatches (mujoco count, ours, max err): %s' % bad[:10]


@pytest.mark.parametrize('k1,k2', PAIRS_CONVEX + PAIRS_PLANE + PAIRS_HFIELD)
def test_pair(k1, k2, request):
    _check(k1, k2, request, (0.0,), TOL)


@pytest.mark.parametrize('k1,k2', PAIRS_MARGIN)
def test_pair_margin(k1, k2, request):
    _check(k1, k2, request, (0.02,), TOL_MARGIN)


@pytest.mark.parametrize('k1,k2', PAIRS_MARGIN_UNSUPPORTED)
def test_margin_unsupported(k1, k2):
    rng = np.random.default_rng(2)
    m = mujoco.MjModel.from_xml_string(_scene(rng, k1, k2, 0.02))
    sd = api.Data(m)
    kind = KIND_HFIELD if k1 == 'hfield' else KIND_CONVEX
    with pytest.raises(UnsupportedFeature):
        _run(api.model_struct(m, collision=False), sd._struct, kind, 0, 1, 0.02)


def test_nativeccd_disabled_unsupported():
    rng = np.random.default_rng(1)
    m = mujoco.MjModel.from_xml_string(_scene(rng, 'box', 'mesh', 0.0))
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_NATIVECCD
    sd = api.Data(m)
    with pytest.raises(UnsupportedFeature):
        _run(api.model_struct(m, collision=False), sd._struct, KIND_CONVEX, 0, 1, 0.0)
