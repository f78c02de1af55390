"""Per-model generated code: what compiling a stage for one model's tree (every size, index and address a constant)
gains over the generic kernel, and what it costs to compile.

    python benchmarks/bench_generated.py [model ...]      (default: hopper walker2d ant humanoid)

Two stages whose control flow depends on the model alone are written out as straight-line Python for the model's
tree and compiled with numba: the composite rigid-body inertia into M (`crb`, mj_crb) and the sparse L'DL
factorisation of M (`factor_i`, mj_factorI).  Every value lives in a local variable (SSA form: LLVM keeps them in
registers or spills them as it sees fit), and every operation is the generic kernel's, in its order, so the results
are checked bitwise equal to the generic kernel's before timing.  Both versions are timed in alternating rounds
in one jitted loop each (30 rounds of 5,000 calls); the table gives ns per call (minimum over rounds), the median of
the paired ratios, and the seconds numba takes to compile the generated function (typing, LLVM, machine code).
"""

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gymnasium  # noqa: E402

import sim  # noqa: E402
from sim.api import model_struct  # noqa: E402
from sim.constants import MINVAL  # noqa: E402
from sim.engine.crb import crb, factor_i  # noqa: E402
from sim.engine.math import mul_inert_vec  # noqa: E402
from sim.jit import njit  # noqa: E402

ASSETS = os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets")


def gen_factor_i(m):
    """Source of f(mat, diaginv) -> bad: factor_i on m's sparsity pattern (M_rownnz / M_rowadr / M_colind)."""
    nv, rownnz, rowadr, colind = m.nv, m.M_rownnz, m.M_rowadr, m.M_colind
    nC = int(rowadr[nv - 1] + rownnz[nv - 1])
    L = ["def f(mat, diaginv):", "    bad = -1"]
    L += [f"    x{a} = mat[{a}]" for a in range(nC)]
    for k in range(nv - 1, -1, -1):
        start, diag = rowadr[k], rownnz[k] - 1
        end = start + diag
        L += [f"    if x{end} < MINVAL:", f"        x{end} = MINVAL", "        if bad < 0:", f"            bad = {k}"]
        L += [f"    invd = 1.0 / x{end}", f"    diaginv[{k}] = invd"]
        for adr in range(end - 1, start - 1, -1):
            i = colind[adr]
            L.append(f"    s = -x{adr} * invd")
            L += [f"    x{rowadr[i] + t} = x{rowadr[i] + t} + x{start + t} * s" for t in range(rownnz[i])]
        L += [f"    x{start + t} = x{start + t} * invd" for t in range(diag)]
    L += [f"    mat[{a}] = x{a}" for a in range(nC)]
    L.append("    return bad")
    return "\n".join(L)


def gen_crb(m):
    """Source of f(c, cinert, cdof, M, M0, arm): crb on m's body tree and dof chains."""
    nbody, nv = m.nbody, m.nv
    rowadr, rownnz = m.M_rowadr, m.M_rownnz
    nC = int(rowadr[nv - 1] + rownnz[nv - 1])
    L = ["def f(c, cinert, cdof, M, M0, arm):"]
    L += [f"    c{i}_{k} = cinert[{i}, {k}]" for i in range(nbody) for k in range(10)]
    for i in range(nbody - 1, 0, -1):
        p = m.body_parentid[i]
        if p > 0:
            L += [f"    c{p}_{k} = c{p}_{k} + c{i}_{k}" for k in range(10)]
    L += [f"    c[{i}, {k}] = c{i}_{k}" for i in range(nbody) for k in range(10)]
    L += [f"    M{k} = 0.0" for k in range(nC)]
    for i in range(nv):
        adr = rowadr[i]
        if m.dof_simplenum[i]:
            L.append(f"    M{adr} = M0[{i}]")
            continue
        madr = adr + rownnz[i] - 1
        L.append(f"    M{madr} = arm[{i}]")
        b = m.dof_bodyid[i]
        body = ", ".join(f"c{b}_{k}" for k in range(10))
        L.append(f"    b0, b1, b2, b3, b4, b5 = mul_inert_vec(({body}), cdof[{i}])")
        j = i
        while j >= 0:
            dot = " + ".join(f"cdof[{j}, {k}] * b{k}" for k in range(6))
            L.append(f"    M{madr} = M{madr} + ({dot})")
            madr -= 1
            j = m.dof_parentid[j]
    L += [f"    M[{k}] = M{k}" for k in range(nC)]
    return "\n".join(L)


def build(src, name, namespace):
    """(dispatcher, source lines) of the generated function; compiled on first call."""
    ns = dict(namespace)
    exec(compile(src, f"<generated {name}>", "exec"), ns)
    return njit(cache=False)(ns["f"]), src.count("\n") + 1


@njit(cache=False)
def _loop_factor_generic(M, a, dg, n, nv, rownnz, rowadr, colind):
    for _ in range(n):
        a[:] = M
        factor_i(a, dg, nv, rownnz, rowadr, colind)


@njit(cache=False)
def _loop_factor_generated(M, a, dg, n, f):
    for _ in range(n):
        a[:] = M
        f(a, dg)


@njit(cache=False)
def _loop_crb_generic(m, d, n):
    for _ in range(n):
        crb(m, d, 0)


@njit(cache=False)
def _loop_crb_generated(n, f, c, cinert, cdof, M, M0, arm):
    for _ in range(n):
        f(c, cinert, cdof, M, M0, arm)


def paired(generic, generated, rounds=30):
    """(min ns generic, min ns generated, median ratio) over alternating rounds of 5,000 calls."""
    n = 5000
    tg, ts, ratios = [], [], []
    for _ in range(rounds):
        t = time.perf_counter()
        generic(n)
        a = (time.perf_counter() - t) / n * 1e9
        t = time.perf_counter()
        generated(n)
        b = (time.perf_counter() - t) / n * 1e9
        tg.append(a)
        ts.append(b)
        ratios.append(a / b)
    return min(tg), min(ts), float(np.median(ratios))


def row(name, nv, stage, nlines, tc, same, g, s, r):
    print(
        f"| {name} | {nv} | {stage} | {nlines} | {tc:.2f} | {'yes' if same else 'NO'} | {g:.0f} | {s:.0f} | {r:.2f} |"
    )


def main():
    names = [a for a in sys.argv[1:] if not a.startswith("--")] or ["hopper", "walker2d", "ant", "humanoid"]
    print("| model | nv | stage | source lines | compile s | bitwise | generic ns | generated ns | ratio |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in names:
        m = sim.load_model(os.path.join(ASSETS, name + ".xml"))
        d = sim.Data(m)
        d.qpos = d.qpos + 0.1 * np.random.default_rng(0).standard_normal(m.nq)
        sim.forward(m, d)
        ms, ds, A = model_struct(m), d._struct, d._arrays
        pattern = (m.nv, np.asarray(m.M_rownnz), np.asarray(m.M_rowadr), np.asarray(m.M_colind))

        # factor_i: the generated code and the kernel factor the same M
        M = np.asarray(A["M"][0]).copy()
        f, nlines = build(gen_factor_i(m), f"factor_i {name}", {"MINVAL": MINVAL})
        a1, d1 = M.copy(), np.zeros(m.nv)
        t0 = time.perf_counter()
        f(a1, d1)
        tc = time.perf_counter() - t0
        a0, d0 = M.copy(), np.zeros(m.nv)
        factor_i(a0, d0, *pattern)
        same = np.array_equal(a0, a1) and np.array_equal(d0, d1)
        _loop_factor_generic(M, a0, d0, 1, *pattern)
        _loop_factor_generated(M, a1, d1, 1, f)
        g, s, r = paired(
            lambda n: _loop_factor_generic(M, a0, d0, n, *pattern), lambda n: _loop_factor_generated(M, a1, d1, n, f)
        )
        row(name, m.nv, "factor_i", nlines, tc, same, g, s, r)

        # crb: the generated code writes its own copies of crb and M, compared with the kernel's
        f, nlines = build(gen_crb(m), f"crb {name}", {"mul_inert_vec": mul_inert_vec})
        c1, M1 = np.zeros_like(A["crb"][0]), np.zeros_like(A["M"][0])
        args = (c1, A["cinert"][0], A["cdof"][0], M1, np.asarray(m.dof_M0, float), np.asarray(m.dof_armature, float))
        t0 = time.perf_counter()
        f(*args)
        tc = time.perf_counter() - t0
        crb(ms, ds, 0)
        same = np.array_equal(c1, A["crb"][0]) and np.array_equal(M1, A["M"][0])
        _loop_crb_generic(ms, ds, 1)
        _loop_crb_generated(1, f, *args)
        g, s, r = paired(lambda n: _loop_crb_generic(ms, ds, n), lambda n: _loop_crb_generated(n, f, *args))
        row(name, m.nv, "crb", nlines, tc, same, g, s, r)


if __name__ == "__main__":
    main()
