"""Tell the user what a first compile is doing: numjoco compiles its kernels with numba on first use (cached on
disk afterwards), which takes a minute or more.  A compile of an entry point that lasts over a second prints
what is being compiled, how long it took last time on this machine (or a typical figure), and a progress line
every few seconds (kernels compiled so far, elapsed time) on stderr; the end prints the time it took.

NUMJOCO_QUIET=1 silences it.  Durations and kernel counts are remembered in <cache root>/compile_times.json.
"""

import re
import json
import os
import sys
import threading
import time

from numba.core import event

QUIET = os.environ.get("NUMJOCO_QUIET", "") not in ("", "0")
DELAY = 1.0  # seconds of compiling before the first word
EVERY = 10.0  # seconds between progress lines
# s of CPU, hopper (sim.jit.struct_new: no struct compile; the step's parts compiled by a worker meanwhile,
# sim/jit/parts.py). An entry compiled after another one in the same process reuses the kernels compiled for it
# (a batch after a single world: ~10 s instead of ~15): those compiles are typed and remembered under '<entry>/shared'
# (SHARED kernels compiled earlier in the process)
TYPICAL = {
    "run_serial": 15,
    "run_batch": 15,
    "smooth_position": 4,
    "run_serial/shared": 10,
    "run_batch/shared": 10,
    "render_frames": 25,
}
SHARED = 100


def _record_path():
    from sim.jit import cache

    return None if cache.CACHE_ROOT is None else os.path.join(cache.CACHE_ROOT, "compile_times.json")


def _load():
    p = _record_path()
    try:
        with open(p) as f:
            return json.load(f)
    except (OSError, TypeError, ValueError):
        return {}


def _save(rec):
    p = _record_path()
    if p is None:
        return
    try:
        tmp = "%s.%d" % (p, os.getpid())
        with open(tmp, "w") as f:
            json.dump(rec, f)
        os.replace(tmp, p)
    except OSError:
        pass


class _Listener(event.Listener):
    """Counts the kernel compilations under a top-level entry compile and reports on a ticker thread."""

    def __init__(self):
        self.depth = 0
        self.entry = None  # record key: the entry name, + "/shared" after SHARED kernels compiled in the process
        self.name = None
        self.count = 0
        self.t0 = 0.0
        self.lock = threading.Lock()
        self.stop = None
        self.before = 0  # kernels compiled in this process under earlier entries

    def on_start(self, ev):
        disp = ev.data.get("dispatcher") if isinstance(ev.data, dict) else None
        if disp is None or not type(disp).__name__ == "KernelDispatcher":
            return
        with self.lock:
            self.count += 1
            self.depth += 1
            if self.depth > 1:
                return
            self.name = disp.py_func.__name__
            self.entry = self.name + ("/shared" if self.before >= SHARED else "")
            self.doc = disp.py_func.__doc__
            self.count = 1
            self.t0 = time.perf_counter()
            self.stop = threading.Event()
            threading.Thread(target=self._tick, args=(self.stop, self.entry, self.name), daemon=True).start()

    def on_end(self, ev):
        disp = ev.data.get("dispatcher") if isinstance(ev.data, dict) else None
        if disp is None or not type(disp).__name__ == "KernelDispatcher":
            return
        with self.lock:
            self.depth -= 1
            if self.depth > 0:
                return
            dt = time.perf_counter() - self.t0
            self.stop.set()
            spoke = getattr(self.stop, "spoke", False)
            entry, name, count = self.entry, self.name, self.count
            self.before += count
        if dt > DELAY:
            rec = _load()
            rec[entry] = {"seconds": round(dt, 1), "kernels": count}
            _save(rec)
        if spoke:
            _say("numjoco: compiled %s in %.0f s (%d kernels)" % (name, dt, count))

    def _tick(self, stop, entry, name):
        if stop.wait(DELAY):
            return
        rec = _load().get(entry, {})
        est = rec.get("seconds", TYPICAL.get(entry, TYPICAL.get(name)))
        total = rec.get("kernels")
        global _HEADER
        if not _HEADER:
            _HEADER = True
            from sim.jit import cache

            _say(
                "numjoco: first use after install or upgrade: compiling kernels with numba, cached in %s for "
                "later runs (NUMJOCO_QUIET=1 hides these lines)" % cache.CACHE_ROOT
            )
            if cache.SHIPPED_WHY not in (None, "no shipped kernels"):
                _say(
                    "numjoco: shipped kernels: %s"
                    % (
                        "in use; this model needs kernels they do not hold"
                        if cache.SHIPPED_ROOT is not None
                        else "not used (%s)" % cache.SHIPPED_WHY
                    )
                )
        what = re.split(r"[(:;]", (self.doc or "").strip().split("\n")[0])[0].strip().rstrip(".,")
        if len(what) > 60:
            what = what[:60].rsplit(" ", 1)[0] + "..."

        from sim.jit import parts

        apart = len(parts._PART_WORKERS)
        _say(
            "numjoco: compiling %s%s, %s%s ..."
            % (
                name,
                " (%s)" % what if what else "",
                (
                    "about %.0f s last time" % est
                    if "seconds" in rec
                    else "typically %.0f-%.0f s on 2 cores" % (est * 0.7, est * 1.5)
                )
                if est
                else "up to a few minutes",
                "; %d stage(s) compiling in a second process" % apart if apart else "",
            )
        )
        stop.spoke = True
        while not stop.wait(EVERY):
            with self.lock:
                n, dt = self.count, time.perf_counter() - self.t0
            done = "%d/%d" % (n, total) if total and n <= total else n
            _say("numjoco:   ... %s kernels compiled, %.0f s" % (done, dt))


_HEADER = False


def _say(msg):
    if not QUIET:
        print(msg, file=sys.stderr, flush=True)


LISTENER = _Listener()
event.register("numba:compile", LISTENER)
