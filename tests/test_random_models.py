"""Random-model conformance: numjoco's compiler against mujoco on seeded random MJCF (tests/mjcf_gen.py).

Default run: N_DEFAULT models (seeds 0..N-1); `--full`: N_FULL models.  A failing seed is reproduced with
    python tests/mjcf_gen.py <seed>            (prints the model)

The replicate variant (mjcf_gen.generate(seed, replicate=True)) wraps world children in (nested) <replicate>
elements; its section elements keep their plain names, so some models are invalid for MuJoCo (an element naming
a replicated and a later object): there numjoco must reject exactly what MuJoCo rejects.
"""

import collections

import pytest

import mujoco

import mjcf_gen
import oracle

N_DEFAULT = 200
N_FULL = 2000
N_REPLICATE = 100
N_REPLICATE_FULL = 1000


def pytest_generate_tests(metafunc):
    if "seed" in metafunc.fixturenames:
        n = N_FULL if metafunc.config.getoption("--full") else N_DEFAULT
        metafunc.parametrize("seed", range(n), ids=[f"seed{s:04d}" for s in range(n)])
    if "rseed" in metafunc.fixturenames:
        n = N_REPLICATE_FULL if metafunc.config.getoption("--full") else N_REPLICATE
        metafunc.parametrize("rseed", range(n), ids=[f"seed{s:04d}" for s in range(n)])


@pytest.mark.compiler
@pytest.mark.oracle
def test_random_model_matches_mujoco(seed):
    xml = mjcf_gen.generate(seed)
    try:
        theirs = mujoco.MjModel.from_xml_string(xml)
    except ValueError as e:  # a generator bug, not a compiler bug
        pytest.fail(f"mjcf_gen produced a model mujoco rejects (seed {seed}): {e}\n{xml}")
    import sim

    try:
        ours = sim.load_model(xml)
    except Exception as e:
        raise AssertionError(
            f"sim.load_model failed on random model {seed} "
            f"(python tests/mjcf_gen.py {seed}): {type(e).__name__}: {e}\n{xml}"
        ) from e
    mism = oracle.compare_models(ours, theirs)
    if mism:
        raise AssertionError(
            f"random model {seed} (python tests/mjcf_gen.py {seed}): {len(mism)} mismatch(es)\n  "
            + "\n  ".join(mism)
            + "\n"
            + xml
        )


@pytest.mark.compiler
@pytest.mark.oracle
def test_random_replicated_model_matches_mujoco(rseed):
    """python -c "import mjcf_gen; print(mjcf_gen.generate(<seed>, replicate=True))" reproduces a failure."""
    xml = mjcf_gen.generate(rseed, replicate=True)
    try:
        theirs = mujoco.MjModel.from_xml_string(xml)
    except ValueError:
        theirs = None
    import sim

    try:
        ours = sim.load_model(xml)
    except sim.UnsupportedError as e:
        raise AssertionError(f"replicated model {rseed}: UnsupportedError {e}") from e
    except sim.ModelError as e:
        assert theirs is None, f"replicated model {rseed}: mujoco accepts, numjoco raises {e}\n{xml}"
        return
    assert theirs is not None, f"replicated model {rseed}: mujoco rejects, numjoco accepts\n{xml}"
    mism = oracle.compare_models(ours, theirs)
    assert not mism, f"replicated model {rseed}: {len(mism)} mismatch(es)\n  " + "\n  ".join(mism)


def test_replicate_generator_mostly_valid():
    valid = 0
    for s in range(50):
        xml, feats = mjcf_gen.generate_with_features(s, replicate=True)
        try:
            mujoco.MjModel.from_xml_string(xml)
            valid += 1
        except ValueError:
            pass
    assert valid >= 40


def test_generator_is_deterministic():
    assert mjcf_gen.generate(123) == mjcf_gen.generate(123)
    assert mjcf_gen.generate(123) != mjcf_gen.generate(124)


def test_generator_covers_features():
    """The first N_DEFAULT seeds exercise every feature the generator knows."""
    seen = collections.Counter()
    for s in range(N_DEFAULT):
        seen.update(mjcf_gen.generate_with_features(s)[1])
    expected = {"joint:" + t for t in ("free", "ball", "hinge", "slide")}
    expected |= {"geom:" + t for t in mjcf_gen.GEOM_TYPES}
    expected |= {"orient:" + f for f in mjcf_gen.ORIENT_FORMS}
    expected |= {
        "actuator:" + a for a in ("motor", "position", "velocity", "general", "intvelocity", "damper", "tendon")
    }
    expected |= {"frame", "mocap", "tendon:fixed", "sensor", "equality", "contact"}
    expected |= {
        "fromto",
        "default",
        "default:nested",
        "childclass",
        "class=",
        "inertial",
        "fullinertia",
        "site",
        "angle:radian",
        "eulerseq",
        "autolimits:false",
        "option",
        "flag",
        "keyframe",
        "geom:inherited_type",
        "shellinertia",
        "geom:mass",
        "joint:range",
        "boundmass",
        "discardvisual",
        "geom:visual",
    }
    assert not expected - set(seen), sorted(expected - set(seen))
