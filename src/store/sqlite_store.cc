#include "src/store/sqlite_store.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "hptune/core/check.h"
#include "hptune/core/status.h"
#include "src/store/reader_pool.h"
#include "src/store/runner_lock.h"
#include "src/store/schema.h"
#include "src/store/sqlite_connection.h"
#include "src/store/store_operations.h"
#include "src/store/store_rules.h"
#include "src/store/store_tables.h"
#include "src/store/wal_checkpointer.h"

namespace hptune::store {

using internal::TransactionMode;
using Connection = internal::SqliteConnection;

namespace {

// Concurrent reads beyond this wait for a connection. A few cover a server's
// concurrent early-stopping checks on a small machine; each connection holds
// its own page cache.
constexpr int kMaxReadConnections = 4;

}  // namespace

absl::StatusOr<std::unique_ptr<SqliteStore>> SqliteStore::Open(
    const std::string& path, Clock& clock, SqliteStoreOptions options) {
  HPTUNE_ASSIGN_OR_RETURN(
      std::unique_ptr<internal::SqliteConnection> connection,
      internal::SqliteConnection::Open(path, options.busy_deadline));
  HPTUNE_RETURN_IF_ERROR(internal::PrepareDatabase(*connection));
  HPTUNE_ASSIGN_OR_RETURN(
      std::unique_ptr<internal::SqliteConnection> reader,
      internal::SqliteConnection::Open(path, options.busy_deadline));
  auto readers = std::make_unique<internal::ReaderPool>(
      path, options.busy_deadline, std::move(reader), kMaxReadConnections);
  HPTUNE_ASSIGN_OR_RETURN(
      std::unique_ptr<internal::WalCheckpointer> checkpointer,
      internal::WalCheckpointer::Start(path));
  std::unique_ptr<SqliteStore> store(
      new SqliteStore(path, clock, std::move(connection), std::move(readers),
                      std::move(checkpointer)));
  store->env_ = options.env;
  return store;
}

SqliteStore::SqliteStore(
    std::string path, Clock& clock,
    std::unique_ptr<internal::SqliteConnection> connection,
    std::unique_ptr<internal::ReaderPool> readers,
    std::unique_ptr<internal::WalCheckpointer> checkpointer)
    : path_(std::move(path)),
      clock_(clock),
      checkpointer_(std::move(checkpointer)),
      connection_(std::move(connection)),
      readers_(std::move(readers)),
      measurements_([this](std::vector<internal::QueuedMeasurement>& batch) {
        return Write([&](Connection& db) {
          return internal::AddMeasurementsIn(db, batch);
        });
      }) {
  // Called inside connection_'s commits, which Write makes under mu_.
  auto committed = [this](int pages) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    wal_pages_ = pages;
    checkpointer_->Committed(pages);
  };
  connection_->OnWalCommit(committed);
}

SqliteStore::~SqliteStore() = default;

absl::Status SqliteStore::Read(
    absl::FunctionRef<absl::Status(Connection&)> body) {
  return readers_->With([&](Connection& reader) {
    return reader.InTransaction(TransactionMode::kRead,
                                [&] { return body(reader); });
  });
}

absl::Status SqliteStore::Write(
    absl::FunctionRef<absl::Status(Connection&)> body) {
  QueuedWrite write{.body = &body};
  std::vector<QueuedWrite*> batch;
  {
    MutexLock lock(&writes_mu_);
    writes_.push_back(&write);
    while (!write.done && writes_.front() != &write) {
      write.turn.Wait(&writes_mu_);
    }
    if (write.done) return write.status;
    const size_t size = std::min(writes_.size(), kWritesPerCommit);
    batch.assign(writes_.begin(), writes_.begin() + size);
  }
  CommitWrites(batch);
  MutexLock lock(&writes_mu_);
  for (QueuedWrite* done : batch) {
    writes_.pop_front();
    done->done = true;
    // Under writes_mu_, so its waiter cannot return (and free it) before.
    done->turn.Signal();
  }
  if (!writes_.empty()) writes_.front()->turn.Signal();
  return write.status;
}

size_t SqliteStore::WritesWaiting() {
  MutexLock lock(&writes_mu_);
  return writes_.size();
}

void SqliteStore::CommitWrites(const std::vector<QueuedWrite*>& batch) {
  MutexLock lock(&mu_);
  Connection& db = *connection_;
  if (batch.size() == 1) {
    batch[0]->status = db.InTransaction(TransactionMode::kWrite,
                                        [&] { return (*batch[0]->body)(db); });
  } else {
    const absl::Status committed =
        db.InTransaction(TransactionMode::kWrite, [&]() -> absl::Status {
          for (QueuedWrite* write : batch) write->status = absl::OkStatus();
          for (QueuedWrite* write : batch) {
            HPTUNE_RETURN_IF_ERROR(db.InSavepoint(
                [&] { return (*write->body)(db); }, &write->status));
          }
          return absl::OkStatus();
        });
    // Nothing of the batch is kept: a write that succeeded fails with it.
    for (QueuedWrite* write : batch) {
      if (write->status.ok()) write->status = committed;
    }
  }
  // The WAL's bound (wal_checkpointer.h): the few frames the background
  // checkpoint has not copied yet, so that the next write starts it over.
  // Passive, so it never waits; when busy, the next commit tries again,
  // until the WAL reaches kWalPagesWaitLimit: then the writer waits.
  if (wal_pages_ >= internal::WalCheckpointer::kWalPagesWaitLimit) {
    checkpointer_->WaitUntilIdle();
    (void)connection_->CheckpointFull();
  } else if (wal_pages_ >= internal::WalCheckpointer::kWalPagesHardLimit) {
    (void)connection_->CheckpointPassive();
  }
}

// --- Studies ---

absl::Status SqliteStore::CreateStudy(const StudyRecord& study) {
  StudyRecord record = study;
  HPTUNE_RETURN_IF_ERROR(internal::PrepareNewStudy(record, clock_.Now()));
  return Write([&](Connection& db) {
    return internal::CreateStudyIn(db, record, clock_.Now());
  });
}

absl::StatusOr<StudyRecord> SqliteStore::GetStudy(std::string_view name) {
  return ReadValue<StudyRecord>(
      [&](Connection& db) { return internal::GetStudyIn(db, name); });
}

absl::StatusOr<std::vector<StudyRecord>> SqliteStore::ListStudies() {
  return ReadValue<std::vector<StudyRecord>>(
      [](Connection& db) { return internal::SelectStudies(db); });
}

absl::Status SqliteStore::DeleteStudy(std::string_view name) {
  return Write([&](Connection& db) {
    return internal::DeleteStudyIn(db, name, clock_.Now());
  });
}

absl::Status SqliteStore::SetStudyState(std::string_view name, StudyState state,
                                        std::string_view reason) {
  HPTUNE_RETURN_IF_ERROR(internal::CheckStoredStudyState(name, state));
  return Write([&](Connection& db) {
    return internal::SetStudyStateIn(db, name, state, reason, clock_.Now());
  });
}

// --- Usage ---

absl::StatusOr<UserUsage> SqliteStore::GetUserUsage(int64_t uid) {
  return ReadValue<UserUsage>(
      [&](Connection& db) { return internal::SelectUserUsage(db, uid); });
}

absl::StatusOr<UserUsage> SqliteStore::GetStudyOwnerUsage(
    std::string_view study) {
  return ReadValue<UserUsage>([&](Connection& db) {
    return internal::GetStudyOwnerUsageIn(db, study);
  });
}

// --- Designer state ---

absl::StatusOr<std::string> SqliteStore::GetDesignerState(
    std::string_view study) {
  return ReadValue<std::string>(
      [&](Connection& db) { return internal::GetDesignerStateIn(db, study); });
}

// --- Jobs ---

absl::Status SqliteStore::CreateJob(const JobRecord& job) {
  JobRecord record = job;
  HPTUNE_RETURN_IF_ERROR(internal::PrepareNewJob(record, clock_.Now()));
  return Write([&](Connection& db) {
    return internal::CreateJobIn(db, record, clock_.Now());
  });
}

absl::StatusOr<JobRecord> SqliteStore::GetJob(std::string_view job_id) {
  return ReadValue<JobRecord>(
      [&](Connection& db) { return internal::GetJobIn(db, job_id); });
}

absl::StatusOr<std::vector<JobRecord>> SqliteStore::ListJobs() {
  return ReadValue<std::vector<JobRecord>>(
      [](Connection& db) { return internal::SelectJobs(db); });
}

absl::StatusOr<JobRecord> SqliteStore::UpdateJob(
    std::string_view job_id,
    const std::function<absl::Status(JobRecord&)>& mutate) {
  return WriteValue<JobRecord>([&](Connection& db) {
    return internal::UpdateJobIn(db, job_id, mutate, clock_.Now());
  });
}

absl::Status SqliteStore::DeleteJob(std::string_view job_id) {
  return Write([&](Connection& db) {
    return internal::DeleteJobIn(db, job_id, clock_.Now());
  });
}

// --- Replicas ---

absl::Status SqliteStore::RecordReplicaEvent(std::string_view job_id,
                                             int64_t trial,
                                             std::string_view detail) {
  return Write([&](Connection& db) {
    return internal::RecordReplicaEventIn(db, job_id, trial, detail,
                                          clock_.Now());
  });
}

// --- Notes ---

absl::Status SqliteStore::SetNote(std::string_view study, int64_t trial,
                                  std::string_view text, NoteEdit edit) {
  HPTUNE_RETURN_IF_ERROR(internal::CheckNote(text));
  return Write([&](Connection& db) {
    return internal::SetNoteIn(
        db, study, trial, text,
        internal::StampNoteEdit(edit, text, clock_.Now()));
  });
}

absl::StatusOr<Note> SqliteStore::GetNote(std::string_view study,
                                          int64_t trial) {
  return ReadValue<Note>(
      [&](Connection& db) { return internal::GetNoteIn(db, study, trial); });
}

// --- Event log ---

namespace {

// The flocks a SqliteStore's runner lease holds.
class FileRunnerLease : public RunnerLease {
 public:
  FileRunnerLease(RunnerLock runner, std::optional<JobLock> job)
      : runner_(std::move(runner)), job_(std::move(job)) {}

 private:
  RunnerLock runner_;
  std::optional<JobLock> job_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<RunnerLease>> SqliteStore::AcquireRunnerLease(
    RunnerHolder holder, std::string_view job_id) {
  const bool server = holder == RunnerHolder::kServer;
  if (server && !job_id.empty()) {
    return absl::InvalidArgumentError("a server's runner lease holds no job");
  }
  HPTUNE_CHECK(env_ != nullptr,
               "a SqliteStore asked for the runner lease needs "
               "SqliteStoreOptions::env");
  HPTUNE_ASSIGN_OR_RETURN(
      RunnerLock runner,
      RunnerLock::Acquire(
          *env_, path_,
          server ? RunnerLock::Holder::kServer : RunnerLock::Holder::kRun));
  std::optional<JobLock> job;
  if (!job_id.empty()) {
    HPTUNE_ASSIGN_OR_RETURN(
        JobLock held, JobLock::Acquire(*env_, path_, std::string(job_id)));
    job.emplace(std::move(held));
  }
  return std::make_unique<FileRunnerLease>(std::move(runner), std::move(job));
}

absl::StatusOr<std::vector<Event>> SqliteStore::ListEvents(int64_t after_id,
                                                           int limit) {
  HPTUNE_RETURN_IF_ERROR(internal::CheckEventLimit(limit));
  return ReadValue<std::vector<Event>>([&](Connection& db) {
    return internal::SelectEvents(db, after_id, limit);
  });
}

}  // namespace hptune::store
