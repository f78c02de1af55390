"""Height-field narrowphase (mjc_ConvexHField): prisms of the height field against a convex geom."""

import math
from sim.jit import njit

from sim.constants import MAXCONPAIR

from sim.errors import UnsupportedError as UnsupportedFeature
from sim.engine.collision.support import init_obj, support, F_POS, F_MAT, F_MARGIN
from sim.engine.collision.convex import penetration, LIBCCD_MISSING
from sim.engine.collision.mpr import libccd_wrapper, fix_normal
from sim.jit.features import call_if, F_LIBCCD
from sim.constants import OPT_DISABLE, DSBL_NATIVECCD

# the libccd path (nativeccd disabled), compiled only for feature sets with F_LIBCCD
_libccd_wrapper = call_if(F_LIBCCD, libccd_wrapper, -1)
_fix_normal = call_if(F_LIBCCD, fix_normal)


@njit(cache=True)
def _add_prism_vert(m, d, w, hadr, ncol, r, c, i, dx, dy, s0, s1, s2):
    """Shift the prism and append grid vertex (r + 1 - i, c) on top and bottom (addPrismVert)."""
    p = d.scr_prism[w]
    for k in range(3):
        p[0, k] = p[1, k]
        p[1, k] = p[2, k]
        p[3, k] = p[4, k]
        p[4, k] = p[5, k]
    dr = 1 - i
    x = dx * c - s0
    y = dy * (r + dr) - s1
    p[2, 0] = x
    p[5, 0] = x
    p[2, 1] = y
    p[5, 1] = y
    p[5, 2] = m.hfield_data[hadr + (r + dr) * ncol + c] * s2


@njit(cache=True)
def convex_hfield(m, d, w, g1, g2, margin, F):
    """Contacts of hfield g1 with convex geom g2 into d.scr_con_*[w, :n]; returns n (mjc_ConvexHField).  With
    nativeccd disabled each prism goes through libccd's MPR and the normals are fixed (mjc_fixNormal); F: the
    feature set (sim/jit/features.py)."""
    libccd = (int(m.opt[OPT_DISABLE]) & DSBL_NATIVECCD) != 0
    pos1 = d.geom_xpos[w, g1]
    mat1 = d.geom_xmat[w, g1]
    pos2 = d.geom_xpos[w, g2]
    mat2 = d.geom_xmat[w, g2]
    hid = m.geom_dataid[g1]
    nrow = m.hfield_nrow[hid]
    ncol = m.hfield_ncol[hid]
    hadr = m.hfield_adr[hid]
    s0 = m.hfield_size[hid, 0]
    s1 = m.hfield_size[hid, 1]
    s2 = m.hfield_size[hid, 2]
    s3 = m.hfield_size[hid, 3]

    # geom2 position in the hfield frame; bounding-sphere test
    e0 = pos2[0] - pos1[0]
    e1 = pos2[1] - pos1[1]
    e2 = pos2[2] - pos1[2]
    lp0 = mat1[0] * e0 + mat1[3] * e1 + mat1[6] * e2
    lp1 = mat1[1] * e0 + mat1[4] * e1 + mat1[7] * e2
    lp2 = mat1[2] * e0 + mat1[5] * e1 + mat1[8] * e2
    rad = m.geom_rbound[g2] + margin
    if s0 < lp0 - rad or -s0 > lp0 + rad or s1 < lp1 - rad or -s1 > lp1 + rad or s2 < lp2 - rad or -s3 > lp2 + rad:
        return 0

    init_obj(m, d, w, 0, g1, 0.0)
    init_obj(m, d, w, 1, g2, 0.0)
    # geom2 pose in the hfield frame
    f = d.scr_ccd_f[w, 1]
    for i in range(3):
        for j in range(3):
            f[F_MAT + 3 * i + j] = mat1[i] * mat2[j] + mat1[3 + i] * mat2[3 + j] + mat1[6 + i] * mat2[6 + j]
    f[F_POS] = lp0
    f[F_POS + 1] = lp1
    f[F_POS + 2] = lp2

    # AABB of geom2 in the hfield frame from its support points
    xmax = support(m, d, w, 1, 1.0, 0.0, 0.0)[0]
    xmin = support(m, d, w, 1, -1.0, 0.0, 0.0)[0]
    ymax = support(m, d, w, 1, 0.0, 1.0, 0.0)[1]
    ymin = support(m, d, w, 1, 0.0, -1.0, 0.0)[1]
    zmax = support(m, d, w, 1, 0.0, 0.0, 1.0)[2]
    zmin = support(m, d, w, 1, 0.0, 0.0, -1.0)[2]
    # MuJoCo 3.17 widens this box by the margin (measured: the sub-grid and the prism height test then pick the
    # prisms whose contacts 3.17 reports within the margin; the reference source widens nothing)
    xmin -= margin
    ymin -= margin
    zmin -= margin
    xmax += margin
    ymax += margin
    zmax += margin
    if (
        xmin - margin > s0
        or xmax + margin < -s0
        or ymin - margin > s1
        or ymax + margin < -s1
        or zmin - margin > s2
        or zmax + margin < -s3
    ):
        return 0

    # sub-grid overlapping the AABB
    cmin = int(math.floor((xmin + s0) / (2.0 * s0) * (ncol - 1)))
    cmax = int(math.ceil((xmax + s0) / (2.0 * s0) * (ncol - 1)))
    rmin = int(math.floor((ymin + s1) / (2.0 * s1) * (nrow - 1)))
    rmax = int(math.ceil((ymax + s1) / (2.0 * s1) * (nrow - 1)))
    cmin = max(0, cmin)
    cmax = min(ncol - 1, cmax)
    rmin = max(0, rmin)
    rmax = min(nrow - 1, rmax)

    # both objects carry the margin (each support point pushed out by margin/2) and the contact distance adds it
    # back, as mjc_Convex; measured against 3.17, whose prisms are not raised by the margin as the reference
    # source's addPrismVert does
    f[F_MARGIN] = margin
    d.scr_ccd_f[w, 0, F_MARGIN] = margin
    dx = (2.0 * s0) / (ncol - 1)
    dy = (2.0 * s1) / (nrow - 1)
    p = d.scr_prism[w]
    p[0, 2] = -s3
    p[1, 2] = -s3
    p[2, 2] = -s3

    ncon = 0
    full = False
    for r in range(rmin, rmax):
        if full:
            break
        _add_prism_vert(m, d, w, hadr, ncol, r, cmin, 0, dx, dy, s0, s1, s2)
        _add_prism_vert(m, d, w, hadr, ncol, r, cmin, 1, dx, dy, s0, s1, s2)
        for c in range(cmin + 1, cmax + 1):
            for i in range(2):
                _add_prism_vert(m, d, w, hadr, ncol, r, c, i, dx, dy, s0, s1, s2)
                if p[3, 2] < zmin and p[4, 2] < zmin and p[5, 2] < zmin:
                    continue
                if libccd:
                    hit = _libccd_wrapper(F, m, d, w, ncon, margin)
                    if hit < 0:
                        raise UnsupportedFeature(LIBCCD_MISSING)
                else:
                    hit = penetration(m, d, w, ncon, 1, margin)
                if hit:
                    # back to global coordinates
                    n0 = d.scr_con_normal[w, ncon, 0]
                    n1 = d.scr_con_normal[w, ncon, 1]
                    n2 = d.scr_con_normal[w, ncon, 2]
                    q0 = d.scr_con_pos[w, ncon, 0]
                    q1 = d.scr_con_pos[w, ncon, 1]
                    q2 = d.scr_con_pos[w, ncon, 2]
                    for k in range(3):
                        d.scr_con_normal[w, ncon, k] = mat1[3 * k] * n0 + mat1[3 * k + 1] * n1 + mat1[3 * k + 2] * n2
                        d.scr_con_pos[w, ncon, k] = (
                            mat1[3 * k] * q0 + mat1[3 * k + 1] * q1 + mat1[3 * k + 2] * q2
                        ) + pos1[k]
                    ncon += 1
                    if ncon >= MAXCONPAIR:
                        full = True
                        break
            if full:
                break
    if libccd:
        for k in range(ncon):
            _fix_normal(F, m, d, w, k, g1, g2)
    return ncon
