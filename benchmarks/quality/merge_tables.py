#!/usr/bin/env python3
"""Merges regret CSVs from quality_harness and optuna_compare.py into one table.

Called by benchmarks/quality_compare.sh. Input: files with the columns
  library,designer,function,mode,budget,seeds,median_regret,min_regret,max_regret
Output: one line per (function, budget, mode), in the order they first appear;
one column per "library designer" (e.g. "hptune gp", "optuna tpe"), each cell
"median [min, max]" of the simple regret over seeds; and a ratio column, the
first hptune designer's median over Optuna TPE's (gp/tpe with the default
designers; below 1 means hptune found better points), and one more per other
Optuna TPE setting in the input (e.g. gp/tpe_group for optuna_conditional.py's
multivariate, grouped TPE). Standard library only.

Usage: merge_tables.py CSV [CSV ...]
"""

import csv
import sys

COLUMNS = ["library", "designer", "function", "mode", "budget", "seeds",
           "median_regret", "min_regret", "max_regret"]


def read_rows(paths):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            if reader.fieldnames != COLUMNS:
                raise ValueError(f"{path}: expected columns {','.join(COLUMNS)}, "
                                 f"got {','.join(reader.fieldnames or [])}")
            rows.extend(reader)
    return rows


def cell(row):
    return "{:.3g} [{:.3g}, {:.3g}]".format(float(row["median_regret"]),
                                           float(row["min_regret"]),
                                           float(row["max_regret"]))


def ratio(numerator, denominator):
    if numerator is None or denominator is None:
        return "-"
    a, b = float(numerator["median_regret"]), float(denominator["median_regret"])
    if b == 0:
        return "0/0" if a == 0 else "inf"
    return "{:.3g}".format(a / b)


def merge(rows):
    keys, designers, cells, seeds = [], [], {}, set()
    for r in rows:
        key = (r["function"], int(r["budget"]), r["mode"])
        designer = f"{r['library']} {r['designer']}"
        if key not in keys:
            keys.append(key)
        if designer not in designers:
            designers.append(designer)
        cells[(key, designer)] = r
        seeds.add(r["seeds"])
    hptune = [d for d in designers if d.startswith("hptune ")]
    ours = hptune[0] if hptune else None
    # Optuna TPE's default first, then its other settings ("optuna tpe_...").
    theirs = [d for d in designers if d == "optuna tpe"]
    theirs += [d for d in designers if d.startswith("optuna tpe_")]
    if not ours:
        theirs = []
    ratio_titles = [f"{ours.split(' ', 1)[1]}/{t.split(' ', 1)[1]}"
                    for t in theirs]

    header = ["function", "budget", "mode"] + designers + ratio_titles
    lines = [header]
    for key in keys:
        line = [key[0], str(key[1]), key[2]]
        line += [cell(cells[(key, d)]) if (key, d) in cells else "-"
                 for d in designers]
        line += [ratio(cells.get((key, ours)), cells.get((key, t)))
                 for t in theirs]
        lines.append(line)
    return lines, sorted(seeds)


def align(lines, text_columns=3):
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    out = []
    for line in lines:
        parts = [v.ljust(w) if i < text_columns else v.rjust(w)
                 for i, (v, w) in enumerate(zip(line, widths))]
        out.append("  ".join(parts).rstrip())
    return "\n".join(out) + "\n"


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 0 if argv else 2
    try:
        rows = read_rows(argv)
    except (OSError, ValueError) as e:
        print(f"merge_tables: {e}", file=sys.stderr)
        return 1
    if not rows:
        print("merge_tables: no rows in " + ", ".join(argv), file=sys.stderr)
        return 1
    lines, seeds = merge(rows)
    print(f"Simple regret (best found - optimum; with noise, f at the trial "
          f"reported best), median [min, max] over {'/'.join(seeds)} seeds")
    sys.stdout.write(align(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
