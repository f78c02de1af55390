"""sim/jit.py's compile-time machinery: lazy callees (no wrappers, recompiled eagerly when called from Python)
and the replacements of numba internals (Flags hash / equality, remembered call resolutions) agree with what they
replace."""
import operator

import numpy as np
from numba.core import types
from numba.core.compiler import Flags
from numba.core.registry import cpu_target

import sim.jit as jit
from sim.jit import njit


@njit(cache=False)
def _callee(a, k):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * k
    return s


@njit(cache=False)
def _caller(a):
    return _callee(a, 3) + 1.0


def test_lazy_callee_then_python_call():
    a = np.arange(5.0)
    assert _caller(a) == 31.0
    (sig,) = [s for s in _callee.overloads]
    lazy = _callee.overloads[sig]
    # compiled for its jitted caller only: no Python entry point, no wrappers
    assert isinstance(lazy.entry_point, jit._LazyEntry)
    assert lazy.fndesc is not None and 'cpython' not in str(lazy.library._final_module)
    # a call from Python compiles it again, eagerly, with its wrapper; the caller still works
    assert _callee(a, 3) == 30.0
    eager = _callee.overloads[sig]
    assert not isinstance(eager.entry_point, jit._LazyEntry)
    assert _callee(a, 2) == 20.0
    assert _caller(a) == 31.0


def _orig_values(f):
    return {k: getattr(f, k) for k in f.options}


def test_flags_hash_and_equality_match_numba():
    variants = []
    for nrt in (None, False, True):
        for err in (None, 'numpy', 'python'):
            f = Flags()
            if nrt is not None:
                f.nrt = nrt
            if err is not None:
                f.error_model = err
            variants.append(f)
    for f in variants:
        assert hash(f) == hash(tuple(sorted(_orig_values(f))))     # numba's definition (keys of values())
        assert f.values() == _orig_values(f)
        for g in variants:
            assert (f == g) == (_orig_values(f) == _orig_values(g))
        assert f == f.copy()


def test_remembered_resolution_matches_numba():
    ctx = cpu_target.typing_context
    ctx.refresh()
    fnty = ctx.resolve_value_type(operator.getitem)
    arr2 = types.Array(types.float64, 2, 'C')
    cases = [(arr2, types.int64), (arr2, types.UniTuple(types.int64, 2)), (types.Array(types.int32, 1, 'C'),
                                                                           types.int64)]
    for args in cases:
        fresh = jit._get_call_type(fnty, ctx, args, {})
        key = fnty._impl_keys[fresh.args]
        first = fnty.get_call_type(ctx, args, {})
        again = fnty.get_call_type(ctx, args, {})
        assert first == fresh and again == fresh
        assert fnty._impl_keys[again.args] == key
