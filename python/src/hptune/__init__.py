"""hptune's Python package: report metrics from a trainer, and drive an
``hptune serve`` (studies by ask/tell, training jobs) from Python.

Reporting (standard library only; a trainer needs nothing else)::

    import hptune
    hptune.report(step=100, accuracy=0.93, loss=0.21)

AI Platform's ``import hypertune`` works unchanged too (the ``hypertune``
module of this package).

The client (needs grpcio and protobuf)::

    client = hptune.Client()            # or Client.local("study.db")
    study = client.study("svc", "config.yaml")
    study.optimize(objective, n_jobs=2)
    print(study.best_value, study.best_params)

From Optuna: ``optuna.create_study(sampler=hptune.optuna.GPSampler())``.

Reference: docs/python.md. The client's names load on first use, so a
trainer that only reports never imports gRPC.
"""

from typing import Optional

from hptune._version import __version__  # noqa: F401 - public

_CLIENT_NAMES = {
    "Client": "hptune.client",
    "Study": "hptune.study",
    "Suggestions": "hptune.study",
    "Trial": "hptune.trials",
    "Measurement": "hptune.trials",
    "Job": "hptune.jobs",
    "JobTrial": "hptune.jobs",
    "ImportanceReport": "hptune.importance",
    "ParameterImportance": "hptune.importance",
}
_ERROR_NAMES = (
    "HptuneError", "Cancelled", "Unknown", "InvalidArgument",
    "DeadlineExceeded", "NotFound", "AlreadyExists", "PermissionDenied",
    "ResourceExhausted", "FailedPrecondition", "Aborted", "OutOfRange",
    "Unimplemented", "Internal", "Unavailable", "DataLoss", "Unauthenticated")

__all__ = ["__version__", "report"] + list(_CLIENT_NAMES) + list(_ERROR_NAMES)


def report(step: Optional[int] = None, **metrics: float) -> None:
    """Reports metrics of one training step to hptune: ``report(step=100,
    accuracy=0.93, loss=0.21)``. One line of the hypertune file
    (``$CLOUD_ML_HP_METRIC_FILE``, replaced atomically, last 100 reports
    kept), or of stdout when no metric file is set. Metric names that are
    not Python identifiers (``training/hptuning/metric``) go through
    ``report(**{"name": value})``."""
    import hypertune

    hypertune._shared_writer().report_metrics(metrics, step)


def __getattr__(name: str):
    import importlib

    if name in _CLIENT_NAMES:
        return getattr(importlib.import_module(_CLIENT_NAMES[name]), name)
    if name in _ERROR_NAMES:
        return getattr(importlib.import_module("hptune.errors"), name)
    raise AttributeError(f"module 'hptune' has no attribute {name!r}")
