#!/usr/bin/env python3
"""Smoke test of run_suite.py: two cheap tasks, one seed, budgets 2 and 4,
sequential and batches of 2, every method, against a real `hptune serve`
that run_suite.py starts (and stops) in a temporary directory.

Checks the CSV has one finite best-so-far per task, method, mode, seed and
budget (none missing: a method that silently produced nothing fails), that
best-so-far never rises with the budget for a method that reads its budgets
from one run, and that the printed tables have
a finite mean regret for every method. Exits 77 (ctest: skipped) when this
Python lacks hptune's package, Optuna or scikit-learn.

    build/tests/python/work/venv/bin/python \\
        benchmarks/bayesmark/suite_smoke_test.py build/src/cli/hptune
"""

import csv
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TASKS = ("linear_iris_nll", "DT_breast_acc")
METHODS = ("hptune_gp", "hptune_random", "optuna_tpe", "optuna_tpe_mv",
           "optuna_cmaes", "optuna_random")
MODES = ("sequential", "batch2")
BUDGETS = (2, 4)


def fail(message: str, output: str = "") -> None:
    print(f"FAIL: {message}\n{output}")
    sys.exit(1)


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: suite_smoke_test.py HPTUNE_BINARY")
    try:
        import hptune.client  # noqa: F401 (importing is the check)
        import optuna  # noqa: F401
        import sklearn  # noqa: F401
    except ImportError as e:
        print(f"skipped: {sys.executable} lacks {e.name}")
        sys.exit(77)
    sys.path.insert(0, HERE)
    from run_suite import PLANS_BY_BUDGET   # a study per budget
    with tempfile.TemporaryDirectory(prefix="bayesmark_smoke_") as tmp:
        out_csv = os.path.join(tmp, "suite.csv")
        try:
            run = subprocess.run(
                [sys.executable, os.path.join(HERE, "run_suite.py"),
                 "--hptune", os.path.abspath(sys.argv[1]),
                 "--tasks", ",".join(TASKS),
                 "--seeds", "1", "--budgets", ",".join(map(str, BUDGETS)),
                 "--modes", ",".join(MODES), "--csv", out_csv],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                timeout=100, cwd=tmp)
        except subprocess.TimeoutExpired as e:
            fail("run_suite.py ran over 100 s", e.output or "")
        if run.returncode != 0:
            fail(f"run_suite.py exited {run.returncode}", run.stdout)
        with open(out_csv, newline="") as f:
            rows = list(csv.DictReader(f))

    best = {}
    for r in rows:
        key = (r["task"], r["method"], r["mode"], r["seed"], int(r["budget"]))
        if key in best:
            fail(f"row {key} twice", run.stdout)
        best[key] = float(r["best"])
        if not math.isfinite(best[key]):
            fail(f"row {key}: best {r['best']}", run.stdout)
    expected = {(t, m, mode, "1", b) for t in TASKS for m in METHODS
                for mode in MODES for b in BUDGETS}
    if set(best) != expected:
        fail(f"missing rows {sorted(expected - set(best))}, extra rows "
             f"{sorted(set(best) - expected)}", run.stdout)
    for (t, m, mode, seed, b), value in best.items():
        if m in PLANS_BY_BUDGET:
            continue
        if b == BUDGETS[1] and value > best[t, m, mode, seed, BUDGETS[0]]:
            fail(f"{t} {m} {mode}: best-so-far rose with the budget",
                 run.stdout)

    overall = run.stdout.split("Mean normalised regret over tasks", 1)
    if len(overall) != 2:
        fail("no mean normalised regret table", run.stdout)
    cell = r" \d+\.\d{3}"
    for m in METHODS:
        if not re.search(rf"^\| {m} \|" + rf"{cell} \|" * 4 + "$",
                         overall[1], re.M):
            fail(f"no finite mean regret row for {m}", run.stdout)
    for t in TASKS:
        if not re.search(rf"^{t}: mean best loss over seeds", run.stdout,
                         re.M):
            fail(f"no table for {t}", run.stdout)
    print(f"run_suite.py: {len(rows)} rows and the tables as expected")


if __name__ == "__main__":
    main()
