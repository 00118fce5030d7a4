#!/usr/bin/env bash
# Optimisation quality of hptune's designers beside Optuna's samplers.
#
# Runs benchmarks/quality/quality_harness (hptune) and benchmarks/
# optuna_compare.py (Optuna TPE and random search) on the same test functions,
# seeds, budgets and worker modes, then prints one merged table of simple
# regret: a line per function x budget x mode, a column per designer
# ("median [min, max]" over seeds) and the ratio of hptune's first designer to
# Optuna TPE (gp/tpe by default; below 1: hptune found better points), then
# the wall time of each part. Builds nothing: point --harness at a built
# quality_harness. Progress goes to stderr.
#
# Usage: benchmarks/quality_compare.sh [--harness PATH] [--seeds N]
#          [--budgets 50,100] [--modes sequential,parallel4]
#          [--functions LIST] [--designers gp,random] [--samplers tpe,random]
#          [--threads N] [--csv-dir DIR]
# --functions takes names of any suite, "holdout" for the held-out
# functions or "noisy" for the noisy ones (benchmarks/quality/
# test_functions.h); the default is the suite.
# --optuna-script PATH runs another Optuna side with the same flags and
# output (conditional_compare.sh passes benchmarks/optuna_conditional.py).
# (--flag=value works too.) --threads is both the harness's threads and
# Optuna's processes (default: all CPUs). --csv-dir keeps the two CSVs.
# Python: $PYTHON, default /usr/bin/python3 (Debian's, with python3-optuna).
# --samplers hptune_gp adds hptune's GPSampler inside Optuna: set PYTHON to
# one that imports hptune (build/tests/python/work/venv/bin/python) and
# HPTUNE_BINARY to the absolute path of the hptune binary.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
harness=$root/build/benchmarks/quality/quality_harness
python=${PYTHON:-/usr/bin/python3}
seeds=20
budgets=50,100
modes=sequential,parallel4
functions=
designers=gp,random
samplers=tpe,random
threads=$(nproc)
csv_dir=
optuna_script=$root/benchmarks/optuna_compare.py

# Errors carry the name the user ran (conditional_compare.sh sets it).
name=${COMPARE_SCRIPT_NAME:-quality_compare}
die() {
  echo "$name: $*" >&2
  exit 2
}

while [ $# -gt 0 ]; do
  flag=$1
  case $flag in
    --*=*) value=${flag#*=}; flag=${flag%%=*}; shift ;;
    --help | -h) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --*)
      [ $# -ge 2 ] || die "flag $flag needs a value"
      value=$2; shift 2 ;;
    *) die "unexpected argument \"$flag\" (see --help)" ;;
  esac
  case $flag in
    --harness) harness=$value ;;
    --seeds) seeds=$value ;;
    --budgets) budgets=$value ;;
    --modes) modes=$value ;;
    --functions) functions=$value ;;
    --designers) designers=$value ;;
    --samplers) samplers=$value ;;
    --threads) threads=$value ;;
    --csv-dir) csv_dir=$value ;;
    --optuna-script) optuna_script=$value ;;
    *) die "unknown flag $flag (see --help)" ;;
  esac
done

[ -x "$harness" ] || die "no quality_harness at $harness; build it with" \
  "\`cmake --build build --target quality_harness\` or pass --harness PATH"
[ -x "$python" ] || die "no python at $python (set PYTHON)"
"$python" -c 'import optuna' 2>/dev/null ||
  die "$python cannot import optuna; run \`bash scripts/setup\`"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

common=(--seeds="$seeds" --budgets="$budgets" --modes="$modes")
[ -n "$functions" ] && common+=(--functions="$functions")

now() { date +%s.%N; }

start=$(now)
"$harness" "${common[@]}" --designers="$designers" --threads="$threads" \
  --format=csv >"$work/hptune.csv"
middle=$(now)
"$python" "$optuna_script" "${common[@]}" \
  --samplers="$samplers" --jobs="$threads" >"$work/optuna.csv"
end=$(now)

if [ -n "$csv_dir" ]; then
  mkdir -p "$csv_dir"
  cp "$work/hptune.csv" "$work/optuna.csv" "$csv_dir/"
fi
"$python" "$root/benchmarks/quality/merge_tables.py" "$work/hptune.csv" \
  "$work/optuna.csv"
awk -v a="$start" -v b="$middle" -v c="$end" -v t="$threads" 'BEGIN {
  printf "Wall time: hptune quality_harness %.1f s, Optuna %.1f s (%d threads/processes)\n",
    b - a, c - b, t }'
