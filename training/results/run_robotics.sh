#!/usr/bin/env bash
# Learning evidence of the Fetch tasks (issue 35), not CI. From any directory:
#   bash training/results/run_robotics.sh reach        # SAC + HER, numjoco/FetchReach-v0, 20k steps (~30 min, 2 cores)
#   bash training/results/run_robotics.sh push         # SAC + HER, FetchPush 300k steps, numjoco and gymnasium_robotics
# gymnasium_robotics' own envs need the mujoco 3.17 shim of tests/robotics_oracle.py: its runs go through a launcher
# that installs it before training.train parses the arguments.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=training/results/runs
PART="${1:-reach}"
mkdir -p "$OUT"
oracle_train() {
  python -c "import sys; sys.path.insert(0, 'tests'); import robotics_oracle; robotics_oracle.install_shim(); \
from training.train import main; sys.exit(main(sys.argv[1:]))" "$@"
}

if [[ "$PART" == reach ]]; then
  # RL Zoo's FetchReach SAC + HER settings (training/configs/fetchreach_sac.yaml); goal: success >= 0.95 by 20k steps
  # (20 deterministic episodes every 2k steps).
  python -m training.train --env numjoco/FetchReach-v0 --algo sac --steps 20000 --seed 0 --eval-freq 2000 \
    --eval-episodes 20 --checkpoint-freq 0 --no-progress --no-video --out "$OUT/fetchreach_sac_her_numjoco_s0"
fi

if [[ "$PART" == push ]]; then
  # RL Zoo's FetchPush settings (its tqc.yml entry, as SAC: training/configs/fetchpush_sac.yaml), 300k steps, the
  # same command on numjoco/FetchPush-v0 and on gymnasium_robotics' FetchPush-v4 (20 episodes every 10k steps).
  python -m training.train --env numjoco/FetchPush-v0 --algo sac --steps 300000 --seed 0 --eval-freq 10000 \
    --eval-episodes 20 --checkpoint-freq 50000 --no-progress --no-video --out "$OUT/fetchpush_sac_her_numjoco_s0"
  oracle_train --env FetchPush-v4 --algo sac --config training/configs/fetchpush_sac.yaml --steps 300000 --seed 0 \
    --eval-freq 10000 --eval-episodes 20 --checkpoint-freq 50000 --no-progress --no-video \
    --out "$OUT/fetchpush_sac_her_gymnasium_robotics_s0"
fi
