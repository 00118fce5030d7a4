#!/usr/bin/python3
"""The learning-curve benchmark's table from curve_replay's and
optuna_curves.py's rows (tab-separated, one header line per file).

  summarize_curves.py hptune.tsv optuna.tsv

One markdown table per task, a row per side/designer/rule over its seeds:
the median trials and stopped trials of a run, the steps of all seeds
together and the share saved against the same side and designer without
stopping ("rule none"), the median and worst final regret, and the median
regret at each checkpoint (regret@B: the best result of the trials ended
when B full trainings' worth of steps had been spent). Standard library
only.
"""

import csv
import statistics
import sys


def read_rows(paths):
    rows = []
    for path in paths:
        with open(path) as f:
            rows += [r for r in csv.DictReader(f, delimiter="\t")]
    return rows


def fmt(x):
    return "%.4f" % x if x == x else "-"


def summarize(rows):
    checkpoints = [k for k in rows[0] if k.startswith("regret@")]
    groups = {}
    for r in rows:
        key = (r["task"], r["side"], r["designer"], r["rule"])
        groups.setdefault(key, []).append(r)
    out = []
    for task in sorted({k[0] for k in groups}):
        out.append("\n**%s**\n" % task)
        head = ["side", "designer", "rule", "seeds", "trials", "stopped",
                "steps", "saved", "final regret", "worst"]
        head += ["%s" % c for c in checkpoints]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for key in sorted(k for k in groups if k[0] == task):
            runs = groups[key]
            steps = sum(int(r["steps"]) for r in runs)
            base = groups.get((task, key[1], key[2], "none"))
            saved = "-"
            if base and key[3] != "none":
                b = sum(int(r["steps"]) for r in base)
                saved = "%.1f%%" % (100.0 * (b - steps) / b)
            final = [float(r["final_regret"]) for r in runs]
            cells = [key[1], key[2], key[3], str(len(runs)),
                     "%g" % statistics.median(int(r["trials"]) for r in runs),
                     "%g" % statistics.median(int(r["stopped"])
                                              for r in runs),
                     str(steps), saved, fmt(statistics.median(final)),
                     fmt(max(final))]
            cells += [fmt(statistics.median(float(r[c]) for r in runs))
                      for c in checkpoints]
            out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: summarize_curves.py ROWS.tsv...")
    print(summarize(read_rows(sys.argv[1:])))


if __name__ == "__main__":
    main()
