#include "hptune/read/study_answers.h"

#include <utility>

#include "hptune/core/config.h"
#include "hptune/core/job.h"
#include "hptune/core/status.h"
#include "hptune/core/stored_spec.h"

namespace hptune::read {
namespace {

// The job that runs `study`: a job's study is named by its job ID.
absl::StatusOr<std::optional<JobRecord>> JobOf(store::Store& store,
                                               std::string_view study) {
  absl::StatusOr<JobRecord> job = store.GetJob(study);
  if (absl::IsNotFound(job.status())) return std::nullopt;
  HPTUNE_RETURN_IF_ERROR(job.status());
  if (job->study_name != study) return std::nullopt;
  return *std::move(job);
}

// The trials with the curves early stopping's savings read: a trial's steps
// are its last report, which only the curve holds while it has no final
// measurement.
absl::StatusOr<std::vector<Trial>> TrialsForSavings(store::Store& store,
                                                    std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          store.ListTrialSummaries(study));
  for (Trial& trial : trials) {
    if (trial.final_measurement || !trial.start_time) continue;
    HPTUNE_ASSIGN_OR_RETURN(trial.measurements,
                            store.ListMeasurements(study, trial.number, 0));
  }
  return trials;
}

}  // namespace

absl::StatusOr<StudyRecord> StudyAsShown(store::Store& store,
                                         StudyRecord study) {
  HPTUNE_ASSIGN_OR_RETURN(std::optional<JobRecord> job,
                          JobOf(store, study.name));
  if (!job) return study;
  return WithJobOutcome(std::move(study), *job);
}

absl::StatusOr<std::optional<TrialFootprint>> JobFootprint(
    store::Store& store, std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(std::optional<JobRecord> job, JobOf(store, study));
  if (!job) return std::nullopt;
  absl::StatusOr<JobSpec> spec =
      DecodeStoredJob(job->training_input_json, job->job_id);
  if (!spec.ok()) return std::nullopt;
  return FootprintOf(*spec);
}

absl::StatusOr<StudyRecord> StoreStudyAnswers::Study(std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord record, store_.GetStudy(study));
  return StudyAsShown(store_, std::move(record));
}

absl::StatusOr<std::optional<Trial>> StoreStudyAnswers::BestTrial(
    std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord record, store_.GetStudy(study));
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          store_.ListTrialSummaries(study));
  return hptune::BestTrial(record.spec, trials);
}

absl::StatusOr<std::vector<Trial>> StoreStudyAnswers::OptimalTrials(
    std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord record, store_.GetStudy(study));
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          store_.ListTrialSummaries(study));
  return hptune::OptimalTrials(record.spec, trials);
}

absl::StatusOr<algorithms::ImportanceReport> StoreStudyAnswers::Importance(
    std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord record, store_.GetStudy(study));
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          store_.ListTrialSummaries(study));
  return algorithms::StudyImportance(record, trials);
}

absl::StatusOr<std::optional<StoppingSavings>> StoreStudyAnswers::Savings(
    std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord record, store_.GetStudy(study));
  HPTUNE_ASSIGN_OR_RETURN(std::optional<TrialFootprint> footprint,
                          JobFootprint(store_, study));
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          TrialsForSavings(store_, study));
  std::vector<const Trial*> pointers;
  pointers.reserve(trials.size());
  for (const Trial& trial : trials) pointers.push_back(&trial);
  return ShownStoppingSavings(pointers, record.spec.enable_early_stopping,
                              footprint);
}

}  // namespace hptune::read
