// Row access for SqliteStore: one function per read or write of a table,
// turning rows into domain records and back (schema in schema.cc); defined
// in study_tables.cc, trial_tables.cc and job_tables.cc.
//
// Called only inside SqliteConnection::InTransaction by SqliteStore, which
// decides what to check and in which transaction; these functions only move
// data. A stored value that does not decode is DataLoss naming the record.
// Not thread-safe (works on one connection).
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
absl::StatusOr<bool> StudyExists(SqliteConnection& db, std::string_view name);
// nullopt when there is no such study.
absl::StatusOr<std::optional<Timestamp>> SelectStudyCreateTime(
    SqliteConnection& db, std::string_view name);
absl::StatusOr<std::optional<StudyRecord>> SelectStudy(SqliteConnection& db,
                                                       std::string_view name);
absl::StatusOr<std::vector<StudyRecord>> SelectStudies(SqliteConnection& db);
[[nodiscard]] absl::Status InsertStudy(SqliteConnection& db,
                                       const StudyRecord& study);
// The studies of owner `uid` and their measurement bytes.
absl::StatusOr<UserUsage> SelectUserUsage(SqliteConnection& db, int64_t uid);
// The study's owner_uid; nullopt when there is no such study.
absl::StatusOr<std::optional<int64_t>> SelectStudyOwner(SqliteConnection& db,
                                                        std::string_view name);
[[nodiscard]] absl::Status UpdateStudyState(SqliteConnection& db,
                                            std::string_view name,
                                            StudyState state,
                                            std::string_view reason);
// Its trials, measurements and designer state go with it (ON DELETE CASCADE).
[[nodiscard]] absl::Status DeleteStudyRow(SqliteConnection& db,
                                          std::string_view name);

// --- trials and measurements ---
// 0 when the study has no trials.
absl::StatusOr<int64_t> SelectLastTrialNumber(SqliteConnection& db,
                                              std::string_view study);
// Inserts the trial and its measurements.
[[nodiscard]] absl::Status InsertTrial(SqliteConnection& db,
                                       std::string_view study,
                                       const Trial& trial);
// Writes everything but the number and the measurements.
[[nodiscard]] absl::Status UpdateTrialRow(SqliteConnection& db,
                                          std::string_view study,
                                          const Trial& trial);
// The trial's row only, without its measurements: for checks on a hot path
// (AddMeasurement) whose cost must not grow with the learning curve.
absl::StatusOr<std::optional<Trial>> SelectTrialRow(SqliteConnection& db,
                                                    std::string_view study,
                                                    int64_t number);
// With its measurements, in report order.
absl::StatusOr<std::optional<Trial>> SelectTrial(SqliteConnection& db,
                                                 std::string_view study,
                                                 int64_t number);
// All of the study's trials by number, without their measurements.
absl::StatusOr<std::vector<Trial>> SelectTrialRows(SqliteConnection& db,
                                                   std::string_view study);
// Number, state and end time of each trial, by number.
absl::StatusOr<std::vector<TrialStatus>> SelectTrialStatuses(
    SqliteConnection& db, std::string_view study);
// The trial's state; nullopt when there is no such trial.
absl::StatusOr<std::optional<TrialState>> SelectTrialState(
    SqliteConnection& db, std::string_view study, int64_t number);
// The trial's measurements with seq > skip, in report order.
absl::StatusOr<std::vector<Measurement>> SelectMeasurements(
    SqliteConnection& db, std::string_view study, int64_t number, int64_t skip);
// All of the study's trials by number, each with its measurements.
absl::StatusOr<std::vector<Trial>> SelectTrials(SqliteConnection& db,
                                                std::string_view study);
// Appends after the trial's last measurement, and adds its bytes to its
// study's measurement_bytes (as InsertTrial does for a trial's).
[[nodiscard]] absl::Status AppendMeasurement(SqliteConnection& db,
                                             std::string_view study,
                                             int64_t number,
                                             const Measurement& measurement);

// --- designer state ---
[[nodiscard]] absl::Status UpsertDesignerState(SqliteConnection& db,
                                               std::string_view study,
                                               std::string_view state);
// "" when none.
absl::StatusOr<std::string> SelectDesignerState(SqliteConnection& db,
                                                std::string_view study);

// --- jobs ---
absl::StatusOr<bool> JobExists(SqliteConnection& db, std::string_view job_id);
absl::StatusOr<std::optional<JobRecord>> SelectJob(SqliteConnection& db,
                                                   std::string_view job_id);
absl::StatusOr<std::vector<JobRecord>> SelectJobs(SqliteConnection& db);
[[nodiscard]] absl::Status InsertJob(SqliteConnection& db,
                                     const JobRecord& job);
[[nodiscard]] absl::Status UpdateJobRow(SqliteConnection& db,
                                        const JobRecord& job);

// --- events ---
[[nodiscard]] absl::Status InsertEvent(SqliteConnection& db,
                                       const Event& event);
absl::StatusOr<std::vector<Event>> SelectEvents(SqliteConnection& db,
                                                int64_t after_id, int limit);

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_SQLITE_TABLES_H_
