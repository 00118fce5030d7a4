// SqliteStore's read helpers, the member templates its source files share
// (sqlite_store.cc, sqlite_store_trials.cc): a value read in one read
// transaction, and the same once the study is known to exist. Internal to
// the store; as thread-safe as SqliteStore::Read.
#ifndef HPTUNE_SRC_STORE_SQLITE_STORE_READS_H_
#define HPTUNE_SRC_STORE_SQLITE_STORE_READS_H_

#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "hptune/core/status.h"
#include "src/store/sqlite_connection.h"
#include "src/store/sqlite_store.h"
#include "src/store/store_rules.h"
#include "src/store/store_tables.h"

namespace hptune::store {

template <typename T>
absl::StatusOr<T> SqliteStore::ReadValue(
    absl::FunctionRef<absl::StatusOr<T>(internal::SqliteConnection&)> select) {
  T value{};
  HPTUNE_RETURN_IF_ERROR(
      Read([&](internal::SqliteConnection& db) -> absl::Status {
        HPTUNE_ASSIGN_OR_RETURN(value, select(db));
        return absl::OkStatus();
      }));
  return value;
}

template <typename T>
absl::StatusOr<T> SqliteStore::ReadFromStudy(
    std::string_view study,
    absl::FunctionRef<absl::StatusOr<T>(internal::SqliteConnection&)> select) {
  return ReadValue<T>([&](internal::SqliteConnection& db) -> absl::StatusOr<T> {
    HPTUNE_ASSIGN_OR_RETURN(bool exists, internal::StudyExists(db, study));
    if (!exists) return internal::StudyNotFound(study);
    return select(db);
  });
}

}  // namespace hptune::store

#endif  // HPTUNE_SRC_STORE_SQLITE_STORE_READS_H_
