// A study: a search space, the metrics to optimise and the trial budget.
//
// StudySpec is what a user asks for (AI Platform's `hyperparameters` block,
// or CreateStudy), made of the parts of study_parts.h; StudyRecord is a
// study as the Store keeps it. A study has
// one metric (hyperparameterMetricTag + goal, as in AI Platform) or a list
// of them (Vertex AI's `metrics`): up to kMaxObjectives objectives, whose
// Pareto front is the study's result, and constraints (a metric with a
// safety threshold). Value types; thread-compatible.
#ifndef HPTUNE_CORE_STUDY_H_
#define HPTUNE_CORE_STUDY_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hptune/core/study_parts.h"
#include "hptune/core/time.h"
#include "hptune/core/trial.h"

namespace hptune {

// A user's study spec: its Problem, Budget and algorithm settings
// (study_parts.h), whose fields it holds as its own (spec.max_trials), so
// it converts to the part a function takes.
struct StudySpec : Problem, Budget, DesignerSettings, EarlyStoppingSettings {
  bool operator==(const StudySpec&) const = default;
};

enum class StudyState {
  kActive,     // Accepts suggestions and results.
  kCompleted,  // Budget reached or space exhausted; see StudyRecord::reason.
  // Never stored: what WithJobOutcome (hptune/core/job.h) shows of a study
  // whose job ended FAILED or CANCELLED.
  kFailed,
  kCancelled,
};
// "ACTIVE", "COMPLETED", "FAILED", "CANCELLED".
std::string_view ToString(StudyState state);
std::optional<StudyState> ParseStudyState(std::string_view text);

struct StudyRecord {
  std::string name;  // Unique; a job's study is named by its job ID.
  StudySpec spec;
  StudyState state = StudyState::kActive;
  std::string reason;  // Why it completed.
  uint64_t seed = 0;   // The designer seed actually used.
  Timestamp create_time{};
  // Trials copied in from the job named by spec.resume_previous_job_id:
  // history on top of maxTrials, which counts the trials this study runs,
  // as in AI Platform.
  int resumed_trials = 0;
  // The uid of the user who made it (a job's study: the job's owner), whose
  // quotas it counts against (docs/operations.md, "Quotas"); -1: none
  // known (made before hptune recorded it, or by the runner's own user).
  int64_t owner_uid = -1;

  // How many trials the study holds when its budget is spent.
  int TrialBudget() const { return spec.max_trials + resumed_trials; }
  // "maxTrials (N)", with the resumed trials when there are any: how
  // messages name the budget.
  std::string DescribeBudget() const;

  bool operator==(const StudyRecord&) const = default;
};

// The values of every metric of `problem` (AllMetrics order) in the trial's
// final measurement; nullopt when the trial did not succeed or lacks one.
std::optional<std::vector<double>> FinalMetricValues(const Problem& problem,
                                                     const Trial& trial);

// True when the trial SUCCEEDED with a final value of every metric and
// every constraint is met. Only such trials can be optimal.
bool IsFeasibleResult(const Problem& problem, const Trial& trial);

// The feasible result (above) with the best final value of the study's
// metric (the earlier trial on ties); nullopt when there is none.
std::optional<Trial> BestTrial(const Problem& problem,
                               const std::vector<Trial>& trials);

// The study's optimal trials, in the order given: with one objective, the
// BestTrial; with several, the feasible results that no other feasible
// result dominates on the objectives (core/pareto.h), ties all kept.
std::vector<Trial> OptimalTrials(const Problem& problem,
                                 const std::vector<Trial>& trials);
// The same as indices into `trials`, increasing, for a caller that holds
// pointers (the dashboard's snapshots).
std::vector<size_t> OptimalTrialIndices(
    const Problem& problem, const std::vector<const Trial*>& trials);

}  // namespace hptune

#endif  // HPTUNE_CORE_STUDY_H_
