#!/usr/bin/env bash
# Parameter importance speed: hptune's PED-ANOVA at 1k, 10k and 100k trials x
# 20 parameters (Google Benchmark), then beside Optuna's evaluators on one
# study of 10k trials x 20 parameters (benchmarks/importance_compare.py).
# Builds nothing: point it at a build directory with importance_benchmark.
#
# Usage: benchmarks/importance_compare.sh [BUILD_DIR] [importance_compare.py flags]
#   e.g. benchmarks/importance_compare.sh build --optuna-path ~/src/optuna
# Optuna's fANOVA (timed by default) takes most of an hour at 10,000 trials:
# `make bench` passes --evaluators mdi,ped-anova.
# Python: $PYTHON, default /usr/bin/python3 (Debian's, with python3-optuna).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
if [ $# -gt 0 ]; then shift; fi
binary=$build/benchmarks/importance_benchmark
if [ ! -x "$binary" ]; then
  echo "importance_compare: $binary is not built (ninja -C $build importance_benchmark)" >&2
  exit 2
fi
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
"$binary"
"${PYTHON:-/usr/bin/python3}" "$root/benchmarks/importance_compare.py" \
  --hptune "$binary" "$@"
