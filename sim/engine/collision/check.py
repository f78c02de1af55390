"""Load-time refusal of collision cases the narrowphase does not reproduce (so they fail at load, not mid-step)."""

import numpy as np

from sim.constants import (
    ENBL_OVERRIDE,
    GEOM_PLANE,
    GEOM_HFIELD,
    GEOM_SPHERE,
    GEOM_CAPSULE,
    GEOM_ELLIPSOID,
    GEOM_MESH,
)

from sim.errors import UnsupportedError as UnsupportedFeature


def _convex_table():
    """(t1, t2) -> 'convex' | 'plane' | 'hfield' for the pairs MuJoCo sends to its general convex routines."""
    tab = {}
    for t in range(GEOM_ELLIPSOID, GEOM_MESH + 1):
        tab[(GEOM_HFIELD, t)] = "hfield"
    for t in (GEOM_SPHERE, GEOM_CAPSULE):
        tab[(GEOM_HFIELD, t)] = "hfield"
    tab[(GEOM_PLANE, GEOM_ELLIPSOID)] = tab[(GEOM_PLANE, GEOM_MESH)] = "plane"
    for a, b in ((2, 4), (2, 7), (3, 4), (3, 5), (3, 7)):
        tab[(a, b)] = "convex"
    for a in range(GEOM_ELLIPSOID, GEOM_MESH + 1):
        for b in range(a, GEOM_MESH + 1):
            if (a, b) != (6, 6):
                tab[(a, b)] = "convex"
    return tab


_TABLE = _convex_table()


def _margin_unsupported(t1, t2):
    return _TABLE.get((min(t1, t2), max(t1, t2))) == "hfield"


def check_collision(m):
    """Raise UnsupportedFeature when a geom pair that can collide needs an unreproduced convex case: margin > 0
    on a height field (MuJoCo 3.17's prism contacts within the margin are not reproduced).  The libccd path
    (disable flag nativeccd) is simulated (sim/engine/collision/mpr.py)."""
    ngeom = int(m.ngeom)
    if ngeom == 0:
        return
    gtype = np.asarray(m.geom_type).reshape(-1)
    margin = np.asarray(m.geom_margin, dtype=float).reshape(-1)
    gap = np.asarray(m.geom_gap, dtype=float).reshape(-1)
    override = int(m.opt.enableflags) & ENBL_OVERRIDE
    body = np.asarray(m.geom_bodyid).reshape(-1)
    ct = np.asarray(m.geom_contype).reshape(-1)
    ca = np.asarray(m.geom_conaffinity).reshape(-1)
    can = ((ct[:, None] & ca[None, :]) | (ca[:, None] & ct[None, :])) != 0
    can &= body[:, None] != body[None, :]
    pairs = [(int(a), int(b), None) for a, b in zip(*np.nonzero(np.triu(can, 1)))]
    for k in range(int(getattr(m, "npair", 0))):
        pm = float(m.opt.o_margin) if override else float(m.pair_margin[k])
        pairs.append((int(m.pair_geom1[k]), int(m.pair_geom2[k]), pm + float(m.pair_gap[k])))
    for a, b, pm in pairs:
        t1, t2 = int(gtype[a]), int(gtype[b])
        if (min(t1, t2), max(t1, t2)) not in _TABLE:
            continue
        if pm is None:  # getMargin / getGap: sums of the geoms' values
            mg = (float(m.opt.o_margin) if override else margin[a] + margin[b]) + gap[a] + gap[b]
        else:
            mg = pm
        if mg > 0 and _margin_unsupported(t1, t2):
            raise UnsupportedFeature(
                "collision margin/gap %g between geoms %d and %d (types %d, %d) is not supported: MuJoCo 3.17's "
                'height-field contacts within a margin are not reproduced; set margin="0" and gap="0" on the '
                "geoms that touch the height field" % (mg, a, b, t1, t2)
            )
