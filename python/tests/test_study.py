"""Ask/tell of whole studies from Python against a real server."""

import math
import os

import pytest

import hptune
from conftest import DATA


def loss(parameters):
    penalty = {"gru": 0.0, "lstm": 0.5}[parameters["cell"]]
    return (math.log10(parameters["lr"]) + 2) ** 2 + \
        0.1 * parameters["layers"] + parameters["width"] / 1000 + penalty


def test_a_whole_study_by_ask_and_tell(client):
    study = client.create_study("ask_tell", os.path.join(DATA, "study.yaml"))
    assert (study.metric_tag, study.goal, study.max_trials, study.seed) == \
        ("loss", "MINIMIZE", 10, 7)
    assert study.spec["params"][0]["parameterName"] == "lr"
    values = {}
    while True:
        batch = study.suggest(count=3, client_id="me")
        if not batch:
            assert batch.study_completed, batch.note
            break
        assert len(batch) <= 3
        for trial in batch:
            p = trial.parameters
            assert trial.state == "ACTIVE" and trial.client_id == "me"
            assert isinstance(p["lr"], float) and 1e-3 <= p["lr"] <= 1.0
            assert isinstance(p["layers"], int) and 1 <= p["layers"] <= 4
            assert p["width"] in (32.0, 64.0, 128.0)
            assert p["cell"] in ("gru", "lstm")
            trial.add_measurement({"loss": 10.0, "accuracy": 0.1}, step=1)
            trial.add_measurement(loss(p) + 1, step=2)
            assert trial.should_stop() is False  # no early stopping set
            if trial.id == 4:
                trial.infeasible("out of memory")
                continue
            done = trial.complete(loss(p))
            values[trial.id] = loss(p)
            assert done.state == "SUCCEEDED"
            assert done.final_measurement.step == 2  # the last one's step
            assert [m.step for m in done.measurements] == [1, 2]
    trials = study.trials()
    assert [t.id for t in trials] == list(range(1, 11))
    assert trials[3].state == "INFEASIBLE"
    assert trials[3].reason == "out of memory"
    assert {t.id: t.value for t in trials if t.state == "SUCCEEDED"} == \
        pytest.approx(values)
    best = study.best_trial
    assert best.value == min(values.values())
    assert [t.id for t in study.optimal_trials()] == [best.id]
    assert study.refresh().state == "COMPLETED"
    assert len(study.trials(states=["INFEASIBLE"])) == 1
    assert study.trials(measurements=False)[0].measurements == []


def test_warm_start_and_queued_trials(client):
    study = client.create_study("warm", os.path.join(DATA, "study.yaml"))
    known = study.add_trial({"lr": 0.01, "layers": 1, "width": 32.0,
                             "cell": "gru"}, metrics=0.13)
    assert known.state == "SUCCEEDED" and known.value == 0.13
    queued = study.add_trial({"lr": 0.5, "layers": 2, "width": 64.0,
                              "cell": "lstm"})
    assert queued.state == "REQUESTED"
    (first,) = study.suggest(1, client_id="w")
    assert first.id == queued.id and first.origin == "user"
    assert study.best_trial.id == known.id


def test_importance_names_the_parameter_that_decides(client):
    study = client.create_study("importance",
                                os.path.join(DATA, "study.yaml"))
    assert set(study.importance().values()) == {0.0}  # no results yet
    few = study.importance_report()
    assert few.trials == 0 and few.trials_needed == 30
    assert "Too few trials" in few.note
    # 40 known results: only lr matters (best near 1e-2).
    for i in range(40):
        lr = 10 ** (-3 + 3 * ((i * 7) % 40 + 0.5) / 40)
        parameters = {"lr": lr, "layers": 1 + i % 4,
                      "width": (32.0, 64.0, 128.0)[i % 3],
                      "cell": ("gru", "lstm")[i % 2]}
        study.add_trial(parameters, metrics=(math.log10(lr) + 2) ** 2)
    importance = study.importance()
    assert list(importance)[0] == "lr"
    assert set(importance) == {"lr", "layers", "width", "cell"}
    assert sum(importance.values()) == pytest.approx(1.0)
    report = study.importance_report()
    assert report.trials == 40 and report.note == ""
    assert report.bootstrap_resamples > 0
    assert [e.parameter for e in report.importances] == list(importance)
    for entry in report.importances:
        assert entry.lower <= entry.importance <= entry.upper
    lr = report.importances[0]
    assert lr.lower > max(e.upper for e in report.importances[1:])
    study.delete()
    with pytest.raises(hptune.NotFound, match="importance"):
        study.importance()


def test_a_client_gets_its_unfinished_trials_back(client):
    study = client.create_study("handback", os.path.join(DATA, "study.yaml"))
    (held,) = study.suggest(1, client_id="host-a")
    # The client restarts: same client id, its trial first.
    (again,) = client.load_study("handback").suggest(1, client_id="host-a")
    assert again.id == held.id and again.parameters == held.parameters
    (other,) = study.suggest(1, client_id="host-b")
    assert other.id != held.id


def test_study_creates_once_and_loads_after(client):
    config = os.path.join(DATA, "study.yaml")
    first = client.study("shared", config)
    second = client.study("shared", config)
    assert first.name == second.name == "shared"
    assert [s.name for s in client.list_studies()] == ["shared"]
    with pytest.raises(hptune.AlreadyExists, match="shared"):
        client.create_study("shared", config)
    client.delete_study("shared")
    with pytest.raises(hptune.NotFound, match="shared"):
        client.load_study("shared")


def test_a_dict_config_and_the_hyperparameters_block(client):
    block = {"goal": "MAXIMIZE", "maxTrials": 2, "params": [
        {"parameterName": "x", "type": "DOUBLE", "minValue": 0,
         "maxValue": 1}]}
    for name, config in (("block", block),
                         ("nested", {"trainingInput": {
                             "hyperparameters": block}})):
        study = client.create_study(name, config)
        assert study.goal == "MAXIMIZE"
        assert study.metric_tag == "training/hptuning/metric"
        (trial,) = study.suggest()
        trial.complete(0.5)
        assert study.best_trial.value == 0.5


def test_early_stopping_marks_the_trial(client):
    study = client.create_study("stopping", {
        "goal": "MINIMIZE", "hyperparameterMetricTag": "loss",
        "maxTrials": 8, "maxParallelTrials": 8,
        "enableTrialEarlyStopping": True,
        "params": [{"parameterName": "x", "type": "DOUBLE", "minValue": 0,
                    "maxValue": 1}]})
    good = study.suggest(5, client_id="c")
    for trial in good:
        for step in range(1, 11):
            trial.add_measurement(1.0 / step, step)
        trial.complete()
    (bad,) = study.suggest(1, client_id="c")
    for step in range(1, 11):
        bad.add_measurement(100.0, step)
    assert bad.should_stop() is True
    assert bad.refresh().state == "STOPPING" and bad.stopped_early
    assert bad.reason  # the policy's reason
    done = bad.complete()
    assert done.state == "SUCCEEDED" and done.stopped_early
    assert done.value == 100.0


def test_trials_dataframe(client):
    pandas = pytest.importorskip("pandas")
    study = client.create_study("frame", os.path.join(DATA, "study.yaml"))
    for trial in study.suggest(3, client_id="c"):
        trial.complete({"loss": loss(trial.parameters), "accuracy": 0.5})
    frame = study.trials_dataframe()
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame.index) == [1, 2, 3]
    assert {"state", "value", "params.lr", "params.cell", "metrics.loss",
            "metrics.accuracy", "step"} <= set(frame.columns)
    assert (frame["value"] == frame["metrics.loss"]).all()


def dominates(a, b):
    """a is no worse than b on both minimised objectives, better on one."""
    return all(x <= y for x, y in zip(a, b)) and a != b


def test_several_objectives_and_a_constraint(client):
    study = client.create_study("pareto", {
        "maxTrials": 16, "maxParallelTrials": 4, "seed": 3,
        "metrics": [
            {"metricId": "loss", "goal": "MINIMIZE"},
            {"metricId": "latency_ms", "goal": "MINIMIZE"},
            {"metricId": "memory_mb", "goal": "MINIMIZE",
             "safetyThreshold": 200}],
        "params": [{"parameterName": "x", "type": "DOUBLE",
                    "minValue": 0, "maxValue": 1},
                   {"parameterName": "y", "type": "DOUBLE",
                    "minValue": 0, "maxValue": 1}]})
    assert (study.metric_tag, study.goal) == ("loss", "MINIMIZE")
    assert study.objectives == ["loss", "latency_ms"]
    assert study.constraints == {"memory_mb": 200}
    results = {}
    while True:
        batch = study.suggest(count=4, client_id="me")
        if not batch:
            assert batch.study_completed, batch.note
            break
        for trial in batch:
            x, y = trial.parameters["x"], trial.parameters["y"]
            metrics = {"loss": (x - 0.3) ** 2 + y, "latency_ms": 1 - x + y,
                       "memory_mb": 400 * y}
            if trial.id == 1:  # Every metric is needed for a result.
                with pytest.raises(hptune.errors.InvalidArgument,
                                   match="latency_ms"):
                    trial.complete({"loss": 1.0, "memory_mb": 1.0})
            done = trial.complete(metrics)
            assert done.values == [metrics["loss"], metrics["latency_ms"]]
            results[trial.id] = metrics
    feasible = {i: (m["loss"], m["latency_ms"]) for i, m in results.items()
                if m["memory_mb"] <= 200}
    assert 0 < len(feasible) < len(results)  # the constraint binds
    front = sorted(i for i, v in feasible.items()
                   if not any(dominates(w, v) for w in feasible.values()))
    assert 0 < len(front) < len(feasible)  # some feasible trials dominated
    assert [t.id for t in study.optimal_trials()] == front
    with pytest.raises(hptune.errors.FailedPrecondition,
                       match="2 objectives.*optimal_trials"):
        study.best_trial


def test_several_objectives_stop_a_dominated_trial(client):
    """enableTrialEarlyStopping with two objectives: the dominance rule
    stops a running trial that a completed one beat on both at its step."""
    study = client.create_study("pareto_stop", {
        "maxTrials": 8, "maxParallelTrials": 2,
        "algorithm": "RANDOM_SEARCH", "enableTrialEarlyStopping": True,
        "metrics": [{"metricId": "loss", "goal": "MINIMIZE"},
                    {"metricId": "latency_ms", "goal": "MINIMIZE"}],
        "params": [{"parameterName": "x", "type": "DOUBLE",
                    "minValue": 0, "maxValue": 1}]})
    for i in range(5):  # a front: loss falls as latency rises
        trial = study.suggest(client_id="me")[0]
        for step in (10, 20):
            trial.add_measurement({"loss": 1.0 - 0.1 * i + 1.0 / step,
                                   "latency_ms": 10.0 + i}, step=step)
        trial.complete()
    good, bad = study.suggest(count=2, client_id="me")
    # Worse loss than most (the median rule on loss would stop it), but
    # faster than every completed trial: not dominated.
    good.add_measurement({"loss": 1.2, "latency_ms": 5.0}, step=10)
    bad.add_measurement({"loss": 1.5, "latency_ms": 20.0}, step=10)
    advice = study.check_early_stopping()
    assert advice[good.id][0] is False, advice[good.id]
    assert advice[bad.id][0] is True
    assert "is dominated by trial" in advice[bad.id][1]
    assert bad.should_stop() is True
    assert bad.refresh().state == "STOPPING" and bad.stopped_early
    assert good.should_stop() is False


def test_a_paused_trial_comes_back_as_its_continuation(client):
    """Under asha-resume, trial 2, paused behind trial 1 at the first rung,
    comes back as trial 7 once four more are paused behind it."""
    study = client.create_study("freeze_thaw", {
        "goal": "MINIMIZE", "hyperparameterMetricTag": "loss",
        "maxTrials": 6, "maxParallelTrials": 1, "algorithm": "GRID_SEARCH",
        "earlyStoppingRule": "asha-resume",
        "params": [{"parameterName": "x", "type": "DISCRETE",
                    "discreteValues": [1, 2, 3, 4, 5, 6]}]})

    def train(trial, first, loss):
        for step in range(first, 13):
            trial.add_measurement(loss, step=step)
            if trial.should_stop():
                return trial.complete()
        return trial.complete()

    losses = {1: 0.5, 2: 0.6}
    for number in range(1, 7):
        (trial,) = study.suggest(client_id="me")
        assert trial.resumes is None
        done = train(trial, 1, losses.get(trial.parameters["x"], 0.9))
        assert done.stopped_early == (number > 1)
    (continuation,) = study.suggest(client_id="me")
    assert (continuation.id, continuation.origin) == (7, "resume[2]")
    assert continuation.resumes == 2
    assert continuation.parameters == {"x": 2}
    assert [m.step for m in continuation.refresh().measurements] == [1, 2]
    assert train(continuation, 3, 0.3).stopped_early is False
    assert study.best_trial.id == 7
    assert not study.suggest(client_id="me")
    assert study.refresh().state == "COMPLETED"
