"""Collision driver (mj_collision): pair generation, narrowphase dispatch, contact parameter mixing.

Order of contacts follows MuJoCo: body pairs by ascending signature (b1 << 16) + b2; for each, the
explicit <pair>s with signature <= it first, then its geom pairs -- both single-geom bodies: one pair;
otherwise the midphase leaf pairs sorted by (geom1, geom2) after the type swap (mj_collideTree then
contactSort), or all-to-all when the midphase is disabled; remaining explicit pairs at the end.
The midphase is evaluated at the leaves only (bounding-sphere and geom OBB tests of every geom pair
of the two bodies); MuJoCo's internal BVH nodes only prune work, they cannot add pairs.
"""

from sim.jit import njit

from sim.constants import (
    OPT_DISABLE,
    OPT_ENABLE,
    OPT_O_MARGIN,
    OPT_O_SOLREF,
    OPT_O_SOLIMP,
    OPT_O_FRICTION,
    DSBL_CONSTRAINT,
    DSBL_CONTACT,
    DSBL_MIDPHASE,
    DSBL_FILTERPARENT,
    DSBL_NATIVECCD,
    ENBL_OVERRIDE,
    WARN_CONTACTFULL,
    MINVAL,
    MAXVAL,
    GEOM_PLANE,
    GEOM_HFIELD,
    GEOM_SPHERE,
    GEOM_CAPSULE,
    GEOM_ELLIPSOID,
    GEOM_CYLINDER,
    GEOM_BOX,
    GEOM_MESH,
)
from sim.engine.collision.broadphase import broadphase, body_box, can_collide, filter_body_pair, static_collider
from sim.engine.collision import primitive as P
from sim.engine.collision import box as B
from sim.engine.collision.convex import convex, plane_convex, LIBCCD_MISSING
from sim.engine.collision.hfield import convex_hfield
from sim.engine.collision.mpr import convex_libccd
from sim.errors import UnsupportedError
from sim.jit.features import call_if, F_COLLIDE2, F_CYLBOX, F_LIBCCD
from sim.jit.simd import LANES, lnot, all_true, any_true, false_like, lane_of, lane_mask, block_number

MINMU = 1e-5  # mjMINMU: smallest friction coefficient

# colliders beyond the primitive pairs, compiled only when the model needs them (sim/jit/features.py)
_plane_convex = call_if(F_COLLIDE2, plane_convex, 0)
_convex_hfield = call_if(F_COLLIDE2, convex_hfield, 0)
_sphere_box = call_if(F_COLLIDE2, B.sphere_box, 0)
_capsule_box = call_if(F_COLLIDE2, B.capsule_box, 0)
_box_box = call_if(F_COLLIDE2, B.box_box, 0)
_convex = call_if(F_COLLIDE2, convex, 0)
# mjc_Convex through libccd (nativeccd disabled), compiled only for feature sets with F_LIBCCD
_convex_libccd = call_if(F_LIBCCD, convex_libccd, -1)
# the primitive colliders of cylinders and boxes, compiled only for models with a cylinder or a box
_plane_cylinder = call_if(F_CYLBOX, P.plane_cylinder, 0)
_plane_box = call_if(F_CYLBOX, P.plane_box, 0)
_sphere_cylinder = call_if(F_CYLBOX, P.sphere_cylinder, 0)


@njit(cache=True)
def has_collider(t1, t2):
    """mjCOLLISIONFUNC[t1][t2] != NULL for t1 <= t2."""
    if t1 == GEOM_PLANE or t1 == GEOM_HFIELD:
        return t2 != GEOM_PLANE and t2 != GEOM_HFIELD
    return True


@njit(cache=True)
def narrowphase(m, d, w, g1, g2, margin, F):
    """Dispatch geom pair (type[g1] <= type[g2]) to its collider (mjCOLLISIONFUNC); returns #contacts.  The
    colliders outside primitive.py are compiled only for feature sets with F_COLLIDE2, those of cylinders and boxes
    only with F_CYLBOX (sim/jit/features.py)."""
    t1 = m.geom_type[g1]
    t2 = m.geom_type[g2]
    if t1 == GEOM_PLANE:
        if t2 == GEOM_SPHERE:
            return P.plane_sphere(m, d, w, g1, g2, margin, True)
        if t2 == GEOM_CAPSULE:
            return P.plane_capsule(m, d, w, g1, g2, margin, True)
        if t2 == GEOM_CYLINDER:
            return _plane_cylinder(F, m, d, w, g1, g2, margin, True)
        if t2 == GEOM_BOX:
            return _plane_box(F, m, d, w, g1, g2, margin, True)
        if t2 == GEOM_ELLIPSOID or t2 == GEOM_MESH:
            return _plane_convex(F, m, d, w, g1, g2, margin)
        return 0
    if t1 == GEOM_HFIELD:
        if t2 == GEOM_HFIELD:
            return 0
        return _convex_hfield(F, m, d, w, g1, g2, margin, F)
    if t1 == GEOM_SPHERE:
        if t2 == GEOM_SPHERE:
            return P.sphere_sphere(m, d, w, g1, g2, margin, True)
        if t2 == GEOM_CAPSULE:
            return P.sphere_capsule(m, d, w, g1, g2, margin, True)
        if t2 == GEOM_CYLINDER:
            return _sphere_cylinder(F, m, d, w, g1, g2, margin, True)
        if t2 == GEOM_BOX:
            return _sphere_box(F, m, d, w, g1, g2, margin)
        return _general_convex(m, d, w, g1, g2, margin, F)
    if t1 == GEOM_CAPSULE:
        if t2 == GEOM_CAPSULE:
            return P.capsule_capsule(m, d, w, g1, g2, margin, True)
        if t2 == GEOM_BOX:
            return _capsule_box(F, m, d, w, g1, g2, margin)
        return _general_convex(m, d, w, g1, g2, margin, F)
    if t1 == GEOM_BOX and t2 == GEOM_BOX:
        return _box_box(F, m, d, w, g1, g2, margin)
    return _general_convex(m, d, w, g1, g2, margin, F)


@njit(cache=True)
def _general_convex(m, d, w, g1, g2, margin, F):
    """mjc_Convex: native GJK/EPA, or libccd's MPR when the options disable nativeccd."""
    if int(m.opt[OPT_DISABLE]) & DSBL_NATIVECCD:
        n = _convex_libccd(F, m, d, w, g1, g2, margin)
        if n < 0:
            raise UnsupportedError(LIBCCD_MISSING)
        return n
    return _convex(F, m, d, w, g1, g2, margin)


@njit(cache=True)
def assign_margin(m, source):
    """mj_assignMargin: o_margin under the override flag."""
    if int(m.opt[OPT_ENABLE]) & ENBL_OVERRIDE:
        return m.opt[OPT_O_MARGIN]
    return source


@njit(cache=True)
def pair_margin_gap(m, g1, g2, ipair):
    """(margin, gap) of a geom pair or explicit pair (getMargin, getGap)."""
    if ipair >= 0:
        return assign_margin(m, m.pair_margin[ipair]), m.pair_gap[ipair]
    return assign_margin(m, m.geom_margin[g1] + m.geom_margin[g2]), m.geom_gap[g1] + m.geom_gap[g2]


@njit(cache=True, always_inline=True)
def filter_sphere(m, d, w, g1, g2, margin):
    """True to discard: bounding spheres (or plane-to-center distance) farther apart than margin (per lane for a
    block)."""
    r1 = m.geom_rbound[g1]
    r2 = m.geom_rbound[g2]
    p1 = d.geom_xpos[w, g1]
    p2 = d.geom_xpos[w, g2]
    if r1 > 0 and r2 > 0:
        e0, e1, e2 = p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2]
        bound = r1 + r2 + margin
        return e0 * e0 + e1 * e1 + e2 * e2 > bound * bound
    out = false_like(p1[0])
    if m.geom_type[g1] == GEOM_PLANE and r2 > 0:
        mt = d.geom_xmat[w, g1]
        out = out | ((p2[0] - p1[0]) * mt[2] + (p2[1] - p1[1]) * mt[5] + (p2[2] - p1[2]) * mt[8] > margin + r2)
    if m.geom_type[g2] == GEOM_PLANE and r1 > 0:
        mt = d.geom_xmat[w, g2]
        out = out | ((p1[0] - p2[0]) * mt[2] + (p1[1] - p2[1]) * mt[5] + (p1[2] - p2[2]) * mt[8] > margin + r1)
    return out


@njit(cache=True)
def filter_pair(m, d, w, g1, g2, ipair, merged, startadr, pairadr):
    """True if the geom pair proceeds to the narrowphase (filterCollisionPair; per lane for a block)."""
    no = false_like(d.geom_xpos[w, g1][0])
    if merged:
        for k in range(startadr, pairadr):
            if (m.pair_geom1[k] == g1 and m.pair_geom2[k] == g2) or (m.pair_geom1[k] == g2 and m.pair_geom2[k] == g1):
                return no
    if ipair < 0:
        if not ((m.geom_contype[g1] & m.geom_conaffinity[g2]) or (m.geom_contype[g2] & m.geom_conaffinity[g1])):
            return no
    if not has_collider(min(m.geom_type[g1], m.geom_type[g2]), max(m.geom_type[g1], m.geom_type[g2])):
        return no
    margin, gap = pair_margin_gap(m, g1, g2, ipair)
    return lnot(filter_sphere(m, d, w, g1, g2, margin + gap))


@njit(cache=True)
def collide_obb(m, d, w, g1, g2, margin):
    """Separating-axis test of the two geoms' oriented local AABBs on their 6 face axes (mj_collideOBB): True
    when no axis separates them (per lane for a block)."""
    a1 = m.geom_aabb[g1]
    a2 = m.geom_aabb[g2]
    m1 = d.geom_xmat[w, g1]
    m2 = d.geom_xmat[w, g2]
    x1 = d.geom_xpos[w, g1]
    x2 = d.geom_xpos[w, g2]
    sep = false_like(x1[0])
    inf1 = (a1[3] >= MAXVAL, a1[4] >= MAXVAL, a1[5] >= MAXVAL)
    inf2 = (a2[3] >= MAXVAL, a2[4] >= MAXVAL, a2[5] >= MAXVAL)
    if (inf1[0] and inf1[1] and inf1[2]) or (inf2[0] and inf2[1] and inf2[2]):
        return lnot(sep)
    infinite = (inf1[0] or inf1[1] or inf1[2], inf2[0] or inf2[1] or inf2[2])
    c1 = (
        m1[0] * a1[0] + m1[1] * a1[1] + m1[2] * a1[2] + x1[0],
        m1[3] * a1[0] + m1[4] * a1[1] + m1[5] * a1[2] + x1[1],
        m1[6] * a1[0] + m1[7] * a1[1] + m1[8] * a1[2] + x1[2],
    )
    c2 = (
        m2[0] * a2[0] + m2[1] * a2[1] + m2[2] * a2[2] + x2[0],
        m2[3] * a2[0] + m2[4] * a2[1] + m2[5] * a2[2] + x2[1],
        m2[6] * a2[0] + m2[7] * a2[1] + m2[8] * a2[2] + x2[2],
    )
    for j in range(2):
        if infinite[1 - j]:
            continue
        mj = m1 if j == 0 else m2
        for k in range(3):
            n0, n1, n2 = mj[k], mj[3 + k], mj[6 + k]
            p1 = c1[0] * n0 + c1[1] * n1 + c1[2] * n2
            p2 = c2[0] * n0 + c2[1] * n1 + c2[2] * n2
            r1 = (
                abs(a1[3] * (m1[0] * n0 + m1[3] * n1 + m1[6] * n2))
                + abs(a1[4] * (m1[1] * n0 + m1[4] * n1 + m1[7] * n2))
                + abs(a1[5] * (m1[2] * n0 + m1[5] * n1 + m1[8] * n2))
            )
            r2 = (
                abs(a2[3] * (m2[0] * n0 + m2[3] * n1 + m2[6] * n2))
                + abs(a2[4] * (m2[1] * n0 + m2[4] * n1 + m2[7] * n2))
                + abs(a2[5] * (m2[2] * n0 + m2[5] * n1 + m2[8] * n2))
            )
            sep = sep | (r1 + r2 + margin < abs(p2 - p1))
            if all_true(sep):
                return lnot(sep)
    return lnot(sep)


@njit(cache=True)
def _warn(d, w, info):
    """mj_warning(WARN_CONTACTFULL, info)."""
    d.warning_lastinfo[w, WARN_CONTACTFULL] = info
    d.warning_number[w, WARN_CONTACTFULL] += 1


@njit(cache=True)
def contact_param(m, d, w, c, g1, g2):
    """Mix geom parameters into contact row c: priority, max condim/friction, solmix (mj_contactParam).

    Returns (condim, adhesion); solref/solimp/friction (5) are written unassigned into the contact row.
    """
    pr1 = m.geom_priority[g1]
    pr2 = m.geom_priority[g2]
    sr = d.contact_solref[w, c]
    si = d.contact_solimp[w, c]
    fr = d.contact_friction[w, c]
    adhesion = m.geom_adhesion[g1] + m.geom_adhesion[g2]
    if pr1 != pr2:
        g = g1 if pr1 > pr2 else g2
        condim = m.geom_condim[g]
        for i in range(2):
            sr[i] = m.geom_solref[g, i]
        for i in range(5):
            si[i] = m.geom_solimp[g, i]
        f0, f1, f2 = m.geom_friction[g, 0], m.geom_friction[g, 1], m.geom_friction[g, 2]
        adhesion = m.geom_adhesion[g]
    else:
        condim = max(m.geom_condim[g1], m.geom_condim[g2])
        s1 = m.geom_solmix[g1]
        s2 = m.geom_solmix[g2]
        if s1 >= MINVAL and s2 >= MINVAL:
            mix = s1 / (s1 + s2)
        elif s1 < MINVAL and s2 < MINVAL:
            mix = 0.5
        elif s1 < MINVAL:
            mix = 0.0
        else:
            mix = 1.0
        if m.geom_solref[g1, 0] > 0 and m.geom_solref[g2, 0] > 0:
            for i in range(2):
                sr[i] = mix * m.geom_solref[g1, i] + (1 - mix) * m.geom_solref[g2, i]
        else:
            for i in range(2):
                sr[i] = min(m.geom_solref[g1, i], m.geom_solref[g2, i])
        for i in range(5):
            si[i] = mix * m.geom_solimp[g1, i] + (1 - mix) * m.geom_solimp[g2, i]
        f0 = max(m.geom_friction[g1, 0], m.geom_friction[g2, 0])
        f1 = max(m.geom_friction[g1, 1], m.geom_friction[g2, 1])
        f2 = max(m.geom_friction[g1, 2], m.geom_friction[g2, 2])
    fr[0] = f0
    fr[1] = f0
    fr[2] = f1
    fr[3] = f2
    fr[4] = f2
    return condim, adhesion


@njit(cache=True)
def add_contacts(m, d, w, g1, g2, ipair, n, margin):
    """Turn pre-contacts d.scr_con_*[w, :n] of pair (g1, g2) into full contacts (mj_narrowphase + mj_setContact)."""
    cap = d.contact_dist.shape[1]
    ncon = d.ncon[w]
    if ncon + n > cap:
        _warn(d, w, ncon)
        n = cap - ncon
    if n <= 0:
        return
    override = (int(m.opt[OPT_ENABLE]) & ENBL_OVERRIDE) != 0
    for j in range(n):
        c = ncon + j
        if ipair >= 0:
            condim = m.pair_dim[ipair]
            adhesion = m.pair_adhesion[ipair]
            for i in range(2):
                d.contact_solref[w, c, i] = m.pair_solref[ipair, i]
            for i in range(5):
                d.contact_solimp[w, c, i] = m.pair_solimp[ipair, i]
                d.contact_friction[w, c, i] = m.pair_friction[ipair, i]
            use = m.pair_solreffriction[ipair, 0] != 0 or m.pair_solreffriction[ipair, 1] != 0
            for i in range(2):
                d.contact_solreffriction[w, c, i] = m.pair_solreffriction[ipair, i] if use else 0.0
        else:
            condim, adhesion = contact_param(m, d, w, c, g1, g2)
            d.contact_solreffriction[w, c, 0] = 0.0
            d.contact_solreffriction[w, c, 1] = 0.0
        # mj_assignRef / mj_assignImp / mj_assignFriction
        if override:
            for i in range(2):
                d.contact_solref[w, c, i] = m.opt[OPT_O_SOLREF + i]
                d.contact_solreffriction[w, c, i] = m.opt[OPT_O_SOLREF + i]
            for i in range(5):
                d.contact_solimp[w, c, i] = m.opt[OPT_O_SOLIMP + i]
                d.contact_friction[w, c, i] = max(MINMU, m.opt[OPT_O_FRICTION + i])
        else:
            for i in range(5):
                d.contact_friction[w, c, i] = max(MINMU, d.contact_friction[w, c, i])
        dist = d.scr_con_dist[w, j]
        d.contact_dist[w, c] = dist
        pos = d.contact_pos[w, c]
        fr = d.contact_frame[w, c]
        pn = d.scr_con_pos[w, j]
        nn = d.scr_con_normal[w, j]
        tt = d.scr_con_tangent[w, j]
        for i in range(3):
            pos[i] = pn[i]
            fr[i] = nn[i]
            fr[3 + i] = tt[i]
        make_frame(fr)
        d.contact_includemargin[w, c] = margin
        d.contact_adhesion[w, c] = adhesion
        ingap = dist >= margin
        d.contact_exclude[w, c] = 1 if (ingap and adhesion == 0) else 0
        d.contact_dim[w, c] = 1 if (adhesion != 0 and ingap) else condim
        d.contact_geom[w, c, 0] = g1
        d.contact_geom[w, c, 1] = g2
        d.contact_geom1[w, c] = g1
        d.contact_geom2[w, c] = g2
        for i in range(2):
            d.contact_flex[w, c, i] = -1
            d.contact_elem[w, c, i] = -1
            d.contact_vert[w, c, i] = -1
        d.contact_efc_address[w, c] = -1
        d.contact_mu[w, c] = 0.0
        h = d.contact_H[w, c]
        for i in range(36):
            h[i] = 0.0
    d.ncon[w] = ncon + n


@njit(cache=True)
def make_frame(fr):
    """Complete a contact frame (9,) from its normal and optional tangent (mju_makeFrame)."""
    x0, x1, x2, _ = P.normalize3(fr[0], fr[1], fr[2])
    fr[0] = x0
    fr[1] = x1
    fr[2] = x2
    if fr[3] * fr[3] + fr[4] * fr[4] + fr[5] * fr[5] < 0.25:
        fr[3] = 0.0
        fr[4] = 0.0
        fr[5] = 0.0
        if fr[1] < 0.5 and fr[1] > -0.5:
            fr[4] = 1.0
        else:
            fr[5] = 1.0
    dt = fr[0] * fr[3] + fr[1] * fr[4] + fr[2] * fr[5]
    y0, y1, y2, _ = P.normalize3(fr[3] - fr[0] * dt, fr[4] - fr[1] * dt, fr[5] - fr[2] * dt)
    fr[3] = y0
    fr[4] = y1
    fr[5] = y2
    fr[6] = x1 * y2 - x2 * y1
    fr[7] = x2 * y0 - x0 * y2
    fr[8] = x0 * y1 - x1 * y0


@njit(cache=True)
def collide_geoms(m, d, w, g1, g2, ipair, F):
    """Narrowphase of one geom pair (swapped so type[g1] <= type[g2]) and contact creation."""
    if m.geom_type[g1] > m.geom_type[g2]:
        g1, g2 = g2, g1
    margin, gap = pair_margin_gap(m, g1, g2, ipair)
    n = narrowphase(m, d, w, g1, g2, margin + gap, F)
    if n > 0:
        add_contacts(m, d, w, g1, g2, ipair, n, margin)


@njit(cache=True)
def insert_leaf_pair(m, lp, nleaf, g1, g2):
    """Insert geom pair (g1, g2), type-swapped as narrowphase calls it, into the list lp[:nleaf] (nleaf+1, 2) kept
    sorted by (geom1, geom2): mj_collideTree's leaf pairs after its stable contactSort (keys are unique per pair).
    Returns nleaf + 1."""
    n1, n2 = (g2, g1) if m.geom_type[g1] > m.geom_type[g2] else (g1, g2)
    k = nleaf
    while k > 0 and (lp[k - 1, 0] > n1 or (lp[k - 1, 0] == n1 and lp[k - 1, 1] > n2)):
        lp[k, 0] = lp[k - 1, 0]
        lp[k, 1] = lp[k - 1, 1]
        k -= 1
    lp[k, 0] = n1
    lp[k, 1] = n2
    return nleaf + 1


@njit(cache=True)
def _midphase(m, d, w, b1, b2, merged, startadr, pairadr, F):
    """Leaf pairs of two multi-geom bodies passing sphere + OBB tests, collided in (geom1, geom2) order."""
    lp = d.scr_leafpair[w]
    nleaf = 0
    for g1 in range(m.body_geomadr[b1], m.body_geomadr[b1] + m.body_geomnum[b1]):
        for g2 in range(m.body_geomadr[b2], m.body_geomadr[b2] + m.body_geomnum[b2]):
            margin = assign_margin(m, m.geom_margin[g1] + m.geom_margin[g2])
            gap = m.geom_gap[g1] + m.geom_gap[g2]
            if filter_sphere(m, d, w, g1, g2, margin + gap):
                continue
            if not collide_obb(m, d, w, g1, g2, margin + gap):
                continue
            if not filter_pair(m, d, w, g1, g2, -1, merged, startadr, pairadr):
                continue
            nleaf = insert_leaf_pair(m, lp, nleaf, g1, g2)
    for k in range(nleaf):
        collide_geoms(m, d, w, lp[k, 0], lp[k, 1], -1, F)


@njit(cache=True)
def collision(m, d, w, F):
    """Fill d.ncon[w] and d.contact_*[w, :ncon] for world w (mj_collision); F: feature set (sim/jit/features.py)."""
    d.ncon[w] = 0
    dsbl = int(m.opt[OPT_DISABLE])
    if (dsbl & DSBL_CONSTRAINT) or (dsbl & DSBL_CONTACT) or m.nbody < 2:
        return
    midphase = (dsbl & DSBL_MIDPHASE) == 0
    nbf = broadphase(m, d, w)
    keys = d.scr_bfkey[w]
    npair = m.npair
    nexclude = m.nexclude
    pairadr = 0
    last = -1
    for i in range(nbf):
        sig = int(keys[i])
        if sig == last:
            continue
        last = sig
        b1 = (sig >> 16) & 0xFFFF
        b2 = sig & 0xFFFF
        merged = False
        startadr = pairadr
        while pairadr < npair and m.pair_signature[pairadr] <= sig:
            merged = m.pair_signature[pairadr] == sig
            g1 = m.pair_geom1[pairadr]
            g2 = m.pair_geom2[pairadr]
            if filter_pair(m, d, w, g1, g2, pairadr, False, 0, 0):
                collide_geoms(m, d, w, g1, g2, pairadr, F)
            pairadr += 1
        if not ((m.body_contype[b1] & m.body_conaffinity[b2]) or (m.body_contype[b2] & m.body_conaffinity[b1])):
            continue
        if nexclude:
            exadr = 0
            while exadr < nexclude and m.exclude_signature[exadr] < sig:
                exadr += 1
            if exadr < nexclude and m.exclude_signature[exadr] == sig:
                continue
        adr1 = m.body_geomadr[b1]
        adr2 = m.body_geomadr[b2]
        if m.body_geomnum[b1] == 1 and m.body_geomnum[b2] == 1:
            if filter_pair(m, d, w, adr1, adr2, -1, merged, startadr, pairadr):
                collide_geoms(m, d, w, adr1, adr2, -1, F)
        elif midphase and m.body_geomnum[b1] > 0 and m.body_geomnum[b2] > 0:
            _midphase(m, d, w, b1, b2, merged, startadr, pairadr, F)
        else:
            for g1 in range(adr1, adr1 + m.body_geomnum[b1]):
                for g2 in range(adr2, adr2 + m.body_geomnum[b2]):
                    if filter_pair(m, d, w, g1, g2, -1, merged, startadr, pairadr):
                        collide_geoms(m, d, w, g1, g2, -1, F)
    while pairadr < npair:
        g1 = m.pair_geom1[pairadr]
        g2 = m.pair_geom2[pairadr]
        if filter_pair(m, d, w, g1, g2, pairadr, False, 0, 0):
            collide_geoms(m, d, w, g1, g2, pairadr, F)
        pairadr += 1


# ------------------------------------------------------------------------------------------------------------
# mj_collision for a block of LANES worlds (sim/engine/batch/step.py): the same pairs in the same order, each
# lane's contacts appended to its world's rows.  The broadphase set of each lane is decided pair by pair (a body
# pair is in mj_broadphase's set when a static body is in it, or when the sweep along x meets it: the two x
# intervals overlap with the sort's tie rule, and the y and z intervals overlap), so the body pairs are visited in
# signature order, each with the mask of lanes that have it; contacts come out in each world's order because that
# order is the signature order of the pairs whatever the set.  The plane, sphere, capsule and box-on-plane
# colliders run on the block (sim/engine/collision/primitive.py), the others world by world.


@njit(cache=True)
def _sap_overlap(aamm, i, j):
    """Mask of the lanes where the sweep of mj_broadphase pairs bodies i < j (their boxes aamm[i], aamm[j])."""
    a = aamm[i]
    b = aamm[j]
    ax = ((a[0] <= b[0]) & (b[0] < a[3])) | ((b[0] < a[0]) & (a[0] <= b[3]))
    return ax & lnot((a[1] > b[4]) | (b[1] > a[4]) | (a[2] > b[5]) | (b[2] > a[5]))


@njit(cache=True)
def _collide_block(m, d, bd, w, g1, g2, ipair, act, F):
    """collide_geoms for the lanes of block w in act: the pair's narrowphase on the block where its collider has a
    block form, else world by world; then each lane's contacts (add_contacts, on the rows)."""
    if m.geom_type[g1] > m.geom_type[g2]:
        g1, g2 = g2, g1
    margin, gap = pair_margin_gap(m, g1, g2, ipair)
    t1 = m.geom_type[g1]
    t2 = m.geom_type[g2]
    w0 = block_number(w) * LANES
    nw = bd.nworld
    block = True
    if t1 == GEOM_PLANE and t2 == GEOM_SPHERE:
        n = P.plane_sphere(m, bd, w, g1, g2, margin + gap, act)
    elif t1 == GEOM_PLANE and t2 == GEOM_CAPSULE:
        n = P.plane_capsule(m, bd, w, g1, g2, margin + gap, act)
    elif t1 == GEOM_PLANE and t2 == GEOM_BOX:
        n = _plane_box(F, m, bd, w, g1, g2, margin + gap, act)
    elif t1 == GEOM_SPHERE and t2 == GEOM_SPHERE:
        n = P.sphere_sphere(m, bd, w, g1, g2, margin + gap, act)
    elif t1 == GEOM_SPHERE and t2 == GEOM_CAPSULE:
        n = P.sphere_capsule(m, bd, w, g1, g2, margin + gap, act)
    elif t1 == GEOM_CAPSULE and t2 == GEOM_CAPSULE:
        n = P.capsule_capsule(m, bd, w, g1, g2, margin + gap, act)
    else:
        block = False
        n = P.count(false_like(act))
    for k in range(LANES):
        if w0 + k < nw and lane_of(act, k):
            if block:
                nk = int(lane_of(n, k))
            else:
                nk = narrowphase(m, d, w0 + k, g1, g2, margin + gap, F)
            if nk > 0:
                add_contacts(m, d, w0 + k, g1, g2, ipair, nk, margin)


@njit(cache=True)
def collision_block(m, d, bd, w, bits, F):
    """mj_collision of the lanes of block w whose bit is set in bits: d.ncon and d.contact_* of their worlds
    (sim/engine/batch/blocks.py: bd's geom frames are the block's, d's rows receive the contacts)."""
    w0 = block_number(w) * LANES
    for k in range(LANES):
        if bits & (1 << k) and w0 + k < bd.nworld:
            d.ncon[w0 + k] = 0
    dsbl = int(m.opt[OPT_DISABLE])
    if (dsbl & DSBL_CONSTRAINT) or (dsbl & DSBL_CONTACT) or m.nbody < 2:
        return
    lanes = lane_mask(bits)
    midphase = (dsbl & DSBL_MIDPHASE) == 0
    dsbl_fp = (dsbl & DSBL_FILTERPARENT) != 0
    nbody = m.nbody
    weldid, parentid, dofnum = m.body_weldid, m.body_parentid, m.body_dofnum
    contype, conaff = m.body_contype, m.body_conaffinity
    # the boxes of the bodies the sweep sorts
    aamm = bd.bp_aamm[w]
    for b in range(1, nbody):
        if can_collide(m, b) and m.body_geomnum[b] > 0:
            x0, x1, x2, y0, y1, y2 = body_box(m, bd, w, b)
            ab = aamm[b]
            ab[0] = x0
            ab[1] = x1
            ab[2] = x2
            ab[3] = y0
            ab[4] = y1
            ab[5] = y2
    npair = m.npair
    nexclude = m.nexclude
    pairadr = 0
    leaf = bd.bp_leaf[block_number(w)]
    for b1 in range(nbody):
        for b2 in range(b1 + 1, nbody):
            if not (can_collide(m, b1) and can_collide(m, b2)):
                continue
            if filter_body_pair(weldid, parentid, dofnum, b1, b2, dsbl_fp):
                continue
            if not ((contype[b1] & conaff[b2]) or (contype[b2] & conaff[b1])):
                continue
            if static_collider(m, b1) or static_collider(m, b2):
                act = lanes
            elif b1 >= 1 and m.body_geomnum[b1] > 0 and m.body_geomnum[b2] > 0:
                act = lanes & _sap_overlap(aamm, b1, b2)
            else:
                continue
            if not any_true(act):
                continue
            sig = (b1 << 16) + b2
            # the explicit pairs up to this signature, then this body pair's geoms
            merged = False
            startadr = pairadr
            while pairadr < npair and m.pair_signature[pairadr] <= sig:
                merged = m.pair_signature[pairadr] == sig
                g1 = m.pair_geom1[pairadr]
                g2 = m.pair_geom2[pairadr]
                go = lanes & filter_pair(m, bd, w, g1, g2, pairadr, False, 0, 0)
                if any_true(go):
                    _collide_block(m, d, bd, w, g1, g2, pairadr, go, F)
                pairadr += 1
            if nexclude:
                exadr = 0
                while exadr < nexclude and m.exclude_signature[exadr] < sig:
                    exadr += 1
                if exadr < nexclude and m.exclude_signature[exadr] == sig:
                    continue
            adr1 = m.body_geomadr[b1]
            adr2 = m.body_geomadr[b2]
            if m.body_geomnum[b1] == 1 and m.body_geomnum[b2] == 1:
                go = act & filter_pair(m, bd, w, adr1, adr2, -1, merged, startadr, pairadr)
                if any_true(go):
                    _collide_block(m, d, bd, w, adr1, adr2, -1, go, F)
            elif midphase and m.body_geomnum[b1] > 0 and m.body_geomnum[b2] > 0:
                # the leaf pairs in (geom1, geom2) order after the type swap (mj_collideTree's contactSort)
                nleaf = 0
                for g1 in range(adr1, adr1 + m.body_geomnum[b1]):
                    for g2 in range(adr2, adr2 + m.body_geomnum[b2]):
                        nleaf = insert_leaf_pair(m, leaf, nleaf, g1, g2)
                for q in range(nleaf):
                    g1 = leaf[q, 0]
                    g2 = leaf[q, 1]
                    margin = assign_margin(m, m.geom_margin[g1] + m.geom_margin[g2])
                    gap = m.geom_gap[g1] + m.geom_gap[g2]
                    go = act & lnot(filter_sphere(m, bd, w, g1, g2, margin + gap))
                    if not any_true(go):
                        continue
                    go = go & collide_obb(m, bd, w, g1, g2, margin + gap)
                    if not any_true(go):
                        continue
                    go = go & filter_pair(m, bd, w, g1, g2, -1, merged, startadr, pairadr)
                    if any_true(go):
                        _collide_block(m, d, bd, w, g1, g2, -1, go, F)
            else:
                for g1 in range(adr1, adr1 + m.body_geomnum[b1]):
                    for g2 in range(adr2, adr2 + m.body_geomnum[b2]):
                        go = act & filter_pair(m, bd, w, g1, g2, -1, merged, startadr, pairadr)
                        if any_true(go):
                            _collide_block(m, d, bd, w, g1, g2, -1, go, F)
    while pairadr < npair:
        g1 = m.pair_geom1[pairadr]
        g2 = m.pair_geom2[pairadr]
        go = lanes & filter_pair(m, bd, w, g1, g2, pairadr, False, 0, 0)
        if any_true(go):
            _collide_block(m, d, bd, w, g1, g2, pairadr, go, F)
        pairadr += 1
