"""MJCF grammar: which elements exist, their children and their typed attributes.

Each element is declared with a compact text table, one attribute a line:

    name   type   [default values...]   [!flags]

types: ``real`` / ``int`` scalars, ``real[3]`` exactly three values, ``real[1..3]`` one to three values (the
rest keep the inherited value), ``real[]`` any number, ``str``, ``bool`` (true/false), ``enum:NAME`` (one
keyword of ENUMS[NAME]).  Flags after ``!``: ``nodefault`` (not settable in a <default> class),
``required``.  Anything not declared here is rejected by the reader with a ModelError, so the schema is also
the list of what numjoco supports.

Section modules (schema_assets, schema_sections) add their elements with :func:`declare`.
"""

import numpy as np

# MuJoCo's integer values for keyword attributes.
ENUMS = {
    "bool": {"false": 0, "true": 1},
    "FalseTrueAuto": {"false": 0, "true": 1, "auto": 2},
    "FalseAuto": {"false": 0, "auto": 1},
    "enable": {"disable": 0, "enable": 1},
    "angle": {"radian": 0, "degree": 1},
    "coordinate": {"local": 0, "global": 1},
    "jointtype": {"free": 0, "ball": 1, "slide": 2, "hinge": 3},
    "geomtype": {
        "plane": 0,
        "hfield": 1,
        "sphere": 2,
        "capsule": 3,
        "ellipsoid": 4,
        "cylinder": 5,
        "box": 6,
        "mesh": 7,
        "sdf": 8,
    },
    "integrator": {"Euler": 0, "RK4": 1, "implicit": 2, "implicitfast": 3},
    "cone": {"pyramidal": 0, "elliptic": 1},
    "jacobian": {"dense": 0, "sparse": 1, "auto": 2},
    "solver": {"PGS": 0, "CG": 1, "Newton": 2},
    "projection": {"perspective": 0, "orthographic": 1},
    "camlight": {"fixed": 0, "track": 1, "trackcom": 2, "targetbody": 3, "targetbodycom": 4},
    "lighttype": {"spot": 0, "directional": 1, "point": 2, "image": 3},
    "fluidshape": {"none": 0, "ellipsoid": 1},
    "bodysleep": {"auto": 0, "never": 1, "allowed": 2, "init": 3},
    "conflict": {"warning": 0, "merge": 1, "error": 2},
    "lrmode": {"none": 0, "muscle": 1, "muscleuser": 2, "all": 3},
    "meshinertia": {"convex": 0, "exact": 1, "legacy": 2, "shell": 3},
    "texture": {"2d": 0, "cube": 1, "skybox": 2},
    "colorspace": {"auto": 0, "linear": 1, "sRGB": 2},
    "builtin": {"none": 0, "gradient": 1, "checker": 2, "flat": 3},
    "mark": {"none": 0, "edge": 1, "cross": 2, "random": 3},
}


class Attr:
    """One attribute: its kind, value count, default and flags."""

    __slots__ = ("name", "kind", "nmin", "nmax", "enum", "default", "nodefault", "required")

    def __init__(self, name, kind, nmin, nmax, enum, default, nodefault, required):
        self.name = name
        self.kind = kind  # 'real' | 'int' | 'str' | 'bool' | 'enum'
        self.nmin = nmin  # None for a scalar
        self.nmax = nmax  # None for unbounded
        self.enum = enum  # keyword -> int, for 'enum' and 'bool'
        self.default = default  # parsed default (python scalar or float64/int array) or None
        self.nodefault = nodefault
        self.required = required

    @property
    def is_array(self):
        return self.nmin is not None


class Element:
    """One element kind: attributes, allowed children (tag -> element key) and the <default> slot it uses."""

    def __init__(self, key, tag, attrs, children, default_slot=None):
        self.key = key
        self.tag = tag
        self.attrs = attrs
        self.children = children
        self.default_slot = default_slot


ELEMENTS = {}


def _parse_default(kind, nmin, text, enum):
    if text is None:
        return None
    if kind in ("enum", "bool"):
        return enum[text]
    if kind == "str":
        return text
    vals = text.split()
    if nmin is None:
        return float(vals[0]) if kind == "real" else int(vals[0])
    return np.array([float(v) for v in vals], dtype=np.float64 if kind == "real" else np.int64)


def parse_table(table):
    """Parse the compact attribute table into {name: Attr}."""
    attrs = {}
    for raw in table.strip().splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        flags = ()
        if "!" in line:
            line, fl = line.split("!", 1)
            flags = tuple(fl.split())
        parts = line.split()
        name, typ = parts[0], parts[1]
        default_text = " ".join(parts[2:]) or None
        nmin = nmax = None
        enum = None
        if "[" in typ:
            base, cnt = typ[:-1].split("[")
            if cnt == "":
                nmin, nmax = 0, None
            elif ".." in cnt:
                lo, hi = cnt.split("..")
                nmin, nmax = int(lo), int(hi)
            else:
                nmin = nmax = int(cnt)
        else:
            base = typ
        if base.startswith("enum:"):
            enum = ENUMS[base[5:]]
            base = "enum"
        elif base == "bool":
            enum = ENUMS["bool"]
        if base not in ("real", "int", "str", "bool", "enum"):
            raise ValueError(f"schema: bad type {typ!r} for {name}")
        default = _parse_default(base, nmin, default_text, enum)
        attrs[name] = Attr(name, base, nmin, nmax, enum, default, "nodefault" in flags, "required" in flags)
    return attrs


def declare(key, table, children=None, tag=None, default_slot=None):
    """Register element `key` (XML tag `tag`, default = key) with its attribute table and children."""
    el = Element(key, tag or key, parse_table(table), dict(children or {}), default_slot)
    ELEMENTS[key] = el
    return el


def element(key):
    return ELEMENTS[key]


# ---------------------------------------------------------------------------------------------- top level

ORIENTATION = """
quat       real[4]  1 0 0 0
axisangle  real[4]
xyaxes     real[6]
zaxis      real[3]
euler      real[3]
"""

declare(
    "mujoco",
    "model str",
    children={
        "compiler": "compiler",
        "option": "option",
        "size": "size",
        "statistic": "statistic",
        "visual": "visual",
        "default": "default",
        "asset": "asset",
        "worldbody": "worldbody",
        "contact": "contact",
        "tendon": "tendon",
        "equality": "equality",
        "actuator": "actuator",
        "sensor": "sensor",
        "keyframe": "keyframe",
        "custom": "custom",
        "extension": "extension",
        "deformable": "deformable",
    },
)

declare(
    "compiler",
    """
autolimits        bool  true
boundmass         real  0
boundinertia      real  0
settotalmass      real  -1
balanceinertia    bool  false
strippath         bool  false
coordinate        enum:coordinate local
angle             enum:angle degree
fitaabb           bool  false
eulerseq          str   xyz
meshdir           str
texturedir        str
assetdir          str
discardvisual     bool  false
usethread         bool  true
fusestatic        bool  false
inertiafromgeom   enum:FalseTrueAuto auto
inertiagrouprange int[2] 0 5
saveinertial      bool  false
alignfree         bool  false
conflict          enum:conflict warning
""",
    children={"lengthrange": "lengthrange"},
)

declare(
    "lengthrange",
    """
mode        enum:lrmode muscle
useexisting bool true
uselimit    bool false
accel       real 20
maxforce    real 0
timeconst   real 1
timestep    real 0.01
inttotal    real 10
interval    real 2
tolrange    real 0.05
""",
)

declare(
    "option",
    """
timestep          real 0.002
impratio          real 1
tolerance         real 1e-8
ls_tolerance      real 0.01
noslip_tolerance  real 1e-6
ccd_tolerance     real 1e-6
sleep_tolerance   real 0.001
gravity           real[3] 0 0 -9.81
wind              real[3] 0 0 0
magnetic          real[3] 0 -0.5 0
density           real 0
viscosity         real 0
o_margin          real 0
o_solref          real[1..2] 0.02 1
o_solimp          real[1..5] 0.9 0.95 0.001 0.5 2
o_friction        real[1..5] 1 1 0.005 0.0001 0.0001
integrator        enum:integrator Euler
cone              enum:cone pyramidal
jacobian          enum:jacobian auto
solver            enum:solver Newton
iterations        int 100
ls_iterations     int 50
noslip_iterations int 0
ccd_iterations    int 35
sdf_iterations    int 10
sdf_initpoints    int 40
actuatorgroupdisable int[]
""",
    children={"flag": "flag"},
)

# mjtDisableBit / mjtEnableBit order (bit i = 1 << i).
DISABLE_FLAGS = (
    "constraint",
    "equality",
    "frictionloss",
    "limit",
    "contact",
    "spring",
    "damper",
    "gravity",
    "clampctrl",
    "warmstart",
    "filterparent",
    "actuation",
    "refsafe",
    "sensor",
    "midphase",
    "eulerdamp",
    "autoreset",
    "nativeccd",
    "island",
    "multiccd",
)
ENABLE_FLAGS = ("override", "energy", "fwdinv", "invdiscrete", "sleep", "diagexact")

declare(
    "flag",
    "\n".join([f"{f} enum:enable enable" for f in DISABLE_FLAGS] + [f"{f} enum:enable disable" for f in ENABLE_FLAGS]),
)

declare(
    "size",
    """
memory          str
njmax           int -1
nconmax         int -1
nstack          int -1
nuserdata       int 0
nkey            int 0
nuser_body      int -1
nuser_jnt       int -1
nuser_geom      int -1
nuser_site      int -1
nuser_cam       int -1
nuser_tendon    int -1
nuser_actuator  int -1
nuser_sensor    int -1
""",
)

declare(
    "statistic",
    """
meaninertia real
meanmass    real
meansize    real
extent      real
center      real[3]
""",
)

# <visual> only affects rendering: its attributes are accepted and kept, never simulated.
declare("visual", "", children={t: "visual_" + t for t in ("global", "quality", "headlight", "map", "scale", "rgba")})
declare(
    "visual_global",
    """
cameraid int -1
orthographic bool false
fovy real 45
ipd real 0.068
azimuth real 90
elevation real -45
linewidth real 1
glow real 0.3
offwidth int 640
offheight int 480
realtime real 1
ellipsoidinertia bool false
bvactive bool false
""",
    tag="global",
)
declare(
    "visual_quality",
    "shadowsize int 4096\noffsamples int 4\nnumslices int 28\nnumstacks int 16\nnumquads int 4",
    tag="quality",
)
declare(
    "visual_headlight",
    "ambient real[3] 0.1 0.1 0.1\ndiffuse real[3] 0.4 0.4 0.4\nspecular real[3] 0.5 0.5 0.5\nactive int 1",
    tag="headlight",
)
declare(
    "visual_map",
    "\n".join(
        f"{a} real {v}"
        for a, v in (
            ("stiffness", 100),
            ("stiffnessrot", 500),
            ("force", 0.005),
            ("torque", 0.1),
            ("alpha", 0.3),
            ("fogstart", 3),
            ("fogend", 10),
            ("znear", 0.01),
            ("zfar", 50),
            ("haze", 0.3),
            ("shadowclip", 1),
            ("shadowscale", 0.6),
            ("actuatortendon", 2),
        )
    ),
    tag="map",
)
declare(
    "visual_scale",
    "\n".join(
        f"{a} real {v}"
        for a, v in (
            ("forcewidth", 0.1),
            ("contactwidth", 0.3),
            ("contactheight", 0.1),
            ("connect", 0.2),
            ("com", 0.4),
            ("camera", 0.3),
            ("light", 0.3),
            ("selectpoint", 0.2),
            ("jointlength", 1),
            ("jointwidth", 0.1),
            ("actuatorlength", 0.7),
            ("actuatorwidth", 0.2),
            ("framelength", 1),
            ("framewidth", 0.1),
            ("constraint", 0.1),
            ("slidercrank", 0.2),
            ("frustum", 10),
        )
    ),
    tag="scale",
)
declare(
    "visual_rgba",
    "\n".join(
        f"{a} real[4]"
        for a in (
            "fog",
            "haze",
            "force",
            "inertia",
            "joint",
            "actuator",
            "actuatornegative",
            "actuatorpositive",
            "com",
            "camera",
            "light",
            "selectpoint",
            "connect",
            "contactpoint",
            "contactforce",
            "contactfriction",
            "contacttorque",
            "contactgap",
            "rangefinder",
            "constraint",
            "slidercrank",
            "crankbroken",
            "frustum",
            "bv",
            "bvactive",
        )
    ),
    tag="rgba",
)

# <default>: children are filled in by `finish()` from every element that names a default slot.
declare("default", "class str", children={"default": "default"})

# ---------------------------------------------------------------------------------------------- body tree

BODY_CHILDREN = {
    "body": "body",
    "frame": "frame",
    "inertial": "inertial",
    "joint": "joint",
    "freejoint": "freejoint",
    "geom": "geom",
    "site": "site",
    "camera": "camera",
    "light": "light",
    "replicate": "replicate",
    "attach": "attach",
}

declare("worldbody", "", children=BODY_CHILDREN)

declare(
    "body",
    """
name       str
childclass str
pos        real[3] 0 0 0
"""
    + ORIENTATION
    + """
mocap      bool false
gravcomp   real 0
sleep      enum:bodysleep auto
simple     enum:FalseAuto auto
user       real[]
""",
    children=BODY_CHILDREN,
)

declare(
    "frame",
    """
name       str
childclass str
pos        real[3] 0 0 0
"""
    + ORIENTATION,
    children={k: v for k, v in BODY_CHILDREN.items() if k not in ("inertial", "freejoint")},
)

# <attach> (model composition: a body / frame / world of an <asset><model> or of this model, expanded by
# mjcf.compose)
declare(
    "attach",
    """
model  str
body   str
frame  str
prefix str !required
""",
)

# <replicate> (model composition, expanded by mjcf.compose before default classes are applied)
declare(
    "replicate",
    """
count      int !required
sep        str
offset     real[3] 0 0 0
euler      real[3] 0 0 0
childclass str
""",
    children={k: v for k, v in BODY_CHILDREN.items() if k not in ("inertial", "freejoint", "joint")},
)

declare(
    "inertial",
    """
pos         real[3] !required
quat        real[4] 1 0 0 0
axisangle   real[4]
xyaxes      real[6]
zaxis       real[3]
euler       real[3]
mass        real    !required
diaginertia real[3]
fullinertia real[6]
""",
)

declare(
    "joint",
    """
name               str     !nodefault
class              str     !nodefault
type               enum:jointtype hinge
group              int     0
pos                real[3] 0 0 0
axis               real[3] 0 0 1
springdamper       real[2] 0 0
limited            enum:FalseTrueAuto auto
actuatorfrclimited enum:FalseTrueAuto auto
solreflimit        real[1..2] 0.02 1
solimplimit        real[1..5] 0.9 0.95 0.001 0.5 2
solreffriction     real[1..2] 0.02 1
solimpfriction     real[1..5] 0.9 0.95 0.001 0.5 2
stiffness          real[1..3] 0 0 0
range              real[2] 0 0
actuatorfrcrange   real[2] 0 0
actuatorgravcomp   bool false
margin             real 0
ref                real 0
springref          real 0
armature           real 0
damping            real[1..3] 0 0 0
frictionloss       real 0
user               real[]
""",
    default_slot="joint",
)

declare(
    "freejoint",
    """
name  str
group int 0
align enum:FalseTrueAuto auto
""",
)

declare(
    "geom",
    """
name         str     !nodefault
class        str     !nodefault
type         enum:geomtype sphere
contype      int 1
conaffinity  int 1
condim       int 3
group        int 0
priority     int 0
size         real[1..3] 0 0 0
material     str
friction     real[1..3] 1 0.005 0.0001
mass         real
density      real 1000
shellinertia bool false
solmix       real 1
solref       real[1..2] 0.02 1
solimp       real[1..5] 0.9 0.95 0.001 0.5 2
margin       real 0
gap          real 0
fromto       real[6]
pos          real[3] 0 0 0
"""
    + ORIENTATION
    + """
hfield       str
mesh         str
fitscale     real 1
surfacevel   real[1..6] 0 0 0 0 0 0
adhesion     real 0
rgba         real[4] 0.5 0.5 0.5 1
fluidshape   enum:fluidshape none
fluidcoef    real[1..5] 0.5 0.25 1.5 1.0 1.0
user         real[]
""",
    default_slot="geom",
)

declare(
    "site",
    """
name     str     !nodefault
class    str     !nodefault
type     enum:geomtype sphere
group    int 0
pos      real[3] 0 0 0
"""
    + ORIENTATION
    + """
material str
mesh     str
size     real[1..3] 0.005 0.005 0.005
fromto   real[6]
rgba     real[4] 0.5 0.5 0.5 1
user     real[]
""",
    default_slot="site",
)

declare(
    "camera",
    """
name           str     !nodefault
class          str     !nodefault
projection     enum:projection perspective
fovy           real 45
ipd            real 0.068
resolution     int[2] 1 1
pos            real[3] 0 0 0
"""
    + ORIENTATION
    + """
mode           enum:camlight fixed
target         str     !nodefault
focal          real[2] 0 0
focalpixel     real[2] 0 0
principal      real[2] 0 0
principalpixel real[2] 0 0
sensorsize     real[2] 0 0
output         str rgb
user           real[]
""",
    default_slot="camera",
)

declare(
    "light",
    """
name        str     !nodefault
class       str     !nodefault
directional bool false
type        enum:lighttype spot
castshadow  bool true
active      bool true
pos         real[3] 0 0 0
dir         real[3] 0 0 -1
bulbradius  real 0.02
intensity   real 0
range       real 10
attenuation real[3] 1 0 0
cutoff      real 45
softness    real 0.2
exponent    real 10
ambient     real[3] 0 0 0
diffuse     real[3] 0.7 0.7 0.7
specular    real[3] 0.3 0.3 0.3
mode        enum:camlight fixed
target      str     !nodefault
texture     str     !nodefault
""",
    default_slot="light",
)


# children a <default> element may have (a default material's texture layers)
DEFAULT_CHILDREN = {"material": {"layer": "material_layer"}}


def finish():
    """Wire <default> children.

    Explicit ``default_*`` declarations (shared slots such as tendon, equality and the actuator shortcuts) are
    used as they are; an element that is the canonical owner of its slot (tag == slot) gets a default view
    with its attributes minus name/class and the ``nodefault`` ones.
    """
    dflt = ELEMENTS["default"]
    for key, el in list(ELEMENTS.items()):
        if (
            el.default_slot is not None
            and el.default_slot == el.tag
            and not key.startswith("default_")
            and "default_" + key not in ELEMENTS
        ):
            attrs = {n: a for n, a in el.attrs.items() if not a.nodefault and n not in ("name", "class")}
            ELEMENTS["default_" + key] = Element(
                "default_" + key, el.tag, attrs, DEFAULT_CHILDREN.get(key, {}), el.default_slot
            )
    for key, el in ELEMENTS.items():
        if key.startswith("default_"):
            dflt.children[el.tag] = key
