#include "src/store/postgres_fence.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "src/store/postgres_schema.h"

namespace hptune::store::internal {

void PgFence::Add(int32_t token) {
  MutexLock lock(&mu_);
  tokens_.insert(token);
}

void PgFence::Remove(int32_t token) {
  MutexLock lock(&mu_);
  tokens_.erase(token);
}

void PgFence::Lost() {
  MutexLock lock(&mu_);
  lost_ = true;
}

absl::Status PgFence::Refusal(const PgConnection& db) const {
  return absl::UnavailableError(absl::StrCat(
      "lost the runner lease on database \"", db.printable(),
      "\": the database ended its session, and another server may run its "
      "jobs now, so this process writes nothing more"));
}

namespace {

// Whether `statement` (one row, one boolean) answered true.
absl::StatusOr<bool> True(absl::StatusOr<PgStatement> statement) {
  HPTUNE_RETURN_IF_ERROR(statement.status());
  HPTUNE_ASSIGN_OR_RETURN(bool row, statement->Step());
  return row && statement->ColumnText(0) == "t";
}

}  // namespace

absl::Status PgFence::LockForWrite(PgConnection& db) {
  const std::string& kLock = PgWriteLockStatement();
  // The subquery (kept whole by OFFSET 0) takes the write lock before the
  // try: one round trip, prepared once per connection.
  static const std::string kLockAndTry =
      absl::StrCat("SELECT pg_try_advisory_xact_lock(", kPgFenceClass,
                   ", ?1) FROM (", kLock, " OFFSET 0) AS locked");
  static const std::string kTry =
      absl::StrCat("SELECT pg_try_advisory_xact_lock(", kPgFenceClass, ", ?1)");
  MutexLock lock(&mu_);
  if (lost_) return Refusal(db);
  if (tokens_.empty()) return db.Exec(kLock);
  // A try that succeeds found its lease's session gone.
  bool first = true;
  for (const int32_t token : tokens_) {
    absl::StatusOr<PgStatement> statement =
        db.Prepare(first ? kLockAndTry.c_str() : kTry.c_str());
    if (statement.ok()) statement->BindInt(1, token);
    HPTUNE_ASSIGN_OR_RETURN(bool free, True(std::move(statement)));
    first = false;
    if (free) {
      lost_ = true;
      return Refusal(db);
    }
  }
  return absl::OkStatus();
}

}  // namespace hptune::store::internal
