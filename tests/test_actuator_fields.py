"""Position-like actuators against mujoco 3.17: the compiled Model (every field) and the forces at random states.

Two behaviours of 3.17 that numjoco had missed (issue 50):
* dampratio (mj_setConst): a position / intvelocity actuator's `dampratio` becomes biasprm[2] =
  -dampratio 2 sqrt(kp mass), the reflected inertia mass = 1 / (moment' M^-1 moment) at qpos0 (0 below mjMINVAL).
  numjoco had summed dof_M0 / moment^2 per dof (MuJoCo's older rule, 1/dof_invweight0 in our kernel), which equals
  3.17's only when the moment touches a single dof: off by a factor 4.6 on MuJoCo's tendon_dampratio.xml and 4.1
  on refsite.xml (biasprm[2] -21.7 for -4.7, -16.9 for -4.1).
* setpoints on the circle (mj_fwdActuation's wrapPeriod / wrapSetpoint, mj_advance): a servo (fixed gain, affine
  bias with kp = -biasprm[1], dyntype none or integrator) on a site transmission with a refsite and purely
  rotational gear, or on a ball joint, uses the representative of its setpoint (ctrl or act, modulo
  2 pi |gear|) nearest the actuator length; mj_advance stores an integrator's act that way.  Without it
  actuator_force was off by up to 4 (relative) on MuJoCo's refsite_free.xml at random states.

The models are MuJoCo's own test models (test/engine/testdata/actuation: refsite.xml, refsite_free.xml,
tendon_dampratio.xml, dampratio.xml, copied here) and one of ours with refsite actuators on every joint type
(hinge, slide, ball, free) and dampratio through joints, fixed and spatial tendons and refsites.  --full adds
randomly generated models (random trees, joint types, tendons, gears, site pairs).
"""

import os

import mujoco
import numpy as np
import pytest

import sim
import sim.jit.cache  # noqa: F401  (must precede jitted modules)
from sim import api

import oracle
from dynamics_util import batch_data, mujoco_forward

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")

# every joint type under a refsite actuator (site on the moving body, refsite elsewhere: world, a parent, another
# tree), translational / rotational / mixed gears; position servos (wrapped when purely rotational), intvelocity
# (act wrapped), a filter servo and a mismatched-kp servo (never wrapped); dampratio on joints (hinge, slide,
# ball with a 3-vector gear), a fixed tendon over three dofs, a spatial tendon and refsites
ALL_JOINTS = """
<mujoco>
  <option timestep="0.002">
    <flag contact="disable" gravity="disable"/>
  </option>
  <default><joint armature="0.01" damping="0.05"/></default>
  <worldbody>
    <site name="ref" pos="0 0 1" euler="0 0 30"/>
    <body name="h" pos="0 0 1">
      <joint name="hinge" axis="0 1 1"/>
      <geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/>
      <site name="s_h" pos=".3 0 0" euler="10 20 30"/>
      <body name="sl" pos=".3 0 0">
        <joint name="slide" type="slide" axis="1 0 1"/>
        <geom type="box" size=".05 .04 .03"/>
        <site name="s_sl" pos=".05 .02 0" euler="-20 0 15"/>
        <body name="ba" pos=".1 0 0">
          <joint name="ball" type="ball"/>
          <geom type="capsule" fromto="0 0 0 0 0 -.25" size=".02"/>
          <site name="s_ba" pos="0 .01 -.25" quat="0.9 0.1 0.3 -0.2"/>
        </body>
      </body>
    </body>
    <body name="fr" pos="1 0 1" euler="30 0 0">
      <freejoint name="free"/>
      <geom type="box" size=".1 .05 .08" mass="2"/>
      <site name="s_fr" pos=".1 0 .02" euler="0 40 0"/>
      <body name="fr2" pos="0 0 -.2">
        <joint name="hinge2" axis="1 0 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -.2" size=".02"/>
        <site name="s_fr2" pos="0 0 -.2"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="fixed">
      <joint joint="hinge" coef="1"/>
      <joint joint="slide" coef="-.5"/>
      <joint joint="hinge2" coef=".25"/>
    </fixed>
    <spatial name="spatial">
      <site site="s_h"/>
      <site site="s_fr2"/>
    </spatial>
  </tendon>
  <actuator>
    <position name="h_rot" site="s_h" refsite="ref" gear="0 0 0 0 .6 .8" kp="4" dampratio=".7"/>
    <position name="h_mix" site="s_h" refsite="ref" gear="1 0 0 0 0 1" kp="3" kv=".2"/>
    <position name="sl_tr" site="s_sl" refsite="s_h" gear="0 1 0 0 0 0" kp="5" dampratio="1.2"/>
    <position name="ba_rot" site="s_ba" refsite="s_sl" gear="0 0 0 .3 -.2 .5" kp="2" dampratio="1"/>
    <intvelocity name="ba_int" site="s_ba" refsite="ref" gear="0 0 0 0 0 .5" kp="2" dampratio=".5"/>
    <position name="fr_rot" site="s_fr" refsite="ref" gear="0 0 0 1 0 0" kp="6" dampratio=".9"/>
    <position name="fr_mix" site="s_fr2" refsite="s_fr" gear=".2 .1 .3 .5 .1 -.4" kp="2" dampratio="1"/>
    <position name="fr_world" site="s_fr" refsite="s_ba" gear="0 0 1 0 0 0" kp="3" dampratio="2"/>
    <general name="filter_rot" site="s_fr" refsite="ref" gear="0 0 0 0 1 0" gainprm="2" biastype="affine"
             biasprm="0 -2 -.1" dyntype="filter" dynprm=".05"/>
    <general name="kp_mismatch" site="s_h" refsite="ref" gear="0 0 0 1 0 0" gainprm="2" biastype="affine"
             biasprm="0 -2.5 -.1"/>
    <position name="j_hinge" joint="hinge" gear="2" kp="10" dampratio=".5"/>
    <position name="j_slide" joint="slide" kp="10" dampratio="1"/>
    <position name="j_ball" joint="ball" gear=".3 .4 1.2" kp="3" dampratio="1"/>
    <intvelocity name="j_ball_int" joint="ball" gear="0 1 0" kp="3" dampratio=".3"/>
    <position name="t_fixed" tendon="fixed" kp="20" dampratio="1"/>
    <position name="t_spatial" tendon="spatial" kp="20" dampratio=".6"/>
    <intvelocity name="t_fixed_int" tendon="fixed" kp="8" dampratio="1.5"/>
  </actuator>
</mujoco>
"""

# MuJoCo's test models (test/engine/testdata/actuation), as shipped in its repository
MUJOCO_FILES = ["actuation_refsite.xml", "actuation_refsite_free.xml", "actuation_tendon_dampratio.xml"]

NSTATE = 12
RTOL = 1e-9
ATOL = 1e-12


def _paths():
    return [pytest.param(os.path.join(MODELS, f), id=f) for f in MUJOCO_FILES]


def _pair(path_or_xml):
    if path_or_xml.lstrip().startswith("<"):
        return sim.load_model(path_or_xml), mujoco.MjModel.from_xml_string(path_or_xml)
    return sim.load_model(path_or_xml), mujoco.MjModel.from_xml_path(path_or_xml)


def _random_states(m, rng, n):
    """Random qpos / qvel / act and controls beyond +-pi |gear| (the wrapped setpoints need them)."""
    out = []
    for _ in range(n):
        out.append(
            dict(
                qpos=oracle.random_qpos(m, rng, 0.8),
                qvel=rng.standard_normal(m.nv),
                ctrl=rng.uniform(-8, 8, m.nu),
                act=rng.uniform(-8, 8, m.na),
            )
        )
    return out


def _dense_moment(m, d, i=None):
    """(nu, nv) actuator_moment of mujoco's MjData or world i of ours."""
    out = np.zeros((m.nu, m.nv))
    if i is None:
        mom, nnz, adr, col = d.actuator_moment, d.moment_rownnz, d.moment_rowadr, d.moment_colind
    else:
        mom, nnz, adr, col = d.actuator_moment[i], d.moment_rownnz[i], d.moment_rowadr[i], d.moment_colind[i]
    for a in range(m.nu):
        for k in range(adr[a], adr[a] + nnz[a]):
            out[a, col[k]] = mom[k]
    return out


def _close(ours, ref, what):
    ours = np.asarray(ours, np.float64)
    err = np.abs(ours - ref)
    bound = RTOL * np.abs(ref) + ATOL * max(1.0, float(np.max(np.abs(ref), initial=0.0)))
    assert np.all(err <= bound), f"{what}: max abs err {err.max():.3e} (|ref| max {np.abs(ref).max():.3g})"


def check_forces(om, m, states):
    """actuator_length / moment / velocity / force, qfrc_actuator, act_dot, qacc of our Model om and mujoco's m
    agree at every state; returns how many (state, actuator) pairs had their setpoint wrapped by mujoco."""
    b = batch_data(om, states)
    api.forward(om, b)
    wrapped = 0
    for i, st in enumerate(states):
        md = mujoco_forward(m, st)
        where = f"state {i}"
        for f in ("actuator_length", "actuator_velocity", "actuator_force", "qfrc_actuator", "act_dot", "qacc"):
            _close(getattr(b, f)[i], getattr(md, f), f"{where} {f}")
        _close(_dense_moment(m, b, i), _dense_moment(m, md), f"{where} actuator_moment")
        # count the actuators whose force differs from the unwrapped servo formula (the wrap is exercised)
        for a in range(m.nu):
            if m.actuator_biastype[a] != mujoco.mjtBias.mjBIAS_AFFINE:
                continue
            u = md.act[m.actuator_actadr[a]] if m.actuator_actadr[a] >= 0 else md.ctrl[a]
            if m.actuator_ctrllimited[a] and m.actuator_actadr[a] < 0:
                u = np.clip(u, *m.actuator_ctrlrange[a])
            bp = m.actuator_biasprm[a]
            plain = (
                m.actuator_gainprm[a, 0] * u + bp[0] + bp[1] * md.actuator_length[a] + bp[2] * md.actuator_velocity[a]
            )
            wrapped += abs(plain - md.actuator_force[a]) > 1e-9 * max(1.0, abs(plain))
    return wrapped


@pytest.mark.oracle
@pytest.mark.compiler
@pytest.mark.parametrize("path", _paths())
def test_mujoco_actuation_models_fields(path):
    """MuJoCo's refsite / refsite_free / tendon_dampratio models compile to mujoco's Model, every field."""
    om, m = _pair(path)
    oracle.assert_models_match(om, m, label=os.path.basename(path))


@pytest.mark.oracle
@pytest.mark.parametrize("path", _paths())
def test_mujoco_actuation_models_forces(path):
    """Forces of those models at random states (controls beyond half a turn of the rotational servos)."""
    om, m = _pair(path)
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONSTRAINT
    om.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONSTRAINT
    check_forces(om, m, _random_states(m, np.random.default_rng(3), NSTATE))


@pytest.mark.oracle
@pytest.mark.compiler
def test_all_joint_types_fields_and_forces():
    """Refsite actuators on every joint type and dampratio through joints, tendons and refsites: every Model
    field, then forces at random states, with setpoints wrapped by mujoco at some of them."""
    om, m = _pair(ALL_JOINTS)
    oracle.assert_models_match(om, m, label="all_joints")
    # the compiled dampratios are real (not all 0): position-like actuators with dampratio get biasprm[2] < 0
    assert np.all(m.actuator_biasprm[[0, 2, 3, 5, 10, 11, 12, 14, 15], 2] < 0)
    wrapped = check_forces(om, m, _random_states(m, np.random.default_rng(5), NSTATE))
    assert wrapped >= NSTATE, f"only {wrapped} wrapped setpoints: the states do not exercise wrapPeriod"


@pytest.mark.oracle
@pytest.mark.parametrize("integrator", ["Euler", "RK4", "implicitfast"])
def test_all_joint_types_trajectory(integrator):
    """50 steps side by side from a random state: qpos, qvel and act (mj_advance's wrap of integrated rotational
    setpoints) follow mujoco's."""
    om, m = _pair(ALL_JOINTS.replace('timestep="0.002"', f'timestep="0.002" integrator="{integrator}"'))
    rng = np.random.default_rng(9)
    st = _random_states(m, rng, 1)[0]
    st["qvel"] *= 0.3
    md = mujoco.MjData(m)
    d = api.Data(om)
    for k, v in st.items():
        getattr(md, k)[:] = v
        setattr(d, k, v)
    for t in range(50):
        ctrl = rng.uniform(-8, 8, m.nu)
        md.ctrl[:] = ctrl
        d.ctrl = ctrl
        mujoco.mj_step(m, md)
        api.step(om, d)
        for f in ("qpos", "qvel", "act"):
            ref = getattr(md, f)
            err = np.abs(np.asarray(getattr(d, f)) - ref)
            assert np.all(err <= 1e-8 * max(1.0, np.abs(ref).max())), f"{integrator} step {t} {f}: {err.max():.3e}"


@pytest.mark.oracle
def test_dampratio_below_minval():
    """A moment whose reflected inverse inertia is below mjMINVAL compiles to zero damping (-0.0) as in mujoco;
    just above it, to the full value."""
    for gear in (3.163e-8, 3.162e-8, 0.0):
        xml = f"""<mujoco><worldbody><body><joint name="j" type="slide"/><geom size=".1" mass="1"/></body>
        </worldbody><actuator><position joint="j" gear="{gear}" kp="2" dampratio="1"/></actuator></mujoco>"""
        om, m = _pair(xml)
        assert om.actuator_biasprm[0, 2] == m.actuator_biasprm[0, 2], gear


def _random_model(seed):
    """A random tree (hinge / slide / ball / free joints) with dampratio servos on joints, a fixed and a spatial
    tendon, and refsite actuators between random sites with random sparse gears."""
    rng = np.random.default_rng(seed)
    joints, sites = [], []

    def body(depth, name):
        s = (
            f'<body name="{name}" pos="{rng.uniform(-0.3, 0.3):.3f} {rng.uniform(-0.3, 0.3):.3f} '
            f'{rng.uniform(-0.3, 0.3):.3f}" euler="{rng.uniform(-90, 90):.1f} {rng.uniform(-90, 90):.1f} 0">'
        )
        if depth == 0 and rng.random() < 0.4:
            s += f'<freejoint name="{name}_f"/>'
        else:
            for k in range(rng.integers(1, 3)):
                t = ("hinge", "slide", "ball")[rng.integers(0, 3)]
                jn = f"{name}_j{k}"
                s += (
                    f'<joint name="{jn}" type="{t}" axis="{rng.uniform(-1, 1):.2f} {rng.uniform(-1, 1):.2f} 1" '
                    f'armature="{rng.uniform(0, 0.1):.3f}"/>'
                )
                joints.append((jn, t))
                if t == "ball":  # MuJoCo refuses a joint after a ball joint in the same body
                    break
        s += f'<geom type="capsule" size=".05" fromto="0 0 0 {rng.uniform(-0.3, 0.3):.2f} .1 .2" mass="{rng.uniform(0.1, 2):.2f}"/>'
        s += f'<site name="{name}_s" pos=".1 .02 .03" euler="10 {rng.uniform(-90, 90):.0f} 30"/>'
        sites.append(f"{name}_s")
        if depth < 3:
            for c in range(rng.integers(1, 3)):
                s += body(depth + 1, f"{name}{c}")
        return s + "</body>"

    wb = "".join(body(0, f"b{i}") for i in range(2))
    acts = []
    tendon = ""
    scalar = [j for j, t in joints if t != "ball"]
    if len(scalar) >= 3:
        sel = rng.choice(scalar, 3, replace=False)
        tendon = (
            '<tendon><fixed name="t0">'
            + "".join(f'<joint joint="{j}" coef="{rng.uniform(-2, 2):.2f}"/>' for j in sel)
            + f'</fixed><spatial name="t1"><site site="{sites[0]}"/><site site="{sites[-1]}"/></spatial></tendon>'
        )
        for t in ("t0", "t1"):
            acts.append(f'<position tendon="{t}" kp="{rng.uniform(1, 50):.2f}" dampratio="{rng.uniform(0.1, 2):.2f}"/>')
    for j, t in joints[:6]:
        g = f"{rng.uniform(0.2, 3):.2f}" if t != "ball" else " ".join(f"{x:.2f}" for x in rng.uniform(-1, 1, 3))
        acts.append(
            f'<position joint="{j}" gear="{g}" kp="{rng.uniform(1, 50):.2f}" dampratio="{rng.uniform(0.1, 2):.2f}"/>'
        )
    for _ in range(4):
        a, b = rng.choice(len(sites), 2, replace=False)
        gear = " ".join(f"{x:.2f}" for x in rng.uniform(-1, 1, 6) * (rng.random(6) < 0.5))
        for kind in ("position", "intvelocity"):
            acts.append(
                f'<{kind} site="{sites[a]}" refsite="{sites[b]}" gear="{gear}" kp="{rng.uniform(1, 50):.2f}" '
                f'dampratio="{rng.uniform(0.1, 2):.2f}"/>'
            )
    return (
        '<mujoco><option><flag contact="disable"/></option>'
        f"<worldbody>{wb}</worldbody>{tendon}<actuator>{''.join(acts)}</actuator></mujoco>"
    )


@pytest.mark.full
@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(40))
def test_random_models(seed):
    """Random trees with dampratio and refsite servos: every Model field, then forces at random states."""
    om, m = _pair(_random_model(seed))
    oracle.assert_models_match(om, m, label=f"random {seed}")
    check_forces(om, m, _random_states(m, np.random.default_rng(seed), 4))


def test_random_model_smoke():
    """One random model in the default set (the generator itself stays valid for mujoco)."""
    om, m = _pair(_random_model(1000))
    oracle.assert_models_match(om, m, label="random 1000")
    check_forces(om, m, _random_states(m, np.random.default_rng(0), 3))
