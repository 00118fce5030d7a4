"""Entry point of every replica: python3 -m trainer.task [flags].

The role comes from TF_CONFIG (see cluster.py):
  ps 0      holds the model (parameter_server.py) and checkpoints it;
  master    trains as rank 0, evaluates on the held-out set every
            --eval_every steps, reports the objective through the hypertune
            file, and exits 0 after --steps global steps;
  worker i  trains as rank i + 1; when training is done it idles until the
            launcher terminates it;
  ps j > 0, and every worker, also listen on their address and answer pings,
            so the master can check at start that the whole cluster is up;
  evaluator logs the held-out metrics of the latest parameters.
Without a ps the master holds the model itself; without TF_CONFIG it runs
alone. SIGTERM ends any replica at once with exit status 143.
"""

import argparse
import errno
import os
import signal
import sys
import threading
import time

if __package__ in (None, ""):  # Run as a script: make `trainer` importable.
    sys.path.insert(
        0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from trainer import cluster  # noqa: E402
try:
    # cloudml-hypertune's module, from hptune's Python package
    # (pip install ./python) or from PyPI.
    import hypertune  # noqa: E402
except ImportError:  # Run from hptune's source tree without the package.
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                 os.pardir, os.pardir, os.pardir, "python",
                                 "src"))
    import hypertune  # noqa: E402
from trainer import model  # noqa: E402
from trainer import parameter_server  # noqa: E402
from trainer import rpc  # noqa: E402

_METRICS = ("loss", "accuracy")
_PULL_WAIT_SECONDS = 1.0


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    # Without a jobDir hptune passes no --job-dir; the trial's own
    # directory comes as AIP_CHECKPOINT_DIR (Vertex AI's name).
    parser.add_argument("--job-dir", "--job_dir", dest="job_dir",
                        default=os.environ.get("AIP_CHECKPOINT_DIR"),
                        help="where the parameter server keeps checkpoint.json")
    parser.add_argument("--learning_rate", type=float, default=0.1)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--batch_size", type=_integer, default=16,
                        help="examples per trainer per step")
    parser.add_argument("--steps", type=int, default=300,
                        help="global steps to train for")
    parser.add_argument("--eval_every", type=int, default=20)
    parser.add_argument("--checkpoint_every", type=int, default=20)
    parser.add_argument("--data_seed", type=int, default=1)
    parser.add_argument("--connect_timeout", type=float, default=60.0,
                        help="seconds a peer may stay unreachable before this "
                             "replica gives up (exit 1, so it is restarted)")
    args = parser.parse_args(argv)
    if not args.learning_rate > 0:
        parser.error("--learning_rate must be > 0, got %r" % args.learning_rate)
    if not 0 <= args.momentum < 1:
        parser.error("--momentum must be in [0, 1), got %r" % args.momentum)
    for name in ("batch_size", "steps", "eval_every", "checkpoint_every"):
        if getattr(args, name) < 1:
            parser.error("--%s must be >= 1, got %d" %
                         (name, getattr(args, name)))
    return args


def _integer(text):
    """An int; also "16.0", as a DISCRETE value may be printed."""
    value = float(text)
    if not value.is_integer():
        raise argparse.ArgumentTypeError("expected an integer, got %r" % text)
    return int(value)


def main(argv=None):
    signal.signal(signal.SIGTERM, _exit_143)
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        replica = cluster.from_environment()
    except ValueError as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    tag = os.environ.get("CLOUD_ML_HP_METRIC_TAG") or "loss"
    if tag not in _METRICS:
        print("error: CLOUD_ML_HP_METRIC_TAG=%s: this trainer reports %s"
              % (tag, " or ".join(_METRICS)), file=sys.stderr)
        return 2
    try:
        if replica.task_type == cluster.PARAMETER_SERVER:
            return run_parameter_server(replica, args)
        if replica.task_type == cluster.EVALUATOR:
            return run_evaluator(replica, args)
        return run_trainer(replica, args, tag)
    except (OSError, rpc.RemoteError, ValueError) as e:
        # Unreachable peers, a refused request, an unreadable checkpoint:
        # exit non-zero so that the launcher restarts this replica.
        print("error: %s" % e, file=sys.stderr)
        return 1


def run_parameter_server(replica, args):
    state = _model_state(replica, args) if replica.index == 0 else None
    _serve(replica.address, state, args)
    _log(replica, "serving on %s" % replica.address)
    while True:
        signal.pause()


def run_trainer(replica, args, tag):
    is_master = replica.task_type == cluster.MASTER
    host = replica.parameter_host
    if is_master and not replica.parameter_servers:
        server = _serve(replica.address, _model_state(replica, args), args)
        host = "%s:%d" % server.server_address[:2]  # Port 0 when run alone.
    elif not is_master:
        _serve(replica.address, None, args)
    if is_master:
        _wait_for_cluster(replica, args)

    train, test = model.make_dataset(args.data_seed)
    examples = model.shard(train, replica.rank, replica.trainer_count)
    client = rpc.Client(host, args.connect_timeout, replica.name)
    reporter = _Reporter(replica, args, tag, test) if is_master else None
    pushed_step, incarnation = None, None
    while True:
        state = client.call({
            "op": "pull",
            "incarnation": incarnation,
            "wait": _PULL_WAIT_SECONDS,
            "min_step": 0 if pushed_step is None else pushed_step + 1,
        })
        if state["incarnation"] != incarnation:
            # A new (restarted) server: it may have gone back to a checkpoint.
            pushed_step, incarnation = None, state["incarnation"]
        step, params = state["step"], state["params"]
        if is_master:
            reporter.maybe_report(step, params, final=state["done"])
            if state["done"]:
                _log(replica, "done at global step %d" % step)
                return 0
        if state["done"] or step == pushed_step:
            pushed_step = step  # Wait for the others (or, done, for SIGTERM).
            continue
        batch = model.batch_for_step(examples, step, replica.rank,
                                     args.batch_size, args.data_seed)
        client.call({"op": "push", "step": step, "rank": replica.rank,
                     "grad": model.gradient(params, batch)})
        pushed_step = step


def run_evaluator(replica, args):
    _, test = model.make_dataset(args.data_seed)
    client = rpc.Client(replica.parameter_host, args.connect_timeout,
                        replica.name)
    next_step, incarnation = 0, None
    while True:
        state = client.call({
            "op": "pull",
            "incarnation": incarnation,
            "wait": _PULL_WAIT_SECONDS,
            "min_step": next_step,
        })
        if state["incarnation"] != incarnation:
            # A new (restarted) server: it may have gone back to a checkpoint.
            next_step, incarnation = 0, state["incarnation"]
        if state["step"] >= next_step:
            loss, accuracy = model.evaluate(state["params"], test)
            _log(replica, "global step %d: held-out loss %.4f, accuracy %.4f"
                 % (state["step"], loss, accuracy))
            next_step = (state["step"] // args.eval_every + 1) * args.eval_every


class _Reporter:
    """The master's evaluation schedule and hypertune reports."""

    def __init__(self, replica, args, tag, test):
        self._replica = replica
        self._every = args.eval_every
        self._tag = tag
        self._test = test
        self._next_step = 0
        self._last_step = None
        self._hypertune = hypertune.HyperTune()

    def maybe_report(self, step, params, final):
        if step == self._last_step or not (final or step >= self._next_step):
            return
        loss, accuracy = model.evaluate(params, self._test)
        self._hypertune.report_hyperparameter_tuning_metric(
            hyperparameter_metric_tag=self._tag,
            metric_value=loss if self._tag == "loss" else accuracy,
            global_step=step)
        _log(self._replica, "global step %d: held-out loss %.4f, accuracy %.4f"
             % (step, loss, accuracy))
        self._last_step = step
        self._next_step = (step // self._every + 1) * self._every


def _model_state(replica, args):
    return parameter_server.ModelState(
        trainers=replica.trainer_count, steps=args.steps,
        learning_rate=args.learning_rate, momentum=args.momentum,
        checkpoint_path=(os.path.join(args.job_dir, "checkpoint.json")
                         if args.job_dir else None),
        checkpoint_every=args.checkpoint_every)


def _serve(address, state, args):
    """Listens on `address` from a background thread; returns the server."""
    deadline = time.monotonic() + args.connect_timeout
    while True:
        try:
            server = parameter_server.Server(cluster.split_address(address),
                                             state)
            break
        except OSError as e:
            # A killed predecessor's socket may hold the port for a moment.
            if e.errno != errno.EADDRINUSE or time.monotonic() > deadline:
                raise ConnectionError("cannot listen on %s: %s" % (address, e))
            time.sleep(0.05)
    # With SIGTERM blocked in the serving threads the kernel delivers it to
    # the main thread, which then runs the Python handler at once.
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    return server


def _wait_for_cluster(replica, args):
    """Pings every other replica's address until each answers."""
    peers = [address
             for task_type, addresses in sorted(replica.cluster.items())
             for index, address in enumerate(addresses)
             if (task_type, index) != (replica.task_type, replica.index)]
    for address in peers:
        client = rpc.Client(address, args.connect_timeout, replica.name)
        client.call({"op": "ping"})
        client.close()
    if peers:
        _log(replica, "all %d other replicas answer" % len(peers))


def _log(replica, message):
    print("%s: %s" % (replica.name, message), file=sys.stderr, flush=True)


def _exit_143(signum, frame):
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(143)


if __name__ == "__main__":
    sys.exit(main())
