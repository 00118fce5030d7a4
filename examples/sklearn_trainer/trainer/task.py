"""A random forest on scikit-learn's breast-cancer data, tuned by hptune.

Reads its hyperparameters as --name=value flags (hptune passes the trial's),
runs stratified 5-fold cross-validation and, after each fold, reports the
mean validation accuracy so far through the hypertune module (AI Platform's
cloudml-hypertune API), with the number of folds done as the step: early
stopping can end a trial that is doing badly after its first folds.

    /usr/bin/python3 -m trainer.task --max_depth=8 --max_features=0.3 \
        --min_samples_leaf=0.01 --criterion=entropy

Needs scikit-learn (Debian: python3-sklearn; scripts/setup installs it).
"""

import argparse
import os
import sys
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import StratifiedKFold

try:
    # cloudml-hypertune's module, from hptune's Python package
    # (pip install ./python) or from PyPI.
    import hypertune
except ImportError:  # Run from hptune's source tree without the package.
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                 os.pardir, os.pardir, os.pardir, "python",
                                 "src"))
    import hypertune  # noqa: E402

FOLDS = 5


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n_estimators", type=int, default=50)
    parser.add_argument("--max_depth", type=int, default=None)
    parser.add_argument("--max_features", type=float, default=1.0)
    parser.add_argument("--min_samples_leaf", type=float, default=1)
    parser.add_argument("--criterion", choices=("gini", "entropy"),
                        default="gini")
    parser.add_argument("--job-dir", default=None)  # hptune passes it; unused.
    return parser.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    x, y = load_breast_cancer(return_X_y=True)
    folds = StratifiedKFold(n_splits=FOLDS, shuffle=True, random_state=0)
    tag = os.environ.get("CLOUD_ML_HP_METRIC_TAG", "accuracy")
    reporter = hypertune.HyperTune()
    scores = []
    for fold, (train, test) in enumerate(folds.split(x, y), start=1):
        model = RandomForestClassifier(
            n_estimators=args.n_estimators, max_depth=args.max_depth,
            max_features=args.max_features,
            min_samples_leaf=args.min_samples_leaf, criterion=args.criterion,
            random_state=0, n_jobs=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(x[train], y[train])
        scores.append(model.score(x[test], y[test]))
        mean = float(np.mean(scores))
        reporter.report_hyperparameter_tuning_metric(
            hyperparameter_metric_tag=tag, metric_value=mean,
            global_step=fold)
        print(f"fold {fold}: accuracy {scores[-1]:.4f}, mean {mean:.4f}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
