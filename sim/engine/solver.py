"""Constraint solvers on MuJoCo's convex soft-constraint problem: PGS, CG, Newton, noslip (engine_solver.c).

mj_fwdConstraint: efc_b, warmstart, then per island (sim/engine/island.py; monolithic with DSBL_ISLAND):
- PGS (mj_solPGS): projected Gauss-Seidel on the dual with AR = J M^-1 J' + R (built as Y Y' + R with
  Y = J L^-T D^-1/2, mj_makeY / mj_makeAR), shuffled block order (PCG32, fixed seed), Nesterov momentum with
  gradient restarts, friction-loss boxes, pyramidal non-negativity and elliptic-cone ray + QCQP updates;
  forces mapped back by dualFinish.  Runs on the global rows through the island's row list, as MuJoCo.
- CG / Newton (mj_solPrimal): primal minimisation of Gauss + constraint cost with MuJoCo's exact 1-D Newton
  line search (PrimalSearch / PrimalEval), Hager-Zhang CG directions preconditioned by M^-1, Newton directions
  from the Cholesky factor of H = M + J'DJ, updated by rank-1 Cholesky up/downdates when constraints
  change state (HessianIncremental), elliptic cones added as rank-1 updates of a copy (HessianCone).  The factor
  is dense, or in MuJoCo's sparse mode (nv >= 60 or jacobian="sparse", feature F_SPARSE) reverse-order on the
  pattern of M + J'J (sim/engine/solver_sparse.py).
  Works on contiguous island-local arrays as MuJoCo's mjPrimalContext: an island covering every dof and row
  uses the global arrays in place, other islands are gathered into scr_slv_* first and scattered back.
- noslip (mj_solNoSlip, feature F_NOSLIP): after the main solver, Gauss-Seidel sweeps on the dual without the
  regularizer R over the friction dimensions only (friction-loss rows, pairs of opposing pyramid edges, the
  tangential block of elliptic cones by QCQP), per island as MuJoCo; then dualFinish as PGS.
- The dual solvers' AR: dense (scr_slv_AR) when the problem's rows fit its capacity, else computed on the fly
  (MuJoCo allocates an nefc^2 AR per step, or a sparse one in its sparse mode): Y = J L^-T D^-1/2 rows in
  scr_slv_J, the entries of AR by the same sums as the dense AR (so the diagonal blocks are the same numbers),
  and the residual rows AR f as Y (Y' f) + R f with z = Y' f kept up to date as the forces change.
Small dense kernels follow MuJoCo's operation order (mju_dot's four partial sums, mju_cholFactor /
mju_cholSolve / mju_cholUpdate, mju_mulSymVecSparse), so results match MuJoCo to the last bit where the
inputs do.  efc_J is dense (njmax, nv); in the sparse mode the solvers' J products run over each row's structural
pattern (MuJoCo's efc_J_colind, kept by the constraint assembly in scr_slv_Jind), as MuJoCo's sparse products.  Elliptic-cone work is compiled only with F_ELLIPTIC.  Scratch lives in the scr_slv_*
fields (sim/types.py, section SOLVER).
"""

import math

import numpy as np
from llvmlite import ir as llir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from sim.jit import njit
from sim.jit.simd import LANES, LaneArrayType, vec, where, any_true, all_true, lnot

from sim.constants import NISLAND, MJ_NSOLVER
from sim.engine.island import island
from sim.engine.crb import dot_sparse_off
from sim.jit.features import call_if, call_either, F_PGS, F_PRIMAL, F_SPARSE, F_ELLIPTIC, F_NOSLIP
from sim.engine.com import is_sparse
from sim.engine import solver_sparse as _sp
from sim.engine.solver_sparse import has_lists
from sim.constants import (
    OPT_DISABLE,
    OPT_SOLVER,
    OPT_ITERATIONS,
    OPT_LS_ITERATIONS,
    OPT_TOLERANCE,
    OPT_LS_TOLERANCE,
    OPT_CONE,
    OPT_NOSLIP_ITERATIONS,
    OPT_NOSLIP_TOLERANCE,
    DSBL_WARMSTART,
    SOL_PGS,
    SOL_NEWTON,
    CONE_ELLIPTIC,
    CNSTR_CONTACT_PYRAMIDAL,
    CNSTR_CONTACT_ELLIPTIC,
    CNSTRSTATE_SATISFIED,
    CNSTRSTATE_QUADRATIC,
    CNSTRSTATE_LINEARNEG,
    CNSTRSTATE_LINEARPOS,
    CNSTRSTATE_CONE,
    MINVAL,
)

# rows of scr_slv_nv (nv each): primal vectors, island-local dof vectors, Cholesky update scratch, 6 LTJ rows
(
    _MA,
    _MV,
    _GRAD,
    _MGRAD,
    _SEARCH,
    _GRADOLD,
    _MGRADOLD,
    _GRADDIF,
    _MGRADDIF,
    _TMP,
    _IQFS,
    _IQAS,
    _IQACC,
    _IQFC,
    _CHOLUPD,
    _LTJ,
) = range(16)
# rows of scr_slv_efc (njmax each): primal / PGS vectors, then the island-local efc vectors
_JAREF, _JV, _DIAG, _FPREV, _FMOM, _ID, _IR, _IFL, _IAREF, _IFORCE = range(10)
# PGS visiting orders kept per world (scr_pgs_order rows, sol_pgs)
_PGS_ORDER_ROWS = 100
# rows of scr_slv_int (njmax each): old states, PGS block starts, island-local type / id / state
_OLDSTATE, _BLOCK, _ITYPE, _IID, _ISTATE = range(5)
# the count of each row's entries in the sparse AR's pattern (mark_ar_pattern), for the dual solvers (which leave
# the primal solvers' old states alone)
_ARNNZ = _OLDSTATE
# z = Y' efc_force of the dual solvers' AR on the fly: a primal row, free while PGS / noslip run
_Z = _MA


# ------------------------------------------------------------------------------------------------
# small linear algebra (mju_* equivalents, MuJoCo's operation order)


@intrinsic
def _lanes4(typingctx, a, a0, b, b0, n4):
    """(r0 + r2) + (r1 + r3) where lane r_q sums a[a0+4g+q] * b[b0+4g+q] over the n4 // 4 groups g in order:
    mju_dot's four partial sums (MuJoCo's AVX kernel keeps them in one 4-wide register), computed on <4 x double>
    vectors (each lane the same sequence of IEEE multiplies and adds as the scalar loop, so bitwise equal).
    a, b: contiguous float64 arrays, or the LaneArrays of a block (each element a Vec: four Vec partial sums)."""
    if isinstance(a, LaneArrayType) and isinstance(b, LaneArrayType) and a.ndim == 1 and b.ndim == 1:

        def lane_codegen(context, builder, sig, args):
            vt = llir.VectorType(llir.DoubleType(), LANES)
            la = cgutils.create_struct_proxy(sig.args[0])(context, builder, value=args[0])
            lb = cgutils.create_struct_proxy(sig.args[2])(context, builder, value=args[2])
            lanes = llir.Constant(args[1].type, LANES)
            acc = [cgutils.alloca_once_value(builder, llir.Constant(vt, [0.0] * LANES)) for _ in range(4)]
            ngroup = builder.sdiv(args[4], llir.Constant(args[4].type, 4))
            with cgutils.for_range(builder, ngroup) as loop:
                base = builder.mul(loop.index, llir.Constant(loop.index.type, 4))
                for q in range(4):
                    i = builder.add(base, llir.Constant(base.type, q))
                    pa = builder.gep(la.data, [builder.mul(builder.add(args[1], i), lanes)])
                    pb = builder.gep(lb.data, [builder.mul(builder.add(args[3], i), lanes)])
                    va = builder.load(builder.bitcast(pa, vt.as_pointer()), align=8)
                    vb = builder.load(builder.bitcast(pb, vt.as_pointer()), align=8)
                    builder.store(builder.fadd(builder.load(acc[q]), builder.fmul(va, vb)), acc[q])
            r = [builder.load(x) for x in acc]
            return builder.fadd(builder.fadd(r[0], r[2]), builder.fadd(r[1], r[3]))

        return vec(a, types.int64, b, types.int64, types.int64), lane_codegen
    if not (isinstance(a, types.Array) and isinstance(b, types.Array) and a.layout == "C" and b.layout == "C"):
        return None

    def codegen(context, builder, sig, args):
        aa = context.make_array(sig.args[0])(context, builder, args[0])
        ba = context.make_array(sig.args[2])(context, builder, args[2])
        v4 = llir.VectorType(llir.DoubleType(), 4)
        pa = builder.gep(aa.data, [args[1]])
        pb = builder.gep(ba.data, [args[3]])
        acc = cgutils.alloca_once_value(builder, llir.Constant(v4, [0.0] * 4))
        ngroup = builder.sdiv(args[4], llir.Constant(args[4].type, 4))
        with cgutils.for_range(builder, ngroup) as loop:
            off = builder.mul(loop.index, llir.Constant(loop.index.type, 4))
            va = builder.load(builder.bitcast(builder.gep(pa, [off]), v4.as_pointer()), align=8)
            vb = builder.load(builder.bitcast(builder.gep(pb, [off]), v4.as_pointer()), align=8)
            builder.store(builder.fadd(builder.load(acc), builder.fmul(va, vb)), acc)
        r = builder.load(acc)
        lane = [builder.extract_element(r, llir.Constant(llir.IntType(32), q)) for q in range(4)]
        return builder.fadd(builder.fadd(lane[0], lane[2]), builder.fadd(lane[1], lane[3]))

    return types.float64(a, types.int64, b, types.int64, types.int64), codegen


@njit(cache=True)
def dot_scalar(a, b, n):
    """_dot on scalar registers.  For PGS residuals: each block update stores one force element that the next
    residual reads back, and a 4-wide load of a just-stored scalar cannot be store-forwarded (measured: humanoid
    step 1.12x -> 1.31x MuJoCo's time with the vector dot there)."""
    r0 = 0.0
    r1 = 0.0
    r2 = 0.0
    r3 = 0.0
    i = 0
    while i <= n - 4:
        r0 += a[i] * b[i]
        r1 += a[i + 1] * b[i + 1]
        r2 += a[i + 2] * b[i + 2]
        r3 += a[i + 3] * b[i + 3]
        i += 4
    res = (r0 + r2) + (r1 + r3)
    k = n - i
    if k == 3:
        res += a[i] * b[i] + a[i + 1] * b[i + 1] + a[i + 2] * b[i + 2]
    elif k == 2:
        res += a[i] * b[i] + a[i + 1] * b[i + 1]
    elif k == 1:
        res += a[i] * b[i]
    return res


@njit(cache=True)
def _dot(a, b, n):
    """a[:n] . b[:n] summed in mju_dot's order (4 interleaved partial sums, then the tail)."""
    return _dot_at(a, 0, b, 0, n)


@njit(cache=True)
def _dot_at(a, a0, b, b0, n):
    """a[a0:a0+n] . b[b0:b0+n] in mju_dot's order (offsets instead of slices)."""
    res = _lanes4(a, a0, b, b0, n)
    i = n - (n & 3)
    k = n & 3
    if k == 3:
        res += a[a0 + i] * b[b0 + i] + a[a0 + i + 1] * b[b0 + i + 1] + a[a0 + i + 2] * b[b0 + i + 2]
    elif k == 2:
        res += a[a0 + i] * b[b0 + i] + a[a0 + i + 1] * b[b0 + i + 1]
    elif k == 1:
        res += a[a0 + i] * b[b0 + i]
    return res


@njit(cache=True, always_inline=True)
def mul_j(J, x, out, nefc, nv):
    """out[:nefc] = J[:nefc, :nv] x (mju_mulMatVec)."""
    for r in range(nefc):
        out[r] = _dot(J[r], x, nv)


@njit(cache=True)
def mul_jt(J, f, out, nefc, nv):
    """out[:nv] = J[:nefc, :nv]' f, rows with f = 0 skipped (mju_mulMatTVec)."""
    for k in range(nv):
        out[k] = 0.0
    for r in range(nefc):
        fr = f[r]
        nz = fr != 0.0
        if any_true(nz):
            Jr = J[r]
            for k in range(nv):
                out[k] = where(nz, out[k] + Jr[k] * fr, out[k])


@njit(cache=True, always_inline=True)
def mul_m(m, d, w, x, out, dofs, nv):
    """out[:nv] = M x on an island's dofs (island-local vectors; dofs[ii] its global dof), mju_mulSymVecSparse.

    Island dofs are whole trees in ascending order, so M's column c of global row i is local ii - (i - c)."""
    M = d.M[w]
    rowadr, rownnz, colind = m.M_rowadr, m.M_rownnz, m.M_colind
    for ii in range(nv):
        out[ii] = 0.0
    for ii in range(nv):
        i = dofs[ii]
        adr = rowadr[i]
        diag = rownnz[i] - 1
        xi = x[ii]
        s = M[adr + diag] * xi
        for k in range(diag - 1, -1, -1):
            jj = ii - (i - colind[adr + k])
            v = M[adr + k]
            s += v * x[jj]
            out[jj] += v * xi
        out[ii] = s


@njit(cache=True, always_inline=True)
def solve_m_local(m, d, w, x, dofs, nv):
    """x[:nv] <- M^-1 x on an island's dofs with the global factor qLD (mj_solveLD on the island block)."""
    qld = d.qLD[w]
    dinv = d.qLDiagInv[w]
    rowadr, rownnz, colind = m.M_rowadr, m.M_rownnz, m.M_colind
    for ii in range(nv - 1, -1, -1):
        i = dofs[ii]
        if rownnz[i] == 1:
            continue
        xi = x[ii]
        nz = xi != 0.0
        if any_true(nz):
            adr = rowadr[i]
            for a in range(adr, adr + rownnz[i] - 1):
                c = ii - (i - colind[a])
                x[c] = where(nz, x[c] - qld[a] * xi, x[c])
    for ii in range(nv):
        x[ii] *= dinv[dofs[ii]]
    for ii in range(nv):
        i = dofs[ii]
        n = rownnz[i] - 1
        if n > 0:
            x[ii] -= dot_sparse_off(qld, rowadr[i], x, ii - i, n, colind)


@njit(cache=True)
def chol_factor(a, n, mindiag):
    """In-place dense Cholesky of the lower triangle of a (n, n), diagonal clamped to mindiag (mju_cholFactor)."""
    rank = n
    for j in range(n):
        aj = a[j]
        t = aj[j]
        if j:
            t -= _dot(aj, aj, j)
        deficient = t < mindiag
        t = where(deficient, mindiag, t)
        rank = rank - where(deficient, 1, 0)
        aj[j] = math.sqrt(t)
        if all_true(deficient):
            for i in range(j + 1, n):
                a[i, j] = 0.0
        else:
            inv = 1.0 / aj[j]
            for i in range(j + 1, n):
                ai = a[i]
                ai[j] = where(deficient, 0.0, (ai[j] - _dot(ai, aj, j)) * inv)
    return rank


@njit(cache=True)
def chol_solve(a, n, b, x):
    """x (n,) = (L L')^-1 b with L the lower factor in a (mju_cholSolve); x may alias b."""
    for i in range(n):
        x[i] = b[i]
    for i in range(n):
        if i:
            x[i] -= _dot(a[i], x, i)
        x[i] /= a[i, i]
    for i in range(n - 1, -1, -1):
        s = x[i]
        for j in range(i + 1, n):
            s -= a[j, i] * x[j]
        x[i] = s / a[i, i]


@njit(cache=True)
def chol_update(a, x, n, plus):
    """Rank-1 update (plus) or downdate of the lower Cholesky factor in a by x (n,), x overwritten; returns
    the rank, diagonal clamped to MINVAL (mju_cholUpdate).  plus: a bool, or a Mask (update or downdate per lane)."""
    rank = n
    for k in range(n):
        xk = x[k]
        nz = xk != 0.0
        if any_true(nz):
            Lkk = a[k, k]
            t = Lkk * Lkk + where(plus, xk * xk, -xk * xk)
            low = t < MINVAL
            t = where(low, MINVAL, t)
            rank = rank - where(nz & low, 1, 0)
            r = math.sqrt(t)
            c = r / Lkk
            cinv = 1.0 / c
            s = xk / Lkk
            a[k, k] = where(nz, r, Lkk)
            if all_true(plus):
                for i in range(k + 1, n):
                    a[i, k] = where(nz, (a[i, k] + s * x[i]) * cinv, a[i, k])
            elif not any_true(plus):
                for i in range(k + 1, n):
                    a[i, k] = where(nz, (a[i, k] - s * x[i]) * cinv, a[i, k])
            else:
                for i in range(k + 1, n):
                    a[i, k] = where(nz, where(plus, (a[i, k] + s * x[i]) * cinv, (a[i, k] - s * x[i]) * cinv), a[i, k])
            for i in range(k + 1, n):
                x[i] = where(nz, c * x[i] - s * a[i, k], x[i])
    return rank


# ------------------------------------------------------------------------------------------------
# constraint state / cost (mj_constraintUpdate_impl, engine_core_constraint.c)


@njit(cache=True)
def _tangent_norm(v, i, fr, dim, scale):
    """mju_norm of the tangential part of a cone, v[i+1:i+dim] times (scale) or divided by fr[:dim-1] (mju_dot's
    order for dim - 1 <= 5 terms: partial sums over the first four, then the fifth)."""
    u1 = v[i + 1] * fr[0] if scale else v[i + 1] / fr[0]
    u2 = 0.0
    u3 = 0.0
    u4 = 0.0
    if dim > 2:
        u2 = v[i + 2] * fr[1] if scale else v[i + 2] / fr[1]
    if dim > 3:
        u3 = v[i + 3] * fr[2] if scale else v[i + 3] / fr[2]
    if dim > 4:
        u4 = v[i + 4] * fr[3] if scale else v[i + 4] / fr[3]
    if dim >= 5:
        T2 = (u1 * u1 + u3 * u3) + (u2 * u2 + u4 * u4)
        if dim == 6:
            u5 = v[i + 5] * fr[4] if scale else v[i + 5] / fr[4]
            T2 += u5 * u5
    elif dim == 4:
        T2 = u1 * u1 + u2 * u2 + u3 * u3
    elif dim == 3:
        T2 = u1 * u1 + u2 * u2
    else:
        T2 = u1 * u1
    return math.sqrt(T2)


@njit(cache=True)
def constraint_update(jar, D, R, floss, typ, eid, cmu, cfr, cdim, cH, force, state, ne, nf, nefc, flg_cone_hessian):
    """efc_force / efc_state of rows 0..nefc-1 (ne equality, nf friction first) and the cost s(jar) for
    jar = J qacc - aref; cone Hessians in cH (the world's contact_H) (mj_constraintUpdate_impl).

    The row arrays are the world's efc_* rows or an island's gathered rows; cmu / cfr / cdim / cH are the
    world's contact_mu / friction / dim / H indexed by efc_id."""
    s = 0.0
    for i in range(nefc):
        force[i] = -D[i] * jar[i]
    i = 0
    while i < nefc:
        if i < ne:
            s += 0.5 * D[i] * jar[i] * jar[i]
            state[i] = CNSTRSTATE_QUADRATIC
        elif i < ne + nf:
            if jar[i] <= -R[i] * floss[i]:
                s += -0.5 * R[i] * floss[i] * floss[i] - floss[i] * jar[i]
                force[i] = floss[i]
                state[i] = CNSTRSTATE_LINEARNEG
            elif jar[i] >= R[i] * floss[i]:
                s += -0.5 * R[i] * floss[i] * floss[i] + floss[i] * jar[i]
                force[i] = -floss[i]
                state[i] = CNSTRSTATE_LINEARPOS
            else:
                s += 0.5 * D[i] * jar[i] * jar[i]
                state[i] = CNSTRSTATE_QUADRATIC
        elif typ[i] != CNSTR_CONTACT_ELLIPTIC:
            if jar[i] >= 0:
                force[i] = 0.0
                state[i] = CNSTRSTATE_SATISFIED
            else:
                s += 0.5 * D[i] * jar[i] * jar[i]
                state[i] = CNSTRSTATE_QUADRATIC
        else:
            con = eid[i]
            mu = cmu[con]
            fr = cfr[con]
            dim = cdim[con]
            # regular dual cone coordinates U = diag(mu, friction) jar; N normal, T tangent norm (mju_norm)
            N = jar[i] * mu
            T = _tangent_norm(jar, i, fr, dim, True)
            if N >= mu * T or (T <= 0 and N >= 0):
                for j in range(dim):
                    force[i + j] = 0.0
                st = CNSTRSTATE_SATISFIED
            elif mu * N + T <= 0 or (T <= 0 and N < 0):
                for j in range(dim):
                    s += 0.5 * D[i + j] * jar[i + j] * jar[i + j]
                st = CNSTRSTATE_QUADRATIC
            else:
                # middle zone: cost 0.5 Dm (N - mu T)^2, Dm = D0 / (mu^2 (1 + mu^2))
                Dm = D[i] / (mu * mu * (1 + mu * mu))
                NmT = N - mu * T
                s += 0.5 * Dm * NmT * NmT
                force[i] = -Dm * NmT * mu
                for j in range(1, dim):
                    force[i + j] = -force[i] / T * (jar[i + j] * fr[j - 1]) * fr[j - 1]
                st = CNSTRSTATE_CONE
                if flg_cone_hessian:
                    H = cH[con]
                    scl = -mu / T
                    H[0] = 1.0
                    for j in range(1, dim):
                        H[j] = scl * (jar[i + j] * fr[j - 1])
                    scl = mu * N / (T * T * T)
                    for k in range(1, dim):
                        for j in range(k, dim):
                            H[k * dim + j] = scl * (jar[i + j] * fr[j - 1]) * (jar[i + k] * fr[k - 1])
                    scl = mu * mu - mu * N / T
                    for j in range(1, dim):
                        H[j * (dim + 1)] += scl
                    for k in range(dim):
                        sk = Dm * (mu if k == 0 else fr[k - 1])
                        for j in range(k, dim):
                            H[k * dim + j] *= sk * (mu if j == 0 else fr[j - 1])
                    for k in range(dim):
                        for j in range(k + 1, dim):
                            H[j * dim + k] = H[k * dim + j]
            for j in range(dim):
                state[i + j] = st
            i += dim
            continue
        i += 1
    return s


@njit(cache=True, always_inline=True)
def _update_rows(m, d, w, jar, flg_cone_hessian):
    """constraint_update on every efc row of world w (efc_force, efc_state); returns the constraint cost."""
    return constraint_update(
        jar,
        d.efc_D[w],
        d.efc_R[w],
        d.efc_frictionloss[w],
        d.efc_type[w],
        d.efc_id[w],
        d.contact_mu[w],
        d.contact_friction[w],
        d.contact_dim[w],
        d.contact_H[w],
        d.efc_force[w],
        d.efc_state[w],
        d.ne[w],
        d.nf[w],
        d.nefc[w],
        flg_cone_hessian,
    )


@njit(cache=True)
def constraint_update_world(m, d, w, jar, flg_cone_hessian, spj, F):
    """constraint_update on every efc row of world w, then qfrc_constraint = J' efc_force
    (mj_constraintUpdate); returns the constraint cost.  spj: over J's structural row lists (scr_slv_Jind)."""
    nefc = d.nefc[w]
    cost = _update_rows(m, d, w, jar, flg_cone_hessian)
    if spj:
        _mul_jt_sp(
            F, d.efc_J[w], d.scr_slv_Jind[w], d.scr_isl_int[w, 0], d.efc_force[w], d.qfrc_constraint[w], nefc, m.nv
        )
    else:
        mul_jt(d.efc_J[w], d.efc_force[w], d.qfrc_constraint[w], nefc, m.nv)
    return cost


# ------------------------------------------------------------------------------------------------
# statistics


@njit(cache=True, always_inline=True)
def inertia_scale(m, d, w, dofs, nv):
    """1 / (sum of the diagonal of M over the listed dofs): scaling of the improvement / gradient statistics.

    MuJoCo 3.17 (installed) scales by the summed diagonal of the current M (the island formula of
    mj_solPrimal) also for the monolithic solve; measured: ratio to 1/(meaninertia nv) matches exactly."""
    s = 0.0
    M = d.M[w]
    for ii in range(nv):
        i = dofs[ii]
        s += M[m.M_rowadr[i] + m.M_rownnz[i] - 1]
    return 1.0 / s


@njit(cache=True)
def _save_stats(d, w, isl, it, improvement, gradient, lineslope, nactive, nchange, neval, nupdate, act):
    """Store one iteration's mjSolverStat of island isl (-1: monolithic, stored as island 0) (saveStats), in the
    lanes act (True for one world)."""
    isl = max(isl, 0)
    if isl >= NISLAND or it >= MJ_NSOLVER:
        return
    k = isl * MJ_NSOLVER + it
    d.solver_improvement[w, k] = where(act, improvement, d.solver_improvement[w, k])
    d.solver_gradient[w, k] = where(act, gradient, d.solver_gradient[w, k])
    d.solver_lineslope[w, k] = where(act, lineslope, d.solver_lineslope[w, k])
    d.solver_nactive[w, k] = where(act, nactive, d.solver_nactive[w, k])
    d.solver_nchange[w, k] = where(act, nchange, d.solver_nchange[w, k])
    d.solver_neval[w, k] = where(act, neval, d.solver_neval[w, k])
    d.solver_nupdate[w, k] = where(act, nupdate, d.solver_nupdate[w, k])


@njit(cache=True)
def _add_niter(d, w, isl, it):
    """Accumulate the iteration count of island isl (-1: monolithic = island 0)."""
    isl = max(isl, 0)
    if isl < NISLAND:
        d.solver_niter_island[w, isl] += it
        if isl == 0:
            d.solver_niter[w] += it


# ------------------------------------------------------------------------------------------------
# warmstart (mj_fwdConstraint's warmstart, engine_forward.c) and the dual matrix AR


@njit(cache=True, always_inline=True)
def _jar(d, w, J, x, aref, out, nefc, nv, spj, F):
    """out[:nefc] = J x - aref of the world's rows, over their structural lists (scr_slv_Jind) when spj (MuJoCo's
    sparse mode: mju_mulMatVecSparse), else in mju_mulMatVec's order."""
    if spj:
        _mul_j_sp(F, J, d.scr_slv_Jind[w], d.scr_isl_int[w, 0], x, out, nefc)
        for i in range(nefc):
            out[i] -= aref[i]
    else:
        jar_dense(J, x, aref, out, nefc, nv)


@njit(cache=True, always_inline=True)
def jar_dense(J, x, aref, out, nefc, nv):
    """out[:nefc] = J x - aref over dense rows, in mju_mulMatVec's order (lane-safe)."""
    for i in range(nefc):
        out[i] = _dot(J[i], x, nv)
        out[i] -= aref[i]


@njit(cache=True)
def ar_mul(m, d, w, f, out, nefc):
    """out[:nefc] = AR f: by the dense AR's rows (mju_mulMatVec), or on the fly as Y (Y' f) + R f."""
    if ar_dense(d, nefc):
        AR = d.scr_slv_AR[w]
        if ar_sparse(m, d):
            # mju_mulMatVecSparse over the sparse AR's pattern
            cnt = d.scr_slv_int[w, _ARNNZ]
            for i in range(nefc):
                out[i] = dot_pattern(AR[i], f, nefc, cnt[i])
        else:
            for i in range(nefc):
                out[i] = _dot(AR[i], f, nefc)
    else:
        Y, ylo, yhi, z, R = d.scr_slv_J[w], d.scr_slv_yr[w, 0], d.scr_slv_yr[w, 1], d.scr_slv_nv[w, _Z], d.efc_R[w]
        iota = d.scr_isl_int[w, 0]
        z_compute(Y, ylo, yhi, z, f, iota, nefc, iota, m.nv)
        for i in range(nefc):
            out[i] = y_dot(Y, ylo, yhi, z, i) + R[i] * f[i]


@njit(cache=True)
def pgs_setup(m, d, w):
    """PGS's part of mj_fwdConstraint after warmstart: AR (make_dual), then the warmstart forces' dual cost
    f'b + 0.5 f'AR f, the forces (and qfrc_constraint) zeroed if it is positive (warmstart, PGS branch).  AR
    was made in the position stage (project_dual)."""
    if int(m.opt[OPT_DISABLE]) & DSBL_WARMSTART:
        return
    nefc, nv = d.nefc[w], m.nv
    force, ARf = d.efc_force[w], d.scr_slv_efc[w, _FPREV]
    c = _dot(force, d.efc_b[w], nefc)
    ar_mul(m, d, w, force, ARf, nefc)
    c += 0.5 * _dot(force, ARf, nefc)
    if c > 0:
        for i in range(nefc):
            force[i] = 0.0
        qfc = d.qfrc_constraint[w]
        for i in range(nv):
            qfc[i] = 0.0


@njit(cache=True)
def warmstart(m, d, w, spj, F):
    """Initial qacc (and efc_force for PGS): best of qacc_warmstart and qacc_smooth; with islands,
    unconstrained dofs restart at qacc_smooth.  spj: J products over the row lists in scr_slv_Jind."""
    nv, nefc = m.nv, d.nefc[w]
    qacc, qs = d.qacc[w], d.qacc_smooth[w]
    force = d.efc_force[w]
    if int(m.opt[OPT_DISABLE]) & DSBL_WARMSTART:
        for i in range(nv):
            qacc[i] = qs[i]
        for i in range(nefc):
            force[i] = 0.0
        return
    qw = d.qacc_warmstart[w]
    pgs = int(m.opt[OPT_SOLVER]) == SOL_PGS
    if not pgs and not spj and not (d.nisland[w] > 0 and d.nidof[w] < nv):
        # a primal solver on every row and dof at once (the solvers' in-place case): the lane-safe form, which the
        # block solver runs for a block's lanes (sim/engine/batch/solver.py)
        warmstart_primal(m, d, w, _world_ctx(m, d, w, d.efc_state[w]), qw, d.efc_b[w], F)
        return
    for i in range(nv):
        qacc[i] = qw[i]
    jar = d.scr_slv_efc[w, _JAREF]
    J = d.efc_J[w]
    aref = d.efc_aref[w]
    _jar(d, w, J, qw, aref, jar, nefc, nv, spj, F)
    if pgs:
        # efc_force from qacc_warmstart; their dual cost is checked by pgs_setup
        constraint_update_world(m, d, w, jar, False, spj, F)
    else:
        # mj_constraintUpdate's qfrc_constraint = J' efc_force: the primal solvers compute it again from their own
        # forces for every dof of an island before anyone reads it, so only dofs outside every island keep it,
        # from the second call.  There it is 0 unless a force is not finite (0 * nan): a diverging world's nan
        # reaches qacc through it in the implicit integrators, as in MuJoCo (tests/test_faults.py)
        cost_ws = _update_rows(m, d, w, jar, False)
        Ma = d.scr_slv_nv[w, _MA]
        mul_m(m, d, w, qw, Ma, d.scr_isl_int[w, 0], nv)
        qfs = d.qfrc_smooth[w]
        for i in range(nv):
            cost_ws += 0.5 * (Ma[i] - qfs[i]) * (qw[i] - qs[i])
        if d.nisland[w] > 0 and d.nidof[w] < nv:
            cost_smooth = constraint_update_world(m, d, w, d.efc_b[w], False, spj, F)
        else:
            cost_smooth = _update_rows(m, d, w, d.efc_b[w], False)
        if cost_ws > cost_smooth:
            for i in range(nv):
                qacc[i] = qs[i]
    if d.nisland[w] > 0:
        i2d = d.map_idof2dof[w]
        for i in range(d.nidof[w], nv):
            qacc[i2d[i]] = qs[i2d[i]]


@njit(cache=True)
def _ctx_update_cone(m, d, w, ctx, jar):
    """constraint_update on ctx's rows (efc_force / state), elliptic cones included; returns the cost."""
    return constraint_update(
        jar,
        ctx[1],
        ctx[2],
        ctx[3],
        ctx[5],
        ctx[6],
        d.contact_mu[w],
        d.contact_friction[w],
        d.contact_dim[w],
        d.contact_H[w],
        ctx[7],
        ctx[8],
        ctx[14],
        ctx[15],
        ctx[16],
        False,
    )


@njit(cache=True)
def _ctx_update_pyramidal(m, d, w, ctx, jar):
    """constraint_update_pyramidal on ctx's rows (lane-safe); returns the cost."""
    return constraint_update_pyramidal(jar, ctx[1], ctx[2], ctx[3], ctx[7], ctx[8], ctx[14], ctx[15], ctx[16])


_ctx_update = call_either(F_ELLIPTIC, _ctx_update_cone, _ctx_update_pyramidal)


@njit(cache=True)
def warmstart_primal(m, d, w, ctx, qw, b, F):
    """The warmstart of a primal solver on a context of every row and dof (a world, or the lanes of a block:
    lane-safe): qacc = qacc_warmstart qw, or qacc_smooth when the cost of qw (constraint cost + Gauss) is above
    that of qacc_smooth, whose forces and states are left in ctx's efc_force / state (mj_fwdConstraint's
    warmstart).  b: efc_b = J qacc_smooth - aref."""
    J, aref, qfs, qs, qacc, dofs, nefc, nv = ctx[0], ctx[4], ctx[9], ctx[10], ctx[11], ctx[13], ctx[16], ctx[17]
    jar = d.scr_slv_efc[w, _JAREF]
    Ma = d.scr_slv_nv[w, _MA]
    for i in range(nv):
        qacc[i] = qw[i]
    jar_dense(J, qw, aref, jar, nefc, nv)
    cost_ws = _ctx_update(F, m, d, w, ctx, jar)
    mul_m(m, d, w, qw, Ma, dofs, nv)
    for i in range(nv):
        cost_ws += 0.5 * (Ma[i] - qfs[i]) * (qw[i] - qs[i])
    cost_smooth = _ctx_update(F, m, d, w, ctx, b)
    smooth = cost_ws > cost_smooth
    for i in range(nv):
        qacc[i] = where(smooth, qs[i], qacc[i])


@njit(cache=True)
def make_ar(m, d, w):
    """scr_slv_AR (nefc, nefc) = Y Y' + diag(R) with Y = J L^-T D^-1/2 (mj_makeY, mj_makeAR, dense: mj_solveM2
    and mju_sqrMatTD's operation order).  Y is kept transposed (YT (nv, nefc) in scr_slv_J), so the products
    run along contiguous rows of YT, as mju_sqrMatTD does, and so does the solve: all constraint rows at once,
    dof by dof, each row going through the same operations in the same order as a solve of that row alone
    (humanoid, 26 rows: the Y solve 3.3-4.3 -> 1.7-2.1 us, row by row before)."""
    nefc, nv = d.nefc[w], m.nv
    AR = d.scr_slv_AR[w]
    J = d.efc_J[w]
    YT = d.scr_slv_J[w].reshape((nv, d.scr_slv_J.shape[1]))
    qld = d.qLD[w]
    sq = d.scr_slv_nv[w, _TMP]
    rowadr, rownnz, colind, simple = m.M_rowadr, m.M_rownnz, m.M_colind, m.dof_simplenum
    for i in range(nv):
        sq[i] = 1.0 / math.sqrt(qld[rowadr[i] + rownnz[i] - 1])
    for r in range(nefc):
        Jr = J[r]
        for i in range(nv):
            YT[i, r] = Jr[i]
    # x <- L^-T x for every row x of J: dof i (descending) updates its ancestors colind[a] (ascending) by
    # qLD[a] * x[i] where x[i] != 0; only over the rows [lo, hi) between dof i's first and last nonzero (a contact
    # moves few branches of the tree: most of a humanoid's columns are zero, and skipping them halves the solve)
    for i in range(nv - 1, 0, -1):
        if simple[i]:
            continue
        Yi = YT[i]
        lo = 0
        while lo < nefc and Yi[lo] == 0.0:
            lo += 1
        if lo == nefc:
            continue
        hi = nefc
        while Yi[hi - 1] == 0.0:
            hi -= 1
        adr = rowadr[i]
        for a in range(adr, adr + rownnz[i] - 1):
            Yk = YT[colind[a]]
            q = qld[a]
            for r in range(lo, hi):
                yi = Yi[r]
                if yi != 0.0:
                    Yk[r] -= q * yi
    for i in range(nv):
        Yi = YT[i]
        s = sq[i]
        for r in range(nefc):
            Yi[r] = Yi[r] * s
    # AR = Y Y': row i accumulates YT[j, :i+1] * Y[i, j] over dofs j (zero Y[i, j] skipped), mirrored, + R
    for i in range(nefc):
        ARi = AR[i]
        for k in range(i + 1):
            ARi[k] = 0.0
        for j in range(nv):
            Yj = YT[j]
            t = Yj[i]
            if t != 0.0:
                for k in range(i + 1):
                    ARi[k] += Yj[k] * t
        for k in range(i):
            AR[k, i] = ARi[k]
    R = d.efc_R[w]
    for i in range(nefc):
        AR[i, i] += R[i]


@njit(cache=True)
def make_y_rows(m, d, w):
    """Y (nefc, nv) = J L^-T D^-1/2 in the rows of scr_slv_J, each row through the same operations as in make_ar
    (so the same numbers), and scr_slv_yr = the first / last dof where each row is not zero (an empty row: 0, -1):
    the dual solvers' AR on the fly, for problems larger than the dense AR's capacity."""
    nefc, nv = d.nefc[w], m.nv
    J, Y = d.efc_J[w], d.scr_slv_J[w]
    ylo, yhi = d.scr_slv_yr[w, 0], d.scr_slv_yr[w, 1]
    qld = d.qLD[w]
    sq = d.scr_slv_nv[w, _TMP]
    rowadr, rownnz, colind, simple = m.M_rowadr, m.M_rownnz, m.M_colind, m.dof_simplenum
    for i in range(nv):
        sq[i] = 1.0 / math.sqrt(qld[rowadr[i] + rownnz[i] - 1])
    for r in range(nefc):
        Jr, Yr = J[r], Y[r]
        for i in range(nv):
            Yr[i] = Jr[i]
        for i in range(nv - 1, 0, -1):
            if simple[i]:
                continue
            yi = Yr[i]
            if yi != 0.0:
                for a in range(rowadr[i], rowadr[i] + rownnz[i] - 1):
                    Yr[colind[a]] -= qld[a] * yi
        lo = 0
        hi = -1
        for i in range(nv):
            Yr[i] = Yr[i] * sq[i]
            if Yr[i] != 0.0:
                if hi < 0:
                    lo = i
                hi = i
        ylo[r] = lo
        yhi[r] = hi


@njit(cache=True, always_inline=True)
def ar_dense(d, nefc):
    """True when the dense AR (scr_slv_AR) has room for nefc rows; else the dual solvers compute AR on the fly."""
    return d.scr_slv_AR.shape[1] >= nefc


@njit(cache=True, always_inline=True)
def ar_sparse(m, d):
    """True when the dense AR stands for MuJoCo's sparse AR (the sparse mode, the rows' structural lists kept):
    its structural pattern is marked (mark_ar_pattern) and the products over its rows run over the pattern."""
    return is_sparse(m) and has_lists(m, d, True)


@njit(cache=True)
def _share_tree(m, Jind, i, c):
    """True when efc rows i and c touch a common kinematic tree (their structural lists, ascending dofs: the
    trees ascend along them)."""
    a = Jind[i]
    b = Jind[c]
    p = 1
    q = 1
    while p <= a[0] and q <= b[0]:
        ta = m.dof_treeid[a[p]]
        tb = m.dof_treeid[b[q]]
        if ta == tb:
            return True
        if ta < tb:
            p += 1
        else:
            q += 1
    return False


@njit(cache=True)
def mark_ar_pattern(m, d, w, nefc):
    """MuJoCo's sparse AR (mj_makeAR, sparse: mju_sqrMatTDSparse of Y) holds entry (i, c) when Y's rows i and c
    share a dof, i.e. when the rows touch a common tree (Y's pattern is J's closed over the dof ancestors, and
    every dof of a tree descends from its first).  Its values are those of the dense AR (the same products, summed
    over the dofs in the same order); the pattern decides how the products over AR's rows group their terms.  The
    dense AR keeps it: an entry outside the pattern is +0.0 (a sum of exact zeros), one inside that is zero is
    stored as -0.0 (it adds nothing to a sum either); the count of row i's entries goes to scr_slv_int[_ARNNZ]."""
    AR = d.scr_slv_AR[w]
    Jind = d.scr_slv_Jind[w]
    cnt = d.scr_slv_int[w, _ARNNZ]
    lo = d.scr_slv_int[w, _ITYPE]
    hi = d.scr_slv_int[w, _IID]
    for i in range(nefc):
        n = Jind[i, 0]
        lo[i] = m.dof_treeid[Jind[i, 1]] if n else -1
        hi[i] = m.dof_treeid[Jind[i, n]] if n else -2
        cnt[i] = 0
    for i in range(nefc):
        ARi = AR[i]
        for c in range(i + 1):
            if ARi[c] != 0.0:
                cnt[i] += 1
                if c < i:
                    cnt[c] += 1
            elif not (hi[i] < lo[c] or hi[c] < lo[i]) and (
                (lo[i] == hi[i] and lo[c] == hi[c]) or _share_tree(m, Jind, i, c)
            ):
                ARi[c] = -0.0
                AR[c, i] = -0.0
                cnt[i] += 1
                if c < i:
                    cnt[c] += 1


@njit(cache=True)
def dot_pattern(a, x, n, cnt):
    """a . x over the entries of a[:n] in the pattern (nonzero or -0.0; cnt of them), in mju_dotSparse's order:
    four partial sums over the first 4 floor(cnt / 4) pattern entries, reduced (s0 + s2) + (s1 + s3), then the
    rest one by one (scalar registers, as dot_scalar)."""
    r0 = 0.0
    r1 = 0.0
    r2 = 0.0
    r3 = 0.0
    nvec = cnt - (cnt & 3)
    p = 0
    c = 0
    while p < nvec:
        v = a[c]
        if v != 0.0 or math.copysign(1.0, v) < 0:
            q = p & 3
            t = v * x[c]
            if q == 0:
                r0 += t
            elif q == 1:
                r1 += t
            elif q == 2:
                r2 += t
            else:
                r3 += t
            p += 1
        c += 1
    res = (r0 + r2) + (r1 + r3)
    while p < cnt and c < n:
        v = a[c]
        if v != 0.0 or math.copysign(1.0, v) < 0:
            res += v * x[c]
            p += 1
        c += 1
    return res


@njit(cache=True)
def make_dual(m, d, w):
    """What the dual solvers read of AR = J M^-1 J' + R: the dense AR (its sparse pattern marked in the sparse
    mode), or the rows of Y (mj_makeAR)."""
    if ar_dense(d, d.nefc[w]):
        make_ar(m, d, w)
        if ar_sparse(m, d):
            mark_ar_pattern(m, d, w, d.nefc[w])
    else:
        make_y_rows(m, d, w)


@njit(cache=True)
def project_dual(m, d, w):
    """PGS's AR made in the position stage, where mj_projectConstraint makes it (mj_isDual): a step that skips the
    position stage (mj_stepSkip, transition_fd's control and velocity nudges) reuses it.  With noslip after a
    primal solver the noslip stage makes it (noslip_impl)."""
    if int(m.opt[OPT_SOLVER]) == SOL_PGS and d.nefc[w] > 0:
        make_dual(m, d, w)


project_dual_if = call_if(F_PGS, project_dual)


@njit(cache=True)
def ar_entry(Y, ylo, yhi, i, k):
    """(Y Y')[i, k]: the sum over dofs in ascending order, as make_ar's (its skipped terms are zeros)."""
    Yi, Yk = Y[i], Y[k]
    s = 0.0
    for j in range(max(ylo[i], ylo[k]), min(yhi[i], yhi[k]) + 1):
        s += Yk[j] * Yi[j]
    return s


@njit(cache=True, always_inline=True)
def y_dot(Y, ylo, yhi, z, i):
    """Y[i] . z over the row's support (four partial sums, on scalar registers: z changes between calls)."""
    Yi = Y[i]
    lo = ylo[i]
    hi = yhi[i] + 1
    r0 = 0.0
    r1 = 0.0
    r2 = 0.0
    r3 = 0.0
    j = lo
    while j <= hi - 4:
        r0 += Yi[j] * z[j]
        r1 += Yi[j + 1] * z[j + 1]
        r2 += Yi[j + 2] * z[j + 2]
        r3 += Yi[j + 3] * z[j + 3]
        j += 4
    res = (r0 + r2) + (r1 + r3)
    while j < hi:
        res += Yi[j] * z[j]
        j += 1
    return res


@njit(cache=True, always_inline=True)
def z_add(Y, ylo, yhi, z, i, delta):
    """z += Y[i]' delta (a change of efc_force[i])."""
    Yi = Y[i]
    for j in range(ylo[i], yhi[i] + 1):
        z[j] += Yi[j] * delta


@njit(cache=True)
def z_compute(Y, ylo, yhi, z, force, rows, nefc, dofs, nv):
    """z = Y' efc_force over the listed rows, on the listed dofs (an island's; their rows touch no other)."""
    for ii in range(nv):
        z[dofs[ii]] = 0.0
    for c in range(nefc):
        i = rows[c]
        f = force[i]
        if f != 0.0:
            z_add(Y, ylo, yhi, z, i, f)


@njit(cache=True)
def ar_block(AR, Y, ylo, yhi, R, i0, n, out, subR, dense):
    """out (n*n,) = AR[i0:i0+n, i0:i0+n], with R subtracted from the diagonal and that clamped below at 1e-10 if
    subR (extractBlock)."""
    for j in range(n):
        for k in range(n):
            if dense:
                out[j * n + k] = AR[i0 + j, i0 + k]
            elif k < j:
                out[j * n + k] = out[k * n + j]
            else:
                a = ar_entry(Y, ylo, yhi, i0 + j, i0 + k)
                out[j * n + k] = a + R[i0 + j] if k == j else a
    if subR:
        for j in range(n):
            out[j * (n + 1)] -= R[i0 + j]
            out[j * (n + 1)] = max(1e-10, out[j * (n + 1)])


# ------------------------------------------------------------------------------------------------
# PGS (solPGS) and its elliptic-cone helpers


@njit(cache=True)
def _pcg32_next(state):
    """One PCG32 step: (new state, 32-bit output) with increment 1 (pcg32_next)."""
    old = state
    state = old * np.uint64(6364136223846793005) + np.uint64(1)
    x = (((old >> np.uint64(18)) ^ old) >> np.uint64(27)) & np.uint64(0xFFFFFFFF)
    rot = old >> np.uint64(59)
    out = ((x >> rot) | (x << ((np.uint64(32) - rot) & np.uint64(31)))) & np.uint64(0xFFFFFFFF)
    return state, out


@njit(cache=True, always_inline=True)
def _shuffle(a, base, n, rng):
    """Fisher-Yates shuffle of a[base:base+n] with PCG32 draws (shuffle_int); returns the new state."""
    for k in range(n - 1, 0, -1):
        rng, r32 = _pcg32_next(rng)
        j = base + int(r32 % np.uint64(k + 1))
        t = a[base + k]
        a[base + k] = a[j]
        a[j] = t
    return rng


@njit(cache=True, always_inline=True)
def _pcg32_store(meta, rng):
    """Keep a PCG32 state in meta[2:4] (int32 halves)."""
    meta[2] = np.int32(rng & np.uint64(0xFFFFFFFF))
    meta[3] = np.int32(rng >> np.uint64(32))


@njit(cache=True, always_inline=True)
def _pcg32_load(meta):
    """The PCG32 state _pcg32_store kept."""
    return np.uint64(np.uint32(meta[2])) | (np.uint64(np.uint32(meta[3])) << np.uint64(32))


@njit(cache=True)
def _dual_state(m, d, w, rows, ne, nf, nefc):
    """efc_state of the listed rows from the dual forces (dualState); returns (nactive, the number of rows whose
    state changed), counted in the same pass."""
    force, floss, state = d.efc_force[w], d.efc_frictionloss[w], d.efc_state[w]
    typ, eid = d.efc_type[w], d.efc_id[w]
    cdim, cmu, cfr = d.contact_dim[w], d.contact_mu[w], d.contact_friction[w]
    nactive = ne + nf
    nchange = 0
    for c in range(ne):
        i = rows[c]
        nchange += state[i] != CNSTRSTATE_QUADRATIC
        state[i] = CNSTRSTATE_QUADRATIC
    for c in range(ne, ne + nf):
        i = rows[c]
        if force[i] <= -floss[i]:
            st = CNSTRSTATE_LINEARPOS
        elif force[i] >= floss[i]:
            st = CNSTRSTATE_LINEARNEG
        else:
            st = CNSTRSTATE_QUADRATIC
        nchange += state[i] != st
        state[i] = st
    c = ne + nf
    while c < nefc:
        i = rows[c]
        if typ[i] != CNSTR_CONTACT_ELLIPTIC:
            if force[i] <= 0:
                st = CNSTRSTATE_SATISFIED
            else:
                st = CNSTRSTATE_QUADRATIC
                nactive += 1
            nchange += state[i] != st
            state[i] = st
            c += 1
            continue
        con = eid[i]
        dim = cdim[con]
        mu = cmu[con]
        fr = cfr[con]
        N = force[i] / mu
        # T = mju_norm of the scaled tangential forces (mju_dot's order)
        T = _tangent_norm(force, i, fr, dim, False)
        if mu * N >= T:
            st = CNSTRSTATE_SATISFIED
        elif N + mu * T <= 0:
            st = CNSTRSTATE_QUADRATIC
            nactive += dim
        else:
            st = CNSTRSTATE_CONE
            nactive += dim
        for j in range(dim):
            nchange += state[i + j] != st
            state[i + j] = st
        c += dim
    return nactive, nchange


@njit(cache=True)
def _project_ellipsoid(force, i0, normal, fr, dim, feasible):
    """Scale force[i0:i0+dim-1] onto sum (f_j/mu_j)^2 <= normal^2 (projectEllipsoid)."""
    s = 0.0
    for j in range(dim - 1):
        s += force[i0 + j] * force[i0 + j] / (fr[j] * fr[j])
    n2 = normal * normal
    if not feasible or s > n2:
        scl = math.sqrt(n2 / max(MINVAL, s))
        for j in range(dim - 1):
            force[i0 + j] *= scl


@njit(cache=True)
def qcqp2(res, A, b, dd, r):
    """min 0.5 x'Ax + x'b s.t. sum (x_i/d_i)^2 <= r^2 in 2-D; returns 1 if constrained (mju_QCQP2)."""
    b1 = b[0] * dd[0]
    b2 = b[1] * dd[1]
    A11 = A[0] * dd[0] * dd[0]
    A22 = A[3] * dd[1] * dd[1]
    A12 = A[1] * dd[0] * dd[1]
    la = 0.0
    v1 = 0.0
    v2 = 0.0
    for _ in range(20):
        det = (A11 + la) * (A22 + la) - A12 * A12
        if det < 1e-10:
            res[0] = 0.0
            res[1] = 0.0
            return 0
        detinv = 1.0 / det
        P11 = (A22 + la) * detinv
        P22 = (A11 + la) * detinv
        P12 = -A12 * detinv
        v1 = -P11 * b1 - P12 * b2
        v2 = -P12 * b1 - P22 * b2
        val = v1 * v1 + v2 * v2 - r * r
        if val < 1e-10:
            break
        deriv = -2.0 * (P11 * v1 * v1 + 2.0 * P12 * v1 * v2 + P22 * v2 * v2)
        delta = -val / deriv
        if delta < 1e-10:
            break
        la += delta
    res[0] = v1 * dd[0]
    res[1] = v2 * dd[1]
    return 1 if la != 0 else 0


@njit(cache=True)
def qcqp3(res, A, b, dd, r):
    """3-D version of qcqp2 with closed-form 3x3 inverse (mju_QCQP3)."""
    b1 = b[0] * dd[0]
    b2 = b[1] * dd[1]
    b3 = b[2] * dd[2]
    A11 = A[0] * dd[0] * dd[0]
    A22 = A[4] * dd[1] * dd[1]
    A33 = A[8] * dd[2] * dd[2]
    A12 = A[1] * dd[0] * dd[1]
    A13 = A[2] * dd[0] * dd[2]
    A23 = A[5] * dd[1] * dd[2]
    la = 0.0
    v1 = 0.0
    v2 = 0.0
    v3 = 0.0
    for _ in range(20):
        P11 = (A22 + la) * (A33 + la) - A23 * A23
        P22 = (A11 + la) * (A33 + la) - A13 * A13
        P33 = (A11 + la) * (A22 + la) - A12 * A12
        P12 = A13 * A23 - A12 * (A33 + la)
        P13 = A12 * A23 - A13 * (A22 + la)
        P23 = A12 * A13 - A23 * (A11 + la)
        det = (A11 + la) * P11 + A12 * P12 + A13 * P13
        if det < 1e-10:
            res[0] = 0.0
            res[1] = 0.0
            res[2] = 0.0
            return 0
        detinv = 1.0 / det
        P11 *= detinv
        P22 *= detinv
        P33 *= detinv
        P12 *= detinv
        P13 *= detinv
        P23 *= detinv
        v1 = -P11 * b1 - P12 * b2 - P13 * b3
        v2 = -P12 * b1 - P22 * b2 - P23 * b3
        v3 = -P13 * b1 - P23 * b2 - P33 * b3
        val = v1 * v1 + v2 * v2 + v3 * v3 - r * r
        if val < 1e-10:
            break
        deriv = -2.0 * (P11 * v1 * v1 + P22 * v2 * v2 + P33 * v3 * v3) - 4.0 * (
            P12 * v1 * v2 + P13 * v1 * v3 + P23 * v2 * v3
        )
        delta = -val / deriv
        if delta < 1e-10:
            break
        la += delta
    res[0] = v1 * dd[0]
    res[1] = v2 * dd[1]
    res[2] = v3 * dd[2]
    return 1 if la != 0 else 0


@njit(cache=True)
def qcqp_n(res, A, b, dd, r, n, work):
    """n-D (n <= 5) version of qcqp2 with a Cholesky solve per Newton step (mju_QCQP); work (>= 3*25+10,)."""
    As = work[0:25].reshape((5, 5))
    Ala = work[25:50].reshape((5, 5))
    bs = work[50:55]
    tmp = work[55:60]
    for i in range(n):
        bs[i] = b[i] * dd[i]
        for j in range(n):
            As[i, j] = A[j + i * n] * dd[i] * dd[j]
    la = 0.0
    for _ in range(20):
        for i in range(n):
            for j in range(n):
                Ala[i, j] = As[i, j]
            Ala[i, i] += la
        if chol_factor(Ala, n, 1e-10) < n:
            for i in range(n):
                res[i] = 0.0
            return 0
        chol_solve(Ala, n, bs, res)
        for i in range(n):
            res[i] = -res[i]
        val = _dot(res, res, n) - r * r
        if val < 1e-10:
            break
        chol_solve(Ala, n, res, tmp)
        deriv = -2.0 * _dot(res, tmp, n)
        delta = -val / deriv
        if delta < 1e-10:
            break
        la += delta
    for i in range(n):
        res[i] = res[i] * dd[i]
    return 1 if la != 0 else 0


# the elliptic-cone block updates are compiled only for feature sets with F_ELLIPTIC (sim/jit/features.py)
_qcqp2_if = call_if(F_ELLIPTIC, qcqp2, 0)
_qcqp3_if = call_if(F_ELLIPTIC, qcqp3, 0)
_qcqp_n_if = call_if(F_ELLIPTIC, qcqp_n, 0)
_project_ellipsoid_if = call_if(F_ELLIPTIC, _project_ellipsoid)


@njit(cache=True)
def sol_pgs(m, d, w, maxiter, nesterov, isl, lst, F):
    """Projected Gauss-Seidel on the dual over one island's rows (solPGS); efc_force in, efc_force/state out.

    isl: island (-1 monolithic); lst = (rows, ne, nf, nefc, dofs, nv) of the island (identity if monolithic).
    Residuals use the full dense AR rows (zero across islands), as MuJoCo's dense path, or AR on the fly
    (ar_dense false): b + Y (Y' f) + R f with z = Y' f updated as the forces change."""
    rows, ne, nf, nefc, dofs, nvi = lst
    nefc_all = d.nefc[w]
    force, floss, AR, b = d.efc_force[w], d.efc_frictionloss[w], d.scr_slv_AR[w], d.efc_b[w]
    dense = ar_dense(d, nefc_all)
    spar = dense and ar_sparse(m, d)
    arnnz = d.scr_slv_int[w, _ARNNZ]
    Y, ylo, yhi, z, R = d.scr_slv_J[w], d.scr_slv_yr[w, 0], d.scr_slv_yr[w, 1], d.scr_slv_nv[w, _Z], d.efc_R[w]
    typ, eid = d.efc_type[w], d.efc_id[w]
    cdim, cfr = d.contact_dim[w], d.contact_friction[w]
    ARinv = d.scr_slv_efc[w, _DIAG]
    Adiag = d.scr_slv_efc[w, _JAREF]  # 1 / ARinv[i], the cost change's curvature (free during PGS)
    fprev = d.scr_slv_efc[w, _FPREV]
    fmom = d.scr_slv_efc[w, _FMOM]
    blockstart = d.scr_slv_int[w, _BLOCK]
    small = d.scr_slv_small[w]
    res = small[0:6]
    oldf = small[6:12]
    v = small[12:18]
    bc = small[18:23]
    Ac = small[23:48]
    Athis = small[48:84].reshape((6, 6))
    delta = small[84:90]
    v1 = small[90:96]
    qwork = small[96:160]
    scale = inertia_scale(m, d, w, dofs, nvi)
    tol = m.opt[OPT_TOLERANCE]
    if nesterov:
        for c in range(nefc):
            fprev[rows[c]] = force[rows[c]]
    for c in range(nefc):
        i = rows[c]
        ARinv[i] = 1.0 / (AR[i, i] if dense else ar_entry(Y, ylo, yhi, i, i) + R[i])
        Adiag[i] = 1.0 / ARinv[i]  # once here, not a division per row and iteration (the same value)
    if not dense:
        z_compute(Y, ylo, yhi, z, force, rows, nefc, dofs, nvi)
    _dual_state(m, d, w, rows, ne, nf, nefc)
    nblocks = 0
    c = 0
    while c < nefc:
        blockstart[nblocks] = c
        nblocks += 1
        i = rows[c]
        if typ[i] == CNSTR_CONTACT_ELLIPTIC:
            c += cdim[eid[i]]
        else:
            c += 1
    rng, _ = _pcg32_next(np.uint64(0))
    # The visiting order of iteration t is the seeded shuffle applied t times: it depends on nblocks alone, so
    # the orders (as permutations of the blocks) are kept in scr_pgs_order for the next solve with as many
    # blocks, ncache rows, plus a running row for iterations past them; meta: nblocks, rows made, the PCG state
    # after them (two int32 halves)
    order = d.scr_pgs_order[w]
    meta = d.scr_pgs_meta[w]
    ncache = min(order.shape[0] // nblocks - 1, _PGS_ORDER_ROWS) if nblocks > 1 else -1
    table = ncache >= 1
    if table and meta[0] != nblocks:
        meta[0] = nblocks
        meta[1] = 0
        _pcg32_store(meta, rng)
    base = 0
    it = 0
    nest_k = 0
    while it < maxiter:
        if nesterov:
            beta = 0.0
            if it > 0:
                beta = (nest_k - 1) / (nest_k + 2)
            # one pass per row: momentum step, friction box / non-negativity, fmom (the same operations per row
            # as separate loops); elliptic blocks are projected after the pass, once all their rows moved
            if beta > 0:
                nell = 0
                for c in range(nefc):
                    i = rows[c]
                    fs = force[i]
                    f = fs + beta * (fs - fprev[i])
                    fprev[i] = fs
                    if c >= ne:
                        if c < ne + nf:
                            f = min(max(f, -floss[i]), floss[i])
                        elif typ[i] == CNSTR_CONTACT_ELLIPTIC:
                            nell += 1
                        elif f < 0:
                            f = 0.0
                    force[i] = f
                    fmom[i] = f
                c = ne + nf
                while nell and c < nefc:
                    i = rows[c]
                    if typ[i] == CNSTR_CONTACT_ELLIPTIC:
                        cid = eid[i]
                        dim = cdim[cid]
                        if force[i] < 0:
                            for j in range(dim):
                                force[i + j] = 0.0
                        else:
                            _project_ellipsoid_if(F, force, i + 1, force[i], cfr[cid], dim, True)
                        for j in range(dim):
                            fmom[i + j] = force[i + j]
                        c += dim
                    else:
                        c += 1
                if not dense:
                    z_compute(Y, ylo, yhi, z, force, rows, nefc, dofs, nvi)
            else:
                for c in range(nefc):
                    i = rows[c]
                    fprev[i] = force[i]
                    fmom[i] = force[i]
        improvement = 0.0
        # Fisher-Yates shuffle of the block order
        if not table:
            rng = _shuffle(blockstart, 0, nblocks, rng)
        elif it < ncache:
            base = it * nblocks
            if it >= meta[1]:  # not made yet: the previous order shuffled once more
                for p in range(nblocks):
                    order[base + p] = order[base - nblocks + p] if it > 0 else p
                _pcg32_store(meta, _shuffle(order, base, nblocks, _pcg32_load(meta)))
                meta[1] = it + 1
        else:
            if it == ncache:  # past the kept rows: the running row, from the last kept one
                base = ncache * nblocks
                for p in range(nblocks):
                    order[base + p] = order[base - nblocks + p]
                rng = _pcg32_load(meta)
            rng = _shuffle(order, base, nblocks, rng)
        for bi in range(nblocks):
            cb = blockstart[order[base + bi]] if table else blockstart[bi]
            i = rows[cb]
            if typ[i] != CNSTR_CONTACT_ELLIPTIC:
                if spar:
                    r0 = b[i] + dot_pattern(AR[i], force, nefc_all, arnnz[i])
                elif dense:
                    r0 = b[i] + dot_scalar(AR[i], force, nefc_all)
                else:
                    r0 = b[i] + (y_dot(Y, ylo, yhi, z, i) + R[i] * force[i])
                f0 = force[i]
                fi = f0 - r0 * ARinv[i]
                if cb >= ne and cb < ne + nf:
                    if fi < -floss[i]:
                        fi = -floss[i]
                    elif fi > floss[i]:
                        fi = floss[i]
                elif cb >= ne + nf:
                    if fi < 0:
                        fi = 0.0
                dl = fi - f0
                change = 0.5 * dl * dl * Adiag[i] + dl * r0
                if change > 1e-10:
                    fi = f0
                    change = 0.0
                force[i] = fi
                if not dense and fi != f0:
                    z_add(Y, ylo, yhi, z, i, fi - f0)
                improvement -= change
                continue
            cid = eid[i]
            dim = cdim[cid]
            fr = cfr[cid]
            if dense:
                for j in range(dim):
                    if spar:
                        res[j] = b[i + j] + dot_pattern(AR[i + j], force, nefc_all, arnnz[i + j])
                    else:
                        res[j] = b[i + j] + dot_scalar(AR[i + j], force, nefc_all)
                for j in range(dim):
                    for k in range(dim):
                        Athis[j, k] = AR[i + j, i + k]
            else:
                for j in range(dim):
                    res[j] = b[i + j] + (y_dot(Y, ylo, yhi, z, i + j) + R[i + j] * force[i + j])
                for j in range(dim):
                    for k in range(j, dim):
                        a = ar_entry(Y, ylo, yhi, i + j, i + k)
                        Athis[j, k] = a + R[i + j] if k == j else a
                        Athis[k, j] = Athis[j, k]
            for j in range(dim):
                oldf[j] = force[i + j]
            # normal update, or ray update along the current force
            if force[i] < MINVAL:
                force[i] -= res[0] * ARinv[i]
                if force[i] < 0:
                    force[i] = 0.0
                for j in range(1, dim):
                    force[i + j] = 0.0
            else:
                for j in range(dim):
                    v[j] = force[i + j]
                for j in range(dim):
                    v1[j] = _dot(Athis[j], v, dim)
                denom = _dot(v, v1, dim)
                if denom >= MINVAL:
                    x = -_dot(v, res, dim) / denom
                    if force[i] + x * v[0] < 0:
                        x = -v[0] / force[i]
                    for j in range(dim):
                        force[i + j] += x * v[j]
            # friction update with the normal fixed: QCQP on the tangential block
            n1 = dim - 1
            for j in range(n1):
                bc[j] = res[j + 1]
                for k in range(n1):
                    Ac[j * n1 + k] = Athis[j + 1, k + 1]
                bc[j] -= _dot_at(Ac, j * n1, oldf, 1, n1)
                bc[j] += Athis[j + 1, 0] * (force[i] - oldf[0])
            if force[i] < MINVAL:
                for j in range(1, dim):
                    force[i + j] = 0.0
            else:
                if dim == 3:
                    act = _qcqp2_if(F, v, Ac, bc, fr, force[i])
                elif dim == 4:
                    act = _qcqp3_if(F, v, Ac, bc, fr, force[i])
                else:
                    act = _qcqp_n_if(F, v, Ac, bc, fr, force[i], n1, qwork)
                if act:
                    _project_ellipsoid_if(F, v, 0, force[i], fr, dim, False)
                for j in range(n1):
                    force[i + 1 + j] = v[j]
            # cost change over the block, 0.5 delta' A delta + delta' res; restore if positive (costChange)
            for j in range(dim):
                delta[j] = force[i + j] - oldf[j]
            quadv = 0.0
            for j in range(dim):
                quadv += delta[j] * _dot(Athis[j], delta, dim)
            change = 0.5 * quadv + _dot(delta, res, dim)
            if change > 1e-10:
                for j in range(dim):
                    force[i + j] = oldf[j]
                change = 0.0
            if not dense:
                for j in range(dim):
                    if force[i + j] != oldf[j]:
                        z_add(Y, ylo, yhi, z, i + j, force[i + j] - oldf[j])
            improvement -= change
        nactive, nchange = _dual_state(m, d, w, rows, ne, nf, nefc)
        improvement *= scale
        _save_stats(d, w, isl, it, improvement, 0.0, 0.0, nactive, nchange, 0, 0, True)
        if nesterov:
            restart = False
            if it > 0:
                dce = 0.0
                for c in range(nefc):
                    i = rows[c]
                    dce += (force[i] - fmom[i]) * (fmom[i] - fprev[i])
                restart = dce < 0
            if restart:
                nest_k = 0
            else:
                nest_k += 1
        it += 1
        if improvement < tol:
            break
    _add_niter(d, w, isl, it)


# ------------------------------------------------------------------------------------------------
# noslip (solNoSlip): friction dimensions without the regularizer, after the main solver


@njit(cache=True, always_inline=True)
def _res_noslip(AR, Y, ylo, yhi, z, R, b, force, i, nefc_all, dense, spar, arnnz):
    """Residual of row i of the unregularized dual, b + (AR - R) f (residual with flg_subR); spar: over the sparse
    AR's pattern."""
    if dense:
        if spar:
            r = b[i] + dot_pattern(AR[i], force, nefc_all, arnnz[i])
        else:
            r = b[i] + dot_scalar(AR[i], force, nefc_all)
        return r - R[i] * force[i]
    return b[i] + y_dot(Y, ylo, yhi, z, i)


@njit(cache=True)
def sol_noslip(m, d, w, maxiter, isl, lst, F):
    """The noslip sweeps over one island's rows (solNoSlip); efc_force in, efc_force / efc_state out.

    isl: island (-1 monolithic); lst = (rows, ne, nf, nefc, dofs, nv) as sol_pgs.  Per iteration: friction-loss
    rows (box), each pyramidal contact's pairs of opposing edges (their sum kept, the split minimised), each
    elliptic contact's tangential block (QCQP inside the cone of the current normal force); R is left out of AR.
    Statistics are saved after the main solver's iterations of the island, the count added to its solver_niter."""
    rows, ne, nf, nefc, dofs, nvi = lst
    nefc_all = d.nefc[w]
    force, floss, AR, b, R = d.efc_force[w], d.efc_frictionloss[w], d.scr_slv_AR[w], d.efc_b[w], d.efc_R[w]
    dense = ar_dense(d, nefc_all)
    spar = dense and ar_sparse(m, d)
    arnnz = d.scr_slv_int[w, _ARNNZ]
    Y, ylo, yhi, z = d.scr_slv_J[w], d.scr_slv_yr[w, 0], d.scr_slv_yr[w, 1], d.scr_slv_nv[w, _Z]
    typ, eid = d.efc_type[w], d.efc_id[w]
    cdim, cfr = d.contact_dim[w], d.contact_friction[w]
    ARinv = d.scr_slv_efc[w, _DIAG]
    small = d.scr_slv_small[w]
    res = small[0:6]
    oldf = small[6:12]
    v = small[12:18]
    bc = small[18:23]
    Ac = small[23:48]
    delta = small[84:90]
    qwork = small[96:160]
    scale = inertia_scale(m, d, w, dofs, nvi)
    tol = m.opt[OPT_NOSLIP_TOLERANCE]
    stat = max(isl, 0)
    # 1 / diag(AR - R), the diagonal clamped at MINVAL (ARdiaginv with flg_subR)
    for c in range(nefc):
        i = rows[c]
        aii = AR[i, i] if dense else ar_entry(Y, ylo, yhi, i, i) + R[i]
        ARinv[i] = 1.0 / max(MINVAL, aii - R[i])
    if not dense:
        z_compute(Y, ylo, yhi, z, force, rows, nefc, dofs, nvi)
    _dual_state(m, d, w, rows, ne, nf, nefc)
    it = 0
    while it < maxiter:
        improvement = 0.0
        # the cost of the first iteration also loses R's share (0.5 f' R f)
        if it == 0:
            for c in range(nefc):
                i = rows[c]
                improvement += 0.5 * force[i] * force[i] * R[i]
        # friction loss: 1-D minimum, clamped to the box
        for c in range(ne, ne + nf):
            i = rows[c]
            r0 = _res_noslip(AR, Y, ylo, yhi, z, R, b, force, i, nefc_all, dense, spar, arnnz)
            f0 = force[i]
            fi = f0 - r0 * ARinv[i]
            if fi < -floss[i]:
                fi = -floss[i]
            elif fi > floss[i]:
                fi = floss[i]
            force[i] = fi
            dl = fi - f0
            improvement -= 0.5 * dl * dl / ARinv[i] + dl * r0
            if not dense and dl != 0.0:
                z_add(Y, ylo, yhi, z, i, dl)
        # contact friction
        c = ne + nf
        while c < nefc:
            i = rows[c]
            if typ[i] == CNSTR_CONTACT_PYRAMIDAL:
                dim = cdim[eid[i]]
                for j in range(i, i + 2 * (dim - 1), 2):
                    res[0] = _res_noslip(AR, Y, ylo, yhi, z, R, b, force, j, nefc_all, dense, spar, arnnz)
                    res[1] = _res_noslip(AR, Y, ylo, yhi, z, R, b, force, j + 1, nefc_all, dense, spar, arnnz)
                    oldf[0] = force[j]
                    oldf[1] = force[j + 1]
                    ar_block(AR, Y, ylo, yhi, R, j, 2, Ac, True, dense)
                    for k in range(2):
                        bc[k] = res[k] - _dot_at(Ac, 2 * k, oldf, 0, 2)
                    # f0 = mid + y, f1 = mid - y: minimise over y in [-mid, mid]
                    mid = 0.5 * (force[j] + force[j + 1])
                    K1 = Ac[0] + Ac[3] - Ac[1] - Ac[2]
                    K0 = mid * (Ac[0] - Ac[3]) + bc[0] - bc[1]
                    if K1 < MINVAL:
                        force[j] = mid
                        force[j + 1] = mid
                    else:
                        y = -K0 / K1
                        if y < -mid:
                            force[j] = 0.0
                            force[j + 1] = 2 * mid
                        elif y > mid:
                            force[j] = 2 * mid
                            force[j + 1] = 0.0
                        else:
                            force[j] = mid + y
                            force[j + 1] = mid - y
                    improvement -= _cost_change(Ac, force, j, oldf, res, delta, 2, dense, Y, ylo, yhi, z)
                c += 2 * (dim - 1)
            elif typ[i] == CNSTR_CONTACT_ELLIPTIC:
                cid = eid[i]
                dim = cdim[cid]
                n1 = dim - 1
                for k in range(n1):
                    res[k] = _res_noslip(AR, Y, ylo, yhi, z, R, b, force, i + 1 + k, nefc_all, dense, spar, arnnz)
                    oldf[k] = force[i + 1 + k]
                ar_block(AR, Y, ylo, yhi, R, i + 1, n1, Ac, True, dense)
                for k in range(n1):
                    bc[k] = res[k] - _dot_at(Ac, k * n1, oldf, 0, n1)
                if force[i] < MINVAL:
                    for k in range(n1):
                        force[i + 1 + k] = 0.0
                else:
                    # solveQCQP: the tangential minimum inside the cone of the normal force, put on its
                    # boundary when the constraint is active
                    if dim == 3:
                        act = _qcqp2_if(F, v, Ac, bc, cfr[cid], force[i])
                    elif dim == 4:
                        act = _qcqp3_if(F, v, Ac, bc, cfr[cid], force[i])
                    else:
                        act = _qcqp_n_if(F, v, Ac, bc, cfr[cid], force[i], n1, qwork)
                    if act:
                        _project_ellipsoid_if(F, v, 0, force[i], cfr[cid], dim, False)
                    for k in range(n1):
                        force[i + 1 + k] = v[k]
                improvement -= _cost_change(Ac, force, i + 1, oldf, res, delta, n1, dense, Y, ylo, yhi, z)
                c += dim
            else:
                c += 1
        nactive, nchange = _dual_state(m, d, w, rows, ne, nf, nefc)
        improvement *= scale
        if stat < NISLAND:
            _save_stats(
                d, w, isl, it + d.solver_niter_island[w, stat], improvement, 0.0, 0.0, nactive, nchange, 0, 0, True
            )
        it += 1
        if improvement < tol:
            break
    _add_niter(d, w, isl, it)


@njit(cache=True)
def _cost_change(A, force, i0, oldf, res, delta, n, dense, Y, ylo, yhi, z):
    """0.5 delta' A delta + delta' res of the block force[i0:i0+n] (A (n*n,) flat); the old forces restored and 0
    returned if positive (costChange); z follows the forces when AR is on the fly."""
    for j in range(n):
        delta[j] = force[i0 + j] - oldf[j]
    quadv = 0.0
    for j in range(n):
        quadv += delta[j] * _dot_at(A, j * n, delta, 0, n)
    change = 0.5 * quadv + _dot(delta, res, n)
    if change > 1e-10:
        for j in range(n):
            force[i0 + j] = oldf[j]
        change = 0.0
    if not dense:
        for j in range(n):
            if force[i0 + j] != oldf[j]:
                z_add(Y, ylo, yhi, z, i0 + j, force[i0 + j] - oldf[j])
    return change


def noslip_impl(m, d, w, solver, F):
    """The noslip stage of mj_fwdConstraint, after the main solver: AR made if the solver was not PGS, then
    sol_noslip per island (monolithic without islands).  Returns True when it ran (dualFinish to follow)."""
    maxiter = int(m.opt[OPT_NOSLIP_ITERATIONS])
    if maxiter <= 0:
        return False
    if solver != SOL_PGS:
        make_dual(m, d, w)
    nisland = d.nisland[w]
    if nisland > 0:
        for k in range(nisland):
            ea = d.island_iefcadr[w, k]
            da = d.island_idofadr[w, k]
            rows = d.map_iefc2efc[w, ea : ea + d.island_nefc[w, k]]
            dofs = d.map_idof2dof[w, da : da + d.island_nv[w, k]]
            lst = (rows, d.island_ne[w, k], d.island_nf[w, k], d.island_nefc[w, k], dofs, d.island_nv[w, k])
            sol_noslip(m, d, w, maxiter, k, lst, F)
    else:
        iota = d.scr_isl_int[w, 0]
        nefc, nv = d.nefc[w], m.nv
        sol_noslip(m, d, w, maxiter, -1, (iota[:nefc], d.ne[w], d.nf[w], nefc, iota[:nv], nv), F)
    return True


_noslip = call_if(F_NOSLIP, njit(cache=True)(noslip_impl), False)


# ------------------------------------------------------------------------------------------------
# primal solvers (mj_solPrimal) on an island context
#
# ctx = (J, D, R, floss, aref, typ, eid, force, state, qfs, qas, qacc, qfc, dofs, ne, nf, nefc, nv, rows, nrow):
# the island's efc rows 0..nefc-1 (J (rows, >= nv) dense block, D, R, frictionloss, aref, type, id, force, state)
# and dofs 0..nv-1 (qfrc_smooth, qacc_smooth, qacc, qfrc_constraint; dofs[ii] = global dof), contiguous as
# MuJoCo's mjPrimalContext.  Work vectors are rows of scr_slv_nv / scr_slv_efc, local indices.  nrow: each lane's
# own row count (nefc for one world; a block's rows run to its largest, the others' extra rows inert).
#
# The solvers without elliptic cones are lane-safe (sim/jit/simd.py): branches on the state are selects and
# lane-masked loops, so the same source runs one world or a block of worlds, each lane's numbers the world's.


# MuJoCo's sparse mode (mj_isSparse, feature F_SPARSE) with the rows' structural lists kept in the Data; the sparse
# products and factors below read scr_slv_Jind / scr_slv_L inside their stubs, so a feature set without F_SPARSE
# (the block solver's) never types them
@njit(cache=True)
def _spj_impl(m, d):
    return is_sparse(m) and has_lists(m, d, True)


_spj = call_if(F_SPARSE, _spj_impl, False)


def _mul_j_sparse_dw(d, w, J, rmap, x, out, nefc):
    _sp.mul_j_sparse(J, d.scr_slv_Jind[w], rmap, x, out, nefc)


def _mul_jt_lanes_dw(d, w, J, rmap, f, out, nefc, nv):
    _sp.mul_jt_lanes(J, d.scr_slv_Jind[w], rmap, f, out, nefc, nv, d.scr_slv_nv[w, _CHOLUPD : _CHOLUPD + 7])


def _factor_sparse_dw(d, w, nv):
    return _sp.chol_factor_sparse(d.scr_slv_H[w], d.scr_slv_L[w], nv, MINVAL)


def _update_sparse_dw(d, w, L, x, nv, plus):
    return _sp.chol_update_sparse(L, d.scr_slv_L[w], x, nv, plus)


def _solve_sparse_dw(d, w, H, nv, g, mg):
    _sp.chol_solve_sparse(H, d.scr_slv_L[w], nv, g, mg)


_mul_j_dw = call_if(F_SPARSE, njit(cache=True)(_mul_j_sparse_dw))
_mul_jt_dw = call_if(F_SPARSE, njit(cache=True)(_mul_jt_lanes_dw))
_factor_dw = call_if(F_SPARSE, njit(cache=True)(_factor_sparse_dw), 0)
_update_dw = call_if(F_SPARSE, njit(cache=True)(_update_sparse_dw), 0)
_solve_dw = call_if(F_SPARSE, njit(cache=True)(_solve_sparse_dw))


@njit(cache=True)
def constraint_update_pyramidal(jar, D, R, floss, force, state, ne, nf, nefc):
    """constraint_update for rows without elliptic cones, lane-safe (each row's branches as selects, the same
    numbers); returns the cost (mj_constraintUpdate_impl)."""
    s = 0.0
    for i in range(nefc):
        force[i] = -D[i] * jar[i]
    for i in range(ne):
        s += 0.5 * D[i] * jar[i] * jar[i]
        state[i] = CNSTRSTATE_QUADRATIC
    for i in range(ne, ne + nf):
        neg = jar[i] <= -R[i] * floss[i]
        pos = lnot(neg) & (jar[i] >= R[i] * floss[i])
        s = where(
            neg,
            s + (-0.5 * R[i] * floss[i] * floss[i] - floss[i] * jar[i]),
            where(pos, s + (-0.5 * R[i] * floss[i] * floss[i] + floss[i] * jar[i]), s + 0.5 * D[i] * jar[i] * jar[i]),
        )
        force[i] = where(neg, floss[i], where(pos, -floss[i], force[i]))
        state[i] = where(neg, CNSTRSTATE_LINEARNEG, where(pos, CNSTRSTATE_LINEARPOS, CNSTRSTATE_QUADRATIC))
    for i in range(ne + nf, nefc):
        sat = jar[i] >= 0
        force[i] = where(sat, 0.0, force[i])
        state[i] = where(sat, CNSTRSTATE_SATISFIED, CNSTRSTATE_QUADRATIC)
        s = where(sat, s, s + 0.5 * D[i] * jar[i] * jar[i])
    return s


@njit(cache=True)
def _constraint_rows_cone(m, d, w, ctx, flg_cone):
    """Every row's force / state and the cost, elliptic cones included; (cost, nactive, ncone)."""
    J, D, R, floss, aref, typ, eid, force, state, qfs, qas, qacc, qfc, dofs, ne, nf, nefc, nv, rmap, _ = ctx
    cost = constraint_update(
        d.scr_slv_efc[w, _JAREF],
        D,
        R,
        floss,
        typ,
        eid,
        d.contact_mu[w],
        d.contact_friction[w],
        d.contact_dim[w],
        d.contact_H[w],
        force,
        state,
        ne,
        nf,
        nefc,
        flg_cone,
    )
    nactive = 0
    ncone = 0
    for i in range(nefc):
        nactive += state[i] != CNSTRSTATE_SATISFIED
        ncone += state[i] == CNSTRSTATE_CONE
    return cost, nactive, ncone


@njit(cache=True)
def _constraint_rows_pyramidal(m, d, w, ctx, flg_cone):
    """Every row's force / state and the cost without elliptic cones (lane-safe); (cost, nactive, 0)."""
    state, nefc = ctx[8], ctx[16]
    cost = _ctx_update_pyramidal(m, d, w, ctx, d.scr_slv_efc[w, _JAREF])
    nactive = 0
    for i in range(nefc):
        nactive += where(state[i] != CNSTRSTATE_SATISFIED, 1, 0)
    return cost, nactive, 0


_constraint_rows = call_either(F_ELLIPTIC, _constraint_rows_cone, _constraint_rows_pyramidal)


@njit(cache=True)
def _primal_update_constraint(m, d, w, ctx, flg_cone, spj, F):
    """force, state, qfrc_constraint, cost incl. Gauss (PrimalUpdateConstraint); returns (cost, gauss,
    nactive, ncone).  spj: J's row lists are in scr_slv_Jind (sparse products)."""
    J, force, qfs, qas, qacc, qfc, nefc, nv, rmap = (
        ctx[0],
        ctx[7],
        ctx[9],
        ctx[10],
        ctx[11],
        ctx[12],
        ctx[16],
        ctx[17],
        ctx[18],
    )
    cost, nactive, ncone = _constraint_rows(F, m, d, w, ctx, flg_cone)
    if spj:
        # mju_mulMatVecSparse on J's transpose (PrimalUpdateConstraint, sparse)
        _mul_jt_dw(F, d, w, J, rmap, force, qfc, nefc, nv)
    else:
        mul_jt(J, force, qfc, nefc, nv)
    Ma = d.scr_slv_nv[w, _MA]
    gauss = 0.0
    for i in range(nv):
        gauss += 0.5 * (Ma[i] - qfs[i]) * (qacc[i] - qas[i])
    return cost + gauss, gauss, nactive, ncone


@njit(cache=True)
def _make_hessian(m, d, w, ctx):
    """Lower triangle of scr_slv_H[:nv, :nv] = J' D_quadratic J + M (MakeHessian, dense: mju_sqrMatTD_impl
    then mju_addToSymSparse)."""
    J, D, state, dofs, nefc, nv = ctx[0], ctx[1], ctx[8], ctx[13], ctx[16], ctx[17]
    H = d.scr_slv_H[w]
    M = d.M[w]
    for i in range(nv):
        Hi = H[i]
        for k in range(i + 1):
            Hi[k] = 0.0
    for r in range(nefc):
        q = state[r] == CNSTRSTATE_QUADRATIC
        if not any_true(q):
            continue
        Dr = D[r]
        Jr = J[r]
        for i in range(nv):
            t = Jr[i]
            nz = q & (t != 0.0)
            if any_true(nz):
                scl = t * Dr
                Hi = H[i]
                for k in range(i + 1):
                    Hi[k] = where(nz, Hi[k] + Jr[k] * scl, Hi[k])
    rowadr, rownnz, colind = m.M_rowadr, m.M_rownnz, m.M_colind
    for ii in range(nv):
        i = dofs[ii]
        adr = rowadr[i]
        Hi = H[ii]
        for t in range(rownnz[i]):
            Hi[ii - (i - colind[adr + t])] += M[adr + t]


def _make_hessian_sparse_impl(m, d, w, ctx, pattern):
    """H = J' D_quadratic J + M on the sparse path, with its factor's pattern when pattern (MakeHessian)."""
    _sp.make_hessian_sparse(
        d.scr_slv_H[w],
        d.scr_slv_L[w],
        ctx[0],
        d.scr_slv_Jind[w],
        ctx[18],
        ctx[1],
        ctx[8],
        ctx[16],
        ctx[17],
        d.M[w],
        m.M_rowadr,
        m.M_rownnz,
        m.M_colind,
        ctx[13],
        pattern,
    )


_make_hessian_sparse = call_if(F_SPARSE, njit(cache=True)(_make_hessian_sparse_impl))
_is_sparse = call_if(F_SPARSE, is_sparse, False)
_update_sp = call_if(F_SPARSE, _sp.chol_update_sparse, 0)
_local_lists = call_if(F_SPARSE, _sp.local_lists)
_global_lists = call_if(F_SPARSE, _sp.global_lists)
_mul_j_sp = call_if(F_SPARSE, _sp.mul_j_sparse)
_mul_jt_sp = call_if(F_SPARSE, _sp.mul_jt_sparse)


@njit(cache=True)
def _hessian_cone(m, d, w, ctx, F, sparse):
    """scr_slv_Hc = factor of H + sum over cone contacts of J_c' H_c J_c, as rank-1 updates of a copy of the
    factor in scr_slv_H along the rows of L_c' J_c, L_c = chol(H_c) (HessianCone; sparse: the updates of
    sim/engine/solver_sparse.py).  Returns the number of rank-1 updates (HessianCone's nupdate count)."""
    J, eid, state, nefc, nv = ctx[0], ctx[6], ctx[8], ctx[16], ctx[17]
    nupd = 0
    L = d.scr_slv_H[w]
    Lc = d.scr_slv_Hc[w]
    for i in range(nv):
        for k in range(i + 1):
            Lc[i, k] = L[i, k]
    cdim = d.contact_dim[w]
    cH = d.contact_H[w]
    LTJ = d.scr_slv_nv[w, _LTJ : _LTJ + 6]
    small = d.scr_slv_small[w]
    i = 0
    while i < nefc:
        if state[i] != CNSTRSTATE_CONE:
            i += 1
            continue
        con = eid[i]
        dim = cdim[con]
        Hc = cH[con]
        loc = small[100 : 100 + dim * dim].reshape((dim, dim))
        for p in range(dim):
            for q in range(dim):
                loc[p, q] = Hc[p * dim + q]
        chol_factor(loc, dim, MINVAL)
        for r in range(dim):
            for k in range(nv):
                LTJ[r, k] = 0.0
        for r in range(dim):
            Jr = J[i + r]
            for c in range(r + 1):
                s = loc[r, c]
                Lt = LTJ[c]
                for k in range(nv):
                    Lt[k] += Jr[k] * s
        for r in range(dim):
            if sparse:
                _update_sp(F, Lc, d.scr_slv_L[w], LTJ[r], nv, True)
            else:
                chol_update(Lc, LTJ[r], nv, True)
        nupd += dim
        i += dim
    return nupd


_hessian_cone_if = call_if(F_ELLIPTIC, _hessian_cone, 0)


@njit(cache=True)
def _factorize_hessian(m, d, w, ctx, ncone, recompute, F, sparse):
    """Factor scr_slv_H in place (rebuilding H first if recompute), then the cone copy (FactorizeHessian);
    sparse: on the pattern MakeHessian found (sim/engine/solver_sparse.py).  Returns the cone updates made."""
    if sparse:
        if recompute:
            _make_hessian_sparse(F, m, d, w, ctx, False)
        _factor_dw(F, d, w, ctx[17])
    else:
        if recompute:
            _make_hessian(m, d, w, ctx)
        chol_factor(d.scr_slv_H[w], ctx[17], MINVAL)
    if ncone:
        return _hessian_cone_if(F, m, d, w, ctx, F, sparse)
    return 0


@njit(cache=True)
def _hessian_incremental(m, d, w, ctx, ncone, F, sparse, act):
    """Rank-1 up/downdate the factor for every row that entered / left the quadratic state, refactorising
    when a downdate loses rank; then the cones (HessianIncremental).  Returns nupdate: the rank-1 updates made
    (the row count ctx[19] when refactorised), plus the cone updates.

    act: the lanes to update (True for one world).  A lane that loses rank takes no further update and is
    refactorised from H after the rows (for one world: at once, as MuJoCo), the other lanes' factors kept."""
    J, D, state, nefc, nv = ctx[0], ctx[1], ctx[8], ctx[16], ctx[17]
    oldstate = d.scr_slv_int[w, _OLDSTATE]
    L = d.scr_slv_H[w]
    x = d.scr_slv_nv[w, _CHOLUPD]
    nupdate = 0
    refac = lnot(act)
    for r in range(nefc):
        now = state[r] == CNSTRSTATE_QUADRATIC
        ch = lnot(refac) & ((oldstate[r] == CNSTRSTATE_QUADRATIC) != now)
        if not any_true(ch):
            continue
        s = math.sqrt(D[r])
        Jr = J[r]
        for k in range(nv):
            x[k] = where(ch, Jr[k] * s, 0.0)
        if sparse:
            rank = _update_dw(F, d, w, L, x, nv, now)
        else:
            rank = chol_update(L, x, nv, now)
        nupdate = where(ch, nupdate + 1, nupdate)
        refac = refac | (ch & (rank < nv))
    refac = act & refac
    if any_true(refac):
        if all_true(refac):
            return ctx[19] + _factorize_hessian(m, d, w, ctx, ncone, True, F, sparse)
        # some lanes: refactor the block, keep the others' factors (the cone copy is free without cones)
        Lc = d.scr_slv_Hc[w]
        for i in range(nv):
            for k in range(i + 1):
                Lc[i, k] = L[i, k]
        _factorize_hessian(m, d, w, ctx, ncone, True, F, sparse)
        for i in range(nv):
            for k in range(i + 1):
                L[i, k] = where(refac, L[i, k], Lc[i, k])
        nupdate = where(refac, ctx[19], nupdate)
    if ncone:
        nupdate += _hessian_cone_if(F, m, d, w, ctx, F, sparse)
    return nupdate


@njit(cache=True)
def _update_mgrad(m, d, w, ctx, newton, ncone, F, sparse):
    """Mgrad = H^-1 grad (Newton, from the factor, with cones if any) or M^-1 grad (CG) (PrimalUpdateMgrad)."""
    dofs, nv = ctx[13], ctx[17]
    g = d.scr_slv_nv[w, _GRAD]
    mg = d.scr_slv_nv[w, _MGRAD]
    if newton:
        if sparse:
            _solve_dw(F, d, w, d.scr_slv_Hc[w] if ncone else d.scr_slv_H[w], nv, g, mg)
        else:
            chol_solve(d.scr_slv_Hc[w] if ncone else d.scr_slv_H[w], nv, g, mg)
    else:
        for i in range(nv):
            mg[i] = g[i]
        solve_m_local(m, d, w, mg, dofs, nv)


@njit(cache=True)
def _friction_cost(x, f, Rf, D):
    """Huber cost of one friction-loss row at x (frictionCost), lane-safe."""
    mid = (-Rf < x) & (x < Rf)
    lo = x <= -Rf
    return where(mid, 0.5 * D * x * x, where(lo, f * (-0.5 * Rf - x), f * (-0.5 * Rf + x)))


@njit(cache=True)
def _friction_cost_dif(start, x, f, Rf, D):
    """cost(x) - cost(start) of one friction-loss row (frictionCostDif), lane-safe."""
    s0 = where((-Rf < start) & (start < Rf), 0, where(start <= -Rf, -1, 1))
    s1 = where((-Rf < x) & (x < Rf), 0, where(x <= -Rf, -1, 1))
    return where(
        (s0 == 0) & (s1 == 0),
        0.5 * D * (x - start) * (x + start),
        where(
            (s0 == -1) & (s1 == -1),
            f * (start - x),
            where(
                (s0 == 1) & (s1 == 1),
                f * (x - start),
                _friction_cost(x, f, Rf, D) - _friction_cost(start, f, Rf, D),
            ),
        ),
    )


@njit(cache=True)
def _cone_zone(N, Tsqr, mu):
    """Zone of a circularised cone point: 1 top, 2 bottom, 3 middle; and T."""
    if Tsqr <= 0:
        return (2 if N < 0 else 1), 0.0
    T = math.sqrt(Tsqr)
    if N >= mu * T:
        return 1, T
    if mu * N + T <= 0:
        return 2, T
    return 3, T


@njit(cache=True)
def _elliptic_cost_dif(quad, q, alpha, mu, Dm):
    """cost(alpha) - cost(0) of one elliptic cone from its packed quad[q:q+9] (ellipticCostDif)."""
    U0, V0, UU, UV, VV = quad[q + 3], quad[q + 4], quad[q + 5], quad[q + 6], quad[q + 7]
    if UU <= 0:
        z0 = 2 if U0 < 0 else 1
        T0 = 0.0
    else:
        z0, T0 = _cone_zone(U0, UU, mu)
    N = U0 + alpha * V0
    z1, T = _cone_zone(N, UU + alpha * (2 * UV + alpha * VV), mu)
    if z0 == 1 and z1 == 1:
        return 0.0
    if z0 == 2 and z1 == 2:
        return alpha * alpha * quad[q + 2] + alpha * quad[q + 1]
    if z0 == 3 and z1 == 3:
        Td = alpha * (2 * UV + alpha * VV) / (T + T0)
        rd = alpha * V0 - mu * Td
        r0 = U0 - mu * T0
        return 0.5 * Dm * rd * (2 * r0 + rd)
    if z0 == 3 and z1 == 2:
        b0 = mu * U0 + T0
        return alpha * (alpha * quad[q + 2] + quad[q + 1]) + 0.5 * Dm * b0 * b0
    if z0 == 2 and z1 == 3:
        b1 = mu * N + T
        return alpha * (alpha * quad[q + 2] + quad[q + 1]) - 0.5 * Dm * b1 * b1
    if z0 == 1 and z1 == 2:
        return alpha * alpha * quad[q + 2] + alpha * quad[q + 1] + quad[q]
    if z0 == 1 and z1 == 3:
        r = N - mu * T
        return 0.5 * Dm * r * r
    if z0 == 3 and z1 == 1:
        r0 = U0 - mu * T0
        return -0.5 * Dm * r0 * r0
    if z0 == 2 and z1 == 1:
        return -quad[q]
    return 0.0


_elliptic_cost_dif_if = call_if(F_ELLIPTIC, _elliptic_cost_dif, 0.0)


@njit(cache=True)
def _primal_prepare_cone(m, d, w, ctx):
    """Per-row quadratics quad (3 nefc (+6),) and the Gauss coefficients (qg1, qg2) along search, elliptic cones
    included (PrimalPrepare)."""
    D, typ, eid, qfs, nefc, nv = ctx[1], ctx[5], ctx[6], ctx[9], ctx[16], ctx[17]
    sv = d.scr_slv_nv[w]
    v = sv[_SEARCH]
    qg1 = _dot(v, sv[_MA], nv) - _dot(qfs, v, nv)
    qg2 = 0.5 * _dot(v, sv[_MV], nv)
    Jv, Jaref = d.scr_slv_efc[w, _JV], d.scr_slv_efc[w, _JAREF]
    quad = d.scr_slv_quad[w]
    cdim, cmu, cfr = d.contact_dim[w], d.contact_mu[w], d.contact_friction[w]
    i = 0
    while i < nefc:
        q = 3 * i
        DJ0 = D[i] * Jaref[i]
        quad[q] = Jaref[i] * DJ0
        quad[q + 1] = Jv[i] * DJ0
        quad[q + 2] = Jv[i] * D[i] * Jv[i]
        step = 1
        if typ[i] == CNSTR_CONTACT_ELLIPTIC:
            c = eid[i]
            dim = cdim[c]
            mu = cmu[c]
            fr = cfr[c]
            for j in range(1, dim):
                DJj = D[i + j] * Jaref[i + j]
                quad[q] += Jaref[i + j] * DJj
                quad[q + 1] += Jv[i + j] * DJj
                quad[q + 2] += Jv[i + j] * D[i + j] * Jv[i + j]
            UU = 0.0
            UV = 0.0
            VV = 0.0
            for j in range(1, dim):
                U = Jaref[i + j] * fr[j - 1]
                V = Jv[i + j] * fr[j - 1]
                UU += U * U
                UV += U * V
                VV += V * V
            quad[q + 3] = Jaref[i] * mu
            quad[q + 4] = Jv[i] * mu
            quad[q + 5] = UU
            quad[q + 6] = UV
            quad[q + 7] = VV
            quad[q + 8] = D[i] / ((mu * mu) * (1 + (mu * mu)))
            step = dim
        quad[q] *= 0.5
        quad[q + 2] *= 0.5
        i += step
    return qg1, qg2


@njit(cache=True)
def _primal_prepare_pyramidal(m, d, w, ctx):
    """_primal_prepare_cone without elliptic cones (lane-safe)."""
    D, qfs, nefc, nv = ctx[1], ctx[9], ctx[16], ctx[17]
    sv = d.scr_slv_nv[w]
    v = sv[_SEARCH]
    qg1 = _dot(v, sv[_MA], nv) - _dot(qfs, v, nv)
    qg2 = 0.5 * _dot(v, sv[_MV], nv)
    Jv, Jaref = d.scr_slv_efc[w, _JV], d.scr_slv_efc[w, _JAREF]
    quad = d.scr_slv_quad[w]
    for i in range(nefc):
        q = 3 * i
        DJ0 = D[i] * Jaref[i]
        quad[q] = (Jaref[i] * DJ0) * 0.5
        quad[q + 1] = Jv[i] * DJ0
        quad[q + 2] = (Jv[i] * D[i] * Jv[i]) * 0.5
    return qg1, qg2


_primal_prepare = call_either(F_ELLIPTIC, _primal_prepare_cone, _primal_prepare_pyramidal)


@njit(cache=True, always_inline=True)
def _eval_head(quad, Jaref, Jv, D, R, floss, ne, nf, qg1, qg2, alpha):
    """PrimalEval's start, lane-safe: the quadratic's linear and square coefficients (t1, t2) from the Gauss
    term and the equality rows, then (cost(alpha) - cost(0), d/dalpha, d2/dalpha2) of the friction-loss rows
    ne..ne+nf-1 along the search direction; returns (t1, t2, cost, d0, d1)."""
    t1 = qg1
    t2 = qg2
    for i in range(ne):
        t1 += quad[3 * i + 1]
        t2 += quad[3 * i + 2]
    cost = 0.0
    d0 = 0.0
    d1 = 0.0
    for i in range(ne, ne + nf):
        start = Jaref[i]
        dr = Jv[i]
        x = start + alpha * dr
        f = floss[i]
        Di = D[i]
        Rf = R[i] * f
        cost += _friction_cost_dif(start, x, f, Rf, Di)
        mid = (-Rf < x) & (x < Rf)
        lo = x <= -Rf
        d0 = where(mid, d0 + Di * x * dr, where(lo, d0 + -f * dr, d0 + f * dr))
        d1 = where(mid, d1 + Di * dr * dr, d1)
    return t1, t2, cost, d0, d1


@njit(cache=True)
def _primal_eval_cone(m, d, w, ctx, qg1, qg2, alpha, F):
    """(cost(alpha) - cost(0), d/dalpha, d2/dalpha2) along the search direction, elliptic cones included
    (PrimalEval)."""
    D, R, floss, typ, eid, ne, nf, nefc = ctx[1], ctx[2], ctx[3], ctx[5], ctx[6], ctx[14], ctx[15], ctx[16]
    Jv, Jaref = d.scr_slv_efc[w, _JV], d.scr_slv_efc[w, _JAREF]
    quad = d.scr_slv_quad[w]
    cdim, cmu = d.contact_dim[w], d.contact_mu[w]
    t0 = 0.0
    t1, t2, cost, d0, d1 = _eval_head(quad, Jaref, Jv, D, R, floss, ne, nf, qg1, qg2, alpha)
    i = ne + nf
    while i < nefc:
        if typ[i] == CNSTR_CONTACT_ELLIPTIC:
            c = eid[i]
            dim = cdim[c]
            mu = cmu[c]
            q = 3 * i
            U0, V0, UU, UV, VV, Dm = quad[q + 3], quad[q + 4], quad[q + 5], quad[q + 6], quad[q + 7], quad[q + 8]
            cost += _elliptic_cost_dif_if(F, quad, q, alpha, mu, Dm)
            N = U0 + alpha * V0
            Tsqr = UU + alpha * (2 * UV + alpha * VV)
            if Tsqr <= 0:
                if N < 0:
                    d0 += 2 * alpha * quad[q + 2] + quad[q + 1]
                    d1 += 2 * quad[q + 2]
            else:
                T = math.sqrt(Tsqr)
                if N >= mu * T:
                    pass
                elif mu * N + T <= 0:
                    d0 += 2 * alpha * quad[q + 2] + quad[q + 1]
                    d1 += 2 * quad[q + 2]
                else:
                    N1 = V0
                    T1 = (UV + alpha * VV) / T
                    T2 = VV / T - (UV + alpha * VV) * T1 / (T * T)
                    d0 += Dm * (N - mu * T) * (N1 - mu * T1)
                    d1 += Dm * ((N1 - mu * T1) * (N1 - mu * T1) + (N - mu * T) * (-mu * T2))
            i += dim
            continue
        start = Jaref[i]
        x = start + alpha * Jv[i]
        cost0 = quad[3 * i] if start < 0 else 0.0
        if x < 0:
            t0 += quad[3 * i] - cost0
            t1 += quad[3 * i + 1]
            t2 += quad[3 * i + 2]
        else:
            cost -= cost0
        i += 1
    cost += alpha * alpha * t2 + alpha * t1 + t0
    d0 += 2 * alpha * t2 + t1
    d1 += 2 * t2
    if d1 <= 0:
        d1 = MINVAL
    return cost, d0, d1


@njit(cache=True)
def _primal_eval_pyramidal(m, d, w, ctx, qg1, qg2, alpha, F):
    """_primal_eval_cone without elliptic cones (lane-safe)."""
    D, R, floss, ne, nf, nefc = ctx[1], ctx[2], ctx[3], ctx[14], ctx[15], ctx[16]
    Jv, Jaref = d.scr_slv_efc[w, _JV], d.scr_slv_efc[w, _JAREF]
    quad = d.scr_slv_quad[w]
    t0 = 0.0
    t1, t2, cost, d0, d1 = _eval_head(quad, Jaref, Jv, D, R, floss, ne, nf, qg1, qg2, alpha)
    for i in range(ne + nf, nefc):
        start = Jaref[i]
        x = start + alpha * Jv[i]
        cost0 = where(start < 0, quad[3 * i], 0.0)
        neg = x < 0
        t0 = where(neg, t0 + (quad[3 * i] - cost0), t0)
        t1 = where(neg, t1 + quad[3 * i + 1], t1)
        t2 = where(neg, t2 + quad[3 * i + 2], t2)
        cost = where(neg, cost, cost - cost0)
    cost += alpha * alpha * t2 + alpha * t1 + t0
    d0 += 2 * alpha * t2 + t1
    d1 += 2 * t2
    d1 = where(d1 <= 0, MINVAL, d1)
    return cost, d0, d1


_primal_eval = call_either(F_ELLIPTIC, _primal_eval_cone, _primal_eval_pyramidal)


@njit(cache=True, always_inline=True)
def _pnt(m, d, w, ctx, qg1, qg2, alpha, F):
    """The line-search point (alpha, cost, d0, d1) at alpha."""
    c, g, h = _primal_eval(F, m, d, w, ctx, qg1, qg2, alpha, F)
    return (alpha, c, g, h)


@njit(cache=True, always_inline=True)
def _sel(c, p, q):
    """Point p where c, else q (per lane)."""
    return (where(c, p[0], q[0]), where(c, p[1], q[1]), where(c, p[2], q[2]), where(c, p[3], q[3]))


@njit(cache=True, always_inline=True)
def _found(c, p, lsiter, slopescl, res):
    """The line search's result (alpha, improvement, lsiter, slope) at point p where c, else res."""
    return (
        where(c, p[0], res[0]),
        where(c, -p[1], res[1]),
        where(c, lsiter, res[2]),
        where(c, abs(p[2]) * slopescl, res[3]),
    )


@njit(cache=True, always_inline=True)
def _bracket_with(p, flag, cand, live):
    """One candidate of updateBracket: p moves to cand where cand keeps the slope's sign and is closer to 0."""
    lo = live & (p[2] < 0) & (cand[2] < 0) & (p[2] < cand[2])
    hi = live & (p[2] > 0) & (cand[2] > 0) & (p[2] > cand[2])
    return _sel(lo | hi, cand, p), where(lo, 1, where(hi, 2, flag))


@njit(cache=True)
def _update_bracket(m, d, w, ctx, qg1, qg2, p, c1, c2, c3, pn, live, F):
    """Move bracket point p to a better one of the candidates c1, c2, c3 in the lanes live, refresh its Newton
    point pn where it moved (updateBracket).  Returns (p, pn, moved, neval)."""
    flag = where(live, 0, 0)
    p, flag = _bracket_with(p, flag, c1, live)
    p, flag = _bracket_with(p, flag, c2, live)
    p, flag = _bracket_with(p, flag, c3, live)
    moved = flag != 0
    if any_true(moved):
        pn = _sel(moved, _pnt(m, d, w, ctx, qg1, qg2, p[0] - p[2] / p[3], F), pn)
    return p, pn, moved, where(moved, 1, 0)


@njit(cache=True)
def _primal_search(m, d, w, ctx, tolerance, ls_iterations, scale, spj, F, act):
    """Exact 1-D Newton line search with bracketing (PrimalSearch).  Returns (alpha, improvement, lsiter, lsslope).

    act: the lanes searching (True for one world).  Each lane follows PrimalSearch's own sequence of points; a
    lane that has its answer keeps it while the others go on (where PrimalSearch returns), every point is
    evaluated for the block and kept by the lanes that take it.  Lanes outside act get (0, 0, 0, 1)."""
    J, nefc, nv = ctx[0], ctx[16], ctx[17]
    sv = d.scr_slv_nv[w]
    search = sv[_SEARCH]
    snorm = math.sqrt(_dot(search, search, nv))
    tiny = snorm < MINVAL
    live = act & lnot(tiny)
    zero = where(tiny, 0.0, 0.0)
    res = (zero, zero, where(tiny, 0, 0), zero + 1.0)
    if not any_true(live):
        return res
    gtol = tolerance * snorm / scale
    slopescl = scale / snorm
    mul_m(m, d, w, search, sv[_MV], ctx[13], nv)
    if spj:
        _mul_j_dw(F, d, w, J, ctx[18], search, d.scr_slv_efc[w, _JV], nefc)
    else:
        mul_j(J, search, d.scr_slv_efc[w, _JV], nefc, nv)
    qg1, qg2 = _primal_prepare(F, m, d, w, ctx)
    p0 = _pnt(m, d, w, ctx, qg1, qg2, zero, F)
    p1 = _pnt(m, d, w, ctx, qg1, qg2, p0[0] - p0[2] / p0[3], F)
    lsiter = where(live, 2, 0)
    done = lnot(live)
    fin = live & (abs(p1[2]) < gtol) & ((p1[0] == 0) | (p1[1] < 0))
    res = _found(fin, p1, lsiter, slopescl, res)
    done = done | fin
    if all_true(done):
        return res
    direc = where(p1[2] < 0, 1.0, -1.0)
    p2 = p0
    # one-sided Newton steps until the slope changes sign
    while True:
        go = lnot(done) & (p1[2] * direc <= -gtol) & (lsiter < ls_iterations)
        if not any_true(go):
            break
        p2 = _sel(go, p1, p2)
        p1 = _sel(go, _pnt(m, d, w, ctx, qg1, qg2, p1[0] - p1[2] / p1[3], F), p1)
        lsiter = where(go, lsiter + 1, lsiter)
        fin = go & (abs(p1[2]) < gtol) & (p1[1] < 0)
        res = _found(fin, p1, lsiter, slopescl, res)
        done = done | fin
        if all_true(done):
            return res
    fin = lnot(done) & (lsiter >= ls_iterations)
    res = _found(fin, p1, lsiter, slopescl, res)
    done = done | fin
    if all_true(done):
        return res
    # bracketed: Newton points of both ends and the midpoint
    p2n = p1
    p1n = _pnt(m, d, w, ctx, qg1, qg2, p1[0] - p1[2] / p1[3], F)
    lsiter = where(done, lsiter, lsiter + 1)
    while True:
        go = lnot(done) & (lsiter < ls_iterations)
        if not any_true(go):
            break
        pmid = _pnt(m, d, w, ctx, qg1, qg2, 0.5 * (p1[0] + p2[0]), F)
        lsiter = where(go, lsiter + 1, lsiter)
        # the converged candidate of least cost, the first on a tie (p1n, p2n, pmid)
        have = abs(p1n[2]) < gtol
        best = p1n
        ok = (abs(p2n[2]) < gtol) & (lnot(have) | (p2n[1] < best[1]))
        best = _sel(ok, p2n, best)
        have = have | ok
        ok = (abs(pmid[2]) < gtol) & (lnot(have) | (pmid[1] < best[1]))
        best = _sel(ok, pmid, best)
        have = have | ok
        fin = go & have
        res = _found(fin, best, lsiter, slopescl, res)
        done = done | fin
        if all_true(done):
            return res
        live = go & lnot(have)
        c1, c2 = p1n, p2n
        p1, p1n, b1, n1 = _update_bracket(m, d, w, ctx, qg1, qg2, p1, c1, c2, pmid, p1n, live, F)
        p2, p2n, b2, n2 = _update_bracket(m, d, w, ctx, qg1, qg2, p2, c1, c2, pmid, p2n, live, F)
        lsiter = lsiter + n1 + n2
        fin = live & lnot(b1) & lnot(b2)
        res = _found(fin, pmid, lsiter, slopescl, res)
        done = done | fin
        if all_true(done):
            return res
    rest = lnot(done)
    c1 = rest & (p1[1] <= p2[1]) & (p1[1] < 0)
    res = _found(c1, p1, lsiter, slopescl, res)
    c2 = rest & lnot(c1) & (p2[1] <= p1[1]) & (p2[1] < 0)
    res = _found(c2, p2, lsiter, slopescl, res)
    c3 = rest & lnot(c1) & lnot(c2)
    return (where(c3, 0.0, res[0]), where(c3, 0.0, res[1]), where(c3, lsiter, res[2]), where(c3, 1.0, res[3]))


@njit(cache=True, always_inline=True)
def _blend(sel, dst, src, n):
    """dst[:n] = src[:n] in the lanes of sel."""
    for i in range(n):
        dst[i] = where(sel, src[i], dst[i])


def _keep_lanes(stop, ctx, d, w):
    """Keep the outputs (force, state, qacc, qfrc_constraint) of the lanes in stop aside: a block's lanes that
    converged while the others iterate (nothing for one world, which stops there)."""


@overload(_keep_lanes, inline="always")
def _keep_lanes_ov(stop, ctx, d, w):
    if isinstance(stop, types.Boolean):
        return lambda stop, ctx, d, w: None

    def impl(stop, ctx, d, w):
        se, sv, nefc, nv = d.scr_slv_efc[w], d.scr_slv_nv[w], ctx[16], ctx[17]
        _blend(stop, se[_FPREV], ctx[7], nefc)
        _blend(stop, se[_FMOM], ctx[8], nefc)
        _blend(stop, sv[_IQACC], ctx[11], nv)
        _blend(stop, sv[_IQFC], ctx[12], nv)

    return impl


def _restore_lanes(kept, ctx, d, w):
    """The kept outputs back into the lanes in kept."""


@overload(_restore_lanes, inline="always")
def _restore_lanes_ov(kept, ctx, d, w):
    if isinstance(kept, types.Boolean):
        return lambda kept, ctx, d, w: None

    def impl(kept, ctx, d, w):
        se, sv, nefc, nv = d.scr_slv_efc[w], d.scr_slv_nv[w], ctx[16], ctx[17]
        _blend(kept, ctx[7], se[_FPREV], nefc)
        _blend(kept, ctx[8], se[_FMOM], nefc)
        _blend(kept, ctx[11], sv[_IQACC], nv)
        _blend(kept, ctx[12], sv[_IQFC], nv)

    return impl


@njit(cache=True)
def sol_primal(m, d, w, maxiter, newton, isl, ctx, F, act0):
    """CG (newton False) or Newton primal solver from ctx's qacc on one island context (mj_solPrimal); returns the
    iterations made (to add to solver_niter).

    isl: island (-1 monolithic).  Newton's Hessian is sparse where MuJoCo's is (mj_isSparse), in feature sets
    with F_SPARSE (sim/engine/solver_sparse.py); the J products run over the rows' structural lists (scr_slv_Jind
    at ctx's row map, in ctx's dof numbering) when the constraint assembly kept them.
    act0: the lanes to solve (True for one world).  A block's lanes iterate together; a lane that converges (or
    whose line search stops) keeps its outputs aside and has them back at the end, so each lane's arithmetic is
    the one-world solver's while the block runs to its slowest lane."""
    J, aref, state, qfs, qacc, qfc, dofs, nefc, nv = (
        ctx[0],
        ctx[4],
        ctx[8],
        ctx[9],
        ctx[11],
        ctx[12],
        ctx[13],
        ctx[16],
        ctx[17],
    )
    sv = d.scr_slv_nv[w]
    Ma, Mv, grad, Mgrad, search = sv[_MA], sv[_MV], sv[_GRAD], sv[_MGRAD], sv[_SEARCH]
    gradold, Mgradold, graddif, Mgraddif = sv[_GRADOLD], sv[_MGRADOLD], sv[_GRADDIF], sv[_MGRADDIF]
    Jaref, Jv = d.scr_slv_efc[w, _JAREF], d.scr_slv_efc[w, _JV]
    oldstate = d.scr_slv_int[w, _OLDSTATE]
    tol = m.opt[OPT_TOLERANCE]
    ls_tol = tol * m.opt[OPT_LS_TOLERANCE]
    ls_iter = int(m.opt[OPT_LS_ITERATIONS])
    flg_cone = newton and int(m.opt[OPT_CONE]) == CONE_ELLIPTIC
    # MuJoCo's sparse mode (mj_isSparse, feature F_SPARSE): J products over each row's structural list when the
    # Data was made with room for them, Newton's Hessian sparse
    spj = _spj(F, m, d)
    sparse = newton and spj
    scale = inertia_scale(m, d, w, dofs, nv)

    mul_m(m, d, w, qacc, Ma, dofs, nv)
    if spj:
        _mul_j_dw(F, d, w, J, ctx[18], qacc, Jaref, nefc)
        for i in range(nefc):
            Jaref[i] -= aref[i]
    else:
        jar_dense(J, qacc, aref, Jaref, nefc, nv)
    cost, gauss, nactive, ncone = _primal_update_constraint(m, d, w, ctx, flg_cone, spj, F)
    for i in range(nv):
        grad[i] = Ma[i] - qfs[i] - qfc[i]
    _update_mgrad(m, d, w, ctx, False, 0, F, sparse)
    # zero-iteration exit certified by the duality gap 0.5 grad' M^-1 grad (and the gradient for Newton)
    flg_gap = max(0.0, 0.5 * scale * _dot(grad, Mgrad, nv)) < tol
    flg_gradient = scale * math.sqrt(_dot(grad, grad, nv)) < tol
    done = (flg_gap & (lnot(newton) | flg_gradient)) | lnot(act0)
    if newton and not all_true(done):
        if sparse:
            _make_hessian_sparse(F, m, d, w, ctx, True)
            _factorize_hessian(m, d, w, ctx, ncone, False, F, sparse)
        else:
            _factorize_hessian(m, d, w, ctx, ncone, True, F, sparse)
        _update_mgrad(m, d, w, ctx, True, ncone, F, sparse)
        done = done | (flg_gradient & (max(0.0, 0.5 * scale * _dot(grad, Mgrad, nv)) < tol))
    if not all_true(done):
        for i in range(nv):
            search[i] = -Mgrad[i]
    act = lnot(done)
    niter = where(act, 0, 0)
    kept = act & lnot(act)
    it = 0
    while any_true(act) and it < maxiter:
        alpha, ls_impr, lsiter, lsslope = _primal_search(m, d, w, ctx, ls_tol, ls_iter, scale, spj, F, act)
        stop = act & (alpha == 0)
        if any_true(stop):
            _keep_lanes(stop, ctx, d, w)
            niter = where(stop, it, niter)
            kept = kept | stop
            act = act & lnot(stop)
            if not any_true(act):
                break
        for i in range(nv):
            qacc[i] += search[i] * alpha
            Ma[i] += Mv[i] * alpha
        for i in range(nefc):
            Jaref[i] += Jv[i] * alpha
        if not newton:
            for i in range(nv):
                gradold[i] = grad[i]
                Mgradold[i] = Mgrad[i]
        for i in range(nefc):
            oldstate[i] = state[i]
        cost, gauss, nactive, ncone = _primal_update_constraint(m, d, w, ctx, flg_cone, spj, F)
        nupdate = 0
        if newton:
            nupdate = _hessian_incremental(m, d, w, ctx, ncone, F, sparse, act)
        for i in range(nv):
            grad[i] = Ma[i] - qfs[i] - qfc[i]
        _update_mgrad(m, d, w, ctx, newton, ncone, F, sparse)
        nchange = 0
        for i in range(nefc):
            nchange += where(state[i] != oldstate[i], 1, 0)
        improvement = scale * ls_impr
        gradient = scale * math.sqrt(_dot(grad, grad, nv))
        _save_stats(d, w, isl, it, improvement, gradient, lsslope, nactive, nchange, lsiter, nupdate, act)
        it += 1
        conv = ((improvement > 0) & (improvement < tol)) | (gradient < tol)
        if newton:
            conv = conv | (max(0.0, 0.5 * scale * _dot(grad, Mgrad, nv)) < tol)
        stop = act & conv
        if any_true(stop):
            _keep_lanes(stop, ctx, d, w)
            niter = where(stop, it, niter)
            kept = kept | stop
            act = act & lnot(stop)
            if not any_true(act):
                break
        if newton:
            for i in range(nv):
                search[i] = -Mgrad[i]
        else:
            # Hager-Zhang conjugate direction, restart to steepest descent when d'y < MINVAL
            for i in range(nv):
                graddif[i] = grad[i] - gradold[i]
                Mgraddif[i] = Mgrad[i] - Mgradold[i]
            d_dot_y = _dot(search, graddif, nv)
            restart = d_dot_y < MINVAL
            beta = 0.0
            if not all_true(restart):
                y_My = _dot(graddif, Mgraddif, nv)
                y_Mg = _dot(graddif, Mgrad, nv)
                d_g = _dot(search, grad, nv)
                beta_hz = (y_Mg - 2 * (y_My / d_dot_y) * d_g) / d_dot_y
                dn = math.sqrt(_dot(search, search, nv))
                gn = math.sqrt(_dot(grad, grad, nv))
                eta_k = -1.0 / max(MINVAL, dn * min(0.01, gn))
                beta = where(restart, 0.0, max(eta_k, beta_hz))
            for i in range(nv):
                search[i] = -Mgrad[i] + beta * search[i]
    niter = where(act, it, niter)
    _restore_lanes(kept, ctx, d, w)
    return niter


@njit(cache=True, always_inline=True)
def _world_ctx(m, d, w, state):
    """The primal context of the whole world (monolithic solve, or one island holding every row and dof);
    state: the efc state array the solver writes (efc_state, or island-local scratch)."""
    return (
        d.efc_J[w],
        d.efc_D[w],
        d.efc_R[w],
        d.efc_frictionloss[w],
        d.efc_aref[w],
        d.efc_type[w],
        d.efc_id[w],
        d.efc_force[w],
        state,
        d.qfrc_smooth[w],
        d.qacc_smooth[w],
        d.qacc[w],
        d.qfrc_constraint[w],
        d.scr_isl_int[w, 0],
        d.ne[w],
        d.nf[w],
        d.nefc[w],
        m.nv,
        d.scr_isl_int[w, 0, : d.nefc[w]],
        d.nefc[w],
    )


@njit(cache=True)
def _island_ctx(m, d, w, k):
    """Gather island k's rows and dofs into contiguous scratch (mj_island's iefc_* / mj_fwdConstraint's
    gathers) and return its primal context."""
    ea = d.island_iefcadr[w, k]
    da = d.island_idofadr[w, k]
    nefc = d.island_nefc[w, k]
    nv = d.island_nv[w, k]
    rows = d.map_iefc2efc[w, ea : ea + nefc]
    dofs = d.map_idof2dof[w, da : da + nv]
    se = d.scr_slv_efc[w]
    si = d.scr_slv_int[w]
    sv = d.scr_slv_nv[w]
    J, iJ = d.efc_J[w], d.scr_slv_J[w]
    D, R, fl, aref, force = d.efc_D[w], d.efc_R[w], d.efc_frictionloss[w], d.efc_aref[w], d.efc_force[w]
    typ, eid = d.efc_type[w], d.efc_id[w]
    iD, iR, ifl, iaref, iforce = se[_ID], se[_IR], se[_IFL], se[_IAREF], se[_IFORCE]
    ityp, ieid = si[_ITYPE], si[_IID]
    for c in range(nefc):
        r = rows[c]
        Jr = J[r]
        iJc = iJ[c]
        for ii in range(nv):
            iJc[ii] = Jr[dofs[ii]]
        iD[c] = D[r]
        iR[c] = R[r]
        ifl[c] = fl[r]
        iaref[c] = aref[r]
        iforce[c] = force[r]
        ityp[c] = typ[r]
        ieid[c] = eid[r]
    qfs, qas, qacc, qfc = d.qfrc_smooth[w], d.qacc_smooth[w], d.qacc[w], d.qfrc_constraint[w]
    iqfs, iqas, iqacc, iqfc = sv[_IQFS], sv[_IQAS], sv[_IQACC], sv[_IQFC]
    for ii in range(nv):
        i = dofs[ii]
        iqfs[ii] = qfs[i]
        iqas[ii] = qas[i]
        iqacc[ii] = qacc[i]
        iqfc[ii] = qfc[i]
    return (
        iJ,
        iD,
        iR,
        ifl,
        iaref,
        ityp,
        ieid,
        iforce,
        si[_ISTATE],
        iqfs,
        iqas,
        iqacc,
        iqfc,
        dofs,
        d.island_ne[w, k],
        d.island_nf[w, k],
        nefc,
        nv,
        rows,
        nefc,
    )


@njit(cache=True)
def _island_scatter(m, d, w, k, ctx):
    """Copy an island's solution back: efc_force rows, qacc and qfrc_constraint dofs."""
    ea = d.island_iefcadr[w, k]
    rows = d.map_iefc2efc[w, ea : ea + ctx[16]]
    force, iforce = d.efc_force[w], ctx[7]
    for c in range(ctx[16]):
        force[rows[c]] = iforce[c]
    dofs, iqacc, iqfc = ctx[13], ctx[11], ctx[12]
    qacc, qfc = d.qacc[w], d.qfrc_constraint[w]
    for ii in range(ctx[17]):
        qacc[dofs[ii]] = iqacc[ii]
        qfc[dofs[ii]] = iqfc[ii]


# the solvers a feature set does not use are not compiled (sim/jit/features.py)
_pgs_setup = call_if(F_PGS, pgs_setup)
_sol_pgs = call_if(F_PGS, sol_pgs)
_sol_primal = call_if(F_PRIMAL, sol_primal, 0)


@njit(cache=True)
def fwd_constraint(m, d, w, F):
    """qacc, efc_force, efc_state, qfrc_constraint of world w (mj_fwdConstraint); the PGS, the CG/Newton and the
    noslip solvers are compiled only for feature sets that use them (F, sim/jit/features.py).

    Islands (sim/engine/island.py) are discovered here and solved one by one (mj_sol*_island); the primal solvers
    keep their constraint states island-local (MuJoCo's iefc_state): efc_state keeps the warmstart's states.
    With DSBL_ISLAND or no island the problem is solved monolithically."""
    constraint_islands(m, d, w, F)
    constraint_warmstart(m, d, w, F)
    constraint_solve(m, d, w, F)


@njit(cache=True)
def constraint_islands(m, d, w, F):
    """mj_fwdConstraint's start of world w: the counters cleared, the islands; with no row, qacc = qacc_smooth and
    nothing is left to do."""
    nv, nefc = m.nv, d.nefc[w]
    qfc = d.qfrc_constraint[w]
    for i in range(nv):
        qfc[i] = 0.0
    d.solver_niter[w] = 0
    nit = d.solver_niter_island[w]
    for i in range(nit.shape[0]):
        nit[i] = 0
    if nefc == 0:
        d.nisland[w] = 0
        d.nidof[w] = 0
        qacc, qs = d.qacc[w], d.qacc_smooth[w]
        for i in range(nv):
            qacc[i] = qs[i]
        return
    iota = d.scr_isl_int[w, 0]
    for i in range(max(nv, nefc)):
        iota[i] = i
    island(m, d, w)


@njit(cache=True)
def constraint_warmstart(m, d, w, F):
    """mj_fwdConstraint of world w after constraint_islands, up to its solver calls: efc_b, the warmstart (and
    PGS's setup)."""
    nv, nefc = m.nv, d.nefc[w]
    if nefc == 0:
        return
    # efc_b = J qacc_smooth - aref; MuJoCo's sparse mode (mj_isSparse): J products over each row's structural list,
    # kept by the constraint assembly when the Data has room for them
    J, b, aref, qs = d.efc_J[w], d.efc_b[w], d.efc_aref[w], d.qacc_smooth[w]
    spj = _is_sparse(F, m) and has_lists(m, d, True)
    _jar(d, w, J, qs, aref, b, nefc, nv, spj, F)
    warmstart(m, d, w, spj, F)
    if int(m.opt[OPT_SOLVER]) == SOL_PGS:
        _pgs_setup(F, m, d, w)


@njit(cache=True)
def constraint_solve(m, d, w, F):
    """The rest of mj_fwdConstraint after constraint_warmstart: the solver on each island (or the whole world), noslip,
    and the dual solvers' qfrc_constraint and qacc."""
    nv, nefc = m.nv, d.nefc[w]
    if nefc == 0:
        return
    qfc = d.qfrc_constraint[w]
    iota = d.scr_isl_int[w, 0]
    J, qs = d.efc_J[w], d.qacc_smooth[w]
    spj = _is_sparse(F, m) and has_lists(m, d, True)
    solver = int(m.opt[OPT_SOLVER])
    newton = solver == SOL_NEWTON
    maxiter = int(m.opt[OPT_ITERATIONS])
    nisland = d.nisland[w]
    if nisland > 0:
        for k in range(nisland):
            if solver == SOL_PGS:
                ea = d.island_iefcadr[w, k]
                da = d.island_idofadr[w, k]
                rows = d.map_iefc2efc[w, ea : ea + d.island_nefc[w, k]]
                dofs = d.map_idof2dof[w, da : da + d.island_nv[w, k]]
                lst = (rows, d.island_ne[w, k], d.island_nf[w, k], d.island_nefc[w, k], dofs, d.island_nv[w, k])
                _sol_pgs(F, m, d, w, maxiter, True, k, lst, F)
            elif nisland == 1 and d.island_nefc[w, 0] == nefc and d.island_nv[w, 0] == nv:
                # one island with every row and dof: solve in place, states island-local
                it = _sol_primal(
                    F, m, d, w, maxiter, newton, k, _world_ctx(m, d, w, d.scr_slv_int[w, _ISTATE]), F, True
                )
                _add_niter(d, w, k, it)
            else:
                ctx = _island_ctx(m, d, w, k)
                if spj:
                    # the island's rows' lists in its dof numbering (mju_blockSparse), for its solve
                    _local_lists(F, d.scr_slv_Jind[w], ctx[18], ctx[16], d.map_dof2idof[w], d.island_idofadr[w, k])
                it = _sol_primal(F, m, d, w, maxiter, newton, k, ctx, F, True)
                _add_niter(d, w, k, it)
                _island_scatter(m, d, w, k, ctx)
                if spj:
                    _global_lists(F, d.scr_slv_Jind[w], ctx[18], ctx[16], ctx[13])
    else:
        if solver == SOL_PGS:
            lst0 = (iota[:nefc], d.ne[w], d.nf[w], nefc, iota[:nv], nv)
            _sol_pgs(F, m, d, w, maxiter, True, -1, lst0, F)
        else:
            it = _sol_primal(F, m, d, w, maxiter, newton, -1, _world_ctx(m, d, w, d.efc_state[w]), F, True)
            _add_niter(d, w, -1, it)
    # noslip (feature F_NOSLIP), per island as the main solver
    noslip = _noslip(F, m, d, w, solver, F)
    if solver == SOL_PGS or noslip:
        # dualFinish: qfrc_constraint = J'f, qacc = qacc_smooth + M^-1 qfrc_constraint
        qa = d.qacc[w]
        mul_jt(J, d.efc_force[w], qfc, nefc, nv)
        for i in range(nv):
            qa[i] = qfc[i]
        solve_m_local(m, d, w, qa, iota, nv)
        for i in range(nv):
            qa[i] += qs[i]
