"""numjoco's disk cache of compiled kernels: where it is (keyed on a hash of the package sources, one directory per
kernel group) and numba's cache files made safe for processes compiling at once.

Numba keys each cached function on its own file only, so an edit in a helper module would otherwise leave callers in
other files serving stale machine code.  Keying the cache directory on a digest of the sources makes any edit start
a fresh cache.  Kernels are cached per group (sim.jit.njit gives each its GroupCache): the core group hashes every
module of `sim` except the pure-Python compiler packages (NO_JIT_DIRS) and the other groups' folders; a group folder
such as `sim/render` (GROUPS) hashes the core digest plus its own sources, so editing the renderer does not throw
away the compiled physics (its kernels may call core kernels, never the reverse).

Only numjoco's kernels are cached here: numba's own cache settings (NUMBA_CACHE_DIR, numba.config.CACHE_DIR) are
left as they are for other code in the process.
"""

import contextlib
import hashlib
import os
import re
import shutil
import tempfile

try:
    import fcntl
except ImportError:  # Windows: numba's unlocked index
    fcntl = None

from numba.core import compiler as _compiler, sigutils as _sigutils
from numba.core.caching import CompileResultCacheImpl, FunctionCache, IndexDataCacheFile, UserProvidedCacheLocator

from sim.jit import codegen as _codegen

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the sim package


# pure-Python subpackages and modules (paths relative to sim/) with no jitted code that no kernel imports: editing
# them must not invalidate the compiled kernels
NO_JIT_DIRS = ("compiler", "mjcf")
NO_JIT_FILES = (
    "__init__.py",
    "loader.py",
    "model.py",
    "errors.py",
    "data.py",
    "api.py",
    "state.py",
    "jit/progress.py",
    "jit/precompile.py",
)
# subpackages whose kernels are cached on their own (module prefix -> folder under sim/)
GROUPS = {"sim.render": "render"}
# source versions whose caches are kept under one root (the current one and the most recently used others)
KEEP = int(os.environ.get("NUMJOCO_CACHE_KEEP", "4"))


def source_hash(root=PACKAGE_DIR, skip=NO_JIT_DIRS + tuple(GROUPS.values()), seed=b""):
    """Hex digest (16 chars) over the relative paths and contents of the .py files under root, leaving out the
    top-level folders in skip."""
    h = hashlib.sha256(seed)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(
            d for d in dirnames if not d.startswith((".", "__")) and not (dirpath == root and d in skip)
        )
        for fn in sorted(filenames):
            p = os.path.join(dirpath, fn)
            if fn.endswith(".py") and not (root == PACKAGE_DIR and os.path.relpath(p, root) in NO_JIT_FILES):
                h.update(os.path.relpath(p, root).encode())
                with open(p, "rb") as f:
                    h.update(f.read())
    return h.hexdigest()[:16]


def _writable(path):
    try:
        os.makedirs(path, exist_ok=True)
        probe = os.path.join(path, ".probe_%d" % os.getpid())
        with open(probe, "w") as f:
            f.write("x")
        os.remove(probe)
        return True
    except OSError:
        return False


def choose_cache_root():
    """First writable of: $NUMJOCO_CACHE_DIR, <pkg>/__numba_cache__, ~/.cache/numjoco, a temp folder."""
    candidates = []
    env = os.environ.get("NUMJOCO_CACHE_DIR")
    if env:
        candidates.append(env)
    candidates.append(os.path.join(PACKAGE_DIR, "__numba_cache__"))
    candidates.append(os.path.join(os.path.expanduser("~"), ".cache", "numjoco"))
    candidates.append(os.path.join(tempfile.gettempdir(), "numjoco-cache"))
    for c in candidates:
        if _writable(c):
            return c
    return None


SOURCE_HASH = source_hash()
CACHE_ROOT = choose_cache_root()
CACHE_DIR = None if CACHE_ROOT is None else os.path.join(CACHE_ROOT, SOURCE_HASH)
_GROUP_DIRS = {}


_VERSION_DIR = re.compile(r"^(?:([a-z_]+)-)?[0-9a-f]{16}$")  # <hash> or <group>-<hash>
_KERNEL_DIR = re.compile(r"^\w+_[0-9a-f]{40}$")  # numba's per-source-folder subdirectory


def _use(path):
    """Create or touch the cache directory `path` (its mtime says when a process last used it); prune the other
    versions of its kind when it is new."""
    if os.path.isdir(path):
        try:
            os.utime(path)
        except OSError:
            pass
        return
    os.makedirs(path, exist_ok=True)
    prune(os.path.dirname(path), os.path.basename(path))


def prune(root, current, keep=None):
    """Remove the caches of other source versions under `root` (folders named <hash> or <group>-<hash>, of the
    same kind as `current`, holding only numba's kernel folders), all but the keep - 1 most recently used: every
    edit or upgrade of the package starts a new folder (~10 MB), and without this they pile up.  keep=0 (or
    NUMJOCO_CACHE_KEEP=0) keeps everything.  A process still running on a removed folder recompiles what it
    misses and writes it back (the folder is recreated).  Returns the removed folder names."""
    keep = KEEP if keep is None else keep
    kind = _VERSION_DIR.match(current)
    if keep <= 0 or kind is None:
        return []
    others = []
    try:
        names = os.listdir(root)
    except OSError:
        return []
    for name in names:
        m = _VERSION_DIR.match(name)
        path = os.path.join(root, name)
        if name == current or m is None or m.group(1) != kind.group(1) or not os.path.isdir(path):
            continue
        try:
            if not all(_KERNEL_DIR.match(sub) for sub in os.listdir(path)):
                continue  # not a folder numjoco wrote: never touched
            others.append((os.stat(path).st_mtime, name))
        except OSError:
            continue
    others.sort(reverse=True)
    removed = [name for _, name in others[keep - 1 :]]
    for name in removed:
        shutil.rmtree(os.path.join(root, name), ignore_errors=True)
    return removed


def group_dir(module):
    """Cache directory of the kernels defined in `module` (a module name)."""
    for prefix, folder in GROUPS.items():
        if module == prefix or module.startswith(prefix + "."):
            d = _GROUP_DIRS.get(folder)
            if d is None:
                digest = source_hash(os.path.join(PACKAGE_DIR, folder), skip=(), seed=SOURCE_HASH.encode())
                d = _GROUP_DIRS[folder] = os.path.join(CACHE_ROOT, "%s-%s" % (folder, digest))
                _use(d)
            return d
    return CACHE_DIR


if CACHE_DIR is not None:
    _use(CACHE_DIR)


# ------------------------------------------------------------------------------------------------------------
# numba's function cache, under the group directories, safe under concurrent writers, and aware of the runtime
# symbols a kernel calls (sim/jit/codegen.py SYMBOL_RESOLVERS: the parts it calls by name must be known to LLVM
# before its machine code is loaded).


class _GroupLocator(UserProvidedCacheLocator):
    """Cache locator under the kernel's group directory (group_dir); numba's config.CACHE_DIR is not read."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(group_dir(py_func.__module__), self.get_suitable_cache_subpath(py_file))

    @classmethod
    def from_function(cls, py_func, py_file):
        return super(UserProvidedCacheLocator, cls).from_function(py_func, py_file)


class _GroupCacheImpl(CompileResultCacheImpl):
    """numba's compile-result cache entries, with the runtime symbols the kernel's code calls."""

    _locator_classes = [_GroupLocator]

    def reduce(self, cres):
        return cres._reduce(), _codegen.runtime_symbols(cres.library._final_module)

    def rebuild(self, target_context, payload):
        data, symbols = payload
        _codegen.resolve_symbols(symbols)
        cres = _compiler.CompileResult._rebuild(_codegen.kernel_context(target_context), *data)
        return cres._replace(target_context=target_context)


@contextlib.contextmanager
def _locked(path):
    """Exclusive inter-process lock on the file at path (a no-op where fcntl is missing)."""
    if fcntl is None:
        yield
        return
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


class _SafeCacheFile(IndexDataCacheFile):
    """numba's index + data cache files, safe when several processes compile at once (SubprocVecEnv or Ray
    workers, sweep trials, a test run next to a training run).  numba numbers a new data file from the index it
    read (1, 2, ...) and rewrites the index unlocked: two processes compiling two signatures could both write
    file 1, leaving the index naming the other signature's code (a single-world step then ran the code compiled
    for another feature set).  Here a data file is named after its key and written whole before the index, which
    is re-read and rewritten under an exclusive lock."""

    def __init__(self, cache_path, filename_base, source_stamp):
        super().__init__(cache_path, filename_base, source_stamp)
        self._base = filename_base

    def save(self, key, data):
        name = "%s.%s.nbc" % (self._base, hashlib.sha256(repr(key).encode()).hexdigest()[:16])
        os.makedirs(self._cache_path, exist_ok=True)  # removed under a running process (prune)
        self._save_data(name, data)
        with _locked(self._index_path + ".lock"):
            overloads = self._load_index()
            overloads[key] = name
            self._save_index(overloads)


class GroupCache(FunctionCache):
    """The disk cache of one kernel (sim.jit.njit's cache=True)."""

    _impl_class = _GroupCacheImpl

    def __init__(self, py_func):
        super().__init__(py_func)
        self._cache_file = _SafeCacheFile(
            self._cache_path, self._impl.filename_base, self._impl.locator.get_source_stamp()
        )

    def _load_overload(self, sig, target_context):
        cres = super()._load_overload(sig, target_context)
        if cres is not None and tuple(cres.signature.args) != tuple(_sigutils.normalize_signature(sig)[0]):
            return None  # an entry holding another signature's code (a cache written before the lock)
        return cres
