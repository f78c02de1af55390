"""Collision detection: broadphase, narrowphase per geom-type pair, contact parameters (mj_collision)."""
