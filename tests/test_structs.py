"""Data shapes and capacities."""
import numpy as np

import sim


def test_data_capacities_and_views():
    m = sim.load_model('assets/hopper.xml')
    d = sim.Data(m, nconmax=7, njmax=11)
    assert (d.nconmax, d.njmax) == (7, 11)
    assert d.ncon == 0 and d.nefc == 0
    assert d.contact.pos.shape == (0, 3)
    assert d.efc_J.shape == (0, m.nv)
    b = sim.Data(m, nworld=3, nconmax=7, njmax=11)
    assert b.contact.frame.shape == (3, 7, 9)
    assert b.efc_J.shape == (3, 11, m.nv)
    np.testing.assert_array_equal(b.ncon, np.zeros(3, np.int32))
