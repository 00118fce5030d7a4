// The parts of a study spec, one per concern: the Problem (what is tuned
// and for which metrics), the Budget (what the service may spend on it),
// and the algorithm settings (DesignerSettings, EarlyStoppingSettings).
//
// StudySpec (study.h) is composed of them, so a spec is used whole where it
// is read, stored or sent, while a part of hptune takes only the part it
// needs: designers, stopping policies and importance take a `const
// Problem&` and their own settings, never the budget. Value types;
// thread-compatible.
#ifndef HPTUNE_CORE_STUDY_PARTS_H_
#define HPTUNE_CORE_STUDY_PARTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hptune/core/search_space.h"
#include "hptune/core/stopping_settings.h"

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
  // MULTI_FIDELITY_GP (hptune extension): the GP reading early-stopped
  // trials at forecasts of their finals (gp/multi_fidelity_designer.h).
  kMultiFidelityGp,
};
std::string_view ToString(Algorithm algorithm);
std::optional<Algorithm> ParseAlgorithm(std::string_view text);

// Which of a trial's reports is its final measurement (Vertex AI's
// measurementSelectionType; hptune's in trainingInput).
enum class MeasurementSelection {
  kLast,  // LAST_MEASUREMENT (and unspecified): AI Platform's rule.
  kBest,  // BEST_MEASUREMENT: the best value of the primary metric.
};
// "LAST_MEASUREMENT", "BEST_MEASUREMENT".
std::string_view ToString(MeasurementSelection selection);
// Also reads "MEASUREMENT_SELECTION_TYPE_UNSPECIFIED", as kLast.
std::optional<MeasurementSelection> ParseMeasurementSelection(
    std::string_view text);

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

// The longest lease of an ask/tell trial: a day.
inline constexpr int kMaxTrialLeaseSeconds = 24 * 60 * 60;
// The most quasi-random trials the GP may be asked to start with
// (DesignerSettings::seeding_trials).
inline constexpr int kMaxSeedingTrials = 1000;

// The rule of a study whose early_stopping_rule is empty.
inline constexpr char kDefaultStoppingRule[] = "median-at-step";

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

// What is tuned: the search space and the metrics, as designers, stopping
// policies, importance and a study's answers (BestTrial, OptimalTrials) see
// a study.
//
// The metrics are one list, AllMetrics(); a study given none has AI
// Platform's default metric, kDefaultMetricTag maximised. The
// primary metric, which early stopping, BestTrial and
// CLOUD_ML_HP_METRIC_TAG read, is the first objective: metric_tag() and
// goal() are views of it, not copies. metrics_listed() keeps the form the
// user gave, so writers write it back as written: AI Platform's
// hyperparameterMetricTag and goal (SetSingleMetric) or Vertex AI's
// `metrics` list (SetMetrics), even of one metric.
class Problem {
 public:
  SearchSpace search_space;
  // Which report of a trial's last attempt is its final measurement when
  // the trainer gives none: the last (AI Platform's rule), or the best
  // by the primary metric's goal.
  MeasurementSelection measurement_selection = MeasurementSelection::kLast;

  // A study of one metric, as AI Platform's hyperparameterMetricTag and
  // goal give it.
  void SetSingleMetric(std::string tag, Goal goal = Goal::kMaximize);
  // Vertex AI's `metrics` list, as given (validation checks it: at least
  // one objective, at most kMaxMetrics).
  void SetMetrics(std::vector<MetricSpec> list);

  // Every metric, in the order given.
  const std::vector<MetricSpec>& AllMetrics() const { return metrics_; }
  // True when the metrics came as a list (SetMetrics), false for AI
  // Platform's hyperparameterMetricTag and goal.
  bool metrics_listed() const { return metrics_listed_; }
  // The id and goal of the first objective (kDefaultMetricTag maximised
  // for a list without one, which validation refuses).
  const std::string& metric_tag() const { return PrimaryMetric().id; }
  Goal goal() const { return PrimaryMetric().goal; }
  // The metrics without a safety threshold, in order.
  std::vector<MetricSpec> Objectives() const;
  // The metrics with one, in order.
  std::vector<MetricSpec> Constraints() const;

  // True when `a` is better than `b` for this study's goal.
  bool IsBetter(double a, double b) const {
    return goal() == Goal::kMaximize ? a > b : a < b;
  }

  bool operator==(const Problem&) const = default;

 private:
  const MetricSpec& PrimaryMetric() const;

  std::vector<MetricSpec> metrics_ = {
      MetricSpec{.id = std::string(kDefaultMetricTag)}};
  bool metrics_listed_ = false;
};

// What the service may spend on a study, and where it continues from. Read
// by the engine, the runner and validation; never by a designer (the GP's
// seeding rule is handed the number of trials instead:
// algorithms::DesignerOptions).
struct Budget {
  int max_trials = 1;
  int max_parallel_trials = 1;
  int max_failed_trials = 0;  // 0: see EffectiveMaxFailedTrials().
  // The lease of the trials ask/tell clients are handed (docs/api.md,
  // "Leases"): 0 to kMaxTrialLeaseSeconds, 0 for none; unset for the
  // server's `--trial-lease`. hptune's `trialLeaseSeconds`.
  std::optional<int> trial_lease_seconds;
  std::string resume_previous_job_id;

  // AI Platform leaves the limit to the service when maxFailedTrials is 0.
  // hptune's rule: a quarter of maxTrials rounded up, at least 3, at most
  // maxTrials. A job stops early only when failures are a clear pattern.
  int EffectiveMaxFailedTrials() const;

  bool operator==(const Budget&) const = default;
};

// Which designer proposes a study's trials, and the settings designers
// read. The designer registry (hptune/algorithms/registry.h) picks the
// designer by name from here and hands the designer only what it reads.
struct DesignerSettings {
  Algorithm algorithm = Algorithm::kUnspecified;
  // The name of a designer an embedder registered with its engine
  // (engine::EngineOptions::designers), used in place of `algorithm`, which
  // then stays ALGORITHM_UNSPECIFIED. Empty for hptune's own designers. Set
  // from C++ only: AI Platform's config and the v1 API carry `algorithm`.
  std::string custom_algorithm;
  // Designer seed; unset means the engine draws one and records it.
  std::optional<uint64_t> seed;
  // How many quasi-random trials the GP starts with before its model
  // (docs/designers.md, "Seeding"): 1 to kMaxSeedingTrials; unset for the
  // GP's own rule by the number of parameters and maxTrials. What Optuna's
  // samplers call n_startup_trials; only the GP takes it. hptune's
  // `seedingTrials`.
  std::optional<int> seeding_trials;

  bool operator==(const DesignerSettings&) const = default;
};

// Whether a study's trials are stopped early, by which rule and with which
// of the rule's settings. The stopping registry
// (hptune/algorithms/stopping_registry.h) makes the rule's policy from
// these; the policy then sees only the Problem.
struct EarlyStoppingSettings {
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

  // early_stopping_rule, or kDefaultStoppingRule when it is empty.
  const std::string& EffectiveStoppingRule() const;

  bool operator==(const EarlyStoppingSettings&) const = default;
};

}  // namespace hptune

#endif  // HPTUNE_CORE_STUDY_PARTS_H_
