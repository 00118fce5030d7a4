"""Runs Study.optimize in a program of its own, as a user would.

    optimize_script.py SERVER TOKEN_FILE STUDY LOG [--block-trial N] [--meet N]
        [--hang] [--client-id ID]

Workers are processes; each evaluation appends "<event> <trial> <client>
<pid>" to LOG (one short write with O_APPEND: lines never interleave).
With --block-trial N the first worker to get trial N writes "blocked" and
waits (up to 120 s) for a file that never comes: the test kills it. With
--meet N each worker's first trial waits (up to 120 s) until N different
client ids have started one: proof that N trials ran at once. With --hang
every trial waits (up to 120 s) after its "start" line: the test interrupts.
"""

import argparse
import os
import time

import hptune

_ARGS = None


def note(log, event, trial):
    line = f"{event} {trial.id} {trial.client_id} {os.getpid()}\n"
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


def wait_for(done, what):
    deadline = time.monotonic() + 120
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {what} in 120 s")
        time.sleep(0.02)


def clients_started(log):
    if not os.path.exists(log):
        return set()
    with open(log) as f:
        return {line.split()[2] for line in f if line.startswith("start ")}


def objective(trial, log, block_trial, meet, hang):
    first = trial.client_id not in clients_started(log)
    note(log, "start", trial)
    if hang:
        wait_for(lambda: False, "interruption")
    if meet and first:
        wait_for(lambda: len(clients_started(log)) >= meet,
                 f"{meet} workers at once")
    marker = f"{log}.blocked-{trial.id}"
    if trial.id == block_trial and not os.path.exists(marker):
        open(marker, "w").close()
        note(log, "blocked", trial)
        wait_for(lambda: False, "SIGKILL")  # The test kills us here.
    x = trial.parameters["x"]
    return (x - 0.3) ** 2


class Objective:
    """Picklable, for the spawned workers."""

    def __init__(self, log, block_trial, meet, hang):
        self.log = log
        self.block_trial = block_trial
        self.meet = meet
        self.hang = hang

    def __call__(self, trial):
        return objective(trial, self.log, self.block_trial, self.meet,
                         self.hang)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("server")
    parser.add_argument("token_file")
    parser.add_argument("study")
    parser.add_argument("log")
    parser.add_argument("--block-trial", type=int, default=0)
    parser.add_argument("--meet", type=int, default=0)
    parser.add_argument("--hang", action="store_true")
    parser.add_argument("--client-id", default="opt")
    args = parser.parse_args()
    client = hptune.Client(args.server, token_file=args.token_file)
    study = client.load_study(args.study)
    objective = Objective(args.log, args.block_trial, args.meet, args.hang)
    try:
        study.optimize(objective, n_workers=4, client_id=args.client_id)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        raise SystemExit(130)


if __name__ == "__main__":
    main()
