"""URDF fuzzing with hypothesis against the mujoco oracle (issue 16): mutated robots of tests/assets/urdf and
random robots of tests/urdf_gen.py, with the property of tests/fuzz_models.py (see tests/test_fuzz_mjcf.py)."""

import collections

import pytest

import fuzz_models as fm
from test_fuzz_mjcf import run_property

N_MUTATED, N_GENERATED = 120, 40
N_FULL_MUTATED, N_FULL_GENERATED = 1500, 500

pytestmark = [pytest.mark.oracle, pytest.mark.compiler]


def test_mutated_urdf_robots(full_run):
    stats = run_property(fm.mutated_urdf(), N_FULL_MUTATED if full_run else N_MUTATED, full_run, collections.Counter())
    assert stats["both-accept"] >= 5 and stats["both-reject"] >= 20


def test_generated_urdf_robots(full_run):
    stats = run_property(
        fm.generated_urdf(), N_FULL_GENERATED if full_run else N_GENERATED, full_run, collections.Counter()
    )
    assert stats["both-accept"] + stats["both-reject"] == sum(stats.values())
