// WalCheckpointer: copies a database's WAL back into its file on a thread of
// its own. Internal to SqliteStore.
//
// SQLite's automatic checkpoint runs inside the COMMIT that crosses the WAL
// size limit, with its fsyncs, while the store's lock is held: every other
// call waits, and on a busy disk that was a stall of hundreds of
// milliseconds every few hundred measurements (the server's throughput
// benchmark's p99). Here the store's writer only reports the WAL's size after
// each commit (SqliteConnection::OnWalCommit); each time kWalPages more
// frames have arrived, this thread runs a passive checkpoint on a connection
// of its own, which never blocks readers or writers.
//
// A passive checkpoint racing a steady stream of commits never copies the
// last frame, and SQLite starts the WAL over only after one has, at the next
// write. So the writer itself, between two of its transactions, finishes a
// checkpoint once the WAL reaches kWalPagesHardLimit (SqliteStore::Write):
// by then this thread has copied and synced nearly everything, and what is
// left is short. That checkpoint is passive too, and SQLite refuses it at
// once (without calling the busy handler, whatever the mode) while this
// thread is checkpointing: on a disk slow enough that this thread's fsyncs
// took tens of milliseconds, commits kept coming and the WAL, which SQLite
// never shrinks, reached 90-110 MB (sqlite_concurrency_test beside a
// writing `dd`). So from kWalPagesWaitLimit on the writer waits for this
// thread to be idle (WaitUntilIdle) and then for a full checkpoint.
// Durability is unchanged: a commit is in the WAL before it returns either
// way; checkpoints only move pages.
#ifndef HPTUNE_SRC_STORE_WAL_CHECKPOINTER_H_
#define HPTUNE_SRC_STORE_WAL_CHECKPOINTER_H_

#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "hptune/core/mutex.h"
#include "src/store/sqlite_connection.h"

namespace hptune::store::internal {

class WalCheckpointer {
 public:
  // SQLite's own default limit for the automatic checkpoint.
  static constexpr int kWalPages = 1000;
  // Where the writer finishes a checkpoint itself: the WAL's bound, about
  // 64 MB. Each time costs the writer two fsyncs (a few ms, more on a busy
  // disk) with every commit waiting; at 4,000 pages a server taking 5,000
  // measurements a second did so nine times a second.
  static constexpr int kWalPagesHardLimit = 16 * kWalPages;
  // Where the writer, its passive checkpoints having been refused, waits
  // for a full one (about 72 MB): the WAL's bound.
  static constexpr int kWalPagesWaitLimit = 18 * kWalPages;

  // Opens a second connection to `path` and starts the thread.
  static absl::StatusOr<std::unique_ptr<WalCheckpointer>> Start(
      const std::string& path);
  // Stops the thread after a last checkpoint.
  ~WalCheckpointer();

  // The WAL has `pages` pages after a commit. Cheap; never blocks on I/O.
  void Committed(int pages);
  // Returns once no checkpoint of this thread is due or running.
  void WaitUntilIdle();

 private:
  explicit WalCheckpointer(std::unique_ptr<SqliteConnection> connection);
  void Run();

  std::unique_ptr<SqliteConnection> connection_;
  Mutex mutex_;
  CondVar wake_;
  CondVar idle_;
  bool due_ ABSL_GUARDED_BY(mutex_) = false;
  bool stop_ ABSL_GUARDED_BY(mutex_) = false;
  // Frames of the current WAL already copied into the database.
  int copied_ ABSL_GUARDED_BY(mutex_) = 0;
  std::thread thread_;
};

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_WAL_CHECKPOINTER_H_
