#!/usr/bin/env python3
"""The learning-curve benchmark's `gbm` task as a real trainer, for early
stopping end to end through `hptune run` (no replay): scikit-learn's
GradientBoostingClassifier fitted stage by stage (warm start) on
make_classification data, reporting the validation log loss after each stage
through the hypertune module, the stage as the step.

The model, its parameters and the data's generator are those of
generate_curves.py's `gbm` task; the data has `--samples` training rows
(10,000 by default, against the table's 1,000) so that a stage takes long
enough (about 0.1 s on one core) for the runner to stop a trial between
reports. Run by benchmarks/curves/e2e/run.sh with gbm.yaml.

  /usr/bin/python3 gbm_trainer.py --learning_rate=0.1 --max_depth=3 \\
      --subsample=0.8 --min_samples_leaf=8 --max_features=0.6
"""

import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import hypertune  # hptune's Python package, or cloudml-hypertune.
except ImportError:  # From hptune's source tree without the package.
    sys.path.append(os.path.join(HERE, os.pardir, os.pardir, os.pardir,
                                 "python", "src"))
    import hypertune  # noqa: E402

STAGES = 24
SEED = 64


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     allow_abbrev=False)
    parser.add_argument("--learning_rate", type=float, required=True)
    parser.add_argument("--max_depth", type=int, required=True)
    parser.add_argument("--subsample", type=float, required=True)
    parser.add_argument("--min_samples_leaf", type=int, required=True)
    parser.add_argument("--max_features", type=float, required=True)
    parser.add_argument("--samples", type=int, default=10000)
    args, _ = parser.parse_known_args(argv)  # --job-dir and the like.
    return args


def data(samples):
    from sklearn.datasets import make_classification
    valid = samples * 6 // 10
    x, y = make_classification(n_samples=samples + valid, n_features=20,
                               n_informative=8, n_redundant=4, flip_y=0.05,
                               class_sep=0.8, random_state=SEED)
    order = np.random.RandomState(SEED).permutation(len(y))
    x, y = x[order], y[order]
    return x[:samples], y[:samples], x[samples:], y[samples:]


def main(argv):
    from sklearn.ensemble import GradientBoostingClassifier
    from sklearn.metrics import log_loss
    args = parse_args(argv)
    xt, yt, xv, yv = data(args.samples)
    model = GradientBoostingClassifier(
        n_estimators=1, learning_rate=args.learning_rate,
        max_depth=args.max_depth, subsample=args.subsample,
        min_samples_leaf=args.min_samples_leaf,
        max_features=args.max_features, random_state=SEED, warm_start=True)
    tag = os.environ.get("CLOUD_ML_HP_METRIC_TAG", "valid_log_loss")
    reporter = hypertune.HyperTune()
    for stage in range(1, STAGES + 1):
        model.n_estimators = stage
        model.fit(xt, yt)
        proba = np.clip(model.predict_proba(xv), 1e-15, 1 - 1e-15)
        reporter.report_hyperparameter_tuning_metric(
            hyperparameter_metric_tag=tag, metric_value=log_loss(yv, proba),
            global_step=stage)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
