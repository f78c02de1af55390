"""The kernel cache under processes compiling at once (SubprocVecEnv or Ray workers, sweep trials, a test run
next to a training run): every signature each process compiled loads afterwards from the cache as its own code.
numba numbers its data files from the index it read and rewrites the index unlocked; two writers could leave an
index entry naming another signature's code (seen on a shared cache: a single-world step ran the code compiled
for another feature set).  sim/jit/cache.py names each data file after its key and rewrites the index under a lock."""

import os
import subprocess
import sys
import textwrap

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DTYPES = ["float64", "float32", "int64", "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8"]
KERNEL = textwrap.dedent('''
    from sim.jit import njit

    @njit(cache=True)
    def affine(x, k, c):
        """x * k + c (a new array)."""
        return x * k + c
''')
WORKER = textwrap.dedent("""
    import sys, time, numpy as np
    import kern
    order, start = sys.argv[1].split(','), float(sys.argv[2])
    while time.time() < start:          # all workers compile at the same moment
        time.sleep(0.001)
    for dt in order:
        kern.affine(np.arange(5, dtype=dt), 3, 1.5)
        kern.affine(np.arange(5, dtype=dt), 2.0, 1)
""")
CHECK = textwrap.dedent("""
    import sys, numpy as np
    import kern
    for dt in sys.argv[1].split(','):
        for k, c in ((3, 1.5), (2.0, 1)):
            x = np.arange(5, dtype=dt)
            got, want = kern.affine(x, k, c), x * k + c
            assert np.array_equal(got, want), (dt, k, c, got, want)     # (numba's own type promotion)
    misses = {str(s): n for s, n in kern.affine.stats.cache_misses.items() if n}
    assert not misses, misses
    print(len(kern.affine.stats.cache_hits))
""")


def _env(tmp_path):
    return dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(tmp_path), REPO]),
        NUMJOCO_QUIET="1",
        NUMJOCO_CACHE_DIR=str(tmp_path / "cache"),
    )


def test_processes_compiling_at_once_leave_a_consistent_cache(tmp_path):
    import time

    (tmp_path / "kern.py").write_text(KERNEL)
    (tmp_path / "worker.py").write_text(WORKER)
    (tmp_path / "check.py").write_text(CHECK)
    start = time.time() + 4.0
    procs = []
    for i in range(4):
        order = DTYPES[i::2] + DTYPES[:i] if i % 2 else list(reversed(DTYPES))[i:] + DTYPES[:i]
        procs.append(
            subprocess.Popen(
                [sys.executable, str(tmp_path / "worker.py"), ",".join(order), str(start)],
                env=_env(tmp_path),
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode == 0, err[-2000:]
    out = subprocess.run(
        [sys.executable, str(tmp_path / "check.py"), ",".join(DTYPES)],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert int(out.stdout.split()[-1]) == 2 * len(DTYPES)  # every signature came from the cache


# ---- old source versions' caches are pruned (sim.jit.cache.prune) ------------------------------------------------


def _version(root, name, age, subs=("sim_" + "ab" * 20,)):
    """A fake cache folder of one source version, last used `age` hours ago."""
    path = root / name
    for sub in subs:
        (path / sub).mkdir(parents=True)
        (path / sub / "k.nbi").write_bytes(b"x")
    t = 1.7e9 - age * 3600.0
    os.utime(path, (t, t))
    return path


def test_prune_keeps_the_most_recently_used_versions(tmp_path):
    from sim.jit.cache import prune

    names = ["%016x" % (0xA0 + i) for i in range(6)]
    for age, name in enumerate(names):
        _version(tmp_path, name, age)
    _version(tmp_path, "render-" + "1" * 16, 9)
    _version(tmp_path, "render-" + "2" * 16, 8)
    foreign = _version(tmp_path, "f" * 16, 99, subs=("notes",))  # not numba's layout: never removed
    (tmp_path / "compile_times.json").write_text("{}")
    current = "c" * 16
    _version(tmp_path, current, 100)
    removed = prune(str(tmp_path), current, keep=3)
    assert sorted(removed) == sorted(names[2:])
    assert sorted(os.listdir(tmp_path)) == sorted(
        names[:2] + [current, foreign.name, "compile_times.json", "render-" + "1" * 16, "render-" + "2" * 16]
    )
    assert prune(str(tmp_path), "render-" + "3" * 16, keep=2) == ["render-" + "1" * 16]
    assert prune(str(tmp_path), current, keep=0) == []
    assert prune(str(tmp_path), "not-a-version", keep=1) == []


def test_a_new_source_version_prunes_old_caches_at_import(tmp_path):
    root = tmp_path / "cache"
    old = ["%016x" % (0xB0 + i) for i in range(6)]
    for age, name in enumerate(old):
        _version(root, name, age)
    env = dict(os.environ, PYTHONPATH=REPO, NUMJOCO_QUIET="1", NUMJOCO_CACHE_DIR=str(root), NUMJOCO_CACHE_KEEP="3")
    run = [sys.executable, "-c", "import sim.jit.cache as c; print(c.SOURCE_HASH)"]
    current = subprocess.run(run, env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert sorted(os.listdir(root)) == sorted(old[:2] + [current])
    # a second process of the same version only marks its folder as used
    _version(root, "%016x" % 0xD0, 50)
    subprocess.run(run, env=env, capture_output=True, text=True, check=True)
    assert len(os.listdir(root)) == 4
    assert os.stat(root / current).st_mtime > os.stat(root / old[0]).st_mtime
