"""The compiler's passes of mj_setConst (engine_setconst.c): the derived model constants read off the world at qpos0.

sim/setconst.py runs mj_setConst at load: the mass-dependent constants (body_subtreemass, dof_M0, body/dof/tendon
invweight0, actuator_acc0, position actuators' dampratio) come from the kernel sim/engine/setconst.py, which domain
randomisation also runs per world; the passes here fill the rest from the world it leaves at qpos0 (a Data with the
smooth position stages done): tendon_length0, actuator_length0, eq_data of connect/weld, camera/light reference
poses, model statistics and dof_length (`set_qpos0`), tendon_lengthspring (`set_spring`) and the joints'
springdamper (`auto_spring_damper`), and the settings and checks of the simulation-based actuator length ranges
(mjCModel::LengthRange: `length_range_settings`, `check_length_range`).  Numpy only: no engine import.
"""

import math

import numpy as np

from sim.user_util import matvec, mulquat, negquat, quat2mat

EQ_CONNECT, EQ_WELD = 0, 1
OBJ_BODY, OBJ_SITE = 1, 6
TRN_JOINT, TRN_JOINTINPARENT, TRN_TENDON = 0, 1, 3
PLANE, HFIELD = 0, 1
FREE, BALL, HINGE = 0, 1, 3
INT_EULER, INT_RK4 = 0, 1
# the options mjCModel::LengthRange simulates with (mjDSBL_FRICTIONLOSS | CONTACT | SPRING | DAMPER | GRAVITY |
# ACTUATION), replacing the model's disable flags
LR_DISABLE = 4 | 16 | 32 | 64 | 128 | 2048


def _set_fixed(m):
    """Subtree masses, gravcomp/adhesion flags, joint/tendon actuator ids, tendon trees (setFixed)."""
    nbody = m.nbody
    sub = m.body_mass.astype(np.float64).copy()
    for i in range(nbody - 1, 0, -1):
        sub[m.body_parentid[i]] += sub[i]
    m.body_subtreemass = sub
    m.ngravcomp = int(np.sum(m.body_gravcomp > 0))
    m.flg_gravcomp = int(m.ngravcomp > 0)
    m.flg_surfacevel = int(bool(np.any(m.geom_surfacevel != 0))) if m.ngeom else 0
    adh = bool(np.any(m.geom_adhesion != 0)) if m.ngeom else False
    if getattr(m, "npair", 0) and hasattr(m, "pair_adhesion"):
        adh = adh or bool(np.any(m.pair_adhesion != 0))
    m.flg_adhesion = int(adh)
    jid = np.full(m.njnt, -1, dtype=np.int32)
    tid = np.full(m.ntendon, -1, dtype=np.int32)
    for i in range(m.nu):
        damp = getattr(m, "actuator_damping", np.zeros(m.nu))[i]
        dpoly = getattr(m, "actuator_dampingpoly", np.zeros((m.nu, 2)))[i]
        arm = getattr(m, "actuator_armature", np.zeros(m.nu))[i]
        if damp == 0 and not np.any(dpoly) and arm == 0:
            continue
        t, obj = m.actuator_trntype[i], m.actuator_trnid[i, 0]
        if t in (TRN_JOINT, TRN_JOINTINPARENT):
            jid[obj] = i if jid[obj] == -1 else -2
        elif t == TRN_TENDON:
            tid[obj] = i if tid[obj] == -1 else -2
    m.jnt_actuatorid = jid
    m.tendon_actuatorid = tid
    # trees spanned by each tendon
    treenum = np.zeros(m.ntendon, dtype=np.int32)
    treeid = np.full((m.ntendon, 2), -1, dtype=np.int32)
    for i in range(m.ntendon):
        seen = set()
        for j in range(m.tendon_adr[i], m.tendon_adr[i] + m.tendon_num[i]):
            b = _wrap_body(m, j)
            t = m.body_treeid[b] if b >= 0 else -1
            if t != -1 and t not in seen:
                seen.add(t)
                if treenum[i] < 2:
                    treeid[i, treenum[i]] = t
                treenum[i] += 1
    m.tendon_treenum, m.tendon_treeid = treenum, treeid


def _wrap_body(m, j):
    t, obj = m.wrap_type[j], m.wrap_objid[j]
    if t == 3:  # site
        return m.site_bodyid[obj]
    if t in (4, 5):  # sphere, cylinder geom
        return m.geom_bodyid[obj]
    if t == 1:  # joint
        return m.jnt_bodyid[obj]
    return -1


def _dist3(a, b):
    """Euclidean distance of two 3-vectors (mju_dist3)."""
    d0, d1, d2 = a[0] - b[0], a[1] - b[1], a[2] - b[2]
    return math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)


def set_fixed(m):
    """setFixed, and the fields the kernel sim/engine/setconst.py fills zeroed (dof_length: ones)."""
    _set_fixed(m)
    nv = m.nv
    m.dof_M0 = np.zeros(nv)
    m.body_invweight0 = np.zeros((m.nbody, 2))
    m.dof_invweight0 = np.zeros(nv)
    m.tendon_invweight0 = np.zeros(m.ntendon)
    m.tendon_length0 = np.zeros(m.ntendon)
    m.actuator_acc0 = np.zeros(m.nu)
    m.actuator_length0 = np.zeros(m.nu)
    m.dof_length = np.ones(nv)


def set_qpos0(m, d, ctx):
    """tendon_length0, actuator_length0, eq_data, camera / light reference poses, statistics and dof_length from d,
    the world at qpos0 with the smooth position stages done."""
    m.tendon_length0 = np.array(d.ten_length, dtype=np.float64).copy()
    m.actuator_length0 = np.array(d.actuator_length, dtype=np.float64).copy()
    _eq_data(m, d)
    _cam_light(m, d)
    _stat(m, d, ctx)


def auto_spring_damper(m, ctx):
    """Joint springdamper (timeconst, dampratio) -> stiffness and damping from dof_invweight0
    (mjCModel::AutoSpringDamper)."""
    jels = ctx.elems["joint"]
    for n in range(m.njnt):
        el = jels[n]
        if el is None or el.key != "joint":
            continue
        tc, dr = el.get("springdamper")
        if tc <= 0 or dr <= 0:
            continue
        adr = m.jnt_dofadr[n]
        ndim = {FREE: 6, BALL: 3}.get(m.jnt_type[n], 1)
        inertia = 0.0
        for i in range(ndim):
            inertia += m.dof_invweight0[adr + i]
        inertia = ndim / max(1e-15, inertia)
        m.jnt_stiffness[n] = inertia / max(1e-15, tc * tc * dr * dr)
        m.dof_damping[adr : adr + ndim] = 2 * inertia / max(1e-15, tc)


def _eq_data(m, d):
    """Complete connect/weld anchors and relative poses from qpos0 (set0)."""
    if not getattr(m, "neq", 0):
        return
    data = m.eq_data
    for i in range(m.neq):
        id1, id2 = m.eq_obj1id[i], m.eq_obj2id[i]
        if m.eq_type[i] == EQ_CONNECT and m.eq_objtype[i] == OBJ_BODY:
            pos = _local2global(d, id1, data[i, 0:3])
            data[i, 3:6] = matvec(d.xmat[id2].reshape(3, 3).T, pos - d.xpos[id2])
        elif m.eq_type[i] == EQ_CONNECT and m.eq_objtype[i] == OBJ_SITE:
            data[i, :] = 0
        elif m.eq_type[i] == EQ_WELD and m.eq_objtype[i] == OBJ_BODY:
            if np.any(data[i, 6:10] != 0):
                q = data[i, 6:10]  # mju_normalize4
                nrm = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
                if nrm < 1e-15:
                    q[:] = (1.0, 0.0, 0.0, 0.0)
                elif abs(nrm - 1) > 1e-15:
                    q *= 1 / nrm
                continue
            pos = _local2global(d, id2, data[i, 0:3])
            data[i, 3:6] = matvec(d.xmat[id1].reshape(3, 3).T, pos - d.xpos[id1])
            q1 = d.xquat[id1]
            data[i, 6:10] = mulquat(negquat(q1), d.xquat[id2], normalize=False)


def _local2global(d, body, local_pos):
    """Global position of a point given in a body's frame: xmat @ pos + xpos (mj_local2Global's order)."""
    return matvec(d.xmat[body].reshape(3, 3), local_pos) + d.xpos[body]


def _reference_pose(d, body, target, local_pos):
    """Global position of a point fixed to `body`, relative to the body and to the (target's) subtree COM."""
    xpos = _local2global(d, body, local_pos)
    return xpos - d.xpos[body], xpos - d.subtree_com[target if target >= 0 else body]


def _cam_light(m, d):
    """cam_pos0/poscom0/mat0 and light_pos0/poscom0/dir0 at qpos0, with cameras/lights fixed to bodies."""
    m.cam_pos0, m.cam_poscom0, m.cam_mat0 = np.zeros((m.ncam, 3)), np.zeros((m.ncam, 3)), np.zeros((m.ncam, 9))
    for i in range(m.ncam):
        b = m.cam_bodyid[i]
        m.cam_pos0[i], m.cam_poscom0[i] = _reference_pose(d, b, m.cam_targetbodyid[i], m.cam_pos[i])
        m.cam_mat0[i] = quat2mat(mulquat(d.xquat[b], m.cam_quat[i], normalize=False)).reshape(9)
    m.light_pos0, m.light_poscom0 = np.zeros((m.nlight, 3)), np.zeros((m.nlight, 3))
    m.light_dir0 = np.zeros((m.nlight, 3))
    for i in range(m.nlight):
        b = m.light_bodyid[i]
        m.light_pos0[i], m.light_poscom0[i] = _reference_pose(d, b, m.light_targetbodyid[i], m.light_pos[i])
        xdir = matvec(d.xmat[b].reshape(3, 3), m.light_dir[i])
        nrm = math.sqrt(xdir[0] * xdir[0] + xdir[1] * xdir[1] + xdir[2] * xdir[2])
        # 3.17's mj_camlight normalises light_xdir, scaling by 1/norm even when the norm is 1 within 1e-15
        m.light_dir0[i] = xdir * (1 / nrm) if nrm >= 1e-15 else xdir


def _stat(m, d, ctx):
    """Model statistics at qpos0 (setStat), then the user's <statistic> overrides."""
    xmin, xmax = np.full(3, 1e10), np.full(3, -1e10)

    def upd(p, r):
        nonlocal xmin, xmax
        xmin = np.minimum(xmin, p - r)
        xmax = np.maximum(xmax, p + r)

    for i in range(1, m.nbody):
        upd(d.xpos[i], 0)
        upd(d.xipos[i], 0)
    for i in range(m.njnt):
        upd(d.xanchor[i], 0)
    for i in range(m.nsite):
        upd(d.site_xpos[i], 0)
    for i in range(m.ngeom):
        r = 0.0
        if m.geom_rbound[i] > 0:
            r = m.geom_rbound[i]
        elif m.geom_type[i] == PLANE:
            s = m.geom_size[i]
            r = max(s[0], s[1]) * 0.1 if (s[0] or s[1]) else 0.01
        elif m.geom_type[i] == HFIELD:
            r = float(np.max(m.hfield_size[m.geom_dataid[i]])) * 0.1
        upd(d.geom_xpos[i], r)
    st = m.stat
    st.center = (xmin + xmax) * 0.5
    if xmax[0] > xmin[0]:
        st.extent = max(1e-5, max(xmax[0] - xmin[0], xmax[1] - xmin[1], xmax[2] - xmin[2]))
    body = np.zeros(m.nbody)
    for j in range(m.njnt):
        b = m.jnt_bodyid[j]
        body[b] = max(body[b], _dist3(d.xipos[b], d.xanchor[j]))
        p = m.body_parentid[b]
        body[p] = max(body[p], _dist3(d.xipos[p], d.xanchor[j]))
    body[0] = 0
    for i in range(1, m.nbody):
        for g in range(m.body_geomadr[i], m.body_geomadr[i] + m.body_geomnum[i]):
            if m.geom_rbound[g] > 0:
                body[i] = max(body[i], m.geom_rbound[g] + _dist3(d.xipos[i], d.geom_xpos[g]))
    if m.nbody > 1:
        st.meansize = 0.0
        for i in range(1, m.nbody):
            body[i] = max(body[i], 1e-5)
            st.meansize += body[i] / (m.nbody - 1)
    for i in range(m.nv):
        j = m.dof_jntid[i]
        t = m.jnt_type[j]
        if t in (BALL, HINGE) or (t == FREE and i - m.jnt_dofadr[j] >= 3):
            m.dof_length[i] = body[m.dof_bodyid[i]]
    st.extent = max(st.extent, 2 * st.meansize)
    if m.nbody > 1:
        st.meanmass = 0.0
        for i in range(1, m.nbody):
            st.meanmass += m.body_mass[i]
        st.meanmass /= m.nbody - 1
    if m.nv:
        st.meaninertia = 0.0
        qm = np.asarray(d.M if hasattr(d, "M") else d.qM)
        for i in range(m.nv):
            st.meaninertia += qm[m.M_rowadr[i] + m.M_rownnz[i] - 1]
        st.meaninertia /= m.nv
    stat_el = ctx.root.find("statistic")
    for el in stat_el:
        for k in ("meaninertia", "meanmass", "meansize", "extent"):
            if el.has(k):
                setattr(st, k, el.get(k))
        if el.has("center"):
            st.center = np.array(el.get("center"), dtype=np.float64)


def set_spring(m, d):
    """Tendon spring lengths of -1 become the tendon length in d, the world at qpos_spring (setSpring)."""
    ls = m.tendon_lengthspring
    for i in range(m.ntendon):
        if ls[i, 0] == -1 and ls[i, 1] == -1:
            ls[i, :] = d.ten_length[i]


# the real attributes of <lengthrange> and their defaults (sim/mjcf/schema.py), for a model without the element
_LR_REAL = ("accel", "maxforce", "timeconst", "timestep", "inttotal", "interval", "tolrange")
_LR_DEFAULT = dict(accel=20.0, maxforce=0.0, timeconst=1.0, timestep=0.01, inttotal=10.0, interval=2.0, tolrange=0.05)


def length_range_settings(ctx):
    """{accel, maxforce, timeconst, timestep, inttotal, interval, tolrange} of the model's <lengthrange>."""
    lr = ctx.comp.first("lengthrange")
    return {k: float(lr.get(k)) for k in _LR_REAL} if lr is not None else dict(_LR_DEFAULT)


def check_length_range(m, el, i, lmin, lmax, tol):
    """mj_setLengthRange's checks of a simulated range, with its messages."""
    lo, hi = m.actuator_lengthrange[i]
    dif = hi - lo
    if dif <= 0:
        raise el.error("Invalid lengthrange (%g, %g) in actuator %d" % (lo, hi, i), "lengthrange")
    # MuJoCo's two messages differ by one space ("\n  range" / "\n range")
    for side, sep in ((0, "  "), (1, " ")):
        if lmax[side] - lmin[side] > tol * dif:
            raise el.error(
                "Lengthrange computation did not converge in actuator %d:\n  eval (%g, %g)\n%srange (%g, %g)"
                % (i, lmin[side], lmax[side], sep, lo, hi),
                "lengthrange",
            )
