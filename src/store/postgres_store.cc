#include "src/store/postgres_store.h"

#include <memory>
#include <string>
#include <utility>

#include "hptune/core/status.h"
#include "src/store/postgres_connection.h"
#include "src/store/postgres_fence.h"
#include "src/store/postgres_lease.h"
#include "src/store/postgres_pool.h"
#include "src/store/postgres_schema.h"

namespace hptune::store {

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
    : SqlStore(clock),
      pool_(std::move(pool)),
      fence_(std::make_shared<internal::PgFence>()) {}

PostgresStore::~PostgresStore() = default;

absl::Status PostgresStore::Read(Body body) {
  return pool_->With([&](Connection& db) {
    return db.InTransaction("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY",
                            [&] { return body(db); });
  });
}

absl::Status PostgresStore::Write(Body body) {
  return writes_.Run(body, [&](const std::vector<Writes::Write*>& batch) {
    CommitWrites(batch);
  });
}

void PostgresStore::CommitWrites(const std::vector<Writes::Write*>& batch) {
  const absl::Status connected = pool_->With([&](Connection& db) {
    Writes::CommitBatch(db, batch, [&](absl::FunctionRef<absl::Status()> body) {
      return db.InTransaction("BEGIN", [&]() -> absl::Status {
        HPTUNE_RETURN_IF_ERROR(fence_->LockForWrite(db));
        return body();
      });
    });
    return absl::OkStatus();
  });
  if (connected.ok()) return;
  for (Writes::Write* write : batch) write->status = connected;
}

// --- Runner lease ---

absl::StatusOr<std::unique_ptr<RunnerLease>> PostgresStore::AcquireRunnerLease(
    RunnerHolder holder, std::string_view job_id) {
  return internal::AcquirePgRunnerLease(*pool_, holder, job_id, fence_);
}

}  // namespace hptune::store
