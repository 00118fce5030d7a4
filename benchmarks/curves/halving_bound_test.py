#!/usr/bin/python3
"""halving_bound.py's halving on hand-made curves: the steps it counts, the
ties it keeps, and a schedule that loses the best configuration rejected.
Standard library only."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import halving_bound  # noqa: E402

# Four configurations of 4 steps; 3 starts worst and ends best.
CURVES = [[0.5, 0.4, 0.3, 0.3],
          [0.5, 0.45, 0.4, 0.35],
          [0.6, 0.5, 0.5, 0.5],
          [0.9, 0.5, 0.2, 0.1]]


def best_so_far(curves):
    return [[min(c[:s]) for s in range(1, len(c) + 1)] for c in curves]


def check(name, got, want):
    if got != want:
        print("%s: got %r, want %r" % (name, got, want))
        return 1
    return 0


def main():
    finals = [c[-1] for c in CURVES]
    everyone = [0, 1, 2, 3]
    failed = 0
    # A quarter kept at step 1: 0 and 1 tie for the best and both go on,
    # 4 + 2 * 3 steps.
    failed += check("tie at the cut", halving_bound.run(
        [(1, 1 / 4)], best_so_far(CURVES), finals, everyone, 4), (10, 0.3))
    # Keeping a quarter at step 3 keeps 3 (0.2), the eventual best.
    failed += check("late keep", halving_bound.run(
        [(3, 1 / 4)], best_so_far(CURVES), finals, everyone, 4), (13, 0.1))
    feasible = halving_bound.feasible_schedules(CURVES, [everyone], 5.0)
    failed += check("a schedule that drops the best is refused",
                    ((1, 1 / 2),) in feasible, False)
    failed += check("one that keeps it is not",
                    feasible.get(((3, 1 / 4),)), (1 - 13 / 16, 0.0))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
