"""Constraint islands (sim/engine/island.py + the per-island solves of sim/engine/solver.py) against MuJoCo 3.17.

MuJoCo (islands on, its default) assembles the constraints; its smooth quantities, efc rows and contacts
are copied into our Data (our collision is not exercised) and our fwd_constraint runs on them. Compared:
the island partition (nisland, nidof, tree/dof/efc island ids, island sizes / addresses, dof and efc
maps), qacc, efc_force, efc_state, qfrc_constraint, per-island iteration counts and per-island
improvement statistics, for Newton, CG and PGS at default settings; and the same with DSBL_ISLAND set
(monolithic solve). Errors are max|ours - mujoco| / max(1, max|mujoco|).
"""

import zlib

import mujoco
import numpy as np
import pytest

import sim.jit.cache  # noqa: F401  (must precede jitted modules)
from sim import api
from solver_util import copy_inputs, drive
from dynamics_util import mujoco_forward

# Newton refactorises its Hessian where MuJoCo rank-1 updates it (rounding only); CG / PGS follow MuJoCo's
# operation order on the island lists, so their errors are at rounding level
RTOL = 1e-9

_PILE = """
<mujoco>
  <option cone="{cone}"/>
  <worldbody>
    <geom type="plane" size="5 5 .1"/>
    <body pos="0 0 .1"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
    <body pos="0.02 0.01 .3"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
    <body pos="1 0 .1"><freejoint/><geom type="sphere" size=".1"/></body>
    <body pos="0 2 .5"><freejoint/><geom type="sphere" size=".1"/></body>
    <body pos="-1 0 .1" euler="0 90 0"><freejoint/><geom type="capsule" size=".1 .2"/></body>
    <body pos="1 1 .1" euler="0 0 30"><freejoint/><geom type="box" size=".1 .15 .1"/></body>
    <body pos="1.05 1 .3"><freejoint/><geom type="sphere" size=".1"/></body>
    <body pos="-1 -1 .1"><freejoint/><geom type="capsule" size=".08 .1"/></body>
  </worldbody>
</mujoco>"""

_EQUALITY = """
<mujoco>
  <worldbody>
    <geom type="plane" size="5 5 .1"/>
    <body name="a" pos="0 0 .1"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
    <body name="b" pos=".5 0 .1"><freejoint/><geom type="sphere" size=".1"/></body>
    <body name="c" pos="2 0 .1"><freejoint/><geom type="box" size=".1 .1 .1"/><site name="sc"/></body>
    <body name="e" pos="2.5 0 .1"><freejoint/><geom type="box" size=".1 .1 .1"/><site name="se"/></body>
    <body name="f" pos="-2 0 .1"><freejoint/><geom type="sphere" size=".1"/></body>
    <body name="p" pos="0 2 1">
      <joint name="h1" type="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/>
    </body>
    <body name="q" pos="1 2 1">
      <joint name="h2" type="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/>
    </body>
  </worldbody>
  <equality>
    <connect body1="a" body2="b" anchor=".25 0 0"/>
    <weld site1="sc" site2="se"/>
    <joint joint1="h1" joint2="h2" polycoef="0 1 0 0 0"/>
  </equality>
</mujoco>"""

_TENDON = """
<mujoco>
  <worldbody>
    <geom type="plane" size="5 5 .1"/>
    <body pos="0 0 1">
      <joint name="j0" type="hinge" axis="0 1 0" range="-20 20" frictionloss="0.3"/>
      <geom type="capsule" fromto="0 0 0 .4 0 0" size=".04"/>
      <body pos=".4 0 0"><joint name="j1" type="hinge" axis="0 1 0" range="-10 30" margin="0.01"/>
        <geom type="capsule" fromto="0 0 0 .4 0 0" size=".04"/></body>
    </body>
    <body pos="2 0 1">
      <joint name="k0" type="hinge" axis="0 1 0" frictionloss="0.1"/>
      <geom type="capsule" fromto="0 0 0 .4 0 0" size=".04"/>
    </body>
    <body pos="4 0 1">
      <joint name="l0" type="slide" axis="1 0 0" range="-.05 .05"/>
      <geom type="sphere" size=".05"/>
    </body>
    <body pos="6 0 1">
      <joint name="b0" type="ball" range="0 20"/>
      <geom type="capsule" fromto="0 0 0 0 0 -.4" size=".04"/>
    </body>
    <body pos="0 3 .1"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
  </worldbody>
  <tendon>
    <fixed limited="true" range="-0.05 0.05" frictionloss="0.05"><joint joint="j1" coef="1"/><joint joint="k0" coef="-1"/></fixed>
  </tendon>
</mujoco>"""

SCENES = {
    "pile_pyr": _PILE.format(cone="pyramidal"),
    "pile_ell": _PILE.format(cone="elliptic"),
    "equality": _EQUALITY,
    "tendon_limits": _TENDON,
}
SOLVERS = {"pgs": mujoco.mjtSolver.mjSOL_PGS, "cg": mujoco.mjtSolver.mjSOL_CG, "newton": mujoco.mjtSolver.mjSOL_NEWTON}
ISLAND_INT = (
    "island_nv",
    "island_idofadr",
    "island_dofadr",
    "island_ne",
    "island_nf",
    "island_nefc",
    "island_iefcadr",
    "island_ntree",
    "island_itreeadr",
)


def states(m, n, seed):
    """n states along a random rollout with perturbed velocities (contacts form as bodies settle)."""
    rng = np.random.default_rng(seed)
    md = mujoco.MjData(m)
    md.qvel[:] = 0.5 * rng.standard_normal(m.nv)
    out = []
    for _ in range(n):
        for _ in range(40):
            md.qfrc_applied[:] = 2.0 * rng.standard_normal(m.nv)
            mujoco.mj_step(m, md)
        out.append(
            dict(
                qpos=md.qpos.copy(),
                qvel=md.qvel.copy(),
                qfrc_applied=md.qfrc_applied.copy(),
                qacc_warmstart=md.qacc_warmstart.copy(),
            )
        )
    return out


def run(m, st):
    """mujoco.mj_forward on state st, then our fwd_constraint on its rows; returns (md, our arrays)."""
    md = mujoco_forward(m, st)
    d = api.Data(m, nconmax=max(1, md.ncon), njmax=max(1, md.nefc))
    copy_inputs(m, md, d)
    drive(api.model_struct(m), d._struct)
    return md, d._arrays


def rel(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    if b.size == 0:
        return 0.0
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))


def compare(m, md, A):
    """Assert the partition equal; return the float errors and the iteration counts."""
    nefc = md.nefc
    ni = int(md.nisland)
    assert int(A["nisland"][0]) == ni
    if ni:
        assert int(A["nidof"][0]) == md.nidof
        np.testing.assert_array_equal(A["tree_island"][0], md.tree_island)
        np.testing.assert_array_equal(A["map_itree2tree"][0], md.map_itree2tree)
        np.testing.assert_array_equal(A["dof_island"][0], md.dof_island)
        np.testing.assert_array_equal(A["map_idof2dof"][0], md.map_idof2dof)
        np.testing.assert_array_equal(A["map_dof2idof"][0], md.map_dof2idof)
        np.testing.assert_array_equal(A["efc_island"][0, :nefc], md.efc_island)
        np.testing.assert_array_equal(A["map_iefc2efc"][0, :nefc], md.map_iefc2efc)
        np.testing.assert_array_equal(A["map_efc2iefc"][0, :nefc], md.map_efc2iefc)
        for k in ISLAND_INT:
            np.testing.assert_array_equal(A[k][0, :ni], getattr(md, k), err_msg=k)
    niter_mj = np.array(md.solver_niter)
    niter = A["solver_niter_island"][0]
    np.testing.assert_array_equal(niter, niter_mj)
    assert int(A["solver_niter"][0]) == niter_mj[0]
    impr = 0.0
    for k in range(min(max(ni, 1), 20)):
        n = min(int(niter_mj[k]), 200)
        a = A["solver_improvement"][0, k * 200 : k * 200 + n]
        b = np.array([md.solver[k * 200 + t].improvement for t in range(n)])
        impr = max(impr, rel(a, b))
    return dict(
        qacc=rel(A["qacc"][0], md.qacc),
        force=rel(A["efc_force"][0, :nefc], md.efc_force),
        qfrc=rel(A["qfrc_constraint"][0], md.qfrc_constraint),
        impr=impr,
        state=int(np.sum(A["efc_state"][0, :nefc] != md.efc_state)),
        nisland=ni,
        nefc=nefc,
        niter=niter_mj[: max(ni, 1)].tolist(),
    )


# efc_state differences we measured but have not resolved (qacc / efc_force still agree, asserted above)
STATE_XFAIL = {
    ("pile_ell", "pgs"): "PGS with elliptic cones: efc_state differs from MuJoCo on a few rows in ~15 % of states "
    "(measured 8/60 with islands, 9/60 without, over 20 seeds) while efc_force agrees to 4e-16; "
    "the final state classification of cone rows near zero force is not reproduced yet",
}


@pytest.mark.parametrize("islands", [True, False], ids=["islands", "dsbl_island"])
@pytest.mark.parametrize("solver", list(SOLVERS))
@pytest.mark.parametrize("name", list(SCENES))
def test_island_matches_mujoco(name, solver, islands, request):
    m = mujoco.MjModel.from_xml_string(SCENES[name])
    m.opt.solver = SOLVERS[solver]
    if not islands:
        m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_ISLAND
    nstate = 8 if request.config.getoption("--full") else 3
    worst = dict(qacc=0.0, force=0.0, qfrc=0.0, impr=0.0)
    multi = 0
    state_diff = []
    for st in states(m, nstate, seed=zlib.crc32(name.encode()) % 1000):  # str hash() varies per process
        md, A = run(m, st)
        e = compare(m, md, A)
        multi += e["nisland"] > 1
        for k in worst:
            worst[k] = max(worst[k], e[k])
        if e["state"]:
            state_diff.append(e)
    for k in worst:
        assert worst[k] <= RTOL, (k, worst)
    if islands:
        assert multi > 0, "scene produced no multi-island state"
    if state_diff and (name, solver) in STATE_XFAIL:
        pytest.xfail(
            STATE_XFAIL[(name, solver)]
            + "; here %d/%d states, %s rows" % (len(state_diff), nstate, [e["state"] for e in state_diff])
        )
    assert not state_diff, state_diff[0]


def test_island_partition_equality_tendon():
    """Coupled trees share an island: connect (a-b), site weld (c-e), joint equality (p-q) always; the
    two-tree tendon (j1-k0) whenever its limit / friction rows exist."""
    m = mujoco.MjModel.from_xml_string(SCENES["equality"])

    def tree(name):
        return m.body_treeid[m.body(name).id]

    for st in states(m, 2, seed=3):
        md, A = run(m, st)
        compare(m, md, A)
        ti = A["tree_island"][0]
        for b1, b2 in (("a", "b"), ("c", "e"), ("p", "q")):
            assert ti[tree(b1)] == ti[tree(b2)] >= 0
        assert len(set(ti[[tree("a"), tree("c"), tree("p")]])) == 3
    m = mujoco.MjModel.from_xml_string(SCENES["tendon_limits"])
    seen = 0
    for st in states(m, 4, seed=3):
        md, A = run(m, st)
        compare(m, md, A)
        rows = [
            i
            for i in range(md.nefc)
            if int(md.efc_type[i])
            in (int(mujoco.mjtConstraint.mjCNSTR_FRICTION_TENDON), int(mujoco.mjtConstraint.mjCNSTR_LIMIT_TENDON))
        ]
        if rows:
            seen += 1
            ti = A["tree_island"][0]
            assert ti[m.dof_treeid[m.jnt_dofadr[m.joint("j1").id]]] == ti[m.dof_treeid[m.jnt_dofadr[m.joint("k0").id]]]
    assert seen
