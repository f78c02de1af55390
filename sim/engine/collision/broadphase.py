"""Broadphase (mj_broadphase): always-colliding static bodies plus sweep-and-prune over body boxes.

Output: body pairs as signatures (b1 << 16) + b2, b1 < b2, sorted ascending (duplicates possible;
the driver skips repeats, as MuJoCo does).  Since the result is sorted by signature, only the SET
of pairs matters for the contact order; MuJoCo sweeps in a covariance-aligned frame, we sweep in
the world frame with the same per-body boxes (intersection of the bounding-sphere box and the
rotated geom AABB, inflated by margin + gap, or o_margin / 2 with the override flag).
"""

from sim.jit import njit
from sim.jit.simd import where

from sim.constants import OPT_DISABLE, OPT_ENABLE, OPT_O_MARGIN, DSBL_FILTERPARENT, ENBL_OVERRIDE, GEOM_PLANE


@njit(cache=True)
def merge_sort(key, pay, kbuf, pbuf, n):
    """Stable sort of key[:n] (float64) carrying pay[:n] (int), as mjSORT: insertion runs of 32, then merges."""
    run = 32
    for start in range(0, n, run):
        end = min(start + run, n)
        for j in range(start + 1, end):
            tk = key[j]
            tp = pay[j]
            k = j - 1
            while k >= start and key[k] > tk:
                key[k + 1] = key[k]
                pay[k + 1] = pay[k]
                k -= 1
            key[k + 1] = tk
            pay[k + 1] = tp
    src_k, src_p, dst_k, dst_p = key, pay, kbuf, pbuf
    ln = run
    flip = False
    while ln < n:
        for start in range(0, n, 2 * ln):
            mid = start + ln
            end = min(start + 2 * ln, n)
            if mid < end:
                i, j, k = start, mid, start
                while i < mid and j < end:
                    if src_k[i] <= src_k[j]:
                        dst_k[k] = src_k[i]
                        dst_p[k] = src_p[i]
                        i += 1
                    else:
                        dst_k[k] = src_k[j]
                        dst_p[k] = src_p[j]
                        j += 1
                    k += 1
                while i < mid:
                    dst_k[k] = src_k[i]
                    dst_p[k] = src_p[i]
                    i += 1
                    k += 1
                while j < end:
                    dst_k[k] = src_k[j]
                    dst_p[k] = src_p[j]
                    j += 1
                    k += 1
            else:
                for q in range(start, end):
                    dst_k[q] = src_k[q]
                    dst_p[q] = src_p[q]
        src_k, dst_k = dst_k, src_k
        src_p, dst_p = dst_p, src_p
        flip = not flip
        ln *= 2
    if flip:
        for q in range(n):
            key[q] = src_k[q]
            pay[q] = src_p[q]


@njit(cache=True)
def can_collide(m, b):
    """Body has any contype or conaffinity bit (canCollide)."""
    return m.body_contype[b] != 0 or m.body_conaffinity[b] != 0


@njit(cache=True)
def filter_body_pair(weldid, parentid, dofnum, b1, b2, dsbl_filterparent):
    """True to discard a body pair: same weld body, both dof-less, or welded parent-child (filterBodyPair)."""
    weld1 = weldid[b1]
    weld2 = weldid[b2]
    if weld1 == weld2:
        return True
    if dofnum[weld1] == 0 and dofnum[weld2] == 0:
        return True
    parent1 = weldid[parentid[weld1]]
    parent2 = weldid[parentid[weld2]]
    if (not dsbl_filterparent and weld1 != 0 and weld2 != 0) and (weld1 == parent2 or weld2 == parent1):
        return True
    return False


@njit(cache=True)
def _add_pair(contype, conaff, b1, b2, keys, npair):
    """Append signature of (b1, b2) if their geom bits are compatible (add_pair)."""
    if not ((contype[b1] & conaff[b2]) or (contype[b2] & conaff[b1])):
        return npair
    if b1 < b2:
        keys[npair] = float((b1 << 16) + b2)
    else:
        keys[npair] = float((b2 << 16) + b1)
    return npair + 1


@njit(cache=True)
def _has_plane(m, b):
    for g in range(m.body_geomadr[b], m.body_geomadr[b] + m.body_geomnum[b]):
        if m.geom_type[g] == GEOM_PLANE:
            return True
    return False


@njit(cache=True)
def body_box(m, d, w, b):
    """World-frame box (min xyz, max xyz) of body b's geoms, inflated by margin + gap (makeAAMM): floats for one
    world, Vecs for a block."""
    override = int(m.opt[OPT_ENABLE]) & ENBL_OVERRIDE
    omargin = 0.5 * m.opt[OPT_O_MARGIN] if override else 0.0
    g = m.body_geomadr[b]
    x0, x1, x2, y0, y1, y2 = _geom_box(m, d, w, g, omargin)
    for i in range(1, m.body_geomnum[b]):
        g0, g1, g2, h0, h1, h2 = _geom_box(m, d, w, m.body_geomadr[b] + i, omargin)
        x0 = where(g0 < x0, g0, x0)
        x1 = where(g1 < x1, g1, x1)
        x2 = where(g2 < x2, g2, x2)
        y0 = where(h0 > y0, h0, y0)
        y1 = where(h1 > y1, h1, y1)
        y2 = where(h2 > y2, h2, y2)
    return x0, x1, x2, y0, y1, y2


@njit(cache=True, always_inline=True)
def _geom_box(m, d, w, g, omargin):
    """One geom's box: the intersection of its bounding-sphere box and its rotated AABB, inflated (makeAAMM)."""
    margin = omargin if omargin != 0.0 else m.geom_margin[g] + m.geom_gap[g]
    aabb = m.geom_aabb[g]
    xp = d.geom_xpos[w, g]
    xm = d.geom_xmat[w, g]
    r = m.geom_rbound[g]
    lo0, hi0 = _axis_box(xp[0], xm[0], xm[1], xm[2], aabb, r, margin)
    lo1, hi1 = _axis_box(xp[1], xm[3], xm[4], xm[5], aabb, r, margin)
    lo2, hi2 = _axis_box(xp[2], xm[6], xm[7], xm[8], aabb, r, margin)
    return lo0, lo1, lo2, hi0, hi1, hi2


@njit(cache=True, always_inline=True)
def _axis_box(xp, m0, m1, m2, aabb, r, margin):
    cen = m0 * aabb[0] + m1 * aabb[1] + m2 * aabb[2] + xp
    half = abs(aabb[3] * m0) + abs(aabb[4] * m1) + abs(aabb[5] * m2)
    return max(xp - r, cen - half) - margin, min(xp + r, cen + half) + margin


@njit(cache=True)
def body_aamm(m, d, w, b, out):
    """World-frame box (min xyz, max xyz) of body b's geoms, inflated by margin + gap (makeAAMM), into out (6,)."""
    x0, x1, x2, y0, y1, y2 = body_box(m, d, w, b)
    out[0] = x0
    out[1] = x1
    out[2] = x2
    out[3] = y0
    out[4] = y1
    out[5] = y2


@njit(cache=True)
def static_collider(m, b):
    """Whether body b collides with every other body regardless of boxes (the world with geoms, a dof-less body
    with a plane: mj_broadphase's first loop)."""
    return (b == 0 and m.body_geomnum[b] > 0) or (m.body_dofnum[m.body_weldid[b]] == 0 and _has_plane(m, b))


@njit(cache=True)
def broadphase(m, d, w):
    """Candidate body pairs into d.scr_bfkey[w, :n] (signatures as float64, sorted); returns n."""
    keys = d.scr_bfkey[w]
    dsbl_fp = (int(m.opt[OPT_DISABLE]) & DSBL_FILTERPARENT) != 0
    nbody = m.nbody
    weldid = m.body_weldid
    parentid = m.body_parentid
    dofnum = m.body_dofnum
    contype = m.body_contype
    conaff = m.body_conaffinity
    npair = 0
    # static bodies that collide with everything (world with geoms, dof-less bodies with planes)
    for b1 in range(nbody):
        if not can_collide(m, b1):
            continue
        if static_collider(m, b1):
            for b2 in range(nbody):
                if not can_collide(m, b2) or filter_body_pair(weldid, parentid, dofnum, b1, b2, dsbl_fp):
                    continue
                npair = _add_pair(contype, conaff, b1, b2, keys, npair)
    # sweep and prune along world x over collidable non-world bodies
    bfid = d.scr_bfid[w]
    nc = 0
    for b in range(1, nbody):
        if can_collide(m, b) and m.body_geomnum[b] > 0:
            bfid[nc] = b
            nc += 1
    if nc > 1:
        aamm = d.scr_aamm[w]
        val = d.scr_sapval[w]
        ids = d.scr_sapid[w]
        for i in range(nc):
            body_aamm(m, d, w, bfid[i], aamm[i])
            val[2 * i] = aamm[i, 0]
            ids[2 * i] = i
            val[2 * i + 1] = aamm[i, 3]
            ids[2 * i + 1] = i + 0x10000
        merge_sort(val, ids, d.scr_sapbufval[w], d.scr_sapbufid[w], 2 * nc)
        active = d.scr_sapactive[w]
        cnt = 0
        for i in range(2 * nc):
            idv = ids[i]
            if not (idv & 0x10000):
                y0, z0, y1, z1 = aamm[idv, 1], aamm[idv, 2], aamm[idv, 4], aamm[idv, 5]
                b2 = bfid[idv]
                for j in range(cnt):
                    i1 = active[j]
                    if aamm[i1, 1] > y1 or y0 > aamm[i1, 4] or aamm[i1, 2] > z1 or z0 > aamm[i1, 5]:
                        continue
                    b1 = bfid[i1]
                    if filter_body_pair(weldid, parentid, dofnum, b1, b2, dsbl_fp):
                        continue
                    npair = _add_pair(contype, conaff, b1, b2, keys, npair)
                active[cnt] = idv
                cnt += 1
            else:
                rem = idv & 0xFFFF
                for j in range(cnt):
                    if active[j] == rem:
                        for q in range(j, cnt - 1):
                            active[q] = active[q + 1]
                        cnt -= 1
                        break
    if npair > 1:
        merge_sort(keys, d.scr_bfpay[w], d.scr_bfbuf[w], d.scr_bfpaybuf[w], npair)
    return npair
