"""Kernels of the vector environments (envs/vector.py, envs/randomize.py): reset a list of worlds, and recompute
the mj_setConst constants of a world's own Model struct after domain randomisation changed its inertial fields.

    reset_worlds(m, d, t, worlds, mptrs, flags, body_simple, F)   one parallel entry (per feature set F,
                                                                  sim/jit/features.py), flags SET_CONST | RESTART | FINAL

The physics step of the vector env is sim.api.run (sim/engine/forward.py run_batch); this entry serves only the
resets that must happen outside it: a partial reset (reset(options={"reset_mask": ...})) and the worlds whose
randomised model must be in place before their reset.  It is compiled on first use (and cached like every kernel).
"""

import math

import numpy as np
from numba import prange

from sim.jit import njit, struct_at
from sim.engine.forward import _restart
from sim.engine.kinematics import kinematics
from sim.engine.com import com_pos
from sim.engine.tendon import tendon_if
from sim.engine.crb import crb, tendon_armature, factor_m, solve_m
from sim.engine.transmission import transmission
from sim.engine.jacobian import jac
from sim.engine.math import mul_inert_vec
from sim.constants import MINVAL  # mjMINVAL

SET_CONST, RESTART, FINAL, OWN_BIAS = 1, 2, 4, 8


@njit
def _dot(a, b, n):
    """sum a[i] b[i] (mju_dot)."""
    s = 0.0
    for i in range(n):
        s += a[i] * b[i]
    return s


@njit
def _solve_diag(m, d, w, row, x):
    """row' M^-1 row for a dense row (nv,), x scratch (nv,) (one column of mj_solveM + mju_mulMatMatT)."""
    x[:] = row
    solve_m(m, d, w, x)
    return _dot(row, x, m.nv)


@njit
def set_const_world(m, d, w, body_simple, own_bias, F):
    """The constants of mj_setConst that depend on masses, inertias and armature, for world w's Model struct m
    (its own arrays): body_subtreemass (setFixed), dof_M0 (mj_setM0), body/dof/tendon invweight0 and
    actuator_acc0 (set0), and the dampratio of position actuators when own_bias (biasprm is per world).
    d's world w is scratch (set to qpos0): a reset of that world must follow.  body_simple (nbody,) int32."""
    nv = m.nv
    sub = m.body_subtreemass
    for i in range(m.nbody):
        sub[i] = m.body_mass[i]
    for i in range(m.nbody - 1, 0, -1):
        sub[m.body_parentid[i]] += sub[i]
    # set0 at qpos0: kinematics, comPos, mj_setM0
    qpos = d.qpos[w]
    for i in range(m.nq):
        qpos[i] = m.qpos0[i]
    kinematics(m, d, w)
    com_pos(m, d, w)
    crb(m, d, w)  # for its composite inertias d.crb (M is rebuilt below with the new dof_M0)
    c = d.crb[w]
    cdof = d.cdof[w]
    for i in range(nv):
        cd = cdof[i]
        b0, b1, b2, b3, b4, b5 = mul_inert_vec(c[m.dof_bodyid[i]], cd)
        m.dof_M0[i] = m.dof_armature_eff[i] + (
            cd[0] * b0 + cd[1] * b1 + cd[2] * b2 + cd[3] * b3 + cd[4] * b4 + cd[5] * b5
        )
    tendon_if(F, m, d, w)
    crb(m, d, w)
    tendon_armature(m, d, w)
    factor_m(m, d, w)
    transmission(m, d, w, F)
    J = d.scr_nv[w]  # (6, nv)
    x = d.scr_deriv[w, 0]  # (nv,)
    iw = m.body_invweight0
    iw[0, 0] = 0.0
    iw[0, 1] = 0.0
    xipos = d.xipos[w]
    for i in range(1, m.nbody):
        if m.body_dofnum[m.body_weldid[i]] == 0:
            iw[i, 0] = 0.0
            iw[i, 1] = 0.0
        elif body_simple[i] == 2:
            iw[i, 0] = 1.0 / max(MINVAL, m.body_mass[i])
            iw[i, 1] = 0.0
        else:
            # A = J M^-1 J' at the body COM (mj_jacBodyCom), diagonal averaged
            jac(m, d, w, i, xipos[i, 0], xipos[i, 1], xipos[i, 2], J[0:3], J[3:6], True)
            a0 = _solve_diag(m, d, w, J[0], x)
            a1 = _solve_diag(m, d, w, J[1], x)
            a2 = _solve_diag(m, d, w, J[2], x)
            a3 = _solve_diag(m, d, w, J[3], x)
            a4 = _solve_diag(m, d, w, J[4], x)
            a5 = _solve_diag(m, d, w, J[5], x)
            iw[i, 0] = (a0 + a1 + a2) / 3
            iw[i, 1] = (a3 + a4 + a5) / 3
    div = m.dof_invweight0
    for j in range(m.njnt):
        adr = m.jnt_dofadr[j]
        if body_simple[m.jnt_bodyid[j]] == 2:
            div[adr] = 1.0 / max(MINVAL, m.body_mass[m.jnt_bodyid[j]])
            continue
        jt = m.jnt_type[j]
        n = 6 if jt == 0 else (3 if jt == 1 else 1)
        s0 = 0.0
        s1 = 0.0
        for k in range(n):
            x[:] = 0.0
            x[adr + k] = 1.0
            solve_m(m, d, w, x)
            if k < 3:
                s0 += x[adr + k]
            else:
                s1 += x[adr + k]
        if n == 6:
            for k in range(3):
                div[adr + k] = s0 / 3
                div[adr + 3 + k] = s1 / 3
        elif n == 3:
            for k in range(3):
                div[adr + k] = s0 / 3
        else:
            div[adr] = s0
    row = J[0]
    tj = d.ten_J[w]
    for i in range(m.ntendon):
        row[:] = 0.0
        for k in range(m.ten_J_rowadr[i], m.ten_J_rowadr[i] + m.ten_J_rownnz[i]):
            row[m.ten_J_colind[k]] = tj[k]
        m.tendon_invweight0[i] = _solve_diag(m, d, w, row, x) if nv else 0.0
    mom = d.actuator_moment[w]
    rnz = d.moment_rownnz[w]
    radr = d.moment_rowadr[w]
    cind = d.moment_colind[w]
    for i in range(m.nu):
        x[:] = 0.0
        for k in range(radr[i], radr[i] + rnz[i]):
            x[cind[k]] = mom[k]
        solve_m(m, d, w, x)
        m.actuator_acc0[i] = math.sqrt(_dot(x, x, nv))
    if own_bias:
        # position-like actuators whose biasprm[2] > 0 is a dampratio (set0); 3.17 reflects 1/dof_invweight0
        for i in range(m.nu):
            gp = m.actuator_gainprm[i]
            bp = m.actuator_biasprm[i]
            if gp[0] != -bp[1] or bp[2] <= 0:
                continue
            mass = 0.0
            for k in range(radr[i], radr[i] + rnz[i]):
                trn = abs(mom[k])
                if trn * trn > MINVAL:
                    mass += 1.0 / max(MINVAL, div[cind[k]]) / (trn * trn)
            bp[2] = -(bp[2] * 2 * math.sqrt(gp[0] * mass))


@njit(parallel=True, refcount=True)
def reset_worlds(m, d, t, worlds, mptrs, flags, body_simple, F):
    """For each listed world (in parallel), with its own Model struct when mptrs is not empty: the mj_setConst
    constants (flags & SET_CONST), then its reset to the pending task state (flags & RESTART; a same-step
    autoreset keeping the step's reward when flags & FINAL)."""
    for i in prange(worlds.shape[0]):
        w = np.int64(worlds[i])
        if mptrs.shape[0] == 0:
            mw = m
        else:
            mw = struct_at(mptrs[w], m)
        if flags & SET_CONST:
            set_const_world(mw, d, w, body_simple, (flags & OWN_BIAS) != 0, F)
        if flags & RESTART:
            _restart(mw, d, t, w, (flags & FINAL) != 0, F)
