// PostgresStore's runner lease: PostgreSQL session advisory locks, held on
// a connection that the lease owns alone.
//
// Two locks of postgres_schema.h keep servers and runs apart: runs share
// kPgRunnerLock, servers share kPgServersLock, and each kind, once it holds
// its own, checks that the other's is free by taking it exclusively for a
// moment (so of a server and a run that start together, at least one sees
// the other and is refused). A server alone (kServer: `hptune store`
// copies) holds both exclusively. A run's job, and each job a shared server
// runs (HoldJob), takes a lock of its own keyed by a 64-bit hash of the job
// ID, on the lease's connection. The database releases a session's locks
// when its connection closes: when the lease is destroyed, and when the
// process holding it dies or loses the network, so a dead runner never
// keeps the lease or its jobs. Thread-safe: the connection is used under a
// mutex.
#ifndef HPTUNE_SRC_STORE_POSTGRES_LEASE_H_
#define HPTUNE_SRC_STORE_POSTGRES_LEASE_H_

#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "hptune/store/store.h"
#include "src/store/postgres_fence.h"
#include "src/store/postgres_pool.h"

namespace hptune::store::internal {

// Store::AcquireRunnerLease's contract, on a new connection of `pool`'s
// database: Unavailable naming the database and what holds it. The lease
// holds a fence lock of its own on its session and adds its token to
// `fence` while it is held (postgres_fence.h), and
// crosses the database's write lock once after it takes a job (the lease of
// a run, the lock of a shared server's job), so that a writer fenced out
// later has committed what it wrote before the taker reads.
absl::StatusOr<std::unique_ptr<RunnerLease>> AcquirePgRunnerLease(
    const PgPool& pool, RunnerHolder holder, std::string_view job_id,
    std::shared_ptr<PgFence> fence);

// The advisory lock key of `job_id`'s lock (FNV-1a, 64 bits).
int64_t PgJobLockKey(std::string_view job_id);

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_POSTGRES_LEASE_H_
