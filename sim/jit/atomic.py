"""An atomic counter, for work queues inside parallel regions (the batched step's worlds, a frame's bands).

numba's OpenMP threading layer schedules a `prange` statically: each thread gets one contiguous share of the
iterations, and `numba.set_parallel_chunksize` only cuts the shares smaller, it does not hand them out on demand
(measured: twenty iterations, the first ten heavy, run 10 / 10 on two threads whatever the chunk size).  Work items
of very different cost are balanced instead by a `prange` over NWORKER workers whose bodies take items from a
shared counter: the first worker a thread starts drains the counter, the others find it empty, so any thread count
up to NWORKER is balanced (numba.get_num_threads() in jitted code would make the entry uncacheable):

    counter = np.empty(1, np.int64)  # not np.zeros: numba makes that a parallel loop of its own, a second launch
    counter[0] = 0
    for worker in prange(min(nitem, NWORKER)):
        while True:
            k = fetch_add(counter, 0, 1)
            if k >= nitem:
                break
            ...item k...
"""

from numba import types
from numba.extending import intrinsic

# upper bound on the threads a work queue spreads its items over
NWORKER = 256


@intrinsic
def fetch_add(typingctx, a, i, v):
    """a[i] += v atomically on a C-contiguous int64 array; returns the old a[i].  Monotonic ordering: the counter
    only hands out indices, no other memory is published through it."""
    if not (isinstance(a, types.Array) and a.dtype == types.int64 and a.layout == "C"):
        return None

    def codegen(context, builder, sig, args):
        arr = context.make_array(sig.args[0])(context, builder, args[0])
        idx = context.cast(builder, args[1], sig.args[1], types.intp)
        val = context.cast(builder, args[2], sig.args[2], types.int64)
        return builder.atomic_rmw("add", builder.gep(arr.data, [idx]), val, "monotonic")

    return types.int64(a, i, v), codegen
