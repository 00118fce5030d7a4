#!/usr/bin/env python3
"""Optuna TPE's suggestion latency, the peer of gp_benchmark's BM_GpSuggestTail.

The same protocol: n completed trials at random points of a d-dimensional
unit box (the benchmark's objective, a sum of shifted cosines and a bowl),
then 100 calls that each ask for one trial, time only the ask (sampling
every parameter, as Optuna's define-by-run trial does), and tell its value.
Prints p50, p99 and max in milliseconds per (n, d).

Usage: /usr/bin/python3 benchmarks/optuna_latency.py [--sizes 100,300,1000]
         [--dimensions 6,20] [--calls 100]
"""

import argparse
import math
import random
import time

import optuna


def objective(x):
    return sum((v - 0.3) ** 2 + 0.1 * math.cos(7 * v + i)
               for i, v in enumerate(x))


def percentile(values, p):
    ordered = sorted(values)
    return ordered[int(p * (len(ordered) - 1))]


def measure(n, d, calls):
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    names = [f"x{i}" for i in range(d)]
    distributions = {
        name: optuna.distributions.FloatDistribution(0, 1) for name in names
    }
    study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=1))
    rng = random.Random(42)
    for _ in range(n):
        params = {name: rng.random() for name in names}
        study.add_trial(
            optuna.trial.create_trial(params=params,
                                      distributions=distributions,
                                      value=objective(list(params.values()))))
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        trial = study.ask()
        x = [trial.suggest_float(name, 0, 1) for name in names]
        times.append((time.perf_counter() - start) * 1000)
        study.tell(trial, objective(x))
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="100,300,1000")
    parser.add_argument("--dimensions", default="6,20")
    parser.add_argument("--calls", type=int, default=100)
    args = parser.parse_args()
    print(f"optuna {optuna.__version__} TPESampler")
    print("n\td\tp50_ms\tp99_ms\tmax_ms")
    for n in (int(v) for v in args.sizes.split(",")):
        for d in (int(v) for v in args.dimensions.split(",")):
            times = measure(n, d, args.calls)
            print(f"{n}\t{d}\t{percentile(times, 0.5):.1f}\t"
                  f"{percentile(times, 0.99):.1f}\t{max(times):.1f}")


if __name__ == "__main__":
    main()
