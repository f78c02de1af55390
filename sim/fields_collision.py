"""Fields of the collision stage (broadphase, primitive narrowphase, contact parameters, ray).

Declares the Model arrays the collision kernels read and the per-world contact buffer, whose capacity
``nconmax`` comes from data_sizes (sim.types).  Contact arrays mirror MuJoCo's mjContact fields as
``contact_<field>`` with shape (nworld, nconmax, ...); ``ncon`` (nworld,) counts the valid rows.
"""
import numpy as np

from sim.constants import MAXCONPAIR

BOXBOX_MAXVERT = 12   # clipped polygon capacity of the box-box collider (sim/engine/collision/box.py)

MODEL_SCALARS = ['npair', 'nexclude']
MODEL_ARRAYS = [
    ('geom_type', 1, 'i'), ('geom_contype', 1, 'i'), ('geom_conaffinity', 1, 'i'), ('geom_condim', 1, 'i'),
    ('geom_priority', 1, 'i'), ('geom_dataid', 1, 'i'), ('geom_solmix', 1, 'f'), ('geom_solref', 2, 'f'),
    ('geom_solimp', 2, 'f'), ('geom_friction', 2, 'f'), ('geom_margin', 1, 'f'), ('geom_gap', 1, 'f'),
    ('geom_size', 2, 'f'), ('geom_rbound', 1, 'f'), ('geom_aabb', 2, 'f'), ('geom_adhesion', 1, 'f'),
    ('body_contype', 1, 'i'), ('body_conaffinity', 1, 'i'),
    ('pair_dim', 1, 'i'), ('pair_geom1', 1, 'i'), ('pair_geom2', 1, 'i'), ('pair_signature', 1, 'i'),
    ('pair_solref', 2, 'f'), ('pair_solreffriction', 2, 'f'), ('pair_solimp', 2, 'f'), ('pair_margin', 1, 'f'),
    ('pair_gap', 1, 'f'), ('pair_friction', 2, 'f'), ('pair_adhesion', 1, 'f'), ('exclude_signature', 1, 'i'),
]

# contact buffer: (name, ndim including the world axis, kind, per-contact shape)
CONTACT_FIELDS = [
    ('dist', ()), ('pos', (3,)), ('frame', (9,)), ('includemargin', ()), ('friction', (5,)), ('solref', (2,)),
    ('solreffriction', (2,)), ('solimp', (5,)), ('mu', ()), ('H', (36,)), ('adhesion', ()),
]
CONTACT_INT_FIELDS = [
    ('dim', ()), ('geom1', ()), ('geom2', ()), ('geom', (2,)), ('flex', (2,)), ('elem', (2,)), ('vert', (2,)),
    ('exclude', ()), ('efc_address', ()),
]
# narrowphase output (MuJoCo's mjPreContact, up to MAXCONPAIR per geom pair) before the driver adds them
PRECONTACT_FIELDS = [('scr_con_dist', 2, 'f'), ('scr_con_pos', 3, 'f'), ('scr_con_normal', 3, 'f'),
                     ('scr_con_tangent', 3, 'f')]
# collision scratch: box-box clipping polygons, broadphase (sweep-and-prune) and midphase buffers
SCRATCH_FIELDS = [('scr_boxpoly', 4, 'f'), ('scr_boxdist', 2, 'f'), ('scr_aamm', 3, 'f'),
                  ('scr_sapval', 2, 'f'), ('scr_sapid', 2, 'i'), ('scr_sapbufval', 2, 'f'), ('scr_sapbufid', 2, 'i'),
                  ('scr_sapactive', 2, 'i'), ('scr_bfid', 2, 'i'), ('scr_bfkey', 2, 'f'), ('scr_bfbuf', 2, 'f'),
                  ('scr_bfpay', 2, 'i'), ('scr_bfpaybuf', 2, 'i'), ('scr_leafpair', 3, 'i')]
DATA_ARRAYS = ([('ncon', 1, 'i')] + PRECONTACT_FIELDS + SCRATCH_FIELDS
               + [('contact_' + n, 2 + len(s), 'f') for n, s in CONTACT_FIELDS]
               + [('contact_' + n, 2 + len(s), 'i') for n, s in CONTACT_INT_FIELDS])


def _body_flags(m, name):
    """body_contype / body_conaffinity: OR of the body's geom bits (as mj_setConst / the compiler)."""
    v = getattr(m, name, None)
    if v is not None:
        return v
    nbody = int(m.nbody)
    out = np.zeros(nbody, np.int32)
    gb = np.asarray(m.geom_bodyid)
    g = np.asarray(getattr(m, 'geom_' + name[5:]))
    for i in range(int(m.ngeom)):
        out[gb[i]] |= g[i]
    return out


def model_arrays(m):
    """Derived collision model arrays (everything else is read from m by name)."""
    return dict(body_contype=_body_flags(m, 'body_contype'), body_conaffinity=_body_flags(m, 'body_conaffinity'))


def data_shapes(m, size):
    """Per-world shapes of the contact buffer."""
    c = int(size['nconmax'])
    s = dict(ncon=(), scr_con_dist=(MAXCONPAIR,), scr_con_pos=(MAXCONPAIR, 3), scr_con_normal=(MAXCONPAIR, 3),
             scr_con_tangent=(MAXCONPAIR, 3))
    nb = max(int(m.nbody), 1)
    gnum = np.asarray(m.body_geomnum).reshape(-1)
    # always-colliding bodies (world with geoms, dof-less bodies with planes) pair with every body
    gtype = np.asarray(m.geom_type).reshape(-1)
    gadr = np.asarray(m.body_geomadr).reshape(-1)
    weld = np.asarray(m.body_weldid).reshape(-1)
    dofnum = np.asarray(m.body_dofnum).reshape(-1)
    nstatic = 0
    for b in range(int(m.nbody)):
        plane = bool(np.any(gtype[gadr[b]:gadr[b] + gnum[b]] == 0)) if gnum[b] else False
        nstatic += int((b == 0 and gnum[b] > 0) or (dofnum[weld[b]] == 0 and plane))
    maxbf = nb * (nb - 1) // 2 + nstatic * nb + 1
    maxleaf = int(gnum.max()) ** 2 if gnum.size else 1
    s.update(scr_boxpoly=(2, BOXBOX_MAXVERT, 3), scr_boxdist=(BOXBOX_MAXVERT,), scr_aamm=(nb, 6),
             scr_sapval=(2 * nb,), scr_sapid=(2 * nb,), scr_sapbufval=(2 * nb,), scr_sapbufid=(2 * nb,),
             scr_sapactive=(nb,), scr_bfid=(nb,), scr_bfkey=(maxbf,), scr_bfbuf=(maxbf,), scr_bfpay=(maxbf,),
             scr_bfpaybuf=(maxbf,), scr_leafpair=(max(maxleaf, 1), 2))
    for n, shp in CONTACT_FIELDS + CONTACT_INT_FIELDS:
        s['contact_' + n] = (c,) + shp
    return s
