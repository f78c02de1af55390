"""MJCF grammar of the non-body sections: <contact>, <tendon>, <equality>, <actuator>, <sensor>, <keyframe>,
<custom> and <extension>.

Actuator elements declare no schema defaults on purpose: compiler.actuator replays MuJoCo's default-class
actuator (one general actuator per class mutated by every shortcut written in the class), so it needs to
know exactly which attributes an element writes.  Sensors have no default classes in MuJoCo.
"""

from . import schema
from .schema import declare

schema.ENUMS.update(
    {
        "dyn": {
            "none": 0,
            "integrator": 1,
            "filter": 2,
            "filterexact": 3,
            "muscle": 4,
            "dcmotor": 5,
            "pid": 6,
            "user": 7,
        },
        "gain": {"fixed": 0, "affine": 1, "muscle": 2, "dcmotor": 3, "so3": 4, "pid": 5, "user": 6},
        "bias": {"none": 0, "affine": 1, "muscle": 2, "dcmotor": 3, "so3": 4, "user": 5},
        "interp": {"zoh": 0, "linear": 1, "cubic": 2},
        "stage": {"none": 0, "pos": 1, "vel": 2, "acc": 3},
        "datatype": {"real": 0, "positive": 1, "axis": 2, "quaternion": 3},
        # object kinds with a spatial frame (mjtObj values)
        "frameobj": {"body": 1, "xbody": 2, "geom": 5, "site": 6, "camera": 7},
        "reduce": {"none": 0, "mindist": 1, "maxforce": 2, "netforce": 3},
    }
)

# ---------------------------------------------------------------------------------------------- contact

declare("contact", "", children={"pair": "pair", "exclude": "exclude"})

declare(
    "pair",
    """
name           str      !nodefault
class          str      !nodefault
geom1          str      !nodefault !required
geom2          str      !nodefault !required
condim         int      3
friction       real[1..5] 1 1 0.005 0.0001 0.0001
solref         real[1..2] 0.02 1
solreffriction real[1..2] 0 0
solimp         real[1..5] 0.9 0.95 0.001 0.5 2
gap            real     0
margin         real     0
adhesion       real     0
""",
    default_slot="pair",
)

declare(
    "exclude",
    """
name  str
body1 str !required
body2 str !required
""",
)

# ---------------------------------------------------------------------------------------------- tendon

_TENDON_COMMON = """
group              int 0
limited            enum:FalseTrueAuto auto
actuatorfrclimited enum:FalseTrueAuto auto
range              real[2] 0 0
actuatorfrcrange   real[2] 0 0
solreflimit        real[1..2] 0.02 1
solimplimit        real[1..5] 0.9 0.95 0.001 0.5 2
solreffriction     real[1..2] 0.02 1
solimpfriction     real[1..5] 0.9 0.95 0.001 0.5 2
frictionloss       real 0
springlength       real[1..2] -1 -1
margin             real 0
stiffness          real[1..3] 0 0 0
damping            real[1..3] 0 0 0
armature           real 0
user               real[]
"""

_TENDON_VISUAL = """
width              real 0.003
material           str
rgba               real[4] 0.5 0.5 0.5 1
"""

declare("tendon", "", children={"spatial": "spatial", "fixed": "fixed"})
declare(
    "spatial",
    "name str\nclass str" + _TENDON_COMMON + _TENDON_VISUAL,
    children={"site": "spatial_site", "geom": "spatial_geom", "pulley": "pulley"},
    default_slot="tendon",
)
declare("fixed", "name str\nclass str" + _TENDON_COMMON, children={"joint": "fixed_joint"}, default_slot="tendon")
# MuJoCo's <default><tendon> has no actuator force range and no armature (only the elements do)
_TENDON_NODEFAULT = ("actuatorfrclimited", "actuatorfrcrange", "armature")
declare(
    "default_tendon",
    "\n".join(
        ln
        for ln in (_TENDON_COMMON + _TENDON_VISUAL).splitlines()
        if not ln.split() or ln.split()[0] not in _TENDON_NODEFAULT
    ),
    tag="tendon",
    default_slot="tendon",
)
declare("spatial_site", "site str !required", tag="site")
declare("spatial_geom", "geom str !required\nsidesite str", tag="geom")
declare("pulley", "divisor real !required")
declare("fixed_joint", "joint str !required\ncoef real !required", tag="joint")

# ---------------------------------------------------------------------------------------------- equality

_EQ_BASE = """
name   str  !nodefault
class  str  !nodefault
active bool true
solref real[1..2] 0.02 1
solimp real[1..5] 0.9 0.95 0.001 0.5 2
"""

declare(
    "equality",
    "",
    children={
        "connect": "connect",
        "weld": "weld",
        "joint": "equality_joint",
        "tendon": "equality_tendon",
        "flex": "equality_flex",
        "flexvert": "flexvert",
        "flexstrain": "flexstrain",
    },
)
declare(
    "connect",
    _EQ_BASE
    + """
body1  str !nodefault
body2  str !nodefault
anchor real[3]
site1  str !nodefault
site2  str !nodefault
""",
    default_slot="equality",
)
declare(
    "weld",
    _EQ_BASE
    + """
body1       str !nodefault
body2       str !nodefault
relpose     real[7]
anchor      real[3]
site1       str !nodefault
site2       str !nodefault
torquescale real 1
""",
    default_slot="equality",
)
declare(
    "equality_joint",
    _EQ_BASE
    + """
joint1   str !required
joint2   str
polycoef real[1..5] 0 1 0 0 0
""",
    tag="joint",
    default_slot="equality",
)
declare(
    "equality_tendon",
    _EQ_BASE
    + """
tendon1  str !required
tendon2  str
polycoef real[1..5] 0 1 0 0 0
""",
    tag="tendon",
    default_slot="equality",
)
declare("equality_flex", _EQ_BASE + "flex str !required", tag="flex", default_slot="equality")
declare("flexvert", _EQ_BASE + "flex str !required", default_slot="equality")
declare("flexstrain", _EQ_BASE + "flex str !required\ncell real[3]", default_slot="equality")
declare(
    "default_equality",
    """
active bool true
solref real[1..2] 0.02 1
solimp real[1..5] 0.9 0.95 0.001 0.5 2
""",
    tag="equality",
    default_slot="equality",
)

# ---------------------------------------------------------------------------------------------- actuator
# No defaults here (see module docstring); MuJoCo's mjsActuator defaults live in compiler.actuator.

_ACT_BASE = """
name      str !nodefault
class     str !nodefault
group     int
nsample   int
interp    enum:interp
delay     real
ctrlrange real[2]
user      real[]
"""
_ACT_DYN = """
lengthrange real[2] !nodefault
gear        real[1..6]
damping     real[1..3]
armature    real
cranklength real
"""
_TRANSMISSION = """
joint         str !nodefault
jointinparent str !nodefault
tendon        str !nodefault
slidersite    str !nodefault
cranksite     str !nodefault
site          str !nodefault
refsite       str !nodefault
"""
_LIM = {n: f"{n} enum:FalseTrueAuto\n" for n in ("ctrllimited", "forcelimited", "actlimited")}

ACTUATOR_TABLES = {
    "general": _ACT_BASE
    + _LIM["ctrllimited"]
    + _LIM["forcelimited"]
    + _LIM["actlimited"]
    + """
forcerange real[2]
actrange   real[2]
"""
    + _ACT_DYN
    + _TRANSMISSION
    + """
body      str !nodefault
actdim    int
input     str
velrange  real[2]
ffrange   real[2]
dyntype   enum:dyn
gaintype  enum:gain
biastype  enum:bias
dynprm    real[1..10]
gainprm   real[1..10]
biasprm   real[1..10]
actearly  bool
inheritrange real
""",
    "motor": _ACT_BASE + _LIM["ctrllimited"] + _LIM["forcelimited"] + "forcerange real[2]\n" + _ACT_DYN + _TRANSMISSION,
    "position": _ACT_BASE
    + _LIM["ctrllimited"]
    + _LIM["forcelimited"]
    + """
inheritrange real
forcerange   real[2]
"""
    + _ACT_DYN
    + _TRANSMISSION
    + """
kp        real
kv        real
dampratio real
timeconst real
""",
    "velocity": _ACT_BASE
    + _LIM["ctrllimited"]
    + _LIM["forcelimited"]
    + "forcerange real[2]\n"
    + _ACT_DYN
    + _TRANSMISSION
    + "kv real\n",
    "intvelocity": _ACT_BASE
    + _LIM["ctrllimited"]
    + _LIM["forcelimited"]
    + _LIM["actlimited"]
    + """
forcerange   real[2]
actrange     real[2]
inheritrange real
"""
    + _ACT_DYN
    + _TRANSMISSION
    + """
kp        real
kv        real
dampratio real
""",
    "orientation": _ACT_BASE
    + _LIM["forcelimited"]
    + """
forcerange real[2]
joint      str !nodefault
site       str !nodefault
refsite    str !nodefault
kp         real
kv         real
dampratio  real
input      str
""",
    "pid": _ACT_BASE
    + _LIM["ctrllimited"]
    + _LIM["forcelimited"]
    + """
posrange     real[2]
velrange     real[2]
ffrange      real[2]
forcerange   real[2]
inheritrange real
"""
    + _ACT_DYN
    + _TRANSMISSION
    + """
kp        real
kv        real
dampratio real
ki        real
imax      real
slewmax   real
input     str
""",
    "damper": _ACT_BASE + _LIM["forcelimited"] + "forcerange real[2]\n" + _ACT_DYN + _TRANSMISSION + "kv real\n",
    "cylinder": _ACT_BASE
    + _LIM["ctrllimited"]
    + _LIM["forcelimited"]
    + "forcerange real[2]\n"
    + _ACT_DYN
    + _TRANSMISSION
    + """
timeconst real
area      real
diameter  real
bias      real[3]
""",
    "muscle": _ACT_BASE
    + _LIM["ctrllimited"]
    + _LIM["forcelimited"]
    + "forcerange real[2]\n"
    + _ACT_DYN
    + """
joint         str !nodefault
jointinparent str !nodefault
tendon        str !nodefault
slidersite    str !nodefault
cranksite     str !nodefault
timeconst     real[2]
tausmooth     real !nodefault
range         real[2]
force         real
scale         real
lmin          real
lmax          real
vmax          real
fpmax         real
fvmax         real
""",
    "adhesion": _ACT_BASE
    + _LIM["forcelimited"]
    + """
forcerange real[2]
body       str !nodefault
gain       real
""",
    "dcmotor": _ACT_BASE
    + _LIM["ctrllimited"]
    + _ACT_DYN
    + _TRANSMISSION
    + """
motorconst real[1..2]
resistance real
nominal    real[1..3]
saturation real[1..3]
inductance real[1..2]
cogging    real[1..3]
controller real[1..6]
thermal    real[1..6]
lugre      real[1..5]
input      str
""",
}

ACTUATOR_SHORTCUTS = tuple(ACTUATOR_TABLES)

declare("actuator", "", children={**{t: t for t in ACTUATOR_SHORTCUTS}, "plugin": "actuator_plugin"})
for _tag, _table in ACTUATOR_TABLES.items():
    declare(_tag, _table, default_slot="actuator")
    # the <default> view: no name/class and none of the nodefault attributes
    _dtable = "\n".join(
        line
        for line in _table.strip().splitlines()
        if line.split() and line.split()[0] not in ("name", "class") and "!nodefault" not in line
    )
    declare("default_" + _tag, _dtable, tag=_tag, default_slot="actuator")

# plugins are declared (with every attribute MuJoCo's schema gives them) so that the error says "not supported"
# rather than "unknown element"
declare(
    "actuator_plugin",
    _ACT_BASE
    + _LIM["ctrllimited"]
    + _LIM["forcelimited"]
    + _LIM["actlimited"]
    + """
forcerange real[2]
actrange   real[2]
"""
    + _ACT_DYN
    + _TRANSMISSION
    + """
plugin   str
instance str
actdim   int
dyntype  enum:dyn
dynprm   real[1..10]
actearly bool
""",
    tag="plugin",
    children={"config": "config"},
)
declare("config", "key str !required\nvalue str")

# ---------------------------------------------------------------------------------------------- sensor

_SENS_BASE = """
name     str
nsample  int 0
interp   enum:interp zoh
delay    real 0
interval real[1..2] 0 0
cutoff   real 0
noise    real 0
user     real[]
"""

# tag -> table of the object attributes
SENSOR_OBJECT_TABLES = {}
for _t in ("touch", "accelerometer", "velocimeter", "gyro", "force", "torque", "magnetometer"):
    SENSOR_OBJECT_TABLES[_t] = "site str !required"
SENSOR_OBJECT_TABLES["camprojection"] = "site str !required\ncamera str !required"
SENSOR_OBJECT_TABLES["rangefinder"] = "site str\ncamera str\ndata str"
for _t in (
    "jointpos",
    "jointvel",
    "jointactuatorfrc",
    "ballquat",
    "ballangvel",
    "jointlimitpos",
    "jointlimitvel",
    "jointlimitfrc",
):
    SENSOR_OBJECT_TABLES[_t] = "joint str !required"
for _t in ("tendonpos", "tendonvel", "tendonactuatorfrc", "tendonlimitpos", "tendonlimitvel", "tendonlimitfrc"):
    SENSOR_OBJECT_TABLES[_t] = "tendon str !required"
for _t in ("actuatorpos", "actuatorvel", "actuatorfrc"):
    SENSOR_OBJECT_TABLES[_t] = "actuator str !required"
for _t in ("framepos", "framequat", "framexaxis", "frameyaxis", "framezaxis", "framelinvel", "frameangvel"):
    SENSOR_OBJECT_TABLES[_t] = (
        "objtype enum:frameobj !required\nobjname str !required\nreftype enum:frameobj\nrefname str"
    )
for _t in ("framelinacc", "frameangacc"):
    SENSOR_OBJECT_TABLES[_t] = "objtype enum:frameobj !required\nobjname str !required"
for _t in ("subtreecom", "subtreelinvel", "subtreeangmom"):
    SENSOR_OBJECT_TABLES[_t] = "body str !required"
SENSOR_OBJECT_TABLES["insidesite"] = "site str !required\nobjtype enum:frameobj !required\nobjname str !required"
for _t in ("distance", "normal", "fromto"):
    SENSOR_OBJECT_TABLES[_t] = "geom1 str\ngeom2 str\nbody1 str\nbody2 str"
SENSOR_OBJECT_TABLES["sensor_contact"] = """
geom1    str
geom2    str
body1    str
body2    str
subtree1 str
subtree2 str
site     str
num      int 1
data     str
reduce   enum:reduce none
"""
for _t in ("e_potential", "e_kinetic", "clock"):
    SENSOR_OBJECT_TABLES[_t] = ""

declare(
    "sensor",
    "",
    children={
        **{("contact" if k == "sensor_contact" else k): k for k in SENSOR_OBJECT_TABLES},
        "tactile": "tactile",
        "user": "sensor_user",
        "plugin": "sensor_plugin",
    },
)
for _key, _table in SENSOR_OBJECT_TABLES.items():
    declare(_key, _SENS_BASE + _table, tag="contact" if _key == "sensor_contact" else _key)

declare(
    "tactile",
    """
name     str
geom     str !required
mesh     str !required
cutoff   real 0
nsample  int 0
interp   enum:interp zoh
delay    real 0
interval real[1..2] 0 0
user     real[]
""",
)
declare(
    "sensor_user",
    """
name      str
objtype   str
objname   str
datatype  enum:datatype real
needstage enum:stage acc
dim       int !required
cutoff    real 0
noise     real 0
user      real[]
""",
    tag="user",
)
declare(
    "sensor_plugin",
    """
name     str
plugin   str
instance str
cutoff   real 0
objtype  str
objname  str
reftype  str
refname  str
user     real[]
""",
    tag="plugin",
    children={"config": "config"},
)

# ---------------------------------------------------------------------------------------------- keyframe

declare("keyframe", "", children={"key": "key"})
declare(
    "key",
    """
name  str
time  real 0
qpos  real[]
qvel  real[]
act   real[]
mpos  real[]
mquat real[]
ctrl  real[]
""",
)

# ---------------------------------------------------------------------------------------------- custom

declare("custom", "", children={"numeric": "numeric", "text": "text", "tuple": "tuple"})
declare("numeric", "name str !required\nsize int\ndata real[]")
declare("text", "name str !required\ndata str !required")
declare("tuple", "name str !required", children={"element": "tuple_element"})
declare("tuple_element", "objtype str !required\nobjname str !required\nprm real 0", tag="element")

# ---------------------------------------------------------------------------------------------- extension

declare("extension", "", children={"plugin": "extension_plugin"})
declare("extension_plugin", "plugin str", tag="plugin", children={"instance": "plugin_instance"})
declare("plugin_instance", "name str !required", tag="instance", children={"config": "config"})
