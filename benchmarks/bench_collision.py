"""Collision benchmark: microseconds per collision call, numjoco vs mujoco.mj_collision.

Scenes: Gymnasium humanoid at a crouched random state, a 50-body pile of random primitives, and
broadphase scaling from 10 to 1000 free spheres.  Run: python benchmarks/bench_collision.py
"""

import os
import sys
import time

import mujoco
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from sim.api import Data as SimData, forward as sim_forward, model_struct  # noqa: E402
from sim.jit import njit  # noqa: E402  (keyed on the package sources: numba's own cache would keep a stale build)
from sim.engine.collision.driver import collision  # noqa: E402
from sim.jit.features import FULL  # noqa: E402
from sim.engine.collision.broadphase import broadphase  # noqa: E402


@njit(cache=True)
def _loop(m, d, n):
    for _ in range(n):
        collision(m, d, 0, FULL)


@njit(cache=True)
def _loop_bp(m, d, n):
    s = 0
    for _ in range(n):
        s += broadphase(m, d, 0)
    return s


def _time(f, n):
    f(1)
    best = np.inf
    for _ in range(3):
        t = time.perf_counter()
        f(n)
        best = min(best, (time.perf_counter() - t) / n)
    return best * 1e6


def bench(name, m, qpos, n=200):
    d = mujoco.MjData(m)
    d.qpos[:] = qpos
    mujoco.mj_forward(m, d)
    sd = SimData(m)
    sd.qpos[:] = qpos
    sim_forward(m, sd)
    ms = model_struct(m)

    def ours(k):
        _loop(ms, sd._struct, k)

    def theirs(k):
        for _ in range(k):
            mujoco.mj_collision(m, d)

    def bp(k):
        _loop_bp(ms, sd._struct, k)

    t_ours, t_mj, t_bp = _time(ours, n), _time(theirs, n), _time(bp, n)
    print(
        "%-28s ngeom %5d  ncon %4d/%4d   ours %9.1f us   mujoco %9.1f us   (our broadphase %8.1f us)"
        % (name, m.ngeom, sd.ncon, d.ncon, t_ours, t_mj, t_bp)
    )


def pile(nbody, rng, types=("sphere", "capsule", "box", "cylinder")):
    body = []
    side = int(np.ceil(nbody ** (1 / 3)))
    for i in range(nbody):
        t = types[i % len(types)]
        size = {"sphere": ".1", "capsule": ".07 .1", "box": ".08 .08 .08", "cylinder": ".08 .08"}[t]
        p = np.array([i % side, (i // side) % side, i // side**2]) * 0.22 + rng.normal(0, 0.02, 3)
        body.append(
            '<body pos="%f %f %f"><freejoint/><geom type="%s" size="%s"/></body>' % (p[0], p[1], p[2] + 0.1, t, size)
        )
    xml = '<mujoco><worldbody><geom type="plane" size="0 0 1"/>%s</worldbody></mujoco>' % "".join(body)
    return mujoco.MjModel.from_xml_string(xml)


def main():
    rng = np.random.default_rng(0)
    try:
        import gymnasium

        path = os.path.join(os.path.dirname(gymnasium.__file__), "envs/mujoco/assets/humanoid.xml")
        m = mujoco.MjModel.from_xml_path(path)
        q = m.qpos0.copy() + rng.normal(0, 0.3, m.nq)
        q[2] = 0.3
        bench("humanoid", m, q)
    except ImportError:
        print("gymnasium not installed: humanoid skipped")
    m = pile(50, rng)
    bench("pile of 50 primitives", m, m.qpos0)
    for n in (10, 30, 100, 300, 1000):
        m = pile(n, rng, types=("sphere",))
        bench("spheres %d" % n, m, m.qpos0, n=max(5, 20000 // n))


if __name__ == "__main__":
    main()
