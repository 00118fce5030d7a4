#!/usr/bin/env python3
"""A trainer that saves a checkpoint after every epoch and resumes from it.

For the freeze-thaw test (tests/integration/freeze_thaw_run_test.cc): the
trainer contract of docs/trainer.md, "Resuming from a checkpoint". After
each epoch it writes {"x": x, "epoch": e} to $AIP_CHECKPOINT_DIR/state.json
(atomically: a temporary file, then a rename) and reports the loss with
global_step = e through the hypertune file (CLOUD_ML_HP_METRIC_FILE). When
state.json is there at the start it goes on from the epoch after the saved
one and prints "resumed from epoch E" on stdout.

The loss at epoch e (1..--epochs):
    x = 1:            0.5
    x = 2:            0.6 up to --slow_epochs, then 0.3 (a late bloomer)
    x >= 3:           0.9
A run that found no checkpoint and is not x = 1 waits after epoch
--slow_epochs for the runner to stop it (SIGTERM), for at most
--wait_seconds, so that the stop lands at that epoch however loaded the
machine is; it exits 143 on SIGTERM, 0 at the end. --ignore_checkpoint
starts at epoch 1 even when it finds one: a trainer that breaks the
contract.

Standard library only:  python3 checkpoint_trainer.py --x=2
"""

import argparse
import json
import os
import signal
import sys
import time


def loss(x, epoch, slow_epochs):
    if x == 1:
        return 0.5
    if x == 2:
        return 0.6 if epoch <= slow_epochs else 0.3
    return 0.9


def write_atomically(path, text):
    temporary = "%s.tmp-%d" % (path, os.getpid())
    with open(temporary, "w") as f:
        f.write(text)
    os.replace(temporary, path)


def wait_for_the_stop(seconds):
    """Waits up to `seconds` for the runner's SIGTERM (whose handler exits),
    so that a stop lands at this step however loaded the machine is."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.05)


class Reports:
    """cloudml-hypertune's metric file: every report so far, rewritten."""

    def __init__(self, path, trial):
        self._path = path
        self._trial = trial
        self._lines = []

    def report(self, value, epoch):
        if not self._path:
            return
        self._lines.append(json.dumps({
            "global_step": str(epoch), "loss": str(value),
            "timestamp": time.time(), "trial": self._trial}) + "\n")
        write_atomically(self._path, "".join(self._lines))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--x", type=float, required=True)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--slow_epochs", type=int, default=2)
    parser.add_argument("--wait_seconds", type=float, default=120)
    parser.add_argument("--ignore_checkpoint", action="store_true")
    args, _ = parser.parse_known_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    x = int(round(args.x))
    checkpoints = os.environ["AIP_CHECKPOINT_DIR"]
    state_path = os.path.join(checkpoints, "state.json")
    first = 1
    found = os.path.exists(state_path)
    if found and not args.ignore_checkpoint:
        with open(state_path) as f:
            state = json.load(f)
        if state["x"] != x:
            sys.exit("checkpoint of x=%s, not x=%s" % (state["x"], x))
        first = state["epoch"] + 1
        print("resumed from epoch %d" % state["epoch"], flush=True)
    reports = Reports(os.environ.get("CLOUD_ML_HP_METRIC_FILE"),
                      os.environ.get("CLOUD_ML_TRIAL_ID", ""))
    for epoch in range(first, args.epochs + 1):
        write_atomically(state_path, json.dumps({"x": x, "epoch": epoch}))
        reports.report(loss(x, epoch, args.slow_epochs), epoch)
        if x != 1 and not found and epoch == args.slow_epochs:
            wait_for_the_stop(args.wait_seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
