"""Broken MJCF must be rejected with a precise sim.ModelError; unsupported features with sim.UnsupportedError.

Data: tests/malformed/*.xml (models MuJoCo 3.17 rejects), tests/malformed/unsupported/*.xml (models MuJoCo
accepts but numjoco does not simulate), tests/malformed/include/ (fragments included by some cases).  The
first line of each case is its expectation:

    <!-- expect: element=geom attribute=size line=5 -->
    <!-- expect: element=none attribute=none line=6 -->                     (XML syntax errors)
    <!-- expect: element=geom attribute=colour line=3 file=include/x.xml --> (error inside an included file)
    <!-- expect: unsupported element=pid attribute=none line=11 -->

element / attribute: the tag and attribute the error must name (`none`: the error names none; `a|b`: either
is accepted where MuJoCo's own message does not single one out); line: the line in the file named by `file`
(default: the case itself; line 1 is the expectation comment).  str(err) must contain that file's name.
"""

import glob
import os
import re

import pytest

import mujoco

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
MALFORMED_DIR = os.path.join(TESTS_DIR, "malformed")
UNSUPPORTED_DIR = os.path.join(MALFORMED_DIR, "unsupported")

_EXPECT = re.compile(r"<!--\s*expect:(.*?)-->")


def parse_expectation(path):
    """{'unsupported': bool, 'element': set|None, 'attribute': set|None, 'line': int, 'file': str|None}."""
    with open(path, encoding="utf-8") as f:
        first = f.readline()
    m = _EXPECT.search(first)
    if not m:
        raise ValueError(f"{path}: first line has no '<!-- expect: ... -->' comment")
    out = {"unsupported": False, "element": None, "attribute": None, "line": None, "file": None}
    for tok in m.group(1).split():
        if tok == "unsupported":
            out["unsupported"] = True
            continue
        key, _, val = tok.partition("=")
        if key in ("element", "attribute"):
            out[key] = {None if v == "none" else v for v in val.split("|")}
        elif key == "line":
            out["line"] = int(val)
        elif key == "file":
            out["file"] = val
        else:
            raise ValueError(f"{path}: unknown expectation key {key!r}")
    if out["element"] is None or out["attribute"] is None or out["line"] is None:
        raise ValueError(f"{path}: expectation needs element=, attribute= and line=")
    return out


def _cases(directory):
    return [
        pytest.param(p, id=os.path.splitext(os.path.basename(p))[0])
        for p in sorted(glob.glob(os.path.join(directory, "*.xml")))
    ]


MALFORMED = _cases(MALFORMED_DIR)
UNSUPPORTED = _cases(UNSUPPORTED_DIR)


def _check_error(err, path, exp):
    """Problems with the error's location, as a list of strings."""
    problems = []
    if err.element not in exp["element"]:
        problems.append(f"element: got {err.element!r}, expected {' or '.join(map(repr, exp['element']))}")
    if err.attribute not in exp["attribute"]:
        problems.append(f"attribute: got {err.attribute!r}, expected {' or '.join(map(repr, exp['attribute']))}")
    if err.line != exp["line"]:
        problems.append(f"line: got {err.line!r}, expected {exp['line']}")
    where = exp["file"] or os.path.basename(path)
    base = os.path.basename(where)
    if exp["file"] and (err.file is None or os.path.normpath(str(err.file)).replace("\\", "/").split("/")[-1] != base):
        problems.append(f"file: got {err.file!r}, expected the included file {exp['file']!r}")
    if base not in str(err):
        problems.append(f"str(err) does not name the file {base!r}")
    return problems


@pytest.mark.compiler
@pytest.mark.oracle
@pytest.mark.parametrize("path", MALFORMED)
def test_mujoco_rejects(path):
    """Guard on the corpus: every malformed case is also an error for MuJoCo 3.17."""
    parse_expectation(path)
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_path(path)


@pytest.mark.compiler
@pytest.mark.parametrize("path", MALFORMED)
def test_malformed_model_error(path):
    exp = parse_expectation(path)
    assert not exp["unsupported"]
    import sim

    try:
        sim.load_model(path)
    except sim.UnsupportedError as e:
        pytest.fail(f"a malformed model raised UnsupportedError instead of ModelError: {e}")
    except sim.ModelError as e:
        problems = _check_error(e, path, exp)
        assert not problems, f"{type(e).__name__}: {e}\n  " + "\n  ".join(problems)
    else:
        pytest.fail("sim.load_model accepted a model MuJoCo rejects")


@pytest.mark.compiler
@pytest.mark.oracle
@pytest.mark.parametrize("path", UNSUPPORTED)
def test_mujoco_accepts_unsupported_feature(path):
    """Guard on the corpus: the unsupported-feature cases are valid MuJoCo models."""
    exp = parse_expectation(path)
    assert exp["unsupported"]
    mujoco.MjModel.from_xml_path(path)


@pytest.mark.compiler
@pytest.mark.parametrize("path", UNSUPPORTED)
def test_unsupported_feature_error(path):
    exp = parse_expectation(path)
    import sim

    try:
        sim.load_model(path)
    except sim.UnsupportedError as e:
        problems = _check_error(e, path, exp)
        assert not problems, f"UnsupportedError: {e}\n  " + "\n  ".join(problems)
    except sim.ModelError as e:
        pytest.fail(f"expected sim.UnsupportedError, got {type(e).__name__}: {e}")
    else:
        pytest.fail("sim.load_model accepted a feature numjoco does not simulate (expected UnsupportedError)")


def test_corpus_size_and_headers():
    assert len(MALFORMED) >= 50
    for p in MALFORMED + UNSUPPORTED:
        parse_expectation(p.values[0])
    for p in UNSUPPORTED:
        assert parse_expectation(p.values[0])["unsupported"]
