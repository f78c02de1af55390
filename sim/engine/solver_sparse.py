"""The Newton solver's sparse Hessian (MuJoCo's path when mj_isSparse: nv >= 60 or jacobian="sparse").

MuJoCo factors H = M + J'DJ in reverse order (H = L'L, rows eliminated from the last dof to the first), on the
sparsity pattern of M + J'J over every constraint row, so a tree's dofs fill nothing in and a rank-1 update along
a constraint row touches only its dofs and their ancestors (engine_solver.c MakeHessian / FactorizeHessian /
HessianIncremental, engine_util_solve.c mju_cholFactorSymbolic / mju_cholFactorNumeric / mju_cholUpdateSparse /
mju_cholSolveSparse).  The values stay in the dense (nv, nv) scratch of the dense path (scr_slv_H), L[r, j] at
[r, j]; the pattern is kept as index lists in scr_slv_L (int, (4 nv + 5, nv)), rows:

    [0, nv)        row r of L: columns L_colind[r, L_start[r]:nv], ascending, the diagonal last
    [nv, 2nv)      column r of L (MuJoCo's LT): LT_colind[r, :LT_nnz[r]], the diagonal first, then the rows
                   below in the order the symbolic pass finds them (the order MuJoCo sums them in)
    [2nv, 3nv)     mark[k, i] (i >= k) == stamp: (i, k) is in the pattern of H
    3nv .. 3nv+3   L_start, LT_nnz, elimination-tree parent, flag
    3nv+4          [0]: the marks' current stamp
    [3nv+5, 4nv+5) LT_pos[r, k]: where column r is in row LT_colind[r, k] of L (MuJoCo's LT_map)

and J's structural pattern per row (MuJoCo's efc_J_colind, zeros included) in scr_slv_Jind (int, (njmax, nv + 1),
allocated when the model is sparse as created, written by the constraint assembly): the J products of the solver
(J qacc, J search, J' force) run over them as MuJoCo's sparse products do, and H and its factor get MuJoCo's
pattern.  An island's solve reads its rows' lists renumbered to its local dofs (local_lists).  Only the Newton
solver uses the factor:
CG's M^-1 preconditioner is the sparse L'DL factor already, the dual solvers (PGS, noslip) use a dense AR or AR
on the fly (sim/engine/solver.py).
"""

import math

from sim.jit import njit
from sim.constants import CNSTRSTATE_QUADRATIC, MINVAL


@njit(cache=True, always_inline=True)
def has_lists(m, d, sparse):
    """True when efc_J's structural row lists are kept in scr_slv_Jind (written by the constraint assembly): the
    model is sparse (mj_isSparse) and its Data was made with room for them."""
    return sparse and d.scr_slv_Jind.shape[1] > 0 and d.scr_slv_Jind.shape[2] == m.nv + 1


@njit(cache=True)
def rows(nv):
    """(mark, L_start, LT_nnz, parent, flag) row offsets of scr_slv_L for nv dofs."""
    return 2 * nv, 3 * nv, 3 * nv + 1, 3 * nv + 2, 3 * nv + 3


@njit(cache=True)
def local_lists(Jind, rows, nefc, d2i, idofadr):
    """The lists of an island's rows (Jind[rows[c]]) in its local dof numbering, in place (mju_blockSparse's
    colind: map_dof2idof - island_idofadr; the island's dofs ascend, so the lists stay sorted)."""
    for c in range(nefc):
        Lr = Jind[rows[c]]
        for t in range(1, Lr[0] + 1):
            Lr[t] = d2i[Lr[t]] - idofadr


@njit(cache=True)
def global_lists(Jind, rows, nefc, dofs):
    """Undo local_lists: the island's rows' lists back in the global dof numbering (dofs: its local -> global)."""
    for c in range(nefc):
        Lr = Jind[rows[c]]
        for t in range(1, Lr[0] + 1):
            Lr[t] = dofs[Lr[t]]


@njit(cache=True)
def dot_idx(a, idx, t0, n, x):
    """sum over t in [t0, t0 + n) of a[idx[t]] x[idx[t]] in mju_dotSparse's order (four partial sums, then the
    tail one by one)."""
    t = t0
    r0 = 0.0
    r1 = 0.0
    r2 = 0.0
    r3 = 0.0
    while t <= t0 + n - 4:
        r0 += a[idx[t]] * x[idx[t]]
        r1 += a[idx[t + 1]] * x[idx[t + 1]]
        r2 += a[idx[t + 2]] * x[idx[t + 2]]
        r3 += a[idx[t + 3]] * x[idx[t + 3]]
        t += 4
    res = (r0 + r2) + (r1 + r3)
    while t < t0 + n:
        res += a[idx[t]] * x[idx[t]]
        t += 1
    return res


@njit(cache=True)
def mul_j_sparse(J, Jind, rmap, x, out, nefc):
    """out[:nefc] = J x over the rows' structural lists (row c's at Jind[rmap[c]]), in mju_dotSparse's order
    (mju_mulMatVecSparse)."""
    for c in range(nefc):
        Lr = Jind[rmap[c]]
        out[c] = dot_idx(J[c], Lr, 1, Lr[0], x)


@njit(cache=True)
def mul_jt_sparse(J, Jind, rmap, f, out, nefc, nv):
    """out[:nv] = J' f, rows with f = 0 skipped, over the rows' lists (mju_mulMatTVecSparse: each row added in
    turn, the same sums in the same order as the dense mju_mulMatTVec)."""
    for k in range(nv):
        out[k] = 0.0
    for c in range(nefc):
        fr = f[c]
        if fr != 0.0:
            Jr = J[c]
            Lr = Jind[rmap[c]]
            for t in range(1, Lr[0] + 1):
                k = Lr[t]
                out[k] += Jr[k] * fr


@njit(cache=True)
def mul_jt_lanes(J, Jind, rmap, f, out, nefc, nv, S):
    """out[:nv] = J' f as the primal solvers' sparse qfrc_constraint: mju_mulMatVecSparse on J's transpose, i.e.
    per dof a mju_dotSparse over the rows of its column (ascending, zeros included): four partial sums over the
    first 4 floor(n / 4) terms, reduced (s0 + s2) + (s1 + s3), then the rest one by one.  Computed in one pass
    over the rows: S (7, >= nv) scratch holds the four lanes, the running sum of the tail, and the counts."""
    L0, L1, L2, L3, T, pos, cnt = S[0], S[1], S[2], S[3], S[4], S[5], S[6]
    for k in range(nv):
        L0[k] = 0.0
        L1[k] = 0.0
        L2[k] = 0.0
        L3[k] = 0.0
        pos[k] = 0.0
        cnt[k] = 0.0
    for c in range(nefc):
        Lr = Jind[rmap[c]]
        for t in range(1, Lr[0] + 1):
            cnt[Lr[t]] += 1.0
    for k in range(nv):
        cnt[k] = cnt[k] - (cnt[k] % 4.0)  # positions below are summed in the four lanes
    for c in range(nefc):
        fr = f[c]
        Jr = J[c]
        Lr = Jind[rmap[c]]
        for t in range(1, Lr[0] + 1):
            k = Lr[t]
            v = Jr[k] * fr
            p = pos[k]
            pos[k] = p + 1.0
            if p < cnt[k]:
                q = int(p) & 3
                if q == 0:
                    L0[k] += v
                elif q == 1:
                    L1[k] += v
                elif q == 2:
                    L2[k] += v
                else:
                    L3[k] += v
            else:
                if p == cnt[k]:
                    T[k] = (L0[k] + L2[k]) + (L1[k] + L3[k]) if p > 0 else 0.0
                T[k] += v
    for k in range(nv):
        if pos[k] > cnt[k]:
            out[k] = T[k]
        elif pos[k] > 0:
            out[k] = (L0[k] + L2[k]) + (L1[k] + L3[k])
        else:
            out[k] = 0.0


@njit(cache=True)
def make_hessian_sparse(H, S, J, Jind, rmap, D, state, nefc, nv, M, M_rowadr, M_rownnz, M_colind, dofs, pattern):
    """Lower triangle of H (nv, nv) = J' D_quadratic J + M (mju_sqrMatTDSparseNumeric + mju_addToMatSparse:
    efc rows in order, products D_i J_ir J_ic); with pattern, also the pattern of M + J'J over all rows and the
    factor's pattern from it (MakeHessian: mju_sqrMatTDSparseSymbolic, mju_cholFactorSymbolic).  dofs: the
    island's dofs (global indices, contiguous per tree), M in MuJoCo's sparse layout; Jind[rmap[r]]: row r's
    structural list (local columns)."""
    MK = 2 * nv
    for i in range(nv):
        Hi = H[i]
        for k in range(i + 1):
            Hi[k] = 0.0
    # marks carry this call's stamp (no clearing); a stale mark after 2^30 calls only adds a structural zero
    stamp = S[3 * nv + 4, 0] % 1073741824 + 1
    S[3 * nv + 4, 0] = stamp
    prev = -1
    for r in range(nefc):
        quad = state[r] == CNSTRSTATE_QUADRATIC
        if not (quad or pattern):
            continue
        Jr = J[r]
        Lr = Jind[rmap[r]]
        jind = Lr[1:]
        n = Lr[0]
        if pattern:
            Lp = Jind[rmap[prev]] if prev >= 0 else Lr
            same = prev >= 0 and Lp[0] == n
            if same:
                for a in range(n):
                    if Lp[1 + a] != jind[a]:
                        same = False
                        break
            if not same:  # rows of one contact share their dofs: marked once
                for b in range(n):
                    Mk = S[MK + jind[b]]
                    for a in range(b, n):
                        Mk[jind[a]] = stamp
            prev = r
        if quad:
            Dr = D[r]
            for a in range(n):
                i = jind[a]
                scl = Jr[i] * Dr
                Hi = H[i]
                for b in range(a + 1):
                    k = jind[b]
                    Hi[k] += Jr[k] * scl
    for ii in range(nv):
        i = dofs[ii]
        adr = M_rowadr[i]
        Hi = H[ii]
        for t in range(M_rownnz[i]):
            k = ii - (i - M_colind[adr + t])
            Hi[k] += M[adr + t]
            if pattern:
                S[MK + k, ii] = stamp
    if pattern:
        _symbolic(S, nv, stamp)


@njit(cache=True)
def _symbolic(S, nv, stamp):
    """The reverse-Cholesky pattern of the marked H (mju_cholFactorSymbolic: rows from the last, the upper
    triangle's columns ascending, each walked up the elimination tree until a row already flagged)."""
    MK, LS, LTN, PAR, FLG = rows(nv)
    PS = 3 * nv + 5
    start, ltn, parent, flag = S[LS], S[LTN], S[PAR], S[FLG]
    for r in range(nv - 1, -1, -1):
        parent[r] = -1
        flag[r] = r
        S[r, nv - 1] = r
        start[r] = nv - 1
        S[nv + r, 0] = r
        ltn[r] = 1
        mark = S[MK + r]
        for i0 in range(r + 1, nv):
            if mark[i0] != stamp:
                continue
            i = i0
            while flag[i] != r:
                if parent[i] == -1:
                    parent[i] = r
                s = start[i] - 1
                start[i] = s
                S[i, s] = r
                S[nv + r, ltn[r]] = i
                S[PS + r, ltn[r]] = s
                ltn[r] += 1
                flag[i] = r
                i = parent[i]


@njit(cache=True)
def chol_factor_sparse(a, S, nv, mindiag):
    """In place: the lower triangle of a holding H becomes L with H = L'L on the symbolic pattern, diagonal
    clamped to mindiag; returns the rank (mju_cholFactorNumeric: row r less L[c, r] times row c up to column r
    for each row c below in column r's order, then scaled)."""
    LS, LTN, PS = 3 * nv, 3 * nv + 1, 3 * nv + 5
    rank = nv
    for r in range(nv - 1, -1, -1):
        for k in range(1, S[LTN, r]):
            c = S[nv + r, k]
            Lcr = a[c, r]
            for t in range(S[LS, c], S[PS + r, k] + 1):
                j = S[c, t]
                a[r, j] -= Lcr * a[c, j]
        diag = a[r, r]
        if diag < mindiag:
            diag = mindiag
            rank -= 1
        Lrr = math.sqrt(diag)
        inv = 1.0 / Lrr
        for t in range(S[LS, r], nv - 1):
            j = S[r, t]
            a[r, j] = a[r, j] * inv
        a[r, r] = Lrr
    return rank


@njit(cache=True)
def chol_update_sparse(a, S, x, nv, plus):
    """Rank-1 update (plus) or downdate of L'L by x x' (x (nv,) dense, overwritten) within the pattern, by
    Givens rotations from x's last nonzero row up; returns the rank, diagonal clamped to MINVAL
    (mju_cholUpdateSparse)."""
    start = S[3 * nv]
    top = nv - 1
    while top >= 0 and x[top] == 0.0:
        top -= 1
    rank = nv
    for row in range(top, -1, -1):
        xr = x[row]
        if xr == 0.0:
            continue
        ar = a[row]
        diag = ar[row]
        tmp = diag * diag + (xr * xr if plus else -xr * xr)
        if tmp < MINVAL:
            tmp = MINVAL
            rank -= 1
        r = math.sqrt(tmp)
        ar[row] = r
        c = diag / r
        s = -xr / r
        ss = -s if plus else s
        Lr = S[row]
        for t in range(start[row], nv - 1):
            j = Lr[t]
            xj = x[j]
            v = ar[j]
            ar[j] = c * v + ss * xj
            x[j] = s * v + c * xj
    return rank


@njit(cache=True)
def chol_solve_sparse(a, S, nv, b, x):
    """x (nv,) = (L'L)^-1 b (mju_cholSolveSparse: L^-T from the last row, skipping zeros, then L^-1 with
    mju_dotSparse's four partial sums); x may alias b."""
    start = S[3 * nv]
    for i in range(nv):
        x[i] = b[i]
    for i in range(nv - 1, -1, -1):
        if x[i] != 0.0:
            ai = a[i]
            x[i] /= ai[i]
            tmp = x[i]
            Li = S[i]
            for t in range(start[i], nv - 1):
                j = Li[t]
                x[j] -= ai[j] * tmp
    for i in range(nv):
        ai = a[i]
        st = start[i]
        n = nv - 1 - st
        if n > 0:
            x[i] -= dot_idx(ai, S[i], st, n, x)
        x[i] /= ai[i]
