// PgPool: PostgresStore's connections to its database, opened as needed up
// to a bound and kept for the next call.
//
// A call takes an idle connection, or opens one while fewer than `size` are
// open, or waits for one to come back. A connection that broke (the server
// restarted or went away) is closed instead of kept, so the next call opens
// a fresh one. Thread-safe.
#ifndef HPTUNE_SRC_STORE_POSTGRES_POOL_H_
#define HPTUNE_SRC_STORE_POSTGRES_POOL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/mutex.h"
#include "src/store/postgres_connection.h"

namespace hptune::store::internal {

class PgPool {
 public:
  // `conninfo` for libpq; `printable` names the database in messages.
  // `first` (an open connection) becomes the pool's first idle one.
  PgPool(std::string conninfo, std::string printable, int size,
         std::unique_ptr<PgConnection> first);

  // Runs `body` on a connection of the pool.
  [[nodiscard]] absl::Status With(
      absl::FunctionRef<absl::Status(PgConnection&)> body);

  // A new connection outside the pool, for a caller that holds it alone
  // (a runner lease's session locks).
  absl::StatusOr<std::unique_ptr<PgConnection>> Connect() const;

  const std::string& printable() const { return printable_; }

 private:
  absl::StatusOr<std::unique_ptr<PgConnection>> Take();
  void Give(std::unique_ptr<PgConnection> connection);

  const std::string conninfo_;
  const std::string printable_;
  const int size_;
  Mutex mu_;
  CondVar returned_;
  std::vector<std::unique_ptr<PgConnection>> idle_ ABSL_GUARDED_BY(mu_);
  int open_ ABSL_GUARDED_BY(mu_) = 0;  // Idle and in use.
};

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_POSTGRES_POOL_H_
