"""numba's compile-time hot spots, replaced by equivalent code while numjoco's kernels compile.

Each replacement computes what numba's own code computes, faster; found by profiling hopper's cold compile
(cProfile, empty kernel cache) and measured side by side against the tree without it.  install()
(called by sim/jit/patches.py's install, unless NUMJOCO_NUMBA_SPEEDUPS=0) puts them in place; each checks on every
call whether one of numjoco's kernels is being compiled or loaded (sim.jit.codegen._MODE non-empty, numba's compiler
lock held) and otherwise calls numba's own code: other numba code in the process compiles exactly as without
numjoco.  tests/test_jit.py compares each with the numba / llvmlite code it replaces (1's error markup and 3, which
only removes timing events, are not compared) and compiles kernels with and without them (same LLVM IR).  Written
against numba 0.68 and its llvmlite 0.50 (pyproject pins numba to the 0.68 series); a numba that changes these
internals fails those tests, not the physics.

1. TargetConfig (compile flags) values / __hash__ / __eq__, and the colour markup of typing error messages.
2. Resolutions of calls to builtin / @overload functions, remembered.
3. The LLVM lock's timing events, not sent.
4. Variable listing of IR statements (list_vars, compute_use_defs).
5. Registry refresh of the target context, skipped when no registry grew.
6. ABI sizes of LLVM types, remembered.
7. llvmlite's instruction naming (NameScope.register), in one function.
8. numba.np.arraymath's import-time BLAS check without importing scipy.linalg (at install; not scoped).
"""

import importlib.util as _importlib_util
import os as _os
import sys as _sys

import llvmlite.binding as _ll
from llvmlite.ir import _utils as _llutils, types as _lltypes
from numba.core import (
    analysis as _analysis,
    base as _base,
    errors as _errors,
    inline_closurecall as _inline_closurecall,
    ir as _ir,
    lowering as _lowering,
    targetconfig as _targetconfig,
    transforms as _transforms,
    untyped_passes as _untyped_passes,
)
from numba.core.types import functions as _functions

from sim.jit.codegen import _MODE as _OURS  # non-empty while one of our kernels compiles (the scope)

_INSTALLED = []

# 1. Two hot spots of numba's typing machinery (profile of hopper's cold compile: 618,000 calls to
# TargetConfig.values, 94,000 to the error-message markup).
# - Every typing of a call to an @overload function looks its implementation up under a key holding the
#   compile's Flags: TargetConfig.__hash__ / __eq__ rebuilt the dict of all 22 options through their property
#   getters (4.6 / 7.4 us a call).  values() now reads the stored dict directly (the getters return
#   `_values.get(name, default)`); __hash__ was hash(tuple(sorted(<the options' names>))), a per-class constant,
#   now computed once; __eq__ short-cuts identity.  (The hash is the same value in and out of scope.)
# - Each candidate that fails to type a call builds an error message; with colorama installed numba wraps every
#   highlighted fragment in colorama.init() / deinit() (two stream wrappers each), for a string that is always
#   the colour codes + the text + the reset code.  _markup builds that string directly.
_numba_tc_values = _targetconfig.TargetConfig.values
_numba_tc_hash = _targetconfig.TargetConfig.__hash__
_numba_tc_eq = _targetconfig.TargetConfig.__eq__


def _tc_values(self):
    if not _OURS:
        return _numba_tc_values(self)
    v = self._values
    return {k: v.get(k, opt.default) for k, opt in self.options.items()}


def _tc_hash(self):
    if not _OURS:
        return _numba_tc_hash(self)
    cls = type(self)
    h = cls.__dict__.get("_numjoco_hash")
    if h is None:
        h = hash(tuple(sorted(self.options)))
        cls._numjoco_hash = h
    return h


def _tc_eq(self, other):
    if not _OURS:
        return _numba_tc_eq(self, other)
    if self is other or (type(other) is type(self) and self._values == other._values):
        return True
    if isinstance(other, _targetconfig.TargetConfig):
        return _tc_values(self) == _tc_values(other)
    return NotImplemented


def _install_targetconfig():
    _targetconfig.TargetConfig.values = _tc_values
    _targetconfig.TargetConfig.__hash__ = _tc_hash
    _targetconfig.TargetConfig.__eq__ = _tc_eq
    if hasattr(_errors, "HighlightColorScheme"):
        from colorama import Style

        numba_markup = _errors.HighlightColorScheme._markup

        def _markup(self, msg, color=None, style=Style.BRIGHT):
            if not _OURS:
                return numba_markup(self, msg, color, style)
            return (color or "") + (style or "") + msg + Style.RESET_ALL

        _errors.HighlightColorScheme._markup = _markup


# 2. Resolving a call to a builtin / @overload function (operator.getitem, setitem, binary operators, math, numpy)
# tries its templates in order until one types; numba does it at every typing of a call and again, for the same
# types, when the call is lowered (36,600 resolutions in hopper's cold compile, about a fifth of the profiled time, each
# failed template building its error message).  A successful resolution is remembered under the function type,
# the typing context, the argument types and the compile's flags (which decide the overload's compiled
# implementation, as in numba's own _get_impl cache); a hit restores the template that typed it (the key
# lowering asks for) and returns the same signature.  Failures are not remembered.

_get_call_type = _functions.BaseFunction.get_call_type
_RESOLVED = {}


def _get_call_type_memo(self, context, args, kws):
    if not _OURS:
        return _get_call_type(self, context, args, kws)
    try:
        key = (self, context, tuple(args), tuple(kws.items()), _targetconfig.ConfigStack.top_or_none())
        hit = _RESOLVED.get(key)
    except TypeError:  # an unhashable argument type
        return _get_call_type(self, context, args, kws)
    if hit is not None:
        self._impl_keys[hit[0].args] = hit[1]
        return hit[0]
    sig = _get_call_type(self, context, args, kws)
    if sig is not None:
        _RESOLVED[key] = (sig, self._impl_keys[sig.args])
    return sig


# 3. numba times the LLVM lock of every llvmlite call (228,000 in hopper's cold compile) by broadcasting a
# "numba:llvm_lock" start and end event to a timer of each compilation in progress (6 deep on average), only to
# fill the informational metadata['timers']['llvm_lock'] of compile results.  While our kernels compile those
# events are not sent (that figure reads 0 for them); the lock itself is unchanged.


def _unless_ours(callback):
    def cb():
        if not _OURS:
            callback()

    cb.__qualname__ = "numjoco_scoped." + getattr(callback, "__qualname__", "callback")
    return cb


def _install_lock_events():
    callbacks = _ll.ffi.lib._lock._cblist
    for i, (acquire, release) in enumerate(callbacks):
        if getattr(acquire, "__qualname__", "").startswith("_initialize_llvm_lock_event"):
            callbacks[i] = (_unless_ours(acquire), _unless_ours(release))


# 4. Every IR pass that needs variable uses / definitions (the post-processor runs ~9 times per kernel, SSA, the
#    rewrites) asks each statement for its variables: Inst._rec_list_vars walked the statement's __dict__ with
#    four isinstance tests per value, recursively (5.8 million calls, a tenth of the profiled time).  The walk is the
#    same (same order, same classes: numba's isinstance tests, decided once per value type), iterative over one
#    output list, with an Expr's operands read directly (Expr.list_vars is _rec_list_vars of its _kws), and the
#    top level of Stmt.list_vars / Expr.list_vars inline.  compute_use_defs, the main asker (2,800 calls, 600,000
#    statements), listed each assignment's variables twice; it lists them once.
_OTHER, _VAR, _INST, _SEQ, _MAP, _EXPR = range(6)
_KINDS = {}
_Var, _Inst, _Expr = _ir.Var, _ir.Inst, _ir.Expr
_numba_rec_list_vars = _ir.Inst._rec_list_vars
_numba_stmt_list_vars = _ir.Stmt.list_vars
_numba_expr_list_vars = _ir.Expr.list_vars


def _kind(t):
    """How numba's _rec_list_vars treats a value of type t (its isinstance tests, in its order)."""
    if issubclass(t, _Var):
        k = _VAR
    elif issubclass(t, _Inst):
        k = _EXPR if t is _Expr and t.list_vars in (_numba_expr_list_vars, _expr_list_vars) else _INST
    elif issubclass(t, (list, tuple)):
        k = _SEQ
    elif issubclass(t, dict):
        k = _MAP
    else:
        k = _OTHER
    _KINDS[t] = k
    return k


def _collect(val, out):
    k = _KINDS.get(type(val))
    if k is None:
        k = _kind(type(val))
    if k == _VAR:
        out.append(val)
    elif k == _MAP:
        _collect_items(val.values(), out)
    elif k == _SEQ:
        _collect_items(val, out)
    elif k == _EXPR:
        _collect_items(val._kws.values(), out)
    elif k == _INST:
        out.extend(val.list_vars())


def _collect_items(items, out):
    for v in items:  # the common leaves (variables, constants) without a call
        kv = _KINDS.get(type(v))
        if kv == _VAR:
            out.append(v)
        elif kv != _OTHER:
            _collect(v, out)


def _rec_list_vars(self, val):
    if not _OURS:
        return _numba_rec_list_vars(self, val)
    out = []
    _collect(val, out)
    return out


def _stmt_list_vars(self):
    """Stmt.list_vars: _rec_list_vars of the statement's __dict__."""
    if not _OURS:
        return _numba_stmt_list_vars(self)
    out = []
    _collect_items(self.__dict__.values(), out)
    return out


def _expr_list_vars(self):
    """Expr.list_vars: _rec_list_vars of the expression's operands."""
    if not _OURS:
        return _numba_expr_list_vars(self)
    out = []
    _collect_items(self._kws.values(), out)
    return out


def _compute_use_defs(blocks):
    """numba's analysis.compute_use_defs, listing an assignment's variables once: an ir.Assign's list_vars is its
    target followed by its value's variables (its __dict__ is target, value, loc), which numba listed twice."""
    if not _OURS:
        return _numba_compute_use_defs(blocks)
    var_use_map = {}
    var_def_map = {}
    ext = _analysis.ir_extension_usedefs
    for offset, ir_block in blocks.items():
        var_use_map[offset] = use_set = set()
        var_def_map[offset] = def_set = set()
        for stmt in ir_block.body:
            t = type(stmt)
            if t in ext:
                ext[t](stmt, use_set, def_set)
                continue
            if isinstance(stmt, _ir.Assign):
                value = stmt.value
                if isinstance(value, _Inst):
                    rhs = value.list_vars()
                elif isinstance(value, _Var):
                    rhs = [value]
                elif isinstance(value, (_ir.Arg, _ir.Const, _ir.Global, _ir.FreeVar)):
                    rhs = []
                else:
                    raise AssertionError("unreachable", type(value))
                target = stmt.target.name
                if target not in {var.name for var in rhs}:
                    def_set.add(target)
                if t is _ir.Assign and t.list_vars is _stmt_list_vars and stmt.__dict__.keys() == _ASSIGN_KEYS:
                    variables = rhs
                    if target not in def_set:
                        use_set.add(target)
                else:
                    variables = stmt.list_vars()
            else:
                variables = stmt.list_vars()
            for var in variables:
                name = var.name
                if name not in def_set:
                    use_set.add(name)
    return _analysis._use_defs_result(usemap=var_use_map, defmap=var_def_map)


_ASSIGN_KEYS = {"target", "value", "loc"}
_numba_compute_use_defs = _analysis.compute_use_defs


def _install_list_vars():
    _ir.Inst._rec_list_vars = _rec_list_vars
    _ir.Stmt.list_vars = _stmt_list_vars
    _ir.Expr.list_vars = _expr_list_vars
    for module in (_analysis, _lowering, _transforms, _untyped_passes, _inline_closurecall):
        if getattr(module, "compute_use_defs", None) is _numba_compute_use_defs:
            module.compute_use_defs = _compute_use_defs


# 5. BaseContext.get_function re-reads every registry of implementations (BaseContext.refresh: 20 imports, 26
#    registries, the typing context's too) whenever a lookup misses, to pick up implementations registered since;
#    numba's array code misses on purpose at every array access ('__array__', twice per miss: 7,100 refreshes in
#    hopper's cold compile).  Refreshing again when no registry has grown since the last refresh installs nothing
#    (the registries are append-only lists read incrementally, the imports and the runtime's initialisation happen
#    once), so it is skipped then.
_refresh = _base.BaseContext.refresh


def _registry_sizes(ctx):
    sizes = []
    for c in (ctx, ctx.typing_context):
        for registry, loader in c._registries.items():
            sizes.append(id(registry))
            for name in loader.registry_items:
                sizes.append(len(getattr(registry, name)))
    return sizes


def _refresh_if_grown(self):
    if not _OURS:
        return _refresh(self)
    if self.__dict__.get("_numjoco_registries") != _registry_sizes(self):
        _refresh(self)
        self._numjoco_registries = _registry_sizes(self)


# 6. Type.get_abi_size builds a module holding one global of the type, prints it and has LLVM parse it, every call;
#    numba asks it for every user variable it allocates (debug-info bookkeeping, even with debug info off): 3,600
#    calls in hopper's cold compile.  The size of a type that names no identified struct (its text has no '%')
#    depends only on that text and the data layout, so it is remembered under both.
_get_abi_size = _lltypes.Type.get_abi_size
_ABI_SIZES = {}


def _get_abi_size_memo(self, target_data, context=None):
    if context is not None or not _OURS:
        return _get_abi_size(self, target_data, context)
    text = str(self)
    if "%" in text:
        return _get_abi_size(self, target_data, context)
    key = (text, target_data)
    size = _ABI_SIZES.get(key)
    if size is None:
        size = _ABI_SIZES[key] = _get_abi_size(self, target_data, context)
    return size


# 7. llvmlite names every instruction numba builds (NameScope.register with deduplication: 424,000 calls through
#    is_used / deduplicate).  The same steps, in one function: a used name gets the next free "<name>.<k>", an
#    unused one is taken as is, a duplicate without deduplication raises.
_llvmlite_register = _llutils.NameScope.register


def _register(self, name, deduplicate=False):
    if not _OURS:
        return _llvmlite_register(self, name, deduplicate)
    used = self._useset
    if name in used:
        if not deduplicate:
            raise _llutils.DuplicatedNameError(name)
        basename, counts = name, self._basenamemap
        while name in used:
            ident = counts[basename] + 1
            counts[basename] = ident
            name = "{0}.{1}".format(basename, ident)
    used.add(name)
    return name


# 8. numba.np.arraymath, imported by the first compile or cache load, asks at import time whether BLAS is there
#    (_HAVE_BLAS, for the inner products of np.convolve / np.correlate) by calling numba.np.linalg.ensure_blas,
#    which imports scipy.linalg: a fifth of a warm start, for a module no kernel here uses.  install() imports
#    arraymath with the same question answered by finding scipy.linalg's cython_blas extension on disk; ensure_blas
#    itself is left as is (it runs, importing scipy, when a kernel lowers a BLAS call).  Not scoped: a module is
#    imported once per process (earlier than numba would, with the same _HAVE_BLAS).


def _blas_present():
    """numba.np.linalg.ensure_blas's check without importing scipy.linalg: ImportError when cython_blas is absent."""
    spec = _importlib_util.find_spec("scipy")
    for loc in (spec.submodule_search_locations or []) if spec is not None else []:
        folder = _os.path.join(loc, "linalg")
        if _os.path.isdir(folder) and any(f.startswith("cython_blas.") for f in _os.listdir(folder)):
            return
    raise ImportError("scipy 0.16+ is required for linear algebra")


def _import_arraymath():
    if "numba.np.arraymath" in _sys.modules:
        return
    from numba.np import linalg

    ensure_blas = linalg.ensure_blas
    linalg.ensure_blas = _blas_present
    try:
        from numba.np import arraymath
    finally:
        linalg.ensure_blas = ensure_blas
    arraymath.ensure_blas = ensure_blas


def install():
    """Put the replacements 1-8 in place (once per process); 1-7 act only while our kernels compile."""
    if _INSTALLED:
        return
    _INSTALLED.append(True)
    _install_targetconfig()
    _functions.BaseFunction.get_call_type = _get_call_type_memo
    _install_lock_events()
    _install_list_vars()
    _base.BaseContext.refresh = _refresh_if_grown
    _lltypes.Type.get_abi_size = _get_abi_size_memo
    _llutils.NameScope.register = _register
    _import_arraymath()
