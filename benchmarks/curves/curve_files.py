"""Where the learning-curve tables live and how to open them.

A task's table is <dir>/<task>.csv.gz (gzip; a plain <task>.csv is read
too) beside <dir>/<task>.manifest.json; generate_curves.py writes them,
and the Python harnesses read them through open_table. curve_table.cc is
the C++ reader of the same files.
"""

import csv
import gzip
import os
import re

# The committed tables.
DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def table_path(data, task):
    """The table's file: <task>.csv.gz, or <task>.csv where only it exists."""
    base = os.path.join(data, task)
    if not os.path.exists(base + ".csv.gz") and os.path.exists(base + ".csv"):
        return base + ".csv"
    return base + ".csv.gz"


def open_table(data, task):
    """The table as text, for csv.reader."""
    path = table_path(data, task)
    if path.endswith(".gz"):
        return gzip.open(path, "rt", newline="")
    return open(path, newline="")


def read_curves(data, task, configs=0):
    """Each configuration's metric per step, the table's first `configs`
    configurations (0: all; as curve_replay's --configs)."""
    with open_table(data, task) as f:
        rows = list(csv.DictReader(f))
    steps = sorted(int(k[1:]) for k in rows[0] if re.fullmatch(r"m\d+", k))
    if configs:
        if not 0 < configs <= len(rows):
            raise ValueError("%s: configurations %d is not in [1, %d]" %
                             (task, configs, len(rows)))
        rows = rows[:configs]
    return [[float(r["m%d" % s]) for s in steps] for r in rows]


def add_table_arguments(parser):
    """--data and --configs, as the curve scripts take them."""
    parser.add_argument("--data", default=DATA_DIR)
    parser.add_argument("--configs", type=int, default=0,
                        help="the table's first N configurations (0: all)")


def curves_for(parser, args, task):
    """read_curves for a command line: a --configs outside the table is a
    usage error naming it."""
    try:
        return read_curves(args.data, task, args.configs)
    except ValueError as e:
        parser.error("--configs: %s" % e)
