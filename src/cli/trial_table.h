// Tables of studies and trials, as `hptune studies ...`, `hptune trials ...`
// (and later `hptune run` and `jobs describe`) print them. Used only by
// src/cli.
#ifndef HPTUNE_CLI_TRIAL_TABLE_H_
#define HPTUNE_CLI_TRIAL_TABLE_H_

#include <cstdint>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "hptune/core/study.h"
#include "hptune/core/trial.h"
#include "src/cli/output.h"

namespace hptune::cli {

// trialId, state, one column per parameter, objective, step, stoppedEarly,
// origin, reason. A parameter whose name is one of those columns is shown as
// "hyperparameters.<name>" so no column hides another. A study with a
// `metrics` list has one column per metric in place of objective (named by
// its id, "metrics.<id>" on a clash) and an optimal column ("*" on the
// trials whose numbers are in `optimal`: the study's optimal trials, as the
// read side answers them, StudyReader::OptimalTrials).
Table TrialsTable(const StudySpec& spec, const std::vector<Trial>& trials,
                  const std::set<int64_t>& optimal);

// The study's metrics in words: "MAXIMIZE accuracy"; with a list,
// "MAXIMIZE accuracy, MINIMIZE latency_ms (constraint: <= 50)".
std::string MetricsText(const StudySpec& spec);

// Trials in AI Platform's trainingOutput shape: trialId, state,
// hyperparameters (strings), finalMetric {trainingStep, objectiveValue},
// isTrialStoppedEarly, startTime, endTime, plus origin, reason and the
// measurements a trial carries; with a `metrics` list also finalMetrics
// {id: value} and isOptimal (its number in `optimal`).
std::string TrialsJson(const StudySpec& spec, const std::vector<Trial>& trials,
                       const std::set<int64_t>& optimal);

// TrialsJson for kJson, Vertex's ListTrialsResponse (VertexTrialsJson) for
// kVertex, TrialsTable otherwise; as a table without the stoppedEarly and
// reason columns when no trial has one.
void PrintTrials(const StudySpec& spec, const std::vector<Trial>& trials,
                 const std::set<int64_t>& optimal, OutputFormat format,
                 std::ostream& out);

// One row per study: name, state, algorithm, goal, metric, trials, best.
// `trials[i]` and `optimal[i]` are studies[i]'s trials and its optimal
// trials (StudyReader::OptimalTrials).
Table StudiesTable(const std::vector<StudyRecord>& studies,
                   const std::vector<std::vector<Trial>>& trials,
                   const std::vector<std::vector<Trial>>& optimal);

}  // namespace hptune::cli

#endif  // HPTUNE_CLI_TRIAL_TABLE_H_
