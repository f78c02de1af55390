"""The machinery that builds numjoco's kernel cache ahead of time, for Docker images, clusters and CI: the driver of
`python -m sim.precompile` (model files, sim/precompile.py) and of the task-level `numjoco-precompile`
(envs/precompile.py), which pass it the function that compiles one target.

Each target runs what a first use would compile, in a fresh process.  Kernels are compiled per feature set
(sim/jit/features.py), so targets that share one cost nothing more.  The cache goes where every later run looks
(NUMJOCO_CACHE_DIR, else sim/__numba_cache__); a later process loads instead of compiling.  --jobs N compiles N
targets at once (safe: concurrent writers of the cache lock its index).  One line when a target starts and one
when it ends: its feature set, wall seconds, kernels compiled (0: already cached); in between, a long compile
prints its progress on stderr (NUMJOCO_QUIET=1 silences that).

--portable compiles for a generic CPU of this architecture (NUMBA_CPU_NAME=generic, no CPU features): numba keys
its cache on the CPU name, so the processes that use the cache must set NUMBA_CPU_NAME=generic too (an image's
ENV line); a process without the variable compiles for its host on first use (and caches that next to the
generic entries).  Generic code forgoes the host's vector extensions (AVX2, AVX-512), so it may run slower.

--ship DIR compiles for the shipped kernels' baseline (sim.jit.cache.BASELINE, x86-64-v3) into a fresh cache and
writes it to DIR with its manifest (the key sim.jit.cache.shipped_kernels checks): the sim/_kernels folder of a
wheel (docs/install.md).  Processes find it there and set the baseline themselves.
"""

import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _count_compiles():
    """A counter of the kernels numba compiles from now on in this process (numba:compile events)."""
    from numba.core import event

    class Count(event.Listener):
        n = 0

        def on_start(self, ev):
            self.n += 1

        def on_end(self, ev):
            pass

    c = Count()
    event.register("numba:compile", c)
    return c


def _on_path():
    if _ROOT not in sys.path:
        sys.path.insert(0, _ROOT)


def timed(compile_one, target, render):
    """compile_one(target, render) timed: (target, feature set, seconds, kernels compiled, error).  A compile that
    lasts prints its progress on stderr (sim/jit/progress.py; NUMJOCO_QUIET=1 silences it)."""
    print(f"  {target}: started", flush=True)
    _on_path()
    counter = _count_compiles()
    t0 = time.perf_counter()
    try:
        desc = compile_one(target, render)
        err = None
    except Exception as e:  # noqa: BLE001  (reported per target, the others go on)
        desc, err = "-", f"{type(e).__name__}: {e}"
    return target, desc, time.perf_counter() - t0, counter.n, err


def _keys(feature_key, targets):
    """feature_key of each target (a target that fails gets a key of its own: its error is reported when it is
    compiled)."""
    keys = []
    for t in targets:
        try:
            keys.append(feature_key(t))
        except Exception:  # noqa: BLE001
            keys.append("error:" + t)
    return keys


def _star(a):
    return timed(*a)


def target_environment(portable=False, ship_cache=None):
    """Set the environment the worker processes inherit: a generic CPU (portable), or the shipped baseline and a
    fresh cache folder (ship_cache); a batch's block step compiled by the target's own process (NUMJOCO_SIMD=wait),
    not by a background worker that the target's exit would stop (sim/api.py _Background)."""
    from sim.jit import cache  # noqa: F401  (numba's target is read by the workers, not here)

    if os.environ.get("NUMJOCO_SIMD", "1").strip() != "0":
        os.environ["NUMJOCO_SIMD"] = "wait"

    if portable:
        os.environ["NUMBA_CPU_NAME"] = "generic"  # inherited by the worker processes (numba reads it at import)
        os.environ["NUMBA_CPU_FEATURES"] = ""
    if ship_cache is not None:
        os.environ["NUMBA_CPU_NAME"] = cache.BASELINE["cpu_name"]
        os.environ["NUMBA_CPU_FEATURES"] = cache.BASELINE["cpu_features"]
        os.environ["NUMJOCO_CACHE_DIR"] = ship_cache
        os.environ["NUMJOCO_SHIPPED_KERNELS"] = "0"  # compile everything, whatever sim/_kernels holds


def build(targets, compile_one, feature_key, jobs=1, render=False, where=None, note=""):
    """Compile every target (compile_one(target, render) in fresh processes, `jobs` at a time): the first target of
    each feature set first (in parallel), then the rest (mostly cache hits), so two processes never compile the
    same feature set at once.  Prints a line per target; returns the number that failed."""
    print(f"numjoco: precompiling {len(targets)} target(s) into {where}{note}, {jobs} at a time", flush=True)
    ctx = multiprocessing.get_context("spawn")  # fresh processes: the environment set above applies
    failed = 0
    t0 = time.perf_counter()
    with ctx.Pool(1) as pool:
        keys = pool.apply(_keys, (feature_key, targets))
    lead = {}
    for t, k in zip(targets, keys):
        lead.setdefault(k, t)
    waves = [list(lead.values()), [t for t in targets if t not in lead.values()]]
    with ctx.Pool(jobs, maxtasksperchild=1) as pool:
        for wave in waves:
            for target, desc, sec, n, err in pool.imap(_star, [(compile_one, t, render) for t in wave]):
                if err:
                    failed += 1
                    print(f"  {target}: FAILED: {err}", flush=True)
                else:
                    print(f"  {target}: {desc}; {sec:.1f} s, {n} kernels compiled", flush=True)
    print(
        f"numjoco: done in {time.perf_counter() - t0:.0f} s" + (f"; {failed} target(s) failed" if failed else ""),
        flush=True,
    )
    return failed


def ship(cache_root, out, version):
    """Write the kernels compiled into `cache_root` for the baseline to `out` (this source version's folders only,
    numba's index and data files only) with manifest.json (the key, sim.jit.cache.kernel_key, under `version`);
    returns the number of files."""
    _on_path()
    from sim.jit import cache

    os.makedirs(out, exist_ok=True)
    n = 0
    for name in sorted(os.listdir(cache_root)):
        m = cache._VERSION_DIR.match(name)
        if m is None or not name.endswith(cache.SOURCE_HASH if m.group(1) is None else ""):
            continue
        if m.group(1) is not None:
            folder = m.group(1)
            digest = cache.source_hash(
                os.path.join(cache.PACKAGE_DIR, folder), skip=(), seed=cache.SOURCE_HASH.encode()
            )
            if name != "%s-%s" % (folder, digest):
                continue
        for dirpath, _, files in os.walk(os.path.join(cache_root, name)):
            for f in files:
                if f.endswith((".nbi", ".nbc")):
                    src = os.path.join(dirpath, f)
                    dst = os.path.join(out, os.path.relpath(src, cache_root))
                    os.makedirs(os.path.dirname(dst), exist_ok=True)
                    shutil.copy2(src, dst)
                    n += 1
    key = cache.kernel_key(cache.BASELINE["cpu_name"], cache.BASELINE["cpu_features"], version=version)
    key["requires"] = list(cache.BASELINE["requires"])
    with open(os.path.join(out, cache.MANIFEST), "w") as f:
        json.dump(key, f, indent=1, sort_keys=True)
    return n


def add_arguments(ap):
    """The options of python -m sim.precompile and numjoco-precompile."""
    ap.add_argument("--render", action="store_true", help="also the renderer (a frame per target)")
    ap.add_argument("--jobs", type=int, default=1, help="targets compiled at once (processes; default 1)")
    ap.add_argument(
        "--portable",
        action="store_true",
        help="compile for a generic CPU (NUMBA_CPU_NAME=generic; set it when using the cache too)",
    )
    ap.add_argument("--ship", metavar="DIR", help="compile for the shipped baseline into DIR with its manifest")
    ap.add_argument("--version", help="with --ship: the package version the manifest names (default: installed)")


def run(args, targets, compile_one, feature_key, render):
    """Compile `targets` as args say (--portable, --ship, --jobs); returns the exit status."""
    if args.jobs < 1:
        raise SystemExit("--jobs must be >= 1")
    tmp = tempfile.mkdtemp(prefix="numjoco-ship-") if args.ship else None
    try:
        target_environment(args.portable, tmp)
        from sim.jit import cache

        where = tmp or cache.CACHE_ROOT
        note = " for a generic CPU" if args.portable else (" for %s" % cache.BASELINE["cpu_name"] if tmp else "")
        failed = build(targets, compile_one, feature_key, args.jobs, render, where, note)
        if args.portable:
            print("numjoco: run with NUMBA_CPU_NAME=generic to use this cache", flush=True)
        if tmp and not failed:
            n = ship(tmp, args.ship, args.version)
            print(f"numjoco: {n} kernel files and {cache.MANIFEST} written to {args.ship}", flush=True)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0
