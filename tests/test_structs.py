"""Data shapes and capacities."""

import numpy as np

import sim


def test_data_capacities_and_views():
    m = sim.load_model("envs/assets/hopper.xml")
    d = sim.Data(m, nconmax=7, njmax=11)
    assert (d.nconmax, d.njmax) == (7, 11)
    assert d.ncon == 0 and d.nefc == 0
    assert d.contact.pos.shape == (0, 3)
    assert d.efc_J.shape == (0, m.nv)
    b = sim.Data(m, nworld=3, nconmax=7, njmax=11)
    assert b.contact.frame.shape == (3, 7, 9)
    assert b.efc_J.shape == (3, 11, m.nv)
    np.testing.assert_array_equal(b.ncon, np.zeros(3, np.int32))


def test_struct_addresses_from_python_are_the_meminfo_addresses():
    """sim.jit.struct_addr (how sim.step passes the Model, Data and task structs to the compiled entry) reads the
    same address that jitted code reads from the struct, and the struct at that address holds the same arrays."""
    import copy
    from sim.jit import njit, struct_addr, struct_address, struct_at_address
    from sim.api import empty_task, model_struct
    from sim.types import DATA_TYPE

    @njit
    def address(st):
        return struct_address(st)

    data_at = struct_at_address(DATA_TYPE)

    @njit
    def qpos_dot(ptr):  # (a scalar back: these kernels keep no reference counts, sim/jit/codegen.py)
        q = data_at(ptr).qpos
        s = 0.0
        for i in range(q.shape[1]):
            s += q[0, i] * (i + 1)
        return s

    m = sim.load_model("envs/assets/hopper.xml")
    d, b = sim.Data(m), sim.Data(m, nworld=2)
    c = copy.copy(b)  # a new struct around the same arrays
    for st in (model_struct(m), d._struct, b._struct, c._struct, empty_task()):
        assert struct_addr(st) == address(st) and struct_addr(st) == st.__dict__["_addr"]
    assert struct_addr(c._struct) != struct_addr(b._struct)
    d.qpos = np.arange(d.qpos.size)
    assert qpos_dot(struct_addr(d._struct)) == float(np.dot(d.qpos, np.arange(1, d.qpos.size + 1)))
    assert d._struct._meminfo.refcount == 1  # the entries' struct-at-address takes and drops one reference
    for _ in range(3):
        sim.step(m, d)
        sim.step(m, b)
    assert d._struct._meminfo.refcount == 1 and b._struct._meminfo.refcount == 1
    assert model_struct(m)._meminfo.refcount == 1 and empty_task()._meminfo.refcount == 1
