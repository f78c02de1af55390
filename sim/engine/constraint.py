"""Constraint assembly: efc rows for equality, friction loss, limits and contacts (engine_core_constraint.c).

Rows are written in MuJoCo's order (equality, dof/tendon friction loss, joint/tendon limits, contacts; model
order within each type) into the dense efc buffer of world w (capacity njmax = d.efc_type.shape[1]).  As in
mj_makeConstraint the rows are counted first (the same over-count MuJoCo uses to size its arena); when MuJoCo's
arena (d.narena) could not hold them with the contacts and the islands' arrays (its byte layout: arena_needed),
or the count exceeds njmax, every row is dropped (nefc = 0) and WARN_CNSTRFULL is raised, as MuJoCo does.
Both Jacobian storage modes of MuJoCo are reproduced where they differ in which rows exist (mj_isSparse):
dense drops all-zero non-contact rows, sparse drops rows with an empty dof chain and contacts whose bodies
share all dofs (exclude = 3).

In the sparse mode each row's structural pattern (MuJoCo's efc_J_rownnz / efc_J_colind: the dof chain the row was
built on, zeros included) is written to scr_slv_Jind (row r: count, then the columns ascending) when the Data has
room for it (a model sparse when its Data was made).  The products over J that follow (efc_vel here, efc_b and the
solvers' J products, the islands' tree scan) run over these lists, so their sums group terms as MuJoCo's sparse
products do (mju_dotSparse's four partial sums run over the pattern, zeros included).
"""

import math

from sim.jit import njit
from sim.jit.features import call_if, F_ADHESION, F_DIAGEXACT, F_EQUALITY, F_SURFACEVEL

from sim.engine.com import is_sparse
from sim.engine.crb import solve_m
from sim.engine.solver import _dot
from sim.engine.solver_sparse import dot_idx, has_lists
from sim.engine.jacobian import jac_dif_pair, jac_dot, merge_chain_count
from sim.engine.math import mul_quat, normalize3, normalize4, quat2vel
from sim.constants import (
    OPT_DISABLE,
    OPT_ENABLE,
    OPT_TIMESTEP,
    OPT_IMPRATIO,
    OPT_CONE,
    DSBL_CONSTRAINT,
    DSBL_EQUALITY,
    DSBL_FRICTIONLOSS,
    DSBL_LIMIT,
    DSBL_CONTACT,
    DSBL_REFSAFE,
    DSBL_ISLAND,
    ENBL_DIAGEXACT,
    CONE_PYRAMIDAL,
    JNT_BALL,
    JNT_SLIDE,
    JNT_HINGE,
    EQ_CONNECT,
    EQ_WELD,
    EQ_JOINT,
    EQ_TENDON,
    CNSTR_EQUALITY,
    CNSTR_FRICTION_DOF,
    CNSTR_FRICTION_TENDON,
    CNSTR_LIMIT_JOINT,
    CNSTR_LIMIT_TENDON,
    CNSTR_CONTACT_FRICTIONLESS,
    CNSTR_CONTACT_PYRAMIDAL,
    CNSTR_CONTACT_ELLIPTIC,
    WARN_CNSTRFULL,
    MINVAL,
)

OBJ_SITE = 6  # mjOBJ_SITE (eq_objtype of site-semantic connect/weld)
MINIMP = 0.0001  # mjMINIMP
MAXIMP = 0.9999  # mjMAXIMP


# ------------------------------------------------------------------------------------------------
# small quaternion helpers (mju_negQuat, mju_mulQuatAxis) and equality anchors


@njit(cache=True)
def _mul_quat_axis(q0, q1, q2, q3, a0, a1, a2):
    """Quaternion q * (0, axis) (4,), mju_mulQuatAxis."""
    return (
        -q1 * a0 - q2 * a1 - q3 * a2,
        q0 * a0 + q2 * a2 - q3 * a1,
        q0 * a1 + q3 * a0 - q1 * a2,
        q0 * a2 + q1 * a1 - q2 * a0,
    )


@njit(cache=True)
def _anchors(m, d, w, i):
    """Global anchor points and bodies of connect/weld i: (p1 (3,), p2 (3,), body1, body2) (mj_equalityAnchors)."""
    typ = m.eq_type[i]
    o1 = m.eq_obj1id[i]
    o2 = m.eq_obj2id[i]
    if m.eq_objtype[i] == OBJ_SITE:
        sx = d.site_xpos[w]
        return (
            (sx[o1, 0], sx[o1, 1], sx[o1, 2]),
            (sx[o2, 0], sx[o2, 1], sx[o2, 2]),
            m.site_bodyid[o1],
            m.site_bodyid[o2],
        )
    data = m.eq_data[i]
    xm = d.xmat[w]
    xp = d.xpos[w]
    a = 0 if typ == EQ_CONNECT else 3  # weld stores the body1 anchor second
    b = 3 - a
    m1 = xm[o1]
    m2 = xm[o2]
    p1 = (
        m1[0] * data[a] + m1[1] * data[a + 1] + m1[2] * data[a + 2] + xp[o1, 0],
        m1[3] * data[a] + m1[4] * data[a + 1] + m1[5] * data[a + 2] + xp[o1, 1],
        m1[6] * data[a] + m1[7] * data[a + 1] + m1[8] * data[a + 2] + xp[o1, 2],
    )
    p2 = (
        m2[0] * data[b] + m2[1] * data[b + 1] + m2[2] * data[b + 2] + xp[o2, 0],
        m2[3] * data[b] + m2[4] * data[b + 1] + m2[5] * data[b + 2] + xp[o2, 1],
        m2[6] * data[b] + m2[7] * data[b + 1] + m2[8] * data[b + 2] + xp[o2, 2],
    )
    return p1, p2, o1, o2


@njit(cache=True)
def _weld_quats(m, d, w, i, body1, body2):
    """(q0*relpose or q0*site_quat1 (4,), neg(q1 [*site_quat2]) (4,)) of weld i (mj_instantiateEquality)."""
    xq = d.xquat[w]
    o1 = m.eq_obj1id[i]
    o2 = m.eq_obj2id[i]
    if m.eq_objtype[i] == OBJ_SITE:
        s1 = m.site_quat[o1]
        s2 = m.site_quat[o2]
        q = mul_quat(xq[body1, 0], xq[body1, 1], xq[body1, 2], xq[body1, 3], s1[0], s1[1], s1[2], s1[3])
        r = mul_quat(xq[body2, 0], xq[body2, 1], xq[body2, 2], xq[body2, 3], s2[0], s2[1], s2[2], s2[3])
        return q, (r[0], -r[1], -r[2], -r[3])
    rp = m.eq_data[i]
    q = mul_quat(xq[o1, 0], xq[o1, 1], xq[o1, 2], xq[o1, 3], rp[6], rp[7], rp[8], rp[9])
    return q, (xq[o2, 0], -xq[o2, 1], -xq[o2, 2], -xq[o2, 3])


@njit(cache=True)
def _eq_bodies(m, i):
    """Bodies of connect/weld i (site semantic: the sites' bodies)."""
    b1 = m.eq_obj1id[i]
    b2 = m.eq_obj2id[i]
    if m.eq_objtype[i] == OBJ_SITE:
        return m.site_bodyid[b1], m.site_bodyid[b2]
    return b1, b2


@njit(cache=True)
def _ten_dense(m, d, w, t, row, scale):
    """row (nv,) += scale * ten_J[t] scattered from the sparse tendon Jacobian."""
    J = d.ten_J[w]
    ra = m.ten_J_rowadr[t]
    for k in range(m.ten_J_rownnz[t]):
        row[m.ten_J_colind[ra + k]] += scale * J[ra + k]


# ------------------------------------------------------------------------------------------------
# row bookkeeping (mj_addConstraint)


@njit(cache=True)
def _nonempty(m, J, r, size):
    """1 if any entry of rows r..r+size of J is non-zero (dense-mode empty guard)."""
    for i in range(r, r + size):
        for j in range(m.nv):
            if J[i, j] != 0.0:
                return 1
    return 0


@njit(cache=True)
def _commit(d, w, size, typ, id_, frictionloss):
    """Stamp type/id/frictionloss on rows nefc..nefc+size (pos/margin/J already written) and count them."""
    r = d.nefc[w]
    for k in range(r, r + size):
        d.efc_type[w, k] = typ
        d.efc_id[w, k] = id_
        d.efc_frictionloss[w, k] = frictionloss
    d.nefc[w] = r + size
    if typ == CNSTR_EQUALITY:
        d.ne[w] += size
    elif typ == CNSTR_FRICTION_DOF or typ == CNSTR_FRICTION_TENDON:
        d.nf[w] += size
    elif typ == CNSTR_LIMIT_JOINT or typ == CNSTR_LIMIT_TENDON:
        d.nl[w] += size


@njit(cache=True)
def _add_rows(m, d, w, size, typ, id_, frictionloss, sparse, NV):
    """Keep the rows just written at nefc unless empty: dense checks the values, sparse the chain NV
    (contacts are never empty here) (mj_addConstraint)."""
    r = d.nefc[w]
    if typ < CNSTR_CONTACT_FRICTIONLESS:
        if sparse:
            if NV <= 0:
                return
        elif not _nonempty(m, d.efc_J[w], r, size):
            return
    _commit(d, w, size, typ, id_, frictionloss)


@njit(cache=True)
def _clear_rows(m, d, w, r, size):
    """Zero J, pos, margin of rows r..r+size."""
    J = d.efc_J[w]
    for i in range(r, r + size):
        for j in range(m.nv):
            J[i, j] = 0.0
        d.efc_pos[w, i] = 0.0
        d.efc_margin[w, i] = 0.0


# ------------------------------------------------------------------------------------------------
# structural row lists of the sparse mode (efc_J_rownnz / efc_J_colind), in scr_slv_Jind


@njit(cache=True)
def _chain(m, b1, b2, skipcommon, out):
    """out[0] = NV, out[1:1+NV] = the merged dof chains of two bodies, ascending (mj_mergeChain; equal to
    mj_mergeChainSimple's list for two simple bodies); returns NV."""
    b1 = m.body_weldid[b1]
    b2 = m.body_weldid[b2]
    n = 0
    if m.body_dofnum[b1] == 0 and m.body_dofnum[b2] == 0:
        out[0] = 0
        return 0
    da1 = m.body_dofadr[b1] + m.body_dofnum[b1] - 1
    da2 = m.body_dofadr[b2] + m.body_dofnum[b2] - 1
    while da1 >= 0 or da2 >= 0:
        da = max(da1, da2)
        if skipcommon and da1 == da and da2 == da:
            break
        out[1 + n] = da
        if da1 == da:
            da1 = m.dof_parentid[da1]
        if da2 == da:
            da2 = m.dof_parentid[da2]
        n += 1
    for k in range(n // 2):
        t = out[1 + k]
        out[1 + k] = out[n - k]
        out[n - k] = t
    out[0] = n
    return n


@njit(cache=True)
def _ten_list(m, t, out):
    """out = tendon t's Jacobian pattern (ten_J_colind of its row)."""
    ra = m.ten_J_rowadr[t]
    n = m.ten_J_rownnz[t]
    for k in range(n):
        out[1 + k] = m.ten_J_colind[ra + k]
    out[0] = n


@njit(cache=True)
def _union(out, a, a0, na, b, b0, nb):
    """out = the sorted union of the ascending lists a[a0:a0+na] and b[b0:b0+nb] (mju_combineSparse's pattern)."""
    i = 0
    j = 0
    n = 0
    while i < na or j < nb:
        if j >= nb or (i < na and a[a0 + i] < b[b0 + j]):
            out[1 + n] = a[a0 + i]
            i += 1
        elif i >= na or b[b0 + j] < a[a0 + i]:
            out[1 + n] = b[b0 + j]
            j += 1
        else:
            out[1 + n] = a[a0 + i]
            i += 1
            j += 1
        n += 1
    out[0] = n


@njit(cache=True)
def _repeat_list(Jind, r, size):
    """Rows r+1..r+size-1 get row r's list (the rows of one constraint share its pattern)."""
    n = Jind[r, 0]
    for k in range(r + 1, r + size):
        for t in range(n + 1):
            Jind[k, t] = Jind[r, t]


# ------------------------------------------------------------------------------------------------
# row counting (mj_ne, mj_instantiateFriction/Limit count_only, mj_nc)


@njit(cache=True)
def _ball_angle(d, w, adr):
    """(unit rotation axis (3,), angle) of a ball joint's quaternion (mju_quat2Vel + mju_normalize3)."""
    q = d.qpos[w]
    q0, q1, q2, q3 = normalize4(q[adr], q[adr + 1], q[adr + 2], q[adr + 3])
    v0, v1, v2 = quat2vel(q0, q1, q2, q3, 1.0)
    a0, a1, a2, n = normalize3(v0, v1, v2)
    return a0, a1, a2, n


@njit(cache=True)
def _count_rows(m, d, w, sparse):
    """(rows, Jacobian nonzeros) MuJoCo allocates before instantiation (mj_ne, mj_instantiateFriction / Limit
    count_only, mj_nc; dense: every candidate row, nv nonzeros each)."""
    dis = int(m.opt[OPT_DISABLE])
    nv = m.nv
    n = 0
    nJ = 0
    if not (dis & DSBL_EQUALITY):
        for i in range(m.neq):
            if not d.eq_active[w, i]:
                continue
            typ = m.eq_type[i]
            size = 3 if typ == EQ_CONNECT else (6 if typ == EQ_WELD else 1)
            if sparse:
                if typ == EQ_CONNECT or typ == EQ_WELD:
                    b1, b2 = _eq_bodies(m, i)
                    NV = merge_chain_count(m, b2, b1, 0)
                elif typ == EQ_JOINT:
                    NV = 1
                else:
                    NV = m.ten_J_rownnz[m.eq_obj1id[i]]
                    if m.eq_obj2id[i] >= 0:
                        NV += m.ten_J_rownnz[m.eq_obj2id[i]]
                n += size if NV > 0 else 0
                nJ += size * NV if NV > 0 else 0
            else:
                n += size if nv else 0
    if not (dis & DSBL_FRICTIONLOSS):
        for i in range(nv):
            if m.dof_frictionloss[i] != 0.0:
                n += 1
                nJ += 1
        for i in range(m.ntendon):
            if m.tendon_frictionloss[i] > 0.0:
                if (m.ten_J_rownnz[i] > 0) if sparse else nv > 0:
                    n += 1
                    nJ += m.ten_J_rownnz[i]
    if not (dis & DSBL_LIMIT):
        qpos = d.qpos[w]
        for i in range(m.njnt):
            if not m.jnt_limited[i]:
                continue
            margin = m.jnt_margin[i]
            t = m.jnt_type[i]
            if t == JNT_SLIDE or t == JNT_HINGE:
                v = qpos[m.jnt_qposadr[i]]
                if -(m.jnt_range[i, 0] - v) < margin:
                    n += 1 if (sparse or nv) else 0
                    nJ += 1
                if m.jnt_range[i, 1] - v < margin:
                    n += 1 if (sparse or nv) else 0
                    nJ += 1
            elif t == JNT_BALL:
                _, _, _, ang = _ball_angle(d, w, m.jnt_qposadr[i])
                if max(m.jnt_range[i, 0], m.jnt_range[i, 1]) - ang < margin:
                    n += 1 if (sparse or nv) else 0
                    nJ += 3
        L = d.ten_length[w]
        for i in range(m.ntendon):
            if not m.tendon_limited[i]:
                continue
            ok = (m.ten_J_rownnz[i] > 0) if sparse else nv > 0
            margin = m.tendon_margin[i]
            if -(m.tendon_range[i, 0] - L[i]) < margin and ok:
                n += 1
                nJ += m.ten_J_rownnz[i]
            if m.tendon_range[i, 1] - L[i] < margin and ok:
                n += 1
                nJ += m.ten_J_rownnz[i]
    if not (dis & DSBL_CONTACT):
        pyr = int(m.opt[OPT_CONE]) == CONE_PYRAMIDAL
        for i in range(d.ncon[w]):
            if d.contact_exclude[w, i]:
                continue
            NV = 0
            if sparse:
                b1 = m.geom_bodyid[d.contact_geom[w, i, 0]]
                b2 = m.geom_bodyid[d.contact_geom[w, i, 1]]
                NV = merge_chain_count(m, b1, b2, 1)
                if NV == 0:
                    continue
            dim = d.contact_dim[w, i]
            rows = 1 if dim == 1 else (2 * (dim - 1) if pyr else dim)
            n += rows
            nJ += rows * NV
    if not sparse:
        nJ = n * nv
    return n, nJ


@njit(cache=True, always_inline=True)
def _arena_alloc(used, nbytes, align):
    """used + padding to align + nbytes (mj_arenaAllocByte)."""
    pad = used % align
    return used + (align - pad if pad else 0) + nbytes


@njit(cache=True)
def arena_needed(m, d, w, nefc, nJ):
    """Bytes of MuJoCo's arena the contacts, the efc rows (arenaAllocEfc) and the island arrays (arenaAllocIsland,
    at most one island per tree, with mj_island's stack) take for nefc rows with nJ Jacobian nonzeros."""
    b = d.ncon[w] * 584  # sizeof(mjContact) (sim/io.py SIZEOF_CONTACT)
    for _ in range(5):  # efc_type, efc_id, efc_J_rownnz, efc_J_rowadr, efc_J_rowsuper
        b = _arena_alloc(b, 4 * nefc, 4)
    b = _arena_alloc(b, 4 * nJ, 4)  # efc_J_colind
    b = _arena_alloc(b, 8 * nJ, 8)  # efc_J
    for _ in range(4):  # efc_pos, efc_margin, efc_frictionloss, efc_diagA
        b = _arena_alloc(b, 8 * nefc, 8)
    b = _arena_alloc(b, 32 * nefc, 8)  # efc_KBIP
    for _ in range(2):  # efc_D, efc_R
        b = _arena_alloc(b, 8 * nefc, 8)
    b = _arena_alloc(b, 4 * m.ntendon, 4)  # tendon_efcadr
    for _ in range(3):  # efc_vel, efc_aref, efc_b
        b = _arena_alloc(b, 8 * nefc, 8)
    b = _arena_alloc(b, 4 * nefc, 4)  # efc_state
    b = _arena_alloc(b, 8 * nefc, 8)  # efc_force
    return b


@njit(cache=True)
def arena_needed_island(m, d, w, nefc, efc_bytes):
    """efc_bytes plus MuJoCo's island arrays for nefc rows (arenaAllocIsland, as many islands as trees, every dof
    in one) and the stack mj_island holds meanwhile (efc_tree, parent, tree_island)."""
    nt, nv, ni = m.ntree, m.nv, m.ntree
    b = efc_bytes
    b = _arena_alloc(b, 4 * nt, 4)  # tree_island
    b = _arena_alloc(b, 4 * ni, 4)  # island_ntree
    b = _arena_alloc(b, 4 * ni, 4)  # island_itreeadr
    b = _arena_alloc(b, 4 * nt, 4)  # map_itree2tree
    b = _arena_alloc(b, 4 * nv, 4)  # dof_island
    for _ in range(3):  # island_nv, island_idofadr, island_dofadr
        b = _arena_alloc(b, 4 * ni, 4)
    for _ in range(2):  # map_dof2idof, map_idof2dof
        b = _arena_alloc(b, 4 * nv, 4)
    for _ in range(3):  # ifrc_smooth, iacc_smooth, iacc
        b = _arena_alloc(b, 8 * nv, 8)
    b = _arena_alloc(b, 4 * nefc, 4)  # efc_island
    for _ in range(4):  # island_ne, island_nf, island_nefc, island_iefcadr
        b = _arena_alloc(b, 4 * ni, 4)
    for _ in range(4):  # map_efc2iefc, map_iefc2efc, iefc_type, iefc_id
        b = _arena_alloc(b, 4 * nefc, 4)
    for _ in range(4):  # iefc_frictionloss, iefc_D, iefc_R, iefc_aref
        b = _arena_alloc(b, 8 * nefc, 8)
    b = _arena_alloc(b, 4 * nefc, 4)  # iefc_state
    b = _arena_alloc(b, 8 * nefc, 8)  # iefc_force
    b = _arena_alloc(b, 8 * nv, 8)  # ifrc_constraint
    return b + 4 * (nefc + 2 * nt)


# ------------------------------------------------------------------------------------------------
# instantiation


@njit(cache=True)
def instantiate_equality(m, d, w, sparse):
    """Connect (3 rows), weld (6), joint and tendon coupling (1) rows of active equalities (mj_instantiateEquality)."""
    if int(m.opt[OPT_DISABLE]) & DSBL_EQUALITY:
        return
    J = d.efc_J[w]
    S = d.scr_cjac[w]
    pos = d.efc_pos[w]
    rl = has_lists(m, d, sparse)
    Jind = d.scr_slv_Jind[w]
    for i in range(m.neq):
        if not d.eq_active[w, i]:
            continue
        typ = m.eq_type[i]
        r = d.nefc[w]
        data = m.eq_data[i]
        if typ == EQ_CONNECT or typ == EQ_WELD:
            size = 3 if typ == EQ_CONNECT else 6
            _clear_rows(m, d, w, r, size)
            p1, p2, b1, b2 = _anchors(m, d, w, i)
            NV = merge_chain_count(m, b2, b1, 0)
            if rl:
                _chain(m, b2, b1, 0, Jind[r])
                _repeat_list(Jind, r, size)
            rot = typ == EQ_WELD
            # Jacobian difference body1 - body2 (opposite of contacts)
            jac_dif_pair(m, d, w, b2, b1, p2, p1, S[0], S[1], S[4], S[2], S[3], S[5], rot)
            for k in range(3):
                pos[r + k] = p1[k] - p2[k]
                for j in range(m.nv):
                    J[r + k, j] = S[4, k, j]
            if rot:
                ts = data[10]
                q, nq1 = _weld_quats(m, d, w, i, b1, b2)
                e = mul_quat(nq1[0], nq1[1], nq1[2], nq1[3], q[0], q[1], q[2], q[3])
                pos[r + 3] = e[1] * ts
                pos[r + 4] = e[2] * ts
                pos[r + 5] = e[3] * ts
                # rotation Jacobian: 0.5 * neg(q1) * (jac0 - jac1) * q0 * relpose, scaled by torquescale
                for j in range(m.nv):
                    t = _mul_quat_axis(nq1[0], nq1[1], nq1[2], nq1[3], S[5, 0, j], S[5, 1, j], S[5, 2, j])
                    u = mul_quat(t[0], t[1], t[2], t[3], q[0], q[1], q[2], q[3])
                    J[r + 3, j] = 0.5 * u[1] * ts
                    J[r + 4, j] = 0.5 * u[2] * ts
                    J[r + 5, j] = 0.5 * u[3] * ts
            _add_rows(m, d, w, size, CNSTR_EQUALITY, i, 0.0, sparse, NV)
        elif typ == EQ_JOINT or typ == EQ_TENDON:
            _clear_rows(m, d, w, r, 1)
            row = J[r]
            o1 = m.eq_obj1id[i]
            o2 = m.eq_obj2id[i]
            if typ == EQ_JOINT:
                x1 = d.qpos[w, m.jnt_qposadr[o1]]
                ref1 = m.qpos0[m.jnt_qposadr[o1]]
                row[m.jnt_dofadr[o1]] = 1.0
                NV = 1
            else:
                x1 = d.ten_length[w, o1]
                ref1 = m.tendon_length0[o1]
                if d.tendon_efcadr[w, o1] == -1:
                    d.tendon_efcadr[w, o1] = i  # MuJoCo stores the equality id here
                _ten_dense(m, d, w, o1, row, 1.0)
                NV = m.ten_J_rownnz[o1]
            if o2 >= 0:
                if typ == EQ_JOINT:
                    x2 = d.qpos[w, m.jnt_qposadr[o2]]
                    ref2 = m.qpos0[m.jnt_qposadr[o2]]
                else:
                    x2 = d.ten_length[w, o2]
                    ref2 = m.tendon_length0[o2]
                    if d.tendon_efcadr[w, o2] == -1:
                        d.tendon_efcadr[w, o2] = i
                    NV += m.ten_J_rownnz[o2]
                dif = x2 - ref2
                pos[r] = (
                    x1
                    - ref1
                    - data[0]
                    - (
                        data[1] * dif
                        + data[2] * dif * dif
                        + data[3] * dif * dif * dif
                        + data[4] * dif * dif * dif * dif
                    )
                )
                deriv = data[1] + 2 * data[2] * dif + 3 * data[3] * dif * dif + 4 * data[4] * dif * dif * dif
                if typ == EQ_JOINT:
                    row[m.jnt_dofadr[o2]] += -deriv
                else:
                    _ten_dense(m, d, w, o2, row, -deriv)
            else:
                pos[r] = x1 - ref1 - data[0]
            if rl:
                lr = Jind[r]
                if typ == EQ_JOINT:
                    a = m.jnt_dofadr[o1]
                    b = m.jnt_dofadr[o2] if o2 >= 0 else a
                    lr[0] = 1 if a == b else 2
                    lr[1] = min(a, b)
                    if a != b:
                        lr[2] = max(a, b)
                elif o2 >= 0:
                    _union(
                        lr,
                        m.ten_J_colind,
                        m.ten_J_rowadr[o1],
                        m.ten_J_rownnz[o1],
                        m.ten_J_colind,
                        m.ten_J_rowadr[o2],
                        m.ten_J_rownnz[o2],
                    )
                else:
                    _ten_list(m, o1, lr)
            _add_rows(m, d, w, 1, CNSTR_EQUALITY, i, 0.0, sparse, NV)


@njit(cache=True)
def instantiate_friction(m, d, w, sparse):
    """One row per dof with frictionloss != 0, then per tendon with frictionloss > 0 (mj_instantiateFriction)."""
    if int(m.opt[OPT_DISABLE]) & DSBL_FRICTIONLOSS:
        return
    J = d.efc_J[w]
    rl = has_lists(m, d, sparse)
    Jind = d.scr_slv_Jind[w]
    for i in range(m.nv):
        if m.dof_frictionloss[i] == 0.0:
            continue
        r = d.nefc[w]
        _clear_rows(m, d, w, r, 1)
        J[r, i] = 1.0
        if rl:
            Jind[r, 0] = 1
            Jind[r, 1] = i
        _add_rows(m, d, w, 1, CNSTR_FRICTION_DOF, i, m.dof_frictionloss[i], sparse, 1)
    for i in range(m.ntendon):
        if m.tendon_frictionloss[i] > 0.0:
            r = d.nefc[w]
            _clear_rows(m, d, w, r, 1)
            _ten_dense(m, d, w, i, J[r], 1.0)
            if rl:
                _ten_list(m, i, Jind[r])
            _add_rows(m, d, w, 1, CNSTR_FRICTION_TENDON, i, m.tendon_frictionloss[i], sparse, m.ten_J_rownnz[i])
            if d.tendon_efcadr[w, i] == -1:
                d.tendon_efcadr[w, i] = r


@njit(cache=True)
def _limit_row(m, d, w, dist, margin):
    """Clear the next row and set its pos/margin; return its index."""
    r = d.nefc[w]
    _clear_rows(m, d, w, r, 1)
    d.efc_pos[w, r] = dist
    d.efc_margin[w, r] = margin
    return r


@njit(cache=True)
def instantiate_limit(m, d, w, sparse):
    """Joint (hinge/slide both sides, ball angle) and tendon limit rows with dist < margin (mj_instantiateLimit)."""
    if int(m.opt[OPT_DISABLE]) & DSBL_LIMIT:
        return
    J = d.efc_J[w]
    qpos = d.qpos[w]
    rl = has_lists(m, d, sparse)
    Jind = d.scr_slv_Jind[w]
    for i in range(m.njnt):
        if not m.jnt_limited[i]:
            continue
        margin = m.jnt_margin[i]
        t = m.jnt_type[i]
        dof = m.jnt_dofadr[i]
        if t == JNT_SLIDE or t == JNT_HINGE:
            v = qpos[m.jnt_qposadr[i]]
            for side in (-1, 1):
                dist = side * (m.jnt_range[i, (side + 1) // 2] - v)
                if dist < margin:
                    r = _limit_row(m, d, w, dist, margin)
                    J[r, dof] = -float(side)
                    if rl:
                        Jind[r, 0] = 1
                        Jind[r, 1] = dof
                    _add_rows(m, d, w, 1, CNSTR_LIMIT_JOINT, i, 0.0, sparse, 1)
        elif t == JNT_BALL:
            a0, a1, a2, ang = _ball_angle(d, w, m.jnt_qposadr[i])
            dist = max(m.jnt_range[i, 0], m.jnt_range[i, 1]) - ang
            if dist < margin:
                r = _limit_row(m, d, w, dist, margin)
                J[r, dof] = -a0
                J[r, dof + 1] = -a1
                J[r, dof + 2] = -a2
                if rl:
                    Jind[r, 0] = 3
                    Jind[r, 1] = dof
                    Jind[r, 2] = dof + 1
                    Jind[r, 3] = dof + 2
                _add_rows(m, d, w, 1, CNSTR_LIMIT_JOINT, i, 0.0, sparse, 3)
    L = d.ten_length[w]
    for i in range(m.ntendon):
        if not m.tendon_limited[i]:
            continue
        margin = m.tendon_margin[i]
        for side in (-1, 1):
            dist = side * (m.tendon_range[i, (side + 1) // 2] - L[i])
            if dist < margin:
                r = _limit_row(m, d, w, dist, margin)
                _ten_dense(m, d, w, i, J[r], -float(side))
                if rl:
                    _ten_list(m, i, Jind[r])
                _add_rows(m, d, w, 1, CNSTR_LIMIT_TENDON, i, 0.0, sparse, m.ten_J_rownnz[i])
                if d.tendon_efcadr[w, i] == -1:
                    d.tendon_efcadr[w, i] = r


@njit(cache=True)
def instantiate_contact(m, d, w, sparse):
    """Frictionless (1 row), pyramidal (2(dim-1)) or elliptic (dim) rows per included contact, Jacobians
    rotated into the contact frame (mj_instantiateContact, mj_contactJacobian)."""
    if (int(m.opt[OPT_DISABLE]) & DSBL_CONTACT) or d.ncon[w] == 0 or m.nv == 0:
        return
    pyr = int(m.opt[OPT_CONE]) == CONE_PYRAMIDAL
    J = d.efc_J[w]
    S = d.scr_cjac[w]
    C = d.scr_cframe[w]
    nv = m.nv
    rl = has_lists(m, d, sparse)
    Jind = d.scr_slv_Jind[w]
    for i in range(d.ncon[w]):
        if d.contact_exclude[w, i]:
            continue
        b1 = m.geom_bodyid[d.contact_geom[w, i, 0]]
        b2 = m.geom_bodyid[d.contact_geom[w, i, 1]]
        if sparse and merge_chain_count(m, b1, b2, 1) == 0:
            d.contact_efc_address[w, i] = -1
            d.contact_exclude[w, i] = 3
            continue
        r = d.nefc[w]
        d.contact_efc_address[w, i] = r
        dim = d.contact_dim[w, i]
        if rl:
            _chain(m, b1, b2, 1, Jind[r])
            _repeat_list(Jind, r, 1 if dim == 1 else (2 * (dim - 1) if pyr else dim))
        p = d.contact_pos[w, i]
        pt = (p[0], p[1], p[2])
        jac_dif_pair(m, d, w, b1, b2, pt, pt, S[0], S[1], S[4], S[2], S[3], S[5], dim > 3)
        fr = d.contact_frame[w, i]
        # rotate Jacobian differences to the contact frame (normal, tangents, then rotations)
        nrow = 3 if dim > 1 else 1
        for a in range(6):
            src = 4 if a < 3 else 5
            fa = a if a < 3 else a - 3
            if (a < 3 and a >= nrow) or (a >= 3 and a >= dim):
                continue
            for j in range(nv):
                C[a, j] = fr[3 * fa] * S[src, 0, j] + fr[3 * fa + 1] * S[src, 1, j] + fr[3 * fa + 2] * S[src, 2, j]
        dist = d.contact_dist[w, i]
        im = d.contact_includemargin[w, i]
        if dim == 1:
            for j in range(nv):
                J[r, j] = C[0, j]
            d.efc_pos[w, r] = dist
            d.efc_margin[w, r] = im
            _commit(d, w, 1, CNSTR_CONTACT_FRICTIONLESS, i, 0.0)
        elif pyr:
            for k in range(1, dim):
                r = d.nefc[w]
                mu = d.contact_friction[w, i, k - 1]
                for j in range(nv):
                    J[r, j] = C[0, j] + C[k, j] * mu
                    J[r + 1, j] = C[0, j] + C[k, j] * -mu
                d.efc_pos[w, r] = dist
                d.efc_pos[w, r + 1] = dist
                d.efc_margin[w, r] = im
                d.efc_margin[w, r + 1] = im
                _commit(d, w, 2, CNSTR_CONTACT_PYRAMIDAL, i, 0.0)
        else:
            for k in range(dim):
                for j in range(nv):
                    J[r + k, j] = C[k, j]
                d.efc_pos[w, r + k] = dist if k == 0 else 0.0
                d.efc_margin[w, r + k] = im if k == 0 else 0.0
            _commit(d, w, dim, CNSTR_CONTACT_ELLIPTIC, i, 0.0)


# ------------------------------------------------------------------------------------------------
# diagonal approximation and impedance


@njit(cache=True)
def diag_approx(m, d, w):
    """efc_diagA (nefc,) from dof/body/tendon invweight0 (mj_diagApprox)."""
    dA = d.efc_diagA[w]
    iw = m.body_invweight0
    weldcnt = 0
    nefc = d.nefc[w]
    i = 0
    while i < nefc:
        id_ = d.efc_id[w, i]
        t = d.efc_type[w, i]
        if t == CNSTR_EQUALITY:
            et = m.eq_type[id_]
            if et == EQ_CONNECT:
                b1, b2 = _eq_bodies(m, id_)
                dA[i] = iw[b1, 0] + iw[b2, 0]
            elif et == EQ_WELD:
                b1, b2 = _eq_bodies(m, id_)
                c = 1 if weldcnt > 2 else 0
                dA[i] = iw[b1, c] + iw[b2, c]
                weldcnt = (weldcnt + 1) % 6
            else:
                o1 = m.eq_obj1id[id_]
                o2 = m.eq_obj2id[id_]
                if et == EQ_JOINT:
                    dA[i] = m.dof_invweight0[m.jnt_dofadr[o1]]
                    if o2 >= 0:
                        dA[i] += m.dof_invweight0[m.jnt_dofadr[o2]]
                else:
                    dA[i] = m.tendon_invweight0[o1]
                    if o2 >= 0:
                        dA[i] += m.tendon_invweight0[o2]
        elif t == CNSTR_FRICTION_DOF:
            dA[i] = m.dof_invweight0[id_]
        elif t == CNSTR_LIMIT_JOINT:
            dA[i] = m.dof_invweight0[m.jnt_dofadr[id_]]
        elif t == CNSTR_FRICTION_TENDON or t == CNSTR_LIMIT_TENDON:
            dA[i] = m.tendon_invweight0[id_]
        else:
            dim = d.contact_dim[w, id_]
            tran = 0.0
            rot = 0.0
            for side in range(2):
                b = m.geom_bodyid[d.contact_geom[w, id_, side]]
                tran += iw[b, 0] * 1.0
                rot += iw[b, 1] * 1.0
            if t == CNSTR_CONTACT_FRICTIONLESS:
                dA[i] = tran
            elif t == CNSTR_CONTACT_ELLIPTIC:
                for j in range(dim):
                    dA[i + j] = tran if j < 3 else rot
                i += dim - 1
            else:
                for j in range(dim - 1):
                    f = d.contact_friction[w, id_, j]
                    v = tran + f * f * (tran if j < 2 else rot)
                    dA[i + 2 * j] = v
                    dA[i + 2 * j + 1] = v
                i += 2 * dim - 3
        i += 1


@njit(cache=True)
def _solparam(m, d, w, i):
    """(solref (2,), solreffriction (2,), solimp (5,)) of row i, validated and clamped (getsolparam)."""
    id_ = d.efc_id[w, i]
    t = d.efc_type[w, i]
    f0 = 0.0
    f1 = 0.0
    if t == CNSTR_EQUALITY:
        ref = m.eq_solref[id_]
        imp = m.eq_solimp[id_]
    elif t == CNSTR_LIMIT_JOINT:
        ref = m.jnt_solref[id_]
        imp = m.jnt_solimp[id_]
    elif t == CNSTR_FRICTION_DOF:
        ref = m.dof_solref[id_]
        imp = m.dof_solimp[id_]
    elif t == CNSTR_LIMIT_TENDON:
        ref = m.tendon_solref_lim[id_]
        imp = m.tendon_solimp_lim[id_]
    elif t == CNSTR_FRICTION_TENDON:
        ref = m.tendon_solref_fri[id_]
        imp = m.tendon_solimp_fri[id_]
    else:
        ref = d.contact_solref[w, id_]
        imp = d.contact_solimp[w, id_]
        f0 = d.contact_solreffriction[w, id_, 0]
        f1 = d.contact_solreffriction[w, id_, 1]
    r0 = ref[0]
    r1 = ref[1]
    refsafe = not (int(m.opt[OPT_DISABLE]) & DSBL_REFSAFE)
    ts2 = 2.0 * m.opt[OPT_TIMESTEP]
    if (r0 > 0) != (r1 > 0):  # mixed format: MuJoCo's default solref
        r0 = 0.02
        r1 = 1.0
    if refsafe and r0 > 0:
        r0 = max(r0, ts2)
    if (f0 > 0) != (f1 > 0):
        f0 = 0.0
        f1 = 0.0
    if refsafe and f0 > 0:
        f0 = max(f0, ts2)
    s0 = min(MAXIMP, max(MINIMP, imp[0]))
    s1 = min(MAXIMP, max(MINIMP, imp[1]))
    s2 = max(0.0, imp[2])
    s3 = min(MAXIMP, max(MINIMP, imp[3]))
    s4 = max(1.0, imp[4])
    return (r0, r1), (f0, f1), (s0, s1, s2, s3, s4)


@njit(cache=True)
def _power(a, b):
    """a**b with the exact shortcuts for b = 1, 2 (power in engine_core_constraint.c)."""
    if b == 1:
        return a
    if b == 2:
        return a * a
    return a**b


@njit(cache=True)
def impedance(solimp, pos, margin):
    """(imp, d imp / d pos) of the solimp sigmoid (getimpedance)."""
    s0, s1, s2, s3, s4 = solimp
    if s0 == s1 or s2 <= MINVAL:
        return 0.5 * (s0 + s1), 0.0
    x = (pos - margin) / s2
    sgn = 1.0
    if x < 0:
        x = -x
        sgn = -1.0
    if x >= 1 or x <= 0:
        return (s1 if x >= 1 else s0), 0.0
    if s4 == 1:
        y = x
        yP = 1.0
    elif x <= s3:
        a = 1 / _power(s3, s4 - 1)
        y = a * _power(x, s4)
        yP = s4 * a * _power(x, s4 - 1)
    else:
        b = 1 / _power(1 - s3, s4 - 1)
        y = 1 - b * _power(1 - x, s4)
        yP = s4 * b * _power(1 - x, s4 - 1)
    return s0 + y * (s1 - s0), yP * sgn * (s1 - s0) / s2


@njit(cache=True)
def make_impedance(m, d, w):
    """efc_R, efc_D, efc_KBIP (nefc,4) and the R-consistent efc_diagA; contact mu (mj_makeImpedance)."""
    nefc = d.nefc[w]
    R = d.efc_R[w]
    KBIP = d.efc_KBIP[w]
    dA = d.efc_diagA[w]
    pos_ = d.efc_pos[w]
    i = 0
    while i < nefc:
        ref, reff, solimp = _solparam(m, d, w, i)
        t = d.efc_type[w, i]
        id_ = d.efc_id[w, i]
        dim = 1
        pos = pos_[i]
        if t == CNSTR_CONTACT_ELLIPTIC:
            dim = d.contact_dim[w, id_]
        elif t == CNSTR_CONTACT_PYRAMIDAL:
            dim = 2 * (d.contact_dim[w, id_] - 1)
        elif t == CNSTR_EQUALITY:
            et = m.eq_type[id_]
            if et == EQ_WELD or et == EQ_CONNECT:
                dim = 6 if et == EQ_WELD else 3
                s = 0.0
                for k in range(dim):
                    s += pos_[i + k] * pos_[i + k]
                pos = math.sqrt(s)
        imp, impP = impedance(solimp, pos, d.efc_margin[w, i])
        dw = solimp[1]
        for j in range(dim):
            tp = d.efc_type[w, i + j]
            R[i + j] = max(MINVAL, (1 - imp) * dA[i + j] / imp)
            ell_fri = tp == CNSTR_CONTACT_ELLIPTIC and j > 0
            if ell_fri and (reff[0] != 0 or reff[1] != 0):
                r0 = reff[0]
                r1 = reff[1]
            else:
                r0 = ref[0]
                r1 = ref[1]
            if tp == CNSTR_FRICTION_DOF or tp == CNSTR_FRICTION_TENDON or ell_fri:
                KBIP[i + j, 0] = 0.0
            elif r0 > 0:
                KBIP[i + j, 0] = 1 / max(MINVAL, dw * dw * r0 * r0 * r1 * r1)
            else:
                KBIP[i + j, 0] = -r0 / max(MINVAL, dw * dw)
            if r1 > 0:
                KBIP[i + j, 1] = 2 / max(MINVAL, dw * r0)
            else:
                KBIP[i + j, 1] = -r1 / max(MINVAL, dw)
            KBIP[i + j, 2] = imp
            KBIP[i + j, 3] = impP
        i += dim
    # frictional contacts: R of friction rows from impratio, regularised cone mu
    impratio = m.opt[OPT_IMPRATIO]
    i = d.ne[w] + d.nf[w]
    while i < nefc:
        t = d.efc_type[w, i]
        if t == CNSTR_CONTACT_PYRAMIDAL or t == CNSTR_CONTACT_ELLIPTIC:
            id_ = d.efc_id[w, i]
            dim = d.contact_dim[w, id_]
            fr = d.contact_friction[w, id_]
            R[i + 1] = R[i] / max(MINVAL, impratio)
            mu = fr[0] * math.sqrt(R[i + 1] / R[i])
            d.contact_mu[w, id_] = mu
            if t == CNSTR_CONTACT_ELLIPTIC:
                for j in range(1, dim - 1):
                    R[i + j + 1] = R[i + 1] * fr[0] * fr[0] / (fr[j] * fr[j])
                i += dim
            else:
                rpy = 2 * mu * mu * R[i]
                for j in range(2 * (dim - 1)):
                    R[i + j] = rpy
                i += 2 * (dim - 1)
        else:
            i += 1
    for i in range(nefc):
        d.efc_D[w, i] = 1 / R[i]
    for i in range(nefc):
        dA[i] = R[i] * KBIP[i, 2] / (1 - KBIP[i, 2])


# ------------------------------------------------------------------------------------------------
# stage entry points


@njit(cache=True)
def make_constraint(m, d, w, F):
    """Build efc_type/id/J/pos/margin/frictionloss/KBIP/D/R/diagA (njmax rows), contact efc_address/mu and
    tendon_efcadr (ntendon,) of world w (mj_makeConstraint); equality rows compiled with F_EQUALITY."""
    d.ne[w] = 0
    d.nf[w] = 0
    d.nl[w] = 0
    d.nefc[w] = 0
    for i in range(d.ncon[w]):
        d.contact_efc_address[w, i] = -1
    # cleared on every call (MuJoCo leaves stale values when constraints are disabled or the buffer is full)
    for i in range(m.ntendon):
        d.tendon_efcadr[w, i] = -1
    if int(m.opt[OPT_DISABLE]) & DSBL_CONSTRAINT:
        return
    sparse = is_sparse(m)
    n, nJ = _count_rows(m, d, w, sparse)
    if n > d.efc_type.shape[1]:
        # more rows than this Data has room for (a Data made with smaller buffers than MuJoCo's arena, sim/io.py
        # data_sizes): the warning with the rows needed, no constraint rows at all (sim.step grows the buffers)
        d.warning_number[w][WARN_CNSTRFULL] += 1
        d.warning_lastinfo[w][WARN_CNSTRFULL] = n
        return
    narena = d.narena[w]
    if narena > 0 and n > 0:
        # MuJoCo's arena cannot hold the efc arrays (arenaAllocEfc) or the islands' (arenaAllocIsland): its warning
        # with the arena's size, no constraint rows at all (mj_clearEfc)
        need = arena_needed(m, d, w, n, nJ)
        if not (int(m.opt[OPT_DISABLE]) & DSBL_ISLAND):
            need = arena_needed_island(m, d, w, n, need)
        if need > narena:
            d.warning_number[w][WARN_CNSTRFULL] += 1
            d.warning_lastinfo[w][WARN_CNSTRFULL] = int(narena)
            return
    _instantiate_equality(F, m, d, w, sparse)
    instantiate_friction(m, d, w, sparse)
    instantiate_limit(m, d, w, sparse)
    instantiate_contact(m, d, w, sparse)
    if d.nefc[w] == 0:
        return
    diag_approx(m, d, w)
    make_impedance(m, d, w)


@njit(cache=True)
def project_constraint(m, d, w):
    """With ENBL_DIAGEXACT: efc_diagA = diag(J M^-1 J') then impedance recomputed (mj_projectConstraint).
    The dual solvers' A+R is assembled by the solver stage itself."""
    nefc = d.nefc[w]
    if nefc == 0 or not (int(m.opt[OPT_ENABLE]) & ENBL_DIAGEXACT):
        return
    J = d.efc_J[w]
    v = d.scr_cnstr_nv[w]
    for i in range(nefc):
        for j in range(m.nv):
            v[j] = J[i, j]
        solve_m(m, d, w, v)
        s = 0.0
        for j in range(m.nv):
            s += J[i, j] * v[j]
        d.efc_diagA[w, i] = s
    make_impedance(m, d, w)


@njit(cache=True)
def _mat3_vec(A, v, n):
    """A (3, n) times v (n,) as a 3-tuple."""
    a0 = 0.0
    a1 = 0.0
    a2 = 0.0
    for j in range(n):
        a0 += A[0, j] * v[j]
        a1 += A[1, j] * v[j]
        a2 += A[2, j] * v[j]
    return a0, a1, a2


@njit(cache=True)
def _jdotv(m, d, w):
    """Subtract Jdot*qvel of connect/weld rows from efc_aref (mj_Jdotv, dense)."""
    ne = d.ne[w]
    nv = m.nv
    if ne == 0 or nv == 0:
        return
    S = d.scr_cjac[w]
    qvel = d.qvel[w]
    aref = d.efc_aref[w]
    cvel = d.cvel[w]
    row = 0
    while row < ne:
        eid = d.efc_id[w, row]
        typ = m.eq_type[eid]
        if typ != EQ_CONNECT and typ != EQ_WELD:
            while row < ne and d.efc_id[w, row] == eid:
                row += 1
            continue
        weld = typ == EQ_WELD
        p1, p2, b1, b2 = _anchors(m, d, w, eid)
        jac_dot(m, d, w, b1, p1[0], p1[1], p1[2], S[0], S[2], weld)
        jac_dot(m, d, w, b2, p2[0], p2[1], p2[2], S[1], S[3], weld)
        a0, a1, a2 = _mat3_vec(S[0], qvel, nv)
        c0, c1, c2 = _mat3_vec(S[1], qvel, nv)
        aref[row] -= a0 - c0
        aref[row + 1] -= a1 - c1
        aref[row + 2] -= a2 - c2
        row += 3
        if weld:
            ts = m.eq_data[eid, 10]
            q0r, nq1 = _weld_quats(m, d, w, eid, b1, b2)
            xq = d.xquat[w]
            w1 = cvel[b1]
            w2 = cvel[b2]
            dw0 = w1[0] - w2[0]
            dw1 = w1[1] - w2[1]
            dw2 = w1[2] - w2[2]
            # time derivatives of q0 (*relpose or *site_quat) and of q1 (*site_quat)
            if m.eq_objtype[eid] == OBJ_SITE:
                s2 = m.site_quat[m.eq_obj2id[eid]]
                qa = q0r
                qb = mul_quat(xq[b2, 0], xq[b2, 1], xq[b2, 2], xq[b2, 3], s2[0], s2[1], s2[2], s2[3])
            else:
                qa = (xq[b1, 0], xq[b1, 1], xq[b1, 2], xq[b1, 3])
                qb = (xq[b2, 0], xq[b2, 1], xq[b2, 2], xq[b2, 3])
            qd0 = _deriv_quat(qa, w1[0], w1[1], w1[2])
            if m.eq_objtype[eid] == OBJ_SITE:
                qd0r = qd0
            else:
                rp = m.eq_data[eid]
                qd0r = mul_quat(qd0[0], qd0[1], qd0[2], qd0[3], rp[6], rp[7], rp[8], rp[9])
            qd1 = _deriv_quat(qb, w2[0], w2[1], w2[2])
            nqd1 = (qd1[0], -qd1[1], -qd1[2], -qd1[3])
            t1a = _mul_quat_axis(nqd1[0], nqd1[1], nqd1[2], nqd1[3], dw0, dw1, dw2)
            t1 = mul_quat(t1a[0], t1a[1], t1a[2], t1a[3], q0r[0], q0r[1], q0r[2], q0r[3])
            r0, r1, r2 = _mat3_vec(S[2], qvel, nv)
            e0, e1, e2 = _mat3_vec(S[3], qvel, nv)
            t2a = _mul_quat_axis(nq1[0], nq1[1], nq1[2], nq1[3], r0 - e0, r1 - e1, r2 - e2)
            t2 = mul_quat(t2a[0], t2a[1], t2a[2], t2a[3], q0r[0], q0r[1], q0r[2], q0r[3])
            t3a = _mul_quat_axis(nq1[0], nq1[1], nq1[2], nq1[3], dw0, dw1, dw2)
            t3 = mul_quat(t3a[0], t3a[1], t3a[2], t3a[3], qd0r[0], qd0r[1], qd0r[2], qd0r[3])
            aref[row] -= 0.5 * (t1[1] + t2[1] + t3[1]) * ts
            aref[row + 1] -= 0.5 * (t1[2] + t2[2] + t3[2]) * ts
            aref[row + 2] -= 0.5 * (t1[3] + t2[3] + t3[3]) * ts
            row += 3


@njit(cache=True)
def _deriv_quat(q, v0, v1, v2):
    """Time derivative (4,) of quaternion q under angular velocity v (mju_derivQuat)."""
    return (
        0.5 * (-v0 * q[1] - v1 * q[2] - v2 * q[3]),
        0.5 * (v0 * q[0] + v1 * q[3] - v2 * q[2]),
        0.5 * (-v0 * q[3] + v1 * q[0] + v2 * q[1]),
        0.5 * (v0 * q[2] - v1 * q[1] + v2 * q[0]),
    )


@njit(cache=True)
def add_surface_vel(m, d, w):
    """efc_vel of contact rows += the relative surface velocity (geom2 - geom1) of the contacting geoms in the
    contact frame, tangential and torsional components only (mj_addSurfaceVel, mj_geomSurfaceVelocity)."""
    pyr = int(m.opt[OPT_CONE]) == CONE_PYRAMIDAL
    vel = d.efc_vel[w]
    for i in range(d.ncon[w]):
        adr = d.contact_efc_address[w, i]
        if adr < 0:
            continue
        v0 = v1 = v2 = 0.0
        a0 = a1 = a2 = 0.0
        active = False
        for side in range(2):
            g = d.contact_geom[w, i, side]
            if g < 0:
                continue
            sv = m.geom_surfacevel[g]
            if sv[0] == 0 and sv[1] == 0 and sv[2] == 0 and sv[3] == 0 and sv[4] == 0 and sv[5] == 0:
                continue
            active = True
            R = d.geom_xmat[w, g]
            lx = R[0] * sv[0] + R[1] * sv[1] + R[2] * sv[2]
            ly = R[3] * sv[0] + R[4] * sv[1] + R[5] * sv[2]
            lz = R[6] * sv[0] + R[7] * sv[1] + R[8] * sv[2]
            ax = R[0] * sv[3] + R[1] * sv[4] + R[2] * sv[5]
            ay = R[3] * sv[3] + R[4] * sv[4] + R[5] * sv[5]
            az = R[6] * sv[3] + R[7] * sv[4] + R[8] * sv[5]
            p = d.contact_pos[w, i]
            gp = d.geom_xpos[w, g]
            rx = p[0] - gp[0]
            ry = p[1] - gp[1]
            rz = p[2] - gp[2]
            lx += ay * rz - az * ry
            ly += az * rx - ax * rz
            lz += ax * ry - ay * rx
            sgn = 1.0 if side else -1.0
            v0 += lx * sgn
            v1 += ly * sgn
            v2 += lz * sgn
            a0 += ax * sgn
            a1 += ay * sgn
            a2 += az * sgn
        if not active:
            continue
        fr = d.contact_frame[w, i]
        # contact-frame components (normal, tangent1, tangent2, spin); no normal push, no rolling drive
        c1 = fr[3] * v0 + fr[4] * v1 + fr[5] * v2
        c2 = fr[6] * v0 + fr[7] * v1 + fr[8] * v2
        c3 = fr[0] * a0 + fr[1] * a1 + fr[2] * a2
        dim = d.contact_dim[w, i]
        if dim == 1 or not pyr:
            for j in range(1, min(dim, 4)):
                vel[adr + j] += c1 if j == 1 else (c2 if j == 2 else c3)
        else:
            for k in range(1, dim):
                mu = d.contact_friction[w, i, k - 1]
                ck = c1 if k == 1 else (c2 if k == 2 else (c3 if k == 3 else 0.0))
                vel[adr + 2 * (k - 1)] += mu * ck
                vel[adr + 2 * (k - 1) + 1] -= mu * ck


@njit(cache=True)
def adhesion_ref(m, d, w):
    """efc_aref of adhesive contact rows += efc_R * adhesion (spread equally over a pyramid's 2(dim-1) edges)
    (mj_adhesionRef)."""
    pyr = int(m.opt[OPT_CONE]) == CONE_PYRAMIDAL
    for i in range(d.ncon[w]):
        adh = d.contact_adhesion[w, i]
        adr = d.contact_efc_address[w, i]
        if adh == 0 or adr < 0:
            continue
        dim = d.contact_dim[w, i]
        if dim == 1 or not pyr:
            d.efc_aref[w, adr] += d.efc_R[w, adr] * adh
        else:
            edge = adh / (2 * (dim - 1))
            for j in range(2 * (dim - 1)):
                d.efc_aref[w, adr + j] += d.efc_R[w, adr + j] * edge


@njit(cache=True)
def reference_constraint(m, d, w, F):
    """efc_vel = J qvel (+ geom surface velocities, F_SURFACEVEL) and efc_aref = -B vel - K I (pos - margin)
    (+ R adhesion on adhesive contacts, F_ADHESION) - Jdot qvel (mj_referenceConstraint; the Jdot qvel of connect /
    weld rows compiled with F_EQUALITY)."""
    nefc = d.nefc[w]
    J = d.efc_J[w]
    qvel = d.qvel[w]
    K = d.efc_KBIP[w]
    if has_lists(m, d, is_sparse(m)):
        # mj_mulJacVec, sparse: mju_mulMatVecSparse over the rows' structural lists (mju_dotSparse's order)
        Jind = d.scr_slv_Jind[w]
        for i in range(nefc):
            d.efc_vel[w, i] = dot_idx(J[i], Jind[i], 1, Jind[i, 0], qvel)
    else:
        for i in range(nefc):
            d.efc_vel[w, i] = _dot(J[i], qvel, m.nv)  # mj_mulJacVec: mju_mulMatVec, mju_dot's order
    _surface_vel_if(F, m, d, w)
    for i in range(nefc):
        s = d.efc_vel[w, i]
        d.efc_aref[w, i] = -K[i, 1] * s - K[i, 0] * K[i, 2] * (d.efc_pos[w, i] - d.efc_margin[w, i])
    _adhesion_ref_if(F, m, d, w)
    _jdotv_if(F, m, d, w)


# equality rows and their Jdot qvel, compiled only for feature sets with equality constraints (sim/jit/features.py)
_instantiate_equality = call_if(F_EQUALITY, instantiate_equality)
_jdotv_if = call_if(F_EQUALITY, _jdotv)
# geom surface velocities and contact adhesion, compiled only for models that have them
_surface_vel_if = call_if(F_SURFACEVEL, add_surface_vel)
_adhesion_ref_if = call_if(F_ADHESION, adhesion_ref)

# mj_projectConstraint, which does something only with ENBL_DIAGEXACT: compiled for feature sets with that flag
project_constraint_if = call_if(F_DIAGEXACT, project_constraint)
