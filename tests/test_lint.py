"""Lint and format with ruff, configured in pyproject.toml ([tool.ruff]: line length 120, double quotes, rules
E4 / E7 / E9 / F), and no block of six or more lines copied between files.

`ruff check .` and `ruff format --check .` run on the whole repository (the one-off `ruff format` pass is done).
The copied-block check runs on the paths free of copied blocks (UNCOPIED); NUMJOCO_LINT_ALL=1 runs it on the
whole code base.
"""

import collections
import hashlib
import os
import shutil
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINT_ALL = os.environ.get("NUMJOCO_LINT_ALL", "0") == "1"

ALL_REASON = "the copied-block check of the whole code base runs with NUMJOCO_LINT_ALL=1 (blocks left: see UNCOPIED)"


def _ruff(*args):
    exe = shutil.which("ruff")
    cmd = [exe] if exe else [sys.executable, "-m", "ruff"]
    out = subprocess.run(
        cmd + list(args), cwd=REPO, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL
    )
    return out.returncode, out.stdout + out.stderr


def test_ruff_check_repository():
    rc, out = _ruff("check", "--no-cache", ".")
    assert rc == 0, out


def test_ruff_format_repository():
    rc, out = _ruff("format", "--check", "--no-cache", ".")
    assert rc == 0, out


# ---- copied blocks --------------------------------------------------------------------------------------------

BLOCK = 6  # lines
TRIVIAL = {")", "]", "}", "),", "],", "},", '"""', "else:", "try:", "return", "pass"}
# free of copied blocks today (between any two of their files)
UNCOPIED = ["training", "tests/test_docs.py", "tests/test_lint.py", "tests/test_wheel.py"]


def copied_blocks(paths, size=BLOCK):
    """{(file, file, ...): first lines} of the blocks of `size` consecutive code lines (stripped; blank, comment
    and bracket-only lines skipped, blocks under 120 characters ignored) that occur in more than one file."""
    files = []
    for path in paths:
        path = os.path.join(REPO, path)
        if os.path.isfile(path):
            files.append(path)
        for folder, dirs, names in os.walk(path):
            dirs[:] = [d for d in dirs if not d.startswith(("_", "."))]
            files += [os.path.join(folder, n) for n in names if n.endswith(".py")]
    where = collections.defaultdict(set)
    for path in files:
        with open(path, encoding="utf-8") as f:
            lines = [(i + 1, t.strip()) for i, t in enumerate(f)]
        lines = [(i, t) for i, t in lines if t and not t.startswith("#") and t not in TRIVIAL]
        for k in range(len(lines) - size + 1):
            block = "\n".join(t for _, t in lines[k : k + size])
            if len(block) >= 120:
                where[hashlib.sha1(block.encode()).digest()].add((os.path.relpath(path, REPO), lines[k][0]))
    found = collections.defaultdict(list)
    for locs in where.values():
        if len({p for p, _ in locs}) > 1:
            found[tuple(sorted({p for p, _ in locs}))].append(sorted(locs)[0])
    return dict(found)


def test_copied_blocks_detected(tmp_path):
    """The detector finds a six-line block in two files, and not a three-line one."""
    body = "".join(f"    value_{i} = compute_something_long(argument_{i}, other_argument_{i})\n" for i in range(6))
    for name, text in (("a.py", body), ("b.py", body), ("c.py", body[: len(body) // 2])):
        (tmp_path / name).write_text("def f():\n" + text)
    found = copied_blocks([str(tmp_path)])
    assert [tuple(os.path.basename(p) for p in files) for files in found] == [("a.py", "b.py")]


def test_no_copied_blocks_clean_paths():
    assert copied_blocks(UNCOPIED) == {}


@pytest.mark.skipif(not LINT_ALL, reason=ALL_REASON)
def test_no_copied_blocks_repository():
    assert copied_blocks(["sim", "envs", "training", "tests", "benchmarks"]) == {}
