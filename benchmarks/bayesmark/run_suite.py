#!/usr/bin/env python3
"""The Bayesmark-style suite: hptune's designers beside Optuna 3.1 on
scikit-learn tuning tasks (tasks.py), scored by normalised regret.

For each task, seed and mode (sequential, or batchN: N trials asked, then
evaluated and told, per round), each method runs a study of max(--budgets)
trials (hptune's GP one per budget, see below): hptune's default designer
(GP) and RANDOM_SEARCH through `hptune serve` and the Python client's
ask/tell (Study.suggest(count=N)), Optuna's TPE, multivariate TPE, CMA-ES
(all-numeric spaces only) and random search by ask/tell, and
optuna_hptune_gp: hptune's GP as Optuna's sampler (hptune.optuna.GPSampler
on the same server), run like Optuna's. Runs are spread over --jobs
processes. Prints a table per task and the mean normalised regret per
method, budget and mode:

    regret = (best found - best known) / (random's expected best - best known)

0 is the best known value, 1 random search's expected best at that budget.
On a plateau task that expected best can lie within 1e-5 of the best known
value, and one run there sways the mean; so the tables end with Bayesmark's
own mean score too (bayesmark_score: a span fixed per task, random = 1),
and, for each pair in COMPARED that ran (hptune's GP and its Optuna sampler
against TPE, the sampler against the native GP), the ratio of their means by
each measure with a 90% bootstrap interval over seeds, and on how many tasks
the one's median regret over seeds is below, equal to or above the other's
(compare_pair): at 10 seeds a ratio moves by about 0.1 with the seeds
drawn, which a target of 0.7x should be read with.
The best known value and random's expected best come from baselines.json
(--make-baselines); a run that beats the stored best known value lowers it
for the run's tables (and says so).

Run from the source tree with a Python that has hptune's package, Optuna
and scikit-learn (the venv of python/tests, or one per docs/python.md):

    PY=build/tests/python/work/venv/bin/python
    $PY benchmarks/bayesmark/run_suite.py --csv /tmp/suite.csv   # everything
    $PY benchmarks/bayesmark/run_suite.py --tasks DT_breast_acc \\
        --seeds 2 --budgets 8 --modes sequential,batch4
    $PY benchmarks/bayesmark/run_suite.py --make-baselines \\
        --random-trials 256 [--from-csv /tmp/suite.csv]
    $PY benchmarks/bayesmark/run_suite.py --make-baselines --keep-random \\
        --from-csv /tmp/suite.csv      # only lower best_known
    $PY benchmarks/bayesmark/run_suite.py --modes sequential,batch8 \\
        --report-csv /tmp/seq.csv --report-csv /tmp/b8.csv   # tables only
    $PY benchmarks/bayesmark/run_suite.py --first-seed 11 --seeds 10 \\
        --csv /tmp/more.csv     # then --report-csv both: 20 seeds

hptune: --hptune BINARY starts a server on a free loopback port in a
temporary directory (default: build/src/cli/hptune); --server HOST:PORT
uses a running one (token by the client's usual rules, or --token-file).
hptune's GP plans by maxTrials (fewer quasi-random seeds for a small
budget), so it runs each budget as a study of its own; every other method
reads a smaller budget from the prefix of its run at the largest one.
"""

import argparse
import csv
import json
import math
import multiprocessing
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
import zlib
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, os.pardir, os.pardir))
sys.path.insert(0, HERE)

import tasks  # noqa: E402

METHODS = ("hptune_gp", "hptune_random", "optuna_tpe", "optuna_tpe_mv",
           "optuna_cmaes", "optuna_random", "optuna_hptune_gp")
BASELINES = os.path.join(HERE, "baselines.json")
# Budgets whose random expected best baselines.json lists for reading; any
# other budget is computed from the stored random values.
LISTED_BUDGETS = (4, 8, 16, 32, 64)
# Methods told the budget (maxTrials) that act on it: one run per budget.
PLANS_BY_BUDGET = ("hptune_gp",)
# The pairs whose ratio and per-task medians the tables end with.
COMPARED = (("hptune_gp", "optuna_tpe"), ("optuna_hptune_gp", "optuna_tpe"),
            ("optuna_hptune_gp", "hptune_gp"))


def batch_size(mode: str) -> int:
    if mode == "sequential":
        return 1
    match = re.fullmatch(r"batch([1-9][0-9]*)", mode)
    if not match:
        raise ValueError(f"mode {mode!r}: sequential or batchN")
    return int(match.group(1))


def applies(method: str, task: tasks.Task) -> bool:
    return method != "optuna_cmaes" or task.numeric


# ---- one run (in a worker process) ------------------------------------------

_clients: Dict[Tuple[str, Optional[str]], object] = {}


def _client(server: str, token_file: Optional[str]):
    """One Client per worker process and server (channels do not survive
    fork, and workers are spawned)."""
    import hptune
    key = (server, token_file)
    if key not in _clients:
        _clients[key] = hptune.Client(server, token_file=token_file)
    return _clients[key]


def _run_hptune(task, method, batch, seed, trials, server, token_file):
    spec = {"goal": "MINIMIZE", "hyperparameterMetricTag": "loss",
            "maxTrials": trials, "maxParallelTrials": batch, "seed": seed,
            "params": task.hptune_params()}
    if method == "hptune_random":
        spec["algorithm"] = "RANDOM_SEARCH"
    name = re.sub(r"[^a-z0-9]+", "_",
                  f"bm {os.getpid()} {time.time_ns()} {task.name} {method} "
                  f"b{batch} s{seed}".lower())
    study = _client(server, token_file).create_study(name, spec)
    values: List[float] = []
    while len(values) < trials:
        suggested = study.suggest(count=min(batch, trials - len(values)),
                                  client_id="bayesmark")
        if not suggested:
            if suggested.study_completed and values:
                break   # a finite space smaller than the budget, all tried
            raise RuntimeError(f"{name}: no trial suggested after "
                               f"{len(values)} ({suggested.note!r})")
        for trial in suggested:   # all of the batch asked before any told
            value = task.objective(trial.parameters)
            trial.complete({"loss": value})
            values.append(value)
    study.delete()
    return values


def _sampler(method: str, seed: int, server: str, token_file):
    import optuna
    if method == "optuna_hptune_gp":   # hptune's GP inside Optuna
        import hptune.optuna
        return hptune.optuna.GPSampler(seed=seed,
                                       client=_client(server, token_file))
    if method == "optuna_tpe":
        return optuna.samplers.TPESampler(seed=seed)
    if method == "optuna_tpe_mv":
        return optuna.samplers.TPESampler(seed=seed, multivariate=True)
    if method == "optuna_cmaes":
        return optuna.samplers.CmaEsSampler(seed=seed)
    return optuna.samplers.RandomSampler(seed=seed)


def _run_optuna(task, method, batch, seed, trials, server, token_file):
    import optuna
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
    study = optuna.create_study(
        direction="minimize",
        sampler=_sampler(method, seed, server, token_file))
    values: List[float] = []
    while len(values) < trials:
        asked = [study.ask() for _ in range(min(batch, trials - len(values)))]
        points = [task.suggest(trial) for trial in asked]
        for trial, params in zip(asked, points):
            value = task.objective(params)
            study.tell(trial, value)
            values.append(value)
    return values


def run_one(job) -> Tuple[tuple, List[float], float]:
    """(task, method, mode, seed, trials, server, token_file) -> (task,
    method, mode, seed, trials), the values in evaluation order, and wall
    seconds."""
    name, method, mode, seed, trials, server, token_file = job
    task = tasks.Task(name)
    start = time.perf_counter()
    if method.startswith("hptune_"):
        values = _run_hptune(task, method, batch_size(mode), seed, trials,
                             server, token_file)
    else:
        values = _run_optuna(task, method, batch_size(mode), seed, trials,
                             server, token_file)
    # Only hptune stops short: when it has tried every point of the space.
    short = len(values) < trials and not method.startswith("hptune_")
    if (short or not values or len(values) > trials
            or not all(map(math.isfinite, values))):
        raise RuntimeError(f"{job[:4]}: {len(values)} values of {trials}, "
                           f"not all finite")
    return job[:5], values, time.perf_counter() - start


def random_values(job) -> Tuple[str, List[float]]:
    """(task, trials) -> random search's values, from a seed of the name."""
    name, trials = job
    task = tasks.Task(name)
    rng = np.random.default_rng([zlib.crc32(name.encode()), 20261126])
    return name, [task.objective(task.sample(rng)) for _ in range(trials)]


# ---- the server -------------------------------------------------------------

class Server:
    """`hptune serve` on a free loopback port in a temporary directory,
    with --inline-refits: the GP's trials depend on the seed and the history
    alone, not on when a refit ends, so a run gives the same figures on a
    loaded machine and a quiet one."""

    def __init__(self, binary: str, directory: str) -> None:
        self.log = os.path.join(directory, "serve.log")
        config_dir = os.path.join(directory, "config")
        self.token_file = os.path.join(config_dir, "token")
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [os.path.abspath(binary), "serve", "--listen", "127.0.0.1:0",
                 "--http", "127.0.0.1:0",
                 "--db", os.path.join(directory, "hptune.db"),
                 "--state-dir", os.path.join(directory, "runs"),
                 "--inline-refits"],
                stdout=log, stderr=subprocess.STDOUT, cwd=directory,
                env=dict(os.environ, HPTUNE_CONFIG_DIR=config_dir))
        deadline = time.monotonic() + 60
        while True:   # poll for the line that gives the port
            match = re.search(r"listening on port (\d+)", self._read())
            if match:
                self.address = f"127.0.0.1:{match.group(1)}"
                return
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"hptune serve did not start:\n"
                                   f"{self._read()}")
            time.sleep(0.02)

    def _read(self) -> str:
        with open(self.log, encoding="utf-8", errors="replace") as f:
            return f.read()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


# ---- scores and tables ------------------------------------------------------

def expected_best(values: Sequence[float], budget: int) -> float:
    """E[min of `budget` independent draws from `values`] (exact)."""
    v = np.sort(np.asarray(values, dtype=float))
    m = len(v)
    at_least = ((m - np.arange(m + 1)) / m) ** budget   # P(min >= v[i])
    return float(np.dot(v, at_least[:-1] - at_least[1:]))


def regret(best: float, known: float, random_best: float) -> float:
    """Normalised regret; NaN when random's expected best is the best known
    value (the task cannot tell methods apart)."""
    span = random_best - known
    return (best - known) / span if span > 1e-12 else math.nan


def _mean(xs) -> float:
    xs = [x for x in xs if not math.isnan(x)]
    return sum(xs) / len(xs) if xs else math.nan


def score_of(baselines, known):
    """Bayesmark's score of one best value, score(task, best) =
    (min(best, clip) - opt) / (clip - opt), clip being random search's
    median after one evaluation; the tasks it is defined for (a nonzero
    span); and clip per task."""
    names = [n for n in known if n in baselines]
    clip = {n: float(np.median(baselines[n]["random_values"])) for n in names}
    span = {n: clip[n] - known[n] for n in names}
    names = [n for n in names if span[n] > 1e-12]

    def score(n, value):
        return (min(value, clip[n]) - known[n]) / span[n]
    return score, names, clip


def bayesmark_score(rows, baselines, known, methods, columns, header, rule):
    """Bayesmark's mean score ("How scoring works" in its docs): per task,
    the mean over seeds of score_of; the mean over tasks, divided by
    random search's own (its expected best of b draws, clipped).
    Random is 1 at every budget over the suite, and the span never shrinks
    with the budget, so a plateau task cannot dominate as regret can."""
    score, names, clip = score_of(baselines, known)
    random = {(n, b): score(n, expected_best(
        np.minimum(baselines[n]["random_values"], clip[n]), b))
        for n in names for _, b in columns}
    print(f"\nBayesmark's mean score ({len(names)} tasks; random search = 1 "
          f"at every budget over the tasks a method ran)")
    print(header)
    print(rule)
    for method in methods:
        line = []
        for mode, b in columns:
            ran = {n: _mean(score(n, r["best"]) for r in rows
                            if r["task"] == n and r["method"] == method
                            and r["mode"] == mode and r["budget"] == b)
                   for n in names}
            ran = {n: x for n, x in ran.items() if not math.isnan(x)}
            line.append(_mean(ran.values()) /
                        _mean(random[n, b] for n in ran) if ran else math.nan)
        print(f"| {method} | " + " | ".join(f"{x:.3f}" for x in line) + " |")


def report(rows: List[dict], baselines: dict, methods, modes, budgets):
    task_names = list(dict.fromkeys(r["task"] for r in rows))
    known = {}
    for name in task_names:
        seen = min(r["best"] for r in rows if r["task"] == name)
        base = baselines.get(name)
        if base is None:
            print(f"{name}: not in baselines.json, no regret")
            continue
        known[name] = min(seen, base["best_known"])
        if seen < base["best_known"]:
            print(f"{name}: this run beat baselines.json's best known "
                  f"{base['best_known']:.6g} with {seen:.6g}; regrets use it")
    for r in rows:
        base = baselines.get(r["task"])
        r["regret"] = (regret(r["best"], known[r["task"]],
                              expected_best(base["random_values"],
                                            r["budget"]))
                       if base else math.nan)

    def cells(select):
        return [r for r in rows if all(r[k] == v for k, v in select.items())]

    columns = [(mode, b) for mode in modes for b in budgets]
    header = "| method | " + " | ".join(f"{m} {b}" for m, b in columns) + " |"
    rule = "|---" * (len(columns) + 1) + "|"
    for name in task_names:
        print(f"\n{name}: mean best loss over seeds (mean normalised regret)")
        print(header)
        print(rule)
        for method in methods:
            line = []
            for mode, b in columns:
                sel = cells(dict(task=name, method=method, mode=mode,
                                 budget=b))
                line.append(f"{_mean(r['best'] for r in sel):.4g} "
                            f"({_mean(r['regret'] for r in sel):.3f})"
                            if sel else "-")
            if any(c != "-" for c in line):
                print(f"| {method} | " + " | ".join(line) + " |")
    print(f"\nMean normalised regret over tasks and seeds "
          f"({len(known)} tasks with baselines; CMA-ES on all-numeric "
          f"tasks only)")
    print(header)
    print(rule)
    for method in methods:
        line = [_mean(r["regret"] for r in cells(dict(method=method,
                                                      mode=mode, budget=b)))
                for mode, b in columns]
        print(f"| {method} | " + " | ".join(f"{x:.3f}" for x in line) + " |")
    for ours, theirs in COMPARED:
        if {ours, theirs} <= set(methods) and known:
            line = []
            for mode, b in columns:
                wins = sum(
                    _mean(r["regret"] for r in cells(dict(
                        task=n, method=ours, mode=mode, budget=b))) <
                    _mean(r["regret"] for r in cells(dict(
                        task=n, method=theirs, mode=mode, budget=b)))
                    for n in known)
                line.append(f"{wins}/{len(known)}")
            print(f"| tasks where {ours} < {theirs} | " + " | ".join(line)
                  + " |")
    bayesmark_score(rows, baselines, known, methods, columns, header, rule)
    # A plateau task's random expected best can sit within 1e-5 of its best
    # known value, and then one method's regret there can sway the mean.
    print("\nMedian over tasks of each task's mean normalised regret")
    print(header)
    print(rule)
    for method in methods:
        line = []
        for mode, b in columns:
            per_task = [_mean(r["regret"] for r in cells(dict(
                task=n, method=method, mode=mode, budget=b))) for n in known]
            per_task = [x for x in per_task if not math.isnan(x)]
            line.append(statistics.median(per_task) if per_task
                        else math.nan)
        print(f"| {method} | " + " | ".join(f"{x:.3f}" for x in line) + " |")
    for ours, theirs in COMPARED:
        if {ours, theirs} <= set(methods) and known:
            compare_pair(rows, baselines, known, columns, header, rule,
                         ours, theirs)


def ratio_interval(ours: np.ndarray, theirs: np.ndarray, draws: int = 2000,
                   seed: int = 0) -> Tuple[float, float, float]:
    """mean(ours) / mean(theirs) of two task x seed arrays of the same
    seeds, and its 90% percentile-bootstrap interval (Efron & Tibshirani,
    "An Introduction to the Bootstrap", 1993, ch. 13): the seeds are
    resampled with replacement, the same ones for both methods (paired),
    the tasks kept. With one seed the interval is the ratio itself."""
    rng = np.random.default_rng(seed)
    n = ours.shape[1]
    picks = rng.integers(0, n, size=(draws, n))
    ratios = ours[:, picks].mean(axis=(0, 2)) / theirs[:, picks].mean(
        axis=(0, 2))
    low, high = np.percentile(ratios, [5, 95])
    return float(ours.mean() / theirs.mean()), float(low), float(high)


def _paired(rows, names, methods, mode, budget, value):
    """task x seed arrays of `value` for each of `methods`, over the seeds
    every one of them ran on every task (empty when none)."""
    by_key = {(r["task"], r["method"], r["mode"], r["budget"], r["seed"]): r
              for r in rows}
    seeds = sorted({r["seed"] for r in rows if r["mode"] == mode
                    and r["budget"] == budget and r["method"] == methods[0]})
    seeds = [s for s in seeds if all((n, m, mode, budget, s) in by_key
                                     for n in names for m in methods)]
    return [np.array([[value(by_key[n, m, mode, budget, s]) for s in seeds]
                      for n in names]) for m in methods]


def _median_counts(ours: np.ndarray, theirs: np.ndarray) -> str:
    """Tasks (rows) where ours' median over seeds is below, equal to (a
    plateau both reach) and above theirs'."""
    a, b = np.median(ours, axis=1), np.median(theirs, axis=1)
    return " / ".join(str(int(x.sum())) for x in (a < b, a == b, a > b))


def compare_pair(rows, baselines, known, columns, header, rule, ours, theirs):
    """ours' mean over theirs', by Bayesmark score and by mean regret, with
    how far the choice of seeds moves it (ratio_interval): a ratio near a
    target, or near 1 for "within noise", says little without it. Then the
    per-task medians over seeds, counted."""
    score, names, _ = score_of(baselines, known)
    measures = {"Bayesmark score": lambda r: score(r["task"], r["best"]),
                "mean regret": lambda r: r["regret"]}
    print(f"\n{ours} / {theirs}, over the tasks and seeds both ran "
          "[90% bootstrap interval over seeds]")
    print(header.replace("| method |", "| measure |"))
    print(rule)
    for measure, value in measures.items():
        line = []
        for mode, b in columns:
            a, c = _paired(rows, names, (ours, theirs), mode, b, value)
            if a.size == 0:
                line.append("-")
                continue
            ratio, low, high = ratio_interval(a, c)
            line.append(f"{ratio:.3f} [{low:.3f}, {high:.3f}]")
        print(f"| {measure} | " + " | ".join(line) + " |")
    counts = []
    for mode, b in columns:
        a, c = _paired(rows, names, (ours, theirs), mode, b,
                       lambda r: r["regret"])
        counts.append(_median_counts(a, c) if a.size else "-")
    print("| tasks whose median regret is below / equal / above | "
          + " | ".join(counts) + " |")


# ---- main -------------------------------------------------------------------

def _pool(jobs: int):
    return multiprocessing.get_context("spawn").Pool(jobs)


def make_baselines(args, names: List[str]) -> None:
    try:
        with open(args.baselines) as f:
            out = json.load(f)   # other tasks' entries stay as they are
    except FileNotFoundError:
        out = {"tasks": {}}
    invocation = " ".join(shlex.quote(a) for a in sys.argv)
    command = f"{args.made_by}; {invocation}" if args.made_by else invocation
    if args.keep_random:
        missing = [n for n in names if n not in out["tasks"]]
        if missing:
            sys.exit(f"--keep-random: no stored values for {missing}")
        pooled = {n: out["tasks"][n]["random_values"] for n in names}
    else:
        with _pool(args.jobs) as pool:
            pooled = dict(pool.imap(random_values,
                                    [(n, args.random_trials) for n in names]))
    seen: Dict[str, float] = {}
    for path in args.from_csv:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                seen[r["task"]] = min(seen.get(r["task"], math.inf),
                                      float(r["best"]))
    out["note"] = ("per task: random_values, random_trials uniform draws in "
                   "the scaled space (tasks.Task.sample, seeded by the "
                   "task's name), drawn by random_command; best_known, the "
                   "least of them, of the best values of the suite runs "
                   "in best_known_command's --from-csv and of the value "
                   "stored before; "
                   "random_expected_best[b], E[min of b draws from "
                   "random_values]")
    for name in names:
        values = sorted(pooled[name])
        old = out["tasks"].get(name, {})
        # A lower stored best stays, with the command that found it.
        best, best_command = min(values[0], seen.get(name, math.inf)), command
        if old.get("best_known", math.inf) < best:
            best, best_command = old["best_known"], old["best_known_command"]
        out["tasks"][name] = {
            "random_command": (old["random_command"] if args.keep_random
                               else invocation),
            "best_known_command": best_command,
            "random_trials": len(values),
            "best_known": best,
            "random_expected_best": {str(b): expected_best(values, b)
                                     for b in LISTED_BUDGETS},
            "random_values": values}
    out["tasks"] = dict(sorted(out["tasks"].items()))
    with open(args.baselines, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"wrote {args.baselines} ({len(names)} tasks)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--tasks", default=",".join(tasks.TASK_NAMES))
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--seeds", type=int, default=10,
                        help="this many seeds, from --first-seed")
    parser.add_argument("--first-seed", type=int, default=1,
                        help="the first seed: more seeds for a run already "
                             "made, its tables then from both CSVs")
    parser.add_argument("--budgets", default="16,32,64")
    parser.add_argument("--modes", default="sequential,batch8",
                        help="sequential and/or batchN")
    parser.add_argument("--jobs", type=int, default=2,
                        help="worker processes")
    parser.add_argument("--hptune",
                        default=os.path.join(ROOT, "build", "src", "cli",
                                             "hptune"),
                        help="the binary of the server to start")
    parser.add_argument("--server", help="HOST:PORT of a running server")
    parser.add_argument("--token-file", help="with --server")
    parser.add_argument("--csv", help="write per-run best-so-far here")
    parser.add_argument("--baselines", default=BASELINES)
    parser.add_argument("--make-baselines", action="store_true")
    parser.add_argument("--random-trials", type=int, default=256)
    parser.add_argument("--from-csv", action="append", default=[],
                        help="suite CSVs whose best values --make-baselines "
                             "takes into best_known")
    parser.add_argument("--report-csv", action="append", default=[],
                        help="print the tables of these CSVs (the runs of "
                             "the given tasks, methods, modes, budgets) "
                             "instead of running")
    parser.add_argument("--made-by",
                        help="the commands that wrote the --from-csv files, "
                             "stored in best_known_command before this one")
    parser.add_argument("--keep-random", action="store_true",
                        help="--make-baselines keeps the stored random "
                             "values (they are deterministic), only "
                             "best_known changes")
    args = parser.parse_args()

    names = args.tasks.split(",")
    for name in names:
        if name not in tasks.TASK_NAMES:
            parser.error(f"unknown task {name} (tasks.TASK_NAMES)")
    if args.make_baselines:
        make_baselines(args, names)
        return
    methods = args.methods.split(",")
    for method in methods:
        if method not in METHODS:
            parser.error(f"unknown method {method} ({', '.join(METHODS)})")
    modes = args.modes.split(",")
    for mode in modes:
        try:
            batch_size(mode)
        except ValueError as e:
            parser.error(str(e))
    budgets = sorted(int(b) for b in args.budgets.split(","))
    if args.first_seed < 1 or args.seeds < 1:
        parser.error(f"--first-seed {args.first_seed} and --seeds "
                     f"{args.seeds}: both must be at least 1")
    with open(args.baselines) as f:
        baselines = json.load(f)["tasks"]
    if args.report_csv:
        rows = []
        for path in args.report_csv:
            with open(path, newline="") as f:
                rows += [dict(r, seed=int(r["seed"]), budget=int(r["budget"]),
                              best=float(r["best"]))
                         for r in csv.DictReader(f)]
        rows = [r for r in rows if r["task"] in names and
                r["method"] in methods and r["mode"] in modes and
                r["budget"] in budgets]
        report(rows, baselines, methods, modes, budgets)
        return

    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bayesmark_") as directory:
        server = None if args.server else Server(args.hptune, directory)
        address = args.server or server.address
        token_file = args.token_file if args.server else server.token_file
        jobs = [(n, m, mode, seed, trials, address, token_file)
                for n in names for m in methods
                if applies(m, tasks.Task(n))
                for mode in modes
                for seed in range(args.first_seed,
                                  args.first_seed + args.seeds)
                for trials in (budgets if m in PLANS_BY_BUDGET
                               else budgets[-1:])]
        try:
            with _pool(args.jobs) as pool:
                results = pool.map(run_one, jobs, chunksize=1)
        finally:
            if server:
                server.stop()
    wall = time.perf_counter() - start

    rows = []
    for (name, method, mode, seed, trials), values, seconds in results:
        for b in (budgets if method not in PLANS_BY_BUDGET else [trials]):
            rows.append(dict(task=name, method=method, mode=mode, seed=seed,
                             budget=b, best=min(values[:b]),
                             run_seconds=round(seconds, 3)))
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    print(f"{len(names)} tasks, {args.seeds} seeds, budgets "
          f"{','.join(map(str, budgets))}, modes {','.join(modes)}; "
          f"{len(jobs)} runs on {args.jobs} processes in {wall:.0f} s")
    report(rows, baselines, methods, modes, budgets)


if __name__ == "__main__":
    main()
