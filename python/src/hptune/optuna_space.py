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
to the grid. Names hptune refuses (characters other than ASCII letters,
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


class Space:
    """The hptune parameters of one relative search space."""

    def __init__(self, search_space: Mapping[str, BaseDistribution]) -> None:
        names = sorted(search_space)
        valid = all(_NAME.fullmatch(n) for n in names)
        self.parameters = [
            _Parameter(n, n if valid else f"p{i}", search_space[n])
            for i, n in enumerate(names)]

    def specs(self) -> List[Dict[str, Any]]:
        return [p.spec for p in self.parameters]

    def to_optuna(self, values: Mapping[str, Any]) -> Dict[str, Any]:
        return {p.name: p.to_optuna(values[p.hptune_name])
                for p in self.parameters}

    def to_hptune(self, params: Mapping[str, Any],
                  distributions: Mapping[str, BaseDistribution]
                  ) -> Optional[Dict[str, Any]]:
        """A finished Optuna trial's values in hptune's terms, or None when
        the trial lacks a parameter or drew it from another distribution."""
        out = {}
        for p in self.parameters:
            if p.name not in params or distributions.get(p.name) != \
                    p.distribution:
                return None
            out[p.hptune_name] = p.to_hptune(params[p.name])
        return out
