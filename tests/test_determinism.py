"""Determinism and concurrency (issue 16): the same seed gives bit-identical trajectories across runs, across
processes, on 1 or 2 numba threads, for one world or a batch, and after pickling / deep-copying Model, Data and
envs; two envs (or two Data of one Model) stepped in two Python threads give what they give serially, and the
simulation entry points release the GIL while they run."""

import copy
import hashlib
import os
import pickle
import subprocess
import sys
import threading
import time
import warnings

import gymnasium as gym
import numba
import numpy as np
import pytest

import envs  # noqa: F401
import sim

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOPPER = os.path.join(REPO, "envs", "assets", "hopper.xml")


def env_digest(env_id="numjoco/Hopper-v0", seed=3, nstep=200):
    """sha256 over every observation, reward, flag and info value of a seeded random-action rollout with resets."""
    env = gym.make(env_id)
    env.action_space.seed(seed)
    h = hashlib.sha256()
    obs, _ = env.reset(seed=seed)
    h.update(obs.tobytes())
    for _ in range(nstep):
        obs, r, term, trunc, info = env.step(env.action_space.sample())
        h.update(obs.tobytes() + np.float64(r).tobytes() + bytes([term, trunc]))
        h.update(repr(sorted(info.items())).encode())
        if term or trunc:
            h.update(env.reset()[0].tobytes())
    return h.hexdigest()


def batch_digest(nworld=8, nstep=60, seed=0):
    """sha256 of a batched hopper run (random states and controls, contacts on)."""
    m = sim.load_model(HOPPER)
    d = sim.Data(m, nworld=nworld)
    rng = np.random.default_rng(seed)
    d.qpos = d.qpos + rng.uniform(-0.05, 0.05, d.qpos.shape)
    d.qvel = rng.uniform(-0.5, 0.5, d.qvel.shape)
    h = hashlib.sha256()
    for _ in range(nstep):
        d.ctrl = rng.uniform(-1, 1, d.ctrl.shape)
        sim.step(m, d, 2)
        h.update(d.qpos.tobytes() + d.qvel.tobytes() + d.qacc.tobytes())
    return h.hexdigest()


def _in_subprocess(code, env=None):
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
        env=dict(os.environ, PYTHONPATH=REPO, NUMJOCO_QUIET="1", **(env or {})),
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.strip().splitlines()[-1]


def test_same_seed_bitwise_across_runs_and_processes():
    a = env_digest()
    assert env_digest() == a
    assert env_digest(seed=4) != a
    code = (
        'import sys; sys.path.insert(0, "tests"); import test_determinism as t; print(t.env_digest(), t.batch_digest())'
    )
    env_h, batch_h = _in_subprocess(code).split()
    assert env_h == a and batch_h == batch_digest()


def test_one_vs_two_threads_bitwise():
    n = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = batch_digest()
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = batch_digest()
    finally:
        numba.set_num_threads(n)
    assert one == two
    assert (
        _in_subprocess(
            'import sys; sys.path.insert(0, "tests"); import test_determinism as t; print(t.batch_digest())',
            env={"NUMBA_NUM_THREADS": "1"},
        )
        == one
    )


@pytest.mark.parametrize(
    "path, n", [(HOPPER, 5), (HOPPER, 1), (os.path.join(REPO, "tests", "models", "joints_all.xml"), 5)]
)
def test_batch_equals_single_worlds_bitwise(path, n):
    """Each world of a batch equals that world stepped alone (random states and controls, contacts); a batch of
    one world takes the serial entry."""
    m = sim.load_model(path)
    rng = np.random.default_rng(2)
    b = sim.Data(m, nworld=n)
    b.qpos = b.qpos + rng.uniform(-0.05, 0.05, b.qpos.shape)
    b.qvel = rng.uniform(-0.5, 0.5, b.qvel.shape)
    singles = []
    for w in range(n):
        d = sim.Data(m)
        d.qpos, d.qvel = b.qpos[w], b.qvel[w]
        singles.append(d)
    for _ in range(40):
        u = rng.uniform(-1, 1, b.ctrl.shape)
        b.ctrl = u
        sim.step(m, b, 3)
        for w, d in enumerate(singles):
            d.ctrl = u[w]
            sim.step(m, d, 3)
    for w, d in enumerate(singles):
        for f in ("qpos", "qvel", "act", "qacc", "qacc_warmstart", "sensordata"):
            assert np.array_equal(getattr(b, f)[w], getattr(d, f)), (w, f)
        assert b.ncon[w] == d.ncon and b.nefc[w] == d.nefc


# --------------------------------------------------------------------------------------- pickle / copy


def _advance(m, d, nstep=30, seed=5):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(nstep):
        d.ctrl = rng.uniform(-1, 1, d.ctrl.shape)
        sim.step(m, d)
        out.append(np.concatenate([np.ravel(d.qpos), np.ravel(d.qvel), np.ravel(d.qacc_warmstart)]))
    return np.array(out)


@pytest.mark.parametrize("nworld", [None, 3])
def test_model_and_data_pickle_and_copy_continue_identically(nworld):
    m = sim.load_model(HOPPER)
    d = sim.Data(m, nworld=nworld)
    _advance(m, d, 10)
    clones = [
        (pickle.loads(pickle.dumps(m)), pickle.loads(pickle.dumps(d))),
        (copy.deepcopy(m), copy.deepcopy(d)),
        pickle.loads(pickle.dumps((m, d))),
        (m, copy.copy(d)),
    ]
    ref_state = np.array(d.qpos, copy=True)
    blob = pickle.dumps(d)
    for cm, cd in clones[:3]:
        assert cd.nworld == d.nworld and cd.nconmax == d.nconmax and cd.njmax == d.njmax
        assert np.array_equal(cd.qpos, d.qpos) and cd.qpos.ctypes.data != d.qpos.ctypes.data
    shallow = clones[3][1]
    assert shallow.qpos.ctypes.data == d.qpos.ctypes.data  # copy.copy shares the buffers
    ref = _advance(m, d)
    for cm, cd in clones[:3]:
        assert np.array_equal(cd.qpos, ref_state)  # deep clones untouched by stepping the original
        assert np.array_equal(_advance(cm, cd), ref)
    # a Data pickled before the steps, stepped with a pickled copy of the model: the same numbers
    assert np.array_equal(_advance(pickle.loads(pickle.dumps(m)), pickle.loads(blob)), ref)


def test_env_pickled_into_another_process_continues_identically():
    """What SubprocVecEnv / Ray do: an env pickled with cloudpickle, stepped in a fresh process."""
    import cloudpickle

    env = gym.make("numjoco/Walker2d-v0")
    env.reset(seed=1)
    env.action_space.seed(1)
    for _ in range(7):
        env.step(env.action_space.sample())
    blob = cloudpickle.dumps(env)
    actions = np.random.default_rng(0).uniform(-1, 1, (20,) + env.action_space.shape).astype(np.float32)
    h = hashlib.sha256()
    for a in actions:
        h.update(env.step(a)[0].tobytes())
    code = (
        "import pickle, hashlib, sys, numpy as np, envs; "
        f"env = pickle.loads({blob!r}); h = hashlib.sha256(); "
        f"acts = np.random.default_rng(0).uniform(-1, 1, (20,) + env.action_space.shape).astype(np.float32)\n"
        "for a in acts: h.update(env.step(a)[0].tobytes())\nprint(h.hexdigest())"
    )
    assert _in_subprocess(code) == h.hexdigest()


# ----------------------------------------------------------------------------------------- concurrency


def _run_threads(fns):
    out = [None] * len(fns)
    errors = []
    gate = threading.Barrier(len(fns))

    def body(i):
        try:
            gate.wait()
            out[i] = fns[i]()
        except BaseException as e:  # pragma: no cover (reported below)
            errors.append(e)

    ts = [threading.Thread(target=body, args=(i,)) for i in range(len(fns))]
    for t in ts:
        t.start()
    for t in ts:
        t.join(300)
    assert not errors, errors
    return out


@pytest.mark.parametrize("ids", [("numjoco/Hopper-v0", "numjoco/Hopper-v0"), ("numjoco/Ant-v0", "numjoco/Hopper-v0")])
def test_two_envs_in_two_threads_equal_serial(ids):
    serial = [env_digest(e, seed=i, nstep=300) for i, e in enumerate(ids)]
    threaded = _run_threads([lambda e=e, i=i: env_digest(e, seed=i, nstep=300) for i, e in enumerate(ids)])
    assert threaded == serial


def test_one_model_two_data_in_two_threads_equal_serial():
    m = sim.load_model(HOPPER)

    def run(seed, nworld):
        d = sim.Data(m, nworld=nworld)
        return _advance(m, d, 200, seed)

    serial = [run(1, None), run(2, 4)]
    threaded = _run_threads([lambda: run(1, None), lambda: run(2, 4)])
    for a, b in zip(serial, threaded):
        assert np.array_equal(a, b)


def _spin_rate(seconds=0.2):
    """Iterations per second of the spinner loop alone."""
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(1000):
            n += 1
    return n / (time.perf_counter() - t0)


@pytest.mark.parametrize("nworld", [None, 4])
def test_step_releases_the_gil(nworld):
    """While one thread is inside a long sim.step call, another thread keeps running Python code: it gets a
    good share of its solo speed (with the GIL held it would get the few 5 ms switch intervals before the
    call, ~1 % of it)."""
    m = sim.load_model(HOPPER)
    d = sim.Data(m, nworld=nworld)
    sim.step(m, d)
    rate = _spin_rate()
    inside = threading.Event()
    done = threading.Event()
    count = [0]

    def spin():
        inside.wait()
        n = 0
        while not done.is_set():
            for _ in range(1000):
                n += 1
        count[0] = n

    t = threading.Thread(target=spin)
    t.start()
    # a call of ~0.3 s (the check below needs > 0.1 s: 2000 steps of 4 hoppers took 0.099 s once the batch ran
    # on both threads without false sharing)
    t0 = time.perf_counter()
    sim.step(m, d, 200)
    nstep = max(200, int(0.3 / ((time.perf_counter() - t0) / 200)))
    inside.set()
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim.step(m, d, nstep)
    dt = time.perf_counter() - t0
    done.set()
    t.join()
    share = count[0] / (rate * dt)
    assert dt > 0.1 and share > 0.1, (share, dt)


def test_numba_threads_keep_the_openmp_thread_count_of_torch():
    """numba's OpenMP pool shares libgomp with torch; starting it must not change the thread count torch (or an
    OpenMP BLAS) was set to (it did: torch.set_num_threads(1) became 2 and PPO's updates ran 2.5x slower)."""
    code = (
        "import ctypes, numba\n"
        'gomp = ctypes.CDLL("libgomp.so.1"); gomp.omp_set_num_threads(1)\n'
        "import sim\n"
        f"m = sim.load_model({HOPPER!r}); d = sim.Data(m, nworld=4); sim.step(m, d, 3)\n"
        "print(numba.threading_layer(), numba.get_num_threads(), gomp.omp_get_max_threads())"
    )
    layer, nthreads, omp = _in_subprocess(code, env={"NUMBA_NUM_THREADS": "2"}).split()
    assert int(nthreads) == 2 and int(omp) == 1, (layer, nthreads, omp)


@pytest.mark.full
def test_fresh_caches_compiled_in_other_orders_give_the_same_numbers(tmp_path):
    """A kernel cache's numbers must not depend on what a process compiled first: two empty caches, one filled by
    a process that renders a frame before it steps (the renderer's kernels first) and one by a process that steps
    first, give the env and batch digests of this process's cache (a cache built once while the renderer called
    an uncachable function gave last-bit different physics for seven Gymnasium models; never reproduced)."""
    # the renderer's kernels first: a frame of a Data no physics call has touched
    render = f"m = sim.load_model({HOPPER!r}); r = sim.Renderer(m, 64, 64); r.update_scene(sim.Data(m)); r.render()"
    digests = "import test_determinism as t; print(t.env_digest(), t.batch_digest())"
    head = 'import sys; sys.path.insert(0, "tests"); import sim; '
    want = f"{env_digest()} {batch_digest()}"
    for i, code in enumerate(
        (head + render + "; " + digests, head + digests + "; " + render + "; print(t.env_digest(), t.batch_digest())")
    ):
        got = _in_subprocess(code, env={"NUMJOCO_CACHE_DIR": str(tmp_path / f"cache{i}")})
        assert got == want, (i, got, want)


def test_fast_math_is_not_inherited_by_callees():
    """numba compiles a callee that states no fastmath with its first caller's and keeps that build as the
    callee's overload: an engine function first typed from the renderer's fast-math code would be fused into
    every physics kernel compiled after it (results depending on what the process compiled first). sim.jit's
    njit states fastmath=False, so a plain caller compiled after a fast-math one gets the unfused product:
    (1 + 2^-30)^2 - (1 + 2^-29) is 0 rounded and 2^-60 fused."""
    from sim.jit import njit

    def madd(a, b, c):
        return a * b + c

    def call(a, b, c):
        return f(a, b, c)

    f = njit(madd, cache=False)
    fast = njit(call, cache=False, fastmath=True)
    plain = njit(call, cache=False)
    a = 1.0 + 2.0**-30
    c = -(1.0 + 2.0**-29)
    fast(a, a, c)  # types f first, under fastmath
    assert plain(a, a, c) == 0.0
