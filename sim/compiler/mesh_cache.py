"""A cache of processed meshes (mjCMesh::Process's results), in memory and on disk, as MuJoCo keeps processed
mesh assets in its asset cache (mjCache).

Processing a mesh (convex hull, polygons, inertia, the face BVH) is the compiler's largest cost on models with
meshes: Fetch's 18 meshes take seconds in Python.  The result depends only on the mesh's data (vertices, faces,
normals, texture coordinates and their face indices), its attributes that Process reads (scale, inertia mode,
whether a hull is needed, smoothnormal, refpos, refquat, maxhullvert), the compiler's source and the numpy / scipy
versions; the key hashes all of them, so a cached result is the result processing would compute, bit for bit.
Meshes whose processing warns are not cached (the warning is shown each time).

Disk entries live in `<kernel cache root>/meshes` (sim/jit/cache.py choose_cache_root: $NUMJOCO_CACHE_DIR first);
NUMJOCO_MESH_CACHE=0 turns the cache off.
"""

import hashlib
import os
import pickle
import tempfile

import numpy as np

_SOURCE = []
_MEMORY = {}
_MEMORY_MAX = 256  # meshes kept in memory (a model's meshes, a few models' worth)
_DIR = []
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
    except OSError:
        pass


def _remember(k, state):
    if len(_MEMORY) >= _MEMORY_MAX:
        _MEMORY.pop(next(iter(_MEMORY)))
    _MEMORY[k] = state


def _copy(v):
    """A copy a caller may modify without touching the cached value (arrays and lists of lists; the BVH is
    read-only after it is built)."""
    if isinstance(v, np.ndarray):
        return v.copy()
    if isinstance(v, list):
        return [list(x) if isinstance(x, list) else x for x in v]
    return v
