"""The element of the parsed MJCF tree (`Elem`), over the complete grammar (sim/mjcf/schema*.py): what the reader
builds, model composition edits and the compiler reads.

Every element remembers its file and line so that any later error can name them (`Elem.error`).
"""

import numpy as np

from sim.errors import ModelError
from . import schema
from . import schema_assets  # noqa: F401  (registers asset elements)
from . import schema_sections  # noqa: F401  (registers tendon/actuator/sensor/equality/contact/keyframe)

schema.finish()


class Elem:
    """One parsed MJCF element.

    tag: XML tag; key: schema key (a tag can mean different elements by context, e.g. <joint> in a body or in
    a fixed tendon); raw: attribute strings as written; values: typed values of the attributes in effect
    (written on the element, or inherited from its default class); children: sub-elements in document order.
    """

    __slots__ = (
        "tag",
        "key",
        "file",
        "line",
        "raw",
        "values",
        "children",
        "parent",
        "dclass",
        "origin",
        "comp",
        "extra",
    )

    def __init__(self, tag, key, file, line, raw, parent=None, origin=None):
        self.tag = tag
        self.key = key
        self.file = file
        self.line = line
        self.raw = raw
        self.values = {}
        self.children = []
        self.parent = parent
        self.dclass = None  # name of the default class in effect for this element
        # elements translated from another format (URDF, see mjcf.urdf): (source tag, {attribute: (source tag,
        # source attribute, source line)}) so that errors name what the user wrote
        self.origin = origin
        # elements attached from another model (<attach model=...>): that model's merged <compiler> element, whose
        # settings (angle, eulerseq, autolimits, inertia options, asset folders) apply to them; else None
        self.comp = None
        self.extra = None  # composition data (see mjcf.compose), e.g. a keyframe of an attached model

    def error(self, message, attribute=None, cls=ModelError):
        element, line = self.tag, self.line
        if self.origin is not None:
            element, amap = self.origin
            if attribute in amap:
                element, attribute, line = amap[attribute]
        return cls(message, file=self.file, line=line, element=element, attribute=attribute)

    def has(self, name):
        """True when the attribute is set on the element or by its default class."""
        return name in self.values

    def get(self, name, default=None):
        """Attribute value in effect, else the schema default, else `default`."""
        if name in self.values:
            return self.values[name]
        a = schema.ELEMENTS[self.key].attrs.get(name)
        if a is not None and a.default is not None:
            d = a.default
            return d.copy() if isinstance(d, np.ndarray) else d
        return default

    def find(self, key):
        return [c for c in self.children if c.key == key]

    def first(self, key):
        for c in self.children:
            if c.key == key:
                return c
        return None

    def __repr__(self):
        return f"<Elem {self.tag} {self.file}:{self.line} {self.raw}>"


def merge_singletons(elems, key):
    """Several <compiler>/<option>/<size> elements may appear: later attributes override earlier ones."""
    if not elems:
        return Elem(key, key, None, None, {})
    out = Elem(key, key, elems[0].file, elems[0].line, {})
    for e in elems:
        out.raw.update(e.raw)
        out.values.update(e.values)
        out.children.extend(e.children)
    return out
