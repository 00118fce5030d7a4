// BackendQueue: which of a job's running trials the backend still holds in
// its queue (a Slurm job PENDING for resources), for progress reports, and
// when a trial that waited there first leaves it: the trial's start, as AI
// Platform counts it, is then, not when it was suggested.
// Not thread-safe: owned by one JobRun.
#ifndef HPTUNE_SRC_RUNNER_BACKEND_QUEUE_H_
#define HPTUNE_SRC_RUNNER_BACKEND_QUEUE_H_

#include <cstdint>
#include <set>
#include <vector>

#include "src/runner/job_slots.h"

namespace hptune::runner::internal {

class BackendQueue {
 public:
  // Records which of `running` wait in the queue now; true when that
  // changed.
  bool Note(const JobSlots::Running& running);
  // For a trial just polled: true once, when a trial seen waiting in the
  // queue before it ever ran is first seen out of it. A re-run that waits
  // again keeps its trial's first start.
  bool LeftQueue(int64_t trial, bool queued);
  // Sorted.
  const std::vector<int64_t>& waiting() const { return waiting_; }

 private:
  std::vector<int64_t> waiting_;
  std::set<int64_t> queued_before_running_;
  std::set<int64_t> ran_;
};

}  // namespace hptune::runner::internal

#endif  // HPTUNE_SRC_RUNNER_BACKEND_QUEUE_H_
