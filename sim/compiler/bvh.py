"""Bounding volume hierarchies (mjCBoundingVolumeHierarchy in MuJoCo's user_objects.cc) and the octree fields.

One BVH per body over its colliding geoms (in the body's inertial frame) and one per mesh over its faces
(in the mesh frame). A node stores its box as (center, half size); an inner node splits its elements at the
median of their centers along the longest box edge (ties within mjEPS broken by element order), computed
with the LLVM libc++ std::nth_element that MuJoCo 3.17's wheels are built with: the comparison is not transitive
for centers closer than mjEPS, so the partition of nearly equal centers depends on that algorithm, and it is
reproduced step by step (nth_element below) wherever the comparison is not a strict order; elsewhere the halves
are the same whatever the algorithm, and build() computes them on whole arrays.

Model layout (mjCModel::CopyTree / CopyObjects): the body trees first (by body id), then the mesh trees
(by mesh id); bvh_child holds node indices local to each tree, bvh_nodeid the geom id (bodies) or face
index (meshes) of a leaf, -1 for inner nodes; bvh_depth the node level.
"""

import numpy as np

EPS = 1e-14  # mjEPS
MAXVAL = np.finfo(np.float64).max


# ---------------------------------------------------------------------- libc++ std::nth_element, step by step


def _sort3(a, x, y, z, less):
    """libc++ std::__sort3 (with a user comparator): sorts a[x], a[y], a[z]; returns the number of swaps."""
    if not less(a[y], a[x]):
        if not less(a[z], a[y]):
            return 0
        a[y], a[z] = a[z], a[y]
        if less(a[y], a[x]):
            a[x], a[y] = a[y], a[x]
            return 2
        return 1
    if less(a[z], a[y]):
        a[x], a[z] = a[z], a[x]
        return 1
    a[x], a[y] = a[y], a[x]
    if less(a[z], a[y]):
        a[y], a[z] = a[z], a[y]
        return 2
    return 1


def _selection_sort(a, first, last, less):
    """libc++ std::__selection_sort (swap with the first minimum of the rest)."""
    for f in range(first, last - 1):
        i = f
        for j in range(f + 1, last):
            if less(a[j], a[i]):
                i = j
        if i != f:
            a[f], a[i] = a[i], a[f]


def nth_element(a, first, nth, last, less):
    """In-place std::nth_element(a+first, a+nth, a+last, less) exactly as LLVM libc++ performs it (the
    standard library of MuJoCo 3.17's Linux wheels)."""
    while True:
        if nth == last:
            return
        n = last - first
        if n <= 1:
            return
        if n == 2:
            if less(a[last - 1], a[first]):
                a[first], a[last - 1] = a[last - 1], a[first]
            return
        if n == 3:
            _sort3(a, first, first + 1, last - 1, less)
            return
        if n <= 7:
            _selection_sort(a, first, last, less)
            return
        m = first + n // 2
        lm1 = last - 1
        nswaps = _sort3(a, first, m, lm1, less)
        i, j = first, lm1
        restart = False
        if not less(a[i], a[m]):
            # find a guard for the downward moving j
            found = False
            while True:
                j -= 1
                if i == j:
                    break
                if less(a[j], a[m]):
                    found = True
                    break
            if found:
                a[i], a[j] = a[j], a[i]
                nswaps += 1
            else:
                # *first == *m <= everything: partition into [first, i) == *first < [i, last)
                i = first + 1
                j = last - 1
                if not less(a[first], a[j]):
                    while True:
                        if i == j:
                            return
                        if less(a[first], a[i]):
                            a[i], a[j] = a[j], a[i]
                            nswaps += 1
                            i += 1
                            break
                        i += 1
                if i == j:
                    return
                while True:
                    while not less(a[first], a[i]):
                        i += 1
                    j -= 1
                    while less(a[first], a[j]):
                        j -= 1
                    if i >= j:
                        break
                    a[i], a[j] = a[j], a[i]
                    nswaps += 1
                    i += 1
                if nth < i:
                    return
                first = i
                restart = True
        if restart:
            continue
        i += 1
        if i < j:
            while True:
                while less(a[i], a[m]):
                    i += 1
                j -= 1
                while not less(a[j], a[m]):
                    j -= 1
                if i >= j:
                    break
                a[i], a[j] = a[j], a[i]
                nswaps += 1
                if m == i:
                    m = j
                i += 1
        if i != m and less(a[m], a[i]):
            a[i], a[m] = a[m], a[i]
            nswaps += 1
        if nth == i:
            return
        if nswaps == 0:
            lo, hi = (first, i) if nth < i else (i, last)
            k = lo
            is_sorted = True
            for jj in range(lo + 1, hi):
                if less(a[jj], a[k]):
                    is_sorted = False
                    break
                k = jj
            if is_sorted:
                return
        if nth < i:
            last = i
        else:
            first = i + 1


# ------------------------------------------------------------------------------------------ the hierarchy


class Tree:
    """One built hierarchy: aabb (nbvh, 6), child (nbvh, 2) local indices, nodeid (nbvh,), depth (nbvh,)."""

    def __init__(self, aabb, child, nodeid, depth):
        self.aabb = aabb
        self.child = child
        self.nodeid = nodeid
        self.depth = depth

    def __len__(self):
        return len(self.nodeid)


EMPTY = Tree(np.zeros((0, 6)), np.zeros((0, 2), np.int32), np.zeros(0, np.int32), np.zeros(0, np.int32))


def _clean(keys):
    """True when `less` below is a strict total order on elements with these sort keys (n, 3) along every axis:
    the values are finite and fall into runs whose consecutive gaps are within mjEPS and whose spans are too (the
    relation "within mjEPS" is then an equivalence, its classes ordered by value, ties by element index).  Every
    subset of a clean set is clean."""
    if not np.all(np.isfinite(keys)):
        return False
    s = np.sort(keys, axis=0)
    brk = np.abs(s[1:] - s[:-1]) > EPS
    for a in range(3):
        cut = np.flatnonzero(brk[:, a])
        first = np.r_[0, cut + 1]
        last = np.r_[cut, len(s) - 1]
        if np.any(np.abs(s[last, a] - s[first, a]) > EPS):
            return False
    return True


def _orders(lpos, groups):
    """Per axis (3, N): the elements of the clean groups (a list of index arrays, N elements in all), group after
    group, each group's in the order of `less` along that axis (runs within mjEPS by element index)."""
    el = np.concatenate(groups)
    gid = np.repeat(np.arange(len(groups)), [len(g) for g in groups])
    out = np.empty((3, len(el)), np.int64)
    for a in range(3):
        v = lpos[el, a]
        o = np.lexsort((v, gid))
        vs, gs = v[o], gid[o]
        new = np.r_[True, (gs[1:] != gs[:-1]) | (np.abs(vs[1:] - vs[:-1]) > EPS)]
        cls = np.empty(len(el), np.int64)
        cls[o] = np.cumsum(new)  # the class (run within mjEPS) of each element, increasing with the group
        out[a] = el[np.lexsort((el, cls))]
    return out


def build(lpos, aamm, ids, step_by_step=False):
    """mjCBoundingVolumeHierarchy::MakeBVH over elements k = 0..n-1 (the hierarchy's element order).

    lpos (n, 3): element position in the hierarchy frame (sort key); aamm (n, 6): the element's box as
    (min, max) in the hierarchy frame, already the per-element accumulation of MakeBVH; ids (n,): the node id
    stored in the element's leaf.

    A node's elements are split by nth_element with `less` (position along the axis, ties within mjEPS by
    element index).  Where `less` is a strict total order on a node's elements (_clean), the two halves are the
    m smallest elements and the rest whatever the algorithm, so such subtrees are built level by level on whole
    arrays (sorting by rank); elsewhere the libc++ algorithm runs step by step on the element order its earlier
    steps left.  Nodes are numbered in MakeBVH's depth-first order: a node over c elements heads 2c - 1 nodes,
    its children are index + 1 and index + 2m.  step_by_step=True runs nth_element at every inner node.
    """
    n = len(ids)
    if n == 0:
        return EMPTY
    lpos = np.asarray(lpos, np.float64).reshape(n, 3)
    aamm = np.asarray(aamm, np.float64).reshape(n, 6)
    ids = np.asarray(ids)
    nnode = 2 * n - 1
    aabb = np.zeros((nnode, 6))
    child = np.full((nnode, 2), -1, np.int32)
    nodeid = np.full(nnode, -1, np.int32)
    depth = np.zeros(nnode, np.int32)
    lo, hi = aamm[:, :3], aamm[:, 3:]
    fast = []  # clean subtrees: (elements, level, index)

    if not step_by_step and _clean(lpos):
        fast.append((np.arange(n), 0, 0))
    else:
        lp = [tuple(float(x) for x in r) for r in lpos]
        order = list(range(n))

        def make(first, last, lev, index):
            sel = np.array(order[first:last])
            cnt = last - first
            if cnt == 1 or (not step_by_step and _clean(lpos[sel])):
                fast.append((sel, lev, index))
                return
            b = np.concatenate([lo[sel].min(axis=0), hi[sel].max(axis=0)])
            for i in range(3):
                if abs(b[i] - b[i + 3]) < EPS:
                    b[i] -= EPS
                    b[i + 3] += EPS
            depth[index] = lev
            aabb[index, :3] = [(b[3] + b[0]) / 2, (b[4] + b[1]) / 2, (b[5] + b[2]) / 2]
            aabb[index, 3:] = [(b[3] - b[0]) / 2, (b[4] - b[1]) / 2, (b[5] - b[2]) / 2]
            edges = (b[3] - b[0], b[4] - b[1], b[5] - b[2])
            axis = 0
            if edges[1] >= edges[0] + EPS:
                axis = 1
            if edges[2] >= edges[axis] + EPS:
                axis = 2

            def less(e1, e2):
                a1, a2 = lp[e1][axis], lp[e2][axis]
                if abs(a1 - a2) > EPS:
                    return a1 < a2
                return e1 < e2

            m = cnt // 2
            nth_element(order, first, first + m, last, less)
            child[index] = (index + 1, index + 2 * m)
            make(first, first + m, lev + 1, index + 1)
            make(first + m, last, lev + 1, index + 2 * m)

        make(0, n, 0, 0)

    # the clean subtrees, all together, one level per pass.  ords[a] holds every node's elements (node after
    # node) in the order of `less` along axis a: a split takes the first m of its axis's list, and each list is
    # partitioned stably into the children's
    ords = _orders(lpos, [g for g, _, _ in fast])
    cnt = np.array([len(g) for g, _, _ in fast], np.int64)
    lev = np.array([v for _, v, _ in fast], np.int64)
    index = np.array([i for _, _, i in fast], np.int64)
    left = np.zeros(n, bool)
    while True:
        start = np.cumsum(cnt) - cnt
        perm = ords[0]
        blo = np.minimum.reduceat(lo[perm], start, axis=0)
        bhi = np.maximum.reduceat(hi[perm], start, axis=0)
        thin = np.abs(blo - bhi) < EPS
        blo = np.where(thin, blo - EPS, blo)
        bhi = np.where(thin, bhi + EPS, bhi)
        aabb[index, :3] = (bhi + blo) / 2
        aabb[index, 3:] = (bhi - blo) / 2
        depth[index] = lev
        leaf = cnt == 1
        nodeid[index[leaf]] = ids[perm[start[leaf]]]
        inner = np.flatnonzero(~leaf)
        if not len(inner):
            break
        edges = bhi - blo
        axis = np.where(edges[:, 1] >= edges[:, 0] + EPS, 1, 0)
        axis = np.where(edges[:, 2] >= edges[np.arange(len(axis)), axis] + EPS, 2, axis)
        axis[leaf] = -1
        half = cnt // 2
        c, i0, m = cnt[inner], index[inner], half[inner]
        child[i0] = np.stack([i0 + 1, i0 + 2 * m], axis=1)
        # the left child's elements: the first m of the node's list along its split axis
        seg = np.repeat(np.arange(len(cnt)), cnt)
        offset = np.arange(len(perm)) - start[seg]
        for a in range(3):
            left[ords[a][(axis[seg] == a) & (offset < half[seg])]] = True
        # the children's lists: (left, right) per inner node, each a stable partition of the node's list
        cnt = np.stack([m, c - m], axis=1).reshape(-1)
        lstart = (np.cumsum(cnt) - cnt)[0::2]
        rstart = lstart + m
        keep = ~leaf[seg]
        k = np.repeat(np.arange(len(inner)), c)  # inner node of each kept position
        kstart = np.cumsum(c) - c
        new = np.empty((3, int(c.sum())), np.int64)
        for a in range(3):
            e = ords[a][keep]
            is_l = left[e]
            nl = np.cumsum(is_l) - is_l  # lefts before each position
            nr = np.arange(len(e)) - nl  # rights before it
            pos = np.where(is_l, lstart[k] + nl - nl[kstart][k], rstart[k] + nr - nr[kstart][k])
            new[a, pos] = e
        left[ords[0]] = False
        ords = new
        lev = np.repeat(lev[inner] + 1, 2)
        index = np.stack([i0 + 1, i0 + 2 * m], axis=1).reshape(-1)
    return Tree(aabb, child, nodeid, depth)


# ---------------------------------------------------------------------------------------- body and mesh


def rot_vec_quat(vec, quat):
    """mjuu_rotVecQuat, with its zero-vector and identity-quaternion shortcuts (scalar, exact arithmetic)."""
    if vec[0] == 0 and vec[1] == 0 and vec[2] == 0:
        return (0.0, 0.0, 0.0)
    if quat[0] == 1 and quat[1] == 0 and quat[2] == 0 and quat[3] == 0:
        return (vec[0], vec[1], vec[2])
    t0 = quat[0] * vec[0] + quat[2] * vec[2] - quat[3] * vec[1]
    t1 = quat[0] * vec[1] + quat[3] * vec[0] - quat[1] * vec[2]
    t2 = quat[0] * vec[2] + quat[1] * vec[1] - quat[2] * vec[0]
    return (
        vec[0] + 2 * (quat[2] * t2 - quat[3] * t1),
        vec[1] + 2 * (quat[3] * t0 - quat[1] * t2),
        vec[2] + 2 * (quat[1] * t1 - quat[2] * t0),
    )


def body_tree(ipos, iquat, gpos, gquat, gaabb, contype, conaffinity, gids):
    """mjCBody::ComputeBVH: hierarchy over the body's geoms (in geom id order) with contype|conaffinity != 0,
    in the body inertial frame (ipos, iquat); leaves store the geom id."""
    ipos = [float(x) for x in ipos]
    qinv = (float(iquat[0]), -float(iquat[1]), -float(iquat[2]), -float(iquat[3]))
    lpos, aamm, ids = [], [], []
    for k in range(len(gids)):
        if not (contype[k] or conaffinity[k]):
            continue
        p = [float(x) for x in gpos[k]]
        q = [float(x) for x in gquat[k]]
        a = [float(x) for x in gaabb[k]]
        lpos.append(rot_vec_quat((p[0] - ipos[0], p[1] - ipos[1], p[2] - ipos[2]), qinv))
        box_lo = (a[0] - a[3], a[1] - a[4], a[2] - a[5])
        box_hi = (a[0] + a[3], a[1] + a[4], a[2] + a[5])
        off = (p[0] - ipos[0], p[1] - ipos[1], p[2] - ipos[2])
        lo = [MAXVAL] * 3
        hi = [-MAXVAL] * 3
        for v in range(8):
            vert = (
                box_hi[0] if v & 1 else box_lo[0],
                box_hi[1] if v & 2 else box_lo[1],
                box_hi[2] if v & 4 else box_lo[2],
            )
            box = rot_vec_quat(vert, q)
            box = (box[0] + off[0], box[1] + off[1], box[2] + off[2])
            vert = rot_vec_quat(box, qinv)
            for i in range(3):
                lo[i] = vert[i] if vert[i] < lo[i] else lo[i]  # std::min(AAMM, vert)
                hi[i] = vert[i] if hi[i] < vert[i] else hi[i]  # std::max(AAMM, vert)
        aamm.append(lo + hi)
        ids.append(int(gids[k]))
    if not ids:
        return EMPTY
    return build(np.array(lpos), np.array(aamm), np.array(ids))


def face_centers(dvert, face):
    """mjCMesh::MakeCenter: circumcenters of the faces (n, 3) from the double-precision vertices."""
    v0, v1, v2 = dvert[face[:, 0]], dvert[face[:, 1]], dvert[face[:, 2]]
    a = v0 - v2
    b = v1 - v2
    nrm = np.stack(
        [
            a[:, 1] * b[:, 2] - a[:, 2] * b[:, 1],
            a[:, 2] * b[:, 0] - a[:, 0] * b[:, 2],
            a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0],
        ],
        axis=1,
    )
    na = (a[:, 0] * a[:, 0] + a[:, 1] * a[:, 1]) + a[:, 2] * a[:, 2]
    nb = (b[:, 0] * b[:, 0] + b[:, 1] * b[:, 1]) + b[:, 2] * b[:, 2]
    area = np.sqrt((nrm[:, 0] * nrm[:, 0] + nrm[:, 1] * nrm[:, 1]) + nrm[:, 2] * nrm[:, 2])
    vec = na[:, None] * b - nb[:, None] * a
    res = np.stack(
        [
            vec[:, 1] * nrm[:, 2] - vec[:, 2] * nrm[:, 1],
            vec[:, 2] * nrm[:, 0] - vec[:, 0] * nrm[:, 2],
            vec[:, 0] * nrm[:, 1] - vec[:, 1] * nrm[:, 0],
        ],
        axis=1,
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        return res / (2 * area * area)[:, None] + v2


def mesh_tree(dvert, face):
    """mjCMesh::SetBoundingVolume + CreateBVH: hierarchy over the faces (leaf = face index) in the mesh frame,
    keyed on the face circumcenters, boxes from the double-precision vertices."""
    face = np.asarray(face, np.int64).reshape(-1, 3)
    if len(face) == 0:
        return EMPTY
    dvert = np.asarray(dvert, np.float64)
    tri = dvert[face]  # (n, 3 vertices, 3)
    fmin = np.minimum(np.minimum(tri[:, 0], tri[:, 1]), tri[:, 2])
    fmax = np.maximum(np.maximum(tri[:, 0], tri[:, 1]), tri[:, 2])
    center = 0.5 * (fmin + fmax)
    half = 0.5 * (fmax - fmin)
    aamm = np.concatenate([center - half, center + half], axis=1)
    lpos = face_centers(dvert, face) - 0.0  # hierarchy frame = mesh frame (ipos 0, iquat 1)
    return build(lpos, aamm, np.arange(len(face)))


def make_bvh(f, body_trees, mesh_trees):
    """bvh_* arrays, body_bvhadr/num, mesh_bvhadr/num, nbvh, nbvhstatic, nbvhdynamic (no flex: 0)."""
    trees = list(body_trees) + list(mesh_trees)
    adr = 0
    adrs = []
    for t in trees:
        adrs.append(adr if len(t) else -1)
        adr += len(t)
    nb = len(body_trees)
    f["body_bvhadr"] = np.array(adrs[:nb], np.int32)
    f["body_bvhnum"] = np.array([len(t) for t in body_trees], np.int32)
    f["mesh_bvhadr"] = np.array(adrs[nb:], np.int32)
    f["mesh_bvhnum"] = np.array([len(t) for t in mesh_trees], np.int32)
    f["bvh_aabb"] = np.concatenate([t.aabb for t in trees] + [np.zeros((0, 6))]).reshape(-1, 6)
    f["bvh_child"] = np.concatenate([t.child for t in trees] + [np.zeros((0, 2), np.int32)]).reshape(-1, 2)
    f["bvh_nodeid"] = np.concatenate([t.nodeid for t in trees] + [np.zeros(0, np.int32)])
    f["bvh_depth"] = np.concatenate([t.depth for t in trees] + [np.zeros(0, np.int32)])
    f["nbvh"] = f["nbvhstatic"] = adr
    f["nbvhdynamic"] = 0
    f["flex_bvhadr"] = np.zeros(0, np.int32)
    f["flex_bvhnum"] = np.zeros(0, np.int32)


def make_octree(f):
    """Octree fields: MuJoCo builds mesh octrees only for SDF geoms, which numjoco refuses: all empty."""
    nmesh = int(f.get("nmesh", 0))
    f["noct"] = 0
    f["mesh_octadr"] = np.full(nmesh, -1, np.int32)
    f["mesh_octnum"] = np.zeros(nmesh, np.int32)
    f["oct_aabb"] = np.zeros((0, 6))
    f["oct_child"] = np.zeros((0, 8), np.int32)
    f["oct_coeff"] = np.zeros((0, 8))
    f["oct_depth"] = np.zeros(0, np.int32)


def compile_bvh(ctx):
    """Every body and mesh hierarchy of the compiled model into ctx.f (after discardvisual / fusestatic)."""
    f = ctx.f
    body_trees = []
    for b in range(int(f["nbody"])):
        adr, num = int(f["body_geomadr"][b]), int(f["body_geomnum"][b])
        if num <= 0:
            body_trees.append(EMPTY)
            continue
        sl = slice(adr, adr + num)
        body_trees.append(
            body_tree(
                f["body_ipos"][b],
                f["body_iquat"][b],
                f["geom_pos"][sl],
                f["geom_quat"][sl],
                f["geom_aabb"][sl],
                f["geom_contype"][sl],
                f["geom_conaffinity"][sl],
                np.arange(adr, adr + num),
            )
        )
    mesh_trees = [m.tree for m in getattr(ctx, "meshes", [])]
    make_bvh(f, body_trees, mesh_trees)
    make_octree(f)
