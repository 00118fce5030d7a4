// SqlStore's methods (sql_store.h), instantiated for SqliteStore and
// PostgresStore at the end.
#include "src/store/sql_store.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hptune/core/status.h"
#include "src/store/postgres_connection.h"
#include "src/store/postgres_store.h"
#include "src/store/sqlite_connection.h"
#include "src/store/sqlite_store.h"
#include "src/store/store_operations.h"
#include "src/store/store_rules.h"
#include "src/store/store_tables.h"

namespace hptune::store::internal {

template <typename D, typename C>
MeasurementQueue::Commit SqlStore<D, C>::CommitMeasurements() {
  return [this](std::vector<QueuedMeasurement>& batch) {
    return Write([&](C& db) { return AddMeasurementsIn(db, batch); });
  };
}

// --- Studies ---

template <typename D, typename C>
absl::Status SqlStore<D, C>::CreateStudy(const StudyRecord& study) {
  StudyRecord record = study;
  HPTUNE_RETURN_IF_ERROR(PrepareNewStudy(record, clock_.Now()));
  return Write([&](C& db) { return CreateStudyIn(db, record, clock_.Now()); });
}

template <typename D, typename C>
absl::StatusOr<StudyRecord> SqlStore<D, C>::GetStudy(std::string_view name) {
  return ReadValue<StudyRecord>([&](C& db) { return GetStudyIn(db, name); });
}

template <typename D, typename C>
absl::StatusOr<std::vector<StudyRecord>> SqlStore<D, C>::ListStudies() {
  return ReadValue<std::vector<StudyRecord>>(
      [](C& db) { return SelectStudies(db); });
}

template <typename D, typename C>
absl::Status SqlStore<D, C>::DeleteStudy(std::string_view name) {
  return Write([&](C& db) { return DeleteStudyIn(db, name, clock_.Now()); });
}

template <typename D, typename C>
absl::Status SqlStore<D, C>::SetStudyState(std::string_view name,
                                           StudyState state,
                                           std::string_view reason) {
  HPTUNE_RETURN_IF_ERROR(CheckStoredStudyState(name, state));
  return Write([&](C& db) {
    return SetStudyStateIn(db, name, state, reason, clock_.Now());
  });
}

// --- Usage and designer state ---

template <typename D, typename C>
absl::StatusOr<UserUsage> SqlStore<D, C>::GetUserUsage(int64_t uid) {
  return ReadValue<UserUsage>([&](C& db) { return SelectUserUsage(db, uid); });
}

template <typename D, typename C>
absl::StatusOr<UserUsage> SqlStore<D, C>::GetStudyOwnerUsage(
    std::string_view study) {
  return ReadValue<UserUsage>(
      [&](C& db) { return GetStudyOwnerUsageIn(db, study); });
}

template <typename D, typename C>
absl::StatusOr<std::string> SqlStore<D, C>::GetDesignerState(
    std::string_view study) {
  return ReadValue<std::string>(
      [&](C& db) { return GetDesignerStateIn(db, study); });
}

// --- Trials and measurements ---

template <typename D, typename C>
absl::StatusOr<std::vector<Trial>> SqlStore<D, C>::AddTrials(
    std::string_view study, std::vector<Trial> trials,
    const std::optional<std::string>& designer_state) {
  const Timestamp now = clock_.Now();
  HPTUNE_RETURN_IF_ERROR(PrepareNewTrials(study, trials, now));
  HPTUNE_RETURN_IF_ERROR(Write([&](C& db) {
    return AddTrialsIn(db, study, trials, designer_state, now);
  }));
  return trials;
}

template <typename D, typename C>
absl::StatusOr<Trial> SqlStore<D, C>::GetTrial(std::string_view study,
                                               int64_t number) {
  return ReadValue<Trial>([&](C& db) { return GetTrialIn(db, study, number); });
}

template <typename D, typename C>
absl::StatusOr<Trial> SqlStore<D, C>::GetTrialSummary(std::string_view study,
                                                      int64_t number) {
  return ReadValue<Trial>(
      [&](C& db) { return GetTrialSummaryIn(db, study, number); });
}

template <typename D, typename C>
absl::StatusOr<std::vector<Trial>> SqlStore<D, C>::ListTrials(
    std::string_view study) {
  return ReadValue<std::vector<Trial>>(
      [&](C& db) { return ListTrialsIn(db, study); });
}

template <typename D, typename C>
absl::StatusOr<std::vector<Trial>> SqlStore<D, C>::ListTrialSummaries(
    std::string_view study) {
  return ReadValue<std::vector<Trial>>(
      [&](C& db) { return ListTrialSummariesIn(db, study); });
}

template <typename D, typename C>
absl::StatusOr<TrialStatuses> SqlStore<D, C>::ListTrialStatuses(
    std::string_view study) {
  return ReadValue<TrialStatuses>(
      [&](C& db) { return ListTrialStatusesIn(db, study); });
}

template <typename D, typename C>
absl::StatusOr<std::vector<Measurement>> SqlStore<D, C>::ListMeasurements(
    std::string_view study, int64_t number, int64_t skip) {
  HPTUNE_RETURN_IF_ERROR(CheckMeasurementSkip(skip));
  return ReadValue<std::vector<Measurement>>(
      [&](C& db) { return ListMeasurementsIn(db, study, number, skip); });
}

template <typename D, typename C>
absl::StatusOr<Trial> SqlStore<D, C>::UpdateTrial(
    std::string_view study, int64_t number,
    const std::function<absl::Status(Trial&)>& mutate) {
  return WriteValue<Trial>([&](C& db) {
    return UpdateTrialIn(db, study, number, mutate, clock_.Now());
  });
}

template <typename D, typename C>
absl::StatusOr<Trial> SqlStore<D, C>::AddTrialParameter(
    std::string_view study, int64_t number, const ParameterSpec& spec,
    const ParameterValue& value) {
  HPTUNE_RETURN_IF_ERROR(CheckTrialParameterSpec(study, number, spec));
  return WriteValue<Trial>([&](C& db) {
    return AddTrialParameterIn(db, study, number, spec, value, clock_.Now());
  });
}

template <typename D, typename C>
void SqlStore<D, C>::AddMeasurementAsync(
    std::string_view study, int64_t number, const Measurement& measurement,
    std::function<void(absl::Status)> done) {
  store().measurements_.Add(study, number, measurement, clock_.Now(),
                            std::move(done));
}

template <typename D, typename C>
absl::Status SqlStore<D, C>::AddMeasurement(std::string_view study,
                                            int64_t number,
                                            const Measurement& measurement) {
  return store().measurements_.AddAndWait(study, number, measurement,
                                          clock_.Now());
}

// --- Jobs and replicas ---

template <typename D, typename C>
absl::Status SqlStore<D, C>::CreateJob(const JobRecord& job) {
  JobRecord record = job;
  HPTUNE_RETURN_IF_ERROR(PrepareNewJob(record, clock_.Now()));
  return Write([&](C& db) { return CreateJobIn(db, record, clock_.Now()); });
}

template <typename D, typename C>
absl::StatusOr<JobRecord> SqlStore<D, C>::GetJob(std::string_view job_id) {
  return ReadValue<JobRecord>([&](C& db) { return GetJobIn(db, job_id); });
}

template <typename D, typename C>
absl::StatusOr<std::vector<JobRecord>> SqlStore<D, C>::ListJobs() {
  return ReadValue<std::vector<JobRecord>>(
      [](C& db) { return SelectJobs(db); });
}

template <typename D, typename C>
absl::StatusOr<JobRecord> SqlStore<D, C>::UpdateJob(
    std::string_view job_id,
    const std::function<absl::Status(JobRecord&)>& mutate) {
  return WriteValue<JobRecord>(
      [&](C& db) { return UpdateJobIn(db, job_id, mutate, clock_.Now()); });
}

template <typename D, typename C>
absl::Status SqlStore<D, C>::DeleteJob(std::string_view job_id) {
  return Write([&](C& db) { return DeleteJobIn(db, job_id, clock_.Now()); });
}

template <typename D, typename C>
absl::Status SqlStore<D, C>::RecordReplicaEvent(std::string_view job_id,
                                                int64_t trial,
                                                std::string_view detail) {
  return Write([&](C& db) {
    return RecordReplicaEventIn(db, job_id, trial, detail, clock_.Now());
  });
}

// --- Notes and events ---

template <typename D, typename C>
absl::Status SqlStore<D, C>::SetNote(std::string_view study, int64_t trial,
                                     std::string_view text, NoteEdit edit) {
  HPTUNE_RETURN_IF_ERROR(CheckNote(text));
  return Write([&](C& db) {
    return SetNoteIn(db, study, trial, text,
                     StampNoteEdit(edit, text, clock_.Now()));
  });
}

template <typename D, typename C>
absl::StatusOr<Note> SqlStore<D, C>::GetNote(std::string_view study,
                                             int64_t trial) {
  return ReadValue<Note>([&](C& db) { return GetNoteIn(db, study, trial); });
}

template <typename D, typename C>
absl::StatusOr<std::vector<Event>> SqlStore<D, C>::ListEvents(int64_t after_id,
                                                              int limit) {
  HPTUNE_RETURN_IF_ERROR(CheckEventLimit(limit));
  return ReadValue<std::vector<Event>>(
      [&](C& db) { return SelectEvents(db, after_id, limit); });
}

template class SqlStore<SqliteStore, SqliteConnection>;
template class SqlStore<PostgresStore, PgConnection>;

}  // namespace hptune::store::internal
