"""Per-stage cost of one forward pass and of one step, ours vs MuJoCo C, on one model from the same state.

MuJoCo's side is read from its own timers (d.timer) with mjcb_time set to a numba cfunc reading the CPU's cycle
counter, so no Python runs inside a timed region.  Our side runs the stages of sim.engine.forward.forward_skip in one
jitted loop with the same counter read between the stages, grouped as MuJoCo groups its timers:

    kinematics   kinematics, com_pos, tendon, transmission             (mjTIMER_POS_KINEMATICS)
    inertia      crb, tendon_armature, factor_m                        (mjTIMER_POS_INERTIA)
    collision    collision                                             (mjTIMER_POS_COLLISION)
    make         make_constraint (our island discovery is in constraint) (mjTIMER_POS_MAKE, which has mj_island)
    project      project_constraint, PGS's AR (project_dual)               (mjTIMER_POS_PROJECT)
    velocity     fwd_velocity without sensors                          (mjTIMER_VELOCITY)
    actuation    actuation                                             (mjTIMER_ACTUATION)
    constraint   fwd_constraint                                        (mjTIMER_CONSTRAINT)
    forward      the whole forward pass (incl. fwd_acceleration)       (mjTIMER_FORWARD)
    step         step_world / mj_step (RK4: four forward passes)       (mjTIMER_STEP)

The state is MuJoCo's after `warm` steps with random controls (contacts formed), copied into ours; every block
restarts from it, figures are the minimum over blocks of the per-call mean (a loaded machine inflates the mean of
a block, rarely its minimum).  Prints the machine load before and after.

    python benchmarks/profile_stages.py [model ...] [--n N] [--blocks B] [--warm W]
model: a Gymnasium name (hopper, ...), humanoids3 (benchmarks/models.py) or a path; default the five Gym models
and humanoids3.

    python benchmarks/profile_stages.py --compile [model ...] [--top K]
where the cold start goes instead (default hopper): a fresh process with an empty numba cache runs import, load,
Data and one step; prints CPU seconds per phase, LLVM's share, the part worker's CPU seconds (sim/jit.py parts,
compiled in a second process) and the K kernels of this process with the most exclusive compile
CPU time (typing + lowering of the kernel itself; an entry's figure holds the O3 and machine code of its whole
call tree, sim/jit.py).
"""

import os
import sys
import time

import numpy as np
from numba import cfunc, types
from numba.core import cgutils
from numba.extending import intrinsic

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import mujoco  # noqa: E402
import sim  # noqa: E402
from sim.jit import njit  # noqa: E402
from sim.api import model_features, model_struct  # noqa: E402
from sim.engine.kinematics import kinematics  # noqa: E402
from sim.engine.com import com_pos, com_vel  # noqa: E402
from sim.engine.tendon import tendon_if, tendon_velocity_if, tendon_bias_if  # noqa: E402
from sim.engine.transmission import transmission, actuator_velocity  # noqa: E402
from sim.engine.crb import crb, tendon_armature, factor_m  # noqa: E402
from sim.engine.rne import rne  # noqa: E402
from sim.engine.passive import passive  # noqa: E402
from sim.engine.actuation import actuation  # noqa: E402
from sim.engine.collision.driver import collision  # noqa: E402
from sim.engine.constraint import make_constraint, project_constraint, reference_constraint  # noqa: E402
from sim.engine.solver import fwd_constraint, project_dual_if  # noqa: E402
from sim.engine.forward import fwd_acceleration, step_world  # noqa: E402
from models import model_path  # noqa: E402

GROUPS = (
    "kinematics",
    "inertia",
    "collision",
    "make",
    "project",
    "velocity",
    "actuation",
    "constraint",
    "forward",
    "step",
)
TIMERS = (
    mujoco.mjtTimer.mjTIMER_POS_KINEMATICS,
    mujoco.mjtTimer.mjTIMER_POS_INERTIA,
    mujoco.mjtTimer.mjTIMER_POS_COLLISION,
    mujoco.mjtTimer.mjTIMER_POS_MAKE,
    mujoco.mjtTimer.mjTIMER_POS_PROJECT,
    mujoco.mjtTimer.mjTIMER_VELOCITY,
    mujoco.mjtTimer.mjTIMER_ACTUATION,
    mujoco.mjtTimer.mjTIMER_CONSTRAINT,
    mujoco.mjtTimer.mjTIMER_FORWARD,
    mujoco.mjtTimer.mjTIMER_STEP,
)


@intrinsic
def _rdtsc(typingctx):
    """The CPU's cycle counter (llvm.readcyclecounter) as int64."""
    import llvmlite.ir as ir

    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(64), []), "llvm.readcyclecounter"
        )
        return builder.call(fn, [])

    return types.int64(), codegen


@cfunc(types.float64())
def _tick():
    return float(_rdtsc())


@njit(cache=False)
def _ticks():
    return _rdtsc()


@njit(cache=False)
def timed(m, d, F, n, mode, acc):
    """mode 0: n forward passes of world 0 stage by stage, cycles added to acc[0:9]; mode 1: n steps, acc[9]."""
    if mode == 1:
        t0 = _rdtsc()
        for _ in range(n):
            step_world(m, d, 0, F)
        acc[9] += _rdtsc() - t0
        return
    for _ in range(n):
        t0 = _rdtsc()
        kinematics(m, d, 0)
        com_pos(m, d, 0)
        tendon_if(F, m, d, 0)
        t1 = _rdtsc()
        crb(m, d, 0)
        tendon_armature(m, d, 0)
        factor_m(m, d, 0)
        t2 = _rdtsc()
        collision(m, d, 0, F)
        t3 = _rdtsc()
        make_constraint(m, d, 0, F)
        t4 = _rdtsc()
        transmission(m, d, 0, F)
        t5 = _rdtsc()
        project_constraint(m, d, 0)
        project_dual_if(F, m, d, 0)
        t6 = _rdtsc()
        tendon_velocity_if(F, m, d, 0)
        actuator_velocity(m, d, 0)
        com_vel(m, d, 0)
        passive(m, d, 0, F)
        reference_constraint(m, d, 0, F)
        rne(m, d, 0)
        tendon_bias_if(F, m, d, 0)
        t7 = _rdtsc()
        actuation(m, d, 0)
        t8 = _rdtsc()
        fwd_acceleration(m, d, 0)
        t9 = _rdtsc()
        fwd_constraint(m, d, 0, F)
        t10 = _rdtsc()
        acc[0] += (t1 - t0) + (t5 - t4)
        acc[1] += t2 - t1
        acc[2] += t3 - t2
        acc[3] += t4 - t3
        acc[4] += t6 - t5
        acc[5] += t7 - t6
        acc[6] += t8 - t7
        acc[7] += t10 - t9
        acc[8] += t10 - t0


def cycles_per_us():
    t, c = time.perf_counter(), _ticks()
    time.sleep(0.2)
    return (_ticks() - c) / ((time.perf_counter() - t) * 1e6)


class Pair:
    """One model in MuJoCo and in numjoco, both restartable from one MuJoCo state."""

    def __init__(self, name, warm=500, seed=0):
        path = model_path(name)
        self.name = os.path.basename(path)
        self.mm = mujoco.MjModel.from_xml_path(path)
        self.md = mujoco.MjData(self.mm)
        self.m = sim.load_model(path)
        self.d = sim.Data(self.m)
        rng = np.random.default_rng(seed)
        if self.mm.nkey:
            mujoco.mj_resetDataKeyframe(self.mm, self.md, 0)
        self.md.ctrl[:] = rng.uniform(-0.5, 0.5, self.mm.nu)
        for _ in range(warm):
            mujoco.mj_step(self.mm, self.md)
        self.spec = mujoco.mjtState.mjSTATE_INTEGRATION
        self.state = np.zeros(mujoco.mj_stateSize(self.mm, self.spec))
        mujoco.mj_getState(self.mm, self.md, self.state, self.spec)

    def restart(self):
        mujoco.mj_setState(self.mm, self.md, self.state, self.spec)
        d, md = self.d, self.md
        d.qpos[:] = md.qpos
        d.qvel[:] = md.qvel
        d.act[:] = md.act
        d.ctrl[:] = md.ctrl
        d.qacc_warmstart[:] = md.qacc_warmstart
        d.qfrc_applied[:] = md.qfrc_applied


def profile(pair, n, blocks, cpu):
    ms, ds, F = model_struct(pair.m), pair.d._struct, model_features(pair.m)
    ours = np.full(len(GROUPS), np.inf)
    theirs = np.full(len(GROUPS), np.inf)
    acc = np.zeros(len(GROUPS), np.int64)
    pair.restart()
    timed(ms, ds, F, 1, 0, acc)
    timed(ms, ds, F, 1, 1, acc)
    mujoco.set_mjcb_time(_tick.ctypes)
    try:
        for _ in range(blocks):
            for mode, fn, cols in ((0, mujoco.mj_forward, range(9)), (1, mujoco.mj_step, [9])):
                pair.restart()
                acc[:] = 0
                timed(ms, ds, F, n, mode, acc)
                for k in cols:
                    ours[k] = min(ours[k], acc[k] / n / cpu)
                pair.restart()
                for t in pair.md.timer:
                    t.duration = 0.0
                    t.number = 0
                for _ in range(n):
                    fn(pair.mm, pair.md)
                for k in cols:
                    theirs[k] = min(theirs[k], pair.md.timer[TIMERS[k]].duration / n / cpu)
    finally:
        mujoco.set_mjcb_time(None)
    return ours, theirs


def compile_profile(names, top):
    """Cold start of each model in a fresh process (benchmarks/bench_speed.py start), phases and top kernels."""
    import tempfile
    from bench_speed import start

    for name in names or ["hopper"]:
        with tempfile.TemporaryDirectory() as tmp:
            load0 = os.getloadavg()[0]
            r = start(model_path(name), tmp)
        ph = r["phases"]
        print(
            "\n%s cold start: %.1f CPU s (import %.1f, load %.1f, Data %.1f, first step %.1f), wall %.1f s, "
            "load %.1f -> %.1f; %.1f s in numba compiles, %.1f s of it LLVM O3 + machine code; the parts "
            "(sim/engine/parts.py) in %d worker process(es): %.1f CPU s, %.1f s waited for them"
            % (
                name,
                r["cpu"],
                ph["imp"],
                ph["load"],
                ph["data"],
                ph["step"],
                r["wall"],
                load0,
                os.getloadavg()[0],
                sum(r["kernels"].values()),
                r["llvm"],
                r["workers"],
                r["worker_cpu"],
                r["wait"],
            )
        )
        print("%-8s %s" % ("CPU s", "kernel (exclusive compile time)"))
        for k, v in sorted(r["kernels"].items(), key=lambda kv: -kv[1])[:top]:
            print("%8.2f %s" % (v, k))


def main():
    args = sys.argv[1:]
    if "--compile" in args:
        args.remove("--compile")
        top = 25
        if "--top" in args:
            i = args.index("--top")
            top = int(args[i + 1])
            del args[i : i + 2]
        compile_profile(args, top)
        return
    opts = {"--n": 200, "--blocks": 15, "--warm": 500}
    names = []
    i = 0
    while i < len(args):
        if args[i] in opts:
            opts[args[i]] = int(args[i + 1])
            i += 2
        else:
            names.append(args[i])
            i += 1
    names = names or ["hopper", "half_cheetah", "walker2d", "ant", "humanoid", "humanoids3"]
    cpu = cycles_per_us()
    print("load %.2f %.2f %.2f; %.0f cycles/us" % (os.getloadavg() + (cpu,)))
    for name in names:
        pair = Pair(name, warm=opts["--warm"])
        pair.restart()
        sim.forward(pair.m, pair.d)
        mujoco.mj_forward(pair.mm, pair.md)
        ours, theirs = profile(pair, opts["--n"], opts["--blocks"], cpu)
        print(
            "\n%s: nv %d, ncon ours %d mujoco %d, nefc ours %d mujoco %d (us per call, min over blocks)"
            % (pair.name, pair.mm.nv, pair.d.ncon, pair.md.ncon, pair.d._arrays["nefc"][0], pair.md.nefc)
        )
        print("%-11s %9s %9s %7s" % ("stage", "ours", "MuJoCo", "ratio"))
        for g, o, t in zip(GROUPS, ours, theirs):
            print("%-11s %9.2f %9.2f %7.2f" % (g, o, t, o / t if t > 0 else float("nan")))
    print("\nload %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
