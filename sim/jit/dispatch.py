"""The numba decorator of every numjoco kernel: `njit`, compiling one specialisation per kernel.

numba's own dispatcher compiles a separate copy of a jitted callee (and of its whole call tree) for every
distinct argument type seen at a call site inside jitted code: `f(m, d, 0)` and `f(m, d, i)` give one copy for
`Literal[int](0)` and one for `int64`, an index read from an int32 array a third.  On the full pipeline such
duplicates were over a quarter of a cold compile (up to 14 copies of one helper).  `KernelDispatcher` types every
call with literals dropped and integers widened to int64 (uint64 if unsigned) (tuples element-wise), so each kernel
compiles once.  numba already computes integer arithmetic in int64 (intp), so the widening changes no result; the
caller casts its arguments at the call.

A kernel compiled for one of our kernels' callers is lazy (sim/jit/codegen.py): no wrappers, no machine code of
its own.  A kernel called by code that is not ours (a plain numba.njit function) is compiled as numba would,
eagerly, in a library of its own with its whole call tree: the caller's library is numba's and links it as numba
links any callee.
"""

from numba.core import config, event, sigutils, types
from numba.core.caching import NullCache
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import CPUDispatcher

from sim.jit import cache as _cache
from sim.jit.codegen import (
    _MODE,
    ALWAYS_INLINE,
    LazyCompiler,
    NoRefCompiler,
    ParallelCompiler,
    _LazyEntry,
    _PartEntry,
    current_mode,
)


def canonical(t):
    """The argument type a kernel is compiled for: literal -> its type, signed int -> int64, unsigned -> uint64,
    tuples per item."""
    t = types.unliteral(t)
    if isinstance(t, types.Integer):
        # unsigned stays unsigned (uint64 arithmetic, e.g. the PGS shuffle's PCG32, depends on it); a prange
        # index is uint64, so parallel entries cast it to int64 before calling kernels (sim/engine/forward.py)
        return types.int64 if t.signed else types.uint64
    if isinstance(t, types.UniTuple):
        return types.UniTuple(canonical(t.dtype), t.count)
    if isinstance(t, types.Tuple):
        return types.Tuple([canonical(x) for x in t.types])
    return t


class _Compiling(event.Listener):
    """Which dispatchers are compiling (numba's "numba:compile" events, nested as the compilations are): a kernel
    typed while the innermost one is a KernelDispatcher is a callee of ours, compiled lazily."""

    def __init__(self):
        self.stack = []

    def on_start(self, ev):
        data = ev.data if isinstance(ev.data, dict) else {}
        self.stack.append(isinstance(data.get("dispatcher"), KernelDispatcher))

    def on_end(self, ev):
        if self.stack:
            self.stack.pop()


_COMPILING = _Compiling()
event.register("numba:compile", _COMPILING)


class KernelDispatcher(CPUDispatcher):
    """CPUDispatcher whose calls from jitted code resolve to the canonical signature (see module doc) and whose
    compilations requested by our jitted callers are lazy (sim/jit/codegen.py).

    A lazy compilation also skips the kernel's CPython and C wrappers (numba's no_cpython_wrapper /
    no_cfunc_wrapper): only jitted callers use it, and generating the wrappers, which unbox every field of the
    Model / Data structs, was an eighth of a cold compile.  A lazy kernel later called from Python is compiled
    again, eagerly, with its wrappers (and cached)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._part = False  # compiled on its own and called by symbol (sim/jit/parts.py)
        self._compiler._customize_flags = self._flags

    def _flags(self, flags):
        """numba's _FunctionCompiler._customize_flags: no wrappers for a lazy compilation or a part."""
        if self._part or current_mode() == "lazy":
            flags.no_cpython_wrapper = True
            flags.no_cfunc_wrapper = True
        return flags

    def get_call_template(self, args, kws):
        args = tuple(canonical(a) for a in args)
        kws = {k: canonical(v) for k, v in kws.items()}
        ours = bool(_COMPILING.stack) and _COMPILING.stack[-1]
        _MODE.append("lazy" if ours else "eager")
        try:
            return super().get_call_template(args, kws)
        finally:
            _MODE.pop()

    def compile(self, sig):
        lazy = bool(_MODE) and _MODE[-1] == "lazy" and not self._part
        with global_compiler_lock:
            args, _ = sigutils.normalize_signature(sig)
            existing = self.overloads.get(tuple(args))
            if existing is not None and not lazy and isinstance(existing.entry_point, _LazyEntry):
                return self._materialize(existing)
            _MODE.append("lazy" if lazy else "eager")
            try:
                if lazy:
                    # compile without saving to (or loading from) the disk cache: the entries carry the code
                    cache, self._cache = self._cache, NullCache()
                    try:
                        return super().compile(sig)
                    finally:
                        self._cache = cache
                return super().compile(sig)
            finally:
                _MODE.pop()

    def add_overload(self, cres):
        if isinstance(cres.entry_point, (_LazyEntry, _PartEntry)):
            self.overloads[tuple(cres.signature.args)] = cres  # jitted callers only; not in the call table
            return
        super().add_overload(cres)

    def _materialize(self, cres):
        """A lazy kernel called from Python: compile it again, eagerly (with its wrappers, from or to the disk
        cache), in place of the lazy version (jitted callers typed later link the eager one)."""
        args = tuple(cres.signature.args)
        del self.overloads[args]
        _MODE.append("eager")
        try:
            return super().compile(args)
        finally:
            _MODE.pop()


def njit(func=None, cache=True, refcount=False, **options):
    """numba.njit with KernelDispatcher; cache=True by default (keyed on the package sources, sim/jit/cache.py);
    refcount=False lowers the body without reference counting (sim/jit/codegen.py; the function must not
    allocate); always_inline=True has LLVM inline the kernel into every caller (codegen.ALWAYS_INLINE).
    Division by zero follows C (IEEE inf / nan, error_model='numpy') as in MuJoCo, whose checks then warn and
    reset: numba's default ('python') raised ZeroDivisionError out of the step (e.g. a singular mass matrix).
    fastmath is False unless given (not inherited from a fast-math caller)."""
    always_inline = options.pop("always_inline", False)
    targetoptions = dict(options, nopython=True)
    targetoptions.setdefault("error_model", "numpy")
    # fastmath stated, never inherited: numba compiles a callee that does not state it with its first caller's
    # fastmath and keeps that build as the callee's only overload for the signature, so an engine function first
    # typed from the renderer's fast-math code would be linked, multiply-adds fused, into every physics kernel
    # compiled after it in the process (results depending on compile order, tests/test_determinism.py).  numba
    # 0.68 inherits four flags this way (CPUTargetOptions.finalize): fastmath and error_model, stated here, and nrt
    # and forceinline, which no kernel of ours sets (always_inline is ours, codegen.ALWAYS_INLINE)
    targetoptions.setdefault("fastmath", False)

    def wrap(f):
        if config.DISABLE_JIT:
            return f
        if always_inline:
            ALWAYS_INLINE.add((f.__module__, f.__qualname__))
        pipeline = NoRefCompiler if not refcount else (ParallelCompiler if options.get("parallel") else LazyCompiler)
        disp = KernelDispatcher(py_func=f, locals={}, targetoptions=targetoptions, pipeline_class=pipeline)
        if cache and _cache.CACHE_DIR is not None:
            try:
                disp._cache = _cache.GroupCache(f)
            except RuntimeError:  # no source file (interactive definition): not cached
                pass
        return disp

    return wrap if func is None else wrap(func)
