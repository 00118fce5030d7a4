#!/usr/bin/python3
"""generate_seed_curves.py on the committed sgd table's first 3
configurations with 2 seeds, then 3: seed 0 is the table's own curve, a
finished configuration is skipped by a rerun (its file untouched), a larger
K trains only the seeds it lacks, and the assembled table has one row per
configuration and seed. Needs what generate_curves.py needs."""

import argparse
import gzip
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate_seed_curves as seeds  # noqa: E402
from curve_files import DATA_DIR, read_curves  # noqa: E402
from halving_bound_test import check  # noqa: E402


def run(out, k):
    seeds.generate("sgd", argparse.Namespace(
        data=DATA_DIR, out=out, configs=3, seeds=k, shard=(0, 1)))


def rows(out):
    with gzip.open(os.path.join(out, "sgd.seeds.csv.gz"), "rt") as f:
        return [line.rstrip("\n").split(",") for line in f][1:]


def main():
    failed = 0
    table = read_curves(DATA_DIR, "sgd", 3)
    with tempfile.TemporaryDirectory() as out:
        run(out, 2)
        got = rows(out)
        failed += check("rows", [(r[0], r[1]) for r in got],
                        [(str(i), str(k)) for i in range(3) for k in range(2)])
        failed += check("seed 0 is the table's",
                        [float(v) for v in got[2][2:2 + len(table[1])]],
                        table[1])
        path = seeds.config_path(out, "sgd", 1)
        stamp = os.stat(path).st_mtime_ns
        run(out, 2)
        failed += check("a rerun skips", os.stat(path).st_mtime_ns, stamp)
        kept = seeds.read_done(out, "sgd", 1)[1]
        run(out, 3)
        failed += check("K grew: seed 1 kept", seeds.read_done(
            out, "sgd", 1)[1], kept)
        failed += check("K grew: 9 rows", len(rows(out)), 9)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
