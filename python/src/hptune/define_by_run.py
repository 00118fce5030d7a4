"""Define-by-run: a study whose config has no parameters learns its space
from ``suggest_*`` calls, as Optuna's studies do.

    study = hptune.Client.local().study("s", {"goal": "MINIMIZE"})
    study.optimize(lambda t: (t.suggest_float("x", -5, 10) - 2) ** 2, 20)

The rule (docs/python.md, "Define-by-run"):

- the first optimize call runs the objective once on a FirstTrial, whose
  ``suggest_*`` draw uniformly at random (log-uniform with ``log=True``, on
  the grid with ``step``) and record each range; those ranges are the
  study's parameters (the *_spec functions: suggest_float: DOUBLE, or
  DISCRETE with a step of at most MAX_GRID points; suggest_int: INTEGER,
  or DISCRETE with a step; suggest_categorical: CATEGORICAL);
- the study is then created with them, the first trial told to it as a
  SUCCEEDED trial (or INFEASIBLE, when the objective raised an exception of
  ``catch``), and the remaining trials run as for a declared space;
- a parameter a later trial suggests first joins the study's space through
  the server (AddTrialParameter; Trial._parameter): that trial gets a value
  drawn at random, later trials get the designer's, and trials from before
  it lack it;
- every parameter of such a study may be absent from a trial (firstTrial
  set: the first trial's are 1): a trial that ends without suggesting one
  leaves it out (CompleteTrial's unused_parameters; Trial._unused), so a
  branch a trial did not take is inactive there, for the designer too.

Two programs that start the same pending study at once: one creates it,
the other tells its first trial to it (the server refuses a value outside
the space it has). Used by Client.study, Client.create_study and Trial.
Not thread-safe until the first optimize call returns.
"""

import math
import random
from typing import Any, Callable, Dict, List, Optional

from hptune import errors

MAX_GRID = 1000


def _grid(low: float, high: float, step: float) -> List[float]:
    count = int(math.floor((high - low) / step + 1e-9)) + 1
    if count > MAX_GRID:
        raise errors.InvalidArgument(
            f"suggest: a step of {step} from {low} to {high} gives {count} "
            f"values; define-by-run takes at most {MAX_GRID} (leave out "
            "step, or declare the space in the config)")
    return [low + i * step for i in range(count)]


def _check_range(name: str, low, high, log: bool) -> None:
    if not low <= high:
        raise errors.InvalidArgument(
            f"suggest: {name}: low {low} is above high {high}")
    if log and low <= 0:
        raise errors.InvalidArgument(
            f"suggest: {name}: log=True needs low > 0 (got {low})")


def float_spec(name: str, low: float, high: float, step: Optional[float],
               log: bool) -> Dict[str, Any]:
    """The parameter spec (config form) of suggest_float's arguments."""
    _check_range(name, low, high, log)
    if step is not None:
        return {"parameterName": name, "type": "DISCRETE",
                "discreteValues": _grid(float(low), float(high), float(step))}
    return {"parameterName": name, "type": "DOUBLE", "minValue": float(low),
            "maxValue": float(high),
            "scaleType": "UNIT_LOG_SCALE" if log else "UNIT_LINEAR_SCALE"}


def int_spec(name: str, low: int, high: int, step: int,
             log: bool) -> Dict[str, Any]:
    """The parameter spec (config form) of suggest_int's arguments."""
    _check_range(name, low, high, log)
    if step != 1:
        return {"parameterName": name, "type": "DISCRETE",
                "discreteValues": [int(v) for v in _grid(low, high, step)]}
    return {"parameterName": name, "type": "INTEGER", "minValue": int(low),
            "maxValue": int(high),
            "scaleType": "UNIT_LOG_SCALE" if log else "UNIT_LINEAR_SCALE"}


def categorical_spec(name: str, choices) -> Dict[str, Any]:
    """The parameter spec (config form) of suggest_categorical's choices:
    each choice's text."""
    labels = [str(c) for c in choices]
    if not labels or len(set(labels)) != len(labels):
        raise errors.InvalidArgument(
            f"suggest_categorical: {name}: choices {list(choices)!r} "
            "must be non-empty with distinct texts")
    return {"parameterName": name, "type": "CATEGORICAL",
            "categoricalValues": labels}


class FirstTrial:
    """The first trial of a define-by-run study: suggest_* draw at random
    and record the space; report and should_prune as Optuna's."""

    def __init__(self, seed: Optional[int] = None) -> None:
        self._random = random.Random(seed)
        self.space: Dict[str, Dict[str, Any]] = {}
        self.params: Dict[str, Any] = {}
        self.last_report: Optional[float] = None
        self.last_step = 0

    def _record(self, name: str, spec: Dict[str, Any], value) -> Any:
        if name in self.space:
            if self.space[name] != spec:
                raise errors.InvalidArgument(
                    f"suggest: {name} suggested twice with different "
                    f"ranges: {self.space[name]} and {spec}")
            return self.params[name]
        self.space[name] = spec
        self.params[name] = value
        return value

    def _draw(self, spec: Dict[str, Any], low, high, log: bool) -> float:
        if spec["type"] in ("DISCRETE", "CATEGORICAL"):
            return self._random.choice(
                spec.get("discreteValues") or spec["categoricalValues"])
        if log:
            return math.exp(self._random.uniform(math.log(low),
                                                 math.log(high)))
        return self._random.uniform(low, high)

    def suggest_float(self, name: str, low: float, high: float, *,
                      step: Optional[float] = None, log: bool = False):
        spec = float_spec(name, low, high, step, log)
        value = self._draw(spec, low, high, log)
        if spec["type"] == "DOUBLE":
            value = min(max(value, low), high)
        return self._record(name, spec, value)

    def suggest_int(self, name: str, low: int, high: int, *, step: int = 1,
                    log: bool = False) -> int:
        spec = int_spec(name, low, high, step, log)
        if spec["type"] == "DISCRETE":
            return self._record(name, spec, self._draw(spec, low, high, log))
        value = (round(self._draw(spec, low, high, log)) if log else
                 self._random.randint(low, high))
        return self._record(name, spec, int(min(max(value, low), high)))

    def suggest_categorical(self, name: str, choices):
        spec = categorical_spec(name, choices)
        return self._record(name, spec, self._random.choice(list(choices)))

    def report(self, value: float, step: int) -> None:
        self.last_report, self.last_step = float(value), step

    def should_prune(self) -> bool:
        return False  # No stopping policy reads a study not yet created.

    def stored_parameters(self) -> Dict[str, Any]:
        """Values as the server stores them (a choice as its text)."""
        return {name: (str(value) if self.space[name]["type"] ==
                       "CATEGORICAL" else value)
                for name, value in self.params.items()}


def new_parameter_error(name: str, trial_id: int,
                        known: List[str]) -> errors.InvalidArgument:
    return errors.InvalidArgument(
        f"suggest: {name!r} is not a parameter of this study (trial "
        f"{trial_id}; it has {', '.join(known) or 'none'}). Its config "
        "declares its space: add the parameter to the config, or leave "
        "params out of the config for a study that learns them from "
        "suggest_* (docs/python.md, \"Define-by-run\")")


class PendingStudy:
    """A study named ``name`` whose config has no parameters and that does
    not exist yet: its first optimize call defines its space and creates
    it (module docstring); then it is that Study (attributes pass to it)."""

    def __init__(self, client, name: str, hyperparameters: Dict[str, Any]):
        self._client = client
        self.name = name
        self._hyperparameters = hyperparameters
        self._study = None

    def __getattr__(self, attribute: str):
        if attribute.startswith("_"):
            raise AttributeError(attribute)
        if self._study is None:
            raise errors.FailedPrecondition(
                f"study {self.name} has no parameters yet: its first "
                f"optimize call defines them (define-by-run), so "
                f"{attribute} comes after it")
        return getattr(self._study, attribute)

    def __repr__(self) -> str:
        return (repr(self._study) if self._study is not None else
                f"Study(name={self.name!r}, pending: define-by-run)")

    def optimize(self, objective: Callable, n_trials: Optional[int] = None,
                 *args, catch=(), **kwargs) -> None:
        if self._study is None:
            self._first_trial(objective, tuple(catch))
            if n_trials is not None:
                n_trials -= 1
        if n_trials is None or n_trials > 0:
            self._study.optimize(objective, n_trials, *args, catch=catch,
                                 **kwargs)

    def _first_trial(self, objective: Callable, catch) -> None:
        first = FirstTrial()
        failure: Optional[BaseException] = None
        try:
            result = objective(first)
        except catch as e:
            failure, result = e, None
        hyperparameters = dict(self._hyperparameters)
        # Joined at trial 1: a later trial may leave one out (a branch it
        # did not take). A grid's space is only the config's.
        joined = {} if hyperparameters.get("algorithm") == "GRID_SEARCH" \
            else {"firstTrial": 1}
        hyperparameters["params"] = [dict(spec, **joined)
                                     for spec in first.space.values()]
        try:
            self._study = self._client.create_study(self.name,
                                                    hyperparameters)
        except errors.AlreadyExists:  # Another program created it first.
            self._study = self._client.study(self.name, hyperparameters)
        self._study.learns_parameters = True
        if failure is not None:
            self._study.add_trial(
                first.stored_parameters(),
                infeasible_reason=f"objective raised "
                f"{type(failure).__name__}: {failure}"[:4000])
            return
        if result is None:
            result = first.last_report
        if result is None:
            raise errors.InvalidArgument(
                "the objective returned None and reported nothing; return "
                "a number or a dict of metrics")
        self._study.add_trial(first.stored_parameters(), metrics=result,
                              step=first.last_step)
