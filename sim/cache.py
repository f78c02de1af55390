"""Numba on-disk cache location keyed on a hash of the package sources, one directory per kernel group.

Import this module before any module that defines jitted functions (it contains no jitted code).  Numba keys
each cached function on its own file only, so an edit in a helper module would otherwise leave callers in other
files serving stale machine code.  Keying the cache directory on a digest of the sources makes any edit start a
fresh cache.  Kernels are cached per group (sim.jit.njit uses `locator_for`): the core group hashes every module
of `sim` except the pure-Python compiler packages (NO_JIT_DIRS) and the other groups' folders; a group folder such
as `sim/render` (GROUPS) hashes the core digest plus its own sources, so editing the renderer does not throw away
the compiled physics (its kernels may call core kernels, never the reverse).
"""
import hashlib
import os
import tempfile

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


# pure-Python subpackages and top-level modules with no jitted code that no kernel imports: editing them must not
# invalidate the compiled kernels
NO_JIT_DIRS = ('compiler', 'mjcf')
NO_JIT_FILES = ('__init__.py', 'loader.py', 'model.py', 'errors.py', 'data.py', 'smooth_api.py', 'demo.py',
                'progress.py', 'precompile.py')
# subpackages whose kernels are cached on their own (module prefix -> folder under sim/)
GROUPS = {'sim.render': 'render'}


def source_hash(root=PACKAGE_DIR, skip=NO_JIT_DIRS + tuple(GROUPS.values()), seed=b''):
    """Hex digest (16 chars) over the relative paths and contents of the .py files under root, leaving out the
    top-level folders in skip."""
    h = hashlib.sha256(seed)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(('.', '__'))
                             and not (dirpath == root and d in skip))
        for fn in sorted(filenames):
            if fn.endswith('.py') and not (dirpath == root and root == PACKAGE_DIR and fn in NO_JIT_FILES):
                p = os.path.join(dirpath, fn)
                h.update(os.path.relpath(p, root).encode())
                with open(p, 'rb') as f:
                    h.update(f.read())
    return h.hexdigest()[:16]


def _writable(path):
    try:
        os.makedirs(path, exist_ok=True)
        probe = os.path.join(path, '.probe_%d' % os.getpid())
        with open(probe, 'w') as f:
            f.write('x')
        os.remove(probe)
        return True
    except OSError:
        return False


def choose_cache_root():
    """First writable of: $NUMJOCO_CACHE_DIR, <pkg>/__numba_cache__, ~/.cache/numjoco, a temp folder."""
    candidates = []
    env = os.environ.get('NUMJOCO_CACHE_DIR')
    if env:
        candidates.append(env)
    candidates.append(os.path.join(PACKAGE_DIR, '__numba_cache__'))
    candidates.append(os.path.join(os.path.expanduser('~'), '.cache', 'numjoco'))
    candidates.append(os.path.join(tempfile.gettempdir(), 'numjoco-cache'))
    for c in candidates:
        if _writable(c):
            return c
    return None


SOURCE_HASH = source_hash()
CACHE_ROOT = choose_cache_root()
CACHE_DIR = None if CACHE_ROOT is None else os.path.join(CACHE_ROOT, SOURCE_HASH)
_GROUP_DIRS = {}


def group_dir(module):
    """Cache directory of the kernels defined in `module` (a module name)."""
    for prefix, folder in GROUPS.items():
        if module == prefix or module.startswith(prefix + '.'):
            d = _GROUP_DIRS.get(folder)
            if d is None:
                digest = source_hash(os.path.join(PACKAGE_DIR, folder), skip=(), seed=SOURCE_HASH.encode())
                d = _GROUP_DIRS[folder] = os.path.join(CACHE_ROOT, '%s-%s' % (folder, digest))
            return d
    return CACHE_DIR


if CACHE_DIR is not None:
    os.makedirs(CACHE_DIR, exist_ok=True)
    # numba's own default for cache=True functions outside our groups; the environment variable covers a numba
    # not yet imported, config one already imported
    os.environ['NUMBA_CACHE_DIR'] = CACHE_DIR
    import numba.core.config as _nbconfig
    _nbconfig.CACHE_DIR = CACHE_DIR
