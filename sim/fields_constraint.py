"""Fields of constraint assembly (mj_makeConstraint / mj_projectConstraint inputs and the efc_* rows).

The efc buffer has capacity ``njmax`` rows per world; ``nefc`` (nworld,) counts the valid rows and
ne / nf / nl the equality / friction-loss / limit rows at its head.  efc_J is stored dense (njmax, nv).
"""
import numpy as np

MODEL_SCALARS = ['neq']
MODEL_ARRAYS = [
    ('eq_type', 1, 'i'), ('eq_obj1id', 1, 'i'), ('eq_obj2id', 1, 'i'), ('eq_objtype', 1, 'i'),
    ('eq_active0', 1, 'i'), ('eq_solref', 2, 'f'), ('eq_solimp', 2, 'f'), ('eq_data', 2, 'f'),
    ('dof_frictionloss', 1, 'f'), ('dof_solref', 2, 'f'), ('dof_solimp', 2, 'f'), ('dof_invweight0', 1, 'f'),
    ('jnt_limited', 1, 'i'), ('jnt_range', 2, 'f'), ('jnt_margin', 1, 'f'), ('jnt_solref', 2, 'f'),
    ('jnt_solimp', 2, 'f'),
    ('tendon_limited', 1, 'i'), ('tendon_range', 2, 'f'), ('tendon_margin', 1, 'f'),
    ('tendon_solref_lim', 2, 'f'), ('tendon_solimp_lim', 2, 'f'), ('tendon_frictionloss', 1, 'f'),
    ('tendon_solref_fri', 2, 'f'), ('tendon_solimp_fri', 2, 'f'), ('tendon_invweight0', 1, 'f'),
    ('body_invweight0', 2, 'f'), ('tendon_length0', 1, 'f'),
]
DATA_ARRAYS = [
    ('eq_active', 2, 'i'),
    ('ne', 1, 'i'), ('nf', 1, 'i'), ('nl', 1, 'i'), ('nefc', 1, 'i'),
    ('efc_type', 2, 'i'), ('efc_id', 2, 'i'), ('efc_J', 3, 'f'), ('efc_pos', 2, 'f'), ('efc_margin', 2, 'f'),
    ('efc_frictionloss', 2, 'f'), ('efc_diagA', 2, 'f'), ('efc_KBIP', 3, 'f'), ('efc_D', 2, 'f'),
    ('efc_R', 2, 'f'), ('efc_vel', 2, 'f'), ('efc_aref', 2, 'f'), ('efc_b', 2, 'f'), ('efc_force', 2, 'f'),
    ('efc_state', 2, 'i'), ('tendon_efcadr', 2, 'i'),
    # scratch: point Jacobians (jac1p, jac2p, jac1r, jac2r, difp, difr) (6, 3, nv), contact-frame rows (6, nv),
    # one nv vector (diagexact)
    ('scr_cjac', 4, 'f'), ('scr_cframe', 3, 'f'), ('scr_cnstr_nv', 2, 'f'),
]


def _rows_per_contact(m):
    """Largest number of efc rows one contact can add (pyramidal 2(condim-1), elliptic condim)."""
    dims = [1] + list(np.asarray(m.geom_condim).reshape(-1)) + list(np.asarray(m.pair_dim).reshape(-1))
    cd = max(int(x) for x in dims)
    return max(1, 2 * (cd - 1)) if int(m.opt.cone) == 0 else cd


def default_sizes(m, nconmax=None, njmax=None):
    """Per-world capacities: explicit arguments, else the model's <size nconmax/njmax>, else a bound from the
    model (every equality/friction/limit row that can exist, plus nconmax contacts of the largest condim)."""
    if nconmax is None:
        nconmax = int(getattr(m, 'nconmax', -1))
        if nconmax < 0:
            nconmax = max(64, 8 * int(m.ngeom) + 4 * int(getattr(m, 'npair', 0)))
    if njmax is None:
        njmax = int(getattr(m, 'njmax', -1))
        if njmax < 0:
            neq = 6 * int(m.neq)
            nf = int(m.nv) + int(m.ntendon)
            nl = 2 * int(m.njnt) + 2 * int(m.ntendon)
            njmax = neq + nf + nl + int(nconmax) * _rows_per_contact(m)
    nconmax, njmax = int(nconmax), int(njmax)
    if nconmax < 0 or njmax < 0:
        raise ValueError('nconmax and njmax must be >= 0')
    return dict(nconmax=nconmax, njmax=njmax)


def _check(m):
    """Raise UnsupportedFeature for constraint features the assembly does not reproduce."""
    from sim.types import UnsupportedFeature
    if int(getattr(m, 'flg_surfacevel', 0)):
        raise UnsupportedFeature('geom surface velocity (contact efc_vel term) is not supported')
    if int(getattr(m, 'flg_adhesion', 0)):
        raise UnsupportedFeature('contact adhesion is not supported')
    et = np.asarray(m.eq_type).reshape(-1)
    if np.any(et > 3):
        raise UnsupportedFeature('flex equality constraints are not supported')


def model_arrays(m):
    """Derived constraint model arrays (everything else is read from m by name)."""
    _check(m)
    return {}


def data_shapes(m, size):
    """Per-world shapes of the efc buffer (capacity njmax) and eq_active."""
    j, nv = int(size['njmax']), int(m.nv)
    s = dict(eq_active=(int(m.neq),), ne=(), nf=(), nl=(), nefc=(), efc_J=(j, nv), efc_KBIP=(j, 4),
             tendon_efcadr=(int(m.ntendon),), scr_cjac=(6, 3, nv), scr_cframe=(6, nv), scr_cnstr_nv=(nv,))
    for n, nd, _ in DATA_ARRAYS:
        if n not in s:
            s[n] = (j,)
    return s
