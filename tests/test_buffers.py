"""Room for what MuJoCo has room for (issue 50, goal 3): a Data's contact and constraint-row buffers hold whatever
MuJoCo's arena for the model holds (its size: <size memory>, or MuJoCo's default rule from <size nconmax / njmax /
nstack>), and where MuJoCo's arena overflows, ours drops and warns as MuJoCo does.

- narena of our compiled models is MuJoCo's (every <size> form);
- dm_control's dog at a pile-up pose (more rows than its <size njmax="900">) and a pile of planks (more contacts
  than numjoco's former default) fit a default sim.Data as a mujoco.MjData;
- an arena too small for the rows (MuJoCo: CNSTRFULL, every row dropped) gives the same warning counts and state;
- a batch made smaller than MuJoCo's arena (a batch too large for the machine at MuJoCo's sizes) grows its buffers
  when a world outgrows them: forward computed again with room (bitwise as a Data with room), a step warned;
- a pickled Data carries only the used part of its buffers and comes back equal.
"""

import os
import pickle
import warnings

import mujoco
import numpy as np
import pytest

import sim
from sim import io as sio
from sim.jit.simd import LANES

W = mujoco.mjtWarning


def planks(n=118, per=6, gap=0.1, seed=0, memory=None):
    """A crisscross pile of n planks (free boxes, slightly rotated at random) on a plane."""
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(n):
        layer, i = divmod(k, per)
        off = -gap * (per - 1) / 2 + gap * i
        yaw = 90 * (layer % 2) + rng.uniform(-8, 8)
        x, y = (0.0, off) if layer % 2 == 0 else (off, 0.0)
        rows.append(
            f'<body pos="{x + rng.uniform(-0.02, 0.02):.3f} {y:.3f} {0.03 + 0.05 * layer:.3f}" '
            f'euler="{rng.uniform(-3, 3):.1f} {rng.uniform(-3, 3):.1f} {yaw:.1f}"><freejoint/>'
            '<geom type="box" size=".3 .04 .02"/></body>'
        )
    size = f'<size memory="{memory}"/>' if memory else ""
    return f'<mujoco>{size}<worldbody><geom type="plane" size="5 5 .1"/>{"".join(rows)}</worldbody></mujoco>'


def spheres(n, memory):
    """n free spheres stacked in a 10 x 10 grid above a plane, within an arena of the given size."""
    bodies = "".join(
        f'<body pos="{(i % 10) * 0.09 - 0.45:.3f} {((i // 10) % 10) * 0.09 - 0.45:.3f} {0.05 + 0.09 * (i // 100):.3f}">'
        '<freejoint/><geom size=".05"/></body>'
        for i in range(n)
    )
    return (
        f'<mujoco><size memory="{memory}"/><worldbody><geom type="plane" size="5 5 .1"/>{bodies}</worldbody></mujoco>'
    )


def rel(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.max(np.abs(a - b), initial=0.0) / max(1.0, float(np.max(np.abs(b), initial=0.0))))


def forward_both(xml_or_path, qpos, qvel=None, warmstart=None):
    """(mujoco MjData, our single-world Data) after forward at the same state; ours warns on any overflow."""
    if os.path.exists(xml_or_path):
        mm, m = mujoco.MjModel.from_xml_path(xml_or_path), sim.load_model(xml_or_path)
    else:
        mm, m = mujoco.MjModel.from_xml_string(xml_or_path), sim.load_model(xml_or_path)
    md = mujoco.MjData(mm)
    d = sim.Data(m)
    for dd in (md, d):
        dd.qpos = qpos
        if qvel is not None:
            dd.qvel = qvel
        if warmstart is not None:
            dd.qacc_warmstart = warmstart
    md.qpos[:] = qpos
    mujoco.mj_forward(mm, md)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sim.forward(m, d)
    return mm, md, m, d


SIZES = [
    "",
    '<size memory="5M"/>',
    '<size memory="123456"/>',
    '<size njmax="900" nconmax="300"/>',
    '<size nstack="300000"/>',
    '<size njmax="40"/>',
]


@pytest.mark.parametrize("size", SIZES)
def test_narena_as_mujoco(size):
    """Our compiled models carry MuJoCo's arena size (the default rule, <size memory>, legacy nstack / njmax /
    nconmax)."""
    xml = f'<mujoco>{size}<worldbody><body><freejoint/><geom size=".1"/></body><geom type="plane" size="1 1 .1"/></worldbody></mujoco>'
    assert sim.load_model(xml).narena == mujoco.MjModel.from_xml_string(xml).narena
    d = sim.Data(sim.load_model(xml))
    assert d.narena == mujoco.MjData(mujoco.MjModel.from_xml_string(xml)).narena


def test_capacity_covers_arena():
    """Default capacities: every contact MuJoCo's arena could hold (narena / sizeof(mjContact)) and every row it
    could hold with them (the fewest bytes a row takes); explicit capacities are kept."""
    m = sim.load_model(planks())
    ncon, nrow = sio.arena_capacity(m)
    assert ncon == m.narena // 584
    d = sim.Data(m)
    assert (d.nconmax, d.njmax) == (ncon, nrow)
    d = sim.Data(m, nconmax=10, njmax=20)
    assert (d.nconmax, d.njmax) == (10, 20)
    # the stride of mujoco's contact array is the size of mjContact
    mm = mujoco.MjModel.from_xml_string(planks())
    md = mujoco.MjData(mm)
    mujoco.mj_forward(mm, md)
    assert md.contact.dist.strides == (sio.SIZEOF_CONTACT,)


def _dog_pose(mm, nefc_min):
    """A pile-up pose of the dog: joints at random within their ranges, the body low (its parts pressed together
    and on the floor), the first with more than nefc_min rows."""
    rng = np.random.default_rng(0)
    md = mujoco.MjData(mm)
    for _ in range(200):
        q = mm.qpos0.copy()
        for j in range(mm.njnt):
            if mm.jnt_type[j] in (2, 3) and mm.jnt_limited[j]:
                q[mm.jnt_qposadr[j]] = rng.uniform(*mm.jnt_range[j])
        q[2] = rng.uniform(0.1, 0.35)
        md.qpos[:] = q
        mujoco.mj_forward(mm, md)
        if md.nefc > nefc_min:
            return q
    raise AssertionError("no pile-up pose found")


def test_dog_pileup():
    """dm_control's dog (<size njmax="900" nconmax="300">, which in MuJoCo only size its arena) at a pose with more
    rows than 900: a default sim.Data keeps every contact and row, as mujoco.MjData does."""
    dm = pytest.importorskip("dm_control")
    path = os.path.join(os.path.dirname(dm.__file__), "suite", "dog.xml")
    mm = mujoco.MjModel.from_xml_path(path)
    assert mm.njmax == 900
    q = _dog_pose(mm, 1000)
    _, md, m, d = forward_both(path, q)
    assert md.nefc > 1000 and md.warning[W.mjWARN_CNSTRFULL].number == 0
    assert (d.ncon, d.nefc, d.ne, d.nf, d.nl) == (md.ncon, md.nefc, md.ne, md.nf, md.nl)
    assert d.warning[W.mjWARN_CNSTRFULL].number == 0 and d.warning[W.mjWARN_CONTACTFULL].number == 0
    np.testing.assert_array_equal(d.efc_type, md.efc_type)
    # the same rows: the solution agrees to MuJoCo's rounding carried through the Newton and noslip iterations
    # (measured 2.2e-12; MuJoCo's own response to one ulp of qpos at this pose: 4.6e-12)
    assert int(d.solver_niter) == md.solver_niter[0]
    assert rel(d.qacc, md.qacc) < 1e-10, rel(d.qacc, md.qacc)


def test_planks_pile():
    """A pile of 118 planks settling: more contacts (up to 1,781) than numjoco's former default Data kept
    (8 per geom: 952); a default sim.Data keeps them all, as mujoco.MjData."""
    xml = planks()
    mm = mujoco.MjModel.from_xml_string(xml)
    md = mujoco.MjData(mm)
    best = None
    for _ in range(280):
        mujoco.mj_step(mm, md)
        if md.ncon > 8 * mm.ngeom and best is None:
            best = (md.qpos.copy(), md.qvel.copy(), md.qacc_warmstart.copy())
    assert best is not None
    _, md, m, d = forward_both(xml, *best)
    assert md.ncon > 8 * mm.ngeom
    assert (d.ncon, d.nefc) == (md.ncon, md.nefc)
    np.testing.assert_array_equal(d.contact.geom, md.contact.geom)


def test_arena_overflow_as_mujoco():
    """An arena that holds every contact but not their rows: MuJoCo warns CNSTRFULL (lastinfo narena) and drops
    every row; so does a default sim.Data, with the same counts and the same state after a few steps."""
    xml = spheres(300, "600K")
    mm = mujoco.MjModel.from_xml_string(xml)
    md = mujoco.MjData(mm)
    m = sim.load_model(xml)
    d = sim.Data(m)
    for _ in range(40):
        mujoco.mj_step(mm, md)
    with pytest.warns(RuntimeWarning, match="constraint buffer full"):
        sim.step(m, d, 40)
    assert md.ncon > 500 and md.nefc == 0
    assert (d.ncon, d.nefc) == (md.ncon, md.nefc)
    for k in (W.mjWARN_CNSTRFULL, W.mjWARN_CONTACTFULL):
        assert (d.warning[k].number, d.warning[k].lastinfo) == (md.warning[k].number, md.warning[k].lastinfo), k
    assert rel(d.qpos, md.qpos) < 1e-12 and rel(d.qvel, md.qvel) < 1e-12


def test_batch_grows(monkeypatch, blocks):
    """A batch made smaller than MuJoCo's arena (here: the reservation budget shrunk as for a batch too large for
    the machine) grows its buffers when a world outgrows them, between calls: forward is computed again with room
    (bitwise as a batch with room), a step warns that it dropped what did not fit, then the buffers have room.
    The first batch steps on blocks of LANES worlds, the second world by world."""
    xml = planks(n=48)
    m = sim.load_model(xml)
    mm = mujoco.MjModel.from_xml_string(xml)
    md = mujoco.MjData(mm)
    for _ in range(150):
        mujoco.mj_step(mm, md)
    need_con, need_efc = md.ncon, md.nefc
    monkeypatch.setattr(sio, "_BUDGET", 1.0)
    small = sim.Data(m, nworld=LANES + 1)  # stepped on blocks (sim/engine/batch), rebuilt when the buffers grow
    assert small._capped and small.nconmax < need_con and small.njmax < need_efc
    monkeypatch.undo()
    roomy = sim.Data(m, nworld=LANES + 1)
    assert not roomy._capped
    for d in (small, roomy):
        d.qpos, d.qvel, d.qacc_warmstart = md.qpos, md.qvel, md.qacc_warmstart
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sim.forward(m, small)
        sim.forward(m, roomy)
    assert m._sim.features in sim.api._BLOCKS.cfuncs  # on blocks
    assert small.nconmax >= need_con and small.njmax >= need_efc
    np.testing.assert_array_equal(small.ncon, roomy.ncon)
    np.testing.assert_array_equal(small.qacc, roomy.qacc)
    # a step that outgrows the buffers: warned, then grown
    monkeypatch.setattr(sio, "_BUDGET", 1.0)
    small = sim.Data(m, nworld=2)
    monkeypatch.undo()
    small.qpos, small.qvel, small.qacc_warmstart = md.qpos, md.qvel, md.qacc_warmstart
    with pytest.warns(RuntimeWarning, match="buffers grown"):
        sim.step(m, small)
    for _ in range(6):  # contacts dropped by the narrowphase are not counted: their capacity doubles until they fit
        if small.nconmax >= need_con:
            break
        with pytest.warns(RuntimeWarning, match="buffers grown"):
            sim.step(m, small)
    assert small.nconmax >= need_con and small.njmax >= need_efc
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sim.step(m, small, 3)
    assert np.all(small.nefc > 0)


def test_pickle_keeps_used_rows():
    """A pickled Data carries the contacts and rows in use (its buffers are sized for MuJoCo's arena) and comes
    back with the same capacities and values."""
    xml = planks(n=24)
    m = sim.load_model(xml)
    d = sim.Data(m, nworld=2)
    sim.step(m, d, 60)
    blob = pickle.dumps(d)
    assert len(blob) < 2e7
    e = pickle.loads(blob)
    assert (e.nconmax, e.njmax, e.nworld) == (d.nconmax, d.njmax, d.nworld)
    for name in ("qpos", "qacc", "ncon", "nefc"):
        np.testing.assert_array_equal(e._arrays[name], d._arrays[name])
    for w in range(2):  # rows and contacts in use (the rest of the buffers is scratch of earlier steps)
        n, c = d.nefc[w], d.ncon[w]
        np.testing.assert_array_equal(e._arrays["efc_force"][w, :n], d._arrays["efc_force"][w, :n])
        np.testing.assert_array_equal(e._arrays["efc_J"][w, :n], d._arrays["efc_J"][w, :n])
        np.testing.assert_array_equal(e._arrays["contact_pos"][w, :c], d._arrays["contact_pos"][w, :c])
    sim.step(m, d)
    sim.step(m, e)
    np.testing.assert_array_equal(e.qpos, d.qpos)
