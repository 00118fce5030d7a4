#!/usr/bin/env python3
"""hptune.optuna.GPSampler beside Optuna's own samplers, inside Optuna.

The same define-by-run objective through ``optuna.create_study(sampler=S)``
for S in hptune's GPSampler (a private local engine), Optuna's TPESampler
and RandomSampler; per seed, the regret of the best value after each
budget, then the median (and worst) over seeds. Branin-Hoo on [-5, 10] x
[0, 15], minimum 0.397887 (Dixon and Szego 1978, "The global optimisation
problem: an introduction"); regret = best value - 0.397887.

    HPTUNE_BINARY=build/src/cli/hptune PYTHONPATH=<venv with hptune> \\
      python3 benchmarks/python/optuna_sampler_compare.py --seeds 5 --trials 30

Prints a Markdown table for benchmarks/RESULTS.md. A benchmark, not a test.
"""

import argparse
import math
import statistics
import sys
import time

import optuna

import hptune.optuna

BRANIN_MINIMUM = 0.397887


def branin(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -5, 10)
    y = trial.suggest_float("y", 0, 15)
    return ((y - 5.1 / (4 * math.pi ** 2) * x * x + 5 / math.pi * x - 6) ** 2
            + 10 * (1 - 1 / (8 * math.pi)) * math.cos(x) + 10)


SAMPLERS = {
    "hptune GPSampler": lambda seed: hptune.optuna.GPSampler(seed=seed),
    "Optuna TPESampler": lambda seed: optuna.samplers.TPESampler(seed=seed),
    "Optuna RandomSampler":
        lambda seed: optuna.samplers.RandomSampler(seed=seed),
}


def run(make, seed: int, trials: int):
    """Regret of the best value after each trial, and the seconds taken."""
    sampler = make(seed)
    study = optuna.create_study(sampler=sampler)
    start = time.monotonic()
    study.optimize(branin, n_trials=trials)
    elapsed = time.monotonic() - start
    if hasattr(sampler, "close"):
        sampler.close()
    best, regrets = math.inf, []
    for t in study.trials:
        best = min(best, t.value)
        regrets.append(best - BRANIN_MINIMUM)
    return regrets, elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--trials", type=int, default=30)
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    budgets = [b for b in (10, 20, 30, 50, 100) if b <= args.trials]
    print(f"optuna {optuna.__version__}, Branin, {args.trials} trials, "
          f"seeds 0..{args.seeds - 1}", file=sys.stderr)
    print("| sampler | " + " | ".join(f"after {b}" for b in budgets) +
          " | s per study (median) |")
    print("|---|" + "---|" * (len(budgets) + 1))
    for name, make in SAMPLERS.items():
        results = [run(make, seed, args.trials) for seed in range(args.seeds)]
        cells = []
        for b in budgets:
            at = [r[0][b - 1] for r in results]
            cells.append(f"{statistics.median(at):.4f} ({max(at):.4f})")
        seconds = statistics.median(r[1] for r in results)
        print(f"| {name} | " + " | ".join(cells) + f" | {seconds:.1f} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
