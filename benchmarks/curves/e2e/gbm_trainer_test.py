#!/usr/bin/env python3
"""gbm_trainer.py reports one validation log loss per stage, the stage as
the step, to the hypertune file hptune names (a small dataset: about a
second)."""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "master-0.metrics")
        env = dict(os.environ, CLOUD_ML_HP_METRIC_FILE=path,
                   CLOUD_ML_TRIAL_ID="1",
                   CLOUD_ML_HP_METRIC_TAG="valid_log_loss")
        subprocess.run(
            [sys.executable, os.path.join(HERE, "gbm_trainer.py"),
             "--learning_rate=0.3", "--max_depth=2", "--subsample=0.8",
             "--min_samples_leaf=4", "--max_features=0.5", "--samples=300",
             "--job-dir=" + tmp], check=True, env=env, timeout=120)
        with open(path) as f:
            reports = [json.loads(line) for line in f]
    steps = [int(r["global_step"]) for r in reports]
    values = [float(r["valid_log_loss"]) for r in reports]
    if steps != list(range(1, 25)):
        sys.exit("stages reported: %s" % steps)
    if not 0 < values[-1] < values[0]:
        sys.exit("the loss did not fall: %s" % values)
    print("24 stages, loss %.4f -> %.4f" % (values[0], values[-1]))


if __name__ == "__main__":
    main()
