// MeasurementQueue: group commit of measurements, for SqliteStore and
// PostgresStore.
//
// A store's write waits for its commit: SQLite's writer is one connection,
// PostgreSQL's writes take one advisory lock and wait for their WAL flush
// while holding it. Reports arrive after every step from many trials at
// once, so committing each alone makes them take turns, a flush each. So
// measurements queue here. A caller that finds no commit running commits
// everything queued in one transaction through `commit` and answers each,
// once: a lone caller pays no hand-over to another thread. What arrives
// while a commit runs waits for a thread of the queue's own, which commits
// it all in the next transaction and goes on while more arrives. Callers
// return once their own measurement is answered (AddAndWait) or at once
// (Add). Under load one commit carries many measurements, and no caller's
// thread (a server's) commits for the others for longer than one commit.
//
// Thread-safe. `commit` and the `done` callbacks run on a caller's thread
// or the queue's, never two commits at once.
#ifndef HPTUNE_SRC_STORE_MEASUREMENT_QUEUE_H_
#define HPTUNE_SRC_STORE_MEASUREMENT_QUEUE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "hptune/core/measurement.h"
#include "hptune/core/mutex.h"
#include "hptune/core/status.h"
#include "hptune/core/time.h"
#include "src/store/store_operations.h"

namespace hptune::store::internal {

// One measurement waiting for its commit.
struct QueuedMeasurement {
  std::string study;
  int64_t number = 0;
  Measurement measurement;  // Prepared (PrepareMeasurement) at `time`.
  Timestamp time{};
  absl::Status status;  // Set by the commit.
  std::function<void(absl::Status)> done;
};

class MeasurementQueue {
 public:
  // Appends every measurement of a batch in one transaction, each refused
  // one's refusal in its status (AddMeasurementsIn), and returns the
  // transaction's error, which then becomes every one's status.
  using Commit = std::function<absl::Status(std::vector<QueuedMeasurement>&)>;
  explicit MeasurementQueue(Commit commit);
  // Commits what is queued, then stops its thread. Destroy it before what
  // `commit` uses.
  ~MeasurementQueue();
  MeasurementQueue(const MeasurementQueue&) = delete;
  MeasurementQueue& operator=(const MeasurementQueue&) = delete;

  // Store::AddMeasurementAsync: `measurement` of trial `number` of `study`,
  // prepared (PrepareMeasurement) at `now` and queued; `done` is called
  // exactly once, maybe before this returns, maybe on another caller's
  // thread.
  void Add(std::string_view study, int64_t number,
           const Measurement& measurement, Timestamp now,
           std::function<void(absl::Status)> done);
  // Store::AddMeasurement: the same, returning its status once it is
  // committed or refused.
  absl::Status AddAndWait(std::string_view study, int64_t number,
                          const Measurement& measurement, Timestamp now);

 private:
  void Queue(QueuedMeasurement queued);
  void CommitWhileQueued();  // The thread's loop.
  // Commits `batch` through commit_ and calls each one's `done`.
  void CommitAndAnswer(std::vector<QueuedMeasurement>& batch);

  const Commit commit_;
  Mutex mu_;
  CondVar queued_;
  std::vector<QueuedMeasurement> queue_ ABSL_GUARDED_BY(mu_);
  bool committing_ ABSL_GUARDED_BY(mu_) = false;  // A caller's or the thread's.
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread committer_;  // Last: starts once the rest is set.
};

// A store's commit of a batch: appends each measurement (AddMeasurementIn),
// a refused one's refusal in its status; the database's error stops it.
template <typename Db>
absl::Status AddMeasurementsIn(Db& db, std::vector<QueuedMeasurement>& batch) {
  for (QueuedMeasurement& q : batch) {
    HPTUNE_RETURN_IF_ERROR(AddMeasurementIn(db, q.study, q.number,
                                            q.measurement, q.time, q.status));
  }
  return absl::OkStatus();
}

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_MEASUREMENT_QUEUE_H_
