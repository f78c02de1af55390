"""Contact adhesion (geom / pair `adhesion`: mj_adhesion's qfrc_adhesion, mj_adhesionRef's efc_aref bias, adhesive
contacts kept in the gap as frictionless rows) and geom surface velocity (`surfacevel`: mj_addSurfaceVel's efc_vel
term) through the whole forward pipeline and a step trajectory, against MuJoCo.

Both features act in mj_referenceConstraint / mj_passive on the same contacts, so one model carries both (one
compiled feature set per cone).  Tolerances: the assembly (efc_vel, efc_aref, qfrc_adhesion, qfrc_passive) is the
same arithmetic as MuJoCo's: 1e-12 (measured 0); efc_force / qacc come out of the iterative solver: 1e-9 (measured
<= 1.4e-17); the 100-step trajectory 1e-8.
"""

import mujoco
import numpy as np
import pytest

import sim.jit.cache  # noqa: F401  (must precede jitted modules)
from sim import api
from sim.jit.features import F_ADHESION, F_SURFACEVEL

XML = """<mujoco>
  <option timestep="0.002" cone="{cone}"/>
  <worldbody>
    <geom name="floor" type="plane" size="3 3 .1" adhesion="{afloor}" margin=".03" gap=".02"
          surfacevel="{sfloor}"/>
    <body pos="0 0 .1"><freejoint/><geom name="box" type="box" size=".1 .08 .06" condim="{condim}"
      adhesion="{abox}"/></body>
    <body pos=".4 0 .1" euler="10 20 30"><freejoint/>
      <geom name="ball" type="sphere" size=".07" condim="{condim}" margin=".02" surfacevel="{sball}"/></body>
    <body pos="-.4 0 .1"><freejoint/>
      <geom name="cap" type="capsule" size=".04 .1" condim="{condim}" priority="1" adhesion="{acap}"/></body>
  </worldbody>
  <contact><pair geom1="ball" geom2="cap" condim="{condim}" adhesion="{apair}" margin=".05"/></contact>
</mujoco>"""

BOTH = dict(abox="1", afloor="2", acap="3", apair=".5", sfloor=".3 -.2 0 0 0 .5", sball="0 .4 0 .3 0 0")
CASES = {
    "pyramidal-3": ("pyramidal", 3, BOTH),
    "elliptic-6": ("elliptic", 6, BOTH),
}
FULL_CASES = {
    **{f"{cone}-{c}": (cone, c, BOTH) for cone in ("pyramidal", "elliptic") for c in (1, 3, 4, 6)},
    "adhesion-only": ("pyramidal", 4, dict(BOTH, sfloor="0 0 0 0 0 0", sball="0 0 0 0 0 0")),
    "surfacevel-only": ("elliptic", 4, dict(BOTH, abox="0", afloor="0", acap="0", apair="0")),
}


def load(case):
    cone, condim, kw = {**FULL_CASES, **CASES}[case]
    return mujoco.MjModel.from_xml_string(XML.format(cone=cone, condim=condim, **kw))


def states(m, n, seed):
    """Random poses near and in the floor's margin / gap (so adhesive in-gap contacts appear) and velocities."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        qpos = m.qpos0.copy()
        for b in range(3):
            qpos[7 * b + 2] = rng.uniform(0.03, 0.12)
            q = rng.normal(size=4)
            qpos[7 * b + 3 : 7 * b + 7] = q / np.linalg.norm(q)
        qpos[7 * 1 + 0] = rng.uniform(-0.3, -0.2)  # ball near the capsule: the <pair>
        out.append((qpos, rng.normal(0, 0.5, m.nv)))
    return out


def err(ours, ref):
    ours, ref = np.asarray(ours, float), np.asarray(ref, float)
    assert ours.shape == ref.shape
    return float(np.max(np.abs(ours - ref), initial=0.0))


def check_forward(m, nstate, seed):
    md = mujoco.MjData(m)
    d = api.Data(m)
    ingap = surface = 0
    worst = {}
    for qpos, qvel in states(m, nstate, seed):
        md.qpos[:] = qpos
        md.qvel[:] = qvel
        d.qpos = qpos
        d.qvel = qvel
        mujoco.mj_forward(m, md)
        api.forward(m, d)
        assert (d.ncon, d.nefc) == (md.ncon, md.nefc)
        np.testing.assert_array_equal(d.contact.dim, md.contact.dim[: md.ncon])
        np.testing.assert_array_equal(d.efc_type, md.efc_type)
        for f, tol in (
            ("contact.adhesion", 1e-12),
            ("efc_vel", 1e-12),
            ("efc_aref", 1e-12),
            ("qfrc_adhesion", 1e-12),
            ("qfrc_passive", 1e-12),
            ("efc_force", 1e-9),
            ("qacc", 1e-9),
        ):
            if f == "contact.adhesion":
                e = err(d.contact.adhesion, md.contact.adhesion[: md.ncon])
            else:
                e = err(getattr(d, f), getattr(md, f))
            worst[f] = max(worst.get(f, 0.0), e)
            assert e <= tol, (f, e)
        con = md.contact
        ingap += int(np.sum((con.adhesion != 0) & (con.dist >= con.includemargin)))
        jv = np.zeros(md.nefc)
        if md.nefc:
            jv = np.asarray(d.efc_J) @ md.qvel
        surface += int(np.any(np.abs(jv - md.efc_vel) > 1e-6))
    return ingap, surface, worst


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(CASES))
def test_forward(case):
    m = load(case)
    F = api.model_features(m)
    assert F[F_ADHESION] and F[F_SURFACEVEL]
    ingap, surface, _ = check_forward(m, 8, seed=1)
    assert ingap > 0 and surface > 0  # adhesive in-gap rows and surface velocity terms were exercised


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(FULL_CASES))
def test_forward_sweep(case, full_run):
    if not full_run:
        pytest.skip("cone x condim sweep and single-feature models: --full")
    m = load(case)
    ingap, surface, _ = check_forward(m, 20, seed=2)
    _, _, kw = FULL_CASES[case]
    assert (ingap > 0) == (kw["afloor"] != "0")
    assert (surface > 0) == (kw["sball"] != "0 0 0 0 0 0")


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(CASES))
def test_trajectory(case):
    """100 steps from a resting pose on the floor: the bodies stick (adhesion) and are dragged (surfacevel)."""
    m = load(case)
    md = mujoco.MjData(m)
    d = api.Data(m)
    qpos, qvel = states(m, 1, seed=3)[0]
    md.qpos[:] = qpos
    md.qvel[:] = qvel
    d.qpos = qpos
    d.qvel = qvel
    worst = 0.0
    for _ in range(100):
        mujoco.mj_step(m, md)
        api.step(m, d)
        worst = max(worst, err(d.qpos, md.qpos), err(d.qvel, md.qvel))
    assert worst <= 1e-8, worst
    assert np.any(md.qfrc_adhesion != 0)


def test_compiler():
    """numjoco's compiler gives MuJoCo's adhesion / surface velocity fields and flags."""
    import sim

    cone, condim, kw = CASES["pyramidal-3"]
    xml = XML.format(cone=cone, condim=condim, **kw)
    ours, theirs = sim.load_model(xml), mujoco.MjModel.from_xml_string(xml)
    for f in ("geom_adhesion", "geom_surfacevel", "pair_adhesion", "flg_adhesion", "flg_surfacevel"):
        np.testing.assert_array_equal(np.asarray(getattr(ours, f)), np.asarray(getattr(theirs, f)), err_msg=f)
