"""The hypertune module and hptune.report: the file the engine reads, and a
trainer that imports hypertune unchanged under `hptune run`."""

import json
import math
import os
import random
import subprocess
import sys

import pytest

import hptune
import hypertune
from conftest import DATA, run_hptune, trainer_environment


def lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def test_report_line_is_cloudml_hypertune_format(tmp_path):
    path = tmp_path / "out" / "metrics"
    hpt = hypertune.HyperTune(metric_path=str(path), trial_id=7)
    hpt.report_hyperparameter_tuning_metric(
        hyperparameter_metric_tag="accuracy", metric_value=0.93,
        global_step=9)
    text = path.read_text()
    assert text.endswith("\n") and text.count("\n") == 1
    (report,) = lines(path)
    assert list(report) == sorted(report)  # keys sorted
    assert report["accuracy"] == "0.93"
    assert report["global_step"] == "9"
    assert report["trial"] == "7"
    assert isinstance(report["timestamp"], float)
    assert "checkpoint_path" not in report


def test_default_tag_and_step(tmp_path):
    path = tmp_path / "metrics"
    hypertune.HyperTune(str(path)).report_hyperparameter_tuning_metric(
        None, 1.5)
    (report,) = lines(path)
    assert report["training/hptuning/metric"] == "1.5"
    assert report["global_step"] == "0"


def test_keeps_the_last_100_reports_and_replaces_the_file(tmp_path):
    path = tmp_path / "metrics"
    hpt = hypertune.HyperTune(str(path))
    inodes = set()
    for step in range(150):
        hpt.report_hyperparameter_tuning_metric("loss", step, step)
        inodes.add(os.stat(path).st_ino)
    reports = lines(path)
    assert [int(r["global_step"]) for r in reports] == list(range(50, 150))
    # Replaced by rename each time (a new inode), never rewritten in place,
    # and no temporary file left behind.
    assert len(inodes) > 1
    assert os.listdir(tmp_path) == ["metrics"]


def test_environment_names_the_file_and_trial(tmp_path, monkeypatch):
    path = tmp_path / "from-env"
    monkeypatch.setenv("CLOUD_ML_HP_METRIC_FILE", str(path))
    monkeypatch.setenv("CLOUD_ML_TRIAL_ID", "12")
    hypertune.HyperTune().report_hyperparameter_tuning_metric("loss", 2, 3)
    assert lines(path)[0]["trial"] == "12"


def test_without_a_metric_file_reports_go_to_stdout(tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k != "CLOUD_ML_HP_METRIC_FILE"}
    # Steps no other run reports, to look for in the shared default file.
    step = random.SystemRandom().randrange(10**9, 10**10)
    child = subprocess.Popen(
        [sys.executable, "-c",
         "import hypertune, hptune\n"
         "hypertune.HyperTune().report_hyperparameter_tuning_metric("
         f"'loss', 0.25, {step})\n"
         f"hptune.report(step={step + 1}, accuracy=0.5, loss=0.125)\n"],
        env=env, cwd=tmp_path, stdout=subprocess.PIPE, text=True)
    out, _ = child.communicate(timeout=60)
    assert child.returncode == 0
    assert out.splitlines() == [
        f"loss=0.25 global_step={step}",
        f"accuracy=0.5 loss=0.125 global_step={step + 1}"]
    # Printed instead of written: the shared default file (which other
    # programs may write meanwhile) holds neither report, and no temporary
    # file of this child's pid is left beside it.
    default = hypertune.DEFAULT_METRIC_PATH
    written = read_or_empty(default)
    assert str(step) not in written and str(step + 1) not in written
    assert not os.path.exists(f"{default}.tmp-{child.pid}")


def read_or_empty(path):
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        return ""


def test_a_diverged_value_is_written_for_the_engine_to_see(tmp_path):
    path = tmp_path / "metrics"
    hypertune.HyperTune(str(path)).report_hyperparameter_tuning_metric(
        "loss", float("nan"), 3)
    assert lines(path)[0]["loss"] == "nan"


@pytest.mark.parametrize("metrics,message", [
    ({}, "no metrics"),
    ({"": 1.0}, "empty"),
    ({"a b": 1.0}, "whitespace"),
    ({"global_step": 1.0}, "not a metric name"),
    ({"loss": "fast"}, "'fast', not a number"),
])
def test_bad_reports_name_the_metric_and_value(tmp_path, metrics, message):
    with pytest.raises(ValueError, match=message):
        hypertune.HyperTune(str(tmp_path / "m")).report_metrics(metrics, 1)


def test_hptune_report_writes_one_line_per_step(tmp_path, monkeypatch):
    path = tmp_path / "metrics"
    monkeypatch.setenv("CLOUD_ML_HP_METRIC_FILE", str(path))
    monkeypatch.setattr(hypertune, "_default_writer", None)
    hptune.report(step=1, accuracy=0.5, loss=1.25)
    hptune.report(step=2, **{"training/hptuning/metric": 0.75})
    first, second = lines(path)
    assert (first["accuracy"], first["loss"], first["global_step"]) == \
        ("0.5", "1.25", "1")
    assert second["training/hptuning/metric"] == "0.75"


def test_an_aip_trainer_runs_unchanged_under_hptune_run(tmp_path):
    db = str(tmp_path / "run.db")
    run = run_hptune(
        ["run", os.path.join(DATA, "aip_trainer", "config.yaml"),
         "--job-id", "aip_unchanged", "--db", db,
         "--runs-dir", str(tmp_path / "runs")],
        env=trainer_environment())
    assert run.returncode == 0, run.stderr
    for trial_id in (1, 2):
        shown = run_hptune(["trials", "describe", str(trial_id), "--study",
                            "aip_unchanged", "--db", db, "--format", "json"])
        assert shown.returncode == 0, shown.stderr
        (trial,) = json.loads(shown.stdout)
        rate = float(trial["hyperparameters"]["learning_rate"])
        curve = {int(m["step"]): m["metrics"]["loss"]
                 for m in trial["measurements"]}
        assert sorted(curve) == [1, 2, 3]
        for step, loss in curve.items():
            assert math.isclose(loss, rate / step, rel_tol=1e-12)
        assert math.isclose(trial["finalMetric"]["objectiveValue"], rate / 3,
                            rel_tol=1e-12)
