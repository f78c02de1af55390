"""The DeepMind Control Suite's model files, copied unchanged from dm_control 1.0.50 (dm_control/suite/*.xml and
suite/common/*.xml; Copyright 2017 The dm_control Authors, Apache License 2.0).  tests/test_dmc.py checks them
against the installed dm_control."""
