"""Numba on-disk cache location keyed on a hash of every .py source of the package.

Import this module before any module that defines jitted functions (it contains no jitted
code).  Numba keys each cached function on its own file only, so an edit in a helper module
would otherwise leave callers in other files serving stale machine code.  Keying the whole
cache directory on a digest of all package sources makes any edit start a fresh cache.
"""
import hashlib
import os
import tempfile

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


# pure-Python subpackages with no jitted code: editing them must not invalidate the compiled kernels
NO_JIT_DIRS = ('compiler', 'mjcf')


def source_hash(root=PACKAGE_DIR):
    """Hex digest (16 chars) over the relative paths and contents of the .py files under root that can hold
    jitted code (every module except the pure-Python MJCF compiler packages in NO_JIT_DIRS)."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(('.', '__'))
                             and not (dirpath == root and d in NO_JIT_DIRS))
        for fn in sorted(filenames):
            if fn.endswith('.py'):
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


def choose_cache_dir(digest):
    """First writable of: $NUMJOCO_CACHE_DIR/<h>, <pkg>/__numba_cache__/<h>, ~/.cache/numjoco/<h>, tmp."""
    candidates = []
    env = os.environ.get('NUMJOCO_CACHE_DIR')
    if env:
        candidates.append(os.path.join(env, digest))
    candidates.append(os.path.join(PACKAGE_DIR, '__numba_cache__', digest))
    candidates.append(os.path.join(os.path.expanduser('~'), '.cache', 'numjoco', digest))
    candidates.append(os.path.join(tempfile.gettempdir(), 'numjoco-cache-%s' % digest))
    for c in candidates:
        if _writable(c):
            return c
    return None


SOURCE_HASH = source_hash()
CACHE_DIR = choose_cache_dir(SOURCE_HASH)

if CACHE_DIR is not None:
    # the environment variable covers a numba not yet imported; config covers one already imported
    os.environ['NUMBA_CACHE_DIR'] = CACHE_DIR
    import numba.core.config as _nbconfig
    _nbconfig.CACHE_DIR = CACHE_DIR
