"""Batch states for the SIMD benchmarks: nworld worlds of a model after `warm` steps of uniformly random controls
(each world its own), stepped by MuJoCo (mujoco.rollout, one thread), copied into a numjoco batch Data.

    m, d, mm = contact_batch('hopper', nworld=256, warm=300)
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # PYTHONPATH's tree wins

import mujoco  # noqa: E402
from mujoco import rollout  # noqa: E402

import sim  # noqa: E402
from models import model_path  # noqa: E402


def contact_batch(name, nworld=256, warm=300, seed=0, noise=0.005):
    """(sim Model, batch Data with the worlds' qpos / qvel / act / qacc_warmstart, mujoco.MjModel)."""
    path = model_path(name)
    mm = mujoco.MjModel.from_xml_path(path)
    md = mujoco.MjData(mm)
    rng = np.random.default_rng(seed)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state0 = np.zeros((nworld, mujoco.mj_stateSize(mm, spec)))
    for i in range(nworld):
        mujoco.mj_resetData(mm, md)
        if mm.nkey:
            mujoco.mj_resetDataKeyframe(mm, md, 0)
        md.qpos[:] += rng.uniform(-noise, noise, mm.nq)
        md.qvel[:] += rng.uniform(-noise, noise, mm.nv)
        mujoco.mj_getState(mm, md, state0[i], spec)
    lo = np.where(mm.actuator_ctrllimited, mm.actuator_ctrlrange[:, 0], -1.0)
    hi = np.where(mm.actuator_ctrllimited, mm.actuator_ctrlrange[:, 1], 1.0)
    ctrl = rng.uniform(lo, hi, (nworld, warm, mm.nu))
    state, _ = rollout.rollout(mm, md, state0, ctrl)
    m = sim.load_model(path)
    d = sim.Data(m, nworld=nworld)
    for i in range(nworld):
        mujoco.mj_setState(mm, md, state[i, -1], spec)
        d.qpos[i] = md.qpos
        d.qvel[i] = md.qvel
        d.act[i] = md.act
        d.ctrl[i] = ctrl[i, -1]
        d.qacc_warmstart[i] = md.qacc_warmstart
    return m, d, mm
