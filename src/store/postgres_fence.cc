#include "src/store/postgres_fence.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "src/store/postgres_schema.h"

namespace hptune::store::internal {

void PgFence::Add(int pid, int32_t key) {
  MutexLock lock(&mu_);
  leases_[pid] = key;
}

void PgFence::Remove(int pid) {
  MutexLock lock(&mu_);
  leases_.erase(pid);
}

void PgFence::Lost() {
  MutexLock lock(&mu_);
  lost_ = true;
}

absl::Status PgFence::Check(PgConnection& db) {
  MutexLock lock(&mu_);
  if (!lost_ && leases_.empty()) return absl::OkStatus();
  if (!lost_) {
    std::string held;
    for (const auto& [pid, key] : leases_) {
      absl::StrAppend(&held, held.empty() ? "" : " OR ", "(pid = ", pid,
                      " AND objid = ", key, ")");
    }
    HPTUNE_ASSIGN_OR_RETURN(
        PgResult result,
        db.Query(absl::StrCat(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND "
            "granted AND classid = ",
            kPgLockClass, " AND objsubid = 2 AND (", held, ")")));
    lost_ = PgValue(result, 0, 0) != std::to_string(leases_.size());
  }
  if (!lost_) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat(
      "lost the runner lease on database \"", db.printable(),
      "\": the database ended its session, and another server may run its "
      "jobs now, so this process writes nothing more"));
}

}  // namespace hptune::store::internal
