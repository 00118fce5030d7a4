"""hptune.optuna: real Optuna (Debian 12's 3.1 or newer) with its suggestions
from a real `hptune serve` (the local engine, on a real SQLite file)."""

import math
import os

import pytest
from conftest import import_or_skip

# Skips without Optuna, failing instead where HPTUNE_EXPECT names optuna.
optuna = import_or_skip("optuna")

import hptune  # noqa: E402
import hptune.optuna  # noqa: E402
from hptune.optuna_space import Space, UnionSpace  # noqa: E402
from optuna.distributions import (CategoricalDistribution,  # noqa: E402
                                  FloatDistribution, IntDistribution)
from conftest import HPTUNE, run_hptune  # noqa: E402

optuna.logging.set_verbosity(optuna.logging.WARNING)


@pytest.fixture(autouse=True)
def binary(monkeypatch, tmp_path):
    monkeypatch.setenv("HPTUNE_BINARY", HPTUNE)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))


@pytest.fixture
def client(tmp_path):
    with hptune.Client.local(str(tmp_path / "optuna.db")) as c:
        yield c


def branin(x: float, y: float) -> float:
    """Branin-Hoo; minimum 0.397887 (Dixon and Szego 1978)."""
    return ((y - 5.1 / (4 * math.pi ** 2) * x * x + 5 / math.pi * x - 6) ** 2
            + 10 * (1 - 1 / (8 * math.pi)) * math.cos(x) + 10)


def hptune_trials(sampler, index=0):
    return list(sampler._studies.values())[index].study.trials()


def test_distributions_map_to_hptune_specs_and_back():
    space = Space({
        "lr": FloatDistribution(1e-5, 1e-1, log=True),
        "drop": FloatDistribution(0.0, 0.5, step=0.1),
        "units": IntDistribution(16, 256, log=True),
        "batch": IntDistribution(32, 256, step=32),
        "act": CategoricalDistribution([None, 1, "relu"]),
        "wide": FloatDistribution(0, 1e6, step=1.0)})
    specs = {s["parameterName"]: s for s in space.specs()}
    assert specs["lr"]["type"] == "DOUBLE" and \
        specs["lr"]["scaleType"] == "UNIT_LOG_SCALE"
    assert specs["drop"]["type"] == "DISCRETE" and \
        len(specs["drop"]["discreteValues"]) == 6
    assert specs["units"]["type"] == "INTEGER"
    assert specs["batch"]["discreteValues"] == [32, 64, 96, 128, 160, 192,
                                                224, 256]
    assert specs["act"]["categoricalValues"] == ["None", "1", "relu"]
    assert specs["wide"]["type"] == "DOUBLE"  # Over 1,000 grid points.
    values = space.to_optuna({"lr": 1e-3, "drop": 0.30000000000000004,
                              "units": 64.0, "batch": 96.0, "act": "1",
                              "wide": 10.4})
    assert values == {"lr": 1e-3, "drop": pytest.approx(0.3), "units": 64,
                      "batch": 96, "act": 1, "wide": 10.0}
    assert type(values["batch"]) is int and type(values["units"]) is int
    odd = Space({"a b": FloatDistribution(0, 1)})
    assert odd.specs()[0]["parameterName"] == "p0"


def test_the_union_space_folds_each_trial_once_and_drops_clashes():
    def trial(number, **distributions):
        return optuna.trial.create_trial(
            params={n: d.low if hasattr(d, "low") else d.choices[0]
                    for n, d in distributions.items()},
            distributions=distributions, value=0.0)

    first = trial(0, x=FloatDistribution(0, 1), k=IntDistribution(1, 3))
    first.number = 0
    union = UnionSpace()
    assert union.update([first]) == {"x": FloatDistribution(0, 1),
                                     "k": IntDistribution(1, 3)}
    clash = trial(1, x=FloatDistribution(0, 2), c=CategoricalDistribution(
        ["a", "b"]))
    clash.number = 1
    # The first trial again (a later call sees every trial) changes nothing.
    assert union.update([first, clash]) == {
        "k": IntDistribution(1, 3), "c": CategoricalDistribution(["a", "b"])}
    assert union.update([first, clash]) == union.update([])


def test_gp_sampler_runs_optunas_study_and_keeps_types(client):
    sampler = hptune.optuna.GPSampler(seed=0, client=client)
    study = optuna.create_study(sampler=sampler)

    def objective(trial):
        x = trial.suggest_float("x", -5, 10)
        y = trial.suggest_float("y", 0, 15)
        k = trial.suggest_int("k", 1, 4)
        kind = trial.suggest_categorical("kind", [None, 2, "b"])
        assert type(k) is int and kind in (None, 2, "b")
        return branin(x, y) + k + (kind == "b")

    study.optimize(objective, n_trials=20, n_jobs=2)
    trials = hptune_trials(sampler)
    assert [t.state for t in trials] == ["SUCCEEDED"] * len(trials)
    # The trials that began before the first one ended saw an empty space
    # and were Optuna's: the first, and with two threads maybe the second.
    # The rest were hptune's, recorded on both sides.
    attrs = [t.system_attrs.get("hptune:trial") for t in study.trials]
    optunas = sum(a is None for a in attrs)
    assert 1 <= optunas <= 2 and all(attrs[optunas:])
    assert len(trials) == 20
    assert sum(t.origin == "user" for t in trials) == optunas
    by_number = {t.number: t for t in study.trials}
    for t in trials:
        if t.origin == "user":
            continue
        number = int(t.client_id.split("-")[1])
        assert by_number[number].value == pytest.approx(t.value)
    assert study.best_value < 10


@pytest.mark.parametrize("dims, options, seeds", [
    (6, {}, 10),                         # Optuna's n_startup_trials
    (2, {}, 6),                          # the GP's own 2 (D + 1), fewer
    (2, {"n_startup_trials": 12}, 12),   # as given
])
def test_n_startup_trials_is_the_gps_quasi_random_start(client, dims,
                                                         options, seeds):
    sampler = hptune.optuna.GPSampler(seed=0, client=client, **options)
    study = optuna.create_study(sampler=sampler)
    study.optimize(lambda t: sum(t.suggest_float(f"x{i}", 0, 1) ** 2
                                 for i in range(dims)), n_trials=seeds + 2)
    origins = [t.origin for t in hptune_trials(sampler)]
    # The first trial is Optuna's (an empty space): it counts as a seed.
    assert origins[0] == "user"
    assert origins[1:seeds] == [f"gp:seeding({i} of {seeds})"
                                for i in range(2, seeds + 1)]
    assert origins[seeds].startswith("gp-")


def test_n_startup_trials_out_of_range_or_not_for_the_gp_is_refused():
    with pytest.raises(ValueError, match="n_startup_trials: 0 is not"):
        hptune.optuna.GPSampler(n_startup_trials=0)
    with pytest.raises(ValueError, match="only the \"gp\" algorithm"):
        hptune.optuna.HptuneSampler("random", n_startup_trials=5)


def test_a_changed_space_gets_a_new_hptune_study_with_the_history(client):
    sampler = hptune.optuna.GPSampler(seed=1, client=client)
    study = optuna.create_study(sampler=sampler)
    study.optimize(lambda t: t.suggest_float("x", 0, 1) +
                   t.suggest_float("y", 0, 1), n_trials=4)
    # Now y is gone: Optuna's intersection space shrinks to {x}.
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=3)
    first, second = hptune_trials(sampler, 0), hptune_trials(sampler, 1)
    assert [t.origin for t in first][:1] == ["user"] and len(first) == 5
    assert set(first[-1].parameters) == {"x", "y"}
    # The second study starts from Optuna's 5 finished trials.
    assert [t.origin for t in second][:5] == ["user"] * 5 and len(second) == 7
    assert [t.parameters["x"] for t in second[:5]] == pytest.approx(
        [t.params["x"] for t in study.trials[:5]])
    assert [t.value for t in second[:5]] == pytest.approx(
        [t.value for t in study.trials[:5]])

    def branches(trial):
        x = trial.suggest_float("x", 0, 1)
        if trial.suggest_categorical("branch", ["a", "b"]) == "a":
            return x + trial.suggest_float("only_a", 0, 1)
        return x

    study.optimize(branches, n_trials=3)
    # branch and only_a are not in every finished trial: Optuna's
    # independent sampler draws them; hptune's study stays {x}.
    assert len(sampler._studies) == 2
    assert "branch" in study.trials[-1].params
    other = optuna.create_study(sampler=sampler)  # its own hptune study
    other.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=2)
    assert len(sampler._studies) == 3


def test_branches_become_hptune_conditional_parameters(client):
    sampler = hptune.optuna.GPSampler(seed=5, client=client)
    study = optuna.create_study(sampler=sampler)

    def branches(trial):
        x = trial.suggest_float("x", 0, 1)
        if trial.suggest_categorical("branch", ["a", "b", "c"]) == "b":
            return x + trial.suggest_int("only_b", 1, 4)
        return x

    study.enqueue_trial({"x": 0.5, "branch": "b", "only_b": 2})
    study.enqueue_trial({"x": 0.5, "branch": "a"})
    study.optimize(branches, n_trials=10)
    hstudy = list(sampler._studies.values())[-1].study
    branch = [p for p in hstudy.spec["params"] if p["parameterName"] ==
              "branch"][0]
    assert branch["conditionalParameterSpecs"] == [{
        "parentCategoricalValues": {"values": ["b"]},
        "parameterSpec": {"parameterName": "only_b", "type": "INTEGER",
                          "minValue": 1.0, "maxValue": 4.0,
                          "scaleType": "NONE"}}]
    by_number = {t.number: t for t in study.trials}
    suggested = [t for t in hstudy.trials() if t.client_id]
    assert suggested
    for t in suggested:
        optuna_trial = by_number[int(t.client_id.split("-")[1])]
        assert t.parameters == pytest.approx(optuna_trial.params)


def test_pruned_and_failed_trials_end_as_optuna_ended_them(client):
    sampler = hptune.optuna.GPSampler(seed=2, client=client)
    study = optuna.create_study(
        sampler=sampler, pruner=optuna.pruners.ThresholdPruner(upper=0.5))

    def objective(trial):
        x = trial.suggest_float("x", 0, 1)
        if trial.number == 3:
            raise ArithmeticError("boom")
        for step in range(3):
            trial.report(x + step * 0.1, step)
            if trial.should_prune():
                raise optuna.TrialPruned()
        return x

    study.enqueue_trial({"x": 0.1})
    study.enqueue_trial({"x": 0.9})
    study.optimize(objective, n_trials=8, catch=(ArithmeticError,))
    by_number = {int(t.client_id.split("-")[1]): t
                 for t in hptune_trials(sampler) if t.client_id}
    states = {t.number: t.state for t in study.trials}
    assert states[3] == optuna.trial.TrialState.FAIL
    assert by_number[3].state == "INFEASIBLE"
    pruned = [n for n, s in states.items()
              if s == optuna.trial.TrialState.PRUNED and n in by_number]
    assert pruned, states
    for n in pruned:
        assert by_number[n].state == "SUCCEEDED" and \
            by_number[n].stopped_early
        steps = study.trials[n].intermediate_values
        assert by_number[n].value == pytest.approx(steps[max(steps)])


class LatePruner(optuna.pruners.BasePruner):
    """Prunes the odd-numbered trials at their fourth report, never before."""

    def prune(self, study, trial):
        return trial.number % 2 == 1 and len(trial.intermediate_values) >= 4


def test_a_trial_pruned_late_ends_with_its_last_report(client):
    sampler = hptune.optuna.GPSampler(seed=5, client=client)
    study = optuna.create_study(sampler=sampler, pruner=LatePruner())

    def objective(trial, with_y=True):
        x = trial.suggest_float("x", 0, 1)
        if with_y:
            x += trial.suggest_float("y", 0, 1)
        for step in range(6):
            trial.report((1 + x) / (step + 1), step)  # Falls at each step.
            if trial.should_prune():
                raise optuna.TrialPruned()
        return (1 + x) / 6

    study.optimize(objective, n_trials=5)
    pruned = [t for t in study.trials
              if t.state == optuna.trial.TrialState.PRUNED]
    assert [t.number for t in pruned] == [1, 3]
    by_number = {int(t.client_id.split("-")[1]): t
                 for t in hptune_trials(sampler) if t.client_id}
    for t in pruned:
        last = max(t.intermediate_values)
        assert last == 3 and len(t.intermediate_values) == 4
        told = by_number[t.number]
        assert told.stopped_early, told
        # The value the trial ended with is its last report, at its step,
        # not its first (a different number: the curve falls).
        assert told.value == pytest.approx(t.intermediate_values[last])
        assert told.value != pytest.approx(t.intermediate_values[0])
        assert told.final_measurement.step == last

    # The same for Optuna's history told to a new hptune study (y is gone,
    # the space changed): its pruned trials come with their last report.
    study.optimize(lambda t: objective(t, with_y=False), n_trials=2)
    history = hptune_trials(sampler, 1)[:5]
    assert [t.origin for t in history] == ["user"] * 5
    for t in pruned:
        added = history[t.number]
        assert added.parameters["x"] == pytest.approx(t.params["x"])
        assert added.value == pytest.approx(t.intermediate_values[3])
        assert added.value != pytest.approx(t.intermediate_values[0])
        assert added.final_measurement.step == 3


def test_a_pruned_trial_never_ranks_above_the_completed_median(client):
    # Optuna's xgboost pruning example: AUC reported, accuracy returned.
    sampler = hptune.optuna.GPSampler(seed=1, client=client)
    study = optuna.create_study(direction="maximize", sampler=sampler,
                                pruner=LatePruner())

    def objective(trial):
        accuracy = 0.5 + 0.4 * trial.suggest_float("x", 0, 1)
        for step in range(5):
            trial.report(0.99, step)  # AUC: above every accuracy
            if trial.should_prune():
                raise optuna.TrialPruned()
        return accuracy

    study.optimize(objective, n_trials=8)
    by_number = {int(t.client_id.split("-")[1]): t
                 for t in hptune_trials(sampler) if t.client_id}
    pruned = [t for t in study.trials
              if t.state == optuna.trial.TrialState.PRUNED]
    assert [t.number for t in pruned] == [1, 3, 5, 7]
    for t in pruned:
        before = sorted(c.value for c in study.trials[:t.number]
                        if c.state == optuna.trial.TrialState.COMPLETE)
        median = (before[(len(before) - 1) // 2] +
                  before[len(before) // 2]) / 2
        assert by_number[t.number].stopped_early
        assert by_number[t.number].value == pytest.approx(median)
    best = max(by_number.values(), key=lambda t: t.value)
    assert study.trials[int(best.client_id.split("-")[1])].state == \
        optuna.trial.TrialState.COMPLETE


def test_several_objectives_and_constraints(client):
    def constraints(trial):
        return [trial.params["x"] - 0.8]

    sampler = hptune.optuna.GPSampler(seed=3, client=client,
                                      constraints_func=constraints)
    study = optuna.create_study(directions=["minimize", "maximize"],
                                sampler=sampler)
    study.optimize(lambda t: (t.suggest_float("x", 0, 1),
                              t.suggest_float("y", 0, 1)), n_trials=10)
    hstudy = list(sampler._studies.values())[0].study
    assert hstudy.objectives == ["objective_0", "objective_1"]
    assert hstudy.constraints == {"constraint": 0.0}
    for t in study.trials:
        assert t.system_attrs["constraints"] == pytest.approx(
            [t.params["x"] - 0.8])
    for t in hstudy.trials():
        metrics = t.final_measurement.metrics
        assert set(metrics) == {"objective_0", "objective_1", "constraint"}
    optimal = hstudy.optimal_trials()
    assert optimal and all(
        t.final_measurement.metrics["constraint"] <= 0 for t in optimal)


def test_default_engine_is_private_and_goes_with_close(tmp_path):
    sampler = hptune.optuna.HptuneSampler("quasi_random", seed=4)
    study = optuna.create_study(sampler=sampler)
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=3)
    engine = sampler._client._engine
    assert engine.db.startswith(engine.dir)  # a temporary database
    assert [t.origin for t in hptune_trials(sampler)] == \
        ["user", "halton[0]", "halton[1]"]  # Optuna's first, then Halton's
    sampler.close()
    assert not os.path.exists(engine.dir)
    with pytest.raises(ValueError, match="algorithm: 'tpe'"):
        hptune.optuna.HptuneSampler("tpe")
    kept = str(tmp_path / "kept.db")
    sampler = hptune.optuna.GPSampler(db=kept)
    optuna.create_study(sampler=sampler).optimize(
        lambda t: t.suggest_float("x", 0, 1), n_trials=2)
    sampler.close()
    listed = run_hptune(["studies", "list", "--db", kept])
    assert listed.returncode == 0 and "optuna_" in listed.stdout, listed


def _engine_flags(sampler):
    with open(f"/proc/{sampler._client._engine._process.pid}/cmdline",
              "rb") as f:
        return f.read().split(b"\0")


def test_a_seeded_sampler_gives_the_same_trials_each_run():
    def run(seed):
        sampler = hptune.optuna.GPSampler(seed=seed)
        study = optuna.create_study(sampler=sampler)
        study.optimize(lambda t: branin(t.suggest_float("x", -5, 10),
                                        t.suggest_float("y", 0, 15)),
                       n_trials=30)
        flags = _engine_flags(sampler)
        sampler.close()
        return [t.params for t in study.trials], flags

    first, flags = run(7)
    # Its engine refits inside the suggestion due a refit, so no refit's
    # timing can change a trial.
    assert b"--inline-refits" in flags
    assert run(7)[0] == first
    unseeded = hptune.optuna.GPSampler()
    optuna.create_study(sampler=unseeded).optimize(
        lambda t: t.suggest_float("x", 0, 1), n_trials=2)
    assert b"--inline-refits" not in _engine_flags(unseeded)
    unseeded.close()


def test_a_constraint_that_is_not_finite_is_refused(client):
    sampler = hptune.optuna.GPSampler(
        client=client, constraints_func=lambda t: [float("nan")])
    study = optuna.create_study(sampler=sampler)
    with pytest.raises(ValueError, match=r"\(nan,\) of trial 0 are not all"):
        study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=1)


def test_an_objective_that_is_not_finite_ends_infeasible(client):
    sampler = hptune.optuna.GPSampler(seed=3, client=client)
    study = optuna.create_study(sampler=sampler)

    def objective(trial):
        x = trial.suggest_float("x", 0, 1)
        return math.inf if trial.number == 1 else x

    study.optimize(objective, n_trials=3)
    # Optuna keeps an infinite value as COMPLETE; hptune's GP must not see
    # it as a measurement (it would wreck the model's scale).
    assert study.trials[1].state == optuna.trial.TrialState.COMPLETE
    by_number = {int(t.client_id.split("-")[1]): t
                 for t in hptune_trials(sampler) if t.client_id}
    told = by_number[1]
    assert told.state == "INFEASIBLE", told
    assert "are not finite" in told.reason
    assert by_number[2].state == "SUCCEEDED"  # The next one runs on.


def test_a_fallback_to_random_search_is_warned_once_naming_why(client,
                                                               caplog):
    sampler = hptune.optuna.GPSampler(seed=3, client=client)
    study = optuna.create_study(sampler=sampler)

    def objective(trial):
        x = trial.suggest_float("x", 0, 1)
        y = trial.suggest_float("y", 0, 1 + trial.number)  # a range per trial
        if x > 0.5:  # a branch no parameter's value explains
            y += trial.suggest_float("z", 0, 1)
        return x + y

    study.enqueue_trial({"x": 0.9, "y": 0.5, "z": 0.5})
    study.optimize(objective, n_trials=6)
    said = [r.getMessage() for r in caplog.records if r.name == "hptune"]
    about_y = [m for m in said if "'y'" in m]
    assert len(about_y) == 1 and "range or choices differ" in about_y[0]
    assert "RandomSampler" in about_y[0]
    about_z = [m for m in said if "'z'" in m]
    assert len(about_z) <= 1 and all("some trials only" in m
                                     for m in about_z)
    assert not [m for m in said if "'x'" in m]


def test_a_closed_sampler_says_so():
    sampler = hptune.optuna.GPSampler(seed=0)
    study = optuna.create_study(sampler=sampler)
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=2)
    sampler.close()
    with pytest.raises(RuntimeError, match="sampler was closed"):
        study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=1)


def test_a_study_with_the_sampler_pickles_and_goes_on(tmp_path):
    import pickle
    study = optuna.create_study(sampler=hptune.optuna.GPSampler(seed=1))
    study.optimize(lambda t: (t.suggest_float("x", 0, 1) - 0.3) ** 2,
                   n_trials=3)
    again = pickle.loads(pickle.dumps(study))
    again.optimize(lambda t: (t.suggest_float("x", 0, 1) - 0.3) ** 2,
                   n_trials=2)
    assert len(again.trials) == 5
    told = hptune_trials(again.sampler)
    assert len(told) == 5 and [t.origin for t in told[:3]] == ["user"] * 3
    study.sampler.close()
    again.sampler.close()
