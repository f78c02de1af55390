"""Python-facing Data: MuJoCo-named arrays for one world (no world axis) or a batch (leading world axis)."""

from __future__ import annotations

import numpy as np

from sim import io as _io
from sim.constants import NWARNING
from sim.model import ModelLike
from sim.types import DATA_ARRAYS, data_shapes


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
    nconmax / njmax: the contact and constraint-row capacities per world.  By default every contact and row that
    MuJoCo's arena for the model (d.narena: <size memory>, or MuJoCo's default from <size nconmax / njmax>) can
    hold fits (sim/io.py data_sizes); the buffers are zero pages until written, so memory is committed for the
    contacts and rows in use.  Where MuJoCo's arena overflows, the same warnings and the same drops as MuJoCo's.
    A batch whose buffers at those capacities would take more than a quarter of the machine starts smaller and
    grows them when a world outgrows them (the step that outgrew them dropped what did not fit, with a warning).
    """

    def __init__(
        self, m: ModelLike, nworld: int | None = None, nconmax: int | None = None, njmax: int | None = None
    ) -> None:
        n = 1 if nworld is None else int(nworld)
        if n < 1:
            raise ValueError("nworld must be >= 1")
        size = _io.data_sizes(m, nconmax, njmax, nworld=n)
        object.__setattr__(self, "nworld", nworld if nworld is None else n)
        object.__setattr__(self, "nconmax", size["nconmax"])
        object.__setattr__(self, "njmax", size["njmax"])
        object.__setattr__(self, "_capped", size["capped"] and nconmax is None and njmax is None)
        object.__setattr__(self, "_arrays", _io.make_data_arrays(m, n, size))
        object.__setattr__(self, "_capnames", _io.capacity_names(m, size))
        object.__setattr__(self, "_struct", _io.make_data_struct(self._arrays))
        object.__setattr__(self, "_model_id", id(m))
        object.__setattr__(self, "nv", int(m.nv))
        a = self._arrays
        a["narena"][:] = _io.model_arena(m)
        a["qpos"][:] = np.asarray(m.qpos0, dtype=np.float64)
        a["eq_active"][:] = np.asarray(m.eq_active0).reshape(-1)
        mocapid = np.asarray(m.body_mocapid)
        for b in range(int(m.nbody)):
            if mocapid[b] >= 0:
                a["mocap_pos"][:, mocapid[b]] = np.asarray(m.body_pos).reshape(-1, 3)[b]
                a["mocap_quat"][:, mocapid[b]] = np.asarray(m.body_quat).reshape(-1, 4)[b]

    def grow(self, m: ModelLike, nconmax: int | None = None, njmax: int | None = None) -> None:
        """Larger contact / row capacities (per world): the capacity-bound buffers reallocated, their contents kept,
        the jitted struct rebuilt around them (between calls, never inside a step)."""
        nconmax = self.nconmax if nconmax is None else max(int(nconmax), self.nconmax)
        njmax = self.njmax if njmax is None else max(int(njmax), self.njmax)
        if nconmax == self.nconmax and njmax == self.njmax:
            return
        acon, arow = _io.arena_capacity(m)
        shapes = data_shapes(m, dict(nconmax=nconmax, njmax=njmax))
        n = 1 if self.nworld is None else self.nworld
        for name, _, k in DATA_ARRAYS:
            old = self._arrays[name]
            shp = (n,) + shapes[name]
            if old.shape == shp:
                continue
            new = np.zeros(shp, dtype=old.dtype)
            keep = tuple(slice(0, min(a, b)) for a, b in zip(old.shape, shp))
            new[keep] = old[keep]
            self._arrays[name] = new
        object.__setattr__(self, "nconmax", nconmax)
        object.__setattr__(self, "njmax", njmax)
        object.__setattr__(self, "_capped", nconmax < acon or njmax < arow)
        object.__setattr__(self, "_capnames", _io.capacity_names(m, dict(nconmax=nconmax, njmax=njmax)))
        object.__setattr__(self, "_struct", _io.make_data_struct(self._arrays))
        self.__dict__.pop("_fast", None)
        self.__dict__.pop("_blocks", None)  # the batched step's blocks (sim/api.py blocks_of) sized by the old buffers

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
    # The capacity-bound buffers travel as far as their largest count over the worlds (ncon for contact_*, nefc for
    # the efc rows), their scratch not at all; both are rebuilt at full capacity (the rest is zero pages)
    def __getstate__(self):
        a = self._arrays
        used = {"con": int(np.max(a["ncon"], initial=0)), "efc": int(np.max(a["nefc"], initial=0))}
        arrays, shapes = {}, {}
        for name, arr in a.items():
            if name not in self._capnames:
                arrays[name] = arr
                continue
            shapes[name] = arr.shape
            if name.startswith("scr_"):
                arrays[name] = np.zeros((arr.shape[0], 0), arr.dtype)
            else:
                arrays[name] = arr[:, : used["con" if name.startswith("contact_") else "efc"]].copy()
        return {
            "nworld": self.nworld,
            "nconmax": self.nconmax,
            "njmax": self.njmax,
            "nv": self.nv,
            "capped": self._capped,
            "arrays": arrays,
            "shapes": shapes,
        }

    def __setstate__(self, state):
        for k in ("nworld", "nconmax", "njmax", "nv"):
            object.__setattr__(self, k, state[k])
        object.__setattr__(self, "_capped", state.get("capped", False))
        shapes = state.get("shapes", {})
        arrays = dict(state["arrays"])
        for name, shp in shapes.items():
            full = np.zeros(shp, dtype=arrays[name].dtype)
            part = arrays[name]
            if part.shape[1]:
                full[:, : part.shape[1]] = part
            arrays[name] = full
        object.__setattr__(self, "_capnames", frozenset(shapes))
        object.__setattr__(self, "_arrays", arrays)
        object.__setattr__(self, "_struct", _io.make_data_struct(self._arrays))
        object.__setattr__(self, "_model_id", None)

    def __copy__(self):
        new = Data.__new__(Data)
        new.__setstate__(self.__getstate__())
        return new
