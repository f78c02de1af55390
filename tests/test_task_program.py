"""The one task interpreter (sim/engine/task.py) on its own: the expression program's ops against numpy's float64
arithmetic (NaN, infinities, signed zeros as numpy gives them), tolerance against dm_control's, and the worlds'
modes (MODE_SKIP, MODE_OBSERVE) of a call.

The programs run on cheetah's model, single world (the serial entry tests/test_dmc.py compiles), with the values
as constants of the program: a call of the physics entry in MODE_OBSERVE evaluates the program and copies its
outputs into the observation without stepping.
"""

import math

import numpy as np
import pytest

import sim
from sim import api
from sim.constants import MODE_OBSERVE, MODE_SKIP, SIGMOIDS, ST_ELAPSED
from envs import spec
from envs.base import CompiledTask
from envs.dmc import expr, models

# special values and ordinary ones: every op is tried on each (pairs for binary ops)
VALUES = np.array(
    [math.nan, math.inf, -math.inf, 0.0, -0.0, 5e-324, -1e-300, 0.25, -0.5, 1.0, -1.0, 2.0, -3.5, 1e300, 710.0]
)


@pytest.fixture(scope="module")
def model():
    return models.load(models.read("cheetah.xml"))


def evaluate(m, outputs, data=None):
    """The outputs (Nodes of one Symbols builder, or numbers) as the observation of one MODE_OBSERVE call."""
    b = expr._builder(*outputs)
    prog = expr.Program(b, outputs)
    task = spec.Task({"out": spec.registers(prog.outputs)}, {}, terminate=False, program=prog)
    ct = CompiledTask(m, task, 1, 1.0)
    d = sim.Data(m) if data is None else data
    ct.arrays["mode"][0] = MODE_OBSERVE
    assert api.run(m, d, 0, ct.struct) == 0
    return ct.arrays["obs"][0].copy()


def same(a, b):
    """Bitwise equal, any NaN equal to any NaN."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    nan = np.isnan(a) & np.isnan(b)
    return nan | (a.view(np.int64) == b.view(np.int64))


def test_arithmetic_comparisons_match_numpy(model):
    """+ - * / neg abs sqrt min max le lt where on every value (pair) as numpy's float64 ufuncs, bit for bit:
    NaN propagates through min / max, comparisons with NaN are false, where() takes its first branch on a NaN
    condition (nonzero), sqrt of a negative is NaN, -0.0 stays -0.0."""
    sym = expr.Symbols(model)
    b = sym.b
    x, y = np.meshgrid(VALUES, VALUES, indexing="ij")
    x, y = x.ravel(), y.ravel()
    cx = np.array([b.const(v) for v in x], object)
    cy = np.array([b.const(v) for v in y], object)
    cases = {
        "add": (cx + cy, np.add(x, y)),
        "sub": (cx - cy, np.subtract(x, y)),
        "mul": (cx * cy, np.multiply(x, y)),
        "div": (cx / cy, np.divide(x, y)),
        "neg": (-cx, np.negative(x)),
        "abs": (np.abs(cx), np.abs(x)),
        "sqrt": (np.sqrt(cx), np.sqrt(x)),
        "min": (expr.minimum(cx, cy), np.minimum(x, y)),
        "max": (expr.maximum(cx, cy), np.maximum(x, y)),
        "le": (expr.le(cx, cy), (x <= y).astype(float)),
        "lt": (expr.lt(cx, cy), (x < y).astype(float)),
        "where": (expr.where(cx, cy, -cy), np.where(x != 0, y, -y)),
        "amin": (np.array([expr.amin(cx[i : i + 3]) for i in range(0, x.size, 3)]), np.min(x.reshape(-1, 3), 1)),
        "sum": (np.array([expr.sum(cx[i : i + 9]) for i in range(0, x.size, 9)]), np.sum(x.reshape(-1, 9), 1)),
    }
    names = list(cases)
    outs = [o for n in names for o in np.ravel(cases[n][0])]
    with np.errstate(all="ignore"):
        got = evaluate(model, outs)
    k = 0
    for n in names:
        want = np.ravel(cases[n][1])
        g = got[k : k + want.size]
        k += want.size
        bad = ~same(g, want)
        assert not bad.any(), f"{n}: {g[bad][:4]} != numpy's {want[bad][:4]}"


def test_transcendentals_match_numpy(model):
    """sin cos exp log1p arcsinh tanh on every value as numpy's: NaN where numpy's is NaN, infinities and zeros
    exact, other values within 2 ulp (libm's and numpy's implementations may differ in the last bit)."""
    sym = expr.Symbols(model)
    cx = np.array([sym.b.const(v) for v in VALUES], object)
    fns = (np.sin, np.cos, np.exp, np.log1p, np.arcsinh, np.tanh)
    got = evaluate(model, [o for f in fns for o in f(cx)]).reshape(len(fns), -1)
    with np.errstate(all="ignore"):
        for f, g in zip(fns, got):
            want = f(VALUES)
            assert np.array_equal(np.isnan(g), np.isnan(want)), f.__name__
            exact = ~np.isfinite(want) | (want == 0)
            assert same(g[exact], want[exact]).all(), f.__name__
            np.testing.assert_allclose(g[~exact], want[~exact], rtol=4.5e-16, atol=0, err_msg=f.__name__)


def test_tolerance_matches_dm_control(model):
    """The compiled tolerance (every sigmoid, bounds, margins) against dm_control.utils.rewards.tolerance, over
    values from -4 to 4 and the special ones."""
    rewards = pytest.importorskip("dm_control.utils.rewards")
    x = np.concatenate([np.linspace(-4, 4, 161), [-np.inf, np.inf, np.nan, 1e-300, -0.0]])
    sym = expr.Symbols(model)
    q = np.array([sym.b.const(v) for v in x], object)
    cases = []
    for s in SIGMOIDS:
        for vam in (0.0, 0.1, 0.5) if s in ("cosine", "linear", "quadratic") else (0.1, 0.5, 0.9):
            for bounds, margin in (((0, 0), 1.0), ((-1, 2), 0.5), ((0.5, np.inf), 2.0), ((-np.inf, -1), 0.0)):
                cases.append((bounds, margin, s, vam))
    outs = [expr.tolerance(q, bounds=b, margin=mg, sigmoid=s, value_at_margin=v) for b, mg, s, v in cases]
    got = evaluate(model, [o for out in outs for o in out]).reshape(len(cases), -1)
    # libm's and numpy's exp / cosh / tanh may differ in the last bit; 1 - tanh(x)^2 cancels it into an absolute
    # 2.2e-16 (measured): within 2 ulp of 1
    with np.errstate(invalid="ignore", over="ignore"):
        for j, (b, mg, s, v) in enumerate(cases):
            want = rewards.tolerance(x, bounds=b, margin=mg, sigmoid=s, value_at_margin=v)
            np.testing.assert_allclose(got[j], want, rtol=1e-15, atol=4.5e-16, err_msg=str(cases[j]))
    with pytest.raises(ValueError):
        expr.tolerance(q[0], bounds=(1, 0))
    with pytest.raises(ValueError):
        expr.tolerance(q[0], margin=1, sigmoid="gaussian", value_at_margin=0)


def test_modes_and_loads(model):
    """A load reads the world's Data; MODE_OBSERVE evaluates without stepping and clears the status, MODE_SKIP
    leaves the world and its outputs as they are, both for that call only; the refresh after the steps leaves the
    state where the steps left it."""
    sym = expr.Symbols(model)
    outs = [sym.qpos[1], sym.time[0], sym.xpos["torso", "z"]]
    prog = expr.Program(sym.b, outs)
    task = spec.Task({"out": spec.registers(prog.outputs)}, {}, terminate=False, program=prog, refresh=True)
    ct = CompiledTask(model, task, 1, 1.0, max_steps=3)
    a = ct.arrays
    d = sim.Data(model)
    d.qpos = np.linspace(0.1, 0.9, model.nq)
    sim.forward(model, d)
    a["mode"][0] = MODE_OBSERVE
    a["status"][0, ST_ELAPSED] = 7
    api.run(model, d, 5, ct.struct)
    ref = sim.Data(model)
    ref.qpos = d.qpos
    sim.forward(model, ref)
    assert d.time == 0.0 and a["status"][0, ST_ELAPSED] == 0 and a["mode"][0] == 0
    np.testing.assert_array_equal(a["obs"][0], [d.qpos[1], 0.0, ref.xpos[1, 2]])
    api.run(model, d, 5, ct.struct)
    sim.step(model, ref, 5)
    sim.forward(model, ref)
    assert a["status"][0, ST_ELAPSED] == 1 and d.time == ref.time
    np.testing.assert_array_equal(d.qpos, ref.qpos)
    np.testing.assert_array_equal(a["obs"][0], [ref.qpos[1], ref.time, ref.xpos[1, 2]])
    obs = a["obs"][0].copy()
    a["mode"][0] = MODE_SKIP
    api.run(model, d, 5, ct.struct)
    assert d.time == ref.time and a["status"][0, ST_ELAPSED] == 1 and a["mode"][0] == 0
    np.testing.assert_array_equal(a["obs"][0], obs)
    with pytest.raises(ValueError, match="registers"):
        CompiledTask(model, spec.Task({"o": spec.registers([len(prog.outputs) + 99])}, {}, program=prog), 1, 1.0)
    with pytest.raises(ValueError, match="after the steps"):
        CompiledTask(model, spec.Task({}, {"v": spec.Velocity(spec.registers([0]))}, program=prog), 1, 1.0)
