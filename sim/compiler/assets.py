"""The <asset> section: meshes, height fields, textures and materials, compiled in MuJoCo's order
(sim/compiler/mesh.py, hfield.py, material.py)."""

from . import hfield as _hfield
from . import material as _material
from . import mesh as _mesh


def compile_assets(ctx):
    """Compile every <asset> child: meshes, height fields, textures, materials (ids in document order per
    type, names registered with ctx.add). Fills ctx.f and keeps ctx.meshes / ctx.hfields / ctx.textures
    for the geom compiler (see mesh_geom_properties / hfield_geom_properties)."""
    by = {"mesh": [], "hfield": [], "texture": [], "material": []}
    for asset in ctx.root.find("asset"):
        for el in asset.children:
            if el.key == "skin":
                continue  # compiled after the bodies (compiler.skin)
            if el.key == "asset_model":
                continue  # read by mjcf.compose for <attach model=...>
            by[el.key].append(el)
    if ctx.discardvisual:
        # mjCModel::TryCompile deletes every material and texture before compiling (see compiler.discard)
        by["texture"], by["material"] = [], []
    _material.compile_textures(ctx, by["texture"])
    _material.compile_materials(ctx, by["material"])
    _mesh.compile_meshes(ctx, by["mesh"])
    _hfield.compile_hfields(ctx, by["hfield"])
