"""Optuna's distributions as hptune parameter specs, and values both ways.

Used by hptune.optuna's sampler only. One Space is the hptune study of one
relative search space that Optuna inferred (docs/python.md, "From Optuna"):

| Optuna | hptune |
|---|---|
| FloatDistribution(low, high, log) | DOUBLE, UNIT_LOG_SCALE when log |
| FloatDistribution(step=s), at most 1,000 points | DISCRETE low, low+s, ... |
| IntDistribution(low, high, log), step 1 | INTEGER, UNIT_LOG_SCALE when log |
| IntDistribution(step=s), at most 1,000 points | DISCRETE low, low+s, ... |
| CategoricalDistribution(choices) | CATEGORICAL, a label per choice |

A stepped range of more points is DOUBLE or INTEGER, its suggestion snapped
to the grid. A parameter of some branches only becomes a conditional
parameter under the CATEGORICAL or INTEGER parameter whose values decide
whether a trial has it (infer_conditions). Names hptune refuses (characters other than ASCII letters,
digits, ``_ - .``) become ``p<i>``; the values Optuna sees are its own.
Distributions of a single value are left to independent sampling.

Not thread-safe on its own: Space objects are immutable after __init__.
"""

import math
import re
from typing import Any, Dict, List, Mapping, Optional, Tuple

from optuna.distributions import (BaseDistribution, CategoricalDistribution,
                                  FloatDistribution, IntDistribution)

MAX_DISCRETE_VALUES = 1000
MAX_PARAMETERS = 100
MAX_OBJECTIVES = 4
_NAME = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_.-]{0,127}")
_MAX_LABEL_CHARS = 256


def _grid_size(low: float, high: float, step: float) -> int:
    return int(math.floor((high - low) / step + 1e-9)) + 1


def _snap(value: float, low: float, high: float, step: float) -> float:
    return min(high, low + round((value - low) / step) * step)


def _labels(choices) -> List[str]:
    """A distinct non-empty label per choice: str(choice) when those are
    distinct, else #<index> (the model does not read labels)."""
    labels = [str(c) for c in choices]
    if len(set(labels)) == len(labels) and all(
            0 < len(l) <= _MAX_LABEL_CHARS for l in labels):
        return labels
    return [f"#{i}" for i in range(len(choices))]


class _Parameter:
    """One distribution: its hptune spec, and the value conversions."""

    def __init__(self, name: str, hptune_name: str,
                 distribution: BaseDistribution) -> None:
        self.name, self.hptune_name = name, hptune_name
        self.distribution = distribution
        self.grid: Optional[Tuple[float, float, float]] = None
        self.labels: List[str] = []
        self.spec = self._spec(distribution)

    def _spec(self, d: BaseDistribution) -> Dict[str, Any]:
        spec: Dict[str, Any] = {"parameterName": self.hptune_name}
        if isinstance(d, CategoricalDistribution):
            self.labels = _labels(d.choices)
            return dict(spec, type="CATEGORICAL",
                        categoricalValues=self.labels)
        if not isinstance(d, (FloatDistribution, IntDistribution)):
            raise TypeError(f"{type(d).__name__} is not an Optuna 3 "
                            "distribution hptune knows")
        is_int = isinstance(d, IntDistribution)
        step = d.step if d.step is not None and (not is_int or d.step != 1) \
            else None
        if step is not None:
            self.grid = (d.low, d.high, step)
            count = _grid_size(d.low, d.high, step)
            if count <= MAX_DISCRETE_VALUES:
                values = [d.low + i * step for i in range(count)]
                return dict(spec, type="DISCRETE", discreteValues=values)
        spec.update(type="INTEGER" if is_int else "DOUBLE",
                    minValue=d.low, maxValue=d.high)
        if d.log:
            spec["scaleType"] = "UNIT_LOG_SCALE"
        return spec

    def to_optuna(self, value: Any) -> Any:
        """hptune's suggested value as Optuna's (ints stay ints)."""
        d = self.distribution
        if isinstance(d, CategoricalDistribution):
            return d.choices[self.labels.index(value)]
        if self.grid is not None:
            value = _snap(float(value), *self.grid)
        if isinstance(d, IntDistribution):
            return int(round(value))
        return float(value)

    def to_hptune(self, value: Any) -> Any:
        """Optuna's value as hptune's: float for DOUBLE and DISCRETE, int
        for INTEGER, the label for CATEGORICAL."""
        d = self.distribution
        if isinstance(d, CategoricalDistribution):
            return self.labels[d.choices.index(value)]
        if self.spec["type"] == "INTEGER":
            return int(value)
        if self.grid is not None:
            return float(_snap(float(value), *self.grid))
        return float(value)


def usable(distribution: BaseDistribution) -> bool:
    return not distribution.single() and isinstance(
        distribution, (FloatDistribution, IntDistribution,
                       CategoricalDistribution))


class UnionSpace:
    """Every parameter of the finished trials whose distribution is the same
    in all trials that have it, kept across calls: each trial is folded in
    once (as Optuna's IntersectionSearchSpace keeps the intersection), so a
    suggestion at trial n costs O(new trials), not O(n * parameters)."""

    def __init__(self) -> None:
        self._union: Dict[str, BaseDistribution] = {}
        self._clashing: set = set()
        self._folded: set = set()  # trial numbers

    def update(self, trials) -> Dict[str, BaseDistribution]:
        for t in trials:
            if t.number in self._folded:
                continue
            self._folded.add(t.number)
            for name, distribution in t.distributions.items():
                if self._union.setdefault(name, distribution) != distribution:
                    self._clashing.add(name)
        return {n: d for n, d in self._union.items()
                if n not in self._clashing}



def infer_conditions(trials, base: Mapping[str, BaseDistribution],
                     union: Mapping[str, BaseDistribution]
                     ) -> Dict[str, Tuple[str, List[Any]]]:
    """child -> (parent, parent values): a parameter outside ``base`` (the
    parameters of every trial) that is present in exactly the trials
    where a CATEGORICAL or INTEGER parameter of ``base`` took one of those
    values (Optuna's ``if trial.suggest_categorical(...) == "a":``
    branches). Parameters no such parent explains are left out."""
    parents = [n for n in sorted(base) if isinstance(
        base[n], (CategoricalDistribution, IntDistribution))]
    conditions = {}
    for child in sorted(n for n in union if n not in base and
                        usable(union[n])):
        for parent in parents:
            values = {t.params[parent] for t in trials if child in t.params}
            if all((t.params[parent] in values) == (child in t.params)
                   for t in trials):
                conditions[child] = (parent, sorted(values, key=repr))
                break
    return conditions


class SearchSpace(dict):
    """The relative search space handed from infer_relative_search_space to
    sample_relative: a dict name -> distribution, with ``conditions``
    (infer_conditions') for the parameters of some branches only."""
    conditions: Dict[str, Tuple[str, List[Any]]] = {}


_PARENT_FIELD = {"CATEGORICAL": "parentCategoricalValues",
                 "INTEGER": "parentIntValues",
                 "DISCRETE": "parentDiscreteValues"}


class Space:
    """The hptune parameters of one relative search space: those of every
    trial at the root, each conditional one under its parent."""

    def __init__(self, search_space: Mapping[str, BaseDistribution]) -> None:
        names = sorted(search_space)
        valid = all(_NAME.fullmatch(n) for n in names)
        by_name = {n: _Parameter(n, n if valid else f"p{i}", search_space[n])
                   for i, n in enumerate(names)}
        self.conditions = {
            child: (parent, values) for child, (parent, values) in
            getattr(search_space, "conditions", {}).items()
            if child in by_name and parent in by_name and
            by_name[parent].spec["type"] in _PARENT_FIELD}
        self.parameters = [p for n, p in by_name.items()
                           if n not in getattr(search_space, "conditions",
                                               {}) or n in self.conditions]
        self._by_name = by_name

    def specs(self) -> List[Dict[str, Any]]:
        roots = []
        for p in self.parameters:
            if p.name in self.conditions:
                continue
            spec = dict(p.spec)
            children = [
                {_PARENT_FIELD[p.spec["type"]]: {
                    "values": [p.to_hptune(v) for v in values]},
                 "parameterSpec": self._by_name[child].spec}
                for child, (parent, values) in sorted(self.conditions.items())
                if parent == p.name]
            if children:
                spec["conditionalParameterSpecs"] = children
            roots.append(spec)
        return roots

    def to_optuna(self, values: Mapping[str, Any]) -> Dict[str, Any]:
        """The suggested active parameters as Optuna's values."""
        return {p.name: p.to_optuna(values[p.hptune_name])
                for p in self.parameters if p.hptune_name in values}

    def to_hptune(self, params: Mapping[str, Any],
                  distributions: Mapping[str, BaseDistribution]
                  ) -> Optional[Dict[str, Any]]:
        """A finished Optuna trial's values in hptune's terms, or None when
        the trial lacks an active parameter, has an inactive one, or drew
        one from another distribution."""
        out = {}
        for p in self.parameters:
            active = True
            if p.name in self.conditions:
                parent, values = self.conditions[p.name]
                active = params.get(parent) in values
            if not active:
                if p.name in params:
                    return None
                continue
            if p.name not in params or distributions.get(p.name) != \
                    p.distribution:
                return None
            out[p.hptune_name] = p.to_hptune(params[p.name])
        return out
