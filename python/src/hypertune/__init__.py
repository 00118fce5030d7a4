"""AI Platform's ``cloudml-hypertune`` module, for trainers run by hptune.

A trainer written for AI Platform runs unchanged::

    import hypertune
    hpt = hypertune.HyperTune()
    hpt.report_hyperparameter_tuning_metric(
        hyperparameter_metric_tag="accuracy", metric_value=0.93, global_step=9)

Each report rewrites the file named by ``CLOUD_ML_HP_METRIC_FILE`` (which
hptune sets for every replica) with the last 100 reports, one JSON object a
line, keys sorted, values strings except the timestamp, as the PyPI package
writes it::

    {"accuracy": "0.93", "global_step": "9", "timestamp": 1525851440.1, "trial": "3"}

Differences from the PyPI package, none visible to hptune's reader
(docs/trainer.md): the file is replaced atomically (a temporary file in the
same directory, then ``os.replace``), so a reader never sees half a line;
``checkpoint_path`` is written only when given; and without
``CLOUD_ML_HP_METRIC_FILE`` or a ``metric_path`` (a trainer run by hand, or
by a launcher that reads standard output, as Katib's) each report is printed
as one ``name=value ... global_step=N`` line on stdout, the form hptune's
stdout reader takes, instead of going to a shared file in /tmp.

A value that is not finite (``nan``, ``inf``) is written as such: it tells
hptune that training diverged, and the trial ends INFEASIBLE.

Standard library only, so a trainer can import it without the client's
gRPC dependencies. A HyperTune object is not thread-safe: report from one
thread (the chief's training loop).
"""

import collections
import json
import os
import time
from typing import Optional, Union

__all__ = ["HyperTune", "DEFAULT_METRIC_PATH", "DEFAULT_METRIC_TAG"]

DEFAULT_METRIC_PATH = "/tmp/hypertune/output.metrics"
DEFAULT_METRIC_TAG = "training/hptuning/metric"
_MAX_REPORTS_KEPT = 100
_METRIC_FILE_VARIABLE = "CLOUD_ML_HP_METRIC_FILE"
# Keys of a report line that are not metrics.
_RESERVED_KEYS = ("timestamp", "trial", "global_step", "checkpoint_path")


class HyperTune:
    """Writes tuning metrics where the tuning service reads them."""

    def __init__(self, metric_path: Optional[str] = None,
                 trial_id: Optional[Union[int, str]] = None) -> None:
        """Args:
          metric_path: the metric file; default ``$CLOUD_ML_HP_METRIC_FILE``,
            else ``/tmp/hypertune/output.metrics`` (as the PyPI package).
          trial_id: recorded with each report; default ``$CLOUD_ML_TRIAL_ID``.
        """
        from_environment = os.environ.get(_METRIC_FILE_VARIABLE)
        self.metric_path = metric_path or from_environment or DEFAULT_METRIC_PATH
        # Nobody reads the default file under hptune: print instead.
        self._to_stdout = not metric_path and not from_environment
        self.trial_id = str(trial_id if trial_id is not None else
                            os.environ.get("CLOUD_ML_TRIAL_ID", 0))
        self._reports = collections.deque(maxlen=_MAX_REPORTS_KEPT)

    def report_hyperparameter_tuning_metric(
            self, hyperparameter_metric_tag: Optional[str],
            metric_value: float, global_step: Optional[int] = None,
            checkpoint_path: str = "") -> None:
        """Appends one report and rewrites the metric file.

        Args:
          hyperparameter_metric_tag: the metric's name; it must match the
            config's hyperparameterMetricTag to count as the objective.
            Empty or None: ``training/hptuning/metric``.
          metric_value: a number (anything ``float()`` accepts).
          global_step: the training step the value belongs to (0 when None).
          checkpoint_path: optional path of the checkpoint the value came from.
        """
        self.report_metrics({hyperparameter_metric_tag or DEFAULT_METRIC_TAG:
                             metric_value}, global_step, checkpoint_path)

    def report_metrics(self, metrics: "dict[str, float]",
                       global_step: Optional[int] = None,
                       checkpoint_path: str = "") -> None:
        """Reports several metrics of one step as one line (hptune extension).

        Raises ValueError for no metrics, an empty name, a name with
        whitespace or ``=``, or a value that is not a number, naming the
        metric and the value.
        """
        if not metrics:
            raise ValueError("report: no metrics given")
        report = {"timestamp": time.time(), "trial": self.trial_id,
                  "global_step": str(int(global_step) if global_step else 0)}
        for name, value in metrics.items():
            if not name or any(c.isspace() or c in "=," for c in name):
                raise ValueError(f"report: metric name {name!r} is empty or "
                                 "holds whitespace, '=' or ','")
            if name in _RESERVED_KEYS:
                raise ValueError(f"report: {name!r} is not a metric name "
                                 "(the report line uses it)")
            try:
                number = float(value)
            except (TypeError, ValueError):
                raise ValueError(f"report: metric {name!r} has value {value!r},"
                                 " not a number") from None
            report[name] = repr(number)
        if checkpoint_path:
            report["checkpoint_path"] = checkpoint_path
        if self._to_stdout:
            print(" ".join(f"{name}={report[name]}" for name in metrics) +
                  f" global_step={report['global_step']}", flush=True)
            return
        self._reports.append(report)
        self._rewrite_file()

    def _rewrite_file(self) -> None:
        directory = os.path.dirname(self.metric_path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        text = "".join(json.dumps(report, sort_keys=True) + "\n"
                       for report in self._reports)
        temporary = f"{self.metric_path}.tmp-{os.getpid()}"
        try:
            with open(temporary, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(temporary, self.metric_path)
        except OSError:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise


_default_writer: Optional[HyperTune] = None


def _shared_writer() -> HyperTune:
    """One writer per process, so reports made through ``hptune.report``
    keep their last-100 history across calls."""
    global _default_writer
    if _default_writer is None:
        _default_writer = HyperTune()
    return _default_writer
