// ReaderPool: SqliteStore's read connections, opened as concurrent reads
// need them. Internal to SqliteStore; thread-safe.
//
// In WAL mode every connection reads its own snapshot without waiting for
// the writer or for other readers, but one connection serves one thread at a
// time. With a single read connection the early-stopping checks that follow
// every measurement queued behind each other's reads even with a core idle;
// a few connections let them overlap. Connections are opened on demand up
// to a bound, so a short CLI command still opens one.
#ifndef HPTUNE_SRC_STORE_READER_POOL_H_
#define HPTUNE_SRC_STORE_READER_POOL_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "hptune/core/mutex.h"
#include "src/store/sqlite_connection.h"

namespace hptune::store::internal {

class ReaderPool {
 public:
  // `first` is the pool's first connection; at most `max_connections`
  // (>= 1) are opened on `path`.
  ReaderPool(std::string path, std::chrono::milliseconds busy_deadline,
             std::unique_ptr<SqliteConnection> first, int max_connections);

  // Runs `body` on a connection no other thread is using: a free one, else a
  // new one while under the bound (or when opening one fails), else the
  // first one to be freed.
  [[nodiscard]] absl::Status With(
      absl::FunctionRef<absl::Status(SqliteConnection&)> body);

 private:
  SqliteConnection& Acquire();
  void Release(SqliteConnection& connection);

  const std::string path_;
  const std::chrono::milliseconds busy_deadline_;
  const int max_connections_;
  Mutex mu_;
  CondVar freed_;
  std::vector<std::unique_ptr<SqliteConnection>> connections_
      ABSL_GUARDED_BY(mu_);
  std::vector<SqliteConnection*> free_ ABSL_GUARDED_BY(mu_);
  // Stop trying after one failure.
  bool open_failed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_READER_POOL_H_
