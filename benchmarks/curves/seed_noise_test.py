#!/usr/bin/python3
"""seed_noise.py's figures on a hand-made table and hand-made retrainings:
the reference is the lowest value at any step, the shortfall is the
tabulated final value against its configuration's mean over seeds, and the
standard deviation is pooled over configurations. Standard library only
(retraining needs scikit-learn; the figures do not)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seed_noise  # noqa: E402
from halving_bound_test import check  # noqa: E402

# Binary fractions, so that every figure below is exact.
CURVES = [[0.75, 0.5, 0.5],
          [0.875, 0.25, 0.375],   # The lowest value, 0.25, at step 1.
          [1.0, 0.875, 0.625]]
# Configurations 1 and 0 (the two lowest final values), retrained.
RETRAINED = {1: [0.5, 0.75], 0: [0.5, 1.0]}


def main():
    s = seed_noise.summarize(CURVES, RETRAINED)
    failed = 0
    failed += check("reference", s["reference"], 0.25)
    failed += check("tabulated best, median", s["tabulated"],
                    (0.375, 0.4375))
    failed += check("retrained best, median", s["retrained"],
                    (0.625, 0.6875))
    # Means 0.625 and 0.75 against 0.375 and 0.5: both 0.25 short.
    failed += check("shortfall", s["shortfall"], 0.25)
    # Variances 0.03125 and 0.125: pooled sd sqrt(0.078125).
    failed += check("pooled sd", s["sd"], 0.078125 ** 0.5)
    failed += check("regret of the best mean", s["regret_of_best_mean"],
                    0.375)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
