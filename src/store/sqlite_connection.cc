#include "src/store/sqlite_connection.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <thread>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"

namespace hptune::store::internal {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Marks the Unavailable status of a busy/locked result, so retry loops can
// tell it from any other Unavailable.
constexpr char kBusyPayload[] = "type.hptune.dev/store.SqliteBusy";

absl::StatusCode CodeFor(int rc) {
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return absl::StatusCode::kUnavailable;
    case SQLITE_NOTADB:
    case SQLITE_CANTOPEN:
    case SQLITE_MISMATCH:
      return absl::StatusCode::kFailedPrecondition;
    case SQLITE_PERM:
    case SQLITE_READONLY:
    case SQLITE_AUTH:
      return absl::StatusCode::kPermissionDenied;
    case SQLITE_CORRUPT:
      return absl::StatusCode::kDataLoss;
    case SQLITE_FULL:
      return absl::StatusCode::kResourceExhausted;
    case SQLITE_IOERR:
      return absl::StatusCode::kUnavailable;
    default:
      return absl::StatusCode::kInternal;
  }
}

// A random duration in [d/2, d], so processes that collided on the lock do
// not retry in lockstep.
std::chrono::microseconds Jittered(std::chrono::microseconds d) {
  thread_local std::minstd_rand rng(static_cast<unsigned>(
      std::hash<std::thread::id>()(std::this_thread::get_id()) ^
      static_cast<size_t>(SteadyClock::now().time_since_epoch().count())));
  std::uniform_int_distribution<int64_t> dist(d.count() / 2, d.count());
  return std::chrono::microseconds(dist(rng));
}

}  // namespace

bool IsBusy(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnavailable &&
         status.GetPayload(kBusyPayload).has_value();
}

// --- Statement ---

Statement::Statement(Statement&& other) noexcept
    : connection_(other.connection_),
      stmt_(std::exchange(other.stmt_, nullptr)),
      bind_rc_(other.bind_rc_) {}

Statement::~Statement() {
  if (stmt_ == nullptr) return;
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

void Statement::NoteBindResult(int rc) {
  if (bind_rc_ == SQLITE_OK) bind_rc_ = rc;
}

Statement& Statement::BindInt(int index, int64_t value) {
  NoteBindResult(sqlite3_bind_int64(stmt_, index, value));
  return *this;
}

Statement& Statement::BindText(int index, std::string_view value) {
  NoteBindResult(sqlite3_bind_text64(stmt_, index, value.data(), value.size(),
                                     SQLITE_TRANSIENT, SQLITE_UTF8));
  return *this;
}

Statement& Statement::BindBlob(int index, std::string_view value) {
  NoteBindResult(sqlite3_bind_blob64(stmt_, index, value.data(), value.size(),
                                     SQLITE_TRANSIENT));
  return *this;
}

Statement& Statement::BindNull(int index) {
  NoteBindResult(sqlite3_bind_null(stmt_, index));
  return *this;
}

Statement& Statement::BindOptionalInt(int index, std::optional<int64_t> value) {
  return value ? BindInt(index, *value) : BindNull(index);
}

absl::StatusOr<bool> Statement::Step() {
  if (bind_rc_ != SQLITE_OK) {
    return connection_->Error(bind_rc_,
                              absl::StrCat("binding ", sqlite3_sql(stmt_)));
  }
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return connection_->Error(rc, sqlite3_sql(stmt_));
}

absl::Status Statement::Run() {
  HPTUNE_ASSIGN_OR_RETURN(bool row, Step());
  (void)row;  // Statements that return rows (PRAGMAs) are fine to run too.
  return absl::OkStatus();
}

bool Statement::ColumnIsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

int64_t Statement::ColumnInt(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

std::string Statement::ColumnText(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text),
                     sqlite3_column_bytes(stmt_, column));
}

std::string Statement::ColumnBlob(int column) const {
  const void* blob = sqlite3_column_blob(stmt_, column);
  if (blob == nullptr) return {};
  return std::string(static_cast<const char*>(blob),
                     sqlite3_column_bytes(stmt_, column));
}

std::optional<int64_t> Statement::ColumnOptionalInt(int column) const {
  if (ColumnIsNull(column)) return std::nullopt;
  return ColumnInt(column);
}

// --- SqliteConnection ---

namespace {

// Creates the database file `path`, mode 0600 whatever the umask, unless
// something is there. Never through a link: O_EXCL fails on a dangling
// one, which SQLite would then follow to create its target.
absl::Status CreatePrivateFile(const std::string& path) {
  const int fd = ::open(
      path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd >= 0) {
    ::fchmod(fd, 0600);
    ::close(fd);
    return absl::OkStatus();
  }
  struct stat info;
  if (errno == EEXIST && ::lstat(path.c_str(), &info) == 0 &&
      S_ISLNK(info.st_mode) && ::stat(path.c_str(), &info) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "sqlite store \"", path,
        "\": is a symbolic link to a missing file; a database is created "
        "only at a path that is no link"));
  }
  return absl::OkStatus();  // SQLite says what else is wrong.
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqliteConnection>> SqliteConnection::Open(
    const std::string& path, std::chrono::milliseconds busy_deadline) {
  // A new database is its owner's alone (SQLite would create it with the
  // umask's 0644); SQLite gives the -wal and -shm files the database's mode.
  if (path != ":memory:") {
    HPTUNE_RETURN_IF_ERROR(CreatePrivateFile(path));
  }
  sqlite3* db = nullptr;
  // NOMUTEX: the owner serialises calls, SQLite need not lock again.
  const int rc =
      sqlite3_open_v2(path.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                          SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE,
                      nullptr);
  if (rc != SQLITE_OK) {
    const std::string message =
        db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return absl::Status(
        CodeFor(rc),
        absl::StrCat("sqlite store \"", path, "\": cannot open: ", message));
  }
  std::unique_ptr<SqliteConnection> connection(
      new SqliteConnection(path, db, busy_deadline));
  sqlite3_busy_handler(db, &SqliteConnection::BusyHandler, connection.get());
  return connection;
}

SqliteConnection::SqliteConnection(std::string path, sqlite3* db,
                                   std::chrono::milliseconds busy_deadline)
    : path_(std::move(path)), db_(db), busy_deadline_(busy_deadline) {}

SqliteConnection::~SqliteConnection() {
  for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
  sqlite3_close_v2(db_);
}

// Called by SQLite while another connection holds a lock this one needs.
// Sleeps with exponential backoff from 50us to 6.4ms (finer than SQLite's own
// busy_timeout schedule, which sleeps up to 100ms and leaves the lock idle),
// and gives up at the busy deadline; the statement then fails with busy and
// InTransaction decides what to do.
int SqliteConnection::BusyHandler(void* self, int attempts) {
  auto* connection = static_cast<SqliteConnection*>(self);
  const auto now = SteadyClock::now();
  if (attempts == 0) connection->busy_since_ = now;
  auto give_up_at = connection->busy_since_ + connection->busy_deadline_;
  if (connection->retry_deadline_) {
    give_up_at = std::min(give_up_at, *connection->retry_deadline_);
  }
  if (now >= give_up_at) return 0;
  const auto backoff = std::chrono::microseconds(
      int64_t{50} << std::min(attempts, 7));  // At most 6.4ms.
  std::this_thread::sleep_for(Jittered(backoff));
  return 1;
}

absl::Status SqliteConnection::Error(int rc, const std::string& context) const {
  // The connection's message is more specific than the code's, when it is
  // about this failure.
  const char* message = (sqlite3_extended_errcode(db_) == rc)
                            ? sqlite3_errmsg(db_)
                            : sqlite3_errstr(rc);
  if ((rc & 0xff) == SQLITE_NOTADB) {
    return absl::FailedPreconditionError(
        absl::StrCat("sqlite store \"", path_, "\": not an SQLite database (",
                     message, ")"));
  }
  absl::Status status(
      CodeFor(rc),
      absl::StrCat("sqlite store \"", path_, "\": ", context, ": ", message));
  if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) {
    status.SetPayload(kBusyPayload, absl::Cord("busy"));
  }
  return status;
}

int SqliteConnection::WalHook(void* self, sqlite3*, const char*, int pages) {
  static_cast<SqliteConnection*>(self)->wal_hook_(pages);
  return SQLITE_OK;
}

void SqliteConnection::OnWalCommit(std::function<void(int wal_pages)> hook) {
  wal_hook_ = std::move(hook);
  sqlite3_wal_hook(db_, &SqliteConnection::WalHook, this);
}

absl::StatusOr<int> SqliteConnection::CheckpointPassive() {
  int backfilled = 0;
  const int rc = sqlite3_wal_checkpoint_v2(
      db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, &backfilled);
  if (rc != SQLITE_OK) return Error(rc, "checkpoint");
  return backfilled;
}

absl::Status SqliteConnection::CheckpointFull() {
  const int rc = sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_FULL,
                                           nullptr, nullptr);
  if (rc != SQLITE_OK) return Error(rc, "checkpoint");
  return absl::OkStatus();
}

absl::Status SqliteConnection::Exec(const std::string& sql) {
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return Error(rc, sql);
  return absl::OkStatus();
}

absl::StatusOr<Statement> SqliteConnection::Prepare(const char* sql) {
  auto it = statements_.find(sql);
  if (it == statements_.end()) {
    sqlite3_stmt* stmt = nullptr;
    const int rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT,
                                      &stmt, nullptr);
    if (rc != SQLITE_OK) return Error(rc, absl::StrCat("preparing ", sql));
    it = statements_.emplace(sql, stmt).first;
  } else if (sqlite3_stmt_busy(it->second)) {
    // Two live handles on one cached statement would step over each other.
    return absl::InternalError(
        absl::StrCat("sqlite store: statement already in use: ", sql));
  }
  return Statement(this, it->second);
}

absl::Status SqliteConnection::RetryWhileBusy(
    absl::FunctionRef<absl::Status()> op) {
  const auto start = SteadyClock::now();
  // The outermost retry sets the deadline the busy handler keeps too, so one
  // call never waits longer than busy_deadline_ in all.
  const bool outermost = !retry_deadline_.has_value();
  if (outermost) retry_deadline_ = start + busy_deadline_;
  struct ClearDeadline {
    std::optional<SteadyClock::time_point>* deadline;
    bool clear;
    ~ClearDeadline() {
      if (clear) deadline->reset();
    }
  } clear_deadline{&retry_deadline_, outermost};
  auto backoff = std::chrono::microseconds(200);
  while (true) {
    absl::Status status = op();
    if (!IsBusy(status)) return status;
    if (SteadyClock::now() - start >= busy_deadline_) {
      return absl::UnavailableError(absl::StrCat(
          "sqlite store \"", path_,
          "\": other connections kept the database locked for ",
          std::chrono::duration_cast<std::chrono::milliseconds>(busy_deadline_)
              .count(),
          " ms; try again later"));
    }
    std::this_thread::sleep_for(Jittered(backoff));
    backoff = std::min(backoff * 2, std::chrono::microseconds(20'000));
  }
}

// Cached statements rather than sqlite3_exec, which parses the SQL again on
// every call: a tenth of a small write transaction's cost.
absl::Status SqliteConnection::Run(const char* sql) {
  HPTUNE_ASSIGN_OR_RETURN(Statement statement, Prepare(sql));
  return statement.Run();
}

absl::Status SqliteConnection::InTransaction(
    TransactionMode mode, absl::FunctionRef<absl::Status()> body) {
  return RetryWhileBusy([&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(
        Run(mode == TransactionMode::kWrite ? "BEGIN IMMEDIATE" : "BEGIN"));
    absl::Status status = body();
    if (status.ok()) status = Run("COMMIT");
    // A failed COMMIT can leave the transaction open; roll back in any case
    // so a retry or the next call starts clean.
    if (!sqlite3_get_autocommit(db_)) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    return status;
  });
}

absl::Status SqliteConnection::InSavepoint(
    absl::FunctionRef<absl::Status()> body, absl::Status* body_status) {
  HPTUNE_RETURN_IF_ERROR(Run("SAVEPOINT write_body"));
  *body_status = body();
  if (IsBusy(*body_status)) return *body_status;
  if (sqlite3_get_autocommit(db_)) {
    return body_status->ok() ? absl::InternalError(absl::StrCat(
                                   "sqlite store \"", path_,
                                   "\": the transaction ended inside a write"))
                             : *body_status;
  }
  if (!body_status->ok()) HPTUNE_RETURN_IF_ERROR(Run("ROLLBACK TO write_body"));
  return Run("RELEASE write_body");
}

}  // namespace hptune::store::internal
