"""Collision driver (mj_collision): pair generation, narrowphase dispatch, contact parameter mixing."""
from numba import njit


@njit(cache=True)
def collision(m, d, w):
    """Fill d.ncon[w] and d.contact_*[w, :ncon] for world w (mj_collision)."""
    d.ncon[w] = 0
