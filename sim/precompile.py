"""`python -m sim.precompile`: build numjoco's kernel cache ahead of time for model files, for Docker images,
clusters and CI (task ids and env families: `numjoco-precompile`, envs/precompile.py).

    python -m sim.precompile assets/hopper.xml my_robot.urdf --render --jobs 2
    python -m sim.precompile model.xml --portable      # a cache for any x86-64 machine

Each model runs what a first use would compile, in a fresh process: sim.step and sim.forward on one world and on a
batch (and a frame of sim.Renderer with --render).  The driver and its options (--jobs, --portable, --ship) are
sim/jit/precompile.py's.
"""

import argparse
import os
import sys

from sim import api
from sim.data import Data
from sim.jit import features
from sim.jit import precompile as _jit_precompile
from sim.loader import load_model
from sim.render import Renderer


def compile_model(path, render):
    """What a first use of the model at `path` compiles; returns its feature set's description."""
    m = load_model(path)
    d = Data(m)
    api.forward(m, d)
    api.step(m, d)
    b = Data(m, nworld=2)
    api.step(m, b)
    b = Data(m, nworld=api.LANES)  # a batch of LANES worlds or more steps in blocks (docs/simd.md)
    api.step(m, b)
    if render:
        r = Renderer(m, 32, 32)
        r.update_scene(d)
        r.render()
    return features.describe(api.model_features(m))


def model_key(path):
    """The feature set of the model at `path` (repr)."""
    return repr(api.model_features(load_model(path)))


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m sim.precompile", description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="+", help="MJCF / URDF files (task ids: numjoco-precompile)")
    _jit_precompile.add_arguments(ap)
    args = ap.parse_args(argv)
    if args.jobs < 1:
        ap.error("--jobs must be >= 1")
    for t in args.models:
        if not os.path.exists(t):
            ap.error(f"no such model file: {t}")
    return _jit_precompile.run(args, args.models, compile_model, model_key, args.render)


if __name__ == "__main__":
    sys.exit(main())
