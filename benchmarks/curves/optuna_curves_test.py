#!/usr/bin/python3
"""optuna_curves.py's copy of the nearest-configuration map gives the
answers of curve_table_test.cc (NearestConfigurationTest) on the same
table, and maps each committed configuration to itself. Standard library
only (Optuna is imported by the replay, not by the map)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import optuna_curves  # noqa: E402


def small_table():
    """curve_table_test.cc's SmallTable."""
    params = [
        {"name": "lr", "type": "double", "low": 1e-4, "high": 1.0,
         "scale": "log"},
        {"name": "width", "type": "integer", "low": 1, "high": 9,
         "scale": "linear"},
        {"name": "opt", "type": "categorical", "values": ["sgd", "adam"]}]
    configs = [{"lr": lr, "width": 5, "opt": o} for lr, o in
               [(1e-4, "sgd"), (1e-2, "sgd"), (1.0, "sgd"), (1e-2, "adam"),
                (1e-2, "adam")]]
    return {"params": params, "configs": configs}


def point(lr, width, opt):
    return {"lr": lr, "width": width, "opt": opt}


def main():
    t = small_table()
    cases = [(point(0.2, 5, "sgd"), 2), (point(3e-4, 5, "sgd"), 0),
             (point(1e-2, 9, "sgd"), 1), (point(1.0, 1, "adam"), 3),
             (point(1e-2, 5, "adam"), 3)]
    failed = 0
    for p, want in cases:
        got = optuna_curves.nearest(t, p)
        if got != want:
            print("nearest(%s) = %d, expected %d" % (p, got, want))
            failed += 1
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
    for task in ("gbm", "mlp", "sgd"):
        table = optuna_curves.load_table(data, task)
        for i, cfg in enumerate(table["configs"][:64]):
            got = optuna_curves.nearest(table, cfg)
            if got != i:
                print("%s: configuration %d maps to %d" % (task, i, got))
                failed += 1
    print("%d failures" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
