"""Constraint solvers on MuJoCo's convex soft-constraint problem: PGS, CG, Newton (engine_solver.c).

Monolithic solve (MuJoCo with the island disable flag): mj_fwdConstraint's warmstart, then
- PGS (mj_solPGS): projected Gauss-Seidel on the dual with AR = J M^-1 J' + R, shuffled block order
  (PCG32, fixed seed), Nesterov momentum with gradient restarts, friction-loss boxes, pyramidal
  non-negativity and elliptic-cone ray + QCQP updates; forces mapped back by dualFinish.
- CG / Newton (mj_solPrimal): primal minimisation of Gauss + constraint cost with MuJoCo's exact
  1-D Newton line search (PrimalSearch/PrimalEval), Hager-Zhang CG directions preconditioned by M^-1,
  Newton directions from a dense Hessian M + J'DJ (+ elliptic cone blocks J'HcJ) refactorised every
  iteration (MuJoCo updates its factor by rank-1 updates: same matrix up to rounding).
Efc rows are dense (efc_J (njmax, nv)); scratch lives in the scr_slv_* fields (sim/fields_solver.py).
"""
import math

import numpy as np
from sim.jit import njit

from sim.crb import solve_m
from sim.fields_solver import NISLAND, MJ_NSOLVER
from sim.island import island
from sim.features import call_if, F_PGS, F_PRIMAL
from sim.types import (OPT_DISABLE, OPT_SOLVER, OPT_ITERATIONS, OPT_LS_ITERATIONS, OPT_TOLERANCE,
                       OPT_LS_TOLERANCE, OPT_CONE, DSBL_WARMSTART, SOL_PGS, SOL_NEWTON, CONE_ELLIPTIC,
                       CNSTR_CONTACT_ELLIPTIC, CNSTRSTATE_SATISFIED, CNSTRSTATE_QUADRATIC,
                       CNSTRSTATE_LINEARNEG, CNSTRSTATE_LINEARPOS, CNSTRSTATE_CONE, MINVAL,
                       UnsupportedFeature)

# rows of scr_slv_nv
_MA, _MV, _GRAD, _MGRAD, _SEARCH, _GRADOLD, _MGRADOLD, _GRADDIF, _MGRADDIF, _TMP = range(10)
# rows of scr_slv_efc
_JAREF, _JV, _DIAG, _FPREV, _FMOM = range(5)


# ------------------------------------------------------------------------------------------------
# small linear algebra (mju_* equivalents)

@njit(cache=True)
def _dot(a, b, n):
    """a[:n] . b[:n] summed in mju_dot's order (4 interleaved partial sums, then the tail)."""
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
def _dot_idx(a, b, idx, n):
    """sum_k a[idx[k]] b[idx[k]], k < n, in mju_dot's order (dot of the gathered island vectors)."""
    r0 = 0.0
    r1 = 0.0
    r2 = 0.0
    r3 = 0.0
    i = 0
    while i <= n - 4:
        r0 += a[idx[i]] * b[idx[i]]
        r1 += a[idx[i + 1]] * b[idx[i + 1]]
        r2 += a[idx[i + 2]] * b[idx[i + 2]]
        r3 += a[idx[i + 3]] * b[idx[i + 3]]
        i += 4
    res = (r0 + r2) + (r1 + r3)
    k = n - i
    if k == 3:
        res += a[idx[i]] * b[idx[i]] + a[idx[i + 1]] * b[idx[i + 1]] + a[idx[i + 2]] * b[idx[i + 2]]
    elif k == 2:
        res += a[idx[i]] * b[idx[i]] + a[idx[i + 1]] * b[idx[i + 1]]
    elif k == 1:
        res += a[idx[i]] * b[idx[i]]
    return res


@njit(cache=True)
def mul_m(m, d, w, x, out, dofs, nv):
    """out[dofs[:nv]] = M x on the listed dofs (whole trees), CSR lower storage (mju_mulSymVecSparse)."""
    M = d.M[w]
    for ii in range(nv):
        out[dofs[ii]] = 0.0
    for ii in range(nv):
        i = dofs[ii]
        adr = m.M_rowadr[i]
        nnz = m.M_rownnz[i]
        s = 0.0
        for t in range(nnz):
            s += M[adr + t] * x[m.M_colind[adr + t]]
        out[i] += s
        for t in range(nnz - 1):
            out[m.M_colind[adr + t]] += M[adr + t] * x[i]


@njit(cache=True)
def mul_j(J, x, out, rows, nefc, dofs, nv):
    """out[rows[:nefc]] = J x over the listed rows / dof columns of dense J (njmax, nv)."""
    for c in range(nefc):
        i = rows[c]
        out[i] = _dot_idx(J[i], x, dofs, nv)


@njit(cache=True)
def mul_jt(J, f, out, rows, nefc, dofs, nv):
    """out[dofs[:nv]] = J' f over the listed rows / dof columns of dense J (njmax, nv)."""
    for kk in range(nv):
        out[dofs[kk]] = 0.0
    for c in range(nefc):
        i = rows[c]
        fi = f[i]
        if fi != 0.0:
            for kk in range(nv):
                k = dofs[kk]
                out[k] += J[i, k] * fi


@njit(cache=True)
def chol_factor(a, n, mindiag):
    """In-place dense Cholesky of the lower triangle of a (n, n), diagonal clamped to mindiag (mju_cholFactor)."""
    rank = n
    for j in range(n):
        t = a[j, j]
        for k in range(j):
            t -= a[j, k] * a[j, k]
        deficient = t < mindiag
        if deficient:
            t = mindiag
            rank -= 1
        a[j, j] = math.sqrt(t)
        if deficient:
            for i in range(j + 1, n):
                a[i, j] = 0.0
        else:
            inv = 1.0 / a[j, j]
            for i in range(j + 1, n):
                s = a[i, j]
                for k in range(j):
                    s -= a[i, k] * a[j, k]
                a[i, j] = s * inv
    return rank


@njit(cache=True)
def chol_solve(a, n, b, x):
    """x (n,) = (L L')^-1 b with L the lower factor in a (mju_cholSolve); x may alias b."""
    for i in range(n):
        s = b[i]
        for k in range(i):
            s -= a[i, k] * x[k]
        x[i] = s / a[i, i]
    for i in range(n - 1, -1, -1):
        s = x[i]
        for k in range(i + 1, n):
            s -= a[k, i] * x[k]
        x[i] = s / a[i, i]


# ------------------------------------------------------------------------------------------------
# constraint state / cost (mj_constraintUpdate_impl, engine_core_constraint.c)

@njit(cache=True)
def constraint_update(m, d, w, jar, flg_cone_hessian, rows, ne, nf, nefc):
    """efc_force/efc_state and cost s(jar) on the listed rows rows[:nefc] (ne equality, nf friction first)
    for jar = J qacc - aref; cone Hessians in contact_H.

    qfrc_constraint = J' efc_force is left to the caller."""
    D, R, floss = d.efc_D[w], d.efc_R[w], d.efc_frictionloss[w]
    force, state, typ, eid = d.efc_force[w], d.efc_state[w], d.efc_type[w], d.efc_id[w]
    s = 0.0
    for c in range(nefc):
        i = rows[c]
        force[i] = -D[i] * jar[i]
    c = 0
    while c < nefc:
        i = rows[c]
        if c < ne:
            s += 0.5 * D[i] * jar[i] * jar[i]
            state[i] = CNSTRSTATE_QUADRATIC
        elif c < ne + nf:
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
            mu = d.contact_mu[w, con]
            fr = d.contact_friction[w, con]
            dim = d.contact_dim[w, con]
            # regular dual cone coordinates U = diag(mu, friction) jar; N normal, T tangent norm
            N = jar[i] * mu
            T2 = 0.0
            for j in range(1, dim):
                u = jar[i + j] * fr[j - 1]
                T2 += u * u
            T = math.sqrt(T2)
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
                    H = d.contact_H[w, con]
                    scl = -mu / T
                    H[0] = 1.0
                    for j in range(1, dim):
                        H[j] = scl * jar[i + j] * fr[j - 1]
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
            c += dim
            continue
        c += 1
    return s


# ------------------------------------------------------------------------------------------------
# warmstart and driver (mj_fwdConstraint, engine_forward.c)

@njit(cache=True)
def make_ar(m, d, w):
    """scr_slv_AR (nefc, nefc) = J M^-1 J' + diag(R) (efc_AR of mj_projectConstraint, dense)."""
    nefc, nv = d.nefc[w], m.nv
    AR = d.scr_slv_AR[w]
    if AR.shape[0] < nefc:
        raise UnsupportedFeature('PGS: nefc exceeds the dense AR capacity (sim.fields_solver.AR_CAP)')
    J = d.efc_J[w]
    x = d.scr_slv_nv[w, _TMP]
    for i in range(nefc):
        for k in range(nv):
            x[k] = J[i, k]
        solve_m(m, d, w, x)
        for j in range(i + 1):
            s = 0.0
            for k in range(nv):
                s += J[j, k] * x[k]
            AR[i, j] = s
            AR[j, i] = s
    for i in range(nefc):
        AR[i, i] += d.efc_R[w, i]


@njit(cache=True)
def warmstart(m, d, w, iota):
    """Initial qacc (and efc_force for PGS): best of qacc_warmstart and qacc_smooth (mj_fwdConstraint).

    iota: identity list (monolithic rows / dofs). With islands, unconstrained dofs restart at qacc_smooth."""
    nv, nefc = m.nv, d.nefc[w]
    qacc, qs = d.qacc[w], d.qacc_smooth[w]
    if int(m.opt[OPT_DISABLE]) & DSBL_WARMSTART:
        qacc[:] = qs
        for i in range(nefc):
            d.efc_force[w, i] = 0.0
        return
    qw = d.qacc_warmstart[w]
    qacc[:] = qw
    jar = d.scr_slv_efc[w, _JAREF]
    mul_j(d.efc_J[w], qw, jar, iota, nefc, iota, nv)
    for i in range(nefc):
        jar[i] -= d.efc_aref[w, i]
    cost_ws = constraint_update(m, d, w, jar, False, iota, d.ne[w], d.nf[w], nefc)
    mul_jt(d.efc_J[w], d.efc_force[w], d.qfrc_constraint[w], iota, nefc, iota, nv)
    if int(m.opt[OPT_SOLVER]) == SOL_PGS:
        # dual cost of the warmstart forces: f'b + 0.5 f'AR f; zero forces if positive
        f, AR, ARf = d.efc_force[w], d.scr_slv_AR[w], d.scr_slv_efc[w, _FPREV]
        c = _dot(f, d.efc_b[w], nefc)
        for i in range(nefc):
            ARf[i] = _dot(AR[i], f, nefc)
        c += 0.5 * _dot(f, ARf, nefc)
        if c > 0:
            for i in range(nefc):
                f[i] = 0.0
            d.qfrc_constraint[w][:] = 0.0
    else:
        Ma = d.scr_slv_nv[w, _MA]
        mul_m(m, d, w, qw, Ma, iota, nv)
        for i in range(nv):
            cost_ws += 0.5 * (Ma[i] - d.qfrc_smooth[w, i]) * (qw[i] - qs[i])
        cost_smooth = constraint_update(m, d, w, d.efc_b[w], False, iota, d.ne[w], d.nf[w], nefc)
        if cost_ws > cost_smooth:
            qacc[:] = qs
    if d.nisland[w] > 0:
        for i in range(d.nidof[w], nv):
            dof = d.map_idof2dof[w, i]
            qacc[dof] = qs[dof]


@njit(cache=True)
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
def _save_stats(d, w, isl, it, improvement, gradient, lineslope, nactive, nchange, neval, nupdate):
    """Store one iteration's mjSolverStat of island isl (-1: monolithic, stored as island 0) (saveStats)."""
    isl = max(isl, 0)
    if isl >= NISLAND or it >= MJ_NSOLVER:
        return
    k = isl * MJ_NSOLVER + it
    d.solver_improvement[w, k] = improvement
    d.solver_gradient[w, k] = gradient
    d.solver_lineslope[w, k] = lineslope
    d.solver_nactive[w, k] = nactive
    d.solver_nchange[w, k] = nchange
    d.solver_neval[w, k] = neval
    d.solver_nupdate[w, k] = nupdate


@njit(cache=True)
def _add_niter(d, w, isl, it):
    """Accumulate the iteration count of island isl (-1: monolithic = island 0)."""
    isl = max(isl, 0)
    if isl < NISLAND:
        d.solver_niter_island[w, isl] += it
        if isl == 0:
            d.solver_niter[w] += it


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


@njit(cache=True)
def _dual_state(m, d, w, rows, ne, nf, nefc):
    """efc_state of the listed rows from the dual forces; returns nactive (dualState)."""
    force, floss, state = d.efc_force[w], d.efc_frictionloss[w], d.efc_state[w]
    nactive = ne + nf
    for c in range(ne):
        state[rows[c]] = CNSTRSTATE_QUADRATIC
    for c in range(ne, ne + nf):
        i = rows[c]
        if force[i] <= -floss[i]:
            state[i] = CNSTRSTATE_LINEARPOS
        elif force[i] >= floss[i]:
            state[i] = CNSTRSTATE_LINEARNEG
        else:
            state[i] = CNSTRSTATE_QUADRATIC
    c = ne + nf
    while c < nefc:
        i = rows[c]
        if d.efc_type[w, i] != CNSTR_CONTACT_ELLIPTIC:
            if force[i] <= 0:
                state[i] = CNSTRSTATE_SATISFIED
            else:
                state[i] = CNSTRSTATE_QUADRATIC
                nactive += 1
            c += 1
            continue
        con = d.efc_id[w, i]
        dim = d.contact_dim[w, con]
        mu = d.contact_mu[w, con]
        N = force[i] / mu
        T2 = 0.0
        for j in range(1, dim):
            fj = force[i + j] / d.contact_friction[w, con, j - 1]
            T2 += fj * fj
        T = math.sqrt(T2)
        if mu * N >= T:
            st = CNSTRSTATE_SATISFIED
        elif N + mu * T <= 0:
            st = CNSTRSTATE_QUADRATIC
            nactive += dim
        else:
            st = CNSTRSTATE_CONE
            nactive += dim
        for j in range(dim):
            state[i + j] = st
        c += dim
    return nactive


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
        deriv = (-2.0 * (P11 * v1 * v1 + P22 * v2 * v2 + P33 * v3 * v3)
                 - 4.0 * (P12 * v1 * v2 + P13 * v1 * v3 + P23 * v2 * v3))
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


@njit(cache=True)
def sol_pgs(m, d, w, maxiter, nesterov, isl, lst):
    """Projected Gauss-Seidel on the dual over one island's rows (solPGS); efc_force in, efc_force/state out.

    isl: island (-1 monolithic); lst = (rows, ne, nf, nefc, dofs, nv) of the island (identity if monolithic).
    Residuals use the full AR rows (zero across islands), as MuJoCo's dense path."""
    rows, ne, nf, nefc, dofs, nvi = lst
    nefc_all = d.nefc[w]
    force, floss, AR, b = d.efc_force[w], d.efc_frictionloss[w], d.scr_slv_AR[w], d.efc_b[w]
    ARinv = d.scr_slv_efc[w, _DIAG]
    fprev = d.scr_slv_efc[w, _FPREV]
    fmom = d.scr_slv_efc[w, _FMOM]
    oldstate = d.scr_slv_int[w, 0]
    blockstart = d.scr_slv_int[w, 1]
    small = d.scr_slv_small[w]
    res = small[0:6]
    oldf = small[6:12]
    v = small[12:18]
    bc = small[18:23]
    Ac = small[23:48]
    Athis = small[48:84].reshape((6, 6))
    qwork = small[96:160]
    scale = inertia_scale(m, d, w, dofs, nvi)
    tol = m.opt[OPT_TOLERANCE]
    if nesterov:
        for c in range(nefc):
            fprev[rows[c]] = force[rows[c]]
    for c in range(nefc):
        i = rows[c]
        ARinv[i] = 1.0 / AR[i, i]
    _dual_state(m, d, w, rows, ne, nf, nefc)
    nblocks = 0
    c = 0
    while c < nefc:
        blockstart[nblocks] = c
        nblocks += 1
        i = rows[c]
        if d.efc_type[w, i] == CNSTR_CONTACT_ELLIPTIC:
            c += d.contact_dim[w, d.efc_id[w, i]]
        else:
            c += 1
    rng, _ = _pcg32_next(np.uint64(0))
    it = 0
    nest_k = 0
    while it < maxiter:
        if nesterov:
            beta = 0.0
            if it > 0:
                beta = (nest_k - 1) / (nest_k + 2)
            if beta > 0:
                for c in range(nefc):
                    i = rows[c]
                    fs = force[i]
                    force[i] += beta * (force[i] - fprev[i])
                    fprev[i] = fs
                for c in range(ne, ne + nf):
                    i = rows[c]
                    force[i] = min(max(force[i], -floss[i]), floss[i])
                c = ne + nf
                while c < nefc:
                    i = rows[c]
                    if d.efc_type[w, i] == CNSTR_CONTACT_ELLIPTIC:
                        cid = d.efc_id[w, i]
                        dim = d.contact_dim[w, cid]
                        if force[i] < 0:
                            for j in range(dim):
                                force[i + j] = 0.0
                        else:
                            _project_ellipsoid(force, i + 1, force[i], d.contact_friction[w, cid], dim, True)
                        c += dim
                    else:
                        if force[i] < 0:
                            force[i] = 0.0
                        c += 1
            else:
                for c in range(nefc):
                    fprev[rows[c]] = force[rows[c]]
            for c in range(nefc):
                fmom[rows[c]] = force[rows[c]]
        improvement = 0.0
        # Fisher-Yates shuffle of the block order
        for k in range(nblocks - 1, 0, -1):
            rng, r32 = _pcg32_next(rng)
            j = int(r32 % np.uint64(k + 1))
            t = blockstart[k]
            blockstart[k] = blockstart[j]
            blockstart[j] = t
        for bi in range(nblocks):
            cb = blockstart[bi]
            i = rows[cb]
            ell = d.efc_type[w, i] == CNSTR_CONTACT_ELLIPTIC
            dim = d.contact_dim[w, d.efc_id[w, i]] if ell else 1
            for j in range(dim):
                res[j] = b[i + j] + _dot(AR[i + j], force, nefc_all)
            for j in range(dim):
                oldf[j] = force[i + j]
            if not ell:
                force[i] -= res[0] * ARinv[i]
                if cb >= ne and cb < ne + nf:
                    if force[i] < -floss[i]:
                        force[i] = -floss[i]
                    elif force[i] > floss[i]:
                        force[i] = floss[i]
                elif cb >= ne + nf:
                    if force[i] < 0:
                        force[i] = 0.0
                delta = force[i] - oldf[0]
                change = 0.5 * delta * delta * (1.0 / ARinv[i]) + delta * res[0]
                if change > 1e-10:
                    force[i] = oldf[0]
                    change = 0.0
                improvement -= change
                continue
            cid = d.efc_id[w, i]
            fr = d.contact_friction[w, cid]
            for j in range(dim):
                for k in range(dim):
                    Athis[j, k] = AR[i + j, i + k]
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
                denom = 0.0
                for j in range(dim):
                    s = 0.0
                    for k in range(dim):
                        s += Athis[j, k] * v[k]
                    denom += v[j] * s
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
                s = 0.0
                for k in range(n1):
                    Ac[j * n1 + k] = Athis[j + 1, k + 1]
                    s += Athis[j + 1, k + 1] * oldf[k + 1]
                bc[j] -= s
                bc[j] += Athis[j + 1, 0] * (force[i] - oldf[0])
            if force[i] < MINVAL:
                for j in range(1, dim):
                    force[i + j] = 0.0
            else:
                if dim == 3:
                    act = qcqp2(v, Ac, bc, fr, force[i])
                elif dim == 4:
                    act = qcqp3(v, Ac, bc, fr, force[i])
                else:
                    act = qcqp_n(v, Ac, bc, fr, force[i], n1, qwork)
                if act:
                    _project_ellipsoid(v, 0, force[i], fr, dim, False)
                for j in range(n1):
                    force[i + 1 + j] = v[j]
            # cost change over the block; restore if positive
            change = 0.0
            for j in range(dim):
                dj = force[i + j] - oldf[j]
                s = 0.0
                for k in range(dim):
                    s += Athis[j, k] * (force[i + k] - oldf[k])
                change += 0.5 * dj * s + dj * res[j]
            if change > 1e-10:
                for j in range(dim):
                    force[i + j] = oldf[j]
                change = 0.0
            improvement -= change
        for c in range(nefc):
            oldstate[rows[c]] = d.efc_state[w, rows[c]]
        nactive = _dual_state(m, d, w, rows, ne, nf, nefc)
        nchange = 0
        for c in range(nefc):
            nchange += oldstate[rows[c]] != d.efc_state[w, rows[c]]
        improvement *= scale
        _save_stats(d, w, isl, it, improvement, 0.0, 0.0, nactive, nchange, 0, 0)
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
# primal solvers (mj_solPrimal): cost, line search, Hessian

@njit(cache=True)
def _primal_update_constraint(m, d, w, flg_cone, lst):
    """efc_force/state, qfrc_constraint, cost incl. Gauss on the island lst; returns (cost, gauss, nactive, ncone)."""
    rows, ne, nf, nefc, dofs, nv = lst
    cost = constraint_update(m, d, w, d.scr_slv_efc[w, _JAREF], flg_cone, rows, ne, nf, nefc)
    mul_jt(d.efc_J[w], d.efc_force[w], d.qfrc_constraint[w], rows, nefc, dofs, nv)
    nactive = 0
    ncone = 0
    for c in range(nefc):
        i = rows[c]
        nactive += d.efc_state[w, i] != CNSTRSTATE_SATISFIED
        ncone += d.efc_state[w, i] == CNSTRSTATE_CONE
    Ma = d.scr_slv_nv[w, _MA]
    gauss = 0.0
    for ii in range(nv):
        i = dofs[ii]
        gauss += 0.5 * (Ma[i] - d.qfrc_smooth[w, i]) * (d.qacc[w, i] - d.qacc_smooth[w, i])
    return cost + gauss, gauss, nactive, ncone


@njit(cache=True)
def _make_hessian(m, d, w, ncone, lst):
    """scr_slv_H[:nv, :nv] = Cholesky factor of the island's M + J' D_quadratic J (+ J_c' H_c J_c for cones).

    Island-local dof order dofs[:nv]; M entries of a dof lie in its own tree, a contiguous dof block in
    both the global and the island order, so column col of row i maps to local ii - (i - col)."""
    rows, ne, nf, nefc, dofs, nv = lst
    H = d.scr_slv_H[w]
    J = d.efc_J[w]
    M = d.M[w]
    for i in range(nv):
        for j in range(nv):
            H[i, j] = 0.0
    for c in range(nefc):
        r = rows[c]
        if d.efc_state[w, r] != CNSTRSTATE_QUADRATIC:
            continue
        Dr = d.efc_D[w, r]
        for ii in range(nv):
            a = J[r, dofs[ii]] * Dr
            if a != 0.0:
                for jj in range(ii + 1):
                    H[ii, jj] += a * J[r, dofs[jj]]
    if ncone:
        cr = 0
        while cr < nefc:
            r = rows[cr]
            if d.efc_state[w, r] == CNSTRSTATE_CONE:
                c = d.efc_id[w, r]
                dim = d.contact_dim[w, c]
                Hc = d.contact_H[w, c]
                for p in range(dim):
                    for q in range(dim):
                        h = Hc[p * dim + q]
                        for ii in range(nv):
                            a = J[r + p, dofs[ii]] * h
                            if a != 0.0:
                                for jj in range(ii + 1):
                                    H[ii, jj] += a * J[r + q, dofs[jj]]
                cr += dim
            else:
                cr += 1
    for ii in range(nv):
        i = dofs[ii]
        adr = m.M_rowadr[i]
        for t in range(m.M_rownnz[i]):
            H[ii, ii - (i - m.M_colind[adr + t])] += M[adr + t]
    chol_factor(H, nv, MINVAL)


@njit(cache=True)
def _update_mgrad(m, d, w, newton, lst):
    """Mgrad = H^-1 grad (Newton, island-local factor) or M^-1 grad (CG) on the island's dofs (PrimalUpdateMgrad).

    The CG solve runs on the full vector: the LD factor is block-diagonal over trees, so the island
    entries equal those of the island block solve."""
    dofs = lst[4]
    nv = lst[5]
    g = d.scr_slv_nv[w, _GRAD]
    mg = d.scr_slv_nv[w, _MGRAD]
    if newton:
        tmp = d.scr_slv_nv[w, _TMP]
        for ii in range(nv):
            tmp[ii] = g[dofs[ii]]
        chol_solve(d.scr_slv_H[w], nv, tmp, tmp)
        for ii in range(nv):
            mg[dofs[ii]] = tmp[ii]
    else:
        mg[:] = g
        solve_m(m, d, w, mg)


@njit(cache=True)
def _friction_cost(x, f, Rf, D):
    """Huber cost of one friction-loss row at x (frictionCost)."""
    if -Rf < x and x < Rf:
        return 0.5 * D * x * x
    elif x <= -Rf:
        return f * (-0.5 * Rf - x)
    return f * (-0.5 * Rf + x)


@njit(cache=True)
def _friction_cost_dif(start, x, f, Rf, D):
    """cost(x) - cost(start) of one friction-loss row (frictionCostDif)."""
    s0 = 0 if (-Rf < start and start < Rf) else (-1 if start <= -Rf else 1)
    s1 = 0 if (-Rf < x and x < Rf) else (-1 if x <= -Rf else 1)
    if s0 == 0 and s1 == 0:
        return 0.5 * D * (x - start) * (x + start)
    if s0 == -1 and s1 == -1:
        return f * (start - x)
    if s0 == 1 and s1 == 1:
        return f * (x - start)
    return _friction_cost(x, f, Rf, D) - _friction_cost(start, f, Rf, D)


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


@njit(cache=True)
def _primal_prepare(m, d, w, qg, lst):
    """Per-row quadratics quad (3 nefc (+6),) and Gauss coefficients qg[1:3] along search (PrimalPrepare)."""
    rows, ne, nf, nefc, dofs, nv = lst
    sv = d.scr_slv_nv[w]
    v = sv[_SEARCH]
    qg[1] = _dot_idx(v, sv[_MA], dofs, nv) - _dot_idx(d.qfrc_smooth[w], v, dofs, nv)
    qg[2] = 0.5 * _dot_idx(v, sv[_MV], dofs, nv)
    Jv, Jaref, D = d.scr_slv_efc[w, _JV], d.scr_slv_efc[w, _JAREF], d.efc_D[w]
    quad = d.scr_slv_quad[w]
    cr = 0
    while cr < nefc:
        i = rows[cr]
        q = 3 * i
        DJ0 = D[i] * Jaref[i]
        quad[q] = Jaref[i] * DJ0
        quad[q + 1] = Jv[i] * DJ0
        quad[q + 2] = Jv[i] * D[i] * Jv[i]
        step = 1
        if d.efc_type[w, i] == CNSTR_CONTACT_ELLIPTIC:
            c = d.efc_id[w, i]
            dim = d.contact_dim[w, c]
            mu = d.contact_mu[w, c]
            fr = d.contact_friction[w, c]
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
        cr += step


@njit(cache=True)
def _primal_eval(m, d, w, qg, alpha, lst):
    """(cost(alpha) - cost(0), d/dalpha, d2/dalpha2) along the search direction (PrimalEval)."""
    rows, ne, nf, nefc = lst[0], lst[1], lst[2], lst[3]
    Jv, Jaref = d.scr_slv_efc[w, _JV], d.scr_slv_efc[w, _JAREF]
    quad = d.scr_slv_quad[w]
    cost = 0.0
    d0 = 0.0
    d1 = 0.0
    t0 = 0.0
    t1 = qg[1]
    t2 = qg[2]
    cr = 0
    while cr < nefc:
        i = rows[cr]
        if cr < ne:
            t1 += quad[3 * i + 1]
            t2 += quad[3 * i + 2]
            cr += 1
            continue
        if cr < ne + nf:
            start = Jaref[i]
            dr = Jv[i]
            x = start + alpha * dr
            f = d.efc_frictionloss[w, i]
            Di = d.efc_D[w, i]
            Rf = d.efc_R[w, i] * f
            cost += _friction_cost_dif(start, x, f, Rf, Di)
            if -Rf < x and x < Rf:
                d0 += Di * x * dr
                d1 += Di * dr * dr
            elif x <= -Rf:
                d0 += -f * dr
            else:
                d0 += f * dr
            cr += 1
            continue
        if d.efc_type[w, i] == CNSTR_CONTACT_ELLIPTIC:
            c = d.efc_id[w, i]
            dim = d.contact_dim[w, c]
            mu = d.contact_mu[w, c]
            q = 3 * i
            U0, V0, UU, UV, VV, Dm = quad[q + 3], quad[q + 4], quad[q + 5], quad[q + 6], quad[q + 7], quad[q + 8]
            cost += _elliptic_cost_dif(quad, q, alpha, mu, Dm)
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
            cr += dim
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
        cr += 1
    cost += alpha * alpha * t2 + alpha * t1 + t0
    d0 += 2 * alpha * t2 + t1
    d1 += 2 * t2
    if d1 <= 0:
        d1 = MINVAL
    return cost, d0, d1


@njit(cache=True)
def _update_bracket(m, d, w, qg, p, cands, pn, lst):
    """Move bracket point p (alpha, cost, d0, d1) to a better candidate, refresh its Newton point pn (updateBracket).

    Returns (flag, neval)."""
    flag = 0
    for k in range(3):
        if p[2] < 0 and cands[k, 2] < 0 and p[2] < cands[k, 2]:
            p[:] = cands[k]
            flag = 1
        elif p[2] > 0 and cands[k, 2] > 0 and p[2] > cands[k, 2]:
            p[:] = cands[k]
            flag = 2
    if flag:
        a = p[0] - p[2] / p[3]
        pn[0] = a
        pn[1], pn[2], pn[3] = _primal_eval(m, d, w, qg, a, lst)
        return flag, 1
    return flag, 0


@njit(cache=True)
def _set_pnt(m, d, w, qg, p, alpha, lst):
    p[0] = alpha
    p[1], p[2], p[3] = _primal_eval(m, d, w, qg, alpha, lst)


@njit(cache=True)
def _primal_search(m, d, w, qg, tolerance, ls_iterations, scale, pts, lst):
    """Exact 1-D Newton line search with bracketing (PrimalSearch).

    pts (7, 4) scratch points (alpha, cost, d0, d1). Returns (alpha, improvement, lsiter, lsslope)."""
    rows, ne, nf, nefc, dofs, nv = lst
    sv = d.scr_slv_nv[w]
    search = sv[_SEARCH]
    snorm = math.sqrt(_dot_idx(search, search, dofs, nv))
    if snorm < MINVAL:
        return 0.0, 0.0, 0, 1.0
    gtol = tolerance * snorm / scale
    slopescl = scale / snorm
    mul_m(m, d, w, search, sv[_MV], dofs, nv)
    mul_j(d.efc_J[w], search, d.scr_slv_efc[w, _JV], rows, nefc, dofs, nv)
    _primal_prepare(m, d, w, qg, lst)
    p0, p1, p2, pmid, p1n, p2n = pts[0], pts[1], pts[2], pts[3], pts[4], pts[5]
    cands = pts[6:9]
    _set_pnt(m, d, w, qg, p0, 0.0, lst)
    _set_pnt(m, d, w, qg, p1, p0[0] - p0[2] / p0[3], lst)
    lsiter = 2
    if abs(p1[2]) < gtol and (p1[0] == 0 or p1[1] < 0):
        return p1[0], -p1[1], lsiter, abs(p1[2]) * slopescl
    direc = 1.0 if p1[2] < 0 else -1.0
    p2[:] = p0
    while p1[2] * direc <= -gtol and lsiter < ls_iterations:
        p2[:] = p1
        _set_pnt(m, d, w, qg, p1, p1[0] - p1[2] / p1[3], lst)
        lsiter += 1
        if abs(p1[2]) < gtol and p1[1] < 0:
            return p1[0], -p1[1], lsiter, abs(p1[2]) * slopescl
    if lsiter >= ls_iterations:
        return p1[0], -p1[1], lsiter, abs(p1[2]) * slopescl
    p2n[:] = p1
    _set_pnt(m, d, w, qg, p1n, p1[0] - p1[2] / p1[3], lst)
    lsiter += 1
    while lsiter < ls_iterations:
        _set_pnt(m, d, w, qg, pmid, 0.5 * (p1[0] + p2[0]), lst)
        lsiter += 1
        cands[0] = p1n
        cands[1] = p2n
        cands[2] = pmid
        best = -1
        bestcost = 0.0
        for k in range(3):
            if abs(cands[k, 2]) < gtol and (best == -1 or cands[k, 1] < bestcost):
                bestcost = cands[k, 1]
                best = k
        if best >= 0:
            return cands[best, 0], -cands[best, 1], lsiter, abs(cands[best, 2]) * slopescl
        b1, n1 = _update_bracket(m, d, w, qg, p1, cands, p1n, lst)
        b2, n2 = _update_bracket(m, d, w, qg, p2, cands, p2n, lst)
        lsiter += n1 + n2
        if not b1 and not b2:
            return pmid[0], -pmid[1], lsiter, abs(pmid[2]) * slopescl
    if p1[1] <= p2[1] and p1[1] < 0:
        return p1[0], -p1[1], lsiter, abs(p1[2]) * slopescl
    if p2[1] <= p1[1] and p2[1] < 0:
        return p2[0], -p2[1], lsiter, abs(p2[2]) * slopescl
    return 0.0, 0.0, lsiter, 1.0


@njit(cache=True)
def sol_primal(m, d, w, maxiter, newton, isl, lst):
    """CG (newton False) or Newton primal solver from d.qacc on one island (mj_solPrimal).

    isl: island (-1 monolithic); lst = (rows, ne, nf, nefc, dofs, nv): the island's efc rows and dofs in
    ascending order (identity lists if monolithic). Vectors stay in global indexing; sums run over the
    lists in island order, as MuJoCo's gathered island arrays."""
    rows, ne, nf, nefc, dofs, nv = lst
    sv = d.scr_slv_nv[w]
    Ma, Mv, grad, Mgrad, search = sv[_MA], sv[_MV], sv[_GRAD], sv[_MGRAD], sv[_SEARCH]
    gradold, Mgradold, graddif, Mgraddif = sv[_GRADOLD], sv[_MGRADOLD], sv[_GRADDIF], sv[_MGRADDIF]
    Jaref, Jv = d.scr_slv_efc[w, _JAREF], d.scr_slv_efc[w, _JV]
    oldstate = d.scr_slv_int[w, 0]
    state = d.efc_state[w]
    small = d.scr_slv_small[w]
    qg = small[0:3]
    pts = small[4:40].reshape((9, 4))
    qacc, qfs, qfc = d.qacc[w], d.qfrc_smooth[w], d.qfrc_constraint[w]
    tol = m.opt[OPT_TOLERANCE]
    ls_tol = tol * m.opt[OPT_LS_TOLERANCE]
    ls_iter = int(m.opt[OPT_LS_ITERATIONS])
    flg_cone = newton and int(m.opt[OPT_CONE]) == CONE_ELLIPTIC
    scale = inertia_scale(m, d, w, dofs, nv)

    mul_m(m, d, w, qacc, Ma, dofs, nv)
    mul_j(d.efc_J[w], qacc, Jaref, rows, nefc, dofs, nv)
    for c in range(nefc):
        Jaref[rows[c]] -= d.efc_aref[w, rows[c]]
    cost, gauss, nactive, ncone = _primal_update_constraint(m, d, w, flg_cone, lst)
    qg[0] = gauss
    for ii in range(nv):
        i = dofs[ii]
        grad[i] = Ma[i] - qfs[i] - qfc[i]
    _update_mgrad(m, d, w, False, lst)
    # zero-iteration exit certified by the duality gap 0.5 grad' M^-1 grad (and the gradient for Newton)
    flg_gap = max(0.0, 0.5 * scale * _dot_idx(grad, Mgrad, dofs, nv)) < tol
    flg_gradient = scale * math.sqrt(_dot_idx(grad, grad, dofs, nv)) < tol
    done = flg_gap and (not newton or flg_gradient)
    if not done and newton:
        _make_hessian(m, d, w, ncone, lst)
        _update_mgrad(m, d, w, True, lst)
        done = flg_gradient and max(0.0, 0.5 * scale * _dot_idx(grad, Mgrad, dofs, nv)) < tol
    if not done:
        for ii in range(nv):
            search[dofs[ii]] = -Mgrad[dofs[ii]]
    it = 0
    while not done and it < maxiter:
        alpha, ls_impr, lsiter, lsslope = _primal_search(m, d, w, qg, ls_tol, ls_iter, scale, pts, lst)
        if alpha == 0:
            break
        for ii in range(nv):
            i = dofs[ii]
            qacc[i] += alpha * search[i]
            Ma[i] += alpha * Mv[i]
        for c in range(nefc):
            Jaref[rows[c]] += alpha * Jv[rows[c]]
        if not newton:
            for ii in range(nv):
                i = dofs[ii]
                gradold[i] = grad[i]
                Mgradold[i] = Mgrad[i]
        for c in range(nefc):
            oldstate[rows[c]] = state[rows[c]]
        cost, gauss, nactive, ncone = _primal_update_constraint(m, d, w, flg_cone, lst)
        qg[0] = gauss
        nupdate = 0
        if newton:
            for c in range(nefc):
                i = rows[c]
                nupdate += (oldstate[i] == CNSTRSTATE_QUADRATIC) != (state[i] == CNSTRSTATE_QUADRATIC)
            _make_hessian(m, d, w, ncone, lst)
        for ii in range(nv):
            i = dofs[ii]
            grad[i] = Ma[i] - qfs[i] - qfc[i]
        _update_mgrad(m, d, w, newton, lst)
        nchange = 0
        for c in range(nefc):
            nchange += state[rows[c]] != oldstate[rows[c]]
        improvement = scale * ls_impr
        gradient = scale * math.sqrt(_dot_idx(grad, grad, dofs, nv))
        _save_stats(d, w, isl, it, improvement, gradient, lsslope, nactive, nchange, lsiter, nupdate)
        decrement = max(0.0, 0.5 * scale * _dot_idx(grad, Mgrad, dofs, nv)) if newton else 0.0
        it += 1
        if (improvement > 0 and improvement < tol) or gradient < tol or (newton and decrement < tol):
            break
        if newton:
            for ii in range(nv):
                search[dofs[ii]] = -Mgrad[dofs[ii]]
        else:
            # Hager-Zhang conjugate direction, restart to steepest descent when d'y < MINVAL
            for ii in range(nv):
                i = dofs[ii]
                graddif[i] = grad[i] - gradold[i]
                Mgraddif[i] = Mgrad[i] - Mgradold[i]
            d_dot_y = _dot_idx(search, graddif, dofs, nv)
            if d_dot_y < MINVAL:
                beta = 0.0
            else:
                y_My = _dot_idx(graddif, Mgraddif, dofs, nv)
                y_Mg = _dot_idx(graddif, Mgrad, dofs, nv)
                d_g = _dot_idx(search, grad, dofs, nv)
                beta_hz = (y_Mg - 2 * (y_My / d_dot_y) * d_g) / d_dot_y
                dn = math.sqrt(_dot_idx(search, search, dofs, nv))
                gn = math.sqrt(_dot_idx(grad, grad, dofs, nv))
                eta_k = -1.0 / max(MINVAL, dn * min(0.01, gn))
                beta = max(eta_k, beta_hz)
            for ii in range(nv):
                i = dofs[ii]
                search[i] = -Mgrad[i] + beta * search[i]
    _add_niter(d, w, isl, it)


# the solvers a feature set does not use are not compiled (sim/features.py)
_make_ar = call_if(F_PGS, make_ar)
_sol_pgs = call_if(F_PGS, sol_pgs)
_sol_primal = call_if(F_PRIMAL, sol_primal)


@njit(cache=True)
def fwd_constraint(m, d, w, F):
    """qacc, efc_force, efc_state, qfrc_constraint of world w (mj_fwdConstraint); the PGS and the CG/Newton
    solvers are compiled only for feature sets that use them (F, sim/features.py).

    Islands (sim/island.py) are discovered here and solved one by one on their row / dof lists
    (mj_sol*_island); with DSBL_ISLAND or no island the problem is solved monolithically."""
    nv, nefc = m.nv, d.nefc[w]
    d.qfrc_constraint[w][:] = 0.0
    d.solver_niter[w] = 0
    d.solver_niter_island[w][:] = 0
    if nefc == 0:
        d.nisland[w] = 0
        d.nidof[w] = 0
        d.qacc[w][:] = d.qacc_smooth[w]
        return
    iota = d.scr_isl_int[w, 0]
    for i in range(max(nv, nefc)):
        iota[i] = i
    island(m, d, w)
    # efc_b = J qacc_smooth - aref
    mul_j(d.efc_J[w], d.qacc_smooth[w], d.efc_b[w], iota, nefc, iota, nv)
    for i in range(nefc):
        d.efc_b[w, i] -= d.efc_aref[w, i]
    solver = int(m.opt[OPT_SOLVER])
    if solver == SOL_PGS:
        _make_ar(F, m, d, w)
    warmstart(m, d, w, iota)
    maxiter = int(m.opt[OPT_ITERATIONS])
    nisland = d.nisland[w]
    if nisland > 0:
        # per-island solves on the island's row / dof lists; the primal island solvers keep their
        # constraint states island-local (MuJoCo's iefc_state): efc_state keeps the warmstart's states
        saved = d.scr_isl_int[w, 1]
        for i in range(nefc):
            saved[i] = d.efc_state[w, i]
        for k in range(nisland):
            ea = d.island_iefcadr[w, k]
            da = d.island_idofadr[w, k]
            rows = d.map_iefc2efc[w, ea:ea + d.island_nefc[w, k]]
            dofs = d.map_idof2dof[w, da:da + d.island_nv[w, k]]
            lst = (rows, d.island_ne[w, k], d.island_nf[w, k], d.island_nefc[w, k], dofs, d.island_nv[w, k])
            if solver == SOL_PGS:
                _sol_pgs(F, m, d, w, maxiter, True, k, lst)
            else:
                _sol_primal(F, m, d, w, maxiter, solver == SOL_NEWTON, k, lst)
        if solver != SOL_PGS:
            for i in range(nefc):
                d.efc_state[w, i] = saved[i]
    else:
        lst0 = (iota[:nefc], d.ne[w], d.nf[w], nefc, iota[:nv], nv)
        if solver == SOL_PGS:
            _sol_pgs(F, m, d, w, maxiter, True, -1, lst0)
        else:
            _sol_primal(F, m, d, w, maxiter, solver == SOL_NEWTON, -1, lst0)
    if solver == SOL_PGS:
        # dualFinish: qfrc_constraint = J'f, qacc = qacc_smooth + M^-1 qfrc_constraint
        qa = d.qacc[w]
        mul_jt(d.efc_J[w], d.efc_force[w], d.qfrc_constraint[w], iota, nefc, iota, nv)
        qa[:] = d.qfrc_constraint[w]
        solve_m(m, d, w, qa)
        for i in range(nv):
            qa[i] += d.qacc_smooth[w, i]
