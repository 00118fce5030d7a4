// The schema of a PostgresStore database: its tables, created when missing,
// and the version table that says which schema a database holds.
//
// Used by PostgresStore::Open only. The tables are SQLite's (schema.cc) at
// its current version, in PostgreSQL's types, so the table code
// (store_tables.h) reads and writes both alike; their versions are counted
// apart (a PostgreSQL database starts at version 1). Thread-compatible: runs
// on the connection it is given; concurrent openers of one database are
// serialised by an advisory lock.
#ifndef HPTUNE_SRC_STORE_POSTGRES_SCHEMA_H_
#define HPTUNE_SRC_STORE_POSTGRES_SCHEMA_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "src/store/postgres_connection.h"

namespace hptune::store::internal {

// The schema version this build writes.
int PostgresSchemaVersion();

// Creates or migrates the schema to PostgresSchemaVersion(). FailedPrecondition
// naming the database when it holds a newer version (both named) or tables
// that are not an hptune store's.
[[nodiscard]] absl::Status PreparePostgresDatabase(PgConnection& connection);

// Advisory lock keys (pg_advisory_lock's two-int form, class kPgLockClass):
// every write transaction takes kPgWriteLock (so trial numbers and
// measurement sequences are given once, and event ids commit in order); the
// runner lease takes kPgRunnerLock and kPgServersLock (postgres_lease.h);
// schema changes kPgSchemaLock. Each runner lease's session also holds a
// lock of class kPgFenceClass keyed by a token of its own, which writes
// try to take (postgres_fence.h).
inline constexpr int32_t kPgLockClass = 0x68707475;   // "hptu"
inline constexpr int32_t kPgFenceClass = 0x68707466;  // "hptf"
inline constexpr int32_t kPgSchemaLock = 1;
inline constexpr int32_t kPgWriteLock = 2;
inline constexpr int32_t kPgRunnerLock = 3;
inline constexpr int32_t kPgServersLock = 4;

// "SELECT pg_advisory_xact_lock(kPgLockClass, kPgWriteLock)": a write
// transaction's first statement.
const std::string& PgWriteLockStatement();

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_POSTGRES_SCHEMA_H_
