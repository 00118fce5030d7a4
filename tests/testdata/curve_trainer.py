#!/usr/bin/env python3
"""A single-replica trainer whose learning curve is a known function.

For early-stopping tests and benchmarks: the objective at step s = 1..steps is

    loss(s) = final(x, y) + (1 - final(x, y)) * exp(-s / tau(x, y)) + noise(s)
    final(x, y) = 0.1 + 0.5 * ((x - 0.3)^2 + (y - 0.7)^2)      in [0.1, 0.59]
    tau(x, y)   = 5 + 10 * x + 10 * (1 - y)                   in [5, 25] steps
    noise(s)    = noise * u, u ~ U(-1, 1) drawn by
                  random.Random("%r/%r/%d" % (x, y, s)).uniform(-1, 1)

so every curve starts near 1 and decays towards final(x, y). The optimum is
(x, y) = (0.3, 0.7), final 0.1 (tau 11 steps). Curves cross: a low x or high y
converges fast, so a trial can lead early and lose late. With --noise=0 the
values are the formula exactly (Python floats, math.exp).

Reports: at every step s with s % report_every == 0, and always at the last
step, one report through the hypertune file named by CLOUD_ML_HP_METRIC_FILE
(no file when unset; trial = CLOUD_ML_TRIAL_ID), the value under
--metric_name, global_step = s; with --stdout_metrics also a line
"<metric_name>=<value> step=<s>" on stdout (Katib's format). Values are
printed with repr(), so file and stdout agree to the last digit.

The steps it ran are the last global_step it reported: a trial stopped early
by SIGTERM reported up to the step it reached, which is how tests count the
steps early stopping saved. With --checkpoint it saves the step it reached
to $AIP_CHECKPOINT_DIR/state.json after each report (atomically) and, when
it finds that file at the start, goes on from the step after it (the
trainer contract's "Resuming from a checkpoint"). SIGTERM exits at once with status 143; a finished
run exits 0. --x and --y must lie in [0, 1]; other --name=value arguments
(extra hyperparameters, --job-dir) are accepted and ignored.

Standard library only:  python3 curve_trainer.py --x=0.3 --y=0.7 --steps=50
"""

import argparse
import collections
import json
import math
import os
import random
import signal
import sys
import time

START = 1.0


def final_loss(x, y):
    return 0.1 + 0.5 * ((x - 0.3) ** 2 + (y - 0.7) ** 2)


def tau(x, y):
    return 5.0 + 10.0 * x + 10.0 * (1.0 - y)


def loss_at(x, y, step, noise):
    final = final_loss(x, y)
    value = final + (START - final) * math.exp(-step / tau(x, y))
    if noise:
        rng = random.Random("%r/%r/%d" % (x, y, step))
        value += noise * rng.uniform(-1.0, 1.0)
    return value


class MetricFile:
    """cloudml-hypertune's format: the last 100 reports, written atomically."""

    def __init__(self, path, trial):
        self._path = path
        self._trial = trial
        self._reports = collections.deque(maxlen=100)

    def report(self, metric, value, step):
        self._reports.append({"global_step": str(step), metric: str(value),
                              "timestamp": time.time(), "trial": self._trial})
        directory = os.path.dirname(self._path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        temporary = "%s.tmp-%d" % (self._path, os.getpid())
        with open(temporary, "w") as f:
            f.writelines(json.dumps(r, sort_keys=True) + "\n"
                         for r in self._reports)
        os.replace(temporary, self._path)


def parse_args(argv):
    # No abbreviations: an extra hyperparameter such as --step must not be
    # taken for --steps.
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     allow_abbrev=False)
    parser.add_argument("--x", type=float, required=True)
    parser.add_argument("--y", type=float, required=True)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--report_every", type=int, default=1)
    parser.add_argument("--step_seconds", type=float, default=0.01,
                        help="sleep per step")
    parser.add_argument("--metric_name", default="loss")
    parser.add_argument("--noise", type=float, default=0.01,
                        help="amplitude of the deterministic noise")
    parser.add_argument("--stdout_metrics", action="store_true")
    parser.add_argument("--checkpoint", action="store_true")
    args, ignored = parser.parse_known_args(argv)
    for name in ("x", "y"):
        if not 0.0 <= getattr(args, name) <= 1.0:
            parser.error("--%s must be in [0, 1], got %r" %
                         (name, getattr(args, name)))
    if args.steps < 1 or args.report_every < 1:
        parser.error("--steps and --report_every must be >= 1, got %d and %d"
                     % (args.steps, args.report_every))
    if args.step_seconds < 0 or args.noise < 0:
        parser.error("--step_seconds and --noise must be >= 0, got %r and %r"
                     % (args.step_seconds, args.noise))
    for argument in ignored:
        if not argument.startswith("--"):
            parser.error("unexpected argument %r" % argument)
    return args


def main(argv):
    signal.signal(signal.SIGTERM, lambda signum, frame: os._exit(143))
    args = parse_args(argv)
    path = os.environ.get("CLOUD_ML_HP_METRIC_FILE")
    trial = os.environ.get("CLOUD_ML_TRIAL_ID", "0")
    metric_file = MetricFile(path, trial) if path else None
    state = None
    first = 1
    if args.checkpoint:
        state = os.path.join(os.environ["AIP_CHECKPOINT_DIR"], "state.json")
        if os.path.exists(state):
            with open(state) as f:
                first = json.load(f)["step"] + 1
    for step in range(first, args.steps + 1):
        if args.step_seconds:
            time.sleep(args.step_seconds)
        if step % args.report_every and step != args.steps:
            continue
        value = loss_at(args.x, args.y, step, args.noise)
        if metric_file:
            metric_file.report(args.metric_name, value, step)
        if args.stdout_metrics:
            print("%s=%r step=%d" % (args.metric_name, value, step), flush=True)
        if state:
            temporary = "%s.tmp-%d" % (state, os.getpid())
            with open(temporary, "w") as f:
                json.dump({"step": step}, f)
            os.replace(temporary, state)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
