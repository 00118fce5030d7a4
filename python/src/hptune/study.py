"""A study on an hptune server, driven by ask/tell from Python.

    study = client.create_study("svc", "config.yaml")
    for trial in study.suggest(count=2, client_id="worker-1"):
        trial.complete(evaluate(**trial.parameters))
    print(study.best_value, study.best_params)

Or let Study.optimize run the loop on several workers (optimize.py). Every
call goes to the server (StudyService) and is durable when it returns; a
Study holds no state of its own beyond a snapshot of the study's spec.

Thread-safe: a Study may be shared by threads (each with its own client_id).
"""

import datetime
import logging
import os
from typing import (Any, Callable, Dict, Iterable, List, Mapping, Set,
                    Optional, Sequence, Tuple, Type)

from hptune import errors
from hptune.config import message_to_dict
from hptune.connection import Connection
from hptune.trials import (TRIAL_STATES, Metrics, ParameterValue, Trial,
                           measurement_proto, parameter_proto, to_datetime)
from hptune.v1 import study_pb2, study_service_pb2

from hptune.importance import ImportanceReport

_log = logging.getLogger("hptune")

DEFAULT_METRIC_TAG = "training/hptuning/metric"


def _integral_discrete(params) -> Iterable[str]:
    """DISCRETE parameters whose values are all whole numbers, conditional
    ones included: their values are ints, as the config gave them."""
    for p in params:
        if p.type == study_pb2.ParameterSpec.DISCRETE and all(
                float(v).is_integer() for v in p.discrete_values):
            yield p.parameter_name
        for child in p.conditional_parameter_specs:
            yield from _integral_discrete([child.parameter_spec])


def all_specs(params) -> Iterable:
    """(name, ParameterSpec) of every parameter, conditional ones too."""
    for param in params:
        yield param.parameter_name, param
        for conditional in param.conditional_parameter_specs:
            yield from all_specs([conditional.parameter_spec])


class Suggestions(list):
    """The trials SuggestTrials handed out (a list of Trial), with:

    Attributes:
      study_completed: no trial will ever be suggested again.
      note: why fewer trials than asked came back ("" when all did).
    """
    study_completed: bool = False
    note: str = ""


class Study:
    """One study. Get it from Client.create_study, load_study or study.

    Attributes (a snapshot; refresh() reads them again):
      name, state ("ACTIVE" or "COMPLETED"), state_reason, seed,
      metric_tag (hyperparameterMetricTag, or the first objective of
      ``metrics``: the primary metric), goal ("MAXIMIZE" or "MINIMIZE", the
      primary metric's), objectives (the ids of the metrics the study
      optimises, in order; [metric_tag] for one), constraints (metric id ->
      safety threshold), max_trials, spec (the hyperparameters block as a
      dict, the config's camelCase keys), create_time.
      learns_parameters: whether its trials' suggest_* add a parameter
        the study lacks (define-by-run: the study was asked for with a
        config without params); else such a call is refused.
    """

    def __init__(self, connection: Connection, proto: study_pb2.Study) -> None:
        self._connection = connection
        self.learns_parameters = False
        self._set(proto)

    def _set(self, proto: study_pb2.Study) -> None:
        self.proto = proto
        self.name: str = proto.name
        spec = proto.spec
        self.state: str = study_pb2.Study.State.Name(proto.state)
        self.state_reason: str = proto.state_reason
        self.seed: int = proto.seed
        objectives = [m for m in spec.metrics
                      if not m.HasField("safety_threshold")]
        self.constraints: Dict[str, float] = {
            m.metric_id: m.safety_threshold for m in spec.metrics
            if m.HasField("safety_threshold")}
        if objectives:
            self.metric_tag: str = objectives[0].metric_id
            goal = objectives[0].goal
        else:
            self.metric_tag = (spec.hyperparameter_metric_tag
                               if spec.HasField("hyperparameter_metric_tag")
                               else DEFAULT_METRIC_TAG)
            goal = spec.goal
        self.goal: str = ("MINIMIZE" if goal == study_pb2.StudySpec.MINIMIZE
                          else "MAXIMIZE")
        self.objectives: List[str] = ([m.metric_id for m in objectives]
                                      or [self.metric_tag])
        self.max_trials: int = spec.max_trials if spec.HasField("max_trials") \
            else 1
        self.spec: Dict[str, Any] = message_to_dict(spec)
        # Shared with this study's trials, which add the ones they learn.
        self._integral: Set[str] = set(_integral_discrete(
            spec.params))
        self._specs = dict(all_specs(spec.params))
        self.create_time: Optional[datetime.datetime] = to_datetime(
            proto.create_time)

    def __repr__(self) -> str:
        return (f"Study(name={self.name!r}, state={self.state}, "
                f"metric={self.metric_tag!r} {self.goal})")

    def _trial(self, proto: study_pb2.Trial) -> Trial:
        if self.learns_parameters and not proto.parameters.keys() <= \
                self._specs.keys():
            self.refresh()  # A parameter joined since this snapshot.
        trial = Trial(self._connection, self.name, self.metric_tag, proto,
                      self.proto.spec.enable_trial_early_stopping,
                      self.objectives, self._integral, self._specs)
        trial.learns_parameters = self.learns_parameters
        return trial

    def refresh(self) -> "Study":
        self._set(self._connection.call(
            self._connection.studies.GetStudy,
            study_service_pb2.GetStudyRequest(name=self.name)))
        return self

    def suggest(self, count: int = 1, client_id: str = "") -> Suggestions:
        """Up to ``count`` ACTIVE trials for ``client_id``: first the
        client's unfinished trials (a restarted client with the same
        client_id gets its work back), then queued ones, then new
        suggestions. Fewer, or none, come back when the budget or
        maxParallelTrials holds them back; see the result's note and
        study_completed. Until each is told (complete, infeasible), a
        thread of this program renews its lease (docs/python.md,
        "Leases")."""
        reply = self._connection.call(
            self._connection.studies.SuggestTrials,
            study_service_pb2.SuggestTrialsRequest(
                study=self.name, suggestion_count=count, client_id=client_id))
        suggestions = Suggestions(self._trial(t) for t in reply.trials)
        suggestions.study_completed = reply.study_completed
        suggestions.note = reply.note
        self._connection.leases.hold(self.name, client_id,
                                     [t.id for t in suggestions],
                                     reply.lease_seconds)
        return suggestions

    def add_trial(self, parameters: Mapping[str, ParameterValue], *,
                  metrics: Optional[Metrics] = None, step: int = 0,
                  infeasible_reason: Optional[str] = None,
                  client_id: Optional[str] = None) -> Trial:
        """Adds a trial of your own: queued for the next suggest (default);
        SUCCEEDED with ``metrics`` (a known result, to warm-start the
        designer); INFEASIBLE with ``infeasible_reason``; or ACTIVE for
        ``client_id``."""
        trial = study_pb2.Trial()
        for name, value in parameters.items():
            trial.parameters[name].CopyFrom(parameter_proto(name, value))
        given = [metrics is not None, infeasible_reason is not None,
                 client_id is not None]
        if sum(given) > 1:
            raise errors.InvalidArgument(
                "add_trial: give at most one of metrics, infeasible_reason "
                "and client_id")
        if metrics is not None:
            trial.state = study_pb2.Trial.SUCCEEDED
            trial.final_measurement.CopyFrom(
                measurement_proto(metrics, step, self.metric_tag))
        elif infeasible_reason is not None:
            trial.state = study_pb2.Trial.INFEASIBLE
            trial.reason = infeasible_reason
        elif client_id is not None:
            trial.state = study_pb2.Trial.ACTIVE
            trial.client_id = client_id
        return self._trial(self._connection.call(
            self._connection.studies.CreateTrial,
            study_service_pb2.CreateTrialRequest(study=self.name,
                                                 trial=trial)))

    def trial(self, trial_id: int) -> Trial:
        return self._trial(self._connection.call(
            self._connection.studies.GetTrial,
            study_service_pb2.GetTrialRequest(study=self.name,
                                              trial_id=trial_id)))

    def trials(self, states: Optional[Iterable[str]] = None,
               measurements: bool = True) -> List[Trial]:
        """The study's trials by id; only those in ``states`` (names such as
        "SUCCEEDED") when given; without intermediate measurements when
        ``measurements`` is False (smaller replies)."""
        request = study_service_pb2.ListTrialsRequest(
            study=self.name, omit_measurements=not measurements)
        for state in states or ():
            if state not in TRIAL_STATES:
                raise errors.InvalidArgument(
                    f"states: {state!r} is not one of {', '.join(TRIAL_STATES)}")
            request.states.append(study_pb2.Trial.State.Value(state))
        reply = self._connection.call(self._connection.studies.ListTrials,
                                      request)
        return [self._trial(t) for t in reply.trials]

    def optimal_trials(self) -> List[Trial]:
        """The best trials (ListOptimalTrials), by id: for one objective,
        the feasible SUCCEEDED trial with the best final value; for several,
        the Pareto front of the feasible SUCCEEDED trials (none is worse on
        every objective and better on none than another). A trial is
        feasible when each constraint's value is on the good side of its
        safety threshold. [] while there is none."""
        reply = self._connection.call(
            self._connection.studies.ListOptimalTrials,
            study_service_pb2.ListOptimalTrialsRequest(study=self.name))
        return [self._trial(t) for t in reply.optimal_trials]

    def importance(self) -> Dict[str, float]:
        """How much each parameter decides whether a trial is among the
        study's best trials (GetParameterImportance, PED-ANOVA): parameter ->
        importance, most important first, summing to 1 (all 0 while fewer
        than 2 trials have a result). importance_report() adds each one's
        interval and the note on too few trials."""
        return {entry.parameter: entry.importance
                for entry in self.importance_report().importances}

    def importance_report(self) -> ImportanceReport:
        """The importances with their 90% bootstrap intervals, what they
        rest on, and a note when there are too few trials to rank the
        parameters (docs/designers.md, "Parameter importance")."""
        reply = self._connection.call(
            self._connection.studies.GetParameterImportance,
            study_service_pb2.GetParameterImportanceRequest(study=self.name))
        return ImportanceReport.from_proto(reply)

    @property
    def best_trial(self) -> Trial:
        """Optuna's ``best_trial``: the best feasible SUCCEEDED trial (read
        from the server at each access); ValueError while there is none. A
        study of several objectives has no single best trial:
        FailedPrecondition, pointing to best_trials. ``best_trial()``, the
        older method form, still works with a DeprecationWarning."""
        if len(self.objectives) > 1:
            raise errors.FailedPrecondition(
                f"study {self.name} has {len(self.objectives)} objectives "
                f"({', '.join(self.objectives)}): no single best trial; "
                "best_trials (optimal_trials()) gives the Pareto front")
        optimal = self.optimal_trials()
        if not optimal:
            raise ValueError(f"study {self.name} has no feasible SUCCEEDED "
                             "trial yet")
        return optimal[0]

    @property
    def best_value(self) -> float:
        """Optuna's: the best trial's value of the primary metric."""
        return self.best_trial.value

    @property
    def best_params(self) -> Dict[str, ParameterValue]:
        """Optuna's: the best trial's parameters."""
        return dict(self.best_trial.parameters)

    @property
    def best_trials(self) -> List[Trial]:
        """Optuna's: the Pareto front (optimal_trials())."""
        return self.optimal_trials()

    def check_early_stopping(self) -> Dict[int, Tuple[bool, str]]:
        """The stopping policy's advice for every ACTIVE trial:
        trial id -> (should stop, why)."""
        reply = self._connection.call(
            self._connection.studies.CheckEarlyStopping,
            study_service_pb2.CheckEarlyStoppingRequest(study=self.name))
        return {d.trial_id: (d.should_stop, d.reason) for d in reply.decisions}

    def trials_dataframe(self, states: Optional[Iterable[str]] = None, *,
                         style: str = "hptune"):
        """The trials as a pandas DataFrame, a row each: id, state, value,
        ``params.<name>``, step and ``metrics.<name>`` of the final
        measurement, stopped_early, reason, client_id, origin, times. A
        conditional parameter is NaN in the rows where it is inactive.
        ``style="optuna"``: Optuna's columns instead (number: the trial id,
        value, datetime_start, datetime_complete, duration,
        ``params_<name>``, state as Optuna names it). Needs pandas (Debian:
        python3-pandas)."""
        if style not in ("hptune", "optuna"):
            raise errors.InvalidArgument(
                f"style: {style!r} is not \"hptune\" or \"optuna\"")
        try:
            import pandas
        except ImportError:
            raise errors.FailedPrecondition(
                "trials_dataframe needs pandas (Debian: python3-pandas); "
                "Study.trials() gives the same as Trial objects") from None
        trials = self.trials(states, measurements=False)
        if style == "optuna":
            return pandas.DataFrame([t.to_optuna_row() for t in trials])
        rows = [t.to_dict() for t in trials]
        return pandas.DataFrame(rows).set_index("id") if rows else \
            pandas.DataFrame()

    def delete(self) -> None:
        """Deletes the study with its trials (not while a job runs it)."""
        self._connection.call(self._connection.studies.DeleteStudy,
                              study_service_pb2.DeleteStudyRequest(
                                  name=self.name))

    def _warn_budget(self, n_trials: Optional[int], workers: int) -> None:
        """A warning when the study's maxTrials or maxParallelTrials will
        run fewer trials, or fewer at once, than this call asks for: in
        Optuna the call's n_trials and n_jobs are the whole budget."""
        spec = self.proto.spec
        parallel = spec.max_parallel_trials if spec.HasField(
            "max_parallel_trials") else 1
        if workers > parallel:
            _log.warning("study %s: maxParallelTrials is %d, so %d workers "
                         "run at most %d trials at once; set "
                         "maxParallelTrials in its config", self.name,
                         parallel, workers, parallel)
        if n_trials is None:
            return
        left = self.max_trials - len(self.trials(measurements=False))
        if n_trials > left:
            _log.warning("study %s: maxTrials is %d and %d are left, so "
                         "optimize(n_trials=%d) runs %d; raise maxTrials in "
                         "its config (or leave it out with Client.local) "
                         "and use a new study name", self.name,
                         self.max_trials, max(left, 0), n_trials,
                         max(left, 0))

    def optimize(self, objective: Callable[[Trial], Optional[Metrics]],
                 n_trials: Optional[int] = None, n_workers: int = 1, *,
                 n_jobs: Optional[int] = None,
                 client_id: Optional[str] = None, use_threads: bool = False,
                 catch: Sequence[Type[BaseException]] = (),
                 reconnect_seconds: float = 300.0) -> None:
        """Runs ``objective`` on suggested trials until ``n_trials`` have
        been evaluated by this call, or the study is complete (maxTrials
        reached) when n_trials is None. ``n_jobs`` is Optuna's: that many
        threads (-1: one per CPU); ``n_workers`` asks for processes. See
        optimize.py for workers, client ids, what a killed worker leaves
        and exceptions."""
        from hptune.optimize import run_optimize
        if n_jobs is not None:
            if n_workers != 1:
                raise errors.InvalidArgument(
                    f"n_jobs={n_jobs!r} (threads) and n_workers={n_workers!r}"
                    " (processes): give one of them")
            if n_jobs == -1:
                n_jobs = os.cpu_count() or 1
            n_workers, use_threads = n_jobs, True
        self._warn_budget(n_trials, n_workers)
        run_optimize(self._connection, self.name, objective, n_trials,
                     n_workers, client_id=client_id, use_threads=use_threads,
                     catch=tuple(catch), reconnect_seconds=reconnect_seconds,
                     learns_parameters=self.learns_parameters)
