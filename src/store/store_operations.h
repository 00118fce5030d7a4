// The Store's operations for SqliteStore and PostgresStore: the body of each
// method, run inside the transaction the store chooses; defined in
// study_operations.cc, trial_operations.cc and job_operations.cc.
//
// Templates over the connection, as the row code they call (store_tables.h,
// note_tables.h), instantiated there for SqliteConnection and PgConnection,
// so what a method checks, writes and logs has one home. A store's method
// (SqlStore's, sql_store.h) checks its arguments (store_rules.h), picks a
// read or write transaction (SqliteStore: its reader pool, or the writer
// with group commit; PostgresStore: a snapshot, or the advisory write lock)
// and runs one of these in it, with the time read in that transaction, so a
// retried transaction stamps the time of its retry. The errors are
// store_rules.h's and the connection's; a failed operation may have written
// part of its rows, which the store's transaction rolls back. Not thread-safe
// (works on one connection).
#ifndef HPTUNE_SRC_STORE_STORE_OPERATIONS_H_
#define HPTUNE_SRC_STORE_STORE_OPERATIONS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "hptune/core/measurement.h"
#include "hptune/core/status.h"
#include "hptune/core/study.h"
#include "hptune/core/trial.h"
#include "hptune/store/store.h"

namespace hptune::store::internal {

// What `op` returns when run by `transaction` (a store's Read or Write, whose
// body returns only a status): how a store's method hands back an
// operation's value.
template <typename T, typename Db, typename Transaction>
absl::StatusOr<T> ValueIn(Transaction transaction,
                          absl::FunctionRef<absl::StatusOr<T>(Db&)> op) {
  T value{};
  HPTUNE_RETURN_IF_ERROR(transaction([&](Db& db) -> absl::Status {
    HPTUNE_ASSIGN_OR_RETURN(value, op(db));
    return absl::OkStatus();
  }));
  return value;
}

// --- studies (study_operations.cc) ---
// `study` prepared by PrepareNewStudy.
template <typename Db>
[[nodiscard]] absl::Status CreateStudyIn(Db& db, const StudyRecord& study,
                                         Timestamp now);
template <typename Db>
absl::StatusOr<StudyRecord> GetStudyIn(Db& db, std::string_view name);
template <typename Db>
[[nodiscard]] absl::Status DeleteStudyIn(Db& db, std::string_view name,
                                         Timestamp now);
// `state` checked by CheckStoredStudyState. An event only when the state
// changes; nothing written when neither state nor reason does.
template <typename Db>
[[nodiscard]] absl::Status SetStudyStateIn(Db& db, std::string_view name,
                                           StudyState state,
                                           std::string_view reason,
                                           Timestamp now);
template <typename Db>
absl::StatusOr<UserUsage> GetStudyOwnerUsageIn(Db& db, std::string_view study);
template <typename Db>
absl::StatusOr<std::string> GetDesignerStateIn(Db& db, std::string_view study);
// NotFound unless `study` exists.
template <typename Db>
[[nodiscard]] absl::Status CheckStudyExists(Db& db, std::string_view study);

// --- notes (study_operations.cc) ---
// NotFound unless `study` exists and, for a trial's note, has trial `trial`.
template <typename Db>
[[nodiscard]] absl::Status CheckNoteOwner(Db& db, std::string_view study,
                                          int64_t trial);
// `text` checked by CheckNote, `edit` stamped by StampNoteEdit.
template <typename Db>
[[nodiscard]] absl::Status SetNoteIn(Db& db, std::string_view study,
                                     int64_t trial, std::string_view text,
                                     const NoteEdit& edit);
template <typename Db>
absl::StatusOr<Note> GetNoteIn(Db& db, std::string_view study, int64_t trial);

// --- trials and measurements (trial_operations.cc) ---
// Numbers `trials` (prepared by PrepareNewTrials) after the study's last
// and inserts them, each with its event, and the designer's state if given.
// Run under the store's write lock, so no other writer, thread or process,
// takes the same numbers.
template <typename Db>
[[nodiscard]] absl::Status AddTrialsIn(
    Db& db, std::string_view study, std::vector<Trial>& trials,
    const std::optional<std::string>& designer_state, Timestamp now);
// With its measurements, or its row only (the summary).
template <typename Db>
absl::StatusOr<Trial> GetTrialIn(Db& db, std::string_view study,
                                 int64_t number);
template <typename Db>
absl::StatusOr<Trial> GetTrialSummaryIn(Db& db, std::string_view study,
                                        int64_t number);
template <typename Db>
absl::StatusOr<std::vector<Trial>> ListTrialsIn(Db& db, std::string_view study);
template <typename Db>
absl::StatusOr<std::vector<Trial>> ListTrialSummariesIn(Db& db,
                                                        std::string_view study);
template <typename Db>
absl::StatusOr<TrialStatuses> ListTrialStatusesIn(Db& db,
                                                  std::string_view study);
// `skip` checked by CheckMeasurementSkip.
template <typename Db>
absl::StatusOr<std::vector<Measurement>> ListMeasurementsIn(
    Db& db, std::string_view study, int64_t number, int64_t skip);
// The trial as `mutate` left it, checked by PrepareTrialUpdate and stored,
// with an event when its state changed.
template <typename Db>
absl::StatusOr<Trial> UpdateTrialIn(
    Db& db, std::string_view study, int64_t number,
    const std::function<absl::Status(Trial&)>& mutate, Timestamp now);
// Store::AddTrialParameter, `spec` checked by CheckTrialParameterSpec: the
// rest checked by PrepareTrialParameter; the study's spec rewritten with its
// event when the space grows, the trial's row when it gets the value.
template <typename Db>
absl::StatusOr<Trial> AddTrialParameterIn(Db& db, std::string_view study,
                                          int64_t number,
                                          const ParameterSpec& spec,
                                          const ParameterValue& value,
                                          Timestamp now);
// Appends `measurement` (prepared by PrepareMeasurement) with its event at
// `time`. A measurement the rules refuse (no such trial or study, a trial
// that accepts none) writes nothing and gets its error in `refusal`; the
// returned status is the database's alone, so that SqliteStore's group
// commit goes on past a refused measurement.
template <typename Db>
[[nodiscard]] absl::Status AddMeasurementIn(Db& db, std::string_view study,
                                            int64_t number,
                                            const Measurement& measurement,
                                            Timestamp time,
                                            absl::Status& refusal);
// NotFound naming the trial, or the study when it does not exist.
template <typename Db>
[[nodiscard]] absl::Status TrialOrStudyNotFound(Db& db, std::string_view study,
                                                int64_t number);

// --- jobs and replicas (job_operations.cc) ---
// `job` prepared by PrepareNewJob.
template <typename Db>
[[nodiscard]] absl::Status CreateJobIn(Db& db, const JobRecord& job,
                                       Timestamp now);
template <typename Db>
absl::StatusOr<JobRecord> GetJobIn(Db& db, std::string_view job_id);
// The job as `mutate` left it, checked by PrepareJobUpdate and stored, with
// an event when its state changed.
template <typename Db>
absl::StatusOr<JobRecord> UpdateJobIn(
    Db& db, std::string_view job_id,
    const std::function<absl::Status(JobRecord&)>& mutate, Timestamp now);
// Checked by CheckJobDeletable, then gone with its study (DeleteJobRows).
template <typename Db>
[[nodiscard]] absl::Status DeleteJobIn(Db& db, std::string_view job_id,
                                       Timestamp now);
template <typename Db>
[[nodiscard]] absl::Status RecordReplicaEventIn(Db& db, std::string_view job_id,
                                                int64_t trial,
                                                std::string_view detail,
                                                Timestamp now);

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_STORE_OPERATIONS_H_
