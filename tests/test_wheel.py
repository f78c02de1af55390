"""The package as a user gets it: a wheel built from the sources, installed into a fresh virtual environment and
used from another directory (no source checkout on the path).

The wheel is built from a copy of pyproject.toml, README.md and the three packages (so no stale build/ folder of
the checkout can leak into it), with the installed setuptools (no build isolation: no download). The virtual
environment sees the system site-packages for the dependencies (numpy, numba, gymnasium, SB3...), but numjoco
itself comes from the wheel: its site-packages comes first on sys.path, and the test checks every package's
__file__. The first gym.make of each feature set compiles the physics kernels into the wheel's own cache
(site-packages/sim/__numba_cache__), as a user's first run does: ~2 min on 2 cores.
"""

import glob
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("sim", "envs", "training")
SCRIPTS = ("numjoco-train", "numjoco-enjoy", "numjoco-sweep", "numjoco-precompile")


def _run(cmd, cwd, timeout=900, env=None):
    """Run `cmd` with no PYTHONPATH (nothing from the checkout); fail with its output when it fails."""
    env = {k: v for k, v in (env or os.environ).items() if k != "PYTHONPATH"}
    out = subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )
    assert out.returncode == 0, f"{' '.join(map(str, cmd))} exited {out.returncode}:\n{out.stdout}\n{out.stderr}"
    return out.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    src = tmp_path_factory.mktemp("src")
    for f in ("pyproject.toml", "README.md"):
        shutil.copy2(os.path.join(REPO, f), src / f)
    for pkg in PACKAGES:
        shutil.copytree(
            os.path.join(REPO, pkg), src / pkg, ignore=shutil.ignore_patterns("__pycache__", "__numba_cache__", "*.pyc")
        )
    dist = tmp_path_factory.mktemp("dist")
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-q",
            "--wheel-dir",
            str(dist),
            str(src),
        ],
        cwd=str(src),
    )
    (path,) = glob.glob(str(dist / "numjoco-*.whl"))
    return path


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory):
    """(python, bin folder) of a fresh venv with the wheel installed (`pip install numjoco-*.whl`)."""
    root = tmp_path_factory.mktemp("venv") / "v"
    _run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(root)], cwd=str(root.parent))
    bindir = root / "bin"
    python = str(bindir / "python")
    # this interpreter's pip installs into the venv (--python: no pip bootstrapped into it);
    # --no-index: the dependencies come from the system site-packages (installed by the test extra);
    # --force-reinstall --no-deps: the checkout's own editable numjoco is visible there too, same version
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            python,
            "install",
            "-q",
            "--no-index",
            "--no-deps",
            "--force-reinstall",
            wheel,
        ],
        cwd=str(root.parent),
    )
    return python, str(bindir)


def test_wheel_contents(wheel):
    """Three top-level packages, every task model and shipped config, the console scripts; no caches."""
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.startswith("numjoco-")}
    assert tops == set(PACKAGES)
    shipped = sorted(os.path.relpath(p, REPO) for p in glob.glob(os.path.join(REPO, "envs", "assets", "*.xml")))
    assert shipped and all(p in names for p in shipped), set(shipped) - set(names)
    assert "envs/marl/two_arm_reach.xml" in names
    configs = sorted(
        os.path.relpath(p, REPO)
        for p in glob.glob(os.path.join(REPO, "training", "configs", "**", "*.yaml"), recursive=True)
    )
    sweeps = sorted(os.path.relpath(p, REPO) for p in glob.glob(os.path.join(REPO, "training", "sweeps", "*.yaml")))
    assert configs and sweeps and all(p in names for p in configs + sweeps), set(configs + sweeps) - set(names)
    assert not [n for n in names if "__numba_cache__" in n or "__pycache__" in n or n.endswith(".pyc")]
    (ep,) = [n for n in names if n.endswith("entry_points.txt")]
    text = zipfile.ZipFile(wheel).read(ep).decode()
    for script, target in (
        ("numjoco-train", "training.train:main"),
        ("numjoco-enjoy", "training.enjoy:main"),
        ("numjoco-sweep", "training.sweep:main"),
        ("numjoco-precompile", "sim.jit.precompile:main"),
    ):
        assert f"{script} = {target}" in text


MAKE_EVERY_ID = """
import os, sys
import gymnasium as gym
import envs, sim, training
prefix = sys.prefix
for mod in (envs, sim, training):
    assert mod.__file__.startswith(prefix), (mod.__name__, mod.__file__, prefix)
assert envs.asset_path("hopper.xml").startswith(prefix)
m = sim.load_model(envs.asset_path("hopper.xml"))
assert (m.nq, m.nv, m.nu) == (6, 6, 3), (m.nq, m.nv, m.nu)
ids = sorted(i for i in gym.registry if i.startswith("numjoco/"))
expected = sorted(
    ["numjoco/" + t for t in envs.TASKS]
    + [envs.dmc.env_id(*t) for t in envs.dmc.TASKS]
    + [i for i, _, _ in envs.robotics.env_ids()]
)
assert ids == expected, sorted(set(ids) ^ set(expected))
robotics = {i for i, _, _ in envs.robotics.env_ids()}
for i in ids:
    if i in robotics:
        # models read from the installed gymnasium-robotics, not from the wheel: the wheel's part is the task class
        cls = envs.robotics.robot_task_class(i)
        assert cls is not None and cls.__module__.startswith("envs.robotics"), (i, cls)
        assert cls.__module__ and sys.modules[cls.__module__].__file__.startswith(prefix)
        continue
    env = gym.make(i)
    assert env.observation_space is not None and env.action_space.shape
    env.close()
print("made", len(ids), "of", len(expected))
"""


def test_wheel_installed_makes_every_id(venv, tmp_path):
    """From another directory, the installed wheel loads its assets and gym.makes every registered id."""
    python, _ = venv
    # cold compiles into the wheel's own cache: the Gymnasium tasks' and the DMC domains'.  The robotics ids read
    # their models from gymnasium-robotics (not shipped in the wheel): their task classes are imported from the
    # wheel, not constructed (a cold compile of their feature set alone takes ~3 min on 2 cores;
    # tests/test_robotics.py constructs and steps them from the checkout)
    out = _run([python, "-c", MAKE_EVERY_ID], cwd=str(tmp_path), timeout=1800, env=dict(os.environ, NUMJOCO_QUIET="1"))
    made, of = out.split("made ")[1].split()[::2]
    assert made == of and int(made) >= 13 + 28 + 20, out


def test_wheel_console_scripts(venv, tmp_path):
    """The console scripts are installed and run; shipped configs and sweeps are found by their checkout paths."""
    _, bindir = venv
    for script in SCRIPTS:
        assert os.path.exists(os.path.join(bindir, script)), script
    for script in ("numjoco-train", "numjoco-enjoy", "numjoco-sweep", "numjoco-precompile"):
        assert "usage:" in _run([os.path.join(bindir, script), "--help"], cwd=str(tmp_path))
    out = _run(
        [os.path.join(bindir, "numjoco-sweep"), "training/sweeps/hopper_reward.yaml", "--dry-run"], cwd=str(tmp_path)
    )
    assert "forward_reward_weight" in out and out.count("\n") >= 4
