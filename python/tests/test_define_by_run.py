"""Define-by-run on hptune's own Study, against a real engine: a config
without parameters learns its space from suggest_* (ranges, log, step,
choices), as Optuna's studies do: the first trial's, and a parameter first
suggested later joins the space (branches too); a rerun continues; a
declared config refuses a parameter it lacks, naming the rule."""

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


def growing(trial):
    """x always; "late" from the second trial on (the first is a
    FirstTrial, which has no id)."""
    x = trial.suggest_float("x", 0, 1)
    if getattr(trial, "id", 1) >= 2:
        x += trial.suggest_float("late", 0, 1) ** 2
        x += trial.suggest_int("layers", 2, 8, step=2) / 100
    return x


def test_a_parameter_first_seen_later_joins_the_space(local_db):
    with hptune.Client.local(local_db) as client:
        study = client.create_study("grow", {"goal": "MINIMIZE"})
        with pytest.raises(hptune.FailedPrecondition, match="first optimize"):
            study.best_value
        study.optimize(growing, n_trials=8)
        layers = [t.params["layers"] for t in study.trials()[1:]]
        assert all(type(v) is int and v in (2, 4, 6, 8) for v in layers)
        params = {p["parameterName"]: p
                  for p in study.refresh().spec["params"]}
        assert params["late"] == {"parameterName": "late", "type": "DOUBLE",
                                  "minValue": 0, "maxValue": 1,
                                  "scaleType": "UNIT_LINEAR_SCALE",
                                  "firstTrial": 2}
        assert params["x"]["firstTrial"] == 1  # Any trial may leave it out.
        trials = study.trials()
        assert [t.state for t in trials] == ["SUCCEEDED"] * 8
        assert "late" not in trials[0].parameters
        assert all(0 <= t.parameters["late"] <= 1 for t in trials[1:])
        frame = study.trials_dataframe()
        assert frame["params.late"].isna().tolist() == [True] + [False] * 7
        with pytest.raises(hptune.AlreadyExists):
            client.create_study("grow", {"goal": "MINIMIZE"})


def branches(trial):
    """Two branches, each with its own parameter (Optuna's habit)."""
    kind = trial.suggest_categorical("kind", ["svm", "forest"])
    if kind == "svm":
        c = trial.suggest_float("c", 1e-3, 1e3, log=True)
        return abs(math.log10(c) - 1)
    depth = trial.suggest_int("depth", 2, 16)
    return abs(depth - 6) / 4


def test_branches_join_as_they_are_first_taken(local_db):
    with hptune.Client.local(local_db) as client:
        study = client.study("branches", {"goal": "MINIMIZE"})
        study.optimize(branches, n_trials=24, n_jobs=2)
        names = [p["parameterName"] for p in study.refresh().spec["params"]]
        assert sorted(names) == ["c", "depth", "kind"]
        trials = study.trials()
        assert [t.state for t in trials] == ["SUCCEEDED"] * 24
        kinds = {t.parameters["kind"] for t in trials}
        assert kinds == {"svm", "forest"}
        for t in trials:  # The branch not taken is left out.
            used = "c" if t.parameters["kind"] == "svm" else "depth"
            assert set(t.parameters) == {"kind", used}, t
        assert study.best_value < 0.5


def test_the_designer_proposes_a_branch_only_where_it_is_taken(local_db):
    proposed = {}

    def recording(trial):
        # The first trial runs in the Python process (no id, no values).
        proposed[getattr(trial, "id", 1)] = set(
            getattr(trial, "parameters", {}))
        return branches(trial)

    with hptune.Client.local(local_db) as client:
        study = client.study("inferred", {"goal": "MINIMIZE"})
        study.optimize(recording, n_trials=20)
        trials = study.trials()
    # Once each branch's parameter joined and a later trial left it out,
    # each proposal holds its kind's parameter alone (the designer's
    # inferred tree).
    shown = 0
    for name in ("c", "depth"):
        joined = min(t.id for t in trials if name in t.parameters)
        shown = max(shown, min(t.id for t in trials
                               if t.id > joined and name not in t.parameters))
    assert shown <= 15, trials
    for t in trials:
        if t.id > shown:
            used = "c" if t.parameters["kind"] == "svm" else "depth"
            assert proposed[t.id] == {"kind", used}, (t.id, proposed, trials)


def test_process_workers_learn_parameters_too(local_db):
    with hptune.Client.local(local_db) as client:
        study = client.study("grow_processes", {"goal": "MINIMIZE"})
        study.optimize(growing, n_trials=6, n_workers=2)
        trials = study.trials()
        assert len(trials) == 6
        assert all("late" in t.parameters for t in trials
                   if t.id >= 2), trials


def test_a_declared_config_refuses_a_parameter_it_lacks(local_db):
    config = {"goal": "MINIMIZE", "params": [
        {"parameterName": "x", "type": "DOUBLE", "minValue": 0,
         "maxValue": 1}]}
    with hptune.Client.local(local_db) as client:
        study = client.study("declared", config)
        with pytest.raises(hptune.InvalidArgument,
                           match="'late' is not a parameter.*Its config "
                           "declares its space"):
            study.optimize(growing, n_trials=3)


def test_a_narrower_range_for_a_joined_parameter_is_refused(local_db):
    def widening(trial):
        number = getattr(trial, "id", 1)
        x = trial.suggest_float("x", 0, 1)
        if number >= 2:  # Joins at trial 2 as [0, 1], asked as [0, .5] at 3.
            x += trial.suggest_float("late", 0, 1 if number == 2 else 0.5)
        return x

    with hptune.Client.local(local_db) as client:
        study = client.study("widening", {"goal": "MINIMIZE"})
        with pytest.raises(hptune.InvalidArgument,
                           match=r"late: the study's range \[0, 1\] is not "
                           r"within \[0, 0.5\]"):
            study.optimize(widening, n_trials=4)


def test_define_by_run_on_a_server(client):
    study = client.study("remote_dbr", {"goal": "MINIMIZE", "maxTrials": 4})
    study.optimize(lambda t: (t.suggest_float("x", -5, 10) - 2) ** 2)
    assert len(study.trials()) == 4
    assert study.refresh().state == "COMPLETED"
    # Branches through hptune serve, as through Client.local.
    study = client.study("remote_branches",
                         {"goal": "MINIMIZE", "maxTrials": 12})
    study.optimize(branches, n_trials=12)
    trials = study.trials()
    assert {t.parameters["kind"] for t in trials} == {"svm", "forest"}
    for t in trials:
        used = "c" if t.parameters["kind"] == "svm" else "depth"
        assert set(t.parameters) == {"kind", used}, t


def test_the_docs_snippets_run_as_written(tmp_path):
    with open(os.path.join(SOURCE_DIR, "docs", "python.md"),
              encoding="utf-8") as f:
        section = f.read().split("### Define-by-run\n")[1].split("\n### ")[0]
    snippets = re.findall(r"^```python\n(.*?)^```", section, re.M | re.S)
    assert len(snippets) == 2
    outputs = []
    for i, snippet in enumerate(snippets):
        script = tmp_path / f"snippet{i}.py"
        script.write_text(snippet)
        done = subprocess.run([sys.executable, str(script)], cwd=tmp_path,
                              text=True, capture_output=True, timeout=120,
                              env=dict(os.environ, HPTUNE_BINARY=HPTUNE,
                                       XDG_RUNTIME_DIR=str(tmp_path)))
        assert done.returncode == 0, done.stderr
        outputs.append(ast.literal_eval(done.stdout.strip()))
    assert -5 <= outputs[0]["x"] <= 10
    assert set(outputs[1]) in ({"kind", "c"}, {"kind", "depth"})
