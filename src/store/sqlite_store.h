// SqliteStore: the durable Store, one SQLite file.
//
// Used by `hptune serve`, `hptune run` and embedders whose studies must
// survive a restart; callers that need only the Store interface open it with
// OpenSqliteStore (open_store.h), which also defines SqliteStoreOptions. Its
// Store methods are SqlStore's (sql_store.h), over its transactions. The
// file has a versioned schema (migrated on Open; a file from a newer hptune is
// refused), WAL journaling and foreign keys.
//
// Durability: WAL with synchronous=NORMAL. A committed change is in the WAL
// before the call returns, so it survives a crash or SIGKILL of the process;
// an OS crash or power loss may lose the last commits (never corrupts the
// file). FULL would add an fsync per commit, i.e. per measurement, for that
// case only. Checkpoints (WAL back into the file, with fsync) run on a
// thread of the store's own, never inside a caller's commit
// (src/store/wal_checkpointer.h).
//
// Thread-safety: all methods are thread-safe (one connection for writes,
// whose transactions carry every write queued meanwhile, and a pool of
// connections for reads). Several stores and several processes may use the
// same file: writers take the lock up front (BEGIN IMMEDIATE) and a busy
// database is waited out, re-running the whole transaction with backoff, up
// to SqliteStoreOptions::busy_deadline; only then does a call fail, with
// Unavailable naming the file. Because of those retries, and because one
// caller's transaction runs the writes queued behind it, the `mutate`
// callbacks of UpdateTrial and UpdateJob may run more than once and on
// another caller's thread; they must only change the record they are given,
// and must neither take locks nor call the store.
#ifndef HPTUNE_SRC_STORE_SQLITE_STORE_H_
#define HPTUNE_SRC_STORE_SQLITE_STORE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "hptune/core/mutex.h"
#include "hptune/env/clock.h"
#include "hptune/env/env.h"
#include "hptune/store/open_store.h"
#include "hptune/store/store.h"
#include "src/store/measurement_queue.h"
#include "src/store/sql_store.h"
#include "src/store/write_queue.h"

namespace hptune::store {

namespace internal {
class SqliteConnection;
class WalCheckpointer;
class ReaderPool;
}  // namespace internal

class SqliteStore
    : public internal::SqlStore<SqliteStore, internal::SqliteConnection> {
 public:
  // Opens `path`, creating the file and its schema when missing.
  // FailedPrecondition naming the file when it is not SQLite, not an hptune
  // database, or has a newer schema version (both versions named). `clock`
  // stamps create times and events; it must outlive the store.
  static absl::StatusOr<std::unique_ptr<SqliteStore>> Open(
      const std::string& path, Clock& clock, SqliteStoreOptions options = {});
  ~SqliteStore() override;

  const std::string& path() const { return path_; }

  // Flocks beside the file (runner_lock.h), taken through
  // SqliteStoreOptions::env: "<path>.serve-lock", and "<path>.job-<id>.lock"
  // for a run's job.
  absl::StatusOr<std::unique_ptr<RunnerLease>> AcquireRunnerLease(
      RunnerHolder holder, std::string_view job_id) override;

  // How many writes are queued for a commit now, the one running included
  // (group commit, below): for tests and monitoring.
  size_t WritesWaiting();

 private:
  friend class internal::SqlStore<SqliteStore, internal::SqliteConnection>;
  using Connection = internal::SqliteConnection;

  SqliteStore(std::string path, Clock& clock,
              std::unique_ptr<Connection> connection,
              std::unique_ptr<internal::ReaderPool> readers,
              std::unique_ptr<internal::WalCheckpointer> checkpointer);

  // Run `body` in a read (snapshot, on a connection of readers_) or write
  // (BEGIN IMMEDIATE, on connection_; group commit, below) transaction,
  // retrying it while the database is busy.
  [[nodiscard]] absl::Status Read(
      absl::FunctionRef<absl::Status(Connection&)> body);
  [[nodiscard]] absl::Status Write(
      absl::FunctionRef<absl::Status(Connection&)> body);

  using Writes = internal::WriteQueue<Connection>;
  // Runs `batch` in one write transaction (Writes::CommitBatch) and bounds
  // the WAL.
  void CommitWrites(const std::vector<Writes::Write*>& batch);

  const std::string path_;
  Env* env_ = nullptr;  // SqliteStoreOptions::env: the runner lease's.
  // Group commit of writes (write_queue.h) on connection_.
  Writes writes_;
  // Declared first so that it outlives connection_, whose commits call it.
  std::unique_ptr<internal::WalCheckpointer> checkpointer_;
  Mutex mu_;  // Serialises use of connection_, the writer.
  std::unique_ptr<Connection> connection_ ABSL_PT_GUARDED_BY(mu_);
  int wal_pages_ ABSL_GUARDED_BY(mu_) = 0;  // After connection_'s last commit.
  // Reads have connections of their own: in WAL mode a read never waits
  // for a commit in progress, so the early-stopping checks that follow every
  // measurement do not queue behind the measurements' writes. A read that
  // starts after a write returned sees it.
  std::unique_ptr<internal::ReaderPool> readers_;
  // Group commit of measurements (measurement_queue.h), through Write. Last:
  // its thread stops before the writer it commits on goes.
  internal::MeasurementQueue measurements_{CommitMeasurements()};
};

}  // namespace hptune::store

#endif  // HPTUNE_SRC_STORE_SQLITE_STORE_H_
