#!/usr/bin/env python3
"""Paired comparisons of per-seed regrets from `quality_harness --format=runs`.

Medians over 20 or 40 seeds move a lot by chance when a function's runs split
between basins, so changes to a designer are judged seed by seed: every run is
deterministic for its seed, and the same seed starts from the same
space-filling points in both builds and in both worker modes.

Two reports, each one line per cell:
  paired_compare.py BEFORE.csv AFTER.csv
      per (designer, function, mode, budget) found in both files: the median
      regret before and after, and the mean over seeds of
      log10(after / before) with its standard error (negative: after is
      better).
  paired_compare.py --modes RUNS.csv
      per (designer, function, budget) and each mode other than sequential:
      the median regret sequential and in that mode, the ratio of the medians
      (the issue's "within 1.5x of sequential" is a ratio of at most 1.5),
      and the mean of log10(mode / sequential) per seed with its standard
      error.
Regrets are floored at 1e-12 before logs (an exact optimum has regret 0).
Standard library only.
"""

import csv
import math
import statistics
import sys

COLUMNS = ["library", "designer", "function", "mode", "budget", "seed",
           "regret"]
FLOOR = 1e-12


def read_runs(path):
    """{(designer, function, mode, budget): {seed: regret}}, in file order."""
    runs = {}
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != COLUMNS:
            raise ValueError(f"{path}: expected columns {','.join(COLUMNS)} "
                             "(quality_harness --format=runs), got "
                             f"{','.join(reader.fieldnames or [])}")
        for line, row in enumerate(reader, start=2):
            try:
                regret = float(row["regret"])
                seed = int(row["seed"])
                budget = int(row["budget"])
            except ValueError as e:
                raise ValueError(f"{path}:{line}: {e}") from None
            key = (row["designer"], row["function"], row["mode"], budget)
            runs.setdefault(key, {})[seed] = regret
    return runs


def paired(before, after):
    """Median of each, and mean +- standard error of log10(after / before)
    over the seeds both have (standard error 0 with one seed)."""
    seeds = sorted(set(before) & set(after))
    if not seeds:
        return None
    changes = [math.log10(max(after[s], FLOOR) / max(before[s], FLOOR))
               for s in seeds]
    error = (statistics.stdev(changes) / math.sqrt(len(changes))
             if len(changes) > 1 else 0.0)
    return {"seeds": len(seeds),
            "before": statistics.median(before[s] for s in seeds),
            "after": statistics.median(after[s] for s in seeds),
            "change": statistics.fmean(changes),
            "error": error}


def align(lines):
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    out = []
    for line in lines:
        cells = [c.ljust(w) if i < 4 else c.rjust(w)
                 for i, (c, w) in enumerate(zip(line, widths))]
        out.append("  ".join(cells).rstrip())
    return "\n".join(out) + "\n"


def compare_builds(before_path, after_path):
    before, after = read_runs(before_path), read_runs(after_path)
    lines = [["designer", "function", "mode", "budget", "seeds", "before",
              "after", "log10 change"]]
    for key, runs in before.items():
        if key not in after:
            continue
        p = paired(runs, after[key])
        if p is None:
            continue
        lines.append([key[0], key[1], key[2], str(key[3]), str(p["seeds"]),
                      f"{p['before']:.3g}", f"{p['after']:.3g}",
                      f"{p['change']:+.2f} +- {p['error']:.2f}"])
    if len(lines) == 1:
        raise ValueError(f"{before_path} and {after_path} have no cell in "
                         "common")
    return align(lines)


def compare_modes(path):
    runs = read_runs(path)
    lines = [["designer", "function", "mode", "budget", "seeds", "sequential",
              "mode", "ratio", "log10 mode/seq"]]
    for (designer, function, mode, budget), parallel in runs.items():
        sequential = runs.get((designer, function, "sequential", budget))
        if mode == "sequential" or sequential is None:
            continue
        p = paired(sequential, parallel)
        if p is None:
            continue
        ratio = (p["after"] / p["before"] if p["before"] > 0 else math.inf)
        lines.append([designer, function, mode, str(budget), str(p["seeds"]),
                      f"{p['before']:.3g}", f"{p['after']:.3g}",
                      f"{ratio:.2f}x",
                      f"{p['change']:+.2f} +- {p['error']:.2f}"])
    if len(lines) == 1:
        raise ValueError(f"{path} has no cell run both sequentially and in "
                         "another mode")
    return align(lines)


def main(argv):
    try:
        if len(argv) == 3 and argv[1] == "--modes":
            sys.stdout.write(compare_modes(argv[2]))
        elif len(argv) == 3 and not argv[1].startswith("--"):
            sys.stdout.write(compare_builds(argv[1], argv[2]))
        else:
            sys.stderr.write(__doc__)
            return 2
    except (OSError, ValueError) as e:
        sys.stderr.write(f"paired_compare.py: {e}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
