"""The documentation: the MkDocs site builds with warnings as errors (every page, link, anchor and API reference
resolves), and the README stays a front door (short, no dated figures, links that exist)."""

import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b|\b\d\d:\d\d UTC\b")


def test_site_builds_strict(tmp_path):
    """`mkdocs build --strict`: a broken link, a missing page or an API object that does not resolve fails."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=REPO)
    out = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    api = (tmp_path / "site" / "api" / "sim" / "index.html").read_text()
    for name in ("sim.loader.load_model", "sim.api.step", "sim.api.transition_fd", "sim.render.renderer.Renderer"):
        assert name in api, name  # the reference is generated from the docstrings, not empty


def test_readme_is_a_front_door():
    """<= 150 lines, the two commands verbatim, links that exist, no timestamps."""
    with open(os.path.join(REPO, "README.md")) as f:
        text = f.read()
    assert len(text.splitlines()) <= 150
    assert (
        'pip install -e ".[train]" && python -m training.train --env numjoco/Hopper-v0 '
        "--config training/configs/numjoco/hopper_ppo_fast.yaml --out runs/hopper"
    ) in text
    assert 'pip install -e ".[test]" && python -m pytest -q' in text
    for link in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if not link.startswith("http"):
            assert os.path.exists(os.path.join(REPO, link)), link
    assert not DATE.search(text), DATE.search(text).group(0)


def test_docs_carry_no_timestamps():
    """Figures carry the command that reproduces them, not the date they were taken."""
    for folder, _, files in os.walk(os.path.join(REPO, "docs")):
        for name in files:
            if name.endswith(".md"):
                with open(os.path.join(folder, name)) as f:
                    hit = DATE.search(f.read())
                assert hit is None, f"{name}: {hit.group(0)}"


# a figure as written: 2,247 / 1.36 / 1.1e-11 / 1.0e-06 (thousands separators dropped; "1.36-1.72x" gives two)
FIGURE = re.compile(r"(?<![\w.-])\d[\d,]*(?:\.\d+)?(?:e-\d+)?(?!\w|\.\d)")


def _figures(text):
    """The figures of a piece of markdown: code spans, links' targets and ids (v5, -v0, Python versions) left out."""
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"\b(?:v\d+|\d+-bit|x86-64(?:-v\d)?|3\.1[0-7]|CPython 3\.10-3\.14)\b", " ", text)
    text = re.sub(r"(\d)(?:x|µs|ms|s|kB|MB)\b", r"\1 ", text)  # units: 1.51x, 12.8µs
    text = re.sub(r"(\d)-(?=\d)", r"\1 ", text)  # ranges: 1.36-1.72
    return {f.replace(",", "") for f in FIGURE.findall(text)}


def _read(*paths):
    out = []
    for p in paths:
        with open(os.path.join(REPO, p)) as f:
            out.append(f.read())
    return "\n".join(out)


def _section(text, title):
    start = text.index(title)
    end = text.find("\n#", start + len(title))
    return text[start : end if end >= 0 else len(text)]


def test_readme_figures_are_the_docs():
    """Every performance and parity figure of the README is one that the docs page it links to states: the
    Performance table's against docs/performance.md; the tasks' parity, the corpus counts, the main job's returns
    and its cold start against their pages."""
    readme = _read("README.md")
    perf = _figures(_read("docs/performance.md"))
    rows = [r for r in _section(readme, "## Performance").splitlines() if r.startswith("| ")][2:]  # no header
    assert len(rows) >= 8, rows
    for row in rows:
        cells = row.split("|")
        figures = _figures(cells[3])
        assert figures, row
        assert figures <= perf, (cells[3], sorted(figures - perf))
    checks = [
        # (a paragraph of the README, by a phrase in it; the pages whose figures it may quote)
        ("The v5 tasks have the same observations", ("docs/environments.md", "docs/dmc.md", "docs/robotics.md")),
        ("Your own robot:", ("docs/corpus.md",)),
        ("A first run compiles the physics", ("docs/training.md", "docs/performance.md")),
    ]
    for phrase, pages in checks:
        start = readme.index(phrase)
        end = readme.find("\n\n", start)
        figures = _figures(readme[start:end])
        known = _figures(_read(*pages))
        assert figures, phrase
        assert figures <= known, (phrase, sorted(figures - known))
    # the scope page's table of measured figures: each one of the performance or Control Suite page's
    about = _section(_read("docs/about.md"), "What has been measured")
    known = _figures(_read("docs/performance.md", "docs/dmc.md"))
    rows = [r for r in about.splitlines() if r.startswith("| ")][2:]
    assert len(rows) >= 6, rows
    for row in rows:
        figures = _figures(row.split("|")[3])
        assert figures <= known, (row, sorted(figures - known))
    # the counts stated in words on the corpus page
    corpus = _read("docs/corpus.md")
    for n in ("204", "196", "49", "147", "111"):
        assert n in _figures(corpus), n


def test_docs_name_no_internal_issues():
    """The docs speak of goals, not of the project's internal issues."""
    for folder, _, files in os.walk(os.path.join(REPO, "docs")):
        for name in files:
            if name.endswith(".md") and name != "simd.md":
                with open(os.path.join(folder, name)) as f:
                    text = f.read()
                hit = re.search(r"(?i)\bthe (?:\w+ )?issue\b|issue ?#?\d+|\B#\d{2,}\b", text)
                assert hit is None, f"{name}: {hit.group(0)}"
