// WriteQueue: group commit of a store's writes. Each write queues; the
// first in the queue runs everything queued (up to kWritesPerCommit) in one
// transaction, answers each, and hands the queue to the next. Under many
// clients a commit's fixed cost is then paid once per batch instead of once
// per write: the writer's connection changing hands, and the sync that makes
// a commit durable (SQLite's WAL; PostgreSQL's WAL flush, which a writer
// waits out holding the database's write lock, postgres_store.h). A caller
// preempted while committing holds up one commit instead of a convoy of them.
//
// Used by SqliteStore and PostgresStore, templated on their connection.
// Thread-safe. A write's body may run on another writer's thread.
#ifndef HPTUNE_SRC_STORE_WRITE_QUEUE_H_
#define HPTUNE_SRC_STORE_WRITE_QUEUE_H_

#include <algorithm>
#include <cstddef>
#include <deque>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "hptune/core/mutex.h"
#include "hptune/core/status.h"

namespace hptune::store::internal {

template <typename Connection>
class WriteQueue {
 public:
  using Body = absl::FunctionRef<absl::Status(Connection&)>;
  static constexpr size_t kWritesPerCommit = 64;

  // One write waiting for its transaction.
  struct Write {
    const Body* body;
    absl::Status status;  // Set by the commit that carries it.
    bool done = false;    // Under the queue's mutex.
    CondVar turn;         // Signalled when done or first in the queue.
  };
  // Runs a batch: sets each write's status (CommitBatch).
  using Commit = absl::FunctionRef<void(const std::vector<Write*>&)>;

  // Runs `body` in the next batch that `commit` runs, on this thread or on
  // the thread of a write queued before it, and returns its status.
  absl::Status Run(Body body, Commit commit) {
    Write write{.body = &body};
    std::vector<Write*> batch;
    {
      MutexLock lock(&mu_);
      writes_.push_back(&write);
      while (!write.done && writes_.front() != &write) write.turn.Wait(&mu_);
      if (write.done) return write.status;
      const size_t size = std::min(writes_.size(), kWritesPerCommit);
      batch.assign(writes_.begin(), writes_.begin() + size);
    }
    commit(batch);
    MutexLock lock(&mu_);
    for (Write* done : batch) {
      writes_.pop_front();
      done->done = true;
      // Under mu_, so its waiter cannot return (and free it) before.
      done->turn.Signal();
    }
    if (!writes_.empty()) writes_.front()->turn.Signal();
    return write.status;
  }

  // Writes queued or committing now.
  size_t Waiting() {
    MutexLock lock(&mu_);
    return writes_.size();
  }

  // Runs `batch` on `db` in one transaction, which `in_transaction` begins
  // and commits around the body it is given. With several writes each runs
  // in a savepoint of its own (db.InSavepoint), so that a failing write
  // undoes only its own changes. When the transaction fails every write of
  // the batch fails with it: nothing of it is kept.
  static void CommitBatch(
      Connection& db, const std::vector<Write*>& batch,
      absl::FunctionRef<absl::Status(absl::FunctionRef<absl::Status()>)>
          in_transaction) {
    if (batch.size() == 1) {
      batch[0]->status = in_transaction([&] { return (*batch[0]->body)(db); });
      return;
    }
    const absl::Status committed = in_transaction([&]() -> absl::Status {
      for (Write* write : batch) write->status = absl::OkStatus();
      for (Write* write : batch) {
        HPTUNE_RETURN_IF_ERROR(
            db.InSavepoint([&] { return (*write->body)(db); }, &write->status));
      }
      return absl::OkStatus();
    });
    for (Write* write : batch) {
      if (write->status.ok()) write->status = committed;
    }
  }

 private:
  Mutex mu_;
  std::deque<Write*> writes_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_WRITE_QUEUE_H_
