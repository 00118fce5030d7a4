#!/usr/bin/python3
"""Time to quality on the learning-curve benchmark: the spend at which each
method's median regret over seeds first reaches the regret that the GP
without stopping reaches after 50 full trainings.

  time_to_quality.py [--target-spend 50] hptune.tsv optuna.tsv

Reads curve_replay's and optuna_curves.py's rows (tab-separated, one header
line per file) run with dense checkpoints, e.g.

  CP=$(seq -s, 1 100)
  build/benchmarks/curves/curve_replay --seeds=20 --budget=100 \\
      --designers=random,gp --rules=none,median_at_step,asha-resume \\
      --checkpoints=$CP > hptune.tsv
  /usr/bin/python3 benchmarks/curves/optuna_curves.py --seeds 20 \\
      --budget 100 --samplers tpe --pruners none,hyperband \\
      --checkpoints $CP > optuna.tsv

Per task, the target is the median over seeds of hptune's GP ("gp", rule
"none") regret@T, T = --target-spend, with the fewest workers the rows
hold (one worker, when a sequential replay is among them: the parallel
target compares 4 workers' spend with that). Per side, designer, rule and
workers: the first checkpoint (spend, in full trainings) at which the median over seeds
of regret@spend is at or below the target, and T / that spend (how many
times less than the GP without stopping spent); "never" when the median
does not reach it within the checkpoints. regret_plot.py draws the same
rows as curves. Standard library only.
"""

import argparse
import csv
import math
import statistics


def read_rows(paths):
    rows = []
    for path in paths:
        with open(path) as f:
            rows += list(csv.DictReader(f, delimiter="\t"))
    return rows


def spends(row):
    """The row's checkpoints, ascending: [(spend, column)]."""
    return sorted((float(k[len("regret@"):]), k) for k in row
                  if k.startswith("regret@"))


def value(cell):
    """A regret cell; NaN (no trial ended yet) counts as never reached."""
    v = float(cell)
    return math.inf if math.isnan(v) else v


def median_curve(runs):
    """[(spend, median regret over the runs)] at every checkpoint."""
    return [(s, statistics.median(value(r[k]) for r in runs))
            for s, k in spends(runs[0])]


def first_reaching(curve, target):
    """The first spend whose median regret is at or below `target`."""
    for spend, regret in curve:
        if regret <= target:
            return spend
    return None


def groups_of(rows):
    groups = {}
    for r in rows:
        key = (r["task"], r["side"], r["designer"], r["rule"],
               r.get("workers", "-"))
        groups.setdefault(key, []).append(r)
    return groups


def workers_order(workers):
    return int(workers) if workers.isdigit() else math.inf


def target_runs(groups, task):
    """(workers, runs) of the GP without stopping with the fewest workers,
    the runs the target comes from; (None, None) when there are none."""
    keys = sorted((k for k in groups
                   if k[:4] == (task, "hptune", "gp", "none")),
                  key=lambda k: workers_order(k[4]))
    return (keys[0][4], groups[keys[0]]) if keys else (None, None)


def method_label(method):
    """(side, designer, rule, workers) as a legend's text."""
    side, designer, rule, workers = method
    text = "%s %s %s" % (side, designer, rule)
    return text if workers in ("-", "") else "%s (workers %s)" % (text, workers)


def table(rows, target_spend):
    groups = groups_of(rows)
    out = []
    for task in sorted({k[0] for k in groups}):
        workers, gp = target_runs(groups, task)
        column = "regret@%g" % target_spend
        if not gp or column not in gp[0]:
            out.append("\n**%s**: no hptune gp/none rows with %s\n" %
                       (task, column))
            continue
        target = statistics.median(value(r[column]) for r in gp)
        out.append("\n**%s**: target regret %.4f (GP without stopping, "
                   "workers %s, median of %d seeds after %g full "
                   "trainings)\n" % (task, target, workers, len(gp),
                                      target_spend))
        out.append("| side | designer | rule | workers | seeds | spend to "
                   "target (full trainings) | %g / spend |" % target_spend)
        out.append("|---|---|---|---|---|---|---|")
        for key in sorted(k for k in groups if k[0] == task):
            runs = groups[key]
            spend = first_reaching(median_curve(runs), target)
            cells = [key[1], key[2], key[3], key[4], str(len(runs)),
                     "never" if spend is None else "%g" % spend,
                     "-" if spend is None else "%.2fx" % (target_spend /
                                                          spend)]
            out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--target-spend", type=float, default=50)
    parser.add_argument("rows", nargs="+")
    args = parser.parse_args()
    print(table(read_rows(args.rows), args.target_spend))


if __name__ == "__main__":
    main()
