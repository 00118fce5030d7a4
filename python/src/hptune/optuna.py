"""Optuna samplers whose suggestions come from hptune's designers.

    import optuna, hptune.optuna
    study = optuna.create_study(sampler=hptune.optuna.GPSampler(seed=0))
    study.optimize(objective, n_trials=30, n_jobs=2)

Optuna's define-by-run code runs unchanged; only the sampler differs. How an
Optuna study maps onto hptune studies (docs/python.md, "From Optuna"):

- The relative search space is Optuna's IntersectionSearchSpace (the
  parameters every finished trial has, with the same distribution) plus
  the parameters of some branches only whose presence a CATEGORICAL or
  INTEGER parameter of it explains: hptune conditional parameters under
  it (optuna_space.infer_conditions). Each such space gets an hptune study
  of its own (optuna_space.py maps the distributions); other parameters
  (before the first trial ends, or present by a rule no parent explains)
  come from ``independent_sampler`` (Optuna's RandomSampler by default).
- Optuna's storage holds the history: before each suggestion, the finished
  Optuna trials the hptune study has not seen are added to it
  (CreateTrial: SUCCEEDED with their values, INFEASIBLE when failed), so a
  grown space, a resumed study or trials of other samplers all count.
- A suggested trial is an ACTIVE hptune trial (client id
  ``optuna-<number>``); after_trial ends it: COMPLETE -> SUCCEEDED,
  PRUNED -> stopped early with its last intermediate value capped at the
  median of the COMPLETE trials (INFEASIBLE without either: _pruned_value
  says why), FAIL -> INFEASIBLE.
- Several objectives (up to 4) are hptune objectives (``objective_<i>``,
  the GP's Pareto designer); ``constraints_func`` (Optuna's: feasible when
  every value <= 0) is one constraint metric, their maximum, with safety
  threshold 0; its values are stored as Optuna's samplers store them
  (system attribute ``constraints``).

The engine is ``client`` when given, else a private local engine
(hptune.local) on a temporary database, started at the first suggestion and
stopped at exit; ``db=`` keeps the hptune studies in a file the CLI and
dashboard read. With a seed that engine refits the GP inside the
suggestion due a refit (``hptune serve --inline-refits``), so a sequential
study is reproducible, as Optuna's samplers are with a seed. Thread-safe:
Optuna's ``n_jobs`` threads share a sampler.
"""

import logging
import math
import statistics
import threading
import uuid
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler, RandomSampler
from optuna.study import Study as OptunaStudy
from optuna.study import StudyDirection
from optuna.trial import FrozenTrial, TrialState

from hptune import optuna_space
from hptune.optuna_space import Space

try:  # Optuna >= 3.2; 3.1 has it in optuna.samplers only.
    from optuna.search_space import IntersectionSearchSpace
except ImportError:
    from optuna.samplers import IntersectionSearchSpace

ALGORITHMS = {
    "gp": "ALGORITHM_UNSPECIFIED",
    "random": "RANDOM_SEARCH",
    "quasi_random": "QUASI_RANDOM_SEARCH",
    "grid": "GRID_SEARCH",
}
TRIAL_ATTR = "hptune:trial"
CONSTRAINTS_ATTR = "constraints"  # Optuna's own key (samplers/_base.py)
_MAX_TRIALS = 1000000
_OPTUNA_STARTUP_TRIALS = 10  # Optuna's samplers' default n_startup_trials
_log = logging.getLogger("hptune")


def _seeding_trials(n_startup_trials: Optional[int], dimension: int) -> int:
    """The GP's quasi-random start for a space of `dimension` parameters:
    n_startup_trials when given, else the GP's own 2 (D + 1) (at least 4;
    docs/designers.md, "Seeding") capped at Optuna's 10, which is what the
    GP's rule gives a small budget; an Optuna study tells no budget."""
    if n_startup_trials is not None:
        return n_startup_trials
    return max(4, min(_OPTUNA_STARTUP_TRIALS, 2 * (dimension + 1)))


def _check_startup_trials(algorithm: str, n: Optional[int]) -> None:
    if n is None:
        return
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 1000:
        raise ValueError(f"n_startup_trials: {n!r} is not an integer from 1 "
                         "to 1000")
    if algorithm != "gp":
        raise ValueError(f"n_startup_trials: only the \"gp\" algorithm "
                         f"starts with seeding trials, got {algorithm!r}")


class _SpaceStudy:
    """The hptune study of one relative search space."""

    def __init__(self, space: Space, study: Any) -> None:
        self.space, self.study = space, study
        self.told: set = set()  # Optuna trial numbers the study has
        self.lock = threading.Lock()


class HptuneSampler(BaseSampler):
    """An Optuna sampler backed by an hptune designer.

    Args:
      algorithm: "gp" (default; the Pareto GP with several objectives),
        "random", "quasi_random" or "grid" (finite spaces only).
      seed: the designer's seed (and the independent sampler's).
      client: an hptune.Client; default a private local engine.
      db: with no client, the local engine's SQLite file (default: a
        temporary one, removed at exit).
      constraints_func: Optuna's: trial -> sequence of floats, feasible
        when all are <= 0.
      independent_sampler: for parameters outside the relative space;
        default RandomSampler(seed).
      n_startup_trials: "gp" only: how many quasi-random trials each space
        starts with before the model (hptune's ``seedingTrials``, 1 to
        1000); None: Optuna's 10, or 2 (D + 1) for D parameters when that
        is fewer (at least 4).
    """

    def __init__(self, algorithm: str = "gp", *, seed: Optional[int] = None,
                 client: Any = None, db: Optional[str] = None,
                 constraints_func: Optional[
                     Callable[[FrozenTrial], Sequence[float]]] = None,
                 independent_sampler: Optional[BaseSampler] = None,
                 n_startup_trials: Optional[int] = None) -> None:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm: {algorithm!r} is not one of "
                             f"{', '.join(ALGORITHMS)}")
        if seed is not None and not (isinstance(seed, int) and seed >= 0):
            raise ValueError(f"seed: {seed!r} is not an integer >= 0")
        _check_startup_trials(algorithm, n_startup_trials)
        self._startup_trials = n_startup_trials
        self._algorithm = ALGORITHMS[algorithm]
        self._seed = seed
        self._client, self._db = client, db
        self._owns_client = client is None
        self._constraints_func = constraints_func
        self._independent = independent_sampler or RandomSampler(seed=seed)
        self._intersections: Dict[Any, IntersectionSearchSpace] = {}
        self._unions: Dict[Any, optuna_space.UnionSpace] = {}
        self._modelled: Dict[Any, frozenset] = {}  # the last space's names
        self._lock = threading.Lock()
        self._studies: Dict[Any, _SpaceStudy] = {}
        self._active: Dict[int, Any] = {}  # Optuna trial id -> hptune trial
        self._prefix = "optuna_" + uuid.uuid4().hex[:12]
        self._warned: set = set()
        self._closed = False

    # The engine and the hptune study of each space.

    def _engine(self):
        with self._lock:
            if self._closed:
                raise RuntimeError(
                    "this hptune sampler was closed (sampler.close() stopped "
                    "its engine); give the study a new sampler")
            if self._client is None:
                from hptune.client import Client
                # A seed makes a sequential study reproducible, as it
                # does Optuna's samplers: refits inside the suggestion.
                self._client = Client.local(
                    self._db, inline_refits=self._seed is not None)
            return self._client

    @staticmethod
    def _study_key(study: OptunaStudy) -> Any:
        return (id(study._storage), study._study_id)

    def _key(self, study: OptunaStudy, search_space) -> Any:
        conditions = getattr(search_space, "conditions", {})
        return (self._study_key(study), tuple(study.directions),
                tuple(sorted((n, repr(d)) for n, d in search_space.items())),
                tuple(sorted((c, p, repr(v))
                             for c, (p, v) in conditions.items())))

    def _spec(self, study: OptunaStudy, space: Space) -> Dict[str, Any]:
        metrics = [{"metricId": f"objective_{i}",
                    "goal": "MAXIMIZE" if d == StudyDirection.MAXIMIZE
                    else "MINIMIZE"} for i, d in enumerate(study.directions)]
        if self._constraints_func is not None:
            metrics.append({"metricId": "constraint", "goal": "MINIMIZE",
                            "safetyThreshold": 0.0})
        spec = {"metrics": metrics, "maxTrials": _MAX_TRIALS,
                "maxParallelTrials": 1000, "maxFailedTrials": _MAX_TRIALS,
                "algorithm": self._algorithm, "params": space.specs()}
        if self._seed is not None:
            spec["seed"] = self._seed
        if self._algorithm == ALGORITHMS["gp"]:
            spec["seedingTrials"] = _seeding_trials(self._startup_trials,
                                                    len(space.parameters))
        return spec

    def _space_study(self, study: OptunaStudy, search_space) -> _SpaceStudy:
        key = self._key(study, search_space)
        client = self._engine()
        with self._lock:
            if key not in self._studies:
                space = Space(search_space)
                name = f"{self._prefix}_{len(self._studies)}"
                self._studies[key] = _SpaceStudy(
                    space, client.create_study(name, self._spec(study, space)))
            return self._studies[key]

    # Optuna's sampler interface.

    def infer_relative_search_space(self, study: OptunaStudy,
                                    trial: FrozenTrial
                                    ) -> Dict[str, BaseDistribution]:
        with self._lock:
            intersection = self._intersections.setdefault(
                self._study_key(study),
                IntersectionSearchSpace(include_pruned=True))
            calculated = intersection.calculate(study)  # not thread-safe
            trials = study.get_trials(deepcopy=False, states=(
                TrialState.COMPLETE, TrialState.PRUNED))
            union = self._unions.setdefault(
                self._study_key(study), optuna_space.UnionSpace()
            ).update(trials)
        base = {n: d for n, d in calculated.items() if optuna_space.usable(d)}
        space = optuna_space.SearchSpace(base)
        space.conditions = optuna_space.infer_conditions(trials, base, union)
        space.update({c: union[c] for c in space.conditions})
        with self._lock:
            self._modelled[self._study_key(study)] = frozenset(space)
        if len(study.directions) > optuna_space.MAX_OBJECTIVES:
            self._warn_once("objectives", f"hptune optimises at most "
                            f"{optuna_space.MAX_OBJECTIVES} objectives; this "
                            "study's parameters are sampled independently")
            return {}
        if len(space) > optuna_space.MAX_PARAMETERS:
            self._warn_once("parameters", f"hptune takes at most "
                            f"{optuna_space.MAX_PARAMETERS} parameters; "
                            "this space's are sampled independently")
            return {}
        return space

    def sample_relative(self, study: OptunaStudy, trial: FrozenTrial,
                        search_space: Dict[str, BaseDistribution]
                        ) -> Dict[str, Any]:
        if not search_space:
            return {}
        state = self._space_study(study, search_space)
        self._tell_history(study, state)
        batch = state.study.suggest(1, client_id=f"optuna-{trial.number}")
        if not batch:
            self._warn_once(batch.note, "hptune made no suggestion ("
                            f"{batch.note or 'study completed'}); sampling "
                            "independently")
            return {}
        suggested = batch[0]
        with self._lock:
            self._active[trial._trial_id] = (state, suggested)
        study._storage.set_trial_system_attr(
            trial._trial_id, TRIAL_ATTR, f"{state.study.name}/{suggested.id}")
        return state.space.to_optuna(suggested.parameters)

    def sample_independent(self, study: OptunaStudy, trial: FrozenTrial,
                           param_name: str,
                           param_distribution: BaseDistribution) -> Any:
        with self._lock:
            modelled = self._modelled.get(self._study_key(study), ())
        # A modelled parameter comes here when its branch is new, or when
        # the whole space was declined (warned once already).
        reason = "" if param_name in modelled else _why_independent(
            study, param_name, param_distribution)
        if reason:
            self._warn_once(f"independent {param_name}", (
                f"parameter {param_name!r} is sampled by "
                f"{type(self._independent).__name__}, not hptune's designer: "
                f"{reason}"))
        return self._independent.sample_independent(
            study, trial, param_name, param_distribution)

    def before_trial(self, study: OptunaStudy, trial: FrozenTrial) -> None:
        if hasattr(self._independent, "before_trial"):
            self._independent.before_trial(study, trial)

    def after_trial(self, study: OptunaStudy, trial: FrozenTrial,
                    state: TrialState,
                    values: Optional[Sequence[float]]) -> None:
        if self._constraints_func is not None and state in (
                TrialState.COMPLETE, TrialState.PRUNED):
            constraints = tuple(float(c) for c in
                                self._constraints_func(trial))
            if not all(math.isfinite(c) for c in constraints):
                raise ValueError(f"constraints_func: {constraints} of trial "
                                 f"{trial.number} are not all finite")
            study._storage.set_trial_system_attr(
                trial._trial_id, CONSTRAINTS_ATTR, constraints)
            trial.system_attrs[CONSTRAINTS_ATTR] = constraints
        self._independent.after_trial(study, trial, state, values)
        with self._lock:
            entry = self._active.pop(trial._trial_id, None)
        if entry is None:
            return
        space_study, suggested = entry
        median = completed_median(study) if state == TrialState.PRUNED \
            else None
        with space_study.lock:
            _end(suggested, trial, state, values, self._constraints_func,
                 median)
            space_study.told.add(trial.number)

    def reseed_rng(self) -> None:
        self._independent.reseed_rng()

    def close(self) -> None:
        """Stops the local engine this sampler started (also at exit); the
        sampler suggests no more (RuntimeError)."""
        with self._lock:
            self._closed = True
            if self._owns_client and self._client is not None:
                self._client.close()
                self._client = None

    # Pickling (pickle.dumps(study), joblib.dump): the engine, its studies
    # and locks stay behind; an unpickled sampler starts an engine of its
    # own (or connects as the given Client did) and tells it Optuna's
    # history at its first suggestion.

    def __getstate__(self) -> Dict[str, Any]:
        state = dict(self.__dict__)
        client = state.pop("_client")
        state["_connect"] = None if self._owns_client or client is None \
            else client._connection.options()
        for name in ("_lock", "_studies", "_active", "_intersections",
                     "_unions", "_modelled"):
            del state[name]
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        connect = state.pop("_connect")
        self.__dict__.update(state)
        from hptune.client import Client
        self._client = Client(**connect) if connect else None
        self._lock = threading.Lock()
        self._studies, self._active = {}, {}
        self._intersections, self._unions, self._modelled = {}, {}, {}
        self._prefix = "optuna_" + uuid.uuid4().hex[:12]

    # History.

    def _tell_history(self, study: OptunaStudy, state: _SpaceStudy) -> None:
        """Adds the finished Optuna trials the hptune study lacks."""
        median = completed_median(study)
        with state.lock:
            for t in study.get_trials(deepcopy=False, states=(
                    TrialState.COMPLETE, TrialState.PRUNED,
                    TrialState.FAIL)):
                if t.number in state.told:
                    continue
                state.told.add(t.number)
                if t.system_attrs.get(TRIAL_ATTR, "").startswith(
                        state.study.name + "/"):
                    continue  # its after_trial ended it
                parameters = state.space.to_hptune(t.params, t.distributions)
                if parameters is None:
                    continue
                metrics, reason = _result(t, t.state, t.values,
                                          self._constraints_func, median)
                if metrics is None:
                    state.study.add_trial(parameters,
                                          infeasible_reason=reason)
                else:
                    state.study.add_trial(parameters, metrics=metrics[0],
                                          step=metrics[1])

    def _warn_once(self, key: str, message: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            _log.warning(message)


def _why_independent(study: OptunaStudy, name: str,
                     distribution: BaseDistribution) -> str:
    """Why a parameter is outside the relative space, or "" when that is
    expected (no trial has finished yet, a single value)."""
    if distribution.single():
        return ""
    finished = study.get_trials(deepcopy=False, states=(
        TrialState.COMPLETE, TrialState.PRUNED))
    if not finished:
        return ""
    drawn = {repr(t.distributions[name]) for t in finished
             if name in t.distributions}
    if len(drawn | {repr(distribution)}) > 1:
        return "its range or choices differ between trials"
    if not optuna_space.usable(distribution):
        return f"hptune cannot model {type(distribution).__name__}"
    if any(name not in t.distributions for t in finished):
        return ("it is in some trials only, and no CATEGORICAL or INTEGER "
                "parameter of every trial says when (a branch more than "
                "one level deep, or a rule such as `if x > 0.5`)")
    return "it is outside the space hptune models"


def completed_median(study: OptunaStudy) -> Optional[Tuple[float, bool]]:
    """(the median value of the study's COMPLETE trials, whether lower is
    better), the most a pruned trial may claim; None without one, or with
    several objectives."""
    if len(study.directions) != 1:
        return None
    values = [t.values[0] for t in study.get_trials(
        deepcopy=False, states=(TrialState.COMPLETE,))
        if t.values and math.isfinite(t.values[0])]
    if not values:
        return None
    return (statistics.median(values),
            study.direction == StudyDirection.MINIMIZE)


def _pruned_value(trial: FrozenTrial, median: Optional[Tuple[float, bool]]):
    """((value, step), None) for a pruned trial, or (None, reason): its
    last intermediate value, but never better than the completed median.
    A pruner stops a trial it judges no better than the others (Optuna's
    MedianPruner: worse than the median at its step), and the intermediate
    value may be another metric than the objective (Optuna's xgboost
    pruning example reports AUC and returns accuracy), so the GP never sees
    a pruned trial rank above the median completed one."""
    if not trial.intermediate_values:
        return None, "pruned by Optuna before any intermediate value"
    if median is None:
        return None, ("pruned by Optuna before any trial completed (nothing "
                      "to rank it against)")
    step = max(trial.intermediate_values)
    last, (middle, minimize) = trial.intermediate_values[step], median
    return ((max(last, middle) if minimize else min(last, middle)),
            step), None


def _result(trial: FrozenTrial, state: TrialState,
            values: Optional[Sequence[float]], constrained: Any,
            median: Optional[Tuple[float, bool]] = None):
    """((metrics, step), None) for an hptune result, or (None, reason).
    ``median``: completed_median(), for a pruned trial."""
    step = 0
    if state == TrialState.PRUNED:
        pruned, reason = _pruned_value(trial, median)
        if pruned is None:
            return None, reason
        values, step = [pruned[0]], pruned[1]
    elif state != TrialState.COMPLETE or values is None:
        return None, f"the Optuna trial ended {state.name}"
    if not all(math.isfinite(v) for v in values):
        return None, f"the Optuna trial's values {list(values)} are not finite"
    metrics = {f"objective_{i}": float(v) for i, v in enumerate(values)}
    constraints = trial.system_attrs.get(CONSTRAINTS_ATTR)
    if constrained is not None and constraints:
        metrics["constraint"] = max(float(c) for c in constraints)
    return (metrics, step), None


def _end(suggested: Any, trial: FrozenTrial, state: TrialState,
         values: Optional[Sequence[float]], constrained: Any,
         median: Optional[Tuple[float, bool]]) -> None:
    """Ends the hptune trial of an Optuna trial as Optuna ended it."""
    result, reason = _result(trial, state, values, constrained, median)
    if result is None:
        suggested.infeasible(reason)
        return
    if state == TrialState.PRUNED:
        suggested.stop("pruned by Optuna's pruner")
    suggested.complete(result[0], step=result[1])


class GPSampler(HptuneSampler):
    """hptune's Gaussian-process designer as an Optuna sampler:
    ``optuna.create_study(sampler=hptune.optuna.GPSampler(seed=0))``."""

    def __init__(self, *, seed: Optional[int] = None, **options) -> None:
        super().__init__("gp", seed=seed, **options)


__all__ = ["HptuneSampler", "GPSampler", "ALGORITHMS"]
