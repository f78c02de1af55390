"""Constraint islands (mj_island, engine_island.c): trees coupled by efc rows form one island.

Union-find over kinematic trees: every efc row unions the trees it touches (contacts: the two geom
bodies' trees; joint friction / limits: the joint's tree; connect / weld: the two bodies' trees; other
rows: the distinct trees of its Jacobian row's columns, the structural pattern in the sparse mode, the nonzero
columns of the dense row otherwise, as treeNext). Islands are numbered in
ascending order of their smallest tree; dofs and efc rows of each island are listed in ascending order
(map_idof2dof, map_iefc2efc), unconstrained dofs after the first nidof entries.
"""

from sim.jit import njit

from sim.constants import (
    OPT_DISABLE,
    DSBL_ISLAND,
    CNSTR_EQUALITY,
    CNSTR_FRICTION_DOF,
    CNSTR_FRICTION_TENDON,
    CNSTR_LIMIT_JOINT,
    CNSTR_CONTACT_FRICTIONLESS,
    CNSTR_CONTACT_PYRAMIDAL,
    CNSTR_CONTACT_ELLIPTIC,
    EQ_CONNECT,
    EQ_WELD,
)

from sim.errors import UnsupportedError as UnsupportedFeature
from sim.engine.com import is_sparse
from sim.engine.solver_sparse import has_lists

OBJ_SITE = 6  # mjOBJ_SITE


@njit(cache=True)
def _root(parent, t):
    """Canonical root of tree t with path compression (mj_dsuRoot)."""
    r = t
    while parent[r] != r:
        r = parent[r]
    while parent[t] != t:
        nxt = parent[t]
        parent[t] = r
        t = nxt
    return r


@njit(cache=True)
def _merge(parent, t1, t2):
    """Activate and union two trees, -1 = static (mj_dsuMerge); the smaller root becomes the root."""
    if t1 == -1:
        t1 = t2
    if t2 == -1:
        t2 = t1
    if t1 < 0:
        return
    if parent[t1] == -1:
        parent[t1] = t1
    if parent[t2] == -1:
        parent[t2] = t2
    r1 = _root(parent, t1)
    r2 = _root(parent, t2)
    if r1 < r2:
        parent[r2] = r1
    elif r2 < r1:
        parent[r1] = r2


@njit(cache=True)
def _special_trees(m, d, w, i):
    """(tree1, tree2, special) of row i for the shortcut cases of treeIterInit; -2 = none."""
    typ = d.efc_type[w, i]
    eid = d.efc_id[w, i]
    if typ == CNSTR_FRICTION_DOF:
        return m.dof_treeid[eid], -2, True
    if typ == CNSTR_LIMIT_JOINT:
        return m.dof_treeid[m.jnt_dofadr[eid]], -2, True
    if typ == CNSTR_CONTACT_FRICTIONLESS or typ == CNSTR_CONTACT_PYRAMIDAL or typ == CNSTR_CONTACT_ELLIPTIC:
        g1 = d.contact_geom[w, eid, 0]
        g2 = d.contact_geom[w, eid, 1]
        if g1 >= 0 and g2 >= 0:
            return m.body_treeid[m.geom_bodyid[g1]], m.body_treeid[m.geom_bodyid[g2]], True
        return -2, -2, False
    if typ == CNSTR_EQUALITY and (m.eq_type[eid] == EQ_CONNECT or m.eq_type[eid] == EQ_WELD):
        b1 = m.eq_obj1id[eid]
        b2 = m.eq_obj2id[eid]
        if m.eq_objtype[eid] == OBJ_SITE:
            b1 = m.site_bodyid[b1]
            b2 = m.site_bodyid[b2]
        return m.body_treeid[b1], m.body_treeid[b2], True
    return -2, -2, False


@njit(cache=True)
def _union_row(m, d, w, i, parent):
    """Union the trees of efc row i; returns the row's tree (unionConstraintTrees)."""
    t1, t2, special = _special_trees(m, d, w, i)
    if special:
        t = t1 if t1 >= 0 else t2
        if t < 0:
            raise UnsupportedFeature("island: constraint between two static bodies")
        _merge(parent, t1, -1 if t2 == -2 else t2)
        return t
    first = -2
    prev = -1
    if has_lists(m, d, is_sparse(m)):
        # sparse: distinct consecutive trees of the row's structural pattern (efc_J_colind, zeros included)
        lst = d.scr_slv_Jind[w, i]
        for k in range(1, lst[0] + 1):
            t = m.dof_treeid[lst[k]]
            if t != prev:
                if first == -2:
                    first = t
                else:
                    _merge(parent, prev, t)
                prev = t
        if first == -2:
            raise UnsupportedFeature("island: no tree found for a constraint row (empty Jacobian row)")
        if prev == first:
            _merge(parent, first, -1)
        return first
    # dense: distinct consecutive trees of the nonzero Jacobian columns
    J = d.efc_J[w, i]
    j = 0
    while j < m.nv:
        if J[j] != 0.0:
            t = m.dof_treeid[j]
            if t != prev:
                if first == -2:
                    first = t
                else:
                    _merge(parent, prev, t)
                prev = t
            j = m.tree_dofadr[t] + m.tree_dofnum[t]
        else:
            j += 1
    if first == -2:
        raise UnsupportedFeature("island: no tree found for a constraint row (zero Jacobian row)")
    if prev == first:
        _merge(parent, first, -1)
    return first


@njit(cache=True)
def _one_tree(m, d, w):
    """island() for a model with a single kinematic tree: every row couples that tree (a contact, limit or
    friction row always touches it; equality rows are checked as in the general case), so one island holds
    every row and dof and all maps are the identity."""
    nv, nefc = m.nv, d.nefc[w]
    parent = d.scr_isl_int[w, 3]
    parent[0] = -1
    for i in range(d.ne[w]):
        _union_row(m, d, w, i, parent)
    d.nisland[w] = 1
    d.nidof[w] = nv
    d.tree_island[w, 0] = 0
    d.island_ntree[w, 0] = 1
    d.island_itreeadr[w, 0] = 0
    d.map_itree2tree[w, 0] = 0
    d.island_nv[w, 0] = nv
    d.island_idofadr[w, 0] = 0
    d.island_dofadr[w, 0] = 0
    dof_island, d2i, i2d = d.dof_island[w], d.map_dof2idof[w], d.map_idof2dof[w]
    for i in range(nv):
        dof_island[i] = 0
        d2i[i] = i
        i2d[i] = i
    d.island_ne[w, 0] = d.ne[w]
    d.island_nf[w, 0] = d.nf[w]
    d.island_nefc[w, 0] = nefc
    d.island_iefcadr[w, 0] = 0
    efc_island, e2i, i2e = d.efc_island[w], d.map_efc2iefc[w], d.map_iefc2efc[w]
    for i in range(nefc):
        efc_island[i] = 0
        e2i[i] = i
        i2e[i] = i


@njit(cache=True)
def island(m, d, w):
    """Discover constraint islands of world w: nisland, nidof, tree/dof/efc island ids and maps (mj_island)."""
    nv, nefc, ntree = m.nv, d.nefc[w], m.ntree
    d.nisland[w] = 0
    d.nidof[w] = 0
    if (int(m.opt[OPT_DISABLE]) & DSBL_ISLAND) or nefc == 0:
        return
    if ntree == 1:
        _one_tree(m, d, w)
        return
    efc_tree = d.scr_isl_int[w, 2]
    parent = d.scr_isl_int[w, 3]
    for t in range(ntree):
        parent[t] = -1
    ptype = -1
    pid = -1
    for i in range(nefc):
        if i > 0 and d.efc_type[w, i] == ptype and d.efc_id[w, i] == pid:
            efc_tree[i] = efc_tree[i - 1]
            continue
        ptype = d.efc_type[w, i]
        pid = d.efc_id[w, i]
        efc_tree[i] = _union_row(m, d, w, i, parent)
    # deterministic island ids in ascending root order (mj_dsuAssign)
    tree_island = d.tree_island[w]
    nisland = 0
    nidof = 0
    for t in range(ntree):
        if parent[t] == -1:
            tree_island[t] = -1
            continue
        r = _root(parent, t)
        if r == t:
            tree_island[t] = nisland
            nisland += 1
        else:
            tree_island[t] = tree_island[r]
        nidof += m.tree_dofnum[t]
    d.nisland[w] = nisland
    d.nidof[w] = nidof
    if nisland == 0:
        d.nidof[w] = 0
        return
    # trees
    ntr, tadr, t2t = d.island_ntree[w], d.island_itreeadr[w], d.map_itree2tree[w]
    for k in range(nisland):
        ntr[k] = 0
    for t in range(ntree):
        if tree_island[t] >= 0:
            ntr[tree_island[t]] += 1
    tadr[0] = 0
    for k in range(1, nisland):
        tadr[k] = tadr[k - 1] + ntr[k - 1]
    cnt = d.scr_isl_int[w, 3]  # parents no longer needed: reuse as counters (nisland + 1)
    for k in range(nisland + 1):
        cnt[k] = 0
    last = tadr[nisland - 1] + ntr[nisland - 1]
    for t in range(ntree):
        k = tree_island[t]
        if k >= 0:
            t2t[tadr[k] + cnt[k]] = t
            cnt[k] += 1
        else:
            t2t[last + cnt[nisland]] = t
            cnt[nisland] += 1
    # dofs
    inv, iadr, dadr = d.island_nv[w], d.island_idofadr[w], d.island_dofadr[w]
    dof_island, d2i, i2d = d.dof_island[w], d.map_dof2idof[w], d.map_idof2dof[w]
    for k in range(nisland):
        inv[k] = 0
    for i in range(nv):
        k = tree_island[m.dof_treeid[i]]
        dof_island[i] = k
        if k >= 0:
            inv[k] += 1
    iadr[0] = 0
    for k in range(1, nisland):
        iadr[k] = iadr[k - 1] + inv[k - 1]
    for k in range(nisland + 1):
        cnt[k] = 0
    for i in range(nv):
        k = dof_island[i]
        if k >= 0:
            idof = iadr[k] + cnt[k]
            cnt[k] += 1
        else:
            idof = nidof + cnt[nisland]
            cnt[nisland] += 1
        d2i[i] = idof
        i2d[idof] = i
    for k in range(nisland):
        dadr[k] = i2d[iadr[k]]
    # efc rows
    ine, inf, inefc, eadr = d.island_ne[w], d.island_nf[w], d.island_nefc[w], d.island_iefcadr[w]
    efc_island, e2i, i2e = d.efc_island[w], d.map_efc2iefc[w], d.map_iefc2efc[w]
    for k in range(nisland):
        ine[k] = 0
        inf[k] = 0
        inefc[k] = 0
    for i in range(nefc):
        k = tree_island[efc_tree[i]]
        efc_island[i] = k
        inefc[k] += 1
        typ = d.efc_type[w, i]
        if typ == CNSTR_EQUALITY:
            ine[k] += 1
        elif typ == CNSTR_FRICTION_DOF or typ == CNSTR_FRICTION_TENDON:
            inf[k] += 1
    eadr[0] = 0
    for k in range(1, nisland):
        eadr[k] = eadr[k - 1] + inefc[k - 1]
    for k in range(nisland):
        cnt[k] = 0
    for i in range(nefc):
        k = efc_island[i]
        ic = eadr[k] + cnt[k]
        cnt[k] += 1
        e2i[i] = ic
        i2e[ic] = i
