#!/usr/bin/env python3
"""How low DTLZ2's hypervolume regret can go with n trials.

Places n points exactly on DTLZ2's Pareto front (the unit sphere's positive
octant, 3 objectives), greedily, each where it adds the most hypervolume
against the harness's reference point r = (1.1, 1.1, 1.1), and prints the
hypervolume regret (1.331 - pi/6 minus the set's hypervolume) for each n.
Greedy hypervolume subset selection is near the optimal placement in
practice (Guerreiro et al., "Greedy hypervolume subset selection in low
dimensions", Evolutionary Computation 24(3), 2016); it shows what a budget
of trials can reach at best, before any of them is spent on finding the
front. The hypervolumes are Monte Carlo estimates (a fixed seed; about
+-0.002 with the default samples).

Usage: /usr/bin/python3 benchmarks/dtlz2_front_bound.py [--samples 200000]
         [--candidates 2000] [--counts 20,40,50,60,88,100]
"""

import argparse
import math

import numpy as np

REFERENCE = 1.1
OPTIMUM = REFERENCE**3 - math.pi / 6


def front_points(count, rng):
    """DTLZ2's front at uniformly drawn (x1, x2): f = (c1 c2, c1 s2, s1)."""
    a = rng.uniform(0, math.pi / 2, (count, 2))
    return np.stack([
        np.cos(a[:, 0]) * np.cos(a[:, 1]),
        np.cos(a[:, 0]) * np.sin(a[:, 1]),
        np.sin(a[:, 0]),
    ], axis=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=200000)
    parser.add_argument("--candidates", type=int, default=2000)
    parser.add_argument("--counts", default="20,40,50,60,88,100")
    args = parser.parse_args()
    counts = sorted(int(c) for c in args.counts.split(","))
    rng = np.random.default_rng(1)
    candidates = front_points(args.candidates, rng)
    box = rng.uniform(0, REFERENCE, (args.samples, 3))
    # Only the box's part outside the unit sphere can be dominated.
    box = box[np.linalg.norm(box, axis=1) >= 1]
    sample_volume = REFERENCE**3 / args.samples
    dominates = np.stack([np.all(box >= c, axis=1) for c in candidates])
    dominated = np.zeros(len(box), dtype=bool)
    print("points_on_front\thypervolume\tregret")
    for n in range(1, counts[-1] + 1):
        gain = dominates[:, ~dominated].sum(axis=1)
        dominated |= dominates[int(gain.argmax())]
        if n in counts:
            hypervolume = dominated.sum() * sample_volume
            print(f"{n}\t{hypervolume:.4f}\t{OPTIMUM - hypervolume:.4f}")


if __name__ == "__main__":
    main()
