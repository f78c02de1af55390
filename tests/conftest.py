"""pytest configuration for numjoco's tests: markers, the --full option, shared helpers.

--full    run the slow exhaustive sweeps (e.g. 2000 random models instead of 200); tests that only make sense in
          that mode are marked ``@pytest.mark.full`` and skipped otherwise.

Markers (registered here, not in an ini file):
    full      exhaustive sweep, runs only with --full
    oracle    compares numjoco against the official mujoco bindings
    compiler  MJCF compiler conformance (corpus, random models, malformed files)
"""

import os
import sys

import pytest

# Batches step world by world in the tests (NUMJOCO_SIMD=0), except where the block step is the subject: the fixture
# `blocks` turns it on for a test (test_simd_blocks.py and test_simd_models.py for all of theirs), compiled before
# the first step (NUMJOCO_SIMD=wait).  Those tests hold every world of the block step bitwise to the per-world step
# on every shipped model, resets and faults included; compiling the block step for every other feature set a test
# batches would cost about 70 CPU s each.  The background compile (NUMJOCO_SIMD=1, a user's default) has its own test
# (test_simd_blocks.py test_background_compile).
os.environ.setdefault("NUMJOCO_SIMD", "0")

# torch's triton (imported when a torch optimizer is made) and Mesa's llvmpipe (the EGL context of mujoco.Renderer,
# the rendering oracle) each bring their own LLVM: loading triton's after Mesa's crashes the process (a segfault in
# triton/_C/libtriton), the other order works.  A test process may render, then train with SB3, so triton is loaded
# first when it is installed (0.2 s).
try:
    import triton  # noqa: F401
except Exception:  # not installed, or unusable here: nothing to order
    pass

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(TESTS_DIR)

# `import sim` (repo root) and `import oracle` / `import mjcf_gen` (this folder) regardless of how pytest is run
for _p in (REPO_DIR, TESTS_DIR):
    if _p not in sys.path:
        sys.path.insert(0, _p)


def pytest_addoption(parser):
    group = parser.getgroup("numjoco")
    group.addoption(
        "--full", action="store_true", default=False, help="run the slow exhaustive sweeps (2000 random models, ...)"
    )


def pytest_configure(config):
    config.addinivalue_line("markers", "full: slow exhaustive sweep, runs only with --full")
    config.addinivalue_line("markers", "oracle: compares numjoco against the official mujoco bindings")
    config.addinivalue_line("markers", "compiler: MJCF compiler conformance tests")
    # pytest-xdist >= 3.6 reorders the files by their number of tests unless told not to: keep the order that
    # pytest_collection_modifyitems sets (FIRST), which follows the files' cost, not their count
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


# the files that cost most on a clean checkout (empty kernel cache), heaviest first: under pytest-xdist's
# --dist loadfile a worker takes the next file in this order when it is almost done with its own, so the long files
# start first and the last ones are short (longest first).  The wheel's venv build and install runs for minutes in
# one test.  Order and figures from one cold run of the default set (CPU-s per file, the kernels it was first to
# compile included): wheel ~260 s wall, pixels 388, render 259, accept_refuse 236, actuator_fields ~230,
# large_scenes 219, robot_corpus 153, urdf 137, robotics 125, dmc 117.  Every other file follows, most tests first
# (pytest-xdist's own order, which this replaces).
FIRST = (
    "test_wheel.py",
    "test_pixels.py",
    "test_render.py",
    "test_accept_refuse.py",
    "test_actuator_fields.py",
    "test_large_scenes.py",
    "test_robot_corpus.py",
    "test_robotics.py",
    "test_dmc.py",
    "test_urdf.py",
    "test_buffers.py",
    "test_noslip.py",
    "test_sb3.py",
    "test_constraint.py",
)


@pytest.fixture
def blocks():
    """The batched step on blocks of LANES worlds, as a user's default, compiled before the first step (see above);
    its own MonkeyPatch, which a test's monkeypatch.undo() leaves in place."""
    import sim.api as api

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(api, "SIMD", True)
        mp.setattr(api, "SIMD_WAIT", True)
        yield


def pytest_collection_modifyitems(config, items):
    counts = {}
    for item in items:
        counts[item.path.name] = counts.get(item.path.name, 0) + 1
    rank = {name: i for i, name in enumerate(FIRST)}
    # stable: a file's tests keep their order
    items.sort(key=lambda item: (rank.get(item.path.name, len(FIRST)), -counts[item.path.name], str(item.path)))
    if config.getoption("--full"):
        return
    skip = pytest.mark.skip(reason="exhaustive sweep: run with --full")
    for item in items:
        if "full" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def full_run(request):
    """True when pytest was started with --full."""
    return bool(request.config.getoption("--full"))


def gymnasium_assets_dir():
    """Gymnasium's MuJoCo asset folder (a public corpus of MJCF models), or None without gymnasium."""
    try:
        import gymnasium
    except ImportError:  # pragma: no cover
        return None
    d = os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets")
    return d if os.path.isdir(d) else None
