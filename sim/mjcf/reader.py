"""MJCF reader: XML text -> a tree of `Elem` (sim/mjcf/elem.py) with typed attribute values, includes expanded,
<replicate> / <attach> composed (sim/mjcf/compose.py), defaults applied."""

import os
import re
import warnings
import xml.parsers.expat
import xml.parsers.expat.errors

import numpy as np

from sim.errors import ModelError, UnsupportedError
from . import compose
from . import numbers
from . import schema
from .elem import Elem


# ----------------------------------------------------------------------------------------------- parsing

# MJCF elements MuJoCo has and numjoco does not simulate yet: rejected with UnsupportedError, not "unknown"
MUJOCO_ONLY = {
    "composite",
    "flexcomp",
    "plugin",
    "flex",
    "pin",
    "elasticity",
    "extension",
    "instance",
    "config",
    "bone",
}


class _Source:
    """Where the text came from: a display name for errors, a directory for relative files, in-memory assets."""

    def __init__(self, name, directory, assets, modeldir=""):
        self.name = name
        self.directory = directory
        self.assets = assets or {}
        self.modeldir = modeldir  # the model file's folder as given (MuJoCo's ModelFileDir; '' for a string)

    def exists(self, filename):
        """True when `filename` is an in-memory asset or a file relative to the model's folder."""
        if filename in self.assets or os.path.basename(filename) in self.assets:
            return True
        return os.path.isfile(filename if os.path.isabs(filename) else os.path.join(self.directory, filename))

    def read(self, filename, elem):
        """Bytes of `filename`: in-memory assets first, then the file system relative to the model's folder."""
        for cand in (filename, os.path.basename(filename)):
            if cand in self.assets:
                data = self.assets[cand]
                return data.encode() if isinstance(data, str) else bytes(data)
        path = filename if os.path.isabs(filename) else os.path.join(self.directory, filename)
        try:
            with open(path, "rb") as f:
                return f.read()
        except OSError as e:
            raise elem.error(f"cannot read file '{filename}': {e.strerror}", "file") from None


# what tinyxml2 (MuJoCo's XML parser) reads and expat refuses: characters XML 1.0 forbids (C0 controls, U+FFFE/F,
# lone surrogates), references to such characters, a '&' that starts no reference, '<' inside attribute values
_XML_BAD = re.compile("[\x01-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
_CHARREF = re.compile(r"&#(x[0-9a-fA-F]+|[0-9]+);")
_AMP = re.compile(r"&(?!(?:[A-Za-z_:][-\w.:]*|#[0-9]+|#x[0-9a-fA-F]+);)")
_LT_IN_VALUE = re.compile(r"""=\s*("[^"<>]*<|'[^'<>]*<)""")


def _charref(m):
    g = m.group(1)
    v = int(g[1:], 16) if g[0] == "x" else int(g)
    ok = v in (9, 10, 13) or 0x20 <= v <= 0xD7FF or 0xE000 <= v <= 0xFFFD or 0x10000 <= v <= 0x10FFFF
    return m.group(0) if ok else "\ufffd"


def _escape_lt_in_values(text):
    """'<' inside quoted attribute values of element tags -> '&lt;' (comments, CDATA, PIs, DTD copied as is)."""
    out, i, n = [], 0, len(text)
    while True:
        j = text.find("<", i)
        if j < 0:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:j])
        for lead, close in (("<!--", "-->"), ("<![CDATA[", "]]>"), ("<?", "?>"), ("<!", ">")):
            if text.startswith(lead, j):
                k = text.find(close, j + len(lead))
                k = n if k < 0 else k + len(close)
                out.append(text[j:k])
                break
        else:
            k, quote = j + 1, None
            buf = ["<"]
            while k < n:
                c = text[k]
                k += 1
                if quote:
                    if c == quote:
                        quote = None
                    elif c == "<":
                        c = "&lt;"
                elif c in "\"'":
                    quote = c
                elif c == ">":
                    buf.append(c)
                    break
                buf.append(c)
            out.append("".join(buf))
        i = k


def tinyxml_text(text, filename):
    """The document as MuJoCo's parser reads it, made acceptable to expat: bytes are UTF-8 (a UTF-8 BOM is
    skipped, invalid sequences become U+FFFD, an encoding declaration is ignored as tinyxml2 ignores it; UTF-16 /
    UTF-32 documents are refused as MuJoCo refuses them), the text ends at the first NUL (a C string), and the
    characters and references tinyxml2 tolerates are replaced (U+FFFD) or escaped.  Line numbers are kept."""
    if isinstance(text, (bytes, bytearray)):
        data = bytes(text)
        if data.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")):
            raise ModelError("UTF-16 / UTF-32 document: MuJoCo's XML parser reads UTF-8 only", file=filename, line=1)
        data = data.split(b"\x00", 1)[0]
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        text = data.decode("utf-8", errors="replace")
    else:
        text = text.split("\x00", 1)[0]
    if "&#" in text:
        text = _CHARREF.sub(_charref, text)
    text = _XML_BAD.sub("\ufffd", text)
    if "&" in text:
        text = _AMP.sub("&amp;", text)
    if _LT_IN_VALUE.search(text):
        text = _escape_lt_in_values(text)
    if "]]>" in text:
        text = _escape_cdata_end(text)
    if "--" in text:
        text = _COMMENT.sub(_comment, text)
    return _declaration_first(_blank_text_before_root(text))


def _declaration_first(text):
    """White space before an XML declaration (tinyxml2 reads it; expat wants the declaration first) moved to just
    after the declaration, so that the lines of everything after it stay the same."""
    if not text[:1].isspace():
        return text
    body = text.lstrip()
    if not body.startswith("<?"):
        return text
    k = body.find("?>")
    if k < 0 or "\n" in body[:k]:
        return text
    return body[: k + 2] + text[: len(text) - len(body)] + body[k + 2 :]


def _blank_text_before_root(text):
    """Text before the root element (tinyxml2 keeps it as a node, expat refuses it) blanked to spaces, newlines
    kept (line numbers); declarations, comments and a DOCTYPE stay."""
    out, i, n = [], 0, len(text)
    while i < n:
        j = text.find("<", i)
        if j < 0:
            j = n
        chunk = text[i:j]
        out.append(re.sub(r"[^\n]", " ", chunk) if chunk.strip() else chunk)
        if j == n or not (text.startswith("<!", j) or text.startswith("<?", j)):
            out.append(text[j:])
            return "".join(out)
        close = "-->" if text.startswith("<!--", j) else "?>" if text.startswith("<?", j) else ">"
        if close == ">" and "[" in text[j : text.find(">", j) + 1]:
            close = "]>"  # a DOCTYPE with an internal subset
        k = text.find(close, j + 2)
        k = n if k < 0 else k + len(close)
        out.append(text[j:k])
        i = k
    return "".join(out)


_COMMENT = re.compile(r"<!--(.*?)-->", re.DOTALL)


def _comment(m):
    """A comment with '--' inside (or '-' at its end), which tinyxml2 reads and XML forbids, made legal."""
    inner = m.group(1).replace("--", "- -").replace("--", "- -")
    return "<!--" + inner + (" " if inner.endswith("-") else "") + "-->"


def _escape_cdata_end(text):
    """']]>' outside CDATA sections (character data may not contain it for expat; tinyxml2 reads it as text)."""
    out, i = [], 0
    while True:
        j = text.find("<![CDATA[", i)
        part = text[i:] if j < 0 else text[i:j]
        out.append(part.replace("]]>", "]]&gt;"))
        if j < 0:
            return "".join(out)
        k = text.find("]]>", j)
        k = len(text) if k < 0 else k + 3
        out.append(text[j:k])
        i = k


def _parse_xml(text, filename):
    """Parse XML text into (tag, attrs, line, children) tuples using expat, keeping line numbers."""
    text = tinyxml_text(text, filename)
    while True:
        try:
            return _expat_tree(text, filename)
        except xml.parsers.expat.ExpatError as e:
            spaced = _space_attributes(text, e)
            if spaced is None:
                raise ModelError(
                    f"malformed XML: {xml.parsers.expat.ErrorString(e.code)} (column {e.offset})",
                    file=filename,
                    line=e.lineno,
                ) from None
            text = spaced


def _space_attributes(text, error):
    """The text with a space inserted where an attribute follows the previous value's closing quote directly
    (name="a"type="b"): tinyxml2 reads that, expat reports an invalid token there; None for any other error."""
    if error.code != xml.parsers.expat.errors.codes[xml.parsers.expat.errors.XML_ERROR_INVALID_TOKEN]:
        return None
    lines = text.split("\n")
    line = lines[error.lineno - 1]
    col = error.offset
    if not (0 < col < len(line) and line[col - 1] in "\"'" and (line[col].isalpha() or line[col] in "_:")):
        return None
    lines[error.lineno - 1] = line[:col] + " " + line[col:]
    return "\n".join(lines)


def _expat_tree(text, filename):
    """The (tag, attrs, line, children) tree of the text; expat's errors are raised as they are."""
    parser = xml.parsers.expat.ParserCreate()
    parser.ordered_attributes = False
    root = []
    stack = []

    top = []  # document-level nodes other than declarations, seen so far (comments, the root)

    def comment(data):
        if not stack:
            top.append("comment")

    def instruction(target, data):
        # tinyxml2 reads every <?...?> as an XML declaration and allows them only at the start of the document
        if stack or top:
            raise ModelError(
                f"XML declaration or processing instruction '<?{target}' is only allowed at the start of the document",
                file=filename,
                line=parser.CurrentLineNumber,
            )

    def start(tag, attrs):
        top.append(tag)
        node = (tag, dict(attrs), parser.CurrentLineNumber, [])
        if stack:
            stack[-1][3].append(node)
        else:
            root.append(node)
        stack.append(node)

    def end(tag):
        stack.pop()

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CommentHandler = comment
    parser.ProcessingInstructionHandler = instruction
    # text between elements carries nothing in MJCF/URDF: MuJoCo's parser (tinyxml2) ignores it, and so do we
    # (no CharacterDataHandler); undefined entities in that text are skipped as tinyxml2 leaves them alone
    parser.UseForeignDTD(True)
    try:
        parser.Parse(text, True)
    except xml.parsers.expat.ExpatError as e:
        if (
            e.code == xml.parsers.expat.errors.codes[xml.parsers.expat.errors.XML_ERROR_JUNK_AFTER_DOC_ELEMENT]
            and root
            and not stack
            and _more_elements(text, e.lineno, e.offset)
        ):
            return root[0]  # tinyxml2 reads further top-level elements; MuJoCo uses the first
        raise
    if not root:
        raise ModelError("empty XML document", file=filename)
    return root[0]


def _more_elements(text, line, column):
    """True when the text after the root element (from line / column, 1-based line) is well-formed elements,
    comments or white space only."""
    lines = text.split("\n")
    rest = "\n".join([lines[line - 1][column:]] + lines[line:])
    if not rest.lstrip().startswith("<"):
        return False
    p = xml.parsers.expat.ParserCreate()
    p.UseForeignDTD(True)
    texts = []
    p.CharacterDataHandler = texts.append
    p.StartElementHandler = lambda tag, attrs: texts.append("<")  # marks element content (any text is ok there)
    try:
        p.Parse("<r>" + rest + "</r>", True)
    except xml.parsers.expat.ExpatError:
        return False
    return True


def path_reduce(path):
    """FilePath::PathReduce: '.' parts dropped, 'dir/..' pairs collapsed, '/' as the separator."""
    prefix = ""
    if path.startswith(("/", "\\")):
        prefix = path[0]
    elif len(path) > 2 and path[1] == ":" and path[2] in "/\\":
        prefix = path[:3]
    parts = re.split(r"[/\\]", path[len(prefix) :])
    dirs = []
    for p in parts[:-1]:
        if p == ".." and dirs and dirs[-1] != "..":
            dirs.pop()
        elif p != ".":
            dirs.append(p)
    dirs.append(parts[-1])
    return prefix + "/".join(dirs)


def _combine(d, name):
    """FilePath::Combine: `name` under the folder `d` (an absolute `name` stays as it is)."""
    if os.path.isabs(name) or not d:
        return name
    return d + name if d.endswith(("/", "\\")) else d + "/" + name


def _dirname(path):
    """The folder part of a path with its trailing separator ('' when there is none), as mju_getResourceDir."""
    i = max(path.rfind("/"), path.rfind("\\"))
    return path[: i + 1]


def _expand_includes(node, source, fname, depth=0, incdir="", included=None):
    """Replace every <include file=.../> by the children of the included file's root element (IncludeXML of
    MuJoCo's xml.cc): a file is looked up relative to the model's folder, then to the including file's folder;
    the same file included a second time is refused ('already included': MuJoCo compares the file name as
    written with the including folder + name of every file included before); an included file whose root element
    has no children is refused.  incdir: MuJoCo's folder string of the file being expanded ('' for the model)."""
    if included is None:
        included = set()
    tag, attrs, line, children = node[:4]
    out = []
    for child in children:
        if child[0] == "include":
            ctag, cattrs, cline, cchildren = child[:4]
            probe = Elem("include", "include", fname, cline, cattrs)
            unknown = set(cattrs) - {"file"}
            if unknown:
                raise probe.error("unknown attribute", sorted(unknown)[0])
            if "file" not in cattrs:
                raise probe.error("Include element missing file attribute", "file")
            if cchildren:
                raise probe.error("Include element cannot have children")
            if depth > 20:
                raise probe.error("include nesting too deep (recursive include?)", "file")
            raw = cattrs["file"]
            # ResolveFilePath: the name as written when the model's folder has it, else under the including folder
            name = raw if os.path.isabs(raw) or source.exists(raw) else path_reduce(_combine(incdir, raw))
            if path_reduce(name) in included:
                raise probe.error(f"File '{path_reduce(name)}' already included", "file")
            try:
                data, opened = source.read(name, probe), name
            except ModelError:
                if not incdir or os.path.isabs(name):
                    raise
                opened = _combine(incdir, name)
                data = source.read(opened, probe)
            if not data:
                raise probe.error(f"Empty file '{raw}'", "file")
            sub = _parse_xml(data, raw)
            if not sub[3]:
                raise probe.error(f"Empty include file '{raw}'", "file")
            included.add(path_reduce(_combine(incdir, name)))
            nextdir = _dirname(_combine(source.modeldir, opened))
            sub = _expand_includes(sub, source, raw, depth + 1, nextdir, included)
            for g in sub[3]:
                out.append(g)
        else:
            out.append(
                _expand_includes(child, source, fname, depth, incdir, included) if child[3] else _tag_file(child, fname)
            )
    return (tag, attrs, line, out, fname) if len(node) == 4 else (tag, attrs, line, out, node[4])


def _tag_file(node, fname):
    if len(node) == 5:
        return node
    return (node[0], node[1], node[2], node[3], fname)


# children that may appear at most once (MuJoCo 3.17's schema, '?'; the children of a <default>: _build_defaults)
UNIQUE = {
    "body": ("inertial",),
    "worldbody": ("inertial",),
    "compiler": ("lengthrange",),
    "option": ("flag",),
    "visual": ("global", "headlight", "map", "quality", "rgba", "scale"),
}


def _convert(node, key, parent, fname, lenient=False):
    """Elem tree of a node; lenient: a <replicate> or <frame> or inside one, whose attributes MuJoCo 3.17's
    schema check skips, so that attributes it does not know are ignored there (with a Python warning) instead of
    refused."""
    tag, attrs, line, children = node[:4]
    nfile = node[4] if len(node) >= 5 else fname
    origin = node[5] if len(node) >= 6 else None
    spec = schema.ELEMENTS[key]
    lenient = lenient or key in ("replicate", "frame")
    if key == "mujoco":  # XML namespace declarations on the root: accepted (and ignored) by MuJoCo
        attrs = {k: v for k, v in attrs.items() if k != "xmlns" and not k.startswith("xmlns:")}
    unknown = [name for name in attrs if name not in spec.attrs]
    if unknown:
        probe = Elem(tag, key, nfile, line, attrs, parent, origin)
        if not lenient:
            raise probe.error("unrecognized attribute", unknown[0])
        for name in unknown:
            warnings.warn(
                str(probe.error("unknown attribute in a <replicate> / <frame>, ignored as MuJoCo ignores it", name)),
                stacklevel=2,
            )
        attrs = {k: v for k, v in attrs.items() if k not in unknown}
    el = Elem(tag, key, nfile, line, attrs, parent, origin)
    el.raw = drop_empty_numbers(spec, attrs, el)
    unique = UNIQUE.get(key, ())
    if unique and not lenient:
        counts = {}
        for child in children:
            if child[0] in unique or (unique == "*" and child[0] != "default"):
                counts[child[0]] = counts.get(child[0], 0) + 1
        for ctag, n in counts.items():
            if n > 1:
                raise el.error(f"unique element '{ctag}' found {n} times")
    for child in children:
        ctag = child[0]
        ckey = spec.children.get(ctag)
        if ckey is None and key == "mujoco" and ctag in ("body", "frame", "replicate"):
            # MuJoCo 3.17's schema check takes these for a <worldbody> (mjXSchema::NameMatch) and its reader never
            # looks at them: checked as a body, then left out of the model
            _convert(child, "body", el, nfile)
            warnings.warn(
                str(
                    Elem(ctag, ctag, child[4] if len(child) >= 5 else nfile, child[2], child[1]).error(
                        f"<{ctag}> directly inside <mujoco> (not in <worldbody>) is ignored, as MuJoCo ignores it"
                    )
                ),
                stacklevel=2,
            )
            continue
        if ckey is None:
            probe = Elem(ctag, ctag, child[4] if len(child) >= 5 else nfile, child[2], child[1])
            if lenient and key not in ("body", "frame", "replicate", "worldbody"):
                # unchecked by the schema there, and MuJoCo's builder never reads children of a leaf element
                warnings.warn(
                    str(
                        probe.error(f"element inside <{tag}> in a <replicate> / <frame>, ignored as MuJoCo ignores it")
                    ),
                    stacklevel=2,
                )
                continue
            if ctag in MUJOCO_ONLY:
                raise probe.error(f"<{ctag}> (a MuJoCo feature) is not supported by numjoco yet", cls=UnsupportedError)
            if key == "replicate" and ctag in ("joint", "freejoint"):
                raise probe.error("joint cannot be a direct child of replicate")
            raise probe.error(f"unknown element inside <{tag}>")
        el.children.append(_convert(child, ckey, el, nfile, lenient))
    return el


# integer attributes MuJoCo's reader parses on their own (mjXUtil::ReadAttrInt, not the attribute tables): an empty
# string is "problem reading attribute" there, not an absent value (schema key -> attribute names)
_EMPTY_INT_REFUSED = {
    "mesh": ("maxhullvert",),
    "default_mesh": ("maxhullvert",),
    "skin": ("group",),
    "numeric": ("size",),
    "sensor_contact": ("num",),
    "size": ("nconmax", "njmax", "nstack"),
    "freejoint": ("group",),
}


def drop_empty_numbers(spec, attrs, elem=None):
    """Attributes without the numeric ones written as an empty (or blank) string: MuJoCo reads a number list
    with no number as an absent attribute (mjXUtil::ReadAttrVec returns nothing; a required one is then
    'missing'), so the default / inherited value stays.  Keywords and strings keep '' (an invalid keyword,
    an empty name).  The integers in _EMPTY_INT_REFUSED are refused empty (`elem` names the element)."""
    empty = [n for n, t in attrs.items() if spec.attrs[n].kind in ("real", "int") and not numbers.split(t)]
    if not empty:
        return attrs
    for n in empty:
        if n in _EMPTY_INT_REFUSED.get(spec.key, ()) and elem is not None:
            raise elem.error("problem reading attribute (empty integer)", n)
    return {n: t for n, t in attrs.items() if n not in empty}


def parse_value(el, attr, text):
    """Typed value of one attribute string, checked against the schema (count, kind, keyword)."""
    kind = attr.kind
    if kind == "str":
        return text
    if kind in ("enum", "bool"):
        key = text.strip()
        if key not in attr.enum:
            raise el.error(f"invalid keyword '{text}', expected one of: {', '.join(attr.enum)}", attr.name)
        return attr.enum[key]
    parts = numbers.split(text)
    try:
        vals = [numbers.real(p) for p in parts] if kind == "real" else [numbers.integer(p) for p in parts]
    except numbers.NumberError as e:
        what = "number" if kind == "real" else "integer"
        if e.reason == "bad format":
            raise el.error(f"invalid {what} '{e.token}' in '{text}'", attr.name) from None
        raise el.error(f"{e.reason}: '{e.token}' in '{text}'", attr.name) from None
    if kind == "real" and not all(np.isfinite(v) for v in vals):
        # MuJoCo reads inf / nan (strtod) and compiles them into the model; numjoco refuses them
        raise el.error(
            f"non-finite number in '{text}' (MuJoCo accepts inf / nan here; numjoco does not "
            "simulate models with non-finite parameters)",
            attr.name,
            cls=UnsupportedError,
        )
    if attr.nmin is None:
        if len(vals) != 1:
            raise el.error(f"expected 1 value, got {len(vals)}", attr.name)
        return vals[0]
    if len(vals) < attr.nmin or (attr.nmax is not None and len(vals) > attr.nmax):
        if attr.nmin == attr.nmax:
            want = f"{attr.nmin}"
        elif attr.nmax is None:
            want = f"at least {attr.nmin}"
        else:
            want = f"{attr.nmin} to {attr.nmax}"
        raise el.error(f"expected {want} values, got {len(vals)}", attr.name)
    return np.array(vals, dtype=np.float64 if kind == "real" else np.int64)


def merge_value(attr, base, new):
    """A partial array (fewer values than the maximum) overwrites a prefix of the inherited/default value."""
    if (
        attr.is_array
        and attr.nmax is not None
        and attr.nmin != attr.nmax
        and isinstance(new, np.ndarray)
        and len(new) < attr.nmax
    ):
        if base is None:
            base = attr.default
        if base is not None and len(base) >= len(new):
            out = np.array(base, dtype=new.dtype, copy=True)
            out[: len(new)] = new
            return out
    return new


def own_values(el, complete=False):
    """Typed values of the attributes written on `el` itself; with `complete`, partial arrays are completed
    from the schema default (for elements that have no default class)."""
    spec = schema.ELEMENTS[el.key]
    out = {}
    for name, text in el.raw.items():
        v = parse_value(el, spec.attrs[name], text)
        out[name] = merge_value(spec.attrs[name], None, v) if complete else v
    return out


# ----------------------------------------------------------------------------------------------- defaults


class DefaultClass:
    """A <default> class: per slot (joint, geom, ...) the attribute values it sets, inherited from its parent.

    The actuator slot keeps the ordered list of shortcut elements instead (motor, position, ...), since each
    shortcut translates into the shared general-actuator parameters (see compiler.actuator).
    """

    def __init__(self, name, parent):
        self.name = name
        self.parent = parent
        self.slots = {} if parent is None else {k: dict(v) for k, v in parent.slots.items()}
        self.actuator = [] if parent is None else list(parent.actuator)
        self.layers = {} if parent is None else dict(parent.layers)  # default material layers by role


_ORIENTATIONS = ("quat", "axisangle", "xyaxes", "zaxis", "euler")


def check_orientation_attrs(el, names=_ORIENTATIONS):
    """mjXReader's checks of the orientation attributes written on one element: at most one form, and no zero
    quaternion (a default class element is checked as it is read, used or not)."""
    given = [n for n in names if n in el.raw]
    if len(given) > 1:
        raise el.error("multiple orientation specifiers are not allowed", given[1])
    if names[0] in el.raw:
        q = parse_value(el, schema.ELEMENTS[el.key].attrs[names[0]], el.raw[names[0]])
        if not np.any(q):
            raise el.error("zero quaternion is not allowed", names[0])


# at most one of these attributes on an element (MuJoCo's schema constraints), by tag
_AT_MOST_ONE = {
    "camera": (("fovy", "sensorsize"),),
    "light": (("directional", "type"),),
}

_CAMERA_OUTPUT = ("rgb", "depth", "distance", "normal", "segmentation")


def _check_read(el):
    """What mjXReader refuses while reading one element, wherever it is (in the body tree, a section, or a
    <default> class, used or not): several orientation forms, a zero quaternion, schema exclusions, the
    range checks of the statistic / visual / mesh readers."""
    spec = schema.ELEMENTS[el.key]
    if "quat" in spec.attrs and "euler" in spec.attrs:
        check_orientation_attrs(el)
    for group in _AT_MOST_ONE.get(el.tag, ()):
        given = [a for a in group if a in el.raw]
        if len(given) > 1:
            raise el.error(
                f"Schema violation: at most one of {', '.join(repr(a) for a in group)} can be specified", given[1]
            )
    if el.tag == "camera" and "output" in el.raw:
        for w in el.raw["output"].split():
            if w not in _CAMERA_OUTPUT:
                raise el.error(f"invalid keyword '{w}', expected some of: {', '.join(_CAMERA_OUTPUT)}", "output")
    if el.key == "statistic" and "extent" in el.raw:
        v = parse_value(el, spec.attrs["extent"], el.raw["extent"])
        if v <= 0:
            raise el.error("extent must be strictly positive", "extent")
    if el.key == "visual_global" and "realtime" in el.raw:
        if parse_value(el, spec.attrs["realtime"], el.raw["realtime"]) <= 0:
            raise el.error("realtime must be greater than 0", "realtime")
    if el.key == "visual_map" and "znear" in el.raw:
        if parse_value(el, spec.attrs["znear"], el.raw["znear"]) <= 0:
            raise el.error("znear must be strictly positive", "znear")
    if el.tag == "mesh" and "maxhullvert" in el.raw:
        n = parse_value(el, spec.attrs["maxhullvert"], el.raw["maxhullvert"])
        if n != -1 and n < 4:
            raise el.error("maxhullvert must be larger than 3", "maxhullvert")
    for c in el.children:
        _check_read(c)


def _build_defaults(root):
    """Default classes of every top-level <default> (mjXReader::Default): each top-level <default> adds to the
    class 'main' (MuJoCo accepts several, typically one in the main file and one per included file); a nested
    class copies its parent as it is when the nested <default> is read."""
    classes = {}

    def visit(el, parent, top):
        name = el.raw.get("class")
        if top:
            if name not in (None, "", "main"):
                raise el.error("top-level default class 'main' cannot be renamed", "class")
            name = "main"
        elif not name:
            raise el.error("empty class name", "class")
        if top and name in classes:
            cls = classes[name]
        else:
            if name in classes:
                raise el.error(f"repeated default class name '{name}'", "class")
            cls = DefaultClass(name, parent)
            classes[name] = cls
        counts = {}
        for child in el.children:
            counts[child.tag] = counts.get(child.tag, 0) + 1
        for child in el.children:
            if child.key == "default":
                continue
            spec = schema.ELEMENTS[child.key]
            if counts[child.tag] > 1:  # MuJoCo's schema: each element at most once in a <default>
                raise el.error(f"unique element '{child.tag}' found {counts[child.tag]} times")
            vals = own_values(child)
            if spec.default_slot == "actuator":
                cls.actuator.append((child, vals))
                continue
            slot = cls.slots.setdefault(spec.default_slot, {})
            for k, v in vals.items():
                slot[k] = merge_value(spec.attrs[k], slot.get(k), v)
            if child.tag == "texture" and "gridlayout" in vals:  # mjXReader checks it where it is written
                gs = slot.get("gridsize", spec.attrs["gridsize"].default)
                if len(vals["gridlayout"]) != int(gs[0]) * int(gs[1]):
                    raise child.error("gridlayout length must match gridsize", "gridlayout")
            if child.children:  # a default material's layers: (role, texture) by role, inherited
                layers = dict(cls.layers)
                for ly in child.children:
                    lv = own_values(ly)
                    for a in ("texture", "role"):
                        if a not in lv:
                            raise ly.error("missing required attribute", a)
                    layers[lv["role"]] = (lv["texture"], ly)
                cls.layers = layers
        for child in el.children:
            if child.key == "default":
                visit(child, cls, False)

    for top in root.find("default"):
        visit(top, None, True)
    if "main" not in classes:
        classes["main"] = DefaultClass("main", None)
    return classes


# element keys that live in the body tree (their class falls back to the enclosing childclass)
_TREE = {"body", "frame", "worldbody"}


def _apply_defaults(el, classes, inherited):
    """Fill `values` of `el` and its subtree; `inherited` is the class in effect from childclass.  Elements
    attached from another model arrive with their values (and their class) already resolved: left alone."""
    spec = schema.ELEMENTS[el.key]
    if el.key == "default" or el.dclass is not None:
        return
    cname = inherited
    if "class" in el.raw and "class" in spec.attrs:
        cname = el.raw["class"]
        if cname not in classes:
            raise el.error(f"unknown default class name '{cname}'", "class")
    el.dclass = cname
    slot = spec.default_slot
    own = own_values(el, complete=slot is None)
    if slot is not None and slot != "actuator":
        base = classes[cname].slots.get(slot, {})
        vals = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in base.items() if k in spec.attrs}
        for k, v in own.items():
            vals[k] = merge_value(spec.attrs[k], vals.get(k), v)
        el.values = vals
    else:
        el.values = own
    for name, a in spec.attrs.items():
        if a.required and name not in el.values:
            raise el.error("missing required attribute", name)
    # inside the body tree the class in effect passes down (a body/frame childclass replaces it); every other
    # element's children start again from "main"
    child_inherited = inherited if el.key in _TREE else "main"
    if el.key in _TREE and "childclass" in el.raw:
        child_inherited = el.raw["childclass"]
        if child_inherited not in classes:
            raise el.error(f"unknown default childclass '{child_inherited}'", "childclass")
    for c in el.children:
        _apply_defaults(c, classes, child_inherited)


def _compose(doc, depth, compile_submodel):
    """Expand <replicate> / <attach> (mjcf.compose) with the compiler's angle unit and Euler sequence."""
    raw = {}
    for c in doc.root.find("compiler"):
        raw.update(c.raw)
    degree = raw.get("angle", "degree").strip() != "radian"
    compose.compose(doc, degree, raw.get("eulerseq", "xyz"), depth, read, compile_submodel)


class Document:
    """A parsed model: the root element, the default classes, and the file source for assets."""

    def __init__(self, root, classes, source):
        self.root = root
        self.classes = classes
        self.source = source
        self.submodels = {}  # <asset><model> name -> (Document, compiled Model without constants)


def read(text, name="<string>", directory=".", assets=None, depth=0, modeldir="", compile_submodel=None):
    """Parse MJCF `text` (str or bytes) into a Document; raises ModelError on any malformed input.  depth: the
    nesting of <asset><model> files being read (a model that attaches itself would never end).
    compile_submodel: Document -> (Model without constants, Context), what <attach model> needs of the attached
    model file (sim.compiler.compile_submodel; sim.load_model passes it); None refuses <attach model>."""
    source = _Source(name, directory, assets, modeldir)
    node = _parse_xml(text, name)
    if node[0].lower() == "robot":  # a URDF file (MuJoCo compares the root tag case-insensitively)
        from . import urdf

        node = urdf.to_mjcf(node, name)
    elif node[0] != "mujoco":
        raise ModelError(
            f"root element must be <mujoco> (MJCF) or <robot> (URDF), found <{node[0]}>",
            file=name,
            line=node[2],
            element=node[0],
        )
    else:
        node = _expand_includes(node, source, name)
    root = _convert(node, "mujoco", None, name)
    _check_read(root)
    classes = _build_defaults(root)
    doc = Document(root, classes, source)
    _compose(doc, depth, compile_submodel)
    _apply_defaults(root, classes, "main")
    return doc


def read_file(path, assets=None, compile_submodel=None):
    """Parse the MJCF file at `path` (errors name that path); compile_submodel as for `read`."""
    try:
        with open(path, "rb") as f:
            text = f.read()
    except OSError as e:
        raise ModelError(f"cannot read model file: {e.strerror}", file=path) from None
    return read(
        text,
        name=path,
        directory=os.path.dirname(os.path.abspath(path)),
        assets=assets,
        modeldir=_dirname(path),
        compile_submodel=compile_submodel,
    )
