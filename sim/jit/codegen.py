"""How numjoco's kernels are lowered and turned into machine code: lazy code generation, lowering without reference
counts, kernel function attributes, and the compiler pipelines that use them.

Everything here applies to the kernels of `sim.jit.njit` only, through numba's own extension points:

- the libraries of our kernels are instances of KernelLibrary / _LazyLibrary (subclasses of numba's
  JITCodeLibrary), created by our lowering passes before numba's pass would create a JITCodeLibrary;
- our lowering passes run numba's lowering with a copy of the target context (`kernel_context`, numba's
  BaseContext.subtarget) that carries our get_executable and the flag the "index as C" rule reads
  (sim/jit/patches.py); numba's context object itself is left as it is;
- while our parallel entries are lowered (and only then), the libraries numba creates for their parallel loops
  are lazy (`_gufunc_libraries_lazy`).

A library of code that is not ours (a plain numba.njit function, numba's own overloads) is a JITCodeLibrary and
goes through numba's code unchanged.
"""

import contextlib
import types as _pytypes

import llvmlite.binding as _ll
from numba.core import lowering
from numba.core.codegen import JITCodeLibrary
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_lock import require_global_compiler_lock
from numba.core.compiler_machinery import register_pass
from numba.core.runtime.context import NRTContext
from numba.core.typed_passes import NativeLowering, NativeParforLowering

# stack of 'lazy' / 'eager' for the numjoco compilations in progress (under numba's compiler lock); non-empty while
# one of our kernels is compiled or loaded from the disk cache (the scope of sim/jit/speedups.py)
_MODE = []


def current_mode():
    return _MODE[-1] if _MODE else "eager"


# ------------------------------------------------------------------------------------------------------------
# Lazy code generation for kernels compiled only as callees.  numba finalises every compiled function on its own:
# it links the (already optimised) modules of its callees, runs LLVM's O3 pipeline over the result and generates
# machine code for it, then every caller repeats that over its own linked tree.  For the pipeline (~380 kernels,
# call trees ~8 deep) that was half of a cold compile, spent on code no one runs: only the entry points
# (run_serial, ...) are ever called from Python.  A kernel whose compilation was requested by the typing of one of
# our kernels (KernelDispatcher.get_call_template) gets a _LazyLibrary: finalising it links nothing and optimises
# nothing; the library that finally needs machine code (an entry, or a lazy kernel materialised) links the modules
# of its whole lazy call tree, each once (_link_closure), and O3 and machine code are produced there.  (Linking each
# lazy kernel's callees into its own module, as numba does, would copy every kernel into the module of each of its
# ancestors.)  Such a kernel is not cached on disk (the entries are, with all their callees inside) and is not
# inserted into the dispatcher's call table; a later call from Python materialises it (KernelDispatcher.compile).


def _link_closure(libraries):
    """`libraries` and, through every lazy library among them, its callees' libraries, each once, every library
    after all the libraries that list it (reverse post-order).  An eager library's module already holds its own
    callees (numba's finalize).

    The order matters: a callee's functions come in as linkonce_odr (numba's _get_module_for_linking), which LLVM
    links only when the module linked so far calls them.  A library listed by one that does not call it (a call
    typed in a branch the feature set prunes: sim/jit/features.py call_either) and linked before the library that
    does call it would bring nothing, and the later call would stay an undefined symbol."""
    out, seen = [], set()

    def visit(lib):
        if lib not in seen:
            seen.add(lib)
            if isinstance(lib, _LazyLibrary):
                for callee in lib._linking_libraries:
                    visit(callee)
            out.append(lib)

    for lib in libraries:
        visit(lib)
    out.reverse()
    return out


# Runtime symbols: functions a kernel's code declares and calls by name, whose code another mechanism provides
# (sim/jit/parts.py: a part, compiled on its own).  prefix -> resolver(symbol), which makes the symbol known to
# LLVM (llvmlite's add_symbol) before a library declaring it gets machine code.
SYMBOL_RESOLVERS = {}


def runtime_symbols(module):
    """The declared functions of an LLVM module that a resolver of SYMBOL_RESOLVERS provides."""
    prefixes = tuple(SYMBOL_RESOLVERS)
    if not prefixes:
        return []
    return sorted(fn.name for fn in module.functions if fn.is_declaration and fn.name.startswith(prefixes))


def resolve_symbols(names):
    """Make the runtime symbols `names` known to LLVM (see SYMBOL_RESOLVERS)."""
    for name in names:
        for prefix, resolve in SYMBOL_RESOLVERS.items():
            if name.startswith(prefix):
                resolve(name)


class KernelLibrary(JITCodeLibrary):
    """The code library of a numjoco kernel compiled eagerly (an entry, or a kernel called from Python): numba's
    JITCodeLibrary, linking the whole lazy call tree of its callees, each once, optimised by one O3 pipeline with
    the linked-in kernels internal, and making the runtime symbols it calls known before its machine code.

    Linked-in kernels become internal before the final O3.  numba links every callee as linkonce_odr, which LLVM
    must keep callable from outside: no dead-argument elimination (a kernel taking arrays is passed every field of
    every array, 7-9 words each), no argument promotion, no "last call site" inlining.  Inside the module of the
    library being finalised (an entry point and the copies of its call tree) nothing else can call them, so internal
    linkage is exact; the library's own functions stay external.  This made hopper's step ~20 % faster.
    The final module goes through LLVM's O3 pipeline once: numba runs a first O3 (its "cheap" pass manager) so that
    inlining brings NRT reference-count operations together for refcount pruning, then the full O3; kernels emit
    no reference counts (NoRefNativeLowering) and the refprune pass is part of the pipeline kept.  The first O3
    costs ~10 % of an entry's compile; the code is as fast without it, the results bitwise the same."""

    def finalize(self):
        """numba's finalize, linking the whole lazy call tree of the library (see _link_closure)."""
        self._linking_libraries = _link_closure(self._linking_libraries)
        super().finalize()

    def _optimize_final_module(self):
        for fn in self._final_module.functions:
            if not fn.is_declaration and fn.linkage == _ll.Linkage.linkonce_odr:
                fn.linkage = _ll.Linkage.internal
        pm, pb = self._codegen._module_pass_manager()
        with self._recorded_timings.record("Module passes (full optimization)", pb):
            pm.run(self._final_module, pb)

    def _finalize_final_module(self):
        """numba's _finalize_final_module, after making the runtime symbols its code calls known to LLVM."""
        resolve_symbols(runtime_symbols(self._final_module))
        super()._finalize_final_module()


class _LazyLibrary(KernelLibrary):
    """KernelLibrary whose linking, O3 and machine code are deferred until a pointer or serialisation is asked
    for (or an eager library links it)."""

    def __init__(self, codegen, name):
        super().__init__(codegen, name)
        self._lazy = True  # O3 + machine code not generated yet
        self._envs = []  # (env name, env) of its functions, set once their code exists

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
        return any(gv.name.startswith("numba.dynamic.globals") for gv in self._final_module.global_variables)


class _LazyEntry:
    """Placeholder for the compiled-function object of a lazy kernel: the key under which jitted callers find
    its implementation (numba's user-function table); never called."""

    def __init__(self, library, fndesc, env):
        self.library, self.fndesc, self.env = library, fndesc, env

    def __call__(self, *args, **kws):  # pragma: no cover (KernelDispatcher never exposes it to Python)
        raise RuntimeError("lazy numjoco kernel called before materialisation")


# (module, qualname) of the kernels compiled on their own without wrappers and called by symbol (sim/jit/parts.py)
PART_KEYS = set()


class _PartEntry:
    """The compiled-function object of a part: its library and the address of its native function."""

    def __init__(self, library, fndesc, env):
        self.library, self.fndesc, self.env = library, fndesc, env
        self.address = library.get_pointer_to_function(fndesc.llvm_func_name)

    def __call__(self, *args, **kws):  # pragma: no cover (parts are called by symbol from jitted code only)
        raise RuntimeError("a numjoco part is called from jitted code only")


def _get_executable(self, library, fndesc, env):
    """CPUContext.get_executable of kernel_context: a lazy kernel's entry is a placeholder (no machine code yet),
    a part's is its native function (it has no CPython wrapper); otherwise numba's, then the environments of the
    lazy kernels linked into the library are set."""
    if isinstance(library, _LazyLibrary) and library._lazy:
        library._envs.append((self.get_env_name(fndesc), env))
        return _LazyEntry(library, fndesc, env)
    if (fndesc.modname, fndesc.qualname) in PART_KEYS:
        name = self.get_env_name(fndesc)
        if library.codegen._engine.is_symbol_defined(name):
            library.codegen.set_env(name, env)
        _set_linked_envs(library)
        return _PartEntry(library, fndesc, env)
    cfunc = type(self).get_executable(self, library, fndesc, env)
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


def kernel_context(ctx):
    """A copy of the target context ctx (numba's subtarget) for compiling and loading our kernels: our
    get_executable, and `_numjoco_kernel` set (the code lowered with it is ours: sim/jit/patches.py's indexing).
    The copy shares ctx's tables (user functions, registries, codegen)."""
    sub = ctx.subtarget()
    sub.get_executable = _pytypes.MethodType(_get_executable, sub)
    sub._numjoco_kernel = True
    return sub


# ------------------------------------------------------------------------------------------------------------
# Kernels without reference counting.  numba reference-counts every structref field read, every row view d.x[w]
# and every array argument with atomic adds: most of the time of a step went to NRT_incref / NRT_decref.  Kernels
# never allocate and every array they touch belongs to a Model/Data object that the Python caller keeps alive for
# the whole call, so inside a step the counts are pure overhead.  Bodies of kernels are lowered with a target
# context whose incref/decref emit nothing; the CPython wrapper of an entry point (argument unboxing / cleanup) is
# still lowered with the normal context, so calls from Python stay balanced.  A kernel that allocated an array
# would leak it: kernels must not allocate (the design rule), and the few functions that do (struct constructors)
# use refcount=True.


class _NoRefNRT(NRTContext):
    """NRT context that emits no reference counting (meminfo access etc. unchanged)."""

    def incref(self, builder, typ, value):
        pass

    def decref(self, builder, typ, value):
        pass


# numba's helper subroutines compiled for kernel bodies (BaseContext.compile_subroutine: array sums, slicing
# helpers...) are lowered with the no-refcount context: they are kept apart from the ones numba compiles for
# other code (its cached_internal_func table, which subtargets otherwise share)
_NOREF_SUBROUTINES = {}


def _noref_context(ctx):
    sub = ctx.subtarget()
    sub.nrt = _NoRefNRT(sub, True)
    sub.cached_internal_func = _NOREF_SUBROUTINES
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
        if (fndesc.modname, fndesc.qualname) in ALWAYS_INLINE:
            attrs.add("alwaysinline")


# Kernel bodies carry two LLVM function attributes:
# - "no-builtin-memset": LLVM turns a loop that zeroes an array (`x[:] = 0.0`, `for i in range(n): x[i] = 0.0`)
#   into a call of libc's memset.  The pipeline's arrays are rows of a few to a few hundred doubles, where the
#   call costs more than the stores (~2 % of a batched step went to memset).  With the attribute the loops stay
#   loops (vectorised).
# - "alwaysinline" for kernels defined with njit(always_inline=True) (ALWAYS_INLINE): small kernels that return a
#   large tuple of arrays (the solver's island context), which LLVM left as calls whose result is stored to and
#   reloaded from memory, ~100 words a call.
ALWAYS_INLINE = set()


# ------------------------------------------------------------------------------------------------------------
# Lowering passes and pipelines.  Each pass gives the kernel its library (a _LazyLibrary when it is compiled as a
# callee, else a KernelLibrary) before numba's lowering pass would create a JITCodeLibrary, and runs numba's pass
# with kernel_context.


def _own_library(state):
    if state.library is None:
        cls = _LazyLibrary if current_mode() == "lazy" else KernelLibrary
        state.library = cls(state.targetctx.codegen(), state.func_id.func_qualname)
        state.library.enable_object_caching()


@contextlib.contextmanager
def _kernel_lowering(state):
    _own_library(state)
    ctx = state.targetctx
    state.targetctx = kernel_context(ctx)
    try:
        yield
    finally:
        state.targetctx = ctx


@register_pass(mutates_CFG=True, analysis_only=False)
class NoRefNativeLowering(NativeLowering):
    """numba's native lowering pass with _NoRefLower, in a kernel library."""

    _name = "numjoco_noref_native_lowering"

    @property
    def lowering_class(self):
        return _NoRefLower

    def run_pass(self, state):
        with _kernel_lowering(state):
            return NativeLowering.run_pass(self, state)


@register_pass(mutates_CFG=True, analysis_only=False)
class LazyNativeLowering(NativeLowering):
    """numba's native lowering pass (reference counted), in a kernel library."""

    _name = "numjoco_lazy_native_lowering"

    def run_pass(self, state):
        with _kernel_lowering(state):
            return NativeLowering.run_pass(self, state)


# names numba gives the libraries of a parallel loop (parfor_lowering / np.ufunc.wrappers / np.ufunc.parallel);
# other libraries created meanwhile (numba's own overloads) stay numba's: their dispatchers need real entry points
_GUFUNC_LIBRARIES = ("__numba_parfor_gufunc", "parallelgufuncwrapper", "<numba.np.ufunc.wrappers._GufuncWrapper")


@contextlib.contextmanager
def _gufunc_libraries_lazy(codegen):
    """While an entry with parallel loops is lowered: the libraries numba creates for its loops (the gufunc body
    and its two wrappers, each of which would run O3 and machine code over the whole linked call tree) are
    _LazyLibrary, so the tree is optimised once, in the entry.  An instance attribute of numba's codegen object,
    shadowing JITCPUCodegen.create_library for the duration of the lowering (under numba's compiler lock), removed
    afterwards."""
    numba_create = type(codegen).create_library
    before = codegen.__dict__.get("create_library")

    def create_library(name, **kwargs):
        if str(name).startswith(_GUFUNC_LIBRARIES):
            return _LazyLibrary(codegen, name)
        return numba_create(codegen, name, **kwargs)

    codegen.create_library = create_library
    try:
        yield
    finally:
        if before is None:
            del codegen.create_library
        else:
            codegen.create_library = before


@register_pass(mutates_CFG=True, analysis_only=False)
class ParallelEntryLowering(NativeParforLowering):
    """numba's native lowering for a parallel entry (reference counted): the entry's own library is eager, the
    libraries of its parallel loops lazy (_gufunc_libraries_lazy)."""

    _name = "numjoco_parallel_entry_lowering"

    def run_pass(self, state):
        with _kernel_lowering(state), _gufunc_libraries_lazy(state.targetctx.codegen()):
            return NativeParforLowering.run_pass(self, state)


def _compiler_class(lowering_pass):
    class _Compiler(CompilerBase):
        def define_pipelines(self):
            pm = DefaultPassBuilder.define_nopython_pipeline(self.state)
            for i, (cls, desc) in enumerate(pm.passes):
                if cls is NativeLowering or cls is NativeParforLowering:
                    pm.passes[i] = (lowering_pass, desc)
            pm.finalize()
            return [pm]

    return _Compiler


NoRefCompiler = _compiler_class(NoRefNativeLowering)  # no refcounts, lazy as a callee
LazyCompiler = _compiler_class(LazyNativeLowering)  # refcounts, lazy as a callee
ParallelCompiler = _compiler_class(ParallelEntryLowering)  # refcounts, parallel loops with lazy gufuncs
