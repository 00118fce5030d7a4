// TuningEngine's construction and its studies: creating, opening, listing
// and deleting them, and what is read of a whole study (its best trials,
// parameter importance). Suggestions, results, early stopping, trial reads
// and study completion have files of their own beside this one.
#include "hptune/engine/engine.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "hptune/core/config.h"
#include "hptune/core/status.h"
#include "hptune/read/study_answers.h"
#include "src/engine/background_work.h"
#include "src/engine/curve_cache.h"
#include "src/engine/engine_common.h"
#include "src/engine/study_locks.h"
#include "src/engine/trial_history.h"

namespace hptune::engine {
namespace {

// Bounds the memory of TuningEngine::curves_ (24 bytes a point: 24 MB), with
// room for a thousand running curves of a thousand steps, which must not be
// read again on every check.
constexpr size_t kMaxCachedCurvePoints = 1'000'000;
// Bounds the memory of TuningEngine::history_ (about 0.5 KB a trial of a
// few parameters: 50 MB); a study above it is read whole, as without it.
constexpr size_t kMaxKeptTrials = 100'000;

// splitmix64's finaliser: nearby inputs give unrelated seeds.
uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

TuningEngine::TuningEngine(store::Store& store, Clock& clock)
    : TuningEngine(store, EngineOptions{}, clock) {}

TuningEngine::TuningEngine(store::Store& store, EngineOptions options,
                           Clock& clock)
    : store_(store),
      clock_(clock),
      env_(options.env),
      designers_(std::move(options.designers)),
      stopping_rules_(std::move(options.stopping_rules)),
      admit_measurement_(std::move(options.admit_measurement)),
      study_locks_(std::make_unique<StudyLocks>()),
      curves_(std::make_unique<CurveCache>(store, kMaxCachedCurvePoints)),
      history_(std::make_unique<TrialHistory>(store, kMaxKeptTrials)) {
  if (options.background_designer_work) {
    background_ = std::make_unique<BackgroundWork>();
  }
}

TuningEngine::~TuningEngine() = default;

uint64_t TuningEngine::DrawSeed() {
  if (env_ != nullptr) return env_->RandomSeed();
  const uint64_t micros = static_cast<uint64_t>(ToUnixMicros(clock_.Now()));
  return Mix(micros + (seeds_drawn_.fetch_add(1) + 1) * 0x9e3779b97f4a7c15ULL);
}

namespace {

// What a study that CreateStudy would write holds.
StudyRecord NewStudy(std::string_view name, const StudySpec& spec,
                     uint64_t seed, Timestamp now, int resumed_trials,
                     int64_t owner_uid = -1) {
  return StudyRecord{.name = std::string(name),
                     .spec = spec,
                     .state = StudyState::kActive,
                     .reason = "",
                     .seed = spec.seed.value_or(seed),
                     .create_time = now,
                     .resumed_trials = resumed_trials,
                     .owner_uid = owner_uid};
}

}  // namespace

absl::Status TuningEngine::CheckNewStudy(std::string_view name,
                                         const StudySpec& spec) {
  std::vector<FieldError> errors = ValidateJobId(name, "study name");
  for (auto& e : ValidateStudySpec(spec, "study")) errors.push_back(e);
  HPTUNE_RETURN_IF_ERROR(FieldErrorsToStatus(errors));
  // The designer must accept the space (GRID_SEARCH rejects DOUBLE).
  const StudyRecord study = NewStudy(name, spec, 0, clock_.Now(), 0);
  HPTUNE_RETURN_IF_ERROR(
      designers_.Create(study.spec, study.spec, study.TrialBudget(), study.seed)
          .status());
  return CheckStoppingRule(spec);
}

absl::StatusOr<StudyRecord> TuningEngine::CreateStudy(std::string_view name,
                                                      const StudySpec& spec,
                                                      int resumed_trials,
                                                      int64_t owner_uid) {
  HPTUNE_RETURN_IF_ERROR(CheckNewStudy(name, spec));
  StudyRecord study = NewStudy(name, spec, spec.seed ? *spec.seed : DrawSeed(),
                               clock_.Now(), resumed_trials, owner_uid);
  HPTUNE_RETURN_IF_ERROR(store_.CreateStudy(study));
  return study;
}

absl::StatusOr<StudyRecord> TuningEngine::OpenOrCreateStudy(
    std::string_view name, const StudySpec& spec) {
  auto existing = store_.GetStudy(name);
  if (absl::IsNotFound(existing.status())) return CreateStudy(name, spec);
  HPTUNE_RETURN_IF_ERROR(existing.status());
  StudySpec wanted = spec;
  if (!wanted.seed) wanted.seed = existing->spec.seed;
  if (!(existing->spec == wanted)) {
    return absl::FailedPreconditionError(
        absl::StrCat("study ", Quoted(name),
                     " exists with a different spec; use another name or "
                     "delete it first"));
  }
  return existing;
}

absl::StatusOr<StudyRecord> TuningEngine::GetStudy(std::string_view name) {
  return store_.GetStudy(name);
}

absl::StatusOr<StudyRecord> TuningEngine::GetStudyAsShown(
    std::string_view name) {
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(name));
  return read::StudyAsShown(store_, std::move(study));
}

absl::StatusOr<std::vector<StudyRecord>> TuningEngine::ListStudiesAsShown() {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<StudyRecord> studies, ListStudies());
  for (StudyRecord& study : studies) {
    HPTUNE_ASSIGN_OR_RETURN(study,
                            read::StudyAsShown(store_, std::move(study)));
  }
  return studies;
}

absl::StatusOr<std::vector<StudyRecord>> TuningEngine::ListStudies() {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<StudyRecord> studies,
                          store_.ListStudies());
  std::sort(studies.begin(), studies.end(),
            [](const StudyRecord& a, const StudyRecord& b) {
              return a.name < b.name;
            });
  return studies;
}

absl::Status TuningEngine::DeleteStudy(std::string_view name) {
  HPTUNE_RETURN_IF_ERROR(store_.GetStudy(name).status());
  HPTUNE_ASSIGN_OR_RETURN(std::vector<JobRecord> jobs, store_.ListJobs());
  for (const JobRecord& job : jobs) {
    if (job.study_name == name && !IsTerminal(job.state)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "study ", Quoted(name), " belongs to job ", Quoted(job.job_id),
          ", which is ", std::string(ToString(job.state)),
          ": cancel the job first"));
    }
  }
  HPTUNE_RETURN_IF_ERROR(store_.DeleteStudy(name));
  history_->Forget(name);
  if (background_ != nullptr) background_->Forget(name);
  return absl::OkStatus();
}

absl::Status TuningEngine::DeleteJob(std::string_view job_id) {
  HPTUNE_ASSIGN_OR_RETURN(JobRecord job, store_.GetJob(job_id));
  HPTUNE_RETURN_IF_ERROR(store_.DeleteJob(job_id));
  history_->Forget(job.study_name);
  if (background_ != nullptr) background_->Forget(job.study_name);
  return absl::OkStatus();
}

// The answers users are shown come from the one read side
// (hptune/read/study_answers.h), as the server's and the dashboard's do.
absl::StatusOr<std::optional<Trial>> TuningEngine::BestTrial(
    std::string_view study) {
  return read::StoreStudyAnswers(store_).BestTrial(study);
}

absl::StatusOr<std::vector<Trial>> TuningEngine::OptimalTrials(
    std::string_view study) {
  return read::StoreStudyAnswers(store_).OptimalTrials(study);
}

absl::StatusOr<algorithms::ImportanceReport> TuningEngine::ParameterImportance(
    std::string_view study) {
  return read::StoreStudyAnswers(store_).Importance(study);
}

absl::StatusOr<std::optional<StoppingSavings>>
TuningEngine::EarlyStoppingSavings(std::string_view study) {
  return read::StoreStudyAnswers(store_).Savings(study);
}

}  // namespace hptune::engine
