// StudyAnswers: the one read side of what users are shown about a study:
// the study's state, its best and optimal trials, how much each parameter
// mattered and what early stopping saved. Every frontend asks it: the
// engine's queries (TuningEngine::BestTrial, OptimalTrials,
// ParameterImportance, EarlyStoppingSavings), the gRPC StudyService, the
// CLI on a database file, and the dashboard; the CLI with --server asks the
// server's. StoreStudyAnswers computes the answers from a Store with core's
// and the algorithms' public functions; CachedStudyAnswers
// (cached_study_answers.h) keeps them until the study changes.
//
// Thread-safety: StoreStudyAnswers is thread-safe (the Store is); an
// implementation says its own.
#ifndef HPTUNE_READ_STUDY_ANSWERS_H_
#define HPTUNE_READ_STUDY_ANSWERS_H_

#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/algorithms/importance.h"
#include "hptune/core/savings.h"
#include "hptune/core/study.h"
#include "hptune/core/trial.h"
#include "hptune/store/store.h"

namespace hptune::read {

// Each call names a study; NotFound naming it when there is none.
class StudyAnswers {
 public:
  virtual ~StudyAnswers() = default;

  // The study as users are shown it (StudyAsShown below).
  virtual absl::StatusOr<StudyRecord> Study(std::string_view study) = 0;
  // The feasible result with the best final objective (ties: the earlier
  // trial); nullopt while no trial has one (core's BestTrial).
  virtual absl::StatusOr<std::optional<Trial>> BestTrial(
      std::string_view study) = 0;
  // The best trial, or with several objectives the feasible Pareto front,
  // in trial order (core's OptimalTrials).
  virtual absl::StatusOr<std::vector<Trial>> OptimalTrials(
      std::string_view study) = 0;
  // PED-ANOVA with the default options (algorithms::StudyImportance).
  virtual absl::StatusOr<algorithms::ImportanceReport> Importance(
      std::string_view study) = 0;
  // What early stopping saved (core's ShownStoppingSavings), with the
  // footprint of the study's job; nullopt when the study does not stop
  // trials early and none was stopped.
  virtual absl::StatusOr<std::optional<StoppingSavings>> Savings(
      std::string_view study) = 0;
};

// `study` as users are shown it: WithJobOutcome (hptune/core/job.h) of the
// job that runs it, read from `store`; the study as stored when no job
// runs it.
absl::StatusOr<StudyRecord> StudyAsShown(store::Store& store,
                                         StudyRecord study);

// The replicas and GPUs of one trial of the job that runs `study` (a job's
// study is named by its job ID), from its stored trainingInput, for the
// savings' GPU-seconds; nullopt when no job runs the study or its
// trainingInput no longer parses.
absl::StatusOr<std::optional<TrialFootprint>> JobFootprint(
    store::Store& store, std::string_view study);

// The answers computed at each call from `store`, which must outlive it.
// Trials are read without their learning curves, except the curves of
// trials that ended without a final measurement or still run: their last
// reported step counts in what early stopping saved.
class StoreStudyAnswers final : public StudyAnswers {
 public:
  explicit StoreStudyAnswers(store::Store& store) : store_(store) {}

  absl::StatusOr<StudyRecord> Study(std::string_view study) override;
  absl::StatusOr<std::optional<Trial>> BestTrial(
      std::string_view study) override;
  absl::StatusOr<std::vector<Trial>> OptimalTrials(
      std::string_view study) override;
  absl::StatusOr<algorithms::ImportanceReport> Importance(
      std::string_view study) override;
  absl::StatusOr<std::optional<StoppingSavings>> Savings(
      std::string_view study) override;

 private:
  store::Store& store_;
};

}  // namespace hptune::read

#endif  // HPTUNE_READ_STUDY_ANSWERS_H_
