#!/usr/bin/env python3
"""Extreme integers and sizes against a real `hptune serve`: no crash, and
the server's memory stays under a bound.

Each case is a job config with one field set to an extreme value (integers
at and past every width, floats past double's range, strings and lists of
megabytes), given to `hptune validate` and to `hptune jobs submit` (a job
accepted is cancelled at once), or an RPC with an extreme integer or size.
A case passes when no hptune process died of a signal, the server still
answers, and every refusal names a field. The server's peak resident memory
(VmHWM) and its resident memory at the end are reported.

    extreme_inputs.py --hptune build/src/cli/hptune [--quick] [--seed N]
        [--max-rss-mb 512] [--json out.json] [--allow-command RULE]

Runs with the interpreter of the Python package's test venv
(build/tests/python/work/venv/bin/python), which has grpc and hptune's
stubs. Exit 0 when every case passed and the peak stayed under
--max-rss-mb; 1 otherwise, naming the cases. ctest runs it with --quick as
fuzz.extreme_inputs (label slow). Results: benchmarks/RESULTS.md.
"""

import argparse
import copy
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

import grpc

from hptune.v1 import job_service_pb2, job_service_pb2_grpc
from hptune.v1 import study_pb2, study_service_pb2, study_service_pb2_grpc

INTEGERS = [-2**63, -2**31 - 1, -1, 0, 1, 2**31 - 1, 2**31, 2**53 + 1,
            2**63 - 1, 2**64]
FLOATS = [-1e308, 1e308, 5e-324]
MIB = 1 << 20

BASE = {"trainingInput": {
    "scaleTier": "CUSTOM", "masterType": "standard",
    "command": ["/bin/true"],
    "hyperparameters": {
        "goal": "MINIMIZE", "hyperparameterMetricTag": "loss",
        "maxTrials": 2, "maxParallelTrials": 1,
        "params": [
            {"parameterName": "x", "type": "DOUBLE",
             "minValue": 0, "maxValue": 1},
            {"parameterName": "n", "type": "INTEGER",
             "minValue": 1, "maxValue": 4},
            {"parameterName": "d", "type": "DISCRETE",
             "discreteValues": [1, 2, 4]},
            {"parameterName": "c", "type": "CATEGORICAL",
             "categoricalValues": ["a", "b"]}]}}}

# Where an integer or float may go: a path into BASE.
NUMBER_FIELDS = [
    ("hyperparameters", "maxTrials"),
    ("hyperparameters", "maxParallelTrials"),
    ("hyperparameters", "maxFailedTrials"),
    ("hyperparameters", "params", 0, "minValue"),
    ("hyperparameters", "params", 0, "maxValue"),
    ("hyperparameters", "params", 1, "minValue"),
    ("hyperparameters", "params", 1, "maxValue"),
    ("hyperparameters", "params", 2, "discreteValues", 0),
    ("workerCount",), ("parameterServerCount",), ("evaluatorCount",),
    ("masterConfig", "acceleratorConfig", "count"),
    ("scheduling", "maxRunningTime"), ("scheduling", "maxWaitTime"),
]


def put(config, path, value):
    at = config["trainingInput"]
    for i, key in enumerate(path[:-1]):
        if isinstance(key, str) and key not in at:
            at[key] = {} if isinstance(path[i + 1], str) else []
        at = at[key]
    at[path[-1]] = value


def config_cases(quick, rng):
    """(name, config text) pairs."""
    cases = []
    for path in NUMBER_FIELDS:
        values = INTEGERS + FLOATS
        if quick:
            values = rng.sample(values, 4)
        for value in values:
            config = copy.deepcopy(BASE)
            if path[-1] in ("maxRunningTime", "maxWaitTime"):
                value = f"{value}s"
            if path[0] == "masterConfig":
                config["trainingInput"]["masterConfig"] = {
                    "acceleratorConfig": {"type": "NVIDIA_TESLA_T4"}}
            put(config, path, value)
            cases.append((f"{'.'.join(map(str, path))}={value}",
                          json.dumps(config)))
    sizes = [64 << 10, MIB, 3 * MIB + (900 << 10)]
    if quick:
        sizes = [MIB]
    for size in sizes:
        for name, path, value in [
                ("args[0]", ("args",), ["a" * size]),
                ("jobDir", ("jobDir",), "/" + "d" * size),
                ("param name", ("hyperparameters", "params", 0,
                                "parameterName"), "p" * size),
                ("metric tag", ("hyperparameters", "hyperparameterMetricTag"),
                 "m" * size),
                ("discreteValues", ("hyperparameters", "params", 2,
                                    "discreteValues"),
                 list(range(1, size // 8))),
                ("categoricalValues", ("hyperparameters", "params", 3,
                                       "categoricalValues"),
                 [f"v{i}" for i in range(size // 8)]),
                ("params", ("hyperparameters", "params"),
                 [{"parameterName": f"p{i}", "type": "DOUBLE",
                   "minValue": 0, "maxValue": 1}
                  for i in range(size // 64)])]:
            config = copy.deepcopy(BASE)
            put(config, path, value)
            cases.append((f"{name} of {size} bytes", json.dumps(config)))
        cases += pool_size_cases(size)
    return cases + pool_name_cases()


# What a pool brings into its replicas besides the trainer: its environment
# and its container's command and args (an image no storage holds, so an
# accepted case never runs).
POOL_IMAGE = {"imageUri": "localhost/hptune-fuzz/none:1"}


def pool_case(name, pool):
    config = copy.deepcopy(BASE)
    config["trainingInput"]["masterConfig"] = pool
    return (name, json.dumps(config))


def pool_size_cases(size):
    return [
        pool_case(f"env value of {size} bytes",
                  {"env": [{"name": "OMP_NUM_THREADS", "value": "v" * size}]}),
        pool_case(f"env of {size // 64} variables",
                  {"env": [{"name": f"E{i}", "value": "v"}
                           for i in range(size // 64)]}),
        pool_case(f"containerArgs of {size} bytes",
                  dict(POOL_IMAGE, containerArgs=["a" * size])),
        pool_case(f"containerCommand of {size} bytes",
                  dict(POOL_IMAGE, containerCommand=["c" * size])),
        pool_case(f"containerArgs of {size // 8} elements",
                  dict(POOL_IMAGE, containerArgs=["a"] * (size // 8)))]


def pool_name_cases():
    names = ["", "1X", "A=B", "A B", "\u00c9", "x" * 300, "LD_PRELOAD",
             "PYTHONPATH", "BASH_ENV", "TF_CONFIG", "OMP_NUM_THREADS"]
    cases = [pool_case(f"env name {name[:20]!r}",
                       {"env": [{"name": name, "value": "1"}]})
             for name in names]
    # No pool has a working directory of its own: the field is unknown.
    cases.append(pool_case("workingDir", {"workingDir": "/etc"}))
    cases.append(pool_case("containerCommand with an image",
                           dict(POOL_IMAGE, containerCommand=["sh", "-c",
                                                              "id"])))
    return cases


class Server:
    def __init__(self, hptune, directory, rules):
        self.hptune = hptune
        self.dir = directory
        self.env = dict(os.environ, HPTUNE_CONFIG_DIR=directory + "/config")
        self.env.pop("HPTUNE_TOKEN", None)
        self.log = open(directory + "/serve.log", "w")
        self.process = subprocess.Popen(
            [hptune, "serve", "--listen", "127.0.0.1:0", "--http", "off",
             "--gpus", "0", "--allow-root-trials", "--db",
             directory + "/hptune.db", "--state-dir", directory + "/runs"]
            + [f"--allow-command={rule}" for rule in rules],
            stdout=self.log, stderr=subprocess.STDOUT, env=self.env)
        deadline = time.monotonic() + 60
        self.port = None
        while self.port is None:
            if self.process.poll() is not None or time.monotonic() > deadline:
                sys.exit("hptune serve did not start:\n" +
                         open(directory + "/serve.log").read())
            found = re.search(r"listening on port (\d+)",
                              open(directory + "/serve.log").read())
            if found:
                self.port = int(found.group(1))
            else:
                time.sleep(0.05)
        self.address = f"127.0.0.1:{self.port}"
        self.token = open(directory + "/config/token").read().strip()

    def memory_kib(self, field):
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        return 0

    def alive(self):
        return self.process.poll() is None

    def cli(self, args, timeout=120):
        return subprocess.run(
            [self.hptune] + args + ["--server", self.address],
            capture_output=True, text=True, env=self.env, timeout=timeout)


def died(result):
    return result.returncode < 0


def run_config_cases(server, cases, failures, counts):
    for i, (name, text) in enumerate(cases):
        path = f"{server.dir}/case.json"
        with open(path, "w") as f:
            f.write(text)
        validate = subprocess.run([server.hptune, "validate", path],
                                  capture_output=True, text=True, timeout=120)
        job = f"fuzz{i}"
        submit = server.cli(["jobs", "submit", job, "--config", path])
        for what, result in (("validate", validate), ("submit", submit)):
            if died(result):
                failures.append(f"{name}: hptune {what} died of signal "
                                f"{-result.returncode}")
            elif result.returncode == 0:
                counts["accepted"] += 1
            else:
                counts["refused"] += 1
                if result.returncode == 64 or not result.stderr.strip():
                    failures.append(f"{name}: {what} refused with "
                                    f"{result.returncode}: {result.stderr}")
        if submit.returncode == 0:
            counts["accepted_configs"].append(name)
            server.cli(["jobs", "cancel", job])
        if not server.alive():
            failures.append(f"{name}: the server died")
            return


def rpc_cases(server):
    channel = grpc.insecure_channel(server.address, [
        ("grpc.max_send_message_length", 64 * MIB)])
    studies = study_service_pb2_grpc.StudyServiceStub(channel)
    jobs = job_service_pb2_grpc.JobServiceStub(channel)
    metadata = (("authorization", f"Bearer {server.token}"),)
    spec = study_pb2.StudySpec(
        goal=study_pb2.StudySpec.MINIMIZE, hyperparameter_metric_tag="loss",
        max_trials=10, params=[study_pb2.ParameterSpec(
            parameter_name="x", type=study_pb2.ParameterSpec.DOUBLE,
            min_value=0, max_value=1)])
    studies.CreateStudy(study_service_pb2.CreateStudyRequest(
        name="rpc", spec=spec), metadata=metadata, timeout=30)
    big = [2**31 - 1, -2**31, 0, -1]
    huge64 = [2**63 - 1, -2**63, 0, -1]
    calls = []
    for n in big:
        calls.append((f"SuggestTrials suggestion_count={n}",
                      studies.SuggestTrials,
                      study_service_pb2.SuggestTrialsRequest(
                          study="rpc", suggestion_count=n, client_id="c")))
        calls.append((f"ListStudies page_size={n}", studies.ListStudies,
                      study_service_pb2.ListStudiesRequest(page_size=n)))
        calls.append((f"ListJobs page_size={n}", jobs.ListJobs,
                      job_service_pb2.ListJobsRequest(page_size=n)))
    for n in huge64:
        calls.append((f"GetTrial trial_id={n}", studies.GetTrial,
                      study_service_pb2.GetTrialRequest(study="rpc",
                                                        trial_id=n)))
        calls.append((f"GetTrialLogs offset={n}", jobs.GetTrialLogs,
                      job_service_pb2.GetTrialLogsRequest(
                          job_id="fuzz0", trial_id=1, offset=n)))
        calls.append((f"GetTrialLogs max_bytes={n}", jobs.GetTrialLogs,
                      job_service_pb2.GetTrialLogsRequest(
                          job_id="fuzz0", trial_id=1, max_bytes=n)))
        calls.append((f"GetTrialLogs trial_id={n}", jobs.GetTrialLogs,
                      job_service_pb2.GetTrialLogsRequest(
                          job_id="fuzz0", trial_id=n)))
        calls.append((f"AddMeasurement step={n}", studies.AddMeasurement,
                      study_service_pb2.AddMeasurementRequest(
                          study="rpc", trial_id=1,
                          measurement=study_pb2.Measurement(
                              step=n, metrics={"loss": 1.0}))))
    calls.append(("CheckEarlyStopping 500,000 trial ids (3.9 MiB)",
                  studies.CheckEarlyStopping,
                  study_service_pb2.CheckEarlyStoppingRequest(
                      study="rpc", trial_ids=[2**62] * 500_000)))
    calls.append(("CheckEarlyStopping 1,000,000 trial ids (9 MiB)",
                  studies.CheckEarlyStopping,
                  study_service_pb2.CheckEarlyStoppingRequest(
                      study="rpc", trial_ids=[2**62] * 1_000_000)))
    calls.append(("AddMeasurement 200,000 metrics",
                  studies.AddMeasurement,
                  study_service_pb2.AddMeasurementRequest(
                      study="rpc", trial_id=1,
                      measurement=study_pb2.Measurement(
                          step=1, metrics={f"m{i}": float(i)
                                           for i in range(200_000)}))))
    return calls, metadata


def run_rpc_cases(server, failures, counts):
    calls, metadata = rpc_cases(server)
    for name, method, request in calls:
        try:
            method(request, metadata=metadata, timeout=60)
            counts["accepted"] += 1
        except grpc.RpcError as error:
            counts["refused"] += 1
            if error.code() in (grpc.StatusCode.UNAVAILABLE,
                                grpc.StatusCode.INTERNAL,
                                grpc.StatusCode.UNKNOWN):
                failures.append(f"{name}: {error.code().name} "
                                f"{error.details()}")
        if not server.alive():
            failures.append(f"{name}: the server died")
            return


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hptune", required=True)
    parser.add_argument("--quick", action="store_true",
                        help="a sample of the integers, 1 MiB sizes only")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-rss-mb", type=float, default=512)
    parser.add_argument("--json")
    parser.add_argument("--allow-command", action="append", default=[],
                        help="start the server with this rule (repeatable), "
                        "so that pools' env and images are judged too")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    directory = tempfile.mkdtemp(prefix="hptune-fuzz-")
    server = Server(os.path.abspath(args.hptune), directory,
                    args.allow_command)
    started = time.monotonic()
    idle_rss = server.memory_kib("VmRSS")
    failures = []
    counts = {"accepted": 0, "refused": 0, "accepted_configs": []}
    cases = config_cases(args.quick, rng)
    try:
        run_config_cases(server, cases, failures, counts)
        if server.alive():
            run_rpc_cases(server, failures, counts)
        peak = server.memory_kib("VmHWM") / 1024
        final = server.memory_kib("VmRSS") / 1024
    finally:
        server.process.terminate()
        server.process.wait(timeout=60)
    summary = {"config_cases": len(cases),
               "calls": counts["accepted"] + counts["refused"],
               "accepted": counts["accepted"], "refused": counts["refused"],
               "accepted_configs": counts["accepted_configs"],
               "failures": failures, "idle_rss_mb": round(idle_rss / 1024, 1),
               "peak_rss_mb": round(peak, 1), "final_rss_mb": round(final, 1),
               "seconds": round(time.monotonic() - started, 1)}
    print(json.dumps(summary, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    if peak > args.max_rss_mb:
        failures.append(f"peak RSS {peak:.0f} MB over {args.max_rss_mb} MB")
    for failure in failures:
        print("FAIL:", failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
