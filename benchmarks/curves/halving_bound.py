#!/usr/bin/python3
"""How many steps successive halving could save on the tabulated curves if
its rungs were chosen with hindsight, per task.

  halving_bound.py [--data DIR] [--seeds 20] [--trials 64] [--worst 5]
                   [--configs N]

For each seed, `--trials` configurations drawn at random from the task's
table (random.Random(seed)) are trained the synchronous way: at each rung
(step r, keep fraction f) the survivors whose best value so far is at least
as good as the k-th best, k = max(1, floor(f n)) of n, go on (ties go on,
as in ASHA), the rest stop; survivors of the last rung run to the
end. Every schedule of one to three rungs at steps 1-18 and keep fractions
1/2, 1/3, 1/4, 1/6 is tried on all seeds at once, and the one that saves the
most steps while no seed's best final value is more than `--worst` percent
worse than the same seed's without stopping is printed: a bound tuned per
task on the very seeds it is judged on, which no rule without that
hindsight reaches. Also printed: where the eventual best configuration of a
seed ranks among its `--trials` at early steps (0 is first, 1 last), and
the one schedule that saves the most on the task where it saves least (a
default, tuned with hindsight on all tasks at once).
Standard library only.
"""

import argparse
import itertools
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from curve_files import add_table_arguments, curves_for  # noqa: E402

RUNG_STEPS = [1, 2, 3, 4, 5, 6, 8, 10, 12, 14, 16, 18]
KEEP = [1 / 2, 1 / 3, 1 / 4, 1 / 6]


def run(schedule, best_so_far, finals, chosen, length):
    """Steps trained and the best final value of one seed's trials."""
    alive, previous, steps = chosen, 0, 0
    for step, keep in schedule:
        steps += len(alive) * (step - previous)
        previous = step
        values = sorted(best_so_far[i][step - 1] for i in alive)
        cut = values[max(1, int(len(alive) * keep)) - 1]
        alive = [i for i in alive if best_so_far[i][step - 1] <= cut]
    steps += len(alive) * (length - previous)
    return steps, min(finals[i] for i in alive)


def schedules(length):
    grid = [s for s in RUNG_STEPS if s < length]
    for k in (1, 2, 3):
        for steps_at in itertools.combinations(grid, k):
            for keeps in itertools.product(KEEP, repeat=k):
                yield tuple(zip(steps_at, keeps))


def feasible_schedules(curves, seeds, worst_allowed):
    """{schedule: (share of steps saved, worst change %)} for the schedules
    whose worst seed is within worst_allowed."""
    length = len(curves[0])
    best_so_far = [[min(c[:s]) for s in range(1, length + 1)] for c in curves]
    finals = [c[-1] for c in curves]
    out = {}
    for schedule in schedules(length):
        total, worst = 0, 0.0
        for chosen in seeds:
            steps, value = run(schedule, best_so_far, finals, chosen, length)
            unstopped = min(finals[i] for i in chosen)
            worst = max(worst, 100 * (value - unstopped) / abs(unstopped))
            total += steps
            if worst > worst_allowed:
                break
        else:
            out[schedule] = (1 - total / (len(seeds) * len(chosen) * length),
                             worst)
    return out


def describe(schedule):
    return ", ".join("(%d, 1/%d)" % (s, round(1 / f)) for s, f in schedule)


def ranks_of_best(curves, seeds, steps):
    out = {}
    for step in steps:
        ranks = []
        for chosen in seeds:
            best = min(chosen, key=lambda i: curves[i][-1])
            value = min(curves[best][:step])
            ranks.append(sum(min(curves[i][:step]) < value for i in chosen) /
                         len(chosen))
        out[step] = (statistics.median(ranks), max(ranks))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_table_arguments(parser)
    parser.add_argument("--tasks", default="gbm,mlp,sgd")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--trials", type=int, default=64)
    parser.add_argument("--worst", type=float, default=5.0)
    args = parser.parse_args()
    print("| task | steps | most saved | worst change | rungs (step, kept) "
          "| rank of the best at steps 1, 2, 4, 8: median, max |")
    print("|---|---|---|---|---|---|")
    feasible = {}
    for task in args.tasks.split(","):
        curves = curves_for(parser, args, task)
        seeds = [random.Random(s).sample(range(len(curves)), args.trials)
                 for s in range(1, args.seeds + 1)]
        feasible[task] = feasible_schedules(curves, seeds, args.worst)
        schedule = max(feasible[task], key=lambda s: feasible[task][s][0])
        saved, worst = feasible[task][schedule]
        ranks = "; ".join("%.2f, %.2f" % r for r in
                          ranks_of_best(curves, seeds, [1, 2, 4, 8]).values())
        print("| %s | %d | %.1f%% | %+.2f%% | %s | %s |" %
              (task, len(curves[0]), 100 * saved, worst, describe(schedule),
               ranks))
    # One schedule for every task (steps 1-18 exist in each table).
    common = set.intersection(*(set(f) for f in feasible.values()))
    if common:
        one = max(common, key=lambda s: min(f[s][0] for f in feasible.values()))
        print("\nOne schedule for all tasks: %s, saving %s." % (
            describe(one), ", ".join("%.1f%% (%s)" % (100 * f[one][0], t)
                                     for t, f in feasible.items())))


if __name__ == "__main__":
    main()
