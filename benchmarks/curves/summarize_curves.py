#!/usr/bin/python3
"""The learning-curve benchmark's table from curve_replay's and
optuna_curves.py's rows (tab-separated, one header line per file).

  summarize_curves.py [--data DIR] hptune.tsv optuna.tsv

One markdown table per task, a row per side/designer/rule over its seeds:
the median trials and stopped trials of a run, the steps of all seeds
together and the share saved against the same side and designer without
stopping ("rule none"), the median and worst final regret, the median and
worst change of the best final value against the same seed without stopping
(in percent; the value is the regret plus the lowest value of the
configurations the rows' "configs" column says the run was offered, read
from DIR/<task>.csv.gz), and the median regret at each checkpoint
(regret@B: the best result of the trials ended when B full trainings'
worth of steps had been spent). Standard library only.
"""

import argparse
import csv
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from curve_files import DATA_DIR, read_curves  # noqa: E402


def read_rows(paths):
    rows = []
    for path in paths:
        with open(path) as f:
            rows += [r for r in csv.DictReader(f, delimiter="\t")]
    return rows


def lowest_value(data, task, configs):
    """The regret's reference: the lowest metric of the configurations
    offered (the table's first `configs`; 0: all)."""
    return min(min(c) for c in read_curves(data, task, configs))


def changes(runs, base, reference):
    """Per seed, the change of the best final value against `base`, in %."""
    before = {r["seed"]: float(r["final_regret"]) + reference for r in base}
    return [100.0 * (float(r["final_regret"]) + reference - before[r["seed"]])
            / abs(before[r["seed"]]) for r in runs if r["seed"] in before]


def fmt(x):
    return "%.4f" % x if x == x else "-"


def summarize(rows, data):
    checkpoints = [k for k in rows[0] if k.startswith("regret@")]
    groups = {}
    for r in rows:
        # Rows without a "configs" column were offered the whole table.
        task = (r["task"], int(r.get("configs") or 0))
        key = (task, r["side"], r["designer"], r["rule"])
        groups.setdefault(key, []).append(r)
    out = []
    for task in sorted({k[0] for k in groups}):
        reference = lowest_value(data, *task)
        out.append("\n**%s**%s\n" % (task[0], " (%d configurations)" % task[1]
                                      if task[1] else ""))
        head = ["side", "designer", "rule", "seeds", "trials", "stopped",
                "steps", "saved", "final regret", "worst", "best change",
                "worst change"]
        head += ["%s" % c for c in checkpoints]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for key in sorted(k for k in groups if k[0] == task):
            runs = groups[key]
            steps = sum(int(r["steps"]) for r in runs)
            base = groups.get((task, key[1], key[2], "none"))
            saved, change, worst_change = "-", "-", "-"
            if base and key[3] != "none":
                b = sum(int(r["steps"]) for r in base)
                saved = "%.1f%%" % (100.0 * (b - steps) / b)
                c = changes(runs, base, reference)
                change = "%+.2f%%" % statistics.median(c)
                worst_change = "%+.2f%%" % max(c)
            final = [float(r["final_regret"]) for r in runs]
            cells = [key[1], key[2], key[3], str(len(runs)),
                     "%g" % statistics.median(int(r["trials"]) for r in runs),
                     "%g" % statistics.median(int(r["stopped"])
                                              for r in runs),
                     str(steps), saved, fmt(statistics.median(final)),
                     fmt(max(final)), change, worst_change]
            cells += [fmt(statistics.median(float(r[c]) for r in runs))
                      for c in checkpoints]
            out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=DATA_DIR)
    parser.add_argument("rows", nargs="+")
    args = parser.parse_args()
    print(summarize(read_rows(args.rows), args.data))


if __name__ == "__main__":
    main()
