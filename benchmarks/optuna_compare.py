#!/usr/bin/env python3
"""Optuna's samplers on hptune's optimisation-quality suite.

The Optuna side of benchmarks/quality_compare.sh: runs Optuna's TPESampler and
RandomSampler on the same test functions (same formulas, same search spaces
through suggest_float / suggest_int / suggest_categorical), seeds, budgets and
worker modes as benchmarks/quality/quality_harness, and prints the same CSV:

  library,designer,function,mode,budget,seeds,median_regret,min_regret,max_regret

Modes mirror the harness (benchmarks/quality/designer_run.h): "sequential"
evaluates each trial before asking for the next; "parallelN" keeps N trials
pending through study.ask()/study.tell(): it asks for N, then repeatedly tells
the oldest pending trial's value and asks for one more with the other N - 1
still running. Samplers use Optuna's defaults (TPE: 10 random start-up trials,
independent sampling, constant_liar off, so running trials are not modelled).

The formulas are those of benchmarks/quality/test_functions.h (Surjanovic &
Bingham, Virtual Library of Simulation Experiments); --check evaluates the
reference points of test_functions_test.cc so both sides stay the same.
The noisy functions ("noisy": branin_noisy, ..., mixed_noisy) tell Optuna
f + noise_sd * z, z the harness's own draw for (seed, trial number)
(ObservationNoise in designer_run.h, pinned by --check too), and their regret
is f at the trial told the least, as the harness counts it.

Runs under Debian's /usr/bin/python3 with python3-optuna 3.1
(scripts/setup installs it). Progress goes to stderr.

"hptune_gp" is hptune's own designer inside Optuna
(hptune.optuna.GPSampler(seed=seed), each study on its own local engine):
the same studies through Optuna's define-by-run interface, beside the
native harness's "gp" on the same seeds. It needs a python that imports
hptune (the tests' venv: build/tests/python/work/venv/bin/python, which
sees Debian's Optuna) and $HPTUNE_BINARY (an absolute path).

Usage:
  /usr/bin/python3 benchmarks/optuna_compare.py [--samplers=tpe,random,hptune_gp]
      [--functions=LIST] [--seeds=20] [--budgets=50,100]
      [--modes=sequential,parallel4] [--jobs=N]
  /usr/bin/python3 benchmarks/optuna_compare.py --check
"""

import argparse
import collections
import importlib.util
import math
import multiprocessing
import os
import statistics
import sys
import time

# --- The test functions (keep in step with test_functions.{h,cc}) ---------


def branin(x1, x2):
    """Branin-Hoo; f* = 5 / (4 pi) = 0.397887."""
    b = 5.1 / (4 * math.pi ** 2)
    c = 5 / math.pi
    t = 1 / (8 * math.pi)
    return (x2 - b * x1 * x1 + c * x1 - 6) ** 2 + 10 * (1 - t) * math.cos(x1) + 10


_HARTMANN_ALPHA = (1.0, 1.2, 3.0, 3.2)
_H6_A = ((10, 3, 17, 3.5, 1.7, 8),
         (0.05, 10, 17, 0.1, 8, 14),
         (3, 3.5, 1.7, 10, 17, 8),
         (17, 8, 0.05, 10, 0.1, 14))
_H6_P = ((1312, 1696, 5569, 124, 8283, 5886),
         (2329, 4135, 8307, 3736, 1004, 9991),
         (2348, 1451, 3522, 2883, 3047, 6650),
         (4047, 8828, 8732, 5743, 1091, 381))


def _hartmann(x, a_rows, p_rows):
    """-sum_i alpha_i exp(-sum_j A_ij (x_j - 1e-4 P_ij)^2)."""
    total = 0.0
    for alpha, a, p in zip(_HARTMANN_ALPHA, a_rows, p_rows):
        inner = sum(aj * (xj - 1e-4 * pj) ** 2 for aj, xj, pj in zip(a, x, p))
        total += alpha * math.exp(-inner)
    return -total


def hartmann6(x):
    """Hartmann 6-D on [0, 1]^6; f* = -3.32237."""
    return _hartmann(x, _H6_A, _H6_P)


def ackley(x):
    """Ackley (a = 20, b = 0.2, c = 2 pi); f* = 0 at the origin."""
    d = len(x)
    squares = sum(v * v for v in x)
    cosines = sum(math.cos(2 * math.pi * v) for v in x)
    return (-20 * math.exp(-0.2 * math.sqrt(squares / d))
            - math.exp(cosines / d) + 20 + math.e)


def rosenbrock(x):
    """Rosenbrock; f* = 0 at (1, ..., 1)."""
    return sum(100 * (x[i + 1] - x[i] ** 2) ** 2 + (x[i] - 1) ** 2
               for i in range(len(x) - 1))


def levy(x):
    """Levy, w_i = 1 + (x_i - 1) / 4; f* = 0 at (1, ..., 1)."""
    w = [1 + (v - 1) / 4 for v in x]
    total = math.sin(math.pi * w[0]) ** 2
    for wi in w[:-1]:
        total += (wi - 1) ** 2 * (1 + 10 * math.sin(math.pi * wi + 1) ** 2)
    total += (w[-1] - 1) ** 2 * (1 + math.sin(2 * math.pi * w[-1]) ** 2)
    return total


def styblinski_tang(x):
    """Styblinski-Tang; f* = -39.16616570377142 d."""
    return sum(v ** 4 - 16 * v * v + 5 * v for v in x) / 2


_MIXED_MU = {"a": -1.0, "b": 1.0, "c": 3.0, "d": 0.0}
_MIXED_BASE = {"a": 0.5, "b": 0.0, "c": 1.0, "d": 2.0}


def mixed(x, y, n, c):
    """hptune's mixed-type function; f* = 0 at x=1, y=-2, n=7, c=b."""
    return ((x - _MIXED_MU[c]) ** 2 + (y + 2) ** 2 + 0.25 * (n - 7) ** 2
            + _MIXED_BASE[c] + 0.5 * (1 - math.cos(2 * math.pi * (y + 2))))


_NARROW_BOWL = {"a": (0.4, 0.3), "b": (0.2, 0.5), "d": (0.6, 0.7)}


def narrow_category(c, x, y):
    """hptune's narrow-category function; f* = 0 at c=c, x=0.85, y=0.5."""
    if c == "c":
        return (0.5 + (y - 0.5) ** 2
                - 0.5 * math.exp(-(x - 0.85) ** 2 / (2 * 0.05 ** 2)))
    base, mu = _NARROW_BOWL[c]
    return base + (x - mu) ** 2 + (y - 0.5) ** 2


# The held-out functions (test_functions.h says why they are kept apart).


def goldstein_price(x1, x2):
    """Goldstein-Price; f* = 3 at (0, -1)."""
    first = 1 + (x1 + x2 + 1) ** 2 * (19 - 14 * x1 + 3 * x1 ** 2 - 14 * x2
                                      + 6 * x1 * x2 + 3 * x2 ** 2)
    second = 30 + (2 * x1 - 3 * x2) ** 2 * (18 - 32 * x1 + 12 * x1 ** 2
                                            + 48 * x2 - 36 * x1 * x2
                                            + 27 * x2 ** 2)
    return first * second


def six_hump_camel(x1, x2):
    """Six-hump camel; f* = -1.031628453489877."""
    return ((4 - 2.1 * x1 ** 2 + x1 ** 4 / 3) * x1 ** 2 + x1 * x2
            + (-4 + 4 * x2 ** 2) * x2 ** 2)


_H3_A = ((3, 10, 30), (0.1, 10, 35), (3, 10, 30), (0.1, 10, 35))
_H3_P = ((3689, 1170, 2673), (4699, 4387, 7470), (1091, 8732, 5547),
         (381, 5743, 8828))


def hartmann3(x):
    """Hartmann 3-D on [0, 1]^3; f* = -3.862779787332659."""
    return _hartmann(x, _H3_A, _H3_P)


_SHEKEL_BETA = (0.1, 0.2, 0.2, 0.4, 0.4, 0.6, 0.3, 0.7, 0.5, 0.5)
_SHEKEL_CENTRES = ((4, 4, 4, 4), (1, 1, 1, 1), (8, 8, 8, 8), (6, 6, 6, 6),
                   (3, 7, 3, 7), (2, 9, 2, 9), (5, 3, 5, 3), (8, 1, 8, 1),
                   (6, 2, 6, 2), (7, 3.6, 7, 3.6))


def shekel(x):
    """Shekel, m = 10, on [0, 10]^4; f* = -10.536443153483527."""
    return -sum(1 / (sum((xj - cj) ** 2 for xj, cj in zip(x, c)) + beta)
                for beta, c in zip(_SHEKEL_BETA, _SHEKEL_CENTRES))


def dixon_price(x):
    """Dixon-Price; f* = 0."""
    return (x[0] - 1) ** 2 + sum((i + 1) * (2 * x[i] ** 2 - x[i - 1]) ** 2
                                 for i in range(1, len(x)))


def powell(x):
    """Powell (length a multiple of 4); f* = 0 at the origin."""
    total = 0.0
    for i in range(0, len(x), 4):
        a, b, c, d = x[i:i + 4]
        total += ((a + 10 * b) ** 2 + 5 * (c - d) ** 2 + (b - 2 * c) ** 4
                  + 10 * (a - d) ** 4)
    return total


# name -> (parameters, f(params dict), optimum). A parameter is
# ("float", name, low, high), ("int", name, low, high) or
# ("categorical", name, choices).
def _box(d, low, high):
    return [("float", f"x{i}", low, high) for i in range(1, d + 1)]


def _coords(d):
    return lambda p: [p[f"x{i}"] for i in range(1, d + 1)]


def _on_box(d, f):
    coords = _coords(d)
    return lambda p: f(coords(p))


SUITE = collections.OrderedDict([
    ("branin", ([("float", "x1", -5.0, 10.0), ("float", "x2", 0.0, 15.0)],
                lambda p: branin(p["x1"], p["x2"]), 5 / (4 * math.pi))),
    ("hartmann6", (_box(6, 0.0, 1.0), _on_box(6, hartmann6), -3.32237)),
    ("ackley5", (_box(5, -10.0, 30.0), _on_box(5, ackley), 0.0)),
    ("rosenbrock4", (_box(4, -5.0, 10.0), _on_box(4, rosenbrock), 0.0)),
    ("levy4", (_box(4, -10.0, 10.0), _on_box(4, levy), 0.0)),
    ("styblinski_tang8", (_box(8, -5.0, 5.0), _on_box(8, styblinski_tang),
                          8 * -39.16616570377142)),
    ("mixed", ([("float", "x", -5.0, 5.0), ("float", "y", -5.0, 5.0),
                ("int", "n", 1, 20), ("categorical", "c", ["a", "b", "c", "d"])],
               lambda p: mixed(p["x"], p["y"], p["n"], p["c"]), 0.0)),
])

HOLDOUT = collections.OrderedDict([
    ("goldstein_price", (_box(2, -2.0, 2.0),
                         lambda p: goldstein_price(p["x1"], p["x2"]), 3.0)),
    ("six_hump_camel", ([("float", "x1", -3.0, 3.0), ("float", "x2", -2.0, 2.0)],
                        lambda p: six_hump_camel(p["x1"], p["x2"]),
                        -1.031628453489877)),
    ("hartmann3", (_box(3, 0.0, 1.0), _on_box(3, hartmann3),
                   -3.862779787332659)),
    ("shekel4", (_box(4, 0.0, 10.0), _on_box(4, shekel), -10.536443153483527)),
    ("dixon_price6", (_box(6, -10.0, 10.0), _on_box(6, dixon_price), 0.0)),
    ("powell8", (_box(8, -4.0, 5.0), _on_box(8, powell), 0.0)),
])
# The suite with noise: name -> standard deviation (test_functions.h's
# NoisySuite: a tenth of random search's median regret at 100 trials).
NOISE_SD = collections.OrderedDict([
    ("branin", 0.04), ("hartmann6", 0.1), ("ackley5", 1.0),
    ("rosenbrock4", 100.0), ("levy4", 0.3), ("styblinski_tang8", 10.0),
    ("mixed", 0.2)])
NOISY = collections.OrderedDict(
    (f"{name}_noisy", SUITE[name]) for name in NOISE_SD)
CATEGORICAL = collections.OrderedDict([
    ("narrow_category", ([("categorical", "c", ["a", "b", "c", "d"]),
                         ("float", "x", 0.0, 1.0), ("float", "y", 0.0, 1.0)],
                        lambda p: narrow_category(p["c"], p["x"], p["y"]),
                        0.0)),
])
FUNCTIONS = collections.OrderedDict(
    list(SUITE.items()) + list(HOLDOUT.items()) + list(NOISY.items())
    + list(CATEGORICAL.items()))
HOLDOUT_GROUP = "holdout"  # In --functions, every HOLDOUT function.
NOISY_GROUP = "noisy"  # In --functions, every NOISY function.


def noise_sd(function):
    """The noise of `function`'s reported values (0: none)."""
    return NOISE_SD[function[:-len("_noisy")]] if function in NOISY else 0.0


# --- Observation noise (designer_run.h's ObservationNoise) -----------------

_MASK64 = (1 << 64) - 1
_NOISE_SALT = 0x6E6F697365  # "noise"


def _splitmix64(seed, n):
    """Output n (1-based) of the SplitMix64 stream of `seed`."""
    z = (seed + n * 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def observation_noise(seed, number):
    """The standard normal draw for trial `number` (1-based) of seed's run:
    Box-Muller on outputs 2 number - 1 and 2 number of seed ^ salt's stream."""
    stream = seed ^ _NOISE_SALT
    u1 = 1.0 - (_splitmix64(stream, 2 * number - 1) >> 11) * 2.0 ** -53
    u2 = (_splitmix64(stream, 2 * number) >> 11) * 2.0 ** -53
    return math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2)


def simple_regret(trials, budget, optimum):
    """f at the first trial of the first `budget` (value, reported) pairs
    that reported the least, minus the optimum (SimpleRegret's rule)."""
    prefix = trials[:budget]
    best = min(range(len(prefix)), key=lambda i: prefix[i][1])
    return prefix[best][0] - optimum


# --- Reference points (the same as test_functions_test.cc) ---------------


def check():
    """Returns the list of mismatches between the functions and the references."""
    pi = math.pi
    s = math.sin(3 * pi / 4 + 1)
    cases = [
        ("branin(-pi, 12.275)", branin(-pi, 12.275), 0.397887357729738, 1e-9),
        ("branin(pi, 2.275)", branin(pi, 2.275), 0.397887357729738, 1e-9),
        ("branin(9.42478, 2.475)", branin(9.42478, 2.475), 0.397887357729738, 1e-9),
        ("branin(0, 0)", branin(0, 0), 56 - 10 / (8 * pi), 1e-9),
        ("hartmann6(x*)", hartmann6([0.20169, 0.150011, 0.476874, 0.275332,
                                     0.311652, 0.6573]), -3.32237, 1e-5),
        ("hartmann6(0.5)", hartmann6([0.5] * 6), -0.5053149917022333, 1e-9),
        ("ackley(0)", ackley([0.0] * 5), 0.0, 1e-9),
        ("ackley(1)", ackley([1.0] * 5), 20 * (1 - math.exp(-0.2)), 1e-9),
        ("rosenbrock(1)", rosenbrock([1.0] * 4), 0.0, 0),
        ("rosenbrock(1,2,3,4)", rosenbrock([1.0, 2.0, 3.0, 4.0]), 2705.0, 0),
        ("rosenbrock(0)", rosenbrock([0.0] * 4), 3.0, 0),
        ("levy(1)", levy([1.0] * 4), 0.0, 1e-9),
        ("levy(0)", levy([0.0] * 4), 0.5 + 3 / 16 * (1 + 10 * s * s) + 2 / 16, 1e-9),
        ("styblinski_tang(x*)", styblinski_tang([-2.903534] * 8), -39.16617 * 8, 1e-4),
        ("styblinski_tang(1)", styblinski_tang([1.0] * 8), -40.0, 0),
        ("mixed(1, -2, 7, b)", mixed(1, -2, 7, "b"), 0.0, 1e-9),
        ("mixed(0, 0, 1, d)", mixed(0, 0, 1, "d"), 15.0, 1e-9),
        ("mixed(-1, -1.5, 7, a)", mixed(-1, -1.5, 7, "a"), 1.75, 1e-9),
        ("mixed(3, -2, 7, c)", mixed(3, -2, 7, "c"), 1.0, 1e-9),
        ("narrow_category(c, 0.9, 0.5)", narrow_category("c", 0.9, 0.5),
         0.1967346701436833, 1e-12),
        ("narrow_category(c, 0.1, 0.7)", narrow_category("c", 0.1, 0.7), 0.54,
         1e-12),
        ("narrow_category(d, 0, 0)", narrow_category("d", 0, 0), 1.34, 1e-12),
        ("goldstein_price(0, 0)", goldstein_price(0, 0), 600.0, 1e-9),
        ("goldstein_price(1, 1)", goldstein_price(1, 1), 1876.0, 1e-9),
        ("six_hump_camel(1, 1)", six_hump_camel(1, 1), 4 - 2.1 + 1 / 3 + 1, 1e-9),
        ("six_hump_camel(-x*)", six_hump_camel(-0.0898420131696692,
                                               0.7126563960629594),
         -1.031628453489877, 1e-9),
        ("hartmann3(x*)", hartmann3([0.114614, 0.555649, 0.852547]), -3.86278,
         1e-5),
        ("hartmann3(0.5)", hartmann3([0.5] * 3), -0.6280220150705937, 1e-9),
        ("shekel(4)", shekel([4.0] * 4), -10.5363, 1e-4),
        ("shekel(0)", shekel([0.0] * 4), -0.3217290516382167, 1e-9),
        ("dixon_price(1)", dixon_price([1.0] * 6), 20.0, 0),
        ("powell(1)", powell([1.0] * 8), 244.0, 0),
    ]
    minimisers = {
        "branin": {"x1": pi, "x2": 2.275},
        "hartmann6": dict(zip([f"x{i}" for i in range(1, 7)],
                              [0.20169, 0.150011, 0.476874, 0.275332, 0.311652,
                               0.6573])),
        "ackley5": {f"x{i}": 0.0 for i in range(1, 6)},
        "rosenbrock4": {f"x{i}": 1.0 for i in range(1, 5)},
        "levy4": {f"x{i}": 1.0 for i in range(1, 5)},
        "styblinski_tang8": {f"x{i}": -2.9035340277711783 for i in range(1, 9)},
        "mixed": {"x": 1.0, "y": -2.0, "n": 7, "c": "b"},
        "narrow_category": {"c": "c", "x": 0.85, "y": 0.5},
        "goldstein_price": {"x1": 0.0, "x2": -1.0},
        "six_hump_camel": {"x1": 0.0898420131696692, "x2": -0.7126563960629594},
        "hartmann3": {"x1": 0.11458887895319075, "x2": 0.555648894340092,
                      "x3": 0.8525469783718772},
        "shekel4": dict(zip(["x1", "x2", "x3", "x4"],
                            [4.000746868418765, 3.9995094799887116] * 2)),
        "dixon_price6": {f"x{i}": 2 ** (-(2 ** i - 2) / 2 ** i)
                         for i in range(1, 7)},
        "powell8": {f"x{i}": 0.0 for i in range(1, 9)},
    }
    for name, point in minimisers.items():
        _, f, optimum = FUNCTIONS[name]
        cases.append((f"{name} at its minimiser", f(point), optimum, 1e-5))
    # designer_run_test.cc's pinned draws.
    cases += [
        ("observation_noise(1, 1)", observation_noise(1, 1), -1.507787093336201,
         1e-14),
        ("observation_noise(1, 2)", observation_noise(1, 2), 0.4618839759392781,
         1e-14),
        ("observation_noise(7, 100)", observation_noise(7, 100),
         1.0000023977454744, 1e-14),
        ("simple_regret, noise-free", simple_regret(
            [(5, 5), (3, 3), (4, 4), (1, 1)], 3, 0.5), 2.5, 0),
        ("simple_regret, noisy", simple_regret(
            [(5, 5), (1, 3), (4, 0), (2, 3)], 4, 0), 4, 0),
    ]
    return [f"{what}: got {got!r}, expected {want!r}"
            for what, got, want, tol in cases if abs(got - want) > tol]


# --- Runs -------------------------------------------------------------------


def _suggest(trial, parameters):
    params = {}
    for p in parameters:
        if p[0] == "float":
            params[p[1]] = trial.suggest_float(p[1], p[2], p[3])
        elif p[0] == "int":
            params[p[1]] = trial.suggest_int(p[1], p[2], p[3])
        else:
            params[p[1]] = trial.suggest_categorical(p[1], p[2])
    return params


def run_one(task):
    """One study: returns (task, (f, reported) per trial in ask order,
    seconds)."""
    import optuna  # Here, so --check needs no Optuna.
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    function, sampler_name, mode, seed, budget = task
    parameters, f, _ = FUNCTIONS[function]
    sd = noise_sd(function)
    workers = 1 if mode == "sequential" else int(mode[len("parallel"):])
    sampler = make_sampler(sampler_name, seed)
    start = time.monotonic()
    study = optuna.create_study(direction="minimize", sampler=sampler)
    trials = []  # (f, reported) in ask order.
    pending = collections.deque()

    def ask():
        trial = study.ask()
        value = f(_suggest(trial, parameters))
        reported = value
        if sd:
            reported += sd * observation_noise(seed, len(trials) + 1)
        trials.append((value, reported))
        pending.append((trial, reported))

    for _ in range(min(workers, budget)):
        ask()
    while pending:
        trial, value = pending.popleft()
        study.tell(trial, value)
        if len(trials) < budget:
            ask()
    if hasattr(sampler, "close"):
        sampler.close()  # GPSampler's local engine.
    return task, trials, time.monotonic() - start


def make_sampler(name, seed):
    import optuna
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed)
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    import hptune.optuna
    return hptune.optuna.GPSampler(seed=seed)


def _list(kind, allowed=None):
    def parse(text):
        items = text.split(",")
        if any(not i for i in items):
            raise argparse.ArgumentTypeError(f"empty item in {text!r}")
        if len(set(items)) != len(items):
            raise argparse.ArgumentTypeError(f"repeated item in {text!r}")
        for i in items:
            if allowed is not None and i not in allowed:
                raise argparse.ArgumentTypeError(
                    f"unknown {kind} {i!r} (known: {', '.join(allowed)})")
        return items
    return parse


def _functions(text):
    groups = {HOLDOUT_GROUP: list(HOLDOUT), NOISY_GROUP: list(NOISY)}
    names = []
    for name in _list("function", list(FUNCTIONS) + list(groups))(text):
        names += groups.get(name, [name])
    if len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(
            f"a function named twice in {text!r} (a group includes each of "
            "its functions)")
    return names


def _positive(text):
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return n


def _budgets(text):
    return sorted(_positive(b) for b in _list("budget")(text))


def _modes(text):
    modes = _list("mode")(text)
    for m in modes:
        n = m[len("parallel"):] if m.startswith("parallel") else ""
        if m != "sequential" and not (n.isdigit() and str(int(n)) == n and int(n) >= 2):
            raise argparse.ArgumentTypeError(
                f"unknown mode {m!r} (expected sequential or parallelN, N >= 2)")
    return modes


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Optuna's samplers on hptune's quality suite; prints CSV.")
    p.add_argument("--check", action="store_true",
                   help="only check the functions at their reference points")
    p.add_argument("--samplers",
                   type=_list("sampler", ["tpe", "random", "hptune_gp"]),
                   default=["tpe", "random"])
    p.add_argument("--functions", type=_functions, default=list(SUITE),
                   help="names (default: the suite); holdout: the held-out "
                   "functions; noisy: the noisy ones")
    p.add_argument("--seeds", type=_positive, default=20,
                   help="runs per cell, with seeds 1..N")
    p.add_argument("--budgets", type=_budgets, default=[50, 100])
    p.add_argument("--modes", type=_modes, default=["sequential", "parallel4"])
    p.add_argument("--jobs", type=_positive, default=os.cpu_count() or 1,
                   help="studies run in parallel processes")
    return p.parse_args(argv)


def run_and_report(run_one, args, optimum_of, label):
    """Runs every (function, sampler, mode, seed) study of `args` to the
    largest budget with `run_one` on args.jobs processes, then prints the
    regret table (CSV, one line per function x budget x mode x sampler) on
    stdout; progress and times go to stderr, prefixed with `label`.
    `optimum_of(function)` is the function's known minimum."""
    budget = max(args.budgets)
    tasks = [(f, s, m, seed, budget) for f in args.functions
             for s in args.samplers for m in args.modes
             for seed in range(1, args.seeds + 1)]
    results = {}
    seconds = collections.defaultdict(list)
    start = time.monotonic()
    with multiprocessing.Pool(min(args.jobs, len(tasks))) as pool:
        for done, (task, trials, took) in enumerate(
                pool.imap_unordered(run_one, tasks), start=1):
            results[task] = trials
            seconds[(task[1], task[2])].append(took)
            if done * 10 // len(tasks) != (done - 1) * 10 // len(tasks):
                print(f"{label}: {done}/{len(tasks)} studies, "
                      f"{time.monotonic() - start:.0f} s", file=sys.stderr)
    for (sampler, mode), s in sorted(seconds.items()):
        print(f"{label}: {sampler} {mode}: {len(s)} studies, median "
              f"{statistics.median(s):.3f} s per study, {sum(s):.1f} s in all",
              file=sys.stderr)
    print(f"{label}: {len(tasks)} studies in "
          f"{time.monotonic() - start:.1f} s wall on {args.jobs} processes",
          file=sys.stderr)

    print("library,designer,function,mode,budget,seeds,median_regret,"
          "min_regret,max_regret")
    for f in args.functions:
        for b in args.budgets:
            for m in args.modes:
                for s in args.samplers:
                    regrets = [simple_regret(results[(f, s, m, seed, budget)],
                                             b, optimum_of(f))
                               for seed in range(1, args.seeds + 1)]
                    print(f"optuna,{s},{f},{m},{b},{len(regrets)},"
                          f"{statistics.median(regrets):.6g},"
                          f"{min(regrets):.6g},{max(regrets):.6g}")


def main(argv):
    args = parse_args(argv)
    if args.check:
        problems = check()
        for problem in problems:
            print(f"optuna_compare: {problem}", file=sys.stderr)
        print("optuna_compare: functions match their reference points"
              if not problems else "optuna_compare: mismatches", file=sys.stderr)
        return 1 if problems else 0
    if importlib.util.find_spec("optuna") is None:
        print("optuna_compare: no optuna for this python "
              f"({sys.executable}); run scripts/setup", file=sys.stderr)
        return 2
    if "hptune_gp" in args.samplers and (
            importlib.util.find_spec("hptune") is None or
            not os.path.isabs(os.environ.get("HPTUNE_BINARY", ""))):
        print("optuna_compare: hptune_gp needs a python that imports hptune "
              "and HPTUNE_BINARY as an absolute path", file=sys.stderr)
        return 2
    run_and_report(run_one, args, lambda f: FUNCTIONS[f][2], "optuna_compare")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
