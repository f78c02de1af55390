"""Constraint solvers (sim/engine/solver.py) against MuJoCo on MuJoCo's own constraint rows.

The solver is tested in isolation: mujoco.mj_forward assembles the constraints (efc_* rows, contacts) and the
smooth quantities (M, qLD, qacc_smooth, qfrc_smooth); those arrays are copied into our Data and our
fwd_constraint runs on them.  The oracle runs with the island disable flag (monolithic solve), except in
test_islands_default (islands on, MuJoCo's default; island details are tested in tests/test_island.py).

Checks per model / state / solver:
- default solver settings: iteration count equal, qacc / efc_force / qfrc_constraint equal to RTOL_DEFAULT
  (same iterates up to rounding; rounding grows with the iteration count, hence the looser bound);
- converged settings (iterations 1000, tolerance 1e-12): qacc / efc_force to RTOL_CONVERGED;
- our final primal cost never above mujoco's * 1.0001;
- per-iteration statistics (solver_improvement/lineslope/nactive/nchange/neval/nupdate) equal.
solver_gradient is not compared: near convergence it is round-off (~1e-15 scaled) in both.
Errors are max|ours - mujoco| / max(1, max|mujoco|).
"""

import os

import mujoco
import numpy as np
import pytest

from oracle import dense_efc_J as dense_J
import sim.jit.cache  # noqa: F401  (must precede jitted modules)
from sim import api
from solver_util import copy_inputs, drive as _drive

RTOL_CONVERGED = 1e-6
# same algorithm and same iterates; rounding differences (dense vs sparse products, Hessian refactorised
# instead of rank-1 updated) are amplified by active-set switches along the iterations
RTOL_DEFAULT = 1e-6

try:
    import gymnasium

    ASSETS = os.path.join(os.path.dirname(gymnasium.__file__), "envs/mujoco/assets")
except ImportError:  # pragma: no cover
    ASSETS = None

GYM = ["hopper", "walker2d", "ant", "humanoid", "half_cheetah"]

_STACK = """
<mujoco>
  <option cone="{cone}" impratio="{impratio}"/>
  <worldbody>
    <geom type="plane" size="5 5 .1" condim="{condim}"/>
    <body pos="0 0 .1"><freejoint/><geom type="box" size=".1 .1 .1" condim="{condim}"/></body>
    <body pos="0.02 0.01 .3"><freejoint/><geom type="box" size=".1 .1 .1" condim="{condim}"/></body>
    <body pos="-0.03 0 .5" euler="0 0 20"><freejoint/><geom type="box" size=".1 .1 .1" condim="{condim}"/></body>
    <body pos="0.3 0 .1"><freejoint/><geom type="sphere" size=".1" condim="{condim}" priority="1"
                                           friction="0.8 0.02 0.01"/></body>
    <body pos="0.3 0.3 .08"><freejoint/><geom type="capsule" size=".06 .1" euler="90 0 0" condim="{condim}"/></body>
  </worldbody>
</mujoco>"""

_LIMITS = """
<mujoco>
  <option cone="{cone}"/>
  <worldbody>
    <geom type="plane" size="5 5 .1"/>
    <body name="a" pos="0 0 1">
      <joint name="j0" type="hinge" axis="0 1 0" range="-20 20" frictionloss="0.3"/>
      <geom type="capsule" fromto="0 0 0 .4 0 0" size=".04"/>
      <body pos=".4 0 0">
        <joint name="j1" type="hinge" axis="0 1 0" range="-10 30" frictionloss="0.1" margin="0.01"/>
        <geom type="capsule" fromto="0 0 0 .4 0 0" size=".04"/>
        <body name="tip" pos=".4 0 0">
          <joint name="j2" type="slide" axis="1 0 0" range="-.05 .05" frictionloss="0.2"/>
          <geom type="sphere" size=".05"/>
        </body>
      </body>
    </body>
    <body name="b" pos="1 0 1">
      <joint name="ball" type="ball" range="0 30"/>
      <geom type="capsule" fromto="0 0 0 0 0 -.4" size=".04"/>
      <body name="c" pos="0 0 -.4">
        <joint name="k" type="hinge" axis="1 0 0"/>
        <geom type="box" size=".05 .05 .1" pos="0 0 -.1"/>
      </body>
    </body>
    <body name="free" pos="0 1 .3"><freejoint/><geom type="box" size=".1 .05 .05"/></body>
    <body name="free2" pos="0.5 1 .3"><freejoint/><geom type="ellipsoid" size=".1 .05 .07"/></body>
  </worldbody>
  <tendon>
    <fixed name="t0" limited="true" range="-0.2 0.2" frictionloss="0.05">
      <joint joint="j0" coef="1"/><joint joint="j1" coef="-0.5"/></fixed>
  </tendon>
  <equality>
    <connect body1="tip" body2="free" anchor="0 0 0"/>
    <weld body1="c" body2="free2" solref="0.01 1"/>
    <joint joint1="k" joint2="j0" polycoef="0 0.5 0 0 0"/>
  </equality>
</mujoco>"""

# nv 66 >= 60: MuJoCo's default Jacobian mode (auto) goes sparse
_PILE = (
    '<mujoco><worldbody><geom type="plane" size="5 5 .1"/>'
    + "".join(
        '<body pos="{:.2f} {:.2f} {:.2f}" euler="{} {} 0"><freejoint/><geom type="{}" size=".1 .07 .05"/></body>'.format(
            0.06 * (k % 3), 0.05 * (k % 2), 0.08 + 0.13 * k, 17 * k, 11 * k, "box" if k % 3 else "ellipsoid"
        )
        for k in range(11)
    )
    + "</worldbody></mujoco>"
)

OWN = {
    "stack_pyr_c1": _STACK.format(cone="pyramidal", condim=1, impratio=1),
    "stack_pyr_c3": _STACK.format(cone="pyramidal", condim=3, impratio=1),
    "stack_pyr_c4": _STACK.format(cone="pyramidal", condim=4, impratio=1),
    "stack_pyr_c6": _STACK.format(cone="pyramidal", condim=6, impratio=1),
    "stack_ell_c3": _STACK.format(cone="elliptic", condim=3, impratio=1),
    "stack_ell_c4": _STACK.format(cone="elliptic", condim=4, impratio=3),
    "stack_ell_c6": _STACK.format(cone="elliptic", condim=6, impratio=1),
    "limits_eq_pyr": _LIMITS.format(cone="pyramidal"),
    "limits_eq_ell": _LIMITS.format(cone="elliptic"),
    "pile_auto": _PILE,
}
SOLVERS = {"pgs": mujoco.mjtSolver.mjSOL_PGS, "cg": mujoco.mjtSolver.mjSOL_CG, "newton": mujoco.mjtSolver.mjSOL_NEWTON}


def load(name):
    sparse = name.endswith("_sparse")
    if sparse:
        name = name[: -len("_sparse")]
    if name in OWN:
        m = mujoco.MjModel.from_xml_string(OWN[name])
    else:
        if ASSETS is None:
            pytest.skip("gymnasium not installed")
        m = mujoco.MjModel.from_xml_path(os.path.join(ASSETS, name + ".xml"))
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_ISLAND
    if sparse:  # MuJoCo's sparse Jacobian path (mj_isSparse), which Newton's sparse Hessian follows
        m.opt.jacobian = mujoco.mjtJacobian.mjJAC_SPARSE
    return m


def states(m, n, seed):
    """n MjData states along a random-control rollout from a perturbed qpos0 (contacts appear as it settles)."""
    rng = np.random.default_rng(seed)
    md = mujoco.MjData(m)
    md.qpos[:] = m.qpos0
    md.qpos[:] += 0.02 * rng.standard_normal(m.nq)
    mujoco.mj_normalizeQuat(m, md.qpos)
    out = []
    for _ in range(int(0.5 / m.opt.timestep)):  # let floating bases land (humanoid starts in the air)
        md.ctrl[:] = rng.uniform(-1, 1, m.nu)
        mujoco.mj_step(m, md)
    for k in range(n):
        for _ in range(15):
            md.ctrl[:] = rng.uniform(-1, 1, m.nu)
            mujoco.mj_step(m, md)
        out.append(
            dict(
                qpos=md.qpos.copy(),
                qvel=md.qvel.copy(),
                act=md.act.copy(),
                ctrl=md.ctrl.copy(),
                qacc_warmstart=md.qacc_warmstart.copy(),
            )
        )
    return out


def run_oracle(m, st):
    md = mujoco.MjData(m)
    for k, v in st.items():
        getattr(md, k)[:] = v
    mujoco.mj_forward(m, md)
    return md


def primal_cost(m, md, qacc):
    """Gauss + constraint cost of qacc on mujoco's rows (mj_constraintUpdate on a copy)."""
    mc = mujoco.MjData(m)
    mujoco.mj_copyData(mc, m, md)
    J = dense_J(m, md)
    jar = J @ qacc - md.efc_aref
    cost = np.zeros(1)
    mujoco.mj_constraintUpdate(m, mc, jar, cost, 0)
    Ma = np.zeros(m.nv)
    mujoco.mj_mulM(m, mc, Ma, qacc)
    return cost[0] + 0.5 * np.dot(Ma - md.qfrc_smooth, qacc - md.qacc_smooth)


def rel(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    if b.size == 0:
        return 0.0
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))


def solve_case(m, st, solver, iterations=None, tolerance=None):
    """Run mujoco and ours on one state; returns dict of errors and iteration counts."""
    m.opt.solver = solver
    if iterations is not None:
        m.opt.iterations = iterations
    if tolerance is not None:
        m.opt.tolerance = tolerance
    md = run_oracle(m, st)
    d = api.Data(m, nconmax=max(1, md.ncon), njmax=max(1, md.nefc))
    ms = api.model_struct(m)
    copy_inputs(m, md, d)
    _drive(ms, d._struct)
    A = d._arrays
    nefc = md.nefc
    qacc = A["qacc"][0].copy()
    out = dict(
        nefc=nefc,
        ncon=md.ncon,
        niter_ours=int(A["solver_niter"][0]),
        niter_mj=int(md.solver_niter[0]),
        qacc=rel(qacc, md.qacc),
        force=rel(A["efc_force"][0, :nefc], md.efc_force),
        qfrc=rel(A["qfrc_constraint"][0], md.qfrc_constraint),
        efc_b=rel(A["efc_b"][0, :nefc], md.efc_b),
        state_diff=int(np.sum(A["efc_state"][0, :nefc] != md.efc_state)),
    )
    if solver == mujoco.mjtSolver.mjSOL_PGS and nefc and A["scr_slv_AR"].shape[1] >= nefc:
        AR = A["scr_slv_AR"][0, :nefc, :nefc]
        if not mujoco.mj_isSparse(m):
            # the dense dual matrix J M^-1 J' + R (make_ar, mj_projectConstraint's dense branch), in MuJoCo's
            # operation order: bitwise MuJoCo's
            out["AR"] = rel(AR, md.efc_AR.reshape(nefc, nefc))
        else:
            # MuJoCo's sparse AR: the same values, and the pattern ours marks (entries in it: nonzero or -0.0)
            ARm = np.zeros((nefc, nefc))
            pattern = np.zeros((nefc, nefc), bool)
            for i in range(nefc):
                a, k = md.efc_AR_rowadr[i], md.efc_AR_rownnz[i]
                ARm[i, md.efc_AR_colind[a : a + k]] = md.efc_AR[a : a + k]
                pattern[i, md.efc_AR_colind[a : a + k]] = True
            out["AR"] = rel(AR, ARm) + float(np.any(((AR != 0) | np.signbit(AR)) != pattern))
    n = min(out["niter_ours"], out["niter_mj"])
    for k in ("improvement", "gradient", "lineslope"):
        out["stat_" + k] = rel(A["solver_" + k][0, :n], getattr(md.solver, k)[:n])
    out["stat_int_diff"] = sum(
        int(np.sum(A["solver_" + k][0, :n] != getattr(md.solver, k)[:n]))
        for k in ("nactive", "nchange", "neval", "nupdate")
    )
    if nefc:
        c_ours, c_mj = primal_cost(m, md, qacc), primal_cost(m, md, md.qacc)
        out["cost_ratio"] = (c_ours - c_mj) / max(abs(c_mj), 1e-300)
        out["cost_ours"], out["cost_mj"] = c_ours, c_mj
    return out


# jacobian="sparse" (and pile_auto, nv 66): MuJoCo's sparse mode, which ours follows (sim/engine/solver_sparse.py):
# J products over each row's structural pattern (MuJoCo's efc_J_colind, zeros included), J' f of the primal solvers
# per dof, the dual solvers' AR on MuJoCo's sparse pattern, Newton's sparse Hessian: bitwise MuJoCo's (before the
# structural patterns, CG differed by up to 1.1e-5 at default settings and 2.8e-4 converged, ours running over J's
# nonzeros).  EXACT: these cases and the dense ones marked so must give MuJoCo's numbers bit for bit.
SPARSE = [
    "pile_auto",
    "humanoid_sparse",
    "stack_pyr_c3_sparse",
    "stack_ell_c4_sparse",
    "limits_eq_pyr_sparse",
    "limits_eq_ell_sparse",
]
EXACT = set(SPARSE)
CASES = [(name, solver) for name in GYM + list(OWN) + SPARSE for solver in SOLVERS]


@pytest.mark.parametrize("name, solver", CASES)
def test_solver_matches_mujoco(name, solver, request):
    m = load(name)
    nstate = 6 if request.config.getoption("--full") else 3
    sts = states(m, nstate, seed=sum(map(ord, name)))
    exact = name in EXACT
    tol_default, tol_converged = RTOL_DEFAULT, RTOL_CONVERGED
    total = 0
    for k, st in enumerate(sts):
        where = f"{name}/{solver} state {k}"
        # default settings: same iterates
        r = solve_case(m, st, SOLVERS[solver])
        total += r["nefc"]
        assert r["efc_b"] < 1e-9, (where, r)
        assert r.get("AR", 0.0) == 0.0, (where, r)
        assert r["niter_ours"] == r["niter_mj"], (where, r)
        assert r["qacc"] < tol_default and r["force"] < tol_default, (where, r)
        if exact:
            assert r["qacc"] == 0 and r["force"] == 0 and r["qfrc"] == 0, (where, r)
        # per-iteration statistics: integer counters equal, scaled improvement / line slope to the tolerance
        assert r["stat_int_diff"] == 0, (where, r)
        assert r["stat_improvement"] < tol_default and r["stat_lineslope"] < tol_default, (where, r)
        if r["nefc"]:
            assert r["cost_ours"] <= r["cost_mj"] + 1e-4 * abs(r["cost_mj"]), (where, r)
        # converged optimum
        r = solve_case(m, st, SOLVERS[solver], iterations=1000, tolerance=1e-12)
        if r["niter_mj"] < 1000:
            assert r["qacc"] < tol_converged and r["force"] < tol_converged, (where, "converged", r)
            if exact:
                assert r["qacc"] == 0 and r["force"] == 0, (where, "converged", r)
        if r["nefc"]:
            assert r["cost_ours"] <= r["cost_mj"] + 1e-4 * abs(r["cost_mj"]), (where, "converged", r)
        m.opt.iterations, m.opt.tolerance = 100, 1e-8
    assert total > 0, f"{name}: no constraint rows in the sampled states"


@pytest.mark.parametrize("solver", list(SOLVERS))
@pytest.mark.parametrize("name", ["stack_pyr_c3", "stack_ell_c6", "limits_eq_pyr"])
def test_coldstart(name, solver):
    """Warmstart disabled: qacc starts at qacc_smooth, PGS forces at 0."""
    m = load(name)
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_WARMSTART
    for k, st in enumerate(states(m, 2, seed=3)):
        r = solve_case(m, st, SOLVERS[solver])
        assert r["niter_ours"] == r["niter_mj"], (name, solver, k, r)
        assert r["qacc"] < RTOL_DEFAULT and r["force"] < RTOL_DEFAULT, (name, solver, k, r)


@pytest.mark.parametrize(
    "name, solver",
    [(name, solver) for name in ["humanoid", "stack_ell_c4", "stack_pyr_c3", "limits_eq_ell"] for solver in SOLVERS]
    + [("humanoid_sparse", "newton"), ("stack_ell_c4_sparse", "newton")],
)
def test_islands_default(name, solver):
    """MuJoCo's default island-wise solve (islands on) at default settings: our per-island solves give the
    same island-0 iteration count and the same qacc / efc_force (per-island details: tests/test_island.py)."""
    m = load(name)
    m.opt.disableflags &= ~int(mujoco.mjtDisableBit.mjDSBL_ISLAND)
    for k, st in enumerate(states(m, 2, seed=5)):
        r = solve_case(m, st, SOLVERS[solver])
        assert r["niter_ours"] == r["niter_mj"], (name, solver, k, r)
        assert r["qacc"] < RTOL_DEFAULT and r["force"] < RTOL_DEFAULT, (name, solver, k, r)


@pytest.mark.parametrize("name", ["stack_pyr_c3", "stack_ell_c4", "limits_eq_ell"])
def test_pgs_beyond_ar_capacity(name):
    """njmax > AR_CAP: PGS keeps a dense AR of AR_CAP rows when its Data is made for a dual solver (the same
    numbers as with room for njmax rows), and computes AR on the fly when the Data has none (made for Newton):
    the same iterates up to rounding (tests/test_noslip.py has the large problems)."""
    from sim.constants import AR_CAP

    m = load(name)
    for k, st in enumerate(states(m, 2, seed=1)):
        m.opt.solver = mujoco.mjtSolver.mjSOL_PGS
        md = run_oracle(m, st)
        assert 0 < md.nefc <= AR_CAP
        for dual in (True, False):
            m.opt.solver = mujoco.mjtSolver.mjSOL_PGS if dual else mujoco.mjtSolver.mjSOL_NEWTON
            d = api.Data(m, nconmax=max(1, md.ncon), njmax=AR_CAP + 1)
            m.opt.solver = mujoco.mjtSolver.mjSOL_PGS
            assert d._arrays["scr_slv_AR"].shape[1] == (AR_CAP if dual else 0)
            copy_inputs(m, md, d)
            _drive(api.model_struct(m), d._struct)
            A = d._arrays
            where = (name, k, dual)
            assert int(A["solver_niter"][0]) == md.solver_niter[0], where
            err = max(rel(A["qacc"][0], md.qacc), rel(A["efc_force"][0, : md.nefc], md.efc_force))
            assert err < (RTOL_DEFAULT if dual else 1e-9), (where, err)


def test_no_constraints():
    m = mujoco.MjModel.from_xml_string(
        '<mujoco><worldbody><body><freejoint/><geom size=".1"/></body></worldbody></mujoco>'
    )
    md = mujoco.MjData(m)
    mujoco.mj_forward(m, md)
    d = api.Data(m)
    copy_inputs(m, md, d)
    d._arrays["qacc"][0] = 7.0
    _drive(api.model_struct(m), d._struct)
    assert np.array_equal(d._arrays["qacc"][0], md.qacc_smooth)
    assert np.all(d._arrays["qfrc_constraint"][0] == 0)


if __name__ == "__main__":  # report table: PYTHONPATH=. python tests/test_solver.py [names]
    import sys

    names = sys.argv[1:] or CASES
    for name in names:
        m = load(name)
        for sname, sv in SOLVERS.items():
            for k, st in enumerate(states(m, 3, seed=sum(map(ord, name)))):
                m.opt.iterations, m.opt.tolerance = 100, 1e-8
                r = solve_case(m, st, sv)
                rc = solve_case(m, st, sv, iterations=1000, tolerance=1e-12)
                print(
                    f"{name:14s} {sname:6s} s{k} nefc {r['nefc']:3d} niter {r['niter_ours']:3d}/{r['niter_mj']:3d} "
                    f"qacc {r['qacc']:.1e} f {r['force']:.1e} st {r['state_diff']} cost {r.get('cost_ratio', 0):+.1e} | "
                    f"conv niter {rc['niter_ours']:4d}/{rc['niter_mj']:4d} qacc {rc['qacc']:.1e} "
                    f"f {rc['force']:.1e} cost {rc.get('cost_ratio', 0):+.1e} | stats impr {r['stat_improvement']:.0e} "
                    f"grad {r['stat_gradient']:.0e} slope {r['stat_lineslope']:.0e} int {r['stat_int_diff']}",
                    flush=True,
                )


def test_pgs_visiting_orders_kept_between_solves():
    """PGS visits its blocks in an order shuffled afresh each iteration from a fixed seed, so the orders depend on
    the number of blocks alone and a Data made for PGS keeps them (scr_pgs_order) for the next solve with as many
    blocks.  Trajectories must be bitwise those of a Data made for Newton (no room for the orders: each solve
    shuffles from the seed) switched to PGS: contacts come and go (the number of blocks changes), with islands
    (the islands' solves alternate block counts) and with 150 iterations at zero tolerance (past the 100 orders
    kept, the running row)."""
    path = os.path.join(ASSETS, "humanoid.xml")
    for iterations, tol, islands in ((50, 1e-8, False), (150, 0.0, True)):
        m = mujoco.MjModel.from_xml_path(path)
        m.opt.iterations = iterations
        m.opt.tolerance = tol
        if not islands:
            m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_ISLAND
        # capacities within AR_CAP: both Data keep the dense AR (one made for Newton would otherwise compute PGS's
        # AR on the fly, sim/types.py)
        m.opt.solver = mujoco.mjtSolver.mjSOL_NEWTON
        plain = api.Data(m, nworld=3, nconmax=200, njmax=800)
        m.opt.solver = mujoco.mjtSolver.mjSOL_PGS
        kept = api.Data(m, nworld=3, nconmax=200, njmax=800)
        assert plain._arrays["scr_pgs_order"].shape[1] == 0 and kept._arrays["scr_pgs_order"].shape[1] > 0
        rng = np.random.default_rng(4)
        nblocks = set()
        for t in range(60):
            ctrl = rng.uniform(-1, 1, (3, m.nu))
            plain.ctrl = ctrl
            kept.ctrl = ctrl
            api.step(m, plain)
            api.step(m, kept)
            nblocks.update(int(x) for x in np.asarray(kept.nefc))
            np.testing.assert_array_equal(np.asarray(kept.qacc), np.asarray(plain.qacc))
            np.testing.assert_array_equal(np.asarray(kept.efc_force), np.asarray(plain.efc_force))
        assert len(nblocks) > 3, nblocks
        if iterations == 150:
            assert int(np.max(np.asarray(kept.solver_niter))) > 100
