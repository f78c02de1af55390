"""MaMuJoCo-style factorisations of numjoco's locomotion tasks: which actuated joints each agent drives, the
joint graph its local observation walks (agent_obsk), the global nodes everyone observes.

A node is a joint: its qpos / qvel elements and the actuator that drives it; `bodies` name the bodies whose
cinert / cvel / cfrc_ext rows the node observes (a name, or ('joint', name) for the body of a joint).  The
graphs, partitions and default observation categories follow Gymnasium-Robotics' MaMuJoCo (obsk.py,
mujoco_multi.py), with nodes named after their joints; where MaMuJoCo pairs one joint's observation with another
joint's actuator (Humanoid's abdomen_y / abdomen_z) a node here keeps its own joint's.
"""

from collections import namedtuple

Node = namedtuple("Node", "joint bodies")
Node.__new__.__defaults__ = ((),)
Scenario = namedtuple("Scenario", "task nodes edges globals partitions local_categories")

_BASIC = [["qpos", "qvel"], ["qpos"]]


def _chain(*names):
    return [(a, b) for a, b in zip(names, names[1:])]


def _ant():
    legs = {1: "front_left_leg", 2: "front_right_leg", 3: "back_leg", 4: "right_back_leg"}
    nodes = []
    for i, leg in legs.items():
        nodes.append(Node(f"hip_{i}", ("torso", leg)))
        nodes.append(Node(f"ankle_{i}", (leg, f"aux_{i}", ("joint", f"ankle_{i}"))))
    edges = [(f"ankle_{i}", f"hip_{i}") for i in legs] + [("hip_4", "hip_1", "hip_2", "hip_3")]
    parts = {
        "2x4": [["hip_1", "ankle_1", "hip_2", "ankle_2"], ["hip_3", "ankle_3", "hip_4", "ankle_4"]],
        "2x4d": [["hip_1", "ankle_1", "hip_4", "ankle_4"], ["hip_2", "ankle_2", "hip_3", "ankle_3"]],
        "4x2": [[f"hip_{i}", f"ankle_{i}"] for i in legs],
    }
    return Scenario("numjoco/Ant-v0", nodes, edges, ["root"], parts, [["qpos", "qvel", "cfrc_ext"], ["qpos"]])


def _humanoid():
    b = {
        "abdomen_y": ("torso", "lwaist", "pelvis"),
        "abdomen_z": ("torso", "lwaist", "pelvis"),
        "abdomen_x": ("pelvis", "right_thigh", "left_thigh"),
    }
    for s in ("right", "left"):
        for ax in "xzy":
            b[f"{s}_hip_{ax}"] = (f"{s}_thigh", f"{s}_shin")
        b[f"{s}_knee"] = (f"{s}_shin", f"{s}_foot")
        b[f"{s}_shoulder1"] = b[f"{s}_shoulder2"] = ("torso", f"{s}_upper_arm", f"{s}_lower_arm")
        b[f"{s}_elbow"] = (f"{s}_lower_arm",)
    nodes = [Node(j, bodies) for j, bodies in b.items()]
    abd = ("abdomen_x", "abdomen_y", "abdomen_z")
    hips = {s: (f"{s}_hip_x", f"{s}_hip_y", f"{s}_hip_z") for s in ("right", "left")}
    arms = {s: (f"{s}_shoulder1", f"{s}_shoulder2") for s in ("right", "left")}
    edges = [
        abd,
        hips["right"],
        hips["left"],
        ("left_elbow",) + arms["left"],
        ("right_elbow",) + arms["right"],
        ("left_knee",) + hips["left"],
        ("right_knee",) + hips["right"],
        arms["left"] + abd,
        arms["right"] + abd,
        abd + hips["left"],
        abd + hips["right"],
    ]
    upper = list(abd) + list(arms["right"]) + ["right_elbow"] + list(arms["left"]) + ["left_elbow"]
    lower = list(hips["right"]) + ["right_knee"] + list(hips["left"]) + ["left_knee"]
    return Scenario(
        "numjoco/Humanoid-v0",
        nodes,
        edges,
        ["root"],
        {"9|8": [upper, lower]},
        [["qpos", "qvel", "cinert", "cvel", "qfrc_actuator", "cfrc_ext"], ["qpos"]],
    )


def _planar(task, legs, partitions, extra_edges):
    nodes = [Node(j) for leg in legs for j in leg]
    edges = [e for leg in legs for e in _chain(*reversed(leg))] + extra_edges
    return Scenario(task, nodes, edges, ["rootx", "rootz", "rooty"], partitions, _BASIC)


SCENARIOS = {
    "Hopper": _planar(
        "numjoco/Hopper-v0",
        [("thigh_joint", "leg_joint", "foot_joint")],
        {"3x1": [["thigh_joint"], ["leg_joint"], ["foot_joint"]]},
        [],
    ),
    "HalfCheetah": _planar(
        "numjoco/HalfCheetah-v0",
        [("bthigh", "bshin", "bfoot"), ("fthigh", "fshin", "ffoot")],
        {
            "2x3": [["bthigh", "bshin", "bfoot"], ["fthigh", "fshin", "ffoot"]],
            "6x1": [[j] for j in ("bthigh", "bshin", "bfoot", "fthigh", "fshin", "ffoot")],
        },
        [("bthigh", "fthigh")],
    ),
    "Walker2d": _planar(
        "numjoco/Walker2d-v0",
        [("thigh_joint", "leg_joint", "foot_joint"), ("thigh_left_joint", "leg_left_joint", "foot_left_joint")],
        {
            "2x3": [
                ["foot_joint", "leg_joint", "thigh_joint"],
                ["foot_left_joint", "leg_left_joint", "thigh_left_joint"],
            ]
        },
        [("thigh_joint", "thigh_left_joint")],
    ),
    "Ant": _ant(),
    "Humanoid": _humanoid(),
}


def joints_at_kdist(part, edges, k):
    """{distance: [joints at that graph distance from the agent's joints, sorted]} for distances 0..k
    (MaMuJoCo's get_joints_at_kdist, hyperedges fully connected)."""
    explored = set(part)
    frontier = set(part)
    out = {0: sorted(frontier)}
    for d in range(1, k + 1):
        nxt = set()
        for j in frontier:
            for e in edges:
                if j in e:
                    nxt |= set(e) - {j}
        frontier = nxt - explored
        explored |= frontier
        out[d] = sorted(frontier)
    return out
