"""MJCF grammar of <asset> (MuJoCo 3.17 mjcf.schema): mesh, hfield, texture, material, skin, model.

Every element of the grammar is declared so that models parse; what numjoco does not compile raises
UnsupportedError in the asset compiler (mesh plugins).  Skins (here or in
<deformable>) are compiled into the Model for rendering (compiler.skin).
"""

from .schema import ENUMS, declare

ENUMS["meshbuiltin"] = {  # mjtMeshBuiltin
    "none": 0,
    "sphere": 1,
    "hemisphere": 2,
    "cone": 3,
    "supersphere": 4,
    "supertorus": 5,
    "wedge": 6,
    "plate": 7,
    "grid": 8,
    "box": 9,
    "cylinder": 10,
    "ellipsoid": 11,
    "square": 12,
    "disc": 13,
}
# mjtTextureRole
ENUMS["texrole"] = {
    "rgb": 1,
    "occlusion": 2,
    "roughness": 3,
    "metallic": 4,
    "normal": 5,
    "opacity": 6,
    "emissive": 7,
    "rgba": 8,
    "orm": 9,
}

declare(
    "asset",
    "",
    children={
        "mesh": "mesh",
        "hfield": "hfield",
        "skin": "skin",
        "texture": "texture",
        "material": "material",
        "model": "asset_model",
    },
)

declare(
    "mesh",
    """
name         str     !nodefault
class        str     !nodefault
content_type str     !nodefault
file         str     !nodefault
vertex       real[]  !nodefault
normal       real[]  !nodefault
texcoord     real[]  !nodefault
face         int[]   !nodefault
refpos       real[3] 0 0 0 !nodefault
refquat      real[4] 1 0 0 0 !nodefault
scale        real[3] 1 1 1
smoothnormal bool false !nodefault
maxhullvert  int -1
inertia      enum:meshinertia legacy
builtin      enum:meshbuiltin none !nodefault
params       str     !nodefault  # numbers, read only with builtin (as MuJoCo)
material     str     !nodefault
""",
    children={"plugin": "mesh_plugin"},
    default_slot="mesh",
)

declare(
    "mesh_plugin",
    """
plugin   str
instance str
""",
    children={"config": "mesh_plugin_config"},
    tag="plugin",
)
declare("mesh_plugin_config", "key str !required\nvalue str", tag="config")

declare(
    "hfield",
    """
name         str
content_type str
file         str
nrow         int 0
ncol         int 0
size         real[4] !required
elevation    real[]
""",
)

declare(
    "skin",
    """
name     str
file     str
material str
rgba     real[4] 0.5 0.5 0.5 1
inflate  real 0
vertex   real[]
texcoord real[]
face     int[]
group    int 0
""",
    children={"bone": "skin_bone"},
)
declare(
    "skin_bone",
    """
body       str !required
bindpos    real[3] !required
bindquat   real[4] !required
vertid     int[] !required
vertweight real[] !required
""",
    tag="bone",
)

# <deformable>: skins (kept for rendering); flex and flexcomp are not declared, so the reader refuses them with
# UnsupportedError (they change the simulation)
declare("deformable", "", children={"skin": "skin"})

# a texture's class is a default class (MuJoCo 3.17 reads <default><texture>): everything but the name, class,
# content type and files can be set there
declare(
    "texture",
    """
name         str     !nodefault
class        str     !nodefault
type         enum:texture cube
colorspace   enum:colorspace auto
content_type str     !nodefault
file         str     !nodefault
gridsize     int[2] 1 1
gridlayout   str
fileright    str     !nodefault
fileleft     str     !nodefault
fileup       str     !nodefault
filedown     str     !nodefault
filefront    str     !nodefault
fileback     str     !nodefault
builtin      enum:builtin none
rgb1         real[3] 0.8 0.8 0.8
rgb2         real[3] 0.5 0.5 0.5
mark         enum:mark none
markrgb      real[3] 0 0 0
random       real 0.01
width        int 0
height       int 0
hflip        bool false
vflip        bool false
nchannel     int 3
""",
    default_slot="texture",
)

declare(
    "material",
    """
name        str     !nodefault
class       str     !nodefault
texture     str
texrepeat   real[2] 1 1
texuniform  bool false
emission    real 0
specular    real 0.5
shininess   real 0.5
reflectance real 0
metallic    real -1
roughness   real -1
rgba        real[4] 1 1 1 1
""",
    children={"layer": "material_layer"},
    default_slot="material",
)
declare(
    "material_layer",
    """
texture str !required
role    enum:texrole !required
""",
    tag="layer",
)

declare(
    "asset_model",
    """
name         str
file         str
content_type str
""",
    tag="model",
)
