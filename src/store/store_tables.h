// Row access for SqliteStore and PostgresStore: one function per read or
// write of a table, turning rows into domain records and back (schemas in
// schema.cc and postgres_schema.cc); defined in study_tables.cc,
// trial_tables.cc and job_tables.cc.
//
// Templates over the connection, instantiated there for both stores':
// SqliteConnection and PgConnection offer the same Prepare and statement
// calls, and the SQL here (with ?N placeholders, which PgConnection turns
// into $N) is what both dialects read alike, so each encoding of a record
// has one home. Called only inside a transaction of the store, which decides
// what to check and in which transaction; these functions only move data. A
// stored value that does not decode is DataLoss naming the record. Not
// thread-safe (works on one connection).
#ifndef HPTUNE_SRC_STORE_SQLITE_TABLES_H_
#define HPTUNE_SRC_STORE_SQLITE_TABLES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "hptune/core/measurement.h"
#include "hptune/core/study.h"
#include "hptune/core/trial.h"
#include "hptune/store/store.h"
#include "src/store/sqlite_connection.h"

namespace hptune::store::internal {

// --- studies ---
template <typename Db>
absl::StatusOr<bool> StudyExists(Db& db, std::string_view name);
template <typename Db>
absl::StatusOr<std::optional<StudyRecord>> SelectStudy(Db& db,
                                                       std::string_view name);
template <typename Db>
absl::StatusOr<std::vector<StudyRecord>> SelectStudies(Db& db);
template <typename Db>
[[nodiscard]] absl::Status InsertStudy(Db& db, const StudyRecord& study);
// The studies of owner `uid` and their measurement bytes.
template <typename Db>
absl::StatusOr<UserUsage> SelectUserUsage(Db& db, int64_t uid);
// The study's owner_uid; nullopt when there is no such study.
template <typename Db>
absl::StatusOr<std::optional<int64_t>> SelectStudyOwner(Db& db,
                                                        std::string_view name);
template <typename Db>
[[nodiscard]] absl::Status UpdateStudyState(Db& db, std::string_view name,
                                            StudyState state,
                                            std::string_view reason);
// Rewrites the study's spec_json (StudySpecToJson) only.
template <typename Db>
[[nodiscard]] absl::Status UpdateStudySpec(Db& db, std::string_view name,
                                           const StudySpec& spec);
// Its trials, measurements and designer state go with it (ON DELETE CASCADE).
template <typename Db>
[[nodiscard]] absl::Status DeleteStudyRow(Db& db, std::string_view name);

// --- trials and measurements ---
// 0 when the study has no trials.
template <typename Db>
absl::StatusOr<int64_t> SelectLastTrialNumber(Db& db, std::string_view study);
// Inserts the trial and its measurements.
template <typename Db>
[[nodiscard]] absl::Status InsertTrial(Db& db, std::string_view study,
                                       const Trial& trial);
// Writes everything but the number and the measurements.
template <typename Db>
[[nodiscard]] absl::Status UpdateTrialRow(Db& db, std::string_view study,
                                          const Trial& trial);
// The trial's row only, without its measurements: for checks on a hot path
// (AddMeasurement) whose cost must not grow with the learning curve.
template <typename Db>
absl::StatusOr<std::optional<Trial>> SelectTrialRow(Db& db,
                                                    std::string_view study,
                                                    int64_t number);
// With its measurements, in report order.
template <typename Db>
absl::StatusOr<std::optional<Trial>> SelectTrial(Db& db, std::string_view study,
                                                 int64_t number);
// All of the study's trials by number, without their measurements.
template <typename Db>
absl::StatusOr<std::vector<Trial>> SelectTrialRows(Db& db,
                                                   std::string_view study);
// The study's create time, and the number, state and end time of each of
// its trials, by number, in one statement; nullopt when there is no such
// study.
template <typename Db>
absl::StatusOr<std::optional<TrialStatuses>> SelectTrialStatuses(
    Db& db, std::string_view study);
// The trial's state; nullopt when there is no such trial.
template <typename Db>
absl::StatusOr<std::optional<TrialState>> SelectTrialState(
    Db& db, std::string_view study, int64_t number);
// The trial's measurements with seq > skip, in report order.
template <typename Db>
absl::StatusOr<std::vector<Measurement>> SelectMeasurements(
    Db& db, std::string_view study, int64_t number, int64_t skip);
// All of the study's trials by number, each with its measurements.
template <typename Db>
absl::StatusOr<std::vector<Trial>> SelectTrials(Db& db, std::string_view study);
// Appends after the trial's last measurement, and adds its bytes to its
// study's measurement_bytes (as InsertTrial does for a trial's).
template <typename Db>
[[nodiscard]] absl::Status AppendMeasurement(Db& db, std::string_view study,
                                             int64_t number,
                                             const Measurement& measurement);

// --- designer state ---
template <typename Db>
[[nodiscard]] absl::Status UpsertDesignerState(Db& db, std::string_view study,
                                               std::string_view state);
// "" when none.
template <typename Db>
absl::StatusOr<std::string> SelectDesignerState(Db& db, std::string_view study);

// --- jobs ---
template <typename Db>
absl::StatusOr<bool> JobExists(Db& db, std::string_view job_id);
template <typename Db>
absl::StatusOr<std::optional<JobRecord>> SelectJob(Db& db,
                                                   std::string_view job_id);
template <typename Db>
absl::StatusOr<std::vector<JobRecord>> SelectJobs(Db& db);
template <typename Db>
[[nodiscard]] absl::Status InsertJob(Db& db, const JobRecord& job);
template <typename Db>
[[nodiscard]] absl::Status UpdateJobRow(Db& db, const JobRecord& job);
// Deletes the job's row and its study's (when there is one, with what
// cascades from it), appending "study_deleted" and "job_deleted" events
// stamped `now`: Store::DeleteJob once the store has checked the job.
template <typename Db>
[[nodiscard]] absl::Status DeleteJobRows(Db& db, const JobRecord& job,
                                         Timestamp now);

// --- events ---
template <typename Db>
[[nodiscard]] absl::Status InsertEvent(Db& db, const Event& event);
template <typename Db>
absl::StatusOr<std::vector<Event>> SelectEvents(Db& db, int64_t after_id,
                                                int limit);

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_SQLITE_TABLES_H_
