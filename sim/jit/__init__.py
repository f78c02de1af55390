"""numjoco's numba machinery: how the kernels of sim/ and envs/ are compiled, cached and called.

    cache.py      the disk cache: its directory (keyed on a hash of the sources), numba's cache files made safe for
                  concurrent writers, and the cache entries of our kernels
    codegen.py    lazy code generation (a kernel compiled as a callee gets machine code only inside the entry that
                  needs it), lowering without reference counts, kernel function attributes, the compiler pipelines
    dispatch.py   `njit` and its KernelDispatcher: one canonical signature per kernel, lazy callees
    parts.py      `part`: whole stages compiled on their own (in a worker process on a cold start), called by symbol
    structs.py    struct types (short names) and intrinsics: structs by address, struct_new from Python
    patches.py    every replacement of a numba / llvmlite / OpenMP internal, with its scope, and install()
    speedups.py   equivalent faster code for numba's compile-time hot spots (one of patches.py's replacements)
    features.py   feature sets: compile only the parts of the pipeline a model uses
    progress.py   what a first compile tells the user
    precompile.py the driver of `python -m sim.precompile` and `numjoco-precompile`: the cache ahead of time
    atomic.py     fetch_add: an atomic counter, for work queues inside parallel regions

The rest of the code imports its decorators and intrinsics from here (`from sim.jit import njit, struct_addr`).
Importing this package applies patches.install() once: see patches.py for what that changes in the process.
"""

from sim.jit import cache  # noqa: F401  (the cache directory of this source version)
from sim.jit import progress  # noqa: F401  (first compiles report what they do)
from sim.jit import patches
from sim.jit.dispatch import KernelDispatcher, canonical, njit  # noqa: F401
from sim.jit.parts import (  # noqa: F401
    PART_STATS,
    background_compiles,
    compile_in_worker,
    load_compiled,
    part,
    request_parts,
)
from sim.jit.structs import (  # noqa: F401
    short_struct_type,
    struct_addr,
    struct_address,
    struct_alloc,
    struct_at,
    struct_at_address,
    struct_new,
)

patches.install()
