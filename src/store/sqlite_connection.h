// SqliteConnection: one sqlite3 connection, its cached prepared statements,
// and a transaction runner that waits out other writers.
//
// Used by SqliteStore and the schema code only. SQLite result codes become
// absl::Status values whose messages start with the file's path. Busy and
// locked results (another connection or process holds the lock) are retried:
// first by a busy handler inside SQLite, then by re-running the whole
// transaction with backoff, until a deadline; only then does the caller see
// Unavailable. Not thread-safe: the owner serialises all calls.
#ifndef HPTUNE_SRC_STORE_SQLITE_CONNECTION_H_
#define HPTUNE_SRC_STORE_SQLITE_CONNECTION_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/store/spec_cache.h"

struct sqlite3;
struct sqlite3_stmt;

namespace hptune::store::internal {

class SqliteConnection;

// A borrowed, cached prepared statement. Binding is 1-based, columns 0-based.
// Destroying it resets the statement, which ends any read it holds open.
class Statement {
 public:
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  ~Statement();

  // Bind errors are kept and reported by the next Step().
  Statement& BindInt(int index, int64_t value);
  Statement& BindText(int index, std::string_view value);
  Statement& BindBlob(int index, std::string_view value);
  Statement& BindNull(int index);
  Statement& BindOptionalInt(int index, std::optional<int64_t> value);

  // True when a row is ready, false when the statement is done.
  absl::StatusOr<bool> Step();
  // Steps a statement that returns no rows.
  [[nodiscard]] absl::Status Run();

  bool ColumnIsNull(int column) const;
  int64_t ColumnInt(int column) const;
  std::string ColumnText(int column) const;
  std::string ColumnBlob(int column) const;
  std::optional<int64_t> ColumnOptionalInt(int column) const;

 private:
  friend class SqliteConnection;
  Statement(SqliteConnection* connection, sqlite3_stmt* stmt)
      : connection_(connection), stmt_(stmt) {}
  void NoteBindResult(int rc);

  SqliteConnection* connection_;
  sqlite3_stmt* stmt_;
  int bind_rc_ = 0;  // SQLITE_OK
};

enum class TransactionMode {
  kRead,   // BEGIN (deferred): a consistent snapshot; never blocks writers.
  kWrite,  // BEGIN IMMEDIATE: takes the write lock up front, so writers
           // queue at BEGIN instead of failing on lock upgrade mid-way.
};

class SqliteConnection {
 public:
  // Opens (creating when missing) the database at `path`. `busy_deadline`
  // bounds how long one call waits for other writers in total.
  static absl::StatusOr<std::unique_ptr<SqliteConnection>> Open(
      const std::string& path, std::chrono::milliseconds busy_deadline);
  ~SqliteConnection();
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  const std::string& path() const { return path_; }

  // Runs one or more statements that return no rows.
  [[nodiscard]] absl::Status Exec(const std::string& sql);
  // A cached prepared statement for `sql` (one statement).
  absl::StatusOr<Statement> Prepare(const char* sql);

  // Runs `body` in a transaction and commits it; rolls back when `body` or
  // the commit fails. When SQLite reports busy/locked anywhere in it, the
  // whole transaction is rolled back and run again with backoff, so `body`
  // may run more than once and must only assign (never append to) what it
  // hands out. Unavailable naming the file after the busy deadline.
  [[nodiscard]] absl::Status InTransaction(
      TransactionMode mode, absl::FunctionRef<absl::Status()> body);
  // Inside a write transaction: runs `body` in a savepoint, so that when it
  // fails only its own changes are undone and the transaction goes on.
  // `*body_status` is the body's result. The returned status fails when the
  // transaction cannot go on: the body was busy (the caller runs the whole
  // transaction again), SQLite ended the transaction under it (a full disk
  // or an I/O error rolls back everything), or the savepoint itself failed.
  [[nodiscard]] absl::Status InSavepoint(absl::FunctionRef<absl::Status()> body,
                                         absl::Status* body_status);
  // Retries `op` while it fails with busy/locked, for statements that cannot
  // run inside a transaction (journal mode).
  [[nodiscard]] absl::Status RetryWhileBusy(
      absl::FunctionRef<absl::Status()> op);

  // A Status for SQLite result code `rc`, naming the file and `context`.
  [[nodiscard]] absl::Status Error(int rc, const std::string& context) const;

  // Calls `hook` after each commit of this connection with the number of
  // pages in the WAL (sqlite3_wal_hook); it must not use the connection.
  // Replaces SQLite's own automatic checkpoint.
  void OnWalCommit(std::function<void(int wal_pages)> hook);
  // A passive checkpoint (sqlite3_wal_checkpoint_v2): copies what it can of
  // the WAL into the database without waiting for readers or writers, and
  // returns how many of the WAL's frames are now in the database.
  absl::StatusOr<int> CheckpointPassive();
  // A full checkpoint: waits (through the busy handler, up to the busy
  // deadline) for a checkpoint running on another connection and for
  // readers of older snapshots, then copies the whole WAL.
  [[nodiscard]] absl::Status CheckpointFull();

  // The specs this connection decoded from study rows (study_tables.cc).
  StudySpecCache& spec_cache() { return spec_cache_; }

 private:
  SqliteConnection(std::string path, sqlite3* db,
                   std::chrono::milliseconds busy_deadline);
  static int BusyHandler(void* self, int attempts);
  // Runs a cached statement that returns no rows.
  [[nodiscard]] absl::Status Run(const char* sql);
  static int WalHook(void* self, sqlite3* db, const char* schema, int pages);

  std::string path_;
  sqlite3* db_;
  std::chrono::milliseconds busy_deadline_;
  std::chrono::steady_clock::time_point busy_since_;
  // Set while RetryWhileBusy runs: the busy handler gives up there too.
  std::optional<std::chrono::steady_clock::time_point> retry_deadline_;
  std::unordered_map<std::string, sqlite3_stmt*> statements_;
  std::function<void(int)> wal_hook_;
  StudySpecCache spec_cache_;
};

// True for the transient error of a busy or locked database.
bool IsBusy(const absl::Status& status);

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_SQLITE_CONNECTION_H_
