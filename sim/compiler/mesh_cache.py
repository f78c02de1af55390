"""A cache of processed meshes (mjCMesh::Process's results), in memory and on disk, as MuJoCo keeps processed
mesh assets in its asset cache (mjCache).

Processing a mesh (convex hull, polygons, inertia, the face BVH) is the compiler's largest cost on models with
many meshes (Fetch has 18).  The result depends only on the mesh's data (vertices, faces,
normals, texture coordinates and their face indices), its attributes that Process reads (scale, inertia mode,
whether a hull is needed, smoothnormal, refpos, refquat, maxhullvert), the compiler's source and the numpy / scipy
versions; the key hashes all of them, so a cached result is the result processing would compute, bit for bit.
Meshes whose processing warns are not cached (the warning is shown each time).

Disk entries live in `<kernel cache root>/meshes` (sim/jit/cache.py choose_cache_root: $NUMJOCO_CACHE_DIR first);
NUMJOCO_MESH_CACHE=0 turns the cache off.  The folder is bounded: after a model's meshes are stored, the least
recently used entries (by modification time, which a disk hit refreshes) are removed until the folder holds at most
NUMJOCO_MESH_CACHE_MB megabytes (default 256; 0: unbounded).
"""

import hashlib
import os
import pickle
import tempfile
import time

import numpy as np

_SOURCE = []
_MEMORY = {}
_MEMORY_MAX = 256  # meshes kept in memory (a model's meshes, a few models' worth)
_DIR = []
_WRITTEN = []  # entries stored on disk since the last prune
MAX_MB = 256  # default bound of the disk folder (NUMJOCO_MESH_CACHE_MB)
_TMP_AGE = 3600  # seconds after which a leftover temporary file (an interrupted write) is removed
# what Process sets on a Mesh (the rest: name, element, material, inputs)
RESULT = (
    "vert",
    "normal",
    "texcoord",
    "face",
    "facenormal",
    "facetexcoord",
    "graph",
    "polygons",
    "polygon_normals",
    "polygon_map",
    "pos",
    "quat",
    "volume",
    "surface",
    "boxsz",
    "aamm",
    "tree",
)


def enabled():
    """False when NUMJOCO_MESH_CACHE=0."""
    return os.environ.get("NUMJOCO_MESH_CACHE", "1") != "0"


def _source_hash():
    """Hash of the compiler's sources (every .py file of sim/compiler) and the numpy / scipy versions."""
    if not _SOURCE:
        import scipy

        h = hashlib.sha256(("numpy %s scipy %s" % (np.__version__, scipy.__version__)).encode())
        here = os.path.dirname(os.path.abspath(__file__))
        for fn in sorted(os.listdir(here)):
            if fn.endswith(".py"):
                h.update(fn.encode())
                with open(os.path.join(here, fn), "rb") as f:
                    h.update(f.read())
        _SOURCE.append(h.digest())
    return _SOURCE[0]


def key(m, needhull, smooth, refpos, refquat, maxhullvert):
    """Hex key of mesh m's processing inputs (m: the Mesh with its data loaded, before Process)."""
    h = hashlib.sha256(_source_hash())
    h.update(repr((int(m.inertia), bool(needhull), bool(smooth), int(maxhullvert))).encode())
    for a in (m.scale, refpos, refquat, m.vert, m.face, m.normal, m.texcoord, m.facenormal, m.facetexcoord):
        a = np.ascontiguousarray(a)
        h.update(repr((a.dtype.str, a.shape)).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _folder():
    if not _DIR:
        from sim.jit.cache import choose_cache_root

        root = choose_cache_root()
        _DIR.append(None if root is None else os.path.join(root, "meshes"))
    return _DIR[0]


def get(k):
    """The processed fields stored under key k (a dict of RESULT), or None."""
    hit = _MEMORY.get(k)
    if hit is None:
        folder = _folder()
        if folder is None:
            return None
        try:
            with open(os.path.join(folder, k + ".pkl"), "rb") as f:
                hit = pickle.load(f)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError, ImportError):
            return None
        if not isinstance(hit, dict) or set(hit) != set(RESULT):
            return None
        try:
            os.utime(os.path.join(folder, k + ".pkl"))  # recently used: the last to be pruned
        except OSError:
            pass
        _remember(k, hit)
    return {n: _copy(v) for n, v in hit.items()}


def put(k, m):
    """Store mesh m's processed fields under key k (memory and disk; a disk that refuses is skipped)."""
    state = {n: _copy(getattr(m, n)) for n in RESULT}
    _remember(k, state)
    folder = _folder()
    if folder is None:
        return
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            pickle.dump(state, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, os.path.join(folder, k + ".pkl"))  # atomic: a concurrent reader sees all or nothing
        _WRITTEN.append(k)
    except OSError:
        pass


def limit_bytes():
    """The disk folder's bound in bytes (NUMJOCO_MESH_CACHE_MB, default MAX_MB), None when unbounded."""
    try:
        mb = float(os.environ.get("NUMJOCO_MESH_CACHE_MB", MAX_MB))
    except ValueError:
        mb = MAX_MB
    return None if mb <= 0 else int(mb * 2**20)


def prune(force=False):
    """Remove the least recently used disk entries (oldest modification time first) until the folder holds at
    most limit_bytes(); runs when entries were stored since the last prune (or force).  Returns the removed
    file names.  Entries another process removes meanwhile are skipped; a folder that refuses is left alone."""
    if not (_WRITTEN or force):
        return []
    _WRITTEN.clear()
    folder = _folder()
    limit = limit_bytes()
    if folder is None or limit is None:
        return []
    entries, removed, now = [], [], time.time()
    try:
        with os.scandir(folder) as it:
            for e in it:
                try:
                    st = e.stat()
                except OSError:
                    continue
                if e.name.endswith(".pkl"):
                    entries.append((st.st_mtime, e.name, st.st_size))
                elif e.name.endswith(".tmp") and now - st.st_mtime > _TMP_AGE:
                    entries.append((-1.0, e.name, st.st_size))  # an interrupted write: first to go
    except OSError:
        return []
    total = sum(size for _, _, size in entries)
    for _, name, size in sorted(entries):
        if total <= limit:
            break
        try:
            os.remove(os.path.join(folder, name))
            removed.append(name)
        except OSError:
            pass
        total -= size
    return removed


def _remember(k, state):
    if len(_MEMORY) >= _MEMORY_MAX:
        _MEMORY.pop(next(iter(_MEMORY)))
    _MEMORY[k] = state


def _copy(v):
    """A copy a caller may modify without touching the cached value (arrays, tuples of arrays and lists of lists;
    the BVH is read-only after it is built)."""
    if isinstance(v, np.ndarray):
        return v.copy()
    if isinstance(v, tuple):
        return tuple(_copy(x) for x in v)
    if isinstance(v, list):
        return [list(x) if isinstance(x, list) else x for x in v]
    return v
