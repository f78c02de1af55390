"""The batched step on blocks against the single-world step on every model the environments ship: the Gymnasium
v5 models, the Control Suite's, Fetch's and the Shadow Hand's (issue 49, goal 2).

Each model: a batch of 2 LANES + 1 worlds (a last block with padding lanes) from states MuJoCo reached with random
controls (benchmarks/simd_states.py), stepped in blocks (sim.step's default for a batch) with per-world random
controls, some worlds reset mid-run, one world diverging (the fault path resets it) and one with a bad
acceleration (mj_checkAcc), against every world stepped alone: every Data array of every world equal in every bit
(tests/test_simd_blocks.py run_against_single).  The default set runs two models that the environment tests compile
anyway; every model for 1000 steps under --full.
"""

import os

import gymnasium
import pytest

from sim.jit.simd import LANES

pytest.importorskip("mujoco")
from test_simd_blocks import run_against_single  # noqa: E402

pytestmark = pytest.mark.usefixtures("blocks")  # sim.step's batches on blocks, as a user's (tests/conftest.py)

GYM = os.path.join(os.path.dirname(gymnasium.__file__), "envs/mujoco/assets")

GYM_MODELS = (
    "ant",
    "half_cheetah",
    "hopper",
    "humanoid",
    "humanoidstandup",
    "inverted_double_pendulum",
    "inverted_pendulum",
    "pusher",
    "reacher",
    "swimmer",
    "walker2d",
)
DMC_MODELS = (
    "acrobot",
    "ball_in_cup",
    "cartpole",
    "cheetah",
    "finger",
    "fish",
    "hopper",
    "humanoid",
    "manipulator",
    "pendulum",
    "point_mass",
    "quadruped",
    "reacher",
    "swimmer",
    "walker",
)
ROBOTICS_MODELS = (
    "fetch/reach.xml",
    "fetch/push.xml",
    "fetch/slide.xml",
    "fetch/pick_and_place.xml",
    "hand/reach.xml",
    "hand/manipulate_block.xml",
    "hand/manipulate_egg.xml",
    "hand/manipulate_pen.xml",
)


def _robotics_path(rel):
    robotics = pytest.importorskip("gymnasium_robotics")
    return os.path.join(os.path.dirname(robotics.__file__), "envs/assets", rel)


DEFAULT = {("gym", "ant"), ("dmc", "cheetah")}


def _case(family, name):
    marks = () if (family, name) in DEFAULT else (pytest.mark.full,)
    return pytest.param(family, name, id=family + "-" + name.replace("/", "-").removesuffix(".xml"), marks=marks)


CASES = (
    [_case("gym", n) for n in GYM_MODELS]
    + [_case("dmc", n) for n in DMC_MODELS]
    + [_case("robotics", n) for n in ROBOTICS_MODELS]
)


def _path(family, name):
    if family == "gym":
        return os.path.join(GYM, name + ".xml")
    if family == "dmc":  # dm_control's own files (their includes beside them, as MuJoCo reads them)
        suite = pytest.importorskip("dm_control.suite")
        return os.path.join(os.path.dirname(suite.__file__), name + ".xml")
    return _robotics_path(name)


@pytest.mark.parametrize("family,name", CASES)
def test_model_steps_bitwise(family, name, full_run):
    """2 LANES + 1 worlds stepped in blocks, each world bitwise its single-world trajectory (200 steps; 1000 under
    --full, where every model runs)."""
    nstep = 1000 if full_run else 200
    assert run_against_single(_path(family, name), 2 * LANES + 1, nstep, check_every=50) is None
