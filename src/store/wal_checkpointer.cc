#include "src/store/wal_checkpointer.h"

#include <chrono>
#include <utility>

#include "hptune/core/status.h"

namespace hptune::store::internal {

absl::StatusOr<std::unique_ptr<WalCheckpointer>> WalCheckpointer::Start(
    const std::string& path) {
  // A passive checkpoint never waits on a busy database (SQLite does not
  // call the busy handler for it); the deadline is for the first read.
  HPTUNE_ASSIGN_OR_RETURN(
      std::unique_ptr<SqliteConnection> connection,
      SqliteConnection::Open(path, std::chrono::seconds(30)));
  // A connection learns that the file is in WAL mode on its first read;
  // until then a checkpoint on it does nothing.
  HPTUNE_RETURN_IF_ERROR(connection->RetryWhileBusy(
      [&] { return connection->Exec("SELECT 1 FROM sqlite_master LIMIT 1"); }));
  return std::unique_ptr<WalCheckpointer>(
      new WalCheckpointer(std::move(connection)));
}

WalCheckpointer::WalCheckpointer(std::unique_ptr<SqliteConnection> connection)
    : connection_(std::move(connection)), thread_([this] { Run(); }) {}

WalCheckpointer::~WalCheckpointer() {
  {
    MutexLock lock(&mutex_);
    stop_ = true;
  }
  wake_.Signal();
  thread_.join();
}

void WalCheckpointer::Committed(int pages) {
  {
    MutexLock lock(&mutex_);
    if (pages < copied_) copied_ = 0;  // The WAL started over.
    if (due_ || pages - copied_ < kWalPages) return;
    due_ = true;
  }
  wake_.Signal();
}

void WalCheckpointer::Run() {
  while (true) {
    bool stopping = false;
    {
      MutexLock lock(&mutex_);
      while (!due_ && !stop_) wake_.Wait(&mutex_);
      stopping = stop_;
    }
    // A failure (an I/O error the next commit will report) leaves the pages
    // in the WAL, where they are safe; the next kWalPages frames try again.
    absl::StatusOr<int> copied = connection_->CheckpointPassive();
    if (stopping) return;
    MutexLock lock(&mutex_);
    if (copied.ok()) copied_ = *copied;
    due_ = false;
    idle_.SignalAll();
  }
}

void WalCheckpointer::WaitUntilIdle() {
  MutexLock lock(&mutex_);
  while (due_ && !stop_) idle_.Wait(&mutex_);
}

}  // namespace hptune::store::internal
