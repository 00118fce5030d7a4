// A study: a search space, the metric to optimise and the trial budget.
//
// StudySpec is what a user asks for (AI Platform's `hyperparameters` block,
// or CreateStudy); StudyRecord is a study as the Store keeps it. Value types;
// thread-compatible.
#ifndef HPTUNE_CORE_STUDY_H_
#define HPTUNE_CORE_STUDY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hptune/core/search_space.h"
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

struct StudySpec {
  SearchSpace search_space;
  Goal goal = Goal::kMaximize;
  std::string metric_tag = std::string(kDefaultMetricTag);
  int max_trials = 1;
  int max_parallel_trials = 1;
  int max_failed_trials = 0;  // 0: see EffectiveMaxFailedTrials().
  bool enable_early_stopping = false;
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

  // True when `a` is better than `b` for this study's goal.
  bool IsBetter(double a, double b) const {
    return goal == Goal::kMaximize ? a > b : a < b;
  }

  bool operator==(const StudySpec&) const = default;
};

enum class StudyState {
  kActive,     // Accepts suggestions and results.
  kCompleted,  // Budget reached or space exhausted; see StudyRecord::reason.
};
std::string_view ToString(StudyState state);  // "ACTIVE", "COMPLETED".
std::optional<StudyState> ParseStudyState(std::string_view text);

struct StudyRecord {
  std::string name;  // Unique; a job's study is named by its job ID.
  StudySpec spec;
  StudyState state = StudyState::kActive;
  std::string reason;  // Why it completed.
  uint64_t seed = 0;   // The designer seed actually used.
  Timestamp create_time{};

  bool operator==(const StudyRecord&) const = default;
};

// The SUCCEEDED trial of `trials` with the best final value of the study's
// metric (the earlier trial on ties); nullopt when none has one.
std::optional<Trial> BestTrial(const StudySpec& spec,
                               const std::vector<Trial>& trials);

}  // namespace hptune

#endif  // HPTUNE_CORE_STUDY_H_
