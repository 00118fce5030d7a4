// PgFence: what keeps a process that lost its runner lease from writing.
//
// Used by PostgresStore: each runner lease taken through the store puts its
// session here (the session's backend pid and the lock that says the lease
// is held); each write transaction checks, after it took the database's
// write lock, that every such session still holds its lock. Once the
// database ended one (the process was partitioned from it, or the session
// was terminated), the lease's locks are free for another server, and this
// store refuses every write from then on, even after the lease is dropped:
// the process must exit. The check and the write commit under one lock that
// every write takes, and a taker crosses that lock once after it took a job
// (postgres_lease.cc), so it reads nothing a fenced writer changes later.
// Thread-safe.
#ifndef HPTUNE_SRC_STORE_POSTGRES_FENCE_H_
#define HPTUNE_SRC_STORE_POSTGRES_FENCE_H_

#include <cstdint>
#include <map>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "hptune/core/mutex.h"
#include "src/store/postgres_connection.h"

namespace hptune::store::internal {

class PgFence {
 public:
  // The lease whose session is backend `pid` holds the two-int advisory
  // lock (kPgLockClass, `key`) while it is held.
  void Add(int pid, int32_t key);
  // That lease was released while still held.
  void Remove(int pid);
  // A lease found lost by its own check: no write passes from now on.
  void Lost();

  // In a write transaction, after its write lock: OK while every lease
  // added still holds its lock; Unavailable, for good, once one does not.
  [[nodiscard]] absl::Status Check(PgConnection& db);

 private:
  Mutex mu_;
  std::map<int, int32_t> leases_ ABSL_GUARDED_BY(mu_);
  bool lost_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_POSTGRES_FENCE_H_
