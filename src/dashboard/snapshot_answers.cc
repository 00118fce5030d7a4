#include "src/dashboard/snapshot_answers.h"

#include <memory>
#include <string>
#include <utility>

#include "hptune/core/job.h"
#include "hptune/core/savings.h"
#include "hptune/core/status.h"
#include "hptune/core/stored_spec.h"

namespace hptune::dashboard {
namespace {

using Snapshot = std::shared_ptr<const StudySnapshot>;

std::vector<const Trial*> Pointers(const StudySnapshot& s) {
  std::vector<const Trial*> trials;
  trials.reserve(s.trials.size());
  for (const auto& trial : s.trials) {
    if (trial != nullptr) trials.push_back(trial.get());
  }
  return trials;
}

std::vector<Trial> Copies(const StudySnapshot& s) {
  std::vector<Trial> trials;
  trials.reserve(s.trials.size());
  for (const auto& trial : s.trials) {
    if (trial != nullptr) trials.push_back(*trial);
  }
  return trials;
}

}  // namespace

absl::StatusOr<StudyRecord> SnapshotAnswers::Study(std::string_view study) {
  return from_store_.Study(study);
}

absl::StatusOr<std::optional<Trial>> SnapshotAnswers::BestTrial(
    std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(Snapshot s, changes_.Snapshot(std::string(study)));
  const Problem& problem = s->study.spec;
  if (problem.Objectives().size() > 1) {
    return hptune::BestTrial(problem, Copies(*s));
  }
  // With one objective the optimal trial is the best (core/study.h).
  const std::vector<const Trial*> trials = Pointers(*s);
  const std::vector<size_t> best = OptimalTrialIndices(problem, trials);
  if (best.empty()) return std::nullopt;
  return *trials[best.front()];
}

absl::StatusOr<std::vector<Trial>> SnapshotAnswers::OptimalTrials(
    std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(Snapshot s, changes_.Snapshot(std::string(study)));
  const std::vector<const Trial*> trials = Pointers(*s);
  std::vector<Trial> optimal;
  for (size_t i : OptimalTrialIndices(s->study.spec, trials)) {
    optimal.push_back(*trials[i]);
  }
  return optimal;
}

absl::StatusOr<algorithms::ImportanceReport> SnapshotAnswers::Importance(
    std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(Snapshot s, changes_.Snapshot(std::string(study)));
  return algorithms::StudyImportance(s->study, Copies(*s));
}

absl::StatusOr<std::optional<StoppingSavings>> SnapshotAnswers::Savings(
    std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(Snapshot s, changes_.Snapshot(std::string(study)));
  HPTUNE_ASSIGN_OR_RETURN(std::optional<TrialFootprint> footprint,
                          read::JobFootprint(store_, study));
  // A trial's steps are its last report, which only the curve holds while
  // it has no final measurement: those curves are read.
  std::vector<std::unique_ptr<Trial>> with_curves;
  std::vector<const Trial*> trials = Pointers(*s);
  for (const Trial*& trial : trials) {
    if (trial->final_measurement || !trial->start_time) continue;
    auto copy = std::make_unique<Trial>(*trial);
    HPTUNE_ASSIGN_OR_RETURN(copy->measurements,
                            store_.ListMeasurements(study, copy->number, 0));
    trial = with_curves.emplace_back(std::move(copy)).get();
  }
  return ShownStoppingSavings(trials, s->study.spec.enable_early_stopping,
                              footprint);
}

}  // namespace hptune::dashboard
