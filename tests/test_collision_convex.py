"""Convex narrowphase (mjc_Convex, mjc_PlaneConvex, mjc_ConvexHField) against MuJoCo 3.17 (native GJK/EPA).

Each case is a two-geom scene (MJCF string; meshes as inline vertex lists, height fields as inline
elevation) with random sizes and random relative poses placed near contact with mujoco's own geom distance
(touching, penetrating, separated within the margin).  Our kernel runs on sim's kinematics for world 0 and
returns mjPreContact rows; they are compared with mujoco's d.contact rows of the same geom pair after
mj_forward: count, dist, pos and frame[0:3] (the normal).  Our tangent rows are zero, as MuJoCo's
pre-contacts of these functions (the driver completes the frame with mju_makeFrame).
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

STATS = {}


def _compare(k1, k2, nscene, npose, seed, margin_choices=(0.0, 0.0, 0.02)):
    rng = np.random.default_rng(seed)
    kind = KIND_PLANE if k1 == 'plane' else KIND_HFIELD if k1 == 'hfield' else KIND_CONVEX
    static1 = kind != KIND_CONVEX
    agree = total = ncontact = 0
    err = 0.0
    fails = []
    for _ in range(nscene):
        margin = float(rng.choice(margin_choices))
        m = mujoco.MjModel.from_xml_string(_scene(rng, k1, k2, margin))
        md = mujoco.MjData(m)
        ms = api.model_struct(m)
        sd = api.Data(m)
        for _ in range(npose):
            size = float(np.mean(m.geom_rbound[1]))
            target = rng.uniform(-0.15 * size, margin if margin > 0 else 0.02 * size)
            _place(m, md, rng, static1, target)
            mujoco.mj_forward(m, md)
            sel = [i for i in range(md.ncon) if md.contact.geom1[i] == 0 and md.contact.geom2[i] == 1]
            sd._arrays['qpos'][0] = md.qpos
            n = _run(ms, sd._struct, kind, 0, 1, margin)
            total += 1
            if n != len(sel):
                fails.append((len(sel), n))
                continue
            agree += 1
            ncontact += n
            a = sd._arrays
            for k, i in enumerate(sel):
                c = md.contact[i]
                err = max(err, abs(a['scr_con_dist'][0, k] - c.dist),
                          np.abs(a['scr_con_pos'][0, k] - c.pos).max(),
                          np.abs(a['scr_con_normal'][0, k] - c.frame[:3]).max())
                assert np.all(a['scr_con_tangent'][0, k] == 0)
    STATS[(k1, k2)] = (agree, total, ncontact, err)
    return agree, total, ncontact, err, fails


def _check(k1, k2, request, nscene=6, npose=10, seed=0):
    if request.config.getoption('--full'):
        nscene *= 5
    agree, total, ncontact, err, fails = _compare(k1, k2, nscene, npose, seed)
    assert total >= 50
    assert ncontact > 0, 'no contacts generated'
    assert agree == total, 'contact count mismatch (mujoco, ours): %s' % fails[:10]
    assert err <= TOL, 'max error %g' % err


@pytest.mark.parametrize('k1,k2', PAIRS_CONVEX)
def test_convex(k1, k2, request):
    _check(k1, k2, request, seed=zlib.crc32((k1 + k2).encode()))


@pytest.mark.parametrize('k1,k2', PAIRS_PLANE)
def test_plane_convex(k1, k2, request):
    _check(k1, k2, request, seed=zlib.crc32((k1 + k2).encode()))


@pytest.mark.parametrize('k1,k2', PAIRS_HFIELD)
def test_hfield(k1, k2, request):
    _check(k1, k2, request, seed=zlib.crc32((k1 + k2).encode()))


def test_nativeccd_disabled_unsupported():
    rng = np.random.default_rng(1)
    m = mujoco.MjModel.from_xml_string(_scene(rng, 'box', 'mesh', 0.0))
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_NATIVECCD
    sd = api.Data(m)
    with pytest.raises(UnsupportedFeature):
        _run(api.model_struct(m), sd._struct, KIND_CONVEX, 0, 1, 0.0)
