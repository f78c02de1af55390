"""Sensors and energy against MuJoCo 3.17 (mj_sensorPos / Vel / Acc, mj_energyPos / Vel).

Models: tests/models/sensors_many.xml (every kinematic sensor type, noise, cutoff, reference frames),
tests/models/sensors_contact.xml (every contact / constraint / ray / camera / distance sensor, the contact
sensor's data fields and reductions, connect and weld constraints, cameras in every mode and projection),
tests/models/sensors_mesh.xml (distances and rays on meshes) and the random models of tests/mjcf_gen.py.

Tolerances, relative to max(1, |mujoco value|):
* 1e-9 for sensors that do not depend on the constraint solver (the issue's bound);
* 1e-6 for "contact-dependent" sensors: acceleration-stage sensors (their values come from the constraint
  forces, which the solvers compute to MuJoCo's iteration tolerance) and the contact sensors.
Measured (this file's cases): worst non-contact error ~1e-13, worst contact-dependent error ~1e-9.
"""

import os

import mujoco
import numpy as np
import pytest

from oracle import random_qpos
import sim
from sim import api

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
TOL = 1e-9
TOL_CONTACT = 1e-6
STAGE_ACC = 3


def load(name):
    """(our model, MuJoCo's).  sensors_mesh.xml runs on MuJoCo's compiled model (sim accepts an MjModel): our
    convex hulls list their faces in another order than qhull (see tests/test_assets.py), which changes the
    mesh graph the GJK support search walks."""
    path = os.path.join(MODELS, name)
    mm = mujoco.MjModel.from_xml_path(path)
    if name == "sensors_mesh.xml":
        return mujoco.MjModel.from_xml_path(path), mm
    return sim.load_model(path), mm


def contact_dependent(mm, i):
    """Sensor i's value depends on the constraint solution (acceleration stage) or is a contact sensor."""
    return mm.sensor_needstage[i] == STAGE_ACC or mm.sensor_type[i] == mujoco.mjtSensor.mjSENS_CONTACT


def sensor_errors(mm, ours, ref):
    """[(sensor id, type name, error relative to max(1, |ref|))] for every sensor."""
    out = []
    for i in range(mm.nsensor):
        a, n = mm.sensor_adr[i], mm.sensor_dim[i]
        if n == 0:
            continue
        err = float(np.max(np.abs(ours[a : a + n] - ref[a : a + n]) / np.maximum(1.0, np.abs(ref[a : a + n]))))
        out.append((i, mujoco.mjtSensor(mm.sensor_type[i]).name, err))
    return out


def check_sensors(mm, ours, ref, label=""):
    bad = []
    for i, name, err in sensor_errors(mm, ours, ref):
        tol = TOL_CONTACT if contact_dependent(mm, i) else TOL
        if not err <= tol:
            bad.append("%s sensor %d (%s): error %.3g > %g" % (label, i, name, err, tol))
    assert not bad, "\n".join(bad)


def set_both(md, d, qpos, qvel, ctrl=None, act=None, ws=None, time=None):
    for t in (md, d):
        t.qpos = qpos
        t.qvel = qvel
        if ctrl is not None:
            t.ctrl = ctrl
        if act is not None:
            t.act = act
        if ws is not None:
            t.qacc_warmstart = ws
        if time is not None:
            t.time = time


@pytest.mark.oracle
@pytest.mark.parametrize("name", ["sensors_many.xml", "sensors_contact.xml", "sensors_mesh.xml"])
def test_random_states(name):
    """mj_forward at random states (random qpos, qvel, ctrl): every sensor."""
    m, mm = load(name)
    md, d = mujoco.MjData(mm), sim.Data(m)
    rng = np.random.default_rng(1)
    for it in range(12):
        set_both(
            md,
            d,
            random_qpos(mm, rng, 0.3),
            rng.standard_normal(mm.nv),
            rng.uniform(-1, 1, mm.nu),
            time=rng.uniform(0, 10),
        )
        mujoco.mj_forward(mm, md)
        api.forward(m, d)
        check_sensors(mm, d.sensordata, md.sensordata, "state %d" % it)


@pytest.mark.oracle
@pytest.mark.full  # the libccd feature set with sensors is one more cold compile of the pipeline
def test_random_states_nativeccd_disabled():
    """sensors_mesh.xml with nativeccd disabled at random states: MuJoCo's mj_geomDistance then calls the pair's
    collider with distmax as the margin (libccd's MPR for mesh, box, cylinder and ellipsoid pairs) instead of its
    native distance; every sensor."""
    m, mm = load("sensors_mesh.xml")
    for model in (m, mm):
        model.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_NATIVECCD)
    md, d = mujoco.MjData(mm), sim.Data(m)
    rng = np.random.default_rng(3)
    for it in range(12):
        set_both(md, d, random_qpos(mm, rng, 0.3), rng.standard_normal(mm.nv), rng.uniform(-1, 1, mm.nu))
        mujoco.mj_forward(mm, md)
        api.forward(m, d)
        check_sensors(mm, d.sensordata, md.sensordata, "state %d" % it)


IMPLICITFAST_FULL = {("implicitfast", "sensors_contact.xml"), ("implicitfast", "sensors_mesh.xml")}


@pytest.mark.oracle
@pytest.mark.parametrize(
    "integrator,name",
    [
        # implicitfast with the contact or the mesh sensors is one more feature set's cold compile each (sensors_many
        # runs implicitfast by default, the contact and mesh models Euler and RK4): --full
        pytest.param(i, n, marks=pytest.mark.full if (i, n) in IMPLICITFAST_FULL else ())
        for i in ("Euler", "RK4", "implicitfast")
        for n in ("sensors_many.xml", "sensors_contact.xml", "sensors_mesh.xml")
    ],
)
def test_trajectory(name, integrator):
    """200 steps under random controls from MuJoCo's own states (each step starts from MuJoCo's state): the
    sensordata of every mj_step, and our next state, match."""
    m, mm = load(name)
    for model in (m, mm):
        model.opt.integrator = getattr(mujoco.mjtIntegrator, "mjINT_" + integrator.upper())
    md, d = mujoco.MjData(mm), sim.Data(m)
    rng = np.random.default_rng(2)
    worst = 0.0
    for k in range(200):
        md.ctrl[:] = rng.uniform(-1, 1, mm.nu)
        set_both(md, d, md.qpos, md.qvel, md.ctrl, md.act, md.qacc_warmstart, md.time)
        mujoco.mj_step(mm, md)
        api.step(m, d)
        check_sensors(mm, d.sensordata, md.sensordata, "step %d" % k)
        worst = max(worst, float(np.max(np.abs(d.qpos - md.qpos))))
    assert worst < 1e-6, worst


@pytest.mark.oracle
def test_contacts_happen():
    """The contact model really exercises contacts, limits and the sensors reading them (guards the above)."""
    m, mm = load("sensors_contact.xml")
    md = mujoco.MjData(mm)
    found = touch = limit = 0
    for k in range(200):
        mujoco.mj_step(mm, md)
        found += md.ncon > 0
        touch += md.sensordata[mm.sensor_adr[0]] > 0
        limit += md.nl > 0
    assert found > 150 and touch > 50


@pytest.mark.oracle
def test_batch_rows():
    """A batch of 3 worlds at different states fills its own sensordata rows."""
    m, mm = load("sensors_contact.xml")
    d = sim.Data(m, nworld=3)
    rng = np.random.default_rng(3)
    refs = []
    for w in range(3):
        md = mujoco.MjData(mm)
        md.qpos[:] = random_qpos(mm, rng, 0.2)
        md.qvel[:] = rng.standard_normal(mm.nv)
        d.qpos[w] = md.qpos
        d.qvel[w] = md.qvel
        mujoco.mj_forward(mm, md)
        refs.append(md.sensordata.copy())
    api.forward(m, d)
    for w in range(3):
        check_sensors(mm, d.sensordata[w], refs[w], "world %d" % w)


@pytest.mark.oracle
@pytest.mark.parametrize("integrator", ["Euler", "RK4"])
def test_energy(integrator):
    """opt.enableflags energy: d.energy after mj_forward and after mj_step (RK4: the energy of its last stage,
    as MuJoCo) and with the flag off (zeroed; e_potential / e_kinetic sensors still computed)."""
    m, mm = load("sensors_contact.xml")
    for model in (m, mm):
        model.opt.integrator = getattr(mujoco.mjtIntegrator, "mjINT_" + integrator.upper())
    md, d = mujoco.MjData(mm), sim.Data(m)
    rng = np.random.default_rng(4)
    for flags in (mujoco.mjtEnableBit.mjENBL_ENERGY, 0):
        m.opt.enableflags = mm.opt.enableflags = flags
        for k in range(5):
            set_both(md, d, random_qpos(mm, rng, 0.2), rng.standard_normal(mm.nv))
            mujoco.mj_forward(mm, md)
            api.forward(m, d)
            np.testing.assert_allclose(d.energy, md.energy, rtol=1e-12, atol=1e-12)
            mujoco.mj_step(mm, md)
            api.step(m, d)
            np.testing.assert_allclose(d.energy, md.energy, rtol=1e-9, atol=1e-9)
            if flags:
                assert md.energy[1] > 0
        check_sensors(mm, d.sensordata, md.sensordata)


@pytest.mark.oracle
def test_energy_springs():
    """mj_energyPos with joint (incl. ball / free quaternion) and tendon springs and a gravity-disabled run."""
    xml = """
<mujoco>
  <option><flag energy="enable"/></option>
  <worldbody>
    <body pos="0 0 1"><freejoint/><geom size=".1"/>
      <body pos="0 0 -.3"><joint type="ball" stiffness="2"/><geom size=".05" fromto="0 0 0 0 0 -.2" type="capsule"/>
        <body pos="0 0 -.3"><joint name="h" axis="0 1 0" stiffness="3" springref="20"/><geom size=".04"/></body>
      </body>
    </body>
    <body pos="1 0 1"><joint name="s" type="slide" axis="1 0 0" stiffness="5"/><geom size=".05"/></body>
  </worldbody>
  <tendon><fixed stiffness="4" springlength="-.1 .1"><joint joint="h" coef="1"/><joint joint="s" coef="2"/></fixed>
  </tendon>
</mujoco>"""
    mm = mujoco.MjModel.from_xml_string(xml)
    m = sim.load_model(xml)
    md, d = mujoco.MjData(mm), sim.Data(m)
    rng = np.random.default_rng(5)
    for dis in (0, mujoco.mjtDisableBit.mjDSBL_GRAVITY):
        m.opt.disableflags = mm.opt.disableflags = dis
        for k in range(5):
            set_both(md, d, random_qpos(mm, rng, 0.5), rng.standard_normal(mm.nv))
            mujoco.mj_forward(mm, md)
            api.forward(m, d)
            np.testing.assert_allclose(d.energy, md.energy, rtol=1e-12, atol=1e-12)


@pytest.mark.oracle
def test_disabled_sensors_kept():
    """disable flag sensor: sensordata is not recomputed (MuJoCo leaves it as it was)."""
    m, mm = load("sensors_many.xml")
    d = sim.Data(m)
    api.forward(m, d)
    before = d.sensordata.copy()
    m.opt.disableflags = mujoco.mjtDisableBit.mjDSBL_SENSOR
    d.qpos = random_qpos(mm, np.random.default_rng(6), 0.5)
    api.step(m, d)
    np.testing.assert_array_equal(d.sensordata, before)


@pytest.mark.oracle
def test_cameras():
    """cam_xpos / cam_xmat of fixed, track, trackcom, targetbody, targetbodycom cameras (mj_camlight)."""
    m, mm = load("sensors_contact.xml")
    md, d = mujoco.MjData(mm), sim.Data(m)
    rng = np.random.default_rng(7)
    for k in range(5):
        set_both(md, d, random_qpos(mm, rng, 0.3), np.zeros(mm.nv))
        mujoco.mj_forward(mm, md)
        api.forward(m, d)
        np.testing.assert_allclose(d.cam_xpos, md.cam_xpos, rtol=0, atol=1e-12)
        np.testing.assert_allclose(d.cam_xmat, md.cam_xmat, rtol=0, atol=1e-12)


@pytest.mark.oracle
def test_rne_post_constraint_with_contacts_and_equalities():
    """cacc, cfrc_int, cfrc_ext with contact and connect / weld wrenches (mj_rnePostConstraint)."""
    m, mm = load("sensors_contact.xml")
    md, d = mujoco.MjData(mm), sim.Data(m)
    rng = np.random.default_rng(8)
    for k in range(8):
        set_both(md, d, random_qpos(mm, rng, 0.3), rng.standard_normal(mm.nv))
        mujoco.mj_forward(mm, md)
        api.forward(m, d)
        mujoco.mj_rnePostConstraint(mm, md)
        api.rne_post_constraint(m, d)
        for f in ("cacc", "cfrc_ext", "cfrc_int"):
            ref = getattr(md, f)
            err = np.max(np.abs(getattr(d, f) - ref) / np.maximum(1.0, np.abs(ref)))
            assert err < TOL_CONTACT, (f, err)


def test_tactile_sensor_fields():
    """tactile sensors load (simulated: tests/test_tactile.py): their sensor_* fields equal MuJoCo's."""
    xml = """<mujoco><asset><mesh name="m" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/></asset>
      <worldbody><body><freejoint/><geom name="g" type="mesh" mesh="m"/></body></worldbody>
      <sensor><tactile mesh="m" geom="g"/></sensor></mujoco>"""
    m = mujoco.MjModel.from_xml_string(xml)
    ours = sim.load_model(xml)
    for k in ("type", "objtype", "objid", "reftype", "refid", "dim", "adr", "needstage", "datatype"):
        np.testing.assert_array_equal(np.asarray(getattr(ours, "sensor_" + k)), getattr(m, "sensor_" + k), err_msg=k)


def test_no_sensors_no_fields():
    """A model without sensors has an empty sensordata and energy zeroed by forward."""
    m = sim.load_model('<mujoco><worldbody><body><freejoint/><geom size=".1"/></body></worldbody></mujoco>')
    d = sim.Data(m)
    api.forward(m, d)
    assert d.sensordata.shape == (0,)
    assert np.all(d.energy == 0)


PER_SET = 3  # default run: random models per feature set of the fixed models, among the first DEFAULT_SEEDS seeds
DEFAULT_SEEDS = 80


def _random_sensor_models(full_run):
    """[(seed, xml)] of the random models of tests/mjcf_gen.py with a <sensor> section: with --full every one of
    the first 200 seeds; by default, of the first DEFAULT_SEEDS seeds, the first PER_SET of each feature set
    (sim/jit/features.py) of this file's fixed models (sensors_many / _contact / _mesh.xml), whose forward
    kernels test_random_states compiles: a random model of any other feature set is one more cold compile of
    the pipeline (about half a minute each)."""
    import mjcf_gen

    fixed = {
        api.model_features(load(name)[0]) for name in ("sensors_many.xml", "sensors_contact.xml", "sensors_mesh.xml")
    }
    taken, out = {}, []
    for seed in range(200 if full_run else DEFAULT_SEEDS):
        xml, features = mjcf_gen.generate_with_features(seed)
        if "sensor" not in features:
            continue
        if not full_run:
            try:
                f = api.model_features(sim.load_model(xml))
            except sim.UnsupportedError:
                continue
            if f not in fixed or taken.get(f, 0) >= PER_SET:
                continue
            taken[f] = taken.get(f, 0) + 1
        out.append((seed, xml))
    assert full_run or set(taken) == fixed, "a fixed model's feature set has no random model in the seeds scanned"
    return out


@pytest.mark.oracle
def test_random_models(full_run):
    """Sensors of the random models of tests/mjcf_gen.py (those with a <sensor> section: every one of the first
    200 seeds with --full; by default PER_SET of each feature set of the fixed models, _random_sensor_models) at
    a random state after mj_forward; models our pipeline refuses (sim.UnsupportedError) are counted apart, and at
    least 30 models (6 by default: 7 of the first DEFAULT_SEEDS seeds qualify) must be compared."""
    compared = refused = 0
    cases = _random_sensor_models(full_run)
    least = 30 if full_run else 6
    for seed, xml in cases:
        mm = mujoco.MjModel.from_xml_string(xml)
        m = sim.load_model(xml)
        md, d = mujoco.MjData(mm), sim.Data(m)
        rng = np.random.default_rng(seed)
        set_both(md, d, random_qpos(mm, rng, 0.2), rng.standard_normal(mm.nv), rng.uniform(-1, 1, mm.nu))
        try:
            api.forward(m, d)
        except sim.UnsupportedError:
            refused += 1
            continue
        mujoco.mj_forward(mm, md)
        check_sensors(mm, d.sensordata, md.sensordata, "seed %d" % seed)
        compared += 1
    assert compared >= least, (compared, refused)
