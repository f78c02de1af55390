"""The physics a DMC task's initialize_episode works on: one world of numjoco's Model / Data with dm_control's
Physics semantics (reset and after_reset run forward with actuation disabled; `step` is dm_control's legacy
step), and dm_control's named views (`physics.named.data.qpos['slider']`, `physics.named.model.geom_pos['target',
'x']`).  Also the suite's randomizers (dm_control/suite/utils/randomizers.py), drawing from a RandomState in the
same order.
"""

import contextlib

import numpy as np

import sim
from sim import api as _api
from sim.constants import DSBL_ACTUATION, INT_RK4, JNT_BALL, JNT_FREE, JNT_HINGE, JNT_SLIDE
from envs.dmc.expr import _LAYOUT, _MODEL_LAYOUT, _Named

STAGE_ACC = 3  # mjSTAGE_ACC (mjtStage is not among sim/constants.py's enums yet)


class Physics:
    """One world (model, data) as dm_control's suite Physics, for initialize_episode."""

    def __init__(self, model, data):
        self.model, self.data = model, data
        self.named = _NamedViews(model, data)
        st = np.asarray(model.sensor_needstage).ravel() if model.nsensor else np.zeros(0, int)
        adr, dim = np.asarray(model.sensor_adr).ravel(), np.asarray(model.sensor_dim).ravel()
        self.acc_sensors = np.concatenate(
            [np.arange(adr[s], adr[s] + dim[s]) for s in np.flatnonzero(st == STAGE_ACC)] or [np.zeros(0, np.int64)]
        ).astype(np.int64)
        self._snap = None

    # ---------------------------------------------------------------- dm_control's Physics
    def forward_without_actuation(self):
        """mj_forward with the actuation disabled (dm_control's reset / after_reset)."""
        opt = self.model.opt
        flags = int(opt.disableflags)
        opt.disableflags = flags | DSBL_ACTUATION
        try:
            sim.forward(self.model, self.data)
        finally:
            opt.disableflags = flags
        self._snapshot()

    def reset(self):
        """mj_resetData, then forward with actuation disabled."""
        sim.reset(self.model, self.data)
        self.forward_without_actuation()

    def after_reset(self):
        self.forward_without_actuation()

    @contextlib.contextmanager
    def reset_context(self):
        self.reset()
        yield self
        self.after_reset()

    def refresh(self, snapshot=True):
        """dm_control's mj_step1 after its steps: position and velocity quantities (and sensors) of the current
        state; the acceleration-stage sensors keep the values of the last step (its mj_step2)."""
        if self.acc_sensors.size:
            sd = _api.batch_arrays(self.data)["sensordata"]
            keep = sd[:, self.acc_sensors]
            sim.forward(self.model, self.data)
            sd[:, self.acc_sensors] = keep
        else:
            sim.forward(self.model, self.data)
        if snapshot:
            self._snapshot()

    def step(self, nstep=1):
        """dm_control's legacy step: mj_step2 on the position / velocity quantities Data holds (computed before
        qpos was last set, if it was), nstep - 1 mj_steps, mj_step1."""
        m, d = self.model, self.data
        if int(m.opt.integrator) != INT_RK4 and self._stale():
            self._stale_step()
            nstep -= 1
        if nstep > 0:
            sim.step(m, d, nstep)
        self.refresh()

    @property
    def ncon(self):
        return self.data.ncon

    def timestep(self):
        return float(self.model.opt.timestep)

    # ---------------------------------------------------------------- internals
    def _snapshot(self):
        d = self.data
        self._snap = (d.qpos.copy(), d.qvel.copy(), d.act.copy())

    def _stale(self):
        d = self.data
        q, v, a = self._snap
        return not (np.array_equal(q, d.qpos) and np.array_equal(v, d.qvel) and np.array_equal(a, d.act))

    def _stale_step(self):
        """mj_step2 on stale quantities: qacc is that of the state of the last forward (a step from that state
        gives it); qpos set since then is integrated with the new qvel (Euler, hinge and slide joints)."""
        m, d = self.model, self.data
        q, v, a = self._snap
        jt = np.asarray(m.jnt_type).ravel()
        if not (np.array_equal(v, d.qvel) and np.array_equal(a, d.act)) or np.any((jt == JNT_FREE) | (jt == JNT_BALL)):
            raise NotImplementedError(
                "a step after setting qvel / act, or qpos of free or ball joints, without a "
                "forward in between (dm_control steps on stale quantities) is not emulated"
            )
        s = sim.Data(m)
        for k in (
            "qpos",
            "qvel",
            "act",
            "ctrl",
            "qacc_warmstart",
            "qfrc_applied",
            "xfrc_applied",
            "mocap_pos",
            "mocap_quat",
        ):
            setattr(s, k, getattr(d, k) if k != "qpos" else q)
        s.time = d.time
        sim.step(m, s)
        h = float(m.opt.timestep)
        qpos = d.qpos + h * s.qvel  # mj_integratePos of hinge and slide joints
        d.qpos = qpos
        for k in ("qvel", "act", "qacc_warmstart"):
            setattr(d, k, getattr(s, k))
        d.time = s.time


class _NamedViews:
    def __init__(self, model, data):
        self.model = _Named(model, model, _MODEL_LAYOUT)
        self.data = _Named(model, data, _LAYOUT)


# ------------------------------------------------------------------------------------------------ randomizers
def random_limited_quaternion(random, limit):
    """randomizers.random_limited_quaternion (mju_axisAngle2Quat of a random axis and angle)."""
    axis = random.randn(3)
    axis /= np.linalg.norm(axis)
    angle = random.rand() * limit
    s = np.sin(angle / 2)
    return np.array([np.cos(angle / 2), axis[0] * s, axis[1] * s, axis[2] * s])


def randomize_limited_and_rotational_joints(physics, random):
    """randomizers.randomize_limited_and_rotational_joints: limited hinges and slides uniform in their range,
    unlimited hinges in [-pi, pi], ball joints' quaternions uniform (or in their limited sector), free joints'
    orientation from rand(4) normalised (as dm_control draws it); in joint order."""
    m = physics.model
    qpos = physics.data.qpos
    for j in range(int(m.njnt)):
        jt = int(m.jnt_type[j])
        lo, hi = np.asarray(m.jnt_range).reshape(-1, 2)[j]
        a = int(m.jnt_qposadr[j])
        if m.jnt_limited[j]:
            if jt in (JNT_HINGE, JNT_SLIDE):
                qpos[a] = random.uniform(lo, hi)
            elif jt == JNT_BALL:
                qpos[a : a + 4] = random_limited_quaternion(random, hi)
        else:
            if jt == JNT_HINGE:
                qpos[a] = random.uniform(-np.pi, np.pi)
            elif jt == JNT_BALL:
                quat = random.randn(4)
                quat /= np.linalg.norm(quat)
                qpos[a : a + 4] = quat
            elif jt == JNT_FREE:
                quat = random.rand(4)
                quat /= np.linalg.norm(quat)
                qpos[a + 3 : a + 7] = quat
