"""Python-facing Data: MuJoCo-named arrays for one world (no world axis) or a batch (leading world axis)."""

from __future__ import annotations

import numpy as np

from sim import io as _io
from sim.constants import NWARNING
from sim.model import ModelLike
from sim.types import DATA_ARRAYS


class _WarningStat:
    def __init__(self, data, k):
        self._d = data
        self._k = k

    @property
    def number(self):
        v = self._d._arrays["warning_number"][:, self._k]
        return int(v[0]) if self._d.nworld is None else v

    @property
    def lastinfo(self):
        v = self._d._arrays["warning_lastinfo"][:, self._k]
        return int(v[0]) if self._d.nworld is None else v


class _WarningList:
    def __init__(self, data):
        self._d = data

    def __getitem__(self, k):
        k = int(k)
        if not 0 <= k < NWARNING:
            raise IndexError(k)
        return _WarningStat(self._d, k)

    def __len__(self):
        return NWARNING

    @property
    def number(self):
        a = self._d._arrays["warning_number"][:, :NWARNING]
        return a[0] if self._d.nworld is None else a

    @property
    def lastinfo(self):
        a = self._d._arrays["warning_lastinfo"][:, :NWARNING]
        return a[0] if self._d.nworld is None else a


_FIELDS = frozenset(n for n, _, _ in DATA_ARRAYS if not n.startswith(("scr_", "warning_", "contact_")))
# per-world integer counters: an int for one world, an (nworld,) array for a batch
_COUNTERS = frozenset(("ncon", "ne", "nf", "nl", "nefc", "solver_niter", "nisland", "nidof"))
# efc rows are shown up to nefc for one world (MuJoCo's shapes); a batch shows the whole buffer
_EFC = frozenset(n for n in _FIELDS if n.startswith("efc_"))


class _ContactView:
    """d.contact: MuJoCo's mjContact fields as arrays; rows [:ncon] for one world, the whole
    (nworld, nconmax, ...) buffer for a batch (valid rows per world: d.ncon)."""

    def __init__(self, data):
        object.__setattr__(self, "_d", data)

    def __getattr__(self, name):
        arr = self._d._arrays.get("contact_" + name)
        if arr is None:
            raise AttributeError(name)
        if self._d.nworld is None:
            return arr[0, : int(self._d._arrays["ncon"][0])]
        return arr

    def __len__(self):
        return int(self._d._arrays["ncon"][0]) if self._d.nworld is None else self._d._arrays["ncon"].copy()

    def __dir__(self):
        return sorted(n[len("contact_") :] for n in self._d._arrays if n.startswith("contact_"))


class Data:
    """Simulation state and outputs.  Data(m) is one world; Data(m, nworld=N) is a batch of N.

    Arrays have MjData's names; one world has MjData's shapes, a batch a leading world axis (nworld, ...).
    nconmax / njmax: the contact and constraint-row capacities per world (default: from the model's <size>, else
    numjoco's bounds for the model); contacts or rows beyond them are dropped with MuJoCo's warnings.
    """

    def __init__(
        self, m: ModelLike, nworld: int | None = None, nconmax: int | None = None, njmax: int | None = None
    ) -> None:
        n = 1 if nworld is None else int(nworld)
        if n < 1:
            raise ValueError("nworld must be >= 1")
        size = _io.data_sizes(m, nconmax, njmax)
        object.__setattr__(self, "nworld", nworld if nworld is None else n)
        object.__setattr__(self, "nconmax", size["nconmax"])
        object.__setattr__(self, "njmax", size["njmax"])
        object.__setattr__(self, "_arrays", _io.make_data_arrays(m, n, size))
        object.__setattr__(self, "_struct", _io.make_data_struct(self._arrays))
        object.__setattr__(self, "_model_id", id(m))
        object.__setattr__(self, "nv", int(m.nv))
        a = self._arrays
        a["qpos"][:] = np.asarray(m.qpos0, dtype=np.float64)
        a["eq_active"][:] = np.asarray(m.eq_active0).reshape(-1)
        mocapid = np.asarray(m.body_mocapid)
        for b in range(int(m.nbody)):
            if mocapid[b] >= 0:
                a["mocap_pos"][:, mocapid[b]] = np.asarray(m.body_pos).reshape(-1, 3)[b]
                a["mocap_quat"][:, mocapid[b]] = np.asarray(m.body_quat).reshape(-1, 4)[b]

    @property
    def warning(self):
        """MuJoCo-style warning stats: d.warning[mjWARN_X].number / .lastinfo (per world for a batch)."""
        return _WarningList(self)

    @property
    def contact(self):
        """Contacts as mjContact field arrays: d.contact.pos (ncon, 3), d.contact.geom (ncon, 2), ..."""
        return _ContactView(self)

    def __getattr__(self, name):
        if name in _FIELDS:
            arr = self._arrays[name]
            if self.nworld is None:
                if name == "time":
                    return float(arr[0])
                if name in _COUNTERS:
                    return int(arr[0])
                if name in _EFC:
                    return arr[0, : int(self._arrays["nefc"][0])]
                return arr[0]
            return arr
        raise AttributeError(name)

    def __setattr__(self, name, value):
        if name in _FIELDS:
            arr = self._arrays[name]
            if self.nworld is None:
                arr[0] = value
            else:
                arr[...] = value
            return
        object.__setattr__(self, name, value)

    def __dir__(self):
        return sorted(set(super().__dir__()) | _FIELDS | {"contact"})

    # pickle / copy.deepcopy (SubprocVecEnv, Ray workers): every array travels, the jitted struct (which holds
    # pointers into them) is rebuilt around the copies; copy.copy gives a Data sharing the arrays
    def __getstate__(self):
        return {
            "nworld": self.nworld,
            "nconmax": self.nconmax,
            "njmax": self.njmax,
            "nv": self.nv,
            "arrays": self._arrays,
        }

    def __setstate__(self, state):
        for k in ("nworld", "nconmax", "njmax", "nv"):
            object.__setattr__(self, k, state[k])
        object.__setattr__(self, "_arrays", dict(state["arrays"]))
        object.__setattr__(self, "_struct", _io.make_data_struct(self._arrays))
        object.__setattr__(self, "_model_id", None)

    def __copy__(self):
        new = Data.__new__(Data)
        new.__setstate__(self.__getstate__())
        return new
