#!/usr/bin/env python3
"""A trainer whose later trials are bad from their first epoch and wait there.

For end-to-end tests of a designer beside a stopping rule
(tests/integration/multi_fidelity_run_test.cc): which trials a rule stops
must not depend on how loaded the machine is, so a trial that is to be
stopped waits for the runner's SIGTERM instead of racing it to its end.

The loss at epoch e (1..--epochs) of trial n (CLOUD_ML_TRIAL_ID):
    n <= --full_trials:  (x - 0.3)^2 + 0.5 / e       runs to the end
    n >  --full_trials:  1 + (x - 0.3)^2 + 0.5 / e   waits after --hold_epoch
A waiting trial is worse at every epoch than every trial before it, so a
median rule with --full_trials completed trials to compare against stops it
at --hold_epoch (by default 3, the first step the median rules judge in a
study of 12-epoch curves: a quarter of the longest). It waits for at most
--wait_seconds, exits 143 on SIGTERM and 0 at the end.
Reports go through the hypertune file (CLOUD_ML_HP_METRIC_FILE) with
global_step = e, written as checkpoint_trainer.py writes them.

Standard library only:  python3 held_trainer.py --x=0.3
"""

import argparse
import os
import signal
import sys

from checkpoint_trainer import Reports, wait_for_the_stop


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--x", type=float, required=True)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--full_trials", type=int, default=5)
    parser.add_argument("--hold_epoch", type=int, default=3)
    parser.add_argument("--wait_seconds", type=float, default=120)
    args, _ = parser.parse_known_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    trial = os.environ.get("CLOUD_ML_TRIAL_ID", "")
    held = int(trial or 0) > args.full_trials
    reports = Reports(os.environ.get("CLOUD_ML_HP_METRIC_FILE"), trial)
    for epoch in range(1, args.epochs + 1):
        reports.report((1 if held else 0) + (args.x - 0.3) ** 2 + 0.5 / epoch,
                       epoch)
        if held and epoch == args.hold_epoch:
            wait_for_the_stop(args.wait_seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
