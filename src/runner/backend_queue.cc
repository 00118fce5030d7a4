#include "src/runner/backend_queue.h"

#include <algorithm>
#include <utility>

namespace hptune::runner::internal {

bool BackendQueue::Note(const JobSlots::Running& running) {
  std::vector<int64_t> waiting;
  for (const auto& [slot, execution] : running) {
    if (execution->queued()) waiting.push_back(execution->trial());
  }
  std::sort(waiting.begin(), waiting.end());
  const bool changed = waiting != waiting_;
  waiting_ = std::move(waiting);
  return changed;
}

bool BackendQueue::LeftQueue(int64_t trial, bool queued) {
  if (queued) {
    if (!ran_.contains(trial)) queued_before_running_.insert(trial);
    return false;
  }
  ran_.insert(trial);
  return queued_before_running_.erase(trial) > 0;
}

}  // namespace hptune::runner::internal
