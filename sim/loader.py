"""`load_model`: MJCF or URDF file path or XML string (plus optional in-memory assets) -> compiled Model."""

from __future__ import annotations

import os
from collections.abc import Mapping

from .compiler import compile_document, compile_submodel
from .errors import ModelError
from .mjcf import reader
from .model import Model
from .setconst import set_const


def load_model(source: str | bytes | os.PathLike, assets: Mapping[str, bytes] | None = None) -> Model:
    """Compile an MJCF model, or a URDF robot as MuJoCo's URDF import does (a <robot> root element).

    source: a path to an .xml / .urdf file, or the XML text itself (anything that starts with '<' after
    whitespace, or holds a '<' and names no file: text before the root element is allowed, as in MuJoCo).
    assets: optional {filename: bytes} for meshes, height fields, textures and included files, looked up
    before the file system (like mujoco.MjModel.from_xml_string(xml, assets)).
    Raises sim.ModelError naming the file, line, element and attribute on malformed input, and
    sim.UnsupportedError for MuJoCo features numjoco does not simulate yet.
    """
    if isinstance(source, bytes):
        # the document itself (any encoding expat reads: a BOM or an XML declaration says which), else a path
        if source.lstrip().startswith(b"<") or source.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
            doc = reader.read(
                source, name="<string>", directory=os.getcwd(), assets=assets, compile_submodel=compile_submodel
            )
            return compile_document(doc, set_constants=set_const)
        source = os.fsdecode(source)
    if isinstance(source, str) and not source.strip():
        raise ModelError(
            "empty model: the source string is empty (expected MJCF / URDF text or a file path)",
            file="<string>",
            line=1,
        )
    if isinstance(source, os.PathLike) or not (
        str(source).lstrip().startswith("<") or ("<" in source and not os.path.exists(source))
    ):
        doc = reader.read_file(os.fspath(source), assets=assets, compile_submodel=compile_submodel)
    else:
        doc = reader.read(
            source, name="<string>", directory=os.getcwd(), assets=assets, compile_submodel=compile_submodel
        )
    return compile_document(doc, set_constants=set_const)
