"""Step speed of models whose contacts go through the convex colliders (meshes, boxes, cylinders): numjoco's
sim.step vs mujoco.mj_step, one world, one call per step, in one process with alternating rounds.

Models: Gymnasium-Robotics FetchPickAndPlace and Shadow Hand block manipulation, the Adroit relocate hand and
dm_control's quadruped (walls and ball).  Both engines replay the same states: a random-control MuJoCo rollout
gives the start of each round, each engine then steps from it under the same random controls.  The models run as
their packages ship them (Adroit with its noslip iterations).
Run: python benchmarks/bench_convex.py [--quick]
Prints a markdown table of µs per step (min / median over rounds) and the ratio ours / MuJoCo.
"""

import os
import sys
import time

# batches on blocks from the first timed call: the block step compiles before the first step, not in the
# background (sim/api.py NUMJOCO_SIMD)
os.environ.setdefault("NUMJOCO_SIMD", "wait")

import mujoco
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import sim  # noqa: E402
from sim import api  # noqa: E402


def _gr(path):
    import gymnasium_robotics

    return os.path.join(os.path.dirname(gymnasium_robotics.__file__), "envs", "assets", path), None


def _quadruped():
    from dm_control.suite import common, quadruped

    return quadruped.make_model(floor_size=15, terrain=False, rangefinders=False, walls_and_ball=True), common.ASSETS


MODELS = {
    "FetchPickAndPlace": lambda: _gr("fetch/pick_and_place.xml"),
    "ShadowHand block": lambda: _gr("hand/manipulate_block.xml"),
    "Adroit relocate": lambda: _gr("adroit_hand/adroit_relocate.xml"),
    "dm_control quadruped": _quadruped,
}


def models(name):
    """(mujoco.MjModel, numjoco Model) of the same MJCF, as shipped (Adroit's noslip iterations included)."""
    src, assets = MODELS[name]()
    if isinstance(src, bytes):
        src = src.decode()
    if src.lstrip().startswith("<"):
        return mujoco.MjModel.from_xml_string(src, assets), sim.load_model(src, assets=assets)
    return mujoco.MjModel.from_xml_path(src), sim.load_model(src)


def run(name, nstep, rounds):
    """(ours µs/step per round, MuJoCo µs/step per round, mean contacts per step)."""
    m, sm = models(name)
    md = mujoco.MjData(m)
    if m.nkey:
        mujoco.mj_resetDataKeyframe(m, md, 0)
    rng = np.random.default_rng(0)
    lo, hi = m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]
    ctrl = rng.uniform(lo, hi, size=(nstep, m.nu))
    for k in range(200):  # into contact
        md.ctrl[:] = ctrl[k % nstep]
        mujoco.mj_step(m, md)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    s0 = np.zeros(mujoco.mj_stateSize(m, spec))
    mujoco.mj_getState(m, md, s0, spec)
    d = api.Data(sm)

    def load_ours():
        d.qpos[:] = md.qpos
        d.qvel[:] = md.qvel
        if m.na:
            d.act[:] = md.act
        if m.nmocap:
            d.mocap_pos[:] = md.mocap_pos
            d.mocap_quat[:] = md.mocap_quat

    mujoco.mj_setState(m, md, s0, spec)
    load_ours()
    api.step(sm, d)  # compile / load
    ours, ref, ncon = [], [], 0
    for _ in range(rounds):
        mujoco.mj_setState(m, md, s0, spec)
        load_ours()
        t = time.perf_counter()
        for k in range(nstep):
            d.ctrl[:] = ctrl[k]
            api.step(sm, d)
        ours.append((time.perf_counter() - t) / nstep * 1e6)
        mujoco.mj_setState(m, md, s0, spec)
        t = time.perf_counter()
        for k in range(nstep):
            md.ctrl[:] = ctrl[k]
            mujoco.mj_step(m, md)
            ncon += md.ncon
        ref.append((time.perf_counter() - t) / nstep * 1e6)
    return np.array(ours), np.array(ref), ncon / (rounds * nstep)


def main():
    quick = "--quick" in sys.argv
    nstep, rounds = (200, 3) if quick else (1000, 7)
    print("| model | contacts/step | ours µs/step (min / med) | MuJoCo µs/step (min / med) | ratio (med) |")
    print("|---|---|---|---|---|")
    for name in MODELS:
        ours, ref, ncon = run(name, nstep, rounds)
        print(
            "| %s | %.1f | %.1f / %.1f | %.1f / %.1f | %.2fx |"
            % (name, ncon, ours.min(), np.median(ours), ref.min(), np.median(ref), np.median(ours) / np.median(ref)),
            flush=True,
        )


if __name__ == "__main__":
    main()
