// The SQLite end of a store copy (copy_end.h).
#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "src/store/copy_end.h"
#include "src/store/schema.h"
#include "src/store/sqlite_connection.h"

namespace hptune::store::internal {
namespace {

class SqliteCopyEnd : public CopyEnd {
 public:
  explicit SqliteCopyEnd(std::unique_ptr<SqliteConnection> db)
      : db_(std::move(db)) {}

  const std::string& printable() const override { return db_->path(); }

  absl::Status ReadSnapshot(absl::FunctionRef<absl::Status()> body) override {
    return db_->InTransaction(TransactionMode::kRead, body);
  }
  // BEGIN IMMEDIATE: the file's write lock, held to the commit.
  absl::Status WriteTransaction(
      absl::FunctionRef<absl::Status()> body) override {
    return db_->InTransaction(TransactionMode::kWrite, body);
  }

  absl::StatusOr<std::set<std::string>> Tables() override {
    HPTUNE_ASSIGN_OR_RETURN(
        Statement statement,
        db_->Prepare("SELECT name FROM sqlite_master WHERE type = 'table' "
                     "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"));
    std::set<std::string> tables;
    while (true) {
      HPTUNE_ASSIGN_OR_RETURN(bool row, statement.Step());
      if (!row) return tables;
      tables.insert(statement.ColumnText(0));
    }
  }

  absl::StatusOr<std::vector<CopyColumn>> Columns(
      const std::string& table) override {
    HPTUNE_ASSIGN_OR_RETURN(
        Statement statement,
        db_->Prepare("SELECT name, type FROM pragma_table_info(?1) ORDER BY "
                     "cid"));
    statement.BindText(1, table);
    std::vector<CopyColumn> columns;
    while (true) {
      HPTUNE_ASSIGN_OR_RETURN(bool row, statement.Step());
      if (!row) return columns;
      const std::string type = statement.ColumnText(1);
      const std::optional<ColumnKind> kind = ColumnKindOf(type);
      if (!kind) {
        return absl::FailedPreconditionError(
            absl::StrCat("sqlite store \"", db_->path(), "\": column ", table,
                         ".", statement.ColumnText(0), " has type ", type,
                         ", which a store copy does not know"));
      }
      columns.push_back({statement.ColumnText(0), *kind});
    }
  }

  absl::StatusOr<int64_t> CountRows(const std::string& table) override {
    const std::string sql =
        absl::StrCat("SELECT count(*) FROM \"", table, "\"");
    HPTUNE_ASSIGN_OR_RETURN(Statement statement, db_->Prepare(sql.c_str()));
    HPTUNE_ASSIGN_OR_RETURN(bool row, statement.Step());
    return row ? statement.ColumnInt(0) : 0;
  }

  // SQLite steps through the table: one row in memory at a time.
  absl::Status ForEachRow(
      const std::string& table, const std::vector<CopyColumn>& columns,
      absl::FunctionRef<absl::Status(const CopyRow&)> each) override {
    const std::string sql = SelectSql(table, columns);
    HPTUNE_ASSIGN_OR_RETURN(Statement statement, db_->Prepare(sql.c_str()));
    CopyRow row(columns.size());
    while (true) {
      HPTUNE_ASSIGN_OR_RETURN(bool more, statement.Step());
      if (!more) return absl::OkStatus();
      for (size_t i = 0; i < columns.size(); ++i) {
        CopyCell& cell = row[i];
        cell.null = statement.ColumnIsNull(static_cast<int>(i));
        if (cell.null) continue;
        if (columns[i].kind == ColumnKind::kInteger) {
          cell.number = statement.ColumnInt(static_cast<int>(i));
        } else if (columns[i].kind == ColumnKind::kBlob) {
          cell.bytes = statement.ColumnBlob(static_cast<int>(i));
        } else {
          cell.bytes = statement.ColumnText(static_cast<int>(i));
        }
      }
      HPTUNE_RETURN_IF_ERROR(each(row));
    }
  }

  absl::Status InsertRows(const std::string& table,
                          const std::vector<CopyColumn>& columns,
                          const std::vector<CopyRow>& rows) override {
    const std::string sql = InsertSql(table, columns, rows.size());
    HPTUNE_ASSIGN_OR_RETURN(Statement statement, db_->Prepare(sql.c_str()));
    BindRows(statement, columns, rows);
    return statement.Run();
  }

  // An INTEGER PRIMARY KEY goes on after the largest id, and an
  // AUTOINCREMENT one (events) after the largest ever inserted, which an
  // insert with its id counts: nothing to do.
  absl::Status ContinueIds(const std::string&) override {
    return absl::OkStatus();
  }

 private:
  std::unique_ptr<SqliteConnection> db_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<CopyEnd>> OpenSqliteCopyEnd(
    const std::string& path, std::chrono::milliseconds busy_deadline) {
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<SqliteConnection> db,
                          SqliteConnection::Open(path, busy_deadline));
  // The store's connection settings (foreign keys, WAL); the schema is
  // current already.
  HPTUNE_RETURN_IF_ERROR(PrepareDatabase(*db));
  return std::unique_ptr<CopyEnd>(new SqliteCopyEnd(std::move(db)));
}

}  // namespace hptune::store::internal
