#!/usr/bin/python3
"""Optuna's samplers and pruners on the learning-curve benchmark.

The same replay as curve_replay (replay.h) on the same tables and seeds:
W simulated workers ask Optuna (ask/tell) for trials, map each suggestion
to the nearest tabulated configuration (the same distance as
curve_table.h's NearestConfiguration), report the curve's values one step
at a time (steps 1..S) on a simulated clock that advances by each step's
recorded CPU seconds, and end a trial when it has trained S steps or when
trial.should_prune() says so after a report. A trial's result is its last
reported value, pruned or not; regret is the best result minus the lowest
value of the whole table. Rows are curve_replay's (side "optuna").
With --seeded, as curve_replay --seeded=1: each trial trains one seed's
curve of <task>.seeds.csv.gz (generate_seed_curves.py), drawn per trial,
and regret is the best trial's configuration's mean final value over its
seeds minus the lowest such mean.

  /usr/bin/python3 benchmarks/curves/optuna_curves.py [--data DIR]
      [--tasks gbm,mlp,sgd] [--samplers tpe,random]
      [--pruners none,median,sha,hyperband] [--seeds 5] [--first-seed 1]
      [--workers 4] [--budget 50] [--checkpoints 20,50] [--max-trials 0]
      [--configs N] [--seeded]

Pruners are Optuna 3.1's defaults: MedianPruner(), SuccessiveHalvingPruner()
and HyperbandPruner(min_resource=1, max_resource=S); samplers
TPESampler(seed=seed) and RandomSampler(seed=seed).
"""

import argparse
import csv
import heapq
import json
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from curve_files import open_table  # noqa: E402


def load_table(data, task, first=0):
    """The task's table; only its first `first` configurations unless 0."""
    with open(os.path.join(data, task + ".manifest.json")) as f:
        manifest = json.load(f)
    steps = manifest["steps"]
    params = manifest["parameters"]
    configs, metric, cost = [], [], []
    with open_table(data, task) as f:
        reader = csv.reader(f)
        next(reader)
        for row in reader:
            if first and len(configs) == first:
                break
            cfg = {}
            for i, p in enumerate(params):
                cell = row[1 + i]
                cfg[p["name"]] = (cell if p["type"] == "categorical" else
                                  int(float(cell)) if p["type"] == "integer"
                                  else float(cell))
            base = 1 + len(params)
            configs.append(cfg)
            metric.append([float(v) for v in row[base:base + steps]])
            cost.append([float(v) for v in row[base + steps:base + 2 * steps]])
    if first and len(configs) < first:
        sys.exit("%s: configurations %d is not in [1, %d]" %
                 (task, first, len(configs)))
    best = min(min(curve) for curve in metric)
    return dict(task=task, steps=steps, params=params, configs=configs,
                metric=metric, cost=cost, best=best)


def load_seeds(data, table):
    """Adds the seed curves of <task>.seeds.csv.gz to `table`: seed_metric
    and seed_cost [config][seed][step], mean_final per configuration, and
    best, the lowest mean final value."""
    n, steps = len(table["configs"]), table["steps"]
    metric, cost = [{} for _ in range(n)], [{} for _ in range(n)]
    with open_table(data, table["task"] + ".seeds") as f:
        reader = csv.reader(f)
        next(reader)
        for row in reader:
            i, k = int(row[0]), int(row[1])
            if i < n:
                metric[i][k] = [float(v) for v in row[2:2 + steps]]
                cost[i][k] = [float(v) for v in row[2 + steps:2 + 2 * steps]]
    k = len(metric[0])
    if any(sorted(m) != list(range(k)) for m in metric) or k == 0:
        sys.exit("%s.seeds: a configuration lacks seeds of 0..%d" %
                 (table["task"], k - 1))
    table["seed_metric"] = [[m[j] for j in range(k)] for m in metric]
    table["seed_cost"] = [[c[j] for j in range(k)] for c in cost]
    table["mean_final"] = [sum(c[-1] for c in m) / k
                           for m in table["seed_metric"]]
    table["best"] = min(table["mean_final"])


def unit(p, x):
    """algorithms/encoding/unit_cube.cc's Encode for DOUBLE and INTEGER:
    an integer k owns [k - 1/2, k + 1/2)."""
    lo, hi = p["low"], p["high"]
    if p["type"] == "integer":
        lo, hi = lo - 0.5, hi + 0.5
    x = min(max(x, lo), hi)
    if p["scale"] == "log":
        return (math.log(x) - math.log(lo)) / (math.log(hi) - math.log(lo))
    return (x - lo) / (hi - lo)


def nearest(table, point):
    """curve_table.h's NearestConfiguration: squared unit-cube distance, a
    categorical mismatch counting 1; ties to the lower index."""
    params = table["params"]
    if "_units" not in table:
        table["_units"] = [
            [None if p["type"] == "categorical" else unit(p, c[p["name"]])
             for p in params] for c in table["configs"]]
    u = [None if p["type"] == "categorical" else unit(p, point[p["name"]])
         for p in params]
    best, best_d = 0, math.inf
    for i, (cfg, cu) in enumerate(zip(table["configs"], table["_units"])):
        d = 0.0
        for p, a, b in zip(params, cu, u):
            if a is None:
                d += 0.0 if cfg[p["name"]] == point[p["name"]] else 1.0
            else:
                d += (a - b) ** 2
        if d < best_d:
            best, best_d = i, d
    return best


def suggest(trial, params):
    point = {}
    for p in params:
        name = p["name"]
        if p["type"] == "categorical":
            point[name] = trial.suggest_categorical(name, p["values"])
        elif p["type"] == "integer":
            point[name] = trial.suggest_int(name, int(p["low"]), int(p["high"]),
                                            log=p["scale"] == "log")
        else:
            point[name] = trial.suggest_float(name, p["low"], p["high"],
                                              log=p["scale"] == "log")
    return point


def make_study(sampler, pruner, seed, steps):
    import optuna
    samplers = {"tpe": lambda: optuna.samplers.TPESampler(seed=seed),
                "random": lambda: optuna.samplers.RandomSampler(seed=seed)}
    pruners = {
        "none": optuna.pruners.NopPruner,
        "median": optuna.pruners.MedianPruner,
        "sha": optuna.pruners.SuccessiveHalvingPruner,
        "hyperband": lambda: optuna.pruners.HyperbandPruner(
            min_resource=1, max_resource=steps)}
    return optuna.create_study(direction="minimize",
                               sampler=samplers[sampler](),
                               pruner=pruners[pruner]())


class Replay:
    """One run; the loop of replay.cc's Simulation."""

    def __init__(self, table, sampler, pruner, seed, args):
        self.t, self.args = table, args
        self.study = make_study(sampler, pruner, seed, table["steps"])
        self.budget_steps = args.budget * table["steps"]
        self.events, self.slots = [], [None] * args.workers
        self.best, self.steps, self.trials, self.stopped = math.inf, 0, 0, 0
        self.best_config = None
        self.seed_draws = random.Random(seed)
        self.regret_at = [math.nan] * len(args.checkpoints)
        self.now = 0.0

    def start(self, w, now):
        if self.args.max_trials and len(self.study.trials) >= \
                self.args.max_trials:
            return
        trial = self.study.ask()
        config = nearest(self.t, suggest(trial, self.t["params"]))
        seeds = self.t.get("seed_metric")
        k = self.seed_draws.randrange(len(seeds[config])) if seeds else None
        self.slots[w] = [trial, config, 0, k]
        self.schedule(w, now)

    def curve(self, kind, config, k):
        """The configuration's curve of `kind` ("metric", "cost"): seed
        k's with seed curves."""
        if k is None:
            return self.t[kind][config]
        return self.t["seed_" + kind][config][k]

    def schedule(self, w, now):
        _, config, step, k = self.slots[w]
        heapq.heappush(self.events,
                       (now + self.curve("cost", config, k)[step], w))

    def regret(self):
        if "mean_final" not in self.t:
            return self.best - self.t["best"]
        if self.best_config is None:
            return math.inf
        return self.t["mean_final"][self.best_config] - self.t["best"]

    def note_spend(self):
        for i, c in enumerate(self.args.checkpoints):
            if self.steps == math.ceil(c * self.t["steps"]):
                self.regret_at[i] = self.regret()

    def step_done(self, w, now):
        import optuna
        self.now = now
        slot = self.slots[w]
        trial, config, step, k = slot
        value = self.curve("metric", config, k)[step]
        trial.report(value, step + 1)
        self.steps += 1
        slot[2] = step = step + 1
        prune = step < self.t["steps"] and trial.should_prune()
        if step == self.t["steps"] or prune:
            if prune:
                self.study.tell(trial, state=optuna.trial.TrialState.PRUNED)
            else:
                self.study.tell(trial, value)
            self.trials += 1
            self.stopped += prune
            if value < self.best:
                self.best, self.best_config = value, config
            self.note_spend()
            self.start(w, now)
            return
        self.note_spend()
        self.schedule(w, now)

    def run(self):
        for w in range(self.args.workers):
            self.start(w, 0.0)
        while self.events and self.steps < self.budget_steps:
            now, w = heapq.heappop(self.events)
            self.step_done(w, now)
        final = self.regret()
        for i, c in enumerate(self.args.checkpoints):
            if c * self.t["steps"] > self.steps:
                self.regret_at[i] = final
        return final


def row(table, sampler, pruner, seed, args, r, final):
    cells = ["optuna", table["task"], len(table["configs"]), sampler, pruner,
             seed, args.workers, r.trials, r.stopped, r.steps, table["steps"],
             "%.3f" % r.now, "%.6g" % final]
    cells += ["%.6g" % v for v in r.regret_at]
    return "\t".join(str(c) for c in cells)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--data", default=os.path.join(here, "data"))
    parser.add_argument("--tasks", default="gbm,mlp,sgd")
    parser.add_argument("--samplers", default="tpe,random")
    parser.add_argument("--pruners", default="none,median,sha,hyperband")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--budget", type=float, default=50)
    parser.add_argument("--checkpoints", default="20,50")
    parser.add_argument("--max-trials", type=int, default=0)
    parser.add_argument("--configs", type=int, default=0,
                        help="the table's first N configurations (0: all)")
    parser.add_argument("--seeded", action="store_true",
                        help="draw each trial's curve from the seed table "
                             "and score regret on mean final values")
    args = parser.parse_args()
    args.checkpoints = [float(c) for c in args.checkpoints.split(",")]
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    print("\t".join(
        ["side", "task", "configs", "designer", "rule", "seed", "workers",
         "trials", "stopped", "steps", "full_steps", "sim_seconds", "final_regret"] +
        ["regret@%g" % c for c in args.checkpoints]))
    for task in args.tasks.split(","):
        table = load_table(args.data, task, args.configs)
        if args.seeded:
            load_seeds(args.data, table)
        for sampler in args.samplers.split(","):
            for pruner in args.pruners.split(","):
                for seed in range(args.first_seed,
                                  args.first_seed + args.seeds):
                    r = Replay(table, sampler, pruner, seed, args)
                    final = r.run()
                    print(row(table, sampler, pruner, seed, args, r, final))
                    sys.stdout.flush()


if __name__ == "__main__":
    main()
