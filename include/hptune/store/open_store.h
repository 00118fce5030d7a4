// Opening a Store without naming its class: the one door by URL (OpenStore,
// what every `--db` and `$HPTUNE_DB` goes through) and the factories of the
// two implementations, for composition roots (the CLI, the server, a
// scheduler that embeds the engine) that need only the Store interface.
//
// URLs: "sqlite:PATH" or a plain PATH (no scheme: every `--db FILE` written
// before URLs) for SqliteStore; "memory:" for a MemoryStore, whose contents
// go with the process; "postgresql://..." (or "postgres://...") for a
// PostgresStore (postgres_store.h), a libpq connection URL, as in
// "postgresql://hptune@db.host/hptune?sslmode=require", with one option of
// hptune's own: "pool=N", the connections it keeps (1 to 64, default 4); a
// password comes from libpq's PGPASSFILE/~/.pgpass, $PGPASSWORD or a
// "passfile=" option, and is never named in a message. A new store is one
// more scheme here. The sqlite: form takes options after "?", as SQLite's
// own URIs do: "sqlite:PATH?busy_timeout_ms=N" (0 to 3,600,000;
// SqliteStoreOptions::busy_deadline). A plain PATH keeps "?" as part of the
// file name.
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
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hptune/env/clock.h"
#include "hptune/env/env.h"
#include "hptune/store/store.h"

namespace hptune::store {

struct SqliteStoreOptions {
  // How long one call may wait for other writers before it gives up.
  std::chrono::milliseconds busy_deadline{30'000};
  // Where the runner lease's lock files are taken (Env::LockFile): needed
  // by a store that is asked for the lease (a broken invariant without),
  // none otherwise. It must outlive the store.
  Env* env = nullptr;
};

// Opens the SQLite store at `path`, creating the file and its schema when
// missing. FailedPrecondition naming the file when it is not SQLite, not an
// hptune database, or has a newer schema version. `clock` stamps create
// times and events; it must outlive the store.
absl::StatusOr<std::unique_ptr<Store>> OpenSqliteStore(
    const std::string& path, Clock& clock, SqliteStoreOptions options = {});

// An empty in-memory store. `clock` must outlive it.
std::unique_ptr<Store> NewMemoryStore(Clock& clock);

// A store URL, parsed.
struct StoreUrl {
  enum class Scheme { kSqlite, kMemory, kPostgres };
  Scheme scheme = Scheme::kSqlite;
  // kSqlite: the file; "" for kMemory; kPostgres: the URL for libpq (pool=
  // taken out).
  std::string path;
  // kSqlite: the URL's busy_timeout_ms, over SqliteStoreOptions'.
  std::optional<std::chrono::milliseconds> busy_deadline;
  std::optional<int> pool_size;  // kPostgres: the URL's pool=N.
  bool operator==(const StoreUrl&) const = default;
};

// Parses `url`. A value that does not begin with a scheme (letters, then
// letters, digits, "+", "-" or "."; then ":") is a path: "/a/b:c.db" and
// "./x.db" are paths, "x:y.db" is scheme "x" (write "./x:y.db"). An
// unknown scheme, an empty path or "memory:" with anything after it is
// InvalidArgument naming the value (its password left out) and the schemes
// known; so is a pool= outside 1..64, naming its value.
absl::StatusOr<StoreUrl> ParseStoreUrl(const std::string& url);

// Opens the store `url` names (ParseStoreUrl): OpenSqliteStore with
// `sqlite` (its busy_deadline replaced by the URL's, when it gives one) for
// a file, NewMemoryStore for "memory:", a PostgresStore (its schema created
// when missing; FailedPrecondition for a newer schema version, Unavailable
// for a server that cannot be reached, naming the URL without its password)
// for "postgresql://". `clock` must outlive the store.
// `url` as messages name it: a password ("user:secret@", "password=")
// left out.
std::string PrintableStoreUrl(std::string_view url);

absl::StatusOr<std::unique_ptr<Store>> OpenStore(
    const std::string& url, Clock& clock, SqliteStoreOptions sqlite = {});

}  // namespace hptune::store

#endif  // HPTUNE_STORE_OPEN_STORE_H_
