"""The kernel cache under processes compiling at once (SubprocVecEnv or Ray workers, sweep trials, a test run
next to a training run): every signature each process compiled loads afterwards from the cache as its own code.
numba numbers its data files from the index it read and rewrites the index unlocked; two writers could leave an
index entry naming another signature's code (seen on a shared cache: a single-world step ran the code compiled
for another feature set).  sim/jit.py names each data file after its key and rewrites the index under a lock."""
import os
import subprocess
import sys
import textwrap

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DTYPES = ['float64', 'float32', 'int64', 'int32', 'int16', 'int8', 'uint64', 'uint32', 'uint16', 'uint8']
KERNEL = textwrap.dedent('''
    from sim.jit import njit

    @njit(cache=True)
    def affine(x, k, c):
        """x * k + c (a new array)."""
        return x * k + c
''')
WORKER = textwrap.dedent('''
    import sys, time, numpy as np
    import kern
    order, start = sys.argv[1].split(','), float(sys.argv[2])
    while time.time() < start:          # all workers compile at the same moment
        time.sleep(0.001)
    for dt in order:
        kern.affine(np.arange(5, dtype=dt), 3, 1.5)
        kern.affine(np.arange(5, dtype=dt), 2.0, 1)
''')
CHECK = textwrap.dedent('''
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
''')


def _env(tmp_path):
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), REPO]), NUMJOCO_QUIET='1',
                NUMJOCO_CACHE_DIR=str(tmp_path / 'cache'))


def test_processes_compiling_at_once_leave_a_consistent_cache(tmp_path):
    import time
    (tmp_path / 'kern.py').write_text(KERNEL)
    (tmp_path / 'worker.py').write_text(WORKER)
    (tmp_path / 'check.py').write_text(CHECK)
    start = time.time() + 4.0
    procs = []
    for i in range(4):
        order = DTYPES[i::2] + DTYPES[:i] if i % 2 else list(reversed(DTYPES))[i:] + DTYPES[:i]
        procs.append(subprocess.Popen([sys.executable, str(tmp_path / 'worker.py'), ','.join(order), str(start)],
                                      env=_env(tmp_path), stderr=subprocess.PIPE, text=True))
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode == 0, err[-2000:]
    out = subprocess.run([sys.executable, str(tmp_path / 'check.py'), ','.join(DTYPES)], env=_env(tmp_path),
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert int(out.stdout.split()[-1]) == 2 * len(DTYPES)      # every signature came from the cache
