#include "src/store/postgres_store.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "src/store/note_tables.h"
#include "src/store/postgres_connection.h"
#include "src/store/postgres_lease.h"
#include "src/store/postgres_pool.h"
#include "src/store/postgres_schema.h"
#include "src/store/store_rules.h"
#include "src/store/store_tables.h"

namespace hptune::store {

using internal::MakeEvent;
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
    : pool_(std::move(pool)), clock_(clock) {}

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
  return Write([&](Connection& db) -> absl::Status {
    HPTUNE_ASSIGN_OR_RETURN(bool exists,
                            internal::StudyExists(db, record.name));
    if (exists) return internal::StudyAlreadyExists(record.name);
    HPTUNE_RETURN_IF_ERROR(internal::InsertStudy(db, record));
    return internal::InsertEvent(
        db, MakeEvent(clock_.Now(), internal::kStudyCreated, record.name, "", 0,
                      ""));
  });
}

absl::StatusOr<StudyRecord> PostgresStore::GetStudy(std::string_view name) {
  HPTUNE_ASSIGN_OR_RETURN(
      std::optional<StudyRecord> study,
      ReadValue<std::optional<StudyRecord>>(
          [&](Connection& db) { return internal::SelectStudy(db, name); }));
  if (!study) return internal::StudyNotFound(name);
  return *std::move(study);
}

absl::StatusOr<std::vector<StudyRecord>> PostgresStore::ListStudies() {
  return ReadValue<std::vector<StudyRecord>>(
      [](Connection& db) { return internal::SelectStudies(db); });
}

absl::Status PostgresStore::DeleteStudy(std::string_view name) {
  return Write([&](Connection& db) -> absl::Status {
    HPTUNE_ASSIGN_OR_RETURN(bool exists, internal::StudyExists(db, name));
    if (!exists) return internal::StudyNotFound(name);
    HPTUNE_RETURN_IF_ERROR(internal::DeleteStudyRow(db, name));
    return internal::InsertEvent(
        db, MakeEvent(clock_.Now(), internal::kStudyDeleted, name, "", 0, ""));
  });
}

absl::Status PostgresStore::SetStudyState(std::string_view name,
                                          StudyState state,
                                          std::string_view reason) {
  HPTUNE_RETURN_IF_ERROR(internal::CheckStoredStudyState(name, state));
  return Write([&](Connection& db) -> absl::Status {
    HPTUNE_ASSIGN_OR_RETURN(std::optional<StudyRecord> study,
                            internal::SelectStudy(db, name));
    if (!study) return internal::StudyNotFound(name);
    if (study->state == state && study->reason == reason) {
      return absl::OkStatus();
    }
    HPTUNE_RETURN_IF_ERROR(internal::UpdateStudyState(db, name, state, reason));
    if (study->state == state) return absl::OkStatus();
    return internal::InsertEvent(
        db, MakeEvent(clock_.Now(), internal::kStudyState, name, "", 0,
                      internal::TransitionDetail(study->state, state)));
  });
}

absl::StatusOr<UserUsage> PostgresStore::GetUserUsage(int64_t uid) {
  return ReadValue<UserUsage>(
      [&](Connection& db) { return internal::SelectUserUsage(db, uid); });
}

absl::StatusOr<UserUsage> PostgresStore::GetStudyOwnerUsage(
    std::string_view study) {
  return ReadValue<UserUsage>([&](Connection& db) -> absl::StatusOr<UserUsage> {
    HPTUNE_ASSIGN_OR_RETURN(std::optional<int64_t> owner,
                            internal::SelectStudyOwner(db, study));
    if (!owner) return internal::StudyNotFound(study);
    if (*owner < 0) return UserUsage{};
    return internal::SelectUserUsage(db, *owner);
  });
}

absl::StatusOr<std::string> PostgresStore::GetDesignerState(
    std::string_view study) {
  return ReadValue<std::string>(
      [&](Connection& db) -> absl::StatusOr<std::string> {
        HPTUNE_ASSIGN_OR_RETURN(bool exists, internal::StudyExists(db, study));
        if (!exists) return internal::StudyNotFound(study);
        return internal::SelectDesignerState(db, study);
      });
}

// --- Jobs ---

absl::Status PostgresStore::CreateJob(const JobRecord& job) {
  JobRecord record = job;
  HPTUNE_RETURN_IF_ERROR(internal::PrepareNewJob(record, clock_.Now()));
  return Write([&](Connection& db) -> absl::Status {
    HPTUNE_ASSIGN_OR_RETURN(bool exists,
                            internal::JobExists(db, record.job_id));
    if (exists) return internal::JobAlreadyExists(record.job_id);
    HPTUNE_RETURN_IF_ERROR(internal::InsertJob(db, record));
    return internal::InsertEvent(
        db, MakeEvent(clock_.Now(), internal::kJobCreated, record.study_name,
                      record.job_id, 0, std::string(ToString(record.state))));
  });
}

absl::StatusOr<JobRecord> PostgresStore::GetJob(std::string_view job_id) {
  HPTUNE_ASSIGN_OR_RETURN(
      std::optional<JobRecord> job,
      ReadValue<std::optional<JobRecord>>(
          [&](Connection& db) { return internal::SelectJob(db, job_id); }));
  if (!job) return internal::JobNotFound(job_id);
  return *std::move(job);
}

absl::StatusOr<std::vector<JobRecord>> PostgresStore::ListJobs() {
  return ReadValue<std::vector<JobRecord>>(
      [](Connection& db) { return internal::SelectJobs(db); });
}

absl::StatusOr<JobRecord> PostgresStore::UpdateJob(
    std::string_view job_id,
    const std::function<absl::Status(JobRecord&)>& mutate) {
  JobRecord updated;
  HPTUNE_RETURN_IF_ERROR(Write([&](Connection& db) -> absl::Status {
    HPTUNE_ASSIGN_OR_RETURN(std::optional<JobRecord> stored,
                            internal::SelectJob(db, job_id));
    if (!stored) return internal::JobNotFound(job_id);
    const Timestamp now = clock_.Now();
    updated = *stored;
    HPTUNE_RETURN_IF_ERROR(mutate(updated));
    HPTUNE_RETURN_IF_ERROR(internal::PrepareJobUpdate(*stored, updated, now));
    HPTUNE_RETURN_IF_ERROR(internal::UpdateJobRow(db, updated));
    if (updated.state == stored->state) return absl::OkStatus();
    return internal::InsertEvent(
        db,
        MakeEvent(now, internal::kJobState, updated.study_name, job_id, 0,
                  internal::TransitionDetail(stored->state, updated.state)));
  }));
  return updated;
}

absl::Status PostgresStore::DeleteJob(std::string_view job_id) {
  return Write([&](Connection& db) -> absl::Status {
    HPTUNE_ASSIGN_OR_RETURN(std::optional<JobRecord> job,
                            internal::SelectJob(db, job_id));
    if (!job) return internal::JobNotFound(job_id);
    HPTUNE_RETURN_IF_ERROR(internal::CheckJobDeletable(*job));
    return internal::DeleteJobRows(db, *job, clock_.Now());
  });
}

absl::Status PostgresStore::RecordReplicaEvent(std::string_view job_id,
                                               int64_t trial,
                                               std::string_view detail) {
  return Write([&](Connection& db) -> absl::Status {
    HPTUNE_ASSIGN_OR_RETURN(std::optional<JobRecord> job,
                            internal::SelectJob(db, job_id));
    if (!job) return internal::JobNotFound(job_id);
    return internal::InsertEvent(
        db, MakeEvent(clock_.Now(), internal::kReplica, job->study_name, job_id,
                      trial, std::string(detail)));
  });
}

// --- Notes ---

namespace {

// NotFound unless `study` exists and, for a trial's note, has trial `trial`.
absl::Status CheckNoteOwner(Connection& db, std::string_view study,
                            int64_t trial) {
  HPTUNE_ASSIGN_OR_RETURN(bool exists, internal::StudyExists(db, study));
  if (!exists) return internal::StudyNotFound(study);
  if (trial == 0) return absl::OkStatus();
  HPTUNE_ASSIGN_OR_RETURN(int64_t last,
                          internal::SelectLastTrialNumber(db, study));
  if (trial < 1 || trial > last) return internal::TrialNotFound(study, trial);
  return absl::OkStatus();
}

}  // namespace

absl::Status PostgresStore::SetNote(std::string_view study, int64_t trial,
                                    std::string_view text, NoteEdit edit) {
  HPTUNE_RETURN_IF_ERROR(internal::CheckNote(text));
  return Write([&](Connection& db) -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckNoteOwner(db, study, trial));
    return internal::UpsertNote(
        db, study, trial, text,
        internal::StampNoteEdit(std::move(edit), text, clock_.Now()));
  });
}

absl::StatusOr<Note> PostgresStore::GetNote(std::string_view study,
                                            int64_t trial) {
  return ReadValue<Note>([&](Connection& db) -> absl::StatusOr<Note> {
    HPTUNE_RETURN_IF_ERROR(CheckNoteOwner(db, study, trial));
    return internal::SelectNote(db, study, trial);
  });
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
