"""A trainer whose master and workers form a real cluster from TF_CONFIG.
Without TF_CONFIG (a Vertex job of one replica) it is a master alone.

The master listens on its own TF_CONFIG address; each worker connects to it
(retrying until the master is up), sends "<index> <value>" and waits for the
master's acknowledgement, which names the trial. Once every worker has
reported, the master writes what it received to AIP_MODEL_DIR/exchange.json
and reports loss = (x - 0.3)^2 through the hypertune file
(CLOUD_ML_HP_METRIC_FILE, rewritten atomically), then exits 0, or with
--hold=1 waits to be stopped (for the tests that cancel and kill), and
--hold=deaf waits ignoring SIGTERM, so that only SIGKILL stops it.
Baked into the test image as /app/cluster_trainer.py (build_test_image.sh).
Standard library only; other --name=value arguments are ignored.
"""

import json
import os
import signal
import socket
import sys
import time


def flags(argv):
    parsed = {}
    for arg in argv:
        if arg.startswith("--") and "=" in arg:
            name, value = arg[2:].split("=", 1)
            parsed[name] = value
    return parsed


def address(text):
    host, port = text.rsplit(":", 1)
    return host, int(port)


def run_worker(master, index):
    deadline = time.monotonic() + 120
    while True:
        try:
            with socket.create_connection(master, timeout=5) as conn:
                conn.sendall(("%d %d\n" % (index, 10 * (index + 1))).encode())
                ack = conn.makefile().readline().strip()
                print("worker %d: %s" % (index, ack), flush=True)
                return 0
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def run_master(cluster, args):
    workers = len(cluster.get("worker", []))
    trial = os.environ["CLOUD_ML_TRIAL_ID"]
    received = {}
    if workers:
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(address(cluster["master"][0]))
        server.listen(workers)
    while len(received) < workers:
        conn, _ = server.accept()
        with conn:
            index, value = conn.makefile().readline().split()
            received[index] = int(value)
            conn.sendall(("ack trial %s\n" % trial).encode())
    model_dir = os.environ["AIP_MODEL_DIR"]
    with open(os.path.join(model_dir, "exchange.json"), "w") as f:
        json.dump({"trial": trial, "received": received}, f)
    x = float(args.get("x", "0"))
    report = {"global_step": "1", "loss": repr((x - 0.3) ** 2),
              "timestamp": time.time(), "trial": trial}
    path = os.environ["CLOUD_ML_HP_METRIC_FILE"]
    temporary = "%s.tmp-%d" % (path, os.getpid())
    with open(temporary, "w") as f:
        f.write(json.dumps(report, sort_keys=True) + "\n")
    os.replace(temporary, path)
    print("master: workers %s" % sorted(received), flush=True)
    if args.get("hold") == "deaf":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if args.get("hold") in ("1", "deaf"):
        while True:
            time.sleep(3600)
    return 0


def main(argv):
    args = flags(argv)
    if "TF_CONFIG" not in os.environ:
        # Vertex AI sets none on a job of one replica: a master alone.
        return run_master({}, args)
    config = json.loads(os.environ["TF_CONFIG"])
    task = config["task"]
    if task["type"] in ("master", "chief"):
        return run_master(config["cluster"], args)
    return run_worker(address(config["cluster"]["master"][0]), task["index"])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
