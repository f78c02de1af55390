"""Runtime faults handled as MuJoCo 3.17 handles them (issue 16), compared with mujoco on the same model and state:

- a bad control (NaN, inf or |u| > 1e10 after clamping) zeroes every control for that evaluation and counts
  mjWARN_BADCTRL (lastinfo = the actuator); a Python RuntimeWarning names the world;
- a bad qpos / qvel (mj_checkPos / mj_checkVel) or a bad qacc (mj_checkAcc; reached through NaN in ctrl-free
  inputs: qfrc_applied, xfrc_applied, act, mocap poses) resets that world (mj_resetData) and counts
  BADQPOS / BADQVEL / BADQACC; with autoreset disabled the NaN stays and is counted the same way;
- a full contact buffer drops the contacts that do not fit and counts CONTACTFULL per dropped contact; a full
  constraint buffer drops every constraint row of that step and counts CNSTRFULL: the same counts, contacts
  and next state as mujoco when its arena (<size memory>) runs out at the same place;
- in a batch, a fault in one world leaves the other worlds bitwise equal to stepping them alone.

States are compared bitwise-or-1e-12 (every fault path here is the plain pipeline that matches MuJoCo to
round-off) and the warning counters exactly.  One difference is by design and checked as such: CNSTRFULL's
lastinfo is the number of rows that did not fit (MuJoCo reports the arena bytes it would have needed).
"""

import warnings

import mujoco
import numpy as np
import pytest

import sim

W = mujoco.mjtWarning
NWARN = int(W.mjNWARNING)

# primitives only (plane, sphere, capsule: the basic feature set), free / hinge / slide joints, a mocap body
# welded to the ball, a fixed tendon, an unclamped motor, a clamped one, an integrated-velocity actuator with an
# activation and a filtered tendon actuator (a second activation)
FAULT_XML = """
<mujoco model="faults">
  <option timestep="0.004" jacobian="{jacobian}"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 .1"/>
    <body name="target" mocap="true" pos="0.3 0 .5">
      <geom type="sphere" size="0.05" contype="0" conaffinity="0"/>
    </body>
    <body name="ball" pos="0 0 .3">
      <freejoint/>
      <geom type="sphere" size="0.1"/>
    </body>
    <body name="arm" pos="1 0 .5">
      <joint name="h1" type="hinge" axis="0 1 0" damping=".1"/>
      <geom type="capsule" size=".05" fromto="0 0 0 .3 0 0"/>
      <body pos=".3 0 0">
        <joint name="h2" type="hinge" axis="0 1 0"/>
        <joint name="s1" type="slide" axis="1 0 0" range="-.1 .1" limited="true"/>
        <geom type="capsule" size=".04" fromto="0 0 0 .3 0 0"/>
      </body>
    </body>
  </worldbody>
  <tendon><fixed name="t"><joint joint="h1" coef="1"/><joint joint="h2" coef="-1"/></fixed></tendon>
  <equality><weld body1="target" body2="ball" solref=".05 1"/></equality>
  <actuator>
    <motor name="free" joint="h1"/>
    <motor name="clamped" joint="h2" ctrlrange="-1 1" ctrllimited="true"/>
    <intvelocity name="iv" joint="s1" kp="10" actrange="-.1 .1"/>
    <general name="filt" tendon="t" dyntype="filter" dynprm=".05" gainprm="2"/>
  </actuator>
  {extra}
</mujoco>
"""


def models(jacobian="dense", extra=""):
    xml = FAULT_XML.format(jacobian=jacobian, extra=extra)
    return sim.load_model(xml), mujoco.MjModel.from_xml_string(xml)


def set_field(d, field, index, value, world=None):
    """Write value into d.<field>[index] (world `world` of a batch)."""
    arr = getattr(d, field)
    if world is None:
        arr[index] = value
    else:
        arr[(world,) + (index if isinstance(index, tuple) else (index,))] = value


def warn_table(d, world=None):
    """[(number, lastinfo)] of the seven mjtWarning kinds."""
    if isinstance(d, mujoco.MjData):
        return [(d.warning[k].number, d.warning[k].lastinfo) for k in range(NWARN)]
    n, li = d.warning.number, d.warning.lastinfo
    if world is not None:
        n, li = n[world], li[world]
    return [(int(a), int(b)) for a, b in zip(n, li)]


def assert_state_equal(d, md, world=None, atol=1e-12):
    for f in ("qpos", "qvel", "act", "qacc_warmstart", "mocap_pos"):
        ours = getattr(d, f) if world is None else getattr(d, f)[world]
        theirs = getattr(md, f)
        assert ours.shape == theirs.shape
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=atol, err_msg=f, equal_nan=True)
    t = d.time if world is None else d.time[world]
    assert t == pytest.approx(md.time, abs=1e-15)


def run_both(m, mm, field, index, value, before=5, after=3, ctrl=(0.3, -0.2, 0.05, 0.4)):
    """Step both engines `before` steps, inject value into field[index] in both, step `after` more;
    returns (d, md, python warnings raised by numjoco during the faulty steps)."""
    d, md = sim.Data(m), mujoco.MjData(mm)
    d.ctrl = ctrl
    md.ctrl[:] = ctrl
    sim.step(m, d, before)
    for _ in range(before):
        mujoco.mj_step(mm, md)
    set_field(d, field, index, value)
    set_field(md, field, index, value)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        for _ in range(after):
            sim.step(m, d)
            mujoco.mj_step(mm, md)
    return d, md, [str(r.message) for r in rec if issubclass(r.category, RuntimeWarning)]


# --------------------------------------------------------------------------------------------- bad controls


@pytest.mark.parametrize("actuator", [0, 1, 2, 3])
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf, 1e11])
def test_bad_ctrl_as_mujoco(actuator, value):
    """NaN / inf / huge control: zeroed for that evaluation with BADCTRL (lastinfo = actuator) unless the
    actuator's ctrlrange clamps it first (the clamped motor, index 1, clamps inf and 1e11 but not NaN)."""
    m, mm = models()
    d, md, pyw = run_both(m, mm, "ctrl", actuator, value)
    assert warn_table(d) == warn_table(md)
    assert_state_equal(d, md)
    bad = md.warning[W.mjWARN_BADCTRL].number > 0
    assert bad == (actuator != 1 or np.isnan(value))
    assert any("ctrl" in w and "[0]" in w for w in pyw) == bad
    assert not any("diverged" in w for w in pyw)
    # d.ctrl keeps what the user wrote (MuJoCo zeroes a scratch copy, never d.ctrl)
    assert np.array_equal(d.ctrl, md.ctrl, equal_nan=True)


# ---------------------------------------------------------------------------------- bad state: auto-reset

BAD_STATE = [
    ("qpos", 2, np.nan),
    ("qpos", 8, np.inf),
    ("qvel", 2, 1e11),
    ("qvel", 6, -np.inf),
    ("act", 0, np.nan),
    ("act", 1, np.inf),
    ("qfrc_applied", 7, np.nan),
    ("qfrc_applied", 0, np.inf),
    ("xfrc_applied", (2, 0), np.nan),
    ("xfrc_applied", (3, 4), np.inf),
    ("xfrc_applied", (1, 1), np.inf),  # on the mocap body: no dof, NaN only through dense J'f
    ("mocap_pos", (0, 1), np.nan),
    ("mocap_quat", (0, 2), np.inf),
]


@pytest.mark.parametrize("jacobian", ["dense", "sparse"])
@pytest.mark.parametrize("field,index,value", BAD_STATE, ids=[f"{f}{i}={v}" for f, i, v in BAD_STATE])
def test_bad_state_resets_as_mujoco(field, index, value, jacobian):
    """The same warning kind, count and lastinfo as mujoco, the same state after the reset and the steps that
    follow, and a Python warning exactly when mujoco reset the world."""
    m, mm = models(jacobian)
    d, md, pyw = run_both(m, mm, field, index, value)
    assert warn_table(d) == warn_table(md)
    assert_state_equal(d, md)
    reset = any(md.warning[k].number for k in (W.mjWARN_BADQPOS, W.mjWARN_BADQVEL, W.mjWARN_BADQACC))
    assert any("diverged" in w for w in pyw) == reset
    if (field, index, jacobian) == (("xfrc_applied", (1, 1), "sparse")):
        assert not reset  # sparse mj_applyFT touches the (empty) dof chain of a mocap body only
    else:
        assert reset
    for f in ("qpos", "qvel", "act"):
        assert np.all(np.isfinite(getattr(d, f)))


@pytest.mark.parametrize("field,index,value", [("qvel", 3, np.nan), ("qfrc_applied", 6, np.inf)])
def test_autoreset_disabled_as_mujoco(field, index, value):
    """<flag autoreset="disable">: counted twice per check as mj_checkVel / mj_checkAcc do, state left bad."""
    m, mm = models(extra="")
    for model in (m, mm):
        model.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_AUTORESET)
    d, md, pyw = run_both(m, mm, field, index, value, after=2)
    assert warn_table(d) == warn_table(md)
    assert_state_equal(d, md)
    assert not np.all(np.isfinite(md.qvel)) and not np.all(np.isfinite(d.qvel))


# ------------------------------------------------------------------------------------------- full buffers


def pile(n=24, memory=None):
    """n spheres dropped in a heap on a plane (many sphere-sphere and plane contacts)."""
    balls = "".join(
        f"<body pos='{0.05 * (i % 4)} {0.05 * ((i // 4) % 4)} {0.1 + 0.12 * (i // 16)}'><freejoint/>"
        f"<geom type='sphere' size='.1'/></body>"
        for i in range(n)
    )
    size = f"<size memory='{memory}'/>" if memory else ""
    return f"<mujoco>{size}<worldbody><geom type='plane' size='5 5 .1'/>{balls}</worldbody></mujoco>"


def _mujoco_arena(memory, nstep=3):
    mm = mujoco.MjModel.from_xml_string(pile(memory=memory))
    md = mujoco.MjData(mm)
    for _ in range(nstep):
        mujoco.mj_step(mm, md)
    return mm, md


@pytest.mark.parametrize("memory", ["60K", "100K", "150K"])
def test_contact_buffer_full_as_mujoco(memory):
    """mujoco's arena holds `ncon` contacts and then no constraint rows: numjoco with nconmax = ncon (and
    njmax = ncon, too few rows) drops the same contacts, counts CONTACTFULL the same number of times (lastinfo
    = ncon), drops every constraint row (CNSTRFULL) and reaches the same state."""
    mm, md = _mujoco_arena(memory)
    assert md.warning[W.mjWARN_CONTACTFULL].number > 0 and md.nefc == 0
    m = sim.load_model(pile(memory=memory))
    d = sim.Data(m, nconmax=int(md.ncon), njmax=int(md.ncon))
    with pytest.warns(RuntimeWarning) as rec:
        sim.step(m, d, 3)
    msgs = " ".join(str(r.message) for r in rec)
    assert "contact buffer full" in msgs and "constraint buffer full" in msgs
    assert d.ncon == md.ncon and d.nefc == 0
    ours, theirs = warn_table(d), warn_table(md)
    assert ours[W.mjWARN_CONTACTFULL] == theirs[W.mjWARN_CONTACTFULL]
    assert ours[W.mjWARN_CNSTRFULL][0] == theirs[W.mjWARN_CNSTRFULL][0]
    # lastinfo differs by design: rows that did not fit (ours) vs arena bytes (mujoco)
    assert ours[W.mjWARN_CNSTRFULL][1] > d.njmax
    np.testing.assert_array_equal(d.contact.geom, md.contact.geom)
    assert_state_equal(d, md, atol=0)


def test_constraint_buffer_full_as_mujoco():
    """Every contact fits but the rows do not: mujoco with an arena just too small for its efc arrays drops all
    rows (CNSTRFULL once per step); numjoco with njmax one row short does the same, to the same state."""
    full = _mujoco_arena(None, 1)[1]
    need_con, need_efc = int(full.ncon), int(full.nefc)
    # the smallest arena (10 KiB steps) that holds every contact of the first step: its efc arrays cannot fit
    for kib in range(100, 1000, 10):
        mm, md = _mujoco_arena(f"{kib}K", 1)
        if md.warning[W.mjWARN_CONTACTFULL].number == 0:
            break
    assert md.ncon == need_con and md.nefc == 0 and md.warning[W.mjWARN_CNSTRFULL].number == 1
    m = sim.load_model(pile())
    d = sim.Data(m, nconmax=need_con + 10, njmax=need_efc - 1)
    with pytest.warns(RuntimeWarning, match="constraint buffer full"):
        sim.step(m, d)
    assert d.ncon == md.ncon and d.nefc == 0
    assert warn_table(d)[W.mjWARN_CNSTRFULL][0] == 1 and warn_table(d)[W.mjWARN_CONTACTFULL] == (0, 0)
    assert_state_equal(d, md, atol=0)
    # with one more row everything fits again: no warning, rows as mujoco with a large arena
    d = sim.Data(m, nconmax=need_con, njmax=need_efc)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sim.step(m, d)
    assert d.nefc == need_efc


# --------------------------------------------------------------------------------------- batch isolation


def _singles(m, states, nstep, nconmax=None):
    out = []
    for st in states:
        d = sim.Data(m, nconmax=nconmax)
        for k, v in st.items():
            setattr(d, k, v)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sim.step(m, d, nstep)
        out.append(d)
    return out


def _batch_states(m, n, seed):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        d = sim.Data(m)
        out.append(
            {
                "qpos": d.qpos + np.concatenate([np.zeros(7), rng.uniform(-0.2, 0.2, m.nq - 7)]),
                "qvel": rng.uniform(-0.5, 0.5, m.nv),
                "ctrl": rng.uniform(-1, 1, m.nu),
                "qfrc_applied": np.zeros(m.nv),
                "xfrc_applied": np.zeros((m.nbody, 6)),
                "mocap_pos": d.mocap_pos.copy(),
                "act": np.zeros(m.na),
            }
        )
    return out


FAULTS = [
    ("ctrl", 0, np.nan, W.mjWARN_BADCTRL),
    ("qvel", 4, np.nan, W.mjWARN_BADQVEL),
    ("qpos", 9, np.inf, W.mjWARN_BADQPOS),
    ("qfrc_applied", 1, np.inf, W.mjWARN_BADQACC),
    ("xfrc_applied", (3, 2), np.nan, W.mjWARN_BADQACC),
    ("mocap_pos", (0, 0), np.nan, W.mjWARN_BADQACC),
]


@pytest.mark.parametrize("field,index,value,kind", FAULTS, ids=[f[0] for f in FAULTS])
def test_fault_in_one_world_leaves_the_others_bitwise(field, index, value, kind):
    """Worlds 0, 1 and 3 of a batch of 4 equal stepping them alone, bit for bit; world 2 equals a single world
    with the same fault (warnings included); the Python warning names world 2 only."""
    m, _ = models()
    sts = _batch_states(m, 4, seed=1)
    sts[2][field] = sts[2][field].copy()
    sts[2][field][index] = value
    b = sim.Data(m, nworld=4)
    for k in sts[0]:
        setattr(b, k, np.stack([s[k] for s in sts]))
    with pytest.warns(RuntimeWarning, match=r"world\(s\) \[2\]"):
        sim.step(m, b, 10)
    singles = _singles(m, sts, 10)
    for w, d in enumerate(singles):
        for f in ("qpos", "qvel", "act", "qacc", "xpos", "efc_force", "contact_pos"):
            ours = getattr(b, f)[w] if f != "contact_pos" else b.contact.pos[w, : b.ncon[w]]
            ref = getattr(d, f) if f != "contact_pos" else d.contact.pos
            if f == "efc_force":
                ours = ours[: b.nefc[w]]
            assert np.array_equal(ours, ref), (w, f)
        assert warn_table(b, w) == warn_table(d), w
    assert b.warning[kind].number.tolist() == [0, 0, b.warning[kind].number[2], 0]
    assert b.warning[kind].number[2] > 0


def test_contact_overflow_in_one_world_leaves_the_others_bitwise():
    """One world piled up (overflowing a small contact buffer), three spread out: only the piled world warns,
    and every world equals itself stepped alone with the same buffer."""
    m = sim.load_model(pile())
    spread = sim.Data(m).qpos.copy()
    for i in range(24):
        spread[7 * i : 7 * i + 3] = (0.5 * (i % 6), 0.5 * (i // 6), 0.1)
    heap = sim.Data(m).qpos.copy()
    sts = [{"qpos": spread}, {"qpos": heap}, {"qpos": spread + 0.01}, {"qpos": spread - 0.01}]
    b = sim.Data(m, nworld=4, nconmax=40)
    b.qpos = np.stack([s["qpos"] for s in sts])
    with pytest.warns(RuntimeWarning, match=r"contact buffer full in world\(s\) \[1\]"):
        sim.step(m, b, 5)
    singles = _singles(m, sts, 5, nconmax=40)
    for w, d in enumerate(singles):
        assert np.array_equal(b.qpos[w], d.qpos) and np.array_equal(b.qvel[w], d.qvel), w
        assert warn_table(b, w) == warn_table(d), w
    full = b.warning[W.mjWARN_CONTACTFULL].number
    assert full[1] > 0 and full[[0, 2, 3]].tolist() == [0, 0, 0]
    assert np.all(np.isfinite(b.qpos)) and np.all(b.ncon <= 40)


# ------------------------------------------------------------------------------------- singular mass matrix

SINGULAR = """
<mujoco>
  <option integrator="{integrator}"/>
  <worldbody>
    <body pos="0 0 1">
      {hinges}
      <inertial pos="0.1 0 0" mass="2" diaginertia="0.1 0.2 0.3"/>
      <body pos="0 0 -0.5">
        <joint type="slide" axis="0 0 1"/>
        <geom type="sphere" size="0.1" pos="0.1 0 0"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


@pytest.mark.parametrize("integrator", ["Euler", "RK4", "implicit", "implicitfast"])
@pytest.mark.parametrize("nhinge", [2, 3])
def test_singular_mass_matrix_as_mujoco(integrator, nhinge):
    """Repeated hinges on one axis make M singular: MuJoCo raises each tiny pivot of its L'DL (and of the
    implicit integrator's LU / L'DL) to mjMINVAL and counts mjWARN_INERTIA once per factorisation (lastinfo =
    the first such row); the state stays finite and equal."""
    xml = SINGULAR.format(integrator=integrator, hinges='<joint type="hinge" axis="0 1 0"/>' * nhinge)
    m, mm = sim.load_model(xml), mujoco.MjModel.from_xml_string(xml)
    d, md = sim.Data(m), mujoco.MjData(mm)
    for _ in range(5):
        sim.step(m, d)
        mujoco.mj_step(mm, md)
    assert warn_table(d) == warn_table(md)
    assert md.warning[W.mjWARN_INERTIA].number > 0
    assert_state_equal(d, md)
    assert np.all(np.isfinite(d.qvel))
