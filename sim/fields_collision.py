"""Fields of the collision stage (broadphase, primitive narrowphase, contact parameters, ray).

Declares the Model arrays the collision kernels read and the per-world contact buffer, whose capacity
``nconmax`` comes from data_sizes (sim.types).  Contact arrays mirror MuJoCo's mjContact fields as
``contact_<field>`` with shape (nworld, nconmax, ...); ``ncon`` (nworld,) counts the valid rows.
"""
import numpy as np

from sim.types import MAXCONPAIR

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
DATA_ARRAYS = ([('ncon', 1, 'i')] + PRECONTACT_FIELDS
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
    for n, shp in CONTACT_FIELDS + CONTACT_INT_FIELDS:
        s['contact_' + n] = (c,) + shp
    return s
