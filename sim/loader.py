"""`load_model`: MJCF or URDF file path or XML string (plus optional in-memory assets) -> compiled Model."""

import os

from .compiler import compile_document
from .mjcf import reader


def load_model(source, assets=None):
    """Compile an MJCF model, or a URDF robot as MuJoCo's URDF import does (a <robot> root element).

    source: a path to an .xml / .urdf file, or the XML text itself (anything that starts with '<' after
    whitespace).
    assets: optional {filename: bytes} for meshes, height fields, textures and included files, looked up
    before the file system (like mujoco.MjModel.from_xml_string(xml, assets)).
    Raises sim.ModelError naming the file, line, element and attribute on malformed input, and
    sim.UnsupportedError for MuJoCo features numjoco does not simulate yet.
    """
    if isinstance(source, bytes):
        source = source.decode()
    if isinstance(source, os.PathLike) or not str(source).lstrip().startswith("<"):
        doc = reader.read_file(os.fspath(source), assets=assets)
    else:
        doc = reader.read(source, name="<string>", directory=os.getcwd(), assets=assets)
    return compile_document(doc)
