"""The numba decorator of every numjoco kernel: `njit`, compiling one specialisation per kernel.

numba's own dispatcher compiles a separate copy of a jitted callee (and of its whole call tree) for every
distinct argument type seen at a call site inside jitted code: `f(m, d, 0)` and `f(m, d, i)` give one copy for
`Literal[int](0)` and one for `int64`, an index read from an int32 array a third.  Measured on the full
pipeline (hopper, empty cache): 28 % of the cold compile time went to such duplicates (up to 14 copies of one
helper).  `KernelDispatcher` types every call with literals dropped and integers widened to int64 (uint64 if unsigned)
(tuples element-wise), so each kernel compiles once.  numba already computes integer arithmetic in int64
(intp), so the widening changes no result; the caller casts its arguments at the call.
"""
import contextlib
import hashlib as _hashlib
import os

try:
    import fcntl
except ImportError:        # Windows: numba's unlocked index
    fcntl = None

from sim.jit import cache as _cache  # (the cache directory must be chosen before any compile)
from sim.jit import progress as _progress  # noqa: F401  (first compiles report what they do, sim/jit/progress.py)
from sim.jit import speedups as _numba_speedups  # noqa: F401  (numba's compile-time hot spots, equivalent code)

import llvmlite.binding as _ll
from llvmlite import ir as _llir
from numba.core import cgutils as _cgutils
from numba.core import config, lowering, sigutils, types
from numba.core.caching import (CompileResultCacheImpl, FunctionCache, IndexDataCacheFile, NullCache,
                                UserProvidedCacheLocator)
from numba.core.codegen import JITCodeLibrary, JITCPUCodegen
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_lock import global_compiler_lock, require_global_compiler_lock
from numba.core.compiler_machinery import register_pass
from numba.core.datamodel import models as _models, register_default as _register_default
from numba.core.cpu import CPUContext
from numba.core.extending import intrinsic as _intrinsic
from numba.core.registry import CPUDispatcher
from numba.core.runtime.context import NRTContext
from numba.core.typed_passes import NativeLowering, NativeParforLowering


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


# ------------------------------------------------------------------------------------------------------------
# Kernels index arrays as C does.  numba gives a signed integer index Python's meaning: a negative one counts from
# the end, so every access whose index is not a compile-time constant compares it with 0 and selects index + size
# (numba.np.arrayobj.fix_integer_index).  In the pipeline's loops the indices come from model and data arrays
# (parents, row addresses, column indices), LLVM cannot prove them non-negative, and the test, the select and the
# size they keep live cost 4-9 % of a step (hopper 15.80 -> 14.76 us, walker2d 22.57 -> 20.73, ant 40.18 ->
# 36.69, humanoid 99.68 -> 95.93, pile of humanoids 81.56 -> 77.15; the trajectories bitwise the same) and 29 %
# of mj_factorM's port.  Our kernels (functions of the sim and envs packages) index with the value as is; a
# constant index (x[-1]) keeps Python's meaning, and so does numba's own library code.  A negative runtime index
# in a kernel is a bug, as in MuJoCo's C: the test suite runs clean under NUMBA_BOUNDSCHECK=1 with this on.
from numba.np import arrayobj as _arrayobj

_OWN_SYMBOLS = ('_ZN3sim', '_ZN4envs')     # numba's mangled names of functions in the sim and envs packages
_fix_integer_index_numba = _arrayobj.fix_integer_index


def _fix_integer_index(context, builder, idxty, idx, size):
    if idxty.signed and not isinstance(idx, _llir.Constant) and builder.function.name.startswith(_OWN_SYMBOLS):
        return context.cast(builder, idx, idxty, types.intp)
    return _fix_integer_index_numba(context, builder, idxty, idx, size)


_arrayobj.fix_integer_index = _fix_integer_index


# ------------------------------------------------------------------------------------------------------------
# Lazy code generation for kernels compiled only as callees.  numba finalises every compiled function on its own:
# it links the (already optimised) modules of its callees, runs LLVM's full O3 pipeline over the result and
# generates machine code for it, then every caller repeats that over its own linked tree.  For the pipeline
# (~380 kernels, call trees ~8 deep) that was 45 s of a 92 s cold compile, almost all of it spent on code no one
# runs: only the entry points (run_serial, ...) are ever called.  A kernel whose compilation was requested by
# the typing of a jitted caller (KernelDispatcher.get_call_template) gets a _LazyLibrary: finalising it links
# nothing and optimises nothing; the library that finally needs machine code (an entry, or a lazy kernel
# materialised) links the modules of its whole lazy call tree, each once (_link_closure), and O3 and machine
# code are produced there.  (Linking each lazy kernel's callees into its own module, as numba does, copied every
# kernel into the module of each of its ancestors: 1,100 module clones and links for hopper.)
# Such a kernel is not cached on disk (the entries are, with all their callees inside) and is not inserted
# into the dispatcher's call table; a later call from Python materialises it (KernelDispatcher.compile).

_MODE = []           # stack of 'lazy' / 'eager' for the compilations in progress (under numba's compiler lock)


def _link_closure(libraries):
    """`libraries` and, through every lazy library among them, its callees' libraries, each once (depth first,
    in linking order).  An eager library's module already holds its own callees (numba's finalize)."""
    out, seen = [], set()

    def visit(lib):
        if lib not in seen:
            seen.add(lib)
            out.append(lib)
            if isinstance(lib, _LazyLibrary):
                for callee in lib._linking_libraries:
                    visit(callee)

    for lib in libraries:
        visit(lib)
    return out


class _LazyLibrary(JITCodeLibrary):
    """JITCodeLibrary whose linking, O3 and machine code are deferred until a pointer or serialisation is asked
    for (or an eager library links it)."""

    def __init__(self, codegen, name):
        super().__init__(codegen, name)
        self._lazy = True          # O3 + machine code not generated yet
        self._envs = []            # (env name, env) of its functions, set once their code exists

    def finalize(self):
        require_global_compiler_lock()
        self._codegen._check_llvm_bugs()
        self._raise_if_finalized()
        for library in self._linking_libraries:
            self._reload_init.update(library._reload_init)
        self._finalized = True

    def materialize(self):
        """Link the lazy call tree, optimise and generate machine code now (what numba's finalize does)."""
        if self._lazy:
            self._lazy = False
            for library in _link_closure(self._linking_libraries):
                self._final_module.link_in(library._get_module_for_linking(), preserve=True)
            self._optimize_final_module()
            self._final_module.verify()
            self._finalize_final_module()

    def get_pointer_to_function(self, name):
        self.materialize()
        return super().get_pointer_to_function(name)

    def serialize_using_object_code(self):
        self.materialize()
        return super().serialize_using_object_code()

    def serialize_using_bitcode(self):
        self.materialize()
        return super().serialize_using_bitcode()

    def get_llvm_str(self):
        self.materialize()
        return super().get_llvm_str()

    def get_asm_str(self):
        self.materialize()
        return super().get_asm_str()

    @property
    def has_dynamic_globals(self):
        return any(gv.name.startswith('numba.dynamic.globals') for gv in self._final_module.global_variables)


# Linked-in kernels become internal before a library's final O3.  numba links every callee as linkonce_odr, which
# LLVM must keep callable from outside: no dead-argument elimination (a kernel taking arrays is passed every
# field of every array, 7-9 words each), no argument promotion, no "last call site" inlining.  Inside the module
# of the library being finalised (an entry point and the copies of its call tree) nothing else can call them, so
# internal linkage is exact; the library's own functions stay external.  Measured (hopper, one step per call):
# 18.8 -> 15.3 us per step; ant 39.4 -> 34.4 us.
# The final module then goes through LLVM's O3 pipeline once.  numba's CPUCodeLibrary._optimize_final_module runs
# it twice: a first O3 (its "cheap" pass manager: the O3 pipeline plus loop rotation, instcombine and jump
# threading) so that inlining brings NRT reference-count operations together for refcount pruning, then the full
# O3.  Kernels emit no reference counts (refcount=False below), and the refprune pass is part of the pipeline
# kept.  Measured, old and new tree at once, empty caches: hopper's step entry O3 10.1 -> 9.2 s (the first,
# "cheap" O3 was the smaller part); cold starts hopper 63.8 -> 59.2 CPU-s and 72.2 -> 67.4, humanoid 66.0 ->
# 62.9 (pairs scatter by several seconds with this machine).  Per step (min of 100-step blocks over 60 s, both
# trees at once, twice): hopper 17.2-17.3 vs 17.4 us, humanoid 77.4-77.5 vs 77.3-78.8, ant 40.9 vs 40.8-41.4,
# walker2d 27.5-27.9 vs 27.6-27.7, half_cheetah 7.8-7.9 vs 7.7-7.8: the same speed.  Results bitwise equal.


def _optimize_final_module_internal(self):
    for fn in self._final_module.functions:
        if not fn.is_declaration and fn.linkage == _ll.Linkage.linkonce_odr:
            fn.linkage = _ll.Linkage.internal
    pm, pb = self._codegen._module_pass_manager()
    with self._recorded_timings.record("Module passes (full optimization)", pb):
        pm.run(self._final_module, pb)


JITCodeLibrary._optimize_final_module = _optimize_final_module_internal

_finalize = JITCodeLibrary.finalize


def _finalize_eager(self):
    """numba's finalize, linking the whole lazy call tree of the library (see _link_closure)."""
    self._linking_libraries = _link_closure(self._linking_libraries)
    _finalize(self)


JITCodeLibrary.finalize = _finalize_eager


class _LazyEntry:
    """Placeholder for the compiled-function object of a lazy kernel: the key under which jitted callers find
    its implementation (numba's user-function table); never called."""

    def __init__(self, library, fndesc, env):
        self.library, self.fndesc, self.env = library, fndesc, env

    def __call__(self, *args, **kws):  # pragma: no cover (KernelDispatcher never exposes it to Python)
        raise RuntimeError('lazy numjoco kernel called before materialisation')


_get_executable = CPUContext.get_executable


def _get_executable_lazy(self, library, fndesc, env):
    if isinstance(library, _LazyLibrary) and library._lazy:
        library._envs.append((self.get_env_name(fndesc), env))
        return _LazyEntry(library, fndesc, env)
    if (fndesc.modname, fndesc.qualname) in _PART_KEYS:
        name = self.get_env_name(fndesc)
        if library.codegen._engine.is_symbol_defined(name):
            library.codegen.set_env(name, env)
        _set_linked_envs(library)
        return _PartEntry(library, fndesc, env)
    cfunc = _get_executable(self, library, fndesc, env)
    _set_linked_envs(library)
    return cfunc


def _set_linked_envs(library, seen=None):
    """Point the environment globals of the lazy kernels linked into `library` (now in the JIT engine) at their
    environments, as numba's get_executable does for a function it finalises itself."""
    seen = set() if seen is None else seen
    engine = library.codegen._engine
    for lib in library._linking_libraries:
        if id(lib) in seen:
            continue
        seen.add(id(lib))
        if isinstance(lib, _LazyLibrary):
            for name, env in lib._envs:
                if engine.is_symbol_defined(name):
                    library.codegen.set_env(name, env)
        _set_linked_envs(lib, seen)


CPUContext.get_executable = _get_executable_lazy


class KernelDispatcher(CPUDispatcher):
    """CPUDispatcher whose calls from jitted code resolve to the canonical signature (see module doc) and whose
    compilations requested by jitted callers are lazy (see above).

    A lazy compilation also skips the kernel's CPython and C wrappers (numba's no_cpython_wrapper /
    no_cfunc_wrapper): only jitted callers use it, and generating the wrappers, which unbox every field of the
    Model / Data structs, took 19 of the 145 profiled seconds of hopper's cold compile.  A lazy kernel later called
    from Python is compiled again, eagerly, with its wrappers (and cached)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._part = False          # compiled on its own and called by symbol (see part() below)
        self._compiler._customize_flags = self._flags

    def _flags(self, flags):
        """numba's _FunctionCompiler._customize_flags: no wrappers for a lazy compilation or a part."""
        if self._part or _current_mode() == 'lazy':
            flags.no_cpython_wrapper = True
            flags.no_cfunc_wrapper = True
        return flags

    def get_call_template(self, args, kws):
        args = tuple(canonical(a) for a in args)
        kws = {k: canonical(v) for k, v in kws.items()}
        _MODE.append('lazy')
        try:
            return super().get_call_template(args, kws)
        finally:
            _MODE.pop()

    def compile(self, sig):
        lazy = bool(_MODE) and _MODE[-1] == 'lazy' and not self._part
        with global_compiler_lock:
            args, _ = sigutils.normalize_signature(sig)
            existing = self.overloads.get(tuple(args))
            if existing is not None and not lazy and isinstance(existing.entry_point, _LazyEntry):
                return self._materialize(existing)
            _MODE.append('lazy' if lazy else 'eager')
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
            self.overloads[tuple(cres.signature.args)] = cres   # jitted callers only; not in the call table
            return
        super().add_overload(cres)

    def _materialize(self, cres):
        """A lazy kernel called from Python: compile it again, eagerly (with its wrappers, from or to the disk
        cache), in place of the lazy version (jitted callers typed later link the eager one)."""
        args = tuple(cres.signature.args)
        del self.overloads[args]
        _MODE.append('eager')
        try:
            return super().compile(args)
        finally:
            _MODE.pop()


def _current_mode():
    return _MODE[-1] if _MODE else 'eager'


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

    def lower_normal_function(self, fndesc):
        super().lower_normal_function(fndesc)
        attrs = self.function.attributes
        set.add(attrs, '"no-builtin-memset"')
        if (fndesc.modname, fndesc.qualname) in _ALWAYS_INLINE:
            attrs.add('alwaysinline')


# Kernel bodies carry two LLVM function attributes:
# - "no-builtin-memset": LLVM turns a loop that zeroes an array (`x[:] = 0.0`, `for i in range(n): x[i] = 0.0`)
#   into a call of libc's memset.  The pipeline's arrays are rows of a few to a few hundred doubles, where the
#   call costs more than the stores: 2.2-2.6 % of hopper's batched step was spent in memset, from 40 call sites.
#   With the attribute the loops stay loops (vectorised).
# - "alwaysinline" for kernels defined with njit(always_inline=True) (_ALWAYS_INLINE): small kernels that
#   return a large tuple of arrays (the solver's island context), which LLVM left as calls whose result is
#   stored to and reloaded from memory, ~100 words a call.
_ALWAYS_INLINE = set()


@register_pass(mutates_CFG=True, analysis_only=False)
class NoRefNativeLowering(NativeLowering):
    """numba's native lowering pass with _NoRefLower."""
    _name = "numjoco_noref_native_lowering"

    @property
    def lowering_class(self):
        return _NoRefLower

    def run_pass(self, state):
        _lazy_library(state)
        return NativeLowering.run_pass(self, state)


@register_pass(mutates_CFG=True, analysis_only=False)
class LazyNativeLowering(NativeLowering):
    """numba's native lowering pass, with a _LazyLibrary for kernels compiled as callees."""
    _name = "numjoco_lazy_native_lowering"

    def run_pass(self, state):
        _lazy_library(state)
        return NativeLowering.run_pass(self, state)


_HELPERS_LAZY = []   # set while an entry with parallel loops is lowered: its gufunc libraries are lazy too


@register_pass(mutates_CFG=True, analysis_only=False)
class ParallelEntryLowering(NativeParforLowering):
    """numba's native lowering for a parallel entry (reference counted): the entry's own library is eager, the
    libraries numba creates while lowering its parallel loops (the gufunc body and its two wrappers, each of
    which would run O3 and machine code over the whole linked call tree) are _LazyLibrary, so the tree is
    optimised once, in the entry."""
    _name = "numjoco_parallel_entry_lowering"

    def run_pass(self, state):
        _lazy_library(state)
        if state.library is None:
            state.library = state.targetctx.codegen().create_library(state.func_id.func_qualname)
            state.library.enable_object_caching()
        _HELPERS_LAZY.append(True)
        try:
            return NativeParforLowering.run_pass(self, state)
        finally:
            _HELPERS_LAZY.pop()


_create_library = JITCPUCodegen.create_library


# names numba gives the libraries of a parallel loop (parfor_lowering / np.ufunc.wrappers / np.ufunc.parallel);
# other libraries created meanwhile (numba's own overloads) stay eager: their dispatchers need real entry points
_GUFUNC_LIBRARIES = ('__numba_parfor_gufunc', 'parallelgufuncwrapper', '<numba.np.ufunc.wrappers._GufuncWrapper')


def _create_library_lazy(self, name, **kwargs):
    if _HELPERS_LAZY and str(name).startswith(_GUFUNC_LIBRARIES):
        return _LazyLibrary(self, name)
    return _create_library(self, name, **kwargs)


JITCPUCodegen.create_library = _create_library_lazy


def _lazy_library(state):
    """Give a kernel compiled as a callee a _LazyLibrary (before numba's lowering pass creates its library)."""
    if state.library is None and _current_mode() == 'lazy':
        state.library = _LazyLibrary(state.targetctx.codegen(), state.func_id.func_qualname)
        state.library.enable_object_caching()


def _compiler_class(lowering):
    class _Compiler(CompilerBase):
        def define_pipelines(self):
            pm = DefaultPassBuilder.define_nopython_pipeline(self.state)
            for i, (cls, desc) in enumerate(pm.passes):
                if cls is NativeLowering or cls is NativeParforLowering:
                    pm.passes[i] = (lowering, desc)
            pm.finalize()
            return [pm]
    return _Compiler


NoRefCompiler = _compiler_class(NoRefNativeLowering)    # no refcounts, lazy as a callee
LazyCompiler = _compiler_class(LazyNativeLowering)      # refcounts, lazy as a callee
ParallelCompiler = _compiler_class(ParallelEntryLowering)  # refcounts, parallel loops with lazy gufuncs


def njit(func=None, cache=True, refcount=False, **options):
    """numba.njit with KernelDispatcher; cache=True by default (keyed on the package sources, sim.jit.cache);
    refcount=False lowers the body without reference counting (see above; the function must not allocate);
    always_inline=True has LLVM inline the kernel into every caller (see _ALWAYS_INLINE).
    Division by zero follows C (IEEE inf / nan, error_model='numpy') as in MuJoCo, whose checks then warn and
    reset: numba's default ('python') raised ZeroDivisionError out of the step (e.g. a singular mass matrix)."""
    always_inline = options.pop('always_inline', False)
    targetoptions = dict(options, nopython=True)
    targetoptions.setdefault('error_model', 'numpy')

    def wrap(f):
        if config.DISABLE_JIT:
            return f
        if always_inline:
            _ALWAYS_INLINE.add((f.__module__, f.__qualname__))
        pipeline = NoRefCompiler if not refcount else (ParallelCompiler if options.get('parallel') else LazyCompiler)
        extra = {} if pipeline is None else {'pipeline_class': pipeline}
        disp = KernelDispatcher(py_func=f, locals={}, targetoptions=targetoptions, **extra)
        if cache and _cache.CACHE_DIR is not None:
            try:
                disp._cache = _GroupCache(f)
            except RuntimeError:        # no source file (interactive definition): not cached
                pass
        return disp

    return wrap if func is None else wrap(func)


class _GroupLocator(UserProvidedCacheLocator):
    """Cache locator under the kernel's group directory (sim.jit.cache.group_dir)."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        self._cache_path = os.path.join(_cache.group_dir(py_func.__module__),
                                        self.get_suitable_cache_subpath(py_file))

    @classmethod
    def from_function(cls, py_func, py_file):
        return super(UserProvidedCacheLocator, cls).from_function(py_func, py_file)


class _GroupCacheImpl(CompileResultCacheImpl):
    _locator_classes = [_GroupLocator]


@contextlib.contextmanager
def _locked(path):
    """Exclusive inter-process lock on the file at path (a no-op where fcntl is missing)."""
    if fcntl is None:
        yield
        return
    with open(path, 'a') as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


class _SafeCacheFile(IndexDataCacheFile):
    """numba's index + data cache files, safe when several processes compile at once (SubprocVecEnv or Ray
    workers, sweep trials, a test run next to a training run).  numba numbers a new data file from the index it
    read (1, 2, ...) and rewrites the index unlocked: two processes compiling two signatures could both write
    file 1, leaving the index naming the other signature's code (seen: a single-world step ran the code compiled
    for another feature set, 1 ulp from the batch and from MuJoCo).  Here a data file is named after its key and
    written whole before the index, which is re-read and rewritten under an exclusive lock."""

    def __init__(self, cache_path, filename_base, source_stamp):
        super().__init__(cache_path, filename_base, source_stamp)
        self._base = filename_base

    def save(self, key, data):
        name = '%s.%s.nbc' % (self._base, _hashlib.sha256(repr(key).encode()).hexdigest()[:16])
        os.makedirs(self._cache_path, exist_ok=True)    # removed under a running process (sim.jit.cache.prune)
        self._save_data(name, data)
        with _locked(self._index_path + '.lock'):
            overloads = self._load_index()
            overloads[key] = name
            self._save_index(overloads)


class _GroupCache(FunctionCache):
    _impl_class = _GroupCacheImpl

    def __init__(self, py_func):
        super().__init__(py_func)
        self._cache_file = _SafeCacheFile(self._cache_path, self._impl.filename_base,
                                          self._impl.locator.get_source_stamp())

    def _load_overload(self, sig, target_context):
        cres = super()._load_overload(sig, target_context)
        if cres is not None and tuple(cres.signature.args) != tuple(sigutils.normalize_signature(sig)[0]):
            return None         # an entry holding another signature's code (a cache written before the lock)
        return cres


# ------------------------------------------------------------------------------------------------------------
# Short names and named LLVM types for the big structrefs (Model, Data: hundreds of array fields).  numba names
# a StructRef type after its whole field list and gives its payload a literal LLVM struct type, so every
# mangled symbol taking a Model and every instruction touching the payload spelled out ~80 kB of text.


class _ShortPayload(types.StructRefPayload):
    """StructRefPayload with a short name (a digest of the field list)."""

    def __init__(self, typename, fields, short):
        # StructRefPayload.__init__ without its long name (the repr of every field type, ~80 kB for Data)
        self._typename = typename
        self._fields = tuple(fields)
        types.Type.__init__(self, name=short + '.payload')


_PAYLOADS = {}       # struct type -> its payload type (kept out of the type's pickled state)


def short_struct_type(cls):
    """Class decorator for a StructRef subclass: type name numjoco.<Class>_<digest>, payload likewise."""
    orig_init = cls.__init__

    def __init__(self, fields):
        orig_init(self, fields)
        digest = _hashlib.sha1(repr(self._fields).encode()).hexdigest()[:16]
        self.name = 'numjoco.%s_%s' % (cls.__name__, digest)

    def get_data_type(self):
        # the interned payload type, built once per struct type (numba asks at every field access it lowers)
        payload = _PAYLOADS.get(self)
        if payload is None:
            payload = _PAYLOADS[self] = _ShortPayload(self.__class__.__name__, self._fields, self.name)
        return payload

    cls.__init__ = __init__
    cls.get_data_type = get_data_type
    return cls


@_register_default(_ShortPayload)
class _NamedPayloadModel(_models.StructModel):
    """Payload model whose LLVM type is an identified struct (%"<name>"), printed once per module."""

    def __init__(self, dmm, fe_typ):
        super().__init__(dmm, fe_typ, tuple(fe_typ.field_dict.items()))

    def _named(self, kind, body):
        ty = _llir.global_context.get_identified_type('%s.%s' % (self.fe_type.name, kind))
        if ty.is_opaque:
            ty.set_body(*body.elements)
        return ty

    def get_value_type(self):
        if self._value_type is None:
            self._value_type = self._named('v', super().get_value_type())
        return self._value_type

    def get_data_type(self):
        if self._data_type is None:
            self._data_type = self._named('d', super().get_data_type())
        return self._data_type


# ------------------------------------------------------------------------------------------------------------
# Structs by address: a batch entry takes one Model struct per world (per-world model fields for domain
# randomisation share every other array) as an int64 array of meminfo addresses; the Python side keeps the
# structs alive for the call.


def _struct_from_address(context, builder, struct_type, ptr):
    """Code for the struct of struct_type whose meminfo is at address ptr (an int64 value): a new reference."""
    st = _cgutils.create_struct_proxy(struct_type)(context, builder)
    st.meminfo = builder.inttoptr(ptr, st.meminfo.type)
    val = st._getvalue()
    context.nrt.incref(builder, struct_type, val)
    return val


@_intrinsic
def struct_at(typingctx, ptr, like):
    """The struct of `like`'s type whose meminfo is at address `ptr` (a new reference)."""
    def codegen(context, builder, sig, args):
        return _struct_from_address(context, builder, like, args[0])
    return like(ptr, like), codegen


def struct_at_address(struct_type):
    """An intrinsic f(ptr) -> the struct of struct_type whose meminfo is at address ptr (a new reference): for
    entries called from Python with addresses (`struct_addr`), an int unboxing in ~10 ns where a struct takes ~60
    (numba's StructRef unboxing reads the proxy's meminfo through Python)."""
    @_intrinsic
    def at(typingctx, ptr):
        def codegen(context, builder, sig, args):
            return _struct_from_address(context, builder, struct_type, args[0])
        return struct_type(types.int64), codegen
    return at


def struct_addr(st):
    """The meminfo address of a struct's Python proxy (what struct_address gives in jitted code), read from
    numba's MemInfo object (a PyObject header, then the NRT_MemInfo pointer) and remembered on the proxy.  The
    caller keeps the proxy alive while jitted code uses the address."""
    a = st.__dict__.get('_addr')
    if a is None:
        import ctypes
        a = st.__dict__['_addr'] = ctypes.c_void_p.from_address(id(st._meminfo) + object.__basicsize__).value
    return a


@_intrinsic
def struct_address(typingctx, st):
    """The meminfo address of a struct (int64)."""
    def codegen(context, builder, sig, args):
        s = _cgutils.create_struct_proxy(st)(context, builder, value=args[0])
        return builder.ptrtoint(s.meminfo, _cgutils.intp_t)
    return types.intp(st), codegen


@_intrinsic
def struct_alloc(typingctx, struct_type):
    """A new struct of struct_type (a StructRef type reference) with every field zero / null; the fields are set
    from Python by `struct_new`.  Its destructor releases the arrays the fields hold."""
    from numba.experimental.jitclass.base import imp_dtor
    inst_type = struct_type.instance_type

    def codegen(context, builder, sig, args):
        model = context.data_model_manager[inst_type.get_data_type()]
        alloc_type = model.get_value_type()
        meminfo = context.nrt.meminfo_alloc_dtor(
            builder, context.get_constant(types.uintp, context.get_abi_sizeof(alloc_type)),
            imp_dtor(context, builder.module, inst_type))
        data_pointer = builder.bitcast(context.nrt.meminfo_data(builder, meminfo), alloc_type.as_pointer())
        builder.store(_cgutils.get_null_value(alloc_type), data_pointer)
        inst = context.make_helper(builder, inst_type)
        inst.meminfo = meminfo
        return inst._getvalue()
    return inst_type(struct_type), codegen


_LAYOUTS = {}
_ABI = {}       # field type -> (ABI size, ABI alignment)


def _struct_layout(inst_type):
    """[(name, numba type, numpy dtype or None, byte offset)] of the fields of a struct's data block (the C
    layout of numba's LLVM struct: each field at the next multiple of its ABI alignment)."""
    lay = _LAYOUTS.get(inst_type)
    if lay is None:
        from numba.core.registry import cpu_target
        from numba.np.numpy_support import as_dtype
        ctx = cpu_target.target_context
        lay, off = [], 0
        for name, ftype in inst_type._fields:
            if not (isinstance(ftype, types.Array) and ftype.layout == 'C' and ftype.mutable) \
                    and ftype != types.int64:
                raise TypeError('struct_new: field %s of type %s (only int64 and C arrays)' % (name, ftype))
            sa = _ABI.get(ftype)
            if sa is None:      # llvmlite answers by parsing the type's IR: ~0.2 ms a field, ~0.1 s a warm start
                lt = ctx.get_value_type(ftype)
                sa = _ABI[ftype] = (ctx.get_abi_sizeof(lt), ctx.get_abi_alignment(lt))
            size, align = sa
            off = (off + align - 1) // align * align
            lay.append((name, ftype, as_dtype(ftype.dtype) if isinstance(ftype, types.Array) else None, off))
            off += size
        total = ctx.get_abi_sizeof(ctx.data_model_manager[inst_type.get_data_type()].get_value_type())
        if not off <= total < off + 8:
            raise RuntimeError('struct_new: unexpected layout of %s' % inst_type)
        _LAYOUTS[inst_type] = lay
    return lay


_ADAPT_NDARRAY = []


def struct_new(alloc, struct_type, values):
    """A struct of struct_type with its fields set from `values` (in field order; int64 scalars as ints, arrays
    C-contiguous, writeable, of the field's dtype and rank), built from Python: `alloc(struct_type)` (a jitted
    function returning struct_alloc(struct_type)) makes the empty struct, then each array field is filled as
    numba's argument unboxing fills it (NRT_adapt_ndarray_from_python: a reference to the array held by the
    struct) and each scalar written in place.  A jitted constructor taking the values as one tuple cost 5 s of
    compile per struct type (its wrapper unboxes ~250 arrays); this costs one small jitted allocator."""
    import ctypes
    import numpy as np
    if not _ADAPT_NDARRAY:
        from numba.core.runtime import _nrt_python
        _ADAPT_NDARRAY.append(ctypes.CFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_void_p)(
            _nrt_python.c_helpers['adapt_ndarray_from_python']))
    adapt = _ADAPT_NDARRAY[0]
    lay = _struct_layout(struct_type)
    if len(values) != len(lay):
        raise TypeError('struct_new: %d values for the %d fields of %s' % (len(values), len(lay), struct_type))
    for (name, ftype, dtype, _), v in zip(lay, values):
        if dtype is not None and not (isinstance(v, np.ndarray) and v.dtype == dtype and v.ndim == ftype.ndim
                                      and v.flags.c_contiguous and v.flags.writeable and v.flags.aligned):
            raise TypeError('struct_new: field %s is %s, got %r' % (name, ftype, getattr(v, 'dtype', type(v))))
    st = alloc(struct_type)
    base = st._meminfo.data
    for (name, ftype, dtype, off), v in zip(lay, values):
        if dtype is None:
            ctypes.c_int64.from_address(base + off).value = int(v)
        elif adapt(v, base + off) != 0:
            raise TypeError('struct_new: field %s: not an array numba can hold' % name)
    return st


# ------------------------------------------------------------------------------------------------------------
# Parts: a cold compile on two cores.  numba compiles an entry's whole call tree in one process, one kernel
# after another (hopper's step: ~0.13 s of numba's Python per kernel for ~260 kernels, then ~15 s of LLVM over
# the linked tree).  A part is a kernel f(m, d, w[, F]) that jitted code does not call as numba does (typing and
# linking its tree into the caller) but by a symbol, numjoco_part_<module>_<name>[.F<bits>]: the caller's code
# declares the function and calls it with numba's calling convention, and the part is compiled on its own, as
# an entry without wrappers, cached on disk like one.  When a caller is typed and the part is neither compiled in
# this process nor in the disk cache, a worker process (python -c, same cache, quiet) compiles it - and every
# other part for that feature set - while this process goes on with the rest of the tree.  Before a library that
# declares a part symbol gets machine code (fresh or loaded from the cache), the part is loaded (waiting for its
# worker if need be; compiled here if the worker failed or workers are off) and its address given to LLVM under
# that symbol (llvmlite's add_symbol).  The call across costs one indirect call and no inlining at the seam,
# so a part is a whole stage (sim/engine/parts.py: collision, make_constraint, fwd_constraint, passive,
# rne_post_constraint).  The parts' F is masked to the features they use, so feature sets that differ elsewhere
# share them.  NUMJOCO_COMPILE_WORKERS=0 compiles parts in-process; so does a process that finds every worker slot
# of its cache (half the machine's cores) taken (_worker_slot).  A part made with worker=False is never sent to
# the worker: a first compile runs it in the process that needs it, after typing the caller (to even the shares).
# Measured (2026-11-27, 2 cores, empty caches, one tree after the other): hopper import + load + first step 56.8
# -> 32.7 s wall (parent 27.6 CPU-s, worker 28.3), humanoid 52.1 -> 34.4; the test suite 14:55 -> 11:26.  Per
# step, both trees at once, twice (min of 100-step blocks over 60 s): hopper 17.4-17.7 -> 16.2-16.6 us,
# half_cheetah 7.9-8.0 -> 7.0-7.3, walker2d 27.5-27.9 -> 26.3-26.9, ant 40.4-40.9 -> 39.1-39.4, humanoid
# 76.9-77.2 -> 75.7-76.2: smaller modules, no slower code.  Results bitwise equal (300 random-control steps).

import atexit as _atexit
import inspect as _inspect
import subprocess as _subprocess
import sys as _sys
import time as _time

PART_PREFIX = 'numjoco_part_'
_PARTS = {}          # stem -> (dispatcher, argument types without F (a function: the types module loads late), uses,
                     #          compiled by a worker)
_PART_KEYS = set()   # (module, qualname) of the part kernels: their compiled form has no wrappers (_PartEntry)
_PART_READY = {}     # symbol -> compile result, its address given to LLVM
_PART_WORKERS = {}   # symbol -> the worker process compiling it
PART_STATS = {'workers': 0, 'wait': 0.0, 'compiled_here': 0}
PART_TIMEOUT = 900   # s a caller waits for a worker before compiling the part itself


class _PartEntry:
    """The compiled-function object of a part: its library and the address of its native function."""

    def __init__(self, library, fndesc, env):
        self.library, self.fndesc, self.env = library, fndesc, env
        self.address = library.get_pointer_to_function(fndesc.llvm_func_name)

    def __call__(self, *args, **kws):  # pragma: no cover (parts are called by symbol from jitted code only)
        raise RuntimeError('a numjoco part is called from jitted code only')


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
    stem = (fn.__module__ + '_' + fn.__name__).replace('.', '_')
    _PARTS[stem] = (disp, argtypes, None if nf is None else tuple(uses), worker)
    _PART_KEYS.add((fn.__module__, fn.__qualname__))
    params = list(_inspect.signature(fn).parameters)
    env = dict(__name__=__name__, types=types, _part_typer=_part_typer, _part_codegen=_part_codegen, stem=stem)
    exec('def call(typingctx, {p}, full):\n'
         '    sig, symbol = _part_typer(stem, ({p},), full)\n'
         '    return sig, lambda context, builder, sig_, args: _part_codegen(context, builder, symbol, sig_, args)\n'
         .format(p=', '.join(params)), env)
    env['call'] = _intrinsic(env['call'])
    p = ', '.join(params if nf is None else params[:-1])
    if nf is None:
        body = 'call({p}, F)'.format(p=p)
    else:
        masked = ', '.join('F[%d]' % i if i in uses else 'None' for i in range(nf))
        body = 'call({p}, ({m},), F)'.format(p=p, m=masked)
    exec('def stub({p}, F):\n    {b}\n'.format(p=p, b=body), env)
    stub = env['stub']
    stub.__name__ = stub.__qualname__ = 'part_' + fn.__name__
    stub.__doc__ = fn.__doc__
    return njit(stub)


def _bits(ftype, uses):
    """'0'/'1' per feature of a feature-set type (None / True), only those in uses kept."""
    return ''.join('1' if i in uses and not isinstance(t, types.NoneType) else '0' for i, t in enumerate(ftype))


def part_symbol(stem, bits):
    return PART_PREFIX + stem + ('' if bits is None else '.F' + bits)


def _part_argtypes(stem, bits):
    args = tuple(_PARTS[stem][1]())
    if bits is not None:
        args += (types.Tuple([types.boolean if b == '1' else types.none for b in bits]),)
    return args


def _part_typer(stem, args, full):
    """Typing of a call to part `stem`: (signature, symbol); requests the parts of the caller's feature set."""
    uses = _PARTS[stem][2]
    args = tuple(canonical(a) for a in args)
    bits = None if uses is None else _bits(args[-1], uses)
    symbol = part_symbol(stem, bits)
    if args != _part_argtypes(stem, bits):
        raise TypeError('numjoco part %s called with %s, compiled for %s' % (stem, args, _part_argtypes(stem, bits)))
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


def _workers_allowed():
    if _cache.CACHE_DIR is None or os.environ.get('NUMJOCO_COMPILE_WORKERS', '1') == '0':
        return False
    return not os.environ.get('NUMJOCO_PART_WORKER') and _cores() > 1


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
        f = open(os.path.join(_cache.CACHE_ROOT, 'part_worker.%d.lock' % i), 'a')
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
    slot = _worker_slot() if todo and _workers_allowed() else None
    if slot is not None:
        root = os.path.dirname(_cache.PACKAGE_DIR)
        env = dict(os.environ, NUMJOCO_CACHE_DIR=_cache.CACHE_ROOT, NUMJOCO_QUIET='1', NUMJOCO_PART_WORKER='1')
        code = 'import sys; sys.path.insert(0, %r); import sim.jit; sim.jit._part_worker(%r)' % (root, todo)
        try:
            proc = _subprocess.Popen([_sys.executable, '-c', code], env=env, stdin=_subprocess.DEVNULL,
                                     stdout=_subprocess.DEVNULL, stderr=_subprocess.DEVNULL,
                                     pass_fds=() if slot is True else (slot.fileno(),))
        finally:
            if slot is not True:
                slot.close()    # the worker holds the slot's lock until it exits
        PART_STATS['workers'] += 1
        for _, st, b in todo:
            _PART_WORKERS[part_symbol(st, b)] = proc


def _part_load(stem, bits, compile):
    """Load part `stem` for `bits` (from this process or the disk cache; compiled here if `compile`) and give its
    address to LLVM; True when it is ready."""
    symbol = part_symbol(stem, bits)
    if symbol in _PART_READY:
        return True
    disp = _PARTS[stem][0]
    args = _part_argtypes(stem, bits)
    cres = disp.overloads.get(args)
    if cres is None:
        _MODE.append('eager')
        try:
            with global_compiler_lock:
                if compile:
                    disp.compile(args)
                    cres = disp.overloads.get(args)
                elif not isinstance(disp._cache, NullCache):
                    cres = disp._cache.load_overload(args, disp.targetctx)
                    if cres is not None:
                        disp.add_overload(cres)
        finally:
            _MODE.pop()
    if cres is None:
        return False
    _ll.add_symbol(symbol, cres.entry_point.address)
    _PART_READY[symbol] = cres
    return True


def _part_resolve(symbol):
    """Make the part named `symbol` ready: wait for its worker, then load it (or compile it here)."""
    name = symbol[len(PART_PREFIX):]
    stem, _, bits = name.partition('.F')
    if stem not in _PARTS:
        raise RuntimeError('numjoco: no part registered for symbol %s' % symbol)
    proc = _PART_WORKERS.pop(symbol, None)
    if proc is not None:
        t = _time.perf_counter()
        try:
            proc.wait(timeout=PART_TIMEOUT)
        except _subprocess.TimeoutExpired:      # a stuck worker: compiled here instead
            proc.kill()
        PART_STATS['wait'] += _time.perf_counter() - t
    if not _part_load(stem, bits or None, compile=False):
        PART_STATS['compiled_here'] += _PARTS[stem][3]
        _part_load(stem, bits or None, compile=True)


def _part_worker(todo):
    """Entry of a worker process: compile (and cache) the parts in todo [(module, stem, bits)]."""
    import importlib
    for module, stem, bits in todo:
        importlib.import_module(module)
        _part_load(stem, bits, compile=True)


@_atexit.register
def _stop_workers():
    for proc in set(_PART_WORKERS.values()):
        if proc.poll() is None:
            proc.kill()


_finalize_final_module = JITCodeLibrary._finalize_final_module


def _finalize_final_module_parts(self):
    """numba's _finalize_final_module, after making ready the parts the library's code calls (declared symbols of
    its module, or of its linking module when it was loaded from the cache as object code)."""
    for mod in (self._final_module, getattr(self, '_shared_module', None)):
        if mod is not None:
            for fn in mod.functions:
                if fn.is_declaration and fn.name.startswith(PART_PREFIX) and fn.name not in _PART_READY:
                    _part_resolve(fn.name)
    _finalize_final_module(self)


JITCodeLibrary._finalize_final_module = _finalize_final_module_parts
