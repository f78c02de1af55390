"""Seeded random MJCF generator for compiler conformance tests.

    xml = generate(seed)                 # deterministic MJCF text; valid for mujoco 3.17 by construction
    python tests/mjcf_gen.py 17          # print the model of seed 17 (to reproduce a failure)
    python tests/mjcf_gen.py 17 -o m.xml

A model has: <compiler> variations (angle radian/degree, eulerseq incl. extrinsic/mixed, autolimits,
inertiafromgeom, boundmass/boundinertia, discardvisual with visual geoms and a material in a quarter of the
models, drawn from a separate random stream), <option> tweaks and <flag>s, a tree of default classes (nested, used
through childclass on bodies and class= on elements), a kinematic tree of random depth/branching with mixed
hinge/slide/ball/free joints (free joints only on world children, alone, as MuJoCo requires), geoms of mixed
primitive types with random sizes, poses, every orientation form and fromto, explicit <inertial> sometimes
(diaginertia or fullinertia, rotated), <frame>s, sites, cameras, a mocap body, fixed tendons,
motor/position/velocity/intvelocity/damper/general actuators on hinge/slide joints and tendons, sensors, joint
and connect equalities, contact pairs and excludes, and sometimes a keyframe.

Validity rules the generator follows (each one is a MuJoCo compile error otherwise): every body that moves has
positive mass (geoms of positive volume, or an explicit inertial); ball joints are alone in their body (MuJoCo:
"ball followed by rotation") and have range "0 max"; at most 6 dofs per body; autolimits="false" models write
limited= next to every range; fromto is only used on capsule/cylinder/box/ellipsoid with an explicit type;
a geom either writes type and the full size, or inherits both from a class that defines them.
"""

import math
import random
import sys

GEOM_TYPES = ("sphere", "capsule", "ellipsoid", "cylinder", "box")
FROMTO_TYPES = ("capsule", "cylinder", "box", "ellipsoid")
ORIENT_FORMS = ("none", "quat", "euler", "axisangle", "xyaxes", "zaxis")
NSIZE = {"sphere": 1, "capsule": 2, "ellipsoid": 3, "cylinder": 2, "box": 3}
NSIZE_FROMTO = {"capsule": 1, "cylinder": 1, "box": 2, "ellipsoid": 2}


def _f(x):
    """Compact float text (5 significant digits)."""
    s = f"{x:.5g}"
    return "0" if s == "-0" else s


def _v(xs):
    return " ".join(_f(x) for x in xs)


class _Gen:
    def __init__(self, seed, max_bodies=10, max_depth=5, replicate=False):
        self.seed = seed
        # <replicate> around world children (replicate=True): its own stream, so the other models stay as they were
        self.replicate = replicate
        self.rp = random.Random(f"replicate-{seed}")
        self.r = random.Random(seed)
        self.max_bodies = max_bodies
        self.max_depth = max_depth
        self.lines = []
        self.nbody = 0
        self.njoint = 0
        self.ngeom = 0
        self.nsite = 0
        self.ncam = 0
        self.joints = []  # (name, type) in order
        self.sites = []
        self.features = set()  # what this model exercises (for coverage tests)
        self.bodies = []  # body names
        self.named_geoms = []  # (geom name, body name)
        self.tendons = []
        self.cur_body = "world"
        # <compiler discardvisual> draws from its own stream so that models without it stay as they were
        self.dv = random.Random(f"discardvisual-{seed}")
        self.discardvisual = self.dv.random() < 0.25

    # ---------------------------------------------------------------------------------- small helpers

    def emit(self, depth, text):
        self.lines.append("  " * depth + text)

    def u(self, lo, hi):
        return self.r.uniform(lo, hi)

    def chance(self, p):
        return self.r.random() < p

    def angle(self, deg):
        """An angle given in degrees, written in the model's unit."""
        return deg if self.degree else math.radians(deg)

    def unit(self):
        while True:
            v = [self.r.gauss(0, 1) for _ in range(3)]
            n = math.sqrt(sum(c * c for c in v))
            if n > 1e-3:
                return [c / n for c in v]

    def orientation(self, allow=ORIENT_FORMS):
        form = self.r.choice(allow)
        self.features.add("orient:" + form)
        if form == "none":
            return ""
        if form == "quat":
            q = [self.r.gauss(0, 1) for _ in range(4)]
            if self.chance(0.5):  # sometimes unnormalized, MuJoCo normalizes
                n = math.sqrt(sum(c * c for c in q)) or 1.0
                q = [c / n for c in q]
            return f' quat="{_v(q)}"'
        if form == "euler":
            return f' euler="{_v([self.angle(self.u(-180, 180)) for _ in range(3)])}"'
        if form == "axisangle":
            return f' axisangle="{_v(self.unit() + [self.angle(self.u(-180, 180))])}"'
        if form == "xyaxes":
            x = self.unit()
            y = self.unit()
            # keep y away from x (MuJoCo orthogonalizes; degenerate pairs are an error)
            dot = sum(a * b for a, b in zip(x, y))
            if abs(dot) > 0.9:
                y = [0.0, 0.0, 1.0] if abs(x[2]) < 0.5 else [1.0, 0.0, 0.0]
            return f' xyaxes="{_v(x + y)}"'
        z = self.unit()
        if self.chance(0.1):
            z = [0, 0, -1]  # the antiparallel special case
        return f' zaxis="{_v(z)}"'

    def pos(self, scale=0.3):
        return [self.u(-scale, scale) for _ in range(3)]

    # ---------------------------------------------------------------------------------------- sections

    def compiler(self):
        self.degree = self.chance(0.7)
        attrs = []
        if not self.degree:
            attrs.append('angle="radian"')
            self.features.add("angle:radian")
        elif self.chance(0.3):
            attrs.append('angle="degree"')
        if self.chance(0.4):
            seq = "".join(self.r.choice("xyzXYZ") for _ in range(3))
            attrs.append(f'eulerseq="{seq}"')
            self.features.add("eulerseq")
        self.autolimits = not self.chance(0.25)
        if not self.autolimits:
            attrs.append('autolimits="false"')
            self.features.add("autolimits:false")
        self.inertiafromgeom = self.r.choice(["auto", "auto", "auto", "true"])
        if self.inertiafromgeom != "auto" or self.chance(0.2):
            attrs.append(f'inertiafromgeom="{self.inertiafromgeom}"')
            self.features.add("inertiafromgeom:" + self.inertiafromgeom)
        if self.chance(0.15):
            attrs.append(f'boundmass="{_f(self.u(0.001, 0.1))}" boundinertia="{_f(self.u(1e-5, 1e-3))}"')
            self.features.add("boundmass")
        if self.chance(0.2):
            attrs.append('fusestatic="true"')
            self.features.add("fusestatic")
        if self.inertiafromgeom == "true":
            # MuJoCo refuses to drop visual geoms whose mass enters a body's inertia (tested elsewhere)
            self.discardvisual = False
        if self.discardvisual:
            attrs.append('discardvisual="true"')
            self.features.add("discardvisual")
        if attrs:
            self.emit(1, f"<compiler {' '.join(attrs)}/>")

    def option(self):
        attrs = []
        if self.chance(0.5):
            attrs.append(f'timestep="{_f(self.r.choice([0.001, 0.002, 0.005, 0.01]))}"')
        if self.chance(0.3):
            attrs.append(f'gravity="{_v([self.u(-1, 1), self.u(-1, 1), self.u(-15, -1)])}"')
        if self.chance(0.3):
            attrs.append(f'integrator="{self.r.choice(["Euler", "RK4", "implicit", "implicitfast"])}"')
        if self.chance(0.2):
            attrs.append(f'cone="{self.r.choice(["pyramidal", "elliptic"])}"')
        if self.chance(0.2):
            attrs.append(f'solver="{self.r.choice(["PGS", "CG", "Newton"])}"')
        if self.chance(0.2):
            attrs.append(f'iterations="{self.r.randint(1, 200)}" ls_iterations="{self.r.randint(1, 100)}"')
        if self.chance(0.15):
            attrs.append(f'density="{_f(self.u(0, 2))}" viscosity="{_f(self.u(0, 0.01))}"')
        if self.chance(0.15):
            attrs.append(f'impratio="{_f(self.u(1, 10))}" tolerance="{_f(10 ** self.u(-12, -5))}"')
        if self.chance(0.1):
            attrs.append(f'jacobian="{self.r.choice(["dense", "sparse", "auto"])}"')
        flags = []
        if self.chance(0.2):
            for fl in self.r.sample(
                [
                    "contact",
                    "gravity",
                    "limit",
                    "warmstart",
                    "clampctrl",
                    "spring",
                    "damper",
                    "frictionloss",
                    "filterparent",
                ],
                self.r.randint(1, 3),
            ):
                flags.append(f'{fl}="disable"')
            if self.chance(0.3):
                flags.append('energy="enable"')
        if attrs or flags:
            self.features.add("option")
            if flags:
                self.features.add("flag")
                self.emit(1, f"<option {' '.join(attrs)}>")
                self.emit(2, f"<flag {' '.join(flags)}/>")
                self.emit(1, "</option>")
            else:
                self.emit(1, f"<option {' '.join(attrs)}/>")

    def defaults(self):
        """A random tree of default classes; remembers which define a geom type+size."""
        self.classes = {"main": None}  # name -> parent
        self.class_geomtype = {}  # class -> geom type it defines (type+size together)
        self.class_sitetype = {}
        if not self.chance(0.7):
            return
        self.features.add("default")
        nclass = self.r.randint(1, 4)
        names = [f"c{i}" for i in range(nclass)]
        # tree: each class's parent is main or an earlier class
        parent = {}
        for i, n in enumerate(names):
            parent[n] = "main" if i == 0 or self.chance(0.4) else self.r.choice(names[:i])
        if any(p != "main" for p in parent.values()):
            self.features.add("default:nested")
        self.classes.update(parent)
        children = {n: [c for c in names if parent[c] == n] for n in ["main"] + names}

        def body(cls, depth):
            if cls != "main":
                self.emit(depth, f'<default class="{cls}">')
            d = depth + 1 if cls != "main" else depth + 1
            if self.chance(0.6):
                attrs = []
                for a, gen in (
                    ("damping", lambda: _f(self.u(0, 2))),
                    ("armature", lambda: _f(self.u(0, 0.1))),
                    ("stiffness", lambda: _f(self.u(0, 5))),
                    ("frictionloss", lambda: _f(self.u(0, 1))),
                    ("axis", lambda: _v(self.unit())),
                    ("group", lambda: str(self.r.randint(0, 5))),
                    ("solreflimit", lambda: _v([self.u(0.005, 0.05), self.u(0.5, 2)])),
                    ("margin", lambda: _f(self.u(0, 0.05))),
                ):
                    if self.chance(0.35):
                        attrs.append(f'{a}="{gen()}"')
                self.emit(d, f"<joint {' '.join(attrs)}/>")
            if self.chance(0.7):
                attrs = []
                if self.chance(0.5):
                    t = self.r.choice(GEOM_TYPES)
                    attrs.append(f'type="{t}" size="{_v([self.u(0.02, 0.15) for _ in range(3)])}"')
                    self.class_geomtype[cls] = t
                for a, gen in (
                    ("rgba", lambda: _v([self.u(0, 1) for _ in range(3)] + [1])),
                    ("friction", lambda: _v([self.u(0.3, 1.5), self.u(0, 0.01), self.u(0, 0.001)])),
                    ("density", lambda: _f(self.u(100, 3000))),
                    ("condim", lambda: self.r.choice("1346")),
                    ("contype", lambda: str(self.r.randint(0, 3))),
                    ("margin", lambda: _f(self.u(0, 0.01))),
                    ("solimp", lambda: _v([self.u(0.5, 0.9), self.u(0.91, 0.99), self.u(0.001, 0.01)])),
                ):
                    if self.chance(0.3):
                        attrs.append(f'{a}="{gen()}"')
                self.emit(d, f"<geom {' '.join(attrs)}/>")
            if self.chance(0.4):
                t = self.r.choice(GEOM_TYPES)
                self.class_sitetype[cls] = t
                self.emit(d, f'<site type="{t}" size="{_v([self.u(0.005, 0.05) for _ in range(3)])}"/>')
            if self.chance(0.4):
                self.emit(d, f'<motor gear="{_f(self.u(1, 100))}"/>')
            if self.chance(0.3):
                self.emit(d, f'<position kp="{_f(self.u(1, 100))}"/>')
            for c in children[cls]:
                body(c, d)
            if cls != "main":
                self.emit(depth, "</default>")

        self.emit(1, "<default>")
        body("main", 1)
        self.emit(1, "</default>")

    def inherits_geomtype(self, cls):
        """Geom type defined by class cls or its ancestors (None when no class defines one)."""
        while cls is not None:
            if cls in self.class_geomtype:
                return self.class_geomtype[cls]
            cls = self.classes.get(cls)
        return None

    def pick_class(self):
        return self.r.choice(list(self.classes))

    # ------------------------------------------------------------------------------------------- bodies

    def geom(self, depth, cls, world=False):
        """One geom; returns True when it has positive volume (contributes mass)."""
        self.ngeom += 1
        attrs = []
        if self.chance(0.5):
            attrs.append(f'name="g{self.ngeom}"')
            self.named_geoms.append((f"g{self.ngeom}", self.cur_body))
        eff = cls
        if self.chance(0.2) and len(self.classes) > 1:
            eff = self.pick_class()
            attrs.append(f'class="{eff}"')
            self.features.add("class=")
        inherited = self.inherits_geomtype(eff)
        if inherited is not None and self.chance(0.4):
            self.features.add("geom:inherited_type")
            attrs.append(f'pos="{_v(self.pos())}"' + self.orientation())
            gtype = inherited
        else:
            gtype = self.r.choice(GEOM_TYPES)
            self.features.add("geom:" + gtype)
            if gtype in FROMTO_TYPES and self.chance(0.3):
                self.features.add("fromto")
                a, b = self.pos(), self.pos()
                if sum((x - y) ** 2 for x, y in zip(a, b)) < 1e-4:
                    b[2] += 0.1
                size = [self.u(0.01, 0.08) for _ in range(NSIZE_FROMTO[gtype])]
                attrs.append(f'type="{gtype}" fromto="{_v(a + b)}" size="{_v(size)}"')
            else:
                size = [self.u(0.02, 0.2) for _ in range(NSIZE[gtype])]
                attrs.append(f'type="{gtype}" size="{_v(size)}"')
                if self.chance(0.8):
                    attrs.append(f'pos="{_v(self.pos())}"')
                attrs[-1] += self.orientation()
        if self.chance(0.15):
            attrs.append(f'mass="{_f(self.u(0.1, 3))}"')
            self.features.add("geom:mass")
        elif self.chance(0.15):
            attrs.append(f'density="{_f(self.u(100, 5000))}"')
        if self.chance(0.1):
            attrs.append('shellinertia="true"')
            self.features.add("shellinertia")
        if self.chance(0.1):
            attrs.append(f'friction="{_v([self.u(0.2, 2)])}"')
        if self.discardvisual:
            # visual geoms (removed unless a pair names them) and materials (always deleted)
            if self.dv.random() < 0.4:
                attrs.append('contype="0" conaffinity="0"')
                self.features.add("geom:visual")
            if self.dv.random() < 0.3:
                attrs.append('material="mat"')
        self.emit(depth, f"<geom {' '.join(attrs)}/>")
        return True

    def site(self, depth, cls):
        self.nsite += 1
        name = f"s{self.nsite}"
        self.sites.append(name)
        attrs = [f'name="{name}"']
        if self.chance(0.2) and len(self.classes) > 1:
            attrs.append(f'class="{self.pick_class()}"')
        if self.chance(0.2):
            t = self.r.choice(FROMTO_TYPES)
            attrs.append(
                f'type="{t}" fromto="{_v(self.pos() + self.pos())}" '
                f'size="{_v([self.u(0.005, 0.03) for _ in range(NSIZE_FROMTO[t])])}"'
            )
        else:
            if self.chance(0.5):
                t = self.r.choice(GEOM_TYPES)
                attrs.append(f'type="{t}" size="{_v([self.u(0.005, 0.05) for _ in range(NSIZE[t])])}"')
            attrs.append(f'pos="{_v(self.pos())}"' + self.orientation())
        self.features.add("site")
        self.emit(depth, f"<site {' '.join(attrs)}/>")

    def rotation(self):
        """A random rotation matrix (rows)."""
        q = [self.r.gauss(0, 1) for _ in range(4)]
        n = math.sqrt(sum(x * x for x in q))
        w, x, y, z = (v / n for v in q)
        return [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]

    def joint(self, depth, jtype, cls, axis=None):
        self.njoint += 1
        name = f"j{self.njoint}"
        self.joints.append((name, jtype))
        self.features.add("joint:" + jtype)
        if jtype == "free":
            if self.chance(0.5):
                self.emit(depth, f'<freejoint name="{name}"/>')
            else:
                self.emit(depth, f'<joint name="{name}" type="free"/>')
            return
        attrs = [f'name="{name}"', f'type="{jtype}"']
        if self.chance(0.2) and len(self.classes) > 1:
            attrs.append(f'class="{self.pick_class()}"')
        if axis is not None:
            attrs.append(f'axis="{_v(axis)}"')
        elif jtype != "ball" and self.chance(0.6):
            attrs.append(f'axis="{_v(self.unit())}"')
        if self.chance(0.4):
            attrs.append(f'pos="{_v(self.pos(0.1))}"')
        limited = self.chance(0.4)
        if limited:
            if jtype == "ball":
                rng = [0, self.angle(self.u(10, 170))]
            elif jtype == "hinge":
                rng = [self.angle(self.u(-170, -1)), self.angle(self.u(1, 170))]
            else:
                rng = [self.u(-0.5, -0.01), self.u(0.01, 0.5)]
            attrs.append(f'range="{_v(rng)}"')
            if not self.autolimits or self.chance(0.3):
                attrs.append('limited="true"')
            self.features.add("joint:range")
        elif not self.autolimits and self.chance(0.3):
            attrs.append('limited="false"')
        for a, gen in (
            ("damping", lambda: _f(self.u(0, 3))),
            ("stiffness", lambda: _f(self.u(0, 10))),
            ("armature", lambda: _f(self.u(0, 0.2))),
            ("frictionloss", lambda: _f(self.u(0, 0.5))),
        ):
            if self.chance(0.25):
                attrs.append(f'{a}="{gen()}"')
        if jtype in ("hinge", "slide") and self.chance(0.2):
            scale = self.angle(30) if jtype == "hinge" else 0.1
            attrs.append(f'ref="{_f(self.u(-scale, scale))}" springref="{_f(self.u(-scale, scale))}"')
            self.features.add("joint:ref")
        self.emit(depth, f"<joint {' '.join(attrs)}/>")

    def inertial(self, depth):
        """An explicit <inertial> with a valid (triangle-inequality) inertia."""
        self.features.add("inertial")
        mass = self.u(0.1, 5)
        a, b = self.u(0.01, 0.5), self.u(0.01, 0.5)
        c = self.u(abs(a - b) + 0.005, a + b - 0.001) if a + b - 0.001 > abs(a - b) + 0.005 else (a + b) / 2
        d = [a, b, c]
        attrs = f'pos="{_v(self.pos(0.1))}" mass="{_f(mass)}"'
        if self.chance(0.3):
            # full inertia = R diag(d) R^T for a random rotation R
            self.features.add("fullinertia")
            R = self.rotation()
            I = [[sum(R[i][k] * d[k] * R[j][k] for k in range(3)) for j in range(3)] for i in range(3)]
            full = [I[0][0], I[1][1], I[2][2], I[0][1], I[0][2], I[1][2]]
            self.emit(depth, f'<inertial {attrs} fullinertia="{" ".join(f"{v:.17g}" for v in full)}"/>')
        else:
            self.emit(depth, f'<inertial {attrs} diaginertia="{_v(d)}"' + self.orientation() + "/>")

    def body(self, depth, level, parent_cls, world_child):
        self.nbody += 1
        bname = f"b{self.nbody}"
        attrs = [f'name="{bname}"', f'pos="{_v(self.pos(0.5))}"']
        ori = self.orientation()
        cls = parent_cls
        if self.chance(0.25) and len(self.classes) > 1:
            cls = self.pick_class()
            attrs.append(f'childclass="{cls}"')
            self.features.add("childclass")
        self.emit(depth, f"<body {' '.join(attrs)}{ori}>")
        self.bodies.append(bname)
        self.cur_body = bname
        d = depth + 1
        # joints
        if world_child and self.chance(0.35):
            self.joint(d, "free", cls)
        else:
            k = self.r.choice([0, 1, 1, 1, 2, 3])
            if k == 1 and self.chance(0.2):
                self.joint(d, "ball", cls)
            else:
                # several joints in one body get mutually orthogonal axes (parallel axes = singular mass matrix)
                frame = self.rotation() if k > 1 else None
                for i in range(k):
                    self.joint(
                        d,
                        self.r.choice(["hinge", "hinge", "slide"]),
                        cls,
                        axis=None if frame is None else [frame[0][i], frame[1][i], frame[2][i]],
                    )
        # mass: geoms or an explicit inertial
        explicit = self.chance(0.2)
        if explicit:
            self.inertial(d)
        ng = (
            self.r.choice([0, 1, 1, 2, 3])
            if explicit and self.inertiafromgeom != "true"
            else self.r.choice([1, 1, 2, 3])
        )
        for _ in range(ng):
            self.geom(d, cls)
        for _ in range(self.r.choice([0, 0, 1, 2])):
            self.site(d, cls)
        if self.chance(0.1):
            self.ncam += 1
            self.emit(d, f'<camera name="cam{self.ncam}" pos="{_v(self.pos())}"{self.orientation()}/>')
            self.features.add("camera")
        # children
        if level < self.max_depth:
            for _ in range(self.r.choice([0, 1, 1, 1, 2, 3])):
                if self.nbody >= self.max_bodies:
                    break
                if self.chance(0.15):
                    # a <frame> between parent and child body
                    self.features.add("frame")
                    self.emit(d, f'<frame pos="{_v(self.pos())}"{self.orientation()}>')
                    self.body(d + 1, level + 1, cls, False)
                    self.emit(d, "</frame>")
                else:
                    self.body(d, level + 1, cls, False)
                self.cur_body = bname
        self.emit(depth, "</body>")

    def worldbody(self):
        self.emit(1, "<worldbody>")
        if self.chance(0.6):
            self.emit(2, f'<geom name="floor" type="plane" size="{_v([self.u(1, 10), self.u(1, 10), 0.1])}"/>')
        if self.chance(0.2):
            self.emit(2, '<light pos="0 0 3" dir="0 0 -1"/>')
        if self.chance(0.2):
            self.site(2, "main")
        nroot = self.r.choice([1, 1, 2, 3])
        for _ in range(nroot):
            if self.nbody >= self.max_bodies:
                break
            wraps = []
            if self.replicate and self.rp.random() < 0.7:
                nested = self.rp.random() < 0.3
                wraps.append(self.replicate_tag((1, 2, 3) if nested else (1, 2, 3, 11)))
                if nested:
                    wraps.append(self.replicate_tag((1, 2)))
            for k, tag in enumerate(wraps):
                self.emit(2 + k, tag)
            self.body(2 + len(wraps), 1, "main", True)
            for k in reversed(range(len(wraps))):
                self.emit(2 + k, "</replicate>")
        if self.chance(0.1):
            self.features.add("mocap")
            self.nbody += 1
            name = f"b{self.nbody}"
            self.bodies.append(name)
            self.emit(2, f'<body name="{name}" mocap="true" pos="{_v(self.pos(1))}"{self.orientation()}>')
            self.emit(3, '<geom type="box" size="0.05 0.05 0.05" contype="0" conaffinity="0"/>')
            self.emit(2, "</body>")
        self.emit(1, "</worldbody>")

    def replicate_tag(self, counts):
        """A <replicate> start tag: count, separator, offset and Euler step drawn from the replicate stream."""
        rp = self.rp
        self.features.add("replicate")
        attrs = [f'count="{rp.choice(counts)}"']
        if rp.random() < 0.5:
            attrs.append(f'sep="{rp.choice(["_", "-", "/", "r"])}"')
        if rp.random() < 0.8:
            attrs.append(f'offset="{_v([rp.uniform(-0.5, 0.5) for _ in range(3)])}"')
        if rp.random() < 0.6:
            attrs.append(f'euler="{_v([self.angle(rp.uniform(-40, 40)) for _ in range(3)])}"')
        return f"<replicate {' '.join(attrs)}>"

    def tendons_(self):
        cand = [n for n, t in self.joints if t in ("hinge", "slide")]
        if not cand or not self.chance(0.3):
            return
        self.features.add("tendon:fixed")
        self.emit(1, "<tendon>")
        for i in range(self.r.randint(1, 2)):
            name = f"t{i}"
            self.tendons.append(name)
            attrs = [f'name="{name}"']
            if self.chance(0.4):
                attrs.append(f'range="{_v([self.u(-1, -0.1), self.u(0.1, 1)])}"')
                if not self.autolimits:
                    attrs.append('limited="true"')
            if self.chance(0.3):
                attrs.append(f'stiffness="{_f(self.u(0, 5))}" damping="{_f(self.u(0, 2))}"')
            self.emit(2, f"<fixed {' '.join(attrs)}>")
            for j in self.r.sample(cand, self.r.randint(1, min(3, len(cand)))):
                self.emit(3, f'<joint joint="{j}" coef="{_f(self.u(-2, 2))}"/>')
            self.emit(2, "</fixed>")
        self.emit(1, "</tendon>")

    def sensors(self):
        if not self.chance(0.3):
            return
        out = []
        hs = [n for n, t in self.joints if t in ("hinge", "slide")]
        for _ in range(self.r.randint(1, 5)):
            k = self.r.choice(["joint", "site", "body", "tendon", "frame"])
            if k == "joint" and hs:
                out.append(f'<{self.r.choice(["jointpos", "jointvel"])} joint="{self.r.choice(hs)}"/>')
            elif k == "site" and self.sites:
                out.append(
                    f"<{self.r.choice(['accelerometer', 'gyro', 'velocimeter', 'touch'])} "
                    f'site="{self.r.choice(self.sites)}"/>'
                )
            elif k == "body" and self.bodies:
                out.append(f'<{self.r.choice(["subtreecom", "subtreelinvel"])} body="{self.r.choice(self.bodies)}"/>')
            elif k == "tendon" and self.tendons:
                out.append(f'<tendonpos tendon="{self.r.choice(self.tendons)}"/>')
            elif k == "frame" and self.bodies:
                out.append(
                    f'<{self.r.choice(["framepos", "framequat", "framexaxis"])} objtype="body" '
                    f'objname="{self.r.choice(self.bodies)}"/>'
                )
        if out:
            self.features.add("sensor")
            self.emit(1, "<sensor>")
            for line in out:
                self.emit(2, line)
            self.emit(1, "</sensor>")

    def equality(self):
        hs = [n for n, t in self.joints if t in ("hinge", "slide")]
        out = []
        if len(hs) >= 2 and self.chance(0.15):
            a, b = self.r.sample(hs, 2)
            out.append(
                f'<joint joint1="{a}" joint2="{b}" polycoef="{_v([self.u(-0.1, 0.1), self.u(0.5, 2), 0, 0, 0])}"/>'
            )
        if len(self.bodies) >= 1 and self.chance(0.15):
            a = self.r.choice(self.bodies)
            out.append(f'<connect body1="{a}" anchor="{_v(self.pos(0.2))}"/>')
        if out:
            self.features.add("equality")
            self.emit(1, "<equality>")
            for line in out:
                self.emit(2, line)
            self.emit(1, "</equality>")

    def contact(self):
        out = []
        if len(self.bodies) >= 2 and self.chance(0.15):
            a, b = self.r.sample(self.bodies, 2)
            out.append(f'<exclude body1="{a}" body2="{b}"/>')
        g = [n for n, b in self.named_geoms]
        if len(g) >= 2 and self.chance(0.15):
            a, b = self.r.sample(g, 2)
            extra = f' condim="{self.r.choice("1346")}"' if self.chance(0.5) else ""
            out.append(f'<pair geom1="{a}" geom2="{b}"{extra}/>')
        if out:
            self.features.add("contact")
            self.emit(1, "<contact>")
            for line in out:
                self.emit(2, line)
            self.emit(1, "</contact>")

    def actuators(self):
        cand = [n for n, t in self.joints if t in ("hinge", "slide")]
        if not cand or self.chance(0.2):
            return
        self.emit(1, "<actuator>")
        for i in range(self.r.randint(1, min(4, len(cand)))):
            kind = self.r.choice(["motor", "position", "velocity", "general", "intvelocity", "damper"])
            self.features.add("actuator:" + kind)
            if self.tendons and kind in ("motor", "general") and self.chance(0.3):
                self.features.add("actuator:tendon")
                attrs = [f'name="a{i}"', f'tendon="{self.r.choice(self.tendons)}"']
            else:
                attrs = [f'name="a{i}"', f'joint="{self.r.choice(cand)}"']
            if self.chance(0.2) and len(self.classes) > 1:
                attrs.append(f'class="{self.pick_class()}"')
            if self.chance(0.5):
                lo = self.u(-2, -0.1)
                attrs.append(f'ctrlrange="{_v([lo, self.u(0.1, 2)])}"')
                if not self.autolimits:
                    attrs.append('ctrllimited="true"')
            if self.chance(0.3):
                attrs.append(f'forcerange="{_v([self.u(-50, -1), self.u(1, 50)])}"')
                if not self.autolimits:
                    attrs.append('forcelimited="true"')
            if self.chance(0.4):
                attrs.append(f'gear="{_f(self.u(-100, 100))}"')
            if kind == "intvelocity":
                attrs.append(f'kp="{_f(self.u(1, 50))}"')
                if self.autolimits:  # (mujoco 3.17 rejects intvelocity actrange under autolimits="false")
                    attrs.append(f'actrange="{_v([self.u(-2, -0.1), self.u(0.1, 2)])}"')
            elif kind == "damper":
                attrs = [a for a in attrs if not a.startswith("ctrlrange") and not a.startswith("ctrllimited")]
                attrs.append(f'kv="{_f(self.u(0.1, 5))}" ctrlrange="0 {_f(self.u(0.5, 2))}"')
            elif kind == "position":
                if self.chance(0.7):
                    attrs.append(f'kp="{_f(self.u(1, 200))}"')
                if self.chance(0.3):
                    attrs.append(f'kv="{_f(self.u(0, 10))}"')
            elif kind == "velocity":
                attrs.append(f'kv="{_f(self.u(0.1, 50))}"')
            elif kind == "general":
                dyn = self.r.choice(["none", "integrator", "filter", "filterexact"])
                attrs.append(f'dyntype="{dyn}"')
                if dyn in ("filter", "filterexact"):
                    attrs.append(f'dynprm="{_f(self.u(0.01, 1))}"')
                if dyn != "none" and self.chance(0.4):
                    attrs.append(f'actrange="{_v([self.u(-2, -0.1), self.u(0.1, 2)])}"')
                    if not self.autolimits:
                        attrs.append('actlimited="true"')
                if self.chance(0.5):
                    attrs.append('gaintype="affine" biastype="affine"')
                    attrs.append(f'gainprm="{_v([self.u(0.1, 10), self.u(-1, 1), self.u(-1, 1)])}"')
                    attrs.append(f'biasprm="{_v([self.u(-1, 1), self.u(-10, 0), self.u(-1, 0)])}"')
            self.emit(2, f"<{kind} {' '.join(attrs)}/>")
        self.emit(1, "</actuator>")

    def keyframe(self):
        if not self.joints or not self.chance(0.2) or self.replicate:
            return
        self.features.add("keyframe")
        qpos = []
        for _, t in self.joints:
            if t == "free":
                qpos += self.pos(1) + [1, 0, 0, 0]
            elif t == "ball":
                q = [self.r.gauss(0, 1) for _ in range(4)]
                n = math.sqrt(sum(c * c for c in q))
                qpos += [c / n for c in q]
            else:
                qpos.append(self.u(-0.3, 0.3))
        self.emit(1, "<keyframe>")
        self.emit(2, f'<key name="k0" time="{_f(self.u(0, 2))}" qpos="{_v(qpos)}"/>')
        self.emit(1, "</keyframe>")

    def run(self):
        self.emit(0, f'<mujoco model="random_{self.seed}">')
        self.compiler()
        self.option()
        if self.discardvisual:
            self.emit(1, '<asset><material name="mat" rgba="0.8 0.2 0.2 1"/></asset>')
        self.defaults()
        self.worldbody()
        self.tendons_()
        self.actuators()
        self.sensors()
        self.equality()
        self.contact()
        self.keyframe()
        self.emit(0, "</mujoco>")
        return "\n".join(self.lines) + "\n"


def generate(seed, max_bodies=10, max_depth=5, replicate=False):
    """MJCF text of random model `seed` (deterministic); replicate=True wraps world children in <replicate>
    (section elements naming them are then replicated or, as in MuJoCo, left referring to missing names)."""
    return _Gen(seed, max_bodies, max_depth, replicate).run()


def generate_with_features(seed, max_bodies=10, max_depth=5, replicate=False):
    """(xml, set of feature tags the model exercises), for coverage checks."""
    g = _Gen(seed, max_bodies, max_depth, replicate)
    xml = g.run()
    return xml, g.features


def main(argv=None):
    import argparse

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("seed", type=int)
    p.add_argument("-o", "--output")
    a = p.parse_args(argv)
    xml = generate(a.seed)
    if a.output:
        with open(a.output, "w") as f:
            f.write(xml)
    else:
        sys.stdout.write(xml)


if __name__ == "__main__":
    main()
