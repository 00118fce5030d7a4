#!/usr/bin/python3
"""Generates the learning-curve benchmark: real training on CPU, tabulated.

Each task trains N configurations (a scrambled Sobol set of its parameters)
for S steps on data that ships with scikit-learn or is generated, and
records, per configuration and step, the metric on held-out data (lower is
better) and the CPU seconds the step took. The replay harnesses
(curve_replay.cc for hptune, optuna_curves.py for Optuna) read the tables;
docs/designers.md ("The learning-curve benchmark") describes them.

  nice -n 19 /usr/bin/python3 benchmarks/curves/generate_curves.py \
      --task all --out benchmarks/curves/data

Seeded (--seed, per configuration seed + id) and resumable: finished
configurations are appended to <out>/<task>.partial.<K>.jsonl, and a rerun
skips them; --shard K/N trains only configurations i with i % N == K, so N
processes can share a task. A finished table of the same seed keeps its
rows when --configs grows: its configurations are the first ones of the
larger Sobol set. When a task is complete, <task>.csv.gz (gzip) and
<task>.manifest.json are written atomically and the partial files removed.
Single-threaded (OMP_NUM_THREADS=1, torch.set_num_threads(1)) so that
costs are comparable and a shared machine stays usable.

Non-finite metrics (a diverged run) are recorded as the task's cap
(manifest "metric_cap"), so every curve is a number at every step.
"""

import argparse
import csv
import glob
import gzip
import io
import json
import math
import os
import platform
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from curve_files import open_table  # noqa: E402
import sklearn  # noqa: E402
from scipy.stats import qmc  # noqa: E402

# ---------------------------------------------------------------- the space
# A parameter: (name, kind, low, high, scale) or (name, "categorical", values).
# A Sobol coordinate u in [0, 1) maps to low..high (log: geometric), to an
# integer by rounding, or to values[floor(u * len)].


def decode(params, u):
    out = {}
    for p, x in zip(params, u):
        name, kind = p[0], p[1]
        if kind == "categorical":
            values = p[2]
            out[name] = values[min(int(x * len(values)), len(values) - 1)]
            continue
        low, high, scale = p[2], p[3], p[4]
        if scale == "log":
            v = math.exp(math.log(low) + x * (math.log(high) - math.log(low)))
        else:
            v = low + x * (high - low)
        if kind == "integer":
            v = int(min(max(round(v), low), high))
        out[name] = v
    return out


# ---------------------------------------------------------------- the tasks
def split(x, y, n_train, n_valid, seed):
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(y))
    tr, va = order[:n_train], order[n_train:n_train + n_valid]
    return x[tr], y[tr], x[va], y[va]


def gbm_data(seed):
    from sklearn.datasets import make_classification
    x, y = make_classification(n_samples=1600, n_features=20, n_informative=8,
                               n_redundant=4, flip_y=0.05, class_sep=0.8,
                               random_state=seed)
    return split(x, y, 1000, 600, seed)


def gbm_train(cfg, data, steps, seed):
    """Gradient boosting by stages; validation log loss after each stage.

    Stage costs: the time between GradientBoostingClassifier's monitor
    calls (one per stage), plus each stage's share of staged prediction.
    """
    from sklearn.ensemble import GradientBoostingClassifier
    from sklearn.metrics import log_loss
    xt, yt, xv, yv = data
    model = GradientBoostingClassifier(
        n_estimators=steps, learning_rate=cfg["learning_rate"],
        max_depth=cfg["max_depth"], subsample=cfg["subsample"],
        min_samples_leaf=cfg["min_samples_leaf"],
        max_features=cfg["max_features"], random_state=seed)
    stamps = [time.process_time()]

    def monitor(i, est, local):
        stamps.append(time.process_time())
        return False

    model.fit(xt, yt, monitor=monitor)
    metric, cost = [], []
    for i, proba in enumerate(model.staged_predict_proba(xv)):
        t0 = time.process_time()
        metric.append(log_loss(yv, np.clip(proba, 1e-15, 1 - 1e-15)))
        cost.append(stamps[i + 1] - stamps[i] + time.process_time() - t0)
    return metric, cost


def sgd_data(seed):
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler
    x, y = load_breast_cancer(return_X_y=True)
    xt, yt, xv, yv = split(x, y, 300, 269, seed)
    scaler = StandardScaler().fit(xt)
    return scaler.transform(xt), yt, scaler.transform(xv), yv


def sgd_train(cfg, data, steps, seed):
    """A linear model by SGD epochs (partial_fit); validation error rate."""
    import warnings
    from sklearn.linear_model import SGDClassifier
    xt, yt, xv, yv = data
    model = SGDClassifier(
        loss=cfg["loss"], penalty=cfg["penalty"], alpha=cfg["alpha"],
        learning_rate=cfg["schedule"], eta0=cfg["eta0"], power_t=0.5,
        random_state=seed)
    classes = np.unique(yt)
    rng = np.random.default_rng(seed)
    metric, cost = [], []
    for _ in range(steps):
        t0 = time.process_time()
        order = rng.permutation(len(yt))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                model.partial_fit(xt[order], yt[order], classes=classes)
                pred = model.predict(xv)
        metric.append(float(np.mean(pred != yv)))
        cost.append(time.process_time() - t0)
    return metric, cost


def mlp_data(seed):
    from sklearn.datasets import load_digits
    x, y = load_digits(return_X_y=True)
    x = x / 16.0
    return split(x, y, 600, 600, seed)


def mlp_train(cfg, data, steps, seed):
    """A torch MLP by epochs (mini-batch SGD with momentum, or Adam);
    validation cross-entropy after each epoch."""
    import torch
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    xt, yt, xv, yv = (torch.tensor(a) for a in data)
    xt, xv = xt.float(), xv.float()
    layers, width, d_in = [], cfg["width"], xt.shape[1]
    for _ in range(cfg["depth"]):
        layers += [torch.nn.Linear(d_in, width), torch.nn.ReLU(),
                   torch.nn.Dropout(cfg["dropout"])]
        d_in = width
    model = torch.nn.Sequential(*layers, torch.nn.Linear(d_in, 10))
    if cfg["optimizer"] == "adam":
        opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"],
                               weight_decay=cfg["weight_decay"])
    else:
        opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9,
                              weight_decay=cfg["weight_decay"])
    loss_fn = torch.nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(seed)
    metric, cost = [], []
    for _ in range(steps):
        t0 = time.process_time()
        model.train()
        order = torch.randperm(len(yt), generator=gen)
        for start in range(0, len(yt), cfg["batch_size"]):
            idx = order[start:start + cfg["batch_size"]]
            opt.zero_grad()
            loss_fn(model(xt[idx]), yt[idx]).backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            metric.append(float(loss_fn(model(xv), yv)))
        cost.append(time.process_time() - t0)
    return metric, cost


TASKS = {
    "gbm": dict(
        about="scikit-learn GradientBoostingClassifier on make_classification "
              "(20 features, 5% flipped labels; 1000 train, 600 valid), by "
              "boosting stages; validation log loss",
        metric="valid_log_loss", steps=24, cap=10.0,
        data=gbm_data, train=gbm_train,
        params=[("learning_rate", "double", 0.01, 1.0, "log"),
                ("max_depth", "integer", 1, 6, "linear"),
                ("subsample", "double", 0.3, 1.0, "linear"),
                ("min_samples_leaf", "integer", 1, 64, "log"),
                ("max_features", "double", 0.2, 1.0, "linear")]),
    "sgd": dict(
        about="scikit-learn SGDClassifier on breast_cancer (standardised; "
              "300 train, 269 valid), by epochs of partial_fit; validation "
              "error rate",
        metric="valid_error", steps=24, cap=1.0,
        data=sgd_data, train=sgd_train,
        params=[("alpha", "double", 1e-7, 1e-1, "log"),
                ("eta0", "double", 1e-5, 10.0, "log"),
                ("schedule", "categorical",
                 ["constant", "optimal", "invscaling", "adaptive"]),
                ("loss", "categorical", ["hinge", "log_loss", "modified_huber",
                                         "perceptron"]),
                ("penalty", "categorical", ["l2", "l1", "elasticnet"])]),
    "mlp": dict(
        about="torch MLP on digits (pixels / 16; 600 train, 600 valid), by "
              "epochs; validation cross-entropy",
        metric="valid_cross_entropy", steps=20, cap=10.0,
        data=mlp_data, train=mlp_train,
        params=[("lr", "double", 1e-4, 1.0, "log"),
                ("width", "integer", 8, 128, "log"),
                ("depth", "integer", 1, 3, "linear"),
                ("batch_size", "integer", 32, 256, "log"),
                ("weight_decay", "double", 1e-6, 1e-1, "log"),
                ("dropout", "double", 0.0, 0.5, "linear"),
                ("optimizer", "categorical", ["sgd", "adam"])]),
}


# ---------------------------------------------------------------- the driver
def configurations(task, n, seed):
    params = TASKS[task]["params"]
    sobol = qmc.Sobol(d=len(params), scramble=True, seed=seed)
    return [decode(params, u) for u in sobol.random(n)]


def progress(task, done, total, started, trained):
    """A progress bar; `trained`: configurations this process trained."""
    width = 30
    filled = int(width * done / max(total, 1))
    rate = (time.time() - started) / max(trained, 1)
    sys.stderr.write("\r%-4s [%s%s] %d/%d  %.2fs/config " % (
        task, "#" * filled, "." * (width - filled), done, total, rate))
    sys.stderr.flush()


def read_partial(paths):
    done = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut short by a kill
                done[row["id"]] = row
    return done


def read_table(out, task, seed):
    """The rows of a finished table of the same seed, parameters and steps,
    by id.

    Its configurations are the first ones of any larger Sobol set of that
    seed (the sequence's prefix), each trained with its own seed, so a
    larger table keeps them and trains only the rest.
    """
    spec = TASKS[task]
    try:
        with open(os.path.join(out, task + ".manifest.json")) as f:
            old = json.load(f)
        if (old["seed"], old["steps"], old["parameters"]) != (
                seed, spec["steps"], manifest_parameters(spec)):
            return {}
        with open_table(out, task) as f:
            reader = csv.reader(f)
            head = next(reader)
            rows = list(reader)
    except FileNotFoundError:
        return {}
    m = [i for i, c in enumerate(head) if c[0] == "m" and c[1:].isdigit()]
    c = [i for i, h in enumerate(head) if h[0] == "c" and h[1:].isdigit()]
    return {int(r[0]): {"id": int(r[0]), "metric": [float(r[i]) for i in m],
                        "cost": [float(r[i]) for i in c]} for r in rows}


def write_atomically(path, text):
    tmp = path + ".tmp"
    if path.endswith(".gz"):
        data = io.BytesIO()  # mtime 0: the same table, the same bytes.
        with gzip.GzipFile(fileobj=data, mode="wb", mtime=0) as z:
            z.write(text.encode())
        text = data.getvalue()
    with open(tmp, "wb" if isinstance(text, bytes) else "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def finite(values, cap):
    return [v if math.isfinite(v) and v < cap else cap for v in values]


def table(task, configs, done):
    spec = TASKS[task]
    names = [p[0] for p in spec["params"]]
    steps = spec["steps"]
    head = (["id"] + names + ["m%d" % s for s in range(steps)] +
            ["c%d" % s for s in range(steps)])
    lines = [",".join(head)]
    for i, cfg in enumerate(configs):
        row = done[i]
        cells = [str(i)]
        for n in names:
            v = cfg[n]
            cells.append(v if isinstance(v, str) else "%.6g" % v)
        cells += ["%.6g" % v for v in finite(row["metric"], spec["cap"])]
        cells += ["%.4g" % max(v, 1e-6) for v in row["cost"]]
        lines.append(",".join(cells))
    return "\n".join(lines) + "\n"


def manifest_parameters(spec):
    """The task's parameters as its manifest lists them."""
    params = []
    for p in spec["params"]:
        if p[1] == "categorical":
            params.append({"name": p[0], "type": "categorical",
                           "values": p[2]})
        else:
            params.append({"name": p[0], "type": p[1], "low": p[2],
                           "high": p[3], "scale": p[4]})
    return params


def manifest(task, args, seconds):
    spec = TASKS[task]
    versions = {"python": platform.python_version(),
                "numpy": np.__version__, "scikit-learn": sklearn.__version__}
    if task == "mlp":
        import torch
        versions["torch"] = torch.__version__
    return json.dumps({
        "task": task, "about": spec["about"], "metric": spec["metric"],
        "goal": "minimize", "metric_cap": spec["cap"],
        "configurations": args.configs, "steps": spec["steps"],
        "design": "scrambled Sobol (scipy.stats.qmc.Sobol, seed %d)" %
                  args.seed,
        "seed": args.seed, "cost": "CPU seconds (time.process_time), "
        "one thread", "parameters": manifest_parameters(spec),
        "versions": versions,
        "machine": platform.machine() + ", " + platform.node(),
        "cpu_seconds_total": round(seconds, 1),
        "command": "nice -n 19 /usr/bin/python3 "
                   "benchmarks/curves/generate_curves.py --task %s "
                   "--configs %d --seed %d" % (task, args.configs,
                                               args.seed)},
        indent=1) + "\n"


def generate(task, args):
    spec = TASKS[task]
    os.makedirs(args.out, exist_ok=True)
    shard, shards = args.shard
    partial = os.path.join(args.out, "%s.partial.%d.jsonl" % (task, shard))
    partials = os.path.join(args.out, task + ".partial.*.jsonl")
    configs = configurations(task, args.configs, args.seed)
    kept = {i: row for i, row in read_table(args.out, task, args.seed).items()
            if i < args.configs}
    done = {**kept, **read_partial(glob.glob(partials))}
    data = spec["data"](args.seed)
    started, trained = time.time(), 0
    progress(task, len(done), len(configs), started, trained)
    with open(partial, "a") as f:
        for i, cfg in enumerate(configs):
            if i in done or i % shards != shard:
                continue
            metric, cost = spec["train"](cfg, data, spec["steps"],
                                         args.seed + i)
            done[i] = {"id": i, "metric": metric, "cost": cost}
            f.write(json.dumps(done[i]) + "\n")
            f.flush()
            trained += 1
            progress(task, len(done), len(configs), started, trained)
    sys.stderr.write("\n")
    done = {**kept, **read_partial(glob.glob(partials))}
    if any(i not in done for i in range(len(configs))):
        return  # Other shards are still at work; the last one assembles.
    seconds = sum(sum(done[i]["cost"]) for i in range(len(configs)))
    plain = os.path.join(args.out, task + ".csv")
    write_atomically(plain + ".gz", table(task, configs, done))
    write_atomically(os.path.join(args.out, task + ".manifest.json"),
                     manifest(task, args, seconds))
    for path in glob.glob(partials) + [plain]:
        try:
            os.remove(path)
        except FileNotFoundError:
            pass  # Another shard finished at the same moment.


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--task", default="all",
                        choices=["all"] + sorted(TASKS))
    parser.add_argument("--configs", type=int, default=4096)
    parser.add_argument("--seed", type=int, default=64)
    parser.add_argument("--shard", default="0/1",
                        type=lambda s: tuple(int(x) for x in s.split("/")),
                        help="K/N: train configurations i with i %% N == K "
                             "(run N at once to use N cores)")
    parser.add_argument("--out", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "data"))
    args = parser.parse_args()
    for task in sorted(TASKS) if args.task == "all" else [args.task]:
        generate(task, args)


if __name__ == "__main__":
    main()
