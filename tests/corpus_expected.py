"""Corpus models that fail today (tests/test_robot_corpus.py): name -> reason (the measured failure),
optional bounds (record key -> upper bound: 10x the measured error; the number of differing fields as
measured) and crash (True: checked in a worker process: it crashes, hangs or loads too slowly).
Written by `python benchmarks/bench_corpus.py --write-expected tests/corpus_expected.py`; the
categories and their likely causes are in docs/corpus.md.  Remove an entry when its model passes."""

EXPECTED = {}
