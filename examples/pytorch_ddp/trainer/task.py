"""Entry point of every replica: python3 -m trainer.task [flags].

A one-hidden-layer MLP learns a fixed synthetic problem, four interleaved
spirals in the plane (plus 6 noise inputs), with DistributedDataParallel. The
learning rate, the optimiser and the width all matter: a narrow or slowly
trained network stays near chance, a wide one with a good step size gets
above 95% validation accuracy in a few epochs.

The rendezvous is PyTorch's env:// one, from what hptune sets: RANK (master 0,
worker i -> i + 1), WORLD_SIZE, MASTER_ADDR, MASTER_PORT. Backend: NCCL when
CUDA works and CUDA_VISIBLE_DEVICES lists a GPU, else Gloo on the CPU.

Every epoch the ranks each evaluate a share of the validation set, sum the
counts, and rank 0 reports the validation accuracy through the hypertune file
(global_step = epochs done) and saves <job-dir>/checkpoint.pt atomically. On
start rank 0 reads that checkpoint, if any, and broadcasts it, so all ranks
resume from the same state (no shared filesystem needed).

Replicas without RANK (parameter servers, evaluators) have nothing to do in
DDP: they say so and sleep until hptune terminates them, since exiting early
would look like a finished or failed replica. Without RANK and TF_CONFIG the
program trains alone (world size 1).
"""

import argparse
import datetime
import json
import math
import os
import signal
import socket
import sys

if __package__ in (None, ""):  # Run as a script: make `trainer` importable.
    sys.path.insert(
        0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn.parallel import DistributedDataParallel  # noqa: E402
from torch.utils import data  # noqa: E402

try:
    # cloudml-hypertune's module, from hptune's Python package
    # (pip install ./python) or from PyPI.
    import hypertune  # noqa: E402
except ImportError:  # Run from hptune's source tree without the package.
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                 os.pardir, os.pardir, os.pardir, "python",
                                 "src"))
    import hypertune  # noqa: E402

CLASSES = 4
SPIRAL_TURNS = 0.75
SPIRAL_NOISE = 0.05
NOISE_INPUTS = 6
INPUTS = 2 + NOISE_INPUTS
TRAIN_EXAMPLES = 4096
VALIDATION_EXAMPLES = 2048


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    # Without a jobDir hptune passes no --job-dir; the trial's own
    # directory comes as AIP_CHECKPOINT_DIR (Vertex AI's name).
    parser.add_argument("--job-dir", "--job_dir", dest="job_dir",
                        default=os.environ.get("AIP_CHECKPOINT_DIR"),
                        help="where rank 0 keeps checkpoint.pt")
    parser.add_argument("--learning_rate", type=float, default=0.01)
    parser.add_argument("--hidden_units", type=int, default=64)
    parser.add_argument("--optimizer", choices=("sgd", "adam"), default="adam")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch_size", type=int, default=64,
                        help="examples per rank per step")
    parser.add_argument("--data_seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="seconds to wait for the other ranks (rendezvous, "
                        "collectives) before failing")
    args = parser.parse_args(argv)
    if not args.learning_rate > 0:
        parser.error("--learning_rate must be > 0, got %r" % args.learning_rate)
    for name in ("hidden_units", "epochs", "batch_size"):
        if getattr(args, name) < 1:
            parser.error("--%s must be >= 1, got %d" %
                         (name, getattr(args, name)))
    return args


def make_dataset(seed):
    """Returns (train, validation) TensorDatasets, identical on every rank.

    Class c's points lie on the spiral r = 0.2 + t, angle = c * 2 pi / 4 +
    t * 0.75 * 2 pi, t ~ U(0, 1), with N(0, 0.05^2) noise; six more inputs are
    N(0, 0.5^2) noise the network must learn to ignore.
    """
    generator = torch.Generator().manual_seed(seed)
    n = TRAIN_EXAMPLES + VALIDATION_EXAMPLES
    labels = torch.randint(0, CLASSES, (n,), generator=generator)
    t = torch.rand(n, generator=generator)
    angle = (labels * (2 * math.pi / CLASSES) +
             t * (SPIRAL_TURNS * 2 * math.pi))
    radius = 0.2 + t
    plane = torch.stack([radius * torch.cos(angle), radius * torch.sin(angle)],
                        dim=1)
    plane += SPIRAL_NOISE * torch.randn(n, 2, generator=generator)
    noise = 0.5 * torch.randn(n, NOISE_INPUTS, generator=generator)
    x = torch.cat([plane, noise], dim=1)
    return (data.TensorDataset(x[:TRAIN_EXAMPLES], labels[:TRAIN_EXAMPLES]),
            data.TensorDataset(x[TRAIN_EXAMPLES:], labels[TRAIN_EXAMPLES:]))


def make_model(hidden_units):
    return nn.Sequential(nn.Linear(INPUTS, hidden_units), nn.ReLU(),
                         nn.Linear(hidden_units, CLASSES))


def make_optimizer(name, parameters, learning_rate):
    if name == "sgd":
        return torch.optim.SGD(parameters, lr=learning_rate, momentum=0.9)
    return torch.optim.Adam(parameters, lr=learning_rate)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if "RANK" not in os.environ:
        task = json.loads(os.environ.get("TF_CONFIG") or "{}").get("task")
        if task:
            return idle(task)
        _configure_standalone()
    # Replicas share the machine's cores: one thread each avoids thrashing.
    torch.set_num_threads(1)
    use_cuda = (torch.cuda.is_available() and
                bool(os.environ.get("CUDA_VISIBLE_DEVICES")))
    device = torch.device("cuda", 0) if use_cuda else torch.device("cpu")
    if use_cuda:
        torch.cuda.set_device(device)
    dist.init_process_group(backend="nccl" if use_cuda else "gloo",
                            init_method="env://",
                            timeout=datetime.timedelta(seconds=args.timeout))
    try:
        train(args, device)
    finally:
        dist.destroy_process_group()
    return 0


def train(args, device):
    rank, world = dist.get_rank(), dist.get_world_size()
    train_set, validation_set = make_dataset(args.data_seed)
    torch.manual_seed(args.data_seed)  # The same initial weights everywhere.
    model = make_model(args.hidden_units).to(device)
    optimizer = make_optimizer(args.optimizer, model.parameters(),
                               args.learning_rate)
    checkpoint_path = (os.path.join(args.job_dir, "checkpoint.pt")
                       if args.job_dir else None)
    start_epoch = restore(checkpoint_path, model, optimizer, device)
    ddp = DistributedDataParallel(
        model, device_ids=[0] if device.type == "cuda" else None)
    sampler = data.DistributedSampler(train_set, num_replicas=world, rank=rank,
                                      shuffle=True, seed=args.data_seed)
    loader = data.DataLoader(train_set, batch_size=args.batch_size,
                             sampler=sampler)
    loss_function = nn.CrossEntropyLoss()
    reporter = hypertune.HyperTune() if rank == 0 else None
    if start_epoch >= args.epochs:  # A finished trial run again: report again.
        report(reporter, start_epoch, validate(model, validation_set, device))
    for epoch in range(start_epoch, args.epochs):
        sampler.set_epoch(epoch)
        ddp.train()
        for x, y in loader:
            optimizer.zero_grad()
            loss_function(ddp(x.to(device)), y.to(device)).backward()
            optimizer.step()
        accuracy = validate(model, validation_set, device)
        if rank == 0:
            # Saved first: a restart never repeats an epoch already reported.
            save(checkpoint_path, epoch + 1, model, optimizer)
            report(reporter, epoch + 1, accuracy)


def validate(model, validation_set, device):
    """Accuracy over the whole validation set; each rank scores a share."""
    rank, world = dist.get_rank(), dist.get_world_size()
    x, y = validation_set.tensors
    model.eval()
    with torch.no_grad():
        predictions = model(x[rank::world].to(device)).argmax(dim=1)
    correct = (predictions == y[rank::world].to(device)).sum().item()
    counts = torch.tensor([correct, len(predictions)], dtype=torch.float64,
                          device=device)
    dist.all_reduce(counts)
    return (counts[0] / counts[1]).item()


def report(reporter, epoch, accuracy):
    if reporter is None:
        return
    reporter.report_hyperparameter_tuning_metric(
        hyperparameter_metric_tag="accuracy", metric_value=accuracy,
        global_step=epoch)
    print("epoch %d: validation accuracy %.4f" % (epoch, accuracy), flush=True)


def save(path, epoch, model, optimizer):
    if not path:
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = "%s.tmp-%d" % (path, os.getpid())
    torch.save({"epoch": epoch, "model": model.state_dict(),
                "optimizer": optimizer.state_dict()}, temporary)
    os.replace(temporary, path)


def restore(path, model, optimizer, device):
    """Loads rank 0's checkpoint on every rank; returns the epochs done."""
    state = [None]
    if dist.get_rank() == 0 and path and os.path.exists(path):
        state[0] = torch.load(path, map_location="cpu")
    dist.broadcast_object_list(state, src=0, device=device)
    if state[0] is None:
        return 0
    model.load_state_dict(state[0]["model"])
    optimizer.load_state_dict(state[0]["optimizer"])
    if dist.get_rank() == 0:
        print("resumed from %s after epoch %d" % (path, state[0]["epoch"]),
              flush=True)
    return state[0]["epoch"]


def idle(task):
    print("%s %s: this DDP trainer has no work for replicas without RANK; "
          "waiting to be terminated" % (task.get("type"), task.get("index", 0)),
          flush=True)
    while True:
        signal.pause()


def _configure_standalone():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    os.environ.update(RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1",
                      MASTER_PORT=str(port))


if __name__ == "__main__":
    sys.exit(main())
