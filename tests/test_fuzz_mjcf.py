"""MJCF fuzzing with hypothesis against the mujoco oracle (issue 16); strategies and the property are in
tests/fuzz_models.py.

Default run: N_MUTATED mutated corpus models + N_GENERATED random valid models (derandomized: the same inputs on
every run, so CI is reproducible and the kernels they step are cached); `--full` runs N_FULL_* fresh random
inputs.  Every input is loaded by mujoco and numjoco: both accept (same sizes, NSTEP finite steps: in the
default run only for models of two feature sets, reacher's and the URDF quadruped's, fuzz_models.common_features),
both reject (numjoco with a sim.ModelError naming file and element or line), or numjoco refuses with
sim.UnsupportedError what mujoco accepts; never another exception, a crash or more than HANG_SECONDS (numba's
compile time excluded).  The outcome counts are printed (-s) and checked to cover each case.  The inputs on
which numjoco disagreed with MuJoCo before issue 16 (empty attributes, stray text, repeated names, number
formats, XML tinyxml2 tolerates) are pinned in tests/test_parser_agreement.py.
"""

import collections
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import fuzz_models as fm
import sim

mujoco = pytest.importorskip("mujoco")

N_MUTATED, N_GENERATED = 200, 60
N_FULL_MUTATED, N_FULL_GENERATED = 4000, 600

pytestmark = [pytest.mark.oracle, pytest.mark.compiler]


def run_property(strategy, n, full, stats):
    """Check the property on n inputs drawn from strategy; outcome counts into stats."""

    @settings(
        max_examples=n,
        deadline=None,
        derandomize=not full,
        database=None,
        print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )
    @given(strategy)
    def prop(case):
        stats[fm.check_input(case)] += 1

    fm.STEP_ALL[0] = full
    prop()
    print(dict(stats))
    return stats


def test_mutated_mjcf_models(full_run):
    stats = run_property(fm.mutated_mjcf(), N_FULL_MUTATED if full_run else N_MUTATED, full_run, collections.Counter())
    assert sum(stats.values()) >= (N_FULL_MUTATED if full_run else N_MUTATED) * 0.95
    assert stats["both-accept"] >= (20 if full_run else 10) and stats["both-reject"] >= (100 if full_run else 50)


def test_generated_mjcf_models(full_run):
    stats = run_property(
        fm.generated_mjcf(), N_FULL_GENERATED if full_run else N_GENERATED, full_run, collections.Counter()
    )
    assert stats["both-accept"] >= 0.5 * sum(stats.values())  # valid by construction, nearly always
    assert stats["both-reject"] <= 0.05 * sum(stats.values())


FUSESTATIC_BOUNDS = os.path.join(fm.MODELS_DIR, "fusestatic_inertiafromgeom.xml")


@pytest.mark.parametrize(
    "bound",
    [
        'boundinertia="1e308"',  # every body's inertia raised: nothing fused (nbody 6)
        'boundmass="0.31"',  # the geom-less static body raised, and its child kept with it (nbody 5)
        'boundmass="0.7"',  # every static body raised (nbody 6)
        'boundinertia="0.015"',
        'boundmass="1e-9"',  # a bound that raises nothing: fused as without bounds (nbody 3)
    ],
)
def test_fusestatic_with_bounds(bound):
    """The fuzzer's find (fusestatic with inertiafromgeom="true" and boundmass / boundinertia, where MuJoCo 3.17
    keeps a static body whose own or parent's inertia the bound raised): the bodies, their tree, masses and
    inertias as MuJoCo compiles them, then the fuzz property (sizes, stepping) on the same input."""
    with open(FUSESTATIC_BOUNDS) as f:
        doc = f.read().replace('inertiafromgeom="true"/>', f'inertiafromgeom="true" {bound}/>')
    theirs = mujoco.MjModel.from_xml_string(doc)
    ours = sim.load_model(doc)
    assert int(ours.nbody) == theirs.nbody
    np.testing.assert_array_equal(np.asarray(ours.body_parentid), theirs.body_parentid)
    np.testing.assert_allclose(ours.body_mass, theirs.body_mass, rtol=1e-12, atol=0)
    np.testing.assert_allclose(ours.body_inertia, theirs.body_inertia, rtol=1e-9, atol=0)
    assert fm.check_input(fm.Case(doc, fm.MODELS_DIR, {}, ["pinned"])) in ("both-accept", "accepted-not-stepped")
