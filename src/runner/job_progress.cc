#include "src/runner/job_progress.h"

#include <algorithm>
#include <utility>

namespace hptune::runner::internal {

JobProgress BuildProgress(JobProgress counts, std::vector<int64_t> launched,
                          const std::vector<int64_t>& waiting_in_backend) {
  std::sort(launched.begin(), launched.end());
  counts.running = 0;
  counts.waiting_in_backend.clear();
  for (int64_t trial : launched) {
    if (std::binary_search(waiting_in_backend.begin(), waiting_in_backend.end(),
                           trial)) {
      counts.waiting_in_backend.push_back(trial);
    } else {
      ++counts.running;
    }
  }
  counts.launched = std::move(launched);
  return counts;
}

}  // namespace hptune::runner::internal
