"""Optuna's habits on hptune's own Study, against a real server: best_value,
best_params, best_trial as a property; n_jobs; a message instead of a
traceback when worker processes cannot work; ints stay ints; a changed
config refused."""

import os
import subprocess
import sys
import textwrap

import pytest

import hptune
from conftest import DATA

SPEC = {"goal": "MINIMIZE", "maxTrials": 6, "maxParallelTrials": 2,
        "seed": 3, "params": [
            {"parameterName": "x", "type": "DOUBLE", "minValue": 0,
             "maxValue": 1},
            {"parameterName": "batch", "type": "DISCRETE",
             "discreteValues": [16, 32, 64]},
            {"parameterName": "cell", "type": "CATEGORICAL",
             "categoricalValues": ["gru", "lstm"]}]}


def objective(trial):
    x = trial.suggest_float("x", 0, 1)
    batch = trial.suggest_int("batch", 16, 64)
    assert type(trial.parameters["batch"]) is int
    return x + batch / 1000 + (trial.suggest_categorical(
        "cell", ["gru", "lstm"]) == "lstm")


def test_best_value_params_and_trial_as_optuna_has_them(client):
    study = client.create_study("habits", SPEC)
    with pytest.raises(ValueError, match="no feasible SUCCEEDED trial"):
        study.best_trial
    study.optimize(objective, n_jobs=2)
    trials = study.trials()
    assert len(trials) == 6 and all(t.state == "SUCCEEDED" for t in trials)
    best = min(trials, key=lambda t: t.value)
    assert study.best_value == best.value
    assert study.best_params == best.parameters == best.params
    assert study.best_params["batch"] in (16, 32, 64)
    assert type(study.best_params["batch"]) is int
    assert study.best_trial.id == best.id
    with pytest.warns(DeprecationWarning, match="property"):
        assert study.best_trial().id == best.id
    assert [t.id for t in study.best_trials] == [best.id]


def test_n_jobs_and_n_workers_together_are_refused(client):
    study = client.create_study("both", SPEC)
    with pytest.raises(hptune.InvalidArgument, match="give one of them"):
        study.optimize(objective, n_jobs=2, n_workers=2)


def test_suggest_outside_the_spec_names_the_parameter(client):
    trial = client.create_study("names", SPEC).suggest()[0]
    with pytest.raises(hptune.InvalidArgument, match="'y' is not an active"):
        trial.suggest_float("y", 0, 1)
    with pytest.raises(hptune.InvalidArgument, match=r"outside \[2, 3\]"):
        trial.suggest_float("x", 2, 3)


def test_process_workers_that_cannot_work_say_why(client):
    study = client.create_study("lambda", SPEC)
    with pytest.raises(hptune.InvalidArgument,
                       match="does not pickle.*Use n_jobs=2"):
        study.optimize(lambda t: 0.0, n_trials=1, n_workers=2)
    assert study.trials() == []


def run_python(code: str, server, cwd, stdin: bool):
    env = dict(os.environ, HPTUNE_SERVER=server.address,
               HPTUNE_TOKEN=server.token)
    args = [sys.executable] + (["-"] if stdin else ["script.py"])
    if not stdin:
        (cwd / "script.py").write_text(code)
    return subprocess.run(args, input=code if stdin else None, env=env,
                          cwd=cwd, text=True, capture_output=True,
                          timeout=300)


def test_a_repl_and_an_unguarded_script_get_a_message(server, tmp_path):
    code = textwrap.dedent(f"""
        import hptune
        study = hptune.Client().study("s", {SPEC!r})
        def objective(trial):
            return trial.parameters["x"]
        study.optimize(objective, n_trials=1, n_workers=2)
    """)
    for stdin, why in ((True, "interactive session"),
                       (False, "has no `if __name__ ==")):
        done = run_python(code, server, tmp_path, stdin)
        assert done.returncode == 1
        assert why in done.stderr and "Use n_jobs=2" in done.stderr
        assert done.stderr.count("\n") < 20, done.stderr  # not 133 lines


def test_a_changed_config_is_refused_naming_the_differences(client):
    path = os.path.join(DATA, "study.yaml")
    first = client.study("changed", path)
    assert client.study("changed", path).name == first.name  # same: loads
    edited = dict(SPEC, goal="MAXIMIZE")
    with pytest.raises(hptune.FailedPrecondition) as refused:
        client.study("changed", edited)
    message = str(refused.value)
    assert "goal: config \"MAXIMIZE\", stored \"MINIMIZE\"" in message
    assert "params.batch: config {" in message and "params.lr: config none" \
        in message and "load_as_is=True" in message
    loaded = client.study("changed", edited, load_as_is=True)
    assert loaded.goal == "MINIMIZE"
