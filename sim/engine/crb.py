"""Joint-space inertia: composite rigid bodies (mj_crb) into MuJoCo's CSR M, its sparse L'DL
factorisation following dof_parentid (mj_factorI / mj_factorM) and back-substitution (mj_solveLD)."""

from llvmlite import ir as llir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from sim.jit import njit
from sim.jit.simd import LANES, vec, LaneArrayType, BlockIdxType, block_number, lane, where, any_true

from sim.engine.math import mul_inert_vec, add_to_scl_sparse_inc
from sim.constants import MINVAL, WARN_INERTIA


@intrinsic
def add_to_scl_at(typingctx, a, dst, src, scl, n):
    """a[dst:dst+n] += a[src:src+n] * scl for non-overlapping ranges of one contiguous float64 array
    (mju_addToScl), four elements per <4 x double> operation, then the tail.  Each element gets one IEEE multiply
    and one add, as in the scalar loop, so results are bitwise equal; the plain numba loop compiled to scalar code
    with a negative-index test per access (factor_i took 2.8x mj_factorM's time on humanoid)."""
    if isinstance(a, LaneArrayType):
        # one block of worlds: each element is a <LANES x double>, one multiply and one add per element
        def lane_codegen(context, builder, sig, args):
            la = cgutils.create_struct_proxy(sig.args[0])(context, builder, value=args[0])
            vt = llir.VectorType(llir.DoubleType(), LANES)
            dst_i, src_i, vs, cnt = args[1], args[2], args[3], args[4]
            lanes = llir.Constant(cnt.type, LANES)
            with cgutils.for_range(builder, cnt) as loop:
                pd = builder.bitcast(
                    builder.gep(la.data, [builder.mul(builder.add(dst_i, loop.index), lanes)]), vt.as_pointer()
                )
                ps = builder.bitcast(
                    builder.gep(la.data, [builder.mul(builder.add(src_i, loop.index), lanes)]), vt.as_pointer()
                )
                r = builder.fadd(builder.load(pd, align=8), builder.fmul(builder.load(ps, align=8), vs))
                builder.store(r, pd, align=8)
            return context.get_dummy_value()

        return types.void(a, types.int64, types.int64, vec, types.int64), lane_codegen
    if not (isinstance(a, types.Array) and a.layout == "C" and a.dtype == types.float64):
        return None

    def codegen(context, builder, sig, args):
        arr = context.make_array(sig.args[0])(context, builder, args[0])
        dst_i, src_i, s, cnt = args[1], args[2], args[3], args[4]
        v4 = llir.VectorType(llir.DoubleType(), 4)
        vs = llir.Constant(v4, llir.Undefined)
        for q in range(4):
            vs = builder.insert_element(vs, s, llir.Constant(llir.IntType(32), q))
        pd = builder.gep(arr.data, [dst_i])
        ps = builder.gep(arr.data, [src_i])
        four = llir.Constant(cnt.type, 4)
        ngroup = builder.sdiv(cnt, four)
        with cgutils.for_range(builder, ngroup) as loop:
            off = builder.mul(loop.index, four)
            pdv = builder.bitcast(builder.gep(pd, [off]), v4.as_pointer())
            psv = builder.bitcast(builder.gep(ps, [off]), v4.as_pointer())
            r = builder.fadd(builder.load(pdv, align=8), builder.fmul(builder.load(psv, align=8), vs))
            builder.store(r, pdv, align=8)
        with cgutils.for_range_slice(builder, builder.mul(ngroup, four), cnt, llir.Constant(cnt.type, 1)) as (k, _):
            pdk = builder.gep(pd, [k])
            builder.store(builder.fadd(builder.load(pdk), builder.fmul(builder.load(builder.gep(ps, [k])), s)), pdk)
        return context.get_dummy_value()

    return types.void(a, types.int64, types.int64, types.float64, types.int64), codegen


@njit(cache=True)
def crb(m, d, w):
    """crb (nbody,10) composite inertias and M (nC,) in CSR layout M_rowadr/M_colind, as mj_crb."""
    c = d.crb[w]
    cinert = d.cinert[w]
    cdof = d.cdof[w]
    M = d.M[w]
    # model arrays read once (a field read inside a loop that stores floats is reloaded every iteration)
    nbody, nv = m.nbody, m.nv
    parent, simple, rowadr, rownnz = m.body_parentid, m.dof_simplenum, m.M_rowadr, m.M_rownnz
    M0, arm, dbody, dparent = m.dof_M0, m.dof_armature_eff, m.dof_bodyid, m.dof_parentid
    for i in range(nbody):
        ci = c[i]
        ii = cinert[i]
        for k in range(10):
            ci[k] = ii[k]
    for i in range(nbody - 1, 0, -1):
        p = parent[i]
        if p > 0:
            cp = c[p]
            ci = c[i]
            for k in range(10):
                cp[k] += ci[k]
    for k in range(m.nC):
        M[k] = 0.0
    for i in range(nv):
        adr = rowadr[i]
        if simple[i]:
            M[adr] = M0[i]
            continue
        madr = adr + rownnz[i] - 1
        M[madr] = arm[i]
        b0, b1, b2, b3, b4, b5 = mul_inert_vec(c[dbody[i]], cdof[i])
        j = i
        while j >= 0:
            cj = cdof[j]
            M[madr] += cj[0] * b0 + cj[1] * b1 + cj[2] * b2 + cj[3] * b3 + cj[4] * b4 + cj[5] * b5
            madr -= 1
            j = dparent[j]


@njit(cache=True)
def tendon_armature(m, d, w):
    """M (nC,) += armature ten_J' ten_J per tendon, restricted to M's sparsity (mj_tendonArmature).

    Entries of the outer product that fall outside the dof-tree pattern are dropped, as in MuJoCo."""
    M = d.M[w]
    J = d.ten_J[w]
    for k in range(m.ntendon):
        arm = m.tendon_armature_eff[k]
        if arm == 0.0:
            continue
        ja = m.ten_J_rowadr[k]
        jn = m.ten_J_rownnz[k]
        for t in range(jn):
            ji = J[ja + t]
            if ji == 0.0:
                continue
            i = m.ten_J_colind[ja + t]
            add_to_scl_sparse_inc(M, m.M_colind, m.M_rowadr[i], m.M_rownnz[i], J, m.ten_J_colind, ja, jn, arm * ji)


@njit(cache=True)
def factor_i(mat, diaginv, nv, rownnz, rowadr, colind):
    """In-place sparse L'DL of an inertia-like CSR matrix (mat (nC,), diaginv (nv,)), mj_factorI.  A pivot below
    mjMINVAL (a singular or indefinite matrix) is raised to mjMINVAL; returns the first such row (the loop runs
    backwards: the highest index), -1 when none, for the caller's mjWARN_INERTIA."""
    bad = -1
    for k in range(nv - 1, -1, -1):
        start = rowadr[k]
        diag = rownnz[k] - 1
        end = start + diag
        piv = mat[end]
        low = piv < MINVAL
        if any_true(low):
            mat[end] = where(low, MINVAL, piv)
            bad = where(low & (bad < 0), k, bad)
        invd = 1.0 / mat[end]
        diaginv[k] = invd
        for adr in range(end - 1, start - 1, -1):
            i = colind[adr]
            add_to_scl_at(mat, rowadr[i], start, -mat[adr] * invd, rownnz[i])
        for t in range(diag):
            mat[start + t] *= invd
    return bad


def warn_inertia(d, w, bad):
    """mj_warning(mjWARN_INERTIA, bad) when factor_i raised a pivot (bad >= 0): world w, or each lane of block w
    (bad then a Vec of row numbers, -1 where none)."""


@overload(warn_inertia, inline="always")
def _warn_inertia(d, w, bad):
    if isinstance(w, BlockIdxType):

        def lanes_impl(d, w, bad):
            w0 = block_number(w) * LANES
            for k in range(LANES):
                x = lane(bad, k)
                if x >= 0.0 and w0 + k < d.nworld:
                    d.warning_number[w0 + k, WARN_INERTIA] += 1
                    d.warning_lastinfo[w0 + k, WARN_INERTIA] = int(x)

        return lanes_impl

    def impl(d, w, bad):
        if bad >= 0:
            d.warning_number[w][WARN_INERTIA] += 1
            d.warning_lastinfo[w][WARN_INERTIA] = bad

    return impl


@njit(cache=True)
def dot_sparse_off(vec1, adr, vec2, off, nnz, colind):
    """sum_k vec1[adr+k] * vec2[off + colind[adr+k]], k < nnz, in mju_dotSparse's order (four partial sums, then
    the tail one by one); off shifts the column indices (island-local vectors)."""
    i = 0
    r0 = 0.0
    r1 = 0.0
    r2 = 0.0
    r3 = 0.0
    while i <= nnz - 4:
        r0 += vec1[adr + i] * vec2[off + colind[adr + i]]
        r1 += vec1[adr + i + 1] * vec2[off + colind[adr + i + 1]]
        r2 += vec1[adr + i + 2] * vec2[off + colind[adr + i + 2]]
        r3 += vec1[adr + i + 3] * vec2[off + colind[adr + i + 3]]
        i += 4
    res = (r0 + r2) + (r1 + r3)
    while i < nnz:
        res += vec1[adr + i] * vec2[off + colind[adr + i]]
        i += 1
    return res


@njit(cache=True)
def dot_sparse(vec1, adr, vec2, nnz, colind):
    """sum_k vec1[adr+k] * vec2[colind[adr+k]] with mju_dotSparse's 4-way summation order."""
    return dot_sparse_off(vec1, adr, vec2, 0, nnz, colind)


@njit(cache=True)
def solve_ld(x, qld, diaginv, nv, rownnz, rowadr, colind):
    """In-place x (nv,) <- inv(L'DL) x for a factor from factor_i, mj_solveLD (one vector)."""
    for i in range(nv - 1, -1, -1):
        if rownnz[i] == 1:
            continue
        xi = x[i]
        if xi != 0.0:
            start = rowadr[i]
            for adr in range(start, start + rownnz[i] - 1):
                x[colind[adr]] -= qld[adr] * xi
    for i in range(nv):
        x[i] *= diaginv[i]
    for i in range(nv):
        n = rownnz[i] - 1
        if n > 0:
            x[i] -= dot_sparse_off(qld, rowadr[i], x, 0, n, colind)


@njit(cache=True)
def factor_m(m, d, w):
    """qLD (nC,) and qLDiagInv (nv,) from M, as mj_factorM."""
    qld = d.qLD[w]
    M = d.M[w]
    for k in range(m.nC):
        qld[k] = M[k]
    warn_inertia(d, w, factor_i(qld, d.qLDiagInv[w], m.nv, m.M_rownnz, m.M_rowadr, m.M_colind))


@njit(cache=True)
def solve_m(m, d, w, x):
    """In-place x (nv,) <- M^-1 x using qLD/qLDiagInv, as mj_solveM."""
    solve_ld(x, d.qLD[w], d.qLDiagInv[w], m.nv, m.M_rownnz, m.M_rowadr, m.M_colind)


@njit(cache=True)
def full_inertia(m, d, w, out):
    """Dense symmetric M (nv,nv) written into out, as mj_fullM."""
    M = d.M[w]
    out[:, :] = 0.0
    for i in range(m.nv):
        adr = m.M_rowadr[i]
        for t in range(m.M_rownnz[i]):
            j = m.M_colind[adr + t]
            out[i, j] = M[adr + t]
            out[j, i] = M[adr + t]
