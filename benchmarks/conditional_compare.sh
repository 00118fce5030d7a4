#!/usr/bin/env bash
# hptune's designers beside Optuna's samplers on the conditional problems.
#
# Runs benchmarks/quality/quality_harness (hptune) and benchmarks/
# optuna_conditional.py (Optuna TPE with its defaults, TPE with
# multivariate=True, group=True, and random search) on the conditional
# problems of benchmarks/quality/conditional_problems.h (jenatton,
# optimizer_choice, model_tree), with the same seeds, budgets and worker
# mode, then prints one merged table of simple regret: a line per problem x
# budget x mode, a column per designer ("median [min, max]" over seeds) and
# the ratios of hptune's first designer to each TPE setting (gp/tpe,
# gp/tpe_group; below 1: hptune found better points; the issue's target is
# at most 0.5 at 100 trials), then the wall time of each part. Builds
# nothing: point --harness at a built quality_harness. Progress goes to
# stderr.
#
# Usage: benchmarks/conditional_compare.sh [--harness PATH] [--seeds 20]
#          [--budgets 50,100] [--modes sequential] [--functions conditional]
#          [--designers gp,random] [--samplers tpe,tpe_group,random]
#          [--threads N] [--csv-dir DIR]
# (--flag=value works too.) --threads is both the harness's threads and
# Optuna's processes (default: all CPUs). --csv-dir keeps the two CSVs.
# Python: $PYTHON, default /usr/bin/python3 (Debian's, with python3-optuna).
# quality_compare.sh does the work, with these defaults and
# benchmarks/optuna_conditional.py as its Optuna side; later flags win.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
for arg in "$@"; do
  case $arg in
    --help | -h) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  esac
done
COMPARE_SCRIPT_NAME=conditional_compare exec bash \
  "$root/benchmarks/quality_compare.sh" \
  --optuna-script "$root/benchmarks/optuna_conditional.py" \
  --modes sequential --functions conditional \
  --samplers tpe,tpe_group,random "$@"
