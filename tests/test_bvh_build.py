"""The median split of sim/compiler/bvh.py where its comparison is not transitive: elements whose positions along
the split axis form chains of gaps below mjEPS (a ~ b and b ~ c, a !~ c) are ordered by libc++'s nth_element step
by step, and every node comes out as MuJoCo's."""

import numpy as np
import pytest

import oracle
from sim.compiler import bvh, compile_document
from sim.mjcf import reader

mujoco = pytest.importorskip("mujoco")

FIELDS = ["bvh_aabb", "bvh_child", "bvh_nodeid", "bvh_depth", "body_bvhadr", "body_bvhnum"]


def _chain_body(seed, n=40):
    """A body BVH over n spheres (body frame = inertial frame): every fourth far out along x, the others on a
    chain of x values 6e-15 apart (under mjEPS = 1e-14, spanning more); returns (xml, positions)."""
    rng = np.random.default_rng(seed)
    pos = np.empty((n, 3))
    for i in range(n):
        x = float(rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 1)) if i % 4 == 0 else int(rng.integers(0, 8)) * 6e-15
        pos[i] = (x, *rng.uniform(-0.1, 0.1, 2))
    geoms = "".join('<geom type="sphere" size=".01" pos="%r %r %r"/>' % tuple(float(v) for v in p) for p in pos)
    xml = (
        '<mujoco><worldbody><body><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>'
        + geoms
        + "</body></worldbody></mujoco>"
    )
    return xml, pos


@pytest.mark.compiler
@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(4))
def test_bvh_with_non_transitive_split_matches_mujoco(seed):
    xml, pos = _chain_body(seed)
    assert not bvh._clean(pos)  # the comparison is not a strict order here: the step-by-step path runs
    theirs = mujoco.MjModel.from_xml_string(xml)
    ours = compile_document(reader.read(xml), set_constants=False)
    assert theirs.body_bvhnum[1] == 2 * len(pos) - 1
    oracle.assert_models_match(ours, theirs, names=False, fields=FIELDS)


def test_level_build_equals_step_by_step():
    """Element sets mixing strict and non-transitive parts (eps chains, exact duplicates, NaN): the level-by-level
    build of the strict subtrees gives the trees the step-by-step nth_element gives everywhere."""
    rng = np.random.default_rng(7)
    for trial in range(40):
        n = int(rng.integers(2, 120))
        lpos = rng.integers(0, 30, size=(n, 3)) * 0.01
        k = rng.integers(0, n, size=max(1, n // 8))
        lpos[k] += rng.integers(0, 4, size=(len(k), 3)) * 0.7e-14  # chains within mjEPS
        if trial % 5 == 0:
            lpos[rng.integers(0, n), rng.integers(0, 3)] = np.nan  # a degenerate face's circumcenter
        c = rng.normal(size=(n, 3))
        h = np.abs(rng.normal(size=(n, 3))) * (rng.random((n, 1)) < 0.8)
        aamm = np.concatenate([c - h, c + h], axis=1)
        ids = np.arange(n) + 3
        a = bvh.build(lpos, aamm, ids)
        b = bvh.build(lpos, aamm, ids, step_by_step=True)
        for f in ("aabb", "child", "nodeid", "depth"):
            x, y = getattr(a, f), getattr(b, f)
            assert x.dtype == y.dtype and np.array_equal(x.view(np.uint8), y.view(np.uint8)), (trial, f)
