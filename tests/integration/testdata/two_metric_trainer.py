"""A trainer of two objectives and a constraint, for multi-metric tests.

Reads --x and --y, and prints one Katib-style stdout line with all three
metrics, as a trainer reporting several metrics does:
  accuracy   = 1 - (x - 0.7)^2 - 0.2 y        (maximised)
  latency_ms = 10 + 40 x + 5 y                (minimised)
  memory_mb  = 100 + 200 y                    (constraint: at most 200)
so accuracy and latency conflict in x, and y > 0.5 breaks the constraint.
"""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--x", type=float, required=True)
parser.add_argument("--y", type=float, required=True)
args = parser.parse_args()
accuracy = 1 - (args.x - 0.7) ** 2 - 0.2 * args.y
latency = 10 + 40 * args.x + 5 * args.y
memory = 100 + 200 * args.y
print(f"step=1 accuracy={accuracy!r} latency_ms={latency!r} "
      f"memory_mb={memory!r}", flush=True)
