"""Seeded random URDF generator for the URDF import conformance tests (tests/test_urdf.py).

    xml, assets = generate(seed)          # URDF text and the mesh files it names ({filename: bytes})
    python tests/urdf_gen.py 17           # print the URDF of seed 17 (to reproduce a failure)

A robot has a random tree of 2-9 links (sometimes a root link named "world", sometimes a second, isolated root),
joints of every URDF type (revolute, continuous, prismatic, fixed, planar, spherical, floating) with random
origins (xyz, rpy), axes (some unnormalised, some absent), limits (two-sided, one-sided, inverted, with
positive or negative effort), dynamics, and now and then a name used twice; inertials with full, diagonal or
all-zero inertias rotated by an origin rpy, or none (inertia from the collision geoms); visual and collision
geoms (box, cylinder, sphere, capsule, mesh from tests/assets/urdf/meshes with and without scale) with names
(some repeated) and materials (inline colours, named materials, unknown names); and sometimes a <mujoco> block
with compiler settings (discardvisual, fusestatic, strippath, balanceinertia, inertiafromgeom, boundmass,
boundinertia, angle, autolimits) and options.

Most robots are valid for MuJoCo 3.17; some are not on purpose (a floating joint below a kept body, zero
inertia on a moving link, autolimits off with limits, ...): the tests require numjoco to accept exactly what
MuJoCo accepts.
"""

import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MESH_DIR = os.path.join(HERE, "assets", "urdf", "meshes")
MESHES = ["collision/link%d.stl" % i for i in range(8)] + ["collision/hand.stl", "visual/finger.obj"]
JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "planar", "spherical", "floating")
JOINT_WEIGHTS = (8, 2, 3, 3, 1, 1, 1)


def _f(x):
    s = f"{x:.6g}"
    return "0" if s == "-0" else s


def _v(xs):
    return " ".join(_f(x) for x in xs)


def _rot(r):
    """A random rotation matrix (rows)."""
    q = [r.gauss(0, 1) for _ in range(4)]
    n = math.sqrt(sum(x * x for x in q))
    w, x, y, z = (c / n for c in q)
    return [
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ]


class _Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.lines = []
        self.assets = {}
        self.joint_names = []
        self.geom_names = []

    def chance(self, p):
        return self.r.random() < p

    def u(self, lo, hi):
        return self.r.uniform(lo, hi)

    def origin(self, pos_scale=0.3, p_rpy=0.6):
        parts = []
        if self.chance(0.8):
            parts.append(f'xyz="{_v(self.u(-pos_scale, pos_scale) for _ in range(3))}"')
        if self.chance(p_rpy):
            parts.append(f'rpy="{_v(self.u(-math.pi, math.pi) for _ in range(3))}"')
        return f"<origin {' '.join(parts)}/>" if parts or self.chance(0.5) else ""

    # ---------------------------------------------------------------------------------------- sections

    def mujoco_block(self):
        if not self.chance(0.5):
            self.discardvisual = True
            self.strippath = False
            return
        comp = {}
        self.discardvisual = True
        self.strippath = False
        if self.chance(0.5):
            self.discardvisual = self.chance(0.5)
            comp["discardvisual"] = str(self.discardvisual).lower()
        if self.chance(0.4):
            comp["fusestatic"] = self.r.choice(["true", "false"])
        if self.chance(0.3):
            self.strippath = True
            comp["strippath"] = "true"
        if self.chance(0.3):
            comp["balanceinertia"] = self.r.choice(["true", "false"])
        if self.chance(0.3):
            comp["inertiafromgeom"] = self.r.choice(["auto", "true", "false"])
        if self.chance(0.2):
            comp["boundmass"] = _f(self.u(0.001, 0.1))
        if self.chance(0.2):
            comp["boundinertia"] = _f(self.u(1e-5, 1e-3))
        if self.chance(0.2):
            comp["angle"] = "degree"  # ignored: URDF angles are radians
        if self.chance(0.05):
            comp["autolimits"] = "false"
        if self.chance(0.1):
            comp["ignored_attribute"] = "1"  # MuJoCo's reader ignores unknown attributes here
        opt = ""
        if self.chance(0.4):
            opt = (
                f'<option timestep="{_f(self.u(0.001, 0.01))}" '
                f'integrator="{self.r.choice(["Euler", "RK4", "implicitfast"])}" '
                f'gravity="0 0 {_f(self.u(-12, -5))}"/>'
            )
        attrs = " ".join(f'{k}="{v}"' for k, v in comp.items())
        self.lines.append(f"  <mujoco><compiler {attrs}/>{opt}</mujoco>")

    def materials(self):
        self.material_names = []
        for k in range(self.r.randint(0, 3)):
            name = f"mat{self.r.randint(0, 2)}"
            color = f'<color rgba="{_v([self.u(0, 1), self.u(0, 1), self.u(0, 1), 1])}"/>' if self.chance(0.8) else ""
            self.lines.append(f'  <material name="{name}">{color}</material>')
            self.material_names.append(name)

    def inertial(self, moving):
        if not self.chance(0.85):
            return ""
        kind = self.r.choices(["full", "diag", "zero"], (6, 3, 1 if not moving else 0.2))[0]
        if kind == "zero":
            vals = [0] * 6
        else:
            a, b = self.u(0.01, 0.1), self.u(0.01, 0.1)
            c = self.u(abs(a - b) + 1e-3, a + b)  # triangle inequality with a margin
            d = [a, b, c]
            if kind == "diag":
                vals = d + [0, 0, 0]
            else:
                R = _rot(self.r)
                full = [[sum(R[i][k] * d[k] * R[j][k] for k in range(3)) for j in range(3)] for i in range(3)]
                vals = [full[0][0], full[1][1], full[2][2], full[0][1], full[0][2], full[1][2]]
        names = ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")
        inertia = " ".join(f'{n}="{_f(v)}"' for n, v in zip(names, vals))
        return f'<inertial>{self.origin(0.1)}<mass value="{_f(self.u(0.1, 3))}"/><inertia {inertia}/></inertial>'

    def geometry(self):
        kind = self.r.choices(["box", "cylinder", "sphere", "capsule", "mesh"], (3, 2, 2, 1, 2))[0]
        if kind == "box":
            return f'<box size="{_v(self.u(0.02, 0.3) for _ in range(3))}"/>'
        if kind == "sphere":
            return f'<sphere radius="{_f(self.u(0.02, 0.15))}"/>'
        if kind in ("cylinder", "capsule"):
            return f'<{kind} radius="{_f(self.u(0.02, 0.1))}" length="{_f(self.u(0.05, 0.4))}"/>'
        rel = self.r.choice(MESHES)
        with open(os.path.join(MESH_DIR, rel), "rb") as fh:
            data = fh.read()
        fname = "meshes/" + rel
        self.assets[os.path.basename(rel)] = data  # MuJoCo's asset dict matches file names without folders
        scale = ""
        if self.chance(0.3):
            scale = f' scale="{self.r.choice(["1 1 1", "0.5 0.5 0.5", "1 1 2", "0.5 0.5 0.5"])}"'
        return f'<mesh filename="{fname}"{scale}/>'

    def geoms(self, need_collision):
        out = []
        n = self.r.randint(1 if need_collision else 0, 3)
        kinds = ["collision"] if need_collision else []
        kinds += [self.r.choice(["visual", "collision"]) for _ in range(n - len(kinds))]
        self.r.shuffle(kinds)
        for kind in kinds:
            name = ""
            if self.chance(0.5):
                if self.geom_names and self.chance(0.2):
                    nm = self.r.choice(self.geom_names)
                else:
                    nm = f"g{len(self.geom_names)}"
                    self.geom_names.append(nm)
                name = f' name="{nm}"'
            mat = ""
            if kind == "visual" and self.chance(0.5):
                if self.material_names and self.chance(0.6):
                    mat = f'<material name="{self.r.choice(self.material_names)}"/>'
                elif self.chance(0.5):
                    mat = f'<material name="m{self.r.randint(0, 9)}"><color rgba="{_v([self.u(0, 1)] * 3 + [1])}"/></material>'
                else:
                    mat = '<material name="unknown_material"/>'
            out.append(f"<{kind}{name}>{self.origin(0.1)}<geometry>{self.geometry()}</geometry>{mat}</{kind}>")
        return "".join(out)

    def joint(self, name, jtype, parent, child):
        parts = [
            f'<joint name="{name}" type="{jtype}">',
            f'<parent link="{parent}"/>',
            f'<child link="{child}"/>',
            self.origin(0.4),
        ]
        if jtype not in ("fixed", "floating") and self.chance(0.85):
            axis = [self.r.choice([0, 0, 1, -1, self.u(-1, 1)]) for _ in range(3)]
            if not any(axis):
                axis[2] = 1
            parts.append(f'<axis xyz="{_v(axis)}"/>')
        if jtype != "fixed" and self.chance(0.6):
            lim = []
            lo, hi = sorted([self.u(-2, 2), self.u(-2, 2)])
            if jtype == "spherical":
                lo = 0
            shape = self.r.choices(["both", "lower", "upper", "inverted", "none"], (8, 1, 1, 1, 1))[0]
            if shape in ("both", "lower"):
                lim.append(f'lower="{_f(lo)}"')
            if shape in ("both", "upper"):
                lim.append(f'upper="{_f(hi)}"')
            if shape == "inverted":
                lim += [f'lower="{_f(hi)}"', f'upper="{_f(lo)}"']
            if self.chance(0.7):
                lim.append(f'effort="{_f(self.u(-50, 100))}"')
            lim.append(f'velocity="{_f(self.u(0.5, 5))}"')
            parts.append(f"<limit {' '.join(lim)}/>")
        if jtype != "fixed" and self.chance(0.5):
            dyn = []
            if self.chance(0.8):
                dyn.append(f'damping="{_f(self.u(0, 1))}"')
            if self.chance(0.6):
                dyn.append(f'friction="{_f(self.u(0, 0.2))}"')
            parts.append(f"<dynamics {' '.join(dyn)}/>")
        parts.append("</joint>")
        return "".join(parts)

    # ---------------------------------------------------------------------------------------- robot

    def robot(self):
        r = self.r
        self.lines.append(f'<robot name="robot{r.randint(0, 99)}">')
        self.mujoco_block()
        self.materials()
        n = r.randint(2, 9)
        names = [("world" if i == 0 and self.chance(0.3) else f"link{i}") for i in range(n)]
        parent = [-1] + [r.randint(0, i - 1) for i in range(1, n)]
        if n > 3 and self.chance(0.15):
            parent[n - 1] = -1  # a second root: a static link beside the tree
        jtypes = [None] * n
        for i in range(1, n):
            if parent[i] < 0:
                continue
            top = parent[i] == 0
            t = r.choices(JOINT_TYPES, JOINT_WEIGHTS)[0]
            if t == "floating" and not top and not self.chance(0.2):
                t = "revolute"  # mostly keep free joints at the top (MuJoCo's rule)
            jtypes[i] = t
        links = []
        for i in range(n):
            if names[i] == "world":
                links.append(f'<link name="world">{self.geoms(False) if self.chance(0.5) else ""}</link>')
                continue
            moving = jtypes[i] not in (None, "fixed")
            inertial = self.inertial(moving)
            geoms = self.geoms(need_collision=not inertial and moving)
            links.append(f'<link name="{names[i]}">{inertial}{geoms}</link>')
        joints = []
        for i in range(1, n):
            if parent[i] < 0:
                continue
            if self.joint_names and self.chance(0.1):
                jname = r.choice(self.joint_names)
            else:
                jname = f"joint{i}"
                self.joint_names.append(jname)
            joints.append(self.joint(jname, jtypes[i], names[parent[i]], names[i]))
        # URDF does not order links and joints: interleave them at random
        items = links + joints
        r.shuffle(items)
        self.lines += ["  " + x for x in items]
        self.lines.append("</robot>")
        return "\n".join(self.lines) + "\n", self.assets


def generate(seed):
    """(URDF text, {filename: bytes} of the meshes it uses) for `seed`."""
    return _Gen(seed).robot()


if __name__ == "__main__":
    print(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 0)[0])
