"""Benchmark models built from Gymnasium's files.

many_humanoids(n=3) -> path     n of Gymnasium's humanoids (27 dofs each) dropped onto each other, MuJoCo's
                                default options (Newton, Euler, pyramidal cones): 81 dofs for n=3, dozens
                                of contacts once the pile has formed (MuJoCo goes sparse at nv >= 60)
model_path(name) -> path        a Gymnasium asset by name ('hopper', ...), 'humanoids3' for many_humanoids(3),
                                or a path to any .xml
"""

import os
import re
import tempfile

import gymnasium

ASSETS = os.path.join(os.path.dirname(gymnasium.__file__), "envs/mujoco/assets")
_MADE = {}


def many_humanoids(n=3):
    """Path of an MJCF file with n humanoids stacked in the air, lying crosswise (written once per process)."""
    if n in _MADE:
        return _MADE[n]
    with open(os.path.join(ASSETS, "humanoid.xml")) as f:
        src = f.read()
    src = re.sub(r"<option[^>]*>.*?</option>", "", src, flags=re.S)  # MuJoCo's default options
    src = src.replace('<size nkey="5" nuser_geom="1"/>', '<size nuser_geom="1"/>')
    body = re.search(r'(<body name="torso".*</body>)\s*</worldbody>', src, re.S).group(1)
    tendon = re.search(r"<tendon>(.*)</tendon>", src, re.S).group(1)
    act = re.search(r"<actuator>(.*)</actuator>", src, re.S).group(1)

    def rename(text, k):
        return re.sub(r'\b(name|joint)="([^"]+)"', lambda mo: '%s="%s_%d"' % (mo.group(1), mo.group(2), k), text)

    bodies, tendons, acts = [], [], []
    for k in range(n):
        b = rename(body, k)
        # lying crosswise, one above the other, so they fall into a tangle
        quat = "0.7071 0.7071 0 0" if k % 2 else "0.5 0.5 0.5 0.5"
        b = b.replace('pos="0 0 1.4"', 'pos="%.2f %.2f %.2f" quat="%s"' % (0.15 * k, -0.1 * k, 0.3 + 0.45 * k, quat), 1)
        bodies.append(b)
        tendons.append(rename(tendon, k))
        acts.append(rename(act, k))
    src = src.replace(body, "\n".join(bodies))
    src = src.replace(tendon, "\n".join(tendons)).replace(act, "\n".join(acts))
    fd, path = tempfile.mkstemp(suffix="_humanoids%d.xml" % n)
    with os.fdopen(fd, "w") as f:
        f.write(src)
    _MADE[n] = path
    return path


def model_path(name):
    if name.endswith(".xml"):
        return name
    mo = re.fullmatch(r"humanoids(\d+)", name)
    if mo:
        return many_humanoids(int(mo.group(1)))
    return os.path.join(ASSETS, name + ".xml")
