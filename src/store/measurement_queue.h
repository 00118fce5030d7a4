// MeasurementQueue: group commit of measurements, for SqliteStore and
// PostgresStore.
//
// A store's write waits for its commit: SQLite's writer is one connection,
// PostgreSQL's writes take one advisory lock and wait for their WAL flush
// while holding it. Reports arrive after every step from many trials at
// once, so committing each alone makes them take turns, a flush each. So
// measurements queue here, and a thread of the queue's own commits
// everything queued in one transaction through `commit`, answers each, and
// goes on while more arrived meanwhile; callers return at once (Add) or wait
// for their answer (AddAndWait). Under load one commit carries many
// measurements. The thread is the queue's, not a caller's: a caller that
// committed for the others would keep its own thread (a server's) busy as
// long as reports keep coming.
//
// Thread-safe. `commit` and the `done` callbacks run on the queue's thread.
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
  void CommitWhileQueued();  // The committer's loop.

  const Commit commit_;
  Mutex mu_;
  CondVar queued_;
  std::vector<QueuedMeasurement> queue_ ABSL_GUARDED_BY(mu_);
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
