"""A standard-library copy of the `cloudml-hypertune` metric writer.

Trainers call it to report their objective to the tuning service, exactly as
they would on AI Platform:

    from trainer import hypertune
    hpt = hypertune.HyperTune()
    hpt.report_hyperparameter_tuning_metric(
        hyperparameter_metric_tag="loss", metric_value=0.4, global_step=9)

Each report rewrites the whole file named by CLOUD_ML_HP_METRIC_FILE with the
last 100 reports, one JSON object per line, keys sorted, values strings except
the timestamp:

    {"global_step": "9", "loss": "0.4", "timestamp": 1525851440.1, "trial": "3"}

Differences from the PyPI package: the file is written atomically (a
temporary file in the same directory, then os.replace), so a reader never sees
half a line; and `checkpoint_path` is written only when given (the package
always writes it, "" by default).

Not thread-safe: report from one thread (the chief's training loop).
This file has no dependencies; copy it next to your trainer.
"""

import collections
import json
import os
import time

_DEFAULT_METRIC_PATH = "/tmp/hypertune/output.metrics"
_DEFAULT_METRIC_TAG = "training/hptuning/metric"
_MAX_REPORTS_KEPT = 100


class HyperTune:
    """Writes tuning metrics where the tuning service reads them."""

    def __init__(self, metric_path=None, trial_id=None):
        self.metric_path = metric_path or os.environ.get(
            "CLOUD_ML_HP_METRIC_FILE", _DEFAULT_METRIC_PATH)
        self.trial_id = str(trial_id if trial_id is not None else
                            os.environ.get("CLOUD_ML_TRIAL_ID", 0))
        self._reports = collections.deque(maxlen=_MAX_REPORTS_KEPT)

    def report_hyperparameter_tuning_metric(self,
                                            hyperparameter_metric_tag,
                                            metric_value,
                                            global_step=None,
                                            checkpoint_path=""):
        """Appends one report and rewrites the metric file.

        Args:
          hyperparameter_metric_tag: the metric's name; it must match the
            config's hyperparameterMetricTag to count as the objective.
          metric_value: a number (anything float() accepts).
          global_step: the training step the value belongs to (0 when None).
          checkpoint_path: optional path of the checkpoint the value came from.
        """
        report = {
            "timestamp": time.time(),
            "trial": self.trial_id,
            (hyperparameter_metric_tag or _DEFAULT_METRIC_TAG):
                str(float(metric_value)),
            "global_step": str(int(global_step) if global_step else 0),
        }
        if checkpoint_path:
            report["checkpoint_path"] = checkpoint_path
        self._reports.append(report)
        self._rewrite_file()

    def _rewrite_file(self):
        directory = os.path.dirname(self.metric_path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        text = "".join(json.dumps(report, sort_keys=True) + "\n"
                       for report in self._reports)
        temporary = "%s.tmp-%d" % (self.metric_path, os.getpid())
        with open(temporary, "w") as f:
            f.write(text)
        os.replace(temporary, self.metric_path)
