"""Sparsity structures of the inertia matrix, body-dof and tendon Jacobians (compile time).

Reproduces MuJoCo's mjCModel::FinalizeSimple (dof_simplenum), mj_makeDofDofSparse (M and D), mj_makeBSparse (B),
mj_makeDofDofMaps (mapM2D, mapD2M, mapM2M) and makeTendonSparse (ten_J_*).
"""

import numpy as np

WRAP_JOINT, WRAP_PULLEY, WRAP_SITE, WRAP_SPHERE, WRAP_CYLINDER = 1, 2, 3, 4, 5


def finalize_simple(f):
    """Demote bodies touched by inertia-bearing tendons, then dof_simplenum (FinalizeSimple)."""
    simple = f["body_simple"].copy()
    for i in range(f["ntendon"]):
        if f["tendon_armature"][i] == 0:
            continue
        for j in range(f["tendon_adr"][i], f["tendon_adr"][i] + f["tendon_num"][i]):
            t, obj = f["wrap_type"][j], f["wrap_objid"][j]
            if t == WRAP_SITE:
                simple[f["site_bodyid"][obj]] = 0
            elif t in (WRAP_SPHERE, WRAP_CYLINDER):
                simple[f["geom_bodyid"][obj]] = 0
    f["body_simple"] = simple
    nv = f["nv"]
    simplenum = np.zeros(nv, dtype=np.int32)
    count = 0
    for i in range(nv - 1, -1, -1):
        count = count + 1 if simple[f["dof_bodyid"][i]] else 0
        simplenum[i] = count
    f["dof_simplenum"] = simplenum


def _dofdof(nv, parent, simplenum, reduced, upper):
    """(rownnz, rowadr, colind) of the dof-dof pattern (mj_makeDofDofSparse)."""
    rownnz = np.zeros(nv, dtype=np.int32)
    for i in range(nv - 1, -1, -1):
        rownnz[i] += 1
        if not (reduced and simplenum[i]):
            j = parent[i]
            while j >= 0:
                rownnz[i] += 1
                if upper:
                    rownnz[j] += 1
                j = parent[j]
    rowadr = np.zeros(nv, dtype=np.int32)
    for i in range(1, nv):
        rowadr[i] = rowadr[i - 1] + rownnz[i - 1]
    colind = np.zeros(int(rownnz.sum()), dtype=np.int32)
    remaining = rownnz.copy()
    for i in range(nv - 1, -1, -1):
        remaining[i] -= 1
        colind[rowadr[i] + remaining[i]] = i
        if not (reduced and simplenum[i]):
            j = parent[i]
            while j >= 0:
                remaining[i] -= 1
                colind[rowadr[i] + remaining[i]] = j
                if upper:
                    remaining[j] -= 1
                    colind[rowadr[j] + remaining[j]] = i
                j = parent[j]
    return rownnz, rowadr, colind


def _bsparse(nv, nbody, dofnum, parent, dofadr):
    """(rownnz, rowadr, colind) of the body-dof pattern (mj_makeBSparse)."""
    rownnz = np.zeros(nbody, dtype=np.int32)
    for i in range(nbody - 1, 0, -1):
        rownnz[i] += dofnum[i]
        rownnz[parent[i]] += rownnz[i]
    for i in range(nbody):
        j = parent[i]
        while j > 0:
            rownnz[i] += dofnum[j]
            j = parent[j]
    rowadr = np.zeros(nbody, dtype=np.int32)
    for i in range(1, nbody):
        rowadr[i] = rowadr[i - 1] + rownnz[i - 1]
    cols = [[] for _ in range(nbody)]
    for i in range(nbody - 1, 0, -1):
        cols[i].extend(dofadr[i] + n for n in range(dofnum[i]))
        cols[parent[i]].extend(cols[i][:])
    for i in range(nbody):
        p = parent[i]
        while p > 0:
            cols[i].extend(dofadr[p] + n for n in range(dofnum[p]))
            p = parent[p]
    colind = np.array([c for row in cols for c in sorted(row)], dtype=np.int32)
    return rownnz, rowadr, colind


def _sparse_map(nr, res_adr, res_nnz, res_col, src_adr, src_nnz, src_col):
    out = np.zeros(int(res_nnz.sum()), dtype=np.int32)
    for i in range(nr):
        rc, rend = res_adr[i], res_adr[i] + res_nnz[i]
        sc, send = src_adr[i], src_adr[i] + src_nnz[i]
        while rc < rend:
            col = res_col[rc]
            while sc < send and src_col[sc] < col:
                sc += 1
            out[rc] = sc
            rc += 1
            sc += 1
    return out


def _lower2sym_map(nr, res_adr, res_nnz, res_col, src_adr, src_nnz, src_col):
    out = np.full(int(res_nnz.sum()), -1, dtype=np.int32)
    cursor = list(res_adr)
    for i in range(nr):
        for k in range(src_adr[i], src_adr[i] + src_nnz[i]):
            j = src_col[k]
            if j > i:
                break
            for a, b in ((i, j), (j, i)) if j != i else ((i, j),):
                c, end = cursor[a], res_adr[a] + res_nnz[a]
                while c < end and res_col[c] < b:
                    c += 1
                if c < end and res_col[c] == b:
                    out[c] = k
                    c += 1
                cursor[a] = c
    return out


def make_sparsity(f):
    """Fill nC, nD, nB, M_*, D_*, B_*, mapM2D, mapD2M, mapM2M in the field dict f."""
    nv, nbody = f["nv"], f["nbody"]
    par, simple = f["dof_parentid"], f["dof_simplenum"]
    nM = f["nM"]
    mn, ma, mc = _dofdof(nv, par, simple, reduced=True, upper=False)
    dn, da, dc = _dofdof(nv, par, simple, reduced=False, upper=True)
    f["M_rownnz"], f["M_rowadr"], f["M_colind"] = mn, ma, mc
    f["D_rownnz"], f["D_rowadr"], f["D_colind"] = dn, da, dc
    f["nC"], f["nD"] = int(mn.sum()), int(dn.sum())
    diag = np.zeros(nv, dtype=np.int32)
    for i in range(nv):
        row = list(dc[da[i] : da[i] + dn[i]])
        diag[i] = row.index(i)
    f["D_diag"] = diag
    bn, ba, bc = _bsparse(nv, nbody, f["body_dofnum"], f["body_parentid"], f["body_dofadr"])
    f["B_rownnz"], f["B_rowadr"], f["B_colind"] = bn, ba, bc
    f["nB"] = int(bn.sum())
    f["mapM2D"] = _lower2sym_map(nv, da, dn, dc, ma, mn, mc)
    f["mapD2M"] = _sparse_map(nv, ma, mn, mc, da, dn, dc)
    # mapM2M: legacy (dof_Madr) layout -> CSR of the reduced lower triangle
    m2m = np.full(f["nC"], -1, dtype=np.int32)
    remaining = mn.copy()
    for i in range(nv - 1, -1, -1):
        adr = f["dof_Madr"][i]
        remaining[i] -= 1
        m2m[ma[i] + remaining[i]] = adr
        adr += 1
        if not simple[i]:
            j = par[i]
            while j >= 0:
                remaining[i] -= 1
                m2m[ma[i] + remaining[i]] = adr
                adr += 1
                j = par[j]
    f["mapM2M"] = m2m
    assert nM == f["nM"]


def make_tendon_sparse(f):
    """ten_J_rownnz / rowadr / colind and nJten (makeTendonSparse)."""
    nt = f["ntendon"]
    rownnz = np.zeros(nt, dtype=np.int32)
    rowadr = np.zeros(nt, dtype=np.int32)
    cols = []
    for i in range(nt):
        rowadr[i] = rowadr[i - 1] + rownnz[i - 1] if i > 0 else 0
        adr, num = f["tendon_adr"][i], f["tendon_num"][i]
        row = []
        if f["wrap_type"][adr] == WRAP_JOINT:
            row = [int(f["jnt_dofadr"][f["wrap_objid"][adr + j]]) for j in range(num)]
        else:
            for j in range(num):
                t, obj = f["wrap_type"][adr + j], f["wrap_objid"][adr + j]
                bid = (
                    f["site_bodyid"][obj]
                    if t == WRAP_SITE
                    else (f["geom_bodyid"][obj] if t in (WRAP_SPHERE, WRAP_CYLINDER) else -1)
                )
                while bid > 0:
                    for k in range(f["body_dofnum"][bid]):
                        dof = int(f["body_dofadr"][bid] + k)
                        if dof not in row:
                            row.append(dof)
                    bid = f["body_parentid"][bid]
        row.sort()
        rownnz[i] = len(row)
        cols.extend(row)
    f["ten_J_rownnz"], f["ten_J_rowadr"] = rownnz, rowadr
    f["ten_J_colind"] = np.array(cols, dtype=np.int32)
    f["nJten"] = len(cols)


def _dof_chain(f, body):
    """Dofs affecting `body`, from its nearest moving ancestor up to the root (following dof_parentid)."""
    while body and not f["body_dofnum"][body]:
        body = f["body_parentid"][body]
    if not body:
        return []
    i = f["body_dofadr"][body] + f["body_dofnum"][body] - 1
    out = []
    while i >= 0:
        out.append(int(i))
        i = f["dof_parentid"][i]
    return out


def count_njmom(f):
    """Non-zeros of the sparse actuator moment matrix (mjCModel::CountNJmom)."""
    count = 0
    nv = f["nv"]
    for i in range(f.get("nu", 0)):
        t, obj = f["actuator_trntype"][i], f["actuator_trnid"][i][0]
        ref = f["actuator_trnid"][i][1]
        if t in (0, 1):  # joint, jointinparent
            count += {0: 6, 1: 3}.get(int(f["jnt_type"][obj]), 1)
        elif t == 3:  # tendon
            count += int(f["ten_J_rownnz"][obj])
        elif t == 2:  # slidercrank: union of the two sites' chains
            a = set(_dof_chain(f, f["site_bodyid"][obj]))
            b = set(_dof_chain(f, f["site_bodyid"][ref]))
            count += len(a | b)
        elif t == 4:  # site (+refsite): union minus common ancestors
            a = set(_dof_chain(f, f["site_bodyid"][obj]))
            b = set(_dof_chain(f, f["site_bodyid"][ref])) if ref >= 0 else set()
            count += len(a ^ b) if ref >= 0 else len(a)
        elif t == 5:  # body
            count += nv
        else:
            count += 3 * nv if ref >= 0 else 3
    f["nJmom"] = count
