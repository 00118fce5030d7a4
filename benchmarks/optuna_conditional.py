#!/usr/bin/env python3
"""Optuna's samplers on hptune's conditional problems (tree-shaped spaces).

The Optuna side of benchmarks/conditional_compare.sh: runs Optuna 3.1's
TPESampler and RandomSampler on the conditional problems of
benchmarks/quality/conditional_problems.h (jenatton, optimizer_choice,
model_tree) with the seeds, budgets and worker modes of quality_harness, and
prints the harness's CSV:

  library,designer,function,mode,budget,seeds,median_regret,min_regret,max_regret

Spaces are define-by-run: a child parameter is suggested only in its parent's
branch, depth-first in the order of the harness's flat space, so a trial
holds exactly the active parameters, as an hptune trial does. Parameter kinds
map as optuna_compare.py maps them: DOUBLE to suggest_float (log=True on a
log scale), INTEGER to suggest_int, CATEGORICAL and DISCRETE to
suggest_categorical. Optuna has no reverse-log scale, so optimizer_choice's
adam_beta2 (UNIT_REVERSE_LOG_SCALE on [0.9, 0.9999]) is suggested as
one_minus_adam_beta2 on a log scale over [1e-4, 0.1], the form an Optuna user
writes; f is the same function of beta2 = 1 - that.

Samplers (--samplers):
  tpe        TPESampler(seed=seed): Optuna's defaults (independent TPE, 10
             random start-up trials).
  tpe_group  TPESampler(seed=seed, multivariate=True, group=True): Optuna's
             recommended setting for conditional spaces (one multivariate
             model per group of parameters that appear together).
  random     RandomSampler(seed=seed).
Modes as optuna_compare.py's (sequential: one trial at a time; parallelN: N
pending through ask/tell). Regret is the best value found minus the optimum.

--check evaluates the reference points of conditional_problems_test.cc;
--check-cxx=CONDITIONAL_EVAL does that, then draws random points of each tree
(uniform in every active parameter's range), has the C++ definitions evaluate
them (benchmarks/quality/conditional_eval, which also refuses an assignment
that is not exactly C++'s active set) and compares the values.

Runs under Debian's /usr/bin/python3 with python3-optuna 3.1 (scripts/setup
installs it); the checks need no Optuna. Progress goes to stderr.

Usage:
  /usr/bin/python3 benchmarks/optuna_conditional.py
      [--samplers=tpe,tpe_group,random] [--functions=LIST] [--seeds=20]
      [--budgets=50,100] [--modes=sequential] [--jobs=N]
  /usr/bin/python3 benchmarks/optuna_conditional.py --check
  /usr/bin/python3 benchmarks/optuna_conditional.py --check-cxx=PATH
"""

import argparse
import collections
import importlib.util
import math
import os
import random
import subprocess
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The helpers shared with the unconditional comparison.
from optuna_compare import (_budgets, _list, _modes, _positive,  # noqa: E402
                            run_and_report)

# --- The problems (keep in step with conditional_problems.{h,cc}) ----------
#
# A node is (kind, name, domain, scale, children): kind "float", "int",
# "categorical" or "discrete"; domain (low, high) for float and int, the list
# of values otherwise; scale "linear", "log" or "reverse_log" (floats only);
# children a list of (activating parent values, [nodes]). Nodes are listed
# depth-first, as the harness's flat space lists them.


def _float(name, low, high, scale="linear"):
    return ("float", name, (low, high), scale, [])


def _int(name, low, high, children=()):
    return ("int", name, (low, high), "linear", list(children))


def _categorical(name, values, children=()):
    return ("categorical", name, list(values), "linear", list(children))


def _discrete(name, values, children=()):
    return ("discrete", name, [float(v) for v in values], "linear",
            list(children))


def jenatton(p):
    """Jenatton et al. (ICML 2017), as Ax writes it; f* = 0.1."""
    if p["x1"] == 0:
        if p["x2"] == 0:
            return p["x4"] ** 2 + 0.1 + p["r8"]
        return p["x5"] ** 2 + 0.2 + p["r8"]
    if p["x3"] == 0:
        return p["x6"] ** 2 + 0.3 + p["r9"]
    return p["x7"] ** 2 + 0.4 + p["r9"]


def optimizer_choice(p):
    """sgd / adam / rmsprop bowls in log learning rate; f* = 0.08 (adam)."""
    optimizer = p["optimizer"]
    if optimizer == "sgd":
        m = p["sgd_momentum"]
        u = math.log10(p["sgd_lr"] / (1 - m))
        return 0.12 + 0.05 * u * u + 0.2 * (m - 0.9) ** 2
    if optimizer == "adam":
        return (0.08 + 0.05 * (math.log10(p["adam_lr"]) + 3) ** 2
                + 0.3 * (p["adam_beta1"] - 0.9) ** 2
                + 0.02 * (math.log10(1 - p["adam_beta2"]) + 3) ** 2)
    if optimizer == "rmsprop":
        return 0.10 + 0.05 * (math.log10(p["rmsprop_lr"]) + 3.5) ** 2
    raise ValueError(f"optimizer_choice of optimizer {optimizer!r}")


def model_tree(p):
    """linear (degree, l2) or tree (booster, dart's drop rate, bagging);
    f* = 0.15."""
    if p["model"] == "linear":
        degree = p["degree"]
        if degree == 1:
            return 0.30
        if degree == 2:
            return 0.22 + 0.02 * (math.log10(p["l2"]) + 3) ** 2
        return 0.24 + 0.03 * (math.log10(p["l2"]) + 2) ** 2
    booster = (0.16 if p["booster"] == "gbdt"
               else 0.15 + 0.4 * (p["drop_rate"] - 0.1) ** 2)
    fraction = p["bagging_fraction"]
    bagging = (0.01 if fraction == 1 else
               0.1 * (fraction - 0.7) ** 2 + 0.002 * (p["bagging_freq"] - 5) ** 2)
    return (booster + 0.05 * (math.log10(p["learning_rate"]) + 1) ** 2
            + 0.004 * (p["max_depth"] - 6) ** 2 + bagging)


# name -> (tree, f(params dict), optimum).
PROBLEMS = collections.OrderedDict([
    ("jenatton", ([
        _int("x1", 0, 1, [
            ([0], [_int("x2", 0, 1, [([0], [_float("x4", 0.0, 1.0)]),
                                     ([1], [_float("x5", 0.0, 1.0)])]),
                   _float("r8", 0.0, 1.0)]),
            ([1], [_int("x3", 0, 1, [([0], [_float("x6", 0.0, 1.0)]),
                                     ([1], [_float("x7", 0.0, 1.0)])]),
                   _float("r9", 0.0, 1.0)]),
        ]),
    ], jenatton, 0.1)),
    ("optimizer_choice", ([
        _categorical("optimizer", ["sgd", "adam", "rmsprop"], [
            (["sgd"], [_float("sgd_lr", 1e-4, 1.0, "log"),
                       _float("sgd_momentum", 0.0, 0.99)]),
            (["adam"], [_float("adam_lr", 1e-5, 0.1, "log"),
                        _float("adam_beta1", 0.5, 0.99),
                        _float("adam_beta2", 0.9, 0.9999, "reverse_log")]),
            (["rmsprop"], [_float("rmsprop_lr", 1e-5, 0.1, "log")]),
        ]),
    ], optimizer_choice, 0.08)),
    ("model_tree", ([
        _categorical("model", ["linear", "tree"], [
            (["linear"], [_int("degree", 1, 3, [
                ([2, 3], [_float("l2", 1e-6, 1.0, "log")])])]),
            (["tree"], [
                _categorical("booster", ["gbdt", "dart"], [
                    (["dart"], [_float("drop_rate", 0.0, 0.5)])]),
                _float("learning_rate", 1e-3, 1.0, "log"),
                _int("max_depth", 2, 12),
                _discrete("bagging_fraction", [0.5, 0.7, 0.9, 1.0], [
                    ([0.5, 0.7, 0.9], [_int("bagging_freq", 1, 10)])]),
            ]),
        ]),
    ], model_tree, 0.15)),
])
CONDITIONAL_GROUP = "conditional"  # In --functions, every problem.


def walk(nodes, choose, params):
    """Fills `params` depth-first: choose(node) gives each active node's
    value; a node's children are visited when its value activates them."""
    for node in nodes:
        value = choose(node)
        params[node[1]] = value
        for values, children in node[4]:
            if value in values:
                walk(children, choose, params)
    return params


def optuna_choose(trial):
    """Suggests a node's value through an Optuna trial (define-by-run)."""
    def choose(node):
        kind, name, domain, scale, _ = node
        if kind == "float":
            low, high = domain
            if scale == "reverse_log":
                return 1 - trial.suggest_float(f"one_minus_{name}", 1 - high,
                                               1 - low, log=True)
            return trial.suggest_float(name, low, high, log=scale == "log")
        if kind == "int":
            return trial.suggest_int(name, domain[0], domain[1])
        return trial.suggest_categorical(name, domain)
    return choose


def random_choose(rng):
    """Draws a node's value uniformly (log-uniformly on a log scale)."""
    def choose(node):
        kind, _, domain, scale, _ = node
        if kind == "float":
            low, high = domain
            if scale == "log":
                return math.exp(rng.uniform(math.log(low), math.log(high)))
            return rng.uniform(low, high)
        if kind == "int":
            return rng.randint(domain[0], domain[1])
        return rng.choice(domain)
    return choose


# --- Reference points (the same as conditional_problems_test.cc) -----------

HAND_POINTS = [
    ("jenatton", {"x1": 0, "x2": 0, "x4": 0.0, "r8": 0.0}, 0.1),
    ("jenatton", {"x1": 0, "x2": 0, "x4": 0.5, "r8": 0.5}, 0.85),
    ("jenatton", {"x1": 0, "x2": 1, "x5": 0.1, "r8": 0.0}, 0.21),
    ("jenatton", {"x1": 1, "x3": 0, "x6": 1.0, "r9": 0.25}, 1.55),
    ("jenatton", {"x1": 1, "x3": 1, "x7": 0.2, "r9": 1.0}, 1.44),
    ("optimizer_choice", {"optimizer": "adam", "adam_lr": 0.001,
                          "adam_beta1": 0.9, "adam_beta2": 0.999}, 0.08),
    ("optimizer_choice", {"optimizer": "sgd", "sgd_lr": 0.1,
                          "sgd_momentum": 0.9}, 0.12),
    ("optimizer_choice", {"optimizer": "sgd", "sgd_lr": 0.01,
                          "sgd_momentum": 0.0}, 0.12 + 0.2 + 0.162),
    ("optimizer_choice", {"optimizer": "adam", "adam_lr": 0.01,
                          "adam_beta1": 0.5, "adam_beta2": 0.99},
     0.08 + 0.05 + 0.048 + 0.02),
    ("optimizer_choice", {"optimizer": "rmsprop",
                          "rmsprop_lr": 0.00031622776601683794}, 0.10),
    ("optimizer_choice", {"optimizer": "rmsprop", "rmsprop_lr": 0.001}, 0.1125),
    ("model_tree", {"model": "tree", "booster": "dart", "drop_rate": 0.1,
                    "learning_rate": 0.1, "max_depth": 6,
                    "bagging_fraction": 0.7, "bagging_freq": 5}, 0.15),
    ("model_tree", {"model": "linear", "degree": 1}, 0.30),
    ("model_tree", {"model": "linear", "degree": 2, "l2": 1e-5}, 0.30),
    ("model_tree", {"model": "linear", "degree": 3, "l2": 1.0}, 0.36),
    ("model_tree", {"model": "tree", "booster": "gbdt", "learning_rate": 0.001,
                    "max_depth": 12, "bagging_fraction": 1.0},
     0.16 + 0.2 + 0.144 + 0.01),
    ("model_tree", {"model": "tree", "booster": "dart", "drop_rate": 0.5,
                    "learning_rate": 0.1, "max_depth": 4,
                    "bagging_fraction": 0.5, "bagging_freq": 1},
     0.15 + 0.064 + 0.016 + 0.004 + 0.032),
]


def active_names(tree, params):
    """The names `params` activates in `tree` (a root is always active)."""
    names = []

    def visit(nodes):
        for node in nodes:
            names.append(node[1])
            if node[1] not in params:
                continue
            for values, children in node[4]:
                if params[node[1]] in values:
                    visit(children)
    visit(tree)
    return names


def check():
    """Mismatches between the problems and their reference points."""
    problems = []
    for name, params, want in HAND_POINTS:
        tree, f, optimum = PROBLEMS[name]
        if sorted(active_names(tree, params)) != sorted(params):
            problems.append(f"{name} at {params}: not the active set "
                            f"{active_names(tree, params)}")
            continue
        got = f(params)
        if abs(got - want) > 1e-12:
            problems.append(f"{name} at {params}: got {got!r}, expected {want!r}")
    for name, (_, f, optimum) in PROBLEMS.items():
        at_optimum = [p for n, p, v in HAND_POINTS if n == name and v == optimum]
        if not at_optimum:
            problems.append(f"{name}: no reference point at the optimum {optimum}")
    return problems


def format_assignment(params):
    """"name=value;..." as conditional_eval reads it: floats with every
    digit (repr), integers as integers, categories as they are."""
    return ";".join(f"{k}={v!r}" if isinstance(v, float) else f"{k}={v}"
                    for k, v in params.items())


def check_cxx(conditional_eval, points_per_problem=300):
    """check(), then C++'s values at the hand points and random points of
    each tree against Python's."""
    problems = check()
    rng = random.Random(20170806)
    cases = [(name, params) for name, params, _ in HAND_POINTS]
    for name, (tree, _, _) in PROBLEMS.items():
        cases += [(name, walk(tree, random_choose(rng), {}))
                  for _ in range(points_per_problem)]
    stdin = "".join(f"{name}\t{format_assignment(p)}\n" for name, p in cases)
    run = subprocess.run([conditional_eval], input=stdin, capture_output=True,
                         text=True, check=False)
    if run.returncode != 0:
        return problems + [f"{conditional_eval} exited {run.returncode}: "
                           f"{run.stderr.strip()}"]
    values = run.stdout.split()
    if len(values) != len(cases):
        return problems + [f"{conditional_eval} printed {len(values)} values "
                           f"for {len(cases)} points"]
    for (name, params), text in zip(cases, values):
        want = PROBLEMS[name][1](params)
        got = float(text)
        if abs(got - want) > 1e-12 * max(1.0, abs(want)):
            problems.append(f"{name} at {format_assignment(params)}: C++ "
                            f"{got!r}, Python {want!r}")
    branches = collections.Counter(
        (name, tuple(sorted(p))) for name, p in cases)
    print(f"optuna_conditional: {len(cases)} points on {len(branches)} "
          "distinct active sets compared with C++", file=sys.stderr)
    return problems


# --- Runs -------------------------------------------------------------------

SAMPLERS = ["tpe", "tpe_group", "random"]


def make_sampler(optuna, name, seed):
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed)
    if name == "tpe_group":
        return optuna.samplers.TPESampler(seed=seed, multivariate=True,
                                          group=True)
    return optuna.samplers.RandomSampler(seed=seed)


def run_one(task):
    """One study: returns (task, (f, f) per trial in ask order, seconds)."""
    import optuna  # Here, so the checks need no Optuna.
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
    function, sampler_name, mode, seed, budget = task
    tree, f, _ = PROBLEMS[function]
    workers = 1 if mode == "sequential" else int(mode[len("parallel"):])
    start = time.monotonic()
    study = optuna.create_study(direction="minimize",
                                sampler=make_sampler(optuna, sampler_name, seed))
    trials = []  # (f, reported) in ask order; no noise here.
    pending = collections.deque()

    def ask():
        trial = study.ask()
        value = f(walk(tree, optuna_choose(trial), {}))
        trials.append((value, value))
        pending.append((trial, value))

    for _ in range(min(workers, budget)):
        ask()
    while pending:
        trial, value = pending.popleft()
        study.tell(trial, value)
        if len(trials) < budget:
            ask()
    return task, trials, time.monotonic() - start


def _functions(text):
    names = []
    for name in _list("function", list(PROBLEMS) + [CONDITIONAL_GROUP])(text):
        names += list(PROBLEMS) if name == CONDITIONAL_GROUP else [name]
    if len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(
            f"a function named twice in {text!r} (a group includes each of "
            "its functions)")
    return names


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Optuna's samplers on hptune's conditional problems; "
        "prints CSV.")
    p.add_argument("--check", action="store_true",
                   help="only check the problems at their reference points")
    p.add_argument("--check-cxx", metavar="CONDITIONAL_EVAL",
                   help="--check, then compare with the C++ definitions at "
                   "random points through this conditional_eval binary")
    p.add_argument("--samplers", type=_list("sampler", SAMPLERS),
                   default=list(SAMPLERS))
    p.add_argument("--functions", type=_functions, default=list(PROBLEMS),
                   help="jenatton, optimizer_choice, model_tree (default: "
                   "all; conditional: all)")
    p.add_argument("--seeds", type=_positive, default=20,
                   help="runs per cell, with seeds 1..N")
    p.add_argument("--budgets", type=_budgets, default=[50, 100])
    p.add_argument("--modes", type=_modes, default=["sequential"])
    p.add_argument("--jobs", type=_positive, default=os.cpu_count() or 1,
                   help="studies run in parallel processes")
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    if args.check or args.check_cxx:
        problems = check_cxx(args.check_cxx) if args.check_cxx else check()
        for problem in problems:
            print(f"optuna_conditional: {problem}", file=sys.stderr)
        print("optuna_conditional: problems match" if not problems
              else "optuna_conditional: mismatches", file=sys.stderr)
        return 1 if problems else 0
    if importlib.util.find_spec("optuna") is None:
        print("optuna_conditional: no optuna for this python "
              f"({sys.executable}); run scripts/setup", file=sys.stderr)
        return 2
    run_and_report(run_one, args, lambda f: PROBLEMS[f][2],
                   "optuna_conditional")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
