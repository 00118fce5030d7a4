#!/usr/bin/env python3
"""Hypervolume regret of hptune beside Optuna on the multi-objective suite.

Runs benchmarks/quality/multiobjective_harness (hptune's GP and random
search) and Optuna's samplers on the same problems, seeds, budgets and
worker modes, in the same run, and prints one table: per problem, budget
and mode, the median, min and max hypervolume regret over the seeds, and on
the constrained problem the median fraction of feasible trials after the
first 6 (the GP's seeding).

Optuna's samplers: NSGAIISampler and TPESampler (multi-objective TPE in
Optuna 3.1) on the multi-objective problems; TPESampler and NSGAIISampler
with constraints_func on the constrained one; RandomSampler on all.

Protocol, as the C++ harness's (designer_run.h): sequential asks one trial
and tells it before the next; with W workers the first W trials are asked
at once, then each step tells the oldest pending trial and asks one more.

The problems are the C++ suite's (multiobjective_problems.h), written again
here; --check compares their values at fixed points, and a grid's
hypervolume, with the values the C++ test checks.

Usage: multiobjective_compare.py --harness PATH [--seeds 20]
         [--budgets 50,100] [--workers 1,4] [--threads 2] [--check]
"""
import argparse
import math
import statistics
import subprocess
import sys
import time


def branin(x1, x2):
    b, c, t = 5.1 / (4 * math.pi ** 2), 5 / math.pi, 1 / (8 * math.pi)
    return (x2 - b * x1 * x1 + c * x1 - 6) ** 2 + 10 * (1 - t) * math.cos(x1) + 10


def branin_currin(x):
    x1, x2 = x
    factor = 1.0 if x2 == 0 else 1 - math.exp(-1 / (2 * x2))
    currin = factor * (2300 * x1 ** 3 + 1900 * x1 ** 2 + 2092 * x1 + 60) / (
        100 * x1 ** 3 + 500 * x1 ** 2 + 4 * x1 + 20)
    return [branin(15 * x1 - 5, 15 * x2), currin]


def zdt_g(x):
    return 1 + 9 * sum(x[1:]) / (len(x) - 1)


def zdt1(x):
    g = zdt_g(x)
    return [x[0], g * (1 - math.sqrt(x[0] / g))]


def zdt2(x):
    g = zdt_g(x)
    return [x[0], g * (1 - (x[0] / g) ** 2)]


def dtlz2(x):
    g = sum((v - 0.5) ** 2 for v in x[2:])
    a, b = math.pi * x[0] / 2, math.pi * x[1] / 2
    return [(1 + g) * math.cos(a) * math.cos(b),
            (1 + g) * math.cos(a) * math.sin(b), (1 + g) * math.sin(a)]


def disc(x):
    return (x[0] - 2.5) ** 2 + (x[1] - 7.5) ** 2 - 50


# name -> (bounds, objectives, evaluate, constraints or None, reference,
#          optimal hypervolume)
PROBLEMS = {
    "branin_currin": ([(0, 1)] * 2, 2, branin_currin, None, [18, 6],
                      59.36011874867746),
    "zdt1": ([(0, 1)] * 6, 2, zdt1, None, [11, 11], 120 + 2 / 3),
    "zdt2": ([(0, 1)] * 6, 2, zdt2, None, [11, 11], 120 + 1 / 3),
    "dtlz2": ([(0, 1)] * 6, 3, dtlz2, None, [1.1] * 3,
              1.1 ** 3 - math.pi / 6),
    "constrained_branin": ([(-5, 10), (0, 15)], 1,
                           lambda x: [branin(*x)], lambda x: [disc(x)],
                           [310], 310 - 5 / (4 * math.pi)),
}
SEEDING = 6


def check():
    """The values multiobjective_problems_test.cc checks, to 1e-9."""
    cases = [
        (branin_currin([0.5, 0.5]), None),
        (zdt1([0.25] + [0.0] * 5), [0.25, 0.5]),
        (zdt2([0.5] + [0.0] * 5), [0.5, 0.75]),
        (dtlz2([0.0, 0.0] + [0.5] * 4), [1.0, 0.0, 0.0]),
        ([disc([2.5, 7.5])], [-50]),
        ([branin(math.pi, 2.275)], [5 / (4 * math.pi)]),
    ]
    for got, want in cases:
        if want is not None and any(abs(a - b) > 1e-9 for a, b in zip(got, want)):
            sys.exit(f"mismatch: {got} != {want}")
    # The 301 x 301 grid's hypervolume, as multiobjective_problems_test.cc
    # has it: checks Branin-Currin and hypervolume() together.
    values = sorted(branin_currin([i / 300, j / 300])
                    for i in range(301) for j in range(301))
    front, best = [], math.inf
    for f in values:
        if f[1] < best:
            front.append(f)
            best = f[1]
    volume = hypervolume(front, [18, 6])
    if abs(volume - 58.5003) > 1e-3:
        sys.exit(f"Branin-Currin grid hypervolume {volume}, expected 58.5003")
    print("multiobjective problems match")


def hypervolume(points, reference):
    """Exact hypervolume of minimised points below `reference` (slicing)."""
    points = [p for p in points if all(a < r for a, r in zip(p, reference))]
    if not points:
        return 0.0
    if len(reference) == 1:
        return reference[0] - min(p[0] for p in points)
    points.sort(key=lambda p: p[-1])
    volume = 0.0
    for i, p in enumerate(points):
        top = points[i + 1][-1] if i + 1 < len(points) else reference[-1]
        if top > p[-1]:
            volume += (top - p[-1]) * hypervolume(
                [q[:-1] for q in points[:i + 1]], reference[:-1])
    return volume


def run_optuna(problem, sampler_name, seed, budget, workers):
    import optuna
    bounds, k, evaluate, constraints, _, _ = PROBLEMS[problem]
    constraints_func = None
    if constraints is not None:
        def constraints_func(trial):
            return trial.user_attrs["constraints"]
    kwargs = {"seed": seed}
    if sampler_name == "nsga2":
        sampler = optuna.samplers.NSGAIISampler(
            constraints_func=constraints_func, **kwargs)
    elif sampler_name == "tpe":
        sampler = optuna.samplers.TPESampler(
            constraints_func=constraints_func, **kwargs)
    else:
        sampler = optuna.samplers.RandomSampler(**kwargs)
    study = optuna.create_study(directions=["minimize"] * k, sampler=sampler)
    pending, results = [], []

    def ask():
        trial = study.ask()
        x = [trial.suggest_float(f"x{i + 1}", lo, hi)
             for i, (lo, hi) in enumerate(bounds)]
        pending.append((trial, x))

    def tell():
        trial, x = pending.pop(0)
        f = evaluate(x)
        c = constraints(x) if constraints else []
        trial.set_user_attr("constraints", c)
        study.tell(trial, f if k > 1 else f[0])
        results.append((f, c))

    for _ in range(min(workers, budget)):
        ask()
    asked = min(workers, budget)
    while pending:
        tell()
        if asked < budget:
            ask()
            asked += 1
    return results


def regret(problem, results, budget):
    _, _, _, _, reference, optimal = PROBLEMS[problem]
    feasible = [f for f, c in results[:budget] if all(v <= 0 for v in c)]
    return optimal - hypervolume(feasible, reference)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--harness")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--budgets", default="50,100")
    parser.add_argument("--workers", default="1,4")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--problems", default=",".join(PROBLEMS))
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    if args.check:
        check()
        return
    import optuna
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    budgets = [int(b) for b in args.budgets.split(",")]
    workers = [int(w) for w in args.workers.split(",")]
    problems = args.problems.split(",")
    # rows[(problem, designer, workers, budget)] = [(regret, feasible)]
    rows = {}
    start = time.time()
    out = subprocess.run(
        [args.harness, f"--problems={args.problems}",
         f"--seeds={args.seeds}", f"--budgets={args.budgets}",
         f"--workers={args.workers}", f"--threads={args.threads}"],
        check=True, capture_output=True, text=True).stdout
    for line in out.splitlines()[1:]:
        problem, designer, w, _, budget, hv, feasible, _ = line.split("\t")
        rows.setdefault((problem, "hptune-" + designer, int(w), int(budget)),
                        []).append((float(hv), None if feasible == "-"
                                    else float(feasible)))
    hptune_seconds = time.time() - start
    start = time.time()
    for problem in problems:
        for sampler in ("nsga2", "tpe", "random"):
            for w in workers:
                for seed in range(1, args.seeds + 1):
                    results = run_optuna(problem, sampler, seed, budgets[-1], w)
                    for budget in budgets:
                        after = results[SEEDING:budget]
                        feasible = (sum(all(v <= 0 for v in c)
                                        for _, c in after) / len(after)
                                    if PROBLEMS[problem][3] else None)
                        rows.setdefault(
                            (problem, "optuna-" + sampler, w, budget),
                            []).append((regret(problem, results, budget),
                                        feasible))
    optuna_seconds = time.time() - start
    print(f"{args.seeds} seeds; hptune {hptune_seconds:.0f} s "
          f"({args.threads} threads), Optuna {optuna_seconds:.0f} s; "
          f"Optuna {optuna.__version__}\n")
    print("| problem | budget | workers | designer | median regret "
          "| min | max | feasible after seeding |")
    print("|---|---|---|---|---|---|---|---|")
    for problem in problems:
        for budget in budgets:
            for w in workers:
                for key in sorted(k for k in rows if k[0] == problem and
                                  k[2] == w and k[3] == budget):
                    values = [r for r, _ in rows[key]]
                    feasible = [f for _, f in rows[key] if f is not None]
                    print(f"| {problem} | {budget} | {w} | {key[1]} | "
                          f"{statistics.median(values):.4g} | "
                          f"{min(values):.4g} | {max(values):.4g} | " +
                          (f"{statistics.median(feasible):.0%}"
                           if feasible else "-") + " |")


if __name__ == "__main__":
    main()
