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
    # valid by construction: each robot is accepted by both (stepped, or in the default run only sized when its
    # feature set is not one of fuzz_models.common_features) or refused by both; never unsupported or undecided
    stepped, sized = stats["both-accept"], stats["accepted-not-stepped"]
    assert stepped + sized + stats["both-reject"] == sum(stats.values())
    assert stepped >= 0.5 * sum(stats.values())
