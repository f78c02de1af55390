"""Collision detection (sim/collision: driver, broadphase, primitive and box colliders) against mujoco.

Every scene is run through full ``sim.forward`` on the mujoco MjModel and the contact buffer is compared
with mujoco's d.contact: same count, same geom pairs in the same order, dist/pos/frame within TOL, and
every parameter field identical.  mu, H and efc_address are left out: they are filled later by
mj_makeConstraint (sim/engine/constraint.py, not part of this stage).
"""

import os
import zlib

import mujoco
import numpy as np
import pytest

from sim.api import Data as SimData, forward as sim_forward
from sim.constants import WARN_CONTACTFULL
from conftest import gymnasium_assets_dir

TOL = 1e-9
EXACT = ("geom", "geom1", "geom2", "dim", "exclude", "flex", "elem", "vert")
PARAMS = ("includemargin", "friction", "solref", "solreffriction", "solimp", "adhesion")
GEOMETRY = ("dist", "pos", "frame")


def _rand_quat(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def compare_contacts(m, d, sd, tol=TOL, limit=None):
    """Assert sim's contacts equal mujoco's; returns max geometry error."""
    n = d.ncon if limit is None else min(limit, d.ncon)
    assert (sd.ncon if limit is None else min(sd.ncon, limit)) == n, (sd.ncon, d.ncon)
    err = 0.0
    if n == 0:
        return err
    for f in EXACT:
        a = np.asarray(getattr(d.contact, f))[:n]
        b = np.asarray(getattr(sd.contact, f))[:n]
        np.testing.assert_array_equal(b, a, err_msg=f)
    for f in PARAMS:
        a = np.asarray(getattr(d.contact, f))[:n]
        b = np.asarray(getattr(sd.contact, f))[:n]
        np.testing.assert_array_equal(b, a, err_msg=f)
    for f in GEOMETRY:
        a = np.asarray(getattr(d.contact, f))[:n]
        b = np.asarray(getattr(sd.contact, f))[:n]
        e = float(np.max(np.abs(a - b)))
        assert e <= tol, (f, e)
        err = max(err, e)
    return err


def run_both(m, qpos=None, nconmax=None):
    """mj_forward and sim.forward from the same qpos; returns (mujoco data, sim data)."""
    d = mujoco.MjData(m)
    if qpos is not None:
        d.qpos[:] = qpos
    mujoco.mj_forward(m, d)
    sd = SimData(m, nconmax=nconmax) if nconmax else SimData(m)
    if qpos is not None:
        sd.qpos[:] = qpos
    sim_forward(m, sd)
    return d, sd


# ------------------------------------------------------------------ per-pair random scenes

SIZE = {
    "sphere": lambda r: "%.4f" % r.uniform(0.05, 0.3),
    "capsule": lambda r: "%.4f %.4f" % (r.uniform(0.05, 0.2), r.uniform(0.05, 0.4)),
    "cylinder": lambda r: "%.4f %.4f" % (r.uniform(0.05, 0.3), r.uniform(0.05, 0.4)),
    "box": lambda r: "%.4f %.4f %.4f" % tuple(r.uniform(0.05, 0.3, 3)),
    "ellipsoid": lambda r: "%.4f %.4f %.4f" % tuple(r.uniform(0.05, 0.3, 3)),
}
PAIRS = [("plane", t) for t in ("sphere", "capsule", "cylinder", "box", "ellipsoid")] + [
    ("sphere", "sphere"),
    ("sphere", "capsule"),
    ("sphere", "cylinder"),
    ("capsule", "capsule"),
    ("sphere", "box"),
    ("capsule", "box"),
    ("box", "box"),
    # general convex pairs (mjc_Convex) through the driver, with margins and gaps
    ("sphere", "ellipsoid"),
    ("capsule", "cylinder"),
    ("ellipsoid", "box"),
    ("cylinder", "cylinder"),
    ("cylinder", "box"),
]


def _margin_attr(rng):
    u = rng.uniform()
    if u < 0.3:
        return ' margin="%.3f"' % rng.uniform(0.0, 0.05)
    if u < 0.45:
        return ' margin="%.3f" gap="%.3f"' % (rng.uniform(0.01, 0.05), rng.uniform(0.0, 0.01))
    return ""


def pair_scene(t1, t2, ncfg, rng):
    """Model + qpos with ncfg isolated copies of a (t1, t2) geom pair at random poses near contact."""
    bodies = []
    qpos = []
    if t1 == "plane":
        # one tilted plane; ncfg bodies spread along it, not colliding with each other (bitmasks)
        tilt = _rand_quat(rng) * 0.0 + np.array([1, 0.1 * rng.normal(), 0.1 * rng.normal(), 0])
        tilt /= np.linalg.norm(tilt)
        head = '<geom type="plane" size="0 0 1" quat="%s" contype="2" conaffinity="2"%s/>' % (
            " ".join("%.6f" % x for x in tilt),
            _margin_attr(rng),
        )
        mat = np.zeros(9)
        mujoco.mju_quat2Mat(mat, tilt)
        nrm = mat.reshape(3, 3)[:, 2]
        for i in range(ncfg):
            bodies.append(
                '<body><freejoint/><geom type="%s" size="%s" contype="2" conaffinity="1"%s/></body>'
                % (t2, SIZE[t2](rng), _margin_attr(rng))
            )
            p = np.array([3.0 * (i % 10), 3.0 * (i // 10), 0.0])
            p = p - nrm * (p @ nrm) + nrm * rng.uniform(-0.2, 0.45)
            q = _rand_quat(rng)
            if rng.uniform() < 0.15:  # axis-aligned poses (parallel / degenerate branches)
                q = (
                    np.array([1.0, 0, 0, 0])
                    if rng.uniform() < 0.5
                    else np.array([0.7071067811865476, 0.7071067811865476, 0, 0])
                )
            qpos += list(p) + list(q)
    else:
        head = ""
        for i in range(ncfg):
            # bitmasks: only (t1, t2) pairs can collide, never two copies of the same type
            g1 = '<geom type="%s" size="%s" contype="1" conaffinity="2"%s/>' % (t1, SIZE[t1](rng), _margin_attr(rng))
            g2 = '<geom type="%s" size="%s" contype="2" conaffinity="1"%s/>' % (t2, SIZE[t2](rng), _margin_attr(rng))
            bodies.append("<body><freejoint/>%s</body><body><freejoint/>%s</body>" % (g1, g2))
            c = np.array([5.0 * (i % 10), 5.0 * (i // 10), 0.0])
            dirn = rng.normal(size=3)
            dirn /= np.linalg.norm(dirn)
            q1 = _rand_quat(rng)
            q2 = _rand_quat(rng)
            if rng.uniform() < 0.2:  # aligned axes: parallel-edge / face-face branches
                q2 = q1.copy()
                dirn = np.eye(3)[rng.integers(3)] * rng.choice([-1, 1])
            qpos += list(c) + list(q1) + list(c + dirn * rng.uniform(0.05, 0.7)) + list(q2)
    xml = '<mujoco><option gravity="0 0 0"/><worldbody>%s%s</worldbody></mujoco>' % (head, "".join(bodies))
    return mujoco.MjModel.from_xml_string(xml), np.array(qpos)


@pytest.mark.oracle
@pytest.mark.parametrize("t1,t2", PAIRS, ids=["%s-%s" % p for p in PAIRS])
def test_pair_random(t1, t2, full_run):
    rng = np.random.default_rng(zlib.crc32(("%s-%s" % (t1, t2)).encode()))  # str hash() varies per process
    nrep = 10 if full_run else 2
    total = 0
    for _ in range(nrep):
        m, qpos = pair_scene(t1, t2, 60, rng)
        d, sd = run_both(m, qpos)
        compare_contacts(m, d, sd)
        total += d.ncon
    assert total > 20  # the scenes do produce contacts


# ------------------------------------------------------------------ driver / parameter scenes

PARAM_XML = """
<mujoco>
  <option {opt}>{flag}</option>
  <default><geom condim="3"/></default>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 .1" friction=".7 .01 .002" solref=".03 1.1" priority="{pfloor}"/>
    <body name="a" pos="0 0 .2"><freejoint/>
      <geom name="a1" type="box" size=".2 .2 .2" solmix="{mix1}" friction="1.2 .02 .001" condim="4" margin=".02"
            solimp=".8 .9 .002 .4 3" adhesion="{adh}"/>
      <geom name="a2" type="sphere" size=".1" pos=".25 0 .1" contype="{ct}" conaffinity="{ca}" gap=".01" margin=".03"/>
      <body name="a_child" pos="0 0 .45"><joint type="hinge" axis="1 0 0"/>
        <geom name="ac" type="capsule" size=".08 .15" condim="6" solref="-1000 -10"/>
      </body>
    </body>
    <body name="b" pos=".35 .05 .25"><freejoint/>
      <geom name="b1" type="sphere" size=".15" solmix="{mix2}" solref="-800 -8" priority="{pb}" condim="1"/>
      <geom name="b2" type="sphere" size=".1" pos="0 .2 0"/>
    </body>
    <body name="c" pos="-.3 0 .2"><freejoint/>
      <geom name="c1" type="capsule" size=".1 .2" quat=".7071 0 .7071 0"/>
    </body>
  </worldbody>
  <contact>
    {pairs}
  </contact>
</mujoco>
"""

PARAM_CASES = {
    "default": {},
    "priority": dict(pb="2", pfloor="1"),
    "solmix": dict(mix1="3", mix2="0.5"),
    "solmix_zero": dict(mix1="0", mix2="2"),
    "contype": dict(ct="0", ca="0"),
    "affinity_only": dict(ct="0", ca="1"),
    "exclude": dict(pairs='<exclude body1="a" body2="b"/>'),
    "pair": dict(
        pairs='<pair geom1="a1" geom2="b1" condim="6" friction="2 2 .1 .01 .02" solref=".05 .5" '
        'solreffriction=".04 .3" margin=".05" gap=".02"/><pair geom1="floor" geom2="c1"/>'
    ),
    "pair_and_exclude": dict(pairs='<pair geom1="a1" geom2="b1"/><exclude body1="a" body2="b"/>'),
    "filterparent_off": dict(flag='<flag filterparent="disable"/>'),
    "override": dict(
        opt='o_margin="0.05" o_solref=".01 .9" o_solimp=".7 .8 .01 .3 2" o_friction=".3 .3 .01 .001 .001"',
        flag='<flag override="enable"/>',
    ),
    "midphase_off": dict(flag='<flag midphase="disable"/>'),
    "contact_off": dict(flag='<flag contact="disable"/>'),
    "constraint_off": dict(flag='<flag constraint="disable"/>'),
    "adhesion": dict(adh="0.5"),
}


def param_model(**kw):
    f = dict(opt="", flag="", pfloor="0", pb="0", mix1="1", mix2="1", ct="1", ca="1", pairs="", adh="0")
    f.update(kw)
    return mujoco.MjModel.from_xml_string(PARAM_XML.format(**f))


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(PARAM_CASES))
def test_driver_params(case):
    m = param_model(**PARAM_CASES[case])
    rng = np.random.default_rng(7)
    for k in range(30):
        d0 = mujoco.MjData(m)
        qpos = d0.qpos.copy()
        qpos += np.concatenate(
            [
                rng.normal(0, 0.08, 3),
                rng.normal(0, 0.3, 4),
                [rng.normal(0, 1)],
                rng.normal(0, 0.08, 3),
                rng.normal(0, 0.3, 4),
                rng.normal(0, 0.08, 3),
                rng.normal(0, 0.3, 4),
            ]
        )
        d, sd = run_both(m, qpos)
        compare_contacts(m, d, sd)


# ------------------------------------------------------------------ Gymnasium assets

GYM = ["hopper.xml", "walker2d_v5.xml", "half_cheetah.xml", "ant.xml", "humanoid.xml"]


@pytest.mark.oracle
@pytest.mark.parametrize("name", GYM)
def test_gymnasium(name, full_run):
    base = gymnasium_assets_dir()
    if base is None or not os.path.exists(os.path.join(base, name)):
        pytest.skip("gymnasium asset %s not available" % name)
    m = mujoco.MjModel.from_xml_path(os.path.join(base, name))
    rng = np.random.default_rng(3)
    d0 = mujoco.MjData(m)
    total = 0
    for k in range(100 if full_run else 25):
        qpos = m.qpos0.copy() + rng.normal(0, 0.3, m.nq)
        if m.jnt_type[0] == mujoco.mjtJoint.mjJNT_FREE:
            qpos[2] = m.qpos0[2] * rng.uniform(0.1, 1.0)  # push the root toward the floor
        d0.qpos[:] = qpos
        d, sd = run_both(m, qpos)
        compare_contacts(m, d, sd)
        total += d.ncon
    assert total > 0


# ------------------------------------------------------------------ overflow


@pytest.mark.oracle
def test_overflow():
    base = gymnasium_assets_dir()
    m = mujoco.MjModel.from_xml_path(os.path.join(base, "humanoid.xml"))
    rng = np.random.default_rng(11)
    for k in range(20):
        qpos = m.qpos0.copy() + rng.normal(0, 0.3, m.nq)
        qpos[2] = 0.1
        d = mujoco.MjData(m)
        d.qpos[:] = qpos
        mujoco.mj_forward(m, d)
        if d.ncon >= 3:
            break
    cap = d.ncon - 1
    sd = SimData(m, nconmax=cap)
    sd.qpos[:] = qpos
    with pytest.warns(RuntimeWarning, match="contact buffer full"):
        sim_forward(m, sd)
    assert sd.ncon == cap
    compare_contacts(m, d, sd, limit=cap)
    wn = sd._arrays["warning_number"][0, WARN_CONTACTFULL]
    assert wn == 1
    assert sd._arrays["warning_lastinfo"][0, WARN_CONTACTFULL] <= cap
