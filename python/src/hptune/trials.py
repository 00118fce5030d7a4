"""Trials and measurements of a study, as Python objects.

A Trial is a snapshot of the server's trial (hptune.v1.Trial) with the calls
that change it: add_measurement, should_stop, stop, complete, infeasible.
Each call goes to the server at once and is durable when it returns.
Parameters are plain Python values: float for DOUBLE and DISCRETE, int for
INTEGER, str for CATEGORICAL.

Used through Study (study.py). A Trial is not thread-safe; Trials of one
study may be used from several threads.
"""

import dataclasses
import datetime
import math
import re
import warnings
from typing import (Any, Callable, Dict, List, Mapping, Optional, Set,
                    Union)

from google.protobuf import json_format

from hptune import define_by_run, errors
from hptune.connection import Connection
from hptune.v1 import study_pb2, study_service_pb2

ParameterValue = Union[float, int, str]
Metrics = Union[float, Mapping[str, float]]

# Trial states by name, as the server's enum spells them.
TRIAL_STATES = tuple(name for name in study_pb2.Trial.State.keys()
                     if name != "STATE_UNSPECIFIED")
ENDED_STATES = ("SUCCEEDED", "INFEASIBLE", "FAILED", "CANCELLED")
# Optuna's TrialState names (others: FAIL).
_OPTUNA_STATES = {"REQUESTED": "WAITING", "ACTIVE": "RUNNING",
                  "STOPPING": "RUNNING", "SUCCEEDED": "COMPLETE"}


def to_datetime(timestamp) -> Optional[datetime.datetime]:
    """A protobuf Timestamp as an aware UTC datetime; None when unset."""
    if timestamp.seconds == 0 and timestamp.nanos == 0:
        return None
    return timestamp.ToDatetime(tzinfo=datetime.timezone.utc)


@dataclasses.dataclass(frozen=True)
class Measurement:
    """Metric values a trial reported at a training step."""
    step: int
    metrics: Dict[str, float]
    time: Optional[datetime.datetime] = None
    # Seconds from the trial's start.
    elapsed_seconds: Optional[float] = None

    @classmethod
    def from_proto(cls, m: study_pb2.Measurement) -> "Measurement":
        elapsed = m.elapsed_duration.ToTimedelta().total_seconds() \
            if m.HasField("elapsed_duration") else None
        return cls(step=m.step, metrics=dict(m.metrics),
                   time=to_datetime(m.time) if m.HasField("time") else None,
                   elapsed_seconds=elapsed)


def parameter_value(value: study_pb2.ParameterValue) -> ParameterValue:
    kind = value.WhichOneof("kind")
    return getattr(value, kind) if kind else None


def parameter_proto(name: str, value: Any) -> study_pb2.ParameterValue:
    if isinstance(value, bool):
        raise errors.InvalidArgument(
            f"parameters.{name}: {value!r} is a bool; give a number or a "
            "string")
    if isinstance(value, int):
        return study_pb2.ParameterValue(int_value=value)
    if isinstance(value, float):
        return study_pb2.ParameterValue(double_value=value)
    if isinstance(value, str):
        return study_pb2.ParameterValue(string_value=value)
    raise errors.InvalidArgument(
        f"parameters.{name}: {value!r} is a {type(value).__name__}; give a "
        "float, an int or a str")


def measurement_proto(metrics: Metrics, step: int,
                      metric_tag: str) -> study_pb2.Measurement:
    """A float is the study's metric; a mapping names each metric."""
    if isinstance(metrics, (int, float)) and not isinstance(metrics, bool):
        metrics = {metric_tag: float(metrics)}
    if not isinstance(metrics, Mapping):
        raise errors.InvalidArgument(
            f"metrics: {metrics!r} is neither a number nor a mapping of "
            "metric names to numbers")
    if not isinstance(step, int) or isinstance(step, bool) or step < 0:
        raise errors.InvalidArgument(f"step: {step!r} is not an integer >= 0")
    measurement = study_pb2.Measurement(step=step)
    for name, value in metrics.items():
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise errors.InvalidArgument(
                f"metrics.{name}: {value!r} is not a number") from None
        if not math.isfinite(number):
            raise errors.InvalidArgument(
                f"metrics.{name}: {value!r} is not finite (mark the trial "
                "infeasible instead)")
        measurement.metrics[str(name)] = number
    return measurement


class Trial:
    """One trial of a study.

    Attributes (a snapshot; refresh() reads them again):
      id: 1, 2, 3, ... within the study.
      parameters: name -> value, for the trial's active parameters only
        (a conditional parameter its parent's value leaves inactive is
        absent): float for DOUBLE, int for INTEGER and for a DISCRETE
        parameter whose values are all whole numbers, str for CATEGORICAL.
        ``params`` is Optuna's name for it.
      state: one of TRIAL_STATES ("ACTIVE", "SUCCEEDED", ...).
      measurements: intermediate measurements, in report order.
      final_measurement: the result of a SUCCEEDED trial, or None.
      value: the primary metric's final value; values: each objective's,
        in the study's order (None without a final measurement).
      reason: why it is INFEASIBLE or FAILED, or stopped.
      stopped_early, client_id, origin, attempt, create_time, start_time,
      end_time: as in hptune.v1.Trial.
    """

    def __init__(self, connection: Connection, study: str, metric_tag: str,
                 proto: study_pb2.Trial, early_stopping: bool = False,
                 objectives: Optional[List[str]] = None,
                 integral: Optional[Set[str]] = None,
                 specs: Optional[Mapping[str, Any]] = None) -> None:
        self._connection = connection
        # The study's ParameterSpecs by name, conditional ones included.
        self._specs = specs or {}
        # DISCRETE parameters given as ints (the Study's set, shared).
        self._integral = integral if integral is not None else set()
        self._metric_tag = metric_tag
        self._objectives = objectives or [metric_tag]
        self._early_stopping = early_stopping
        self.study = study
        # Whether suggest_* add a parameter the study lacks (Study's).
        self.learns_parameters = False
        self._suggested: set = set()  # Names suggest_* returned.
        self._last_step: Optional[int] = None  # Of this trial's last report.
        self._set(proto)

    def _set(self, proto: study_pb2.Trial) -> None:
        self.proto = proto
        self.id: int = proto.id
        self.parameters: Dict[str, ParameterValue] = {
            name: parameter_value(value)
            for name, value in sorted(proto.parameters.items())}
        for name in self._integral & self.parameters.keys():
            if isinstance(self.parameters[name], float):
                self.parameters[name] = int(self.parameters[name])
        self.state: str = study_pb2.Trial.State.Name(proto.state)
        if self.state not in ("REQUESTED", "ACTIVE", "STOPPING"):
            # Told, or ended by the server: no lease to renew any more.
            self._connection.leases.release(self.study, self.id)
        self.measurements: List[Measurement] = [
            Measurement.from_proto(m) for m in proto.measurements]
        if self.measurements:
            self._last_step = self.measurements[-1].step
        self.final_measurement: Optional[Measurement] = (
            Measurement.from_proto(proto.final_measurement)
            if proto.HasField("final_measurement") else None)
        self.reason: str = proto.reason
        self.stopped_early: bool = proto.stopped_early
        self.client_id: str = proto.client_id
        self.origin: str = proto.origin
        self.attempt: int = proto.attempt
        self.create_time = to_datetime(proto.create_time)
        self.start_time = to_datetime(proto.start_time)
        self.end_time = to_datetime(proto.end_time)

    @property
    def resumes(self) -> Optional[int]:
        """The stopped trial this one continues from its checkpoint (its
        ``origin`` is ``resume[N]``, docs/designers.md "Resuming stopped
        trials"), or None."""
        match = re.fullmatch(r"resume\[([1-9][0-9]*)\]", self.origin)
        return int(match.group(1)) if match else None

    @property
    def value(self) -> Optional[float]:
        """The study's metric in the final measurement, or None."""
        if self.final_measurement is None:
            return None
        return self.final_measurement.metrics.get(self._metric_tag)

    @property
    def values(self) -> Optional[List[Optional[float]]]:
        """Each objective's final value, in the study's order, or None."""
        if self.final_measurement is None:
            return None
        return [self.final_measurement.metrics.get(m)
                for m in self._objectives]

    @property
    def params(self) -> Dict[str, ParameterValue]:
        """Optuna's name for ``parameters``."""
        return self.parameters

    def suggest_float(self, name: str, low: float, high: float, *,
                      step: Optional[float] = None, log: bool = False,
                      **_) -> float:
        """Optuna's habit: the study's value of ``name``. The study's spec
        defines the range: InvalidArgument when it is not within [low,
        high] or its scale is not ``log``'s. A study that learns its
        parameters adds one it lacks (define-by-run)."""
        return float(self._parameter(
            name, low, high, log,
            lambda: define_by_run.float_spec(name, low, high, step, log)))

    def suggest_int(self, name: str, low: int, high: int, *, step: int = 1,
                    log: bool = False, **_) -> int:
        return int(self._parameter(
            name, low, high, log,
            lambda: define_by_run.int_spec(name, low, high, step, log)))

    def suggest_categorical(self, name: str, choices) -> Any:
        value = self._parameter(name, joining=lambda: (
            define_by_run.categorical_spec(name, choices)))
        for choice in choices:  # Optuna gives the choice, not its text.
            if str(choice) == value:
                return choice
        raise errors.InvalidArgument(
            f"suggest_categorical: {name}={value!r} is not one of "
            f"{list(choices)!r}")

    def _parameter(self, name: str, low=None, high=None, log: bool = False,
                   joining: Optional[Callable[[], Dict[str, Any]]] = None
                   ) -> Any:
        if name not in self.parameters and self.learns_parameters and \
                joining is not None:
            self._join(joining())
        if name not in self.parameters:
            if name not in self._specs:
                raise define_by_run.new_parameter_error(
                    name, self.id, sorted(self._specs))
            raise errors.InvalidArgument(
                f"suggest: {name!r} is not an active parameter of trial "
                f"{self.id} (it has {', '.join(self.parameters) or 'none'}); "
                "the study's config defines the parameters")
        value = self.parameters[name]
        if low is not None:
            self._check_range(name, value, low, high, log)
        self._suggested.add(name)
        return value

    def _join(self, spec: Dict[str, Any]) -> None:
        """This trial's value of a parameter it suggests and lacks: the
        server adds the parameter to the study when it is new
        (define-by-run)."""
        proto = json_format.ParseDict(spec, study_pb2.ParameterSpec())
        if spec.get("type") == "DISCRETE" and all(
                isinstance(v, int) for v in spec["discreteValues"]):
            self._integral.add(proto.parameter_name)  # suggest_int's step.
        self._set(self._connection.call(
            self._connection.studies.AddTrialParameter,
            study_service_pb2.AddTrialParameterRequest(
                study=self.study, trial_id=self.id, spec=proto)))
        if proto.parameter_name not in self._specs:
            proto.first_trial = self.id
            self._specs[proto.parameter_name] = proto

    def _unused(self) -> List[str]:
        """The parameters this trial of a study that learns its parameters
        never suggested, of those a trial may lack (joined later): a branch
        it did not take. Empty when it suggested nothing (it read
        ``parameters`` instead)."""
        if not self.learns_parameters or not self._suggested:
            return []
        if not self.parameters.keys() <= self._specs.keys():
            self._read_specs()  # Joined through another process.
        return sorted(name for name in self.parameters
                      if name not in self._suggested and
                      getattr(self._specs.get(name), "first_trial", 0) > 0)

    def _read_specs(self) -> None:
        from hptune.study import all_specs
        study = self._connection.call(
            self._connection.studies.GetStudy,
            study_service_pb2.GetStudyRequest(name=self.study))
        self._specs.update(all_specs(study.spec.params))

    def _check_range(self, name: str, value, low, high, log: bool) -> None:
        spec = self._specs.get(name)
        if spec is not None and spec.HasField("min_value") and not (
                low <= spec.min_value and spec.max_value <= high):
            raise errors.InvalidArgument(
                f"suggest: {name}: the study's range [{spec.min_value:g}, "
                f"{spec.max_value:g}] is not within [{low}, {high}]; the "
                "study's config defines the range")
        if spec is not None and spec.type in (
                study_pb2.ParameterSpec.DOUBLE,
                study_pb2.ParameterSpec.INTEGER) and log != (
                spec.scale_type == study_pb2.ParameterSpec.UNIT_LOG_SCALE):
            raise errors.InvalidArgument(
                f"suggest: {name}: log={log} but the study's scale is "
                f"{study_pb2.ParameterSpec.ScaleType.Name(spec.scale_type)};"
                " the study's config defines the scale")
        if not low <= value <= high:
            raise errors.InvalidArgument(
                f"suggest: {name}={value!r} is outside [{low}, {high}]; the "
                "study's config defines the range")

    def __call__(self) -> "Trial":
        """``study.best_trial()``, before best_trial was a property."""
        warnings.warn("Study.best_trial is a property now, as in Optuna: "
                      "write study.best_trial", DeprecationWarning,
                      stacklevel=2)
        return self

    @property
    def ended(self) -> bool:
        return self.state in ENDED_STATES

    def __repr__(self) -> str:
        value = "" if self.value is None else f", value={self.value:.6g}"
        return (f"Trial(id={self.id}, state={self.state}, "
                f"parameters={self.parameters}{value})")

    def refresh(self) -> "Trial":
        self._set(self._connection.call(
            self._connection.studies.GetTrial,
            study_service_pb2.GetTrialRequest(study=self.study,
                                              trial_id=self.id)))
        return self

    def add_measurement(self, metrics: Metrics, step: int = 0) -> None:
        """Records an intermediate measurement: a number (the study's
        metric) or a mapping of metric names to numbers, at ``step``."""
        self._connection.call(
            self._connection.studies.AddMeasurement,
            study_service_pb2.AddMeasurementRequest(
                study=self.study, trial_id=self.id,
                measurement=measurement_proto(metrics, step,
                                              self._metric_tag)))
        self._last_step = step

    def should_stop(self) -> bool:
        """Whether to stop this trial now: True when it was asked to stop
        (STOPPING: StopTrial, or a job's runner), or when the study has
        enableTrialEarlyStopping and its stopping policy says so; the trial
        is then marked stopped early with the policy's reason (StopTrial).
        Either way the objective should return its value."""
        # The policy's decision comes back for ACTIVE trials only, so it also
        # tells whether the trial is still ACTIVE, without reading the trial
        # and all its measurements at each call.
        reply = self._connection.call(
            self._connection.studies.CheckEarlyStopping,
            study_service_pb2.CheckEarlyStoppingRequest(
                study=self.study, trial_ids=[self.id]))
        decision = next((d for d in reply.decisions if d.trial_id == self.id),
                        None)
        if decision is None:  # No longer ACTIVE: STOPPING, or ended.
            return self.refresh().state == "STOPPING"
        if decision.should_stop and self._early_stopping:
            self.stop(decision.reason)
            return True
        return False

    def report(self, value: float, step: int) -> None:
        """Optuna's name: add_measurement(value, step), the study's metric
        at ``step``, which its stopping policy reads."""
        self.add_measurement(value, step)

    def should_prune(self) -> bool:
        """Optuna's name for should_stop(): the study's stopping policy
        (``enableTrialEarlyStopping``) is its pruner."""
        return self.should_stop()

    def stop(self, reason: str = "") -> "Trial":
        """Moves the ACTIVE trial to STOPPING, marked stopped early."""
        self._set(self._connection.call(
            self._connection.studies.StopTrial,
            study_service_pb2.StopTrialRequest(
                study=self.study, trial_id=self.id, reason=reason)))
        return self

    def complete(self, metrics: Optional[Metrics] = None,
                 step: Optional[int] = None) -> "Trial":
        """Ends the trial SUCCEEDED with ``metrics`` as its final
        measurement (a number is the study's metric), at ``step`` (default:
        the step of the last measurement reported through this object or
        read with it, else 0). Without metrics, the last
        measurement that has the study's metric is the result."""
        request = study_service_pb2.CompleteTrialRequest(
            study=self.study, trial_id=self.id,
            unused_parameters=self._unused())
        if metrics is not None:
            if step is None:
                step = self._last_step or 0
            request.final_measurement.CopyFrom(
                measurement_proto(metrics, step, self._metric_tag))
        self._set(self._connection.call(
            self._connection.studies.CompleteTrial, request))
        return self

    def infeasible(self, reason: str) -> "Trial":
        """Ends the trial INFEASIBLE: the point cannot be evaluated."""
        self._set(self._connection.call(
            self._connection.studies.CompleteTrial,
            study_service_pb2.CompleteTrialRequest(
                study=self.study, trial_id=self.id, trial_infeasible=True,
                infeasible_reason=reason,
                unused_parameters=self._unused())))
        return self

    def to_optuna_row(self) -> Dict[str, Any]:
        """One row of Study.trials_dataframe(style="optuna"): Optuna's
        columns and state names (a trial stopped early is PRUNED)."""
        state = _OPTUNA_STATES.get(self.state, "FAIL")
        if state == "COMPLETE" and self.stopped_early:
            state = "PRUNED"
        duration = (self.end_time - self.start_time
                    if self.end_time and self.start_time else None)
        row: Dict[str, Any] = {
            "number": self.id, "value": self.value,
            "datetime_start": self.start_time,
            "datetime_complete": self.end_time, "duration": duration}
        for name, value in self.parameters.items():
            row[f"params_{name}"] = value
        row["state"] = state
        return row

    def to_dict(self) -> Dict[str, Any]:
        """One row of Study.trials_dataframe()."""
        row: Dict[str, Any] = {"id": self.id, "state": self.state,
                               "value": self.value}
        for name, value in self.parameters.items():
            row[f"params.{name}"] = value
        if self.final_measurement is not None:
            row["step"] = self.final_measurement.step
            for name, value in self.final_measurement.metrics.items():
                row[f"metrics.{name}"] = value
        row.update(stopped_early=self.stopped_early, reason=self.reason,
                   client_id=self.client_id, origin=self.origin,
                   create_time=self.create_time, start_time=self.start_time,
                   end_time=self.end_time)
        return row
