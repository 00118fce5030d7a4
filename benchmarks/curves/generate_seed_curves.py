#!/usr/bin/python3
"""Trains every configuration of the learning-curve tables with K seeds: the
seed-averaged tables, so that regret is scored on a configuration's expected
final value and a lucky training earns nothing.

  nice -n 19 /usr/bin/python3 benchmarks/curves/generate_seed_curves.py \
      --task all --seeds 5 [--configs N] [--shard K/N] [--out DIR]

Seed k of configuration i is table seed + i + 1000 k (seed_noise.py's
stride): seed 0 is the table's own training, copied from <task>.csv.gz, and
seeds 1..K-1 are trained by generate_curves.py's code on the same data.
Resumable: each configuration, once all its seeds are trained, is written
atomically to <out>/<task>.seeds.d/<i>.json, and a rerun skips it (or trains
only the seeds it lacks when K grew); --shard K/N trains only configurations
i with i % N == K, so N processes can share a task. When every one of the
table's first --configs (0: all) has its file, <out>/<task>.seeds.csv.gz is
written atomically, one row per configuration and seed (id, seed, m0..,
c0..), with <task>.seeds.json (seeds, versions, CPU seconds, command).
curve_replay --seeded reads them (docs/designers.md).
"""

import argparse
import json
import math
import os
import platform
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate_curves as gen  # noqa: E402  (sets one thread per process)
from curve_files import DATA_DIR, read_curves  # noqa: E402

SEED_STRIDE = 1000


def seed_of(table_seed, config, k):
    """The training seed of configuration `config`'s seed k (0: the
    table's own)."""
    return table_seed + config + SEED_STRIDE * k


def config_path(out, task, i):
    return os.path.join(out, task + ".seeds.d", "%d.json" % i)


def read_done(out, task, i):
    """Configuration i's finished seeds, {k: {"metric", "cost"}}; {} when
    none (a file cut short is not written: its rename never happened)."""
    try:
        with open(config_path(out, task, i)) as f:
            return {int(k): v for k, v in json.load(f)["seeds"].items()}
    except FileNotFoundError:
        return {}


def write_json_atomically(path, value):
    gen.write_atomically(path, json.dumps(value) + "\n")


def progress(task, done, total, started, trained):
    """One line, rewritten: configurations done, pace, time left."""
    rate = (time.time() - started) / max(trained, 1)
    left = rate * (total - done) if trained or done == total else math.nan
    width = 30
    filled = int(width * done / max(total, 1))
    sys.stderr.write("\r%-4s [%s%s] %d/%d configs  %.2fs/config  %.0f min "
                     "left " % (task, "#" * filled, "." * (width - filled),
                                done, total, rate, left / 60))
    sys.stderr.flush()


def train_seeds(task, i, cfg, data, table_seed, first_curve, seeds, have):
    """Configuration i's seeds 0..seeds-1, `have` those already trained."""
    spec = gen.TASKS[task]
    out = dict(have)
    if 0 not in out:
        out[0] = {"metric": first_curve["metric"], "cost": first_curve["cost"]}
    for k in range(1, seeds):
        if k in out:
            continue
        metric, cost = spec["train"](cfg, data, spec["steps"],
                                     seed_of(table_seed, i, k))
        out[k] = {"metric": gen.finite(metric, spec["cap"]), "cost": cost}
    return out


def table_rows(data_dir, task, n):
    """The single-seed table's first n rows: {"metric", "cost"} each."""
    table = gen.read_table(data_dir, task, manifest(data_dir, task)["seed"])
    if len(table) < n:
        raise SystemExit("%s: the table has %d configurations, not %d" %
                         (task, len(table), n))
    return [table[i] for i in range(n)]


def manifest(data_dir, task):
    with open(os.path.join(data_dir, task + ".manifest.json")) as f:
        return json.load(f)


def seeds_table(task, n, seeds, rows):
    """The seed-averaged table's text: one line per configuration and seed."""
    steps = gen.TASKS[task]["steps"]
    head = (["id", "seed"] + ["m%d" % s for s in range(steps)] +
            ["c%d" % s for s in range(steps)])
    lines = [",".join(head)]
    for i in range(n):
        for k in range(seeds):
            curve = rows[i][k]
            lines.append(",".join(
                [str(i), str(k)] + ["%.6g" % v for v in curve["metric"]] +
                ["%.4g" % max(v, 1e-6) for v in curve["cost"]]))
    return "\n".join(lines) + "\n"


def assemble(task, args, n, table_seed):
    """Writes <task>.seeds.csv.gz and .seeds.json when all n are done."""
    rows = []
    for i in range(n):
        done = read_done(args.out, task, i)
        if any(k not in done for k in range(args.seeds)):
            return False  # Other shards are still at work.
        rows.append(done)
    seconds = sum(sum(rows[i][k]["cost"]) for i in range(n)
                  for k in range(1, args.seeds))
    gen.write_atomically(os.path.join(args.out, task + ".seeds.csv.gz"),
                         seeds_table(task, n, args.seeds, rows))
    write_json_atomically(os.path.join(args.out, task + ".seeds.json"), {
        "task": task, "configurations": n, "seeds": args.seeds,
        "seed": "table seed %d + id + %d k; k = 0 is the table's own "
                "training" % (table_seed, SEED_STRIDE),
        "cpu_seconds_trained": round(seconds, 3),
        "versions": {"python": platform.python_version(),
                     "numpy": gen.np.__version__,
                     "scikit-learn": gen.sklearn.__version__},
        "command": "nice -n 19 /usr/bin/python3 benchmarks/curves/"
                   "generate_seed_curves.py --task %s --configs %d "
                   "--seeds %d" % (task, n, args.seeds)})
    return True


def generate(task, args):
    spec = gen.TASKS[task]
    table_seed = manifest(args.data, task)["seed"]
    size = len(read_curves(args.data, task))
    n = args.configs or size
    rows = table_rows(args.data, task, n)
    # The table's own Sobol set (a power of 2), whose first n are these.
    configs = gen.configurations(task, size, table_seed)[:n]
    os.makedirs(os.path.join(args.out, task + ".seeds.d"), exist_ok=True)
    shard, shards = args.shard
    mine = [i for i in range(n) if i % shards == shard]
    todo = [i for i in mine
            if len(read_done(args.out, task, i)) < args.seeds]
    data = spec["data"](table_seed)
    started, trained = time.time(), 0
    progress(task, len(mine) - len(todo), len(mine), started, trained)
    for i in todo:
        have = read_done(args.out, task, i)
        seeds = train_seeds(task, i, configs[i], data, table_seed, rows[i],
                            args.seeds, have)
        write_json_atomically(config_path(args.out, task, i), {
            "id": i, "seeds": {str(k): v for k, v in sorted(seeds.items())}})
        trained += 1
        progress(task, len(mine) - len(todo) + trained, len(mine), started,
                 trained)
    sys.stderr.write("\n")
    if assemble(task, args, n, table_seed):
        sys.stderr.write("%s: wrote %s.seeds.csv.gz\n" % (task, task))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--task", default="all",
                        choices=["all"] + sorted(gen.TASKS))
    parser.add_argument("--seeds", type=int, default=5,
                        help="seeds per configuration, the table's own "
                             "included (at least 2)")
    parser.add_argument("--configs", type=int, default=0,
                        help="the table's first N configurations (0: all)")
    parser.add_argument("--shard", default="0/1",
                        type=lambda s: tuple(int(x) for x in s.split("/")),
                        help="K/N: train configurations i with i %% N == K")
    parser.add_argument("--data", default=DATA_DIR,
                        help="where the single-seed tables are")
    parser.add_argument("--out", default=DATA_DIR)
    args = parser.parse_args()
    if args.seeds < 2 or args.configs < 0:
        parser.error("--seeds must be at least 2 and --configs at least 0")
    for task in sorted(gen.TASKS) if args.task == "all" else [args.task]:
        generate(task, args)


if __name__ == "__main__":
    main()
