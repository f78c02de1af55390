#!/usr/bin/env bash
# Evidence runs of issue 15 (benchmarks, not CI). Run on an idle machine, nothing else running, from any directory:
#   bash training/results/run_evidence.sh            # everything, about 4 h on 2 cores
#   bash training/results/run_evidence.sh hopper     # one part: hopper | hopper_cleanrl | armreach | sweep | summary
# Every run writes its directory under training/results/runs/ (models, checkpoints and logs are git-ignored; the
# result.json, learning curves and videos are kept), then summarize.py writes training/results/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=training/results/runs
PART="${1:-all}"
mkdir -p "$OUT"

if [[ "$PART" == all || "$PART" == hopper ]]; then
  # 1. PPO on Hopper with RL Zoo's hyperparameters (training/configs/hopper_ppo.yaml: hyperparams/ppo.yml#Hopper-v4
  #    at commit 22e3ff2450fd92033f7f032915e1f64894a09584), 1M steps, 2 seeds, ours and Gymnasium's Hopper-v5 with
  #    identical commands and evaluation (10 deterministic episodes every 25k steps). Run one at a time so the
  #    wall-clock times compare.
  for seed in 0 1; do
    for env in numjoco/Hopper-v0 Hopper-v5; do
      tag=$([[ "$env" == numjoco/* ]] && echo numjoco || echo gymnasium)
      python -m training.train --env "$env" --algo ppo --steps 1000000 --seed "$seed" \
        --eval-freq 25000 --eval-episodes 10 --checkpoint-freq 250000 --no-progress \
        --out "$OUT/hopper_ppo_${tag}_s${seed}"
    done
  done
fi

if [[ "$PART" == all || "$PART" == hopper_cleanrl ]]; then
  # 1b. The same with CleanRL's PPO settings (training/configs/cleanrl/hopper_ppo.yaml; CleanRL: 2383 +- 272 on
  #     Hopper-v4), since RL Zoo's stand still at the healthy reward (~1000) on both engines.
  for seed in 0 1; do
    for env in numjoco/Hopper-v0 Hopper-v5; do
      tag=$([[ "$env" == numjoco/* ]] && echo numjoco || echo gymnasium)
      python -m training.train --env "$env" --algo ppo --config training/configs/cleanrl/hopper_ppo.yaml \
        --steps 1000000 --seed "$seed" --eval-freq 25000 --eval-episodes 10 --checkpoint-freq 250000 --no-progress \
        --out "$OUT/hopper_ppocleanrl_${tag}_s${seed}"
    done
  done
fi

if [[ "$PART" == all || "$PART" == armreach ]]; then
  # 2. SAC + HER on the goal-conditioned arm reach (training/configs/armreachgoal_sac.yaml: RL Zoo's FetchReach
  #    SAC + HER entry), 200k steps; goal: success rate >= 0.9 (20 deterministic episodes every 10k steps).
  python -m training.train --env numjoco/ArmReachGoal-v0 --algo sac --steps 200000 --seed 0 \
    --eval-freq 10000 --eval-episodes 20 --checkpoint-freq 50000 --no-progress --out "$OUT/armreachgoal_sac_her_s0"
fi

if [[ "$PART" == all || "$PART" == sweep ]]; then
  # 3. One reward-shaping sweep: Hopper forward_reward_weight x ctrl_cost_weight, 2 seeds, 300k steps per trial,
  #    on our Hopper, two trials at a time (table: results.md, plot: curves.png).
  python - <<'PY'
import yaml
s = yaml.safe_load(open("training/sweeps/hopper_reward.yaml"))
s["train"]["env"] = "numjoco/Hopper-v0"
yaml.safe_dump(s, open("training/results/runs/hopper_reward_numjoco.yaml", "w"), sort_keys=False)
PY
  python -m training.sweep "$OUT/hopper_reward_numjoco.yaml" --jobs 2 --out "$OUT/sweep_hopper_reward"
fi

if [[ "$PART" == all || "$PART" == summary ]]; then
  python training/results/summarize.py "$OUT"      # rewrites RESULTS.md, keeping its hand-written notes
fi
