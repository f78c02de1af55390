"""The processed-mesh cache (sim/compiler/mesh_cache.py): a model compiled from cached meshes is the model
compiled from scratch, bit for bit, and MuJoCo's."""

import os
import warnings

import numpy as np
import pytest

import sim
from sim.compiler import mesh_cache

mujoco = pytest.importorskip("mujoco")

ASSETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "assets")

XML = (
    """<mujoco>
  <compiler meshdir="%s"/>
  <asset>
    <mesh name="l" file="lshape.obj"/>
    <mesh name="t" file="tetra.stl" scale="1 2 0.5"/>
    <mesh name="b" file="box.stl" refpos="0.1 0 0" inertia="shell"/>
    <mesh name="p" file="irregular_points.obj" maxhullvert="8"/>
  </asset>
  <worldbody>
    <body><freejoint/><geom type="mesh" mesh="l"/></body>
    <body pos="1 0 0"><freejoint/><geom type="mesh" mesh="t"/></body>
    <body pos="2 0 0"><freejoint/><geom type="mesh" mesh="b" contype="0" conaffinity="0"/></body>
    <body pos="3 0 0"><freejoint/><geom type="mesh" mesh="p"/></body>
  </worldbody>
</mujoco>
"""
    % ASSETS
)


def _fields(m):
    return {k: np.asarray(v) for k, v in vars(m).items() if isinstance(v, np.ndarray)}


def _equal(a, b):
    return a.keys() == b.keys() and all(np.array_equal(a[k].view(np.uint8), b[k].view(np.uint8)) for k in a)


def test_cached_meshes_bitwise(tmp_path, monkeypatch):
    """Compiled without the cache, then cold (processing and storing), from memory and from disk (a new
    process's view: the memory cleared): every Model array equal in every bit; the mesh fields MuJoCo's."""
    monkeypatch.setattr(mesh_cache, "_DIR", [str(tmp_path)])
    monkeypatch.setattr(mesh_cache, "_MEMORY", {})
    monkeypatch.setenv("NUMJOCO_MESH_CACHE", "0")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = _fields(sim.load_model(XML))
        monkeypatch.setenv("NUMJOCO_MESH_CACHE", "1")
        cold = _fields(sim.load_model(XML))
        assert len(os.listdir(tmp_path)) == 4  # one entry per mesh
        memory = _fields(sim.load_model(XML))
        mesh_cache._MEMORY.clear()
        disk = _fields(sim.load_model(XML))
    assert _equal(ref, cold) and _equal(ref, memory) and _equal(ref, disk)
    mm = mujoco.MjModel.from_xml_string(XML)
    for k in ("mesh_vert", "mesh_face", "mesh_graph", "mesh_polynum", "mesh_polyvert", "body_inertia", "geom_size"):
        np.testing.assert_allclose(ref[k], getattr(mm, k), rtol=0, atol=1e-12 if ref[k].dtype.kind == "f" else 0)


def test_cache_key_follows_attributes(tmp_path, monkeypatch):
    """Another scale, refpos or inertia mode of the same file is processed anew (a different key)."""
    monkeypatch.setattr(mesh_cache, "_DIR", [str(tmp_path)])
    monkeypatch.setattr(mesh_cache, "_MEMORY", {})
    monkeypatch.setenv("NUMJOCO_MESH_CACHE", "1")
    base = XML.replace(' scale="1 2 0.5"', "")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = _fields(sim.load_model(base))
        b = _fields(sim.load_model(XML))
    assert len(os.listdir(tmp_path)) == 5
    assert not np.array_equal(a["mesh_vert"], b["mesh_vert"])
    np.testing.assert_allclose(b["mesh_vert"], mujoco.MjModel.from_xml_string(XML).mesh_vert, rtol=0, atol=0)


def test_disk_cache_bounded_least_recently_used(tmp_path, monkeypatch):
    """The disk folder is held under NUMJOCO_MESH_CACHE_MB: the entries used longest ago go first (a disk hit
    counts as a use), an interrupted write's old temporary file before them; 0 leaves the folder unbounded."""
    monkeypatch.setattr(mesh_cache, "_DIR", [str(tmp_path)])
    monkeypatch.setattr(mesh_cache, "_MEMORY", {})
    monkeypatch.setattr(mesh_cache, "_WRITTEN", [])
    monkeypatch.setenv("NUMJOCO_MESH_CACHE", "1")
    monkeypatch.setenv("NUMJOCO_MESH_CACHE_MB", "0")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = _fields(sim.load_model(XML))
    names = sorted(os.listdir(tmp_path))
    assert len(names) == 4 and mesh_cache.prune(force=True) == []  # unbounded
    # ages: names[0] oldest ... names[3] newest; then a disk hit makes names[0] the most recently used
    for i, n in enumerate(names):
        os.utime(tmp_path / n, (1e9 + i, 1e9 + i))
    mesh_cache._MEMORY.clear()
    monkeypatch.setattr(mesh_cache, "_WRITTEN", [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _equal(_fields(sim.load_model(XML)), ref)  # every mesh from disk: nothing stored, nothing pruned
    assert sorted(os.listdir(tmp_path)) == names
    assert all(os.path.getmtime(tmp_path / n) > 1e9 + 10 for n in names)
    for i, n in enumerate(names):
        os.utime(tmp_path / n, (1e9 + (i + 3) % 4, 1e9 + (i + 3) % 4))  # names[1] now the oldest, names[0] newest
    stale = tmp_path / "x.tmp"
    stale.write_bytes(b"partial")
    os.utime(stale, (1e9, 1e9))
    size = {n: os.path.getsize(tmp_path / n) for n in names}
    keep = size[names[0]] + size[names[3]]  # room for the two most recently used
    monkeypatch.setenv("NUMJOCO_MESH_CACHE_MB", repr(keep / 2**20))
    assert sorted(mesh_cache.prune(force=True)) == sorted(["x.tmp", names[1], names[2]])
    assert sorted(os.listdir(tmp_path)) == sorted([names[0], names[3]])
    # a load that stores entries prunes by itself: a bound below one entry leaves the folder empty, the model intact
    mesh_cache._MEMORY.clear()
    monkeypatch.setenv("NUMJOCO_MESH_CACHE_MB", repr(1 / 2**20))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _equal(_fields(sim.load_model(XML)), ref)
    assert os.listdir(tmp_path) == []
