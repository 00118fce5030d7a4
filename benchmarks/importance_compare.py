#!/usr/bin/env python3
"""Parameter importance: hptune's PED-ANOVA beside Optuna's evaluators.

Builds one study of --trials finished trials x 20 parameters, the shape of
benchmarks/importance_benchmark.cc (14 linear and 2 log-scaled floats, an
integer, a log-scaled integer, 2 categoricals; the loss depends on x0, x1, lr
and optimizer), and times on it:

  - hptune's PedAnovaImportance (`importance_benchmark --importance_of=F`,
    the median of --repeats runs, trials already in memory);
  - Optuna's get_param_importances with each evaluator it has: fANOVA (its
    default), mean decrease impurity, and PED-ANOVA where the Optuna found
    has it (3.6 or later; --optuna-path puts a source checkout first). The
    study is built with optuna.trial.create_trial and add_trials; only
    get_param_importances is timed. fANOVA is slow: Optuna 3.1's takes 45 s
    at 1,000 trials on a 2-core machine and most of an hour at 10,000, so
    `make bench` runs --evaluators mdi,ped-anova.

Prints a table (time, ratio to hptune, the three most important parameters)
and, when Optuna has PED-ANOVA, how far its numbers are from hptune's. The
two differ by design on categorical parameters (algorithms/importance/
ped_anova.h), so the check renormalises over the other parameters.

Runs under Debian's /usr/bin/python3 with python3-optuna 3.1 (scripts/setup
installs it; 3.1 has no PED-ANOVA). benchmarks/importance_compare.sh runs
this after the Google Benchmark program.

Usage:
  /usr/bin/python3 benchmarks/importance_compare.py
      --hptune build/benchmarks/importance_benchmark [--trials 10000]
      [--repeats 3] [--evaluators fanova,mdi,ped-anova] [--optuna-path DIR]
      [--seed 1]
"""

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

CATEGORIES = {
    "optimizer": ["sgd", "adam", "rmsprop"],
    "activation": ["relu", "gelu", "tanh", "silu"],
}


def parameters():
    """The 20 parameters, as importance_benchmark.cc's TwentyParameters."""
    params = [{"name": f"x{d}", "type": "DOUBLE", "min": 0.0, "max": 1.0}
              for d in range(14)]
    params += [
        {"name": "lr", "type": "DOUBLE", "min": 1e-5, "max": 1.0, "log": True},
        {"name": "decay", "type": "DOUBLE", "min": 1e-6, "max": 1e-2,
         "log": True},
        {"name": "layers", "type": "INTEGER", "min": 1, "max": 8},
        {"name": "batch", "type": "INTEGER", "min": 1, "max": 1024,
         "log": True},
    ]
    params += [{"name": name, "type": "CATEGORICAL", "values": values}
               for name, values in CATEGORIES.items()]
    return params


def draw(param, u):
    """The value a uniform u in [0, 1) gives, in the parameter's scale."""
    if param["type"] == "CATEGORICAL":
        return param["values"][int(u * len(param["values"]))]
    lo, hi = param["min"], param["max"]
    x = (math.exp(math.log(lo) + u * math.log(hi / lo)) if param.get("log")
         else lo + u * (hi - lo))
    return round(x) if param["type"] == "INTEGER" else x


def make_study(n, seed):
    rng = random.Random(seed)
    params = parameters()
    trials = []
    for _ in range(n):
        p = {param["name"]: draw(param, rng.random()) for param in params}
        loss = (10 * p["x0"] + 3 * p["x1"] +
                (math.log10(p["lr"]) + 3) ** 2 +
                (0 if p["optimizer"] == "adam" else 1) + 0.1 * rng.random())
        trials.append({"params": p, "value": loss})
    return {"goal": "MINIMIZE", "params": params, "trials": trials}


def time_hptune(binary, study, repeats):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(study, f)
        path = f.name
    try:
        out = subprocess.run(
            [binary, f"--importance_of={path}", f"--repeats={repeats}"],
            check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(path)
    result = json.loads(out)
    return result["seconds"], result["importances"]


def optuna_study(optuna, study):
    from optuna.distributions import (CategoricalDistribution,
                                      FloatDistribution, IntDistribution)
    dists = {}
    for p in study["params"]:
        if p["type"] == "CATEGORICAL":
            dists[p["name"]] = CategoricalDistribution(p["values"])
        elif p["type"] == "INTEGER":
            dists[p["name"]] = IntDistribution(p["min"], p["max"],
                                               log=p.get("log", False))
        else:
            dists[p["name"]] = FloatDistribution(p["min"], p["max"],
                                                 log=p.get("log", False))
    s = optuna.create_study(direction="minimize")
    s.add_trials([optuna.trial.create_trial(params=t["params"],
                                            distributions=dists,
                                            value=t["value"])
                  for t in study["trials"]])
    return s


def time_optuna(optuna, s, evaluator, repeats):
    seconds, importances = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        importances = optuna.importance.get_param_importances(
            s, evaluator=evaluator)
        seconds.append(time.perf_counter() - start)
        if seconds[-1] > 10:  # a slow evaluator is timed once
            break
    return statistics.median(seconds), dict(importances)


def evaluators(optuna, wanted):
    found = []
    if "fanova" in wanted:
        found.append(("Optuna fANOVA",
                      optuna.importance.FanovaImportanceEvaluator(seed=0)))
    if "mdi" in wanted:
        found.append(("Optuna mean decrease impurity",
                      optuna.importance.MeanDecreaseImpurityImportanceEvaluator(
                          seed=0)))
    ped_anova = getattr(optuna.importance, "PedAnovaImportanceEvaluator", None)
    if "ped-anova" in wanted and ped_anova is not None:
        found.append(("Optuna PED-ANOVA", ped_anova()))
    return found


def renormalised(importances, names):
    total = sum(importances[n] for n in names)
    return {n: importances[n] / total for n in names}


def duration(seconds):
    return f"{seconds:,.2f} s" if seconds >= 1 else f"{seconds * 1000:.1f} ms"


def top3(importances):
    ranked = sorted(importances.items(), key=lambda kv: -kv[1])[:3]
    return ", ".join(f"{name} {value:.3f}" for name, value in ranked)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hptune", required=True,
                        help="path of the built importance_benchmark")
    parser.add_argument("--trials", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--evaluators", default="fanova,mdi,ped-anova",
                        help="Optuna's to time, of fanova,mdi,ped-anova")
    parser.add_argument("--optuna-path",
                        help="an Optuna source checkout to import first")
    args = parser.parse_args()
    if args.optuna_path:
        sys.path.insert(0, args.optuna_path)
    import optuna
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore")

    study = make_study(args.trials, args.seed)
    print(f"{args.trials} trials x {len(study['params'])} parameters; "
          f"Optuna {optuna.__version__}; median of {args.repeats} runs",
          flush=True)
    hptune_seconds, hptune_importances = time_hptune(args.hptune, study,
                                                     args.repeats)
    rows = [("hptune PED-ANOVA", hptune_seconds, hptune_importances)]
    s = optuna_study(optuna, study)
    for name, evaluator in evaluators(optuna, args.evaluators.split(",")):
        print(f"timing {name} ...", file=sys.stderr, flush=True)
        seconds, importances = time_optuna(optuna, s, evaluator, args.repeats)
        rows.append((name, seconds, importances))

    print()
    print("| method | time | x hptune | most important |")
    print("|---|---|---|---|")
    for name, seconds, importances in rows:
        print(f"| {name} | {duration(seconds)} | "
              f"{seconds / hptune_seconds:,.0f}x | {top3(importances)} |")

    for name, _, importances in rows:
        if name != "Optuna PED-ANOVA":
            continue
        numeric = [p["name"] for p in study["params"]
                   if p["type"] != "CATEGORICAL"]
        ours = renormalised(hptune_importances, numeric)
        theirs = renormalised(importances, numeric)
        worst = max(abs(ours[n] - theirs[n]) for n in numeric)
        print(f"\nhptune vs Optuna PED-ANOVA, non-categorical parameters "
              f"renormalised: max |difference| {worst:.2e}")


if __name__ == "__main__":
    main()
