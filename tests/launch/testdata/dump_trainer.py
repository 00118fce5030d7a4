#!/usr/bin/env python3
"""A fake training program for launcher and engine tests (stdlib only).

Run as `python3 dump_trainer.py [args...]` in place of a real trainer. It
records what it was started with, then behaves as the test tells it.

What it records: when DUMP_DIR is set, it writes DUMP_DIR/<type>-<index>.json
(type and index from TF_CONFIG's task, "replica-0" without TF_CONFIG),
atomically (temporary file + rename), after its signal handlers and its
grandchild are set up, so a test that sees the file may signal it at once:
  name          "<type>-<index>"
  argv          sys.argv[1:]
  tf_config     TF_CONFIG parsed (null when unset)
  cluster_spec  CLUSTER_SPEC parsed (null when unset)
  env           the contract's variables that are set: TF_CONFIG,
                CLUSTER_SPEC, CLOUD_ML_TRIAL_ID, CLOUD_ML_JOB_ID,
                CLOUD_ML_HP_METRIC_FILE, CLOUD_ML_HP_METRIC_TAG, MASTER_ADDR,
                MASTER_PORT, WORLD_SIZE, RANK, CUDA_VISIBLE_DEVICES,
                PYTHONPATH, plus those named in the extra_env knob; a variable
                that is not set is absent (so "RANK" in env tells presence)
  pid, pgid, ppid, cwd
  attempt       1 on the first start of this replica, 2 on the next, ...
                (counted in DUMP_DIR/<name>.starts)
  grandchild_pid  pid of the sleeping grandchild, or null
  open_fds      the file descriptors it inherited (should be [0, 1, 2])
With DUMP_PER_TRIAL=1 the files go to DUMP_DIR/<CLOUD_ML_TRIAL_ID>/ instead,
for tests of jobs with many trials.
It also prints "dump_trainer <name> attempt <n> started" to stdout and
"dump_trainer <name> stderr" to stderr (for log tests).

Knobs: each knob K is read from, most specific first,
  --dump-K-<type>-<index>=V, env DUMP_K_<TYPE>_<INDEX>   (one replica)
  --dump-K-<type>=V,         env DUMP_K_<TYPE>           (a task type)
  --dump-K=V,                env DUMP_K                  (every replica)
where flags use '-' and env names '_' in upper case, e.g.
--dump-exit-code-worker-1=3 or DUMP_EXIT_CODE_WORKER_1=3. Unknown flags
(the user's, --job-dir, hyperparameters) are ignored. Knobs, in the order
they act:
  extra_env=A,B       also record these environment variables
  ignore_sigterm=1    ignore SIGTERM (only SIGKILL ends it); the grandchild
                      inherits that
  on_sigterm_exit=N   on SIGTERM, write DUMP_DIR/<name>.sigterm and exit N
  grandchild=1        start a grandchild that sleeps an hour in this
                      process's group (to test that nothing is orphaned)
  grandchild=daemon   the same, escaped as a daemon does: its own session,
                      SIGTERM ignored, an empty environment
  fail_times=K        on the first K starts, exit with fail_code (default 1)
                      right after dumping
  print=TEXT          print TEXT as a line on stdout (e.g. "accuracy=0.9")
  metric=V            report V for CLOUD_ML_HP_METRIC_TAG to the hypertune
                      file CLOUD_ML_HP_METRIC_FILE, as cloudml-hypertune does
  metric_param=NAME   the same with the value of the --NAME= hyperparameter
  metric_step=S       global_step of that report (default 1)
  await=NAME:K,...    wait until each replica NAME (e.g. worker-0) has
                      dumped its K-th start, so a test need not guess how
                      long other replicas take to start; exits 124 after
                      120 s
  sleep=SECONDS       then sleep that long; "forever" sleeps until a signal
  kill_self=SIG       then kill itself with signal number SIG
  exit_code=N         then exit with N (default 0)
"""

import json
import os
import signal
import subprocess
import sys
import time

CONTRACT_VARS = [
    "TF_CONFIG", "CLUSTER_SPEC", "CLOUD_ML_TRIAL_ID", "CLOUD_ML_JOB_ID",
    "CLOUD_ML_HP_METRIC_FILE", "CLOUD_ML_HP_METRIC_TAG", "MASTER_ADDR",
    "MASTER_PORT", "WORLD_SIZE", "RANK", "CUDA_VISIBLE_DEVICES", "PYTHONPATH",
    "AIP_MODEL_DIR", "AIP_CHECKPOINT_DIR", "AIP_TENSORBOARD_LOG_DIR",
]


def parse_json_env(name):
    text = os.environ.get(name)
    if text is None:
        return None
    return json.loads(text)


def replica_identity(tf_config):
    if not tf_config or "task" not in tf_config:
        return "replica", 0
    task = tf_config["task"]
    return task.get("type", "replica"), int(task.get("index", 0))


def flag_values(argv):
    values = {}
    for arg in argv:
        if arg.startswith("--") and "=" in arg:
            name, value = arg[2:].split("=", 1)
            values[name] = value
    return values


class Knobs:
    def __init__(self, argv, task_type, index):
        self.flags = flag_values(argv)
        self.task_type = task_type
        self.index = index

    def get(self, knob, default=None):
        flag = "dump-" + knob.replace("_", "-")
        env = "DUMP_" + knob.upper()
        suffixes = [
            ("-%s-%d" % (self.task_type, self.index),
             "_%s_%d" % (self.task_type.upper(), self.index)),
            ("-" + self.task_type, "_" + self.task_type.upper()),
            ("", ""),
        ]
        for flag_suffix, env_suffix in suffixes:
            if flag + flag_suffix in self.flags:
                return self.flags[flag + flag_suffix]
            if env + env_suffix in os.environ:
                return os.environ[env + env_suffix]
        return default


def write_atomically(path, text):
    temporary = "%s.tmp.%d" % (path, os.getpid())
    with open(temporary, "w") as f:
        f.write(text)
    os.replace(temporary, path)


def count_start(dump_dir, name):
    if not dump_dir:
        return 1
    path = os.path.join(dump_dir, name + ".starts")
    try:
        with open(path) as f:
            starts = int(f.read().strip() or "0")
    except FileNotFoundError:
        starts = 0
    starts += 1
    write_atomically(path, str(starts))
    return starts


def open_fds():
    # fstat opens nothing, unlike listing /proc/self/fd.
    fds = []
    for fd in range(256):
        try:
            os.fstat(fd)
            fds.append(fd)
        except OSError:
            pass
    return fds


def report_metric(value, step):
    path = os.environ.get("CLOUD_ML_HP_METRIC_FILE")
    tag = os.environ.get("CLOUD_ML_HP_METRIC_TAG") or "training/hptuning/metric"
    if not path:
        return
    report = {
        "global_step": str(step),
        tag: str(value),
        "timestamp": time.time(),
        "trial": os.environ.get("CLOUD_ML_TRIAL_ID", "0"),
    }
    lines = []
    if os.path.exists(path):
        with open(path) as f:
            lines = [line for line in f.read().splitlines() if line.strip()]
    lines.append(json.dumps(report, sort_keys=True))
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    write_atomically(path, "\n".join(lines[-100:]) + "\n")


def await_starts(dump_dir, spec):
    waits = []
    for item in spec.split(","):
        name, attempt = item.rsplit(":", 1)
        waits.append((name, int(attempt)))
    deadline = time.monotonic() + 120
    while True:
        pending = [(n, k) for n, k in waits if dumped_attempt(dump_dir, n) < k]
        if not pending:
            return
        if time.monotonic() > deadline:
            print("dump_trainer: gave up waiting for %s" % pending,
                  file=sys.stderr, flush=True)
            sys.exit(124)
        time.sleep(0.01)


def dumped_attempt(dump_dir, name):
    try:
        with open(os.path.join(dump_dir, name + ".json")) as f:
            return json.load(f)["attempt"]
    except FileNotFoundError:
        return 0


def main():
    inherited_fds = open_fds()  # Before this program opens any.
    argv = sys.argv[1:]
    tf_config = parse_json_env("TF_CONFIG")
    task_type, index = replica_identity(tf_config)
    name = "%s-%d" % (task_type, index)
    knobs = Knobs(argv, task_type, index)
    dump_dir = os.environ.get("DUMP_DIR")
    if dump_dir and os.environ.get("DUMP_PER_TRIAL") == "1":
        dump_dir = os.path.join(dump_dir, os.environ.get("CLOUD_ML_TRIAL_ID",
                                                         "0"))
        os.makedirs(dump_dir, exist_ok=True)
    attempt = count_start(dump_dir, name)

    if knobs.get("ignore_sigterm") == "1":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    elif knobs.get("on_sigterm_exit") is not None:
        code = int(knobs.get("on_sigterm_exit"))

        def on_sigterm(signum, frame):
            if dump_dir:
                write_atomically(os.path.join(dump_dir, name + ".sigterm"), "1")
            os._exit(code)

        signal.signal(signal.SIGTERM, on_sigterm)

    grandchild_pid = None
    if knobs.get("grandchild") == "1":
        grandchild = subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(3600)"],
            stdin=subprocess.DEVNULL)
        grandchild_pid = grandchild.pid
    elif knobs.get("grandchild") == "daemon":
        grandchild = subprocess.Popen(
            [sys.executable, "-c",
             "import signal, time\n"
             "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
             "time.sleep(3600)"],
            env={}, start_new_session=True, stdin=subprocess.DEVNULL)
        grandchild_pid = grandchild.pid

    extra = [v for v in (knobs.get("extra_env") or "").split(",") if v]
    dump = {
        "name": name,
        "argv": argv,
        "tf_config": tf_config,
        "cluster_spec": parse_json_env("CLUSTER_SPEC"),
        "env": {k: os.environ[k] for k in CONTRACT_VARS + extra
                if k in os.environ},
        "pid": os.getpid(),
        "pgid": os.getpgid(0),
        "ppid": os.getppid(),
        "cwd": os.getcwd(),
        "attempt": attempt,
        "grandchild_pid": grandchild_pid,
        "open_fds": inherited_fds,
    }
    print("dump_trainer %s attempt %d started" % (name, attempt), flush=True)
    print("dump_trainer %s stderr" % name, file=sys.stderr, flush=True)
    if dump_dir:
        write_atomically(os.path.join(dump_dir, name + ".json"),
                         json.dumps(dump, indent=1, sort_keys=True))

    if attempt <= int(knobs.get("fail_times", "0")):
        sys.exit(int(knobs.get("fail_code", "1")))
    text = knobs.get("print")
    if text is not None:
        print(text, flush=True)
    metric = knobs.get("metric")
    metric_param = knobs.get("metric_param")
    if metric_param is not None:
        metric = flag_values(argv).get(metric_param)
    if metric is not None:
        report_metric(metric, knobs.get("metric_step", "1"))
    awaited = knobs.get("await")
    if awaited is not None:
        await_starts(dump_dir, awaited)
    sleep = knobs.get("sleep")
    if sleep == "forever":
        while True:
            time.sleep(3600)
    elif sleep is not None:
        time.sleep(float(sleep))
    kill_self = knobs.get("kill_self")
    if kill_self is not None:
        os.kill(os.getpid(), int(kill_self))
        time.sleep(10)  # The signal may be ignored; do not exit 0 by accident.
        sys.exit(125)
    sys.exit(int(knobs.get("exit_code", "0")))


if __name__ == "__main__":
    main()
