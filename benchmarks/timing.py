"""Timing shared by the benchmarks: our steps and MuJoCo's alternating in one process.

Import after the repository root is on sys.path (the benchmark scripts insert it), so that `sim` is this tree's.
"""

import time

import mujoco
import numpy as np

from sim import api


def alternate_steps(m, md, d, nstep, repeats):
    """(ours µs/step per repeat, MuJoCo µs/step per repeat): api.step(m, d, nstep) and nstep mujoco.mj_step calls
    in turn, each repeat from a reset of both."""
    ours, ref = [], []
    for _ in range(repeats):
        mujoco.mj_resetData(m, md)
        api.reset(m, d)
        t = time.perf_counter()
        api.step(m, d, nstep=nstep)
        ours.append((time.perf_counter() - t) / nstep * 1e6)
        t = time.perf_counter()
        for _ in range(nstep):
            mujoco.mj_step(m, md)
        ref.append((time.perf_counter() - t) / nstep * 1e6)
    return np.array(ours), np.array(ref)


def rollout_inputs(m, nworld, nstep, nthread):
    """(MjData per thread, initial states (nworld, full physics state), zero controls (nworld, nstep, nu)) for
    mujoco.rollout of nworld copies of m's initial state."""
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    datas = [mujoco.MjData(m) for _ in range(nthread)]
    state0 = np.zeros((nworld, mujoco.mj_stateSize(m, spec)))
    for i in range(nworld):
        mujoco.mj_getState(m, datas[0], state0[i], spec)
    return datas, state0, np.zeros((nworld, nstep, m.nu))
