"""Kernels over blocks of worlds laid out world-minor (structure of arrays), one world per SIMD lane."""
