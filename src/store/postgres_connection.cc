#include "src/store/postgres_connection.h"

#include <libpq-fe.h>

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "hptune/core/status.h"

namespace hptune::store::internal {
namespace {

// The code for SQLSTATE `state` (PostgreSQL's error codes, appendix A).
absl::StatusCode CodeFor(const std::string& state) {
  if (state.empty() || absl::StartsWith(state, "08") ||
      absl::StartsWith(state, "57P")) {
    return absl::StatusCode::kUnavailable;  // No answer, or connection lost.
  }
  if (state == "25006") return absl::StatusCode::kFailedPrecondition;
  if (absl::StartsWith(state, "53")) {
    return absl::StatusCode::kResourceExhausted;
  }
  if (absl::StartsWith(state, "28") || state == "42501") {
    return absl::StatusCode::kPermissionDenied;
  }
  if (state == "40001" || state == "40P01") return absl::StatusCode::kAborted;
  return absl::StatusCode::kInternal;
}

// Notices (e.g. "relation already exists, skipping") are not errors.
void IgnoreNotice(void*, const char*) {}

}  // namespace

void PgResultFree::operator()(pg_result* result) const { PQclear(result); }

std::string PgPlaceholders(std::string_view sql, int* parameters) {
  std::string out;
  out.reserve(sql.size());
  *parameters = 0;
  bool quoted = false;
  for (size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (c == '\'') quoted = !quoted;
    if (c != '?' || quoted) {
      out += c;
      continue;
    }
    size_t end = i + 1;
    while (end < sql.size() && absl::ascii_isdigit(sql[end])) ++end;
    const std::string digits(sql.substr(i + 1, end - i - 1));
    int n = 0;
    if (!absl::SimpleAtoi(digits, &n)) n = 0;
    if (n > *parameters) *parameters = n;
    absl::StrAppend(&out, "$", digits);
    i = end - 1;
  }
  return out;
}

std::string PgValue(const PgResult& result, int row, int column) {
  if (row >= PQntuples(result.get()) || column >= PQnfields(result.get())) {
    return {};
  }
  return PQgetvalue(result.get(), row, column);
}

// --- PgStatement ---

PgStatement::PgStatement(PgConnection* connection, const std::string* name,
                         int parameters)
    : connection_(connection),
      name_(name),
      values_(parameters),
      binary_(parameters, 0) {}

void PgStatement::Set(int index, std::optional<std::string> value,
                      bool binary) {
  if (index < 1 || index > static_cast<int>(values_.size())) return;
  values_[index - 1] = std::move(value);
  binary_[index - 1] = binary ? 1 : 0;
}

PgStatement& PgStatement::BindInt(int index, int64_t value) {
  Set(index, absl::StrCat(value), false);
  return *this;
}
PgStatement& PgStatement::BindText(int index, std::string_view value) {
  Set(index, std::string(value), false);
  return *this;
}
PgStatement& PgStatement::BindBlob(int index, std::string_view value) {
  Set(index, std::string(value), true);
  return *this;
}
PgStatement& PgStatement::BindNull(int index) {
  Set(index, std::nullopt, false);
  return *this;
}
PgStatement& PgStatement::BindOptionalInt(int index,
                                          std::optional<int64_t> value) {
  if (!value) return BindNull(index);
  return BindInt(index, *value);
}

absl::StatusOr<bool> PgStatement::Step() {
  if (result_ == nullptr) {
    std::vector<const char*> values;
    std::vector<int> lengths;
    for (const std::optional<std::string>& value : values_) {
      values.push_back(value ? value->c_str() : nullptr);
      lengths.push_back(value ? static_cast<int>(value->size()) : 0);
    }
    result_.reset(PQexecPrepared(connection_->conn_, name_->c_str(),
                                 static_cast<int>(values.size()), values.data(),
                                 lengths.data(), binary_.data(),
                                 /*resultFormat=*/0));
    const ExecStatusType status = PQresultStatus(result_.get());
    if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
      return connection_->Error(result_.get(), "statement");
    }
  }
  ++row_;
  return row_ < PQntuples(result_.get());
}

absl::Status PgStatement::Run() { return Step().status(); }

bool PgStatement::ColumnIsNull(int column) const {
  return PQgetisnull(result_.get(), row_, column) != 0;
}

int64_t PgStatement::ColumnInt(int column) const {
  int64_t value = 0;
  if (!absl::SimpleAtoi(PQgetvalue(result_.get(), row_, column), &value)) {
    return 0;
  }
  return value;
}

std::string PgStatement::ColumnText(int column) const {
  return std::string(PQgetvalue(result_.get(), row_, column),
                     PQgetlength(result_.get(), row_, column));
}

std::string PgStatement::ColumnBlob(int column) const {
  size_t size = 0;
  unsigned char* bytes =
      PQunescapeBytea(reinterpret_cast<const unsigned char*>(
                          PQgetvalue(result_.get(), row_, column)),
                      &size);
  if (bytes == nullptr) return {};
  std::string blob(reinterpret_cast<const char*>(bytes), size);
  PQfreemem(bytes);
  return blob;
}

std::optional<int64_t> PgStatement::ColumnOptionalInt(int column) const {
  if (ColumnIsNull(column)) return std::nullopt;
  return ColumnInt(column);
}

// --- PgConnection ---

absl::StatusOr<std::unique_ptr<PgConnection>> PgConnection::Open(
    const std::string& conninfo, const std::string& printable) {
  pg_conn* conn = PQconnectdb(conninfo.c_str());
  if (conn == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "postgresql store \"", printable, "\": cannot allocate a connection"));
  }
  if (PQstatus(conn) != CONNECTION_OK) {
    const std::string why(
        absl::StripTrailingAsciiWhitespace(PQerrorMessage(conn)));
    PQfinish(conn);
    const bool refused = absl::StrContains(why, "authentication failed") ||
                         absl::StrContains(why, "password");
    return absl::Status(refused ? absl::StatusCode::kPermissionDenied
                                : absl::StatusCode::kUnavailable,
                        absl::StrCat("postgresql store \"", printable,
                                     "\": cannot connect: ", why));
  }
  PQsetNoticeProcessor(conn, IgnoreNotice, nullptr);
  std::unique_ptr<PgConnection> connection(new PgConnection(conn, printable));
  // Durable when COMMIT returns, whatever the server's default.
  HPTUNE_RETURN_IF_ERROR(connection->Exec(
      "SET synchronous_commit = on; SET client_encoding = 'UTF8'"));
  return connection;
}

PgConnection::~PgConnection() { PQfinish(conn_); }

bool PgConnection::ok() const { return PQstatus(conn_) == CONNECTION_OK; }

absl::Status PgConnection::Error(const pg_result* result,
                                 std::string_view context) const {
  const char* state = result == nullptr
                          ? nullptr
                          : PQresultErrorField(result, PG_DIAG_SQLSTATE);
  const char* message =
      result == nullptr ? PQerrorMessage(conn_) : PQresultErrorMessage(result);
  absl::StatusCode code = CodeFor(state == nullptr ? "" : state);
  if (!ok()) code = absl::StatusCode::kUnavailable;
  std::string why(absl::StripTrailingAsciiWhitespace(message));
  if (code == absl::StatusCode::kFailedPrecondition) {
    why = absl::StrCat("the database is read-only: ", why);
  }
  return absl::Status(code,
                      absl::StrCat("postgresql store \"", printable_,
                                   "\": ", std::string(context), ": ", why));
}

absl::Status PgConnection::Exec(const std::string& sql) {
  return Query(sql).status();
}

absl::StatusOr<PgResult> PgConnection::Query(const std::string& sql) {
  PgResult result(PQexec(conn_, sql.c_str()));
  const ExecStatusType status = PQresultStatus(result.get());
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
    return Error(result.get(), sql.substr(0, 60));
  }
  return result;
}

absl::StatusOr<PgStatement> PgConnection::Prepare(const char* sql) {
  auto [it, added] = prepared_.try_emplace(sql);
  if (added) {
    it->second.name = absl::StrCat("hptune_", prepared_.size());
    const std::string text = PgPlaceholders(sql, &it->second.parameters);
    PgResult result(PQprepare(conn_, it->second.name.c_str(), text.c_str(),
                              it->second.parameters, nullptr));
    if (PQresultStatus(result.get()) != PGRES_COMMAND_OK) {
      absl::Status error = Error(result.get(), "prepare");
      prepared_.erase(it);
      return error;
    }
  }
  return PgStatement(this, &it->second.name, it->second.parameters);
}

absl::Status PgConnection::InTransaction(
    const char* begin, absl::FunctionRef<absl::Status()> body) {
  HPTUNE_RETURN_IF_ERROR(Exec(begin));
  absl::Status status = body();
  if (status.ok()) status = Exec("COMMIT");
  if (!status.ok() && ok()) (void)Exec("ROLLBACK");
  return status;
}

absl::Status PgConnection::InSavepoint(absl::FunctionRef<absl::Status()> body,
                                       absl::Status* body_status) {
  HPTUNE_RETURN_IF_ERROR(Exec("SAVEPOINT write_body"));
  *body_status = body();
  if (!ok()) return *body_status;
  if (!body_status->ok()) {
    HPTUNE_RETURN_IF_ERROR(Exec("ROLLBACK TO SAVEPOINT write_body"));
  }
  return Exec("RELEASE SAVEPOINT write_body");
}

}  // namespace hptune::store::internal
