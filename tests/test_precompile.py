"""numjoco-precompile (python -m envs.precompile): after it ran for a target, a fresh process uses that target without compiling a kernel
(single world, batch, env, vector env); bad targets are reported; --portable builds a cache for a generic CPU that
a process with NUMBA_CPU_NAME=generic loads."""

import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PENDULUM = os.path.join(REPO, "envs", "assets", "inverted_pendulum.xml")

# what a user's first use runs, counting numba compilations in the process
USE = (
    """
from sim.jit.precompile import _count_compiles
c = _count_compiles()
import numpy as np, gymnasium as gym, envs, sim
m = sim.load_model(%r)
d = sim.Data(m); sim.step(m, d); sim.forward(m, d)
b = sim.Data(m, nworld=2); sim.step(m, b)
env = gym.make('numjoco/InvertedPendulum-v0'); env.reset(seed=0); env.step(env.action_space.sample())
v = gym.make_vec('numjoco/InvertedPendulum-v0', num_envs=2); v.reset(seed=0); v.step(v.action_space.sample())
v.reset(options={'reset_mask': np.array([True, False])})
print(c.n)
"""
    % PENDULUM
)


def run(args, env=None, code=None):
    cmd = [sys.executable, "-c", code] if code else [sys.executable, "-m", "envs.precompile", *args]
    return subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        timeout=1800,
        cwd=REPO,
        env=dict(os.environ, PYTHONPATH=REPO, NUMJOCO_QUIET="1", **(env or {})),
    )


def test_a_precompiled_target_compiles_nothing_later():
    out = run([PENDULUM, "numjoco/InvertedPendulum-v0", "--jobs", "2"])
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert any(
        line.strip().startswith("numjoco/InvertedPendulum-v0: ") and "kernels compiled" in line for line in lines
    ), out.stdout
    # a second run finds everything cached
    again = run([PENDULUM, "numjoco/InvertedPendulum-v0"])
    assert again.returncode == 0, again.stderr[-3000:]
    assert again.stdout.count(", 0 kernels compiled") == 2, again.stdout
    use = run(None, code=USE)
    assert use.returncode == 0, use.stderr[-3000:]
    assert use.stdout.split()[-1] == "0"


def test_bad_targets():
    out = run(["no_such_model.xml"])
    assert out.returncode == 2 and "no such model file: no_such_model.xml" in out.stderr
    out = run(["numjoco/NoSuchTask-v0"])
    assert out.returncode == 1
    assert "numjoco/NoSuchTask-v0: FAILED: NameNotFound" in out.stdout and "1 target(s) failed" in out.stdout
    out = run(["--jobs", "0"])
    assert out.returncode == 2 and "--jobs must be >= 1" in out.stderr


@pytest.mark.full
def test_portable_cache(tmp_path):
    """A cold compile for a generic CPU into an empty cache (minutes): then a process with NUMBA_CPU_NAME=generic
    compiles nothing."""
    env = {"NUMJOCO_CACHE_DIR": str(tmp_path)}
    out = run([PENDULUM, "numjoco/InvertedPendulum-v0", "--portable"], env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "NUMBA_CPU_NAME=generic" in out.stdout
    use = run(None, env=dict(env, NUMBA_CPU_NAME="generic"), code=USE)
    assert use.returncode == 0, use.stderr[-3000:]
    assert use.stdout.split()[-1] == "0"


@pytest.mark.parametrize("simd, want", [("1", "wait"), ("wait", "wait"), ("0", "0")])
def test_targets_compile_the_block_step_themselves(monkeypatch, simd, want):
    """A target's process compiles a batch's block step before it exits (NUMJOCO_SIMD=wait), not in a background
    worker its exit would stop; NUMJOCO_SIMD=0 (no block step) is left alone."""
    from sim.jit.precompile import target_environment

    monkeypatch.setenv("NUMJOCO_SIMD", simd)
    target_environment()
    assert os.environ["NUMJOCO_SIMD"] == want
