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
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
harness=$root/build/benchmarks/quality/quality_harness
python=${PYTHON:-/usr/bin/python3}
seeds=20
budgets=50,100
modes=sequential
functions=conditional
designers=gp,random
samplers=tpe,tpe_group,random
threads=$(nproc)
csv_dir=

die() {
  echo "conditional_compare: $*" >&2
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

common=(--seeds="$seeds" --budgets="$budgets" --modes="$modes"
  --functions="$functions")

now() { date +%s.%N; }

start=$(now)
"$harness" "${common[@]}" --designers="$designers" --threads="$threads" \
  --format=csv >"$work/hptune.csv"
middle=$(now)
"$python" "$root/benchmarks/optuna_conditional.py" "${common[@]}" \
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
