"""Optuna's habits on hptune's own Study, against a real server: best_value,
best_params, best_trial as a property; n_jobs; a message instead of a
traceback when worker processes cannot work; ints stay ints; a changed
config refused."""

import os
import subprocess
import sys
import textwrap
import threading

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
    with pytest.raises(hptune.InvalidArgument, match="'y' is not a parameter"):
        trial.suggest_float("y", 0, 1)
    with pytest.raises(hptune.InvalidArgument,
                       match=r"range \[0, 1\] is not within \[2, 3\]"):
        trial.suggest_float("x", 2, 3)
    with pytest.raises(hptune.InvalidArgument,
                       match="log=True but the study's scale"):
        trial.suggest_float("x", 0, 1, log=True)


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


# Client.local as an Optuna user writes it: no budget in the config.
OPEN = {"goal": "MINIMIZE", "params": [
    {"parameterName": "x", "type": "DOUBLE", "minValue": -5, "maxValue": 10}]}


def quadratic(trial):
    return (trial.suggest_float("x", -5, 10) - 2) ** 2


@pytest.fixture
def local_db(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    return str(tmp_path / "optuna.db")


def test_local_n_trials_runs_that_many_more_and_a_rerun_continues(local_db):
    with hptune.Client.local(local_db) as client:
        study = client.study("quad", OPEN)
        study.optimize(quadratic, n_trials=5)
        assert len(study.trials()) == 5
    with hptune.Client.local(local_db) as client:  # the script run again
        study = client.study("quad", OPEN)
        study.optimize(quadratic, n_trials=3)
        assert len(study.trials()) == 8
        assert study.best_params["x"] == min(
            study.trials(), key=lambda t: t.value).params["x"]
        with pytest.raises(hptune.FailedPrecondition, match="goal: config"):
            client.study("quad", dict(OPEN, goal="MAXIMIZE"))


def test_local_n_jobs_runs_that_many_at_once(local_db):
    together = threading.Barrier(2, timeout=60)  # broken if serial

    def objective(trial):
        together.wait()
        return quadratic(trial)

    with hptune.Client.local(local_db) as client:
        study = client.study("jobs", OPEN)
        study.optimize(objective, n_trials=4, n_jobs=2)
        assert [t.state for t in study.trials()] == ["SUCCEEDED"] * 4


def test_report_and_should_prune_are_optunas_names(local_db):
    with hptune.Client.local(local_db) as client:
        trial = client.study("prune", OPEN).suggest()[0]
        trial.report(0.5, 1)
        assert not trial.should_prune()
        trial.stop("asked to")
        assert trial.should_prune()
        assert trial.refresh().measurements[0].metrics == {
            "training/hptuning/metric": 0.5}


def test_a_budget_smaller_than_asked_for_is_said(client, caplog):
    study = client.create_study("budget", dict(SPEC, maxTrials=2))
    study.optimize(objective, n_trials=3, n_jobs=3)
    assert len(study.trials()) == 2
    said = caplog.text
    assert "maxParallelTrials is 2, so 3 workers" in said
    assert "maxTrials is 2 and 2 are left, so optimize(n_trials=3) runs 2" \
        in said


def test_trials_dataframe_with_optunas_columns(local_db):
    pytest.importorskip("pandas")
    with hptune.Client.local(local_db) as client:
        study = client.study("frame", OPEN)
        study.optimize(quadratic, n_trials=2)
        stopped = study.suggest()[0]
        stopped.report(9.0, 1)
        stopped.stop("pruned").complete()
        frame = study.trials_dataframe(style="optuna")
    assert list(frame.columns) == ["number", "value", "datetime_start",
                                   "datetime_complete", "duration",
                                   "params_x", "state"]
    assert list(frame["number"]) == [1, 2, 3]
    assert list(frame["state"]) == ["COMPLETE", "COMPLETE", "PRUNED"]
    assert (frame["duration"] >= pandas_zero()).all()


def pandas_zero():
    import pandas
    return pandas.Timedelta(0)
