"""Instructions and memory accesses per stage, ours against MuJoCo C's, counted by valgrind (callgrind), and how
far each stage runs from the machine's instruction throughput.

    python benchmarks/profile_instructions.py [model ...] [--n N]       (default: hopper ant humanoid, N = 200)

Each stage is a function of both engines on the same state (MuJoCo's after 500 steps of random controls, copied
into ours, then one forward pass each): ours, called from a jitted loop, and MuJoCo's, called by address (from its
shared library) from the same kind of loop, N calls each. The loop asks callgrind (a client request) to zero its counters before the
calls and to dump them after, so a count holds the N calls and nothing else. Counts are exact and repeatable:
they do not depend on the machine's load.

The same loops then run natively and time the N calls with the CPU's cycle counter (minimum over 20 rounds), which
gives each stage's rate in instructions per ns: how close it comes to what the core can issue (AMD Zen 4: up to 6
instructions per cycle, at up to 3.7 GHz on EPYC parts; the counter ticks at a fixed rate, not the core's clock). Near that rate, a stage is bound by the number
of instructions it executes, not by memory or dependency chains, and only executing fewer makes it faster.

MuJoCo's mj_projectConstraint makes efc_AR in the arena that mj_makeConstraint resets, so the `project` row of both
engines is timed and counted after make_constraint, less the make_constraint row.

Valgrind 3.19 does not decode AVX-512, so both runs compile our kernels for an AVX2 CPU (NUMBA_CPU_NAME=haswell,
with a kernel cache of their own under the system's temporary folder); MuJoCo's library is the wheel's, which uses
AVX. Needs `valgrind` on the PATH.
"""

import ctypes
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CPU = "haswell"
STAGES = (
    # (name, MuJoCo function); ours: branch k of `ours` below, in this order
    ("kinematics", "mj_kinematics"),
    ("com_pos", "mj_comPos"),
    ("crb", "mj_crb"),
    ("factor_m", "mj_factorM"),
    ("collision", "mj_collision"),
    ("make_constraint", "mj_makeConstraint"),
    ("project", "mj_projectConstraint"),
    ("com_vel", "mj_comVel"),
    ("rne", "mj_rne"),
    ("fwd_constraint", "mj_fwdConstraint"),
    ("forward", "mj_forward"),
)


sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

import llvmlite.binding as llvm  # noqa: E402
import llvmlite.ir as ir  # noqa: E402
import mujoco  # noqa: E402
from numba import types  # noqa: E402
from numba.core import cgutils  # noqa: E402
from numba.extending import intrinsic  # noqa: E402

import sim  # noqa: E402
from sim.jit import njit  # noqa: E402
from sim.api import model_features, model_struct  # noqa: E402
from sim.engine.kinematics import kinematics  # noqa: E402
from sim.engine.com import com_pos, com_vel  # noqa: E402
from sim.engine.crb import crb, factor_m  # noqa: E402
from sim.engine.rne import rne  # noqa: E402
from sim.engine.collision.driver import collision  # noqa: E402
from sim.engine.constraint import make_constraint, project_constraint  # noqa: E402
from sim.engine.solver import fwd_constraint, project_dual_if  # noqa: E402
from sim.engine.forward import forward_world  # noqa: E402
from profile_stages import Pair, _rdtsc, cycles_per_us  # noqa: E402

llvm.initialize_native_asmparser()  # inline assembly for the client request

DUMP_STATS = (ord("C") << 24) | (ord("T") << 16)  # callgrind.h: VG_USERREQ__DUMP_STATS, then ZERO_STATS
ZERO_STATS = DUMP_STATS + 1


@intrinsic
def _client_request(typingctx, req):
    """valgrind's client request (valgrind.h, amd64): the magic rotate sequence, then xchg rbx, rbx with the address
    of (request, 0, 0, 0, 0, 0) in rax; a no-op outside valgrind."""

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        block = cgutils.alloca_once(builder, ir.ArrayType(i64, 6))
        for k in range(6):
            ptr = builder.gep(block, [ir.Constant(ir.IntType(32), 0), ir.Constant(ir.IntType(32), k)])
            builder.store(args[0] if k == 0 else ir.Constant(i64, 0), ptr)
        asm = ir.InlineAsm(
            ir.FunctionType(i64, [i64, i64]),
            "rolq $$3, %rdi ; rolq $$13, %rdi\n\trolq $$61, %rdi ; rolq $$51, %rdi\n\txchgq %rbx,%rbx",
            "={dx},{ax},0,~{cc},~{memory},~{dirflag},~{fpsr},~{flags}",
            side_effect=True,
        )
        return builder.call(asm, [builder.ptrtoint(block, i64), ir.Constant(i64, 0)])

    return types.int64(types.int64), codegen


@intrinsic
def _call_c(typingctx, fn, mp, dp, bias):
    """Call the C function at address fn as f(mjModel*, mjData*), or as mj_rne(m, d, 0, bias) when bias != 0
    (addresses as int64, so that the loop below holds no process-specific constant and can be cached)."""

    def codegen(context, builder, signature, args):
        i8p = ir.IntType(8).as_pointer()
        f, m, d, b = args
        m, d = builder.inttoptr(m, i8p), builder.inttoptr(d, i8p)
        with builder.if_else(builder.icmp_signed("!=", b, ir.Constant(b.type, 0))) as (rne_, plain):
            with rne_:
                ft = ir.FunctionType(ir.VoidType(), [i8p, i8p, ir.IntType(32), i8p])
                builder.call(
                    builder.inttoptr(f, ft.as_pointer()),
                    [m, d, ir.Constant(ir.IntType(32), 0), builder.inttoptr(b, i8p)],
                )
            with plain:
                ft = ir.FunctionType(ir.VoidType(), [i8p, i8p])
                builder.call(builder.inttoptr(f, ft.as_pointer()), [m, d])
        return context.get_dummy_value()

    return types.void(types.int64, types.int64, types.int64, types.int64), codegen


@njit(cache=True)
def ours(m, d, F, k, n):
    """n calls of our stage k on world 0, callgrind's counters zeroed before and dumped after; native cycles."""
    _client_request(ZERO_STATS)
    t0 = _rdtsc()
    for _ in range(n):
        if k == 0:
            kinematics(m, d, 0)
        elif k == 1:
            com_pos(m, d, 0)
        elif k == 2:
            crb(m, d, 0)
        elif k == 3:
            factor_m(m, d, 0)
        elif k == 4:
            collision(m, d, 0, F)
        elif k == 5:
            make_constraint(m, d, 0, F)
        elif k == 6:  # MuJoCo's makes efc_AR in the arena that mj_makeConstraint resets: both run as a pair
            make_constraint(m, d, 0, F)
            project_constraint(m, d, 0)
            project_dual_if(F, m, d, 0)
        elif k == 7:
            com_vel(m, d, 0)
        elif k == 8:
            rne(m, d, 0)
        elif k == 9:
            fwd_constraint(m, d, 0, F)
        else:
            forward_world(m, d, 0, F)
    t1 = _rdtsc()
    _client_request(DUMP_STATS)
    return t1 - t0


@njit(cache=True)
def theirs(fn0, fn, mp, dp, bias, n):
    """n calls of the MuJoCo function at address fn (after the one at fn0 unless 0), the same way."""
    _client_request(ZERO_STATS)
    t0 = _rdtsc()
    for _ in range(n):
        if fn0 != 0:
            _call_c(fn0, mp, dp, 0)
        _call_c(fn, mp, dp, bias)
    t1 = _rdtsc()
    _client_request(DUMP_STATS)
    return t1 - t0


def inner(names, n, valgrind):
    """Runs in the child process (NUMBA_CPU_NAME set): native cycles, or callgrind dumps when under valgrind."""
    lib = ctypes.CDLL(os.path.join(os.path.dirname(mujoco.__file__), "libmujoco.so.%s" % mujoco.__version__))
    addr = {c: ctypes.cast(getattr(lib, c), ctypes.c_void_p).value for _, c in STAGES}
    out = []
    for name in names:
        pair = Pair(name, warm=500)
        pair.restart()
        mujoco.mj_forward(pair.mm, pair.md)
        sim.forward(pair.m, pair.d)
        ms, ds, F = model_struct(pair.m), pair.d._struct, model_features(pair.m)
        mp, dp = pair.mm._address, pair.md._address
        for k, (stage, c) in enumerate(STAGES):
            bias = pair.md.qfrc_bias.ctypes.data if c == "mj_rne" else 0
            a = b = 1 << 62
            for _ in range(1 if valgrind else 20):
                a = min(a, ours(ms, ds, F, k, n))
                b = min(b, theirs(addr["mj_makeConstraint"] if stage == "project" else 0, addr[c], mp, dp, bias, n))
            out.append((name, stage, a / n, b / n))
    return out, (0.0 if valgrind else cycles_per_us())


def totals(path):
    """Event name -> count of a callgrind dump's totals line."""
    events = total = None
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("totals:"):
                total = [int(x) for x in line.split()[1:]]
    return dict(zip(events, total))


def main():
    args = sys.argv[1:]
    n = int(args[args.index("--n") + 1]) if "--n" in args else 200
    names = [a for a in args if not a.startswith("--") and not a.isdigit()] or ["hopper", "ant", "humanoid"]
    if "--inner" in args:
        out = inner(names, n, "--valgrind" in args)
        print("RESULT", repr(out))
        return
    # the CPU's name and its features both fixed: numba keys its cache on them, and valgrind reports other
    # features than the host's (empty: the named CPU's own)
    env = dict(os.environ, NUMBA_CPU_NAME=CPU, NUMBA_CPU_FEATURES="", NUMJOCO_QUIET="1")
    env["NUMJOCO_CACHE_DIR"] = os.path.join(tempfile.gettempdir(), "numjoco-cache-" + CPU)
    cmd = [sys.executable, os.path.abspath(__file__), *names, "--n", str(n), "--inner"]
    native = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)  # compiles, then times
    cycles, per_us = eval(native.stdout.split("RESULT", 1)[1])
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg")
        vg = ["valgrind", "--tool=callgrind", "--cache-sim=yes", f"--callgrind-out-file={out}"]
        subprocess.run(vg + cmd + ["--valgrind"], env=env, capture_output=True, text=True, check=True)
        dumps = sorted((int(f.rsplit(".", 1)[1]), f) for f in os.listdir(tmp) if f.startswith("cg."))
        counts = [totals(os.path.join(tmp, f)) for _, f in dumps]
    print(
        f"callgrind's counts per call and the native rate, {n} calls from one state, our kernels compiled for {CPU} "
        f"(cycle counter: {per_us:.0f} ticks per µs)"
    )
    for i, (name, stage, ca, cb) in enumerate(cycles):
        if stage == STAGES[0][0]:
            print(f"\n{name}\n")
            print(
                "| stage | instructions ours | MuJoCo | ratio | loads + stores ours | MuJoCo | ratio | instructions / ns ours "
                "| MuJoCo |"
            )
            print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        a, b = counts[2 * i], counts[2 * i + 1]
        ia, ib = a["Ir"] / n, b["Ir"] / n
        ma, mb = (a["Dr"] + a["Dw"]) / n, (b["Dr"] + b["Dw"]) / n
        if stage == "project":  # measured after make_constraint: less the make_constraint row's figures
            a0, b0 = counts[2 * i - 2], counts[2 * i - 1]
            ia, ib = ia - a0["Ir"] / n, ib - b0["Ir"] / n
            ma, mb = ma - (a0["Dr"] + a0["Dw"]) / n, mb - (b0["Dr"] + b0["Dw"]) / n
            ca, cb = ca - cycles[i - 1][2], cb - cycles[i - 1][3]
            if min(ia, ib, ca, cb) < 100:  # a primal solver: neither engine makes AR
                print("| project | - | - | - | - | - | - | - | - |")
                continue
        print(
            f"| {stage} | {ia:,.0f} | {ib:,.0f} | {ia / ib:.2f} | {ma:,.0f} | {mb:,.0f} | {ma / mb:.2f} | "
            f"{ia / ca * per_us / 1e3:.1f} | {ib / cb * per_us / 1e3:.1f} |"
        )


if __name__ == "__main__":
    main()
