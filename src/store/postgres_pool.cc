#include "src/store/postgres_pool.h"

#include <utility>

namespace hptune::store::internal {

PgPool::PgPool(std::string conninfo, std::string printable, int size,
               std::unique_ptr<PgConnection> first)
    : conninfo_(std::move(conninfo)),
      printable_(std::move(printable)),
      size_(size) {
  MutexLock lock(&mu_);
  if (first != nullptr) {
    idle_.push_back(std::move(first));
    open_ = 1;
  }
}

absl::StatusOr<std::unique_ptr<PgConnection>> PgPool::Connect() const {
  return PgConnection::Open(conninfo_, printable_);
}

absl::StatusOr<std::unique_ptr<PgConnection>> PgPool::Take() {
  {
    MutexLock lock(&mu_);
    while (idle_.empty() && open_ >= size_) returned_.Wait(&mu_);
    if (!idle_.empty()) {
      std::unique_ptr<PgConnection> connection = std::move(idle_.back());
      idle_.pop_back();
      return connection;
    }
    ++open_;  // Counted while it connects, so the bound holds.
  }
  absl::StatusOr<std::unique_ptr<PgConnection>> opened = Connect();
  if (!opened.ok()) {
    MutexLock lock(&mu_);
    --open_;
    returned_.Signal();
  }
  return opened;
}

void PgPool::Give(std::unique_ptr<PgConnection> connection) {
  MutexLock lock(&mu_);
  if (connection->ok()) {
    idle_.push_back(std::move(connection));
  } else {
    --open_;  // Broken: closed, and a fresh one opened when needed.
  }
  returned_.Signal();
}

absl::Status PgPool::With(absl::FunctionRef<absl::Status(PgConnection&)> body) {
  absl::StatusOr<std::unique_ptr<PgConnection>> connection = Take();
  if (!connection.ok()) return connection.status();
  const absl::Status status = body(**connection);
  Give(*std::move(connection));
  return status;
}

}  // namespace hptune::store::internal
