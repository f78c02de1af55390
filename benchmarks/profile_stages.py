"""Per-stage cost of one forward pass, ours vs MuJoCo C, on one model (contacts on), same state.

Each of our stages runs N times inside one jitted loop (no dispatch cost); each MuJoCo stage runs N times from
Python (mujoco.mj_<stage>, ~0.3 us call overhead included, measured and subtracted with mj_ no-op calls).
Usage: python benchmarks/profile_stages.py [model.xml|gym name] [N]
"""
import os
import sys
import time

import numpy as np
from numba import njit

import mujoco
import sim
from sim.smooth_api import empty_task, model_features, model_struct
from sim import pipeline as P
from sim.kinematics import kinematics
from sim.com import com_pos, com_vel
from sim.tendon import tendon, tendon_velocity
from sim.transmission import transmission, actuator_velocity
from sim.crb import crb, factor_m
from sim.rne import rne
from sim.passive import passive
from sim.actuation import actuation
from sim.collision.driver import collision
from sim.constraint import make_constraint, project_constraint, reference_constraint
from sim.solver import fwd_constraint
from sim.features import FULL


def lambda_F(fn):
    """A stage that takes the feature set, called with every feature on."""
    @njit
    def stage(m, d, w):
        fn(m, d, w, FULL)
    return stage


def _loop(fn):
    @njit
    def run(m, d, n):
        for _ in range(n):
            fn(m, d, 0)
    return run


STAGES = [
    ('kinematics', kinematics, 'mj_kinematics'),
    ('com_pos', com_pos, 'mj_comPos'),
    ('tendon', tendon, 'mj_tendon'),
    ('crb', crb, 'mj_crb'),
    ('factor_m', factor_m, 'mj_factorM'),
    ('collision', lambda_F(collision), 'mj_collision'),
    ('make_constraint', make_constraint, 'mj_makeConstraint'),
    ('transmission', transmission, 'mj_transmission'),
    ('project_constraint', project_constraint, 'mj_projectConstraint'),
    ('com_vel', com_vel, 'mj_comVel'),
    ('passive', passive, 'mj_passive'),
    ('reference_constraint', reference_constraint, 'mj_referenceConstraint'),
    ('rne', rne, None),
    ('actuation', actuation, 'mj_fwdActuation'),
    ('fwd_constraint', lambda_F(fwd_constraint), 'mj_fwdConstraint'),
    ('forward (run_serial 0)', None, 'mj_forward'),
    ('step (run_serial 1)', None, 'mj_step'),
]


def main():
    arg = sys.argv[1] if len(sys.argv) > 1 else 'hopper'
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    if not arg.endswith('.xml'):
        import gymnasium
        arg = os.path.join(os.path.dirname(gymnasium.__file__), 'envs/mujoco/assets', arg + '.xml')
    mm = mujoco.MjModel.from_xml_path(arg)
    md = mujoco.MjData(mm)
    m = sim.load_model(arg)
    d = sim.Data(m)
    rng = np.random.default_rng(0)
    if mm.nkey:
        mujoco.mj_resetDataKeyframe(mm, md, 0)
    md.qvel[:] = rng.normal(size=mm.nv) * 0.1
    md.ctrl[:] = rng.uniform(-1, 1, mm.nu)
    for _ in range(50):
        mujoco.mj_step(mm, md)
    d.qpos[:] = md.qpos
    d.qvel[:] = md.qvel
    d.ctrl[:] = md.ctrl
    d.act[:] = md.act
    ms = model_struct(m)
    sim.forward(m, d)
    mujoco.mj_forward(mm, md)
    print('%s: ncon ours %d mujoco %d, nefc ours %d mujoco %d' % (os.path.basename(arg), d.ncon, md.ncon,
                                                                   d._arrays['nefc'][0], md.nefc))
    t = time.perf_counter()
    for _ in range(n):
        mujoco.mj_resetCallbacks()
    call = (time.perf_counter() - t) / n * 1e6
    print('%-22s %10s %10s %7s' % ('stage', 'ours us', 'C us', 'ratio'))
    for name, fn, cname in STAGES:
        if fn is None:
            # the API entry point itself, called n times from Python (dispatch cost included)
            ns = 0 if 'forward' in name else 1
            task = empty_task()
            F = model_features(m)
            P.run_serial(ms, d._struct, task, 0, ns, F)
            t = time.perf_counter()
            for _ in range(n):
                P.run_serial(ms, d._struct, task, 0, ns, F)
        else:
            run = _loop(fn)
            run(ms, d._struct, 1)
            t = time.perf_counter()
            run(ms, d._struct, n)
        ours = (time.perf_counter() - t) / n * 1e6
        c = float('nan')
        if cname:
            f = getattr(mujoco, cname)
            t = time.perf_counter()
            for _ in range(n):
                f(mm, md)
            c = max((time.perf_counter() - t) / n * 1e6 - call, 1e-3)
        print('%-22s %10.2f %10.2f %7.2f' % (name, ours, c, ours / c))


if __name__ == '__main__':
    main()
