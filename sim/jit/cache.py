"""numjoco's disk cache of compiled kernels: where it is (keyed on a hash of the package sources, one directory per
kernel group) and numba's cache files made safe for processes compiling at once.

Numba keys each cached function on its own file only, so an edit in a helper module would otherwise leave callers in
other files serving stale machine code.  Keying the cache directory on a digest of the sources makes any edit start
a fresh cache.  Kernels are cached per group (sim.jit.njit gives each its GroupCache): the core group hashes every
module of `sim` except the pure-Python compiler packages (NO_JIT_DIRS) and the other groups' folders; a group folder
such as `sim/render` (GROUPS) hashes the core digest plus its own sources, so editing the renderer does not throw
away the compiled physics (its kernels may call core kernels, never the reverse).

Only numjoco's kernels are cached here: numba's own cache settings (NUMBA_CACHE_DIR, numba.config.CACHE_DIR) are
left as they are for other code in the process.  Inside a cache directory a kernel's entries sit in a folder named
after its source folder relative to the folder holding `sim` (not its absolute path, as numba names it), so a
cache written in one checkout or build serves the same sources installed anywhere.

Shipped kernels.  A wheel built with them (`numjoco-precompile --ship`, docs/install.md) carries, in sim/_kernels/,
the cache of every task family compiled for a portable baseline CPU (x86-64-v3: AVX2 and FMA), with a manifest
whose key is the package version, the numba / llvmlite / Python versions, the platform, the source hash and the
baseline.  At import, before numba creates its code generator, shipped_kernels() checks that key, that this CPU has
every feature of the baseline and that nothing has fixed numba's target yet; then numba's target is set to the
baseline for the whole process (NUMBA_CPU_NAME / NUMBA_CPU_FEATURES, inherited by child processes: numba keys its
cache entries on them) and kernels are looked up in sim/_kernels first, then in the writable cache, where anything
not shipped is compiled (for the baseline).  Anywhere else (another CPU, Python or numba; NUMJOCO_SHIPPED_KERNELS=0)
nothing changes: kernels compile for the host into the writable cache, with the usual progress.

Lookup order: the shipped kernels (when in use), then the writable cache root (choose_cache_root).
"""

import contextlib
import hashlib
import json
import os
import platform
import re
import shutil
import sys
import tempfile

try:
    import fcntl
except ImportError:  # Windows: numba's unlocked index
    fcntl = None

from numba.core import compiler as _compiler, sigutils as _sigutils
from numba.core.caching import CompileResultCacheImpl, FunctionCache, IndexDataCacheFile, UserProvidedCacheLocator

from sim.jit import codegen as _codegen

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the sim package
SOURCE_ROOT = os.path.dirname(PACKAGE_DIR)  # the folder holding sim (and envs): kernel folders are named from it
SHIPPED_DIR = os.path.join(PACKAGE_DIR, "_kernels")  # the shipped kernels of a wheel built with them
MANIFEST = "manifest.json"
# the portable baseline the shipped kernels are compiled for: numba's target CPU name and features (empty: the
# features the name implies), and the host features the baseline needs (the x86-64 psABI's level v3)
BASELINE = {
    "cpu_name": "x86-64-v3",
    "cpu_features": "",
    "requires": tuple("cx16 popcnt sahf sse3 sse4.1 sse4.2 ssse3 avx avx2 bmi bmi2 f16c fma lzcnt movbe xsave".split()),
}


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
    "precompile.py",
    "setconst.py",
    "user_util.py",
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


# the block kernels' vector width (sim/jit/simd.py LANES) is read at compile time: another width, other kernels
_LANES = os.environ.get("NUMJOCO_SIMD_LANES", "4").strip()
SOURCE_HASH = source_hash(seed=b"" if _LANES == "4" else b"lanes=" + _LANES.encode())


def kernel_key(cpu_name=BASELINE["cpu_name"], cpu_features=BASELINE["cpu_features"], version=None):
    """The key shipped kernels are built and checked under: package (`version`, default the installed one), numba,
    llvmlite and Python versions, the platform, the source hash and the target CPU (name and features)."""
    import llvmlite
    import numba

    return {
        "numjoco": version or _package_version(),
        "numba": numba.__version__,
        "llvmlite": llvmlite.__version__,
        "python": "%d.%d%s" % (sys.version_info[0], sys.version_info[1], getattr(sys, "abiflags", "")),
        "implementation": sys.implementation.name,
        "platform": "%s-%s" % (sys.platform, platform.machine().lower()),
        "source_hash": SOURCE_HASH,
        "cpu_name": cpu_name,
        "cpu_features": cpu_features,
    }


def _package_version():
    """numjoco's version as installed (its distribution's metadata), None for a checkout without one."""
    from importlib import metadata

    try:
        dist = metadata.distribution("numjoco")
    except metadata.PackageNotFoundError:
        return None
    # the distribution must be the one this sim comes from (an editable install elsewhere is another tree)
    files = dist.files or ()
    here = os.path.join(PACKAGE_DIR, "jit", "cache.py")
    for f in files:
        if str(f).replace("\\", "/") == "sim/jit/cache.py":
            return dist.version if os.path.realpath(dist.locate_file(f)) == os.path.realpath(here) else None
    return None


def _host_has(features):
    """Whether this CPU has every LLVM feature named in `features`."""
    import llvmlite.binding as ll

    have = {f[1:] for f in ll.get_host_cpu_features().flatten().split(",") if f.startswith("+")}
    return all(f in have for f in features)


def shipped_kernels():
    """(folder, why): the shipped kernels' folder when they can serve this process, else None and the reason.
    Reads sim/_kernels/manifest.json and checks its key against this process, the host CPU against the baseline
    and numba's target (not yet fixed by an earlier compile, or already the baseline)."""
    path = os.path.join(SHIPPED_DIR, MANIFEST)
    if not os.path.isfile(path):
        return None, "no shipped kernels"
    if os.environ.get("NUMJOCO_SHIPPED_KERNELS", "1") == "0":
        return None, "NUMJOCO_SHIPPED_KERNELS=0"
    try:
        with open(path) as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        return None, "unreadable manifest: %s" % e
    name, features = manifest.get("cpu_name"), manifest.get("cpu_features")
    want = kernel_key(name, features)
    diff = sorted(k for k in want if manifest.get(k) != want[k])
    if diff:
        return None, "built for another %s" % ", ".join(diff)
    if name != BASELINE["cpu_name"] or not _host_has(manifest.get("requires", BASELINE["requires"])):
        return None, "this CPU lacks the %s baseline" % name
    from numba.core import config
    from numba.core.registry import cpu_target

    if os.environ.get("NUMBA_CPU_NAME", name) != name or os.environ.get("NUMBA_CPU_FEATURES", features) != features:
        return None, "NUMBA_CPU_NAME / NUMBA_CPU_FEATURES set to another target"
    if "_toplevel_target_context" in vars(cpu_target) and (config.CPU_NAME, config.CPU_FEATURES) != (name, features):
        return None, "numba compiled for the host before sim was imported"
    return SHIPPED_DIR, "in use"


def _use_shipped():
    """Set numba's target to the shipped kernels' baseline (process-wide, and for child processes) when they can
    serve this process; returns their folder or None (SHIPPED_WHY says why not)."""
    global SHIPPED_WHY
    folder, SHIPPED_WHY = shipped_kernels()
    if folder is None:
        return None
    from numba.core import config

    os.environ["NUMBA_CPU_NAME"] = BASELINE["cpu_name"]
    os.environ["NUMBA_CPU_FEATURES"] = BASELINE["cpu_features"]
    config.reload_config()
    return folder


SHIPPED_WHY = None
SHIPPED_ROOT = _use_shipped()
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


def kernel_subpath(py_file):
    """The folder of a kernel's entries inside a cache directory: <parent>_<sha1 of its source folder relative to
    SOURCE_ROOT> (numba's form, which hashes the absolute path), so the cache is the same wherever the sources
    are; a file outside SOURCE_ROOT keeps numba's absolute form."""
    folder = os.path.dirname(os.path.abspath(py_file))
    rel = os.path.relpath(folder, SOURCE_ROOT)
    if rel.startswith(os.pardir):
        rel = folder
    return "%s_%s" % (os.path.basename(folder), hashlib.sha1(rel.replace(os.sep, "/").encode()).hexdigest())


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
        group = group_dir(py_func.__module__)
        self._cache_path = os.path.join(group, kernel_subpath(py_file))
        self.shipped_path = None
        if SHIPPED_ROOT is not None:
            self.shipped_path = os.path.join(SHIPPED_ROOT, os.path.basename(group), kernel_subpath(py_file))

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
    """The disk cache of one kernel (sim.jit.njit's cache=True): the shipped kernels (read only) when in use, then
    the writable cache, where new entries go."""

    _impl_class = _GroupCacheImpl

    def __init__(self, py_func):
        super().__init__(py_func)
        stamp = self._impl.locator.get_source_stamp()
        self._cache_file = _SafeCacheFile(self._cache_path, self._impl.filename_base, stamp)
        shipped = self._impl.locator.shipped_path
        self._shipped_file = None if shipped is None else IndexDataCacheFile(shipped, self._impl.filename_base, stamp)

    def _load_overload(self, sig, target_context):
        if not self._enabled:
            return None
        key = self._index_key(sig, target_context.codegen())
        want = tuple(_sigutils.normalize_signature(sig)[0])
        for f in (self._shipped_file, self._cache_file):
            data = None if f is None else f.load(key)
            if data is not None:
                cres = self._impl.rebuild(target_context, data)
                if tuple(cres.signature.args) == want:
                    return cres
                # else an entry holding another signature's code (a cache written before the lock)
        return None
