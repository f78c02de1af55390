"""The numba decorator of every numjoco kernel: `njit`, compiling one specialisation per kernel.

numba's own dispatcher compiles a separate copy of a jitted callee (and of its whole call tree) for every
distinct argument type seen at a call site inside jitted code: `f(m, d, 0)` and `f(m, d, i)` give one copy for
`Literal[int](0)` and one for `int64`, an index read from an int32 array a third.  Measured on the full
pipeline (hopper, empty cache): 28 % of the cold compile time went to such duplicates (up to 14 copies of one
helper).  `KernelDispatcher` types every call with literals dropped and signed integers widened to int64
(tuples element-wise), so each kernel compiles once.  numba already computes integer arithmetic in int64
(intp), so the widening changes no result; the caller casts its arguments at the call.
"""
from sim import cache as _cache  # noqa: F401  (the cache directory must be chosen before any compile)

from numba.core import config, lowering, types
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import register_pass
from numba.core.registry import CPUDispatcher
from numba.core.runtime.context import NRTContext
from numba.core.typed_passes import NativeLowering


def canonical(t):
    """The argument type a kernel is compiled for: literal -> its type, signed int -> int64, tuples per item."""
    t = types.unliteral(t)
    if isinstance(t, types.Integer) and t.signed:
        return types.int64
    if isinstance(t, types.UniTuple):
        return types.UniTuple(canonical(t.dtype), t.count)
    if isinstance(t, types.Tuple):
        return types.Tuple([canonical(x) for x in t.types])
    return t


class KernelDispatcher(CPUDispatcher):
    """CPUDispatcher whose calls from jitted code resolve to the canonical signature (see module doc)."""

    def get_call_template(self, args, kws):
        args = tuple(canonical(a) for a in args)
        kws = {k: canonical(v) for k, v in kws.items()}
        return super().get_call_template(args, kws)


# ------------------------------------------------------------------------------------------------------------
# Kernels without reference counting.  perf on hopper stepping: 60 % of the time in jitted code was spent in
# NRT_incref/NRT_decref (atomic adds): every structref field read, every row view d.x[w] and every array argument
# is reference counted.  Kernels never allocate and every array they touch belongs to a Model/Data object that
# the Python caller keeps alive for the whole call, so inside a step the counts are pure overhead.  Bodies of
# kernels are lowered with a target context whose incref/decref emit nothing; the CPython wrapper of an entry
# point (argument unboxing / cleanup) is still lowered with the normal context, so calls from Python stay
# balanced.  A kernel that allocated an array would leak it: kernels must not allocate (the design rule), and
# the few functions that do (struct constructors) use refcount=True.


class _NoRefNRT(NRTContext):
    """NRT context that emits no reference counting (meminfo access etc. unchanged)."""

    def incref(self, builder, typ, value):
        pass

    def decref(self, builder, typ, value):
        pass


def _noref_context(ctx):
    sub = ctx.subtarget()
    sub.nrt = _NoRefNRT(sub, True)
    return sub


class _NoRefLower(lowering.Lower):
    """Lower whose function body is lowered with the no-refcount context (wrappers with the normal one)."""

    def lower(self):
        ctx = self.context
        self.context = _noref_context(ctx)
        try:
            super().lower()
        finally:
            self.context = ctx


@register_pass(mutates_CFG=True, analysis_only=False)
class NoRefNativeLowering(NativeLowering):
    """numba's native lowering pass with _NoRefLower."""
    _name = "numjoco_noref_native_lowering"

    @property
    def lowering_class(self):
        return _NoRefLower


class NoRefCompiler(CompilerBase):
    """numba's nopython pipeline with NoRefNativeLowering in place of NativeLowering."""

    def define_pipelines(self):
        pm = DefaultPassBuilder.define_nopython_pipeline(self.state)
        for i, (cls, desc) in enumerate(pm.passes):
            if cls is NativeLowering:
                pm.passes[i] = (NoRefNativeLowering, desc)
        pm.finalize()
        return [pm]


def njit(func=None, cache=True, refcount=False, **options):
    """numba.njit with KernelDispatcher; cache=True by default (keyed on the package sources, sim.cache);
    refcount=False lowers the body without reference counting (see above; the function must not allocate)."""
    targetoptions = dict(options, nopython=True)

    def wrap(f):
        if config.DISABLE_JIT:
            return f
        extra = {} if refcount else {'pipeline_class': NoRefCompiler}
        disp = KernelDispatcher(py_func=f, locals={}, targetoptions=targetoptions, **extra)
        if cache:
            disp.enable_caching()
        return disp

    return wrap if func is None else wrap(func)
