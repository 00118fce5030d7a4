#!/bin/bash
# Runs gbm.yaml through `hptune run` without early stopping and with each
# rule named, one job after another (databases and logs in a new directory
# under /tmp), and prints a line per job: its wall time, the steps its
# trials trained (each trial's last reported stage) and its best value.
#   benchmarks/curves/e2e/run.sh build/src/cli/hptune median-at-step envelope
# ALGORITHM (an --algorithm value, e.g. multi-fidelity-gp) replaces the
# config's random search; it is named on each line.
set -euo pipefail
algorithm=${ALGORITHM:-}
hptune=$(realpath "$1")
shift
cd "$(dirname "$0")"
work=$(mktemp -d /tmp/hptune-e2e-XXXXXX)
for rule in none "$@"; do
  flags=()
  [[ $rule != none ]] && flags=(--early-stopping "$rule")
  [[ -n $algorithm ]] && flags+=(--algorithm "$algorithm")
  job="e2e_${rule//-/_}"
  start=$(date +%s.%N)
  "$hptune" run gbm.yaml --db "$work/$rule.db" --runs-dir "$work/runs" \
    --job-id "$job" "${flags[@]}" > "$work/$rule.out" 2>&1
  end=$(date +%s.%N)
  "$hptune" trials list --study "$job" --db "$work/$rule.db" --format json |
    /usr/bin/python3 -c '
import json, sys
rule, seconds = sys.argv[1], float(sys.argv[3]) - float(sys.argv[2])
trials = json.load(sys.stdin)
done = [t for t in trials if t["state"] == "SUCCEEDED"]
steps = sum(int(t["finalMetric"]["trainingStep"]) for t in done)
best = min(t["finalMetric"]["objectiveValue"] for t in done)
stopped = sum(1 for t in done if t["isTrialStoppedEarly"])
print("%-15s %6.1f s  %2d trials (%2d stopped)  %4d stages  best %.5f"
      % (rule, seconds, len(done), stopped, steps, best))' "$rule" "$start" "$end"
done
[[ -n $algorithm ]] && echo "algorithm: $algorithm"
echo "databases and logs: $work"
