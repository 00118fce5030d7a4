#include "src/store/postgres_store.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "src/store/postgres_connection.h"
#include "src/store/postgres_lease.h"
#include "src/store/postgres_pool.h"
#include "src/store/postgres_schema.h"
#include "src/store/store_operations.h"
#include "src/store/store_rules.h"
#include "src/store/store_tables.h"

namespace hptune::store {

using Connection = internal::PgConnection;

absl::StatusOr<std::unique_ptr<PostgresStore>> PostgresStore::Open(
    const std::string& conninfo, const std::string& printable, int pool_size,
    Clock& clock) {
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Connection> first,
                          Connection::Open(conninfo, printable));
  HPTUNE_RETURN_IF_ERROR(internal::PreparePostgresDatabase(*first));
  auto pool = std::make_unique<internal::PgPool>(conninfo, printable, pool_size,
                                                 std::move(first));
  return std::unique_ptr<PostgresStore>(
      new PostgresStore(std::move(pool), clock));
}

PostgresStore::PostgresStore(std::unique_ptr<internal::PgPool> pool,
                             Clock& clock)
    : pool_(std::move(pool)),
      clock_(clock),
      measurements_([this](std::vector<internal::QueuedMeasurement>& batch) {
        return Write([&](Connection& db) {
          return internal::AddMeasurementsIn(db, batch);
        });
      }) {}

PostgresStore::~PostgresStore() = default;

absl::Status PostgresStore::Read(Body body) {
  return pool_->With([&](Connection& db) {
    return db.InTransaction("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY",
                            [&] { return body(db); });
  });
}

absl::Status PostgresStore::Write(Body body) {
  static const std::string kLock =
      absl::StrCat("SELECT pg_advisory_xact_lock(", internal::kPgLockClass,
                   ", ", internal::kPgWriteLock, ")");
  return pool_->With([&](Connection& db) {
    return db.InTransaction("BEGIN", [&]() -> absl::Status {
      HPTUNE_RETURN_IF_ERROR(db.Exec(kLock));
      return body(db);
    });
  });
}

// --- Studies ---

absl::Status PostgresStore::CreateStudy(const StudyRecord& study) {
  StudyRecord record = study;
  HPTUNE_RETURN_IF_ERROR(internal::PrepareNewStudy(record, clock_.Now()));
  return Write([&](Connection& db) {
    return internal::CreateStudyIn(db, record, clock_.Now());
  });
}

absl::StatusOr<StudyRecord> PostgresStore::GetStudy(std::string_view name) {
  return ReadValue<StudyRecord>(
      [&](Connection& db) { return internal::GetStudyIn(db, name); });
}

absl::StatusOr<std::vector<StudyRecord>> PostgresStore::ListStudies() {
  return ReadValue<std::vector<StudyRecord>>(
      [](Connection& db) { return internal::SelectStudies(db); });
}

absl::Status PostgresStore::DeleteStudy(std::string_view name) {
  return Write([&](Connection& db) {
    return internal::DeleteStudyIn(db, name, clock_.Now());
  });
}

absl::Status PostgresStore::SetStudyState(std::string_view name,
                                          StudyState state,
                                          std::string_view reason) {
  HPTUNE_RETURN_IF_ERROR(internal::CheckStoredStudyState(name, state));
  return Write([&](Connection& db) {
    return internal::SetStudyStateIn(db, name, state, reason, clock_.Now());
  });
}

absl::StatusOr<UserUsage> PostgresStore::GetUserUsage(int64_t uid) {
  return ReadValue<UserUsage>(
      [&](Connection& db) { return internal::SelectUserUsage(db, uid); });
}

absl::StatusOr<UserUsage> PostgresStore::GetStudyOwnerUsage(
    std::string_view study) {
  return ReadValue<UserUsage>([&](Connection& db) {
    return internal::GetStudyOwnerUsageIn(db, study);
  });
}

absl::StatusOr<std::string> PostgresStore::GetDesignerState(
    std::string_view study) {
  return ReadValue<std::string>(
      [&](Connection& db) { return internal::GetDesignerStateIn(db, study); });
}

// --- Jobs ---

absl::Status PostgresStore::CreateJob(const JobRecord& job) {
  JobRecord record = job;
  HPTUNE_RETURN_IF_ERROR(internal::PrepareNewJob(record, clock_.Now()));
  return Write([&](Connection& db) {
    return internal::CreateJobIn(db, record, clock_.Now());
  });
}

absl::StatusOr<JobRecord> PostgresStore::GetJob(std::string_view job_id) {
  return ReadValue<JobRecord>(
      [&](Connection& db) { return internal::GetJobIn(db, job_id); });
}

absl::StatusOr<std::vector<JobRecord>> PostgresStore::ListJobs() {
  return ReadValue<std::vector<JobRecord>>(
      [](Connection& db) { return internal::SelectJobs(db); });
}

absl::StatusOr<JobRecord> PostgresStore::UpdateJob(
    std::string_view job_id,
    const std::function<absl::Status(JobRecord&)>& mutate) {
  return WriteValue<JobRecord>([&](Connection& db) {
    return internal::UpdateJobIn(db, job_id, mutate, clock_.Now());
  });
}

absl::Status PostgresStore::DeleteJob(std::string_view job_id) {
  return Write([&](Connection& db) {
    return internal::DeleteJobIn(db, job_id, clock_.Now());
  });
}

absl::Status PostgresStore::RecordReplicaEvent(std::string_view job_id,
                                               int64_t trial,
                                               std::string_view detail) {
  return Write([&](Connection& db) {
    return internal::RecordReplicaEventIn(db, job_id, trial, detail,
                                          clock_.Now());
  });
}

// --- Notes ---

absl::Status PostgresStore::SetNote(std::string_view study, int64_t trial,
                                    std::string_view text, NoteEdit edit) {
  HPTUNE_RETURN_IF_ERROR(internal::CheckNote(text));
  return Write([&](Connection& db) {
    return internal::SetNoteIn(
        db, study, trial, text,
        internal::StampNoteEdit(edit, text, clock_.Now()));
  });
}

absl::StatusOr<Note> PostgresStore::GetNote(std::string_view study,
                                            int64_t trial) {
  return ReadValue<Note>(
      [&](Connection& db) { return internal::GetNoteIn(db, study, trial); });
}

// --- Runner lease and events ---

absl::StatusOr<std::unique_ptr<RunnerLease>> PostgresStore::AcquireRunnerLease(
    RunnerHolder holder, std::string_view job_id) {
  return internal::AcquirePgRunnerLease(*pool_, holder, job_id);
}

absl::StatusOr<std::vector<Event>> PostgresStore::ListEvents(int64_t after_id,
                                                             int limit) {
  HPTUNE_RETURN_IF_ERROR(internal::CheckEventLimit(limit));
  return ReadValue<std::vector<Event>>([&](Connection& db) {
    return internal::SelectEvents(db, after_id, limit);
  });
}

}  // namespace hptune::store
