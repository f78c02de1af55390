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

from numba.core import config, types
from numba.core.registry import CPUDispatcher


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


def njit(func=None, cache=True, **options):
    """numba.njit with KernelDispatcher; cache=True by default (keyed on the package sources, sim.cache)."""
    targetoptions = dict(options, nopython=True)

    def wrap(f):
        if config.DISABLE_JIT:
            return f
        disp = KernelDispatcher(py_func=f, locals={}, targetoptions=targetoptions)
        if cache:
            disp.enable_caching()
        return disp

    return wrap if func is None else wrap(func)
