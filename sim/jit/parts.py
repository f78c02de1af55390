"""Parts: a cold compile on two cores.

numba compiles an entry's whole call tree in one process, one kernel after another (for hopper's step, ~260
kernels of numba's Python typing and lowering, then LLVM over the linked tree).  A part is a kernel f(m, d, w[, F])
that jitted code does not call as numba does (typing and linking its tree into the caller) but by a symbol,
numjoco_part_<module>_<name>[.F<bits>]: the caller's code declares the function and calls it with numba's calling
convention, and the part is compiled on its own, as an entry without wrappers, cached on disk like one.  When a
caller is typed and the part is neither compiled in this process nor in the disk cache, a worker process (python
-c, same cache, quiet) compiles it - and every other part for that feature set - while this process goes on with
the rest of the tree.  Before a library that declares a part symbol gets machine code (fresh or loaded from the
cache), the part is loaded (waiting for its worker if need be; compiled here if the worker failed or workers are
off) and its address given to LLVM under that symbol (llvmlite's add_symbol; sim/jit/codegen.py SYMBOL_RESOLVERS).
The call across costs one indirect call and no inlining at the seam, so a part is a whole stage
(sim/engine/parts.py: collision, make_constraint, the three constraint parts, passive,
rne_post_constraint).  The parts' F is masked to the features they use, so feature sets that differ elsewhere share
them.  NUMJOCO_COMPILE_WORKERS=0
compiles parts in-process; so does a process that finds every worker slot of its cache (half the machine's cores)
taken (_worker_slot).  A part made with worker=False is never sent to the worker: a first compile runs it in the
process that needs it, after typing the caller (to even the shares).

With a worker, a cold start of hopper takes about 0.6 of the wall time of one process compiling everything; the
smaller modules also make no slower code.  Results are bitwise the same either way.

The same workers compile a whole entry in the background (compile_in_worker, load_compiled): the batched step on
blocks, which the caller replaces by the per-world entry (the same numbers) until the worker has cached it
(sim/api.py _Background).
"""

import atexit as _atexit
import inspect as _inspect
import os
import subprocess as _subprocess
import sys as _sys
import time as _time

try:
    import fcntl
except ImportError:  # Windows: no worker slots
    fcntl = None

import llvmlite.binding as _ll
from numba.core import cgutils as _cgutils, config, types
from numba.core.caching import NullCache
from numba.core.compiler_lock import global_compiler_lock
from numba.core.extending import intrinsic as _intrinsic

from sim.jit import cache as _cache
from sim.jit.codegen import _MODE, PART_KEYS, SYMBOL_RESOLVERS
from sim.jit.dispatch import canonical, njit

PART_PREFIX = "numjoco_part_"
_PARTS = {}  # stem -> (dispatcher, argument types without F (a function: the types module loads late), uses,
#          compiled by a worker)
_PART_READY = {}  # symbol -> compile result, its address given to LLVM
_PART_WORKERS = {}  # symbol -> the worker process compiling it
_WORKERS = set()  # every worker process started (killed at exit if still running)
PART_STATS = {"workers": 0, "wait": 0.0, "compiled_here": 0}
PART_TIMEOUT = 900  # s a caller waits for a worker before compiling the part itself


def part(fn, argtypes, nf=None, uses=(), worker=True):
    """Make the kernel fn(m, d, w[, F]) (returning nothing) a part (see above); returns the jitted stub
    stub(m, d, w, F) jitted code calls instead of fn, with the caller's feature set F (which names the parts to
    compile together).  argtypes() gives the types of fn's arguments before F; with nf (the length of F) fn's
    last argument is F, masked to the indices in `uses`; without, fn takes no F.  worker=False: a first compile
    of the part runs in the process that needs it (after its caller's typing), not in the worker, to balance
    the two."""
    if config.DISABLE_JIT:
        return fn if nf is not None else (lambda *args: fn(*args[:-1]))
    disp = njit(fn)
    disp._part = True
    stem = (fn.__module__ + "_" + fn.__name__).replace(".", "_")
    _PARTS[stem] = (disp, argtypes, None if nf is None else tuple(uses), worker)
    PART_KEYS.add((fn.__module__, fn.__qualname__))
    params = list(_inspect.signature(fn).parameters)
    env = dict(__name__=__name__, types=types, _part_typer=_part_typer, _part_codegen=_part_codegen, stem=stem)
    exec(
        "def call(typingctx, {p}, full):\n"
        "    sig, symbol = _part_typer(stem, ({p},), full)\n"
        "    return sig, lambda context, builder, sig_, args: _part_codegen(context, builder, symbol, sig_, args)\n".format(
            p=", ".join(params)
        ),
        env,
    )
    env["call"] = _intrinsic(env["call"])
    p = ", ".join(params if nf is None else params[:-1])
    if nf is None:
        body = "call({p}, F)".format(p=p)
    else:
        masked = ", ".join("F[%d]" % i if i in uses else "None" for i in range(nf))
        body = "call({p}, ({m},), F)".format(p=p, m=masked)
    exec("def stub({p}, F):\n    {b}\n".format(p=p, b=body), env)
    stub = env["stub"]
    stub.__name__ = stub.__qualname__ = "part_" + fn.__name__
    stub.__doc__ = fn.__doc__
    return njit(stub)


def _bits(ftype, uses):
    """'0'/'1' per feature of a feature-set type (None / True), only those in uses kept."""
    return "".join("1" if i in uses and not isinstance(t, types.NoneType) else "0" for i, t in enumerate(ftype))


def part_symbol(stem, bits):
    return PART_PREFIX + stem + ("" if bits is None else ".F" + bits)


def _part_argtypes(stem, bits):
    args = tuple(_PARTS[stem][1]())
    if bits is not None:
        args += (types.Tuple([types.boolean if b == "1" else types.none for b in bits]),)
    return args


def _part_typer(stem, args, full):
    """Typing of a call to part `stem`: (signature, symbol); requests the parts of the caller's feature set."""
    uses = _PARTS[stem][2]
    args = tuple(canonical(a) for a in args)
    bits = None if uses is None else _bits(args[-1], uses)
    symbol = part_symbol(stem, bits)
    if args != _part_argtypes(stem, bits):
        raise TypeError("numjoco part %s called with %s, compiled for %s" % (stem, args, _part_argtypes(stem, bits)))
    if symbol not in _PART_READY and symbol not in _PART_WORKERS:
        request_parts(full)
    return types.none(*args, full), symbol


def _part_codegen(context, builder, symbol, sig, args):
    """A call of the part's native function by symbol (numba's call_internal, without linking the callee)."""
    argtypes = sig.args[:-1]
    fnty = context.call_conv.get_function_type(types.none, argtypes)
    fn = _cgutils.get_or_insert_function(builder.module, fnty, symbol)
    status, _ = context.call_conv.call_function(builder, fn, types.none, argtypes, args[:-1])
    with _cgutils.if_unlikely(builder, status.is_error):
        context.call_conv.return_status_propagate(builder, status)
    return context.get_dummy_value()


def _cores():
    """The cores this process may run on (its affinity: a container's or a batch job's share, not the machine's)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def background_compiles():
    """True when this process may compile in a worker process (a writable cache, workers not turned off
    (NUMJOCO_COMPILE_WORKERS=0), more than one core, not itself a worker)."""
    if _cache.CACHE_DIR is None or os.environ.get("NUMJOCO_COMPILE_WORKERS", "1") == "0":
        return False
    return not os.environ.get("NUMJOCO_PART_WORKER") and _cores() > 1


def request_parts(full):
    """Load the parts of feature set `full` (its numba type) from the disk cache, or start a worker compiling those
    it does not hold; never raises (a part not ready when a caller needs it is compiled there)."""
    try:
        with global_compiler_lock:
            _part_request(full)
    except Exception:
        pass


def _worker_slot():
    """One of the cache's worker slots (half the cores it may use, at least one: processes that start cold at once
    on one cache, e.g. a SubprocVecEnv's, must not double the compiling processes): an open lock file in the cache
    root, locked, for the worker to inherit; None when every slot is taken (the parts are then compiled in this
    process); True without fcntl."""
    if fcntl is None:
        return True
    for i in range(max(1, _cores() // 2)):
        f = open(os.path.join(_cache.CACHE_ROOT, "part_worker.%d.lock" % i), "a")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return f
        except OSError:
            f.close()
    return None


def _part_request(full):
    todo = []
    for st, (_, _, uses, worker) in _PARTS.items():
        if not worker:
            continue
        b = None if uses is None else _bits(full, uses)
        sym = part_symbol(st, b)
        if sym in _PART_READY or sym in _PART_WORKERS or _part_load(st, b, compile=False):
            continue
        todo.append((_PARTS[st][0].py_func.__module__, st, b))
    proc = _spawn("sim.jit.parts._part_worker(%r)" % (todo,)) if todo else None
    if proc is not None:
        for _, st, b in todo:
            _PART_WORKERS[part_symbol(st, b)] = proc


def _spawn(call):
    """A worker process (python -c, this cache, quiet) running `call` after importing sim.jit.parts, holding one of
    the cache's worker slots until it exits; None when workers are off or every slot is taken."""
    slot = _worker_slot() if background_compiles() else None
    if slot is None:
        return None
    root = os.path.dirname(_cache.PACKAGE_DIR)
    env = dict(os.environ, NUMJOCO_CACHE_DIR=_cache.CACHE_ROOT, NUMJOCO_QUIET="1", NUMJOCO_PART_WORKER="1")
    code = "import sys; sys.path.insert(0, %r); import sim.jit.parts; %s" % (root, call)
    try:
        proc = _subprocess.Popen(
            [_sys.executable, "-c", code],
            env=env,
            stdin=_subprocess.DEVNULL,
            stdout=_subprocess.DEVNULL,
            stderr=_subprocess.DEVNULL,
            pass_fds=() if slot is True else (slot.fileno(),),
        )
    finally:
        if slot is not True:
            slot.close()  # the worker holds the slot's lock until it exits
    PART_STATS["workers"] += 1
    _WORKERS.add(proc)
    return proc


def compile_in_worker(disp, nint, F):
    """Start a worker process compiling the module-level kernel disp for nint int64 arguments then the feature set
    F (a tuple of True / None) into the disk cache: an entry compiled in the background, which this process loads
    once the worker has exited (load_compiled).  Returns the process, or None when no worker may run now (workers
    off, or every worker slot taken)."""
    f = disp.py_func
    bits = "".join("0" if x is None else "1" for x in F)
    return _spawn("sim.jit.parts._entry_worker(%r, %r, %d, %r)" % (f.__module__, f.__name__, nint, bits))


def load_compiled(disp, args):
    """The compile result of kernel disp for argument types args from this process or the disk cache, never
    compiling; None when neither holds it."""
    cres = disp.overloads.get(args)
    if cres is None and not isinstance(disp._cache, NullCache):
        _MODE.append("eager")
        try:
            with global_compiler_lock:
                cres = disp._cache.load_overload(args, disp.targetctx)
                if cres is not None:
                    disp.add_overload(cres)
        finally:
            _MODE.pop()
    return cres


def _part_load(stem, bits, compile):
    """Load part `stem` for `bits` (from this process or the disk cache; compiled here if `compile`) and give its
    address to LLVM; True when it is ready."""
    symbol = part_symbol(stem, bits)
    if symbol in _PART_READY:
        return True
    disp = _PARTS[stem][0]
    args = _part_argtypes(stem, bits)
    cres = load_compiled(disp, args)
    if cres is None and compile:
        _MODE.append("eager")
        try:
            with global_compiler_lock:
                disp.compile(args)
                cres = disp.overloads.get(args)
        finally:
            _MODE.pop()
    if cres is None:
        return False
    _ll.add_symbol(symbol, cres.entry_point.address)
    _PART_READY[symbol] = cres
    return True


def _part_resolve(symbol):
    """Make the part named `symbol` ready: wait for its worker, then load it (or compile it here)."""
    name = symbol[len(PART_PREFIX) :]
    stem, _, bits = name.partition(".F")
    if stem not in _PARTS:
        raise RuntimeError("numjoco: no part registered for symbol %s" % symbol)
    proc = _PART_WORKERS.pop(symbol, None)
    if proc is not None:
        t = _time.perf_counter()
        try:
            proc.wait(timeout=PART_TIMEOUT)
        except _subprocess.TimeoutExpired:  # a stuck worker: compiled here instead
            proc.kill()
        PART_STATS["wait"] += _time.perf_counter() - t
    if not _part_load(stem, bits or None, compile=False):
        PART_STATS["compiled_here"] += _PARTS[stem][3]
        _part_load(stem, bits or None, compile=True)


def _part_worker(todo):
    """Entry of a worker process: compile (and cache) the parts in todo [(module, stem, bits)]."""
    import importlib

    for module, stem, bits in todo:
        importlib.import_module(module)
        _part_load(stem, bits, compile=True)


def _entry_worker(module, name, nint, bits):
    """Entry of a worker process: compile (and cache) kernel module.name for nint int64 arguments and the feature
    set of `bits` ('1': True, '0': None)."""
    import importlib

    import numba

    disp = getattr(importlib.import_module(module), name)
    F = tuple(True if c == "1" else None for c in bits)
    disp.compile((types.int64,) * nint + (numba.typeof(F),))


@_atexit.register
def _stop_workers():
    for proc in _WORKERS:
        if proc.poll() is None:
            proc.kill()


SYMBOL_RESOLVERS[PART_PREFIX] = _part_resolve
