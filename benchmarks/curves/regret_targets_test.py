#!/usr/bin/python3
"""regret_targets.py's counts on hand-made curves: the regret is measured
from the best value at any step, a final value and an earlier one count
apart, and a bad --target is refused naming it. Standard library only."""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import regret_targets  # noqa: E402
from halving_bound_test import check  # noqa: E402

# The table's best value, 0.125, is curve 3's step 2; it ends at 0.375.
# Binary fractions, so that a regret equal to the threshold is exact.
CURVES = [[0.75, 0.625, 0.5],
          [0.875, 0.75, 0.25],
          [1.0, 0.875, 0.875],
          [0.5, 0.125, 0.375]]


def main():
    failed = 0
    failed += check("nothing ends at the best", regret_targets.reach(
        CURVES, 0.0625), (0, 1))
    failed += check("curve 1 ends at 0.125, curve 3 reaches it earlier",
                    regret_targets.reach(CURVES, 0.125), (1, 2))
    failed += check("curves 0, 1 and 3 end within 0.375",
                    regret_targets.reach(CURVES, 0.375), (3, 3))
    failed += check("parsed", regret_targets.parse_target("mlp=0.02,0.01"),
                    ("mlp", [0.02, 0.01]))
    for bad in ("mlp", "mlp=", "mlp=half"):
        try:
            regret_targets.parse_target(bad)
            failed += check("refused " + bad, "accepted", "refused")
        except argparse.ArgumentTypeError as e:
            failed += check("names " + bad, repr(bad.partition("=")[2] or bad)
                            in str(e), True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
