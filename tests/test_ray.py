"""mj_ray (sim/ray.py) against mujoco.mj_ray: random rays through scenes of every supported geom type."""
import mujoco
import numpy as np
import pytest

from sim.smooth_api import Data as SimData, forward as sim_forward
from sim.raycast import ray
from sim.types import UnsupportedFeature

MESH = """<mesh name="tet" vertex="0 0 0  .3 0 0  0 .3 0  0 0 .3"/>
          <mesh name="oct" vertex=".2 0 0  -.2 0 0  0 .25 0  0 -.25 0  0 0 .15  0 0 -.15"/>"""

SCENE = """
<mujoco>
  <asset>{mesh}<material name="hidden" rgba="1 1 1 0"/></asset>
  <worldbody>
    <geom type="plane" size="3 3 .1" group="0"/>
    <geom type="plane" size="0 0 1" pos="0 0 -1" group="5"/>
    <geom type="box" size=".3 .3 .3" pos="1.5 1.5 .3" group="1"/>
    <body name="b1" pos="0 0 1"><freejoint/>
      <geom type="sphere" size=".2" group="1"/>
      <geom type="capsule" size=".1 .3" pos=".4 0 0" group="2"/>
      <geom type="ellipsoid" size=".1 .2 .3" pos="-.4 0 0" group="3"/>
    </body>
    <body name="b2" pos=".5 .8 .8"><freejoint/>
      <geom type="cylinder" size=".15 .25" group="4"/>
      <geom type="box" size=".1 .2 .15" pos="0 .5 0" group="2"/>
      <geom type="sphere" size=".15" pos="0 -.5 0" material="hidden"/>
      <geom type="sphere" size=".15" pos=".5 -.5 0" rgba="1 0 0 0"/>
    </body>
    <body name="b3" pos="-.8 -.5 .6"><freejoint/>
      {meshgeoms}
    </body>
  </worldbody>
</mujoco>
"""


def make_model(with_mesh=True):
    xml = SCENE.format(mesh=MESH if with_mesh else '',
                       meshgeoms=('<geom type="mesh" mesh="tet"/><geom type="mesh" mesh="oct" pos="0 .5 0"/>'
                                  if with_mesh else '<geom type="box" size=".1 .1 .1"/>'))
    return mujoco.MjModel.from_xml_string(xml)


def _states(m, rng, n):
    for _ in range(n):
        q = m.qpos0.copy()
        for j in range(m.njnt):
            a = m.jnt_qposadr[j]
            q[a:a + 3] += rng.normal(0, 0.3, 3)
            qq = rng.normal(size=4)
            q[a + 3:a + 7] = qq / np.linalg.norm(qq)
        yield q


def _check(m, rng, nstate, nray, **kw):
    d = mujoco.MjData(m)
    sd = SimData(m)
    nhit = 0
    maxerr = 0.0
    for q in _states(m, rng, nstate):
        d.qpos[:] = q
        mujoco.mj_forward(m, d)
        sd.qpos[:] = q
        sim_forward(m, sd)
        for _ in range(nray):
            pnt = rng.uniform(-2, 2, 3) + np.array([0, 0, 1.0])
            target = rng.uniform(-1, 1, 3) * np.array([1.5, 1.5, 0.8]) + np.array([0, 0, 0.6])
            vec = (target - pnt) * rng.uniform(0.3, 3)
            gid = np.array([-1], np.int32)
            grp = kw.get('geomgroup')
            dist = mujoco.mj_ray(m, d, pnt, vec, None if grp is None else np.asarray(grp, np.uint8),
                                 int(kw.get('flg_static', True)), kw.get('bodyexclude', -1), gid)
            sdist, sgid = ray(m, sd, pnt, vec, **kw)
            assert sgid == gid[0], (sgid, gid[0], sdist, dist)
            assert abs(sdist - dist) <= 1e-9, (sdist, dist)
            maxerr = max(maxerr, abs(sdist - dist))
            nhit += gid[0] >= 0
    return nhit, maxerr


@pytest.mark.oracle
def test_ray_all_types():
    m = make_model(True)
    nhit, err = _check(m, np.random.default_rng(0), 10, 100)
    assert nhit > 200


@pytest.mark.oracle
@pytest.mark.parametrize('kw', [dict(geomgroup=[1, 0, 1, 0, 1, 0]), dict(geomgroup=[0, 1, 1, 1, 1, 1]),
                                dict(flg_static=False), dict(bodyexclude=1), dict(bodyexclude=0)],
                         ids=['group_a', 'group_b', 'nostatic', 'exclude1', 'exclude_world'])
def test_ray_filters(kw):
    m = make_model(True)
    nhit, _ = _check(m, np.random.default_rng(1), 4, 60, **kw)
    assert nhit > 20


def test_ray_hfield_unsupported():
    xml = """<mujoco><asset><hfield name="h" nrow="3" ncol="3" size="1 1 .1 .1"/></asset>
             <worldbody><geom type="hfield" hfield="h"/></worldbody></mujoco>"""
    m = mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(UnsupportedFeature):
        ray(m, SimData(m), np.zeros(3), np.array([0, 0, -1.0]))
