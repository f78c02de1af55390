"""Slider-crank, site+refsite and body (adhesion) actuator transmissions (mj_transmission) against mujoco:
length, moment (sparse and dense), velocity, force, qfrc_actuator, qacc over random states, and controlled
trajectories. Contacts and constraints are disabled for the slider-crank and refsite models; the body
transmission is built from contacts, so its models run the whole contact pipeline."""

import mujoco
import numpy as np
import pytest

import sim.jit.cache  # noqa: F401  (must precede jitted modules)
from sim import api
from oracle import random_qpos
from dynamics_util import batch_data, mujoco_forward

NSTATE = 24
RTOL = 1e-9
ATOL = 1e-12
TRAJ_TOL = 1e-8

# crank on a two-hinge chain under a free base, slider site on a moving body; a second slider-crank
# with a short rod so that det <= 0 occurs (length = a'v branch); position and velocity servos
SLIDERCRANK = """
<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <site name="s_world" pos="0 0 0.2" euler="20 10 0"/>
    <body name="base" pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.2 0.1 0.05"/>
      <site name="slider" pos="0 0 -0.3" euler="0 15 0"/>
      <body name="l1" pos="0.2 0 0">
        <joint name="h1" type="hinge" axis="0 1 0" damping="0.1"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        <body name="l2" pos="0.3 0 0">
          <joint name="h2" type="hinge" axis="0 0 1"/>
          <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.03"/>
          <site name="crank" pos="0.2 0.02 0"/>
        </body>
      </body>
    </body>
    <body name="c" pos="1 0 0.5">
      <joint name="hc" type="hinge" axis="1 0 0"/>
      <joint name="sc" type="slide" axis="0 0 1"/>
      <geom type="sphere" size="0.05"/>
      <site name="crank2" pos="0 0.3 0"/>
    </body>
  </worldbody>
  <actuator>
    <general cranksite="crank" slidersite="slider" cranklength="0.6" gear="2"/>
    <position cranksite="crank2" slidersite="s_world" cranklength="1.1" gear="1.5" kp="3" kv="0.5"/>
    <velocity cranksite="crank" slidersite="s_world" cranklength="1.7" kv="0.7"/>
  </actuator>
</mujoco>
"""

# site and refsite on bodies sharing ancestor dofs (common-chain columns cleared), refsite on the
# world, refsite on a different tree; translational, rotational and mixed 6D gears
REFSITE = """
<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <site name="ref" pos="0 0 1" euler="0 0 30"/>
    <body name="root" pos="0 0 1">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="rz" type="hinge" axis="0 0 1"/>
      <geom type="box" size="0.1 0.05 0.02"/>
      <site name="r_site" pos="0.05 0.02 0" euler="10 20 30"/>
      <body name="a" pos="0.2 0 0">
        <joint name="ba" type="ball" damping="0.05"/>
        <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02"/>
        <site name="eff_a" pos="0.2 0 0.01" euler="5 -10 40"/>
      </body>
      <body name="b" pos="-0.2 0 0">
        <joint name="hb" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 -0.2 0 0" size="0.02"/>
        <site name="eff_b" pos="-0.2 0 0" euler="0 30 0"/>
      </body>
    </body>
    <body name="free" pos="1 0 1">
      <freejoint/>
      <geom type="box" size="0.05 0.05 0.05"/>
      <site name="eff_f" pos="0.05 0 0"/>
    </body>
  </worldbody>
  <actuator>
    <general site="eff_a" refsite="ref" gear="1 0 0 0 0 0"/>
    <general site="eff_a" refsite="ref" gear="0 0 0 0 0 1"/>
    <general site="eff_a" refsite="eff_b" gear="0.5 -0.3 0.2 0.1 0.4 -0.2"/>
    <general site="eff_b" refsite="r_site" gear="0 1 0 0.3 0 0"/>
    <position site="eff_f" refsite="eff_a" gear="0 0 1 0 0 0" kp="2" kv="0.3"/>
    <general site="eff_f" refsite="ref" gear="0.2 0.1 0.3 0.5 0.1 -0.4" dyntype="filter" dynprm="0.1"/>
  </actuator>
</mujoco>
"""

MODELS = dict(slidercrank=SLIDERCRANK, refsite=REFSITE)


def load(name):
    m = mujoco.MjModel.from_xml_string(MODELS[name])
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT | mujoco.mjtDisableBit.mjDSBL_CONSTRAINT
    return m


def random_state(m, rng):
    qpos = random_qpos(m, rng, 0.5)
    return dict(
        qpos=qpos, qvel=rng.standard_normal(m.nv), ctrl=rng.uniform(-1.5, 1.5, m.nu), act=rng.uniform(-1, 1, m.na)
    )


def dense_moment(m, moment, rownnz, rowadr, colind):
    out = np.zeros((m.nu, m.nv))
    for i in range(m.nu):
        a = rowadr[i]
        for t in range(rownnz[i]):
            out[i, colind[a + t]] = moment[a + t]
    return out


def compare(ours, ref, what):
    ours = np.asarray(ours, dtype=float)
    ref = np.asarray(ref, dtype=float)
    assert ours.shape == ref.shape, f"{what}: shape {ours.shape} != {ref.shape}"
    if ref.size == 0:
        return 0.0
    scale = max(1.0, float(np.max(np.abs(ref))))
    err = np.abs(ours - ref)
    assert np.all(err <= RTOL * np.abs(ref) + ATOL * scale), f"{what}: max err {err.max():.3e}"
    return float(err.max() / scale)


FIELDS = ["actuator_length", "actuator_velocity", "actuator_force", "qfrc_actuator", "act_dot", "qacc"]


@pytest.mark.parametrize("name", list(MODELS))
def test_transmission_matches_mujoco(name):
    m = load(name)
    rng = np.random.default_rng(7)
    states = [random_state(m, rng) for _ in range(NSTATE)]
    b = batch_data(m, states)
    api.forward(m, b)
    ndet0 = 0
    worst = {}
    for i, st in enumerate(states):
        md = mujoco_forward(m, st)
        where = f"{name}[{i}]"
        for f in FIELDS:
            e = compare(getattr(b, f)[i], getattr(md, f), f"{where} {f}")
            worst[f] = max(worst.get(f, 0.0), e)
        for f in ("moment_rownnz", "moment_rowadr", "moment_colind"):
            np.testing.assert_array_equal(getattr(b, f)[i], getattr(md, f), err_msg=f"{where} {f}")
        worst["moment"] = max(
            worst.get("moment", 0.0),
            compare(
                dense_moment(m, b.actuator_moment[i], b.moment_rownnz[i], b.moment_rowadr[i], b.moment_colind[i]),
                dense_moment(m, md.actuator_moment, md.moment_rownnz, md.moment_rowadr, md.moment_colind),
                f"{where} dense moment",
            ),
        )
        if name == "slidercrank":
            # count states where the det <= 0 branch is taken by the short-rod actuator
            ids = m.actuator_trnid[1]
            v = md.site_xpos[ids[0]] - md.site_xpos[ids[1]]
            av = v @ md.site_xmat[ids[1]].reshape(3, 3)[:, 2]
            ndet0 += av * av + m.actuator_cranklength[1] ** 2 - v @ v <= 0
    print(name, " ".join(f"{k} {v:.1e}" for k, v in worst.items()))
    if name == "slidercrank":
        assert 0 < ndet0 < NSTATE, ndet0


def compare_trajectory(m, st, rng, nstep, ctrl_low, fields, label):
    """Step mujoco and sim side by side from state st under random controls in [ctrl_low, 1); assert fields
    stay within TRAJ_TOL (relative to max(1, |ref|)) at every step; return the worst relative error."""
    md = mujoco.MjData(m)
    d = api.Data(m)
    for k, v in st.items():
        getattr(md, k)[:] = v
        setattr(d, k, v)
    worst = 0.0
    for t in range(nstep):
        ctrl = rng.uniform(ctrl_low, 1, m.nu)
        md.ctrl[:] = ctrl
        d.ctrl = ctrl
        mujoco.mj_step(m, md)
        api.step(m, d, 1)
        for f in fields:
            ref = getattr(md, f)
            if not ref.size:
                continue
            err = np.abs(np.asarray(getattr(d, f)) - ref)
            scale = max(1.0, float(np.max(np.abs(ref))))
            worst = max(worst, float(err.max() / scale))
            assert np.all(err <= TRAJ_TOL * scale), f"{label} step {t} {f}: max err {err.max():.3e}"
    return worst


@pytest.mark.parametrize("name", list(MODELS))
def test_trajectory(name):
    m = load(name)
    rng = np.random.default_rng(11)
    st = random_state(m, rng)
    st["qvel"] *= 0.3
    worst = compare_trajectory(m, st, rng, 200, -1, ("qpos", "qvel", "act"), name)
    print(f"{name}: trajectory max rel err {worst:.2e}")


# ------------------------------------------------------------------------------------------------
# body transmission (adhesion actuators): the moment is minus the mean contact-normal Jacobian over the
# body's contacts: efc_J normal rows of included contacts (pyramidal: mean of the pyramid rows), and the
# normal-projected point Jacobian difference of contacts excluded in the margin-gap band.

# a box on the floor, a ball on the box (contacts between two moving bodies), a pad at the end of a
# hinge/slide arm, a body that never touches anything; contacts are detected below margin+gap (4 + 20 mm
# per pair) and included below the margin (4 mm): many contacts lie in the gap band (exclude = 1)
ADHESION = """
<mujoco>
  <option timestep="0.002" cone="{cone}"/>
  <default><geom condim="{condim}" margin="0.002" gap="0.01" friction="0.8 0.02 0.01"/></default>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="box" pos="0 0 0.05">
      <freejoint/>
      <geom type="box" size="0.1 0.08 0.05"/>
    </body>
    <body name="ball" pos="0.02 0.01 0.13">
      <freejoint/>
      <geom type="sphere" size="0.03"/>
    </body>
    <body name="arm" pos="0.6 0 0.35">
      <joint name="h1" type="hinge" axis="0 1 0" damping="0.2"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.2" size="0.02" contype="0" conaffinity="0"/>
      <body name="pad" pos="0 0 -0.3">
        <joint name="s1" type="slide" axis="0 0 1" damping="0.5"/>
        <geom type="sphere" size="0.05"/>
      </body>
    </body>
    <body name="float" pos="-1 0 1">
      <freejoint/>
      <geom type="sphere" size="0.05" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <actuator>
    <adhesion body="box" gain="5" ctrlrange="0 1"/>
    <adhesion body="pad" gain="3" ctrlrange="0 1"/>
    <adhesion body="float" gain="2" ctrlrange="0 1"/>
    <general body="ball" gear="2" gainprm="1.5" ctrlrange="0 1" ctrllimited="true"/>
    <motor joint="s1" gear="0.5" ctrlrange="-1 1"/>
  </actuator>
</mujoco>
"""

ADHESION_CASES = [(cone, condim) for cone in ("pyramidal", "elliptic") for condim in (1, 3, 4, 6)]


def load_adhesion(cone, condim):
    return mujoco.MjModel.from_xml_string(ADHESION.format(cone=cone, condim=condim))


def adhesion_state(m, rng):
    """Box within [-4, 12] mm of resting on the floor with a small tilt, ball on the box, pad near the floor."""
    qpos = m.qpos0.copy()
    tilt = 0.04 * rng.standard_normal(3)
    q = np.array([1.0, *(0.5 * tilt)])
    q /= np.linalg.norm(q)
    qpos[0:3] = [0.01 * rng.standard_normal(), 0.01 * rng.standard_normal(), 0.05 + rng.uniform(-0.004, 0.012)]
    qpos[3:7] = q
    qpos[7:10] = [
        qpos[0] + 0.03 * rng.standard_normal(),
        qpos[1] + 0.03 * rng.standard_normal(),
        qpos[2] + 0.08 + rng.uniform(-0.004, 0.012),
    ]
    q = rng.standard_normal(4)
    qpos[10:14] = q / np.linalg.norm(q)
    qpos[14] = 0.05 * rng.standard_normal()
    qpos[15] = rng.uniform(-0.004, 0.012)
    return dict(qpos=qpos, qvel=0.3 * rng.standard_normal(m.nv), ctrl=rng.uniform(0, 1, m.nu))


@pytest.mark.parametrize("cone,condim", ADHESION_CASES)
def test_body_transmission_matches_mujoco(cone, condim):
    m = load_adhesion(cone, condim)
    rng = np.random.default_rng(condim + (10 if cone == "elliptic" else 0))
    nstate = NSTATE
    states = [adhesion_state(m, rng) for _ in range(nstate)]
    b = api.Data(m, nworld=nstate)
    for k in states[0]:
        setattr(b, k, np.stack([s[k] for s in states]))
    api.forward(m, b)
    worst = {}
    nactive = ngap = 0
    box = m.body("box").id
    for i, st in enumerate(states):
        md = mujoco_forward(m, st)
        where = f"{cone}/condim{condim}[{i}]"
        assert b.ncon[i] == md.ncon and b.nefc[i] == md.nefc, where
        for f in (
            "actuator_length",
            "actuator_velocity",
            "actuator_force",
            "qfrc_actuator",
            "qfrc_passive",
            "qacc_smooth",
        ):
            worst[f] = max(worst.get(f, 0.0), compare(getattr(b, f)[i], getattr(md, f), f"{where} {f}"))
        for f in ("moment_rownnz", "moment_rowadr", "moment_colind"):
            np.testing.assert_array_equal(getattr(b, f)[i], getattr(md, f), err_msg=f"{where} {f}")
        worst["moment"] = max(
            worst.get("moment", 0.0),
            compare(
                dense_moment(m, b.actuator_moment[i], b.moment_rownnz[i], b.moment_rowadr[i], b.moment_colind[i]),
                dense_moment(m, md.actuator_moment, md.moment_rownnz, md.moment_rowadr, md.moment_colind),
                f"{where} dense moment",
            ),
        )
        # the contact solver runs MuJoCo's iterations on identical inputs: same tolerance as the rest
        for f in ("qacc", "efc_force"):
            worst[f] = max(
                worst.get(f, 0.0), compare(getattr(b, f)[i][: getattr(md, f).size], getattr(md, f), f"{where} {f}")
            )
        con = md.contact[: md.ncon]
        mine = (m.geom_bodyid[con.geom1] == box) | (m.geom_bodyid[con.geom2] == box)
        nactive += int(np.any(mine & (con.exclude == 0)))
        ngap += int(np.any(mine & (con.exclude == 1)))
    print(
        cone,
        condim,
        "states with box contacts",
        nactive,
        "with in-gap box contacts",
        ngap,
        " ".join(f"{k} {v:.1e}" for k, v in worst.items()),
    )
    # both kinds of box contact occur in the sample (the test is not vacuous)
    assert nactive > nstate // 4 and ngap > 0, (nactive, ngap)


@pytest.mark.parametrize("integrator", ["Euler", "RK4"])
@pytest.mark.parametrize("cone,condim", [("pyramidal", 4), ("elliptic", 3)])
def test_body_transmission_trajectory(cone, condim, integrator):
    """100 controlled steps with contacts (contacts appear and vanish; measured errors ~1e-14)."""
    m = load_adhesion(cone, condim)
    m.opt.integrator = getattr(mujoco.mjtIntegrator, "mjINT_" + integrator.upper())
    rng = np.random.default_rng(21)
    st = adhesion_state(m, rng)
    worst = compare_trajectory(m, st, rng, 100, 0, ("qpos", "qvel"), f"{cone}/{condim}")
    print(f"{cone}/{condim} {integrator}: trajectory max rel err {worst:.2e}")


def _sparse_adhesion_xml(cone):
    """11 free boxes on the floor (nv = 66: MuJoCo takes its sparse-Jacobian path), adhesion on six."""
    bodies = "".join(
        f'<body name="b{i}" pos="{0.3 * (i % 4)} {0.3 * (i // 4)} 0.05"><freejoint/>'
        f'<geom type="box" size="0.1 0.08 0.05"/></body>'
        for i in range(11)
    )
    acts = "".join(f'<adhesion body="b{i}" gain="{1 + i}" ctrlrange="0 1"/>' for i in range(0, 11, 2))
    return (
        f'<mujoco><option cone="{cone}"/><default><geom condim="4" margin="0.002" gap="0.01"/></default>'
        f'<worldbody><geom type="plane" size="5 5 .1"/>{bodies}</worldbody><actuator>{acts}</actuator>'
        f"</mujoco>"
    )


@pytest.mark.parametrize("cone", [pytest.param("pyramidal", marks=pytest.mark.full), "elliptic"])  # one compile
def test_body_transmission_sparse(cone):
    """nv >= 60: MuJoCo accumulates the moment from its sparse efc_J and sparse Jacobian differences."""
    m = mujoco.MjModel.from_xml_string(_sparse_adhesion_xml(cone))
    assert m.nv >= 60 and m.opt.jacobian == mujoco.mjtJacobian.mjJAC_AUTO
    rng = np.random.default_rng(1)
    ngap = 0
    for k in range(8):
        md = mujoco.MjData(m)
        q = m.qpos0.copy()
        for i in range(11):
            q[7 * i + 2] += rng.uniform(-0.004, 0.012)
            t = np.array([1.0, *(0.02 * rng.standard_normal(3))])
            q[7 * i + 3 : 7 * i + 7] = t / np.linalg.norm(t)
        md.qpos[:] = q
        md.qvel[:] = 0.3 * rng.standard_normal(m.nv)
        md.ctrl[:] = rng.uniform(0, 1, m.nu)
        mujoco.mj_forward(m, md)
        d = api.Data(m)
        d.qpos, d.qvel, d.ctrl = md.qpos, md.qvel, md.ctrl
        api.forward(m, d)
        assert d.ncon == md.ncon and d.nefc == md.nefc
        ngap += int(np.sum(md.contact.exclude[: md.ncon] == 1))
        for f in ("moment_rownnz", "moment_rowadr", "moment_colind"):
            np.testing.assert_array_equal(getattr(d, f), getattr(md, f), err_msg=f)
        for f in ("actuator_moment", "qfrc_actuator", "qacc"):
            compare(getattr(d, f)[: getattr(md, f).size], getattr(md, f), f"{cone}[{k}] {f}")
    assert ngap > 0


@pytest.mark.parametrize("integrator", ["IMPLICIT", "IMPLICITFAST"])
def test_body_transmission_implicit(integrator):
    """Implicit integrators: a velocity-dependent bias on a body transmission enters qDeriv via the moment."""
    m = load_adhesion("pyramidal", 3)
    m.opt.integrator = getattr(mujoco.mjtIntegrator, "mjINT_" + integrator)
    m.actuator_biastype[3] = mujoco.mjtBias.mjBIAS_AFFINE
    m.actuator_biasprm[3, :3] = [0.0, 0.3, -0.8]
    rng = np.random.default_rng(2)
    st = adhesion_state(m, rng)
    compare_trajectory(m, st, rng, 100, 0, ("qpos", "qvel"), integrator)
