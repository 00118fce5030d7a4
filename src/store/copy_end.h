// CopyEnd: one side of a store copy (store_copy.h), a database reached
// row by row beneath the Store interface: its tables and columns as the
// database describes them, a snapshot to read every row from, and one
// transaction to write them in.
//
// Used only by CopyStore (store_copy.cc), which decides what is copied and
// checks it; an end only moves rows. The two dialects' column types (SQLite's
// INTEGER, TEXT, BLOB; PostgreSQL's bigint, text, bytea) meet in one place,
// ColumnKindOf: a value is copied as an integer, a text or a blob, exactly.
// Ends for SQLite (copy_sqlite.cc) and PostgreSQL (copy_postgres.cc). Not
// thread-safe: one connection, one user.
#ifndef HPTUNE_SRC_STORE_COPY_END_H_
#define HPTUNE_SRC_STORE_COPY_END_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace hptune::store::internal {

enum class ColumnKind { kInteger, kText, kBlob };

struct CopyColumn {
  std::string name;
  ColumnKind kind = ColumnKind::kText;
  bool operator==(const CopyColumn&) const = default;
};

// One value: `number` for an integer, `bytes` for a text or a blob.
struct CopyCell {
  bool null = false;
  int64_t number = 0;
  std::string bytes;
};
using CopyRow = std::vector<CopyCell>;

// The kind of a column whose declared type is `declared` (either dialect's
// name, any case); nullopt for a type no hptune table uses.
std::optional<ColumnKind> ColumnKindOf(std::string_view declared);

// "INSERT INTO "table" ("a", "b") VALUES (?1, ?2), (?3, ?4)" for `rows`
// rows; names quoted, placeholders in SQLite's form (PgConnection turns
// them into $N).
std::string InsertSql(const std::string& table,
                      const std::vector<CopyColumn>& columns, size_t rows);
// "SELECT "a", "b" FROM "table"".
std::string SelectSql(const std::string& table,
                      const std::vector<CopyColumn>& columns);

// Binds the values of `rows` to `statement` (an InsertSql statement of
// either connection) from ?1 on.
template <typename Statement>
void BindRows(Statement& statement, const std::vector<CopyColumn>& columns,
              const std::vector<CopyRow>& rows) {
  int index = 1;
  for (const CopyRow& row : rows) {
    for (size_t i = 0; i < columns.size(); ++i, ++index) {
      const CopyCell& cell = row[i];
      if (cell.null) {
        statement.BindNull(index);
      } else if (columns[i].kind == ColumnKind::kInteger) {
        statement.BindInt(index, cell.number);
      } else if (columns[i].kind == ColumnKind::kBlob) {
        statement.BindBlob(index, cell.bytes);
      } else {
        statement.BindText(index, cell.bytes);
      }
    }
  }
}

class CopyEnd {
 public:
  virtual ~CopyEnd() = default;

  // The database as messages name it (no password).
  virtual const std::string& printable() const = 0;

  // Runs `body` in one read snapshot, or in one write transaction (holding
  // the store's write lock, so no writer of the store comes between), which
  // is committed only when `body` succeeds. The calls below run inside.
  [[nodiscard]] virtual absl::Status ReadSnapshot(
      absl::FunctionRef<absl::Status()> body) = 0;
  [[nodiscard]] virtual absl::Status WriteTransaction(
      absl::FunctionRef<absl::Status()> body) = 0;

  // The database's tables, less its schema's bookkeeping (SQLite's
  // sqlite_* tables, PostgreSQL's hptune_schema).
  virtual absl::StatusOr<std::set<std::string>> Tables() = 0;
  // The columns of `table` in the database's order. FailedPrecondition
  // naming the column for a type ColumnKindOf does not know.
  virtual absl::StatusOr<std::vector<CopyColumn>> Columns(
      const std::string& table) = 0;
  virtual absl::StatusOr<int64_t> CountRows(const std::string& table) = 0;

  // Calls `row` with each row of `table`, reading `columns`, a batch at a
  // time (a table larger than memory streams through).
  [[nodiscard]] virtual absl::Status ForEachRow(
      const std::string& table, const std::vector<CopyColumn>& columns,
      absl::FunctionRef<absl::Status(const CopyRow&)> row) = 0;
  // Inserts `rows` (values of `columns`, in order) into `table`.
  [[nodiscard]] virtual absl::Status InsertRows(
      const std::string& table, const std::vector<CopyColumn>& columns,
      const std::vector<CopyRow>& rows) = 0;
  // After rows went into `table` with their ids: new rows of the store get
  // ids after theirs.
  [[nodiscard]] virtual absl::Status ContinueIds(const std::string& table) = 0;
};

// An end on the SQLite file at `path` (an hptune database at the current
// schema version: OpenStore has opened it).
absl::StatusOr<std::unique_ptr<CopyEnd>> OpenSqliteCopyEnd(
    const std::string& path, std::chrono::milliseconds busy_deadline);
// An end on PostgreSQL database `conninfo` (libpq's), named `printable`.
absl::StatusOr<std::unique_ptr<CopyEnd>> OpenPostgresCopyEnd(
    const std::string& conninfo, const std::string& printable);

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_COPY_END_H_
