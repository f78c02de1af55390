"""Accept / refuse exactly as MuJoCo 3.17 does: the differential checker of tests/accept_refuse.py under pytest.

Each case is one generated MJCF document (an element of the grammar with one attribute set to a value of its
domain, or a redundant combination real files carry); MuJoCo's verdict is the oracle.  Where both accept, the
compiled models are compared field by field (tests/oracle.py); where both refuse, numjoco's sim.ModelError must
name the file, the line and the element.  Any other outcome fails, unless the case is listed in
accept_refuse.KNOWN (then it is a strict xfail, and the disagreement is documented in docs/reliability.md with
MuJoCo's message and ours).

Default set: REGRESSIONS (the disagreements this checker found and that were fixed) and SUBSET_SIZE cases spread
evenly over the whole list (the same ones on every run).  --full: every case (about 10,600, a few minutes).
"""

import functools
import os

import pytest

import accept_refuse as ar

pytestmark = [pytest.mark.oracle, pytest.mark.compiler]

SUBSET_SIZE = 400

# Cases that disagreed before the compiler was fixed (label: what numjoco did); always in the default set, in this
# order (the two <connect> cases in a row check that the MuJoCo process is renewed after an unknown exception).
REGRESSIONS = {
    "fromto geom {'type': 'capsule', 'fromto': '0 0 0 0 0 .3', 'size': '.05', 'pos': '0 0 0'}": "refused pos 0 0 0",
    "fromto geom {'type': 'capsule', 'fromto': '0 0 0 0 0 .3', 'size': '.05', 'pos': '.1 0 0'}": "must refuse",
    "joint free autolimits=true limited='true'": "refused limited on a free joint",
    "joint free autolimits=false limited=true range=-1 1": "refused limited on a free joint",
    "joint hinge autolimits=true limited=auto range=1 -1": "limited where MuJoCo is not",
    "default joint class {'type': 'free'} element {'range': '0 1'}": "refused",
    "actuator motor joint and tendon {}": "refused two transmissions (MuJoCo keeps the last)",
    "tendon/fixed armature='-1'": "refused a negative armature on a fixed tendon",
    "tendon/spatial armature='-1'": "must refuse on a spatial tendon",
    "equality/connect anchor=''": "MuJoCo: 'Caught an unknown exception!'",
    "equality/connect body2=''": "MuJoCo hung here when its process was reused after the case above",
    "size nkey='-1'": "refused a negative nkey",
    "worldbody/body/camera output=''": "rgb, not 0",
}


@functools.cache
def _all_cases():
    """accept_refuse.all_cases(), built once."""
    return tuple(ar.all_cases())


def _cases(full):
    """[(label, xml)]: every case under --full, else REGRESSIONS then the even subset."""
    cases = list(_all_cases())
    if full:
        return cases
    by_label = dict(cases)
    missing = [k for k in REGRESSIONS if k not in by_label]
    assert not missing, f"regression cases no longer generated: {missing}"
    head = [(k, by_label[k]) for k in REGRESSIONS]
    return head + [c for c in ar.subset(cases, SUBSET_SIZE) if c[0] not in REGRESSIONS]


def pytest_generate_tests(metafunc):
    if "case" not in metafunc.fixturenames:
        return
    params = []
    for label, xml in _cases(metafunc.config.getoption("--full")):
        why = ar.known(label)
        marks = [pytest.mark.xfail(strict=True, raises=Disagreement, reason=why)] if why else []
        params.append(pytest.param((label, xml), id=label, marks=marks))
    metafunc.parametrize("case", params)


class Disagreement(AssertionError):
    """numjoco's verdict (or compiled model) is not MuJoCo's."""


@pytest.fixture(scope="module", autouse=True)
def _mujoco_process():
    """MuJoCo's verdicts come from one child process (renewed after a crash or hang), ended after the module."""
    yield
    ar._MUJOCO.close()


def test_accept_refuse(case):
    label, xml = case
    r = ar.check(label, xml)
    if r.outcome not in ar.AGREE:
        raise Disagreement(f"{r.outcome}: {label}\n  MuJoCo:  {r.mujoco}\n  numjoco: {r.ours or r.detail}")


def test_regressions_still_decided():
    """The regression cases get a verdict from MuJoCo (none is 'undecided': the checker would then compare nothing)."""
    cases = dict(_all_cases())
    for label in (
        "equality/connect anchor=''",
        "equality/connect body2=''",
        "joint free autolimits=true limited='true'",
    ):
        ok, err = ar._MUJOCO.verdict(cases[label])
        assert ok is not None, (label, err)


def test_known_are_documented():
    """Every known disagreement is in docs/reliability.md (its label prefix), and the page names the checker."""
    path = os.path.join(os.path.dirname(ar.TESTS_DIR), "docs", "reliability.md")
    with open(path) as f:
        text = f.read()
    assert "tests/test_accept_refuse.py" in text
    for prefix in ar.KNOWN:
        assert prefix in text, f"KNOWN case {prefix!r} is not documented in docs/reliability.md"


@pytest.mark.parametrize("attr", ["joint", "jointinparent", "tendon", "site", "cranksite", "body"])
def test_empty_transmission_names_the_attribute(attr):
    """An actuator whose only target is an empty name: refused by both, ours naming that attribute."""
    xml = dict(_all_cases())[f"actuator/general {attr}=''"]
    assert ar._MUJOCO.verdict(xml)[0] is False
    ours, err = ar.load_ours(xml)
    assert ours is None and isinstance(err, ar.sim.ModelError)
    assert (err.element, err.attribute, err.line) == ("general", attr, 10), str(err)
