#!/usr/bin/env bash
# Integration test of benchmarks/quality_compare.sh on a tiny run: the real
# harness, Optuna and the merged table's shape. Exits 77 (ctest: skipped)
# when Debian's python has no Optuna (scripts/setup installs it).
# Usage: compare_script_test.sh QUALITY_HARNESS SOURCE_DIR
set -euo pipefail
harness=${1:?usage: compare_script_test.sh QUALITY_HARNESS SOURCE_DIR}
root=${2:?usage: compare_script_test.sh QUALITY_HARNESS SOURCE_DIR}
python=${PYTHON:-/usr/bin/python3}
if ! "$python" -c 'import optuna' 2>/dev/null; then
  echo "skipped: $python has no optuna"
  exit 77
fi

out=$(bash "$root/benchmarks/quality_compare.sh" --harness "$harness" \
  --seeds 2 --budgets 10,5 --functions branin,holdout,branin_noisy --threads 1 2>/dev/null)
fail() {
  echo "$1; the output was:"
  echo "$out"
  exit 1
}
expect() { grep -qE "$1" <<<"$out" || fail "no line matches /$1/"; }

expect '^Simple regret \(best found - optimum; with noise, f at the trial reported best\), median \[min, max\] over 2 seeds$'
expect '^function +budget +mode +hptune gp +hptune random +optuna tpe +optuna random +gp/tpe$'
# "holdout" names the same six functions on both sides; both know the noisy
# ones.
for f in branin goldstein_price six_hump_camel hartmann3 shekel4 dixon_price6 \
  powell8 branin_noisy; do
  for b in 5 10; do
    for m in sequential parallel4; do
      # Four "median [min, max]" cells and a ratio.
      expect "^$f +$b +$m( +[-+.e0-9]+ \[[-+.e0-9]+, [-+.e0-9]+\]){4} +([-+.e0-9]+|inf|0/0)$"
    done
  done
done
expect '^Wall time: hptune quality_harness [0-9.]+ s, Optuna [0-9.]+ s'
[ "$(wc -l <<<"$out")" -eq 35 ] || fail "expected 35 lines"

# Errors name the flag.
if err=$(bash "$root/benchmarks/quality_compare.sh" --harness "$harness" \
  --sedes 3 2>&1); then
  fail "a misspelt flag was accepted"
fi
grep -q '^quality_compare: unknown flag --sedes (see --help)$' <<<"$err" ||
  fail "unexpected error: $err"
echo "quality_compare.sh: table and errors as expected"
