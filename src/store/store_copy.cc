#include "hptune/store/store_copy.h"

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hptune/core/check.h"
#include "hptune/core/status.h"
#include "hptune/env/env.h"
#include "src/store/copy_end.h"

namespace hptune::store {
namespace {

using internal::CopyColumn;
using internal::CopyEnd;
using internal::CopyRow;

// Every table of both schemas (schema.cc, postgres_schema.cc), each after
// the tables its rows refer to. A table not listed here fails the copy.
constexpr std::array<const char*, 8> kTables = {
    "studies", "trials", "measurements", "designer_state",
    "jobs",    "events", "notes",        "note_edits"};

// Values one INSERT carries: within SQLite's and PostgreSQL's bounds on
// parameters, and enough rows that a round trip is not one per row.
constexpr size_t kCellsPerInsert = 900;

// One side of the copy: its store opened through OpenStore (so its schema
// is current), the runner lease held as a server's, and a row-level end on
// it. Members are destroyed end first, store last.
struct Side {
  std::string printable;
  std::unique_ptr<Store> store;
  std::unique_ptr<RunnerLease> lease;
  std::unique_ptr<CopyEnd> end;
};

absl::StatusOr<Side> OpenSide(const std::string& url, const StoreUrl& parsed,
                              bool source, Clock& clock,
                              const SqliteStoreOptions& sqlite) {
  Side side{.printable = PrintableStoreUrl(url)};
  const char* role = source ? "source" : "target";
  if (parsed.scheme == StoreUrl::Scheme::kMemory) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the ", role, " store \"memory:\" ",
        source ? "holds nothing to copy" : "would keep nothing copied",
        ": name a sqlite: file or a postgresql:// database"));
  }
  HPTUNE_CHECK(
      parsed.scheme != StoreUrl::Scheme::kSqlite || sqlite.env != nullptr,
      "CopyStore: a sqlite: store needs SqliteStoreOptions::env");
  if (source && parsed.scheme == StoreUrl::Scheme::kSqlite &&
      !sqlite.env->InfoOf(parsed.path, Links::kFollow).ok()) {
    return absl::NotFoundError(absl::StrCat(
        "the source store \"", side.printable, "\" does not exist"));
  }
  HPTUNE_ASSIGN_OR_RETURN(side.store, OpenStore(url, clock, sqlite));
  absl::StatusOr<std::unique_ptr<RunnerLease>> lease =
      side.store->AcquireRunnerLease(RunnerHolder::kServer, "");
  if (!lease.ok()) {
    return absl::Status(lease.status().code(),
                        absl::StrCat("cannot copy ", source ? "from" : "into",
                                     " it: ", lease.status().message()));
  }
  side.lease = *std::move(lease);
  if (parsed.scheme == StoreUrl::Scheme::kPostgres) {
    HPTUNE_ASSIGN_OR_RETURN(
        side.end, internal::OpenPostgresCopyEnd(parsed.path, side.printable));
  } else {
    HPTUNE_ASSIGN_OR_RETURN(
        side.end,
        internal::OpenSqliteCopyEnd(
            parsed.path, parsed.busy_deadline.value_or(sqlite.busy_deadline)));
  }
  return side;
}

// FailedPrecondition unless the store's tables are kTables.
absl::Status CheckTables(CopyEnd& end) {
  HPTUNE_ASSIGN_OR_RETURN(std::set<std::string> tables, end.Tables());
  const std::set<std::string> known(kTables.begin(), kTables.end());
  for (const std::string& table : tables) {
    if (!known.contains(table)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "store \"", end.printable(), "\" has a table \"", table,
          "\" that this hptune does not copy; copy it with a newer hptune"));
    }
  }
  for (const std::string& table : known) {
    if (!tables.contains(table)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "store \"", end.printable(), "\" has no table \"", table, "\""));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckEmpty(CopyEnd& end) {
  std::vector<std::string> held;
  for (const char* table : kTables) {
    HPTUNE_ASSIGN_OR_RETURN(int64_t rows, end.CountRows(table));
    if (rows > 0) held.push_back(absl::StrCat(rows, " ", table));
  }
  if (held.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "the target store \"", end.printable(), "\" is not empty: it holds ",
      absl::StrJoin(held, ", "),
      "; copy into a new database (or a new file), never over one in use"));
}

// The source's columns of `table`, which the target must have alike (in
// any order).
absl::StatusOr<std::vector<CopyColumn>> MatchedColumns(
    CopyEnd& from, CopyEnd& to, const std::string& table) {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<CopyColumn> columns, from.Columns(table));
  HPTUNE_ASSIGN_OR_RETURN(std::vector<CopyColumn> theirs, to.Columns(table));
  std::vector<CopyColumn> sorted = columns;
  auto by_name = [](const CopyColumn& a, const CopyColumn& b) {
    return a.name < b.name;
  };
  std::sort(sorted.begin(), sorted.end(), by_name);
  std::sort(theirs.begin(), theirs.end(), by_name);
  if (sorted != theirs) {
    return absl::FailedPreconditionError(absl::StrCat(
        "table \"", table, "\" has other columns in \"", from.printable(),
        "\" than in \"", to.printable(), "\"; open both with this hptune"));
  }
  return columns;
}

// Copies the rows of `table`, kCellsPerInsert values to an INSERT.
absl::StatusOr<int64_t> CopyTable(CopyEnd& from, CopyEnd& to,
                                  const std::string& table) {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<CopyColumn> columns,
                          MatchedColumns(from, to, table));
  const size_t batch_rows = std::max<size_t>(
      1, kCellsPerInsert / std::max<size_t>(1, columns.size()));
  std::vector<CopyRow> batch;
  int64_t copied = 0;
  HPTUNE_RETURN_IF_ERROR(
      from.ForEachRow(table, columns, [&](const CopyRow& row) -> absl::Status {
        batch.push_back(row);
        ++copied;
        if (batch.size() < batch_rows) return absl::OkStatus();
        const absl::Status inserted = to.InsertRows(table, columns, batch);
        batch.clear();
        return inserted;
      }));
  if (!batch.empty()) {
    HPTUNE_RETURN_IF_ERROR(to.InsertRows(table, columns, batch));
  }
  HPTUNE_RETURN_IF_ERROR(to.ContinueIds(table));
  return copied;
}

}  // namespace

absl::StatusOr<std::vector<CopiedTable>> CopyStore(const std::string& from_url,
                                                   const std::string& to_url,
                                                   Clock& clock,
                                                   SqliteStoreOptions sqlite) {
  HPTUNE_ASSIGN_OR_RETURN(StoreUrl from_parsed, ParseStoreUrl(from_url));
  HPTUNE_ASSIGN_OR_RETURN(StoreUrl to_parsed, ParseStoreUrl(to_url));
  if (from_parsed == to_parsed) {
    return absl::InvalidArgumentError(
        absl::StrCat("the source and the target are the same store \"",
                     PrintableStoreUrl(from_url), "\""));
  }
  HPTUNE_ASSIGN_OR_RETURN(Side source,
                          OpenSide(from_url, from_parsed, true, clock, sqlite));
  HPTUNE_ASSIGN_OR_RETURN(Side target,
                          OpenSide(to_url, to_parsed, false, clock, sqlite));
  std::vector<CopiedTable> copied;
  HPTUNE_RETURN_IF_ERROR(target.end->WriteTransaction([&]() -> absl::Status {
    copied.clear();  // The body runs again when SQLite was busy.
    HPTUNE_RETURN_IF_ERROR(CheckTables(*target.end));
    HPTUNE_RETURN_IF_ERROR(CheckEmpty(*target.end));
    return source.end->ReadSnapshot([&]() -> absl::Status {
      HPTUNE_RETURN_IF_ERROR(CheckTables(*source.end));
      for (const char* table : kTables) {
        HPTUNE_ASSIGN_OR_RETURN(int64_t rows,
                                CopyTable(*source.end, *target.end, table));
        copied.push_back({table, rows});
      }
      return absl::OkStatus();
    });
  }));
  return copied;
}

}  // namespace hptune::store
