"""sim/jit/features.py: an optional part of the pipeline is in a model's feature set exactly when the model (or its
options) uses it.  A part left out is never compiled for that feature set, so a wrong "off" would drop physics
silently; the conformance tests (test_tendon, test_fluid, test_transmission, test_inverse, test_sensor, ...)
compare such models with MuJoCo through their own feature sets, these tests pin the predicates."""

import numpy as np
import pytest

import sim
from sim import api
from sim.jit.features import (
    F_CYLBOX,
    F_DIAGEXACT,
    F_ELLIPTIC,
    F_ENERGY,
    F_EQUALITY,
    F_FLUID,
    F_FWDINV,
    F_NOSLIP,
    F_SPARSE,
    F_TENDON,
    F_TRN,
    FULL,
    NAMES,
    features,
)

BASE = """<mujoco>
  %s
  <worldbody>
    <geom type="plane" size="5 5 .1"/>
    <body name="a" pos="0 0 1"><joint name="j" type="hinge"/><geom type="capsule" size=".1" fromto="0 0 0 0 0 1"/>
      <site name="s" pos="0 0 1"/></body>
    <body name="b" pos="1 0 1"><joint name="j2" type="slide"/><geom type="capsule" size=".1" fromto="0 0 0 0 0 .5"/>
      <site name="s2"/></body>
  </worldbody>
  %s
</mujoco>"""

NEW = (F_TENDON, F_EQUALITY, F_FLUID, F_TRN, F_ENERGY, F_FWDINV, F_DIAGEXACT, F_CYLBOX, F_SPARSE, F_ELLIPTIC, F_NOSLIP)
CASES = {
    "none": ("", "", ()),
    "joint actuator": ("", '<actuator><motor joint="j"/></actuator>', ()),
    "site actuator": ("", '<actuator><general site="s" gear="1 0 0 0 0 0"/></actuator>', ()),
    "spatial tendon": ("", '<tendon><spatial><site site="s"/><site site="s2"/></spatial></tendon>', (F_TENDON,)),
    "fixed tendon": ("", '<tendon><fixed><joint joint="j" coef="1"/></fixed></tendon>', (F_TENDON,)),
    "connect": ("", '<equality><connect body1="a" body2="b" anchor="0 0 0"/></equality>', (F_EQUALITY,)),
    "density": ('<option density="1.2"/>', "", (F_FLUID,)),
    "viscosity": ('<option viscosity="0.1"/>', "", (F_FLUID,)),
    "refsite": ("", '<actuator><general site="s" refsite="s2" gear="1 0 0 0 0 0"/></actuator>', (F_TRN,)),
    "slider-crank": ("", '<actuator><general cranksite="s" slidersite="s2" cranklength="1"/></actuator>', (F_TRN,)),
    "adhesion": ("", '<actuator><adhesion body="a" ctrlrange="0 1"/></actuator>', (F_TRN,)),
    "energy": ('<option><flag energy="enable"/></option>', "", (F_ENERGY,)),
    "fwdinv": ('<option><flag fwdinv="enable"/></option>', "", (F_FWDINV,)),
    "diagexact": ('<option><flag diagexact="enable"/></option>', "", (F_DIAGEXACT,)),
    "cylinder": (
        "",
        '<worldbody><body pos="3 0 1"><freejoint/><geom type="cylinder" size=".1 .2"/></body></worldbody>',
        (F_CYLBOX,),
    ),
    "box": ("", '<worldbody><geom type="box" size=".1 .2 .3" pos="0 3 0"/></worldbody>', (F_CYLBOX,)),
    "jacobian sparse": ('<option jacobian="sparse"/>', "", (F_SPARSE,)),
    "elliptic cones": ('<option cone="elliptic"/>', "", (F_ELLIPTIC,)),
    "noslip": ('<option noslip_iterations="3"/>', "", (F_NOSLIP,)),
    "jacobian sparse, CG": ('<option jacobian="sparse" solver="CG"/>', "", (F_SPARSE,)),
    "jacobian sparse, PGS": ('<option jacobian="sparse" solver="PGS"/>', "", (F_SPARSE,)),
    # a 58-body slide chain: nv 60 with the base's two joints
    "nv 60, auto": (
        "",
        '<worldbody><body pos="0 0 3"><joint type="slide" axis="1 0 0"/><geom size=".1"/>'
        + '<body><joint type="slide" axis="0 1 0"/><geom size=".1"/>' * 57
        + "</body>" * 58
        + "</worldbody>",
        (F_SPARSE,),
    ),
    "nv 60, dense": (
        '<option jacobian="dense"/>',
        '<worldbody><body pos="0 0 3"><joint type="slide" axis="1 0 0"/>'
        '<geom size=".1"/>' + '<body><joint type="slide"/><geom size=".1"/>' * 57 + "</body>" * 58 + "</worldbody>",
        (),
    ),
}


@pytest.fixture(autouse=True)
def _no_workers(monkeypatch):
    """These tests load models and never step them: no worker compiling the parts of their feature sets."""
    monkeypatch.setenv("NUMJOCO_COMPILE_WORKERS", "0")


@pytest.mark.parametrize("case", sorted(CASES))
def test_feature_on_exactly_when_used(case):
    head, tail, on = CASES[case]
    m = sim.load_model(BASE % (head, tail))
    F = features(m)
    assert len(F) == len(NAMES) == len(FULL)
    assert {i for i in NEW if F[i]} == set(on), case


def test_option_features_follow_the_options():
    m = sim.load_model(BASE % ("", ""))
    assert api.model_features(m)[F_FLUID] is None
    m.opt.density = 1.2
    assert api.model_features(m)[F_FLUID] is True
    m.opt.density = 0.0
    m.opt.enableflags = int(m.opt.enableflags) | 2  # mjENBL_ENERGY
    F = api.model_features(m)
    assert F[F_FLUID] is None and F[F_ENERGY] is True
    m.opt.jacobian = 1  # mjJAC_SPARSE: MuJoCo's sparse mode
    assert api.model_features(m)[F_SPARSE] is True
    m.opt.jacobian = 0  # mjJAC_DENSE
    assert api.model_features(m)[F_SPARSE] is None
    m.opt.cone = 1  # mjCONE_ELLIPTIC
    assert api.model_features(m)[F_ELLIPTIC] is True
    assert api.model_features(m)[F_NOSLIP] is None
    m.opt.noslip_iterations = 2
    assert api.model_features(m)[F_NOSLIP] is True


def test_randomised_fluid_medium_compiles_fluid_forces():
    """A world may draw a density where the model has none: the vector env's feature set then has fluid forces
    (envs/randomize.py), though the base model's options say no."""
    from envs.randomize import WorldModels

    m = sim.load_model(BASE % ("", ""))
    assert api.model_features(m)[F_FLUID] is None
    wm = WorldModels(m, 2, {"opt.density": {"set": (1.0, 1.5)}})
    assert float(m.opt.density) == 0.0
    assert api.model_features(m)[F_FLUID] is True
    assert np.asarray(wm.mptrs).shape == (2,)
