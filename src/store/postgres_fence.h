// PgFence: what keeps a process that lost its runner lease from writing.
//
// Used by PostgresStore, whose every write transaction begins here. Each
// runner lease taken through the store holds, on its own session, an
// advisory lock of class kPgFenceClass keyed by a token of its own; a write
// takes the database's write lock and then tries to take each such lock
// for its transaction. While the lease's session lives the try fails, and
// the write goes on; once the database ended the session (the process was
// partitioned from it, or the session terminated), its locks are free, the
// lease's job locks with them, the try succeeds, and this store refuses
// that write and every later one, even after the lease is dropped: the
// process must exit. A try is a lookup in the lock table, not a scan of it.
// The check and the write commit under the one lock every write takes, and
// a taker crosses that lock once after it took a job (postgres_lease.cc),
// so it reads nothing a fenced writer changes later. Thread-safe.
#ifndef HPTUNE_SRC_STORE_POSTGRES_FENCE_H_
#define HPTUNE_SRC_STORE_POSTGRES_FENCE_H_

#include <cstdint>
#include <set>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "hptune/core/mutex.h"
#include "src/store/postgres_connection.h"

namespace hptune::store::internal {

class PgFence {
 public:
  // A lease whose session holds the lock (kPgFenceClass, `token`).
  void Add(int32_t token);
  // That lease was released while still held.
  void Remove(int32_t token);
  // A lease found lost by its own check: no write passes from now on.
  void Lost();

  // The start of a write transaction on `db`: takes the database's write
  // lock, then checks every lease added. Unavailable, for good, once one
  // is lost.
  [[nodiscard]] absl::Status LockForWrite(PgConnection& db);

 private:
  absl::Status Refusal(const PgConnection& db) const;

  Mutex mu_;
  std::set<int32_t> tokens_ ABSL_GUARDED_BY(mu_);
  bool lost_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_POSTGRES_FENCE_H_
