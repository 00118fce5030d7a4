#!/usr/bin/env python3
"""The Bayesmark-style tasks: scikit-learn models x bundled data x metrics.

Each task is a model (Bayesmark's names: DT, MLP-adam, MLP-sgd, RF, SVM, ada,
kNN, lasso, linear) with Bayesmark's search space (bayesmark/sklearn_funcs.py,
rewritten here), a data set that ships with scikit-learn, and a metric; its
objective(params) is the mean loss of 5-fold cross-validation, to minimise:
the error rate (1 - accuracy), the log loss (nll), or the mean squared or
absolute error (mse, mae) of the robustly standardised target. Shuffled
folds with random_state=0, models with random_state=0 and n_jobs=1: the same
params give the same value.

One definition per space (SPACES) gives both hptune's config
(hptune_params) and Optuna's suggest calls (suggest).

Differences from Bayesmark, to keep an evaluation cheap and the code short:
- Bayesmark's "logit" scale is linear here (neither hptune nor Optuna has it).
- MLPs stop after MAX_ITER epochs (Bayesmark: sklearn's 200), and
  convergence warnings are silenced.
- CV runs on the whole data set (Bayesmark first holds out 20% for a
  generalisation score that the optimiser never sees).
- The regression lasso and linear spaces drop `normalize` (gone from
  scikit-learn 1.2); `fit_intercept` and `positive` stay categoricals.
- SVC fits Platt probabilities only for nll tasks.
- A fit that fails or scores NaN/inf gets the value of a model that
  predicts the training prior (mean), so no run stops on one bad point.

Measure the cost of an evaluation per task (random points, one core):

    /usr/bin/python3 benchmarks/bayesmark/tasks.py --time 5
"""

import argparse
import dataclasses
import math
import time
import warnings
from functools import lru_cache
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
from scipy.stats import norm
from sklearn import datasets
from sklearn.dummy import DummyClassifier, DummyRegressor
from sklearn.ensemble import (AdaBoostClassifier, AdaBoostRegressor,
                              RandomForestClassifier, RandomForestRegressor)
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Lasso, LogisticRegression, Ridge
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
from sklearn.neural_network import MLPClassifier, MLPRegressor
from sklearn.svm import SVC, SVR
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

MAX_ITER = 40
FOLDS = 5


@dataclasses.dataclass(frozen=True)
class Param:
    """One search dimension: DOUBLE, INTEGER (both with `log` scale or not)
    or CATEGORICAL (`choices`, strings as hptune hands them out)."""
    name: str
    kind: str
    low: float = 0.0
    high: float = 0.0
    log: bool = False
    choices: Tuple[str, ...] = ()


def real(name, low, high, log=False):
    return Param(name, "DOUBLE", low, high, log)


def integer(name, low, high, log=False):
    return Param(name, "INTEGER", low, high, log)


def boolean(name):
    return Param(name, "CATEGORICAL", choices=("false", "true"))


# Bayesmark's spaces ("logit" ranges are linear here, see the docstring).
_TREE = [real("max_features", 0.01, 0.99),
         real("min_samples_split", 0.01, 0.99),
         real("min_samples_leaf", 0.01, 0.49),
         real("min_weight_fraction_leaf", 0.01, 0.49),
         real("min_impurity_decrease", 0.0, 0.5)]
_MLP = [integer("hidden_layer_sizes", 50, 200),
        real("alpha", 1e-5, 1e1, log=True),
        integer("batch_size", 10, 250),
        real("learning_rate_init", 1e-5, 1e-1, log=True),
        real("tol", 1e-5, 1e-1, log=True),
        real("validation_fraction", 0.1, 0.9)]
_LOGISTIC = [real("C", 1e-2, 1e2, log=True),
             real("intercept_scaling", 1e-2, 1e2, log=True)]
_REGULARISED = [real("alpha", 1e-2, 1e2, log=True), boolean("fit_intercept"),
                integer("max_iter", 10, 5000, log=True)]
SPACES: Dict[Tuple[str, bool], List[Param]] = {}
for _classifier in (True, False):
    SPACES["kNN", _classifier] = [integer("n_neighbors", 1, 25),
                                  integer("p", 1, 4)]
    SPACES["SVM", _classifier] = [real("C", 1.0, 1e3, log=True),
                                  real("gamma", 1e-4, 1e-3, log=True),
                                  real("tol", 1e-5, 1e-1, log=True)]
    SPACES["DT", _classifier] = [integer("max_depth", 1, 15)] + _TREE
    SPACES["RF", _classifier] = [integer("max_depth", 1, 15)] + _TREE
    SPACES["MLP-adam", _classifier] = _MLP + [
        real("beta_1", 0.5, 0.99), real("beta_2", 0.9, 1.0 - 1e-6),
        real("epsilon", 1e-9, 1e-6, log=True)]
    SPACES["MLP-sgd", _classifier] = _MLP + [
        real("power_t", 0.1, 0.9), real("momentum", 0.001, 0.999)]
    SPACES["ada", _classifier] = [integer("n_estimators", 10, 100),
                                  real("learning_rate", 1e-4, 1e1, log=True)]
SPACES["lasso", True] = _LOGISTIC
SPACES["linear", True] = _LOGISTIC
SPACES["lasso", False] = _REGULARISED + [real("tol", 1e-5, 1e-1, log=True),
                                         boolean("positive")]
SPACES["linear", False] = _REGULARISED + [real("tol", 1e-4, 1e-1, log=True)]

_MLP_FIXED = {"early_stopping": True, "max_iter": MAX_ITER, "random_state": 0}
# model -> (classifier, regressor), each (class, fixed keyword arguments).
MODELS: Dict[str, Tuple[Tuple[type, dict], Tuple[type, dict]]] = {
    "kNN": ((KNeighborsClassifier, {"n_jobs": 1}),
            (KNeighborsRegressor, {"n_jobs": 1})),
    "SVM": ((SVC, {"kernel": "rbf", "random_state": 0}),
            (SVR, {"kernel": "rbf"})),
    "DT": ((DecisionTreeClassifier, {"random_state": 0}),
           (DecisionTreeRegressor, {"random_state": 0})),
    "RF": ((RandomForestClassifier,
            {"n_estimators": 10, "random_state": 0, "n_jobs": 1}),
           (RandomForestRegressor,
            {"n_estimators": 10, "random_state": 0, "n_jobs": 1})),
    "MLP-adam": ((MLPClassifier, dict(_MLP_FIXED, solver="adam")),
                 (MLPRegressor, dict(_MLP_FIXED, solver="adam"))),
    "MLP-sgd": ((MLPClassifier, dict(_MLP_FIXED, solver="sgd",
                                     learning_rate="invscaling",
                                     nesterovs_momentum=True)),
                # Bayesmark: regression "crashes often with relu".
                (MLPRegressor, dict(_MLP_FIXED, solver="sgd",
                                    activation="tanh",
                                    learning_rate="invscaling",
                                    nesterovs_momentum=True))),
    "ada": ((AdaBoostClassifier, {"random_state": 0}),
            (AdaBoostRegressor, {"random_state": 0})),
    "lasso": ((LogisticRegression, {"penalty": "l1", "solver": "liblinear",
                                    "multi_class": "ovr", "random_state": 0}),
              (Lasso, {"random_state": 0})),
    "linear": ((LogisticRegression, {"penalty": "l2", "solver": "liblinear",
                                     "multi_class": "ovr",
                                     "random_state": 0}),
               (Ridge, {"solver": "auto", "random_state": 0})),
}

_LOADERS = {"breast": datasets.load_breast_cancer,
            "digits": datasets.load_digits,
            "iris": datasets.load_iris, "wine": datasets.load_wine,
            "diabetes": datasets.load_diabetes}
_SCORING = {"acc": "accuracy", "nll": "neg_log_loss",
            "mse": "neg_mean_squared_error", "mae": "neg_mean_absolute_error"}

# The suite: every model, every data set and metric, on model x data pairs
# cheap enough for 64-trial runs on 2 cores (`--time` measures them).
# linear_diabetes_mae is left out: Ridge's MAE there is flat (256 random
# points within 1e-5 of each other), so its regret would be noise.
TASK_NAMES = (
    "DT_breast_acc", "DT_digits_acc", "DT_diabetes_mse",
    "RF_wine_nll", "RF_diabetes_mae",
    "SVM_breast_nll", "SVM_wine_acc", "SVM_diabetes_mse",
    "MLP-adam_iris_acc", "MLP-sgd_wine_nll",
    "ada_wine_acc",
    "kNN_wine_acc", "kNN_diabetes_mse",
    "lasso_breast_acc", "lasso_diabetes_mse",
    "linear_iris_nll",
)


def _robust_standardise(x: np.ndarray) -> np.ndarray:
    """Bayesmark's robust standardisation: median 0, and the 86% quantile
    range of a standard normal's width; clipped to [-100, 100]."""
    low, median, high = np.quantile(x, [0.07, 0.5, 0.93], axis=0)
    scale = (high - low) / (norm.ppf(0.93) - norm.ppf(0.07))
    scale = np.where(scale > 0, scale, 1.0)
    return np.clip((x - median) / scale, -100, 100)


@lru_cache(maxsize=None)
def _data(dataset: str) -> Tuple[np.ndarray, np.ndarray]:
    x, y = _LOADERS[dataset](return_X_y=True)
    x = _robust_standardise(x.astype(float))
    if dataset == "diabetes":
        y = _robust_standardise(y.astype(float))
    return x, y


class Task:
    """One model x data set x metric; objective(params) -> loss to minimise."""

    def __init__(self, name: str) -> None:
        model, dataset, metric = name.split("_")
        self.name = name
        self.classifier = dataset != "diabetes"
        if metric not in (("acc", "nll") if self.classifier
                          else ("mse", "mae")):
            raise ValueError(f"{name}: metric {metric} does not fit {dataset}")
        self.model, self.dataset, self.metric = model, dataset, metric
        self.space = SPACES[model, self.classifier]
        cls, fixed = MODELS[model][0 if self.classifier else 1]
        self._cls = cls
        self._fixed = dict(fixed)
        if cls is SVC and metric == "nll":
            self._fixed["probability"] = True
        self._folds = (StratifiedKFold if self.classifier else KFold)(
            n_splits=FOLDS, shuffle=True, random_state=0)
        self._failure: Optional[float] = None

    @property
    def numeric(self) -> bool:
        """Whether every parameter is a number (CMA-ES applies)."""
        return all(p.kind != "CATEGORICAL" for p in self.space)

    def hptune_params(self) -> List[Dict[str, Any]]:
        """The space as hptune's `params` list (AI Platform's shape)."""
        out = []
        for p in self.space:
            if p.kind == "CATEGORICAL":
                out.append({"parameterName": p.name, "type": p.kind,
                            "categoricalValues": list(p.choices)})
                continue
            scale = "UNIT_LOG_SCALE" if p.log else "UNIT_LINEAR_SCALE"
            out.append({"parameterName": p.name, "type": p.kind,
                        "minValue": p.low, "maxValue": p.high,
                        "scaleType": scale})
        return out

    def suggest(self, trial) -> Dict[str, Any]:
        """The same space through an Optuna trial's suggest calls."""
        out = {}
        for p in self.space:
            if p.kind == "CATEGORICAL":
                out[p.name] = trial.suggest_categorical(p.name, p.choices)
            elif p.kind == "INTEGER":
                out[p.name] = trial.suggest_int(p.name, int(p.low),
                                                int(p.high), log=p.log)
            else:
                out[p.name] = trial.suggest_float(p.name, p.low, p.high,
                                                  log=p.log)
        return out

    def sample(self, rng: np.random.Generator) -> Dict[str, Any]:
        """A uniform draw in the scaled space (random search's point)."""
        out = {}
        for p in self.space:
            if p.kind == "CATEGORICAL":
                out[p.name] = p.choices[rng.integers(len(p.choices))]
                continue
            low, high = p.low, p.high
            if p.kind == "INTEGER":
                low, high = low - 0.5, high + 0.5   # equal mass per integer
            if p.log:
                value = math.exp(rng.uniform(math.log(low), math.log(high)))
            else:
                value = rng.uniform(low, high)
            if p.kind == "INTEGER":
                value = int(min(max(round(value), p.low), p.high))
            out[p.name] = value
        return out

    def _estimator(self, params: Dict[str, Any]):
        kwargs = dict(self._fixed)
        for name, value in params.items():
            if value in ("true", "false"):
                value = value == "true"
            elif name == "hidden_layer_sizes":
                value = (int(value),)
            kwargs[name] = value
        return self._cls(**kwargs)

    def _score(self, estimator) -> float:
        x, y = _data(self.dataset)
        with warnings.catch_warnings():
            # Optimisers try odd corners: warnings there are expected.
            warnings.simplefilter("ignore", ConvergenceWarning)
            warnings.simplefilter("ignore", UserWarning)
            warnings.simplefilter("ignore", RuntimeWarning)
            scores = cross_val_score(estimator, x, y, cv=self._folds,
                                     scoring=_SCORING[self.metric],
                                     error_score=np.nan)
        score = float(np.mean(scores))
        return 1.0 - score if self.metric == "acc" else -score

    def failure_value(self) -> float:
        """The loss of predicting the training prior (mean): what a failed
        or non-finite evaluation scores."""
        if self._failure is None:
            self._failure = self._score(
                DummyClassifier(strategy="prior") if self.classifier
                else DummyRegressor())
        return self._failure

    def objective(self, params: Dict[str, Any]) -> float:
        value = self._score(self._estimator(params))
        return value if math.isfinite(value) else self.failure_value()


def _time_tasks(names: List[str], points: int) -> None:
    print(f"Seconds per evaluation ({FOLDS}-fold CV), {points} random points "
          "per task (seed 0), one process")
    print("| task | dims | mean | max | value range |")
    print("|---|---|---|---|---|")
    for name in names:
        t = Task(name)
        t.objective(t.sample(np.random.default_rng(0)))   # load data, warm up
        rng = np.random.default_rng(0)
        seconds, values = [], []
        for _ in range(points):
            params = t.sample(rng)
            start = time.perf_counter()
            values.append(t.objective(params))
            seconds.append(time.perf_counter() - start)
        print(f"| {name} | {len(t.space)} | {np.mean(seconds):.3f} | "
              f"{max(seconds):.3f} | {min(values):.4g} .. {max(values):.4g} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--time", type=int, metavar="POINTS", required=True,
                        help="time this many random points per task")
    parser.add_argument("--tasks", default=",".join(TASK_NAMES))
    args = parser.parse_args()
    _time_tasks(args.tasks.split(","), args.time)


if __name__ == "__main__":
    main()
