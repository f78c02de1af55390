"""The backend protocol of numjoco's vector environments: N worlds of one task in one batched Data, as one task
family's engine runs them, and the helpers every engine shares (seeds, Gymnasium's vector infos, thread counts).

A family implements `Worlds` once (envs/engine.py: the Gymnasium-style tasks, arm reach and the multi-agent tasks'
single-env view; envs/dmc/engine.py: the Control Suite; envs/robotics/engine.py: Fetch and Shadow Hand); the one
Gymnasium VectorEnv (envs/vector.py) and the one SB3 VecEnv (envs/sb3.py) run on any of them:

    env                        the family's env object the engine drives (spaces, settings, render_mode, metadata)
    num_envs, model, data, dt  the worlds, their Model and batched Data, the duration of an env step
    seed(worlds, seeds)        new generators for the listed worlds (None: keep theirs, or a fresh random one)
    reset(worlds)              reset the listed worlds; their reset info (a vector info masked to them)
    step(actions, reset)       step every world, except those in the bool mask `reset` (or None), which are reset
                               instead (the next-step autoreset: reward 0, flags False, their reset info); returns
                               (reward, terminated, truncated, info)
    step_same(actions)         step every world and reset those whose episode ended within the same call; returns
                               (reward, terminated, truncated, step info, Ended or None) (default: step, then reset)
    observations()             the batched observation of every world now
    world_observations(worlds) the observation of each listed world as its single env returns it
    world_attr(w, name)        attribute `name` of world w seen as a single env; set_world_attr(w, name, value)
    render()                   each world's frame as its single env's render() returns it
    close()

Infos are Gymnasium's vector infos (a dict of (N, ...) arrays, each with its `_key` mask, dicts nested alike);
mask_info / merge_info / split_info / gather_info are the operations on them that SyncVectorEnv's _add_info and
DummyVecEnv's per-world dicts imply.
"""

import time
from collections import namedtuple

import numba
import numpy as np

# the worlds a same-step autoreset reset: mask (N,), observations (object array, the episodes' last), reset info
Ended = namedtuple("Ended", "mask obs reset_info")


class Worlds:
    """Base of the family engines (see the module doc): the defaults of the protocol."""

    env = None
    num_envs = 0

    @property
    def dt(self):
        return self.env.dt

    def seed(self, worlds, seeds):
        raise NotImplementedError

    def reset(self, worlds):
        raise NotImplementedError

    def step(self, actions, reset=None):
        raise NotImplementedError

    def step_same(self, actions):
        """step(actions), then the ended worlds' last observations read and the worlds reset."""
        reward, terminated, truncated, info = self.step(actions, None)
        done = terminated | truncated
        if not done.any():
            return reward, terminated, truncated, info, None
        worlds = np.flatnonzero(done)
        obs = np.full(self.num_envs, None, dtype=object)
        for w, o in zip(worlds.tolist(), self.world_observations(worlds)):
            obs[w] = o
        return reward, terminated, truncated, info, Ended(done, obs, self.reset(worlds))

    def observations(self):
        raise NotImplementedError

    def world_observations(self, worlds):
        raise NotImplementedError

    def world_attr(self, w, name):
        raise NotImplementedError

    def set_world_attr(self, w, name, value):
        raise AttributeError(
            f"{name!r} is shared by the worlds of a numjoco vector env and cannot be set per environment; "
            "create the env with the value instead"
        )

    def render(self):
        raise NotImplementedError

    def close(self):
        self.env.close()


# ------------------------------------------------------------------------------------------------ seeds and masks
def world_seeds(seed, worlds, num_envs):
    """The seed of each listed world from reset(seed=...): None (each keeps its generator), an int (world w gets
    seed + w, as Gymnasium's vector envs), or a list (one per environment, or one per listed world)."""
    if seed is None:
        return [None] * len(worlds)
    if isinstance(seed, (int, np.integer)):
        return [int(seed) + int(w) for w in worlds]
    seeds = list(seed)
    if len(seeds) == num_envs and len(worlds) != num_envs:
        seeds = [seeds[w] for w in worlds]
    if len(seeds) != len(worlds):
        raise ValueError(f"{len(seeds)} seeds for {len(worlds)} environments")
    return seeds


def reset_mask(options, num_envs):
    """options["reset_mask"] checked (a bool array of shape (num_envs,) that resets at least one environment), or
    None when reset() was given no mask."""
    mask = None if options is None else options.get("reset_mask")
    if mask is None:
        return None
    mask = np.asarray(mask)
    if mask.shape != (num_envs,) or mask.dtype != np.bool_:
        raise ValueError(
            f'options["reset_mask"] must be a bool array of shape ({num_envs},), got {mask.dtype} {mask.shape}'
        )
    if not mask.any():
        raise ValueError('options["reset_mask"] resets no environment')
    return mask


def check_num_envs(num_envs):
    n = int(num_envs)
    if n < 1:
        raise ValueError(f"num_envs must be >= 1, got {num_envs}")
    return n


# ------------------------------------------------------------------------------------------------ vector infos
def _zero(v, keep):
    """A copy of info array v with the entries outside bool mask keep zeroed (None for objects)."""
    v = np.array(v)
    v[~keep] = None if v.dtype == object else 0
    return v


def mask_info(info, mask):
    """The vector info restricted to the worlds in mask (keys left with no world dropped)."""
    out = {}
    for k, v in info.items():
        if k.startswith("_"):
            continue
        keep = info["_" + k] & mask
        if not keep.any():
            continue
        out[k] = mask_info(v, mask) if isinstance(v, dict) else _zero(v, keep)
        out["_" + k] = keep
    return out


def merge_info(a, b):
    """The vector info of two disjoint sets of worlds (SyncVectorEnv's _add_info over both: a key's array takes
    the dtype of its lowest world's value)."""
    out = dict(a)
    for k, v in b.items():
        if k.startswith("_"):
            continue
        if k not in a:
            out[k], out["_" + k] = v, b["_" + k]
            continue
        ma, mb = a["_" + k], b["_" + k]
        if isinstance(v, dict):
            out[k] = merge_info(a[k], v)
        else:
            first_a, first_b = np.argmax(ma), np.argmax(mb)
            base, other, mo = (a[k], v, mb) if first_a < first_b else (v, a[k], ma)
            arr = np.array(base)
            arr[mo] = other[mo]
            out[k] = arr
        out["_" + k] = ma | mb
    return out


def split_info(info, n):
    """A vector info as one dict per world (DummyVecEnv's infos): float64, integer and bool entries as Python
    numbers, other dtypes as numpy scalars, arrays as copies, dicts nested alike."""
    out = [{} for _ in range(n)]
    for k, v in info.items():
        if k.startswith("_"):
            continue
        mask = info.get("_" + k)
        if isinstance(v, dict):
            sub = split_info(v, n)
            for w in np.flatnonzero(mask):
                out[w][k] = sub[w]
            continue
        if v.ndim == 1 and (v.dtype.kind in "biu" or v.dtype == np.float64):
            vals = v.tolist()
        else:
            vals = [np.copy(x) if isinstance(x, np.ndarray) else x for x in v]
        for w in np.flatnonzero(mask):
            out[w][k] = vals[w]
    return out


def gather_info(pairs, n):
    """Gymnasium's VectorEnv._add_info over [(world, single-env info)] in one pass per key: the same arrays,
    dtypes (of the first value), `_key` masks and nesting."""
    cols = {}
    for w, info in pairs:
        for k, v in info.items():
            cols.setdefault(k, []).append((w, v))
    out = {}
    for k, col in cols.items():
        ws = [w for w, _ in col]
        v0 = col[0][1]
        if isinstance(v0, dict):
            arr = gather_info(col, n)
        elif type(v0) in (int, float, bool) or isinstance(v0, np.number):
            arr = np.zeros(n, dtype=type(v0))
            arr[ws] = [v for _, v in col]
        else:
            arr = np.zeros((n, *v0.shape), v0.dtype) if isinstance(v0, np.ndarray) else np.full(n, None, dtype=object)
            for w, v in col:
                arr[w] = v
        mask = np.zeros(n, dtype=np.bool_)
        mask[ws] = True
        out[k] = arr
        out["_" + k] = mask
    return out


# ------------------------------------------------------------------------------------------------ threads
def check_threads(num_threads):
    """num_threads (None: numba's setting) checked against numba's thread pool."""
    if num_threads is None:
        return None
    num_threads = int(num_threads)
    if not 1 <= num_threads <= numba.config.NUMBA_NUM_THREADS:
        raise ValueError(
            f"num_threads must be in [1, {numba.config.NUMBA_NUM_THREADS}] (numba's thread "
            f"pool, NUMBA_NUM_THREADS), got {num_threads}"
        )
    return num_threads


def on_threads(want, old, fn, *args):
    """fn(*args) with numba's thread count set to want (old: the current count, restored after)."""
    if want == old:
        return fn(*args)
    numba.set_num_threads(want)
    try:
        return fn(*args)
    finally:
        numba.set_num_threads(old)


class ThreadTuner:
    """The thread count of the batched physics step when num_threads is not given: one thread or numba's count
    (at most the worlds), whichever ran the step faster, measured in use and measured again every PERIOD steps.
    A parallel call pays for waking the OpenMP workers and for the last one to finish, which on a loaded machine
    can cost more than it saves for a few worlds.  The results do not depend on the count (each world is stepped
    by one thread, the same code), so neither do trajectories."""

    PERIOD = 2000  # steps with the chosen count between measurements
    TRIAL = 15  # steps timed per candidate in a measurement (alternating, the medians compared)

    def __init__(self):
        self.left = 0
        self.choice = None
        self.times = {}

    def count(self, top):
        """(thread count for the next step, whether to time it) given numba's count capped at the worlds."""
        if top <= 1:
            return 1, False
        if self.left > 0 and self.choice <= top:
            self.left -= 1
            return self.choice, False
        n1, n2 = len(self.times.get(1, ())), len(self.times.get(top, ()))
        if min(n1, n2) >= self.TRIAL:
            med = {k: sorted(v)[len(v) // 2] for k, v in self.times.items() if k in (1, top)}
            self.choice = min(med, key=lambda k: (med[k], -k))
            self.left, self.times = self.PERIOD, {}
            return self.choice, False
        return (1 if n1 <= n2 else top), True

    def record(self, count, seconds):
        self.times.setdefault(count, []).append(seconds)

    def run(self, top, fn, *args):
        """fn(*args) on the tuned thread count (numba's count capped at top), timed when measuring."""
        old = numba.get_num_threads()
        want, timed = self.count(min(old, top))
        t0 = time.perf_counter()
        r = on_threads(want, old, fn, *args)
        if timed:
            self.record(want, time.perf_counter() - t0)
        return r
