// The SQLite schema of SqliteStore: identification, versioned migrations and
// per-connection settings.
//
// An hptune database is marked by `PRAGMA application_id` and carries its
// schema version in `PRAGMA user_version`. Opening applies the missing
// migration steps in one write transaction (so concurrent openers never apply
// a step twice), refuses a file written by a newer schema, a file that is not
// SQLite, and an SQLite file of another application. Used by SqliteStore::Open
// only. Not thread-safe (works on one connection).
#ifndef HPTUNE_SRC_STORE_SCHEMA_H_
#define HPTUNE_SRC_STORE_SCHEMA_H_

#include <cstdint>

#include "absl/status/status.h"
#include "src/store/sqlite_connection.h"

namespace hptune::store::internal {

// "HPTU": tells an hptune database from any other SQLite file.
inline constexpr int32_t kApplicationId = 0x48505455;
// The newest schema this build reads and writes.
int CurrentSchemaVersion();

// Sets the connection's pragmas (WAL, synchronous, foreign keys), checks the
// file is an hptune database of a version this build understands (or empty),
// and migrates it to CurrentSchemaVersion().
[[nodiscard]] absl::Status PrepareDatabase(SqliteConnection& connection);

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_SCHEMA_H_
