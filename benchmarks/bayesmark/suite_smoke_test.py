#!/usr/bin/env python3
"""Smoke test of run_suite.py: two cheap tasks, one seed, budgets 2 and 4,
sequential and batches of 2, every method, against a real `hptune serve`
that run_suite.py starts (and stops) in a temporary directory.

Checks the CSV has one finite best-so-far per task, method, mode, seed
and budget (none missing: a method that silently produced nothing
fails), that the mean regret and Bayesmark score tables have a finite
row for every method, that each compared pair's table gives each cell a
ratio and its interval and counts every task by its median, that
--first-seed runs other seeds, that an hptune run on a space smaller
than its budget ends when every point is tried, and that
--make-baselines lowers a stored best known value but never raises it.
Exits 77 (ctest: skipped) when this Python lacks hptune's package, Optuna or
scikit-learn.

    build/tests/python/work/venv/bin/python \\
        benchmarks/bayesmark/suite_smoke_test.py build/src/cli/hptune
"""

import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TASKS = ("linear_iris_nll", "DT_breast_acc")
METHODS = ("hptune_gp", "hptune_random", "optuna_tpe", "optuna_tpe_mv",
           "optuna_cmaes", "optuna_random", "optuna_hptune_gp")
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
                timeout=60, cwd=tmp)
        except subprocess.TimeoutExpired as e:
            fail("run_suite.py ran over 60 s", e.output or "")
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

    cell = r" \d+\.\d{3}"
    for title in ("Mean normalised regret over tasks",
                  "Bayesmark's mean score"):
        table = run.stdout.split(title, 1)
        if len(table) != 2:
            fail(f"no table \"{title}\"", run.stdout)
        table = table[1].split("\n\n", 1)[0]
        for m in METHODS:
            if not re.search(rf"^\| {m} \|" + rf"{cell} \|" * 4 + "$",
                             table, re.M):
                fail(f"\"{title}\": no finite row for {m}", run.stdout)
    check_ratio_table(run.stdout)
    for t in TASKS:
        if not re.search(rf"^{t}: mean best loss over seeds", run.stdout,
                         re.M):
            fail(f"no table for {t}", run.stdout)
    check_make_baselines()
    check_first_seed(sys.argv[1], rows)
    check_exhausted_space(sys.argv[1])
    print(f"run_suite.py: {len(rows)} rows and the tables as expected")


def check_ratio_table(output: str) -> None:
    """The tables of each compared pair (hptune_gp / optuna_tpe,
    optuna_hptune_gp / optuna_tpe and / hptune_gp): a ratio and its
    bootstrap interval per cell, for both measures, with this test's one
    seed the ratio itself; and per cell the tasks whose median regret is
    below, equal to and above the other's, which add up to the tasks.
    ratio_interval on arrays whose ratio is known: exact when every seed
    gives a half, and an interval strictly around it when the seeds
    disagree; _median_counts on tasks whose medians are known."""
    import numpy as np
    from run_suite import COMPARED, _median_counts, ratio_interval
    counts = _median_counts(np.array([[1, 1, 9], [5, 5, 5], [3, 3, 0]]),
                            np.array([[2, 2, 2], [0, 5, 9], [1, 1, 1]]))
    if counts != "1 / 1 / 1":
        fail(f"_median_counts of one task each way: {counts}")
    half = ratio_interval(np.full((3, 5), 0.2), np.full((3, 5), 0.4))
    if any(abs(x - 0.5) > 1e-12 for x in half):
        fail(f"ratio_interval of halves: {half}")
    ours = np.array([[0.1, 0.3, 0.2, 0.2], [0.5, 0.1, 0.4, 0.2]])
    ratio, low, high = ratio_interval(ours, np.full((2, 4), 0.5))
    if not (abs(ratio - 0.5) < 1e-12 and low < ratio < high):
        fail(f"ratio_interval of spread seeds: {(ratio, low, high)}")
    for ours, theirs in COMPARED:
        check_pair_table(output, f"{ours} / {theirs}")


def check_pair_table(output: str, pair: str) -> None:
    title = f"{pair}, over the tasks and seeds both ran"
    table = output.split(title, 1)
    if len(table) != 2:
        fail(f"no table \"{title}\"", output)
    table = table[1].split("\n\n", 1)[0]
    cell = r" (\d+\.\d{3}) \[(\d+\.\d{3}), (\d+\.\d{3})\] \|"
    for measure in ("Bayesmark score", "mean regret"):
        row = re.search(rf"^\| {measure} \|((?:{cell}){{4}})$", table, re.M)
        if not row:
            fail(f"\"{title}\": no row of 4 intervals for {measure}", output)
        for ratio, low, high in re.findall(cell, row.group(1)):
            if not low == ratio == high:
                fail(f"{pair}, {measure}: one seed, yet [{low}, {high}] "
                     f"around {ratio}", output)
    count = r" (\d+) / (\d+) / (\d+) \|"
    row = re.search(rf"^\| tasks whose median regret is below / equal / "
                    rf"above \|((?:{count}){{4}})$", table, re.M)
    if not row:
        fail(f"\"{title}\": no row of 4 median counts", output)
    for cells in re.findall(count, row.group(1)):
        if sum(map(int, cells)) != len(TASKS):
            fail(f"{pair}: median counts {cells} of {len(TASKS)} tasks",
                 output)


def check_first_seed(binary: str, first_rows) -> None:
    """--first-seed 2 runs seed 2 alone, and a method's seed-2 run differs
    from its seed-1 run above: the flag reaches the samplers, not only the
    CSV's seed column."""
    with tempfile.TemporaryDirectory(prefix="bayesmark_seed_") as tmp:
        out_csv = os.path.join(tmp, "seed2.csv")
        run = subprocess.run(
            [sys.executable, os.path.join(HERE, "run_suite.py"),
             "--hptune", os.path.abspath(binary), "--tasks",
             "linear_iris_nll", "--methods", "optuna_random",
             "--first-seed", "2", "--seeds",
             "1", "--budgets", str(BUDGETS[1]), "--modes", "sequential",
             "--csv", out_csv],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            timeout=60, cwd=tmp)
        if run.returncode != 0:
            fail(f"--first-seed 2 exited {run.returncode}", run.stdout)
        with open(out_csv, newline="") as f:
            rows = list(csv.DictReader(f))
    seed1 = [r["best"] for r in first_rows if r["task"] == "linear_iris_nll"
             and r["method"] == "optuna_random" and r["mode"] == "sequential"
             and int(r["budget"]) == BUDGETS[1]]
    if (len(seed1) != 1 or [r["seed"] for r in rows] != ["2"]
            or [r["best"] for r in rows] == seed1):
        fail(f"--first-seed 2: rows {rows}, seed 1's best {seed1}",
             run.stdout)


def check_exhausted_space(binary: str) -> None:
    """kNN_wine_acc has 100 points (25 x 4 integers): a 101-trial hptune
    run stops when the server says every point was tried, not with an
    error, and its best is the best of the space's 100 values."""
    with tempfile.TemporaryDirectory(prefix="bayesmark_finite_") as tmp:
        out_csv = os.path.join(tmp, "finite.csv")
        run = subprocess.run(
            [sys.executable, os.path.join(HERE, "run_suite.py"),
             "--hptune", os.path.abspath(binary), "--tasks", "kNN_wine_acc",
             "--methods", "hptune_random", "--seeds", "1", "--budgets", "101",
             "--modes", "sequential", "--csv", out_csv],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            timeout=120, cwd=tmp)
        if run.returncode != 0:
            fail(f"a run past the space's 100 points exited "
                 f"{run.returncode}", run.stdout)
        with open(out_csv, newline="") as f:
            rows = list(csv.DictReader(f))
    import tasks
    task = tasks.Task("kNN_wine_acc")
    best = min(task.objective({"n_neighbors": k, "p": p})
               for k in range(1, 26) for p in range(1, 5))
    if len(rows) != 1 or float(rows[0]["best"]) != best:
        fail(f"best of the exhausted space: {rows}, expected {best}",
             run.stdout)


def check_make_baselines() -> None:
    """--make-baselines --keep-random on a copy of baselines.json: a CSV
    best below a task's stored best_known replaces it, with --made-by
    before the command; one above it leaves the stored value and command."""
    with open(os.path.join(HERE, "baselines.json")) as f:
        stored = json.load(f)["tasks"]
    lower, higher = TASKS
    with tempfile.TemporaryDirectory(prefix="bayesmark_baselines_") as tmp:
        path = os.path.join(tmp, "baselines.json")
        shutil.copy(os.path.join(HERE, "baselines.json"), path)
        found = os.path.join(tmp, "found.csv")
        with open(found, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["task", "method", "mode", "seed", "budget", "best",
                        "run_seconds"])
            w.writerow([lower, "hptune_gp", "sequential", 1, 4,
                        stored[lower]["best_known"] - 1, 0])
            w.writerow([higher, "hptune_gp", "sequential", 1, 4,
                        stored[higher]["best_known"] + 1, 0])
        run = subprocess.run(
            [sys.executable, os.path.join(HERE, "run_suite.py"),
             "--make-baselines", "--keep-random", "--baselines", path,
             "--tasks", ",".join(TASKS), "--from-csv", found,
             "--made-by", "the run that wrote found.csv"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            timeout=40)
        if run.returncode != 0:
            fail(f"--make-baselines exited {run.returncode}", run.stdout)
        with open(path) as f:
            made = json.load(f)["tasks"]
    if made[lower]["best_known"] != stored[lower]["best_known"] - 1 or \
            not made[lower]["best_known_command"].startswith(
                "the run that wrote found.csv; "):
        fail(f"{lower}: a lower best did not replace the stored one: "
             f"{made[lower]['best_known']}, "
             f"{made[lower]['best_known_command']!r}")
    if made[higher]["best_known"] != stored[higher]["best_known"] or \
            made[higher]["best_known_command"] != \
            stored[higher]["best_known_command"]:
        fail(f"{higher}: a higher best replaced the stored one: "
             f"{made[higher]['best_known']}")


if __name__ == "__main__":
    main()
