"""Setup shared by the dynamics conformance tests (test_smooth, test_tendon, test_fluid, test_transmission,
test_integrate, test_inverse, test_transition): states loaded into mujoco's and our Data, side-by-side steps."""

import os

import mujoco
import numpy as np
import pytest

import sim
from sim import api

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")


def batch_data(m, states):
    """Our Data with one world per state (dicts of Data field values)."""
    b = api.Data(m, nworld=len(states))
    for k in states[0]:
        setattr(b, k, np.stack([s[k] for s in states]))
    return b


def mujoco_forward(m, st, post_constraint=False):
    """mujoco.MjData at state st after mj_forward (and mj_rnePostConstraint if post_constraint)."""
    md = mujoco.MjData(m)
    for k, v in st.items():
        getattr(md, k)[:] = v
    mujoco.mj_forward(m, md)
    if post_constraint:
        mujoco.mj_rnePostConstraint(m, md)
    return md


def step_both(m, st, keys, ctrls):
    """(mujoco MjData, our Data) set to the fields `keys` of state st, then stepped side by side under the
    controls ctrls (nstep, nu)."""
    md = mujoco.MjData(m)
    d = api.Data(m)
    for k in keys:
        getattr(md, k)[:] = st[k]
        setattr(d, k, st[k])
    for ctrl in ctrls:
        md.ctrl[:] = ctrl
        d.ctrl = ctrl
        mujoco.mj_step(m, md)
        api.step(m, d)
    return md, d


def load_pair(name, assets):
    """(our Model, mujoco.MjModel) of tests/models/<name> (a name ending in .xml) or gymnasium's <name>.xml."""
    if name.endswith(".xml"):
        path = os.path.join(MODELS, name)
    else:
        if assets is None:
            pytest.skip("gymnasium not installed")
        path = os.path.join(assets, name + ".xml")
    return sim.load_model(path), mujoco.MjModel.from_xml_path(path)
