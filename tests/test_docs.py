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
