"""Where a rendered frame's CPU time goes, per compiled function: Linux `perf` sampling of sim.Renderer.

Run: python benchmarks/profile_render.py [model.xml] [--camera C] [--size N] [--seconds S]

numba's machine code has no symbols perf can see, so this script compiles the renderer in this process (a copy of
the kernel cache without the renderer's entries: the physics stays cached), writes /tmp/perf-<pid>.map with the
address and name of every compiled renderer function (perf's convention for JIT code), then renders the scene over
and over for S seconds while `perf record` samples the process, and prints the report: the share of samples per
function (numba inlines small helpers into their callers, so a share is that of a function and whatever LLVM
inlined into it).  Needs `perf` (linux-tools) and permission to trace (kernel.perf_event_paranoid <= 1 or root).
Defaults: Gymnasium's hopper.xml, the free camera (-1), 480x480, one thread, 10 s.

    python benchmarks/profile_render.py --annotate 4

also disassembles the hottest functions' machine code (read from the process's memory, `objdump`) and prints, for
each, the 4 windows of a dozen instructions with the most samples, each instruction with its sample count (a
sample lands on the instruction waiting for a result, so a count often marks the latency of what precedes it).
"""

import argparse
import collections
import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _prepare_cache():
    """A temporary kernel cache: the current one without the renderer's compiled entries."""
    src = os.environ.get("NUMJOCO_CACHE_DIR") or os.path.join(ROOT, "sim", "__numba_cache__")
    tmp = tempfile.mkdtemp(prefix="numjoco-profile-")
    if os.path.isdir(src):
        for name in os.listdir(src):
            if name.startswith("render-"):
                continue
            s = os.path.join(src, name)
            if os.path.isdir(s):
                shutil.copytree(s, os.path.join(tmp, name))
            else:
                shutil.copy2(s, tmp)
    return tmp


def _symbols(dispatcher):
    """(address, name) of every function compiled into the dispatcher's libraries."""
    out = set()
    for ov in dispatcher.overloads.values():
        lib = ov.library
        stack, seen = [lib], set()
        while stack:
            lb = stack.pop()
            if id(lb) in seen:
                continue
            seen.add(id(lb))
            stack.extend(getattr(lb, "_linking_libraries", []))
            mod = getattr(lb, "_final_module", None)
            if mod is None:
                continue
            for f in mod.functions:
                if f.is_declaration:
                    continue
                addr = lib.get_pointer_to_function(f.name)
                if addr:
                    out.add((addr, f.name))
    return sorted(out)


def _short(name):
    """'sim.render.shade.shade_opaque' from numba's mangled symbol name."""
    if not name.startswith("_ZN"):
        return name
    parts, i = [], 3
    while i < len(name) and name[i].isdigit():
        j = i
        while name[j].isdigit():
            j += 1
        n = int(name[i:j])
        parts.append(name[j : j + n])
        i = j + n
    return ".".join(p for p in parts if not p.startswith("B")) or name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model", nargs="?", default="hopper.xml")
    ap.add_argument("--camera", default="-1")
    ap.add_argument("--size", type=int, default=480)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--annotate", type=int, default=0, metavar="K", help="K hottest instruction windows per function")
    args = ap.parse_args()
    if shutil.which("perf") is None:
        sys.exit("perf is not installed (apt-get install linux-tools-generic or linux-perf)")
    os.environ["NUMJOCO_CACHE_DIR"] = _prepare_cache()
    sys.path.insert(0, ROOT)
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    import numba

    import sim
    from sim.render import kernels
    from bench_render import _gym, _state

    numba.set_num_threads(1)
    path = args.model if os.path.isabs(args.model) else _gym(args.model)
    cam = int(args.camera) if args.camera.lstrip("-").isdigit() else args.camera
    m = sim.load_model(path)
    d = _state(m)
    r = sim.Renderer(m, args.size, args.size)
    print("compiling the renderer in this process (a minute or more) ...", flush=True)
    r.update_scene(d, camera=cam)
    r.render()
    syms = _symbols(kernels.render_frames)
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as fh:
        for i, (a, n) in enumerate(syms):
            size = syms[i + 1][0] - a if i + 1 < len(syms) else 4096
            fh.write(f"{a:x} {size:x} {_short(n)}\n")
    data = os.path.join(tempfile.gettempdir(), f"numjoco-render-{os.getpid()}.perf")
    rec = ["perf", "record", "-q", "-F", "999", "-p", str(os.getpid()), "-o", data, "--", "sleep", str(args.seconds)]
    perf = subprocess.Popen(rec)
    time.sleep(0.5)
    frames = 0
    while perf.poll() is None:
        r.update_scene(d, camera=cam)
        r.render()
        frames += 1
    if perf.returncode != 0:
        sys.exit(f"perf record failed ({perf.returncode}): see kernel.perf_event_paranoid")
    rep = subprocess.run(
        ["perf", "report", "-i", data, "--no-children", "--sort", "dso,symbol", "--stdio"],
        capture_output=True,
        text=True,
    )
    print(f"\n{os.path.basename(path)}, camera {args.camera}, {args.size}x{args.size}, {frames} frames, one thread")
    print("| share of samples | function |\n|---|---|")
    for line in rep.stdout.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        pct, _, rest = line.partition("%")
        dso, _, name = rest.partition("[.]")
        name = name.split("  ")[0].strip() or rest.strip()
        if float(pct) >= 0.5:
            where = "numba JIT" if "[JIT]" in dso else dso.strip()
            print(f"| {pct.strip()} % | {name[:90]} ({where}) |")
    if args.annotate:
        _annotate(data, syms, args.annotate)
    os.remove(data)


def _annotate(data, syms, k, nfunc=4, width=12):
    """The k instruction windows with the most samples in each of the nfunc functions with the most samples."""
    if shutil.which("objdump") is None:
        sys.exit("--annotate needs objdump (binutils)")
    out = subprocess.run(["perf", "script", "-i", data, "-F", "ip"], capture_output=True, text=True).stdout.split()
    ips = collections.Counter(int(x, 16) for x in out)
    total = max(sum(ips.values()), 1)
    spans = [(a, (syms[i + 1][0] - a) if i + 1 < len(syms) else 4096, _short(n)) for i, (a, n) in enumerate(syms)]
    per = collections.Counter()
    for ip, c in ips.items():
        for span in spans:
            if span[0] <= ip < span[0] + span[1]:
                per[span] += c
                break
    for (a, size, name), c in per.most_common(nfunc):
        print(f"\n{name}: {100 * c / total:.1f} % of the samples, {size} bytes of machine code")
        with tempfile.NamedTemporaryFile(suffix=".bin") as fh:
            fh.write(ctypes.string_at(a, size))
            fh.flush()
            dis = subprocess.run(
                ["objdump", "-D", "-b", "binary", "-mi386:x86-64", f"--adjust-vma={a:#x}", fh.name],
                capture_output=True,
                text=True,
            ).stdout
        lines = [ln for ln in dis.splitlines() if re.match(r"\s+[0-9a-f]+:\t", ln)]
        counts = [ips.get(int(ln.split(":")[0], 16), 0) for ln in lines]
        windows = sorted(((sum(counts[i : i + width]), i) for i in range(0, len(lines), width // 2)), reverse=True)
        shown = []
        for n, i in windows:
            if len(shown) == k:
                break
            if any(abs(i - j) < width for j in shown):
                continue  # overlaps a window already printed
            shown.append(i)
            print(f"  -- {100 * n / total:.1f} % of the samples")
            for j in range(i, min(len(lines), i + width)):
                print(f"  {counts[j]:6d}  {lines[j].split(chr(9))[-1][:90]}")


if __name__ == "__main__":
    main()
