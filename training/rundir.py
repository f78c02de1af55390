"""A run directory's layout: checkpoint names, the newest saved state to resume from, the model files to replay.

Pure file-system helpers (no SB3 import), shared by training.train (--resume), training.enjoy and
training.callbacks (which writes the checkpoints).
"""

from __future__ import annotations

import glob
import json
import os
import re
from dataclasses import dataclass

from training import config as C

#: a checkpoint's model file: checkpoints/model_<timesteps>_steps.zip
CKPT_RE = re.compile(r"model_(\d+)_steps\.zip$")


def list_checkpoints(path: str) -> list[tuple[int, str]]:
    """[(timesteps, model zip path)] of the checkpoints in `path`, oldest first."""
    out = []
    for f in glob.glob(os.path.join(path, "model_*_steps.zip")):
        m = CKPT_RE.search(f)
        if m:
            out.append((int(m.group(1)), f))
    return sorted(out)


def model_files(run_dir: str, which: str) -> tuple[str, str]:
    """(model .zip, VecNormalize .pkl) of a run for 'final', 'best', 'latest' or a checkpoint path."""
    if which == "final":
        return os.path.join(run_dir, "model.zip"), os.path.join(run_dir, "vecnormalize.pkl")
    if which == "best":
        return os.path.join(run_dir, "best_model.zip"), os.path.join(run_dir, "best_vecnormalize.pkl")
    if which == "latest":
        ckpts = list_checkpoints(os.path.join(run_dir, "checkpoints"))
        if not ckpts:
            raise C.ConfigError(f"{run_dir}: no checkpoint")
        which = ckpts[-1][1]
    n = os.path.basename(which).removeprefix("model_").removesuffix("_steps.zip")
    return which, os.path.join(os.path.dirname(which), f"vecnormalize_{n}_steps.pkl")


@dataclass
class ResumePoint:
    """A saved state to resume from: its run directory, timesteps (-1: an RLlib checkpoint) and files."""

    run_dir: str
    steps: int
    model: str
    vecnormalize: str | None
    replay_buffer: str | None


def find_resume_point(path: str) -> ResumePoint:
    """The newest saved state of a run directory (checkpoint or final model), or the given checkpoint .zip."""

    def _sibling(p):
        return p if os.path.exists(p) else None

    path = os.path.abspath(path)
    if path.endswith(".zip"):
        m = CKPT_RE.search(path)
        if not m or not os.path.exists(path):
            raise C.ConfigError(f"--resume {path}: not a checkpoint (expected checkpoints/model_<N>_steps.zip)")
        d = os.path.dirname(path)
        n = int(m.group(1))
        run_dir = os.path.dirname(d) if os.path.basename(d) == "checkpoints" else d
        return ResumePoint(
            run_dir,
            n,
            path,
            _sibling(os.path.join(d, f"vecnormalize_{n}_steps.pkl")),
            _sibling(os.path.join(d, f"replay_buffer_{n}_steps.pkl")),
        )
    if not os.path.exists(os.path.join(path, "config.yaml")):
        raise C.ConfigError(f"--resume {path}: not a run directory (no config.yaml)")
    rllib_ckpt = os.path.join(path, "rllib_checkpoint")
    if os.path.isdir(rllib_ckpt):  # an RLlib run (--backend rllib): its checkpoint directory
        return ResumePoint(path, -1, rllib_ckpt, None, None)
    points = []
    for n, zip_path in list_checkpoints(os.path.join(path, "checkpoints")):
        d = os.path.dirname(zip_path)
        points.append(
            ResumePoint(
                path,
                n,
                zip_path,
                _sibling(os.path.join(d, f"vecnormalize_{n}_steps.pkl")),
                _sibling(os.path.join(d, f"replay_buffer_{n}_steps.pkl")),
            )
        )
    result = os.path.join(path, "result.json")
    if os.path.exists(os.path.join(path, "model.zip")) and os.path.exists(result):
        with open(result) as f:
            n = int(json.load(f)["timesteps"])
        points.append(
            ResumePoint(
                path,
                n,
                os.path.join(path, "model.zip"),
                _sibling(os.path.join(path, "vecnormalize.pkl")),
                _sibling(os.path.join(path, "replay_buffer.pkl")),
            )
        )
    if not points:
        raise C.ConfigError(f"--resume {path}: no checkpoint or final model to resume from")
    return max(points, key=lambda p: p.steps)
