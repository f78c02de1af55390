"""Corpus models that fail today (tests/test_robot_corpus.py): name -> reason (the measured failure),
optional bounds (record key -> upper bound: 10x the measured error; the number of differing fields as
measured) and crash (True: checked in a worker process: it crashes, hangs or loads too slowly).
Written by `python benchmarks/bench_corpus.py --write-expected tests/corpus_expected.py`; the
categories and their likely causes are in docs/corpus.md.  Remove an entry when its model passes."""

EXPECTED = {
    "dm_control/built/manipulation_lift_large_box": {
        "reason": "step: UnsupportedError: disable flag nativeccd "
        "(libccd MPR collisions) is not supported: numjoco "
        "simulates MuJoCo's native GJK/EPA convex collisions; "
        'remove <flag nativeccd="disable"/> from <option> (or '
        "clear mjDSBL_NATIVECCD in opt.disableflags) to use "
        "them"
    },
    "dm_control/built/manipulation_reach_site": {
        "reason": "step: UnsupportedError: disable flag nativeccd (libccd "
        "MPR collisions) is not supported: numjoco simulates "
        "MuJoCo's native GJK/EPA convex collisions; remove <flag "
        'nativeccd="disable"/> from <option> (or clear '
        "mjDSBL_NATIVECCD in opt.disableflags) to use them"
    },
    "dm_control/built/manipulation_stack_2_bricks": {
        "reason": "step: UnsupportedError: disable flag nativeccd "
        "(libccd MPR collisions) is not supported: numjoco "
        "simulates MuJoCo's native GJK/EPA convex collisions; "
        'remove <flag nativeccd="disable"/> from <option> (or '
        "clear mjDSBL_NATIVECCD in opt.disableflags) to use "
        "them"
    },
}
