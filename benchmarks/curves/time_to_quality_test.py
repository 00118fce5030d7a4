#!/usr/bin/python3
"""time_to_quality.py on hand-made rows: the target is the GP without
stopping's median regret at the target spend, each method's spend is the
first checkpoint whose median over seeds reaches it, a NaN (nothing ended
yet) never reaches it, and a method that never does says so. Standard
library only."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import time_to_quality  # noqa: E402
from halving_bound_test import check  # noqa: E402


def row(side, designer, rule, seed, regrets, workers="4"):
    r = {"task": "t", "side": side, "designer": designer, "rule": rule,
         "seed": str(seed), "workers": workers}
    for spend, v in zip((1, 2, 4), regrets):
        r["regret@%g" % spend] = str(v)
    return r


ROWS = [
    # The GP without stopping: median regret at spend 4 is 0.25.
    row("hptune", "gp", "none", 1, [1.0, 0.5, 0.25]),
    row("hptune", "gp", "none", 2, [1.0, 0.5, 0.125]),
    row("hptune", "gp", "none", 3, [1.0, 0.5, 0.5]),
    # Median over seeds reaches 0.25 at spend 2 (one seed at 1 is not
    # enough: the median is).
    row("hptune", "gp", "asha-resume", 1, ["nan", 0.25, 0.125]),
    row("hptune", "gp", "asha-resume", 2, [0.125, 0.25, 0.125]),
    row("hptune", "gp", "asha-resume", 3, ["nan", 0.5, 0.25]),
    # Never within the checkpoints.
    row("optuna", "tpe", "hyperband", 1, [1.0, 1.0, 0.5]),
]

# A sequential replay beside them sets the target (median 0.125 at 4), and
# the 4-worker rows become methods measured against it.
SEQUENTIAL = [row("hptune", "gp", "none", seed, [1.0, 0.25, 0.125], "1")
              for seed in (1, 2, 3)]


def main():
    failed = 0
    text = time_to_quality.table(ROWS, 4)
    failed += check("target", "target regret 0.2500" in text, True)
    failed += check("gp none at 4", "| hptune | gp | none | 4 | 3 | 4 | "
                    "1.00x |" in text, True)
    failed += check("asha-resume at 2", "| hptune | gp | asha-resume | 4 | 3 "
                    "| 2 | 2.00x |" in text, True)
    failed += check("hyperband never", "| optuna | tpe | hyperband | 4 | 1 | "
                    "never | - |" in text, True)
    mixed = time_to_quality.table(SEQUENTIAL + ROWS, 4)
    failed += check("sequential target", "target regret 0.1250 (GP without "
                    "stopping, workers 1" in mixed, True)
    failed += check("4 workers against it", "| hptune | gp | none | 4 | 3 | "
                    "4 | 1.00x |" in mixed, False)
    failed += check("4 workers never", "| hptune | gp | none | 4 | 3 | never "
                    "| - |" in mixed, True)
    failed += check("asha-resume at 4", "| hptune | gp | asha-resume | 4 | 3 "
                    "| 4 | 1.00x |" in mixed, True)
    failed += check("no gp rows", "no hptune gp/none rows" in
                    time_to_quality.table(ROWS[3:], 4), True)
    if failed:
        print(text, mixed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
