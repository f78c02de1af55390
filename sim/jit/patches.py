"""Every replacement of a numba, llvmlite or OpenMP internal numjoco makes, and `install()`, which applies them.

`import sim` (sim/jit/__init__.py) calls install() once.  Each replacement keeps numba's behaviour for code that
is not numjoco's wherever numba allows it:

1. numba.np.arrayobj.fix_integer_index (module function): kernels index arrays as C does.  Scope: code lowered
   with our kernel context (sim/jit/codegen.py kernel_context) in functions of the sim and envs packages; numba's
   code otherwise.  (Below.)
2. numba.np.ufunc.parallel._launch_threads: the launch of numba's thread pool keeps the calling thread's OpenMP
   thread count.  Scope: the process (there is one thread pool and one OpenMP runtime per process; the launch is
   made by whichever numba code first runs a parallel region).  (keep_openmp_threads below.)
3. sim/jit/speedups.py: seven numba / llvmlite hot spots of compile time replaced by equivalent code, each active
   only while one of our kernels compiles (numba's code otherwise), and numba.np.arraymath imported early without
   importing scipy.linalg (process-wide: a module is imported once).  NUMJOCO_NUMBA_SPEEDUPS=0 (before `import
   sim`) leaves all of numba's code in place: identical kernels, slower cold compiles.

Not applied by install(), because it changes the process for a reason of the envs package only: openmp_passive_wait
(OMP_WAIT_POLICY=PASSIVE unless set), which `import envs` calls.

The rest of the numba machinery uses numba's extension points and replaces nothing process-wide:
- our kernels' code libraries are subclasses of numba's JITCodeLibrary (codegen.KernelLibrary, _LazyLibrary),
  created by our own lowering passes (registered with numba's pass registry under numjoco_* names);
- our lowering passes and cache loads run with a copy of numba's target context (BaseContext.subtarget) holding
  our get_executable; the no-refcount lowering uses a further copy with its own NRT context and its own table of
  compiled helper subroutines;
- while one of our parallel entries is lowered, numba's codegen object has an instance attribute create_library
  (making the libraries of that entry's parallel loops lazy), removed when the lowering ends;
- numba's "numba:compile" events are listened to (sim/jit/dispatch.py: is the innermost compile one of ours;
  sim/jit/progress.py: the messages of a first compile);
- the struct payload types register a data model for their own type (sim/jit/structs.py);
- our kernels are cached under numjoco's cache directory by our own cache class (sim/jit/cache.py); numba's
  NUMBA_CACHE_DIR / config.CACHE_DIR are not touched.
"""

import os

from llvmlite import ir as _llir
from numba.core import types

from sim.jit import speedups

_INSTALLED = []


def install():
    """Apply the replacements 1-3 (once per process; later calls do nothing)."""
    if _INSTALLED:
        return
    _INSTALLED.append(True)
    index_as_c()
    keep_openmp_threads()
    if os.environ.get("NUMJOCO_NUMBA_SPEEDUPS", "1") != "0":
        speedups.install()


# ------------------------------------------------------------------------------------------------------------
# 1. Kernels index arrays as C does.  numba gives a signed integer index Python's meaning: a negative one counts
# from the end, so every access whose index is not a compile-time constant compares it with 0 and selects
# index + size (numba.np.arrayobj.fix_integer_index).  In the pipeline's loops the indices come from model and data
# arrays (parents, row addresses, column indices), LLVM cannot prove them non-negative, and the test, the select and
# the size they keep live cost 4-9 % of a step (trajectories bitwise the same) and 29 % of mj_factorM's port.  Our
# kernels (functions of the sim and envs packages lowered by our pipelines) index with the value as is; a constant
# index (x[-1]) keeps Python's meaning, and so does numba's own library code, and so does any function lowered by
# numba's own pipeline (a plain numba.njit function, even one in a module named sim or envs).  A negative runtime
# index in a kernel is a bug, as in MuJoCo's C: the test suite runs clean under NUMBA_BOUNDSCHECK=1 with this on.

_OWN_SYMBOLS = ("_ZN3sim", "_ZN4envs")  # numba's mangled names of functions in the sim and envs packages


def index_as_c():
    """Replace numba.np.arrayobj.fix_integer_index by _fix_integer_index (numba's for code not ours)."""
    from numba.np import arrayobj

    numba_fix = arrayobj.fix_integer_index
    if getattr(numba_fix, "numjoco", False):
        return

    def _fix_integer_index(context, builder, idxty, idx, size):
        if (
            idxty.signed
            and not isinstance(idx, _llir.Constant)
            and getattr(context, "_numjoco_kernel", False)
            and builder.function.name.startswith(_OWN_SYMBOLS)
        ):
            return context.cast(builder, idx, idxty, types.intp)
        return numba_fix(context, builder, idxty, idx, size)

    _fix_integer_index.numjoco = True
    arrayobj.fix_integer_index = _fix_integer_index


# ------------------------------------------------------------------------------------------------------------
# 2. numba's thread-pool launch keeps the calling thread's OpenMP thread count.  With the omp threading layer
# numba's launch calls omp_set_num_threads(NUMBA_NUM_THREADS), and libgomp is shared with torch (and OpenMP BLAS):
# a torch.set_num_threads(1) made before became 2, spinning workers against ours (a small MLP's forward pass ran
# 7x slower, PPO on Hopper 2.5x slower than on Gymnasium's env).  The pool still starts lazily, at the first
# parallel call, so a process that never runs one stays safe to fork.


def keep_openmp_threads():
    """Wrap numba.np.ufunc.parallel._launch_threads: after numba's launch, each loaded libgomp gets back the
    thread count it had before."""
    from numba.np.ufunc import parallel

    launch = parallel._launch_threads
    if getattr(launch, "keeps_openmp_threads", False):
        return

    def _launch_threads():
        if parallel._is_initialized:
            return launch()
        import ctypes

        libs = []
        try:
            with open("/proc/self/maps") as f:
                paths = {line.split()[-1] for line in f if "libgomp" in line}
            for path in sorted(paths):
                lib = ctypes.CDLL(path)
                libs.append((lib, lib.omp_get_max_threads()))
        except (OSError, AttributeError, IndexError):  # no /proc, or not an OpenMP runtime: nothing to keep
            pass
        launch()
        for lib, before in libs:
            if lib.omp_get_max_threads() != before:
                lib.omp_set_num_threads(before)

    _launch_threads.keeps_openmp_threads = True
    parallel._launch_threads = _launch_threads


# ------------------------------------------------------------------------------------------------------------
# Opt-in, for the envs package (`import envs` calls it).


def openmp_passive_wait():
    """Set OMP_WAIT_POLICY=PASSIVE in the process environment unless it is set (the user's value wins).

    OpenMP workers (numba's with the omp threading layer, and any other OpenMP code of the process: torch, BLAS)
    otherwise spin after each parallel region (libgomp's default active wait); on a machine with more busy threads
    than cores a spinning worker holds the core its descheduled peer needs (8 worlds on 2 threads ran ~50x slower
    than on 1, README, vector envs).  With passive waiting a parallel call pays for waking its workers instead.
    libgomp reads the variable when it is loaded: it acts on the OpenMP runtimes loaded afterwards (numba loads its
    OpenMP pool at its first parallel call), not on one already loaded.  Child processes inherit it."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
