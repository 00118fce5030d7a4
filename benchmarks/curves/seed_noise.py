#!/usr/bin/python3
"""How much of a tabulated value is the training seed's luck: a task's best
configurations trained again with other seeds.

  seed_noise.py [--data DIR] [--tasks gbm,mlp,sgd] [--top 10] [--seeds 10]

A table holds one training of each configuration (generate_curves.py, seed
table seed + id). Here the --top configurations with the lowest final
value are trained again by the same code on the same data with --seeds
other seeds (table seed + id + 1000 k, k = 1..S). Printed per task: the
regret reference of curve_replay (the lowest value anywhere in the table),
the top configurations' tabulated final values, what the same
configurations end at on average with other seeds, and the standard
deviation of one configuration's final value over seeds (pooled).
The difference between a tabulated final value and its configuration's
mean over seeds is what no tuner can learn: a regret target below it asks
for the luck of one training, not for a better configuration.
Needs what generate_curves.py needs (scikit-learn, torch for mlp).
"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from curve_files import DATA_DIR, read_curves  # noqa: E402

SEED_STRIDE = 1000


def summarize(curves, retrained):
    """The figures of one task: `curves` its table's metric curves,
    `retrained` {config id: [final value per other seed]}."""
    reference = min(min(c) for c in curves)
    ids = sorted(retrained, key=lambda i: curves[i][-1])
    tabulated = [curves[i][-1] for i in ids]
    means = [statistics.fmean(retrained[i]) for i in ids]
    pooled = statistics.fmean(statistics.variance(retrained[i])
                              for i in ids) ** 0.5
    return {
        "reference": reference,
        "tabulated": (min(tabulated), statistics.median(tabulated)),
        "retrained": (min(means), statistics.median(means)),
        "shortfall": statistics.median(m - t for m, t in
                                       zip(means, tabulated)),
        "sd": pooled,
        # The regret a tuner reports for the best of them, on average.
        "regret_of_best_mean": min(means) - reference,
    }


def retrain(task, data_dir, top, seeds):
    """{config id: [final value per seed]} for the task's `top`
    configurations with the lowest tabulated final value."""
    import json
    import generate_curves as gen  # scikit-learn and torch: needed here only
    with open(os.path.join(data_dir, task + ".manifest.json")) as f:
        manifest = json.load(f)
    curves = read_curves(data_dir, task)
    spec, table_seed = gen.TASKS[task], manifest["seed"]
    configs = gen.configurations(task, len(curves), table_seed)
    data = spec["data"](table_seed)
    best = sorted(range(len(curves)), key=lambda i: curves[i][-1])[:top]
    out = {}
    for n, i in enumerate(best):
        out[i] = [spec["train"](configs[i], data, spec["steps"],
                                table_seed + i + SEED_STRIDE * k)[0][-1]
                  for k in range(1, seeds + 1)]
        sys.stderr.write("\r%s %d/%d" % (task, n + 1, len(best)))
    sys.stderr.write("\n")
    return curves, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=DATA_DIR)
    parser.add_argument("--tasks", default="gbm,mlp,sgd")
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--seeds", type=int, default=10)
    args = parser.parse_args()
    if args.top < 1 or args.seeds < 2:
        parser.error("--top must be at least 1 and --seeds at least 2")
    print("| task | lowest value (regret 0) | top %d final, tabulated: best, "
          "median | the same, mean of %d other seeds: best, median "
          "| tabulated minus mean (median) | sd over seeds | regret of the "
          "best mean |" % (args.top, args.seeds))
    print("|---|---|---|---|---|---|---|")
    for task in args.tasks.split(","):
        s = summarize(*retrain(task, args.data, args.top, args.seeds))
        print("| %s | %.4f | %.4f, %.4f | %.4f, %.4f | %+.4f | %.4f | %.4f |"
              % (task, s["reference"], *s["tabulated"], *s["retrained"],
                 -s["shortfall"], s["sd"], s["regret_of_best_mean"]))


if __name__ == "__main__":
    main()
