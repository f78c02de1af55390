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


# files that run for minutes in one test (a wheel built and installed into a venv): started first, so that under
# pytest-xdist (one file per worker at a time) they do not run alone at the end of the suite
FIRST = ("test_wheel.py",)


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.path.name not in FIRST)  # stable: every other file keeps its place
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
