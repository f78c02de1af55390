"""Compile context: what every compiler stage reads (the parsed document, compiler options, names) and the
Model fields it fills in (MuJoCo's names and shapes)."""

import numpy as np

from sim.errors import UnsupportedError
from sim.mjcf.elem import merge_singletons

# mjtObj names used for name spaces (and the keys of Context.names)
OBJTYPES = (
    "body",
    "joint",
    "geom",
    "site",
    "camera",
    "light",
    "mesh",
    "skin",
    "hfield",
    "texture",
    "material",
    "pair",
    "exclude",
    "equality",
    "tendon",
    "actuator",
    "sensor",
    "numeric",
    "text",
    "tuple",
    "key",
    "plugin",
    "flex",
)


class Context:
    """State shared by the compiler stages.

    doc: the parsed `reader.Document`; root: its <mujoco> Elem; comp: the <compiler> Elem (use comp.get);
    degree / eulerseq: angle settings; f: dict of Model fields being produced, keyed by MuJoCo's MjModel
    attribute names (numpy arrays, float64 for reals, int32 for ints/enums; scalars for sizes);
    names[objtype]: list of names by id ('' when unnamed); ids[objtype]: name -> id.
    """

    def __init__(self, doc):
        self.doc = doc
        self.root = doc.root
        self.file = doc.source.name
        comps = self.root.find("compiler")
        for c in comps:  # the length when read (each element); the letters when used (frames.orientation)
            if "eulerseq" in c.raw and len(c.raw["eulerseq"]) != 3:
                raise c.error("attribute 'eulerseq' must have exactly 3 characters", "eulerseq")
        self.comp = merge_singletons(comps, "compiler")
        self.degree = bool(self.comp.get("angle"))
        self.eulerseq = self.comp.get("eulerseq")
        if self.comp.get("coordinate") == 1:
            raise self.comp.error("global coordinates are no longer supported; use local", "coordinate")
        self.discardvisual = bool(self.comp.get("discardvisual"))
        self.geom_inertia_owner = []  # discardvisual: per geom id, the body Elem its mass enters, or None
        self.f = {}
        self.names = {t: [] for t in OBJTYPES}
        self.ids = {t: {} for t in OBJTYPES}
        self.elems = {t: [] for t in OBJTYPES}  # the Elem behind each id, for errors in later stages

    # -- names ----------------------------------------------------------------------------------------

    def add(self, objtype, el, name=None, attr="name"):
        """Register a new object of `objtype` created from `el`; returns its id. Names must be unique."""
        if name is None:
            name = el.get(attr, "") if el is not None else ""
        name = name or ""
        oid = len(self.names[objtype])
        if name:
            if name in self.ids[objtype]:
                raise el.error(f"repeated name '{name}' in {objtype}", attr)
            self.ids[objtype][name] = oid
        self.names[objtype].append(name)
        self.elems[objtype].append(el)
        return oid

    def lookup(self, objtype, name, el, attr):
        """Id of the `objtype` called `name`, else a ModelError naming `el` and `attr`."""
        oid = self.ids[objtype].get(name)
        if oid is None:
            raise el.error(f"unknown {objtype} '{name}'", attr)
        return oid

    def comp_of(self, el):
        """The <compiler> settings that govern element `el`: those of the model it was attached from, else this
        document's."""
        comp = getattr(el, "comp", None) if el is not None else None
        return comp if comp is not None else self.comp

    def angles(self, el):
        """(degree, eulerseq) in effect for element `el`."""
        comp = self.comp_of(el)
        if comp is self.comp:
            return self.degree, self.eulerseq
        return bool(comp.get("angle")), comp.get("eulerseq")

    def unsupported(self, el, what, attr=None):
        """Error for a MuJoCo feature numjoco parses but does not simulate."""
        return el.error(f"{what} is not supported by numjoco yet", attr, cls=UnsupportedError)


def farr(rows, width=None):
    """float64 array from a list of rows (empty lists give shape (0, width))."""
    if not rows:
        return np.zeros((0, width) if width is not None else (0,), dtype=np.float64)
    return np.ascontiguousarray(np.array(rows, dtype=np.float64))


def iarr(rows, width=None):
    """int32 array from a list of rows (empty lists give shape (0, width))."""
    if not rows:
        return np.zeros((0, width) if width is not None else (0,), dtype=np.int32)
    return np.ascontiguousarray(np.array(rows, dtype=np.int32))


def store_columns(f, prefix, cols, widths, ints=()):
    """Write per-object columns {name: list of rows} into f[prefix + name]: int32 for names in `ints`, else
    float64; `widths[name]` is the row width (so empty columns get MuJoCo's (0, width) shape)."""
    for name, rows in cols.items():
        f[prefix + name] = (iarr if name in ints else farr)(rows, widths.get(name))
