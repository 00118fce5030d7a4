// PgConnection: one libpq connection to a PostgreSQL server, its prepared
// statements, and transactions.
//
// Used by PostgresStore (through its pool), its schema code and its runner
// lease. It offers the calls of SqliteConnection that the table code
// (store_tables.h) uses: Prepare takes SQL with ?N placeholders (SQLite's
// form) and prepares it once per connection with $N; a PgStatement binds
// values as text (a blob as binary), runs on its first Step and reads the
// rows it got. libpq's C API reports errors as values, which become
// absl::Status naming the database (its password left out): Unavailable for
// a server that is down or a connection that broke, FailedPrecondition for a
// read-only database. Not thread-safe: one user at a time (the pool's).
#ifndef HPTUNE_SRC_STORE_POSTGRES_CONNECTION_H_
#define HPTUNE_SRC_STORE_POSTGRES_CONNECTION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/store/spec_cache.h"

struct pg_conn;
struct pg_result;

namespace hptune::store::internal {

class PgConnection;

// Frees a PGresult.
struct PgResultFree {
  void operator()(pg_result* result) const;
};
using PgResult = std::unique_ptr<pg_result, PgResultFree>;

// One run of a prepared statement. Binding is 1-based, columns 0-based.
class PgStatement {
 public:
  PgStatement(PgStatement&&) noexcept = default;
  PgStatement& operator=(PgStatement&&) = delete;

  PgStatement& BindInt(int index, int64_t value);
  PgStatement& BindText(int index, std::string_view value);
  PgStatement& BindBlob(int index, std::string_view value);
  PgStatement& BindNull(int index);
  PgStatement& BindOptionalInt(int index, std::optional<int64_t> value);

  // Runs the statement on the first call; then true while a row is ready.
  absl::StatusOr<bool> Step();
  // Runs a statement that returns no rows.
  [[nodiscard]] absl::Status Run();

  bool ColumnIsNull(int column) const;
  int64_t ColumnInt(int column) const;  // 0 for a value not a number.
  std::string ColumnText(int column) const;
  std::string ColumnBlob(int column) const;  // bytea, unescaped.
  std::optional<int64_t> ColumnOptionalInt(int column) const;

 private:
  friend class PgConnection;
  PgStatement(PgConnection* connection, const std::string* name,
              int parameters);
  void Set(int index, std::optional<std::string> value, bool binary);

  PgConnection* connection_;
  const std::string* name_;  // The prepared statement's, owned by connection_.
  std::vector<std::optional<std::string>> values_;
  std::vector<int> binary_;
  PgResult result_;
  int row_ = -1;
};

class PgConnection {
 public:
  // Connects with libpq `conninfo` (a postgresql:// URL or key=value
  // words). `printable` names the database in messages (no password).
  static absl::StatusOr<std::unique_ptr<PgConnection>> Open(
      const std::string& conninfo, const std::string& printable);
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  const std::string& printable() const { return printable_; }
  // False once the connection broke (the server went away): drop it.
  bool ok() const;

  // Runs one or more statements that return no rows, without parameters.
  [[nodiscard]] absl::Status Exec(const std::string& sql);
  // Runs one statement without parameters and returns its result.
  absl::StatusOr<PgResult> Query(const std::string& sql);
  // `sql` (one statement, ?N placeholders), prepared on first use.
  absl::StatusOr<PgStatement> Prepare(const char* sql);

  // Runs `body` between `begin` ("BEGIN", or with an isolation level) and
  // COMMIT; rolls back when `body` or the commit fails.
  [[nodiscard]] absl::Status InTransaction(
      const char* begin, absl::FunctionRef<absl::Status()> body);
  // Inside a transaction: runs `body` in a savepoint, so that when it fails
  // only its own changes are undone and the transaction goes on.
  // `*body_status` is the body's result. The returned status fails when the
  // transaction cannot go on (the connection broke, or the savepoint itself
  // failed).
  [[nodiscard]] absl::Status InSavepoint(absl::FunctionRef<absl::Status()> body,
                                         absl::Status* body_status);

  // A Status for a failed `result` (or the connection's last error when
  // null), naming the database and `context`.
  [[nodiscard]] absl::Status Error(const pg_result* result,
                                   std::string_view context) const;

  // The specs this connection decoded from study rows (study_tables.cc).
  StudySpecCache& spec_cache() { return spec_cache_; }

 private:
  friend class PgStatement;
  PgConnection(pg_conn* conn, std::string printable)
      : conn_(conn), printable_(std::move(printable)) {}

  pg_conn* conn_;
  std::string printable_;
  struct Prepared {
    std::string name;
    int parameters = 0;
  };
  std::unordered_map<std::string, Prepared> prepared_;
  StudySpecCache spec_cache_;
};

// The text of row `row`, column `column` of `result`; "" past its end.
std::string PgValue(const PgResult& result, int row, int column);

// `sql` with SQLite's ?N placeholders written as PostgreSQL's $N, and the
// highest N. Placeholders inside quoted strings are left alone.
std::string PgPlaceholders(std::string_view sql, int* parameters);

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_POSTGRES_CONNECTION_H_
