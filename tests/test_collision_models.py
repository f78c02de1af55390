"""Contacts of real models with convex colliders (meshes, boxes, cylinders; geom margins) against mujoco 3.17.

States come from a random-control MuJoCo rollout; at each sampled state numjoco's forward runs on the same
qpos / qvel / mocap / act and its contact buffer is compared with mujoco's: count, geom pairs in order, dist,
pos and frame within TOL.  Default: FetchPush (mesh-mesh / mesh-box contacts with margin 0.001) and the Shadow
Hand block scene; --full adds the other Fetch and Shadow Hand scenes, the Adroit hands and dm_control's quadruped
and dog.  Adroit and dog run with noslip_iterations = 0 (numjoco has no noslip solver; collision is unaffected).
"""

import os

import mujoco
import numpy as np
import pytest

from sim.api import Data as SimData, forward as sim_forward

TOL = 1e-9  # measured max 1.6e-14 (Shadow Hand pen) over the --full set


def _gr(path):
    gr = pytest.importorskip("gymnasium_robotics")
    return mujoco.MjModel.from_xml_path(os.path.join(os.path.dirname(gr.__file__), "envs", "assets", path))


def _dmc(name):
    pytest.importorskip("dm_control")
    from dm_control.suite import common, quadruped

    if name == "quadruped":
        return mujoco.MjModel.from_xml_string(
            quadruped.make_model(floor_size=15, terrain=False, rangefinders=False, walls_and_ball=True), common.ASSETS
        )
    import importlib

    xml, assets = importlib.import_module("dm_control.suite." + name).get_model_and_assets()
    return mujoco.MjModel.from_xml_string(xml, assets)


MODELS = {
    "fetch_push": lambda: _gr("fetch/push.xml"),
    "hand_block": lambda: _gr("hand/manipulate_block.xml"),
    "fetch_reach": lambda: _gr("fetch/reach.xml"),
    "fetch_slide": lambda: _gr("fetch/slide.xml"),
    "fetch_pick_and_place": lambda: _gr("fetch/pick_and_place.xml"),
    "hand_reach": lambda: _gr("hand/reach.xml"),
    "hand_egg": lambda: _gr("hand/manipulate_egg.xml"),
    "hand_pen": lambda: _gr("hand/manipulate_pen.xml"),
    "adroit_door": lambda: _gr("adroit_hand/adroit_door.xml"),
    "adroit_hammer": lambda: _gr("adroit_hand/adroit_hammer.xml"),
    "adroit_relocate": lambda: _gr("adroit_hand/adroit_relocate.xml"),
    "quadruped": lambda: _dmc("quadruped"),
    "dog": lambda: _dmc("dog"),
}
DEFAULT = ("fetch_push", "hand_block")


@pytest.mark.oracle
@pytest.mark.parametrize("name", list(MODELS))
def test_model_contacts(name, full_run):
    if name not in DEFAULT and not full_run:
        pytest.skip("--full")
    m = MODELS[name]()
    m.opt.noslip_iterations = 0
    d = mujoco.MjData(m)
    if m.nkey:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    sd = SimData(m)
    rng = np.random.default_rng(0)
    lo, hi = m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]
    total = 0
    for k in range(20 * 25):
        d.ctrl[:] = rng.uniform(lo, hi)
        mujoco.mj_step(m, d)
        if (k + 1) % 25:
            continue
        mujoco.mj_forward(m, d)
        sd.qpos[:] = d.qpos
        sd.qvel[:] = d.qvel
        if m.nmocap:
            sd.mocap_pos[:] = d.mocap_pos
            sd.mocap_quat[:] = d.mocap_quat
        if m.na:
            sd.act[:] = d.act
        sim_forward(m, sd)
        n = d.ncon
        assert sd.ncon == n, (k, sd.ncon, n)
        total += n
        if n == 0:
            continue
        np.testing.assert_array_equal(np.asarray(sd.contact.geom)[:n], d.contact.geom)
        for f in ("dist", "pos", "frame"):
            np.testing.assert_allclose(
                np.asarray(getattr(sd.contact, f))[:n], getattr(d.contact, f), rtol=0, atol=TOL, err_msg=f
            )
    assert total > 0
