"""Corpus models that fail today (tests/test_robot_corpus.py): name -> reason (the measured failure),
optional bounds (record key -> upper bound: 10x the measured error; the number of differing fields as
measured) and crash (True: checked in a worker process: it crashes, hangs or loads too slowly).
Written by `python benchmarks/bench_corpus.py --write-expected tests/corpus_expected.py`; the
categories and their likely causes are in docs/corpus.md.  Remove an entry when its model passes."""

EXPECTED = {
    "dm_control/built/walker_cmu_humanoid_position_controlled": {
        "bounds": {"traj_err": 14.0},
        "reason": "trajectory err 1.4 (first above 1e-06 at step 480)",
    },
    "dm_control/locomotion/walkers/assets/humanoid_CMU_V2019.xml": {
        "bounds": {"traj_err": 0.34},
        "reason": "trajectory err 0.034 (first above 1e-06 at step 702)",
    },
    "robosuite_models/assets/robots/g1/robot.xml": {
        "bounds": {"traj_err": 1.4e-05},
        "reason": "trajectory err 1.4e-06 (first above 1e-06 at step 34)",
    },
}
