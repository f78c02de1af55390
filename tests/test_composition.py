"""Model composition (<replicate>, <attach>) and skins beyond the field-by-field corpus comparison
(tests/models/replicate_sections.xml, attach.xml, attach_keyframe.xml, skin.xml are in test_compiler_corpus):
the composed models simulate as MuJoCo's, MuJoCo's own replicate / attach behaviours that only warn, attaching a
URDF, and the errors of tests/malformed/ being the ones MuJoCo raises.
"""

import os
import shutil
import warnings

import mujoco
import numpy as np
import pytest

import oracle

import sim

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "models")


def _simulate(path, nstep, key=None, no_contacts=False):
    """Max |qpos - qpos_mj| over nstep steps from the initial state (or keyframe `key`), and the contact counts.
    no_contacts: a copy of the model with contacts disabled, next to it (for its relative files)."""
    with open(path) as f:
        text = f.read()
    if no_contacts:
        head = text.index(">", text.index("<mujoco")) + 1
        text = text[:head] + '<option><flag contact="disable"/></option>' + text[head:]
    ours, theirs = oracle.load_pair(text, os.path.dirname(path))
    md = mujoco.MjData(theirs)
    d = sim.Data(ours)
    if key is not None:
        mujoco.mj_resetDataKeyframe(theirs, md, key)
        sim.reset(ours, d, key)
    rng = np.random.default_rng(0)
    err, ncon = 0.0, []
    for _ in range(nstep):
        ctrl = rng.uniform(-1, 1, theirs.nu)
        md.ctrl[:] = ctrl
        d.ctrl = ctrl
        mujoco.mj_step(theirs, md)
        sim.step(ours, d)
        err = max(err, float(np.max(np.abs(np.asarray(d.qpos).ravel() - md.qpos))))
        ncon.append(md.ncon)
    assert np.all(np.isfinite(md.qpos))
    return err, ncon


# (steps, keyframe, contacts off, bound): the composed models run MuJoCo's arithmetic.  attach.xml is simulated
# with contacts disabled: its attached hands and self-attached arm start inside each other, and deep mesh-mesh
# penetrations (EPA on our own convex hull) differ from MuJoCo's at 1e-9, which such a pile amplifies (its
# joints, tendons, equalities and actuators are what the composition built)
SIMULATIONS = {
    "replicate_sections.xml": (200, None, False, 1e-9),
    "attach.xml": (200, None, True, 1e-9),
    "attach_keyframe.xml": (200, 2, False, 1e-9),
    "skin.xml": (200, None, False, 1e-9),
}


@pytest.mark.oracle
@pytest.mark.parametrize("name", sorted(SIMULATIONS))
def test_composed_model_simulates_as_mujoco(name):
    nstep, key, no_contacts, bound = SIMULATIONS[name]
    err, ncon = _simulate(os.path.join(MODELS, name), nstep, key, no_contacts)
    assert err <= bound, err


@pytest.mark.oracle
def test_attached_keyframe_resets_as_mujoco():
    path = os.path.join(MODELS, "attach_keyframe.xml")
    theirs = mujoco.MjModel.from_xml_path(path)
    ours = sim.load_model(path)
    assert theirs.nkey == 5
    for k in range(theirs.nkey):
        md = mujoco.MjData(theirs)
        d = sim.Data(ours)
        mujoco.mj_resetDataKeyframe(theirs, md, k)
        sim.reset(ours, d, k)
        for f in ("qpos", "qvel", "act", "ctrl", "mocap_pos", "mocap_quat"):
            np.testing.assert_array_equal(np.asarray(getattr(d, f)).reshape(getattr(md, f).shape), getattr(md, f))


def test_attach_option_conflict_warns():
    """compiler conflict='warning' (default): this model keeps its timestep; MuJoCo prints a warning, we warn."""
    path = os.path.join(MODELS, "attach.xml")
    with pytest.warns(UserWarning, match="timestep"):
        ours = sim.load_model(path)
    assert ours.opt.timestep == mujoco.MjModel.from_xml_path(path).opt.timestep == 0.002


@pytest.mark.oracle
def test_unknown_attribute_inside_replicate_ignored_with_warning():
    """MuJoCo's schema check does not look inside <replicate>: unknown attributes there are ignored."""
    xml = (
        "<mujoco><worldbody><replicate count='2' offset='1 0 0' colour='red'><body bogus='1'>"
        "<geom size='.1' shiny='yes'/></body></replicate></worldbody></mujoco>"
    )
    with pytest.warns(UserWarning, match="colour|bogus|shiny"):
        ours = sim.load_model(xml)
    oracle.assert_models_match(ours, mujoco.MjModel.from_xml_string(xml))


@pytest.mark.oracle
@pytest.mark.parametrize(
    "policy, timestep", [("merge", ""), ("merge", "0.01"), ("merge", "0.1"), ("error", ""), ("warning", "0.01")]
)
def test_attach_conflict_policies(policy, timestep, tmp_path):
    """compiler conflict: merge adopts what only the attached model writes and merges the rest per field (the
    smaller timestep, the union of flags); error refuses differing values both models write."""
    shutil.copy(os.path.join(MODELS, "include", "attach_child.xml"), tmp_path / "child.xml")
    (tmp_path / "assets").mkdir()
    shutil.copy(os.path.join(HERE, "assets", "tetra.stl"), tmp_path / "assets" / "tetra.stl")
    child = (tmp_path / "child.xml").read_text().replace('meshdir="../../assets"', 'meshdir="assets"')
    child = child.replace(
        '<option timestep="0.05"/>', '<option timestep="0.05"><flag gravity="disable"/></option><size nkey="3"/>'
    )
    (tmp_path / "child.xml").write_text(child)
    opt = f'<option timestep="{timestep}"/>' if timestep else ""
    (tmp_path / "parent.xml").write_text(
        f'<mujoco><compiler conflict="{policy}"/>{opt}<asset><model name="c" file="child.xml"/></asset>'
        '<worldbody><attach model="c" prefix="c/"/></worldbody></mujoco>'
    )
    path = str(tmp_path / "parent.xml")
    theirs = mujoco.MjModel.from_xml_path(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = sim.load_model(path)
    oracle.assert_models_match(ours, theirs)


@pytest.mark.oracle
def test_attach_urdf_model():
    """A URDF can be an <asset><model> too: whole, and one of its links."""
    ours, theirs = oracle.load_pair(
        '<mujoco><asset><model name="q" file="quadruped.urdf"/></asset><worldbody><attach model="q" '
        'prefix="dog/"/><frame pos="2 0 0"><attach model="q" body="FR_hip" prefix="leg/"/></frame></worldbody>'
        "</mujoco>",
        os.path.join(HERE, "assets", "urdf"),
    )
    oracle.assert_models_match(ours, theirs)
    # this model does not fuse static bodies (the URDF's fusestatic stays with the URDF): its feet stay bodies
    assert theirs.nbody == 22 and theirs.njnt == 16
