"""Corpus models that fail today (tests/test_robot_corpus.py): name -> reason (the measured failure),
optional bounds (record key -> upper bound: 10x the measured error; the number of differing fields as
measured) and crash (True: checked in a worker process: it crashes, hangs or loads too slowly).
Written by `python benchmarks/bench_corpus.py --write-expected tests/corpus_expected.py`; the
categories and their likely causes are in docs/corpus.md.  Remove an entry when its model passes."""

EXPECTED = {
    "robosuite_models/assets/grippers/schunk_svh_left_hand.xml": {
        "bounds": {"qfrc_err": 0.001},
        "reason": "qacc within 5.4e-13 (relative) at the 10 contact states, qfrc_constraint 1.0e-4: these states have contact rows with efc_D = 5e14 and efc_force ~1e16, where rounding J.qacc (qacc ~1e8) moves a force by 1e4; MuJoCo against itself with qvel nudged by 1e-15 (relative) moves qfrc_constraint by 1.2e-4. Ill-conditioned, not a modelling difference",
    },
    "robosuite_models/assets/grippers/schunk_svh_right_hand.xml": {
        "bounds": {"qfrc_err": 1.1e-05},
        "reason": "qacc within 2.4e-14 (relative) at the 10 contact states, qfrc_constraint 1.1e-6: contact rows with efc_D = 5e14, where rounding J.qacc is amplified into the forces; MuJoCo against itself with qvel nudged by 1e-15 (relative) moves qfrc_constraint by 3.2e-4. Ill-conditioned, not a modelling difference",
    },
}
