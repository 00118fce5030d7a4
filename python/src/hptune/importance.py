"""A study's parameter importance as GetParameterImportance reports it.

Used by Study.importance_report(); plain immutable data, thread-safe.
"""

import dataclasses
from typing import List

from hptune.v1 import study_service_pb2


@dataclasses.dataclass(frozen=True)
class ParameterImportance:
    """One parameter's importance, in [0, 1], with its 90% bootstrap
    interval: lower <= importance <= upper."""
    parameter: str
    importance: float
    lower: float
    upper: float


@dataclasses.dataclass(frozen=True)
class ImportanceReport:
    """The importances, most important first, and what they rest on."""
    importances: List[ParameterImportance]
    # SUCCEEDED trials with a finite value of the study's metric.
    trials: int
    # Of those, the top set the importances are about.
    top_trials: int
    # Trials needed to rank the parameters; below it `note` says so.
    trials_needed: int
    # "" when there are enough trials; else a sentence to show beside them.
    note: str
    method: str
    bootstrap_resamples: int

    @classmethod
    def from_proto(cls, reply: study_service_pb2.ParameterImportanceResponse
                   ) -> "ImportanceReport":
        return cls(
            importances=[ParameterImportance(e.parameter, e.importance,
                                             e.lower, e.upper)
                         for e in reply.importances],
            trials=reply.trials, top_trials=reply.top_trials,
            trials_needed=reply.trials_needed, note=reply.note,
            method=reply.method,
            bootstrap_resamples=reply.bootstrap_resamples)
