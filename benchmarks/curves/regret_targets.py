#!/usr/bin/python3
"""How many of a task's tabulated configurations reach a given regret: what
an anytime target ("a median regret of at most r") asks of a tuner.

  regret_targets.py [--data DIR] [--configs N] --target TASK=R[,R...]
                    [--target ...]

Regret is as curve_replay scores it: the value a trial reported last (at
its final step, or at the step where it was stopped) minus the best value
anywhere in the task's table. For each threshold r the table says how many
configurations end within r of that best, and how many are within r at some
step (which only stopping that trial at that step reports). A median regret
of at most r over seeds needs one of them found in more than half of the
seeds. Standard library only.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from curve_files import add_table_arguments, curves_for  # noqa: E402


def reach(curves, regret):
    """Configurations that end within `regret` of the table's best value,
    and those within it at some step."""
    best = min(min(c) for c in curves)
    at_end = sum(c[-1] - best <= regret for c in curves)
    at_some_step = sum(min(c) - best <= regret for c in curves)
    return at_end, at_some_step


def parse_target(text):
    task, _, values = text.partition("=")
    if not task or not values:
        raise argparse.ArgumentTypeError(
            "want TASK=R[,R...], got %r" % text)
    try:
        return task, [float(v) for v in values.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            "%r is not a list of numbers" % values)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_table_arguments(parser)
    parser.add_argument("--target", type=parse_target, action="append",
                        required=True)
    args = parser.parse_args()
    print("| task | regret at most | configurations that end within it "
          "| within it at some step | of |")
    print("|---|---|---|---|---|")
    for task, regrets in args.target:
        curves = curves_for(parser, args, task)
        for regret in regrets:
            at_end, at_some_step = reach(curves, regret)
            print("| %s | %.4g | %d | %d | %d |" %
                  (task, regret, at_end, at_some_step, len(curves)))


if __name__ == "__main__":
    main()
