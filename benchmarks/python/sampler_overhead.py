#!/usr/bin/env python3
"""What a sampler costs per trial inside Optuna, hptune's beside Optuna's.

An objective that costs nothing (a sum of squares over 10 DOUBLE
parameters, the issue's 10-D case) through ``optuna.create_study(
sampler=S).optimize``: the time from one objective's end to the next
one's, whose suggest_float calls are where a define-by-run sampler works,
is the sampler's and Optuna's own work for that trial. For each sampler, the
p50 and p90 of those times over trials 91-100 and 991-1000 (or the last
ten of --trials), and the whole study's; then the seconds a local engine
(``hptune.Client.local``, what GPSampler starts) takes from its start to
its first answer.

    HPTUNE_BINARY=build/src/cli/hptune build/tests/python/work/venv/bin/python \\
      benchmarks/python/sampler_overhead.py --trials 1000

Prints a Markdown table for benchmarks/RESULTS.md. A benchmark, not a test.
"""

import argparse
import statistics
import sys
import time

import optuna

import hptune.optuna
from hptune.client import Client

DIMENSIONS = 10  # --dimensions

SAMPLERS = {
    "hptune GPSampler": lambda seed: hptune.optuna.GPSampler(seed=seed),
    "Optuna TPESampler": lambda seed: optuna.samplers.TPESampler(seed=seed),
}


def gaps(make, seed: int, trials: int, dimensions: int = DIMENSIONS):
    """Seconds each trial took, from the previous trial's end (the first:
    from the sampler's creation; Optuna samples it on its own, as the
    space is not known yet)."""
    calls = []

    def objective(trial: optuna.Trial) -> float:
        # Define-by-run: the sampler works inside suggest_float.
        value = sum((trial.suggest_float(f"x{i}", -5, 5) - 1) ** 2
                    for i in range(dimensions))
        calls.append(time.monotonic())
        return value

    start = time.monotonic()
    sampler = make(seed)
    study = optuna.create_study(sampler=sampler)
    study.optimize(objective, n_trials=trials)
    if hasattr(sampler, "close"):
        sampler.close()
    return [calls[0] - start] + [b - a for a, b in zip(calls, calls[1:])]


def engine_starts(count: int):
    """Seconds from Client.local(None) (a private ``hptune serve``, what
    GPSampler starts) to its first answered call, `count` times."""
    seconds = []
    for _ in range(count):
        start = time.monotonic()
        client = Client.local(None)
        client.list_studies()
        seconds.append(time.monotonic() - start)
        client.close()
    return seconds


def window(values, end: int):
    """p50 and p90, in ms, of trials end-9..end."""
    chosen = sorted(values[end - 10:end])
    return (1000 * statistics.median(chosen),
            1000 * chosen[int(0.9 * (len(chosen) - 1))])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dimensions", type=int, default=DIMENSIONS)
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    ends = sorted({min(100, args.trials), args.trials})
    print(f"optuna {optuna.__version__}, {args.dimensions}-D, {args.trials} "
          f"trials, seed {args.seed}", file=sys.stderr)
    print("| sampler | " +
          " | ".join(f"trials {e - 9}-{e}: p50, p90 (ms)" for e in ends) +
          " | total (s) |")
    print("|---|" + "---|" * (len(ends) + 1))
    for name, make in SAMPLERS.items():
        values = gaps(make, args.seed, args.trials, args.dimensions)
        cells = ["%.1f, %.1f" % window(values, e) for e in ends]
        print(f"| {name} | " + " | ".join(cells) +
              f" | {sum(values):.1f} |", flush=True)
    starts = engine_starts(5)
    print(f"\nlocal engine start to first answer: p50 "
          f"{statistics.median(starts):.2f} s, max {max(starts):.2f} s "
          "(5 starts)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
