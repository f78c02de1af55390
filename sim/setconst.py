"""mj_setConst at load (engine_setconst.c): the compiled model's derived constants, from the engine run at qpos0.

The compiler hands each freshly compiled model to `set_const` (sim.loader passes it to compile_document): the
kernel sim/engine/setconst.py computes the mass-dependent constants (through the engine's smooth_position entry,
which leaves the world at qpos0 with the smooth position stages done), the compiler's passes
(sim/compiler/setconst.py, numpy only) read the rest off that world, the world at qpos_spring gives the tendon
spring lengths, and the simulation-based actuator length ranges (mjCModel::LengthRange) run on the model's own
step entry.  The engine is imported on first use: `import sim` does not load it.
"""

import numpy as np

from sim.compiler import setconst as _passes
from sim.constants import NWARNING

_NOSIMPLE = np.zeros(0, np.int32)
_NOPRM = np.zeros(5)


def set_const(model, ctx):
    """Fill the derived constants of a freshly compiled `model` (mj_setConst); ctx: its compiler Context."""
    from sim.data import Data
    from sim.engine import forward as _fw
    from sim.engine.parts import prefetch as prefetch_parts
    from sim.io import make_model_struct
    from sim.jit.features import features, mask, F_TENDON, F_TRN

    m = model
    _passes.set_fixed(m)
    # cameras/lights are evaluated as fixed to their bodies (set0 switches their mode temporarily)
    ms, _ = make_model_struct(m)  # shares the arrays above: the kernel writes the constants into them
    d = Data(m)
    prefetch_parts(m)  # a first compile of the step's parts starts in a worker during smooth_position's
    F = mask(features(m), (F_TENDON, F_TRN))  # the features smooth_position has
    # body_subtreemass, dof_M0, invweight0s, actuator_acc0 and dampratios (sim/engine/setconst.py, the kernel
    # domain randomisation runs per world); d is left at qpos0 with the smooth position stages done
    _fw.smooth_position(ms, d._struct, 0, 2, F, np.ascontiguousarray(m.body_simple, dtype=np.int32), _NOPRM)
    _passes.set_qpos0(m, d, ctx)
    if m.ntendon:  # setSpring: the tendon lengths at qpos_spring
        d.qpos = m.qpos_spring
        _fw.smooth_position(ms, d._struct, 0, 1, mask(features(m), (F_TENDON, F_TRN)), _NOSIMPLE, _NOPRM)
        _passes.set_spring(m, d)
    _passes.auto_spring_damper(m, ctx)
    _length_range(m, ctx, d)


def _length_range(m, ctx, d):
    """Simulation-based actuator length ranges (mjCModel::LengthRange, mj_setLengthRange in engine_setconst.c) of
    the actuators compile_actuator left to it (ctx.lengthrange_sim: selected by the <lengthrange> mode, without a
    usable explicit range or joint / tendon limit).

    Per actuator and side (0: shortest, 1: longest), from mj_resetData until time >= inttotal, each step is
    evalAct: qvel decays with timeconst, mj_step1, qfrc_applied pushes along the actuator's moment with
    acceleration accel (force capped at maxforce), mj_step2; the length range is the min (side 0) / max (side 1)
    of actuator_length over the last `interval` seconds.  The model's disable flags are replaced by LR_DISABLE and
    its timestep by the <lengthrange> timestep (when > 0) meanwhile.  MuJoCo spreads the actuators over threads;
    each one's result does not depend on it.

    The loop runs here, over two compiled calls a step: smooth_position's stage 4 (evalAct up to mj_step2, in the
    setConst entry compiled above) and the model's own one-step entry run_serial as mj_step2 (mj_step = mj_step1 +
    mj_step2: its position and velocity stages repeat stage 4's on the same state).  mj_step2 integrates RK4 models
    with Euler, so the integrator is Euler meanwhile (the feature set stays the model's).  The cost is that entry's
    compile at load, which the model's first sim.step would pay otherwise (cached on disk), then two compiled calls
    and a few lines of Python per simulated step (inttotal / timestep steps per side and actuator).  A reset (bad
    qpos / qvel / qacc) is refused: MuJoCo restarts from it and never ends."""
    ids = getattr(ctx, "lengthrange_sim", ())
    if not ids:
        return
    from sim import api
    from sim.engine import forward as _fw
    from sim.jit import struct_addr
    from sim.jit.features import mask, F_TENDON, F_TRN

    prm = _passes.length_range_settings(ctx)
    opt = m.opt
    saved = (int(opt.disableflags), float(opt.timestep), int(opt.integrator))
    opt.disableflags = _passes.LR_DISABLE
    if prm["timestep"] > 0:
        opt.timestep = prm["timestep"]
    if saved[2] == _passes.INT_RK4:
        opt.integrator = _passes.INT_EULER  # mj_step2: "RK4 defaults to Euler"
    m.__dict__.pop("_sim", None)  # a Model struct of the final fields (set_const changed some after its own)
    try:
        ent = api._entry(m)
        ms, F = ent.struct, ent.features
        F0 = mask(F, (F_TENDON, F_TRN))
        ds = d._struct
        mp, dp, tp = struct_addr(ms), struct_addr(ds), struct_addr(api.empty_task())
        time = d._arrays["time"]
        diverged = d._arrays["warning_number"][:, NWARNING]  # numjoco's cumulative divergence counter
        ndiv = diverged[0]
        length = d._arrays["actuator_length"][0]
        inttotal, interval, tol = prm["inttotal"], prm["interval"], prm["tolrange"]
        for i in ids:
            el = ctx.elems["actuator"][i]
            lmin, lmax = [0.0, 0.0], [0.0, 0.0]
            for side in (0, 1):
                arg = np.array([i, side, prm["accel"], prm["maxforce"], prm["timeconst"]], dtype=np.float64)
                _fw.smooth_position(ms, ds, 0, 3, F0, _NOSIMPLE, arg)  # mj_resetData
                updated = False
                while time[0] < inttotal:
                    _fw.smooth_position(ms, ds, 0, 4, F0, _NOSIMPLE, arg)
                    api._SERIAL(F, mp, dp, tp, 0, 1)
                    ln = length[i]
                    if time[0] == 0:
                        raise el.error(f"Unstable lengthrange simulation in actuator {i}", "lengthrange")
                    if diverged[0] != ndiv:
                        # a bad qpos / qvel / qacc reset the state: the simulation restarts from it and diverges
                        # the same way again, forever in MuJoCo 3.17 (its time == 0 test never sees the reset)
                        raise el.error(
                            f"Unstable lengthrange simulation in actuator {i} (it diverged and was reset; MuJoCo "
                            "3.17 repeats it without end)",
                            "lengthrange",
                        )
                    if time[0] > inttotal - interval:
                        if ln < lmin[side] or not updated:
                            lmin[side] = ln
                        if ln > lmax[side] or not updated:
                            lmax[side] = ln
                        updated = True
                m.actuator_lengthrange[i, side] = lmin[side] if side == 0 else lmax[side]
            _passes.check_length_range(m, el, i, lmin, lmax, tol)
    finally:
        opt.disableflags, opt.timestep, opt.integrator = saved
        m.__dict__.pop("_sim", None)
