"""Define-by-run on hptune's own Study, against a real engine: a config
without parameters learns its space from the first trial's suggest_*
(ranges, log, step, choices), as Optuna's studies do; a rerun continues;
a parameter first seen later is refused naming the rule."""

import ast
import math
import os
import re
import subprocess
import sys

import pytest

import hptune
from conftest import HPTUNE, SOURCE_DIR


@pytest.fixture
def local_db(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    return str(tmp_path / "dbr.db")


def objective(trial):
    lr = trial.suggest_float("lr", 1e-5, 1e-1, log=True)
    layers = trial.suggest_int("layers", 2, 8, step=2)
    units = trial.suggest_int("units", 16, 256, log=True)
    cell = trial.suggest_categorical("cell", ["gru", "lstm", 3])
    assert 1e-5 <= lr <= 1e-1 and layers in (2, 4, 6, 8)
    assert type(layers) is int and type(units) is int and 16 <= units <= 256
    assert cell in ("gru", "lstm", 3)
    return math.log10(lr) ** 2 + layers + (cell == 3)


def test_the_first_trial_defines_the_space_and_a_rerun_continues(local_db):
    with hptune.Client.local(local_db) as client:
        study = client.study("dbr", {"goal": "MINIMIZE"})
        study.optimize(objective, n_trials=6)
        params = {p["parameterName"]: p for p in study.spec["params"]}
        assert params["lr"]["type"] == "DOUBLE"
        assert params["lr"]["scaleType"] == "UNIT_LOG_SCALE"
        assert params["layers"]["discreteValues"] == [2, 4, 6, 8]
        assert params["units"]["type"] == "INTEGER"
        assert params["units"]["scaleType"] == "UNIT_LOG_SCALE"
        assert params["cell"]["categoricalValues"] == ["gru", "lstm", "3"]
        assert len(study.trials()) == 6
    with hptune.Client.local(local_db) as client:  # The script run again.
        study = client.study("dbr", {"goal": "MINIMIZE"})
        study.optimize(objective, n_trials=3, n_jobs=2)
        numbers = [t.id for t in study.trials()]
        assert sorted(numbers) == list(range(1, 10))
        assert study.best_value == min(t.value for t in study.trials())
        with pytest.raises(hptune.FailedPrecondition,
                           match='goal: config "MAXIMIZE", stored'):
            client.study("dbr", {"goal": "MAXIMIZE"})


def test_a_parameter_first_seen_later_is_refused_naming_the_rule(local_db):
    calls = []

    def growing(trial):
        calls.append(1)
        x = trial.suggest_float("x", 0, 1)
        if len(calls) > 1:
            trial.suggest_float("late", 0, 1)
        return x

    with hptune.Client.local(local_db) as client:
        study = client.create_study("grow", {"goal": "MAXIMIZE"})
        with pytest.raises(hptune.FailedPrecondition, match="first optimize"):
            study.best_value
        with pytest.raises(hptune.InvalidArgument,
                           match="'late' is not a parameter.*first trial "
                           "does"):
            study.optimize(growing, n_trials=3)
        with pytest.raises(hptune.AlreadyExists):
            client.create_study("grow", {"goal": "MAXIMIZE"})


def test_define_by_run_on_a_server(client):
    study = client.study("remote_dbr", {"goal": "MINIMIZE", "maxTrials": 4})
    study.optimize(lambda t: (t.suggest_float("x", -5, 10) - 2) ** 2)
    assert len(study.trials()) == 4
    assert study.refresh().state == "COMPLETED"


def test_the_docs_snippet_runs_as_written(tmp_path):
    with open(os.path.join(SOURCE_DIR, "docs", "python.md"),
              encoding="utf-8") as f:
        section = f.read().split("### Define-by-run\n")[1]
    snippet = re.search(r"^```python\n(.*?)^```", section, re.M | re.S)
    script = tmp_path / "snippet.py"
    script.write_text(snippet.group(1))
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path,
                          text=True, capture_output=True, timeout=120,
                          env=dict(os.environ, HPTUNE_BINARY=HPTUNE,
                                   XDG_RUNTIME_DIR=str(tmp_path)))
    assert done.returncode == 0, done.stderr
    assert -5 <= ast.literal_eval(done.stdout.strip())["x"] <= 10
