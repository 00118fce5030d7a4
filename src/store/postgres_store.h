// PostgresStore: the Store in a PostgreSQL database, for state shared by
// processes on several machines.
//
// Opened by OpenStore for a "postgresql://" URL (open_store.h). Built on
// libpq's C API, whose errors are values (no exceptions), through a small
// pool of connections (postgres_pool.h). The schema is created when missing
// and versioned (postgres_schema.h); a database of a newer version is
// refused. The tables and their encodings are SqliteStore's (store_tables.h,
// record_codec.h), the rules (store_rules.h) and the Store methods the same
// (SqlStore's, sql_store.h), so both pass one conformance suite.
//
// Durability: each call's writes are committed, with synchronous_commit on,
// before the call returns: in a transaction of their own or in one shared
// with the writes queued beside them (write_queue.h). Serialisation: every
// write transaction takes one transaction-level advisory lock first, so writes
// to one database commit one at a time, as SQLite's do: a trial number is given
// once, a measurement stored once, and event ids commit in increasing order
// (a watcher resuming after an id misses none). Reads run in REPEATABLE READ
// READ ONLY transactions: one snapshot, never waiting for writes.
// Fencing: while a runner lease taken through the store is held, each write
// checks under the write lock that the lease's session still holds its
// locks, and once the database ended that session the store writes nothing
// more (postgres_fence.h).
//
// Thread-safety: all methods are thread-safe; several processes and
// machines may share the database. Writes are committed in groups, as
// SqliteStore's (write_queue.h): the `mutate` callbacks of UpdateTrial and
// UpdateJob run once, on the caller's thread or on another writer's; they
// must only change the record they are given, and must neither take locks
// nor call the store.
#ifndef HPTUNE_SRC_STORE_POSTGRES_STORE_H_
#define HPTUNE_SRC_STORE_POSTGRES_STORE_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "hptune/env/clock.h"
#include "hptune/store/store.h"
#include "src/store/measurement_queue.h"
#include "src/store/sql_store.h"
#include "src/store/write_queue.h"

namespace hptune::store {

namespace internal {
class PgConnection;
class PgFence;
class PgPool;
}  // namespace internal

class PostgresStore
    : public internal::SqlStore<PostgresStore, internal::PgConnection> {
 public:
  static constexpr int kDefaultPoolSize = 4;

  // Connects to `conninfo` (a libpq URL), creating the schema when missing.
  // `printable` names the database in messages (no password). Unavailable
  // when the server cannot be reached; FailedPrecondition for a database of
  // a newer schema version or not an hptune one. `clock` must outlive it.
  static absl::StatusOr<std::unique_ptr<PostgresStore>> Open(
      const std::string& conninfo, const std::string& printable, int pool_size,
      Clock& clock);
  ~PostgresStore() override;

  // Session advisory locks held on a connection of the lease's own
  // (postgres_lease.h): released when it is destroyed, and by the server
  // when that connection drops (its process died or lost the network).
  absl::StatusOr<std::unique_ptr<RunnerLease>> AcquireRunnerLease(
      RunnerHolder holder, std::string_view job_id) override;

  // How many writes are queued for a commit now, the one running included
  // (group commit): for tests and monitoring.
  size_t WritesWaiting() { return writes_.Waiting(); }

 private:
  friend class internal::SqlStore<PostgresStore, internal::PgConnection>;
  using Connection = internal::PgConnection;
  using Body = absl::FunctionRef<absl::Status(Connection&)>;

  PostgresStore(std::unique_ptr<internal::PgPool> pool, Clock& clock);

  // Runs `body` in a read-only snapshot, or in a write transaction that
  // holds the database's write lock.
  [[nodiscard]] absl::Status Read(Body body);
  [[nodiscard]] absl::Status Write(Body body);
  using Writes = internal::WriteQueue<Connection>;
  // Runs `batch` in one write transaction (Writes::CommitBatch).
  void CommitWrites(const std::vector<Writes::Write*>& batch);

  std::unique_ptr<internal::PgPool> pool_;
  // Shared with the runner leases taken through this store.
  const std::shared_ptr<internal::PgFence> fence_;
  // Group commit (write_queue.h): one write transaction at a time per
  // store, as the database's write lock allows anyway, each carrying the
  // writes queued meanwhile under one hold of that lock and one WAL flush.
  Writes writes_;
  // Through Write. Last: stops first.
  internal::MeasurementQueue measurements_{CommitMeasurements()};
};

}  // namespace hptune::store

#endif  // HPTUNE_SRC_STORE_POSTGRES_STORE_H_
