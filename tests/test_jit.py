"""sim/jit.py's compile-time machinery: lazy callees (no wrappers, recompiled eagerly when called from Python,
each linked once into the entry that needs machine code) and sim/jit/speedups.py's replacements of numba
internals (Flags hash / equality, remembered call resolutions, variable listing, registry refresh, ABI sizes,
struct payload types) agree with what they replace."""
import operator

import numba
import numpy as np
import pytest
from llvmlite import ir as llir
from numba.core import imputils, ir, types
from numba.core.compiler import Flags
from numba.core.registry import cpu_target

import sim.jit as jit
import sim.jit.speedups as speedups
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


@njit(cache=False)
def _once_leaf(a, i):
    return a[i] * 2.0


@njit(cache=False)
def _once_entry(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += _once_leaf(a, i)
    return s


def test_final_module_optimised_by_one_o3(monkeypatch):
    """An entry's final module goes through one O3 pipeline (numba runs a "cheap" O3 first, for refcount
    pruning); the result is unchanged."""
    from numba.core.codegen import JITCPUCodegen
    asked = []
    orig = JITCPUCodegen._module_pass_manager

    def spy(self, **kwargs):
        asked.append(kwargs.get('cost'))
        return orig(self, **kwargs)
    monkeypatch.setattr(JITCPUCodegen, '_module_pass_manager', spy)
    assert _once_entry(np.arange(4.0)) == 12.0
    assert asked == [None]


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
        fresh = speedups._get_call_type(fnty, ctx, args, {})
        key = fnty._impl_keys[fresh.args]
        first = fnty.get_call_type(ctx, args, {})
        again = fnty.get_call_type(ctx, args, {})
        assert first == fresh and again == fresh
        assert fnty._impl_keys[again.args] == key


@njit(cache=False)
def _leaf(a, i):
    return a[i] * 2.0


@njit(cache=False)
def _left(a):
    return _leaf(a, 0) + 1.0


@njit(cache=False)
def _right(a):
    return _leaf(a, 1) + _leaf(a, 2)


@njit(cache=False)
def _top(a):
    return _left(a) * _right(a)


def test_lazy_tree_linked_once():
    a = np.arange(1.0, 4.0)
    assert _top(a) == (2.0 + 1.0) * (4.0 + 6.0)
    libs = {f.py_func.__name__: f.overloads[next(iter(f.overloads))].library for f in (_leaf, _left, _right, _top)}
    for name in ('_leaf', '_left', '_right'):
        assert isinstance(libs[name], jit._LazyLibrary) and libs[name]._lazy
        # a lazy library's module holds its own functions only: no callee was linked into it
        assert sum(1 for fn in libs[name]._final_module.functions if not fn.is_declaration) == 1
    closure = jit._link_closure(libs['_top']._linking_libraries)
    assert len(closure) == len(set(closure))
    for name in ('_leaf', '_left', '_right'):
        assert closure.count(libs[name]) == 1


def _all_statements():
    """Every statement and expression of the IR of a few pipeline kernels (numba's frontend, untyped)."""
    from numba.core.compiler import run_frontend
    import sim.engine.solver
    import sim.engine.constraint
    import sim.engine.kinematics
    out = []
    for fn in (sim.engine.solver.sol_primal, sim.engine.constraint.instantiate_contact, sim.engine.kinematics.kinematics,
               sim.engine.solver._primal_search):
        fir = run_frontend(fn.py_func)
        for block in fir.blocks.values():
            for stmt in block.body:
                out.append(stmt)
                if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Inst):
                    out.append(stmt.value)
    return out


def test_list_vars_matches_numba():
    stmts = _all_statements()
    assert len(stmts) > 1000
    nvars = 0
    for stmt in stmts:
        for val in (stmt.__dict__, getattr(stmt, '_kws', None), [stmt, (stmt, {'x': stmt})]):
            if val is None:
                continue
            ours = speedups._rec_list_vars(stmt, val)
            theirs = speedups._numba_rec_list_vars(stmt, val)
            assert ours == theirs and [type(v) for v in ours] == [type(v) for v in theirs]
            nvars += len(ours)
        if isinstance(stmt, ir.Stmt):
            assert stmt.list_vars() == speedups._numba_rec_list_vars(stmt, stmt.__dict__)
        if type(stmt) is ir.Expr:
            assert stmt.list_vars() == speedups._numba_rec_list_vars(stmt, stmt._kws)
    assert nvars > 1000


def test_use_defs_match_numba():
    from numba.core.compiler import run_frontend
    import sim.engine.solver
    import sim.engine.forward
    for fn in (sim.engine.solver.sol_primal, sim.engine.solver._primal_search, sim.engine.forward.run_world, sim.engine.forward.step_world):
        blocks = run_frontend(fn.py_func).blocks
        ours, theirs = speedups._compute_use_defs(blocks), speedups._numba_compute_use_defs(blocks)
        assert ours.usemap == theirs.usemap and ours.defmap == theirs.defmap
        assert sum(map(len, ours.usemap.values())) > 10 and sum(map(len, ours.defmap.values())) > 10


def test_refresh_installs_new_registrations_only():
    from numba.core.registry import cpu_target
    ctx = cpu_target.target_context
    ctx.refresh()
    calls = []
    real = speedups._refresh

    def counting(self):
        calls.append(1)
        real(self)

    speedups._refresh = counting
    try:
        ctx.refresh()
        assert calls == []                        # nothing registered since: nothing to install
        registry = imputils.Registry('numjoco-test')

        def marker(x):
            return x

        @registry.lower(marker, types.int64)
        def impl(context, builder, sig, args):
            return args[0]

        ctx.install_registry(registry)            # a new registry is seen ...
        calls.clear()
        imputils.builtin_registry.functions.append((impl, marker, (types.float64,)))
        try:
            ctx.refresh()                         # ... and a grown one installs its new registration
            assert calls == [1]
            assert [sig for sig, _ in ctx._defns[marker].versions] == [(types.int64,), (types.float64,)]
        finally:
            imputils.builtin_registry.functions.remove((impl, marker, (types.float64,)))
    finally:
        speedups._refresh = real


def test_abi_size_memo_matches_llvm():
    from numba.core.registry import cpu_target
    td = cpu_target.target_context.target_data
    i8, i32, f64 = llir.IntType(8), llir.IntType(32), llir.DoubleType()
    cases = [i8, i32, f64, f64.as_pointer(), llir.ArrayType(f64, 7), llir.LiteralStructType([i8, f64, i32]),
             llir.LiteralStructType([i8, llir.ArrayType(i32, 3)], packed=True), llir.VectorType(f64, 4)]
    for ty in cases:
        assert speedups._get_abi_size_memo(ty, td) == speedups._get_abi_size(ty, td)
        assert speedups._get_abi_size_memo(ty, td) == speedups._get_abi_size(ty, td)   # remembered
    ctx = llir.Context()
    named = ctx.get_identified_type('numjoco_test_named')
    named.set_body(i8, f64, f64)
    assert '%' in str(named)                      # names an identified struct: never remembered
    assert speedups._get_abi_size_memo(named, td, ctx) == 24


def test_struct_payload_type_is_the_interned_one():
    from sim.types import TaskType
    fields = (('numjoco_test_a', types.float64[::1]), ('numjoco_test_n', types.int64))
    st = TaskType(fields)
    first = st.get_data_type()
    assert first is st.get_data_type()            # built once
    fresh = jit._ShortPayload('TaskType', st._fields, st.name)
    assert fresh is first                         # and the object numba's interning gives for that name
    assert first.name == st.name + '.payload' and first._fields == st._fields
    assert first._typename == 'TaskType' and dict(first.field_dict) == dict(fields)


def test_name_registration_matches_llvmlite():
    import random
    from llvmlite.ir import _utils as llutils
    for trial in range(100):
        theirs, ours = llutils.NameScope(), llutils.NameScope()
        rnd = random.Random(trial)
        for _ in range(300):
            name = rnd.choice(['', 'x', 'x.1', 'x.2', 'y', '.1', '.3', 'x.1.1'])
            dedup = rnd.random() < 0.8
            out = []
            for scope, register in ((theirs, speedups._llvmlite_register), (ours, speedups._register)):
                try:
                    out.append(register(scope, name, dedup))
                except llutils.DuplicatedNameError:
                    out.append('duplicate')
            assert out[0] == out[1]
        assert theirs._useset == ours._useset and dict(theirs._basenamemap) == dict(ours._basenamemap)


def test_blas_check_matches_numba_without_importing_scipy_linalg():
    """numba.np.arraymath, imported after sim.jit, has numba's answer (_HAVE_BLAS: scipy's cython_blas is there) and
    its ensure_blas back; scipy.linalg is imported only when that ensure_blas runs."""
    import subprocess
    import sys
    code = ("import sys, sim.jit\n"
            "from numba.np import arraymath, linalg\n"
            "before = 'scipy.linalg' in sys.modules\n"
            "linalg.ensure_blas()\n"
            "print(arraymath._HAVE_BLAS, before, 'scipy.linalg' in sys.modules,"
            " arraymath.ensure_blas is linalg.ensure_blas, linalg.ensure_blas.__module__)\n")
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ['True', 'False', 'True', 'True', 'numba.np.linalg']
    assert speedups._blas_present() is None


def test_kernels_index_as_c_does():
    """Functions of the sim and envs packages index with a runtime value as is (no Python wraparound of a negative
    index: sim/jit.py), with boundscheck a negative runtime index is out of bounds; constant indices and functions
    elsewhere keep numba's meaning."""
    import numba
    import numpy as np
    import pytest
    src = 'def at(x, i):\n    return x[i]\ndef last(x):\n    return x[-1]\n'
    x = np.arange(5.0)
    for module, wraps in (('sim.test_indexing', False), ('envs.test_indexing', False), ('other.pkg', True)):
        env = {'__name__': module}
        exec(src, env)
        at = numba.njit(boundscheck=True)(env['at'])
        last = numba.njit(boundscheck=True)(env['last'])
        assert at(x, 3) == 3.0 and last(x) == 4.0
        if wraps:
            assert at(x, -1) == 4.0
        else:
            with pytest.raises(IndexError):
                at(x, -1)


@njit(cache=False)
def _zero_rows(x, n):
    for i in range(n):
        x[i] = 0.0
    x[n:] = 0.0


@njit(cache=False, always_inline=True)
def _pair_of_views(x, y):
    return x[1:], y[1:], x[:1], y[:1]


@njit(cache=False)
def _sum_views(x, y):
    a, b, c, d = _pair_of_views(x, y)
    return a.sum() + b.sum() + c[0] + d[0]


def test_kernel_attributes_no_memset_and_always_inline():
    """Kernel bodies keep zeroing loops as loops (no libc memset call: sim/jit.py, "no-builtin-memset"), and a
    kernel defined with always_inline=True is inlined into its callers (no call left in the machine code)."""
    x = np.arange(40.0)
    _zero_rows(x, 7)
    assert not x.any()
    (sig,) = _zero_rows.overloads
    lib = _zero_rows.overloads[sig].library
    assert '"no-builtin-memset"' in _fn_attrs(lib, _zero_rows.overloads[sig].fndesc.llvm_func_name)
    assert 'memset' not in lib.get_asm_str()
    # control: the same loop in a plain numba function becomes a memset call
    plain = numba.njit(_zero_rows.py_func)
    plain(x, 7)
    assert 'memset' in plain.inspect_asm(plain.signatures[0])
    y = np.arange(10.0)
    assert _sum_views(x + 1.0, y) == (x + 1.0).sum() + y.sum()
    (sig,) = _sum_views.overloads
    callee = _pair_of_views.overloads[next(iter(_pair_of_views.overloads))].fndesc.llvm_func_name
    asm = _sum_views.overloads[sig].library.get_asm_str()
    # inlined and internal, the callee's copy is gone from the caller's module (not inlined, it would be there:
    # calls go through a register under the large code model, so look for the symbol itself)
    assert callee not in asm
    lib = _pair_of_views.overloads[next(iter(_pair_of_views.overloads))].library
    assert 'alwaysinline' in _fn_attrs(lib, callee)
    caller = _sum_views.overloads[sig]
    assert 'alwaysinline' not in _fn_attrs(caller.library, caller.fndesc.llvm_func_name)


def _fn_attrs(lib, name):
    """Function attributes of `name` in a library's module, as strings."""
    return b' '.join(lib._final_module.get_function(name).attributes).decode().split()
