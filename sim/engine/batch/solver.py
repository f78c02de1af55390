"""The CG / Newton primal solver on a block: mj_fwdConstraint's warmstart and solve of the LANES worlds of a block
at once.

sim/engine/solver.py's warmstart_primal and sol_primal are lane-safe: compiled for a block, its lanes compute
together and a lane that converges keeps its outputs aside while the others go on (the block runs to its slowest
lane), each lane's arithmetic the one-world solver's.  A world is solved on its block when, after
constraint_islands (per world), it has rows and one island holding every row and dof (a single-tree robot in
contact: the solver's in-place case), and its equality and friction-loss row counts are those of the block's first
such world: rows line up by kind.  A lane with fewer rows than the block's most has inert rows past its own (J, D,
aref, R and the friction loss 0: never active, no cost, no force).  The other worlds are solved per world.

Feature sets with elliptic cones, MuJoCo's sparse mode or noslip solve every world per world (their kernels have
no block form yet: docs/simd.md).
"""

from numba import types
from numba.extending import overload

from sim.jit import njit
from sim.jit.features import F_PRIMAL, F_ELLIPTIC, F_SPARSE, F_NOSLIP
from sim.jit.simd import LANES, block_index, lane_mask, lane_of, splat, with_lane
from sim.constants import OPT_SOLVER, OPT_ITERATIONS, OPT_DISABLE, DSBL_WARMSTART, SOL_NEWTON, SOL_PGS, MJ_NSOLVER
from sim.engine.solver import sol_primal, warmstart_primal, jar_dense, _add_niter, _ISTATE
from sim.engine.parts import constraint_islands, constraint_warmstart, constraint_solve


@njit(cache=True)
def _load(rows, blk, b, w0, src, cnt, n):
    """Lane k of block b of blk (nblock, n.., LANES) = rows[w0 + src[k]] (nworld, n..), its first cnt[k]
    elements, then zeros up to n."""
    for k in range(LANES):
        r = rows[w0 + src[k]]
        c = cnt[k]
        for i in range(c):
            blk[b, i, k] = r[i]
        for i in range(c, n):
            blk[b, i, k] = 0.0


@njit(cache=True)
def _load_n(rows, blk, b, w0, src, n):
    """Lane k of block b of blk (nblock, n.., LANES) = the first n elements of rows[w0 + src[k]]."""
    for k in range(LANES):
        r = rows[w0 + src[k]]
        for i in range(n):
            blk[b, i, k] = r[i]


@njit(cache=True)
def _load_rows(rows, blk, b, w0, src, cnt, n):
    """_load for fields of rows (nworld, njmax, nv): cnt[k] rows of lane k, zero rows up to n."""
    nv = rows.shape[2]
    for k in range(LANES):
        r = rows[w0 + src[k]]
        c = cnt[k]
        for i in range(c):
            ri = r[i]
            for j in range(nv):
                blk[b, i, j, k] = ri[j]
        for i in range(c, n):
            for j in range(nv):
                blk[b, i, j, k] = 0.0


@njit(cache=True)
def _store(blk, rows, b, w0, q, cnt):
    """rows[w0 + k] (its first cnt[k] elements) = lane k of block b of blk, for the lanes k in q."""
    for k in range(LANES):
        if q & (1 << k):
            r = rows[w0 + k]
            for i in range(cnt[k]):
                r[i] = blk[b, i, k]


@njit(cache=True)
def _store_n(blk, rows, b, w0, q, n):
    """rows[w0 + k] (its first n elements) = lane k of block b of blk, for the lanes k in q."""
    for k in range(LANES):
        if q & (1 << k):
            r = rows[w0 + k]
            for i in range(n):
                r[i] = blk[b, i, k]


@njit(cache=True)
def block_solvable(m, d, w):
    """Whether world w's warmstart and primal solve can run on a block after constraint_islands: rows, and one
    island with every row and dof."""
    return d.nefc[w] > 0 and d.nisland[w] == 1 and d.island_nefc[w, 0] == d.nefc[w] and d.island_nv[w, 0] == m.nv


@njit(cache=True, always_inline=True)
def _block_ctx(m, d, bd, w, wb, nefc, nrowv, state):
    """The primal context of a block's rows (sim/engine/solver.py _world_ctx's fields): its world-minor copies,
    the row kinds and the identity maps of its first solved world wb, state the constraint states' array."""
    return (
        bd.efc_J[w],
        bd.efc_D[w],
        bd.efc_R[w],
        bd.efc_frictionloss[w],
        bd.efc_aref[w],
        d.efc_type[wb],
        d.efc_id[wb],
        bd.efc_force[w],
        state,
        bd.qfrc_smooth[w],
        bd.qacc_smooth[w],
        bd.qacc[w],
        bd.qfrc_constraint[w],
        d.scr_isl_int[wb, 0],
        d.ne[wb],
        d.nf[wb],
        nefc,
        m.nv,
        d.scr_isl_int[wb, 0, :nefc],
        nrowv,
    )


@njit(cache=True)
def solve_block(m, d, bd, b, nworld, cand, F):
    """efc_b, the warmstart (warmstart_primal) and sol_primal on block b for the lanes in cand (block_solvable
    worlds, constraint_islands done) whose ne and nf are those of its first lane; stores efc_b, the warmstart's
    efc_state, qacc, qfrc_constraint, efc_force, the island-local states, the statistics and the iteration counts
    into their rows.  Returns the lanes solved."""
    w0 = b * LANES
    nl = min(LANES, nworld - w0)
    k0 = -1
    q = 0
    for k in range(nl):
        if cand & (1 << k):
            if k0 < 0:
                k0 = k
            if d.ne[w0 + k] == d.ne[w0 + k0] and d.nf[w0 + k] == d.nf[w0 + k0]:
                q |= 1 << k
    if q == 0:
        return 0
    nv = m.nv
    # lane k computes on world src[k] (a lane not solved repeats the first solved one) with its own row count
    lanes = bd.slv_lanes[b]
    src, nrow = lanes[0], lanes[1]
    nefc = 0
    nrowv = splat(0.0)
    for k in range(LANES):
        s = k if (k < nl and q & (1 << k)) else k0
        src[k] = s
        nrow[k] = d.nefc[w0 + s]
        nefc = max(nefc, nrow[k])
        nrowv = with_lane(nrowv, k, float(nrow[k]))
    _load_rows(d.efc_J, bd.efc_J, b, w0, src, nrow, nefc)
    _load(d.efc_D, bd.efc_D, b, w0, src, nrow, nefc)
    _load(d.efc_aref, bd.efc_aref, b, w0, src, nrow, nefc)
    # R and the friction loss are read on the friction-loss rows only (the first ne + nf rows, the same in every
    # lane), the dof vectors in full
    wb = w0 + k0
    _load_n(d.efc_R, bd.efc_R, b, w0, src, d.ne[wb] + d.nf[wb])
    _load_n(d.efc_frictionloss, bd.efc_frictionloss, b, w0, src, d.ne[wb] + d.nf[wb])
    _load_n(d.qfrc_smooth, bd.qfrc_smooth, b, w0, src, nv)
    _load_n(d.qacc_smooth, bd.qacc_smooth, b, w0, src, nv)
    w = block_index(b)
    # efc_b = J qacc_smooth - aref, then the warmstart (constraint_warmstart's primal in-place case)
    jar_dense(bd.efc_J[w], bd.qacc_smooth[w], bd.efc_aref[w], bd.efc_b[w], nefc, nv)
    warm = not (int(m.opt[OPT_DISABLE]) & DSBL_WARMSTART)
    if warm:
        _load_n(d.qacc_warmstart, bd.qacc, b, w0, src, nv)
        ctx = _block_ctx(m, d, bd, w, wb, nefc, nrowv, bd.efc_state[w])
        warmstart_primal(m, bd, w, ctx, bd.qacc[w], bd.efc_b[w], F)
    else:
        _load_n(d.qacc_smooth, bd.qacc, b, w0, src, nv)
    ctx = _block_ctx(m, d, bd, w, wb, nefc, nrowv, bd.scr_slv_int[w, _ISTATE])
    newton = int(m.opt[OPT_SOLVER]) == SOL_NEWTON
    it = sol_primal(m, bd, w, int(m.opt[OPT_ITERATIONS]), newton, 0, ctx, F, lane_mask(q))
    # the outputs into the rows of the lanes solved (fwd_constraint's in-place island case writes these)
    niter, nstat = lanes[2], lanes[3]
    for k in range(LANES):
        niter[k] = int(lane_of(it, k))
        nstat[k] = min(niter[k], MJ_NSOLVER)
    _store(bd.efc_b, d.efc_b, b, w0, q, nrow)
    if warm:
        _store(bd.efc_state, d.efc_state, b, w0, q, nrow)
    _store_n(bd.qacc, d.qacc, b, w0, q, nv)
    _store_n(bd.qfrc_constraint, d.qfrc_constraint, b, w0, q, nv)
    _store(bd.efc_force, d.efc_force, b, w0, q, nrow)
    _store(bd.scr_slv_int[:, _ISTATE], d.scr_slv_int[:, _ISTATE], b, w0, q, nrow)
    _store(bd.solver_improvement, d.solver_improvement, b, w0, q, nstat)
    _store(bd.solver_gradient, d.solver_gradient, b, w0, q, nstat)
    _store(bd.solver_lineslope, d.solver_lineslope, b, w0, q, nstat)
    _store(bd.solver_nactive, d.solver_nactive, b, w0, q, nstat)
    _store(bd.solver_nchange, d.solver_nchange, b, w0, q, nstat)
    _store(bd.solver_neval, d.solver_neval, b, w0, q, nstat)
    _store(bd.solver_nupdate, d.solver_nupdate, b, w0, q, nstat)
    for k in range(nl):
        if q & (1 << k):
            _add_niter(d, w0 + k, 0, niter[k])
    return q


def _has_block_form(F):
    """Whether feature set F's solver kernels have a block form (typing time, from F's element types): the primal
    solvers, and none of elliptic cones, MuJoCo's sparse mode and noslip.  (numba prunes `flag is None` only when
    the flag is None, so a feature that must be off is read from its type here.)"""
    ty = F.types
    off = all(isinstance(ty[i], types.NoneType) for i in (F_ELLIPTIC, F_SPARSE, F_NOSLIP))
    return off and not isinstance(ty[F_PRIMAL], types.NoneType)


def block_solver_on(m, F):
    """Whether worlds of model m with feature set F may be solved on blocks (solve_block_if)."""


@overload(block_solver_on, inline="always")
def _block_solver_on_ov(m, F):
    if _has_block_form(F):
        return lambda m, F: int(m.opt[OPT_SOLVER]) != SOL_PGS
    return lambda m, F: False


def solve_block_if(m, d, bd, b, nworld, cand, F):
    """solve_block for feature sets whose solver kernels have a block form (CG / Newton, pyramidal cones, dense
    Jacobians, no noslip), else nothing (0: every world per world)."""


@overload(solve_block_if, inline="always")
def _solve_block_if_ov(m, d, bd, b, nworld, cand, F):
    if _has_block_form(F):
        return lambda m, d, bd, b, nworld, cand, F: solve_block(m, d, bd, b, nworld, cand, F)
    return lambda m, d, bd, b, nworld, cand, F: 0


@njit(cache=True)
def islands_lanes(m, d, b, nworld, mask, F):
    """The islands of block b's lanes in mask, world by world (constraint_islands); a world the block cannot solve
    (block_solvable) is solved here (constraint_warmstart, constraint_solve).  Returns the lanes left for the
    block."""
    w0 = b * LANES
    cand = 0
    for k in range(min(LANES, nworld - w0)):
        if mask & (1 << k):
            constraint_islands(m, d, w0 + k, F)
            if block_solvable(m, d, w0 + k):
                cand |= 1 << k
            else:
                constraint_warmstart(m, d, w0 + k, F)
                constraint_solve(m, d, w0 + k, F)
    return cand


@njit(cache=True)
def solve_lanes(m, d, bd, b, nworld, cand, F):
    """The warmstart and solve of block b's lanes in cand: on the block for the worlds it takes (solve_block_if),
    world by world for the others.  Returns how many worlds the block solved."""
    nsolved = 0
    if cand:
        w0 = b * LANES
        done = solve_block_if(m, d, bd, b, nworld, cand, F)
        for k in range(min(LANES, nworld - w0)):
            if cand & (1 << k):
                if done & (1 << k):
                    nsolved += 1
                else:
                    constraint_warmstart(m, d, w0 + k, F)
                    constraint_solve(m, d, w0 + k, F)
    return nsolved


@njit(cache=True)
def fwd_constraint_block(m, d, bd, b, nworld, mask, F):
    """mj_fwdConstraint of the lanes of block b in mask: the islands per world (islands_lanes), the warmstart and
    the primal solve on the block for the worlds it takes (solve_lanes), per world for the others.  Returns how
    many worlds the block solved."""
    return solve_lanes(m, d, bd, b, nworld, islands_lanes(m, d, b, nworld, mask, F), F)
