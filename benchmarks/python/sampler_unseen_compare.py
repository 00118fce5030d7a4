#!/usr/bin/env python3
"""hptune.optuna.GPSampler beside Optuna's TPESampler on problems not tuned on.

The GP's defaults were chosen on the quality harness's functions and the
Bayesmark-style suite; these nine problems were added after, to see how
the sampler does where nothing was tuned:

- five test functions (Surjanovic & Bingham, Virtual Library of Simulation
  Experiments), reported as regret against the known minimum:
  Rastrigin-4 on [-5.12, 5.12]^4, Griewank-5 on [-50, 50]^5, Michalewicz-5
  (m = 10) on [0, pi]^5 (f* = -4.687658), Zakharov-6 on [-5, 10]^6 and
  Trid-6 on [-36, 36]^6 (f* = -50);
- two shaped like tuning problems, regret against their minimum 0:
  mixed_nn (log learning rate, log and linear integers, a stepped float and
  a categorical optimiser whose best learning rate depends on it) and
  branchy (a categorical model choice whose branches add their own
  parameters, Optuna's define-by-run style; minimum 0.2 in the svm branch);
- two real models on generated data (scikit-learn, no downloads), reported
  as the loss itself: svc_gen (SVC's 3-fold CV error on
  make_classification, log C and gamma, rbf or sigmoid) and gbr_gen
  (HistGradientBoostingRegressor's 3-fold CV MSE on make_friedman1).

Per seed the best value after 16, 32 and --trials trials of one study per
sampler (one trial at a time); then the median over seeds, and which
sampler's median is lower.

    HPTUNE_BINARY=$PWD/build/src/cli/hptune \\
      build/tests/python/work/venv/bin/python \\
      benchmarks/python/sampler_unseen_compare.py --seeds 10 --trials 64 \\
      --jobs 2

Prints a Markdown table for benchmarks/RESULTS.md. A benchmark, not a test.
"""

import argparse
import math
import multiprocessing
import os
import statistics
import warnings

# One OpenMP thread per worker: scikit-learn's gradient boosting otherwise
# starts one per core in each worker, and the spinning threads of --jobs
# workers oversubscribe the cores many times over.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import optuna  # pylint: disable=wrong-import-position

CHECKPOINTS = (16, 32)


def rastrigin(t):
    x = [t.suggest_float(f"x{i}", -5.12, 5.12) for i in range(4)]
    return 40 + sum(v * v - 10 * math.cos(2 * math.pi * v) for v in x)


def griewank(t):
    x = [t.suggest_float(f"x{i}", -50, 50) for i in range(5)]
    product = math.prod(math.cos(v / math.sqrt(i + 1)) for i, v in enumerate(x))
    return sum(v * v for v in x) / 4000 - product + 1


def michalewicz(t):
    x = [t.suggest_float(f"x{i}", 0, math.pi) for i in range(5)]
    f = -sum(math.sin(v) * math.sin((i + 1) * v * v / math.pi) ** 20
             for i, v in enumerate(x))
    return f + 4.687658


def zakharov(t):
    x = [t.suggest_float(f"x{i}", -5, 10) for i in range(6)]
    s = sum(0.5 * (i + 1) * v for i, v in enumerate(x))
    return sum(v * v for v in x) + s ** 2 + s ** 4


def trid(t):
    x = [t.suggest_float(f"x{i}", -36, 36) for i in range(6)]
    f = sum((v - 1) ** 2 for v in x) - sum(x[i] * x[i - 1] for i in range(1, 6))
    return f + 50


def mixed_nn(t):
    lr = t.suggest_float("lr", 1e-5, 1e-1, log=True)
    layers = t.suggest_int("layers", 1, 6)
    width = t.suggest_int("width", 16, 512, log=True)
    optimizer = t.suggest_categorical("optimizer", ["adam", "sgd", "rmsprop"])
    dropout = t.suggest_float("dropout", 0.0, 0.5, step=0.05)
    offset = {"adam": 0.0, "sgd": 0.3, "rmsprop": 0.1}[optimizer]
    best_log_lr = {"adam": -3.0, "sgd": -1.5, "rmsprop": -3.5}[optimizer]
    return (offset + 0.5 * (math.log10(lr) - best_log_lr) ** 2
            + 0.05 * (layers - 3) ** 2
            + 0.075 * (math.log2(width) - 7.5) ** 2 + (dropout - 0.2) ** 2)


def branchy(t):
    model = t.suggest_categorical("model", ["svm", "tree", "linear"])
    if model == "svm":
        c = t.suggest_float("svm_c", 1e-3, 1e3, log=True)
        gamma = t.suggest_float("svm_gamma", 1e-4, 1, log=True)
        return (0.1 * (math.log10(c) - 1.3) ** 2
                + 0.1 * (math.log10(gamma) + 2.2) ** 2)
    if model == "tree":
        depth = t.suggest_int("depth", 1, 20)
        leaf = t.suggest_int("leaf", 1, 50, log=True)
        return 0.05 + 0.01 * (depth - 8) ** 2 + 0.05 * (math.log(leaf) - 1) ** 2
    alpha = t.suggest_float("alpha", 1e-6, 1, log=True)
    return 0.15 + 0.02 * (math.log10(alpha) + 3) ** 2


_DATA = {}


def svc_gen(t):
    from sklearn.datasets import make_classification
    from sklearn.model_selection import cross_val_score
    from sklearn.svm import SVC
    if "svc" not in _DATA:
        _DATA["svc"] = make_classification(n_samples=400, n_features=12,
                                           n_informative=6, flip_y=0.05,
                                           random_state=7)
    x, y = _DATA["svc"]
    model = SVC(C=t.suggest_float("C", 1e-3, 1e3, log=True),
                gamma=t.suggest_float("gamma", 1e-4, 1e1, log=True),
                kernel=t.suggest_categorical("kernel", ["rbf", "sigmoid"]))
    return 1 - cross_val_score(model, x, y, cv=3).mean()


def gbr_gen(t):
    from sklearn.datasets import make_friedman1
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.model_selection import cross_val_score
    if "gbr" not in _DATA:
        _DATA["gbr"] = make_friedman1(n_samples=600, noise=1.0, random_state=3)
    x, y = _DATA["gbr"]
    model = HistGradientBoostingRegressor(
        learning_rate=t.suggest_float("lr", 1e-3, 1, log=True),
        max_leaf_nodes=t.suggest_int("leaves", 4, 64, log=True),
        min_samples_leaf=t.suggest_int("min_leaf", 2, 60),
        l2_regularization=t.suggest_float("l2", 1e-6, 10, log=True),
        max_iter=60, random_state=0)
    return -cross_val_score(model, x, y, cv=3,
                            scoring="neg_mean_squared_error").mean()


PROBLEMS = {f.__name__: f for f in (rastrigin, griewank, michalewicz, zakharov,
                                    trid, mixed_nn, branchy, svc_gen, gbr_gen)}


def make_sampler(name, seed):
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed)
    import hptune.optuna  # pylint: disable=import-outside-toplevel
    return hptune.optuna.GPSampler(seed=seed)


def run_one(task):
    """Best value after each checkpoint of one study."""
    problem, sampler_name, seed, trials = task
    warnings.filterwarnings("ignore")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = make_sampler(sampler_name, seed)
    study = optuna.create_study(sampler=sampler)
    study.optimize(PROBLEMS[problem], n_trials=trials)
    if hasattr(sampler, "close"):
        sampler.close()  # GPSampler's local engine.
    values = [trial.value for trial in study.trials]
    return (problem, sampler_name,
            [min(values[:k]) for k in (*CHECKPOINTS, trials)])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--trials", type=int, default=64)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--problems", default=",".join(PROBLEMS))
    args = parser.parse_args()
    if args.seeds < 1:
        parser.error(f"--seeds: {args.seeds} is not at least 1")
    if args.trials <= CHECKPOINTS[-1]:
        parser.error(f"--trials: {args.trials} is not above the last "
                     f"checkpoint, {CHECKPOINTS[-1]}")
    problems = args.problems.split(",")
    unknown = [p for p in problems if p not in PROBLEMS]
    if unknown:
        parser.error(f"--problems: unknown {', '.join(unknown)}; "
                     f"known: {', '.join(PROBLEMS)}")
    tasks = [(p, s, seed, args.trials) for p in problems for s in ("tpe", "gp")
             for seed in range(1, args.seeds + 1)]
    with multiprocessing.Pool(args.jobs) as pool:
        results = pool.map(run_one, tasks, chunksize=1)
    best = {}
    for problem, sampler_name, values in results:
        best.setdefault((problem, sampler_name), []).append(values)
    budgets = (*CHECKPOINTS, args.trials)
    print("| problem | " + " | ".join(
        f"{b} trials: TPE / GPSampler" for b in budgets) + " |")
    print("|---|" + "---|" * len(budgets))
    lower = [0] * len(budgets)
    for problem in problems:
        cells = []
        for i in range(len(budgets)):
            tpe = statistics.median(v[i] for v in best[(problem, "tpe")])
            gp = statistics.median(v[i] for v in best[(problem, "gp")])
            lower[i] += gp < tpe
            mark = "**" if gp < tpe else ""
            cells.append(f"{tpe:.4g} / {mark}{gp:.4g}{mark}")
        print(f"| {problem} | " + " | ".join(cells) + " |")
    print("\nGPSampler's median lower: " + ", ".join(
        f"{n} of {len(problems)} at {b}" for n, b in zip(lower, budgets)))


if __name__ == "__main__":
    main()
