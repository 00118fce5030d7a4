// The PostgreSQL end of a store copy (copy_end.h).
#include <libpq-fe.h>

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "src/store/copy_end.h"
#include "src/store/postgres_connection.h"
#include "src/store/postgres_schema.h"

namespace hptune::store::internal {
namespace {

// Rows a cursor hands over at a time.
constexpr int kFetchRows = 1000;

// Column `column` of `row` of a text-format result, as `kind`.
CopyCell CellOf(const PgResult& result, int row, int column, ColumnKind kind) {
  CopyCell cell;
  cell.null = PQgetisnull(result.get(), row, column) != 0;
  if (cell.null) return cell;
  const char* text = PQgetvalue(result.get(), row, column);
  if (kind == ColumnKind::kInteger) {
    (void)absl::SimpleAtoi(text, &cell.number);
  } else if (kind == ColumnKind::kBlob) {
    size_t size = 0;
    unsigned char* bytes =
        PQunescapeBytea(reinterpret_cast<const unsigned char*>(text), &size);
    if (bytes != nullptr) {
      cell.bytes.assign(reinterpret_cast<const char*>(bytes), size);
      PQfreemem(bytes);
    }
  } else {
    cell.bytes.assign(text, PQgetlength(result.get(), row, column));
  }
  return cell;
}

class PostgresCopyEnd : public CopyEnd {
 public:
  explicit PostgresCopyEnd(std::unique_ptr<PgConnection> db)
      : db_(std::move(db)) {}

  const std::string& printable() const override { return db_->printable(); }

  absl::Status ReadSnapshot(absl::FunctionRef<absl::Status()> body) override {
    return db_->InTransaction(
        "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", body);
  }
  // The store's write lock (postgres_schema.h), held to the commit.
  absl::Status WriteTransaction(
      absl::FunctionRef<absl::Status()> body) override {
    return db_->InTransaction("BEGIN", [&]() -> absl::Status {
      HPTUNE_RETURN_IF_ERROR(db_->Exec(PgWriteLockStatement()));
      return body();
    });
  }

  absl::StatusOr<std::set<std::string>> Tables() override {
    HPTUNE_ASSIGN_OR_RETURN(
        PgResult result,
        db_->Query("SELECT table_name FROM information_schema.tables WHERE "
                   "table_schema = current_schema() AND table_type = "
                   "'BASE TABLE' AND table_name <> 'hptune_schema'"));
    std::set<std::string> tables;
    for (int row = 0; row < PQntuples(result.get()); ++row) {
      tables.insert(PgValue(result, row, 0));
    }
    return tables;
  }

  absl::StatusOr<std::vector<CopyColumn>> Columns(
      const std::string& table) override {
    HPTUNE_ASSIGN_OR_RETURN(
        PgStatement statement,
        db_->Prepare("SELECT column_name, data_type FROM "
                     "information_schema.columns WHERE table_schema = "
                     "current_schema() AND table_name = ?1 ORDER BY "
                     "ordinal_position"));
    statement.BindText(1, table);
    std::vector<CopyColumn> columns;
    while (true) {
      HPTUNE_ASSIGN_OR_RETURN(bool row, statement.Step());
      if (!row) return columns;
      const std::string type = statement.ColumnText(1);
      const std::optional<ColumnKind> kind = ColumnKindOf(type);
      if (!kind) {
        return absl::FailedPreconditionError(
            absl::StrCat("postgresql store \"", db_->printable(), "\": column ",
                         table, ".", statement.ColumnText(0), " has type ",
                         type, ", which a store copy does not know"));
      }
      columns.push_back({statement.ColumnText(0), *kind});
    }
  }

  absl::StatusOr<int64_t> CountRows(const std::string& table) override {
    HPTUNE_ASSIGN_OR_RETURN(
        PgResult result,
        db_->Query(absl::StrCat("SELECT count(*) FROM \"", table, "\"")));
    int64_t rows = 0;
    (void)absl::SimpleAtoi(PgValue(result, 0, 0), &rows);
    return rows;
  }

  // A cursor: kFetchRows rows in memory at a time, whatever the table's
  // size.
  absl::Status ForEachRow(
      const std::string& table, const std::vector<CopyColumn>& columns,
      absl::FunctionRef<absl::Status(const CopyRow&)> each) override {
    HPTUNE_RETURN_IF_ERROR(
        db_->Exec(absl::StrCat("DECLARE hptune_copy NO SCROLL CURSOR FOR ",
                               SelectSql(table, columns))));
    const std::string fetch =
        absl::StrCat("FETCH FORWARD ", kFetchRows, " FROM hptune_copy");
    CopyRow row(columns.size());
    while (true) {
      HPTUNE_ASSIGN_OR_RETURN(PgResult batch, db_->Query(fetch));
      const int rows = PQntuples(batch.get());
      if (rows == 0) break;
      for (int r = 0; r < rows; ++r) {
        for (size_t i = 0; i < columns.size(); ++i) {
          row[i] = CellOf(batch, r, static_cast<int>(i), columns[i].kind);
        }
        HPTUNE_RETURN_IF_ERROR(each(row));
      }
    }
    return db_->Exec("CLOSE hptune_copy");
  }

  absl::Status InsertRows(const std::string& table,
                          const std::vector<CopyColumn>& columns,
                          const std::vector<CopyRow>& rows) override {
    const std::string sql = InsertSql(table, columns, rows.size());
    HPTUNE_ASSIGN_OR_RETURN(PgStatement statement, db_->Prepare(sql.c_str()));
    BindRows(statement, columns, rows);
    return statement.Run();
  }

  // An identity column's sequence does not follow the ids inserted: set it
  // past the largest.
  absl::Status ContinueIds(const std::string& table) override {
    HPTUNE_ASSIGN_OR_RETURN(std::vector<CopyColumn> columns, Columns(table));
    for (const CopyColumn& column : columns) {
      if (column.name != "id") continue;
      return db_->Exec(absl::StrCat(
          "SELECT setval(pg_get_serial_sequence('\"", table,
          "\"', 'id'), COALESCE(max(id), 0) + 1, false) FROM \"", table, "\""));
    }
    return absl::OkStatus();
  }

 private:
  std::unique_ptr<PgConnection> db_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<CopyEnd>> OpenPostgresCopyEnd(
    const std::string& conninfo, const std::string& printable) {
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<PgConnection> db,
                          PgConnection::Open(conninfo, printable));
  return std::unique_ptr<CopyEnd>(new PostgresCopyEnd(std::move(db)));
}

}  // namespace hptune::store::internal
