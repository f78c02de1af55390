"""Benchmark of sensors and transition Jacobians vs MuJoCo C.

Run: python benchmarks/bench_sensors.py [--quick]
Prints markdown tables:
* µs per step of models with many sensors (tests/models/sensors_contact.xml: 72 sensors incl. three camera
  rangefinders (80 rays), contact, touch, force/torque, distance sensors; sensors_many.xml: 42 kinematic
  sensors) and of the same models with sensors disabled, ours vs mujoco.mj_step alternating in one process;
* sim.transition_fd vs mujoco.mjd_transitionFD (forward differences, eps 1e-6) for hopper and humanoid
  (integrator switched to Euler: mjd_transitionFD refuses RK4), one world, and 64 worlds in one batched call
  (2 threads, after 0.3 s of warm-up calls, alternating rounds) vs a loop of 64 mjd_transitionFD calls; with the
  largest |ours - MuJoCo| relative to max(1, |value|) of A, B, C, D.
"""

import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import sim.jit.cache  # noqa: E402,F401
import mujoco  # noqa: E402
import numba  # noqa: E402
import sim  # noqa: E402
from sim import api  # noqa: E402
from sim.api import transition_fd  # noqa: E402
from timing import alternate_steps  # noqa: E402

import gymnasium  # noqa: E402

ASSETS = os.path.join(os.path.dirname(gymnasium.__file__), "envs/mujoco/assets")
MODELS = os.path.join(ROOT, "tests", "models")


def sensor_steps(path, nstep, repeats, disable):
    """(ours µs/step per repeat, MuJoCo µs/step per repeat) from the model's initial state."""
    m = mujoco.MjModel.from_xml_path(path)
    m.opt.disableflags |= disable
    md = mujoco.MjData(m)
    d = api.Data(m)
    api.step(m, d)
    return alternate_steps(m, md, d, nstep, repeats)


def fd_state(m, seed, steps=60):
    md = mujoco.MjData(m)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        md.ctrl[:] = rng.uniform(-0.5, 0.5, m.nu)
        mujoco.mj_step(m, md)
    return md


def mj_fd(m, md, eps=1e-6):
    nx = 2 * m.nv + m.na
    out = (np.zeros((nx, nx)), np.zeros((nx, m.nu)), np.zeros((m.nsensordata, nx)), np.zeros((m.nsensordata, m.nu)))
    mujoco.mjd_transitionFD(m, md, eps, False, *out)
    return out


def copy_state(md, d, w=None):
    for f in ("qpos", "qvel", "act", "ctrl", "qacc_warmstart"):
        if w is None:
            setattr(d, f, getattr(md, f))
        else:
            getattr(d, f)[w] = getattr(md, f)


def rel_err(a, b):
    return float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b)))) if b.size else 0.0


def transition(name, nworld, repeats):
    """(ours s, MuJoCo s, max error) for one world and for nworld worlds."""
    m = mujoco.MjModel.from_xml_path(os.path.join(ASSETS, name + ".xml"))
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_EULER
    mds = [fd_state(m, s) for s in range(nworld)]
    # one world
    d = sim.Data(m)
    copy_state(mds[0], d)
    ours1 = transition_fd(m, d)
    ref1 = mj_fd(m, mds[0])
    err = max(rel_err(a, b) for a, b in zip(ours1, ref1))
    t_o1 = min(_time(lambda: transition_fd(m, d)) for _ in range(repeats))
    t_r1 = min(_time(lambda: mj_fd(m, mds[0])) for _ in range(repeats))
    # batch
    b = sim.Data(m, nworld=nworld)
    for w in range(nworld):
        copy_state(mds[w], b, w)
    outs = transition_fd(m, b)
    for w in (0, nworld - 1):
        ref = mj_fd(m, mds[w])
        err = max(err, max(rel_err(a[w], r) for a, r in zip(outs, ref)))
    # the threads' first parallel calls after a serial phase run slow (measured: 1.4x for 64 hoppers): warm them
    # for 0.3 s, then alternate rounds of ours and MuJoCo's
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 0.3:
        transition_fd(m, b)
    t_ob = t_rb = np.inf
    for _ in range(repeats):
        t_ob = min(t_ob, _time(lambda: transition_fd(m, b)))
        t_rb = min(t_rb, _time(lambda: [mj_fd(m, md) for md in mds]))
    return t_o1, t_r1, t_ob, t_rb, err


def _time(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def main():
    quick = "--quick" in sys.argv
    nstep = 200 if quick else 1000
    repeats = 3 if quick else 5
    print("| model | sensors | ours µs/step (min/med) | MuJoCo C µs/step (min/med) | ratio med |")
    print("|---|---|---|---|---|")
    for fname in ("sensors_contact.xml", "sensors_many.xml"):
        path = os.path.join(MODELS, fname)
        ns = mujoco.MjModel.from_xml_path(path).nsensor
        for disable, label in ((0, "on (%d)" % ns), (int(mujoco.mjtDisableBit.mjDSBL_SENSOR), "off")):
            o, r = sensor_steps(path, nstep, repeats, disable)
            print(
                f"| {fname[:-4]} | {label} | {o.min():.1f}/{np.median(o):.1f} | {r.min():.1f}/{np.median(r):.1f} | "
                f"{np.median(o) / np.median(r):.2f} |"
            )
    print()
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    nworld = 16 if quick else 64
    print(
        f"| transition_fd (Euler, forward, eps 1e-6) | ours 1 world ms | mjd_transitionFD ms | ratio | ours "
        f"{nworld} worlds ms ({numba.get_num_threads()} threads) | {nworld} x mjd_transitionFD ms | speed-up | "
        "max rel. error |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name in ("hopper", "humanoid"):
        o1, r1, ob, rb, err = transition(name, nworld, repeats)
        print(
            f"| {name} | {o1 * 1e3:.2f} | {r1 * 1e3:.2f} | {o1 / r1:.2f} | {ob * 1e3:.1f} | {rb * 1e3:.1f} | "
            f"{rb / ob:.2f} | {err:.1e} |"
        )


if __name__ == "__main__":
    main()
