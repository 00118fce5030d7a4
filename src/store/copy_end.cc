#include "src/store/copy_end.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hptune::store::internal {
namespace {

std::string Quoted(const std::string& name) {
  return absl::StrCat("\"", name, "\"");
}

std::string ColumnList(const std::vector<CopyColumn>& columns) {
  return absl::StrJoin(columns, ", ",
                       [](std::string* out, const CopyColumn& column) {
                         absl::StrAppend(out, Quoted(column.name));
                       });
}

}  // namespace

std::optional<ColumnKind> ColumnKindOf(std::string_view declared) {
  const std::string type = absl::AsciiStrToLower(std::string(declared));
  // SQLite's INTEGER; PostgreSQL's bigint and integer.
  if (type == "integer" || type == "bigint") return ColumnKind::kInteger;
  if (type == "text") return ColumnKind::kText;
  if (type == "blob" || type == "bytea") return ColumnKind::kBlob;
  return std::nullopt;
}

std::string InsertSql(const std::string& table,
                      const std::vector<CopyColumn>& columns, size_t rows) {
  std::string sql = absl::StrCat("INSERT INTO ", Quoted(table), " (",
                                 ColumnList(columns), ") VALUES ");
  int index = 1;
  for (size_t row = 0; row < rows; ++row) {
    absl::StrAppend(&sql, row == 0 ? "(" : ", (");
    for (size_t column = 0; column < columns.size(); ++column, ++index) {
      absl::StrAppend(&sql, column == 0 ? "?" : ", ?", index);
    }
    absl::StrAppend(&sql, ")");
  }
  return sql;
}

std::string SelectSql(const std::string& table,
                      const std::vector<CopyColumn>& columns) {
  return absl::StrCat("SELECT ", ColumnList(columns), " FROM ", Quoted(table));
}

}  // namespace hptune::store::internal
