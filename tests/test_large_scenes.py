"""Large scenes solve as MuJoCo solves them (issue 50, goal 1): generated scenes of hundreds to thousands of dofs
(particles in a box, a house of cards, an array of limited tendons), every solver (PGS, CG, Newton), cone
(pyramidal, elliptic) and Jacobian mode (dense, sparse, auto), at contact states of a MuJoCo rollout.

Two comparisons per case:
- the solver alone: MuJoCo's efc rows, contacts and smooth quantities copied into our Data (tests/solver_util.py),
  our fwd_constraint run on them: iteration counts, qacc and efc_force equal to MuJoCo's, bitwise where ours
  follows MuJoCo's arithmetic (EXACT), else within MuJoCo's own sensitivity at that state (one ulp of qvel moved in
  the oracle) with a written reason (NEAR);
- the whole forward pass (ours from the state, MuJoCo from the state): the same rows, islands and iteration counts,
  qacc within RTOL_FORWARD (the stages before the solver agree to round-off, not bitwise).

In the sparse mode (mj_isSparse) MuJoCo's products over J run over each row's structural pattern, the AR of the dual
solvers over the rows that share a tree, J' f of the primal solvers as a dot product per dof: ours keep the same
patterns (sim/engine/constraint.py, sim/engine/solver.py), so their sums group terms as MuJoCo's do.  Default set:
scenes of 90-300 dofs; --full adds 1,000-1,500 dofs.
"""

import math

import mujoco
import numpy as np
import pytest

from oracle import dense_efc_J
import sim.jit.cache  # noqa: F401  (must precede jitted modules)
from sim import api
from solver_util import copy_inputs, drive

SOLVERS = {"pgs": 0, "cg": 1, "newton": 2}
CONES = {"pyramidal": 0, "elliptic": 1}
JACOBIANS = {"dense": 0, "sparse": 1, "auto": 2}
# the whole forward pass: stages before the solver agree with MuJoCo's to round-off (not bitwise), which the solver's
# active-set iterations carry into qacc
RTOL_FORWARD = 1e-9
ISLAND = int(mujoco.mjtDisableBit.mjDSBL_ISLAND)


# ------------------------------------------------------------------------------------------------ generated scenes


def particles(n, seed=0, condim=1):
    """n particles (three slide joints each: nv = 3n) in a box of four walls and a floor, stacked in a jittered grid
    (MuJoCo's model/replicate/particle.xml, smaller)."""
    rng = np.random.default_rng(seed)
    side = math.ceil(n ** (1 / 3))
    walls = "".join(
        f'<geom type="plane" size=".5 .5 .05" zaxis="{z}" pos="{p}"/>'
        for z, p in (("1 0 0", "-.3 0 .2"), ("-1 0 0", ".3 0 .2"), ("0 1 0", "0 -.3 .2"), ("0 -1 0", "0 .3 .2"))
    )
    bodies = []
    for k in range(n):
        i, j, l = k % side, (k // side) % side, k // (side * side)
        x, y = -0.2 + 0.4 * i / max(1, side - 1), -0.2 + 0.4 * j / max(1, side - 1)
        z = 0.03 + 0.055 * l
        x, y = x + rng.uniform(-0.01, 0.01), y + rng.uniform(-0.01, 0.01)
        bodies.append(
            f'<body pos="{x:.4f} {y:.4f} {z:.4f}"><joint type="slide" axis="1 0 0"/><joint type="slide" axis="0 1 0"/>'
            f'<joint type="slide" axis="0 0 1"/><geom size=".025" condim="{condim}"/></body>'
        )
    return (
        '<mujoco><option timestep=".005"/><worldbody><geom type="plane" size=".5 .5 .05"/>'
        + walls
        + "".join(bodies)
        + "</worldbody></mujoco>"
    )


def card_house(levels):
    """A house of cards: on each level, leaning pairs of thin free boxes (nv = 6 per card), flat cards across
    neighbouring pairs; levels - l pairs on level l."""
    cards = []
    h, w, t, lean = 0.047, 0.032, 0.0015, 0.28
    dz = 2 * h * math.cos(lean) + 2 * t
    for lev in range(levels):
        npair = levels - lev
        z0 = lev * dz + h * math.cos(lean) + 0.001
        for p in range(npair):
            x0 = (p - (npair - 1) / 2) * 0.07
            for s in (-1, 1):
                x = x0 + s * (h * math.sin(lean) + 0.001)
                cards.append((x, z0, 0, -s * lean))
        for p in range(npair - 1):
            x0 = (p + 0.5 - (npair - 1) / 2) * 0.07
            cards.append((x0, z0 + h * math.cos(lean) + t + 0.001, 1, 0.0))
    bodies = []
    for x, z, flat, ang in cards:
        if flat:
            geom = f'<geom type="box" size="{h} {w} {t}"/>'
            euler = "0 0 0"
        else:
            geom = f'<geom type="box" size="{t} {w} {h}"/>'
            euler = f"0 {math.degrees(ang):.3f} 0"
        bodies.append(f'<body pos="{x:.5f} 0 {z:.5f}" euler="{euler}"><freejoint/>{geom}</body>')
    return (
        '<mujoco><option timestep=".001"/><default><geom friction=".6" solref=".002 1"/></default><worldbody>'
        '<geom type="plane" size="2 2 .1"/>' + "".join(bodies) + "</worldbody></mujoco>"
    )


def tendon_array(n):
    """A hub (free body) and n pairs of free spheres on limited spatial tendons through a site of the hub (their
    ranges about the rest length, with a margin: limit rows come and go), with friction loss on every other tendon
    (nv = 6 + 12 n); everything rests on the floor."""
    bodies, tendons = [], []
    for k in range(n):
        a = 2 * math.pi * k / n
        c, s = math.cos(a), math.sin(a)
        bodies.append(
            f'<body pos="{0.4 * c:.4f} {0.4 * s:.4f} .05"><freejoint/><site name="a{k}"/><geom size=".05"/></body>'
            f'<body pos="{0.8 * c:.4f} {0.8 * s:.4f} .05"><freejoint/><site name="b{k}"/><geom size=".05"/></body>'
        )
        fl = ' frictionloss=".05"' if k % 2 else ""
        tendons.append(
            f'<spatial range="0 {1.2 + 0.02 * (k % 3):.2f}" margin=".1"{fl}><site site="a{k}"/><site site="hub"/>'
            f'<site site="b{k}"/></spatial>'
        )
    return (
        '<mujoco><worldbody><geom type="plane" size="5 5 .1"/><body pos="0 0 .1"><freejoint/><site name="hub"/>'
        '<geom size=".1" density="200"/></body>'
        + "".join(bodies)
        + "</worldbody><tendon>"
        + "".join(tendons)
        + "</tendon></mujoco>"
    )


SCENES = {
    # name: (xml, rollout steps before the first state); nv in the comment
    "particles_150": (lambda: particles(50), 60),  # nv 150
    "cards_3": (lambda: card_house(3), 40),  # nv 90
    "cards_5": (lambda: card_house(5), 40),  # nv 240
    "tendons_24": (lambda: tendon_array(24), 4),  # nv 294
}
FULL_SCENES = {
    "particles_1500": (lambda: particles(500), 60),  # nv 1500
    "cards_12": (lambda: card_house(12), 40),  # nv 1332
    "tendons_80": (lambda: tendon_array(80), 60),  # nv 966
}


def load(name, solver, cone, jacobian, islands=True):
    xml, _ = {**SCENES, **FULL_SCENES}[name]
    m = mujoco.MjModel.from_xml_string(xml())
    m.opt.solver, m.opt.cone, m.opt.jacobian = SOLVERS[solver], CONES[cone], JACOBIANS[jacobian]
    if not islands:
        m.opt.disableflags |= ISLAND
    return m


def states(m, name, n=3, seed=0):
    """n MuJoCo states along a rollout (contacts form as the scene settles), every 8 steps, with random velocities
    added (cone states, sliding contacts)."""
    _, warm = {**SCENES, **FULL_SCENES}[name]
    rng = np.random.default_rng(seed)
    md = mujoco.MjData(m)
    out = []
    for t in range(warm + 8 * n):
        mujoco.mj_step(m, md)
        if t >= warm and (t - warm) % 8 == 0:
            out.append(
                dict(
                    qpos=md.qpos.copy(),
                    qvel=md.qvel + 0.3 * rng.standard_normal(m.nv),
                    qacc_warmstart=md.qacc_warmstart.copy(),
                )
            )
    return out


def oracle(m, st):
    md = mujoco.MjData(m)
    for k, v in st.items():
        getattr(md, k)[:] = v
    mujoco.mj_forward(m, md)
    return md


def rel(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.max(np.abs(a - b), initial=0.0) / max(1.0, float(np.max(np.abs(b), initial=0.0))))


def one_ulp_sensitivity(m, st, md):
    """MuJoCo's own sensitivity at this state: qacc and efc_force moved by moving qvel one ulp up."""
    st2 = dict(st, qvel=np.nextafter(st["qvel"], np.inf))
    md2 = oracle(m, st2)
    if md2.nefc != md.nefc:
        return np.inf
    return max(rel(md2.qacc, md.qacc), rel(md2.efc_force, md.efc_force))


def isolated(m, md):
    """Our fwd_constraint on MuJoCo's rows: (niter, qacc, efc_force, nisland)."""
    d = api.Data(m, nconmax=max(1, md.ncon), njmax=max(1, md.nefc))
    copy_inputs(m, md, d)
    drive(api.model_struct(m), d._struct)
    A = d._arrays
    return int(A["solver_niter"][0]), A["qacc"][0].copy(), A["efc_force"][0, : md.nefc].copy(), int(A["nisland"][0])


def near_reason(m, md, name, solver, cone):
    """Why ours may differ from MuJoCo's at the last bits in this case (None: it must not), as measured.

    - sparse Newton with elliptic cones: the cone Hessian's rank-1 updates of the sparse factor (HessianCone); our
      port of 3.12's order gives MuJoCo's numbers in small scenes (one to eight cone contacts, bitwise) but not in
      the card houses (qacc 1e-16 .. 5e-16 relative after the solve; MuJoCo 3.17's source is not available to us);
    - sparse Newton on islands of several trees: 1e-17 .. 1e-16 relative (the monolithic solve of the same rows is
      bitwise; MuJoCo's island path for Newton differs from its monolithic one in a way we have not found);
    - PGS with more rows than the dense AR holds (AR_CAP): AR is computed on the fly from Y, another order of sums."""
    from sim.constants import AR_CAP

    sparse = mujoco.mj_isSparse(m)
    if solver == "newton" and sparse and (cone == "elliptic" or md.nisland > 0):
        return "sparse Newton (cone updates / islands)"
    if solver == "pgs" and md.nefc > AR_CAP:
        return "PGS beyond the dense AR's capacity"
    return None


def check_isolated(m, name, solver, cone, jac, nstate=3):
    sts = states(m, name, nstate)
    nrow = 0
    for k, st in enumerate(sts):
        md = oracle(m, st)
        nrow += md.nefc
        niter, qacc, force, nisland = isolated(m, md)
        where = (name, solver, cone, jac, k, md.nefc)
        assert nisland == md.nisland, where
        assert niter == md.solver_niter[0], (where, niter, md.solver_niter[0])
        err = max(rel(qacc, md.qacc), rel(force, md.efc_force))
        reason = near_reason(m, md, name, solver, cone)
        if reason is None:
            assert err == 0.0, (where, err)
        else:
            # MuJoCo's own response to one ulp of qvel, with a factor 4 for the direction of the perturbation
            # (measured: ours at most 1.02 times it, on cards_5)
            bound = 4 * max(1e-16, one_ulp_sensitivity(m, st, md))
            assert err <= bound, (where, reason, err, bound)
    assert nrow > 0, (name, "no constraint rows in the sampled states")


CASES = [
    (name, solver, cone, jac)
    for name in SCENES
    for solver in SOLVERS
    for cone in CONES
    for jac in JACOBIANS
    if not (name == "particles_150" and jac == "auto")  # nv 150: auto is sparse, as "sparse"
]


@pytest.mark.parametrize("name, solver, cone, jac", CASES)
def test_solver_alone(name, solver, cone, jac):
    """Our solver on MuJoCo's rows at rollout states: MuJoCo's islands, iteration counts, qacc and efc_force."""
    check_isolated(load(name, solver, cone, jac), name, solver, cone, jac)


@pytest.mark.full
@pytest.mark.parametrize(
    "name, solver, cone, jac",
    [(n, s, c, j) for n in FULL_SCENES for s in SOLVERS for c in CONES for j in ("dense", "sparse")],
)
def test_solver_alone_large(name, solver, cone, jac):
    check_isolated(load(name, solver, cone, jac), name, solver, cone, jac, nstate=2)


@pytest.mark.parametrize("solver", list(SOLVERS))
def test_solver_alone_monolithic(solver):
    """Islands disabled: one problem over every row, in the sparse mode."""
    for name in ("cards_5", "tendons_24"):
        m = load(name, solver, "pyramidal", "sparse", islands=False)
        check_isolated(m, name, solver, "pyramidal", "sparse")


def test_tendon_rows_one_island():
    """Tendons through the hub make one island in MuJoCo's sparse mode even where a tendon does not move the hub
    (its row's structural pattern holds the hub's dofs, zeros included): so do ours."""
    m = load("tendons_24", "pgs", "pyramidal", "sparse")
    for st in states(m, "tendons_24", 2):
        md = oracle(m, st)
        assert md.nl > 0
        d = sim_data_forward(m, st)
        assert int(d.nisland) == md.nisland
        np.testing.assert_array_equal(d.map_iefc2efc[: md.nefc], md.map_iefc2efc)


def sim_data_forward(m, st):
    d = api.Data(m)
    for k, v in st.items():
        setattr(d, k, v)
    api.forward(m, d)
    return d


def check_forward(m, name, nstate=2):
    for k, st in enumerate(states(m, name, nstate)):
        md = oracle(m, st)
        d = sim_data_forward(m, st)
        where = (name, k)
        assert (int(d.ncon), int(d.nefc), int(d.nisland)) == (md.ncon, md.nefc, md.nisland), where
        np.testing.assert_array_equal(d.efc_type, md.efc_type)
        assert rel(d.efc_J, dense_efc_J(m, md)) < 1e-12, where
        assert rel(d.efc_b, md.efc_b) < 1e-12, where
        assert int(d.solver_niter) == md.solver_niter[0], where
        assert rel(d.qacc, md.qacc) < RTOL_FORWARD, (where, rel(d.qacc, md.qacc))


@pytest.mark.parametrize("name, solver, cone", [("particles_150", "cg", "pyramidal")])
def test_forward(name, solver, cone):
    """The whole forward pass from MuJoCo's state, in MuJoCo's default (auto) Jacobian mode (one configuration in
    the default set: each other one compiles the engine for another feature set; all of them under --full)."""
    check_forward(load(name, solver, cone, "auto"), name)


@pytest.mark.full
@pytest.mark.parametrize(
    "name, solver, cone",
    [(n, s, c) for n in list(SCENES) + list(FULL_SCENES) for s in SOLVERS for c in CONES],
)
def test_forward_all(name, solver, cone):
    check_forward(load(name, solver, cone, "auto"), name)
