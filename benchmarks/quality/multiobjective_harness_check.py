#!/usr/bin/env python3
"""multiobjective_harness end to end on a tiny run: it exits 0 and prints a
row for every problem, designer and worker count, each with a regret that
is a finite number at least 0. Usage: multiobjective_harness_check.py
HARNESS."""
import math
import subprocess
import sys

PROBLEMS = {"branin_currin", "constrained_branin", "dtlz2", "zdt1", "zdt2"}
DESIGNERS = {"gp", "random"}
WORKERS = {"1", "2"}


def main():
    harness = sys.argv[1]
    run = subprocess.run(
        [harness, "--seeds=1", "--budgets=10", "--workers=1,2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        timeout=110)
    if run.returncode != 0:
        sys.exit(f"harness exited {run.returncode}: {run.stderr}")
    lines = run.stdout.splitlines()
    header = lines[0].split("\t")
    column = {name: i for i, name in enumerate(header)}
    seen = set()
    for line in lines[1:]:
        row = line.split("\t")
        key = (row[column["problem"]], row[column["designer"]],
               row[column["workers"]])
        regret = float(row[column["hv_regret"]])
        if not math.isfinite(regret) or regret < 0:
            sys.exit(f"{key}: hv_regret {regret} is not a finite number >= 0")
        seen.add(key)
    expected = {(p, d, w) for p in PROBLEMS for d in DESIGNERS for w in WORKERS}
    if seen != expected:
        sys.exit(f"rows missing: {sorted(expected - seen)}; "
                 f"unexpected: {sorted(seen - expected)}")
    print(f"{len(seen)} rows, every regret finite and at least 0")


if __name__ == "__main__":
    main()
