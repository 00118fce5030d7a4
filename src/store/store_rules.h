// The rules every Store implementation enforces, in one place.
//
// MemoryStore and SqliteStore call these inside their transactions so both
// check the same things in the same order, stamp the same times and word
// their errors and events identically; the conformance suite relies on it.
// Internal to the store module. Pure functions; thread-safe.
#ifndef HPTUNE_SRC_STORE_STORE_RULES_H_
#define HPTUNE_SRC_STORE_STORE_RULES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/job.h"
#include "hptune/core/measurement.h"
#include "hptune/core/study.h"
#include "hptune/core/time.h"
#include "hptune/core/trial.h"
#include "hptune/store/store.h"

namespace hptune::store::internal {

// Event kinds, as documented on Event::kind.
inline constexpr std::string_view kStudyCreated = "study_created";
inline constexpr std::string_view kStudyState = "study_state";
inline constexpr std::string_view kStudySpace = "study_space";
inline constexpr std::string_view kStudyDeleted = "study_deleted";
inline constexpr std::string_view kTrialCreated = "trial_created";
inline constexpr std::string_view kTrialState = "trial_state";
inline constexpr std::string_view kMeasurement = "measurement";
inline constexpr std::string_view kJobCreated = "job_created";
inline constexpr std::string_view kJobState = "job_state";
inline constexpr std::string_view kJobDeleted = "job_deleted";
inline constexpr std::string_view kReplica = "replica";

// Errors that name the missing or duplicate thing, e.g.
// `study "mnist": trial 7 not found`.
[[nodiscard]] absl::Status StudyNotFound(std::string_view study);
[[nodiscard]] absl::Status StudyAlreadyExists(std::string_view study);
[[nodiscard]] absl::Status TrialNotFound(std::string_view study,
                                         int64_t number);
[[nodiscard]] absl::Status JobNotFound(std::string_view job_id);
[[nodiscard]] absl::Status JobAlreadyExists(std::string_view job_id);
// FailedPrecondition naming the job and its state unless it has ended:
// Store::DeleteJob's rule.
[[nodiscard]] absl::Status CheckJobDeletable(const JobRecord& job);

// InvalidArgument for a state a store never keeps (FAILED and CANCELLED
// are shown, not stored: WithJobOutcome in hptune/core/job.h).
[[nodiscard]] absl::Status CheckStoredStudyState(std::string_view study,
                                                 StudyState state);

// Checks a study about to be created and stamps create_time when unset.
// Its spec must read back from its one stored form (StudySpecToJson) as
// itself, in both stores, so that GetStudy returns what was created:
// InvalidArgument naming the study otherwise.
[[nodiscard]] absl::Status PrepareNewStudy(StudyRecord& study, Timestamp now);

// Checks trials about to be added to `study` (each REQUESTED, ACTIVE,
// SUCCEEDED with a final measurement or INFEASIBLE with a reason; every
// measurement valid) and stamps create_time = now, start_time on ACTIVE and
// end_time on a terminal state when unset. Numbers are left to the caller.
[[nodiscard]] absl::Status PrepareNewTrials(std::string_view study,
                                            std::vector<Trial>& trials,
                                            Timestamp now);

// Checks what `mutate` made of a trial: same number, create time and
// measurements, a legal state change, a valid final measurement. Stamps
// start_time/end_time on entering ACTIVE/a terminal state when unset.
[[nodiscard]] absl::Status PrepareTrialUpdate(std::string_view study,
                                              const Trial& before, Trial& after,
                                              Timestamp now);

// Store::AddTrialParameter's check of its spec before anything is read:
// InvalidArgument naming study, trial and parameter for a spec with a
// condition (only a root may join a space).
[[nodiscard]] absl::Status CheckTrialParameterSpec(std::string_view study,
                                                   int64_t number,
                                                   const ParameterSpec& spec);

// What Store::AddTrialParameter changes.
enum class TrialParameterChange {
  kNone,   // The trial already has a value of the parameter.
  kValue,  // The trial gets its value; the space already has the parameter.
  kSpace,  // The parameter joins the space too.
};
// Store::AddTrialParameter on `spec` (the study's spec as stored) and
// `trial` (its trial, as stored), once CheckTrialParameterSpec passed; the
// checks in the order Store documents. On kSpace `spec` has grown by the
// parameter, with first_trial = trial.number; on kValue and kSpace `trial`
// has the value.
absl::StatusOr<TrialParameterChange> PrepareTrialParameter(
    std::string_view study, StudySpec& spec, Trial& trial,
    const ParameterSpec& parameter, const ParameterValue& value);
// "lr joined at trial 3".
std::string SpaceDetail(std::string_view parameter, int64_t number);

// Checks a measurement before it is appended (InvalidArgument naming study,
// trial, metric and value) and stamps its time when unset.
[[nodiscard]] absl::Status PrepareMeasurement(std::string_view study,
                                              int64_t number,
                                              Measurement& measurement,
                                              Timestamp now);

// FailedPrecondition unless trial `number`'s state is ACTIVE or STOPPING.
[[nodiscard]] absl::Status CheckAcceptsMeasurements(std::string_view study,
                                                    int64_t number,
                                                    TrialState state);

[[nodiscard]] absl::Status PrepareNewJob(JobRecord& job, Timestamp now);
[[nodiscard]] absl::Status PrepareJobUpdate(const JobRecord& before,
                                            JobRecord& after, Timestamp now);

// InvalidArgument unless limit > 0.
[[nodiscard]] absl::Status CheckEventLimit(int limit);

// InvalidArgument naming the note and its size above kMaxNoteBytes.
[[nodiscard]] absl::Status CheckNote(std::string_view text);

// `edit` as stored for a save of `text` at `now` (to the microsecond, as
// SQLite keeps it): its time and size set, its peer and client cut to
// kMaxNoteIdentityBytes.
inline constexpr size_t kMaxNoteIdentityBytes = 256;
NoteEdit StampNoteEdit(NoteEdit edit, std::string_view text, Timestamp now);

// InvalidArgument unless skip >= 0.
[[nodiscard]] absl::Status CheckMeasurementSkip(int64_t skip);

// "ACTIVE -> SUCCEEDED".
template <typename State>
std::string TransitionDetail(State from, State to) {
  return absl::StrCat(std::string(ToString(from)), " -> ",
                      std::string(ToString(to)));
}
// "step 100".
std::string MeasurementDetail(const Measurement& measurement);

// An event without its id (the store assigns it).
Event MakeEvent(Timestamp time, std::string_view kind, std::string_view study,
                std::string_view job_id, int64_t trial_number,
                std::string detail);

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_STORE_RULES_H_
