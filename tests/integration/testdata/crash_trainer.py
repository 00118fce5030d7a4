#!/usr/bin/env python3
"""A trainer for serve_crash_test.cc that keeps a ledger of its reports.

Reports loss = 1 / (step + x) at steps 1..--steps, one every --step_seconds,
through the hypertune file (CLOUD_ML_HP_METRIC_FILE, the last 100 reports,
rewritten atomically as cloudml-hypertune does). After each report is in the
file it appends "trial step value" to --ledger, so the test knows every
measurement the trainer reported; SIGTERM is blocked while it does both.
SIGTERM exits at once (143) otherwise. With --daemon=TAG it first starts
a process that escapes as a daemon would: its own session (setsid), SIGTERM
ignored, an empty environment (no HPTUNE_REPLICA marker), "daemon:TAG"
among its arguments so the test can find it. Only the master (TF_CONFIG's
task type "master" or "chief", or no TF_CONFIG) reports; other replicas
wait until they are stopped. With --hold=PATH the master, after its last
report, lives until PATH exists (a test's own moment to let it end).
Standard library only; extra --name=value arguments are ignored.
"""

import json
import os
import signal
import subprocess
import sys
import time

DAEMON = ("import signal, time\n"
          "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
          "while True:\n"
          "    time.sleep(3600)\n")


def main(argv):
    signal.signal(signal.SIGTERM, lambda signum, frame: os._exit(143))
    args = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    x = float(args["x"])
    steps = int(args.get("steps", "10"))
    step_seconds = float(args.get("step_seconds", "0.1"))
    ledger = args["ledger"]
    path = os.environ["CLOUD_ML_HP_METRIC_FILE"]
    trial = os.environ["CLOUD_ML_TRIAL_ID"]
    task = json.loads(os.environ.get("TF_CONFIG", "{}")).get("task", {})
    if task.get("type", "master") not in ("master", "chief"):
        while True:
            time.sleep(3600)
    if "daemon" in args:
        subprocess.Popen([sys.executable, "-c", DAEMON,
                          "daemon:" + args["daemon"]],
                         env={}, start_new_session=True, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    reports = []
    for step in range(1, steps + 1):
        time.sleep(step_seconds)
        value = 1.0 / (step + x)
        # The report and its ledger line go together: SIGTERM waits until
        # both are written, so the ledger is exactly what was reported.
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])
        reports.append({"global_step": str(step), "loss": repr(value),
                        "timestamp": time.time(), "trial": trial})
        reports = reports[-100:]
        temporary = "%s.tmp-%d" % (path, os.getpid())
        with open(temporary, "w") as f:
            f.writelines(json.dumps(r, sort_keys=True) + "\n" for r in reports)
        os.replace(temporary, path)
        with open(ledger, "a") as f:
            f.write("%s %d %r\n" % (trial, step, value))
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    while "hold" in args and not os.path.exists(args["hold"]):
        time.sleep(0.05)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
