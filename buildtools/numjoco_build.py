"""numjoco's build backend: setuptools' (setuptools.build_meta), plus the shipped kernels on request.

    python -m build                                  # sdist and a wheel that compiles its kernels on first use
    python -m build --wheel -C ship-kernels=true     # a wheel carrying its kernels compiled for x86-64-v3

With ship-kernels (or NUMJOCO_SHIP_KERNELS=1), the build environment also gets numjoco's runtime requirements and
the robotics extra (the Fetch and Shadow Hand models), and after setuptools has built the wheel,
`python -m envs.precompile --render --ship DIR` compiles every registered id of every family (env, vector env,
render) for the baseline CPU of sim.jit.cache.BASELINE from the source tree, and DIR is added to the wheel as
sim/_kernels with its manifest (the key a process checks before using them: sim/jit/cache.py).  That takes as long
as a cold first use of every family (tens of minutes on 2 cores; -C ship-jobs=N compiles N targets at once,
default every core; -C ship-targets=ID,FAMILY,... limits the targets, default every registered id).  The wheel stays py3-none-any: where the key does not match (another CPU, Python, numba or
platform), the kernels are not used and compile on first use as without them.
"""

import base64
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401  (PEP 517 / PEP 660 hooks passed through unchanged)
    build_editable,
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

KERNELS = "sim/_kernels"


def _setting(config_settings, name, env, default=""):
    value = (config_settings or {}).get(name)
    return str(os.environ.get(env, default) if value is None else value)


def _ship(config_settings):
    return _setting(config_settings, "ship-kernels", "NUMJOCO_SHIP_KERNELS", "0").lower() in ("1", "true", "yes")


def _runtime_requirements():
    """The project's dependencies and its robotics extra, from pyproject.toml."""
    from setuptools.config.pyprojecttoml import read_configuration

    project = read_configuration("pyproject.toml")["project"]
    return list(project["dependencies"]) + list(project["optional-dependencies"]["robotics"])


def get_requires_for_build_wheel(config_settings=None):
    reqs = _setuptools.get_requires_for_build_wheel(config_settings)
    return reqs + _runtime_requirements() if _ship(config_settings) else reqs


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
    if _ship(config_settings):
        version = name.split("-")[1]
        jobs = _setting(config_settings, "ship-jobs", "NUMJOCO_SHIP_JOBS", str(os.cpu_count() or 1))
        with tempfile.TemporaryDirectory(prefix="numjoco-kernels-") as out:
            env = dict(os.environ, PYTHONPATH=os.getcwd(), NUMJOCO_QUIET="1")
            cmd = [sys.executable, "-m", "envs.precompile", "--render", "--jobs", jobs, "--ship", out]
            targets = _setting(config_settings, "ship-targets", "NUMJOCO_SHIP_TARGETS").split(",")
            for t in filter(None, targets):  # ids, or families (gymnasium, arm, dmc, robotics); default: every id
                cmd += ["--family", t] if "/" not in t and not t.endswith("-v0") else [t]
            subprocess.run(cmd + ["--version", version], cwd=os.getcwd(), env=env, check=True)
            add_to_wheel(os.path.join(wheel_directory, name), out, KERNELS)
    return name


def _record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def add_to_wheel(wheel, folder, prefix):
    """Add the files under `folder` to the wheel at `wheel` under `prefix`, with their RECORD lines."""
    tmp = wheel + ".tmp"
    with zipfile.ZipFile(wheel) as zin, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zout:
        items = zin.infolist()
        (record_name,) = [i.filename for i in items if i.filename.endswith(".dist-info/RECORD")]
        record = [line for line in zin.read(record_name).decode().splitlines() if line]
        for item in items:  # the packages first, then the added files, the .dist-info last
            if ".dist-info/" not in item.filename:
                zout.writestr(item, zin.read(item.filename))
        added = []
        for dirpath, dirnames, files in os.walk(folder):
            dirnames.sort()
            for f in sorted(files):
                full = os.path.join(dirpath, f)
                arc = prefix + "/" + os.path.relpath(full, folder).replace(os.sep, "/")
                with open(full, "rb") as fh:
                    data = fh.read()
                zout.writestr(arc, data)
                added.append("%s,%s,%d" % (arc, _record_hash(data), len(data)))
        for item in items:
            if ".dist-info/" in item.filename and item.filename != record_name:
                zout.writestr(item, zin.read(item.filename))
        own = [line for line in record if line.startswith(record_name + ",")]
        rest = [line for line in record if not line.startswith(record_name + ",")]
        zout.writestr(record_name, "\n".join(rest + added + own) + "\n")
    os.replace(tmp, wheel)
