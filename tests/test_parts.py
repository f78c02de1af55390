"""Parts of the step compiled on their own (sim/jit/parts.py `part`, sim/engine/parts.py): a first compile sends them
to a worker process and gives the same machine results as compiling them in-process; a warm process loads them and
compiles nothing; the masked feature sets the stubs pass are the types the parts are compiled for."""

import itertools
import json
import os
import random
import subprocess
import sys
import tempfile

import numba
import pytest

from sim.jit import parts
from sim.jit.features import NAMES
import sim.engine.parts  # noqa: F401  (registers the parts in parts._PARTS)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOPPER = os.path.join(REPO, "envs", "assets", "hopper.xml")

# 50 random-control steps of hopper in a fresh process: trajectory digest, part statistics, kernels compiled
SCRIPT = r"""
import hashlib, json, sys
sys.path.insert(0, %(root)r)
from sim.jit.precompile import _count_compiles
c = _count_compiles()
import numpy as np
import sim
from sim.jit import parts
m = sim.load_model(%(path)r)
d = sim.Data(m)
rng = np.random.default_rng(0)
h = hashlib.sha1()
for i in range(50):
    d.ctrl[:] = rng.uniform(-1, 1, m.nu)
    sim.step(m, d)
    h.update(np.ascontiguousarray(d.qpos).tobytes())
    h.update(np.ascontiguousarray(d.qvel).tobytes())
print(json.dumps(dict(hash=h.hexdigest(), stats=parts.PART_STATS, ready=sorted(parts._PART_READY), compiled=c.n)))
""" % dict(root=REPO, path=HOPPER)


def start(cache, workers):
    env = dict(os.environ, NUMJOCO_CACHE_DIR=cache, NUMJOCO_QUIET="1", NUMJOCO_COMPILE_WORKERS=workers)
    return subprocess.Popen(
        [sys.executable, "-c", SCRIPT], env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def result(proc):
    out, err = proc.communicate(timeout=1800)
    assert proc.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.full  # two cold compiles of hopper in worker processes (~100 s on two idle cores)
def test_worker_and_in_process_compiles_agree():
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        # both cold compiles at once (the worker makes it three processes on CI's two cores)
        pw, ph = start(a, "1"), start(b, "0")
        w, here = result(pw), result(ph)
        off = "0" * len(NAMES)  # hopper's masked feature sets: every part's bits off but the solver parts' fourth
        on4 = off[:3] + "1" + off[4:]
        names = [
            "numjoco_part_sim_engine_parts_collision_part.F" + off,
            "numjoco_part_sim_engine_parts_constraint_islands_part.F" + on4,
            "numjoco_part_sim_engine_parts_constraint_solve_part.F" + on4,
            "numjoco_part_sim_engine_parts_constraint_warmstart_part.F" + on4,
            "numjoco_part_sim_engine_parts_make_constraint_part.F" + off,
            "numjoco_part_sim_engine_parts_passive_part.F" + off,
            "numjoco_part_sim_engine_parts_rne_post_constraint_part.F" + off,
        ]
        assert w["ready"] == names and here["ready"] == names
        # compiled_here counts the worker's parts compiled here instead (collision is compiled here by design)
        in_worker = sum(1 for _, _, _, worker in parts._PARTS.values() if worker)
        assert 0 < in_worker < len(names)
        if parts._cores() > 1:
            assert w["stats"]["workers"] == 1 and w["stats"]["compiled_here"] == 0, w["stats"]
        assert here["stats"]["workers"] == 0 and here["stats"]["compiled_here"] == in_worker, here["stats"]
        assert w["hash"] == here["hash"]
        # a warm process (the worker's cache) loads the parts with the entry: no worker, nothing compiled
        warm = result(start(a, "1"))
        assert warm["stats"] == {"workers": 0, "wait": 0.0, "compiled_here": 0}
        assert warm["compiled"] == 0 and warm["hash"] == w["hash"] and warm["ready"] == names


def test_masked_feature_sets_are_the_compiled_types(full_run):
    # every one of the 2**len(NAMES) feature sets with --full; by default 512 drawn at random (seeded) plus the
    # all-on and all-off sets
    every = list(itertools.product((True, None), repeat=len(NAMES)))
    if not full_run:
        rng = random.Random(0)
        every = [every[0], every[-1]] + rng.sample(every, 512)
    for F in every:
        for stem, (disp, argtypes, uses, _) in parts._PARTS.items():
            if uses is None:
                assert parts._part_argtypes(stem, None) == tuple(argtypes())
                continue
            masked = tuple(F[i] if i in uses else None for i in range(len(NAMES)))
            bits = parts._bits(numba.typeof(F), uses)
            assert parts._part_argtypes(stem, bits)[-1] == numba.typeof(masked)
            assert parts.part_symbol(stem, bits).endswith(".F" + "".join("1" if x else "0" for x in masked))


def test_worker_slots_bound_the_workers(tmp_path, monkeypatch):
    # half the cores (at least one) may run part workers at once on one cache (lock files in its root); a
    # worker inherits its slot's lock, so the slot frees when the worker exits
    monkeypatch.setattr(parts._cache, "CACHE_ROOT", str(tmp_path))
    n = max(1, parts._cores() // 2)
    held = [parts._worker_slot() for _ in range(n)]
    assert all(h not in (None, True) for h in held)
    assert parts._worker_slot() is None
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], pass_fds=(held[0].fileno(),))
    try:
        held[0].close()
        assert parts._worker_slot() is None  # the child still holds it
    finally:
        child.kill()
        child.wait()
    again = parts._worker_slot()
    assert again not in (None, True)
    for h in held[1:] + [again]:
        h.close()
