#include "src/store/measurement_queue.h"

#include <optional>
#include <utility>

#include "src/store/store_rules.h"

namespace hptune::store::internal {

void MeasurementQueue::Add(std::string_view study, int64_t number,
                           const Measurement& measurement, Timestamp now,
                           std::function<void(absl::Status)> done) {
  Measurement m = measurement;
  if (absl::Status valid = PrepareMeasurement(study, number, m, now);
      !valid.ok()) {
    done(valid);
    return;
  }
  Queue({.study = std::string(study),
         .number = number,
         .measurement = std::move(m),
         .time = now,
         .done = std::move(done)});
}

MeasurementQueue::MeasurementQueue(Commit commit)
    : commit_(std::move(commit)), committer_([this] { CommitWhileQueued(); }) {}

MeasurementQueue::~MeasurementQueue() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  queued_.Signal();
  committer_.join();
}

void MeasurementQueue::Queue(QueuedMeasurement queued) {
  std::vector<QueuedMeasurement> batch;
  {
    MutexLock lock(&mu_);
    queue_.push_back(std::move(queued));
    if (committing_) return;  // The running commit, then the thread, take it.
    committing_ = true;
    batch.swap(queue_);
  }
  // No commit running: this caller commits what is queued, once.
  CommitAndAnswer(batch);
  MutexLock lock(&mu_);
  committing_ = false;
  // What came meanwhile is the thread's (as is the end, when stopping).
  if (!queue_.empty() || stopping_) queued_.Signal();
}

void MeasurementQueue::CommitWhileQueued() {
  while (true) {
    std::vector<QueuedMeasurement> batch;
    {
      MutexLock lock(&mu_);
      while ((queue_.empty() || committing_) && !stopping_) queued_.Wait(&mu_);
      while (committing_) queued_.Wait(&mu_);  // Stopping: let it finish.
      if (queue_.empty()) return;  // Stopping, with nothing left to commit.
      committing_ = true;
      batch.swap(queue_);
    }
    CommitAndAnswer(batch);
    MutexLock lock(&mu_);
    committing_ = false;
  }
}

void MeasurementQueue::CommitAndAnswer(std::vector<QueuedMeasurement>& batch) {
  for (QueuedMeasurement& q : batch) q.status = absl::OkStatus();
  if (const absl::Status committed = commit_(batch); !committed.ok()) {
    for (QueuedMeasurement& q : batch) q.status = committed;
  }
  for (QueuedMeasurement& q : batch) q.done(q.status);
}

absl::Status MeasurementQueue::AddAndWait(std::string_view study,
                                          int64_t number,
                                          const Measurement& measurement,
                                          Timestamp now) {
  Mutex mu;
  CondVar answered;
  std::optional<absl::Status> status;  // Under mu.
  Add(study, number, measurement, now, [&](absl::Status s) {
    MutexLock lock(&mu);
    status = std::move(s);
    answered.Signal();
  });
  MutexLock lock(&mu);
  while (!status.has_value()) answered.Wait(&mu);
  return *std::move(status);
}

}  // namespace hptune::store::internal
