#!/usr/bin/env python3
"""hptune's own define-by-run studies beside Optuna's TPE on branching spaces.

An Optuna user's objective suggests its parameters as it runs, some only in
a branch (Optuna's examples choose a model, then its parameters). With no
``params`` in its config an hptune study learns that space from the calls
(docs/python.md, "Define-by-run"): a parameter first suggested in a later
trial joins it, and a trial leaves out the branches it did not take. This
runs the conditional problems of benchmarks/optuna_conditional.py
(jenatton, optimizer_choice, model_tree; the trees of
benchmarks/quality/conditional_problems.h, written define-by-run) through:

- ``hptune``: ``Client.local`` define-by-run with the default designer
  (the GP), one trial at a time;
- ``hptune_keep``: the same, with the branches not taken kept in each trial
  (Trial._unused answers nothing: what define-by-run did before a trial
  left them out), to measure that choice;
- ``tpe`` and ``tpe_group``: Optuna's TPESampler (defaults; and
  multivariate=True, group=True, its setting for conditional spaces);
- ``random``: Optuna's RandomSampler;
- ``hptune_declared`` (model_choice only): the same space declared in the
  config as a tree (conditionalParameterSpecs), what define-by-run learns
  without being told.

``--problems=model_choice`` is a real one: an SVC, a random forest or a
logistic regression (scikit-learn, generated data), each with its own
parameters, scored by 3-fold CV error.

Per seed the regret (best value minus the known optimum) after each of
--checkpoints trials; then the median over seeds per method. The first
hptune trial draws in the Python process (unseeded), so hptune's runs vary
from run to run; the median over 20 seeds moves little.

    HPTUNE_BINARY=$PWD/build/src/cli/hptune \\
      build/tests/python/work/venv/bin/python \\
      benchmarks/python/define_by_run_compare.py --seeds 20

Prints a Markdown table for benchmarks/RESULTS.md. A benchmark, not a test.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import optuna  # noqa: E402  pylint: disable=wrong-import-position
from optuna_conditional import (PROBLEMS, optuna_choose,  # noqa: E402
                                walk)

import hptune  # noqa: E402  pylint: disable=wrong-import-position
from hptune import trials as hptune_trials  # noqa: E402

METHODS = ("hptune", "hptune_keep", "tpe", "tpe_group", "random")
# --methods may add hptune_declared (model_choice only).
_DATA = {}


def model_choice(trial):
    """A real model choice, as Optuna's examples write it: an SVC, a random
    forest or a logistic regression on generated data (scikit-learn, no
    download), each with its own parameters; the 3-fold CV error (its
    optimum unknown: reported as the error itself)."""
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score
    from sklearn.svm import SVC
    if "x" not in _DATA:
        _DATA["x"] = make_classification(n_samples=400, n_features=12,
                                         n_informative=6, flip_y=0.05,
                                         random_state=7)
    kind = trial.suggest_categorical("model", ["svc", "forest", "logistic"])
    if kind == "svc":
        model = SVC(C=trial.suggest_float("svc_c", 1e-3, 1e3, log=True),
                    gamma=trial.suggest_float("gamma", 1e-4, 10, log=True))
    elif kind == "forest":
        model = RandomForestClassifier(
            n_estimators=trial.suggest_int("trees", 10, 100, step=10),
            max_depth=trial.suggest_int("depth", 2, 16),
            max_features=trial.suggest_float("features", 0.2, 1.0),
            random_state=0)
    else:
        model = LogisticRegression(
            C=trial.suggest_float("logistic_c", 1e-4, 1e2, log=True),
            max_iter=500)
    return 1 - cross_val_score(model, *_DATA["x"], cv=3).mean()


def _double(name, low, high, log=False):
    return {"parameterName": name, "type": "DOUBLE", "minValue": low,
            "maxValue": high,
            "scaleType": "UNIT_LOG_SCALE" if log else "UNIT_LINEAR_SCALE"}


def _branch(model, *specs):
    return [{"parentCategoricalValues": {"values": [model]},
             "parameterSpec": spec} for spec in specs]


# model_choice's space declared in a config, as a tree (hptune_declared).
MODEL_CHOICE_TREE = [{
    "parameterName": "model", "type": "CATEGORICAL",
    "categoricalValues": ["svc", "forest", "logistic"],
    "conditionalParameterSpecs":
        _branch("svc", _double("svc_c", 1e-3, 1e3, True),
                _double("gamma", 1e-4, 10, True)) +
        _branch("forest",
                {"parameterName": "trees", "type": "DISCRETE",
                 "discreteValues": list(range(10, 101, 10))},
                {"parameterName": "depth", "type": "INTEGER",
                 "minValue": 2, "maxValue": 16},
                _double("features", 0.2, 1.0)) +
        _branch("logistic", _double("logistic_c", 1e-4, 1e2, True))}]


def objective_of(problem):
    if problem == "model_choice":
        return model_choice
    tree, f, _ = PROBLEMS[problem]
    return lambda trial: f(walk(tree, optuna_choose(trial), {}))


def optimum_of(problem):
    return 0.0 if problem == "model_choice" else PROBLEMS[problem][2]


def best_so_far(values, checkpoints):
    best, out = float("inf"), []
    for n, v in enumerate(values, start=1):
        best = min(best, v)
        if n in checkpoints:
            out.append(best)
    return out


def run_hptune(client, problem, seed, budget, declared=False):
    config = {"goal": "MINIMIZE", "seed": seed}
    if declared:
        config["params"] = MODEL_CHOICE_TREE
    study = client.study(f"{problem}_{seed}", config)
    study.optimize(objective_of(problem), n_trials=budget)
    ordered = sorted(study.trials(measurements=False), key=lambda t: t.id)
    return [t.value for t in ordered]


def run_optuna(method, problem, seed, budget):
    sampler = {"tpe": lambda: optuna.samplers.TPESampler(seed=seed),
               "tpe_group": lambda: optuna.samplers.TPESampler(
                   seed=seed, multivariate=True, group=True),
               "random": lambda: optuna.samplers.RandomSampler(seed=seed),
               }[method]()
    study = optuna.create_study(sampler=sampler)
    study.optimize(objective_of(problem), n_trials=budget)
    return [t.value for t in study.trials]


def run_method(method, args, checkpoints):
    """regrets[problem] = per seed, the regret at each checkpoint."""
    regrets, start = {}, time.monotonic()
    keep_branches = hptune_trials.Trial._unused
    if method == "hptune_keep":
        hptune_trials.Trial._unused = lambda self: []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            client = (hptune.Client.local(os.path.join(tmp, "dbr.db"))
                      if method.startswith("hptune") else None)
            for problem in args.problems:
                optimum = optimum_of(problem)
                regrets[problem] = []
                for seed in range(1, args.seeds + 1):
                    values = (run_hptune(client, problem, seed, args.trials,
                                         method == "hptune_declared")
                              if client else
                              run_optuna(method, problem, seed, args.trials))
                    regrets[problem].append(
                        [b - optimum for b in best_so_far(values,
                                                          checkpoints)])
            if client:
                client.close()
    finally:
        hptune_trials.Trial._unused = keep_branches
    print(f"{method}: {time.monotonic() - start:.1f} s", file=sys.stderr)
    return regrets


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--checkpoints", default="25,50")
    parser.add_argument("--problems", default=",".join(PROBLEMS))
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--dump", help="also write every seed's regrets, "
                        "JSON {method: {problem: [[per checkpoint]]}}")
    args = parser.parse_args()
    args.problems = args.problems.split(",")
    checkpoints = [int(c) for c in args.checkpoints.split(",")]
    warnings.simplefilter("ignore")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    methods = args.methods.split(",")
    results = {m: run_method(m, args, checkpoints) for m in methods}
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as f:
            json.dump(results, f)
    print(f"| problem | trials | {' | '.join(methods)} |")
    print("|---|---|" + "---|" * len(methods))
    for problem in args.problems:
        for k, n in enumerate(checkpoints):
            cells = [statistics.median(r[k] for r in results[m][problem])
                     for m in methods]
            best = min(cells)
            row = [f"**{c:.3g}**" if c == best else f"{c:.3g}" for c in cells]
            print(f"| {problem} | {n} | {' | '.join(row)} |")


if __name__ == "__main__":
    main()
