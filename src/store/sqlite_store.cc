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
#include "src/store/wal_checkpointer.h"

namespace hptune::store {

using internal::TransactionMode;

namespace {

// Concurrent reads beyond this wait for a connection. A few cover a server's
// concurrent early-stopping checks on a small machine; each connection holds
// its own page cache.
constexpr int kMaxReadConnections = 4;

}  // namespace

absl::StatusOr<std::unique_ptr<SqliteStore>> SqliteStore::Open(
    const std::string& path, Clock& clock, SqliteStoreOptions options) {
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Connection> connection,
                          Connection::Open(path, options.busy_deadline));
  HPTUNE_RETURN_IF_ERROR(internal::PrepareDatabase(*connection));
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Connection> reader,
                          Connection::Open(path, options.busy_deadline));
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
    std::string path, Clock& clock, std::unique_ptr<Connection> connection,
    std::unique_ptr<internal::ReaderPool> readers,
    std::unique_ptr<internal::WalCheckpointer> checkpointer)
    : SqlStore(clock),
      path_(std::move(path)),
      checkpointer_(std::move(checkpointer)),
      connection_(std::move(connection)),
      readers_(std::move(readers)) {
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
  return writes_.Run(body, [&](const std::vector<Writes::Write*>& batch) {
    CommitWrites(batch);
  });
}

size_t SqliteStore::WritesWaiting() { return writes_.Waiting(); }

void SqliteStore::CommitWrites(const std::vector<Writes::Write*>& batch) {
  MutexLock lock(&mu_);
  Connection& db = *connection_;
  Writes::CommitBatch(db, batch, [&](absl::FunctionRef<absl::Status()> body) {
    return db.InTransaction(TransactionMode::kWrite, body);
  });
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

// --- Runner lease ---

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
  const bool server = holder != RunnerHolder::kRun;
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

}  // namespace hptune::store
