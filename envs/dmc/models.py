"""The Control Suite's models: dm_control's MJCF files (envs/dmc/assets) and its procedural variants (cartpole's
pole chain, swimmer's links, manipulator's props, quadruped's optional parts), built as dm_control builds them,
compiled once per process and copied for each env (a task edits its own model at reset)."""

import copy
import os
import xml.etree.ElementTree as ET

import sim

ASSET_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "assets")
_COMMON = ("materials.xml", "skybox.xml", "visual.xml")
_CACHE = {}


def read(filename):
    """The text of an asset file."""
    with open(os.path.join(ASSET_DIR, filename), encoding="utf-8") as f:
        return f.read()


def assets():
    """dm_control's common.ASSETS: the shared files the models include, by the path they include them with."""
    out = {}
    for name in _COMMON:
        with open(os.path.join(ASSET_DIR, name), "rb") as f:
            out["./common/" + name] = f.read()
    return out


def load(xml):
    """A compiled Model of an MJCF text (a fresh copy; the compiled original is kept for the process)."""
    m = _CACHE.get(xml)
    if m is None:
        m = _CACHE[xml] = sim.load_model(xml, assets=assets())
    return copy.deepcopy(m)


def _find(root, tag, name):
    """dm_control.utils.xml_tools.find_element: the element `tag` named `name` (and its parent)."""
    for parent in root.iter():
        for child in parent:
            if child.tag == tag and child.get("name") == name:
                return child, parent
    raise ValueError(f'no <{tag} name="{name}"> in the model')


def _text(root):
    return ET.tostring(root, encoding="unicode")


def cartpole(n_poles=1):
    """cartpole._make_model: a chain of n poles."""
    xml = read("cartpole.xml")
    if n_poles == 1:
        return xml
    root = ET.fromstring(xml)
    parent = root.find("./worldbody/body/body")
    for i in range(2, n_poles + 1):
        child = ET.Element("body", name=f"pole_{i}", pos="0 0 1", childclass="pole")
        ET.SubElement(child, "joint", name=f"hinge_{i}")
        ET.SubElement(child, "geom", name=f"pole_{i}")
        parent.append(child)
        parent = child
    root.find("./worldbody/geom").set("pos", f"0 0 {1 - n_poles - 0.05}")
    cams = root.findall("./worldbody/camera")
    cams[0].set("pos", f"0 {-1 - 2 * n_poles} 1")
    cams[1].set("pos", f"0 {-2 * n_poles} 2")
    return _text(root)


def swimmer(n_bodies):
    """swimmer._make_model: a head and n_bodies - 1 links, each with a joint, a motor, a velocimeter and a gyro."""
    if n_bodies < 3:
        raise ValueError(f"At least 3 bodies required. Received {n_bodies}")
    root = ET.fromstring(read("swimmer.xml"))
    parent = root.find("./worldbody/body")
    actuator = ET.SubElement(root, "actuator")
    sensor = ET.SubElement(root, "sensor")
    for i in range(n_bodies - 1):
        child = ET.Element("body", name=f"segment_{i}")
        child.set("pos", "0 .1 0")
        ET.SubElement(child, "geom", {"class": "visual", "name": f"visual_{i}"})
        ET.SubElement(child, "geom", {"class": "inertial", "name": f"inertial_{i}"})
        child.append(ET.Element("site", name=f"site_{i}"))
        limit = 360.0 / n_bodies
        child.append(ET.Element("joint", {"name": f"joint_{i}", "range": f"{-limit} {limit}"}))
        actuator.append(ET.Element("motor", name=f"motor_{i}", joint=f"joint_{i}"))
        sensor.append(ET.Element("velocimeter", name=f"velocimeter_{i}", site=f"site_{i}"))
        sensor.append(ET.Element("gyro", name=f"gyro_{i}", site=f"site_{i}"))
        parent.append(child)
        parent = child
    scale = n_bodies / 6.0
    for cam in root.findall("./worldbody/body/camera"):
        if cam.get("mode") == "trackcom":
            cam.set("pos", " ".join(str(float(v) * scale) for v in cam.get("pos").split(" ")))
    return _text(root)


_ALL_PROPS = ("ball", "target_ball", "cup", "peg", "target_peg", "slot")


def manipulator(use_peg, insert):
    """manipulator.make_model: the arm with the props of the task only."""
    root = ET.fromstring(read("manipulator.xml"))
    required = ["peg", "target_peg"] if use_peg else ["ball", "target_ball"]
    if insert:
        required.append("slot" if use_peg else "cup")
    for prop in sorted(set(_ALL_PROPS) - set(required)):
        el, parent = _find(root, "body", prop)
        parent.remove(el)
    return _text(root)


def quadruped(floor_size=None, terrain=False, rangefinders=False, walls_and_ball=False):
    """quadruped.make_model: the floor size, and the terrain, rangefinders, walls and ball when asked for."""
    root = ET.fromstring(read("quadruped.xml"))
    if floor_size is not None:
        floor, _ = _find(root, "geom", "floor")
        floor.set("size", f"{floor_size} {floor_size} .5")
    if not walls_and_ball:
        for wall in ("wall_px", "wall_py", "wall_nx", "wall_ny"):
            el, parent = _find(root, "geom", wall)
            parent.remove(el)
        for tag, name in (("body", "ball"), ("site", "target")):
            el, parent = _find(root, tag, name)
            parent.remove(el)
    if not terrain:
        el, parent = _find(root, "geom", "terrain")
        parent.remove(el)
    if not rangefinders:
        for parent in list(root.iter()):
            for child in list(parent):
                if child.tag == "rangefinder":
                    parent.remove(child)
    return _text(root)
