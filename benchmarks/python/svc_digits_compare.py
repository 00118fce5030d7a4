#!/usr/bin/env python3
"""examples/python/tune_svc.py's task, hptune beside Optuna in one run.

The SVC on the digits (5-fold shuffled CV accuracy, C and gamma log-scaled,
examples/python/svc_config.yaml), 40 trials one at a time, for each seed:
hptune's default designer (a GP) through a server and the Python client,
Optuna's TPE and Optuna's random search. Prints, per method, the mean and
worst best-so-far accuracy after 10, 20 and 40 trials and the mean trial at
which 0.98 was first reached.

    hptune serve --listen 127.0.0.1:0 &        # then, with its port:
    python3 benchmarks/python/svc_digits_compare.py --server 127.0.0.1:PORT

Needs hptune's package, scikit-learn and Optuna (Debian: python3-optuna).
"""

import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, os.pardir, "examples",
                                "python"))

import hptune  # noqa: E402
import optuna  # noqa: E402
import tune_svc  # noqa: E402
from hptune.config import read_config_file  # noqa: E402

TRIALS = 40
CHECKPOINTS = (10, 20, 40)


class _Parameters:
    """What tune_svc.objective reads of a trial."""

    def __init__(self, parameters):
        self.parameters = parameters
        self.id = 0


def accuracy(parameters):
    return tune_svc.objective(_Parameters(parameters))["accuracy"]


def run_hptune(client, seed, name):
    config = read_config_file(tune_svc.CONFIG)
    spec = config["trainingInput"]["hyperparameters"]
    spec.update(maxTrials=TRIALS, maxParallelTrials=1, seed=seed)
    study = client.create_study(name, config)
    study.optimize(tune_svc.objective, n_workers=1)
    return [t.value for t in study.trials()]


def run_optuna(sampler):
    def objective(trial):
        return accuracy({
            "C": trial.suggest_float("C", 1e-2, 1e3, log=True),
            "gamma": trial.suggest_float("gamma", 1e-5, 1e-1, log=True)})

    study = optuna.create_study(direction="maximize", sampler=sampler)
    study.optimize(objective, n_trials=TRIALS)
    return [t.value for t in study.trials]


def summary(runs):
    row = []
    for k in CHECKPOINTS:
        bests = [max(values[:k]) for values in runs]
        row.append(f"{statistics.mean(bests):.4f} ({min(bests):.4f})")
    firsts = [next((i + 1 for i, v in enumerate(values) if v >= 0.98),
                   TRIALS + 1) for values in runs]
    row.append(f"{statistics.mean(firsts):.1f}")
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server", required=True)
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    client = hptune.Client(args.server)
    prefix = f"svc_compare_{os.getpid()}"
    methods = {"hptune GP": [], "Optuna TPE": [], "Optuna random": []}
    for seed in range(1, args.seeds + 1):
        methods["hptune GP"].append(
            run_hptune(client, seed, f"{prefix}_{seed}"))
        methods["Optuna TPE"].append(
            run_optuna(optuna.samplers.TPESampler(seed=seed)))
        methods["Optuna random"].append(
            run_optuna(optuna.samplers.RandomSampler(seed=seed)))
    print(f"SVC on digits, {args.seeds} seeds, {TRIALS} trials one at a "
          f"time; best CV accuracy so far: mean (worst)")
    print("| method | after 10 | after 20 | after 40 | first >= 0.98 at |")
    print("|---|---|---|---|---|")
    for name, runs in methods.items():
        print(f"| {name} | " + " | ".join(summary(runs)) + " |")


if __name__ == "__main__":
    main()
