"""The parameter server: holds the model and applies synchronous SGD steps.

Every trainer (master and workers) pulls the parameters at global step s,
computes a gradient on its own batch for step s and pushes it. When all
trainers have pushed for step s the server applies their mean with momentum
and moves to step s + 1. Because each batch depends only on (step, rank), the
trajectory is the same whatever the timing, and a server restarted from its
checkpoint replays exactly the steps it lost.

Checkpoint: <job-dir>/checkpoint.json, {"global_step", "params", "velocity"},
written atomically every `checkpoint_every` steps and at the last step, read
on start. Requests (see rpc.py):
  {"op": "ping"}                         -> {"holds_parameters": bool}
  {"op": "pull", "min_step": k, "incarnation": id, "wait": seconds}
      -> {"step", "params", "incarnation", "done"}; waits up to `wait` for
         step >= k unless the caller saw another incarnation of this server.
  {"op": "push", "step": s, "rank": r, "grad": [...]}
      -> {"accepted": bool, "step"}; a push for another step is ignored.
Thread-safe: one thread per connection, one lock around the state.
"""

import json
import math
import os
import socket
import socketserver
import sys
import threading
import uuid

from trainer import model

_MAX_WAIT_SECONDS = 5.0
_CHECKPOINT_FORMAT = "stdlib_trainer/1"


class ModelState:
    """The parameters, the optimiser's velocity and the global step."""

    def __init__(self, trainers, steps, learning_rate, momentum,
                 checkpoint_path=None, checkpoint_every=20):
        self._trainers = trainers
        self._steps = steps
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._checkpoint_path = checkpoint_path
        self._checkpoint_every = checkpoint_every
        self._changed = threading.Condition()
        self._gradients = {}
        self.incarnation = uuid.uuid4().hex
        self.step = 0
        self.params = [0.0] * model.DIMENSION
        self.velocity = [0.0] * model.DIMENSION
        if checkpoint_path:
            os.makedirs(os.path.dirname(checkpoint_path) or ".", exist_ok=True)
            if os.path.exists(checkpoint_path):
                self._load(checkpoint_path)

    def pull(self, min_step, incarnation, wait):
        with self._changed:
            self._changed.wait_for(
                lambda: (self.step >= min_step or
                         incarnation != self.incarnation),
                timeout=min(max(wait, 0.0), _MAX_WAIT_SECONDS))
            return {"step": self.step, "params": list(self.params),
                    "incarnation": self.incarnation,
                    "done": self.step >= self._steps}

    def push(self, step, rank, grad):
        if not 0 <= rank < self._trainers:
            raise ValueError("rank %r is not in [0, %d)" %
                             (rank, self._trainers))
        if len(grad) != model.DIMENSION or not all(
                isinstance(g, (int, float)) and math.isfinite(g) for g in grad):
            raise ValueError("grad must be %d finite numbers" % model.DIMENSION)
        with self._changed:
            if step != self.step or self.step >= self._steps:
                return {"accepted": False, "step": self.step}
            self._gradients[rank] = grad
            if len(self._gradients) == self._trainers:
                self._apply()
            return {"accepted": True, "step": self.step}

    def _apply(self):
        # Summed in rank order, so the result does not depend on arrival order.
        ranks = sorted(self._gradients)
        mean = [sum(self._gradients[r][j] for r in ranks) / len(ranks)
                for j in range(model.DIMENSION)]
        self._gradients.clear()
        model.apply_momentum_step(self.params, self.velocity, mean,
                                  self._learning_rate, self._momentum)
        self.step += 1
        self._changed.notify_all()
        if self._checkpoint_path and (self.step % self._checkpoint_every == 0 or
                                      self.step == self._steps):
            try:
                self._save(self._checkpoint_path)
            except OSError as e:
                # Training goes on; the next checkpoint may succeed.
                print("checkpoint at step %d not written: %s" % (self.step, e),
                      file=sys.stderr, flush=True)

    def _save(self, path):
        text = json.dumps({"format": _CHECKPOINT_FORMAT,
                           "global_step": self.step, "params": self.params,
                           "velocity": self.velocity})
        temporary = "%s.tmp-%d" % (path, os.getpid())
        with open(temporary, "w") as f:
            f.write(text)
        os.replace(temporary, path)

    def _load(self, path):
        with open(path) as f:
            saved = json.load(f)
        if (saved.get("format") != _CHECKPOINT_FORMAT or
                len(saved.get("params", ())) != model.DIMENSION or
                len(saved.get("velocity", ())) != model.DIMENSION):
            raise ValueError(
                "checkpoint %s: not a %s checkpoint of %d parameters" %
                (path, _CHECKPOINT_FORMAT, model.DIMENSION))
        self.step = int(saved["global_step"])
        self.params = [float(v) for v in saved["params"]]
        self.velocity = [float(v) for v in saved["velocity"]]
        print("resumed from %s at global step %d" % (path, self.step),
              file=sys.stderr, flush=True)


class Server(socketserver.ThreadingTCPServer):
    """Serves `state` (a ModelState, or None for a ps that holds nothing)."""

    allow_reuse_address = True  # a restarted ps rebinds its port at once
    daemon_threads = True

    def __init__(self, endpoint, state):
        self.state = state
        super().__init__(endpoint, _Handler)

    def dispatch(self, request):
        op = request.get("op")
        if op == "ping":
            return {"holds_parameters": self.state is not None}
        if op not in ("pull", "push"):
            raise ValueError("unknown op %r" % op)
        if self.state is None:
            raise ValueError("this replica holds no parameters: ps 0 does, "
                             "or the master when there is no ps")
        if op == "pull":
            return self.state.pull(int(request.get("min_step", 0)),
                                   request.get("incarnation"),
                                   float(request.get("wait", 0.0)))
        return self.state.push(int(request["step"]), int(request["rank"]),
                               request["grad"])


class _Handler(socketserver.StreamRequestHandler):

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def handle(self):
        try:
            for line in self.rfile:
                try:
                    response = dict(self.server.dispatch(json.loads(line)),
                                    ok=True)
                except (ValueError, KeyError, TypeError) as e:
                    response = {"ok": False,
                                "error": "%s: %s" % (type(e).__name__, e)}
                self.wfile.write((json.dumps(response) + "\n").encode())
        except ConnectionError:
            pass  # The peer went away (killed, restarted): no one to answer.
