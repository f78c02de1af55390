"""sim/jit's compile-time machinery: lazy callees (no wrappers, recompiled eagerly when called from Python,
each linked once into the entry that needs machine code), sim/jit/speedups.py's replacements of numba internals
(Flags hash / equality, remembered call resolutions, variable listing, registry refresh, ABI sizes, struct payload
types) agree with what they replace, and all of it leaves code that is not ours compiled as numba compiles it."""

import contextlib
import json
import operator
import os
import subprocess
import sys

import numba
import numpy as np
import pytest
from llvmlite import ir as llir
from numba.core import imputils, ir, types
from numba.core.compiler import Flags
from numba.core.registry import cpu_target

from sim.jit import codegen, speedups, structs
from sim.jit import njit

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@contextlib.contextmanager
def _ours():
    """As while one of our kernels compiles: the scope of sim/jit/speedups.py's replacements."""
    codegen._MODE.append("eager")
    try:
        yield
    finally:
        codegen._MODE.pop()


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
    assert isinstance(lazy.entry_point, codegen._LazyEntry)
    assert lazy.fndesc is not None and "cpython" not in str(lazy.library._final_module)
    # a call from Python compiles it again, eagerly, with its wrapper; the caller still works
    assert _callee(a, 3) == 30.0
    eager = _callee.overloads[sig]
    assert not isinstance(eager.entry_point, codegen._LazyEntry)
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
        asked.append(kwargs.get("cost"))
        return orig(self, **kwargs)

    monkeypatch.setattr(JITCPUCodegen, "_module_pass_manager", spy)
    assert _once_entry(np.arange(4.0)) == 12.0
    assert asked == [None]


def _orig_values(f):
    return {k: getattr(f, k) for k in f.options}


def test_flags_hash_and_equality_match_numba():
    variants = []
    for nrt in (None, False, True):
        for err in (None, "numpy", "python"):
            f = Flags()
            if nrt is not None:
                f.nrt = nrt
            if err is not None:
                f.error_model = err
            variants.append(f)
    numba_hashes = [hash(f) for f in variants]  # numba's code: not compiling a kernel of ours
    with _ours():
        for f, h in zip(variants, numba_hashes):
            assert hash(f) == h == hash(tuple(sorted(_orig_values(f))))  # numba's definition (keys of values())
            assert f.values() == _orig_values(f)
            for g in variants:
                assert (f == g) == (_orig_values(f) == _orig_values(g))
            assert f == f.copy()


def test_remembered_resolution_matches_numba():
    ctx = cpu_target.typing_context
    ctx.refresh()
    fnty = ctx.resolve_value_type(operator.getitem)
    arr2 = types.Array(types.float64, 2, "C")
    cases = [
        (arr2, types.int64),
        (arr2, types.UniTuple(types.int64, 2)),
        (types.Array(types.int32, 1, "C"), types.int64),
    ]
    for args in cases:
        fresh = speedups._get_call_type(fnty, ctx, args, {})
        key = fnty._impl_keys[fresh.args]
        with _ours():
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
    for name in ("_leaf", "_left", "_right"):
        assert isinstance(libs[name], codegen._LazyLibrary) and libs[name]._lazy
        # a lazy library's module holds its own functions only: no callee was linked into it
        assert sum(1 for fn in libs[name]._final_module.functions if not fn.is_declaration) == 1
    closure = codegen._link_closure(libs["_top"]._linking_libraries)
    assert len(closure) == len(set(closure))
    for name in ("_leaf", "_left", "_right"):
        assert closure.count(libs[name]) == 1


def _all_statements():
    """Every statement and expression of the IR of a few pipeline kernels (numba's frontend, untyped)."""
    from numba.core.compiler import run_frontend
    import sim.engine.solver
    import sim.engine.constraint
    import sim.engine.kinematics

    out = []
    for fn in (
        sim.engine.solver.sol_primal,
        sim.engine.constraint.instantiate_contact,
        sim.engine.kinematics.kinematics,
        sim.engine.solver._primal_search,
    ):
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
        for val in (stmt.__dict__, getattr(stmt, "_kws", None), [stmt, (stmt, {"x": stmt})]):
            if val is None:
                continue
            theirs = speedups._numba_rec_list_vars(stmt, val)  # numba's code throughout
            with _ours():
                ours = speedups._rec_list_vars(stmt, val)
            assert ours == theirs and [type(v) for v in ours] == [type(v) for v in theirs]
            nvars += len(ours)
        theirs = stmt.list_vars()
        with _ours():
            ours = stmt.list_vars()
        assert ours == theirs
        if isinstance(stmt, ir.Stmt):
            assert theirs == speedups._numba_rec_list_vars(stmt, stmt.__dict__)
        if type(stmt) is ir.Expr:
            assert theirs == speedups._numba_rec_list_vars(stmt, stmt._kws)
    assert nvars > 1000


def test_use_defs_match_numba():
    from numba.core.compiler import run_frontend
    import sim.engine.solver
    import sim.engine.forward
    import sim.engine.batch.step

    for fn in (
        sim.engine.solver.sol_primal,
        sim.engine.solver._primal_search,
        sim.engine.forward.run_world,
        sim.engine.batch.step.run_block,
    ):
        blocks = run_frontend(fn.py_func).blocks
        theirs = speedups._numba_compute_use_defs(blocks)
        with _ours():
            ours = speedups._compute_use_defs(blocks)
        assert ours.usemap == theirs.usemap and ours.defmap == theirs.defmap
        assert sum(map(len, ours.usemap.values())) > 10 and sum(map(len, ours.defmap.values())) > 10


def test_refresh_installs_new_registrations_only():
    from numba.core.registry import cpu_target

    ctx = cpu_target.target_context
    with _ours():
        ctx.refresh()
    calls = []
    real = speedups._refresh

    def counting(self):
        calls.append(1)
        real(self)

    speedups._refresh = counting
    try:
        ctx.refresh()
        assert calls == [1]  # not compiling a kernel of ours: numba's refresh
        calls.clear()
        with _ours():
            ctx.refresh()
        assert calls == []  # nothing registered since: nothing to install
        registry = imputils.Registry("numjoco-test")

        def marker(x):
            return x

        @registry.lower(marker, types.int64)
        def impl(context, builder, sig, args):
            return args[0]

        ctx.install_registry(registry)  # a new registry is seen ...
        calls.clear()
        imputils.builtin_registry.functions.append((impl, marker, (types.float64,)))
        try:
            with _ours():
                ctx.refresh()  # ... and a grown one installs its new registration
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
    cases = [
        i8,
        i32,
        f64,
        f64.as_pointer(),
        llir.ArrayType(f64, 7),
        llir.LiteralStructType([i8, f64, i32]),
        llir.LiteralStructType([i8, llir.ArrayType(i32, 3)], packed=True),
        llir.VectorType(f64, 4),
    ]
    with _ours():
        for ty in cases:
            assert speedups._get_abi_size_memo(ty, td) == speedups._get_abi_size(ty, td)
            assert speedups._get_abi_size_memo(ty, td) == speedups._get_abi_size(ty, td)  # remembered
            assert (str(ty), td) in speedups._ABI_SIZES
        ctx = llir.Context()
        named = ctx.get_identified_type("numjoco_test_named")
        named.set_body(i8, f64, f64)
        assert "%" in str(named)  # names an identified struct: never remembered
        assert speedups._get_abi_size_memo(named, td, ctx) == 24


def test_struct_payload_type_is_the_interned_one():
    from sim.types import TaskType

    fields = (("numjoco_test_a", types.float64[::1]), ("numjoco_test_n", types.int64))
    st = TaskType(fields)
    first = st.get_data_type()
    assert first is st.get_data_type()  # built once
    fresh = structs._ShortPayload("TaskType", st._fields, st.name)
    assert fresh is first  # and the object numba's interning gives for that name
    assert first.name == st.name + ".payload" and first._fields == st._fields
    assert first._typename == "TaskType" and dict(first.field_dict) == dict(fields)


def test_name_registration_matches_llvmlite():
    import random
    from llvmlite.ir import _utils as llutils

    for trial in range(100):
        theirs, ours = llutils.NameScope(), llutils.NameScope()
        rnd = random.Random(trial)
        for _ in range(300):
            name = rnd.choice(["", "x", "x.1", "x.2", "y", ".1", ".3", "x.1.1"])
            dedup = rnd.random() < 0.8
            out = []
            for names, register in ((theirs, speedups._llvmlite_register), (ours, speedups._register)):
                try:
                    with _ours():
                        out.append(register(names, name, dedup))
                except llutils.DuplicatedNameError:
                    out.append("duplicate")
            assert out[0] == out[1]
        assert theirs._useset == ours._useset and dict(theirs._basenamemap) == dict(ours._basenamemap)


def test_speedups_act_only_while_our_kernels_compile(monkeypatch):
    """speedups.py's replacements run numba's own code unless one of our kernels is compiling: a plain
    numba.njit function compiles without them, a kernel of ours with them."""
    import numba

    calls = []
    collect = speedups._collect_items

    def counting(items, out):
        calls.append(1)
        collect(items, out)

    monkeypatch.setattr(speedups, "_collect_items", counting)
    src = "def f(x, k):\n    s = 0.0\n    for i in range(x.shape[0]):\n        s += x[i] * k\n    return s\n"
    env = {"__name__": "other.pkg"}
    exec(src, env)
    assert numba.njit(env["f"])(np.arange(3.0), 2.0) == 6.0
    assert calls == []
    env = {"__name__": "other.pkg"}
    exec(src, env)
    assert njit(cache=False)(env["f"])(np.arange(3.0), 2.0) == 6.0
    assert len(calls) > 100


def test_blas_check_matches_numba_without_importing_scipy_linalg():
    """numba.np.arraymath, imported after sim.jit, has numba's answer (_HAVE_BLAS: scipy's cython_blas is there) and
    its ensure_blas back; scipy.linalg is imported only when that ensure_blas runs."""
    import subprocess
    import sys

    code = (
        "import sys, sim.jit\n"
        "from numba.np import arraymath, linalg\n"
        "before = 'scipy.linalg' in sys.modules\n"
        "linalg.ensure_blas()\n"
        "print(arraymath._HAVE_BLAS, before, 'scipy.linalg' in sys.modules,"
        " arraymath.ensure_blas is linalg.ensure_blas, linalg.ensure_blas.__module__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "False", "True", "True", "numba.np.linalg"]
    assert speedups._blas_present() is None


def test_kernels_index_as_c_does():
    """Kernels of the sim and envs packages index with a runtime value as is (no Python wraparound of a negative
    index: sim/jit/patches.py), with boundscheck a negative runtime index is out of bounds; constant indices, our
    kernels elsewhere and plain numba.njit functions (even in a module named sim or envs) keep numba's meaning."""
    import numba

    src = "def at(x, i):\n    return x[i]\ndef last(x):\n    return x[-1]\n"
    x = np.arange(5.0)
    for module, decorator, wraps in (
        ("sim.test_indexing", njit, False),
        ("envs.test_indexing", njit, False),
        ("other.pkg", njit, True),
        ("sim.test_indexing", numba.njit, True),
        ("envs.test_indexing", numba.njit, True),
        ("other.pkg", numba.njit, True),
    ):
        env = {"__name__": module}
        exec(src, env)
        at = decorator(boundscheck=True)(env["at"])
        last = decorator(boundscheck=True)(env["last"])
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
    """Kernel bodies keep zeroing loops as loops (no libc memset call: sim/jit/codegen.py, "no-builtin-memset"), and a
    kernel defined with always_inline=True is inlined into its callers (no call left in the machine code)."""
    x = np.arange(40.0)
    _zero_rows(x, 7)
    assert not x.any()
    (sig,) = _zero_rows.overloads
    lib = _zero_rows.overloads[sig].library
    assert '"no-builtin-memset"' in _fn_attrs(lib, _zero_rows.overloads[sig].fndesc.llvm_func_name)
    assert "memset" not in lib.get_asm_str()
    # control: the same loop in a plain numba function becomes a memset call
    plain = numba.njit(_zero_rows.py_func)
    plain(x, 7)
    assert "memset" in plain.inspect_asm(plain.signatures[0])
    y = np.arange(10.0)
    assert _sum_views(x + 1.0, y) == (x + 1.0).sum() + y.sum()
    (sig,) = _sum_views.overloads
    callee = _pair_of_views.overloads[next(iter(_pair_of_views.overloads))].fndesc.llvm_func_name
    asm = _sum_views.overloads[sig].library.get_asm_str()
    # inlined and internal, the callee's copy is gone from the caller's module (not inlined, it would be there:
    # calls go through a register under the large code model, so look for the symbol itself)
    assert callee not in asm
    lib = _pair_of_views.overloads[next(iter(_pair_of_views.overloads))].library
    assert "alwaysinline" in _fn_attrs(lib, callee)
    caller = _sum_views.overloads[sig]
    assert "alwaysinline" not in _fn_attrs(caller.library, caller.fndesc.llvm_func_name)


def _fn_attrs(lib, name):
    """Function attributes of `name` in a library's module, as strings."""
    return b" ".join(lib._final_module.get_function(name).attributes).decode().split()


# ---- code that is not ours compiles as numba compiles it ---------------------------------------------------------

PLAIN = """
import numba
import numpy as np


@numba.njit
def leaf(a, i):
    return a[i] * 2.0


@numba.njit
def zero(x, n):
    for i in range(n):
        x[i] = 0.0


@numba.njit
def entry(a, i):
    zero(a[6:], 3)
    s = 0.0
    for k in range(a.shape[0]):
        s += leaf(a, k - i)          # negative runtime indices: Python's meaning
    return s + np.sum(a)


@numba.njit(parallel=True)
def par(a):
    out = np.empty_like(a)
    for i in numba.prange(a.shape[0]):
        out[i] = a[i - 1] * 2.0
    return out
"""

# mode 'stock': numba alone; 'import': after `import sim`; 'after': after `import sim` and compiling kernels of ours
# (a lazy callee tree, a parallel entry)
DUMP = """
import json, re, sys
mode = sys.argv[1]
if mode != 'stock':
    import sim
if mode == 'after':
    import numpy as np
    from numba import prange
    from sim.jit import njit
    src = ('def leaf(x, i):\\n    return x[i] * 2.0\\n'
           'def top(x):\\n    s = 0.0\\n    for i in range(x.shape[0]):\\n        s += leaf(x, i)\\n    return s\\n'
           'def par(x):\\n    out = np.empty_like(x)\\n    for i in prange(x.shape[0]):\\n'
           '        out[i] = x[i] * 2.0\\n    return out\\n')
    env = {'__name__': 'sim.test_plain', 'np': np, 'prange': prange}
    exec(src, env)
    env['leaf'] = njit(cache=False)(env['leaf'])
    assert njit(cache=False)(env['top'])(np.arange(3.0)) == 6.0
    assert njit(cache=False, parallel=True, refcount=True)(env['par'])(np.arange(3.0)).sum() == 6.0
sys.path.insert(0, sys.argv[2])
import numpy as np
import plainmod as p
a = np.arange(10.0)
out = {'entry': p.entry(a.copy(), 2), 'par': p.par(a).tolist()}
for f in (p.entry, p.par):
    lib = f.overloads[f.signatures[0]].library
    out[f.__name__ + '.class'] = type(lib).__module__ + '.' + type(lib).__qualname__
    out[f.__name__ + '.passes'] = [r.name for r in lib.recorded_timings if r.name.startswith('Module passes')]
    # the gufunc's name holds an address; function names (and strings quoting them) hold numba's per-process
    # function counter
    ir = re.sub('B[0-9]+v[0-9]+', 'Bv', re.sub('0x[0-9a-f]+', '0x', lib.get_llvm_str()))
    out[f.__name__ + '.ir'] = re.sub('[[][0-9]+ x i8[]] c"missing Environment', 'c"missing Environment', ir)
    if mode != 'after':
        out[f.__name__ + '.asm'] = re.sub('0x[0-9a-f]+', '0x', lib.get_asm_str())
print(json.dumps(out))
"""


def test_plain_numba_compiles_as_without_sim(tmp_path):
    """A plain numba.njit function (and a parallel one) defined outside sim compiles to the same optimised LLVM IR
    and machine code after `import sim` as in a process that never imported sim, through numba's own code library
    and its two O3 passes; also after kernels of ours were compiled in the process (IR compared with numba's
    per-process function counter taken out of the names)."""
    (tmp_path / "plainmod.py").write_text(PLAIN)
    (tmp_path / "dump.py").write_text(DUMP)
    env = dict(os.environ, NUMBA_LLVM_PASS_TIMINGS="1", NUMJOCO_QUIET="1", PYTHONPATH=REPO)
    runs = {}
    for mode in ("stock", "import", "after"):
        proc = subprocess.run(
            [sys.executable, str(tmp_path / "dump.py"), mode, str(tmp_path)],
            env=env,
            cwd=str(tmp_path),
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        runs[mode] = json.loads(proc.stdout.strip().splitlines()[-1])
    stock = runs["stock"]
    assert stock["entry"] == 72.0 and stock["par"][0] == 18.0  # a[-1]: Python's meaning
    for f in ("entry", "par"):
        assert stock[f + ".class"] == "numba.core.codegen.JITCodeLibrary"
        assert stock[f + ".passes"] == [
            "Module passes (cheap optimization for refprune)",
            "Module passes (full optimization)",
        ]
    assert runs["import"] == stock
    assert runs["after"] == {k: v for k, v in stock.items() if not k.endswith(".asm")}


def test_numba_cache_settings_untouched():
    """import sim leaves numba's cache directory setting (NUMBA_CACHE_DIR, numba.config.CACHE_DIR) as it was."""
    code = (
        'import os, numba.core.config as c; before = (c.CACHE_DIR, os.environ.get("NUMBA_CACHE_DIR"))\n'
        "import sim, envs\n"
        'print(before == (c.CACHE_DIR, os.environ.get("NUMBA_CACHE_DIR")), repr(c.CACHE_DIR))\n'
    )
    env = dict(os.environ, PYTHONPATH=REPO)
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["True", "''"]


@njit(cache=False)
def _kernel_leaf(a, i):
    return a[i] * 3.0


@njit(cache=False)
def _kernel_mid(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += _kernel_leaf(a, i)
    return s


def test_plain_numba_caller_of_a_kernel():
    """A plain numba.njit function may call a kernel of ours: the kernel is compiled as numba would (eager, its
    own library holding its lazy callees), the caller by numba's own code."""
    import numba
    from numba.core.codegen import JITCodeLibrary

    @numba.njit
    def plain(a):
        return _kernel_mid(a) + 1.0

    a = np.arange(4.0)
    assert plain(a) == 19.0
    mid = _kernel_mid.overloads[_kernel_mid.signatures[0]]
    assert type(mid.library) is codegen.KernelLibrary and not isinstance(mid.entry_point, codegen._LazyEntry)
    leaf = _kernel_leaf.overloads[_kernel_leaf.signatures[0]]
    assert isinstance(leaf.library, codegen._LazyLibrary)
    assert type(plain.overloads[plain.signatures[0]].library) is JITCodeLibrary
    assert _kernel_mid(a) == 18.0


@pytest.mark.full  # two cold compiles of hopper's setConst stage in fresh processes
def test_speedups_off_compile_the_same_code(tmp_path):
    """NUMJOCO_NUMBA_SPEEDUPS=0 leaves numba's code in place (sim/jit/patches.py): the kernels compiled for a model
    (its setConst stage, at load) have the same optimised LLVM IR and give the same numbers as with the speedups.

    Two kinds of names differ between any two processes and are normalised before hashing: numba names string
    constants after Python's randomised str hash (`@.bytes.<hash>`), and numbers the versions of its library
    functions (`B3v65B`) in compile order, which depends on what the process compiled before."""
    code = (
        "import hashlib, json, re, sys\n"
        "import numpy as np\n"
        "import sim\n"
        "from sim.engine import forward\n"
        "from llvmlite.ir import _utils\n"
        "m = sim.load_model(%r)\n"
        "sp = forward.smooth_position\n"
        "ir = [sp.overloads[s].library.get_llvm_str() for s in sp.signatures]\n"
        "ir = re.sub(r'B[0-9]+v[0-9]+B', 'BvB', re.sub(r'[.]bytes[.]-?[0-9]+', '.bytes.H', ''.join(ir)))\n"
        "print(json.dumps(dict(ir=hashlib.sha1(ir.encode()).hexdigest(), n=len(sp.signatures), "
        "body_mass=np.asarray(m.body_mass).tolist(), register=_utils.NameScope.register.__module__)))\n"
        % os.path.join(REPO, "envs", "assets", "hopper.xml")
    )
    runs = {}
    for flag in ("1", "0"):
        env = dict(
            os.environ,
            PYTHONPATH=REPO,
            NUMJOCO_QUIET="1",
            NUMJOCO_NUMBA_SPEEDUPS=flag,
            NUMJOCO_CACHE_DIR=str(tmp_path / flag),
            NUMJOCO_COMPILE_WORKERS="0",
        )
        proc = subprocess.run(
            [sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True, timeout=1800
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        runs[flag] = json.loads(proc.stdout.strip().splitlines()[-1])
    assert runs["1"]["register"] == "sim.jit.speedups" and runs["0"]["register"] == "llvmlite.ir._utils"
    assert runs["1"]["n"] >= 1
    assert {k: v for k, v in runs["1"].items() if k != "register"} == {
        k: v for k, v in runs["0"].items() if k != "register"
    }
