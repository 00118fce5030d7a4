#include "src/store/reader_pool.h"

#include <utility>

namespace hptune::store::internal {

ReaderPool::ReaderPool(std::string path,
                       std::chrono::milliseconds busy_deadline,
                       std::unique_ptr<SqliteConnection> first,
                       int max_connections)
    : path_(std::move(path)),
      busy_deadline_(busy_deadline),
      max_connections_(max_connections) {
  free_.push_back(first.get());
  connections_.push_back(std::move(first));
}

SqliteConnection& ReaderPool::Acquire() {
  MutexLock lock(&mu_);
  if (free_.empty() && !open_failed_ &&
      static_cast<int>(connections_.size()) < max_connections_) {
    // Opening takes the lock for a moment only: SQLite reads the schema on
    // the connection's first statement, not here.
    absl::StatusOr<std::unique_ptr<SqliteConnection>> opened =
        SqliteConnection::Open(path_, busy_deadline_);
    if (opened.ok()) {
      connections_.push_back(*std::move(opened));
      return *connections_.back();
    }
    open_failed_ = true;  // The connections already open still serve.
  }
  while (free_.empty()) freed_.Wait(&mu_);
  SqliteConnection* connection = free_.back();
  free_.pop_back();
  return *connection;
}

void ReaderPool::Release(SqliteConnection& connection) {
  {
    MutexLock lock(&mu_);
    free_.push_back(&connection);
  }
  freed_.Signal();
}

absl::Status ReaderPool::With(
    absl::FunctionRef<absl::Status(SqliteConnection&)> body) {
  SqliteConnection& connection = Acquire();
  absl::Status status = body(connection);
  Release(connection);
  return status;
}

}  // namespace hptune::store::internal
