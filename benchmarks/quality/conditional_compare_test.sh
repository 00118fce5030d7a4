#!/usr/bin/env bash
# Integration test of benchmarks/conditional_compare.sh on a tiny run: the
# real harness (gp and random) and Optuna (both TPE settings and random) on
# the three conditional problems, and the merged table's shape. Exits 77
# (ctest: skipped) when Debian's python has no Optuna (scripts/setup
# installs it).
# Usage: conditional_compare_test.sh QUALITY_HARNESS SOURCE_DIR
set -euo pipefail
harness=${1:?usage: conditional_compare_test.sh QUALITY_HARNESS SOURCE_DIR}
root=${2:?usage: conditional_compare_test.sh QUALITY_HARNESS SOURCE_DIR}
python=${PYTHON:-/usr/bin/python3}
if ! "$python" -c 'import optuna' 2>/dev/null; then
  echo "skipped: $python has no optuna"
  exit 77
fi

out=$(bash "$root/benchmarks/conditional_compare.sh" --harness "$harness" \
  --seeds 2 --budgets 12,6 --threads 1 2>/dev/null)
fail() {
  echo "$1; the output was:"
  echo "$out"
  exit 1
}
expect() { grep -qE "$1" <<<"$out" || fail "no line matches /$1/"; }

expect '^Simple regret \(best found - optimum; with noise, f at the trial reported best\), median \[min, max\] over 2 seeds$'
expect '^function +budget +mode +hptune gp +hptune random +optuna tpe +optuna tpe_group +optuna random +gp/tpe +gp/tpe_group$'
for f in jenatton optimizer_choice model_tree; do
  for b in 6 12; do
    # Five "median [min, max]" cells and two ratios; regrets are >= 0.
    expect "^$f +$b +sequential( +[.e0-9]+ \[[.e0-9]+, [.e0-9]+\]){5}( +([-+.e0-9]+|inf|0/0)){2}$"
  done
done
expect '^Wall time: hptune quality_harness [0-9.]+ s, Optuna [0-9.]+ s'
[ "$(wc -l <<<"$out")" -eq 9 ] || fail "expected 9 lines"

if err=$(bash "$root/benchmarks/conditional_compare.sh" --harness "$harness" \
  --sedes 3 2>&1); then
  fail "a misspelt flag was accepted"
fi
grep -q '^conditional_compare: unknown flag --sedes (see --help)$' <<<"$err" ||
  fail "unexpected error: $err"
echo "conditional_compare.sh: table and errors as expected"
