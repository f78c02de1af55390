"""Contacts of real models with convex colliders (meshes, boxes, cylinders; geom margins) against mujoco 3.17.

States come from a random-control MuJoCo rollout; at each sampled state numjoco's forward runs on the same
qpos / qvel / mocap / act and its contact buffer is compared with mujoco's: count, geom pairs in order, dist,
pos and frame within TOL.  Default: FetchPush (mesh-mesh / mesh-box contacts with margin 0.001) and the Shadow
Hand block scene; --full adds the other Fetch and Shadow Hand scenes, the Adroit hands and dm_control's quadruped
and dog.  Adroit and dog run with noslip_iterations = 0 (numjoco has no noslip solver; collision is unaffected).
test_fetch_slide_trajectory follows FetchSlide's puck in motion (table, finger, floor) step by step from the
oracle's states.
"""

import os

import mujoco
import numpy as np
import pytest

from sim.api import Data as SimData, forward as sim_forward, step as sim_step

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


STEP_TOL = 1e-12  # measured 6.8e-14 (qvel after one step from the oracle's state)


@pytest.mark.oracle
def test_fetch_slide_trajectory():
    """FetchSlide's puck in motion, one step at a time from the oracle's state: gymnasium_robotics' FetchSlide-v4
    (seed 1, 50 random actions: the finger hits the puck, which slides on the table, tips over its edge and lands
    on the floor) runs its own 1000 mj_step calls; before each, numjoco's step starts from the same qpos / qvel /
    mocap / warm start.  Contacts (cylinder-box table and finger, cylinder-plane floor, cylinder-mesh) equal the
    oracle's, qpos / qvel after the step within STEP_TOL.  Trajectory parity is out of reach for this scene
    (tests/test_robotics.py test_parity_known_difference): MuJoCo's own 50-step trajectory moves by 0.3 when the
    velocities after reset move by 1e-16; this is the comparison that stays meaningful."""
    from robotics_oracle import make_oracle

    env = make_oracle("numjoco/FetchSlide-v0")
    m, d = env.model, env.data
    sd = SimData(m)
    pairs, err = set(), {"dist": 0.0, "pos": 0.0, "frame": 0.0, "qpos": 0.0, "qvel": 0.0}

    def substeps(action):  # replaces the env's mj_step(m, d, nstep=n_substeps)
        for _ in range(env.n_substeps):
            for f in ("qpos", "qvel", "ctrl", "mocap_pos", "mocap_quat", "qacc_warmstart"):
                getattr(sd, f)[...] = getattr(d, f)
            mujoco.mj_step(m, d)
            sim_step(m, sd)
            n = d.ncon
            assert sd.ncon == n
            np.testing.assert_array_equal(np.asarray(sd.contact.geom)[:n], d.contact.geom)
            pairs.update(map(tuple, d.contact.geom.tolist()))
            for f in ("dist", "pos", "frame"):
                if n:
                    err[f] = max(err[f], np.abs(np.asarray(getattr(sd.contact, f))[:n] - getattr(d.contact, f)).max())
            for f in ("qpos", "qvel"):
                err[f] = max(err[f], np.abs(np.asarray(getattr(sd, f)) - getattr(d, f)).max())

    env._mujoco_step = substeps
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(50):
        env.step(rng.uniform(-1, 1, env.action_space.shape).astype(np.float32))
    gid = {n: mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, n) for n in ("object0", "table0", "floor0")}
    gid["finger"] = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "robot0:r_gripper_finger_link")
    puck = {g2 if g1 == gid["object0"] else g1 for g1, g2 in pairs if gid["object0"] in (g1, g2)}
    assert {gid["table0"], gid["floor0"], gid["finger"]} <= puck, puck  # the puck met the table, floor, finger
    assert max(err[f] for f in ("dist", "pos", "frame")) <= TOL, err
    assert err["qpos"] <= STEP_TOL and err["qvel"] <= STEP_TOL, err
