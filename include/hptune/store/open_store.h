// Opening a Store without naming its class: the factories of the two
// implementations, for composition roots (the CLI, the server, a scheduler
// that embeds the engine) that need only the Store interface.
//
// OpenSqliteStore is SqliteStore::Open (sqlite_store.h: the file, its
// schema, durability and sharing between processes); NewMemoryStore is a
// MemoryStore (memory_store.h: no persistence, for tests and ephemeral
// embedding). Both stores are thread-safe; these functions may be called
// from any thread.
#ifndef HPTUNE_STORE_OPEN_STORE_H_
#define HPTUNE_STORE_OPEN_STORE_H_

#include <chrono>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "hptune/env/clock.h"
#include "hptune/store/store.h"

namespace hptune::store {

struct SqliteStoreOptions {
  // How long one call may wait for other writers before it gives up.
  std::chrono::milliseconds busy_deadline{30'000};
};

// Opens the SQLite store at `path`, creating the file and its schema when
// missing. FailedPrecondition naming the file when it is not SQLite, not an
// hptune database, or has a newer schema version. `clock` stamps create
// times and events; it must outlive the store.
absl::StatusOr<std::unique_ptr<Store>> OpenSqliteStore(
    const std::string& path, Clock& clock = SystemClock(),
    SqliteStoreOptions options = {});

// An empty in-memory store. `clock` must outlive it.
std::unique_ptr<Store> NewMemoryStore(Clock& clock = SystemClock());

}  // namespace hptune::store

#endif  // HPTUNE_STORE_OPEN_STORE_H_
