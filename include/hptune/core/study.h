// A study: a search space, the metrics to optimise and the trial budget.
//
// StudySpec is what a user asks for (AI Platform's `hyperparameters` block,
// or CreateStudy); StudyRecord is a study as the Store keeps it. A study has
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

#include "hptune/core/search_space.h"
#include "hptune/core/stopping_settings.h"
#include "hptune/core/time.h"
#include "hptune/core/trial.h"

namespace hptune {

enum class Goal { kMaximize, kMinimize };
// "MAXIMIZE", "MINIMIZE".
std::string_view ToString(Goal goal);
std::optional<Goal> ParseGoal(std::string_view text);

enum class Algorithm {
  kUnspecified,        // ALGORITHM_UNSPECIFIED: hptune's default designer.
  kGridSearch,         // GRID_SEARCH
  kRandomSearch,       // RANDOM_SEARCH
  kQuasiRandomSearch,  // QUASI_RANDOM_SEARCH (hptune extension: Halton)
};
std::string_view ToString(Algorithm algorithm);
std::optional<Algorithm> ParseAlgorithm(std::string_view text);

inline constexpr std::string_view kDefaultMetricTag =
    "training/hptuning/metric";

// Bounds of a `metrics` list: objectives (metrics without a safety
// threshold) and metrics in all.
inline constexpr int kMaxObjectives = 4;
inline constexpr int kMaxMetrics = 8;

// Bounds of a study's budget. Every parallel trial is at least one process
// with its own log, metric file and ports, so a machine (or the Slurm
// allocation a runner feeds) runs far fewer than kMaxParallelTrials at once;
// the bound turns a typo or a hostile request into a clear error instead of
// a runner that tries to plan for billions. maxTrials is stored trial by
// trial, so its bound is what the store and the designers serve comfortably.
inline constexpr int kMaxParallelTrials = 1000;
inline constexpr int kMaxTrials = 1'000'000;

// One metric of a study (Vertex AI's MetricSpec). Without a safety
// threshold it is an objective; with one it is a constraint: a trial is
// feasible when the value is on the goal's side of the threshold (at least
// it for MAXIMIZE, at most it for MINIMIZE), and the goal then only says
// which side that is.
struct MetricSpec {
  std::string id;
  Goal goal = Goal::kMaximize;
  std::optional<double> safety_threshold;
  // The fraction of trials that should be feasible, which the GP designer
  // aims for by favouring likely-feasible points (best effort; [0, 1]).
  std::optional<double> desired_min_safe_trials_fraction;

  bool is_constraint() const { return safety_threshold.has_value(); }
  // True when `value` meets the safety threshold (always, for an objective).
  bool IsSafe(double value) const;

  bool operator==(const MetricSpec&) const = default;
};

// The longest lease of an ask/tell trial: a day.
inline constexpr int kMaxTrialLeaseSeconds = 24 * 60 * 60;
// The most quasi-random trials the GP may be asked to start with
// (StudySpec::seeding_trials).
inline constexpr int kMaxSeedingTrials = 1000;

// The rule of a study whose early_stopping_rule is empty.
inline constexpr char kDefaultStoppingRule[] = "median-at-step";

struct StudySpec {
  SearchSpace search_space;
  // The single objective; with `metrics`, a copy of the first objective's
  // id and goal (SetMetrics keeps them so), which early stopping, BestTrial
  // and CLOUD_ML_HP_METRIC_TAG use.
  Goal goal = Goal::kMaximize;
  std::string metric_tag = std::string(kDefaultMetricTag);
  // Vertex AI's metric list; empty for a study of metric_tag alone.
  std::vector<MetricSpec> metrics;
  int max_trials = 1;
  int max_parallel_trials = 1;
  int max_failed_trials = 0;  // 0: see EffectiveMaxFailedTrials().
  bool enable_early_stopping = false;
  // The early-stopping rule by its registry name (docs/designers.md: e.g.
  // "decay-curve", or an embedder's own); empty for kDefaultStoppingRule,
  // or the rule `hptune run --early-stopping` gives. hptune's
  // `earlyStoppingRule`, or Vertex's automated stopping spec.
  std::string early_stopping_rule;
  // The settings of the study's rule, decoded by the rule's factory
  // (stopping_settings.h); empty for the rule's defaults. hptune's
  // `earlyStoppingSettings` or `convexStopping`.
  StoppingSettings stopping_settings;
  // The lease of the trials ask/tell clients are handed (docs/api.md,
  // "Leases"): 0 to kMaxTrialLeaseSeconds, 0 for none; unset for the
  // server's `--trial-lease`. hptune's `trialLeaseSeconds`.
  std::optional<int> trial_lease_seconds;
  // How many quasi-random trials the GP starts with before its model
  // (docs/designers.md, "Seeding"): 1 to kMaxSeedingTrials; unset for the
  // GP's own rule by the number of parameters and maxTrials. What Optuna's
  // samplers call n_startup_trials; only the GP takes it. hptune's
  // `seedingTrials`.
  std::optional<int> seeding_trials;
  std::string resume_previous_job_id;
  Algorithm algorithm = Algorithm::kUnspecified;
  // The name of a designer an embedder registered with its engine
  // (engine::EngineOptions::designers), used in place of `algorithm`, which
  // then stays ALGORITHM_UNSPECIFIED. Empty for hptune's own designers. Set
  // from C++ only: AI Platform's config and the v1 API carry `algorithm`.
  std::string custom_algorithm;
  // Designer seed; unset means the engine draws one and records it.
  std::optional<uint64_t> seed;

  // AI Platform leaves the limit to the service when maxFailedTrials is 0.
  // hptune's rule: a quarter of maxTrials rounded up, at least 3, at most
  // maxTrials. A job stops early only when failures are a clear pattern.
  int EffectiveMaxFailedTrials() const;
  // early_stopping_rule, or kDefaultStoppingRule when it is empty.
  const std::string& EffectiveStoppingRule() const;

  // Sets `metrics`, and metric_tag and goal from its first objective.
  void SetMetrics(std::vector<MetricSpec> list);
  // Every metric: `metrics`, or the one of metric_tag and goal.
  std::vector<MetricSpec> AllMetrics() const;
  // The metrics without a safety threshold, in order.
  std::vector<MetricSpec> Objectives() const;
  // The metrics with one, in order.
  std::vector<MetricSpec> Constraints() const;

  // True when `a` is better than `b` for this study's goal.
  bool IsBetter(double a, double b) const {
    return goal == Goal::kMaximize ? a > b : a < b;
  }

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

// The values of every metric of `spec` (AllMetrics order) in the trial's
// final measurement; nullopt when the trial did not succeed or lacks one.
std::optional<std::vector<double>> FinalMetricValues(const StudySpec& spec,
                                                     const Trial& trial);

// True when the trial SUCCEEDED with a final value of every metric and
// every constraint is met. Only such trials can be optimal.
bool IsFeasibleResult(const StudySpec& spec, const Trial& trial);

// The feasible result (above) with the best final value of the study's
// metric (the earlier trial on ties); nullopt when there is none.
std::optional<Trial> BestTrial(const StudySpec& spec,
                               const std::vector<Trial>& trials);

// The study's optimal trials, in the order given: with one objective, the
// BestTrial; with several, the feasible results that no other feasible
// result dominates on the objectives (core/pareto.h), ties all kept.
std::vector<Trial> OptimalTrials(const StudySpec& spec,
                                 const std::vector<Trial>& trials);
// The same as indices into `trials`, increasing, for a caller that holds
// pointers (the dashboard's snapshots).
std::vector<size_t> OptimalTrialIndices(
    const StudySpec& spec, const std::vector<const Trial*>& trials);

}  // namespace hptune

#endif  // HPTUNE_CORE_STUDY_H_
