"""The package as a stranger gets it: `python -m build` (an sdist, then the wheel built from it, in build's isolated
environment), the wheel installed WITH its declared dependencies into a virtual environment that sees nothing else
(no system site-packages, no user site, no PYTHONPATH), and used from another folder.

Two steps in one venv: `pip install numjoco-*.whl` (the core requirements), then every Gymnasium, arm-reach and DMC
id is made, reset and stepped, a vector env batched and a frame rendered, and the robotics ids must say what to
install; `pip install "numjoco-*.whl[robotics,marl,render]"`, then the Fetch and Shadow Hand ids, the PettingZoo
tasks and a video.  The train and ray extras (torch, SB3, Ray) are not installed here: tests/test_training*.py run
them from the checkout.

Cost.  Packages come from pip's cache (and the machine's local wheels) like any repeated install.  The kernels are
not compiled cold here: the venv uses the test session's kernel cache (NUMJOCO_CACHE_DIR = this process's cache
root).  The installed sources are the checkout's, so they hash to the same cache folders (kernel folders are named
relative to the package root, sim/jit/cache.py), and what the rest of the suite compiled is loaded; a feature set
no other default test uses is compiled here, into that cache.  A cold first use is what
benchmarks/bench_first_step.py measures.
"""

import glob
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("sim", "envs", "training")
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "NOTICE", "CITATION.cff", "MANIFEST.in")
SCRIPTS = ("numjoco-train", "numjoco-enjoy", "numjoco-sweep", "numjoco-precompile")
EXTRAS = "robotics,marl,render"


def clean_env(**extra):
    """The environment of a process that sees only its own interpreter's packages."""
    drop = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "VIRTUAL_ENV", "NUMJOCO_QUIET")
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("NUMBA_")}
    return dict(env, PYTHONNOUSERSITE="1", **extra)


def _run(cmd, cwd, timeout=3600, env=None, check=True):
    """Run `cmd` (clean_env unless env is given); fail with its output when it fails (check)."""
    out = subprocess.run(
        [str(c) for c in cmd],
        cwd=str(cwd),
        env=clean_env() if env is None else env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    if check:
        assert out.returncode == 0, f"{' '.join(map(str, cmd))} exited {out.returncode}:\n{out.stdout}\n{out.stderr}"
    return out


def _session_cache():
    """The kernel cache root of this test session (the checkout's sim)."""
    from sim.jit import cache

    return cache.CACHE_ROOT


def copy_sources(dst):
    """The files a build reads (no build/, caches or checkout leftovers)."""
    for f in SOURCES:
        shutil.copy2(os.path.join(REPO, f), dst / f)
    ignore = shutil.ignore_patterns("__pycache__", "__numba_cache__", "_kernels", "*.pyc", "results")
    for pkg in PACKAGES + ("buildtools",):
        shutil.copytree(os.path.join(REPO, pkg), dst / pkg, ignore=ignore)


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """`python -m build` of a copy of the sources: (sdist, wheel)."""
    src = tmp_path_factory.mktemp("src")
    copy_sources(src)
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--outdir", out, src], cwd=src)
    (sdist,) = glob.glob(str(out / "numjoco-*.tar.gz"))
    (wheel,) = glob.glob(str(out / "numjoco-*.whl"))
    return sdist, wheel


@pytest.fixture(scope="module")
def venv(dist, tmp_path_factory):
    """A venv (its own pip, no system site-packages) with the wheel installed with its core requirements:
    (python, bin folder, a folder outside every source tree to run from)."""
    root = tmp_path_factory.mktemp("venv") / "v"
    _run([sys.executable, "-m", "venv", root], cwd=root.parent)
    with open(root / "pyvenv.cfg") as f:
        assert "include-system-site-packages = false" in f.read()
    python = root / "bin" / "python"
    _run([python, "-m", "pip", "install", "-q", dist[1]], cwd=root.parent)
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    return str(python), str(root / "bin"), elsewhere


def test_wheel_contents(dist):
    """Three top-level packages, every task model and shipped config, the console scripts, the licenses, the
    declared requirements and Python bound; no caches, no kernels (a plain build ships none); the sdist holds the
    build backend and the legal files."""
    sdist, wheel = dist
    z = zipfile.ZipFile(wheel)
    names = z.namelist()
    tops = {n.split("/")[0] for n in names if not n.startswith("numjoco-")}
    assert tops == set(PACKAGES)
    shipped = sorted(os.path.relpath(p, REPO) for p in glob.glob(os.path.join(REPO, "envs", "assets", "*.xml")))
    shipped += sorted(os.path.relpath(p, REPO) for p in glob.glob(os.path.join(REPO, "envs", "dmc", "assets", "*")))
    shipped = [p for p in shipped if not p.endswith(".py")]
    assert shipped and all(p in names for p in shipped), set(shipped) - set(names)
    assert "envs/marl/two_arm_reach.xml" in names
    configs = sorted(
        os.path.relpath(p, REPO)
        for p in glob.glob(os.path.join(REPO, "training", "configs", "**", "*.yaml"), recursive=True)
    )
    sweeps = sorted(os.path.relpath(p, REPO) for p in glob.glob(os.path.join(REPO, "training", "sweeps", "*.yaml")))
    assert configs and sweeps and all(p in names for p in configs + sweeps), set(configs + sweeps) - set(names)
    assert not [n for n in names if "__numba_cache__" in n or "__pycache__" in n or n.endswith(".pyc")]
    assert not [n for n in names if n.startswith("sim/_kernels/")]
    (ep,) = [n for n in names if n.endswith("entry_points.txt")]
    text = z.read(ep).decode()
    for script, target in (
        ("numjoco-train", "training.train:main"),
        ("numjoco-enjoy", "training.enjoy:main"),
        ("numjoco-sweep", "training.sweep:main"),
        ("numjoco-precompile", "envs.precompile:main"),
    ):
        assert f"{script} = {target}" in text
    (meta,) = [n for n in names if n.endswith(".dist-info/METADATA")]
    meta = z.read(meta).decode()
    assert "License-Expression: Apache-2.0" in meta and "Requires-Python: <3.15,>=3.10" in meta, meta[:2000]
    for req in ("gymnasium>=1.1", "numba<0.69,>=0.68", "scipy>=1.7", "numpy>=1.24"):
        assert f"Requires-Dist: {req}\n" in meta, req
    assert 'Requires-Dist: gymnasium-robotics>=1.4; extra == "robotics"' in meta
    assert not [line for line in meta.splitlines() if line.startswith("Requires-Dist: torch==")]
    for f in ("LICENSE", "NOTICE"):
        assert any(n.endswith(".dist-info/licenses/" + f) for n in names), f
    members = tarfile.open(sdist).getnames()
    for f in ("buildtools/numjoco_build.py", "LICENSE", "NOTICE", "CITATION.cff"):
        assert any(m.endswith("/" + f) for m in members), f


# run in the venv: nothing from outside it, then every id of the families the core requirements serve
CHECK_ISOLATED = """
import os, sys, sysconfig
import gymnasium, numba, numpy, scipy, envs, sim
base = os.path.realpath(sysconfig.get_paths(vars={"base": sys.base_prefix})["stdlib"])
for p in filter(None, sys.path):  # "" is the current folder: elsewhere, empty
    p = os.path.realpath(p)
    assert p.startswith((os.path.realpath(sys.prefix), base)) or not os.path.exists(p), p
for mod in (gymnasium, numba, numpy, scipy, envs, sim):
    assert os.path.realpath(mod.__file__).startswith(os.path.realpath(sys.prefix)), (mod.__name__, mod.__file__)
assert envs.asset_path("hopper.xml").startswith(sys.prefix)
"""

FAMILIES = """
import json, sys
import numpy as np
import gymnasium as gym
import envs, sim
from envs import precompile

def step(i, **kw):
    env = gym.make(i, **kw)
    env.reset(seed=0)
    out = env.step(env.action_space.sample())
    assert np.isfinite(float(out[1])), (i, out[1])
    return env

made = {}
for family in sys.argv[1].split(","):
    ids = precompile.family_ids(family)
    for i in ids:
        step(i).close()
    made[family] = ids
for i in sys.argv[2].split(","):  # a batched vector env per family
    v = gym.make_vec(i, num_envs=3)
    v.reset(seed=0)
    v.step(v.action_space.sample())
    v.close()
env = step(sys.argv[2].split(",")[0], render_mode="rgb_array")
frame = env.render()
assert frame.shape == (480, 480, 3) and frame.dtype == np.uint8 and frame.std() > 0, (frame.shape, frame.dtype)
print(json.dumps(made))
"""


def _made(out):
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_core_install(venv):
    """With the core requirements only: every Gymnasium v5, arm-reach and DMC id made, reset and stepped from
    another folder, a vector env per family, a frame; the robotics ids name the extra they need."""
    python, bindir, elsewhere = venv
    env = clean_env(NUMJOCO_CACHE_DIR=_session_cache(), NUMJOCO_QUIET="1")
    _run([python, "-c", CHECK_ISOLATED], cwd=elsewhere, env=env)
    vectors = "numjoco/Hopper-v0,numjoco/dmc-cartpole-swingup-v0,numjoco/ArmReach-v0"
    made = _made(_run([python, "-c", FAMILIES, "gymnasium,arm,dmc", vectors], cwd=elsewhere, env=env))
    import envs
    from envs import precompile

    assert made["gymnasium"] == ["numjoco/" + t for t in envs.TASKS if not t.startswith("ArmReach")]
    assert made["arm"] == ["numjoco/ArmReach-v0", "numjoco/ArmReachGoal-v0"]
    assert made["dmc"] == precompile.family_ids("dmc") and len(made["dmc"]) == len(envs.dmc.TASKS) == 30
    no_robotics = _run(
        [python, "-c", "import gymnasium as gym, envs; gym.make('numjoco/FetchReach-v0')"],
        cwd=elsewhere,
        env=env,
        check=False,
    )
    assert no_robotics.returncode != 0 and "DependencyNotInstalled" in no_robotics.stderr, no_robotics.stderr[-2000:]
    assert "gymnasium-robotics" in no_robotics.stderr
    for script in SCRIPTS:
        assert os.path.exists(os.path.join(bindir, script)), script
    assert "usage:" in _run([os.path.join(bindir, "numjoco-precompile"), "--help"], cwd=elsewhere, env=env).stdout


MARL = """
import numpy as np
from envs import marl
n = 0
for scenario, spec in marl.SCENARIOS.items():
    for conf in spec.partitions:
        pe = marl.parallel_env(scenario, conf)
        pe.reset(seed=0)
        pe.step({a: pe.action_space(a).sample() for a in pe.agents})
        n += 1
pe = marl.parallel_env("TwoArmReach")
pe.reset(seed=0)
pe.step({a: pe.action_space(a).sample() for a in pe.agents})
print(n + 1)
"""

VIDEO = """
import sys, imageio.v2 as imageio, numpy as np
with imageio.get_writer(sys.argv[1], fps=10, codec="libx264", macro_block_size=2) as w:
    import gymnasium as gym, envs
    env = gym.make("numjoco/Hopper-v0", render_mode="rgb_array", width=64, height=64)
    env.reset(seed=0)
    for _ in range(5):
        env.step(env.action_space.sample())
        w.append_data(env.render())
"""


def test_extras_install(venv, dist):
    """`pip install numjoco[robotics,marl,render]`: every Fetch and Shadow Hand id made, reset and stepped, their
    vector env, every PettingZoo scenario, an MP4 written; still nothing from outside the venv."""
    python, _, elsewhere = venv
    _run([python, "-m", "pip", "install", "-q", f"{dist[1]}[{EXTRAS}]"], cwd=elsewhere)
    env = clean_env(NUMJOCO_CACHE_DIR=_session_cache(), NUMJOCO_QUIET="1")
    _run([python, "-c", CHECK_ISOLATED + "\nimport gymnasium_robotics, pettingzoo, imageio\n"], cwd=elsewhere, env=env)
    made = _made(_run([python, "-c", FAMILIES, "robotics", "numjoco/FetchPush-v0"], cwd=elsewhere, env=env))
    import envs

    ids = [i for i, _, _ in envs.robotics.env_ids()]
    assert made["robotics"] == ids and len(ids) == 2 * len(envs.robotics.TASKS)
    out = _run([python, "-c", MARL], cwd=elsewhere, env=env)
    from envs import marl

    assert int(out.stdout.split()[-1]) == sum(len(s.partitions) for s in marl.SCENARIOS.values()) + 1
    video = elsewhere / "hopper.mp4"
    _run([python, "-c", VIDEO, video], cwd=elsewhere, env=env)
    assert video.stat().st_size > 1000


def test_shipped_kernels_key(tmp_path, monkeypatch):
    """sim/_kernels serves a process only when its manifest's key is this process's (versions, platform, source
    hash), the CPU has the baseline's features and numba's target is not fixed to another CPU; each refusal says
    why.  (The kernels' use from a wheel: benchmarks/bench_first_step.py.)"""
    from sim.jit import cache

    monkeypatch.setattr(cache, "SHIPPED_DIR", str(tmp_path))
    monkeypatch.delenv("NUMJOCO_SHIPPED_KERNELS", raising=False)
    assert cache.shipped_kernels() == (None, "no shipped kernels")
    key = cache.kernel_key()
    key["requires"] = list(cache.BASELINE["requires"])

    def manifest(**change):
        with open(tmp_path / cache.MANIFEST, "w") as f:
            json.dump(dict(key, **change), f)
        return cache.shipped_kernels()

    assert manifest(numba="0.67.0") == (None, "built for another numba")
    assert manifest(python="3.99", source_hash="0" * 16) == (None, "built for another python, source_hash")
    assert manifest(requires=["avx512f", "no-such-feature"]) == (None, "this CPU lacks the x86-64-v3 baseline")
    monkeypatch.setenv("NUMJOCO_SHIPPED_KERNELS", "0")
    assert manifest() == (None, "NUMJOCO_SHIPPED_KERNELS=0")
    monkeypatch.delenv("NUMJOCO_SHIPPED_KERNELS")
    monkeypatch.setenv("NUMBA_CPU_NAME", "generic")
    assert manifest() == (None, "NUMBA_CPU_NAME / NUMBA_CPU_FEATURES set to another target")
    monkeypatch.delenv("NUMBA_CPU_NAME")
    from numba.core import config
    from numba.core.registry import cpu_target

    cpu_target.target_context  # noqa: B018  (numba's code generator exists, for this host unless told otherwise)
    folder, why = manifest()
    if (config.CPU_NAME, config.CPU_FEATURES) == (cache.BASELINE["cpu_name"], cache.BASELINE["cpu_features"]):
        assert (folder, why) == (str(tmp_path), "in use")
    else:
        assert (folder, why) == (None, "numba compiled for the host before sim was imported")
    with open(tmp_path / cache.MANIFEST, "w") as f:
        f.write("{")
    assert cache.shipped_kernels()[1].startswith("unreadable manifest")
