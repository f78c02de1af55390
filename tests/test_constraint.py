"""Constraint assembly (make_constraint / reference_constraint) against MuJoCo's efc_* rows.

Collision is not run on our side: mujoco's contacts (after mj_forward) are copied into our contact buffer and
our position/velocity stages run with collision skipped (the @njit driver below), then every efc field is
compared.  Tolerance: |ours - mujoco| <= 1e-9*|mujoco| + 1e-12*max(1, max|field|) (as tests/test_smooth.py:
entries that cancel to ~0 carry round-off proportional to the summed terms); integer fields exactly.
"""

import os

import mujoco
import numpy as np
import pytest

# sim.jit's njit: a plain numba dispatcher that calls kernels compiled lazily as callees of another entry (the
# compiler's smooth_position, compiled by any earlier model load in the process) segfaulted (sim/jit/codegen.py)
from sim.jit import njit

from oracle import dense_efc_J as dense_J
import sim.jit.cache  # noqa: F401  (must precede jitted modules)
from sim import api
from sim.engine.kinematics import kinematics
from sim.engine.com import com_pos, com_vel
from sim.engine.tendon import tendon, tendon_velocity
from sim.engine.crb import crb, factor_m
from sim.engine.transmission import transmission, actuator_velocity
from sim.engine.passive import passive
from sim.engine.constraint import make_constraint, project_constraint, reference_constraint
from sim.types import CONTACT_FIELDS, CONTACT_INT_FIELDS
from sim.constants import WARN_CNSTRFULL
from sim.jit.features import FULL

RTOL = 1e-9
ATOL = 1e-12
NSTATE = 20

try:
    import gymnasium

    ASSETS = os.path.join(os.path.dirname(gymnasium.__file__), "envs/mujoco/assets")
except ImportError:  # pragma: no cover
    ASSETS = None


@njit(cache=True)
def _drive(m, d):
    """fwd_position without collision, then the velocity stages (sim/engine/forward.py order), world 0."""
    w = 0
    kinematics(m, d, w)
    com_pos(m, d, w)
    tendon(m, d, w)
    crb(m, d, w)
    factor_m(m, d, w)
    make_constraint(m, d, w, FULL)
    transmission(m, d, w, FULL)
    project_constraint(m, d, w)
    tendon_velocity(m, d, w)
    actuator_velocity(m, d, w)
    com_vel(m, d, w)
    passive(m, d, w, FULL)
    reference_constraint(m, d, w, FULL)


EQUALITY = """
<mujoco>
  <option timestep="0.004"/>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="ja" type="ball"/>
      <geom type="capsule" size=".05" fromto="0 0 0 .4 0 0"/>
      <site name="sa" pos=".4 0 0" quat="0.9 0.1 0.3 0.2"/>
      <body name="b" pos=".4 0 0">
        <joint name="jb" type="hinge" axis="0 1 0"/>
        <geom type="capsule" size=".05" fromto="0 0 0 .4 0 0"/>
        <site name="sb" pos=".4 0 0"/>
        <body name="b2" pos=".4 0 0">
          <joint name="jb2" type="slide" axis="1 0 0"/>
          <geom size=".05"/>
        </body>
      </body>
    </body>
    <body name="c" pos="1 0 1">
      <freejoint/>
      <geom type="box" size=".1 .1 .1"/>
      <site name="sc" pos=".1 .05 0" quat="0.8 0.2 0.1 0.5"/>
    </body>
    <body name="e" pos="0 1 1">
      <joint name="je1" type="hinge" axis="1 0 0"/>
      <geom size=".1" pos="0 0 -.3"/>
      <body pos="0 0 -.3">
        <joint name="je2" type="hinge" axis="0 1 0"/>
        <geom size=".1" pos="0 0 -.3"/>
      </body>
    </body>
    <site name="sw" pos="0 2 1"/>
  </worldbody>
  <tendon>
    <fixed name="t1"><joint joint="je1" coef="1"/><joint joint="je2" coef="-0.5"/></fixed>
    <spatial name="t2"><site site="sa"/><site site="sc"/></spatial>
    <spatial name="t3"><site site="sb"/><site site="sw"/></spatial>
  </tendon>
  <equality>
    <connect body1="b" body2="c" anchor=".5 0 0"/>
    <connect site1="sb" site2="sc" solref="-500 -20"/>
    <weld body1="a" body2="c" relpose=".5 .1 0 0.9 0.1 0.2 0.3" torquescale="0.7"/>
    <weld site1="sa" site2="sc" solimp="0.8 0.95 0.01 0.3 3"/>
    <weld body1="b2"/>
    <joint joint1="je1" joint2="je2" polycoef="0.1 0.5 0.2 -0.3 0.05"/>
    <joint joint1="jb" polycoef="0.2 0 0 0 0"/>
    <joint joint1="jb2" joint2="je1" polycoef="0 1 0 0 0" active="false"/>
    <tendon tendon1="t2" tendon2="t1" polycoef="0.05 0.4 -0.1 0.2 0.1" solref="0.001 0.5"/>
    <tendon tendon1="t3" polycoef="0.1 0 0 0 0"/>
  </equality>
</mujoco>"""

LIMITS = """
<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="ball" type="ball" range="0 0.6" margin="0.05" frictionloss="0.3"/>
      <geom type="capsule" size=".05" fromto="0 0 0 0 0 -.4"/>
      <site name="s1" pos="0 0.05 -.2"/>
      <body pos="0 0 -.4">
        <joint name="h" type="hinge" axis="0 1 0" range="-0.5 0.4" margin="0.1" frictionloss="0.2"
               solreflimit="-1000 -30" solimplimit="0.5 0.99 0.05 0.4 1"/>
        <geom size=".1" pos="0 0 -.2"/>
        <site name="s2" pos="0 0 -.2"/>
        <body pos="0 0 -.3">
          <joint name="s" type="slide" axis="1 0 0" range="-0.2 0.3" solreflimit="0.001 2"
                 solimplimit="0.7 0.9 0.2 0.6 4" frictionloss="0.1" solreffriction="0.05 0.5"/>
          <geom size=".1"/>
          <site name="s3" pos=".1 0 0"/>
        </body>
      </body>
    </body>
    <body name="f" pos="1 0 1">
      <freejoint/>
      <geom size=".1"/>
      <site name="s4"/>
    </body>
    <site name="s0" pos="0 0 1.5"/>
  </worldbody>
  <tendon>
    <fixed name="tf" range="-0.3 0.2" limited="true" margin="0.02" frictionloss="0.4">
      <joint joint="h" coef="1"/><joint joint="s" coef="2"/>
    </fixed>
    <spatial name="ts" range="0.5 1.1" limited="true" frictionloss="0.2" solreflimit="0.03 0.8">
      <site site="s0"/><site site="s1"/><site site="s3"/><site site="s4"/>
    </spatial>
  </tendon>
</mujoco>"""


def _contacts_xml(cone, condims=(1, 3, 4, 6)):
    """Free boxes / spheres / capsules / ellipsoids resting on a plane and on each other."""
    geoms = []
    shapes = [
        ("box", ".1 .08 .06"),
        ("sphere", ".08"),
        ("capsule", ".05 .08"),
        ("ellipsoid", ".1 .07 .05"),
        ("cylinder", ".07 .05"),
        ("box", ".06 .06 .06"),
    ]
    half = [0.06, 0.08, 0.13, 0.05, 0.05, 0.06]
    for k, (typ, size) in enumerate(shapes):
        cd = condims[k % len(condims)]
        h = half[k]
        x = 0.25 * (k % 3)
        y = 0.25 * (k // 3)
        geoms.append(
            f'<body pos="{x} {y} {h}"><freejoint/><geom type="{typ}" size="{size}" condim="{cd}" '
            f'friction="{0.5 + 0.1 * k} {0.01 * (k + 1)} {0.002 * (k + 1)}" margin="{0.01 * (k % 2)}" '
            f'gap="{0.004 * (k % 3 == 2)}"/></body>'
            f'<body pos="{x} {y} {2 * h + 0.07}"><freejoint/><geom type="box" size=".07 .07 .07" condim="{cd}"/>'
            f"</body>"
        )
    return f"""
<mujoco>
  <option cone="{cone}" impratio="{1.7 if cone == "elliptic" else 1.0}"/>
  <worldbody>
    <geom type="plane" size="2 2 .1" condim="3" solref="0.015 0.9" solimp="0.85 0.97 0.002 0.4 2.5"/>
    {"".join(geoms)}
  </worldbody>
</mujoco>"""


PAIRS = """
<mujoco>
  <option cone="elliptic" impratio="3"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 .1"/>
    <body pos="0 0 .1"><freejoint/><geom name="b1" type="box" size=".1 .1 .1"/></body>
    <body pos=".5 0 .1"><freejoint/><geom name="s1" type="sphere" size=".1"/></body>
    <body pos="1 0 .1">
      <joint type="hinge" axis="0 1 0"/><joint type="slide" axis="0 0 1"/>
      <geom name="c1" type="capsule" size=".05 .2" euler="0 90 0"/>
    </body>
  </worldbody>
  <contact>
    <pair geom1="floor" geom2="b1" condim="6" solreffriction="0.05 0.3" friction="0.9 0.8 0.02 0.003 0.004"/>
    <pair geom1="floor" geom2="s1" condim="4" solreffriction="-200 -10" margin="0.02" gap="0.01"/>
    <pair geom1="floor" geom2="c1" condim="3" solref="-3000 -40"/>
  </contact>
</mujoco>"""

MODELS = {
    "equality": EQUALITY,
    "limits": LIMITS,
    "contact_pyramidal": _contacts_xml("pyramidal"),
    "contact_elliptic": _contacts_xml("elliptic"),
    "pairs": PAIRS,
    "override": _contacts_xml("pyramidal"),
    "box_stack": """
<mujoco>
  <worldbody>
    <geom type="plane" size="2 2 .1"/>
    """
    + "".join(
        f'<body pos="0 0 {0.1 + 0.2 * k}"><freejoint/><geom type="box" size=".1 .1 .1"/></body>' for k in range(5)
    )
    + """
  </worldbody>
</mujoco>""",
}
GYM = ["hopper", "walker2d", "ant", "humanoid"]


def load(name):
    if name in MODELS:
        m = mujoco.MjModel.from_xml_string(MODELS[name])
        if name == "override":
            m.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_OVERRIDE
            m.opt.o_margin = 0.02
            m.opt.o_solref = [0.03, 0.7]
            m.opt.o_solimp = [0.8, 0.9, 0.01, 0.5, 2]
            m.opt.o_friction = [0.7, 0.6, 0.01, 0.001, 0.002]
        return m
    if ASSETS is None:
        pytest.skip("gymnasium not installed")
    return mujoco.MjModel.from_xml_path(os.path.join(ASSETS, name + ".xml"))


def random_states(m, n, seed, drop=False):
    """Random (qpos, qvel, eq_active): joints pushed past their limits, free bodies jittered near qpos0
    (drop: free bodies also lowered towards the floor and tilted, for many contacts)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        qpos = m.qpos0.copy()
        for j in range(m.njnt):
            adr = m.jnt_qposadr[j]
            t = m.jnt_type[j]
            if t == mujoco.mjtJoint.mjJNT_FREE:
                qpos[adr : adr + 3] += 0.03 * rng.standard_normal(3)
                if drop:
                    qpos[adr + 2] *= rng.uniform(0.15, 1.0)
                q = np.array([1, 0, 0, 0]) + (0.5 if drop else 0.15) * rng.standard_normal(4)
                qpos[adr + 3 : adr + 7] = q / np.linalg.norm(q)
            elif t == mujoco.mjtJoint.mjJNT_BALL:
                q = np.array([1, 0, 0, 0]) + 0.5 * rng.standard_normal(4)
                qpos[adr : adr + 4] = q / np.linalg.norm(q)
            else:
                lo, hi = m.jnt_range[j] if m.jnt_limited[j] else (-1.0, 1.0)
                qpos[adr] = rng.uniform(lo - 0.2, hi + 0.2)
        act = (rng.random(m.neq) < 0.8).astype(np.uint8) if m.neq else np.zeros(0, np.uint8)
        out.append(dict(qpos=qpos, qvel=rng.standard_normal(m.nv), eq_active=act))
    return out


def compare(ours, ref, name, where):
    ours = np.asarray(ours, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    assert ours.shape == ref.shape, f"{where} {name}: shape {ours.shape} != {ref.shape}"
    if ref.size == 0:
        return 0.0
    scale = max(1.0, float(np.max(np.abs(ref))))
    err = np.abs(ours - ref)
    bad = err > RTOL * np.abs(ref) + ATOL * scale
    assert not np.any(bad), (
        f"{where} {name}: max err {err.max():.3e} at {np.argmax(err)} "
        f"(ours {ours.flat[np.argmax(err)]!r}, mujoco {ref.flat[np.argmax(err)]!r})"
    )
    return float(np.max(err / np.maximum(np.abs(ref), scale * 1e-3)))


FLOAT_FIELDS = ["efc_pos", "efc_margin", "efc_frictionloss", "efc_diagA", "efc_D", "efc_R", "efc_vel", "efc_aref"]


def run_case(m, states, where, njmax=None):
    """Compare every efc field for each state; return {field: max relative error}."""
    ms = api.model_struct(m)  # contacts injected from mujoco
    ncmax = 400
    d = api.Data(m, nconmax=ncmax, njmax=njmax)
    a = d._arrays
    md = mujoco.MjData(m)
    errs = {}
    for k, st in enumerate(states):
        md.qpos[:] = st["qpos"]
        md.qvel[:] = st["qvel"]
        md.eq_active[:] = st["eq_active"]
        mujoco.mj_forward(m, md)
        a["qpos"][0] = st["qpos"]
        a["qvel"][0] = st["qvel"]
        a["eq_active"][0] = st["eq_active"]
        n = md.ncon
        assert n <= ncmax
        a["ncon"][0] = n
        for f, _ in CONTACT_FIELDS + CONTACT_INT_FIELDS:
            v = np.asarray(getattr(md.contact, f))
            a["contact_" + f][0, :n] = v.reshape((n,) + a["contact_" + f].shape[2:])
            a["contact_efc_address"][0, :n] = -7  # must be overwritten
        a["contact_mu"][0, :n] = 0.0
        _drive(ms, d._struct)
        w = f"{where} state {k}"
        nefc = md.nefc
        for f in ("ne", "nf", "nl", "nefc"):
            assert int(a[f][0]) == int(getattr(md, f)), f"{w} {f}: {int(a[f][0])} != {int(getattr(md, f))}"
        np.testing.assert_array_equal(a["efc_type"][0, :nefc], md.efc_type, err_msg=w + " efc_type")
        np.testing.assert_array_equal(a["efc_id"][0, :nefc], md.efc_id, err_msg=w + " efc_id")
        np.testing.assert_array_equal(
            a["contact_efc_address"][0, :n], md.contact.efc_address, err_msg=w + " contact_efc_address"
        )
        np.testing.assert_array_equal(a["tendon_efcadr"][0], md.tendon_efcadr, err_msg=w + " tendon_efcadr")
        pairs = [
            ("efc_J", a["efc_J"][0, :nefc], dense_J(m, md)),
            ("efc_KBIP", a["efc_KBIP"][0, :nefc], np.asarray(md.efc_KBIP).reshape(nefc, 4)),
            ("contact_mu", a["contact_mu"][0, :n], md.contact.mu),
        ]
        pairs += [(f, a[f][0, :nefc], getattr(md, f)) for f in FLOAT_FIELDS]
        for f, ours, ref in pairs:
            errs[f] = max(errs.get(f, 0.0), compare(ours, ref, f, w))
        errs["nefc_max"] = max(errs.get("nefc_max", 0), nefc)
    return errs


@pytest.mark.parametrize("name", list(MODELS) + GYM)
def test_constraints_match_mujoco(name):
    m = load(name)
    errs = run_case(m, random_states(m, NSTATE, 7, drop=name in GYM), name)
    assert errs["nefc_max"] > 0, f"{name}: no constraint rows in any state (test does not exercise anything)"
    print(name, {k: (f"{v:.1e}" if isinstance(v, float) else v) for k, v in errs.items()})


@pytest.mark.parametrize(
    "variant",
    [
        "sparse",
        "dense",
        "diagexact",
        "refsafe",
        "dsbl_equality",
        "dsbl_frictionloss",
        "dsbl_limit",
        "dsbl_contact",
        "dsbl_constraint",
    ],
)
@pytest.mark.parametrize("name", ["equality", "limits", "contact_pyramidal", "contact_elliptic", "pairs", "humanoid"])
def test_option_variants(name, variant):
    m = load(name)
    D = mujoco.mjtDisableBit
    if variant == "sparse":
        m.opt.jacobian = mujoco.mjtJacobian.mjJAC_SPARSE
    elif variant == "dense":
        m.opt.jacobian = mujoco.mjtJacobian.mjJAC_DENSE
    elif variant == "diagexact":
        m.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_DIAGEXACT
    elif variant == "refsafe":
        m.opt.disableflags |= D.mjDSBL_REFSAFE
        m.opt.timestep = 0.03  # 2*timestep clamp would bite without the flag
    else:
        m.opt.disableflags |= getattr(D, "mjDSBL_" + variant[5:].upper())
    run_case(m, random_states(m, 6, 11, drop=name in GYM), f"{name}/{variant}")


def test_timestep_clamp():
    """solref timeconst below 2*timestep is clamped (integrator safety) unless DSBL_REFSAFE."""
    m = load("limits")
    m.opt.timestep = 0.02
    run_case(m, random_states(m, 6, 3), "limits/clamp")


def test_efc_overflow_drops_all_rows():
    """More rows than njmax: MuJoCo-style CNSTRFULL warning and no rows at all, never out of bounds."""
    m = load("box_stack")
    ms = api.model_struct(m)  # contacts injected from mujoco
    d = api.Data(m, nconmax=100, njmax=5)
    md = mujoco.MjData(m)
    mujoco.mj_forward(m, md)
    assert md.nefc > 5
    a = d._arrays
    a["qpos"][0] = md.qpos
    n = md.ncon
    a["ncon"][0] = n
    for f, _ in CONTACT_FIELDS + CONTACT_INT_FIELDS:
        a["contact_" + f][0, :n] = np.asarray(getattr(md.contact, f)).reshape((n,) + a["contact_" + f].shape[2:])
    _drive(ms, d._struct)
    assert int(a["nefc"][0]) == 0 and int(a["ne"][0]) == 0
    assert int(a["warning_number"][0, WARN_CNSTRFULL]) == 1
    assert np.all(a["contact_efc_address"][0, :n] == -1)


@pytest.mark.parametrize("name", ["equality", "limits"])
def test_through_forward_batch(name):
    """The stages as wired in sim.forward (batch entry, 3 worlds), contacts disabled on both sides."""
    m = load(name)
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    states = random_states(m, 3, 5)
    d = api.Data(m, nworld=3)
    a = d._arrays
    for w, st in enumerate(states):
        a["qpos"][w] = st["qpos"]
        a["qvel"][w] = st["qvel"]
        a["eq_active"][w] = st["eq_active"]
    api.forward(m, d)
    md = mujoco.MjData(m)
    for w, st in enumerate(states):
        md.qpos[:] = st["qpos"]
        md.qvel[:] = st["qvel"]
        md.eq_active[:] = st["eq_active"]
        mujoco.mj_forward(m, md)
        nefc = md.nefc
        assert int(a["nefc"][w]) == nefc
        np.testing.assert_array_equal(a["efc_type"][w, :nefc], md.efc_type)
        compare(a["efc_J"][w, :nefc], dense_J(m, md), "efc_J", f"{name} world {w}")
        for f in FLOAT_FIELDS:
            compare(a[f][w, :nefc], getattr(md, f), f, f"{name} world {w}")
